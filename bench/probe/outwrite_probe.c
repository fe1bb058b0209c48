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

static int g_mode; /* 0 copy, 1 populate, 2 pwrite, 3 fallocate, 4 populate then copy */
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

int main(int argc, char **argv)
{
	char path[4096];
	int T = argc > 3 ? atoi(argv[3]) : 16;
	double t0, t1, t2;

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
#define ROW(name, a, b) printf("  %-34s %6.3f s  %5.2f GB/s%s\n", name, (b) - (a), g_n / 1e9 / ((b) - (a)), "")

	open_file(path, 0);
	t0 = now();
	for (size_t at = 0; at < g_n;) {
		size_t k = g_n - at < (8u << 20) ? g_n - at : (8u << 20);
		if (write(g_fd, g_src + at % SRC, k) != (ssize_t)k)
			perror("write");
		at += k;
	}
	t1 = now();
	ROW("write() 8 MiB, 1 thread", t0, t1);
	close_file(path);

	open_file(path, 0);
	t0 = now();
	run(2, T);
	t1 = now();
	ROW("pwrite() 8 MiB, T threads", t0, t1);
	close_file(path);

	open_file(path, 1);
	t0 = now();
	if (fallocate(g_fd, 0, 0, (off_t)g_n) != 0)
		perror("fallocate");
	t1 = now();
	run(0, 4);
	t2 = now();
	ROW("fallocate whole, 1 thread", t0, t1);
	ROW("  then mmap copy, 4 threads", t1, t2);
	ROW("  both", t0, t2);
	close_file(path);

	open_file(path, 1);
	t0 = now();
	run(3, T);
	t1 = now();
	run(0, T);
	t2 = now();
	ROW("fallocate, T threads", t0, t1);
	ROW("  then mmap copy, T threads", t1, t2);
	close_file(path);

	open_file(path, 1);
	t0 = now();
	run(0, 4);
	t1 = now();
	ROW("mmap copy (faults), 4 threads", t0, t1);
	close_file(path);

	open_file(path, 1);
	t0 = now();
	run(0, T);
	t1 = now();
	ROW("mmap copy (faults), T threads", t0, t1);
	close_file(path);

	open_file(path, 1);
	t0 = now();
	run(1, T);
	t1 = now();
	run(0, T);
	t2 = now();
	ROW("MADV_POPULATE_WRITE, T threads", t0, t1);
	ROW("  then mmap copy, T threads", t1, t2);
	ROW("  both", t0, t2);
	close_file(path);

	open_file(path, 1);
	t0 = now();
	run(4, T);
	t1 = now();
	ROW("populate+copy per share, T threads", t0, t1);
	t0 = now();
	if (fsync(g_fd) != 0)
		perror("fsync");
	t1 = now();
	ROW("  fsync after it", t0, t1);
	close_file(path);
	return 0;
}
