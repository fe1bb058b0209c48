/* test_lzsym.c - LZ-symbol frames (type 5, src/lzsym/ and container/frame_lzsym.c):
 *  - edge: round trips (the same bytes on 1 and 3 threads) of 1-, 2- and 4-byte symbols: one
 *    value (a constant frame), long runs across chunks, runs of other values (matches), the
 *    largest alphabet (and one past it, which goes Huffman-only), sizes that are not a multiple
 *    of the chunk, noise; the frame type each gets; the bucket code of run and match lengths;
 *    hostile frames (every truncation, changed bytes, lying fields): an error or the right
 *    output, never a crash.
 *  - corpora: every quantization file in the prepared data (corpora/data/quant, nyx), with the
 *    ratio against Huffman-only printed. */
#include "testutil.h"
#include "lzsym_tiles.h"
#include "container/frame.h"
#include "lzsym/lzsym.h"
#include "common/bits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gpz_params params(int w, int chunk_log, int lz)
{
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = w;
	p.chunk_log = chunk_log;
	p.lz_symbols = lz;
	return p;
}

/* The type of the stream's first frame. */
static int first_type(const uint8_t *c, size_t n)
{
	gpz_block_info in;
	return n > 8 && gpz_parse_block(c + 8, n - 8, &in) == GPZ_OK ? (int)in.frame_type : -1;
}

/* Quantization-like codes: mostly z, sometimes a spread of others, in runs. */
static void quant_like(uint8_t *d, size_t n, int w, uint32_t z, uint32_t spread, uint64_t *st)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = test_rand(st);
		uint32_t v = r % 1000 < 990 ? z : (uint32_t)(z - spread / 2 + (r >> 20) % spread);
		gpz_store_symbol(d, i, w, v);
	}
}

static size_t trip(const uint8_t *src, size_t n, int w, int chunk_log, const char *what,
                   uint8_t **out)
{
	gpz_params p = params(w, chunk_log, 1);
	char name[160];
	snprintf(name, sizeof name, "%s (w=%d, chunk 2^%d)", what, w, chunk_log);
	return test_roundtrip(src, n * (size_t)w, &p, name, out);
}

static void buckets(void)
{
	uint32_t vs[] = { 0, 1, 3, 4, 5, 6, 7, 8, 11, 12, 1000, 65535, (1u << 24) - 1 };
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		unsigned b = gpz_lzs_bucket(vs[i]);
		uint32_t base = gpz_lzs_base(b), span = 1u << gpz_lzs_extra_bits(b);
		CHECK(b < GPZ_LZS_BUCKETS && base <= vs[i] && vs[i] - base < span,
		      "value %u: bucket %u base %u extra %u", vs[i], b, base, gpz_lzs_extra_bits(b));
		CHECK(b == 0 || gpz_lzs_base(b - 1) + (1u << gpz_lzs_extra_bits(b - 1)) == base,
		      "bucket %u follows bucket %u", b, b - 1);
	}
}

/* Tokens made in batches of any size are the tokens made at once. */
static void batches(void)
{
	uint64_t st = 3;
	size_t n = 30000;
	uint8_t *d = malloc(2 * n);
	uint32_t *head = calloc((size_t)1 << GPZ_LZS_HASH_LOG, sizeof(uint32_t));
	struct gpz_lzs_token *all = malloc(n * sizeof(*all)), *part = malloc(n * sizeof(*part));
	quant_like(d, n, 2, 500, 20, &st);
	for (size_t i = 9000; i < 12000; i++) /* repeats, for matches */
		gpz_store_le16(d + 2 * i, gpz_load_le16(d + 2 * (i - 2500)));
	size_t pos = 0, na = gpz_lzs_tokens(d, 2, 0, n, &pos, 500, head, all, n), np = 0;
	CHECK(pos == n, "tokens at once cover the chunk");
	memset(head, 0, ((size_t)1 << GPZ_LZS_HASH_LOG) * sizeof(uint32_t));
	for (pos = 0; pos < n;)
		np += gpz_lzs_tokens(d, 2, 0, n, &pos, 500, head, part + np, 7);
	int same = na == np;
	for (size_t i = 0; same && i < na; i++)
		same = all[i].sym == part[i].sym && all[i].len == part[i].len &&
		       all[i].dist == part[i].dist;
	CHECK(same, "tokens in batches of 7: %zu, at once: %zu", np, na);
	free(all);
	free(part);
	free(head);
	free(d);
}

/* The tokens a[0 .. na) of the chunk [c0, c1) made again from their matches alone, in batches
 * of 5 (gpz_lzs_tokens_again, the CPU writer's second pass): 0 when they are the same. */
