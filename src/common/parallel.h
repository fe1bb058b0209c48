/* parallel.h - the one threading primitive the CPU backend uses. */
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

/* Number of online CPUs (at least 1). */
int gpz_cpu_count(void);

#ifdef __cplusplus
}
#endif
#endif
