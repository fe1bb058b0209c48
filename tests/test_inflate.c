/* test_inflate.c - gpz_inflate and gpz's own DEFLATE decoder (inflate.c):
 *  - gzip streams gpz writes (piece index: pieces inflated in parallel, the bytes they copy from
 *    the window before them filled in afterwards) at levels 1, 6, 9 and sizes around pieces, on 1
 *    and 3 threads, give the input back;
 *  - pieces that copy from the window before them a lot (nearly every byte, for a short period);
 *  - streams from zlib (stored, fixed and dynamic blocks; no index) through gpz_inflate_piece and
 *    gpz_inflate, zlib and raw formats, several members with zero padding between and after;
 *  - bad input: every truncation point of a small stream, corrupted bytes (an error, or the right
 *    output when the change is one the format cannot see), a piece index that lies, random
 *    bytes, trailing garbage, a too small dst.
 *   test_inflate [corpora]: corpora runs the shared corpora (77 when absent). */
#include "testutil.h"
#include "deflate/deflate.h"
#include "common/bits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PIECE GPZ_DEFLATE_PIECE

static gpz_ctx *ctx1, *ctx3;

/* gzip (with the piece index) of src by gpz. */
static uint8_t *gpz_gzip(const uint8_t *src, size_t n, int level, gpz_format f, size_t *len)
{
	size_t cap = gpz_deflate_bound(n);
	uint8_t *c = malloc(cap);
	gpz_result r = gpz_deflate_compress(ctx3, level, f, NULL, src, n, c, cap, len);
	CHECK(r == GPZ_OK, "compress n=%zu L%d: %s", n, level, gpz_result_string(r));
	return c;
}

/* gpz_inflate_stream_ahead of c[0 .. clen) read in steps of 1 .. step bytes (0: as asked) into
 * d (cap bytes), `ahead` bytes read ahead (0: gpz_inflate_stream itself): the result, *got
 * bytes written, *in bytes read. */
static gpz_result stream_ahead(gpz_ctx *ctx, gpz_format f, const uint8_t *c, size_t clen,
                               size_t step, size_t ahead, uint8_t *d, size_t cap, size_t *got,
                               uint64_t *in)
{
	struct test_mem m = { .src = c, .size = clen, .dst = d, .cap = cap, .step = step,
		              .rng = clen + step };
	uint64_t out = 0;
	gpz_result r = ahead ? gpz_inflate_stream_ahead(ctx, f, test_mem_read, test_mem_write, &m,
	                                                ahead, in, &out)
	                     : gpz_inflate_stream(ctx, f, test_mem_read, test_mem_write, &m, in, &out);
	*got = m.len;
	CHECK(out == m.len, "gpz_inflate_stream counts what it wrote");
	return r;
}

static gpz_result stream_inflate(gpz_ctx *ctx, gpz_format f, const uint8_t *c, size_t clen,
                                 size_t step, uint8_t *d, size_t cap, size_t *got, uint64_t *in)
{
	return stream_ahead(ctx, f, c, clen, step, 0, d, cap, got, in);
}

/* gpz_inflate of c must give src back, on both contexts, and gpz_inflate_stream too. */
static void round_trip(const uint8_t *c, size_t clen, const uint8_t *src, size_t n, gpz_format f,
                       const char *what)
{
	uint8_t *d = malloc(n + 1);
	for (int k = 0; k < 2; k++) {
		size_t got = 0;
		uint64_t in = 0;
		gpz_result r = gpz_inflate(k ? ctx3 : ctx1, f, c, clen, d, n + 1, &got);
		CHECK(r == GPZ_OK && got == n && !memcmp(d, src, n), "%s (%d threads): %s, %zu of %zu",
		      what, k ? 3 : 1, gpz_result_string(r), got, n);
		memset(d, 0, n + 1);
		r = stream_inflate(k ? ctx3 : ctx1, f, c, clen, k ? 70001 : 0, d, n + 1, &got, &in);
		CHECK(r == GPZ_OK && got == n && in == clen && !memcmp(d, src, n),
		      "%s streamed (%d threads): %s, %zu of %zu", what, k ? 3 : 1,
		      gpz_result_string(r), got, n);
	}
	free(d);
}

static void gpz_streams(void)
{
	uint64_t st = 7;
	size_t n = 3 * PIECE + 4321;
	uint8_t *src = malloc(n);
	for (size_t i = 0; i < n; i++) /* words, runs and noise */
		src[i] = (i / 50000) % 4 == 3 ? (uint8_t)test_rand(&st)
		       : (i / 50000) % 4 == 2 ? 'x'
		       : (uint8_t)("lorem ipsum dolor sit amet, "[test_rand(&st) % 28]);
	size_t sizes[] = { 0, 1, 100, PIECE - 1, PIECE, PIECE + 1, 2 * PIECE + 17, n };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (int level = 1; level <= 9; level += 4) {
			char what[64];
			size_t clen = 0;
			uint8_t *c = gpz_gzip(src, sizes[k], level, GPZ_FORMAT_GZIP, &clen);
			snprintf(what, sizeof what, "gpz gzip n=%zu L%d", sizes[k], level);
			round_trip(c, clen, src, sizes[k], GPZ_FORMAT_GZIP, what);
			free(c);
		}
	}
	for (gpz_format f = GPZ_FORMAT_ZLIB; f <= GPZ_FORMAT_DEFLATE; f++) {
		size_t clen = 0;
		uint8_t *c = gpz_gzip(src, n, 6, f, &clen);
		round_trip(c, clen, src, n, f, f == GPZ_FORMAT_ZLIB ? "gpz zlib" : "gpz raw");
		free(c);
	}
	free(src);
}

/* Pieces whose bytes mostly come from the window before them: a random block repeated (every
 * piece starts by copying from the one before), and a period short enough that nearly every byte
 * of a piece comes from its window. */
static void window_heavy(void)
{
	uint64_t st = 11;
	size_t n = 4 * PIECE + 99;
	uint8_t *src = malloc(n);
	size_t periods[] = { 20000, 32000, 1000 };
	for (size_t p = 0; p < 3; p++) {
		for (size_t i = 0; i < n; i++)
			src[i] = i < periods[p] ? (uint8_t)test_rand(&st) : src[i - periods[p]];
		for (int level = 1; level <= 9; level += 8) {
			char what[64];
			size_t clen = 0;
			uint8_t *c = gpz_gzip(src, n, level, GPZ_FORMAT_GZIP, &clen);
			snprintf(what, sizeof what, "period %zu L%d", periods[p], level);
			round_trip(c, clen, src, n, GPZ_FORMAT_GZIP, what);
			free(c);
		}
	}
	free(src);
}

/* zlib's own streams: the decoder must read any valid DEFLATE. */
static size_t zlib_make(const uint8_t *src, size_t n, int level, int strategy, int wbits,
                        uint8_t *c, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	deflateInit2(&z, level, Z_DEFLATED, wbits, 8, strategy);
	z.next_in = (Bytef *)src;
	z.avail_in = (uInt)n;
	z.next_out = c;
	z.avail_out = (uInt)cap;
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END, "zlib deflate");
	size_t len = cap - z.avail_out;
	deflateEnd(&z);
	return len;
}

/* gpz_inflate_piece_bytes (the window before its output) and gpz_inflate_piece_after (the
 * window as symbols before its output) must agree with gpz_inflate_piece (the window as hist)
 * on anything: result, length, final flag, and the bytes when it succeeds. */
