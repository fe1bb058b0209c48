/* test_codebook.c - code lengths, length limiting, canonical codes and their serialisation,
 * checked against brute force and against the rules they must satisfy; the encoder's threads
 * (each writing its own bit range) against one thread. */
#include "testutil.h"
#include "common/bits.h"
#include "common/checksum.h"
#include "common/memory.h"
#include "huffman/huffman.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scratch for the histogram's tables and the encoder's tasks, kept across the tests (grown,
 * reused with other contents) as an engine lane keeps it across frames. */
static struct gpz_scratch g_scratch;

static uint64_t kraft(const uint8_t *len, uint32_t n)
{
	uint64_t k = 0;
	for (uint32_t s = 0; s < n; s++)
		if (len[s])
			k += (uint64_t)1 << (GPZ_MAX_CODE_LEN - len[s]);
	return k;
}

/* Smallest cost sum(w[i] * l[i]) over all length vectors with max length <= limit and Kraft sum
 * <= 1, by exhaustive search (weights sorted descending, so lengths are nondecreasing). */
static uint64_t brute_cost(const uint32_t *w, int n, int limit, int i, int minl, uint64_t k,
                           uint64_t cost)
{
	uint64_t best = UINT64_MAX;
	if (i == n)
		return cost;
	for (int l = minl; l <= limit; l++) {
		uint64_t kk = k + ((uint64_t)1 << (GPZ_MAX_CODE_LEN - l));
		if (kk > ((uint64_t)1 << GPZ_MAX_CODE_LEN))
			continue;
		uint64_t c = brute_cost(w, n, limit, i + 1, l, kk, cost + (uint64_t)w[i] * l);
		if (c < best)
			best = c;
	}
	return best;
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

static void test_optimal_small(void)
{
	uint64_t st = 12345;
	for (int iter = 0; iter < 400; iter++) {
		int n = 2 + (int)(test_rand(&st) % 8);
		int limit = 0;
		uint32_t counts[16], sorted[16];
		uint8_t len[16];
		while ((1 << limit) < n)
			limit++;
		limit += (int)(test_rand(&st) % 4);
		for (int i = 0; i < n; i++) {
			/* skewed weights so that limits bind */
			counts[i] = 1 + (uint32_t)(test_rand(&st) % (iter % 2 ? 1000 : 3));
			if (iter % 3 == 0)
				counts[i] = 1u << (test_rand(&st) % 14);
			sorted[i] = counts[i];
		}
		qsort(sorted, (size_t)n, sizeof(*sorted), cmp_desc);
		int maxl = gpz_code_lengths(counts, (uint32_t)n, limit, len);
		uint64_t cost = gpz_coded_bits(counts, len, (uint32_t)n);
		uint64_t best = brute_cost(sorted, n, limit, 0, 1, 0, 0);
		CHECK(maxl >= 1 && maxl <= limit, "iter %d: max length %d > limit %d", iter, maxl, limit);
		CHECK(cost == best, "iter %d (n=%d limit=%d): cost %llu, optimum %llu", iter, n, limit,
		      (unsigned long long)cost, (unsigned long long)best);
		CHECK(kraft(len, (uint32_t)n) == (1u << GPZ_MAX_CODE_LEN), "iter %d: incomplete code", iter);
	}
}

/* Fibonacci counts make unlimited Huffman codes as deep as the alphabet is large. */
static void test_fibonacci_limit(void)
{
	enum { N = 45 };
	uint32_t counts[N];
	uint8_t len[N], unl[N];
	counts[0] = counts[1] = 1;
	for (int i = 2; i < N; i++)
		counts[i] = counts[i - 1] + counts[i - 2];
	int deep = gpz_code_lengths(counts, N, 0, unl);
	int maxl = gpz_code_lengths(counts, N, GPZ_MAX_CODE_LEN, len);
	CHECK(deep == N - 1, "unlimited depth %d, expected %d", deep, N - 1);
	CHECK(maxl == GPZ_MAX_CODE_LEN, "limited max %d", maxl);
	CHECK(gpz_lengths_check(len, N) == GPZ_OK, "limited code is not complete");
	uint64_t a = gpz_coded_bits(counts, unl, N), b = gpz_coded_bits(counts, len, N);
	CHECK(b >= a && b < a + a / 1000, "limiting cost: %llu vs %llu bits", (unsigned long long)b,
	      (unsigned long long)a);
	/* Package-merge is optimal, so every tighter limit costs at least as much. */
	uint64_t prev = b;
	for (int lim = GPZ_MAX_CODE_LEN - 1; lim >= 6; lim--) {
		gpz_code_lengths(counts, N, lim, len);
		uint64_t c = gpz_coded_bits(counts, len, N);
		CHECK(c >= prev && gpz_lengths_check(len, N) == GPZ_OK, "limit %d: cost %llu", lim,
		      (unsigned long long)c);
		prev = c;
	}
}

static void test_uniform_65536(void)
{
	uint32_t *counts = malloc(65536 * sizeof(*counts));
	uint8_t *len = malloc(65536);
	for (int s = 0; s < 65536; s++)
		counts[s] = 7;
	int maxl = gpz_code_lengths(counts, 65536, GPZ_MAX_CODE_LEN, len);
	CHECK(maxl == 16, "uniform 65536: max length %d", maxl);
	for (int s = 0; s < 65536; s++)
		if (len[s] != 16) {
			CHECK(0, "uniform 65536: symbol %d has length %d", s, len[s]);
			break;
		}
	free(counts);
	free(len);
}

static void test_large_alphabet(void)
{
	uint32_t n = GPZ_MAX_ALPHABET;
	uint32_t *counts = malloc(n * sizeof(*counts));
	uint8_t *len = malloc(n);
	uint64_t st = 99;
	for (uint32_t s = 0; s < n; s++)
		counts[s] = 1 + (uint32_t)(test_rand(&st) % 5000) * (s % 1000 == 0 ? 1000 : 1);
	int maxl = gpz_code_lengths(counts, n, GPZ_MAX_CODE_LEN, len);
	CHECK(maxl > 20 && maxl <= GPZ_MAX_CODE_LEN, "2^20 alphabet: max length %d", maxl);
	CHECK(gpz_lengths_check(len, n) == GPZ_OK, "2^20 alphabet: code not complete");
	free(counts);
	free(len);
}

static void test_canonical(void)
{
	uint8_t len[6] = { 3, 0, 2, 3, 2, 2 };
	uint32_t code[6];
	gpz_canonical_codes(len, 6, code);
	/* lengths 2: symbols 2,4,5 -> 00,01,10; lengths 3: symbols 0,3 -> 110,111 */
	CHECK(code[2] == 0 && code[4] == 1 && code[5] == 2 && code[0] == 6 && code[3] == 7,
	      "canonical codes %u %u %u %u %u", code[2], code[4], code[5], code[0], code[3]);
}

static void test_serialise(void)
{
	uint64_t st = 7;
	uint32_t n = 70000;
	uint8_t *len = malloc(n), *back = malloc(n), *buf = malloc(gpz_lengths_bound(n));
	for (int iter = 0; iter < 50; iter++) {
		size_t used = 0;
		uint32_t s = 0;
		while (s < n) { /* runs of random lengths, zeros common */
			uint32_t run = 1 + (uint32_t)(test_rand(&st) % (iter % 5 == 0 ? 400 : 4));
			uint8_t v = test_rand(&st) % 3 ? 0 : (uint8_t)(test_rand(&st) % 25);
			for (uint32_t k = 0; k < run && s < n; k++)
				len[s++] = v;
		}
		size_t w = gpz_lengths_write(len, n, buf);
		CHECK(w <= gpz_lengths_bound(n), "serialised size %zu over bound", w);
		gpz_result r = gpz_lengths_read(buf, w, n, back, &used);
		CHECK(r == GPZ_OK && used == w && memcmp(len, back, n) == 0, "iter %d: lengths differ", iter);
		r = gpz_lengths_read(buf, w - 1, n, back, &used);
		CHECK(r != GPZ_OK, "iter %d: truncated codebook accepted", iter);
	}
	uint8_t bad[2] = { 25, 0 };
	size_t used;
	CHECK(gpz_lengths_read(bad, 2, 2, back, &used) == GPZ_ERR_CORRUPT, "length 25 accepted");
	uint8_t rep_first[1] = { 130 };
	CHECK(gpz_lengths_read(rep_first, 1, 4, back, &used) == GPZ_ERR_CORRUPT, "repeat at start");
	free(len);
	free(back);
	free(buf);
}

/* Symbols of width w: mostly small values with a long geometric tail (codes up to the limit)
 * or spread evenly over the alphabet. */
static void fill_symbols(uint8_t *b, size_t n, int w, int skewed, uint64_t seed)
{
	uint32_t top = w == 1 ? 256 : w == 2 ? 65536 : GPZ_MAX_ALPHABET;
	for (size_t i = 0; i < n; i++) {
		uint32_t v;
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (skewed) {
			uint64_t r = seed >> 20;
			v = (uint32_t)__builtin_ctzll(r | (1ull << 40)) * 3 + (uint32_t)(r >> 41) % 3;
		} else {
			v = (uint32_t)(seed >> 33);
		}
		v %= top;
		for (int k = 0; k < w; k++)
			b[i * (size_t)w + (size_t)k] = (uint8_t)(v >> (8 * k));
	}
}

/* The code of src's symbols (n of width w): counts, lengths, codes and the encoder's table into
 * the caller's arrays (the alphabet's limit each), *alphabet; returns the coded size in bits. */
static uint64_t make_code(const uint8_t *src, size_t n, int w, uint32_t *counts, uint8_t *len,
                          uint32_t *code, uint32_t *table, uint32_t *alphabet)
{
	CHECK(gpz_histogram(src, n, w, 1, counts, alphabet) == GPZ_OK, "histogram");
	CHECK(gpz_code_lengths(counts, *alphabet, GPZ_MAX_CODE_LEN, len) > 0, "lengths");
	gpz_canonical_codes(len, *alphabet, code);
	gpz_encoder_table(len, code, *alphabet, table);
	return gpz_coded_bits(counts, len, *alphabet);
}

/* Symbols in runs of one value broken at every kind of offset (the histogram and the encoder
 * take whole blocks of a run at once): runs of random length, some exactly a block long, some ending one
 * symbol into or before a block's end. */
static void fill_runs(uint8_t *b, size_t n, int w, uint64_t seed)
{
	uint32_t top = w == 1 ? 256 : w == 2 ? 65536 : GPZ_MAX_ALPHABET, v = 0;
	size_t left = 0;
	for (size_t i = 0; i < n; i++) {
		if (left == 0) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			static const size_t lens[] = { 1, 15, 16, 17, 31, 32, 33, 64, 500, 4096 };
			left = lens[(seed >> 40) % 10];
			/* value 0 in 3 runs of 4 (a 1-bit code: the encoder's run path), else small
			 * values or any value */
			v = (seed >> 20) % 4 ? 0 : (seed >> 22) % 2 ? (uint32_t)(seed >> 8) % top
			                                          : (uint32_t)(seed >> 60);
		}
		left--;
		for (int k = 0; k < w; k++)
			b[i * (size_t)w + (size_t)k] = (uint8_t)(v >> (8 * k));
	}
}

