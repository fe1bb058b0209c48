/* context.h - what a gpz_ctx holds. */
#ifndef GPZ_CONTEXT_H
#define GPZ_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpz_ctx {
	gpz_backend backend; /* resolved: CPU or GPU */
	int gpu_asked;       /* created with GPZ_BACKEND_GPU (not AUTO): also paths the GPU runs
	                      * slower than the CPU today (DEFLATE), for those who want them */
	int nthreads;        /* CPU worker threads, >= 1 */
	void *gpu;           /* GPU backend state (frame_gpu.cu), NULL on the CPU backend */
};

/* GPU backend (frame_gpu.cu; without CUDA, src/gpu/none.c, never reached). */
gpz_result gpz_gpu_ctx_init(gpz_ctx *ctx);
void gpz_gpu_ctx_free(gpz_ctx *ctx);
gpz_result gpz_gpu_compress_frame_host(gpz_ctx *ctx, const gpz_params *p, const void *src,
                                       size_t src_size, void *dst, size_t dst_cap,
                                       size_t *written);
gpz_result gpz_gpu_decompress_frame_host(gpz_ctx *ctx, const void *src, size_t src_size,
                                         void *dst, size_t dst_cap, size_t *written,
                                         uint64_t *checksum);

#ifdef __cplusplus
}
#endif
#endif
