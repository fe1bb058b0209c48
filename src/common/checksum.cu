/* checksum.cu - the frame content checksum on the GPU: one thread per 64 KiB block computes
 * XXH64(block, seed = block index) and adds it into the sum (mod 2^64, as unsigned atomicAdd
 * wraps). A warp's 32 whole blocks of one aligned frame are staged through shared memory so that
 * their loads coalesce (xxh64_coop); other 16-byte aligned input is read with vector loads. The
 * algorithm is that of xxh64.h. */
#include <cuda_pipeline.h>

#include "common/checksum.h"
#include "common/xxh64.h"
#include "common/checksum_gpu.h"
#include "gpu/cuda_check.h"

/* Stripes in groups of GROUP (16 bytes per load); the next group's loads are issued before the
 * current group is hashed, so each thread keeps 2 * GROUP * 32 bytes in flight: there are only
 * as many threads as 64 KiB blocks (16384 per GiB), so this is what keeps memory busy. */
#define GROUP 8

__device__ __forceinline__ void hash_group(gpz_xxh_lanes *l, const uint4 (&x)[2 * GROUP])
{
#pragma unroll
	for (int k = 0; k < GROUP; k++)
		gpz_xxh_stripe(l, x[2 * k].x | (uint64_t)x[2 * k].y << 32,
		               x[2 * k].z | (uint64_t)x[2 * k].w << 32,
		               x[2 * k + 1].x | (uint64_t)x[2 * k + 1].y << 32,
		               x[2 * k + 1].z | (uint64_t)x[2 * k + 1].w << 32);
}

/* XXH64 of a 16-byte aligned block. */
__device__ uint64_t xxh64_vec(const uint8_t *data, size_t len, uint64_t seed)
{
	const uint4 *v = reinterpret_cast<const uint4 *>(data);
	size_t stripes = len / 32, groups = stripes / GROUP, s = groups * GROUP;
	uint64_t h = seed + GPZ_P64_5;
	if (stripes) {
		gpz_xxh_lanes l;
		uint4 cur[2 * GROUP], nxt[2 * GROUP];
		gpz_xxh_lanes_init(&l, seed);
		if (groups) {
#pragma unroll
			for (int k = 0; k < 2 * GROUP; k++)
				cur[k] = __ldg(&v[k]);
		}
		for (size_t g = 0; g < groups; g++) {
			if (g + 1 < groups) {
#pragma unroll
				for (int k = 0; k < 2 * GROUP; k++)
					nxt[k] = __ldg(&v[(g + 1) * 2 * GROUP + k]);
			}
			hash_group(&l, cur);
#pragma unroll
			for (int k = 0; k < 2 * GROUP; k++)
				cur[k] = nxt[k];
		}
		for (; s < stripes; s++) {
			uint4 a = __ldg(&v[2 * s]), b = __ldg(&v[2 * s + 1]);
			gpz_xxh_stripe(&l, a.x | (uint64_t)a.y << 32, a.z | (uint64_t)a.w << 32,
			               b.x | (uint64_t)b.y << 32, b.z | (uint64_t)b.w << 32);
		}
		h = gpz_xxh_converge(&l);
	}
	return gpz_xxh_finish(h, (uint64_t)len, data + stripes * 32, len % 32);
}

/* A warp's 32 whole blocks hashed with their loads coalesced. Thread-per-block reads are 16
 * bytes a thread from 32 lines 64 KiB apart, so each load instruction costs the L1 32 lines'
 * work; that held the pass at 3.1 TB/s on the H200. Instead the warp copies each block's next
 * 256 bytes into a row of shared memory (two blocks' 256 bytes per instruction, asynchronously,
 * COOP_STAGES steps ahead: the copies need no registers while they fly) and every thread hashes
 * its own row. Rows are padded by 16 bytes so that 8 threads reading the same column of 8
 * rows hit distinct banks. */
constexpr unsigned COOP_STEP = 256;                          /* bytes of a block a step */
constexpr unsigned COOP_ROW = COOP_STEP / 16 + 1;            /* a row in 16-byte words, padded */
constexpr unsigned COOP_STAGES = 4;
constexpr unsigned COOP_STEPS = GPZ_CHECKSUM_BLOCK / COOP_STEP;

__device__ __forceinline__ void coop_issue(uint4 (*stage)[COOP_ROW], const uint4 *blocks,
                                           unsigned step, unsigned lane)
{
	const unsigned q = lane & 15, words = GPZ_CHECKSUM_BLOCK / 16;
#pragma unroll
	for (unsigned i = 0; i < 16; i++) {
		const unsigned j = 2 * i + (lane >> 4);
		__pipeline_memcpy_async(&stage[j][q], blocks + (size_t)j * words + step * 16 + q, 16);
	}
	__pipeline_commit();
}