static void agree(const uint8_t *in, size_t len, const uint8_t *win, size_t wn, size_t cap,
                  const char *what, int t)
{
	uint16_t *sym = malloc((cap + 1) * sizeof(*sym));
	uint16_t *after = malloc((wn + cap + 1) * sizeof(*after));
	uint8_t *buf = malloc(wn + cap + 1);
	size_t n16 = 0, n8 = 0, na = 0;
	int f16 = 0, f8 = 0, fa = 0;

	if (wn)
		memcpy(buf, win, wn);
	for (size_t i = 0; i < wn; i++)
		after[i] = win[i];
	gpz_result r16 = gpz_inflate_piece(in, len, wn ? win : NULL, wn, 0, sym, cap, &n16, &f16);
	gpz_result r8 = gpz_inflate_piece_bytes(in, len, buf + wn, wn, cap, &n8, &f8);
	gpz_result ra = gpz_inflate_piece_after(in, len, after + wn, wn, cap, &na, &fa);
	int same = r16 == r8 && n16 == n8 && f16 == f8 && ra == r8 && na == n8 && fa == f8;
	for (size_t i = 0; same && r16 == GPZ_OK && i < n16; i++)
		same = sym[i] == buf[wn + i] && after[wn + i] == sym[i];
	CHECK(same, "%s %d: symbols %s %zu final %d, bytes %s %zu final %d, after %s %zu final %d",
	      what, t, gpz_result_string(r16), n16, f16, gpz_result_string(r8), n8, f8,
	      gpz_result_string(ra), na, fa);
	free(buf);
	free(after);
	free(sym);
}

static void foreign_streams(void)
{
	uint64_t st = 3;
	size_t n = 300000;
	uint8_t *src = malloc(n), *c = malloc(2 * n + 1000), *two = malloc(4 * n + 3000);
	uint16_t *o = malloc((n + 1) * sizeof(*o));
	for (size_t i = 0; i < n; i++)
		src[i] = (uint8_t)(i % 3000 < 1000 ? test_rand(&st) % 7 : (uint64_t)"abcdefgh"[i % 8]);
	int lv[] = { 0, 1, 6, 9, 6 }, strat[] = { 0, 0, 0, 0, Z_FIXED };
	for (int k = 0; k < 5; k++) {
		size_t len = zlib_make(src, n, lv[k], strat[k], -15, c, 2 * n + 1000), got = 0;
		int final = 0;
		gpz_result r = gpz_inflate_piece(c, len, NULL, 0, 0, o, n + 1, &got, &final);
		int same = r == GPZ_OK && got == n && final;
		for (size_t i = 0; same && i < n; i++)
			same = o[i] == src[i];
		CHECK(same, "gpz_inflate_piece of zlib level %d strategy %d: %s, %zu bytes",
		      lv[k], strat[k], gpz_result_string(r), got);
		agree(c, len, NULL, 0, n, "zlib stream, exact room", k);
		agree(c, len, NULL, 0, n - 1, "zlib stream, a byte short", k);
		round_trip(c, len, src, n, GPZ_FORMAT_DEFLATE, "zlib raw stream");
		len = zlib_make(src, n, lv[k], strat[k], 15, c, 2 * n + 1000);
		round_trip(c, len, src, n, GPZ_FORMAT_ZLIB, "zlib zlib stream");
	}
	/* members: zlib's gzip (no index), zero padding, gpz's gzip (index), zero padding */
	size_t a = zlib_make(src, n, 6, 0, 31, two, 2 * n + 1000), b = 0;
	memset(two + a, 0, 3);
	uint8_t *g = gpz_gzip(src, n, 6, GPZ_FORMAT_GZIP, &b);
	memcpy(two + a + 3, g, b);
	memset(two + a + 3 + b, 0, 5);
	uint8_t *both = malloc(2 * n);
	memcpy(both, src, n);
	memcpy(both + n, src, n);
	round_trip(two, a + 3 + b + 5, both, 2 * n, GPZ_FORMAT_GZIP, "two members, padded");
	two[a + 3 + b + 2] = 'x';
	size_t got = 0;
	CHECK(gpz_inflate(ctx3, GPZ_FORMAT_GZIP, two, a + 3 + b + 5, both, 2 * n, &got) != GPZ_OK,
	      "trailing garbage must be an error");
	uint64_t in = 0;
	CHECK(stream_inflate(ctx3, GPZ_FORMAT_GZIP, two, a + 3 + b + 5, 0, both, 2 * n, &got,
	                     &in) != GPZ_OK,
	      "trailing garbage must be an error, streamed");
	free(g);
	free(both);
	free(src);
	free(c);
	free(two);
	free(o);
}

