/* test_lzframe.c - LZ mode of the .gpz container (type-4 deflate frames, docs/FORMAT.md):
 * round trips at levels 1, 6 and 9 on edge cases and corpus files (1 and 3 threads must give the
 * same bytes), the frame layout checked with zlib alone, frames built by zlib's own deflate read
 * back (other piece sizes and groups, stored blocks), and every bit flip and truncation of small LZ streams
 * rejected (or, for the few flips inside a piece that DEFLATE maps to the same bytes, decoded
 * exactly; see attack()). Usage: test_lzframe edge|hostile|corpora|silesia  (77 = skipped: data absent) */
#include "testutil.h"
#include "common/bits.h"
#include "common/xxh64.h"
#include "container/frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PIECE GPZ_LZ_PIECE
#define GROUP (PIECE << GPZ_LZ_GROUP_LOG) /* a raw DEFLATE stream of chained pieces */

static gpz_ctx *ctx;

static gpz_params lz_params(int level, size_t frame)
{
	gpz_params p;
	gpz_params_default(&p);
	p.lz_level = level;
	if (frame)
		p.frame_bytes = frame;
	return p;
}

/* Frame types of a one-stream .gpz, in order, as a string of digits ("" for no frame). */
static const char *frame_types(const uint8_t *c, size_t n)
{
	static char t[256];
	size_t pos = GPZ_HEADER_SIZE, k = 0;
	gpz_block_info in;

	t[0] = '\0';
	while (pos < n && gpz_parse_block(c + pos, n - pos, &in) == GPZ_OK &&
	       in.kind == GPZ_BLOCK_FRAME && k + 1 < sizeof(t)) {
		t[k++] = (char)('0' + in.frame_type);
		t[k] = '\0';
		pos += (size_t)in.block_bytes;
	}
	return t;
}

/* Round trip through test_roundtrip (1 vs 3 threads, decode, declared size); checks the frame
 * types when `types` is not NULL. Returns the compressed size. */
static size_t trip(const uint8_t *src, size_t n, int level, size_t frame, const char *types,
                   const char *what, uint8_t **out)
{
	gpz_params p = lz_params(level, frame);
	char name[160];
	uint8_t *c = NULL;
	size_t got;

	snprintf(name, sizeof(name), "%s, level %d", what, level);
	got = test_roundtrip(src, n, &p, name, &c);
	if (got && types)
		CHECK(strcmp(frame_types(c, got), types) == 0, "%s: frame types '%s', expected '%s'",
		      name, frame_types(c, got), types);
	if (out)
		*out = c;
	else
		free(c);
	return got;
}

/* Inflate with zlib (raw); returns 1 when c[0..n) is exactly one stream giving want[0..m). */
static int zlib_piece_ok(const uint8_t *c, size_t n, const uint8_t *want, size_t m)
{
	uint8_t *out = malloc(m + 1);
	z_stream z;
	int r, ok;

	memset(&z, 0, sizeof(z));
	inflateInit2(&z, -15);
	z.next_in = (Bytef *)c;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)m + 1;
	r = inflate(&z, Z_FINISH);
	ok = r == Z_STREAM_END && z.avail_in == 0 && z.total_out == m && memcmp(out, want, m) == 0;
	inflateEnd(&z);
	free(out);
	return ok;
}

/* The first frame of an LZ stream, read with zlib alone from the layout in FORMAT.md: every
 * group of pieces one raw DEFLATE stream of its bytes. */
