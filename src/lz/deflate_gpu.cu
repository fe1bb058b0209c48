/* deflate_gpu.cu - raw DEFLATE streams on the GPU, bit for bit those of the CPU's
 * gpz_deflate_compress.
 *
 * The input is cut into pieces of GPZ_DEFLATE_PIECE bytes exactly as deflate_stream.c cuts a
 * one-shot stream. The LZ77 tokens come from match.cu's stages (every position's matches in
 * parallel, then the CPU's parse per piece, with the 32 KiB before the piece as history); then one
 * GPU thread per piece (its own one-thread block) runs the CPU's block writer of deflate_core.h
 * into a private slot of the workspace: that part is still the baseline. A one-thread kernel then lays the pieces'
 * bit lengths end to end (the pieces are few: one per MiB), and a join kernel builds every output
 * byte from the one or two pieces whose bits it holds (LSB-first, as deflate_stream.c's
 * append_bits, with the same empty stored block before a piece whose stored blocks would
 * otherwise start mid-byte: gpz_dfl_marker_bits). Only the last piece carries BFINAL.
 *
 * Pieces go in batches of at most BATCH, so the workspace (chain links, matches, tokens, scratch
 * and output slots: about 16 MiB a piece) stays bounded for large inputs; a batch's first output byte may
 * hold the previous batch's last bits, so the join ORs into it.
 */
#include "gpu/gpu.h"
#include "gpu/cuda_check.h"
#include "lz/deflate_core.h"
#include "lz/match_gpu.h"

namespace {

constexpr size_t PIECE = GPZ_DEFLATE_PIECE;
constexpr size_t BATCH = 1024; /* pieces per batch */

constexpr size_t a256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

constexpr size_t SSLOT = a256(sizeof(gpz_dfl_scratch));

/* The bit writer's capacity per piece (the CPU's) and the slot around it (the partial last byte
 * goes after the whole ones). */
size_t piece_cap()
{
	return gpz_dfl_piece_cap(PIECE);
}
size_t out_slot()
{
	return a256(piece_cap() + 16);
}

struct layout {
	size_t np, nb; /* pieces, pieces per batch */
	size_t tab, bits, off, res, stored, mk, ntok, links, pure, tok, scratch, slots, total;
};

layout layout_for(size_t n)
{
	layout l;
	l.np = n ? (n - 1) / PIECE + 1 : 1;
	l.nb = l.np < BATCH ? l.np : BATCH;
	l.tab = 0;
	l.bits = l.tab + a256(GPZ_DFL_LOG_TAB * sizeof(uint32_t));
	l.off = l.bits + a256(l.np * sizeof(uint64_t));
	l.res = l.off + a256((l.np + 1) * sizeof(uint64_t));
	l.stored = l.res + a256(l.np * sizeof(int));
	l.mk = l.stored + a256(l.np * sizeof(int));
	l.ntok = l.mk + a256(l.np);
	l.links = l.ntok + a256(l.nb * sizeof(uint32_t));
	l.pure = l.links + a256((l.nb * PIECE + GPZ_LZ_WINDOW) * sizeof(uint16_t));
	l.tok = l.pure + a256(l.nb * PIECE * 2 * sizeof(uint32_t));
	l.scratch = l.tok + a256(l.nb * PIECE * sizeof(uint32_t));
	l.slots = l.scratch + l.nb * SSLOT;
	l.total = l.slots + l.nb * out_slot();
	return l;
}

__global__ void log_tab_kernel(uint32_t *tab)
{
	unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
	gpz_dfl_log_fill(tab, x, x + 1);
}

/* Piece b0 + blockIdx.x, in slot blockIdx.x of the batch, from its tokens. */
__global__ void __launch_bounds__(1)
piece_kernel(const uint8_t *src, size_t n, size_t b0, uint8_t *work, layout l, size_t cap,
             size_t oslot)
{
	size_t q = blockIdx.x, p = b0 + q;
	int res = 0, stored = 0;
	uint64_t bits = gpz_dfl_piece(
		src, n, p, reinterpret_cast<const uint32_t *>(work + l.tok) + q * PIECE,
		reinterpret_cast<const uint32_t *>(work + l.ntok)[q],
		reinterpret_cast<gpz_dfl_scratch *>(work + l.scratch + q * SSLOT),
		reinterpret_cast<const uint32_t *>(work + l.tab), work + l.slots + q * oslot, cap, &res,
		&stored);
	reinterpret_cast<uint64_t *>(work + l.bits)[p] = bits;
	reinterpret_cast<int *>(work + l.res)[p] = res;
	reinterpret_cast<int *>(work + l.stored)[p] = stored;
}

/* Bit offsets of the batch's pieces after everything before, each piece with stored blocks that
 * would start mid-byte preceded by its marker (as deflate_stream.c's join); the first failure
 * wins. */
__global__ void scan_kernel(uint8_t *work, layout l, size_t b0, size_t nb, size_t out_cap,
                            gpz_gpu_deflate_status *st)
{
	const uint64_t *bits = reinterpret_cast<const uint64_t *>(work + l.bits);
	const int *res = reinterpret_cast<const int *>(work + l.res);
	const int *stored = reinterpret_cast<const int *>(work + l.stored);
	uint64_t *off = reinterpret_cast<uint64_t *>(work + l.off);
	uint8_t *mk = work + l.mk;
	uint64_t total = st->bits;
	for (size_t p = b0; p < b0 + nb; p++) {
		if (res[p] != GPZ_OK && st->result == GPZ_OK)
			st->result = res[p];
		mk[p] = (uint8_t)gpz_dfl_marker_bits(total, stored[p]);
		off[p] = total;
		total += mk[p] + bits[p];
	}
	off[b0 + nb] = total;
	if ((total + 7) / 8 > out_cap && st->result == GPZ_OK)
		st->result = GPZ_ERR_DST_TOO_SMALL;
	st->bits = total;
}

__global__ void join_kernel(const uint8_t *work, layout l, size_t b0, size_t nb, size_t oslot,
                            uint8_t *out, const gpz_gpu_deflate_status *st)
{
	if (st->result != GPZ_OK)
		return;
	const uint64_t *off = reinterpret_cast<const uint64_t *>(work + l.off) + b0;
	uint64_t j0 = off[0] / 8, j1 = (off[nb] + 7) / 8;
	for (uint64_t j = j0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < j1;
	     j += (uint64_t)gridDim.x * blockDim.x) {
		uint8_t v = gpz_dfl_join_byte(work + l.slots, oslot, off, work + l.mk + b0, nb, j);
		if (8 * j < off[0])
			out[j] |= v; /* the previous batch's last bits are there */
		else
			out[j] = v;
	}
}

} // namespace

