/* bench_time.h - wall-clock time and medians for the CPU benchmarks (bench.c, bench_deflate.c). */
#ifndef GPZ_BENCH_TIME_H
#define GPZ_BENCH_TIME_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of t[0 .. n) (n >= 1), sorting t. */
static inline double bench_median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), bench_cmp_double);
	return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

#endif