/* The histogram at several thread counts against a plain count, on runs, on skewed and even
 * symbols, one value throughout, and sizes that are no multiple of its blocks or tasks. */
static void test_histogram(void)
{
	static const size_t sizes[] = { 0, 1, 15, 16, 33, 1000, 32768, 98305, ((size_t)3 << 20) + 7 };
	for (int w = 1; w <= 4; w *= 2) {
		uint32_t limit = gpz_alphabet_limit(w);
		uint32_t *want = malloc(limit * 4), *got = malloc(limit * 4);
		for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
			size_t n = sizes[si];
			uint8_t *src = malloc(n * (size_t)w + 1);
			for (int kind = 0; kind < 4; kind++) {
				if (kind == 0)
					fill_runs(src, n, w, 99 + si);
				else if (kind == 3)
					memset(src, w == 4 ? 0 : 0xA7, n * (size_t)w);
				else
					fill_symbols(src, n, w, kind == 1, 7 + si);
				uint32_t top = 0;
				memset(want, 0, limit * 4);
				for (size_t i = 0; i < n; i++) {
					uint32_t v = gpz_load_symbol(src, i, w);
					want[v]++;
					top = v + 1 > top ? v + 1 : top;
				}
				for (int threads = 1; threads <= 16; threads += 15) {
					uint32_t alphabet = 12345;
					memset(got, 0xEE, limit * 4);
					CHECK(gpz_histogram(src, n, w, threads, got, &alphabet) == GPZ_OK &&
					          alphabet == top && memcmp(want, got, limit * 4) == 0,
					      "histogram w %d n %zu kind %d threads %d", w, n, kind, threads);
					/* and with the content checksum taken in the same pass */
					uint64_t sum = 0;
					memset(got, 0xEE, limit * 4);
					CHECK(gpz_histogram_sum(src, n, w, threads, got, &alphabet, &sum,
					                        threads > 1 ? &g_scratch : NULL) ==
					              GPZ_OK && alphabet == top &&
					          memcmp(want, got, limit * 4) == 0 &&
					          sum == gpz_checksum_threads(src, n * (size_t)w, 1),
					      "histogram+sum w %d n %zu kind %d threads %d", w, n, kind, threads);
				}
			}
			free(src);
		}
		free(want);
		free(got);
	}
}

