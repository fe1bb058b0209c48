/* hash_follow_probe.cu - can a warp of the kernel that writes a frame's content hash it as it
 * goes (issue 14)? A Huffman frame's device decompress is the decoder (writes 1 GiB) and then
 * the content checksum (reads it all again: 0.28 ms of ~0.79 on an H200 for Nyx-Quant). Here a
 * stand-in writer (blocks that fill 64 KiB chunks with 16-byte stores, as fast as the stores go)
 * runs three ways on 1 GiB:
 *   write          the writer alone;
 *   write, sum     the writer, then the library's checksum kernel (gpz_gpu_checksum);
 *   fused          each block's extra warp hashes the block's chunks once written, BATCH at a
 *                  time (a lane a chunk, loading its own, as the checksum kernel's
 *                  thread-per-block path);
 *   fused, coop    the same, 32 at a time, through the checksum kernel's own coalesced hash
 *                  (xxh64_coop, common/checksum.cu: the loads staged through shared memory).
 * Every way's sum is checked against the library's.
 * Build (repository root, after a build in build-gpu):
 *   nvcc -O3 -arch=sm_90 -std=c++17 -I include -I src bench/probe/hash_follow_probe.cu \
 *        build-gpu/libgpz.a -o hash_follow_probe
 * Usage: hash_follow_probe [WRITER_WARPS] [BLOCKS_PER_SM] [BATCH (<= 32)] */
#include "gpz.h"
/* the library's checksum kernels, compiled in here: its coalesced hash (xxh64_coop) is what the
 * fused way calls, and gpz_gpu_checksum the baseline */
#include "common/checksum.cu"

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHUNK 65536u

/* The bytes the writer puts at 16-byte word w of chunk c: anything that depends on both. */
__device__ __forceinline__ uint4 pattern(uint32_t c, uint32_t w)
{
	uint32_t x = c * 2654435761u ^ w * 40503u;
	return make_uint4(x, x ^ 0x5bd1e995u, x + c, w);
}

/* A chunk's 4096 words, written by `warps` warps (warp k takes words k*32+lane, stepping). */
__device__ __forceinline__ void write_chunk(uint4 *out, uint32_t c, unsigned warp, unsigned lane,
                                            unsigned warps)
{
	uint4 *dst = out + (size_t)c * (CHUNK / 16);
	for (uint32_t w = warp * 32 + lane; w < CHUNK / 16; w += warps * 32)
		dst[w] = pattern(c, w);
}

/* XXH64 of one 64 KiB chunk (16-byte aligned), loads through L2: the library's xxh64_vec loads
 * through the read-only path, which must not serve bytes this kernel's other warps write. */
__device__ uint64_t hash_chunk(const uint4 *v, uint64_t seed)
{
	gpz_xxh_lanes l;
	gpz_xxh_lanes_init(&l, seed);
	for (uint32_t s = 0; s < CHUNK / 32; s += 4) {
		uint4 x[8];
#pragma unroll
		for (int k = 0; k < 8; k++)
			x[k] = __ldcg(&v[2 * s + k]);
#pragma unroll
		for (int k = 0; k < 4; k++)
			gpz_xxh_stripe(&l, x[2 * k].x | (uint64_t)x[2 * k].y << 32,
			               x[2 * k].z | (uint64_t)x[2 * k].w << 32,
			               x[2 * k + 1].x | (uint64_t)x[2 * k + 1].y << 32,
			               x[2 * k + 1].z | (uint64_t)x[2 * k + 1].w << 32);
	}
	return gpz_xxh_finish(gpz_xxh_converge(&l), CHUNK, reinterpret_cast<const uint8_t *>(v), 0);
}