/* Truncations, corruptions and a small dst: errors, never wrong output or a crash. */
static void bad_input(void)
{
	uint64_t st = 5;
	size_t n = 2 * PIECE + 5000, clen = 0, got = 0;
	uint8_t *src = malloc(n), *d = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		src[i] = (uint8_t)("some words repeat, others do not "[test_rand(&st) % 33]);
	uint8_t *c = gpz_gzip(src, n, 6, GPZ_FORMAT_GZIP, &clen), *bad = malloc(clen);
	uint64_t in = 0;
	for (size_t cut = 0; cut < clen; cut += 1 + cut / 16) {
		gpz_result r = gpz_inflate(ctx3, GPZ_FORMAT_GZIP, c, cut, d, n + 1, &got);
		CHECK(r != GPZ_OK, "cut at %zu of %zu: %s", cut, clen, gpz_result_string(r));
		if (cut % 3)
			continue;
		r = stream_inflate(cut % 2 ? ctx3 : ctx1, GPZ_FORMAT_GZIP, c, cut, cut % 4 ? 9999 : 0,
		                   d, n + 1, &got, &in);
		CHECK(r != GPZ_OK, "streamed, cut at %zu of %zu: %s", cut, clen, gpz_result_string(r));
	}
	for (int t = 0; t < 400; t++) {
		memcpy(bad, c, clen);
		size_t at = (size_t)(test_rand(&st) % clen);
		bad[at] ^= (uint8_t)(1 + test_rand(&st) % 255);
		gpz_result r = gpz_inflate(t % 2 ? ctx3 : ctx1, GPZ_FORMAT_GZIP, bad, clen, d, n + 1,
		                           &got);
		CHECK(r != GPZ_OK || (got == n && !memcmp(d, src, n)),
		      "byte %zu changed: accepted with wrong output", at);
		if (t % 4)
			continue;
		r = stream_inflate(t % 8 ? ctx1 : ctx3, GPZ_FORMAT_GZIP, bad, clen, 33333, d, n + 1,
		                   &got, &in);
		CHECK(r != GPZ_OK || (got == n && !memcmp(d, src, n)),
		      "byte %zu changed: streamed, accepted with wrong output", at);
	}
	/* random bytes as DEFLATE: rejected (or, rarely, a short valid stream), never a crash */
	uint16_t *sym = malloc(4096 * sizeof(*sym));
	for (int t = 0; t < 2000; t++) {
		size_t len = 1 + (size_t)(test_rand(&st) % 600), out_n = 0;
		int final = 0;
		for (size_t i = 0; i < len; i++)
			bad[i] = (uint8_t)test_rand(&st);
		if (t % 2) /* a dynamic block header, so the code-length decoding is reached */
			bad[0] = (uint8_t)((bad[0] & ~6u) | 4u);
		gpz_result r = gpz_inflate_piece(bad, len, NULL, 0, t % 3 == 0, sym, 4096, &out_n, &final);
		CHECK(r != GPZ_OK || out_n <= 4096, "random input %d: %zu symbols", t, out_n);
		agree(bad, len, src, t % 5 == 0 ? 0 : (size_t)(test_rand(&st) % 40000), 4096,
		      "random input", t);
		r = gpz_inflate(ctx1, GPZ_FORMAT_DEFLATE, bad, len, d, 4096, &got);
		CHECK(r != GPZ_OK || got <= 4096, "random input %d through gpz_inflate", t);
	}
	free(sym);
	/* gpz's pieces with their windows, whole and with a byte changed: both decoders agree */
	struct gpz_gzip_member m;
	CHECK(gpz_gzip_header(c, clen, &m) == GPZ_OK && m.np == (n - 1) / PIECE + 1, "index");
	for (size_t k = 0, at = m.data; k < m.np; at += gpz_load_le32(m.lens + 4 * k), k++) {
		size_t plen = gpz_load_le32(m.lens + 4 * k), wn = k ? 32768 : 0;
		for (int t = 0; t < 60; t++) {
			memcpy(bad, c + at, plen);
			if (t)
				bad[test_rand(&st) % plen] ^= (uint8_t)(1 + test_rand(&st) % 255);
			agree(bad, plen, src + k * PIECE - wn, t % 7 == 3 ? wn / 2 : wn,
			      t % 11 == 5 ? PIECE - 9 : PIECE, "gpz piece", (int)(k * 100 + (size_t)t));
		}
	}
	/* a lying piece index (FORMAT.md: lengths at byte 28 on): its CRC-32 fails, so zlib reads
	 * the stream instead (the right bytes); with the CRC-32 made to match, the pieces' own
	 * checks catch it: never wrong output */
	size_t np = (n - 1) / PIECE + 1;
	for (size_t k = 0; k < np; k++) {
		for (int delta = -2; delta <= 2; delta++) {
			if (!delta)
				continue;
			for (int fix = 0; fix < 2; fix++) {
				memcpy(bad, c, clen);
				uint8_t *e = bad + 28 + 4 * k;
				gpz_store_le32(e, gpz_load_le32(e) + (uint32_t)delta);
				if (fix)
					gpz_store_le32(bad + 24, gpz_gzip_index_crc(bad + 16, bad + 28, np));
				gpz_result r = gpz_inflate(ctx3, GPZ_FORMAT_GZIP, bad, clen, d, n + 1, &got);
				if (fix)
					CHECK(r != GPZ_OK, "piece %zu's index length %+d, CRC-32 matched: %s",
					      k, delta, gpz_result_string(r));
				else
					CHECK(r == GPZ_OK && got == n && !memcmp(d, src, n),
					      "piece %zu's index length %+d: not read past: %s", k, delta,
					      gpz_result_string(r));
				if (k + 1 == np || !fix)
					continue;
				e += 4; /* the same total: piece k + 1 starts delta bytes off */
				gpz_store_le32(e, gpz_load_le32(e) - (uint32_t)delta);
				gpz_store_le32(bad + 24, gpz_gzip_index_crc(bad + 16, bad + 28, np));
				r = gpz_inflate(ctx3, GPZ_FORMAT_GZIP, bad, clen, d, n + 1, &got);
				CHECK(r != GPZ_OK || (got == n && !memcmp(d, src, n)),
				      "piece %zu starting %+d bytes off: wrong output accepted", k + 1, delta);
			}
		}
	}
	CHECK(gpz_inflate(ctx3, GPZ_FORMAT_GZIP, c, clen, d, n - 1, &got) == GPZ_ERR_DST_TOO_SMALL,
	      "dst one byte short");
	CHECK(gpz_inflate(ctx3, GPZ_FORMAT_GZIP, c, clen, d, 5, &got) == GPZ_ERR_DST_TOO_SMALL,
	      "dst far too small");
	free(src);
	free(d);
	free(c);
	free(bad);
	/* the last piece ends in a long match, which a dst a few bytes short cuts: too small, not
	 * corrupt (the decoder stops before a copy that does not fit, short of the dst's end) */
	n = 3 * PIECE + 5000;
	src = calloc(n, 1);
	d = malloc(n);
	for (size_t i = 0; src && i < n - 4000; i++)
		src[i] = (uint8_t)(test_rand(&st) % 7);
	c = gpz_gzip(src, n, 6, GPZ_FORMAT_GZIP, &clen);
	for (size_t shortby = 1; c && d && shortby <= 100; shortby += 33) {
		CHECK(gpz_inflate(ctx3, GPZ_FORMAT_GZIP, c, clen, d, n - shortby, &got) ==
		              GPZ_ERR_DST_TOO_SMALL, "a final match cut %zu bytes short, 3 threads",
		      shortby);
		CHECK(gpz_inflate(ctx1, GPZ_FORMAT_GZIP, c, clen, d, n - shortby, &got) ==
		              GPZ_ERR_DST_TOO_SMALL, "a final match cut %zu bytes short, 1 thread",
		      shortby);
	}
	free(src);
	free(d);
	free(c);
}

/* ---- gpz_inflate_member_at: an indexed member through the engine ---- */

/* Positional output into m->dst (several lanes at once): m->len is where the furthest write
 * ended; a range past cap fails. */
static gpz_result mem_write_at(void *user, const void *buf, size_t n, uint64_t off)
{
	struct test_mem *m = user;
	size_t end = (size_t)off + n, seen;
	if (off > m->cap || n > m->cap - off)
		return GPZ_ERR_DST_TOO_SMALL;
	memcpy(m->dst + off, buf, n);
	seen = __atomic_load_n(&m->len, __ATOMIC_RELAXED);
	while (seen < end && !__atomic_compare_exchange_n(&m->len, &seen, end, 0, __ATOMIC_RELAXED,
	                                                  __ATOMIC_RELAXED))
		;
	return GPZ_OK;
}

/* The member at offset of c[0 .. clen): r, and the output in m (written in order, or at its
 * offsets when positional). */
static gpz_result member_at_out(gpz_ctx *c, const uint8_t *in, size_t clen, size_t offset,
                                struct test_mem *m, uint64_t *used, int positional)
{
	uint64_t made = 0;
	gpz_result r;
	m->src = in;
	m->size = clen;
	m->len = 0;
	if (positional) {
		memset(m->dst, 0xA5, m->cap); /* nothing left over from the call before */
		r = gpz_inflate_member_at_to(c, test_mem_read_at, clen, offset, mem_write_at, m, used,
		                             &made);
		CHECK(r != GPZ_OK || made == m->len, "positional: %llu bytes made, written to %zu",
		      (unsigned long long)made, m->len);
		return r;
	}
	return gpz_inflate_member_at(c, test_mem_read_at, clen, offset, test_mem_write, m, used,
	                             &made);
}

static gpz_result member_at(gpz_ctx *c, const uint8_t *in, size_t clen, size_t offset,
                            struct test_mem *m, uint64_t *used)
{
	return member_at_out(c, in, clen, offset, m, used, 0);
}

/* A member of several batches on one lane: each batch after the first takes the last 32 KiB of
 * the one before as its window (inflate_io.c) and goes straight to bytes; on 3 lanes some do.
 * The copies reach 30-32 KiB back, so every piece's first bytes need its window. */