/* The encoder against a bit-at-a-time reference (codes MSB first, one stream, chunk lengths
 * summed per chunk) on runs of every length around its block size, short and long codes alike,
 * at every width and several chunk sizes; the decoder gives the symbols back. */
static void test_encode_runs(void)
{
	for (int w = 1; w <= 4; w *= 2) {
		for (int cl = 6; cl <= 16; cl += cl == 14 ? 2 : 4) {
			size_t n = ((size_t)1 << 21) + 13, nch = (n + ((size_t)1 << cl) - 1) >> cl;
			uint32_t limit = gpz_alphabet_limit(w), alphabet = 0;
			uint8_t *src = malloc(n * (size_t)w), *len = calloc(limit, 1);
			uint32_t *counts = malloc(limit * 4), *code = calloc(limit, 4);
			uint32_t *table = calloc(limit, 4), *cb = malloc(nch * 4), *want_cb = calloc(nch, 4);
			fill_runs(src, n, w, 555 + (uint64_t)cl);
			uint64_t bits = make_code(src, n, w, counts, len, code, table, &alphabet);
			uint64_t got_bits = 0, at = 0;
			size_t cap = (size_t)(bits + 7) / 8 + GPZ_ENCODE_SLACK;
			uint8_t *want = calloc(cap, 1), *got = malloc(cap);
			for (size_t i = 0; i < n; i++) {
				uint32_t v = gpz_load_symbol(src, i, w);
				for (int b = len[v] - 1; b >= 0; b--, at++)
					want[at / 8] |= (uint8_t)(((code[v] >> b) & 1) << (7 - at % 8));
				want_cb[i >> cl] += len[v];
			}
			CHECK(at == bits, "reference bits");
			for (int threads = 1; threads <= 3; threads += 2) {
				memset(got, 0x5A, cap);
				CHECK(gpz_huff_encode(src, n, w, table, cl, threads, got, cap, cb, &got_bits) ==
				              GPZ_OK && got_bits == bits &&
				          memcmp(got, want, (size_t)(bits / 8)) == 0 &&
				          (bits % 8 == 0 || (got[bits / 8] & (0xFF00 >> (bits % 8))) ==
				                                want[bits / 8]) &&
				          memcmp(cb, want_cb, nch * 4) == 0,
				      "runs: w %d chunk_log %d threads %d: not the reference bits", w, cl,
				      threads);
				/* given the alphabet (1-byte symbols: two a put) and a scratch */
				memset(got, 0x3C, cap);
				CHECK(gpz_huff_encode_in(src, n, w, table, alphabet, cl, threads, got, cap, cb,
				                         &got_bits, &g_scratch) == GPZ_OK &&
				          got_bits == bits && memcmp(got, want, (size_t)(bits / 8)) == 0 &&
				          (bits % 8 == 0 || (got[bits / 8] & (0xFF00 >> (bits % 8))) ==
				                                want[bits / 8]) &&
				          memcmp(cb, want_cb, nch * 4) == 0,
				      "runs: w %d chunk_log %d threads %d, encode_in: not the reference bits",
				      w, cl, threads);
			}
			/* and back: the decoder's zero-run path (value 0 has the 1-bit code here) */
			gpz_decoder d;
			uint64_t *starts = malloc((nch + 1) * 8);
			uint8_t *back = malloc(n * (size_t)w);
			CHECK(len[0] == 1, "runs: value 0 has a 1-bit code");
			starts[0] = 0;
			for (size_t c = 0; c < nch; c++)
				starts[c + 1] = starts[c] + want_cb[c];
			CHECK(gpz_decoder_init(&d, len, alphabet, w) == GPZ_OK, "decoder");
			for (int threads = 1; threads <= 3; threads += 2) {
				memset(back, 0x77, n * (size_t)w);
				CHECK(gpz_huff_decode(&d, want, cap, starts, n, w, cl, threads, back) ==
				              GPZ_OK && memcmp(back, src, n * (size_t)w) == 0,
				      "runs: w %d chunk_log %d threads %d: decoded other symbols", w, cl,
				      threads);
				/* with the content checksum taken by the decoding tasks */
				uint64_t sum = 0;
				memset(back, 0x77, n * (size_t)w);
				CHECK(gpz_huff_decode_sum(&d, want, cap, starts, n, w, cl, threads, back,
				                          &sum) == GPZ_OK &&
				          memcmp(back, src, n * (size_t)w) == 0 &&
				          sum == gpz_checksum_threads(src, n * (size_t)w, 1),
				      "runs: w %d chunk_log %d threads %d: decode+checksum", w, cl, threads);
			}
			gpz_decoder_free(&d);
			free(starts); free(back);
			free(src); free(len); free(counts); free(code); free(table); free(cb);
			free(want_cb); free(want); free(got);
		}
	}
}