/* Block b owns chunks [b * per, min((b + 1) * per, nchunks)). HASH: warp `warps` hashes them. */
template <bool HASH, bool COOP>
__global__ void writer_kernel(uint4 *out, uint32_t nchunks, uint32_t per, unsigned warps,
                              uint32_t batch, unsigned long long *sum)
{
	__shared__ volatile uint32_t done; /* chunks of the block's range written so far */
	const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	const uint32_t c0 = blockIdx.x * per;
	const uint32_t c1 = c0 + per < nchunks ? c0 + per : nchunks;
	if (threadIdx.x == 0)
		done = 0;
	__syncthreads();
	if (c0 >= c1)
		return;
	if (!HASH || warp < warps) {
		for (uint32_t c = c0; c < c1; c++) {
			write_chunk(out, c, warp, lane, warps);
			if (HASH) {
				/* the writers meet, then one publishes the chunk to the hasher */
				asm volatile("bar.sync 1, %0;" ::"r"(warps * 32));
				if (threadIdx.x == 0) {
					__threadfence();
					done = c - c0 + 1;
				}
			}
		}
		return;
	}
	if constexpr (HASH) {
		/* the hasher: batches of up to `batch` (<= 32) written chunks, a lane a chunk */
		for (uint32_t next = 0; next < c1 - c0;) {
			uint32_t want = c1 - c0 - next < batch ? c1 - c0 - next : batch, have;
			while ((have = done) < next + want)
				__nanosleep(200);
			__threadfence();
			uint64_t h = 0;
			const uint4 *first = out + (size_t)(c0 + next) * (CHUNK / 16);
			if (COOP && want == 32)
				h = xxh64_coop(reinterpret_cast<const uint8_t *>(first), c0 + next + lane);
			else if (lane < want)
				h = hash_chunk(first + (size_t)lane * (CHUNK / 16), c0 + next + lane);
			for (int o = 16; o > 0; o >>= 1)
				h += __shfl_xor_sync(0xffffffffu, h, o);
			if (lane == 0)
				atomicAdd(sum, (unsigned long long)h);
			next += want;
		}
	}
}

#define TRY(x)                                                                                 \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                                  \
		if (e_ != cudaSuccess) {                                                               \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                           \
			exit(1);                                                                           \
		}                                                                                      \
	} while (0)

int main(int argc, char **argv)
{
	const unsigned warps = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
	const int per_sm = argc > 2 ? atoi(argv[2]) : 4;
	const uint32_t batch = argc > 3 ? (uint32_t)atoi(argv[3]) : 32;
	const size_t bytes = (size_t)1 << 30;
	const uint32_t nchunks = (uint32_t)(bytes / CHUNK);
	int sms;
	TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	const uint32_t grid = (uint32_t)(sms * per_sm), per = (nchunks + grid - 1) / grid;
	uint4 *out;
	unsigned long long *sums;
	TRY(cudaMalloc(&out, bytes));
	TRY(cudaMalloc(&sums, 16));
	cudaEvent_t a, b;
	TRY(cudaEventCreate(&a));
	TRY(cudaEventCreate(&b));
	printf("1 GiB, %u chunks of 64 KiB, %u blocks (%d a multiprocessor) of %u writer warps, "
	       "hashed %u at a time\n", nchunks, grid, per_sm, warps, batch);
	unsigned long long want = 0;
	for (int way = 0; way < 4; way++) {
		float best = 1e9f;
		for (int r = 0; r < 6; r++) {
			TRY(cudaMemset(sums, 0, 16));
			TRY(cudaEventRecord(a));
			if (way == 2)
				writer_kernel<true, false><<<grid, (warps + 1) * 32>>>(out, nchunks, per, warps,
				                                                        batch, sums);
			else if (way == 3)
				writer_kernel<true, true><<<grid, (warps + 1) * 32>>>(out, nchunks, per, warps,
				                                                       32, sums);
			else
				writer_kernel<false, false><<<grid, warps * 32>>>(out, nchunks, per, warps, batch,
				                                                  sums);
			if (way == 1 && gpz_gpu_checksum((const uint8_t *)out, bytes, (uint64_t *)sums + 1,
			                                 NULL) != GPZ_OK)
				exit(1);
			TRY(cudaEventRecord(b));
			TRY(cudaEventSynchronize(b));
			float ms;
			TRY(cudaEventElapsedTime(&ms, a, b));
			if (r > 0 && ms < best)
				best = ms;
		}
		unsigned long long s[2];
		if (way == 0) { /* the library's sum of what the writer wrote, for the other ways */
			TRY(cudaMemset(sums, 0, 16));
			if (gpz_gpu_checksum((const uint8_t *)out, bytes, (uint64_t *)sums + 1, NULL) !=
			    GPZ_OK)
				exit(1);
		}
		TRY(cudaMemcpy(s, sums, 16, cudaMemcpyDeviceToHost));
		if (way == 0)
			want = s[1];
		unsigned long long got = way >= 2 ? s[0] : s[1];
		printf("%-12s %7.3f ms  %6.0f GB/s  sum %016llx %s\n",
		       way == 0 ? "write" : way == 1 ? "write, sum" : way == 2 ? "fused" : "fused, coop",
		       best, bytes / best / 1e6, got, got == want ? "(the library's)" : "DIFFERS");
	}
	return 0;
}