static int differ_again(const uint8_t *d, int w, size_t c0, size_t c1, uint32_t z,
                        const struct gpz_lzs_token *a, size_t na, struct gpz_lzs_token *b,
                        struct gpz_lzs_taken *tk)
{
	size_t nk = 0, at = c0, pos = c0, mi = 0, nb = 0;
	for (size_t k = 0; k < na; k++) {
		if (a[k].len && a[k].dist)
			tk[nk++] = (struct gpz_lzs_taken){ at, a[k].len, a[k].dist };
		at += a[k].len ? a[k].len : 1;
	}
	while (pos < c1 && nb < na)
		nb += gpz_lzs_tokens_again(d, w, c1, &pos, z, tk, nk, &mi, b + nb, 5);
	if (nb != na || mi != nk || pos != c1)
		return 1;
	for (size_t k = 0; k < na; k++)
		if (a[k].sym != b[k].sym || a[k].len != b[k].len || a[k].dist != b[k].dist)
			return 1;
	return 0;
}

/* The GPU tokenizer's algorithm (lzsym_tiles.c) makes the CPU's tokens, chunk by chunk, with
 * the run symbol a frame would have; so do the chunk's matches alone (differ_again). */
static void same_tiles(const uint8_t *d, size_t n, int w, int chunk_log, const char *what)
{
	uint32_t top = 0, *hist, *head = calloc((size_t)1 << GPZ_LZS_HASH_LOG, sizeof(uint32_t));
	size_t m = (size_t)1 << chunk_log, bad = 0;
	struct gpz_lzs_token *a = malloc(m * sizeof(*a)), *b = malloc(m * sizeof(*b));
	struct gpz_lzs_taken *tk = malloc(m * sizeof(*tk));

	for (size_t i = 0; i < n; i++)
		top = gpz_load_symbol(d, i, w) > top ? gpz_load_symbol(d, i, w) : top;
	hist = calloc((size_t)top + 1, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		hist[gpz_load_symbol(d, i, w)]++;
	uint32_t z = gpz_lzs_run_symbol(hist, top + 1);
	for (size_t c0 = 0; c0 < n && !bad; c0 += m) {
		size_t c1 = n - c0 < m ? n : c0 + m, pos = c0;
		size_t na = gpz_lzs_tokens(d, w, c0, c1, &pos, z, head, a, m);
		size_t nb = lzsym_tile_tokens(d, w, c0, c1, z, b);
		bad += na != nb;
		for (size_t k = 0; !bad && k < na; k++)
			bad += a[k].sym != b[k].sym || a[k].len != b[k].len || a[k].dist != b[k].dist;
		CHECK(!bad, "%s (w=%d, chunk 2^%d): the GPU's tiles differ from the CPU's tokens in "
		      "the chunk at %zu (%zu and %zu tokens)", what, w, chunk_log, c0, nb, na);
		bad += differ_again(d, w, c0, c1, z, a, na, b, tk);
		CHECK(!bad, "%s (w=%d, chunk 2^%d): the tokens made again from the matches differ in "
		      "the chunk at %zu", what, w, chunk_log, c0);
	}
	free(hist);
	free(head);
	free(a);
	free(b);
	free(tk);
}

/* Inputs for same_tiles: runs, spreads, copies (overlapping ones too), long runs of z. */
static void tiles(void)
{
	uint64_t st = 21;
	const int ws[] = { 1, 2, 4 };
	size_t n = 200003;
	uint8_t *d = malloc(4 * n);
	for (int k = 0; k < 3; k++) {
		int w = ws[k];
		for (int cl = 8; cl <= 14; cl += 3) {
			quant_like(d, n, w, w == 1 ? 40 : 1000, 150, &st);
			same_tiles(d, n, w, cl, "quantization-like");
			for (size_t i = 0; i < n;) { /* runs of z, literals, copies back up to 4000 */
				uint64_t r = test_rand(&st);
				size_t len = 4 + (r >> 30) % 300, dist = 1 + (r >> 10) % 4000;
				if (i > 4000 && r % 100 < 20) {
					for (size_t j = 0; j < len && i < n; j++, i++)
						gpz_store_symbol(d, i, w, gpz_load_symbol(d, i - dist, w));
					continue;
				}
				uint32_t v = (r >> 12) % 10 < 6 ? 5 : (uint32_t)((r >> 24) % 250);
				for (size_t j = 0; j < 1 + (r >> 50) % 40 && i < n; j++, i++)
					gpz_store_symbol(d, i, w, v);
			}
			same_tiles(d, n, w, cl, "copies");
			for (size_t i = 0; i < n; i++) /* long runs: the 512-byte test */
				gpz_store_symbol(d, i, w, i % 5000 < 4900 ? 9 : (uint32_t)(i % 7));
			same_tiles(d, n, w, cl, "long runs");
		}
		same_tiles(d, 1, w, 8, "one symbol");
		same_tiles(d, 33, w, 8, "33 symbols");
	}
	free(d);
}

static void edge(void)
{
	uint64_t st = 11;
	const int ws[] = { 1, 2, 4 };
	for (int k = 0; k < 3; k++) {
		int w = ws[k];
		size_t n = 3 * 4096 + 17;
		uint8_t *d = calloc(n, (size_t)w), *c = NULL;
		/* one value: constant */
		trip(d, n, w, 12, "all zero", &c);
		CHECK(c && first_type(c, 1000) == GPZ_FRAME_CONSTANT, "one value: constant (w=%d)", w);
		free(c);
		/* quantization-like codes: LZ-symbol frames, smaller than Huffman-only */
		quant_like(d, n, w, w == 1 ? 128 : 32768, 64, &st);
		size_t lz = trip(d, n, w, 12, "quantization-like", &c);
		CHECK(c && first_type(c, lz) == GPZ_FRAME_LZSYM, "quantization-like: type 5 (w=%d)", w);
		free(c);
		gpz_params ph = params(w, 12, 0);
		size_t hf = test_roundtrip(d, n * (size_t)w, &ph, "the same, Huffman-only", NULL);
		CHECK(lz < hf, "runs: LZ-symbol %zu bytes, Huffman-only %zu (w=%d)", lz, hf, w);
		/* runs longer than a chunk, a run at every chunk start, a short last chunk */
		for (size_t i = 0; i < n; i++)
			gpz_store_symbol(d, i, w, i % 9000 < 8500 ? 7 : (uint32_t)(i % 5));
		trip(d, n, w, 8, "long runs", NULL);
		/* a pattern repeated (matches), runs of a value that is not the run symbol */
		for (size_t i = 0; i < n; i++)
			gpz_store_symbol(d, i, w, i < 64 || i % 1000 > 900 ? (uint32_t)(test_rand(&st) % 200)
			                 : i % 1000 > 700 ? 3 : (uint32_t)(i % 64 * 3 % 200));
		trip(d, n, w, 12, "repeats and runs", NULL);
		/* noise: stored or Huffman-only, whatever is smaller; automatic: not type 5 */
		for (size_t i = 0; i < n; i++)
			gpz_store_symbol(d, i, w, (uint32_t)(test_rand(&st) % (w == 1 ? 256 : 50000)));
		trip(d, n, w, 10, "noise", NULL);
		gpz_params pa = params(w, 12, GPZ_LZS_AUTO);
		size_t al = test_roundtrip(d, n * (size_t)w, &pa, "noise, automatic", &c);
		CHECK(c && first_type(c, al) != GPZ_FRAME_LZSYM, "noise, automatic: not type 5");
		free(c);
		quant_like(d, n, w, 100, 40, &st);
		al = test_roundtrip(d, n * (size_t)w, &pa, "quantization-like, automatic", &c);
		CHECK(c && first_type(c, al) == GPZ_FRAME_LZSYM, "runs, automatic: type 5 (w=%d)", w);
		free(c);
		/* one symbol, two symbols, a chunk and one */
		trip(d, 1, w, 8, "one symbol", NULL);
		trip(d, 2, w, 8, "two symbols", NULL);
		trip(d, 257, w, 8, "a chunk and one", NULL);
		/* the largest chunks: tokens in batches, memory independent of the chunk size */
		quant_like(d, n, w, 100, 40, &st);
		trip(d, n, w, 24, "chunks of 2^24", NULL);
		free(d);
	}
	/* the largest alphabet: 2^20 - 96 literals fit, one more goes Huffman-only */
	size_t n = 50000;
	uint8_t *d = malloc(4 * n), *c = NULL;
	for (int over = 0; over < 2; over++) {
		uint32_t top = GPZ_MAX_ALPHABET - GPZ_LZS_EXTRA - 1 + (uint32_t)over;
		for (size_t i = 0; i < n; i++)
			gpz_store_le32(d + 4 * i, i % 3 ? 5 : i % 7 == 0 ? top : (uint32_t)(i % 1000));
		size_t len = trip(d, n, 4, 14, over ? "alphabet past the largest" : "largest alphabet",
		                  &c);
		CHECK(c && first_type(c, len) == (over ? GPZ_FRAME_HUFFMAN : GPZ_FRAME_LZSYM),
		      "alphabet %u: frame type %d", top + 1, c ? first_type(c, len) : -1);
		free(c);
	}
	free(d);
}

/* Every truncation and many changed bytes of a type-5 stream: an error or the input, exactly. */
static void hostile(void)
{
	uint64_t st = 5;
	size_t n = 20000, clen = 0, got = 0;
	uint8_t *d = malloc(2 * n), *back = malloc(2 * n), *c = NULL;
	gpz_ctx *ctx;
	gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2);
	quant_like(d, n, 2, 100, 300, &st);
	for (size_t i = 5000; i < 5600; i++) /* and a repeat, for matches */
		gpz_store_le16(d + 2 * i, gpz_load_le16(d + 2 * (i - 300)));
	clen = trip(d, n, 2, 10, "hostile base", &c);
	CHECK(c && first_type(c, clen) == GPZ_FRAME_LZSYM, "hostile base is type 5");
	uint8_t *bad = malloc(clen);
	for (size_t cut = 0; c && cut < clen; cut += 1 + cut / 50) {
		gpz_result r = gpz_decompress(ctx, c, cut, back, 2 * n, &got);
		CHECK(r != GPZ_OK, "cut at %zu of %zu: %s", cut, clen, gpz_result_string(r));
	}
	for (int t = 0; c && t < 3000; t++) {
		memcpy(bad, c, clen);
		size_t at = t < 200 ? 8 + (size_t)t : (size_t)(test_rand(&st) % clen);
		bad[at] ^= (uint8_t)(1 + test_rand(&st) % 255);
		if (t % 2 && at >= 8 + 32 && at < clen - 28) { /* keep the header check right */
			gpz_block_info in;
			if (gpz_parse_block(bad + 8, clen - 8, &in) == GPZ_OK && in.block_bytes < clen) {
				size_t head = (size_t)in.block_bytes - 8 - (size_t)gpz_load_le64(bad + 8 + 24) - 4;
				gpz_store_le32(bad + 8 + head, gpz_header_check(bad + 8, head));
			}
		}
		gpz_result r = gpz_decompress(ctx, bad, clen, back, 2 * n, &got);
		CHECK(r != GPZ_OK || (got == 2 * n && !memcmp(back, d, 2 * n)),
		      "byte %zu changed: accepted with wrong output", at);
	}
	gpz_ctx_free(ctx);
	free(bad);
	free(c);
	free(back);
	free(d);
}