extern "C" size_t gpz_gpu_deflate_work(size_t n)
{
	return layout_for(n).total;
}

extern "C" size_t gpz_gpu_deflate_raw_bound(size_t n)
{
	return layout_for(n).np * (piece_cap() + 8); /* + a marker of at most 6 bytes */
}

extern "C" gpz_result gpz_gpu_deflate_raw(const uint8_t *d_src, size_t n, int level,
                                          uint8_t *d_out, size_t out_cap,
                                          gpz_gpu_deflate_status *d_status, void *d_work,
                                          size_t work_bytes, gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	layout l = layout_for(n);
	uint8_t *work = static_cast<uint8_t *>(d_work);
	size_t cap = piece_cap(), oslot = out_slot();

	if (level < 1 || level > 9 || (!d_src && n) || !d_out || !d_status || !d_work ||
	    work_bytes < l.total || (reinterpret_cast<uintptr_t>(d_work) & 255))
		return GPZ_ERR_PARAM;
	GPZ_CUDA_TRY(cudaMemsetAsync(d_status, 0, sizeof(*d_status), s));
	log_tab_kernel<<<GPZ_DFL_LOG_TAB / 256, 256, 0, s>>>(reinterpret_cast<uint32_t *>(work + l.tab));
	GPZ_LAUNCH_TRY();
	for (size_t b0 = 0; b0 < l.np; b0 += l.nb) {
		size_t nb = l.np - b0 < l.nb ? l.np - b0 : l.nb;
		size_t blocks = (nb * (cap + 8) + 255) / 256;
		size_t a = b0 * PIECE, b = n - a < nb * PIECE ? n : a + nb * PIECE;
		size_t lo = a < GPZ_LZ_WINDOW ? 0 : a - GPZ_LZ_WINDOW;
		uint16_t *links = reinterpret_cast<uint16_t *>(work + l.links);
		uint32_t *pure = reinterpret_cast<uint32_t *>(work + l.pure);
		GPZ_CUDA_TRY(gpz_lz_gpu_links(d_src, n, lo, b, links, s));
		GPZ_CUDA_TRY(gpz_lz_gpu_find(d_src, n, PIECE, level, a, b, links, lo, pure, s));
		GPZ_CUDA_TRY(gpz_lz_gpu_run(d_src, n, PIECE, level, b0, b0 + nb, pure, a,
		                            reinterpret_cast<uint32_t *>(work + l.tok), PIECE,
		                            reinterpret_cast<uint32_t *>(work + l.ntok), s));
		piece_kernel<<<(unsigned)nb, 1, 0, s>>>(d_src, n, b0, work, l, cap, oslot);
		GPZ_LAUNCH_TRY();
		scan_kernel<<<1, 1, 0, s>>>(work, l, b0, nb, out_cap, d_status);
		GPZ_LAUNCH_TRY();
		join_kernel<<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, s>>>(work, l, b0, nb,
		                                                                      oslot, d_out,
		                                                                      d_status);
		GPZ_LAUNCH_TRY();
	}
	return GPZ_OK;
}

