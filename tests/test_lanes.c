/* test_lanes.c - the 32-lane interleaved payload layout (src/huffman/lanes.c): round trips over
 * widths, sizes and chunk sizes, codes up to 24 bits; the encoder's word order against a second
 * encoder written straight from the definition (whole bit strings, due steps, a sort); threads;
 * hostile payloads and chunk indexes; and on the prepared corpora, the payload size against the
 * sequential layout's (printed, not asserted). */
#include "testutil.h"
#include "common/bits.h"
#include "huffman/huffman.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct code {
	uint32_t alphabet;
	int max_len;
	uint8_t *len;
	uint32_t *table;
	gpz_decoder d;
};

/* A length-limited code for counts[0 .. alphabet) (counts may be bumped: a code needs two
 * symbols), with its encoder table and decoder. */
static void code_from_counts(struct code *c, uint32_t *counts, uint32_t alphabet, int w)
{
	uint32_t used = 0, *cw;

	if (alphabet < 2)
		alphabet = 2;
	for (uint32_t s = 0; s < alphabet; s++)
		used += counts[s] != 0;
	if (used < 2) {
		counts[0]++;
		counts[1]++;
	}
	c->alphabet = alphabet;
	c->len = calloc(alphabet, 1);
	c->table = calloc(alphabet, sizeof(*c->table));
	cw = calloc(alphabet, sizeof(*cw));
	c->max_len = gpz_code_lengths(counts, alphabet, GPZ_MAX_CODE_LEN, c->len);
	gpz_canonical_codes(c->len, alphabet, cw);
	gpz_encoder_table(c->len, cw, alphabet, c->table);
	CHECK(gpz_decoder_init(&c->d, c->len, alphabet, w) == GPZ_OK, "decoder init");
	free(cw);
}

/* The code the container would build for these symbols; returns their coded bits. */
static uint64_t code_for(struct code *c, const uint8_t *src, size_t n, int w)
{
	uint32_t *counts = calloc(gpz_alphabet_limit(w), sizeof(*counts)), alphabet = 0;
	uint64_t bits;
	CHECK(gpz_histogram(src, n, w, 2, counts, &alphabet) == GPZ_OK, "histogram");
	code_from_counts(c, counts, alphabet, w);
	bits = gpz_coded_bits(counts, c->len, c->alphabet);
	free(counts);
	return bits;
}

static void code_free(struct code *c)
{
	gpz_decoder_free(&c->d);
	free(c->len);
	free(c->table);
}

static void put_symbol(uint8_t *b, size_t i, int w, uint32_t v)
{
	for (int k = 0; k < w; k++)
		b[i * (size_t)w + (size_t)k] = (uint8_t)(v >> (8 * k));
}

/* ---- the layout from its definition, independently of lanes.c ---- */

