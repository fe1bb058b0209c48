/* context.h - what a gpz_ctx holds: the backend, the CPU threads, the GPU resources. Every
 * stage that takes a context (the frame engine, DEFLATE streams) reads it here. */
#ifndef GPZ_CONTEXT_H
#define GPZ_CONTEXT_H

#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpz_gpu;

struct gpz_ctx {
	gpz_backend backend; /* resolved: CPU or GPU */
	int gpu_asked;       /* created with GPZ_BACKEND_GPU (not AUTO): also paths the GPU runs
	                      * slower than the CPU today (DEFLATE), for those who want them */
	int nthreads;        /* CPU worker threads, >= 1 */
	struct gpz_gpu *gpu; /* GPU resources (gpu/gpu.h), NULL on the CPU backend */
};

#ifdef __cplusplus
}
#endif
#endif