static void check_layout(const uint8_t *c, size_t n, const uint8_t *src, size_t size, int level,
                         const char *what)
{
	const uint8_t *f = c + GPZ_HEADER_SIZE;
	uint64_t content = gpz_load_le64(f + 8), payload = gpz_load_le64(f + 24), sum = 0;
	size_t pieces = (size_t)((content + PIECE - 1) / PIECE), at;
	const int glog = level <= GPZ_LZ_ALONE_LEVEL ? 0 : GPZ_LZ_GROUP_LOG; /* as FORMAT.md says */
	const size_t gp = (size_t)1 << glog, group = PIECE << glog;
	int ok = 1;

	CHECK(f[0] == 4 && f[1] == 1 && f[2] == GPZ_LZ_PIECE_LOG && f[3] == glog &&
	      gpz_load_le32(f + 4) == 0 &&
	      gpz_load_le32(f + 16) == 0 && gpz_load_le32(f + 20) == 0 && content <= size,
	      "%s: deflate frame header fields", what);
	if (f[0] != 4 || content > size)
		return;
	for (size_t i = 0; i < pieces; i++)
		sum += gpz_load_le32(f + 32 + 4 * i);
	CHECK(sum == payload, "%s: index sum %llu, payload %llu", what, (unsigned long long)sum,
	      (unsigned long long)payload);
	at = 32 + 4 * pieces;
	CHECK(gpz_load_le32(f + at) == (uint32_t)gpz_xxh64(f, at, 0), "%s: header check", what);
	at += 4;
	for (size_t i = 0; i < pieces && ok; i += gp) {
		size_t len = 0, off = i * PIECE;
		size_t m = content - off < group ? (size_t)content - off : group;
		for (size_t k = i; k < i + gp && k < pieces; k++)
			len += gpz_load_le32(f + 32 + 4 * k);
		ok = at + len <= n && zlib_piece_ok(f + at, len, src + off, m);
		CHECK(ok, "%s: group at piece %zu is not a raw DEFLATE stream of its bytes", what, i);
		at += len;
	}
	CHECK(gpz_load_le64(f + at) == gpz_content_checksum(src, (size_t)content),
	      "%s: content checksum", what);
	CHECK(GPZ_HEADER_SIZE + at + 8 + GPZ_TRAILER_SIZE <= n, "%s: frame size", what);
}

/* A pseudo-random text over a small vocabulary (compressible, but not trivially). */
static void fill_text(uint8_t *b, size_t n, uint64_t seed)
{
	static const char *words[] = { "the ", "quick ", "brown ", "fox ", "jumps ", "over ",
	                               "a ", "lazy ", "dog, ", "and ", "then ", "sleeps. ",
	                               "GPU ", "frames ", "decode ", "in ", "parallel\n" };
	size_t i = 0;
	while (i < n) {
		const char *w = words[test_rand(&seed) % (sizeof(words) / sizeof(words[0]))];
		for (; *w && i < n; w++)
			b[i++] = (uint8_t)*w;
	}
}

