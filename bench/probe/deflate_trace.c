/* deflate_trace.c - where a file-to-file compression's time goes in the library (issue 10: the
 * tool's gzip -1 on 4 GB runs ~1.2 s where reading it takes ~0.5): the context's creation, then
 * for each call the times of the reads (positional, as the tool does them: pread of the file on
 * the lanes' threads) and of the in-order writes, binned every 50 ms, so a cold call's start,
 * its steady rate and its tail can be told apart from a warm call's; last, the context's
 * freeing (lanes' pinned buffers, device memory, the CUDA context).
 * Usage: deflate_trace FILE OUT auto|gpu|cpu gzip|gpz LEVEL RUNS
 *   gzip: gpz_deflate_stream_from_at (the tool's --format=gzip); gpz: gpz_compress_stream_at
 *   with lz_level = LEVEL (the tool's -LEVEL .gpz LZ frames). OUT is rewritten by every call. */
#define _GNU_SOURCE
#define GPZ_ADVANCED
#include "gpz.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BINS 200
#define BIN_S 0.05

static int in_fd, out_fd;
static double t_call;
static double read_bytes[BINS], write_bytes[BINS];
static double first_read, last_read, first_write, last_write;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void note(double *bins, double *first, double *last, double t0, double t1, size_t n)
{
	int b = (int)((t1 - t_call) / BIN_S);

	pthread_mutex_lock(&mu);
	if (*first == 0 || t0 - t_call < *first)
		*first = t0 - t_call;
	if (t1 - t_call > *last)
		*last = t1 - t_call;
	bins[b < BINS ? b : BINS - 1] += (double)n;
	pthread_mutex_unlock(&mu);
}

static gpz_result read_at(void *user, void *buf, size_t n, uint64_t off)
{
	double t0 = now();
	size_t got = 0;

	(void)user;
	while (got < n) {
		ssize_t k = pread(in_fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k <= 0)
			return GPZ_ERR_TRUNCATED;
		got += (size_t)k;
	}
	note(read_bytes, &first_read, &last_read, t0, now(), n);
	return GPZ_OK;
}

static gpz_result write_out(void *user, const void *buf, size_t n)
{
	double t0 = now();
	size_t put = 0;

	(void)user;
	while (put < n) {
		ssize_t k = write(out_fd, (const char *)buf + put, n - put);
		if (k <= 0)
			return GPZ_ERR_TRUNCATED;
		put += (size_t)k;
	}
	note(write_bytes, &first_write, &last_write, t0, now(), n);
	return GPZ_OK;
}

static gpz_result one_call(gpz_ctx *ctx, int gzip, int level, uint64_t size, uint64_t *out)
{
	uint64_t in = 0;

	if (gzip) {
		gpz_deflate_stream *ds;
		gpz_result r = gpz_deflate_stream_create(ctx, level, GPZ_FORMAT_GZIP, NULL, &ds);
		if (r != GPZ_OK)
			return r;
		r = gpz_deflate_stream_from_at(ds, read_at, size, write_out, NULL, &in, out);
		gpz_deflate_stream_free(ds);
		return r;
	}
	gpz_params p;
	gpz_params_default(&p);
	p.lz_level = level;
	return gpz_compress_stream_at(ctx, &p, read_at, size, write_out, NULL, &in, out);
}

int main(int argc, char **argv)
{
	struct stat st;
	gpz_ctx *ctx;
	gpz_backend b;
	double t0;
	int runs, gzip, level;

	if (argc < 7 || (in_fd = open(argv[1], O_RDONLY)) < 0 || fstat(in_fd, &st) != 0) {
		fprintf(stderr, "usage: deflate_trace FILE OUT auto|gpu|cpu gzip|gpz LEVEL RUNS\n");
		return 2;
	}
	b = !strcmp(argv[3], "gpu") ? GPZ_BACKEND_GPU
	  : !strcmp(argv[3], "cpu") ? GPZ_BACKEND_CPU : GPZ_BACKEND_AUTO;
	gzip = !strcmp(argv[4], "gzip");
	level = atoi(argv[5]);
	runs = atoi(argv[6]);
	t0 = now();
	if (gpz_ctx_create(&ctx, b, 0) != GPZ_OK)
		return 2;
	printf("%s %s -%d %s: context created in %.3f s\n", argv[3], argv[4], level, argv[1],
	       now() - t0);
	for (int k = 0; k < runs; k++) {
		uint64_t out = 0;
		gpz_result r;
		double e;

		out_fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out_fd < 0)
			return 2;
		memset(read_bytes, 0, sizeof(read_bytes));
		memset(write_bytes, 0, sizeof(write_bytes));
		first_read = last_read = first_write = last_write = 0;
		t_call = now();
		r = one_call(ctx, gzip, level, (uint64_t)st.st_size, &out);
		e = now() - t_call;
		close(out_fd);
		printf("call %d: %s, %.3f s, %.2f GB/s in, %.1f MB out; reads %.3f-%.3f s, "
		       "writes %.3f-%.3f s\n", k, gpz_result_string(r), e,
		       (double)st.st_size / e / 1e9, (double)out / 1e6, first_read, last_read,
		       first_write, last_write);
		printf("  per %.0f ms, MB read / written:", 1e3 * BIN_S);
		for (int i = 0; i < BINS && i * BIN_S < e + BIN_S; i++)
			printf(" %.0f/%.0f", read_bytes[i] / 1e6, write_bytes[i] / 1e6);
		printf("\n");
	}
	t0 = now();
	gpz_ctx_free(ctx);
	printf("context freed in %.3f s\n", now() - t0);
	return 0;
}
