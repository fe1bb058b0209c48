/* test_deflate.c - every gzip, zlib and raw-deflate stream gpz writes is decoded by zlib and must
 * give back the input: edge cases, every shared corpus file at levels 1, 6 and 9, and the
 * Canterbury files at every level in every format. Prints sizes against zlib at the same level
 * (information, not a check). Usage: test_deflate [edge|corpora] */
#include "testutil.h"
#include "deflate/deflate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static gpz_ctx *ctx;
static uint64_t total_in, total_gpz, total_zlib;

/* Inflate with zlib; windowBits -15 raw, 15 zlib, 31 gzip. */
static int zlib_decode(const uint8_t *c, size_t n, int wbits, uint8_t *out, size_t cap,
                       size_t *got)
{
	z_stream z;
	int r;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, wbits) != Z_OK)
		return 0;
	z.next_in = (Bytef *)c;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	r = inflate(&z, Z_FINISH);
	*got = z.total_out;
	inflateEnd(&z);
	return r == Z_STREAM_END && z.avail_in == 0;
}

static size_t zlib_size(const uint8_t *src, size_t n, int level)
{
	uLongf cap = compressBound((uLong)n);
	uint8_t *buf = malloc(cap);
	size_t got = compress2(buf, &cap, src, (uLong)n, level) == Z_OK ? cap : 0;
	free(buf);
	return got;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Inflate the piece of src[start .. start + len) that begins at byte `at` of raw (raw
 * deflate), with the 32 KiB before it as the dictionary (alone: none, so that zlib refuses a
 * reference before the piece): is it that piece? */
static int piece_decodes(const uint8_t *raw, size_t raw_n, uint64_t at, const uint8_t *src,
                         size_t start, size_t len, int alone)
{
	z_stream z;
	uint8_t *out = malloc(len + 1);
	size_t hist = alone ? 0 : start < 32768 ? start : 32768;
	int ok = 0;
	memset(&z, 0, sizeof(z));
	if (!out || inflateInit2(&z, -15) != Z_OK) {
		free(out);
		return 0;
	}
	if (hist)
		inflateSetDictionary(&z, src + start - hist, (uInt)hist);
	z.next_in = (Bytef *)raw + at;
	z.avail_in = (uInt)(raw_n - at);
	z.next_out = out;
	z.avail_out = (uInt)len;
	int zr = inflate(&z, Z_SYNC_FLUSH);
	ok = (zr == Z_OK || zr == Z_STREAM_END || zr == Z_BUF_ERROR) && z.avail_out == 0 &&
	     memcmp(out, src + start, len) == 0;
	inflateEnd(&z);
	free(out);
	return ok;
}

/* A gzip stream from gpz_deflate_compress carries the piece index (FORMAT.md): filled, one entry
 * per piece, the lengths in bytes adding up to the deflate stream, and every piece decodes on
 * its own from the byte where the index puts it: at levels 1-3 without the 32 KiB before it
 * (version 6, flag "alone"), at the others with it, but for every 32nd piece (flag "cut", period
 * log2 5), which needs none. */
static void index_check(const uint8_t *c, size_t got, const uint8_t *src, size_t n, int level,
                        const char *what)
{
	size_t np = n ? (n - 1) / GPZ_DEFLATE_PIECE + 1 : 1;
	int alone = level <= 3, flags = alone ? GPZ_GZIP_INDEX_ALONE : GPZ_GZIP_INDEX_CUT;
	CHECK(got > 30 && (c[3] & 0x04), "%s: no extra field", what);
	if (got <= 30 || !(c[3] & 0x04))
		return;
	size_t xlen = c[10] | (size_t)c[11] << 8, sub = c[14] | (size_t)c[15] << 8;
	CHECK(c[12] == 'G' && c[13] == 'P' && sub == 12 + 4 * np && xlen == 4 + sub &&
	          c[16] == 6 && c[17] == GPZ_DEFLATE_PIECE_LOG && c[18] == flags &&
	          c[19] == (alone ? 0 : GPZ_DFL_CUT_LOG) && le32(c + 20) == np,
	      "%s level %d: piece index header wrong (np %zu)", what, level, np);
	if (sub != 12 + 4 * np || 12 + xlen > got)
		return;
	uLong crc = crc32(0L, c + 16, 8);
	crc = crc32(crc, c + 28, (uInt)(4 * np));
	CHECK(le32(c + 24) == (uint32_t)crc, "%s: the index's CRC-32", what);
	size_t h = 12 + xlen;
	if (c[3] & 0x08)
		while (h < got && c[h++])
			;
	const uint8_t *raw = c + h;
	size_t raw_n = got - h - 8;
	uint64_t at = 0;
	for (size_t k = 0; k < np; k++) {
		size_t start = k * GPZ_DEFLATE_PIECE, len = n - start < GPZ_DEFLATE_PIECE ?
		                                                n - start : GPZ_DEFLATE_PIECE;
		if (len && (at >= raw_n || !piece_decodes(raw, raw_n, at, src, start, len,
		                                                 alone || k % 32 == 0))) {
			CHECK(0, "%s: piece %zu does not decode from byte %llu", what, k,
			      (unsigned long long)at);
			break;
		}
		at += le32(c + 28 + 4 * k);
	}
	CHECK(at == raw_n, "%s: index sums to %llu bytes, stream has %zu", what,
	      (unsigned long long)at, raw_n);
}

static size_t check(const uint8_t *src, size_t n, int level, gpz_format f, const char *what)
{
	static const int wbits[4] = { 0, 31, 15, -15 };
	size_t cap = gpz_deflate_bound(n), got = 0, back = 0;
	uint8_t *c = malloc(cap), *d = malloc(n + 1);
	gpz_gzip_info gi = { "name.txt", 1700000000u, 0, 0 };
	gpz_result r = gpz_deflate_compress(ctx, level, f, f == GPZ_FORMAT_GZIP ? &gi : NULL, src, n,
	                                    c, cap, &got);
	CHECK(r == GPZ_OK, "%s level %d format %d: %s", what, level, f, gpz_result_string(r));
	if (r == GPZ_OK && f == GPZ_FORMAT_GZIP)
		index_check(c, got, src, n, level, what);
	if (r == GPZ_OK) {
		int ok = zlib_decode(c, got, wbits[f], d, n + 1, &back);
		CHECK(ok && back == n && memcmp(d, src, n) == 0,
		      "%s level %d format %d: zlib does not decode it to the input", what, level, f);
	}
	free(c);
	free(d);
	return r == GPZ_OK ? got : 0;
}

static const char *boundary_name(size_t n)
{
	static char name[64];
	snprintf(name, sizeof(name), "boundary size %zu", n);
	return name;
}

static void edge(void)
{
	size_t n = 300000;
	uint8_t *buf = malloc(n);
	uint64_t st = 3;
	check((const uint8_t *)"", 0, 6, GPZ_FORMAT_GZIP, "empty");
	check((const uint8_t *)"a", 1, 6, GPZ_FORMAT_ZLIB, "one byte");
	memset(buf, 'a', n);
	for (int l = 1; l <= 9; l++)
		check(buf, n, l, GPZ_FORMAT_DEFLATE, "long run");
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)test_rand(&st);
	for (int l = 1; l <= 9; l += 4) {
		size_t got = check(buf, n, l, GPZ_FORMAT_DEFLATE, "random");
		CHECK(got <= n + n / 1000 + 64, "random grew to %zu", got);
	}
	/* alternating incompressible and skewed units: many small blocks, stored ones among them,
	 * must still fit gpz_deflate_bound */
	for (size_t i = 0; i < n; i++)
		buf[i] = (i / 2048) % 2 ? (uint8_t)test_rand(&st)
		                        : (uint8_t)("ab"[test_rand(&st) % 2] + (test_rand(&st) % 64 == 0));
	for (int l = 1; l <= 9; l += 4)
		check(buf, n, l, GPZ_FORMAT_GZIP, "alternating units");
	/* a repeated 40 KiB random piece: matches just past the 32 KiB window must not be used */
	for (size_t i = 40960; i < n; i++)
		buf[i] = buf[i - 40960];
	size_t sizes[] = { 2, 3, 4, 258, 259, 32767, 32768, 32769, 65535, 65536, 65537, 300000 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (int l = 1; l <= 9; l++)
			check(buf, sizes[k], l, (gpz_format)(1 + (l + (int)k) % 3), boundary_name(sizes[k]));
	free(buf);
}

/* Pieces after the first start at any bit of the stream, and a stored block must start on a
 * byte boundary of the whole stream: text first (so the first piece ends mid-byte), then
 * incompressible pieces (stored blocks), then text again, at sizes across the 1 MiB pieces. */
static void stored_after_text(void)
{
	size_t piece = (size_t)1 << 20, n = 3 * piece + 777;
	uint8_t *buf = malloc(n);
	uint64_t st = 11;
	for (size_t shift = 0; shift < 4; shift++) {
		for (size_t i = 0; i < n; i++) {
			int noisy = i >= piece - 1000 * shift && i < 2 * piece + 5000;
			buf[i] = noisy ? (uint8_t)(test_rand(&st) >> 24)
			               : (uint8_t)("the quick brown fox "[(i * 7 + shift) % 20]);
		}
		for (int level = 1; level <= 9; level += 4)
			for (int f = GPZ_FORMAT_GZIP; f <= GPZ_FORMAT_DEFLATE; f++)
				check(buf, n - shift * 333, level, (gpz_format)f, "stored pieces after text");
	}
	free(buf);
}

/* The whole input through the engine on a context of `threads` threads and `depth` lanes, pushed
 * (positional 0), read by the lanes (1), or read and written by them (2): the bytes
 * ref[0 .. ref_n) of the one-shot call, index included. */
static void engine_same(const uint8_t *src, size_t n, int level, gpz_format f, int threads,
                        int depth, int positional, const uint8_t *ref, size_t ref_n,
                        uint64_t *st)
{
	static const char *const how[] = { "pushed", "positional", "positional in and out" };
	gpz_ctx *c;
	gpz_deflate_stream *ds;
	struct test_mem m = { .src = src, .size = n, .dst = malloc(ref_n + 1), .cap = ref_n + 1,
		              .step = 3 * GPZ_DEFLATE_PIECE / 2, .rng = *st };
	gpz_gzip_info gi = { NULL, 0, n ? n : 1, 0 };
	uint64_t in = 0, out = 0;
	gpz_result r;

	gpz_ctx_create(&c, GPZ_BACKEND_CPU, threads);
	gpz_ctx_set_depth(c, depth);
	r = gpz_deflate_stream_create(c, level, f, &gi, &ds);
	if (r == GPZ_OK)
		r = positional == 2 ? gpz_deflate_stream_from_at_to(ds, test_mem_read_at, n,
		                                                    test_mem_write_at, &m, &in, &out)
		  : positional      ? gpz_deflate_stream_from_at(ds, test_mem_read_at, n, test_mem_write,
		                                                 &m, &in, &out)
		                    : gpz_deflate_stream_from(ds, test_mem_read, test_mem_write, &m, &in,
		                                              &out);
	if (r == GPZ_OK && f == GPZ_FORMAT_GZIP) {
		size_t hl;
		r = gpz_deflate_stream_header(ds, m.dst, m.len, &hl);
	}
	CHECK(r == GPZ_OK && in == n && out == m.len && m.len == ref_n && !memcmp(m.dst, ref, ref_n),
	      "n=%zu threads %d depth %d %s: engine output differs (%s, %zu vs %zu bytes)", n,
	      threads, depth, how[positional], gpz_result_string(r), m.len, ref_n);
	CHECK(positional < 2 || m.at_bytes == ref_n, "n=%zu: %llu bytes written positionally for %zu",
	      n, (unsigned long long)m.at_bytes, ref_n);
	gpz_deflate_stream_free(ds);
	gpz_ctx_free(c);
	free(m.dst);
	*st = m.rng;
}

/* One-shot on 1 and 3 threads, and streamed in random-sized pieces, give the same bytes. */
static void stream_same(const uint8_t *src, size_t n, int level, gpz_format f, uint64_t *st)
{
	gpz_ctx *c3;
	size_t cap = gpz_deflate_bound(n), a = 0, b = 0, pos = 0, o = 0;
	uint8_t *x = malloc(cap), *y = malloc(cap), *z = malloc(gpz_deflate_update_bound(n) + n);
	gpz_deflate_stream *ds;
	gpz_result r;

	gpz_ctx_create(&c3, GPZ_BACKEND_CPU, 3);
	r = gpz_deflate_compress(ctx, level, f, NULL, src, n, x, cap, &a);
	CHECK(r == GPZ_OK, "one-shot: %s", gpz_result_string(r));
	r = gpz_deflate_compress(c3, level, f, NULL, src, n, y, cap, &b);
	CHECK(r == GPZ_OK && a == b && memcmp(x, y, a) == 0, "n=%zu: 3 threads differ", n);
	gpz_gzip_info gi = { NULL, 0, n ? n : 1, 0 }; /* the piece index, as one-shot gzip has it */
	r = gpz_deflate_stream_create(c3, level, f, &gi, &ds);
	while (r == GPZ_OK) {
		size_t piece = (size_t)(test_rand(st) % (3 * GPZ_DEFLATE_PIECE / 2));
		size_t w = 0;
		if (piece > n - pos)
			piece = n - pos;
		int last = pos + piece == n && test_rand(st) % 2;
		r = gpz_deflate_update(ds, src + pos, piece, last, z + o,
		                       gpz_deflate_update_bound(piece), &w);
		pos += piece;
		o += w;
		if (last)
			break;
	}
	if (r == GPZ_OK && f == GPZ_FORMAT_GZIP) {
		size_t hl;
		r = gpz_deflate_stream_header(ds, z, o, &hl);
	}
	gpz_deflate_stream_free(ds);
	CHECK(r == GPZ_OK && o == a && memcmp(x, z, a) == 0, "n=%zu: streamed output differs (%s)",
	      n, gpz_result_string(r));
	for (int k = 0; k < 6; k++) /* threads 1, 2; depth 1, 3; pushed, positional in, and out */
		engine_same(src, n, level, f, 1 + k % 2, k % 3 ? 3 : 1, k / 2, x, a, st);
	gpz_ctx_free(c3);
	free(x);
	free(y);
	free(z);
}

/* A stream told the wrong size for its index: the header cannot be completed, and what was
 * written (index reserved, marked unfilled) is still a gzip stream zlib decodes. */
static void index_wrong_size(void)
{
	size_t n = GPZ_DEFLATE_PIECE + 5, w = 0, hl = 0;
	uint8_t *src = malloc(n), *out = malloc(gpz_deflate_update_bound(n)), h[64];
	uint8_t *back = malloc(n + 1);
	gpz_gzip_info gi = { NULL, 0, 3 * GPZ_DEFLATE_PIECE, 0 }; /* 3 pieces promised, 2 given */
	gpz_deflate_stream *ds;
	for (size_t i = 0; i < n; i++)
		src[i] = (uint8_t)("abcabd"[i % 6] + i % 7);
	CHECK(gpz_deflate_stream_create(ctx, 6, GPZ_FORMAT_GZIP, &gi, &ds) == GPZ_OK, "create");
	CHECK(gpz_deflate_update(ds, src, n, 1, out, gpz_deflate_update_bound(n), &w) == GPZ_OK,
	      "update");
	CHECK(gpz_deflate_stream_header(ds, h, sizeof(h), &hl) == GPZ_ERR_PARAM && hl == 0,
	      "a wrong index size must not give a header");
	CHECK(w > 30 && (out[3] & 0x04) && out[12] == 'G' && out[13] == 'P' && out[16] == 0,
	      "the reserved index is marked unfilled");
	size_t got = 0;
	CHECK(zlib_decode(out, w, 31, back, n + 1, &got) && got == n && !memcmp(back, src, n),
	      "zlib decodes a stream with an unfilled index");
	gpz_deflate_stream_free(ds);
	free(src);
	free(out);
	free(back);
}

static void streams(void)
{
	size_t n = 9 * GPZ_DEFLATE_PIECE + 12345;
	uint8_t *buf = malloc(n);
	uint64_t st = 99;
	for (size_t i = 0; i < n; i++) /* compressible: words from a small vocabulary */
		buf[i] = (uint8_t)("the quick brown fox jumps over a lazy dog "[test_rand(&st) % 43]);
	size_t sizes[] = { 0, 1, GPZ_DEFLATE_PIECE - 1, GPZ_DEFLATE_PIECE, GPZ_DEFLATE_PIECE + 1,
	                   2 * GPZ_DEFLATE_PIECE, 4 * GPZ_DEFLATE_PIECE, 8 * GPZ_DEFLATE_PIECE,
	                   8 * GPZ_DEFLATE_PIECE + 5, 9 * GPZ_DEFLATE_PIECE, n };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		stream_same(buf, sizes[k], 1 + (int)k % 9, (gpz_format)(1 + k % 3), &st);
		check(buf, sizes[k], 1 + (int)k % 9, (gpz_format)(1 + k % 3), "pieces");
	}
	free(buf);
}