struct ref_word {
	uint64_t due;    /* the lane's step whose code holds the word's first bit */
	uint32_t lane, k; /* word k of the lane */
	uint32_t val;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref_word *x = a, *y = b;
	if (x->due != y->due)
		return x->due < y->due ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

/* One chunk's words in payload order: each lane's bit string written out a byte a bit, with the
 * step each bit came from; each word's due step read off at its first bit; sorted by (due step,
 * lane). Sets *nw; the caller frees. */
static struct ref_word *ref_chunk(const uint8_t *src, size_t m, int w, const uint32_t *table,
                                  size_t *nw)
{
	size_t steps = 4 * ((m + 127) / 128), cap = steps * GPZ_MAX_CODE_LEN + 32;
	uint8_t *bit = malloc(cap);
	uint32_t *step_of = malloc(cap * sizeof(*step_of));
	struct ref_word *out = malloc((GPZ_LANES * (cap / 32 + 1)) * sizeof(*out));

	*nw = 0;
	for (uint32_t l = 0; l < GPZ_LANES; l++) {
		size_t nb = 0;
		/* lane l's step s: row s / 4, place 4l + s % 4 (written out, not gpz_lanes_symbol) */
		for (size_t s = 0; 128 * (s / 4) + 4 * l + s % 4 < m; s++) {
			uint32_t e = table[gpz_load_symbol(src, 128 * (s / 4) + 4 * l + s % 4, w)];
			for (int b = (int)(e & 0xff) - 1; b >= 0; b--) {
				bit[nb] = (uint8_t)((e >> (8 + b)) & 1);
				step_of[nb++] = (uint32_t)s;
			}
		}
		for (size_t k = 0; 32 * k < nb; k++) {
			struct ref_word *r = &out[(*nw)++];
			r->due = step_of[32 * k];
			r->lane = l;
			r->k = (uint32_t)k;
			r->val = 0;
			for (size_t b = 32 * k; b < 32 * k + 32; b++)
				r->val = r->val << 1 | (b < nb ? bit[b] : 0);
		}
	}
	qsort(out, *nw, sizeof(*out), cmp_ref);
	free(bit);
	free(step_of);
	return out;
}

/* The whole payload from ref_chunk; sets *nbytes; the caller frees. */
static uint8_t *ref_encode(const uint8_t *src, size_t n, int w, const uint32_t *table,
                           int chunk_log, size_t *nbytes)
{
	size_t cs = (size_t)1 << chunk_log, cap = 64, len = 0;
	uint8_t *buf = malloc(cap);

	for (size_t first = 0; first < n; first += cs) {
		size_t nw, m = n - first < cs ? n - first : cs;
		struct ref_word *r = ref_chunk(src + first * (size_t)w, m, w, table, &nw);
		while (len + 4 * nw > cap)
			buf = realloc(buf, cap *= 2);
		for (size_t i = 0; i < nw; i++, len += 4)
			gpz_store_le32(buf + len, r[i].val);
		free(r);
	}
	*nbytes = len;
	return buf;
}

/* ---- round trips ---- */

struct enc {
	uint8_t *payload; /* exactly 4 * words bytes */
	uint64_t words;
	size_t nchunks;
	uint32_t *chunk_words;
	uint64_t *chunk_start; /* nchunks + 1 */
};

static void enc_free(struct enc *e)
{
	free(e->payload);
	free(e->chunk_words);
	free(e->chunk_start);
}

/* Encode at `threads` threads into an exact-size buffer (sized by gpz_lanes_chunk_words). */
static int encode(struct enc *e, const uint8_t *src, size_t n, int w, const struct code *c,
                  int chunk_log, int threads, const char *what)
{
	size_t cs = (size_t)1 << chunk_log;
	uint64_t words = 0, total = 0;
	gpz_result r;

	e->nchunks = (n + cs - 1) / cs;
	e->chunk_words = calloc(e->nchunks + 1, sizeof(*e->chunk_words));
	e->chunk_start = calloc(e->nchunks + 1, sizeof(*e->chunk_start));
	for (size_t first = 0; first < n; first += cs)
		words += gpz_lanes_chunk_words(src + first * (size_t)w, n - first < cs ? n - first : cs,
		                               w, c->table);
	e->payload = malloc(words ? 4 * words : 1);
	r = gpz_huff_encode_lanes(src, n, w, c->table, chunk_log, threads, e->payload, 4 * words,
	                          e->chunk_words, &e->words);
	CHECK(r == GPZ_OK && e->words == words, "%s: encode (%d threads): %d, %llu words of %llu",
	      what, threads, (int)r, (unsigned long long)e->words, (unsigned long long)words);
	if (r != GPZ_OK)
		return 0;
	for (size_t ch = 0; ch < e->nchunks; ch++) {
		size_t m = n - ch * cs < cs ? n - ch * cs : cs;
		uint64_t want = gpz_lanes_chunk_words(src + ch * cs * (size_t)w, m, w, c->table);
		CHECK(e->chunk_words[ch] == want, "%s: chunk %zu: %u words, chunk_words says %llu",
		      what, ch, e->chunk_words[ch], (unsigned long long)want);
		e->chunk_start[ch] = total;
		total += e->chunk_words[ch];
	}
	e->chunk_start[e->nchunks] = total;
	CHECK(total == e->words, "%s: chunk words add to %llu, total %llu", what,
	      (unsigned long long)total, (unsigned long long)e->words);
	return 1;
}

static gpz_result decode(const struct enc *e, size_t payload_size, const struct code *c,
                         size_t n, int w, int chunk_log, int threads, uint8_t *out)
{
	return gpz_huff_decode_lanes(&c->d, e->payload, payload_size, e->chunk_start, n, w,
	                             chunk_log, threads, out);
}

static const int thread_counts[] = { 1, 2, 3, 8 };

/* Encode at 1 thread, against the reference (when ref) and against 2, 3 and 8 threads (when
 * all_threads; else 2); decode likewise and compare. Returns the payload's words. */
static uint64_t roundtrip(const uint8_t *src, size_t n, int w, const struct code *c,
                          int chunk_log, int ref, int all_threads, const char *what)
{
	struct enc e1, et;
	uint8_t *out = malloc(n * (size_t)w + 1);
	uint64_t words;
	int nt = all_threads ? 4 : 2;

	if (!encode(&e1, src, n, w, c, chunk_log, 1, what)) {
		enc_free(&e1);
		free(out);
		return 0;
	}
	words = e1.words;
	if (ref) {
		size_t nb;
		uint8_t *r = ref_encode(src, n, w, c->table, chunk_log, &nb);
		CHECK(nb == 4 * words && memcmp(r, e1.payload, nb) == 0,
		      "%s: word order differs from the definition's (%zu vs %llu bytes)", what, nb,
		      (unsigned long long)(4 * words));
		free(r);
	}
	for (int i = 1; i < nt; i++) {
		int t = all_threads ? thread_counts[i] : 2;
		if (encode(&et, src, n, w, c, chunk_log, t, what))
			CHECK(et.words == words && memcmp(et.payload, e1.payload, 4 * words) == 0 &&
			              memcmp(et.chunk_words, e1.chunk_words,
			                     e1.nchunks * sizeof(*e1.chunk_words)) == 0,
			      "%s: %d threads encode otherwise", what, t);
		enc_free(&et);
	}
	for (int i = all_threads ? 0 : 1; i < nt; i++) {
		int t = thread_counts[i];
		memset(out, 0xEE, n * (size_t)w + 1);
		gpz_result r = decode(&e1, 4 * words, c, n, w, chunk_log, t, out);
		CHECK(r == GPZ_OK && memcmp(out, src, n * (size_t)w) == 0 && out[n * (size_t)w] == 0xEE,
		      "%s: decode at %d threads: %s", what, t, gpz_result_string(r));
	}
	enc_free(&e1);
	free(out);
	return words;
}

/* Data kinds for the round trips. */
enum kind { SKEWED, TWO, ONE_OTHER, BYTES, DOMINANT, KINDS };
static const char *kind_name[] = { "skewed", "two symbols", "one but one", "256 values",
	                               "dominant" };

static void fill(uint8_t *b, size_t n, int w, enum kind k, uint64_t *rng)
{
	uint32_t top = w == 1 ? 255 : w == 2 ? 65535 : GPZ_MAX_ALPHABET - 1;
	switch (k) {
	case SKEWED:
		test_skewed_symbols(b, n, w, rng);
		break;
	case TWO: /* the smallest and the largest value */
		for (size_t i = 0; i < n; i++)
			put_symbol(b, i, w, test_rand(rng) % 3 ? 0 : top);
		break;
	case ONE_OTHER:
		for (size_t i = 0; i < n; i++)
			put_symbol(b, i, w, 7);
		if (n)
			put_symbol(b, test_rand(rng) % n, w, top);
		break;
	case DOMINANT: /* one value ~99.75%, the others in bursts: the decoder's dominant rows */
		for (size_t i = 0; i < n;) {
			const uint64_t x = test_rand(rng);
			for (size_t run = 1 + x % 2000; run && i < n; run--)
				put_symbol(b, i++, w, 200);
			for (size_t burst = 1 + (x >> 20) % 4; burst && i < n; burst--)
				put_symbol(b, i++, w, (uint32_t)((x >> 30) % 97) * (top / 97));
		}
		break;
	default:
		for (size_t i = 0; i < n; i++)
			put_symbol(b, i, w, (uint32_t)(test_rand(rng) % 256));
	}
}

static void test_roundtrips(void)
{
	static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 63, 1000, 4097, 70001 };
	static const int logs[] = { 5, 8, 10, 14, 16 };
	uint64_t rng = 2024;
	uint8_t *buf = malloc(70001 * 4);
	char what[160];

