/* parallel.c - run independent tasks on a few pthreads. gpz_parallel_for starts threads per
 * call: a call covers megabytes of work, so the ~20 us of thread start-up does not matter, and no
 * state outlives a call. A gpz_pool keeps its workers for callers that share them. */
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

/* ---- a pool shared by several callers ---- */

/* One gpz_pool_run: its tasks are handed out in order, and the caller waits for `done`. */
struct pool_call {
	gpz_task_fn fn;
	void *ctx;
	size_t ntasks, next, done;
	pthread_cond_t cv; /* the caller waits on it for done == ntasks */
	struct pool_call *later;
};

struct gpz_pool {
	pthread_mutex_t mu;
	pthread_cond_t work; /* workers wait on it for a call with tasks left */
	struct pool_call *first, *last; /* calls with tasks not yet handed out, oldest first */
	int quit, nthreads;
	pthread_t tid[];
};

static void *pool_worker(void *arg)
{
	struct gpz_pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->first && !p->quit)
			pthread_cond_wait(&p->work, &p->mu);
		if (!p->first)
			break;
		struct pool_call *c = p->first;
		size_t t = c->next++;
		if (c->next == c->ntasks) { /* all handed out: the next call's tasks come next */
			p->first = c->later;
			if (!p->first)
				p->last = NULL;
		}
		pthread_mutex_unlock(&p->mu);
		c->fn(c->ctx, t);
		pthread_mutex_lock(&p->mu);
		if (++c->done == c->ntasks)
			pthread_cond_signal(&c->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct gpz_pool *gpz_pool_open(int nthreads)
{
	int n = nthreads < 1 ? 1 : nthreads > 256 ? 256 : nthreads;
	struct gpz_pool *p = calloc(1, sizeof(*p) + (size_t)n * sizeof(pthread_t));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	for (; p->nthreads < n; p->nthreads++)
		if (pthread_create(&p->tid[p->nthreads], NULL, pool_worker, p) != 0)
			break;
	if (p->nthreads == 0) {
		gpz_pool_close(p);
		return NULL;
	}
	return p;
}

void gpz_pool_close(struct gpz_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->tid[i], NULL);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

void gpz_pool_run(struct gpz_pool *p, size_t ntasks, gpz_task_fn fn, void *ctx)
{
	if (!p) {
		for (size_t t = 0; t < ntasks; t++)
			fn(ctx, t);
		return;
	}
	if (ntasks == 0)
		return;
	struct pool_call c = { fn, ctx, ntasks, 0, 0, PTHREAD_COND_INITIALIZER, NULL };
	pthread_mutex_lock(&p->mu);
	if (p->last)
		p->last->later = &c;
	else
		p->first = &c;
	p->last = &c;
	pthread_cond_broadcast(&p->work);
	while (c.done < c.ntasks)
		pthread_cond_wait(&c.cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	pthread_cond_destroy(&c.cv);
}

int gpz_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}
