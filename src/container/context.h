/* context.h - what a gpz_ctx holds. */
#ifndef GPZ_CONTEXT_H
#define GPZ_CONTEXT_H

#include "gpz.h"

struct gpz_ctx {
	gpz_backend backend; /* resolved: CPU or GPU */
	int nthreads;        /* CPU worker threads, >= 1 */
};

#endif