	for (int w = 1; w <= 4; w *= 2)
		for (int k = 0; k < KINDS; k++)
			for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
				size_t n = sizes[si];
				struct code c;
				fill(buf, n, w, (enum kind)k, &rng);
				code_for(&c, buf, n, w);
				for (size_t li = 0; li < sizeof logs / sizeof *logs; li++) {
					snprintf(what, sizeof what, "w %d, %s, n %zu, chunk_log %d", w,
					         kind_name[k], n, logs[li]);
					roundtrip(buf, n, w, &c, logs[li], 1, n >= 1000, what);
				}
				code_free(&c);
			}
	free(buf);
}

/* Counts 1, 1, 2, 3, 5, ... on nsym symbols spread over the whole alphabet, the smallest and
 * the largest value among them: unlimited, the codes would be nsym - 1 bits deep, so the 24-bit
 * limit binds. Symbols drawn evenly among them make long codes common: the canonical search
 * and a refill for most codes. */
static void test_long_codes(void)
{
	enum { NSYM = 40 };
	static const int logs[] = { 5, 8, 14, 16 };
	uint64_t rng = 77;
	size_t n = 200003;
	uint8_t *buf = malloc(n * 4);
	char what[160];

	for (int w = 1; w <= 4; w *= 2) {
		uint32_t limit = gpz_alphabet_limit(w), sym[NSYM];
		uint32_t *counts = calloc(limit, sizeof(*counts));
		struct code c;
		for (int i = 0; i < NSYM; i++) {
			sym[i] = (uint32_t)((uint64_t)i * (limit - 1) / (NSYM - 1));
			counts[sym[i]] = i < 2 ? 1 : counts[sym[i - 1]] + counts[sym[i - 2]];
		}
		code_from_counts(&c, counts, limit, w);
		CHECK(c.max_len == GPZ_MAX_CODE_LEN, "w %d: longest code %d bits", w, c.max_len);
		for (size_t i = 0; i < n; i++)
			put_symbol(buf, i, w, sym[test_rand(&rng) % NSYM]);
		for (size_t li = 0; li < sizeof logs / sizeof *logs; li++) {
			snprintf(what, sizeof what, "long codes, w %d, chunk_log %d", w, logs[li]);
			roundtrip(buf, n, w, &c, logs[li], 1, 1, what);
			snprintf(what, sizeof what, "long codes, w %d, chunk_log %d, n 33", w, logs[li]);
			roundtrip(buf, 33, w, &c, logs[li], 1, 0, what);
		}
		code_free(&c);
		free(counts);
	}
	free(buf);
}

