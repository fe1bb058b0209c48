/* cuda_check.h - error handling shared by the CUDA sources: every runtime call and launch is
 * checked and mapped to a gpz_result (the library never prints). */
#ifndef GPZ_CUDA_CHECK_H
#define GPZ_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "gpz.h"

static inline gpz_result gpz_cuda_result(cudaError_t e)
{
	if (e == cudaSuccess)
		return GPZ_OK;
	return e == cudaErrorMemoryAllocation ? GPZ_ERR_NOMEM : GPZ_ERR_GPU;
}

/* Return from the enclosing function with the mapped error when a CUDA call fails. */
#define GPZ_CUDA_TRY(call)                                                                 \
	do {                                                                                   \
		cudaError_t gpz_e_ = (call);                                                       \
		if (gpz_e_ != cudaSuccess)                                                         \
			return gpz_cuda_result(gpz_e_);                                                \
	} while (0)

/* After a kernel launch: launch-configuration errors surface here. */
#define GPZ_LAUNCH_TRY() GPZ_CUDA_TRY(cudaGetLastError())

/* Device to host on the stream the data was produced on, then wait for it. */
static inline gpz_result gpz_cuda_d2h(void *dst, const void *src, size_t n, cudaStream_t s)
{
	GPZ_CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s));
	GPZ_CUDA_TRY(cudaStreamSynchronize(s));
	return GPZ_OK;
}

/* Workspace slices start on 256-byte boundaries. */
static inline constexpr size_t gpz_align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

#endif
