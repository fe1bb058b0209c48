/* test_deflate.c - every gzip, zlib and raw-deflate stream gpz writes is decoded by zlib and must
 * give back the input: edge cases, every shared corpus file at levels 1, 6 and 9, and the
 * Canterbury files at every level in every format. Prints sizes against zlib at the same level
 * (information, not a check). Usage: test_deflate [edge|corpora] */
#include "testutil.h"

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

static size_t check(const uint8_t *src, size_t n, int level, gpz_format f, const char *what)
{
	static const int wbits[4] = { 0, 31, 15, -15 };
	size_t cap = gpz_deflate_bound(n), got = 0, back = 0;
	uint8_t *c = malloc(cap), *d = malloc(n + 1);
	gpz_gzip_info gi = { "name.txt", 1700000000u };
	gpz_result r = gpz_deflate_compress(ctx, level, f, f == GPZ_FORMAT_GZIP ? &gi : NULL, src, n,
	                                    c, cap, &got);
	CHECK(r == GPZ_OK, "%s level %d format %d: %s", what, level, f, gpz_result_string(r));
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
	/* a repeated 40 KiB random piece: matches just past the 32 KiB window must not be used */
	for (size_t i = 40960; i < n; i++)
		buf[i] = buf[i - 40960];
	size_t sizes[] = { 2, 3, 4, 258, 259, 32767, 32768, 32769, 65535, 65536, 65537, 300000 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (int l = 1; l <= 9; l++)
			check(buf, sizes[k], l, (gpz_format)(1 + (l + (int)k) % 3), boundary_name(sizes[k]));
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
