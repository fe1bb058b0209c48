/* outmap.c - a new file filled through one shared mapping (outmap.h). */
#define _GNU_SOURCE /* fallocate */
#define _FILE_OFFSET_BITS 64

#include "outmap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Space reserved in one fallocate call. */
#define OUT_MAP_STEP ((uint64_t)64 << 20)
/* Space a filler faults in at one call: small enough that the CUDA driver, starting beside the
 * fillers, does not wait long for the mapping lock that each call holds. */
#define FILL_STEP ((uint64_t)8 << 20)
#define FILL_MAX 8
/* Writes from which the writer drops its range's page-table entries after the copy. */
#define DROP_MIN ((size_t)4 << 20)

#ifndef MADV_POPULATE_WRITE /* Linux 5.14; older kernels refuse it and the writers fault */
#define MADV_POPULATE_WRITE 23
#endif

struct out_map;
struct filler {
	struct out_map *m;
	int i;
};

struct out_map {
	int fd;
	char *map;         /* the mapping, of the file from offset `start` (a page boundary) */
	uint64_t start;
	uint64_t base;     /* the first byte of the file it is for */
	uint64_t size;     /* the end of the mapping, as an offset in the file */
	uint64_t ahead;    /* how far past `want` the reservation may run */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t reserved; /* [base, reserved) has its space */
	uint64_t want;     /* the furthest end a writer has asked for */
	int err;           /* errno of a failed reservation; it stops there */
	int quit;
	int nfill;         /* threads asked to fault reserved space in ahead of the writers */
	int nstarted;      /* those that started (a step of one that did not is the writers' to fault) */
	pthread_t fill_tid[FILL_MAX];
	struct filler fill[FILL_MAX];
};

static void *reserve_ahead(void *v)
{
	struct out_map *m = v;

	pthread_mutex_lock(&m->mu);
	while (!m->quit && !m->err && m->reserved < m->size) {
		uint64_t target = m->want + m->ahead, at = m->reserved, step;
		int rc;
		if (target > m->size)
			target = m->size;
		if (at >= target) {
			pthread_cond_wait(&m->cv, &m->mu);
			continue;
		}
		step = target - at < OUT_MAP_STEP ? target - at : OUT_MAP_STEP;
		pthread_mutex_unlock(&m->mu);
		while ((rc = fallocate(m->fd, 0, (off_t)at, (off_t)step)) != 0 && errno == EINTR)
			;
		pthread_mutex_lock(&m->mu);
		if (rc != 0)
			m->err = errno ? errno : EIO;
		else
			m->reserved = at + step;
		pthread_cond_broadcast(&m->cv);
	}
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

/* Filler i faults in steps i, i + nfill, ... of the mapping once their space is reserved, so
 * that the front, which the writers reach first, is done first. It stops at the close, at a
 * failed reservation, or when the kernel refuses (the writers then fault their own pages). */
static void *fill_ahead(void *v)
{
	const struct filler *f = v;
	struct out_map *m = f->m;
	uint64_t stride = FILL_STEP * (uint64_t)m->nfill;

	for (uint64_t at = m->start + FILL_STEP * (uint64_t)f->i; at < m->size; at += stride) {
		uint64_t k = m->size - at < FILL_STEP ? m->size - at : FILL_STEP;
		int stop;
		pthread_mutex_lock(&m->mu);
		while (!m->quit && !m->err && m->reserved < at + k)
			pthread_cond_wait(&m->cv, &m->mu);
		stop = m->quit || m->err;
		pthread_mutex_unlock(&m->mu);
		if (stop || madvise(m->map + (at - m->start), (size_t)k, MADV_POPULATE_WRITE) != 0)
			break;
	}
	return NULL;
}

/* The threads started, as many as can be. */
static void start_fillers(struct out_map *m, int n)
{
	m->nfill = n < 0 ? 0 : n < FILL_MAX ? n : FILL_MAX;
	for (int i = 0; i < m->nfill; i++) {
		m->fill[i] = (struct filler){ m, i };
		if (pthread_create(&m->fill_tid[m->nstarted], NULL, fill_ahead, &m->fill[i]) == 0)
			m->nstarted++;
	}
}

struct out_map *out_map_open(int fd, uint64_t base, uint64_t size, uint64_t ahead, int fillers)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), start = base - base % page;
	struct out_map *m;
	int rc;

	if (size == 0 || size > (uint64_t)SIZE_MAX / 2 - base ||
	    ftruncate(fd, (off_t)(base + size)) != 0)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		goto fail;
	m->fd = fd;
	m->start = start;
	m->base = base;
	m->size = base + size;
	m->ahead = ahead;
	m->reserved = m->want = base;
	m->map = mmap(NULL, (size_t)(m->size - start), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
	              (off_t)start);
	if (m->map == MAP_FAILED)
		goto fail;
	/* large folios where the file system has them (ext4 on Linux 6.18): 4 GB written onto an
	 * H200 host's ext4 root in 0.86-0.91 s instead of 1.10-1.22, the kernel's time 6.5 -> 2.6 s,
	 * for the writers fault once per 2 MiB, not per 4 KiB page; tmpfs keeps its mount's choice */
	madvise(m->map, (size_t)(m->size - start), MADV_HUGEPAGE);
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	if (pthread_create(&m->tid, NULL, reserve_ahead, m) != 0) {
		munmap(m->map, (size_t)(m->size - start));
		pthread_mutex_destroy(&m->mu);
		pthread_cond_destroy(&m->cv);
		goto fail;
	}
	start_fillers(m, fillers);
	return m;
