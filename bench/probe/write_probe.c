/* write_probe.c - how fast can one process put N bytes into a new file? (issue 10: the tool's
 * decompression is bound by one writer thread at about 2.5 GB/s.) Ways tried, each on a fresh
 * file in DIR, timed from open to close:
 *   write  : one thread, write() of 16 MiB pieces
 *   pwrite : T threads, pwrite() of disjoint 16 MiB pieces
 *   mmap   : ftruncate, mmap MAP_SHARED, T threads copy disjoint 16 MiB pieces, munmap
 *   falloc : fallocate first (space reserved: no SIGBUS on a full disk), then as mmap
 *   frames : what the gpz tool's positional output does: T threads, each 64 MiB piece
 *            fallocated, mapped, copied into and unmapped on its own
 *   framesP: the same, mapped with MAP_POPULATE (page tables filled in one go)
 *   popW   : ftruncate, one mapping, T threads each madvise(MADV_POPULATE_WRITE) a 16 MiB piece
 *            (allocation with an error, not a SIGBUS, when space runs out), then copy into it
 *   popH   : the same with the mapping madvise(MADV_HUGEPAGE)d first (2 MiB pages where tmpfs
 *            allows them: /sys/kernel/mm/transparent_hugepage/shmem_enabled)
 * Usage: write_probe DIR GiB THREADS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PIECE ((size_t)16 << 20)
#define FRAME ((size_t)64 << 20)

static size_t total;
static int nthreads, fd;
static unsigned char *src, *map;
static size_t next_piece;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The next piece of `step` bytes to write, or -1 when all are taken. */
static long take(size_t step)
{
	long i;
	pthread_mutex_lock(&mu);
	i = next_piece * step < total ? (long)next_piece++ : -1;
	pthread_mutex_unlock(&mu);
	return i;
}

static void *pw_worker(void *a)
{
	long i;
	(void)a;
	while ((i = take(PIECE)) >= 0) {
		size_t off = (size_t)i * PIECE, n = total - off < PIECE ? total - off : PIECE;
		if (pwrite(fd, src, n, (off_t)off) != (ssize_t)n) {
			perror("pwrite");
			exit(1);
		}
	}
	return NULL;
}

static void *mm_worker(void *a)
{
	long i;
	(void)a;
	while ((i = take(PIECE)) >= 0) {
		size_t off = (size_t)i * PIECE, n = total - off < PIECE ? total - off : PIECE;
		memcpy(map + off, src, n);
	}
	return NULL;
}

static int populate;

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static void *pop_worker(void *a)
{
	long i;
	(void)a;
	while ((i = take(PIECE)) >= 0) {
		size_t off = (size_t)i * PIECE, n = total - off < PIECE ? total - off : PIECE;
		if (madvise(map + off, n, MADV_POPULATE_WRITE) != 0) {
			perror("madvise(MADV_POPULATE_WRITE)");
			exit(1);
		}
		memcpy(map + off, src, n);
	}
	return NULL;
}

static void *fr_worker(void *a)
{
	long i;
	(void)a;
	while ((i = take(FRAME)) >= 0) {
		size_t off = (size_t)i * FRAME, n = total - off < FRAME ? total - off : FRAME;
		unsigned char *m;
		if (fallocate(fd, 0, (off_t)off, (off_t)n) != 0) {
			perror("fallocate");
			exit(1);
		}
		m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | (populate ? MAP_POPULATE : 0),
		         fd, (off_t)off);
		if (m == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
		for (size_t k = 0; k < n; k += PIECE)
			memcpy(m + k, src, n - k < PIECE ? n - k : PIECE);
		munmap(m, n);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *))
{
	pthread_t t[256];
	next_piece = 0;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, fn, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	char path[4096];
	const char *modes[] = { "write", "pwrite", "mmap", "falloc", "frames", "framesP", "popW",
		                "popH" };

	if (argc != 4)
		return 2;
	total = (size_t)(atof(argv[2]) * (1 << 30));
	nthreads = atoi(argv[3]);
	snprintf(path, sizeof path, "%s/write_probe.out", argv[1]);
	src = malloc(PIECE);
	for (size_t i = 0; i < PIECE; i++)
		src[i] = (unsigned char)(i * 2654435761u >> 13);
	for (int m = 0; m < 8; m++) {
		double t0, t1, tf = 0;
		unlink(path);
		t0 = now();
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644); /* mappings need read access */
		if (m == 0) {
			for (size_t off = 0; off < total; off += PIECE) {
				size_t n = total - off < PIECE ? total - off : PIECE;
				if (write(fd, src, n) != (ssize_t)n) {
					perror("write");
					return 1;
				}
			}
		} else if (m == 1) {
			run_threads(pw_worker);
		} else if (m == 4 || m == 5) {
			populate = m == 5;
			run_threads(fr_worker);
		} else { /* one mapping of the whole file: mmap, falloc, popW, popH */
			if (m == 3) {
				if (fallocate(fd, 0, 0, (off_t)total) != 0)
					perror("fallocate");
				tf = now() - t0;
			} else if (ftruncate(fd, (off_t)total) != 0) {
				perror("ftruncate");
				return 1;
			}
			map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (map == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			if (m == 7 && madvise(map, total, MADV_HUGEPAGE) != 0)
				perror("madvise(MADV_HUGEPAGE)");
			run_threads(m >= 6 ? pop_worker : mm_worker);
			munmap(map, total);
		}
		close(fd);
		t1 = now();
		printf("%-7s %s %.2f GiB T%-3d %.3f s  %.2f GB/s", modes[m], argv[1], total / 1073741824.0,
		       m == 0 ? 1 : nthreads, t1 - t0, total / (t1 - t0) / 1e9);
		if (m == 3)
			printf("  (fallocate %.3f s)", tf);
		printf("\n");
	}
	unlink(path);
	return 0;
}