static void members_at_window(void)
{
	uint64_t st = 17, used = 0;
	size_t n = 3 * GPZ_INFL_PER_THREAD * PIECE + 5 * PIECE + 4321, clen = 0;
	uint8_t *src = malloc(n);
	for (size_t i = 0; i < n; i++)
		src[i] = i > 40000 && i % 5 == 0 ? src[i - 30000 - i % 2000]
		       : (uint8_t)("windows and pieces in batches "[test_rand(&st) % 30]);
	uint8_t *c = gpz_gzip(src, n, 6, GPZ_FORMAT_GZIP, &clen), *bad = malloc(clen);
	struct test_mem m = { .dst = malloc(n + 1), .cap = n + 1 };
	gpz_ctx *lanes3;
	gpz_ctx_create(&lanes3, GPZ_BACKEND_CPU, 3);
	gpz_ctx_set_depth(lanes3, 3);
	for (int k = 0; k < 4; k++) {
		gpz_result r = member_at_out(k % 2 ? lanes3 : ctx1, c, clen, 0, &m, &used, k >= 2);
		CHECK(r == GPZ_OK && used == clen && m.len == n && !memcmp(m.dst, src, n),
		      "member of %zu pieces, %s, positional %d: %s", n / PIECE + 1,
		      k % 2 ? "3 lanes" : "one lane", k >= 2, gpz_result_string(r));
	}
	for (int t = 0; t < 12; t++) { /* a changed byte: an error or the right bytes */
		memcpy(bad, c, clen);
		size_t at = clen / 2 + (size_t)(test_rand(&st) % (clen / 2));
		bad[at] ^= (uint8_t)(1 + test_rand(&st) % 255);
		gpz_result r = member_at_out(t % 3 ? ctx1 : lanes3, bad, clen, 0, &m, &used, t % 2);
		CHECK(r != GPZ_OK || (m.len == n && !memcmp(m.dst, src, n)),
		      "member byte %zu changed: accepted with wrong output", at);
	}
	gpz_ctx_free(lanes3);
	free(bad);
	free(m.dst);
	free(c);
	free(src);
}

/* Bytes that copy the bytes 30000 before them (one in 997 fresh): whatever a stretch of pieces
 * decodes without its window stands for window bytes to its end, so the stretch after it (a
 * lane's second thread) has no final window before the batch's turn, and must not be resolved
 * early (gpz_infl_batch_resolve_inner); in the first batch its window is final, and it is. Two
 * lanes of two threads: the batches after the first start without their window. */
static void members_at_marks_persist(void)
{
	uint64_t st = 29, used = 0;
	size_t n = 5 * GPZ_INFL_PER_THREAD * PIECE + 12345, clen = 0;
	uint8_t *src = malloc(n);
	for (size_t i = 0; i < n; i++)
		src[i] = i >= 30000 && test_rand(&st) % 997 ? src[i - 30000] : (uint8_t)test_rand(&st);
	uint8_t *c = gpz_gzip(src, n, 1, GPZ_FORMAT_GZIP, &clen);
	struct test_mem m = { .dst = malloc(n + 1), .cap = n + 1 };
	gpz_ctx *two;
	gpz_ctx_create(&two, GPZ_BACKEND_CPU, 4);
	gpz_ctx_set_depth(two, 2);
	for (int k = 0; k < 2; k++) {
		memset(m.dst, 0xA5, n + 1);
		gpz_result r = member_at_out(two, c, clen, 0, &m, &used, k);
		CHECK(r == GPZ_OK && used == clen && m.len == n && !memcmp(m.dst, src, n),
		      "window bytes to every stretch's end, positional %d: %s", k,
		      gpz_result_string(r));
	}
	gpz_ctx_free(two);
	free(m.dst);
	free(c);
	free(src);
}

static void members_at(void)
{
	uint64_t st = 13, used = 0;
	size_t n = 7 * PIECE + 333, clen = 0;
	uint8_t *src = malloc(n);
	for (size_t i = 0; i < n; i++) /* text-like, with copies reaching into earlier pieces */
		src[i] = i > 40000 && i % 7 == 0 ? src[i - 30000 - i % 977]
		       : (uint8_t)("the cat sat on a mat and so on "[test_rand(&st) % 31]);
	uint8_t *c = gpz_gzip(src, n, 6, GPZ_FORMAT_GZIP, &clen);
	struct test_mem m = { .dst = malloc(n + 1), .cap = n + 1 };
	gpz_ctx *deep;
	gpz_ctx_create(&deep, GPZ_BACKEND_CPU, 2);
	gpz_ctx_set_depth(deep, 3);
	gpz_ctx *cs[3] = { ctx1, ctx3, deep };
	for (int k = 0; k < 6; k++) { /* one batch on 1 and 3 threads, 3 lanes; in order and
	                                * positional */
		gpz_result r = member_at_out(cs[k % 3], c, clen, 0, &m, &used, k >= 3);
		CHECK(r == GPZ_OK && used == clen && m.len == n && !memcmp(m.dst, src, n),
		      "member_at, context %d, positional %d: %s, %zu of %zu bytes", k % 3, k >= 3,
		      gpz_result_string(r), m.len, n);
	}
	/* the same member after a zlib-made one (no index: GPZ_ERR_FORMAT) */
	uint8_t *two = malloc(clen + 2 * n + 1000);
	size_t a = zlib_make(src, 1000, 6, 0, 31, two, 2 * n + 1000);
	memcpy(two + a, c, clen);
	CHECK(member_at(ctx3, two, a + clen, 0, &m, &used) == GPZ_ERR_FORMAT,
	      "a member without an index is GPZ_ERR_FORMAT");
	gpz_result r = member_at(ctx3, two, a + clen, a, &m, &used);
	CHECK(r == GPZ_OK && used == clen && m.len == n && !memcmp(m.dst, src, n),
	      "member_at an offset: %s", gpz_result_string(r));
	r = member_at_out(deep, two, a + clen, a, &m, &used, 1);
	CHECK(r == GPZ_OK && used == clen && m.len == n && !memcmp(m.dst, src, n),
	      "member_at an offset, positional: %s", gpz_result_string(r));
	m.cap = n - 1; /* positional output that cannot all be written: the writer's error */
	CHECK(member_at_out(deep, c, clen, 0, &m, &used, 1) == GPZ_ERR_DST_TOO_SMALL,
	      "positional output's failed write is the call's result");
	m.cap = n + 1;
	/* bad input: truncated, corrupted */
	for (size_t cut = clen / 3; cut < clen; cut += clen / 7 + 1)
		CHECK(member_at(ctx3, c, cut, 0, &m, &used) != GPZ_OK, "member cut at %zu", cut);
	uint8_t *bad = malloc(clen);
	for (int t = 0; t < 60; t++) {
		memcpy(bad, c, clen);
		size_t at = (size_t)(test_rand(&st) % clen);
		bad[at] ^= (uint8_t)(1 + test_rand(&st) % 255);
		r = member_at_out(t % 2 ? ctx3 : deep, bad, clen, 0, &m, &used, t % 4 >= 2);
		CHECK(r != GPZ_OK || (m.len == n && !memcmp(m.dst, src, n)),
		      "member byte %zu changed: accepted with wrong output", at);
	}
	gpz_ctx_free(deep);
	free(bad);
	free(two);
	free(m.dst);
	free(c);
	free(src);
}

/* ---- the trailing piece index of streams written to a pipe ---- */