/* More than one parallel task (about 2^20 symbols each), short last tasks and chunks. */
static void test_threads(void)
{
	static const struct { int w, chunk_log; size_t n; } cases[] = {
		{ 1, 14, (3u << 20) + 12345 }, { 2, 10, (2u << 20) + 7 }, { 4, 18, (5u << 18) + 3 },
		{ 1, 16, (2u << 20) + 1 }, { 2, 20, (2u << 20) + 33 },
	};
	uint64_t rng = 5;
	char what[160];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int w = cases[i].w;
		size_t n = cases[i].n;
		uint8_t *buf = malloc(n * (size_t)w);
		struct code c;
		test_skewed_symbols(buf, n, w, &rng);
		code_for(&c, buf, n, w);
		snprintf(what, sizeof what, "threads: w %d, n %zu, chunk_log %d", w, n,
		         cases[i].chunk_log);
		roundtrip(buf, n, w, &c, cases[i].chunk_log, i < 2, 1, what);
		code_free(&c);
		free(buf);
	}
}

/* ---- hostile input ---- */

/* Decode at 2 threads from an exact-size copy of the payload (ASan sees a read past it) into
 * an exact-size buffer, kept in *keep when keep is not NULL (the caller frees). */
static gpz_result decode_copy(const uint8_t *payload, size_t size, const uint64_t *starts,
                              const struct code *c, size_t n, int w, int chunk_log,
                              uint8_t **keep)
{
	uint8_t *in = malloc(size ? size : 1), *out = malloc(n * (size_t)w);
	gpz_result r;
	memcpy(in, payload, size);
	r = gpz_huff_decode_lanes(&c->d, in, size, starts, n, w, chunk_log, 2, out);
	free(in);
	if (keep)
		*keep = out;
	else
		free(out);
	return r;
}