/* Several encoder threads give one thread's bytes, chunk lengths and total, whatever the bit
 * offsets where the tasks (4 Mi symbols) meet, tiny last tasks included. */
static void test_encode_threads(void)
{
	static const struct { int w, skewed, chunk_log; size_t extra; } cases[] = {
		{ 1, 1, 14, 1 }, { 1, 1, 10, 3 }, { 1, 0, 8, 17 }, { 1, 1, 14, 1000 },
		{ 1, 1, 12, (4u << 20) - 1 }, { 2, 1, 14, 5 }, { 2, 0, 16, 777 }, { 4, 1, 14, 2 },
		/* one-symbol last tasks at other bit offsets: their bits may all lie in the byte the
		 * task before them ends in (the parallel join's edge case) */
		{ 1, 1, 16, 1 }, { 2, 1, 12, 1 }, { 1, 1, 8, 2 },
	};
	for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
		int w = cases[ci].w, cl = cases[ci].chunk_log;
		size_t n = ((size_t)2 << 22) + cases[ci].extra, nch = (n + ((size_t)1 << cl) - 1) >> cl;
		uint32_t limit = gpz_alphabet_limit(w), alphabet = 0;
		uint8_t *src = malloc(n * (size_t)w), *len = calloc(limit, 1);
		uint32_t *counts = malloc(limit * sizeof(uint32_t)), *code = calloc(limit, 4);
		uint32_t *table = calloc(limit, 4), *cb1 = malloc(nch * 4), *cbt = malloc(nch * 4);
		fill_symbols(src, n, w, cases[ci].skewed, 12345 + ci);
		uint64_t bits = make_code(src, n, w, counts, len, code, table, &alphabet);
		uint64_t b1 = 0, bt = 0;
		size_t cap = (size_t)(bits + 7) / 8 + GPZ_ENCODE_SLACK;
		uint8_t *one = malloc(cap), *many = malloc(cap);
		memset(one, 0xAA, cap);
		CHECK(gpz_huff_encode(src, n, w, table, cl, 1, one, cap, cb1, &b1) == GPZ_OK &&
		      b1 == bits, "case %zu: one thread", ci);
		for (int threads = 2; threads <= 16; threads += 7) {
			memset(many, 0x55, cap);
			CHECK(gpz_huff_encode(src, n, w, table, cl, threads, many, cap, cbt, &bt) ==
			              GPZ_OK && bt == bits, "case %zu: %d threads", ci, threads);
			CHECK(memcmp(one, many, (size_t)(bits + 7) / 8) == 0,
			      "case %zu (w %d, extra %zu): %d threads give other bytes", ci, w,
			      cases[ci].extra, threads);
			CHECK(memcmp(cb1, cbt, nch * 4) == 0, "case %zu: chunk lengths differ", ci);
			/* with room for the input, the tasks write where their input lies */
			uint8_t *room = malloc(n * (size_t)w + 2 * GPZ_ENCODE_SLACK);
			memset(room, 0x33, n * (size_t)w + 2 * GPZ_ENCODE_SLACK);
			CHECK(room && gpz_huff_encode(src, n, w, table, cl, threads, room,
			                              n * (size_t)w + 2 * GPZ_ENCODE_SLACK, cbt, &bt) ==
			              GPZ_OK && bt == bits &&
			          memcmp(one, room, (size_t)(bits + 7) / 8) == 0 &&
			          memcmp(cb1, cbt, nch * 4) == 0,
			      "case %zu: %d threads in place give other bytes", ci, threads);
			free(room);
			/* too small a buffer is refused */
			CHECK(gpz_huff_encode(src, n, w, table, cl, threads, many, cap - GPZ_ENCODE_SLACK - 1,
			                      cbt, &bt) == GPZ_ERR_DST_TOO_SMALL, "case %zu: small dst", ci);
			/* staged in a scratch kept from call to call (grown, reused) and joined by the
			 * threads side by side: the same bytes; too small a buffer refused */
			memset(many, 0x66, cap);
			memset(cbt, 0, nch * 4);
			CHECK(gpz_huff_encode_in(src, n, w, table, alphabet, cl, threads, many, cap, cbt,
			                         &bt, &g_scratch) == GPZ_OK && bt == bits &&
			          memcmp(one, many, (size_t)(bits + 7) / 8) == 0 &&
			          memcmp(cb1, cbt, nch * 4) == 0,
			      "case %zu (w %d, extra %zu): %d threads through the scratch give other bytes",
			      ci, w, cases[ci].extra, threads);
			CHECK(gpz_huff_encode_in(src, n, w, table, alphabet, cl, threads, many,
			                         cap - GPZ_ENCODE_SLACK - 1, cbt, &bt, &g_scratch) ==
			              GPZ_ERR_DST_TOO_SMALL, "case %zu: small dst, scratch", ci);
		}
		free(src); free(len); free(counts); free(code); free(table); free(cb1); free(cbt);
		free(one); free(many);
	}
}