/* gzip of src through gpz_deflate_update in uneven steps, with or without the trailing index. */
static uint8_t *streamed_gzip_at(const uint8_t *src, size_t n, int level, int tail_index,
                                 size_t *len)
{
	gpz_gzip_info gi = { "t.txt", 0, 0, tail_index };
	gpz_deflate_stream *ds;
	size_t cap = gpz_deflate_bound(n) + 8 * gpz_deflate_update_bound(0), o = 0, w = 0;
	uint8_t *c = malloc(cap);
	CHECK(gpz_deflate_stream_create(ctx3, level, GPZ_FORMAT_GZIP, &gi, &ds) == GPZ_OK, "stream");
	for (size_t at = 0, step = 12345; at < n || at == 0; at += step, step = step * 3 % 2000001) {
		size_t k = n - at < step ? n - at : step;
		CHECK(gpz_deflate_update(ds, src + at, k, at + k == n, c + o, cap - o, &w) == GPZ_OK,
		      "update");
		o += w;
		if (at + k == n)
			break;
	}
	gpz_deflate_stream_free(ds);
	*len = o;
	return c;
}

static uint8_t *streamed_gzip(const uint8_t *src, size_t n, int tail_index, size_t *len)
{
	return streamed_gzip_at(src, n, 6, tail_index, len);
}

/* zlib's reading of every member: the concatenated output, or 0 bytes on an error. */
static size_t zlib_members(const uint8_t *c, size_t len, uint8_t *d, size_t cap)
{
	z_stream z;
	size_t out = 0;
	int r = Z_STREAM_END;
	memset(&z, 0, sizeof(z));
	inflateInit2(&z, 31);
	z.next_in = (Bytef *)c;
	z.avail_in = (uInt)len;
	while (z.avail_in && r == Z_STREAM_END) {
		z.next_out = d + out;
		z.avail_out = (uInt)(cap - out);
		r = inflate(&z, Z_FINISH);
		out = cap - z.avail_out;
		if (r == Z_STREAM_END)
			inflateReset(&z);
	}
	inflateEnd(&z);
	return r == Z_STREAM_END ? out : 0;
}

/* The streaming reader looking ahead for the trailing index (c: src's stream with it; bad: the
 * same with a piece boundary shifted and the index's CRC-32 made to match; two: a zlib member
 * of a bytes, then c): with the whole input ahead it uses the index (bad fails, where zlib reads
 * it), with less it reads as zlib does, in steps of any size. */
static void stream_trailing(const uint8_t *c, size_t len, const uint8_t *bad, const uint8_t *two,
                            size_t a, const uint8_t *src, size_t n)
{
	uint8_t *d = malloc(n + 1000 + 1);
	size_t got = 0;
	uint64_t in = 0;
	const size_t steps[] = { 0, 1, 7, 4096 };
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		gpz_result r = stream_ahead(ctx3, GPZ_FORMAT_GZIP, c, len, steps[i], len, d, n + 1, &got,
		                            &in);
		CHECK(r == GPZ_OK && got == n && in == len && !memcmp(d, src, n),
		      "read ahead for the trailing index, steps of %zu: %s, %zu of %zu", steps[i],
		      gpz_result_string(r), got, n);
	}
	const size_t aheads[] = { 1, len / 2, len - 1, len, 3 * len };
	for (size_t i = 0; i < sizeof(aheads) / sizeof(aheads[0]); i++) {
		const size_t ah = aheads[i];
		gpz_result r = stream_ahead(ctx3, GPZ_FORMAT_GZIP, bad, len, 3, ah, d, n + 1, &got, &in);
		/* the index is seen only when the rest of the input, header on, fits ahead */
		CHECK(ah >= len ? r == GPZ_ERR_CORRUPT
		                : r == GPZ_OK && got == n && !memcmp(d, src, n),
		      "shifted boundary, %zu of %zu bytes ahead: %s", ah, len, gpz_result_string(r));
		r = stream_ahead(ctx1, GPZ_FORMAT_GZIP, two, a + len, 0, ah, d, n + 1000 + 1, &got, &in);
		CHECK(r == GPZ_OK && got == 1000 + n && !memcmp(d + 1000, src, n) &&
		              !memcmp(d, src, 1000),
		      "after another member, %zu ahead: %s", ah, gpz_result_string(r));
	}
	CHECK(stream_ahead(ctx3, GPZ_FORMAT_GZIP, bad, len, 0, 0, d, n + 1, &got, &in) == GPZ_OK &&
	              got == n,
	      "without looking ahead the trailing index is not seen");
	/* a header without the note (its version byte unknown: the subfield is skipped) is not
	 * held: zlib reads it, and the lying index is never seen */
	uint8_t *unnoted = malloc(len);
	memcpy(unnoted, bad, len);
	unnoted[16] = GPZ_GZIP_TRAILS + 1;
	CHECK(stream_ahead(ctx3, GPZ_FORMAT_GZIP, unnoted, len, 0, len, d, n + 1, &got, &in) ==
	              GPZ_OK && got == n && !memcmp(d, src, n),
	      "a member without the note is not read ahead");
	free(unnoted);
	CHECK(stream_ahead(ctx3, GPZ_FORMAT_GZIP, c, len - 1, 0, len, d, n + 1, &got, &in) ==
	              GPZ_ERR_TRUNCATED,
	      "a stream cut in its index member, read ahead: truncated");
	free(d);
}

