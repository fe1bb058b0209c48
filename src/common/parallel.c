/* parallel.c - run independent tasks on a few pthreads. Threads are started per call: a call
 * covers megabytes of work, so the ~20 us of thread start-up does not matter, and no pool state
 * outlives a call. */
#include "common/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
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

int gpz_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}