/* A stretch of rare symbols codes to more bits than its bytes: the task over it cannot write
 * where its input lies, and the encoder falls back to private buffers with the same bytes. */
static void test_encode_expanding(void)
{
	const size_t q = (size_t)4 << 20, n = 3 * q + 12345;
	uint8_t *src = malloc(n), *len = calloc(256, 1);
	uint32_t counts[256], code[256], table[256], alphabet = 0;
	size_t nch = (n + (1u << 14) - 1) >> 14, room = n + 2 * GPZ_ENCODE_SLACK;
	uint32_t *cb1 = malloc(nch * 4), *cbt = malloc(nch * 4);

	memset(src, 0, n);
	for (size_t i = q; i < 2 * q; i++)
		src[i] = (uint8_t)(1 + i % 255);
	CHECK(gpz_histogram(src, n, 1, 1, counts, &alphabet) == GPZ_OK, "histogram");
	CHECK(gpz_code_lengths(counts, alphabet, GPZ_MAX_CODE_LEN, len) > 0 && len[7] > 8,
	      "rare symbols code to more than 8 bits");
	gpz_canonical_codes(len, alphabet, code);
	gpz_encoder_table(len, code, alphabet, table);
	uint64_t bits = gpz_coded_bits(counts, len, alphabet), b1 = 0, bt = 0;
	uint8_t *one = malloc(room), *many = malloc(room);
	CHECK(gpz_huff_encode(src, n, 1, table, 14, 1, one, room, cb1, &b1) == GPZ_OK && b1 == bits,
	      "expanding: one thread");
	for (int threads = 2; threads <= 16; threads += 7) {
		memset(many, 0x77, room);
		CHECK(gpz_huff_encode(src, n, 1, table, 14, threads, many, room, cbt, &bt) == GPZ_OK &&
		          bt == bits && memcmp(one, many, (size_t)(bits + 7) / 8) == 0 &&
		          memcmp(cb1, cbt, nch * 4) == 0,
		      "expanding: %d threads give other bytes", threads);
		/* a slot of the scratch (its task's input size) is too small too */
		memset(many, 0x78, room);
		CHECK(gpz_huff_encode_in(src, n, 1, table, alphabet, 14, threads, many, room, cbt,
		                         &bt, &g_scratch) == GPZ_OK &&
		          bt == bits && memcmp(one, many, (size_t)(bits + 7) / 8) == 0 &&
		          memcmp(cb1, cbt, nch * 4) == 0,
		      "expanding: %d threads, scratch, give other bytes", threads);
	}
	free(src); free(len); free(cb1); free(cbt); free(one); free(many);
}