static void tail_index(void)
{
	uint64_t st = 21, used = 0;
	size_t n = 5 * PIECE + 777, plain = 0, len = 0, got = 0;
	uint8_t *src = malloc(n), *d = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		src[i] = i > 40000 && i % 5 == 0 ? src[i - 20000 - i % 331]
		       : (uint8_t)("a tail of pieces, read from the end "[test_rand(&st) % 36]);
	uint8_t *p = streamed_gzip(src, n, 0, &plain), *c = streamed_gzip(src, n, 1, &len);
	size_t np = (n - 1) / PIECE + 1;
	struct gpz_gzip_tail t;

	/* the stream is the same but for the header's note that its index trails (an extra
	 * subfield before the name); the index member follows; every reader gets the input */
	static const uint8_t note[10] = { 8, 0, 'G', 'P', 4, 0, GPZ_GZIP_TRAILS, 0, 0, 0 };
	const size_t body = plain + sizeof(note); /* the indexed member */
	struct gpz_gzip_member h;
	CHECK(len == body + 50 + 4 * np && !memcmp(c, p, 3) && c[3] == (p[3] | 0x04) &&
	              !memcmp(c + 4, p + 4, 6) && !memcmp(c + 10, note, sizeof(note)) &&
	              !memcmp(c + 20, p + 10, plain - 10),
	      "the header notes that the index trails; the index member follows");
	CHECK(gpz_gzip_header(c, len, &h) == GPZ_OK && h.trails && !h.np && h.data == 20 + 6,
	      "the note is read (trails %d, np %u, data at %zu)", h.trails, h.np, h.data);
	CHECK(gpz_gzip_header(p, plain, &h) == GPZ_OK && !h.trails, "no note without the index");
	CHECK(gpz_gzip_tail_index(c, len, len, &t) == 1 && t.member == 0 && t.np == np &&
	      t.back == body, "tail index found");
	CHECK(!gpz_gzip_tail_index(p, plain, plain, &t), "no tail index in a plain stream");
	CHECK(zlib_members(c, len, d, n + 1) == n && !memcmp(d, src, n), "zlib reads both members");
	round_trip(c, len, src, n, GPZ_FORMAT_GZIP, "streamed gzip, trailing index");
	struct test_mem m = { .dst = malloc(n + 1), .cap = n + 1 };
	gpz_result r = member_at(ctx3, c, len, 0, &m, &used);
	CHECK(r == GPZ_OK && used == body && m.len == n && !memcmp(m.dst, src, n),
	      "member_at with the trailing index: %s", gpz_result_string(r));
	/* after another member: found at its offset */
	uint8_t *two = malloc(len + 4000);
	size_t a = zlib_make(src, 1000, 6, 0, 31, two, 4000);
	memcpy(two + a, c, len);
	CHECK(gpz_gzip_tail_index(two, a + len, a + len, &t) == 1 && t.member == a, "offset");
	r = member_at(ctx3, two, a + len, a, &m, &used);
	CHECK(r == GPZ_OK && m.len == n && !memcmp(m.dst, src, n), "member_at %zu: %s", a,
	      gpz_result_string(r));
	/* the index is used: a boundary moved by a byte (same total, its CRC-32 made to match)
	 * makes the pieces fail; left unmatched, the index is ignored and zlib reads on */
	uint8_t *bad = malloc(len);
	memcpy(bad, c, len);
	uint8_t *im = bad + len - (50 + 4 * np), *lens = im + 36;
	gpz_store_le32(lens, gpz_load_le32(lens) + 1);
	gpz_store_le32(lens + 4, gpz_load_le32(lens + 4) - 1);
	r = gpz_inflate(ctx3, GPZ_FORMAT_GZIP, bad, len, d, n + 1, &got);
	CHECK(r == GPZ_OK && got == n && !memcmp(d, src, n), "a damaged trailing index is ignored");
	CHECK(member_at(ctx3, bad, len, 0, &m, &used) == GPZ_ERR_FORMAT,
	      "member_at: a damaged trailing index is no index");
	gpz_store_le32(im + 32, (uint32_t)crc32(gpz_gzip_index_crc(im + 16, lens, np), im + 24, 8));
	CHECK(gpz_inflate(ctx3, GPZ_FORMAT_GZIP, bad, len, d, n + 1, &got) != GPZ_OK,
	      "a shifted piece boundary in the trailing index must fail the pieces");
	stream_trailing(c, len, bad, two, a, src, n);
	/* every byte of the index member changed: the right output or an error */
	for (size_t i = body; i < len; i++) {
		memcpy(bad, c, len);
		bad[i] ^= (uint8_t)(1 + test_rand(&st) % 255);
		r = gpz_inflate(i % 2 ? ctx3 : ctx1, GPZ_FORMAT_GZIP, bad, len, d, n + 1, &got);
		CHECK(r != GPZ_OK || (got == n && !memcmp(d, src, n)),
		      "index member byte %zu changed: accepted with wrong output", i - body);
		uint64_t in = 0;
		r = stream_ahead(ctx3, GPZ_FORMAT_GZIP, bad, len, 0, len, d, n + 1, &got, &in);
		CHECK(r != GPZ_OK || (got == n && !memcmp(d, src, n)),
		      "index member byte %zu changed, streamed: accepted with wrong output", i - body);
		r = member_at(ctx3, bad, len, 0, &m, &used);
		CHECK(r != GPZ_OK || (m.len == n && !memcmp(m.dst, src, n)),
		      "member_at, index byte %zu changed: wrong output", i - body);
	}
	free(bad);
	free(two);
	free(m.dst);
	free(c);
	free(p);
	free(d);
	free(src);
}

/* Every reader of c (gpz_inflate on 1 and 3 threads, the streaming reader unless the index is
 * a trailing one, which it does not see, member_at on the engine) must refuse it. */
static void all_refuse(const uint8_t *c, size_t clen, size_t n, int trailing, const char *what)
{
	uint8_t *d = malloc(n + 1);
	size_t got = 0;
	uint64_t used = 0, in = 0;
	struct test_mem m = { .dst = malloc(n + 1), .cap = n + 1 };
	CHECK(gpz_inflate(ctx1, GPZ_FORMAT_GZIP, c, clen, d, n + 1, &got) == GPZ_ERR_CORRUPT,
	      "%s: 1 thread", what);
	CHECK(gpz_inflate(ctx3, GPZ_FORMAT_GZIP, c, clen, d, n + 1, &got) == GPZ_ERR_CORRUPT,
	      "%s: 3 threads", what);
	CHECK(trailing || stream_inflate(ctx3, GPZ_FORMAT_GZIP, c, clen, 0, d, n + 1, &got, &in) ==
	                          GPZ_ERR_CORRUPT, "%s: streaming", what);
	CHECK(member_at(ctx3, c, clen, 0, &m, &used) == GPZ_ERR_CORRUPT, "%s: member_at", what);
	free(m.dst);
	free(d);
}

/* gzip at levels 1-3: every piece alone (index version 6, trailing version 7, flag bit 0), each
 * decoded straight to bytes; a flag that lies (a chained stream marked so, its CRC-32 made to
 * match) is corrupt input to every reader, never wrong output; unknown flags, the index unused. */