namespace {

struct host_call {
	cudaStream_t s = 0;
	uint8_t *src = NULL, *out = NULL, *small = NULL;
	void *work = NULL;
	~host_call()
	{
		if (s)
			cudaStreamSynchronize(s);
		cudaFree(src);
		cudaFree(out);
		cudaFree(small);
		cudaFree(work);
		if (s)
			cudaStreamDestroy(s);
	}
};

} // namespace

extern "C" gpz_result gpz_gpu_deflate_host(const void *src, size_t n, int level, int check_kind,
                                           void *dst, size_t dst_cap, size_t *written,
                                           uint32_t *check)
{
	host_call c;
	size_t work_bytes = gpz_gpu_deflate_work(n), out_cap = gpz_gpu_deflate_raw_bound(n);
	gpz_gpu_deflate_status status;
	uint32_t sum = 0;

	if ((!src && n) || (!dst && dst_cap) || !written || level < 1 || level > 9 ||
	    check_kind < GPZ_GPU_CHECK_NONE || check_kind > GPZ_GPU_CHECK_ADLER32)
		return GPZ_ERR_PARAM;
	*written = 0;
	GPZ_CUDA_TRY(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
	GPZ_CUDA_TRY(cudaMalloc(&c.src, n ? n : 1));
	GPZ_CUDA_TRY(cudaMalloc(&c.out, out_cap));
	GPZ_CUDA_TRY(cudaMalloc(&c.small, 256));
	GPZ_CUDA_TRY(cudaMalloc(&c.work, work_bytes));
	if (n)
		GPZ_CUDA_TRY(cudaMemcpyAsync(c.src, src, n, cudaMemcpyHostToDevice, c.s));
	gpz_gpu_deflate_status *d_status = reinterpret_cast<gpz_gpu_deflate_status *>(c.small);
	uint32_t *d_check = reinterpret_cast<uint32_t *>(c.small + 128);
	gpz_result r = gpz_gpu_deflate_raw(c.src, n, level, c.out, out_cap, d_status, c.work,
	                                   work_bytes, (gpz_stream_t)c.s);
	if (r == GPZ_OK && check_kind == GPZ_GPU_CHECK_CRC32)
		r = gpz_gpu_crc32(c.src, n, d_check, (gpz_stream_t)c.s);
	else if (r == GPZ_OK && check_kind == GPZ_GPU_CHECK_ADLER32)
		r = gpz_gpu_adler32(c.src, n, d_check, (gpz_stream_t)c.s);
	if (r != GPZ_OK)
		return r;
	GPZ_CUDA_TRY(cudaMemcpyAsync(&status, d_status, sizeof(status), cudaMemcpyDeviceToHost, c.s));
	if (check_kind != GPZ_GPU_CHECK_NONE)
		GPZ_CUDA_TRY(cudaMemcpyAsync(&sum, d_check, 4, cudaMemcpyDeviceToHost, c.s));
	GPZ_CUDA_TRY(cudaStreamSynchronize(c.s));
	if (status.result != GPZ_OK)
		return (gpz_result)status.result;
	size_t bytes = (size_t)((status.bits + 7) / 8);
	if (bytes > dst_cap)
		return GPZ_ERR_DST_TOO_SMALL;
	GPZ_CUDA_TRY(cudaMemcpyAsync(dst, c.out, bytes, cudaMemcpyDeviceToHost, c.s));
	GPZ_CUDA_TRY(cudaStreamSynchronize(c.s));
	*written = bytes;
	if (check)
		*check = sum;
	return GPZ_OK;
}