/* Chunk boundaries one word off, past the payload, out of order; truncated payloads. */
static void test_bad_index(const struct enc *e, const struct code *c, size_t n, int w, int cl)
{
	size_t nc = e->nchunks, size = 4 * e->words;
	uint64_t *s = malloc((nc + 1) * sizeof(*s));

	for (size_t b = 1; b < nc; b++)
		for (int d = -1; d <= 1; d += 2) {
			memcpy(s, e->chunk_start, (nc + 1) * sizeof(*s));
			s[b] += (uint64_t)(int64_t)d;
			CHECK(decode_copy(e->payload, size, s, c, n, w, cl, NULL) == GPZ_ERR_CORRUPT,
			      "boundary %zu moved by %d accepted", b, d);
		}
	memcpy(s, e->chunk_start, (nc + 1) * sizeof(*s));
	CHECK(decode_copy(e->payload, size, s, c, n, w, cl, NULL) == GPZ_OK, "intact index refused");
	s[nc]--;
	CHECK(decode_copy(e->payload, size, s, c, n, w, cl, NULL) == GPZ_ERR_CORRUPT,
	      "last chunk one word short accepted");
	s[nc] += 2;
	CHECK(decode_copy(e->payload, size, s, c, n, w, cl, NULL) == GPZ_ERR_CORRUPT,
	      "index past the payload accepted");
	s[nc]--;
	CHECK(decode_copy(e->payload, size - 1, s, c, n, w, cl, NULL) == GPZ_ERR_CORRUPT,
	      "payload a byte short accepted");
	CHECK(decode_copy(e->payload, size - 4, s, c, n, w, cl, NULL) == GPZ_ERR_CORRUPT,
	      "payload a word short accepted");
	/* out of order: chunk 1 starting past chunk 2, all inside the payload; then far outside */
	s[1] = s[2] + 1;
	CHECK(decode_copy(e->payload, size, s, c, n, w, cl, NULL) == GPZ_ERR_CORRUPT,
	      "decreasing chunk_start accepted");
	memcpy(s, e->chunk_start, (nc + 1) * sizeof(*s));
	s[1] = UINT64_MAX;
	CHECK(decode_copy(e->payload, size, s, c, n, w, cl, NULL) == GPZ_ERR_CORRUPT,
	      "chunk_start of 2^64 - 1 accepted");
	/* chunk 0, decoded first, at the payload's end and ending before it: unchecked, its word
	 * count wraps and it reads past the payload (ASan) */
	memcpy(s, e->chunk_start, (nc + 1) * sizeof(*s));
	s[0] = s[nc];
	CHECK(decode_copy(e->payload, size, s, c, n, w, cl, NULL) == GPZ_ERR_CORRUPT,
	      "chunk 0 ending before it starts accepted");
	free(s);
}

/* A padding bit set in a lane's last word: the decoder takes the same words and codes (no code
 * reaches the padding), so only the leftover check can see it. Which word it is comes from the
 * reference's (lane, k) labels. */
static void test_padding(const struct enc *e, const uint8_t *src, const struct code *c,
                         size_t n, int w, int cl)
{
	size_t cs = (size_t)1 << cl, m = n < cs ? n : cs, nw, tried = 0;
	struct ref_word *r = ref_chunk(src, m, w, c->table, &nw);
	uint8_t *p = malloc(4 * e->words);

	for (uint32_t l = 0; l < GPZ_LANES; l++) {
		uint64_t bits = 0;
		for (size_t s = 0; gpz_lanes_symbol(s, l) < m; s++)
			bits += c->table[gpz_load_symbol(src, gpz_lanes_symbol(s, l), w)] & 0xff;
		unsigned used = (unsigned)(bits % 32);
		if (used == 0)
			continue;
		for (size_t i = 0; i < nw; i++) {
			if (r[i].lane != l || r[i].k != bits / 32)
				continue;
			/* the padding is the word's low 32 - used bits: try its lowest and highest */
			unsigned flip[2] = { 0, 31 - used };
			for (int f = 0; f < 2; f++) {
				unsigned b = flip[f];
				memcpy(p, e->payload, 4 * e->words);
				p[4 * i + b / 8] ^= (uint8_t)(1u << (b % 8));
				CHECK(decode_copy(p, 4 * e->words, e->chunk_start, c, n, w, cl, NULL) ==
				              GPZ_ERR_CORRUPT,
				      "lane %u: padding bit %u of word %zu accepted", l, b, i);
				tried++;
			}
		}
	}
	CHECK(tried > 0, "no lane with padding to test");
	free(r);
	free(p);
}