static void alone_pieces(void)
{
	uint64_t st = 33, used = 0;
	size_t n = 5 * PIECE + 999, clen = 0, len = 0, got = 0, np = (n - 1) / PIECE + 1;
	uint8_t *src = malloc(n), *d = malloc(n + 1);
	for (size_t i = 0; i < n; i++) /* copies 20-32 KiB back: across every piece boundary */
		src[i] = i > 40000 && i % 3 == 0 ? src[i - 20000 - i % 12007]
		       : (uint8_t)("pieces that stand alone "[test_rand(&st) % 24]);
	struct test_mem m = { .dst = malloc(n + 1), .cap = n + 1 };
	for (int level = 1; level <= 4; level++) {
		uint8_t *c = gpz_gzip(src, n, level, GPZ_FORMAT_GZIP, &clen);
		struct gpz_gzip_member h;
		CHECK(gpz_gzip_header(c, clen, &h) == GPZ_OK && h.np == np && h.alone == (level <= 3) &&
		              h.cut == (level <= 3 ? 0 : 32) && c[16] == 6,
		      "L%d: index version %u, alone %d, cut %u", level, c[16], h.alone, h.cut);
		round_trip(c, clen, src, n, GPZ_FORMAT_GZIP, "pieces alone");
		gpz_result r = member_at(ctx3, c, clen, 0, &m, &used);
		CHECK(r == GPZ_OK && m.len == n && !memcmp(m.dst, src, n), "L%d member_at: %s", level,
		      gpz_result_string(r));
		free(c);
	}
	/* through a pipe: the trailing index, version 7 */
	uint8_t *p = streamed_gzip_at(src, n, 1, 1, &len);
	const uint8_t *t = p + len - (50 + 4 * np);
	struct gpz_gzip_tail tl;
	CHECK(t[16] == 7 && t[18] == GPZ_GZIP_INDEX_ALONE && gpz_gzip_tail_index(p, len, len, &tl) &&
	              tl.alone && tl.np == np, "trailing index version 7");
	round_trip(p, len, src, n, GPZ_FORMAT_GZIP, "pieces alone, trailing index");
	gpz_result r = member_at(ctx3, p, len, 0, &m, &used);
	CHECK(r == GPZ_OK && m.len == n && !memcmp(m.dst, src, n), "trailing member_at: %s",
	      gpz_result_string(r));
	CHECK(zlib_members(p, len, d, n + 1) == n && !memcmp(d, src, n), "zlib reads it");
	/* without an index nothing could tell readers, so the pieces keep their window: the
	 * stream's DEFLATE is raw DEFLATE's at that level, byte for byte */
	size_t plain = 0, rawn = 0;
	uint8_t *nx = streamed_gzip_at(src, n, 1, 0, &plain);
	uint8_t *raw = gpz_gzip(src, n, 1, GPZ_FORMAT_DEFLATE, &rawn);
	struct gpz_gzip_member hm;
	CHECK(gpz_gzip_header(nx, plain, &hm) == GPZ_OK && hm.np == 0 && plain == hm.data + rawn + 8 &&
	              !memcmp(nx + hm.data, raw, rawn),
	      "gzip -1 without an index: chained pieces, as raw DEFLATE -1");
	round_trip(nx, plain, src, n, GPZ_FORMAT_GZIP, "gzip -1 without an index");
	free(raw);
	free(nx);
	/* every byte of the header index changed: the right output or an error */
	uint8_t *c = gpz_gzip(src, n, 1, GPZ_FORMAT_GZIP, &clen), *bad = malloc(clen);
	for (size_t i = 16; i < 28 + 4 * np; i++) {
		memcpy(bad, c, clen);
		bad[i] ^= (uint8_t)(1 + test_rand(&st) % 255);
		r = gpz_inflate(i % 2 ? ctx3 : ctx1, GPZ_FORMAT_GZIP, bad, clen, d, n + 1, &got);
		CHECK(r != GPZ_OK || (got == n && !memcmp(d, src, n)),
		      "index byte %zu changed: accepted with wrong output", i);
	}
	/* flags this reader does not know, or a period without its flag (CRC-32 matched): no index,
	 * zlib reads the stream */
	static const struct { size_t at; uint8_t v; const char *what; } odd[] = {
		{ 18, 4, "unknown flags" }, { 19, 5, "a period without its flag" }
	};
	for (size_t q = 0; q < sizeof(odd) / sizeof(odd[0]); q++) {
		memcpy(bad, c, clen);
		bad[odd[q].at] = odd[q].v;
		gpz_store_le32(bad + 24, gpz_gzip_index_crc(bad + 16, bad + 28, np));
		r = gpz_inflate(ctx3, GPZ_FORMAT_GZIP, bad, clen, d, n + 1, &got);
		CHECK(r == GPZ_OK && got == n && !memcmp(d, src, n), "%s: %s", odd[q].what,
		      gpz_result_string(r));
		CHECK(member_at(ctx3, bad, clen, 0, &m, &used) == GPZ_ERR_FORMAT,
		      "member_at, %s: no index", odd[q].what);
	}
	free(bad);
	free(c);
	/* a chained stream (level 6) whose index claims pieces alone */
	c = gpz_gzip(src, n, 6, GPZ_FORMAT_GZIP, &clen);
	c[16] = 6;
	c[18] = GPZ_GZIP_INDEX_ALONE;
	c[19] = 0;
	gpz_store_le32(c + 24, gpz_gzip_index_crc(c + 16, c + 28, np));
	all_refuse(c, clen, n, 0, "a chained stream marked alone");
	free(c);
	free(p);
	p = streamed_gzip_at(src, n, 6, 1, &len);
	uint8_t *im = p + len - (50 + 4 * np);
	im[16] = 7;
	im[18] = GPZ_GZIP_INDEX_ALONE;
	im[19] = 0;
	gpz_store_le32(im + 32,
	               (uint32_t)crc32(gpz_gzip_index_crc(im + 16, im + 36, np), im + 24, 8));
	all_refuse(p, len, n, 1, "a chained stream's trailing index marked alone");
	free(p);
	free(m.dst);
	free(d);
	free(src);
}

/* gzip at levels 4-9: every 32nd piece is cut (index flag bit 1, period log2 5), so that a
 * thread's stretch of a batch that starts there decodes straight to bytes. 40 pieces with
 * copies across every piece boundary: every reader gets the input back (on 3 threads, stretches
 * start at piece 32 and between cuts), piece 32 decodes through zlib with no dictionary, the
 * streaming writer (batches starting at any piece) writes the one-shot call's DEFLATE bytes, and
 * an index claiming more cuts than there are (every entry, its CRC-32 made to match) still
 * decodes right everywhere: a reader that finds a cut reaching back decodes it as chained. */
static void cut_pieces(void)
{
	uint64_t st = 41, used = 0;
	size_t n = 40 * PIECE + 777, clen = 0, len = 0, np = (n - 1) / PIECE + 1;
	uint8_t *src = malloc(n), *d = malloc(PIECE);
	for (size_t i = 0; i < n; i++)
		src[i] = i > 40000 && i % 3 == 0 ? src[i - 20000 - i % 12007]
		       : (uint8_t)("a cut every 32 pieces "[test_rand(&st) % 22]);
	struct test_mem m = { .dst = malloc(n + 1), .cap = n + 1 };
	uint8_t *c = gpz_gzip(src, n, 4, GPZ_FORMAT_GZIP, &clen);
	struct gpz_gzip_member h;
	CHECK(gpz_gzip_header(c, clen, &h) == GPZ_OK && h.np == np && !h.alone && h.cut == 32 &&
	              c[16] == 6 && c[18] == GPZ_GZIP_INDEX_CUT && c[19] == GPZ_DFL_CUT_LOG,
	      "cut index: version %u, flags %u, period log2 %u", c[16], c[18], c[19]);
	round_trip(c, clen, src, n, GPZ_FORMAT_GZIP, "cut pieces");
	gpz_result r = member_at(ctx3, c, clen, 0, &m, &used);
	CHECK(r == GPZ_OK && m.len == n && !memcmp(m.dst, src, n), "cut member_at: %s",
	      gpz_result_string(r));
	uint64_t at = 0, data_len = 0;
	for (size_t k = 0; k < np; k++) {
		at += k < 32 ? gpz_load_le32(h.lens + 4 * k) : 0;
		data_len += gpz_load_le32(h.lens + 4 * k);
	}
	z_stream z;
	memset(&z, 0, sizeof(z));
	CHECK(inflateInit2(&z, -15) == Z_OK, "zlib");
	z.next_in = c + h.data + at;
	z.avail_in = gpz_load_le32(h.lens + 4 * 32);
	z.next_out = d;
	z.avail_out = PIECE;
	int zr = inflate(&z, Z_SYNC_FLUSH);
	CHECK((zr == Z_OK || zr == Z_BUF_ERROR) && z.avail_out == 0 &&
	              !memcmp(d, src + 32 * PIECE, PIECE),
	      "piece 32 through zlib without a dictionary: %d", zr);
	inflateEnd(&z);
	uint8_t *p = streamed_gzip_at(src, n, 4, 1, &len);
	struct gpz_gzip_member hp;
	CHECK(gpz_gzip_header(p, len, &hp) == GPZ_OK && len >= hp.data + data_len + 8 &&
	              !memcmp(p + hp.data, c + h.data, data_len + 8),
	      "the streaming writer's DEFLATE bytes are the one-shot call's");
	round_trip(p, len, src, n, GPZ_FORMAT_GZIP, "cut pieces, trailing index");
	c[19] = 0; /* every entry a cut: a lie for all but 0 and 32 */
	gpz_store_le32(c + 24, gpz_gzip_index_crc(c + 16, c + 28, np));
	CHECK(gpz_gzip_header(c, clen, &h) == GPZ_OK && h.cut == 1, "every entry claimed cut");
	round_trip(c, clen, src, n, GPZ_FORMAT_GZIP, "every entry claimed cut");
	r = member_at(ctx3, c, clen, 0, &m, &used);
	CHECK(r == GPZ_OK && m.len == n && !memcmp(m.dst, src, n),
	      "every entry claimed cut, member_at: %s", gpz_result_string(r));
	free(p);
	free(c);
	free(m.dst);
	free(d);
	free(src);
}