fail:
	free(m);
	rc = ftruncate(fd, (off_t)base); /* the file ended at base; so it stays */
	(void)rc;
	return NULL;
}

int out_map_covers(const struct out_map *m, uint64_t off, size_t n)
{
	return m && off >= m->base && off <= m->size && n <= m->size - off;
}

int out_map_write(struct out_map *m, const void *buf, size_t n, uint64_t off)
{
	uint64_t end = off + n;
	int err = 0;

	pthread_mutex_lock(&m->mu);
	if (end > m->want) {
		m->want = end;
		pthread_cond_broadcast(&m->cv);
	}
	while (m->reserved < end && !m->err)
		pthread_cond_wait(&m->cv, &m->mu);
	if (m->reserved < end)
		err = m->err;
	pthread_mutex_unlock(&m->mu);
	if (err)
		return 1; /* a step of the reservation failed: the range on its own may still fit */
	out_copy_parallel(m->map + (off - m->start), buf, n);
	if (n >= DROP_MIN) { /* the pages stay in the page cache, written; only the mapping goes */
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t lo = (off + page - 1) / page * page, hi = end / page * page;
		madvise(m->map + (lo - m->start), (size_t)(hi - lo), MADV_DONTNEED);
	}
	return 0;
}

int out_map_close(struct out_map *m, uint64_t end)
{
	int rc;

	pthread_mutex_lock(&m->mu);
	m->quit = 1;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
	pthread_join(m->tid, NULL);
	for (int i = 0; i < m->nstarted; i++)
		pthread_join(m->fill_tid[i], NULL);
	munmap(m->map, (size_t)(m->size - m->start));
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cv);
	rc = ftruncate(m->fd, (off_t)end);
	free(m);
	return rc;
}

/* One part of a parallel copy. */
struct copy_part {
	char *dst;
	const char *src;
	size_t n;
};

static void *copy_part(void *v)
{
	struct copy_part *p = v;

	memcpy(p->dst, p->src, p->n);
	return NULL;
}

void out_copy_parallel(void *dst, const void *src, size_t n)
{
	enum { PARTS = 4 };
	const size_t min_part = (size_t)4 << 20;
	struct copy_part part[PARTS];
	pthread_t tid[PARTS];
	int started[PARTS] = { 0 };
	size_t k = n / min_part < PARTS ? n / min_part : PARTS, step;

	if (k <= 1) {
		memcpy(dst, src, n);
		return;
	}
	step = (n + k - 1) / k;
	for (size_t i = 0; i < k; i++) {
		size_t at = i * step;
		part[i] = (struct copy_part){ (char *)dst + at, (const char *)src + at,
		                              n - at < step ? n - at : step };
		if (i > 0)
			started[i] = pthread_create(&tid[i], NULL, copy_part, &part[i]) == 0;
	}
	copy_part(&part[0]);
	for (size_t i = 1; i < k; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			copy_part(&part[i]); /* no thread to spare: copied here */
	}
}
