/* match.cu - the LZ77 match stage on the GPU: tokens identical to the CPU's gpz_lz_parse.
 *
 * The CPU walks hash chains as its parse goes; here every position's matches are found at once
 * (they depend on the input alone, match_core.h), then one thread per piece runs the CPU's very
 * parse over them (gpz_lz_finder). Three kernels:
 *
 * 1. links: the chain link of every position (distance to the previous position with the same
 *    hash, 16 bits). One warp per 32 KiB segment: it replays the 32 KiB before the segment into
 *    a head table in shared memory (positions relative to the replay's start, 16 bits), then
 *    walks the segment 32 positions at a time; within a step, __match_any_sync finds lanes with
 *    the same hash, the lowest of them reads the head table, the others link to the lane before
 *    them, and the highest writes the head.
 * 2. find: one thread per position walks its chain (gpz_lz_pure_at) and stores both matches a
 *    level may use (full chain, quarter chain).
 * 3. run: one thread per piece runs the parse (gzip's greedy or lazy) over them. This part is
 *    serial per piece: cheap next to the searches (a few loads per token), but it bounds small
 *    inputs (few pieces).
 */
#include "gpu/gpu.h"
#include "gpu/cuda_check.h"
#include "lz/match_core.h"
#include "lz/match_gpu.h"

namespace {

constexpr unsigned SEG = GPZ_LZ_WINDOW; /* positions per links warp */

__global__ void __launch_bounds__(32)
links_kernel(const uint8_t *src, size_t n, size_t lo, size_t hi, uint16_t *links)
{
	extern __shared__ uint16_t head[]; /* 1 + position - base, 0 for none */
	const unsigned lane = threadIdx.x;
	const size_t s0 = lo + (size_t)blockIdx.x * SEG;
	const size_t s1 = hi - s0 < SEG ? hi : s0 + SEG;
	const size_t base = s0 - lo >= SEG ? s0 - SEG : lo;

	for (unsigned i = lane; i < GPZ_LZ_HASH_SIZE; i += 32)
		head[i] = 0;
	__syncwarp();
	for (size_t q0 = base; q0 < s1; q0 += 32) {
		const size_t q = q0 + lane;
		const bool valid = q < s1 && q + 3 <= n;
		const uint32_t h = valid ? gpz_lz_hash3(src + q) : GPZ_LZ_HASH_SIZE + lane;
		const unsigned same = __match_any_sync(0xffffffffu, h);
		const unsigned lower = same & ((1u << lane) - 1);
		uint16_t link = 0;
		if (valid) {
			uint32_t head_pos = GPZ_LZ_NIL;
			if (lower)
				head_pos = (uint32_t)(q0 - base) + 31 - __clz(lower);
			else if (head[h])
				head_pos = head[h] - 1u;
			link = gpz_lz_link(q - base, head_pos);
		}
		__syncwarp();
		/* the group's last lane moves the head; the very last position of a replay plus
		 * segment (1 + 65535 does not fit) is never read again */
		if (valid && !(same >> lane >> 1) && q - base < 0xffff)
			head[h] = (uint16_t)(q - base + 1);
		__syncwarp();
		if (q >= s0 && q < s1)
			links[q - lo] = link;
	}
}

__global__ void find_kernel(const uint8_t *src, size_t n, size_t piece, int level, size_t a,
                            size_t b, const uint16_t *links, size_t lo, uint32_t *pure)
{
	const size_t q = a + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (q >= b)
		return;
	const struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	const size_t pend = (q / piece + 1) * piece;
	uint32_t out[2];
	gpz_lz_pure_at(src, links, lo, q, pend < n ? pend : n, &cfg, out);
	reinterpret_cast<uint2 *>(pure)[q - a] = make_uint2(out[0], out[1]);
}

__global__ void __launch_bounds__(1)
run_kernel(const uint8_t *src, size_t n, size_t piece, int level, size_t p0,
           const uint32_t *pure, size_t a, uint32_t *tok, size_t tok_stride, uint32_t *ntok)
{
	const size_t p = p0 + blockIdx.x;
	const size_t start = p * piece, end = n - start < piece ? n : start + piece;
	struct gpz_lz_finder f;
	f.m = NULL;
	f.pure = pure;
	f.base = a;
	ntok[blockIdx.x] =
		(uint32_t)gpz_lz_core_run(&f, src, start, end, level, tok + blockIdx.x * tok_stride);
}

} // namespace

