/* memory.c - large host buffers of the CPU backend (memory.h). */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "common/memory.h"

#include <stdlib.h>
#include <sys/mman.h>

void *gpz_big_alloc(size_t n)
{
#ifdef MADV_HUGEPAGE
	const size_t huge = (size_t)2 << 20;
	if (n >= 2 * huge) {
		void *p = NULL;
		size_t r = (n + huge - 1) & ~(huge - 1);
		if (posix_memalign(&p, huge, r) != 0)
			return NULL;
		(void)madvise(p, r, MADV_HUGEPAGE); /* advice: without it, 4 KiB pages */
		return p;
	}
#endif
	return malloc(n ? n : 1);
}

void *gpz_scratch_get(struct gpz_scratch *s, size_t n)
{
	if (s->cap < n) {
		gpz_scratch_free(s);
		if (!(s->p = gpz_big_alloc(n)))
			return NULL;
		s->cap = n;
	}
	return s->p;
}

void gpz_scratch_free(struct gpz_scratch *s)
{
	free(s->p);
	s->p = NULL;
	s->cap = 0;
}