/* A cut member of more pieces than the usual batch (256) through the streaming reader on 16
 * threads: its batches then take a cut's pieces a thread (300 pieces: one batch), every run
 * starting at a cut. */
static void cut_stream_batches(void)
{
	uint64_t st = 43, in = 0;
	size_t n = 300 * PIECE + 5, clen = 0, got = 0;
	uint8_t *src = malloc(n), *d = malloc(n + 1);
	gpz_ctx *ctx16 = NULL;
	for (size_t i = 0; i < n; i++)
		src[i] = i > 70000 && i % 5 ? src[i - 1000 - i % 60000]
		       : (uint8_t)("streams of cut pieces "[test_rand(&st) % 22]);
	uint8_t *c = gpz_gzip(src, n, 4, GPZ_FORMAT_GZIP, &clen);
	CHECK(gpz_ctx_create(&ctx16, GPZ_BACKEND_CPU, 16) == GPZ_OK, "16 threads");
	gpz_result r = stream_inflate(ctx16, GPZ_FORMAT_GZIP, c, clen, 0, d, n + 1, &got, &in);
	CHECK(r == GPZ_OK && got == n && in == clen && !memcmp(d, src, n),
	      "300 cut pieces streamed on 16 threads: %s, %zu of %zu", gpz_result_string(r), got, n);
	gpz_ctx_free(ctx16);
	free(c);
	free(d);
	free(src);
}

static void corpus_file(const char *path, void *unused)
{
	size_t n = 0, clen = 0;
	uint8_t *src = test_read_file(path, &n);
	(void)unused;
	if (!src)
		return;
	uint8_t *c = gpz_gzip(src, n, 6, GPZ_FORMAT_GZIP, &clen);
	round_trip(c, clen, src, n, GPZ_FORMAT_GZIP, path);
	free(c);
	free(src);
}

/* GPZ_TEST_INDEX_ENTRIES=3 (ctest inflate_grouped): indexes whose entries cover runs of pieces,
 * as inputs past 4.29 GB get, in the header (one-shot, streaming with the size told) and after
 * the stream (a pipe: entries merge as it grows); every reader decodes them. */
static void grouped(void)
{
	uint64_t st = 21, used = 0;
	size_t n = 9 * PIECE + 4321, clen = 0, sl = 0;
	uint8_t *src = malloc(n);
	for (size_t i = 0; i < n; i++) /* copies reaching across pieces, as in members_at */
		src[i] = i > 40000 && i % 5 == 0 ? src[i - 32000 - i % 701]
		       : (uint8_t)("entries cover runs of pieces "[test_rand(&st) % 29]);
	uint8_t *c = gpz_gzip(src, n, 6, GPZ_FORMAT_GZIP, &clen);
	/* 10 pieces, at most 3 entries: 4 pieces each (log2 18 + 2) */
	/* the cut every 32 pieces is every 8th entry of 4 */
	CHECK(clen > 40 && c[16] == 6 && c[17] == GPZ_DEFLATE_PIECE_LOG + 2 && c[20] == 3 &&
	              c[21] == 0 && c[18] == GPZ_GZIP_INDEX_CUT && c[19] == GPZ_DFL_CUT_LOG - 2,
	      "header index: 3 entries of 4 pieces (%u, %u), cut log %u", c[17], c[20], c[19]);
	round_trip(c, clen, src, n, GPZ_FORMAT_GZIP, "grouped header index");
	struct test_mem m = { .dst = malloc(n + 1), .cap = n + 1 };
	gpz_ctx *cs[2] = { ctx1, ctx3 };
	for (int k = 0; k < 2; k++) {
		gpz_result r = member_at(cs[k], c, clen, 0, &m, &used);
		CHECK(r == GPZ_OK && used == clen && m.len == n && !memcmp(m.dst, src, n),
		      "grouped member_at, context %d: %s", k, gpz_result_string(r));
	}
	uint8_t *z = malloc(n + 1);
	CHECK(zlib_members(c, clen, z, n + 1) == n && !memcmp(z, src, n), "zlib reads it");
	/* through a pipe: 10 pieces into 3 entries, merged twice on the way (1, 2, then 4 a run) */
	uint8_t *p = streamed_gzip(src, n, 1, &sl);
	const uint8_t *t = p + sl - (50 + 4 * 3);
	CHECK(sl > 60 && t[0] == 0x1f && t[16] == 7 && t[17] == GPZ_DEFLATE_PIECE_LOG + 2 &&
	              t[20] == 3 && t[18] == GPZ_GZIP_INDEX_CUT && t[19] == GPZ_DFL_CUT_LOG - 2,
	      "trailing index: 3 entries of 4 pieces (%u, %u), cut log %u", t[17], t[20], t[19]);
	round_trip(p, sl, src, n, GPZ_FORMAT_GZIP, "grouped trailing index");
	gpz_result r = member_at(ctx3, p, sl, 0, &m, &used);
	CHECK(r == GPZ_OK && m.len == n && !memcmp(m.dst, src, n), "grouped trailing member_at: %s",
	      gpz_result_string(r));
	CHECK(zlib_members(p, sl, z, n + 1) == n && !memcmp(z, src, n), "zlib reads the piped one");
	/* a lying entry is caught as for single pieces */
	uint8_t *bad = malloc(clen);
	memcpy(bad, c, clen);
	bad[28] ^= 1; /* entry 0's length */
	size_t got = 0;
	r = gpz_inflate(ctx3, GPZ_FORMAT_GZIP, bad, clen, z, n + 1, &got);
	CHECK(r != GPZ_OK || (got == n && !memcmp(z, src, n)), "a wrong entry: wrong output accepted");
	free(bad);
	free(p);
	free(z);
	free(m.dst);
	free(c);
	free(src);
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "edge";

	gpz_ctx_create(&ctx1, GPZ_BACKEND_CPU, 1);
	gpz_ctx_create(&ctx3, GPZ_BACKEND_CPU, 3);
	if (!strcmp(which, "corpora")) {
		const char *shared = test_corpora_dir();
		char path[4096];
		if (!shared) {
			printf("SKIP: shared corpora absent\n");
			return TEST_SKIP;
		}
		const char *sets[] = { "canterbury", "calgary", "canterbury-large", "snappy-testdata" };
		for (int i = 0; i < 4; i++) {
			snprintf(path, sizeof(path), "%s/%s", shared, sets[i]);
			test_for_each_file(path, corpus_file, NULL);
		}
	} else if (!strcmp(which, "grouped")) {
		if (!getenv("GPZ_TEST_INDEX_ENTRIES")) {
			printf("SKIP: needs GPZ_TEST_INDEX_ENTRIES=3\n");
			return TEST_SKIP;
		}
		grouped();
	} else {
		gpz_streams();
		window_heavy();
		foreign_streams();
		bad_input();
		members_at();
		members_at_window();
		members_at_marks_persist();
		tail_index();
		alone_pieces();
		cut_pieces();
		cut_stream_batches();
	}
	gpz_ctx_free(ctx1);
	gpz_ctx_free(ctx3);
	if (test_failures)
		fprintf(stderr, "%d failures\n", test_failures);
	else
		printf("inflate %s: all checks passed\n", which);
	return test_failures != 0;
}
