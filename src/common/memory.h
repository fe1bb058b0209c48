/* memory.h - large host buffers of the CPU backend. */
#ifndef GPZ_COMMON_MEMORY_H
#define GPZ_COMMON_MEMORY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* n bytes (uninitialised), in 2 MiB pages where the kernel allows it (transparent huge pages)
 * when n is 4 MiB or more; free() releases it. Buffers that a run touches afresh for every
 * frame fault in 512 times fewer pages so: at 4 KiB a page, the faults of the CPU lanes' buffers
 * took ~1 s of system time at 16 threads on an H100 host
 * (bench/results/2026-11-26-h100-cpu-inflate-threads.md). */
void *gpz_big_alloc(size_t n);

/* Memory its owner (a frame engine lane) keeps from frame to frame for a stage's temporary
 * buffers, so that they are not faulted in afresh every frame. */
struct gpz_scratch {
	void *p;
	size_t cap;
};

/* At least n bytes of s (its contents not kept); NULL when it cannot grow. */
void *gpz_scratch_get(struct gpz_scratch *s, size_t n);
void gpz_scratch_free(struct gpz_scratch *s);

#ifdef __cplusplus
}
#endif
#endif