static void edge(void)
{
	size_t big = 3 * GROUP + 777;
	uint8_t *buf = malloc(big), *c;
	const int levels[] = { 1, 6, 9 };
	uint64_t st = 5;
	gpz_params p;

	/* parameters */
	p = lz_params(10, 0);
	CHECK(gpz_params_check(&p) == GPZ_ERR_PARAM, "level 10 accepted");
	p = lz_params(-1, 0);
	CHECK(gpz_params_check(&p) == GPZ_ERR_PARAM, "level -1 accepted");
	p = lz_params(6, 0);
	p.symbol_bytes = 2;
	CHECK(gpz_params_check(&p) == GPZ_ERR_PARAM, "LZ mode with 2-byte symbols accepted");
	p = lz_params(0, 0);
	CHECK(gpz_params_check(&p) == GPZ_OK, "default params rejected");
	gpz_params_default(&p);
	CHECK(p.lz_level == 0, "default lz_level is %d", p.lz_level);

	fill_text(buf, big, 1);
	for (int li = 0; li < 3; li++) {
		int l = levels[li];
		const size_t sizes[] = { 2,         100,       4096,      PIECE - 1, PIECE, PIECE + 1,
		                         GROUP - 1, GROUP + 1, 2 * GROUP, big };
		trip(buf, 0, l, 0, "", "empty", NULL);
		trip(buf, 1, l, 0, "3", "one byte", NULL);
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			char what[64];
			size_t n = sizes[k], got;
			snprintf(what, sizeof(what), "text of %zu bytes", n);
			got = trip(buf, n, l, 0, n > 4 ? "4" : NULL, what, &c);
			if (got && n > 4)
				check_layout(c, got, buf, n, l, what);
			if (got && n > 4 && n <= PIECE) { /* one piece: gpz's raw deflate stream itself */
				size_t cap = gpz_deflate_bound(n), dn = 0;
				uint8_t *d = malloc(cap);
				gpz_deflate_compress(ctx, l, GPZ_FORMAT_DEFLATE, NULL, buf, n, d, cap, &dn);
				CHECK(got == dn + GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE + 48 &&
				      memcmp(c + GPZ_HEADER_SIZE + 40, d, dn) == 0,
				      "%s level %d: the piece differs from gpz's raw deflate stream", what, l);
				free(d);
			}
			free(c);
		}
	}
	/* long runs: one byte value is a constant frame; a run broken by rare bytes is deflate */
	memset(buf, 'a', big);
	for (int li = 0; li < 3; li++) {
		size_t got = trip(buf, big, levels[li], 0, "3", "long run", NULL);
		CHECK(got == GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE + 44, "long run: %zu bytes", got);
	}
	for (size_t i = 0; i < big; i += 100003)
		buf[i] = 'b';
	for (int li = 0; li < 3; li++) {
		size_t got = trip(buf, big, levels[li], 0, "4", "long run with rare bytes", NULL);
		CHECK(got < big / 100, "long run with rare bytes: %zu bytes", got);
	}
	/* incompressible: stored frames, at most 44 bytes per frame over the input */
	for (size_t i = 0; i < big; i++)
		buf[i] = (uint8_t)test_rand(&st);
	for (int li = 0; li < 3; li++) {
		size_t got = trip(buf, big, levels[li], 0, "2", "random", NULL);
		CHECK(got == big + GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE + 44, "random: %zu bytes", got);
		trip(buf, 5000, levels[li], 0, "2", "random 5000", NULL);
	}
	/* several frames, mixed types, frame sizes that do and do not divide the piece size */
	fill_text(buf, big, 2);
	memset(buf + 400000, 'z', 300000);
	for (size_t i = 1500000; i < 1800000; i++)
		buf[i] = (uint8_t)test_rand(&st);
	for (int li = 0; li < 3; li++) {
		trip(buf, 1000000, levels[li], 100000, "4444333444", "frames of 100000", NULL);
		trip(buf, big, levels[li], GROUP + 3 * 65536, "444", "frames of 1.1875 MiB", NULL);
		trip(buf, big, levels[li], 2 * GROUP + 1, "44", "frames of 2 MiB + 1", NULL);
		trip(buf, big, levels[li], PIECE + 5, "4444444444444", "frames of a piece + 5", NULL);
	}
	/* Huffman-only mode is unchanged by the new field */
	p = lz_params(0, 0);
	fill_text(buf, 100000, 3);
	c = NULL;
	size_t got = test_roundtrip(buf, 100000, &p, "Huffman mode", &c);
	CHECK(got && strcmp(frame_types(c, got), "1") == 0, "lz_level 0: not a Huffman frame");
	free(c);
	free(buf);
}

/* ---- frames written by zlib (an independent encoder) ---- */

/* A whole stream with one deflate frame of 2^log-byte pieces compressed by zlib at zlevel (0 =
 * stored blocks), chained in groups of 2^glog (one zlib stream a group, a sync flush after each
 * piece but the group's last; glog 0: every piece a stream). Returns its size; *out is malloc'd. */
