/* inflate_trace.c - where the time of gpz_inflate_member_at goes: the context's creation, the
 * first call (its lanes' pinned buffers and device workspace made on the way) and later calls
 * (warm lanes), with the time of every batch's write (first write, median interval between
 * writes). The input is mapped, the output thrown away, so this is the library alone.
 * Usage: inflate_trace FILE.gz gpu|cpu RUNS [LANES]   (LANES: gpz_ctx_set_depth) */
#define GPZ_ADVANCED
#include "gpz.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_WRITES 100000

static const unsigned char *map;
static double stamp[MAX_WRITES];
static int writes;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static gpz_result read_at(void *user, void *buf, size_t n, uint64_t off)
{
	(void)user;
	memcpy(buf, map + off, n);
	return GPZ_OK;
}

static gpz_result write_out(void *user, const void *buf, size_t n)
{
	(void)user, (void)buf, (void)n;
	if (writes < MAX_WRITES)
		stamp[writes++] = now();
	return GPZ_OK;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static double gap[MAX_WRITES];
	struct stat st;
	gpz_ctx *ctx;
	int fd, runs;
	double t0;

	if (argc < 4 || (fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "usage: inflate_trace FILE.gz gpu|cpu RUNS [LANES]\n");
		return 2;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return 2;
	runs = atoi(argv[3]);
	t0 = now();
	if (gpz_ctx_create(&ctx, strcmp(argv[2], "gpu") ? GPZ_BACKEND_CPU : GPZ_BACKEND_GPU, 16))
		return 2;
	if (argc > 4)
		gpz_ctx_set_depth(ctx, atoi(argv[4]));
	printf("context %.3f s, lanes %s\n", now() - t0, argc > 4 ? argv[4] : "default");
	for (int k = 0; k < runs; k++) {
		uint64_t in = 0, out = 0;
		double s = now(), e;
		gpz_result r;
		int m = 0;

		writes = 0;
		r = gpz_inflate_member_at(ctx, read_at, (uint64_t)st.st_size, 0, write_out, NULL, &in,
		                          &out);
		e = now();
		for (int i = 1; i < writes; i++)
			gap[m++] = stamp[i] - stamp[i - 1];
		qsort(gap, (size_t)m, sizeof(*gap), by_value);
		printf("call %d: %s, %.3f s, %.2f GB/s; %d writes, the first at %.3f s, "
		       "median interval %.2f ms\n",
		       k, gpz_result_string(r), e - s, (double)out / (e - s) / 1e9, writes,
		       writes ? stamp[0] - s : 0.0, m ? 1e3 * gap[m / 2] : 0.0);
	}
	gpz_ctx_free(ctx);
	return 0;
}