/* The encoder's two-chunk path and the decoder's plain path (no zero runs, no 1-bit code) on
 * skewed symbols, whose codes run to the limit (far past the decoder's lookup table: every kind
 * of step), and on even ones (1-byte: 8-bit codes; 2-byte: all longer than the table), at chunk
 * sizes where chunks go two or four together and where they do not, a symbol count that is no
 * multiple of a chunk, several threads, output buffers with just the room the bits need; then
 * the payload with a bit flipped and cut short, which must decode to an error or to other
 * symbols, never past its end (the ASan build runs this too). */
static void test_decode_plain(void)
{
	for (int w = 1; w <= 2; w++) {
		for (int skewed = 0; skewed <= 1; skewed++) {
			for (int cl = 6; cl <= 16; cl += 5) {
				/* 1-byte symbols: enough for the encoder's pair table */
				size_t n = ((size_t)1 << (w == 1 ? 20 : 19)) + 13;
				size_t nch = (n + ((size_t)1 << cl) - 1) >> cl;
				uint32_t limit = gpz_alphabet_limit(w), alphabet = 0;
				uint8_t *src = malloc(n * (size_t)w), *len = calloc(limit, 1);
				uint32_t *counts = malloc(limit * 4), *code = calloc(limit, 4);
				uint32_t *table = calloc(limit, 4);
				uint64_t *starts = calloc(nch + 1, 8), at = 0;
				fill_symbols(src, n, w, skewed, 77 + (uint64_t)cl);
				uint64_t bits = make_code(src, n, w, counts, len, code, table, &alphabet);
				size_t cap = (size_t)(bits + 7) / 8;
				uint8_t *pay = calloc(cap, 1), *back = malloc(n * (size_t)w);
				for (size_t i = 0; i < n; i++) {
					uint32_t v = gpz_load_symbol(src, i, w);
					for (int b = len[v] - 1; b >= 0; b--, at++)
						pay[at / 8] |= (uint8_t)(((code[v] >> b) & 1) << (7 - at % 8));
					starts[(i >> cl) + 1] = at;
				}
				CHECK(len[0] != 1, "plain: no 1-bit code");
				size_t room = cap + GPZ_ENCODE_SLACK;
				uint8_t *enc = malloc(room);
				uint32_t *cb = malloc(nch * 4);
				for (int threads = 1; threads <= 3; threads += 2) {
					for (int sc = 0; sc <= 1; sc++) {
						uint64_t got_bits = 0;
						int same = 1;
						memset(enc, 0xA5, room);
						CHECK(gpz_huff_encode_in(src, n, w, table, alphabet, cl, threads, enc,
						                         room, cb, &got_bits,
						                         sc ? &g_scratch : NULL) == GPZ_OK &&
						          got_bits == bits && memcmp(enc, pay, (size_t)(bits / 8)) == 0 &&
						          (bits % 8 == 0 || (enc[bits / 8] & (0xFF00 >> (bits % 8))) ==
						                                pay[bits / 8]),
						      "plain: w %d skewed %d chunk_log %d threads %d scratch %d: not the "
						      "reference bits", w, skewed, cl, threads, sc);
						for (size_t c = 0; c < nch; c++)
							same &= cb[c] == starts[c + 1] - starts[c];
						CHECK(same, "plain: w %d chunk_log %d threads %d: chunk lengths", w, cl,
						      threads);
					}
				}
				free(enc);
				free(cb);
				gpz_decoder d;
				CHECK(gpz_decoder_init(&d, len, alphabet, w) == GPZ_OK, "decoder");
				for (int threads = 1; threads <= 3; threads += 2) {
					memset(back, 0x77, n * (size_t)w);
					CHECK(gpz_huff_decode(&d, pay, cap, starts, n, w, cl, threads, back) ==
					              GPZ_OK && memcmp(back, src, n * (size_t)w) == 0,
					      "plain: w %d skewed %d chunk_log %d threads %d: other symbols", w,
					      skewed, cl, threads);
				}
				/* the payload exactly as long as its bits: no slack past the end */
				uint8_t *tight = malloc(cap);
				memcpy(tight, pay, cap);
				tight[cap / 2] ^= 0x10;
				gpz_result r = gpz_huff_decode(&d, tight, cap, starts, n, w, cl, 1, back);
				CHECK(r != GPZ_OK || memcmp(back, src, n * (size_t)w) != 0,
				      "plain: w %d chunk_log %d: a flipped bit went unnoticed", w, cl);
				free(tight);
				tight = malloc(cap / 2);
				memcpy(tight, pay, cap / 2);
				CHECK(gpz_huff_decode(&d, tight, cap / 2, starts, n, w, cl, 1, back) != GPZ_OK,
				      "plain: w %d chunk_log %d: a payload cut in half decoded", w, cl);
				free(tight);
				gpz_decoder_free(&d);
				free(src); free(len); free(counts); free(code); free(table); free(starts);
				free(pay); free(back);
			}
		}
	}
}