static void corpus_file(const char *path, void *unused)
{
	size_t n = 0;
	(void)unused;
	size_t pl_ = strlen(path);
	if (pl_ < 4 || (strcmp(path + pl_ - 4, ".u16") && strcmp(path + pl_ - 4, ".b16")))
		return;
	uint8_t *src = test_read_file(path, &n);
	if (!src)
		return;
	gpz_params pl = params(2, 14, 1), ph = params(2, 14, 0), pa = params(2, 14, GPZ_LZS_AUTO);
	size_t lz = test_roundtrip(src, n, &pl, path, NULL);
	size_t hf = test_roundtrip(src, n, &ph, path, NULL);
	size_t au = test_roundtrip(src, n, &pa, path, NULL);
	/* each frame the smaller of the two: never larger than either */
	CHECK(au <= (lz < hf ? lz : hf), "%s: automatic %zu, LZ-symbol %zu, Huffman-only %zu", path,
	      au, lz, hf);
	printf("%-48s LZ-symbol %8.2f  Huffman-only %8.2f  automatic %8.2f\n",
	       strrchr(path, '/') + 1, lz ? (double)n / (double)lz : 0,
	       hf ? (double)n / (double)hf : 0, au ? (double)n / (double)au : 0);
	free(src);
}

static void corpus_tiles(const char *path, void *unused)
{
	size_t n = 0, len = strlen(path);
	(void)unused;
	if (len < 4 || (strcmp(path + len - 4, ".u16") && strcmp(path + len - 4, ".b16")))
		return;
	uint8_t *src = test_read_file(path, &n);
	if (src)
		same_tiles(src, n / 2, 2, 14, path);
	free(src);
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "edge";

	if (!strcmp(which, "corpora")) {
		const char *data = test_data_dir();
		char path[4096];
		if (!data) {
			printf("SKIP: prepared data absent\n");
			return TEST_SKIP;
		}
		snprintf(path, sizeof path, "%s/quant", data);
		test_for_each_file(path, corpus_file, NULL);
		test_for_each_file(path, corpus_tiles, NULL);
		snprintf(path, sizeof path, "%s/nyx", data);
		test_for_each_file(path, corpus_file, NULL);
		test_for_each_file(path, corpus_tiles, NULL);
	} else {
		buckets();
		batches();
		tiles();
		edge();
		hostile();
	}
	if (test_failures) {
		printf("lzsym %s: %d check(s) failed\n", which, test_failures);
		return 1;
	}
	printf("lzsym %s: all checks passed\n", which);
	return 0;
}
