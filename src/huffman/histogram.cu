/* histogram.cu - symbol counts on the GPU.
 *
 * Each block counts into a private shared-memory histogram of the first SMEM_BINS symbol values
 * (larger values, rare in quantization codes, go straight to global atomics) and merges its
 * nonzero bins into the global histogram at the end, so no global counter is shared while
 * counting and the replication never collapses however large the input is. Threads read 16-byte
 * vectors and merge runs of equal symbols inside a vector before touching shared memory: on
 * Nyx-Quant (p = 0.996 for one symbol) that turns 8 atomics on one counter into one. */
#include "huffman/huffman_gpu.h"
#include "gpu/cuda_check.h"

#define THREADS 512
#define SMEM_BINS 16384u /* 64 KiB of shared memory */

template <int W> __device__ __forceinline__ uint32_t lane_symbol(uint4 v, int k)
{
	uint32_t word = k * W / 4 == 0 ? v.x : k * W / 4 == 1 ? v.y : k * W / 4 == 2 ? v.z : v.w;
	if (W == 4)
		return word;
	if (W == 2)
		return (word >> (16 * (k & 1))) & 0xffff;
	return (word >> (8 * (k & 3))) & 0xff;
}

__device__ __forceinline__ void count(uint32_t *bins, uint32_t *global, uint32_t *stats,
                                      uint32_t sym, uint32_t run, uint32_t limit)
{
	if (sym < SMEM_BINS)
		atomicAdd(&bins[sym], run);
	else if (sym < limit)
		atomicAdd(&global[sym], run);
	else
		stats[1] = 1;
}

template <int W>
__global__ void __launch_bounds__(THREADS) histogram_kernel(const uint8_t *src, size_t n,
                                                           uint32_t *global, uint32_t *stats,
                                                           uint32_t limit)
{
	extern __shared__ uint32_t bins[];
	const int per_vec = 16 / W;
	uint32_t nb = limit < SMEM_BINS ? limit : SMEM_BINS;
	uint32_t vmax = 0;

	for (uint32_t i = threadIdx.x; i < nb; i += blockDim.x)
		bins[i] = 0;
	__syncthreads();
	/* src is 16-byte aligned (checked by the caller); the tail is done below. */
	size_t nvec = n / per_vec;
	const uint4 *v = reinterpret_cast<const uint4 *>(src);
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nvec;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint4 x = __ldg(&v[i]);
		uint32_t cur = lane_symbol<W>(x, 0), run = 1;
#pragma unroll
		for (int k = 1; k < per_vec; k++) {
			uint32_t s = lane_symbol<W>(x, k);
			if (s == cur) {
				run++;
			} else {
				count(bins, global, stats, cur, run, limit);
				vmax = max(vmax, cur);
				cur = s;
				run = 1;
			}
		}
		count(bins, global, stats, cur, run, limit);
		vmax = max(vmax, cur);
	}
	if (blockIdx.x == 0) {
		for (size_t i = nvec * per_vec + threadIdx.x; i < n; i += blockDim.x) {
			uint32_t s = W == 1 ? src[i] : W == 2 ? (uint32_t)src[2 * i] | (src[2 * i + 1] << 8)
			           : (uint32_t)src[4 * i] | (src[4 * i + 1] << 8) |
			             (src[4 * i + 2] << 16) | ((uint32_t)src[4 * i + 3] << 24);
			count(bins, global, stats, s, 1, limit);
			vmax = max(vmax, s);
		}
	}
	/* the largest symbol: warp maximum, one atomic per warp */
	for (int o = 16; o > 0; o >>= 1)
		vmax = max(vmax, __shfl_xor_sync(0xffffffffu, vmax, o));
	if ((threadIdx.x & 31) == 0)
		atomicMax(&stats[0], vmax);
	__syncthreads();
	for (uint32_t i = threadIdx.x; i < nb; i += blockDim.x)
		if (bins[i])
			atomicAdd(&global[i], bins[i]);
}

/* Bytes: text hits a few counters hard (space, e, t), and 32 lanes adding to one shared counter,
 * or to counters in one bank, wait for each other. Each lane has a column of its own, bin s of
 * lane l at s * 32 + l (bank l whatever the symbol), summed when the block merges. */
__global__ void __launch_bounds__(THREADS) histogram_bytes_kernel(const uint8_t *src, size_t n,
                                                                 size_t frame_n,
                                                                 uint32_t *global,
                                                                 uint32_t *stats)
{
	__shared__ uint32_t cols[256 * 32];
	/* frame blockIdx.y of frames of frame_n bytes: its own counts and largest symbol */
	src += blockIdx.y * frame_n;
	n = min(frame_n, n - blockIdx.y * frame_n);
	global += 256 * (size_t)blockIdx.y;
	stats += 2 * (size_t)blockIdx.y;
	const uint32_t lane = threadIdx.x & 31;
	uint32_t vmax = 0;

	for (uint32_t i = threadIdx.x; i < 256 * 32; i += blockDim.x)
		cols[i] = 0;
	__syncthreads();
	size_t nvec = n / 16;
	const uint4 *v = reinterpret_cast<const uint4 *>(src);
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nvec;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint4 x = __ldg(&v[i]);
#pragma unroll
		for (int k = 0; k < 16; k++) {
			uint32_t s = lane_symbol<1>(x, k);
			atomicAdd(&cols[s * 32 + lane], 1u);
			vmax = max(vmax, s);
		}
	}
	if (blockIdx.x == 0) {
		for (size_t i = nvec * 16 + threadIdx.x; i < n; i += blockDim.x) {
			atomicAdd(&cols[src[i] * 32u + lane], 1u);
			vmax = max(vmax, (uint32_t)src[i]);
		}
	}
	for (int o = 16; o > 0; o >>= 1)
		vmax = max(vmax, __shfl_xor_sync(0xffffffffu, vmax, o));
	if (lane == 0)
		atomicMax(&stats[0], vmax);
	__syncthreads();
	for (uint32_t s = threadIdx.x; s < 256; s += blockDim.x) {
		uint32_t t = 0;
		for (uint32_t l = 0; l < 32; l++)
			t += cols[s * 32 + ((l + s) & 31)]; /* rotated: the block's threads hit 32 banks */
		if (t)
			atomicAdd(&global[s], t);
	}
}