/* Tasks of 1-byte symbols (4 Mi each) that end on two chunks coded together, joined through a
 * lane's scratch that holds an earlier frame's bytes: a task's bits are moved with the bytes after
 * them read as padding, and where they end against the next task's decides whether that padding
 * is read at all, so several sizes (a mutation that left garbage there was caught at the
 * last). */
static void test_encode_two_tasks(void)
{
	static const size_t shape[] = { 0, 5, 28 }; /* the last caught it */
	const int cl = 14;
	for (size_t v = 0; v < sizeof shape / sizeof shape[0]; v++) {
		size_t k = shape[v];
		size_t n = ((size_t)9 << 20) + 13 + 1237 * k, nch = (n + ((size_t)1 << cl) - 1) >> cl;
		uint32_t alphabet = 0, counts[256], code[256], table[256], *cb = malloc(nch * 4);
		uint8_t len[256], *src = malloc(n);
		uint64_t at = 0, got_bits = 0;
		fill_symbols(src, n, 1, 1, 901 + k);
		uint64_t bits = make_code(src, n, 1, counts, len, code, table, &alphabet);
		size_t room = (size_t)(bits + 7) / 8 + GPZ_ENCODE_SLACK, dirty = n + ((size_t)1 << 16);
		uint8_t *want = calloc(room, 1), *got = malloc(room), *sp;
		for (size_t i = 0; i < n; i++)
			for (int b = len[src[i]] - 1; b >= 0; b--, at++)
				want[at / 8] |= (uint8_t)(((code[src[i]] >> b) & 1) << (7 - at % 8));
		sp = gpz_scratch_get(&g_scratch, dirty);
		CHECK(sp != NULL, "scratch");
		if (sp)
			memset(sp, 0x5A, dirty);
		memset(got, 0xA5, room);
		CHECK(gpz_huff_encode_in(src, n, 1, table, alphabet, cl, 3, got, room, cb, &got_bits,
		                         &g_scratch) == GPZ_OK && got_bits == bits &&
		          memcmp(got, want, (size_t)(bits / 8)) == 0 &&
		          (bits % 8 == 0 || (got[bits / 8] & (0xFF00 >> (bits % 8))) ==
		                                want[bits / 8]),
		      "two-chunk tasks, %zu symbols: not the reference bits", n);
		free(cb); free(src); free(want); free(got);
	}
}

int main(void)
{
	test_optimal_small();
	test_fibonacci_limit();
	test_uniform_65536();
	test_large_alphabet();
	test_canonical();
	test_serialise();
	test_histogram();
	test_encode_runs();
	test_encode_threads();
	test_encode_expanding();
	test_decode_plain();
	test_encode_two_tasks();
	gpz_scratch_free(&g_scratch);
	if (test_failures)
		fprintf(stderr, "%d failures\n", test_failures);
	else
		printf("codebook: all checks passed\n");
	return test_failures != 0;
}