static size_t zlib_stream(const uint8_t *src, size_t n, int log, int glog, int zlevel,
                          uint8_t **out)
{
	size_t ps = (size_t)1 << log, np = (n + ps - 1) / ps;
	size_t cap = 64 + 4 * np + n + n / 256 + 64 * np + GPZ_TRAILER_SIZE, w;
	uint8_t *s = malloc(cap), *f = s + GPZ_HEADER_SIZE;
	size_t at = 36 + 4 * np, payload = 0;

	gpz_write_header(s, cap, &w);
	z_stream z;
	for (size_t i = 0; i < np; i++) {
		size_t m = n - i * ps < ps ? n - i * ps : ps;
		int end = (i + 1) % ((size_t)1 << glog) == 0 || i + 1 == np;
		if (i % ((size_t)1 << glog) == 0) {
			memset(&z, 0, sizeof(z));
			deflateInit2(&z, zlevel, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
		}
		uLong before = z.total_out;
		z.next_in = (Bytef *)src + i * ps;
		z.avail_in = (uInt)m;
		z.next_out = f + at;
		z.avail_out = (uInt)(m + m / 256 + 64);
		CHECK(deflate(&z, end ? Z_FINISH : Z_SYNC_FLUSH) == (end ? Z_STREAM_END : Z_OK) &&
		              z.avail_in == 0,
		      "zlib deflate of piece %zu", i);
		gpz_store_le32(f + 32 + 4 * i, (uint32_t)(z.total_out - before));
		at += z.total_out - before;
		payload += z.total_out - before;
		if (end)
			deflateEnd(&z);
	}
	memset(f, 0, 32);
	f[0] = 4;
	f[1] = 1;
	f[2] = (uint8_t)log;
	f[3] = (uint8_t)glog;
	gpz_store_le64(f + 8, n);
	gpz_store_le64(f + 24, payload);
	gpz_store_le32(f + 32 + 4 * np, (uint32_t)gpz_xxh64(f, 32 + 4 * np, 0));
	gpz_store_le64(f + at, gpz_content_checksum(src, n));
	at += 8;
	gpz_write_trailer(n, 1, f + at, GPZ_TRAILER_SIZE, &w);
	*out = s;
	return GPZ_HEADER_SIZE + at + w;
}

static int decodes_to(const uint8_t *c, size_t n, const uint8_t *want, size_t m)
{
	uint8_t *out = malloc(m ? m : 1);
	size_t got = 0;
	gpz_result r = gpz_decompress(ctx, c, n, out, m, &got);
	int ok = r == GPZ_OK && got == m && memcmp(out, want, m) == 0;
	free(out);
	return ok;
}

static void foreign(void)
{
	size_t n = 300000;
	uint8_t *buf = malloc(n), *c;
	uint64_t st = 9;

	fill_text(buf, n, 4);
	for (size_t i = 100000; i < 120000; i++)
		buf[i] = (uint8_t)test_rand(&st);
	for (int log = GPZ_MIN_CHUNK_LOG; log <= GPZ_MAX_CHUNK_LOG; log += 4)
		for (int zl = 0; zl <= 9; zl += 3)
			for (int glog = 0; glog <= GPZ_LZ_MAX_GROUP_LOG; glog += 2) {
				if (glog && log < GPZ_LZ_GROUP_MIN_LOG)
					continue; /* chained pieces are at least a window long */
				size_t got = zlib_stream(buf, n, log, glog, zl, &c);
				CHECK(decodes_to(c, got, buf, n),
				      "zlib level %d, pieces of 2^%d in groups of 2^%d: not decoded", zl, log,
				      glog);
				free(c);
			}
	free(buf);
}

/* ---- hostile input ---- */

static gpz_result try_decode(const uint8_t *c, size_t n, size_t cap, const uint8_t *want,
                             size_t m, int *wrong)
{
	uint8_t *out = malloc(cap ? cap : 1), *in = malloc(n ? n : 1);
	size_t got = 0;
	uint64_t declared;
	gpz_result r;

	memcpy(in, c, n); /* exact sizes: ASan sees any over-read or overrun */
	r = gpz_decompress(ctx, in, n, out, cap, &got);
	*wrong = r == GPZ_OK && (got != m || memcmp(out, want, m) != 0);
	gpz_decompressed_size(in, n, &declared);
	free(in);
	free(out);
	return r;
}

/* Bytes of c[0..n) that lie in a deflate frame's payload (the pieces), as a 0/1 mask. */
static uint8_t *payload_mask(const uint8_t *c, size_t n)
{
	uint8_t *mask = calloc(n ? n : 1, 1);
	size_t pos = GPZ_HEADER_SIZE;
	gpz_block_info in;

	while (pos < n && gpz_parse_block(c + pos, n - pos, &in) == GPZ_OK &&
	       in.kind == GPZ_BLOCK_FRAME && in.block_bytes <= n - pos) {
		if (in.frame_type == GPZ_FRAME_DEFLATE) {
			size_t payload = (size_t)gpz_load_le64(c + pos + 24);
			size_t end = pos + (size_t)in.block_bytes - 8;
			memset(mask + end - payload, 1, payload);
		}
		pos += (size_t)in.block_bytes;
	}
	return mask;
}

/*
 * Every bit flip and every truncation. A flip must be rejected, or decode to exactly the
 * original: DEFLATE is not one-to-one (a match distance changed to point at an equal string
 * decodes to the same bytes), and the format checks the content, not the coded bits, so such a
 * flip inside a piece is harmless and cannot be detected. Flips anywhere else (headers, index,
 * checks, stored-block and final padding) must all be rejected, and harmless ones must be rare.
 */
static void attack(uint8_t *c, size_t n, const uint8_t *src, size_t m, const char *what,
                   int stored_only)
{
	uint8_t *mask = payload_mask(c, n);
	int wrong, wrongs = 0, outside = 0;
	size_t benign = 0;

	CHECK(decodes_to(c, n, src, m), "%s: the intact stream does not decode", what);
	for (size_t bit = 0; bit < 8 * n; bit++) {
		int ok = 0;
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		for (int big = 0; big < 2; big++) {
			gpz_result r = try_decode(c, n, m + (big ? 4096 : 0), src, m, &wrong);
			ok |= r == GPZ_OK;
			wrongs += wrong;
		}
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		benign += ok;
		if (ok && !mask[bit / 8] && outside++ < 5)
			fprintf(stderr, "%s: flip of bit %zu (byte %zu, outside the pieces) accepted\n",
			        what, bit, bit / 8);
	}
	CHECK(wrongs == 0, "%s: %d bit flips decoded to wrong output", what, wrongs);
	CHECK(outside == 0, "%s: %d bit flips outside the pieces accepted", what, outside);
	/* only stored blocks: nothing but the (checked) padding could change without effect */
	CHECK(stored_only ? benign == 0 : benign * 200 <= 8 * n,
	      "%s: %zu of %zu bit flips decode to the same bytes", what, benign, 8 * n);
	size_t accepted = 0;
	for (size_t len = 0; len < n; len++)
		accepted += try_decode(c, len, m + 4096, src, m, &wrong) == GPZ_OK;
	CHECK(accepted == 0, "%s: %zu truncations accepted", what, accepted);
	printf("%s: %zu bytes, %zu truncations and %zu bit flips rejected, %zu flips inside pieces "
	       "decode to the same bytes\n", what, n, n, 8 * n - benign, benign);
	free(mask);
}

static void hostile(void)
{
	size_t n = 2600;
	uint8_t *buf = malloc(n), *c;
	uint64_t st = 11;
	size_t got;

	fill_text(buf, n, 5);
	got = trip(buf, n, 6, 0, "4", "hostile text", &c);
	if (got)
		attack(c, got, buf, n, "gpz LZ stream, level 6", 0);
	free(c);
	got = trip(buf, n, 1, 1000, "444", "hostile text, 3 frames", &c);
	if (got)
		attack(c, got, buf, n, "gpz LZ stream, level 1, 3 frames", 0);
	free(c);
	/* random bytes inside text: gpz's writer puts them in a stored block within the piece */
	for (size_t i = 0; i < 2100; i++)
		buf[i] = (uint8_t)test_rand(&st);
	got = trip(buf, n, 9, 0, NULL, "hostile random+text", &c);
	if (got)
		attack(c, got, buf, n, "gpz LZ stream, random then text", 0);
	free(c);
	/* zlib-made frames: many pieces of 256 bytes, stored blocks (level 0) and compressed ones */
	fill_text(buf, n, 6);
	for (size_t i = 1000; i < 1400; i++)
		buf[i] = (uint8_t)test_rand(&st);
	for (int zl = 0; zl <= 9; zl += 9) {
		char what[64];
		snprintf(what, sizeof(what), "zlib level %d pieces of 256 bytes", zl);
		got = zlib_stream(buf, 1500, 8, 0, zl, &c);
		attack(c, got, buf, 1500, what, zl == 0);
		free(c);
	}
	free(buf);
}

/* ---- corpora ---- */

struct tally {
	const int *levels;
	int nlevels, files;
	uint64_t in, lz6, gz6;
};

static void corpus_file(const char *path, void *vt)
{
	struct tally *t = vt;
	size_t n, cap, gz = 0;
	uint8_t *src = test_read_file(path, &n), *g;

	if (!src)
		return;
	for (int i = 0; i < t->nlevels; i++) {
		size_t got = trip(src, n, t->levels[i], 0, NULL, path, NULL);
		if (t->levels[i] != 6)
			continue;
		cap = gpz_deflate_bound(n);
		g = malloc(cap);
		gpz_deflate_compress(ctx, 6, GPZ_FORMAT_GZIP, NULL, src, n, g, cap, &gz);
		free(g);
		printf("%-64s %10zu -> LZ -6 %10zu, gzip -6 %10zu (%+.2f%%)\n", path, n, got, gz,
		       gz ? 100.0 * ((double)got / (double)gz - 1) : 0.0);
		t->in += n;
		t->lz6 += got;
		t->gz6 += gz;
	}
	t->files++;
	free(src);
}

static int corpora(int silesia)
{
	static const int three[] = { 1, 6, 9 }, six[] = { 6 };
	struct tally t = { silesia ? six : three, silesia ? 1 : 3, 0, 0, 0, 0 };
	const char *dir = silesia ? test_data_dir() : test_corpora_dir();
	const char *sub[] = { "canterbury", "calgary", "canterbury-artificial", "canterbury-large",
	                      "canterbury-misc", "snappy-testdata" };
	char path[4096];

	if (!dir) {
		printf("SKIP: %s absent\n", silesia ? "prepared data" : "shared corpora");
		return TEST_SKIP;
	}
	for (size_t i = 0; i < (silesia ? 1 : sizeof(sub) / sizeof(sub[0])); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, silesia ? "silesia" : sub[i]);
		test_for_each_file(path, corpus_file, &t);
	}
	if (t.files == 0) {
		printf("SKIP: no files\n");
		return TEST_SKIP;
	}
	printf("%d files, level 6: %llu bytes -> LZ .gpz %llu, gzip %llu (%+.2f%%)\n", t.files,
	       (unsigned long long)t.in, (unsigned long long)t.lz6, (unsigned long long)t.gz6,
	       t.gz6 ? 100.0 * ((double)t.lz6 / (double)t.gz6 - 1) : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "edge";
	int rc = 0;

	gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2);
	if (!strcmp(which, "edge")) {
		edge();
		foreign();
	} else if (!strcmp(which, "hostile")) {
		hostile();
	} else if (!strcmp(which, "corpora") || !strcmp(which, "silesia")) {
		rc = corpora(!strcmp(which, "silesia"));
	} else {
		fprintf(stderr, "usage: test_lzframe edge|hostile|corpora|silesia\n");
		rc = 2;
	}
	gpz_ctx_free(ctx);
	if (test_failures)
		fprintf(stderr, "%d failures\n", test_failures);
	else if (rc == 0)
		printf("lzframe %s: all checks passed\n", which);
	return test_failures ? 1 : rc;
}
