/* test_hostile.c - corrupt, truncated and random input must give an error code: never a crash,
 * a hang, an out-of-bounds access (run under ASan) or silently wrong output. Every single-bit flip
 * and every truncation of several small streams covering each frame type is tried. (In LZ-mode
 * streams a few flips inside DEFLATE pieces decode to the very same bytes, e.g. a match distance
 * moved to an equal string: those must give exactly the original; tests/test_lzframe.c checks
 * that every flip outside the pieces is rejected.) */
#include "testutil.h"
#include "common/bits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample {
	const char *name;
	uint8_t *data;
	size_t size;
	gpz_params p;
};

static gpz_ctx *ctx;

/* Decode into a buffer of exactly `cap` bytes (so ASan sees any overrun). */
static gpz_result try_decode(const uint8_t *c, size_t n, size_t cap, const struct sample *s,
                             int *wrong)
{
	uint8_t *out = malloc(cap ? cap : 1);
	uint8_t *in = malloc(n ? n : 1);
	size_t got = 0;
	uint64_t declared;
	gpz_result r;

	memcpy(in, c, n); /* an exact-size copy: reading past the end is caught */
	r = gpz_decompress(ctx, in, n, out, cap, &got);
	*wrong = r == GPZ_OK && (got != s->size || memcmp(out, s->data, s->size) != 0);
	gpz_decompressed_size(in, n, &declared);
	free(in);
	free(out);
	return r;
}

static void attack(const struct sample *s)
{
	uint8_t *c;
	size_t n = test_roundtrip(s->data, s->size, &s->p, s->name, &c);
	int wrong, accepted = 0, wrongs = 0;

	if (!n)
		return;
	for (size_t bit = 0; bit < 8 * n; bit++) {
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		for (int big = 0; big < 2; big++) {
			gpz_result r = try_decode(c, n, s->size + (big ? 4096 : 0), s, &wrong);
			accepted += r == GPZ_OK;
			wrongs += wrong;
		}
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	if (s->p.lz_level > 0) { /* same bytes from an equivalent DEFLATE coding: rare, harmless */
		CHECK(wrongs == 0 && (size_t)accepted * 100 <= 8 * n,
		      "%s: %d bit flips accepted (%d with wrong output)", s->name, accepted, wrongs);
		accepted = 0;
	}
	CHECK(accepted == 0 && wrongs == 0, "%s: %d bit flips accepted (%d with wrong output)",
	      s->name, accepted, wrongs);
	accepted = 0;
	for (size_t len = 0; len < n; len++) {
		gpz_result r = try_decode(c, len, s->size + 4096, s, &wrong);
		accepted += r == GPZ_OK;
	}
	CHECK(accepted == 0, "%s: %d truncations accepted", s->name, accepted);
	printf("%s: %zu bytes, %zu bit flips and %zu truncations rejected\n", s->name, n, 8 * n, n);
	free(c);
}

static void garbage(void)
{
	uint64_t st = 77;
	int accepted = 0, wrong;
	struct sample none = { "garbage", (uint8_t *)"", 0, { 0 } };
	uint8_t buf[4096];

	for (int iter = 0; iter < 20000; iter++) {
		size_t n = 1 + test_rand(&st) % sizeof(buf);
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)test_rand(&st);
		if (iter % 2) { /* a valid header, then a plausible frame header, then noise */
			gpz_write_header(buf, sizeof(buf), &(size_t){ 0 });
			if (n > 20 && iter % 4 == 1) {
				buf[8] = (uint8_t)(1 + test_rand(&st) % 4); /* frame types 1..4 */
				buf[9] = (uint8_t)(1u << (test_rand(&st) % 3));
			}
		}
		accepted += try_decode(buf, n, 1 << 16, &none, &wrong) == GPZ_OK;
	}
	CHECK(accepted == 0, "%d random buffers accepted", accepted);
	printf("garbage: 20000 random buffers rejected\n");
}

static struct sample make(const char *name, size_t size, int w, int chunk_log, size_t frame)
{
	struct sample s = { name, malloc(size), size, { 0 } };
	gpz_params_default(&s.p);
	s.p.symbol_bytes = w;
	s.p.chunk_log = chunk_log;
	if (frame)
		s.p.frame_bytes = frame;
	return s;
}

int main(void)
{
	static const char text[] = "It was the best of times, it was the worst of times; gpz ";
	uint64_t st = 1;
	struct sample s[10];

	gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2);
	s[0] = make("text, 3 chunks", 700, 1, 8, 0);
	for (size_t i = 0; i < s[0].size; i++)
		s[0].data[i] = (uint8_t)text[(i * 7 + i / 13) % (sizeof(text) - 1)];
	s[1] = make("u16 codes, 2 chunks", 2 * 400, 2, 8, 0);
	for (size_t i = 0; i < 400; i++)
		gpz_store_le16(s[1].data + 2 * i, (uint16_t)(512 + (test_rand(&st) % 9 == 0) *
		                                             (test_rand(&st) % 40)));
	s[2] = make("constant", 100, 1, 8, 0);
	memset(s[2].data, 'z', 100);
	s[3] = make("stored", 64, 1, 8, 0);
	for (size_t i = 0; i < 64; i++)
		s[3].data[i] = (uint8_t)test_rand(&st);
	s[4] = make("two frames", 512, 1, 8, 256);
	memcpy(s[4].data, s[0].data, 512);
	s[5] = make("u32 codes", 4 * 300, 4, 8, 0);
	for (size_t i = 0; i < 300; i++)
		gpz_store_le32(s[5].data + 4 * i, (uint32_t)(test_rand(&st) % 5) * 100000);
	s[6] = make("LZ mode, level 6", 700, 1, 8, 0);
	memcpy(s[6].data, s[0].data, 700);
	s[6].p.lz_level = 6;
	s[7] = make("LZ mode, level 1, stored block and 2 frames", 1200, 1, 8, 800);
	for (size_t i = 0; i < 1200; i++) /* 500 random bytes then text: a stored DEFLATE block */
		s[7].data[i] = i < 500 ? (uint8_t)test_rand(&st) : s[0].data[i % 700];
	s[7].p.lz_level = 1;
	s[8] = make("text, 3 chunks, lanes layout", 700, 1, 8, 0);
	memcpy(s[8].data, s[0].data, 700);
	s[8].p.huff_lanes = 1;
	s[9] = make("u16 codes, 2 chunks, lanes layout", 2 * 400, 2, 8, 0);
	memcpy(s[9].data, s[1].data, 2 * 400);
	s[9].p.huff_lanes = 1;
	for (int i = 0; i < 10; i++) {
		attack(&s[i]);
		free(s[i].data);
	}
	garbage();
	gpz_ctx_free(ctx);
	if (test_failures)
		fprintf(stderr, "%d failures\n", test_failures);
	return test_failures != 0;
}
