/* checksum.cu - the frame content checksum on the GPU: one thread per 64 KiB block computes
 * XXH64(block, seed = block index) and adds it into the sum (mod 2^64, as unsigned atomicAdd
 * wraps). Aligned input is read 8 bytes at a time; the algorithm is that of xxh64.h. */
#include "common/checksum.h"
#include "common/xxh64.h"
#include "gpu/gpu.h"
#include "gpu/cuda_check.h"

__device__ uint64_t xxh64_aligned(const uint64_t *p, size_t len, uint64_t seed)
{
	size_t nw = len / 8, i = 0;
	uint64_t h;

	if (len >= 32) {
		uint64_t v1 = seed + GPZ_P64_1 + GPZ_P64_2, v2 = seed + GPZ_P64_2;
		uint64_t v3 = seed, v4 = seed - GPZ_P64_1;
#pragma unroll 4
		for (; i + 4 <= nw; i += 4) {
			v1 = gpz_xxh_round(v1, __ldg(&p[i]));
			v2 = gpz_xxh_round(v2, __ldg(&p[i + 1]));
			v3 = gpz_xxh_round(v3, __ldg(&p[i + 2]));
			v4 = gpz_xxh_round(v4, __ldg(&p[i + 3]));
		}
		h = gpz_xxh_rotl(v1, 1) + gpz_xxh_rotl(v2, 7) + gpz_xxh_rotl(v3, 12) +
		    gpz_xxh_rotl(v4, 18);
		h = gpz_xxh_merge(h, v1);
		h = gpz_xxh_merge(h, v2);
		h = gpz_xxh_merge(h, v3);
		h = gpz_xxh_merge(h, v4);
	} else {
		h = seed + GPZ_P64_5;
	}
	h += (uint64_t)len;
	for (; i < nw; i++) {
		h ^= gpz_xxh_round(0, p[i]);
		h = gpz_xxh_rotl(h, 27) * GPZ_P64_1 + GPZ_P64_4;
	}
	const uint8_t *b = reinterpret_cast<const uint8_t *>(p + nw);
	size_t rest = len % 8, j = 0;
	if (rest >= 4) {
		h ^= (uint64_t)gpz_xxh_read32(b) * GPZ_P64_1;
		h = gpz_xxh_rotl(h, 23) * GPZ_P64_2 + GPZ_P64_3;
		j = 4;
	}
	for (; j < rest; j++) {
		h ^= (uint64_t)b[j] * GPZ_P64_5;
		h = gpz_xxh_rotl(h, 11) * GPZ_P64_1;
	}
	h ^= h >> 33;
	h *= GPZ_P64_2;
	h ^= h >> 29;
	h *= GPZ_P64_3;
	h ^= h >> 32;
	return h;
}

__global__ void checksum_kernel(const uint8_t *data, size_t size, size_t nblocks, bool aligned,
                                unsigned long long *sum)
{
	size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (b >= nblocks)
		return;
	size_t off = b * GPZ_CHECKSUM_BLOCK;
	size_t len = size - off < GPZ_CHECKSUM_BLOCK ? size - off : GPZ_CHECKSUM_BLOCK;
	uint64_t h = aligned ? xxh64_aligned(reinterpret_cast<const uint64_t *>(data + off), len, b)
	                     : gpz_xxh64(data + off, len, b);
	atomicAdd(sum, (unsigned long long)h);
}

extern "C" gpz_result gpz_gpu_checksum(const uint8_t *d_data, size_t size, uint64_t *d_sum,
                                       gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	size_t nblocks = size == 0 ? 1 : (size + GPZ_CHECKSUM_BLOCK - 1) / GPZ_CHECKSUM_BLOCK;
	bool aligned = reinterpret_cast<uintptr_t>(d_data) % 8 == 0;

	GPZ_CUDA_TRY(cudaMemsetAsync(d_sum, 0, sizeof(*d_sum), s));
	checksum_kernel<<<(unsigned)((nblocks + 127) / 128), 128, 0, s>>>(
		d_data, size, nblocks, aligned, (unsigned long long *)d_sum);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}
