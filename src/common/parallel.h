/* parallel.h - the CPU backend's threading: parallel loops with threads of their own, and a
 * pool of workers that several callers share. */
#ifndef GPZ_PARALLEL_H
#define GPZ_PARALLEL_H

#include <stddef.h>
#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls fn(ctx, i) once for every i in [0, ntasks) on up to nthreads threads (the caller's among
 * them). Workers take tasks in order from a shared counter, so tasks must be independent. */
typedef void (*gpz_task_fn)(void *ctx, size_t task);

void gpz_parallel_for(int nthreads, size_t ntasks, gpz_task_fn fn, void *ctx);

/* gpz_parallel_for over tasks that may find their input invalid: *flags is set, for the call,
 * to ntasks zeroed ints (a task raises its own), and the call returns GPZ_ERR_CORRUPT when any
 * task raised it (GPZ_ERR_NOMEM when the flags cannot be had). */
gpz_result gpz_parallel_checked(int nthreads, size_t ntasks, gpz_task_fn fn, void *ctx,
                                int **flags);

/* memcpy(dst, src, n) in steps of a few MiB on up to nthreads threads (one thread's copy of a
 * frame runs at a fraction of the host's memory bandwidth). */
void gpz_parallel_copy(int nthreads, void *dst, const void *src, size_t n);

/* A pool of workers for callers on several threads (the frame engine's lanes) to share, so that
 * a worker done with one caller's tasks takes the next caller's instead of waiting with its own
 * caller's slowest task. Tasks run in the order they were submitted: a call's, then those of the
 * calls after it. gpz_pool_open: NULL when no thread could start (gpz_pool_run then runs the
 * tasks on the caller's thread). gpz_pool_close: after every gpz_pool_run has returned. */
struct gpz_pool;
struct gpz_pool *gpz_pool_open(int nthreads);
void gpz_pool_close(struct gpz_pool *p);
/* fn(ctx, i) for every i in [0, ntasks) on the pool's workers; returns when all are done. */
void gpz_pool_run(struct gpz_pool *p, size_t ntasks, gpz_task_fn fn, void *ctx);

/* Number of online CPUs (at least 1). */
int gpz_cpu_count(void);

#ifdef __cplusplus
}
#endif
#endif
