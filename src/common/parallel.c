/* parallel.c - run independent tasks on a few pthreads. Threads are started per call: a call
 * covers megabytes of work, so the ~20 us of thread start-up does not matter, and no pool state
 * outlives a call. */
#include "common/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct job {
	gpz_task_fn fn;
	void *ctx;
	size_t ntasks;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		size_t t = atomic_fetch_add(&j->next, 1);
		if (t >= j->ntasks)
			return NULL;
		j->fn(j->ctx, t);
	}
}

void gpz_parallel_for(int nthreads, size_t ntasks, gpz_task_fn fn, void *ctx)
{
	enum { MAX_THREADS = 256 };
	pthread_t tid[MAX_THREADS];
	struct job j = { fn, ctx, ntasks, 0 };
	int n = nthreads < 1 ? 1 : nthreads > MAX_THREADS ? MAX_THREADS : nthreads;
	int started = 0;

	if ((size_t)n > ntasks)
		n = (int)ntasks;
	for (int i = 1; i < n; i++) {
		/* If a thread cannot start, the caller's own loop still finishes every task. */
		if (pthread_create(&tid[i], NULL, worker, &j) != 0)
			break;
		started++;
	}
	worker(&j);
	for (int i = 1; i <= started; i++)
		pthread_join(tid[i], NULL);
}

gpz_result gpz_parallel_checked(int nthreads, size_t ntasks, gpz_task_fn fn, void *ctx,
                                int **flags)
{
	gpz_result r = GPZ_OK;

	*flags = calloc(ntasks ? ntasks : 1, sizeof(**flags));
	if (!*flags)
		return GPZ_ERR_NOMEM;
	gpz_parallel_for(nthreads, ntasks, fn, ctx);
	for (size_t t = 0; t < ntasks; t++)
		if ((*flags)[t])
			r = GPZ_ERR_CORRUPT;
	free(*flags);
	*flags = NULL;
	return r;
}

#define COPY_STEP ((size_t)4 << 20)

struct copy_job {
	unsigned char *dst;
	const unsigned char *src;
	size_t n;
};

static void copy_task(void *v, size_t i)
{
	struct copy_job *j = v;
	size_t at = i * COPY_STEP;

	memcpy(j->dst + at, j->src + at, j->n - at < COPY_STEP ? j->n - at : COPY_STEP);
}

void gpz_parallel_copy(int nthreads, void *dst, const void *src, size_t n)
{
	struct copy_job j = { dst, src, n };
	size_t steps = (n + COPY_STEP - 1) / COPY_STEP;

	if (steps <= 1 || nthreads <= 1)
		memcpy(dst, src, n);
	else
		gpz_parallel_for(nthreads, steps, copy_task, &j);
}

int gpz_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}
