/* match.cu - the LZ77 match stage on the GPU: tokens identical to the CPU's gpz_lz_parse.
 *
 * THIS IS THE CORRECT BASELINE, NOT THE FAST VERSION. One thread per piece runs the very code of
 * the CPU (match_core.h: hash chains, greedy / lazy parsing), with its matcher (head[] and
 * prev[], 256 KiB) in a slice of the global-memory workspace. Equality with the CPU is by
 * construction; speed is that of a few hundred latency-bound GPU threads chasing hash chains
 * through L1/L2, far below the CPU's. A fast version needs the parse restructured (many threads
 * per piece), and must be checked against this one.
 *
 * Each piece gets its own one-thread block, so that pieces spread over all SMs and each has as
 * much of an SM's L1 as possible for its chains. */
#include "gpu/gpu.h"
#include "gpu/cuda_check.h"
#include "lz/match_core.h"

namespace {

/* bytes of workspace per piece: the matcher, rounded up to 256 */
constexpr size_t SLOT = (sizeof(gpz_lz_matcher) + 255) / 256 * 256;

__global__ void __launch_bounds__(1)
lz_parse_kernel(const uint8_t *src, size_t n, int level, size_t piece, uint32_t *tokens,
                uint32_t *ntok, uint8_t *work)
{
	size_t p = blockIdx.x;
	size_t start = p * piece, end = n - start < piece ? n : start + piece;
	gpz_lz_matcher *m = reinterpret_cast<gpz_lz_matcher *>(work + p * SLOT);
	/* head[] and prev[] were set to 0xff bytes by cudaMemsetAsync */
	m->src = src;
	m->end = end;
	ntok[p] = (uint32_t)gpz_lz_core_parse(m, start, level, tokens + start);
}

} // namespace

extern "C" size_t gpz_gpu_lz_work(size_t n, size_t piece)
{
	if (piece == 0)
		return 0;
	return (n + piece - 1) / piece * SLOT;
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
	    npieces > 0x7fffffffu)
		return GPZ_ERR_PARAM;
	GPZ_CUDA_TRY(cudaMemsetAsync(d_work, 0xff, npieces * SLOT, st));
	lz_parse_kernel<<<(unsigned)npieces, 1, 0, st>>>(d_src, n, level, piece, d_tokens, d_ntok,
	                                                 static_cast<uint8_t *>(d_work));
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}