/* Unaligned input: a plain grid-stride loop with global atomics (the device API's frames are
 * aligned unless the caller passes an odd pointer). */
template <int W>
__global__ void histogram_unaligned_kernel(const uint8_t *src, size_t n, uint32_t *global,
                                           uint32_t *stats, uint32_t limit)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint32_t s = 0;
		for (int b = W - 1; b >= 0; b--)
			s = (s << 8) | src[(size_t)W * i + b];
		if (s < limit)
			atomicAdd(&global[s], 1u);
		else
			stats[1] = 1;
		atomicMax(&stats[0], s);
	}
}

template <int W>
static gpz_result launch(const uint8_t *d_src, size_t n, uint32_t *d_counts, uint32_t *d_stats,
                         uint32_t limit, cudaStream_t s)
{
	int dev, sms;
	GPZ_CUDA_TRY(cudaGetDevice(&dev));
	GPZ_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	if (reinterpret_cast<uintptr_t>(d_src) % 16) {
		histogram_unaligned_kernel<W><<<4 * sms, 256, 0, s>>>(d_src, n, d_counts, d_stats, limit);
		GPZ_LAUNCH_TRY();
		return GPZ_OK;
	}
	size_t smem = (limit < SMEM_BINS ? limit : SMEM_BINS) * sizeof(uint32_t);
	size_t vecs = n / (16 / W);
	size_t blocks = (vecs + THREADS * 16 - 1) / (THREADS * 16); /* >= 16 vectors a thread */
	int max_blocks = 3 * sms;
	if (blocks < 1)
		blocks = 1;
	if (blocks > (size_t)max_blocks)
		blocks = (size_t)max_blocks;
	if constexpr (W == 1) {
		histogram_bytes_kernel<<<(unsigned)blocks, THREADS, 0, s>>>(d_src, n, n, d_counts,
		                                                            d_stats);
	} else {
		/* the largest need, the same from every call (calls on several host threads must not
		 * lower it under each other's launch) */
		GPZ_CUDA_TRY(cudaFuncSetAttribute(histogram_kernel<W>,
		                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                  (int)(SMEM_BINS * sizeof(uint32_t))));
		histogram_kernel<W><<<(unsigned)blocks, THREADS, smem, s>>>(d_src, n, d_counts, d_stats,
		                                                            limit);
	}
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_histogram(const uint8_t *d_src, size_t n, int w, uint32_t *d_counts,
                                        uint32_t *d_stats, gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	uint32_t limit = gpz_alphabet_limit(w);

	GPZ_CUDA_TRY(cudaMemsetAsync(d_counts, 0, limit * sizeof(uint32_t), s));
	GPZ_CUDA_TRY(cudaMemsetAsync(d_stats, 0, 2 * sizeof(uint32_t), s));
	if (n == 0)
		return GPZ_OK;
	if (w == 1)
		return launch<1>(d_src, n, d_counts, d_stats, limit, s);
	if (w == 2)
		return launch<2>(d_src, n, d_counts, d_stats, limit, s);
	return launch<4>(d_src, n, d_counts, d_stats, limit, s);
}

extern "C" gpz_result gpz_gpu_histogram_frames(const uint8_t *d_src, size_t n, size_t frame_n,
                                               uint32_t *d_counts, uint32_t *d_stats,
                                               gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	size_t nframes = frame_n ? (n + frame_n - 1) / frame_n : 0;
	if (n == 0 || frame_n % 16 || reinterpret_cast<uintptr_t>(d_src) % 16 || nframes > 65535)
		return GPZ_ERR_PARAM;
	GPZ_CUDA_TRY(cudaMemsetAsync(d_counts, 0, nframes * 256 * sizeof(uint32_t), s));
	GPZ_CUDA_TRY(cudaMemsetAsync(d_stats, 0, nframes * 2 * sizeof(uint32_t), s));
	/* 16 vectors a thread or more and about 3 blocks a multiprocessor in all, as one frame's
	 * launch has (every block adds its 256 counts into its frame's) */
	int dev, sms;
	GPZ_CUDA_TRY(cudaGetDevice(&dev));
	GPZ_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t blocks = (frame_n / 16 + THREADS * 16 - 1) / (THREADS * 16);
	size_t share = (3 * (size_t)sms + nframes - 1) / nframes;
	blocks = blocks < share ? blocks : share;
	dim3 grid((unsigned)(blocks ? blocks : 1), (unsigned)nframes);
	histogram_bytes_kernel<<<grid, THREADS, 0, s>>>(d_src, n, frame_n, d_counts, d_stats);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}