/* Random bit flips and random payloads: an error or some output, never a crash (ASan build).
 * Codes resynchronise, so a flip is often accepted, with other symbols (the frame checksum's
 * business); the count is printed. But a valid chunk is the encoding of what it decodes to
 * (the same words taken at the same steps, zero padding), so an accepted payload must be
 * what the encoder makes of its output: that holds the decoder's checks to the definition. */
static void test_flips(const struct enc *e, const struct code *c, size_t n, int w, int cl,
                       uint64_t *rng)
{
	size_t size = 4 * e->words, ok = 0;
	uint8_t *p = malloc(size), *out;
	struct enc again;

	for (int it = 0; it < 300; it++) {
		memcpy(p, e->payload, size);
		for (int f = 1 + (int)(test_rand(rng) % 3); f > 0; f--) {
			uint64_t b = test_rand(rng) % (8 * size);
			p[b / 8] ^= (uint8_t)(1u << (b % 8));
		}
		if (it % 10 == 9) /* wholly random words */
			for (size_t i = 0; i < size; i++)
				p[i] = (uint8_t)test_rand(rng);
		gpz_result r = decode_copy(p, size, e->chunk_start, c, n, w, cl, &out);
		CHECK(r == GPZ_OK || r == GPZ_ERR_CORRUPT, "flip %d: %s", it, gpz_result_string(r));
		if (r == GPZ_OK && encode(&again, out, n, w, c, cl, 1, "re-encode"))
			CHECK(again.words == e->words && memcmp(again.payload, p, size) == 0 &&
			              memcmp(again.chunk_words, e->chunk_words,
			                     e->nchunks * sizeof(*e->chunk_words)) == 0,
			      "flip %d: accepted payload is not the encoding of its output", it);
		if (r == GPZ_OK)
			enc_free(&again);
		ok += r == GPZ_OK;
		free(out);
	}
	printf("hostile: w %d, n %zu, chunk_log %d: %zu of 300 damaged payloads decode\n", w, n, cl,
	       ok);
	free(p);
}

/* The encoder's dst_cap: too small by a byte or more, nothing written at all; exact, nothing
 * written past it. */
static void test_dst_cap(const uint8_t *src, const struct code *c, size_t n, int w, int cl,
                         uint64_t words)
{
	enum { GUARD = 64 };
	size_t nc = (n + ((size_t)1 << cl) - 1) >> cl, caps[] = { 0, 4 * words - 4, 4 * words - 1 };
	uint8_t *buf = malloc(4 * words + GUARD);
	uint32_t *cw = malloc(nc * sizeof(*cw));
	uint64_t total = 0;

	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		memset(buf, 0xA5, 4 * words + GUARD);
		CHECK(gpz_huff_encode_lanes(src, n, w, c->table, cl, 2, buf, caps[i], cw, &total) ==
		              GPZ_ERR_DST_TOO_SMALL, "dst_cap %zu of %llu accepted", caps[i],
		      (unsigned long long)(4 * words));
		for (size_t b = 0; b < 4 * words + GUARD; b++)
			if (buf[b] != 0xA5) {
				CHECK(0, "dst_cap %zu: byte %zu written", caps[i], b);
				break;
			}
	}
	memset(buf, 0xA5, 4 * words + GUARD);
	CHECK(gpz_huff_encode_lanes(src, n, w, c->table, cl, 2, buf, 4 * words, cw, &total) ==
	              GPZ_OK && total == words, "exact dst_cap refused");
	for (size_t b = 4 * words; b < 4 * words + GUARD; b++)
		if (buf[b] != 0xA5) {
			CHECK(0, "exact dst_cap: byte %zu past it written", b);
			break;
		}
	free(buf);
	free(cw);
}