/* XXH64 of this thread's block (blocks: the warp's first, 16-byte aligned; seed: its index). */
__device__ uint64_t xxh64_coop(const uint8_t *blocks, uint64_t seed)
{
	__shared__ uint4 buf[COOP_STAGES][32][COOP_ROW];
	const unsigned lane = threadIdx.x & 31;
	const uint4 *g = reinterpret_cast<const uint4 *>(blocks);
	gpz_xxh_lanes l;
	gpz_xxh_lanes_init(&l, seed);
	for (unsigned s = 0; s + 1 < COOP_STAGES; s++)
		coop_issue(buf[s], g, s, lane);
	for (unsigned s = 0; s < COOP_STEPS; s++) {
		/* the stage read in step s - 1 takes step s + COOP_STAGES - 1 (every thread is past
		 * it: the __syncwarp below) */
		if (s + COOP_STAGES - 1 < COOP_STEPS)
			coop_issue(buf[(s + COOP_STAGES - 1) % COOP_STAGES], g, s + COOP_STAGES - 1, lane);
		else
			__pipeline_commit(); /* an empty group keeps the count of groups in flight */
		__pipeline_wait_prior(COOP_STAGES - 1);
		__syncwarp();
		const uint4 *row = buf[s % COOP_STAGES][lane];
#pragma unroll
		for (unsigned k = 0; k < COOP_STEP / 32; k++) {
			const uint4 a = row[2 * k], b = row[2 * k + 1];
			gpz_xxh_stripe(&l, a.x | (uint64_t)a.y << 32, a.z | (uint64_t)a.w << 32,
			               b.x | (uint64_t)b.y << 32, b.z | (uint64_t)b.w << 32);
		}
		__syncwarp();
	}
	return gpz_xxh_finish(gpz_xxh_converge(&l), GPZ_CHECKSUM_BLOCK, blocks, 0);
}

/* Frames of frame_n bytes (the last may be shorter), each block hashed with its index in its
 * frame as the seed and added into its frame's sum. FRAMES false: one frame, the code from
 * before frames (where the frame's end is computed, ptxas keeps fewer of the loads in flight:
 * 106 registers instead of 144, and the one-frame sums ran 2-6% slower). */
template <bool FRAMES>
__global__ void __launch_bounds__(32)
checksum_kernel(const uint8_t *data, size_t size, size_t frame_n, size_t frame_blocks,
                size_t nblocks, bool aligned, unsigned long long *sums)
{
	size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (b >= nblocks)
		return;
	size_t f = 0, i = b;
	if (FRAMES) { /* blocks are fewer than 2^32: a 32-bit division */
		f = (uint32_t)b / (uint32_t)frame_blocks;
		i = b - f * frame_blocks;
		data += f * frame_n;
		size = min(frame_n, size - f * frame_n);
	}
	size_t off = i * GPZ_CHECKSUM_BLOCK;
	size_t len = size - off < GPZ_CHECKSUM_BLOCK ? size - off : GPZ_CHECKSUM_BLOCK;
	uint64_t h;
	/* one frame, aligned, and the block's 32 whole: the whole warp takes the same branch */
	if (!FRAMES && aligned && (blockIdx.x + 1) * (size_t)32 <= size / GPZ_CHECKSUM_BLOCK)
		h = xxh64_coop(data + (size_t)blockIdx.x * 32 * GPZ_CHECKSUM_BLOCK, i);
	else
		h = aligned ? xxh64_vec(data + off, len, i) : gpz_xxh64(data + off, len, i);
	atomicAdd(&sums[f], (unsigned long long)h);
}

static gpz_result launch(const uint8_t *d_data, size_t size, size_t frame_n, size_t nframes,
                         uint64_t *d_sums, cudaStream_t s)
{
	size_t frame_blocks = frame_n ? (frame_n + GPZ_CHECKSUM_BLOCK - 1) / GPZ_CHECKSUM_BLOCK : 1;
	size_t last = size - (nframes - 1) * frame_n;
	size_t nblocks = (nframes - 1) * frame_blocks +
	                 (last == 0 ? 1 : (last + GPZ_CHECKSUM_BLOCK - 1) / GPZ_CHECKSUM_BLOCK);
	bool aligned = reinterpret_cast<uintptr_t>(d_data) % 16 == 0 &&
	               (nframes == 1 || frame_n % 16 == 0);

	GPZ_CUDA_TRY(cudaMemsetAsync(d_sums, 0, nframes * sizeof(*d_sums), s));
	/* small blocks spread the few threads over every multiprocessor */
	auto k = nframes == 1 ? checksum_kernel<false> : checksum_kernel<true>;
	k<<<(unsigned)((nblocks + 31) / 32), 32, 0, s>>>(d_data, size, frame_n, frame_blocks,
	                                                 nblocks, aligned, (unsigned long long *)d_sums);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_checksum(const uint8_t *d_data, size_t size, uint64_t *d_sum,
                                       gpz_stream_t stream)
{
	return launch(d_data, size, size, 1, d_sum, (cudaStream_t)stream);
}

extern "C" gpz_result gpz_gpu_checksum_frames(const uint8_t *d_data, size_t size, size_t frame_n,
                                              uint64_t *d_sums, gpz_stream_t stream)
{
	if (size == 0 || frame_n == 0)
		return GPZ_ERR_PARAM;
	return launch(d_data, size, frame_n, (size + frame_n - 1) / frame_n, d_sums,
	              (cudaStream_t)stream);
}
