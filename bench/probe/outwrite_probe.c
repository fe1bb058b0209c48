/* outwrite_probe.c - ways of writing one new file of N bytes from memory, timed, to find what
 * bounds the tool's file-to-file output on a host (issue 11's 5 GB/s).
 * Build: cc -O2 -pthread bench/probe/outwrite_probe.c -o outwrite_probe
 * Usage: outwrite_probe DIR GIB [THREADS]   (writes DIR/outwrite.tmp, removed after each way) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define SRC ((size_t)256 << 20)

static char *g_src, *g_map;
static size_t g_n;
static int g_fd, g_threads;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* thread i's share [lo, hi) of the file, 2 MiB aligned */
static void share(int i, size_t *lo, size_t *hi)
{
	size_t step = ((g_n / (size_t)g_threads) + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	*lo = (size_t)i * step < g_n ? (size_t)i * step : g_n;
	*hi = *lo + step < g_n ? *lo + step : g_n;
}

static void copy_range(size_t lo, size_t hi)
{
	for (size_t at = lo; at < hi;) {
		size_t k = hi - at < (8u << 20) ? hi - at : (8u << 20);
		memcpy(g_map + at, g_src + at % SRC, k);
		at += k;
	}
}

static int g_mode; /* 0 copy, 1 populate, 2 pwrite, 3 fallocate, 4 populate then copy; step() adds 5-8
                   * (8: MADV_HUGEPAGE on the mapping, then 0) */
static void *worker(void *v)
{
	int i = (int)(long)v;
	size_t lo, hi;
	share(i, &lo, &hi);
	if (lo >= hi)
		return NULL;
	if (g_mode == 1 || g_mode == 4) {
		if (madvise(g_map + lo, hi - lo, MADV_POPULATE_WRITE) != 0)
			perror("madvise(MADV_POPULATE_WRITE)");
	}
	if (g_mode == 0 || g_mode == 4)
		copy_range(lo, hi);
	if (g_mode == 2)
		for (size_t at = lo; at < hi;) {
			size_t k = hi - at < (8u << 20) ? hi - at : (8u << 20);
			if (pwrite(g_fd, g_src + at % SRC, k, (off_t)at) != (ssize_t)k)
				perror("pwrite");
			at += k;
		}
	if (g_mode == 3 && fallocate(g_fd, 0, (off_t)lo, (off_t)(hi - lo)) != 0)
		perror("fallocate");
	return NULL;
}

static void run(int mode, int threads)
{
	pthread_t t[256];
	g_mode = mode;
	g_threads = threads;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
}

static void open_file(const char *path, int map)
{
	g_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (g_fd < 0 || ftruncate(g_fd, (off_t)g_n) != 0) {
		perror(path);
		exit(1);
	}
	g_map = map ? mmap(NULL, g_n, PROT_READ | PROT_WRITE, MAP_SHARED, g_fd, 0) : NULL;
	if (g_map == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
}

/* The mapping undone and the file closed, timed (a mapped way's unmapping is part of its cost),
 * then removed. */
static void close_file(const char *path)
{
	double t0 = now(), t1;
	if (g_map)
		munmap(g_map, g_n);
	close(g_fd);
	t1 = now();
	printf("  %-34s %6.3f s\n", "  (munmap + close)", t1 - t0);
	unlink(path);
	g_map = NULL;
}

/* One step of a way on T threads (0: the command line's), or on this thread for the modes
 * that are one call. */
static void step(int mode, int threads)
{
	if (mode == 5 && fallocate(g_fd, 0, 0, (off_t)g_n) != 0)
		perror("fallocate");
	if (mode == 6)
		for (size_t at = 0; at < g_n;) {
			size_t k = g_n - at < (8u << 20) ? g_n - at : (8u << 20);
			if (write(g_fd, g_src + at % SRC, k) != (ssize_t)k)
				perror("write");
			at += k;
		}
	if (mode == 7 && fsync(g_fd) != 0)
		perror("fsync");
	if (mode == 8 && madvise(g_map, g_n, MADV_HUGEPAGE) != 0)
		perror("madvise(MADV_HUGEPAGE)");
	if (mode == 8) /* the copy after the advice */
		run(0, threads);
	if (mode <= 4)
		run(mode, threads);
}

static void row(const char *name, double a, double b)
{
	printf("  %-34s %6.3f s  %5.2f GB/s\n", name, b - a, (double)g_n / 1e9 / (b - a));
}

/* The ways timed, each on a fresh file: mapped or not, one or two steps (modes of worker()
 * and step()), and whether the two are summed. */
static const struct way {
	int map;
	struct {
		int mode, threads;
		const char *label;
	} step[2];
	int both;
} ways[] = {
	{ 0, { { 6, 1, "write() 8 MiB, 1 thread" } }, 0 },
	{ 0, { { 2, 0, "pwrite() 8 MiB, T threads" } }, 0 },
	{ 1, { { 5, 1, "fallocate whole, 1 thread" }, { 0, 4, "  then mmap copy, 4 threads" } }, 1 },
	{ 1, { { 3, 0, "fallocate, T threads" }, { 0, 0, "  then mmap copy, T threads" } }, 0 },
	{ 1, { { 0, 4, "mmap copy (faults), 4 threads" } }, 0 },
	{ 1, { { 0, 0, "mmap copy (faults), T threads" } }, 0 },
	{ 1, { { 8, 0, "MADV_HUGEPAGE, mmap copy, T threads" } }, 0 },
	{ 1, { { 5, 1, "fallocate whole, 1 thread" }, { 8, 0, "  then MADV_HUGEPAGE, copy, T" } }, 1 },
	{ 1, { { 1, 0, "MADV_POPULATE_WRITE, T threads" }, { 0, 0, "  then mmap copy, T threads" } }, 1 },
	{ 1, { { 4, 0, "populate+copy per share, T threads" }, { 7, 1, "  fsync after it" } }, 0 },
};

int main(int argc, char **argv)
{
	char path[4096];
	int T = argc > 3 ? atoi(argv[3]) : 16;

	if (argc < 3) {
		fprintf(stderr, "usage: outwrite_probe DIR GIB [THREADS]\n");
		return 2;
	}
	g_n = (size_t)(atof(argv[2]) * (double)(1u << 30));
	snprintf(path, sizeof path, "%s/outwrite.tmp", argv[1]);
	g_src = aligned_alloc(2u << 20, SRC);
	madvise(g_src, SRC, MADV_HUGEPAGE);
	for (size_t i = 0; i < SRC; i++)
		g_src[i] = (char)(i * 2654435761u >> 13);
	printf("%s %.2f GiB, %d threads (GB/s = 1e9 bytes/s)\n", argv[1], (double)g_n / (1u << 30), T);
	for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
		const struct way *y = &ways[w];
		double t[3];
		open_file(path, y->map);
		t[0] = now();
		for (int k = 0; k < 2 && y->step[k].label; k++) {
			step(y->step[k].mode, y->step[k].threads ? y->step[k].threads : T);
			t[k + 1] = now();
			row(y->step[k].label, t[k], t[k + 1]);
		}
		if (y->both)
			row("  both", t[0], t[2]);
		close_file(path);
	}
	return 0;
}