static void test_hostile(void)
{
	static const struct { int w, cl; size_t n; enum kind k; } cases[] = {
		{ 1, 8, 4000, SKEWED }, { 2, 5, 1000, SKEWED }, { 4, 10, 5000, SKEWED },
		{ 1, 14, 40000, SKEWED }, { 2, 14, 70000, DOMINANT }, { 1, 12, 40000, DOMINANT },
	};
	uint64_t rng = 31337;

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int w = cases[i].w, cl = cases[i].cl;
		size_t n = cases[i].n;
		uint8_t *src = malloc(n * (size_t)w);
		struct code c;
		struct enc e;
		fill(src, n, w, cases[i].k, &rng);
		code_for(&c, src, n, w);
		if (encode(&e, src, n, w, &c, cl, 1, "hostile")) {
			test_bad_index(&e, &c, n, w, cl);
			test_padding(&e, src, &c, n, w, cl);
			test_flips(&e, &c, n, w, cl, &rng);
			test_dst_cap(src, &c, n, w, cl, e.words);
		}
		enc_free(&e);
		code_free(&c);
		free(src);
	}
}

/* ---- corpora: round trips and the layout's size ---- */

#define CORPUS_CAP ((size_t)16 << 20)

/* At most CORPUS_CAP bytes from the start of path. */
static uint8_t *read_prefix(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = f ? malloc(CORPUS_CAP) : NULL;

	*size = buf ? fread(buf, 1, CORPUS_CAP, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

struct corpus_set {
	int w;
	const char *suffix;
	size_t min_size;
	int files;
};

static void corpus_file(const char *path, void *ctx)
{
	struct corpus_set *set = ctx;
	size_t size, n, pl = strlen(path), sl = strlen(set->suffix);
	uint8_t *data;
	uint64_t seq;
	struct code c;

	if (pl < sl || strcmp(path + pl - sl, set->suffix))
		return;
	data = read_prefix(path, &size);
	n = size / (size_t)set->w;
	if (!data || size < set->min_size) {
		free(data);
		return;
	}
	set->files++;
	seq = (code_for(&c, data, n, set->w) + 7) / 8;
	for (int cl = 14; cl <= 16; cl += 2)
		roundtrip(data, n, set->w, &c, cl, 0, 0, path);
	printf("%-36s %2d %10zu %10llu B", strrchr(path, '/') + 1, set->w, n,
	       (unsigned long long)seq);
	for (int cl = 14; cl <= 18; cl++) {
		size_t cs = (size_t)1 << cl;
		uint64_t words = 0;
		for (size_t first = 0; first < n; first += cs)
			words += gpz_lanes_chunk_words(data + first * (size_t)set->w,
			                               n - first < cs ? n - first : cs, set->w, c.table);
		printf(" %+7.3f%%", 100.0 * ((double)(4 * words) - (double)seq) / (double)seq);
	}
	printf("\n");
	code_free(&c);
	free(data);
}

/* debtext100m (1-byte symbols), the Nyx quantization codes (nyx, .b16 files) and the larger
 * quantization-code files (quant, .u16 files of 4 MiB or more; the rest are small), as 2-byte
 * symbols: the first CORPUS_CAP bytes of each. */
static void test_corpora(void)
{
	const char *dir = test_data_dir();
	char path[4096];
	struct corpus_set text = { 1, "debtext100m", 0, 0 }, nyx = { 2, ".b16", 0, 0 },
	                  quant = { 2, ".u16", (size_t)4 << 20, 0 };

	if (!dir) {
		printf("corpora: no prepared data (corpora/prepare.sh); skipped\n");
		return;
	}
	printf("lanes payload over the sequential payload ceil(bits / 8), first %zu MiB of each:\n"
	       "%-36s %2s %10s %12s %8s %8s %8s %8s %8s\n", CORPUS_CAP >> 20, "file", "w", "symbols",
	       "sequential", "cl 14", "cl 15", "cl 16", "cl 17", "cl 18");
	snprintf(path, sizeof path, "%s/debtext100m", dir);
	corpus_file(path, &text);
	snprintf(path, sizeof path, "%s/nyx", dir);
	test_for_each_file(path, corpus_file, &nyx);
	snprintf(path, sizeof path, "%s/quant", dir);
	test_for_each_file(path, corpus_file, &quant);
	if (text.files + nyx.files + quant.files == 0)
		printf("corpora: none of debtext100m, nyx/*.b16, quant/*.u16 present; skipped\n");
}

int main(void)
{
	test_roundtrips();
	test_long_codes();
	test_threads();
	test_hostile();
	test_corpora();
	if (test_failures)
		fprintf(stderr, "%d failures\n", test_failures);
	else
		printf("lanes: all checks passed\n");
	return test_failures != 0;
}