static void corpus_file(const char *path, void *all_levels)
{
	size_t n;
	uint8_t *src = test_read_file(path, &n);
	if (!src)
		return;
	for (int l = 1; l <= 9; l++) {
		if (!*(int *)all_levels && l != 1 && l != 6 && l != 9)
			continue;
		size_t got = check(src, n, l, (gpz_format)(1 + l % 3), path);
		if (l == 6) {
			total_in += n;
			total_gpz += got;
			total_zlib += zlib_size(src, n, 6);
		}
	}
	free(src);
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "edge";
	const char *shared = test_corpora_dir();
	char path[4096];

	gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 1);
	if (!strcmp(which, "edge")) {
		edge();
		stored_after_text();
		streams();
		index_wrong_size();
	} else {
		int all = 1, some = 0;
		if (!shared) {
			printf("SKIP: shared corpora absent\n");
			return TEST_SKIP;
		}
		snprintf(path, sizeof(path), "%s/canterbury", shared);
		test_for_each_file(path, corpus_file, &all);
		const char *rest[] = { "calgary", "canterbury-artificial", "canterbury-large",
		                       "canterbury-misc", "snappy-testdata" };
		for (int i = 0; i < 5; i++) {
			snprintf(path, sizeof(path), "%s/%s", shared, rest[i]);
			test_for_each_file(path, corpus_file, &some);
		}
		printf("level 6: %llu bytes -> gpz %llu, zlib %llu (%.2f%%)\n",
		       (unsigned long long)total_in, (unsigned long long)total_gpz,
		       (unsigned long long)total_zlib,
		       total_zlib ? 100.0 * ((double)total_gpz / (double)total_zlib - 1) : 0);
	}
	gpz_ctx_free(ctx);
	if (test_failures)
		fprintf(stderr, "%d failures\n", test_failures);
	else
		printf("deflate %s: all checks passed\n", which);
	return test_failures != 0;
}
