/*
 * bench_deflate.c - `gpz-bench --deflate`: gpz's gzip output against zlib, libdeflate and zstd
 * (when they were found at build time) on the same bytes in one run: compressed size and
 * compress / decompress throughput (input bytes per second, median of the runs). gpz output is
 * decompressed by zlib (the reference decoder) and checked, and again by gpz_inflate (row
 * "gpz+inflate": the same compressed bytes, decoded on the context's threads).
 */
#include "gpz.h"
#include "bench_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#ifdef GPZ_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef GPZ_HAVE_ZSTD
#include <zstd.h>
#endif

int gpz_bench_deflate(int argc, char **argv, int threads, int runs);

/* Median seconds of `runs` calls of fn(ctx); fn returns the output size (0 = failure). */
static double timed(int runs, size_t (*fn)(void *), void *ctx, size_t *out)
{
	double t[64];
	if (runs > 64)
		runs = 64;
	for (int i = 0; i < runs; i++) {
		t[i] = bench_now();
		*out = fn(ctx);
		t[i] = bench_now() - t[i];
	}
	return bench_median(t, runs);
}

struct job {
	const uint8_t *src;
	size_t n, cap, csize;
	uint8_t *c, *d;
	int level;
	gpz_ctx *ctx;
};

static size_t gpz_c(void *p)
{
	struct job *j = p;
	size_t got = 0;
	return gpz_deflate_compress(j->ctx, j->level, GPZ_FORMAT_GZIP, NULL, j->src, j->n, j->c,
	                            j->cap, &got) == GPZ_OK ? got : 0;
}

static size_t zlib_gzip_d(void *p)
{
	struct job *j = p;
	z_stream z;
	memset(&z, 0, sizeof(z));
	inflateInit2(&z, 31);
	z.next_in = j->c;
	z.avail_in = (uInt)j->csize;
	z.next_out = j->d;
	z.avail_out = (uInt)j->n;
	int r = inflate(&z, Z_FINISH);
	size_t got = z.total_out;
	inflateEnd(&z);
	return r == Z_STREAM_END ? got : 0;
}

/* gpz's output back through gpz_inflate (on the benchmark's threads) */
static size_t gpz_d(void *p)
{
	struct job *j = p;
	size_t got = 0;
	return gpz_inflate(j->ctx, GPZ_FORMAT_GZIP, j->c, j->csize, j->d, j->n, &got) == GPZ_OK
	               ? got
	               : 0;
}

static size_t zlib_c(void *p)
{
	struct job *j = p;
	uLongf cap = (uLongf)j->cap;
	return compress2(j->c, &cap, j->src, (uLong)j->n, j->level) == Z_OK ? cap : 0;
}

static size_t zlib_d(void *p)
{
	struct job *j = p;
	uLongf got = (uLongf)j->n;
	return uncompress(j->d, &got, j->c, (uLong)j->csize) == Z_OK ? got : 0;
}

#ifdef GPZ_HAVE_LIBDEFLATE
static size_t ldf_c(void *p)
{
	struct job *j = p;
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(j->level);
	size_t got = libdeflate_gzip_compress(c, j->src, j->n, j->c, j->cap);
	libdeflate_free_compressor(c);
	return got;
}

static size_t ldf_d(void *p)
{
	struct job *j = p;
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t got = 0;
	enum libdeflate_result r = libdeflate_gzip_decompress(d, j->c, j->csize, j->d, j->n, &got);
	libdeflate_free_decompressor(d);
	return r == LIBDEFLATE_SUCCESS ? got : 0;
}
#endif

#ifdef GPZ_HAVE_ZSTD
static size_t zstd_c(void *p)
{
	struct job *j = p;
	size_t r = ZSTD_compress(j->c, j->cap, j->src, j->n, j->level);
	return ZSTD_isError(r) ? 0 : r;
}

static size_t zstd_d(void *p)
{
	struct job *j = p;
	size_t r = ZSTD_decompress(j->d, j->n, j->c, j->csize);
	return ZSTD_isError(r) ? 0 : r;
}
#endif

