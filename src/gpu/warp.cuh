/* warp.cuh - warp-wide helpers the kernels of several stages share. */
#ifndef GPZ_WARP_CUH
#define GPZ_WARP_CUH

#include <stdint.h>

/* The OR of v over the full warp: one instruction from sm_80, a butterfly before. */
__device__ __forceinline__ uint32_t gpz_warp_or(uint32_t v)
{
#if __CUDA_ARCH__ >= 800
	return __reduce_or_sync(0xffffffffu, v);
#else
	for (int o = 16; o; o >>= 1)
		v |= __shfl_xor_sync(0xffffffffu, v, o);
	return v;
#endif
}

/* The inclusive sum of v over lanes 0 .. this lane of the full warp. */
__device__ __forceinline__ uint32_t gpz_warp_scan(uint32_t v)
{
	const unsigned lane = threadIdx.x & 31;
	for (unsigned o = 1; o < 32; o <<= 1) {
		const uint32_t y = __shfl_up_sync(0xffffffffu, v, o);
		if (lane >= o)
			v += y;
	}
	return v;
}

#endif