cudaError_t gpz_lz_gpu_links(const uint8_t *src, size_t n, size_t lo, size_t hi, uint16_t *links,
                             cudaStream_t s)
{
	const size_t smem = GPZ_LZ_HASH_SIZE * sizeof(uint16_t);
	static_assert(GPZ_LZ_HASH_SIZE * sizeof(uint16_t) == 65536, "head table size");
	if (hi <= lo)
		return cudaSuccess;
	cudaError_t e = cudaFuncSetAttribute(links_kernel,
	                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
	if (e != cudaSuccess)
		return e;
	links_kernel<<<(unsigned)((hi - lo + SEG - 1) / SEG), 32, smem, s>>>(src, n, lo, hi, links);
	return cudaGetLastError();
}

cudaError_t gpz_lz_gpu_find(const uint8_t *src, size_t n, size_t piece, int level, size_t a,
                            size_t b, const uint16_t *links, size_t lo, uint32_t *pure,
                            cudaStream_t s)
{
	if (b <= a)
		return cudaSuccess;
	find_kernel<<<(unsigned)((b - a + 127) / 128), 128, 0, s>>>(src, n, piece, level, a, b, links,
	                                                          lo, pure);
	return cudaGetLastError();
}

cudaError_t gpz_lz_gpu_run(const uint8_t *src, size_t n, size_t piece, int level, size_t p0,
                           size_t p1, const uint32_t *pure, size_t a, uint32_t *tok,
                           size_t tok_stride, uint32_t *ntok, cudaStream_t s)
{
	if (p1 <= p0)
		return cudaSuccess;
	run_kernel<<<(unsigned)(p1 - p0), 1, 0, s>>>(src, n, piece, level, p0, pure, a, tok,
	                                             tok_stride, ntok);
	return cudaGetLastError();
}

/* ---- gpz_gpu_lz_parse (gpu.h) ---- */

namespace {

size_t a256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

} // namespace

extern "C" size_t gpz_gpu_lz_work(size_t n, size_t piece)
{
	if (piece == 0)
		return 0;
	return a256(n * sizeof(uint16_t)) + a256(2 * n * sizeof(uint32_t));
}

extern "C" gpz_result gpz_gpu_lz_parse(const uint8_t *d_src, size_t n, int level, size_t piece,
                                       uint32_t *d_tokens, uint32_t *d_ntok, void *d_work,
                                       size_t work_bytes, gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (piece == 0 || piece > UINT32_MAX)
		return GPZ_ERR_PARAM;
	if (n == 0)
		return GPZ_OK;
	size_t npieces = (n + piece - 1) / piece;
	if (!d_src || !d_tokens || !d_ntok || !d_work || work_bytes < gpz_gpu_lz_work(n, piece) ||
	    npieces > 0x7fffffffu || (reinterpret_cast<uintptr_t>(d_work) & 255))
		return GPZ_ERR_PARAM;
	uint8_t *w = static_cast<uint8_t *>(d_work);
	uint16_t *links = reinterpret_cast<uint16_t *>(w);
	uint32_t *pure = reinterpret_cast<uint32_t *>(w + a256(n * sizeof(uint16_t)));
	GPZ_CUDA_TRY(gpz_lz_gpu_links(d_src, n, 0, n, links, st));
	GPZ_CUDA_TRY(gpz_lz_gpu_find(d_src, n, piece, level, 0, n, links, 0, pure, st));
	GPZ_CUDA_TRY(gpz_lz_gpu_run(d_src, n, piece, level, 0, npieces, pure, 0, d_tokens, piece,
	                            d_ntok, st));
	return GPZ_OK;
}