static int row(const char *name, const char *codec, int level, struct job *j, int runs,
               size_t (*c)(void *), size_t (*d)(void *))
{
	size_t got = 0, back = 0;
	double tc = timed(runs, c, j, &got);
	j->csize = got;
	double td = got ? timed(runs, d, j, &back) : 0;
	int ok = got && back == j->n && memcmp(j->d, j->src, j->n) == 0;
	printf("| %s | %s -%d | %zu | %.4f | %.1f | %.1f | %s |\n", name, codec, level, got,
	       (double)got / (double)j->n, tc > 0 ? (double)j->n / tc / 1e6 : 0,
	       td > 0 ? (double)j->n / td / 1e6 : 0, ok ? "yes" : "NO");
	fflush(stdout);
	return ok;
}

int gpz_bench_deflate(int argc, char **argv, int threads, int runs)
{
	static const int levels[] = { 1, 6, 9 };
	int failed = 0;
	gpz_ctx *ctx, *gctx = NULL;

	if (gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, threads) != GPZ_OK)
		return 1;
	if (gpz_ctx_create(&gctx, GPZ_BACKEND_GPU, threads) != GPZ_OK)
		gctx = NULL; /* no usable GPU: CPU rows only */
	printf("gpz --format=gzip (%d thread(s)) against zlib %s", threads, zlibVersion());
#ifdef GPZ_HAVE_LIBDEFLATE
	printf(", libdeflate %s", LIBDEFLATE_VERSION_STRING);
#endif
#ifdef GPZ_HAVE_ZSTD
	printf(", zstd %s", ZSTD_versionString());
#endif
	printf(" (one thread each), median of %d runs; MB/s of input bytes; gpz and libdeflate "
	       "write gzip, zlib zlib-format, zstd its own frames; zstd levels 1, 3, 9 stand for "
	       "fast, default and high.%s\n\n", runs,
	       gctx ? " gpz-gpu: the GPU backend (device time and host-device copies included), "
	              "checked equal to gpz's CPU bytes." : "");
	printf("| file | codec | bytes | ratio | compress MB/s | decompress MB/s | round trip |\n");
	printf("|---|---|---:|---:|---:|---:|---|\n");
	for (int i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		struct job j = { 0 };
		long n;
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
			fprintf(stderr, "gpz-bench: %s: cannot read\n", argv[i]);
			if (f)
				fclose(f);
			failed = 1;
			continue;
		}
		j.n = (size_t)n;
		uint8_t *src = malloc(j.n);
		if (fread(src, 1, j.n, f) != j.n)
			failed = 1;
		fclose(f);
		j.src = src;
		j.cap = gpz_deflate_bound(j.n) + compressBound((uLong)j.n);
		j.c = malloc(j.cap);
		j.d = malloc(j.n);
		j.ctx = ctx;
		for (int k = 0; k < 3; k++) {
			j.level = levels[k];
			failed |= !row(name, "gpz", j.level, &j, runs, gpz_c, zlib_gzip_d);
			failed |= !row(name, "gpz+inflate", j.level, &j, runs, gpz_c, gpz_d);
			if (gctx) { /* the GPU backend must write the same bytes */
				uint8_t *cpu_bytes = malloc(j.csize);
				size_t cpu_n = j.csize;
				memcpy(cpu_bytes, j.c, cpu_n);
				j.ctx = gctx;
				failed |= !row(name, "gpz-gpu", j.level, &j, runs, gpz_c, zlib_gzip_d);
				if (j.csize != cpu_n || memcmp(j.c, cpu_bytes, cpu_n)) {
					fprintf(stderr, "gpz-bench: %s -%d: GPU bytes differ from CPU bytes\n",
					        name, j.level);
					failed = 1;
				}
				j.ctx = ctx;
				free(cpu_bytes);
			}
			failed |= !row(name, "zlib", j.level, &j, runs, zlib_c, zlib_d);
#ifdef GPZ_HAVE_LIBDEFLATE
			failed |= !row(name, "libdeflate", j.level, &j, runs, ldf_c, ldf_d);
#endif
#ifdef GPZ_HAVE_ZSTD
			j.level = k == 0 ? 1 : k == 1 ? 3 : 9;
			failed |= !row(name, "zstd", j.level, &j, runs, zstd_c, zstd_d);
#endif
		}
		free(src);
		free(j.c);
		free(j.d);
	}
	gpz_ctx_free(ctx);
	gpz_ctx_free(gctx);
	return failed;
}
