/*
 * frame_gpu.cu - frames on the GPU backend: the same plan (frame_plan.c) and the same bytes as
 * the CPU backend, with the histogram, encoder, decoder and checksums run on the device.
 *
 * Compressing a frame synchronises the stream once after the histogram: the codebook and the
 * frame layout are decided on the host from the counts (copying them is a few KiB for
 * quantization codes), exactly as the CPU backend decides them. Everything else is queued on the
 * stream, except the content checksum, which runs on a side stream of the context's (it only
 * reads the input) so that it overlaps the histogram, the planning and the encoder; the caller's
 * stream waits for it through an event. Decompressing copies the frame's header, codebook and
 * chunk index to the host to validate them and build the decoder tables, then decodes and
 * checksums on the device (the one-bitstream layout's chunk starts are summed there too, from
 * the index in the frame: the decoder checks each chunk's length, the host their total).
 *
 * LZ mode (gpz_params.lz_level > 0, type-4 deflate frames) is not coded here: frame_write.c
 * codes its pieces (deflate/batch.c, on the GPU when there is one), and the device-buffer
 * compress call stages such frames through host memory. They decode here: a warp a piece
 * (deflate/inflate.cu), straight into the output, then the checksum on the device.
 */
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "common/context.h"
#include "container/frame_gpu.h"
#include "container/frame.h"
#include "common/bits.h"
#include "common/checksum.h"
}
#include "common/xxh64.h"
#include "common/checksum_gpu.h"
#include "gpu/gpu.h"
#include "huffman/huffman_gpu.h"
#include "deflate/deflate_gpu.h"
#include "gpu/cuda_check.h"
#include "container/frame_lzsym_gpu.h"

/* ---- small kernels ---- */

__global__ void store_le64_kernel(uint8_t *dst, const uint64_t *v)
{
	for (int i = 0; i < 8; i++)
		dst[i] = (uint8_t)(*v >> (8 * i));
}

/* starts[0] = 0 and starts[c + 1] = starts[c] + index[c], from a frame's chunk index on the
 * device (4-byte little-endian lengths at any alignment): one block, STARTS_ITEMS entries a
 * thread a tile, the sum carried from tile to tile. Then *bad = 1 unless the total fills the
 * payload's bytes with zero padding after it (`last`: its last byte); the decoder's reads stay
 * inside the payload whatever the starts, so the verdict may wait for the frame's end. */
#define STARTS_THREADS 1024
#define STARTS_ITEMS 8
__global__ void __launch_bounds__(STARTS_THREADS)
index_starts_kernel(const uint8_t *index, uint64_t nchunks, uint64_t *starts, uint64_t payload,
                    const uint8_t *last, uint32_t *bad)
{
	typedef cub::BlockScan<uint64_t, STARTS_THREADS> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	__shared__ uint64_t carry;
	if (threadIdx.x == 0) {
		starts[0] = 0;
		carry = 0;
	}
	__syncthreads();
	for (uint64_t base = 0; base < nchunks; base += STARTS_THREADS * STARTS_ITEMS) {
		const uint64_t first = base + (uint64_t)threadIdx.x * STARTS_ITEMS;
		uint64_t v[STARTS_ITEMS];
#pragma unroll
		for (int k = 0; k < STARTS_ITEMS; k++)
			v[k] = first + k < nchunks ? gpz_load_le32(index + 4 * (first + k)) : 0;
		scan_t(tmp).InclusiveSum(v, v);
		const uint64_t c0 = carry;
#pragma unroll
		for (int k = 0; k < STARTS_ITEMS; k++)
			if (first + k < nchunks)
				starts[first + k + 1] = c0 + v[k];
		__syncthreads(); /* every thread has read carry and is done with tmp */
		if (threadIdx.x == STARTS_THREADS - 1)
			carry = c0 + v[STARTS_ITEMS - 1];
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		const uint64_t total = carry;
		bool ok = (total + 7) / 8 == payload;
		if (ok && payload) /* the padding bits below the last byte's used ones */
			ok = gpz_frame_padding_ok(*last, payload, total);
		*bad = !ok;
	}
}

__global__ void fill_kernel(uint8_t *dst, size_t n, int w, uint32_t v)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		for (int b = 0; b < w; b++)
			dst[i * w + b] = (uint8_t)(v >> (8 * b));
}

extern "C" gpz_result gpz_gpu_fill(uint8_t *d_dst, size_t n, int w, uint32_t v,
                                   gpz_stream_t stream)
{
	fill_kernel<<<1024, 256, 0, (cudaStream_t)stream>>>(d_dst, n, w, v);
	return gpz_cuda_result(cudaGetLastError());
}

/* ---- compress ---- */

struct enc_layout {
	size_t counts, stats, table, chunk_bits, sum, lens, codebook, encode, total;
};

/* Alphabets from this size up get their code lengths from the GPU codebook (codebook.cu): below
 * it, copying the counts and building on the host is faster (bench/results: about 20-45 us on an
 * H200 for up to ~1000 symbols against 31-48 us on the GPU; the host's sort grows to
 * milliseconds at 65536 symbols, the GPU's stays under 300 us). */
#define GPU_CODEBOOK_MIN_ALPHABET 4096u

static enc_layout layout_for(size_t n, int w, int chunk_log)
{
	enc_layout l;
	size_t limit = gpz_alphabet_limit(w);
	size_t nchunks = (n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
	l.counts = 0;
	l.stats = l.counts + gpz_align256(limit * 4);
	l.table = l.stats + 256;
	l.chunk_bits = l.table + gpz_align256(limit * 4);
	l.sum = l.chunk_bits + gpz_align256(nchunks * 4);
	l.lens = l.sum + 256;
	l.codebook = l.lens + gpz_align256(limit + 8);
	l.encode = l.codebook + gpz_align256(gpz_gpu_code_lengths_work((uint32_t)limit));
	size_t enc = gpz_gpu_encode_work(n, chunk_log, GPZ_MAX_CODE_LEN);
	size_t lanes = gpz_gpu_encode_lanes_work(n, chunk_log);
	l.total = l.encode + gpz_align256(enc > lanes ? enc : lanes);
	return l;
}

/* Queue the Huffman payload and chunk index of a planned frame into d_dst. The encoder writes
 * the payload in place (it may spill up to 3 bytes into the content checksum, stored later).
 * The lanes layout's encoder returns its size (a synchronisation): the plan's offsets from the
 * checksum on and the header's payload field follow it. */
static gpz_result encode_on_device(struct gpz_gpu *g, struct gpz_frame_plan *pl,
                                   const uint8_t *d_src, uint8_t *d_dst, const enc_layout &l,
                                   cudaStream_t s)
{
	uint32_t *d_table = (uint32_t *)(g->work + l.table);
	uint32_t *d_bits = (uint32_t *)(g->work + l.chunk_bits);
	uint64_t words = 0;
	gpz_result r;

	GPZ_CUDA_TRY(cudaMemcpyAsync(d_table, pl->table, pl->alphabet * 4, cudaMemcpyHostToDevice, s));
	if (pl->lanes) {
		r = gpz_gpu_encode_lanes(d_src, pl->n, pl->w, d_table, pl->chunk_log, d_bits,
		                         d_dst + pl->payload_at, pl->payload, &words,
		                         g->work + l.encode, l.total - l.encode, (gpz_stream_t)s);
		if (r != GPZ_OK)
			return r;
		gpz_frame_plan_set_payload(pl, (size_t)(4 * words));
		GPZ_CUDA_TRY(cudaMemcpyAsync(d_dst, pl->head, GPZ_FRAME_HEADER_SIZE,
		                             cudaMemcpyHostToDevice, s));
	} else {
		r = gpz_gpu_encode(d_src, pl->n, pl->w, d_table, pl->alphabet, pl->max_len,
		                   pl->chunk_log, d_bits, d_dst + pl->payload_at, g->work + l.encode,
		                   l.total - l.encode, (gpz_stream_t)s);
		if (r != GPZ_OK)
			return r;
	}
	GPZ_CUDA_TRY(cudaMemcpyAsync(d_dst + pl->index_at, d_bits, (size_t)pl->nchunks * 4,
	                             cudaMemcpyDeviceToDevice, s));
	return GPZ_OK;
}

/* Code lengths from the GPU codebook; *lens stays NULL (the host builds them) when fewer than
 * two symbols occur or the lengths exceed the limit (package-merge runs on the host then). */
static gpz_result gpu_lengths(struct gpz_gpu *g, const uint32_t *d_counts, uint32_t alphabet,
                              const enc_layout &l, uint8_t **lens, cudaStream_t s)
{
	uint8_t *d_len = g->work + l.lens;
	int *d_max = (int *)(g->work + l.sum + 8); /* spare bytes of the checksum's slot */
	int max_len = -1;
	gpz_result r = gpz_gpu_code_lengths(d_counts, alphabet, d_len, d_max, g->work + l.codebook,
	                         l.encode - l.codebook, (gpz_stream_t)s);
	if (r == GPZ_OK)
		r = gpz_cuda_d2h(&max_len, d_max, sizeof(max_len), s);
	if (r != GPZ_OK || max_len < 1 || max_len > GPZ_MAX_CODE_LEN)
		return r;
	*lens = (uint8_t *)malloc(alphabet);
	if (!*lens)
		return GPZ_ERR_NOMEM;
	r = gpz_cuda_d2h(*lens, d_len, alphabet, s);
	if (r != GPZ_OK) {
		free(*lens);
		*lens = NULL;
	}
	return r;
}

/* Histogram on the device, counts to the host, plan on the host; the counts and alphabet come
 * back too when `hist` is not NULL (the caller frees them). */
static gpz_result plan_on_device(struct gpz_gpu *g, const gpz_params *p, const uint8_t *d_src,
                                 size_t n, const enc_layout &l, struct gpz_frame_plan *pl,
                                 uint32_t **hist, uint32_t *nhist, cudaStream_t s)
{
	uint32_t *d_counts = (uint32_t *)(g->work + l.counts);
	uint32_t *d_stats = (uint32_t *)(g->work + l.stats);
	uint32_t *stats = (uint32_t *)g->pinned, alphabet;
	gpz_result r = gpz_gpu_histogram(d_src, n, p->symbol_bytes, d_counts, d_stats,
	                                 (gpz_stream_t)s);
	if (r != GPZ_OK)
		return r;
	GPZ_CUDA_TRY(cudaMemcpyAsync(stats, d_stats, 8, cudaMemcpyDeviceToHost, s));
	GPZ_CUDA_TRY(cudaStreamSynchronize(s));
	if (stats[1])
		return GPZ_ERR_ALPHABET;
	alphabet = stats[0] + 1;
	uint32_t *counts = (uint32_t *)malloc(alphabet * sizeof(uint32_t));
	uint8_t *lens = NULL;
	if (!counts)
		return GPZ_ERR_NOMEM;
	if (alphabet >= GPU_CODEBOOK_MIN_ALPHABET)
		r = gpu_lengths(g, d_counts, alphabet, l, &lens, s);
	if (r == GPZ_OK)
		r = gpz_cuda_d2h(counts, d_counts, alphabet * 4, s);
	if (r == GPZ_OK)
		r = gpz_frame_plan_make(pl, p, counts, alphabet, n, lens);
	if (r == GPZ_OK && hist) {
		*hist = counts;
		*nhist = alphabet;
	} else {
		free(counts);
	}
	free(lens);
	return r;
}

/* The header check covers the header, codebook and chunk index: XXH64 is a serial chain, so it
 * is computed on the host (a GPU thread would need ~0.3 ms for the 128 KiB index of a 1 GiB
 * frame); the index comes back after the encoder, with the frame's one final synchronisation. */
static gpz_result store_header_check(struct gpz_gpu *g, uint8_t *d_dst,
                                     const struct gpz_frame_plan *pl, cudaStream_t s)
{
	/* in pinned staging (the frame's final synchronisation comes before its next use) */
	gpz_result r = gpz_gpu_host_reserve(g, pl->check_at + GPZ_CHECK_SIZE);
	uint8_t *h = g->host;

	if (r == GPZ_OK) {
		memcpy(h, pl->head, pl->head_bytes);
		r = gpz_cuda_d2h(h + pl->index_at, d_dst + pl->index_at, pl->check_at - pl->index_at, s);
	}
	if (r == GPZ_OK) {
		gpz_store_le32(h + pl->check_at, gpz_header_check(h, pl->check_at));
		r = gpz_cuda_result(cudaMemcpyAsync(d_dst + pl->check_at, h + pl->check_at,
		                                    GPZ_CHECK_SIZE, cudaMemcpyHostToDevice, s));
	}
	return r;
}

/* Compress one frame from device memory into device memory (frame_gpu.h). */
extern "C" gpz_result gpz_gpu_frame_compress_dev(struct gpz_gpu *g, const gpz_params *p,
                                                 const uint8_t *d_src, size_t size,
                                                 uint8_t *d_dst, size_t cap, size_t *written,
                                                 gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	size_t n = size / (size_t)p->symbol_bytes;
	enc_layout l = layout_for(n, p->symbol_bytes, p->chunk_log);
	struct gpz_frame_plan pl;
	gpz_result r = gpz_gpu_reserve(&g->work, &g->work_cap, l.total);

	memset(&pl, 0, sizeof(pl));
	/* The content checksum only reads the input: it runs on a side stream, overlapping the
	 * histogram, the host's planning and the encoder; s waits for it before storing the sum.
	 * An LZ-symbol attempt takes the workspace and sums the input itself: the sum waits for
	 * its outcome. (Queued after the histogram instead, so as not to share its bandwidth, it
	 * slowed the encoder more: 1 GiB of Nyx-Quant on an H100, 1.91 -> 2.02 ms.) */
	bool side = false;
	if (r == GPZ_OK && !p->lz_symbols)
		r = gpz_cuda_result(cudaEventRecord(g->in_ready, s));
	if (r == GPZ_OK && !p->lz_symbols)
		r = gpz_cuda_result(cudaStreamWaitEvent(g->side, g->in_ready, 0));
	if (r == GPZ_OK && !p->lz_symbols)
		r = gpz_gpu_checksum(d_src, size, (uint64_t *)(g->work + l.sum), (gpz_stream_t)g->side);
	if (r == GPZ_OK && !p->lz_symbols) {
		side = true;
		r = gpz_cuda_result(cudaEventRecord(g->sum_done, g->side));
	}
	uint32_t *hist = NULL, alphabet = 0;
	if (r == GPZ_OK)
		r = plan_on_device(g, p, d_src, n, l, &pl, p->lz_symbols ? &hist : NULL,
		                   &alphabet, s);
	/* an LZ-symbol frame where asked for, as compress_cpu (frame_write.c) decides */
	if (r == GPZ_OK && p->lz_symbols && pl.type != GPZ_FRAME_CONSTANT &&
	    alphabet + GPZ_LZS_EXTRA <= GPZ_MAX_ALPHABET) {
		size_t beat = p->lz_symbols == GPZ_LZS_AUTO ? pl.total : GPZ_FRAME_FIXED + size;
		r = gpz_lzs_frame_write_gpu(g, p, d_src, n, hist, alphabet, beat, d_dst, cap, written,
		                            (gpz_stream_t)s);
		if (r != GPZ_OK || *written) {
			gpz_frame_plan_free(&pl);
			free(hist);
			return r;
		}
		/* not smaller: the plan goes on, in a workspace the attempt has written over */
		r = gpz_gpu_reserve(&g->work, &g->work_cap, l.total);
	}
	if (r == GPZ_OK && !side) /* after the LZ-symbol attempt, in order on s */
		r = gpz_gpu_checksum(d_src, size, (uint64_t *)(g->work + l.sum), (gpz_stream_t)s);
	free(hist);
	if (r == GPZ_OK && pl.total > cap)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK) {
		cudaError_t e = cudaMemcpyAsync(d_dst, pl.head, pl.head_bytes, cudaMemcpyHostToDevice, s);
		r = gpz_cuda_result(e);
	}
	if (r == GPZ_OK && pl.type == GPZ_FRAME_HUFFMAN)
		r = encode_on_device(g, &pl, d_src, d_dst, l, s);
	if (r == GPZ_OK && pl.type == GPZ_FRAME_STORED)
		r = gpz_cuda_result(cudaMemcpyAsync(d_dst + pl.payload_at, d_src, size,
		                                    cudaMemcpyDeviceToDevice, s));
	if (r == GPZ_OK && side)
		r = gpz_cuda_result(cudaStreamWaitEvent(s, g->sum_done, 0));
	if (r == GPZ_OK) {
		store_le64_kernel<<<1, 1, 0, s>>>(d_dst + pl.sum_at, (uint64_t *)(g->work + l.sum));
		r = gpz_cuda_result(cudaGetLastError());
	}
	if (r == GPZ_OK)
		r = store_header_check(g, d_dst, &pl, s);
	/* The frame is complete here; errors of queued work surface at this point. */
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamSynchronize(s));
	if (r != GPZ_OK && side)
		cudaStreamSynchronize(g->side); /* nothing may still use the workspace or the input */
	if (r == GPZ_OK)
		*written = pl.total;
	gpz_frame_plan_free(&pl);
	return r;
}

/* ---- decompress ---- */

/* Validate and decode one frame from device memory; the stored checksum comes back in *sum.
 * h_src, when not NULL, is the same frame in host memory: its header, index and checksum are
 * read there instead of being copied back from the device. */
/* Workspace of a deflate frame of nchunks pieces: offsets, results, then the checksum. */
static size_t lz_sum_at(uint64_t nchunks)
{
	return gpz_align256((nchunks + 1) * 8) + gpz_align256(nchunks * sizeof(gpz_gpu_infl_res));
}

/* Where chained pieces' 16-bit symbols go in g->work: after the checksum's 256 bytes (its
 * count of window symbols before the batch, always 0 here, 64 bytes in, and the window pass's
 * word for skipping the joins of its segments after it). */
static size_t lz_sym_at(uint64_t nchunks)
{
	return lz_sum_at(nchunks) + 256;
}

/* A deflate (LZ-mode) frame's pieces, a warp each, into d_dst, queued without a wait: the
 * pieces' starts (made in pinned memory at starts, np + 1 of them) sent, the decode, its
 * results copied to res (pinned, np of them) and, for pieces chained in groups
 * (16-bit symbols first), the pass resolving their references into the piece before. The pass
 * reads only the frame's own sizes, and stays inside its buffers whatever a corrupt piece left;
 * lz_results_ok then checks the results once the stream is synchronised. */
static gpz_result lz_pieces_dev(struct gpz_gpu *g, const uint8_t *head, const gpz_block_info *in,
                                const uint8_t *d_payload, uint64_t payload, uint8_t *d_dst,
                                gpz_gpu_infl_res *res, uint64_t *starts, cudaStream_t s)
{
	uint64_t n = in->content_bytes, np = gpz_frame_chunks(n, in->chunk_log);
	size_t ps = (size_t)1 << in->chunk_log, res_at = gpz_align256((np + 1) * 8);
	int gl = in->max_code_len;
	gpz_result r = gpz_lz_piece_starts(head + GPZ_FRAME_HEADER_SIZE, n, in->chunk_log, payload,
	                                   starts);
	/* then the symbols of chained pieces, and the decoder's room */
	size_t room_at = lz_sym_at(np) + (gl ? gpz_align256(n * 2) : 0);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->work, &g->work_cap,
		                    room_at + gpz_align256(gpz_gpu_inflate_room(np, ps)));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->work, starts, (size_t)(np + 1) * 8,
		                                    cudaMemcpyHostToDevice, s));
	uint16_t *sym = (uint16_t *)(g->work + lz_sym_at(np));
	if (r == GPZ_OK)
		r = gpz_gpu_inflate_pieces(d_payload, (const uint64_t *)g->work, (size_t)np, ps,
		                           (size_t)n,
		                           GPZ_GPU_INFL_STRICT |
		                               (gl ? GPZ_GPU_INFL_SYMBOLS | GPZ_GPU_INFL_GROUP(gl) : 0),
		                           gl ? (void *)sym : (void *)d_dst, g->work + room_at,
		                           (gpz_gpu_infl_res *)(g->work + res_at), (gpz_stream_t)s);
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(res, g->work + res_at, (size_t)np * sizeof(*res),
		                                    cudaMemcpyDeviceToHost, s));
	if (r == GPZ_OK && gl) {
		uint32_t *count = (uint32_t *)(g->work + lz_sum_at(np) + 64);
		r = gpz_cuda_result(cudaMemsetAsync(count, 0, sizeof(*count), s));
		if (r == GPZ_OK) /* no window before a group: nothing is listed */
			r = gpz_gpu_inflate_resolve(sym, (size_t)n, NULL, ps, NULL, d_dst, NULL, 0, count,
			                            count + 1, (gpz_stream_t)s);
	}
	return r;
}

/* The pieces' results as the CPU's reader requires them: each piece whole DEFLATE of exactly its
 * bytes, ending where that reader requires (BFINAL at a group's end, a block boundary elsewhere;
 * the bits before a stored block's length zero: GPZ_GPU_INFL_STRICT), of exactly its size; any
 * fault is GPZ_ERR_CORRUPT, as there. */
static gpz_result lz_results_ok(const gpz_gpu_infl_res *res, const gpz_block_info *in)
{
	uint64_t n = in->content_bytes, np = gpz_frame_chunks(n, in->chunk_log);
	uint64_t ps = (uint64_t)1 << in->chunk_log, gmask = ((uint64_t)1 << in->max_code_len) - 1;

	for (uint64_t i = 0; i < np; i++) {
		uint64_t m = n - i * ps < ps ? n - i * ps : ps;
		int last = (i & gmask) == gmask || i + 1 == np;
		if (res[i].result != GPZ_OK || (int)res[i].final != last || res[i].n != m)
			return GPZ_ERR_CORRUPT;
	}
	return GPZ_OK;
}

/* The frame at d_src; h_src: the same bytes on the host, or NULL; h_peek: its first
 * GPZ_BLOCK_PEEK_SIZE bytes on the host, or NULL (then they are copied back). */
static gpz_result decompress_frame_dev(struct gpz_gpu *g, const uint8_t *d_src, size_t src_size,
                                       const uint8_t *h_src, const uint8_t *h_peek, uint8_t *d_dst,
                                       size_t cap, size_t *written, uint64_t *stored_sum,
                                       cudaStream_t s)
{
	uint8_t peek[GPZ_FRAME_HEADER_SIZE];
	const uint8_t *head = NULL, *tail = NULL;
	uint32_t *dec_flag = (uint32_t *)&g->pinned[1], *index_flag = (uint32_t *)&g->pinned[2];
	struct gpz_gpu_decode_call call;
	bool queued = false; /* a one-bitstream decode to end after the checksum */
	size_t np = src_size < sizeof(peek) ? src_size : sizeof(peek);
	gpz_block_info in;
	gpz_decoder dec;
	uint64_t *starts = NULL, payload, n, nchunks = 0;
	size_t check_at, payload_at;
	gpz_result r = GPZ_OK;

	memset(&dec, 0, sizeof(dec));
	static_assert(GPZ_FRAME_HEADER_SIZE == GPZ_BLOCK_PEEK_SIZE, "a peek is a frame header");
	if (h_src || h_peek)
		memcpy(peek, h_src ? h_src : h_peek, np);
	else
		r = gpz_cuda_d2h(peek, d_src, np, s);
	if (r == GPZ_OK)
		r = gpz_parse_block(peek, np, &in);
	if (r == GPZ_OK)
		r = gpz_frame_fits(&in, src_size, cap);
	if (r != GPZ_OK)
		return r;
	payload = gpz_load_le64(peek + 24);
	n = in.content_bytes / (uint64_t)in.symbol_bytes;
	check_at = (size_t)(in.block_bytes - GPZ_CONTENT_SIZE - payload - GPZ_CHECK_SIZE);
	payload_at = check_at + GPZ_CHECK_SIZE;
	/* pinned staging: the frame's bytes before the payload (from the device) and its checksum,
	 * then the chunk starts, copied in one go and sent back asynchronously */
	const size_t tail_at = gpz_align256(h_src ? 0 : payload_at), starts_at = tail_at + 256;
	nchunks = in.frame_type == GPZ_FRAME_HUFFMAN ? gpz_frame_chunks(n, in.chunk_log) : 0;
	/* or, for a deflate frame, its pieces' results and starts */
	const uint64_t lz_np = in.frame_type == GPZ_FRAME_DEFLATE ? gpz_frame_chunks(n, in.chunk_log)
	                                                          : 0;
	const size_t lz_res = lz_np * sizeof(gpz_gpu_infl_res);
	const size_t staged = lz_np ? lz_res + (lz_np + 1) * 8 : (nchunks + 1) * 8;
	r = gpz_gpu_host_reserve(g, starts_at + staged);
	if (r != GPZ_OK)
		return r;
	if (h_src) {
		head = h_src;
		tail = h_src + in.block_bytes - 8;
	} else {
		uint8_t *h = g->host;
		r = gpz_cuda_result(cudaMemcpyAsync(h, d_src, payload_at, cudaMemcpyDeviceToHost, s));
		if (r == GPZ_OK)
			r = gpz_cuda_result(cudaMemcpyAsync(h + tail_at, d_src + in.block_bytes - 8, 8,
			                                    cudaMemcpyDeviceToHost, s));
		if (r == GPZ_OK)
			r = gpz_cuda_result(cudaStreamSynchronize(s));
		head = h;
		tail = h + tail_at;
	}
	/* A Huffman frame's header check (codebook and index: 256 KiB of index for a 1 GiB frame
	 * of text, 15-50 us of the H200 hosts' time) is taken while the GPU decodes: the decoder
	 * stays inside the payload and the output whatever codebook it accepted and index it got,
	 * and the verdict waits for the end. */
	const bool defer_check = in.frame_type == GPZ_FRAME_HUFFMAN;
	if (r == GPZ_OK && !defer_check &&
	    gpz_load_le32(head + check_at) != gpz_header_check(head, check_at))
		r = GPZ_ERR_CORRUPT;
	*index_flag = 0;
	if (in.frame_type == GPZ_FRAME_LZSYM) { /* checks, decodes and checksums on its own */
		if (r == GPZ_OK)
			r = gpz_lzs_frame_decode_gpu(g, d_src, head, &in, d_dst, stored_sum,
			                             (gpz_stream_t)s);
		if (r == GPZ_OK)
			*written = (size_t)in.content_bytes;
		return r;
	}
	if (r == GPZ_OK && in.frame_type == GPZ_FRAME_HUFFMAN) {
		int lanes = gpz_frame_lanes(head);
		/* The one-bitstream layout's chunk starts are summed on the device from the index,
		 * which also checks their total and the padding (the decoder checks every chunk's
		 * length): building them here took the H100 hosts ~100 us with the GPU idle, for a
		 * 1 GiB frame of 2-byte symbols (bench/probe/prepare_probe.c), and their total alone
		 * 30-80 us of the H200 hosts'. */
		if (lanes) {
			starts = (uint64_t *)(g->host + starts_at);
			r = gpz_frame_prepare_decode(head, &in, &dec, starts);
		} else {
			r = gpz_frame_decoder(head, &in, &dec);
		}
		/* the starts, the checksum's slot, then the lanes decoder's tables */
		size_t tables_at = gpz_align256((nchunks + 1) * 8) + 256;
		if (r == GPZ_OK)
			r = gpz_gpu_reserve(&g->work, &g->work_cap,
			                    tables_at + (lanes ? gpz_gpu_decode_lanes_work(&dec) : 0));
		if (r == GPZ_OK && lanes) {
			r = gpz_cuda_result(cudaMemcpyAsync(g->work, starts, (nchunks + 1) * 8,
			                                    cudaMemcpyHostToDevice, s));
		} else if (r == GPZ_OK) {
			index_starts_kernel<<<1, STARTS_THREADS, 0, s>>>(
				d_src + GPZ_FRAME_HEADER_SIZE + gpz_load_le32(head + 16), nchunks,
				(uint64_t *)g->work, payload, payload ? d_src + payload_at + payload - 1 : NULL,
				(uint32_t *)(g->work + gpz_align256((nchunks + 1) * 8) + 8));
			r = gpz_cuda_result(cudaGetLastError());
		}
		/* the decoder's verdict waits in pinned memory for the checksum's synchronisation */
		if (r == GPZ_OK && lanes) {
			r = gpz_gpu_decode_lanes(&dec, d_src + payload_at, (size_t)payload,
			                         (const uint64_t *)g->work, (size_t)n, in.symbol_bytes,
			                         in.chunk_log, d_dst, g->work + tables_at, dec_flag,
			                         (gpz_stream_t)s);
		} else if (r == GPZ_OK) {
			r = gpz_gpu_decode_start(&call, &dec, d_src + payload_at, (size_t)payload,
			                         (const uint64_t *)g->work, (size_t)n, in.symbol_bytes,
			                         in.chunk_log, d_dst, (gpz_stream_t)s);
			queued = true;
		}
	} else if (r == GPZ_OK && in.frame_type == GPZ_FRAME_DEFLATE) {
		nchunks = gpz_frame_chunks(n, in.chunk_log);
		r = lz_pieces_dev(g, head, &in, d_src + payload_at, payload, d_dst,
		                  (gpz_gpu_infl_res *)(g->host + starts_at),
		                  (uint64_t *)(g->host + starts_at + lz_res), s);
	} else if (r == GPZ_OK && in.frame_type == GPZ_FRAME_STORED) {
		r = gpz_gpu_reserve(&g->work, &g->work_cap, 256);
		if (r == GPZ_OK)
			r = gpz_cuda_result(cudaMemcpyAsync(d_dst, d_src + payload_at, in.content_bytes,
			                                    cudaMemcpyDeviceToDevice, s));
	} else if (r == GPZ_OK) {
		r = gpz_gpu_reserve(&g->work, &g->work_cap, 256);
		if (r == GPZ_OK) {
			r = gpz_gpu_fill(d_dst, (size_t)n, in.symbol_bytes, in.alphabet,
			                 (gpz_stream_t)s);
		}
	}
	size_t sum_at = in.frame_type == GPZ_FRAME_HUFFMAN ? gpz_align256((nchunks + 1) * 8)
	              : in.frame_type == GPZ_FRAME_DEFLATE ? lz_sum_at(nchunks)
	                                                   : 0;
	if (r == GPZ_OK)
		r = gpz_gpu_checksum(d_dst, (size_t)in.content_bytes, (uint64_t *)(g->work + sum_at),
		                     (gpz_stream_t)s);
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->pinned, g->work + sum_at, 8,
		                                    cudaMemcpyDeviceToHost, s));
	if (r == GPZ_OK && queued) /* the index's verdict, beside the checksum's slot */
		r = gpz_cuda_result(cudaMemcpyAsync(index_flag, g->work + sum_at + 8, 4,
		                                    cudaMemcpyDeviceToHost, s));
	const bool head_bad = r == GPZ_OK && defer_check &&
	                      gpz_load_le32(head + check_at) != gpz_header_check(head, check_at);
	if (queued) /* the flag's copy, then the one wait */
		r = gpz_gpu_decode_end(&call, r, dec_flag, (gpz_stream_t)s);
	else if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamSynchronize(s));
	if (r == GPZ_OK && (head_bad || *index_flag))
		r = GPZ_ERR_CORRUPT;
	*stored_sum = gpz_load_le64(tail);
	if (r == GPZ_OK && in.frame_type == GPZ_FRAME_DEFLATE)
		r = lz_results_ok((const gpz_gpu_infl_res *)(g->host + starts_at), &in);
	if (r == GPZ_OK && in.frame_type == GPZ_FRAME_HUFFMAN && *dec_flag)
		r = GPZ_ERR_CORRUPT; /* a chunk's bits were not what its length said */
	if (r == GPZ_OK && g->pinned[0] != *stored_sum)
		r = GPZ_ERR_CHECKSUM;
	if (r == GPZ_OK)
		*written = (size_t)in.content_bytes;
	gpz_decoder_free(&dec);
	return r;
}

/* ---- the host-buffer API on the GPU backend ---- */

extern "C" gpz_result gpz_gpu_frame_compress(struct gpz_gpu *g, const gpz_params *p,
                                             const void *src, size_t src_size, void *dst,
                                             size_t dst_cap, size_t *written,
                                             struct gpz_place *place)
{
	const bool many = src_size > p->frame_bytes; /* a job of frames: gpz_gpu_frames_take */
	size_t out_need = gpz_frames_bound(src_size, p), got = 0;
	gpz_result r = gpz_gpu_use(g);
	void *to = NULL;

	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->in, &g->in_cap, src_size);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->out, &g->out_cap, out_need);
	if (r == GPZ_OK)
		r = gpz_gpu_to_device(g, g->in, src, src_size);
	if (r == GPZ_OK && many)
		r = gpz_gpu_frames_compress_dev(g, p, g->in, src_size, g->out, out_need, &got,
		                                g->stream);
	else if (r == GPZ_OK)
		r = gpz_gpu_frame_compress_dev(g, p, g->in, src_size, g->out, out_need, &got, g->stream);
	if (r == GPZ_OK && place)
		to = place->fn(place->user, got);
	if (r == GPZ_OK && !to && got > dst_cap)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, to ? to : dst, g->out, got);
	if (r == GPZ_OK && to)
		place->used = 1;
	if (r == GPZ_OK)
		*written = got;
	return r;
}

extern "C" gpz_result gpz_gpu_frame_decompress(struct gpz_gpu *g, const void *src,
                                               size_t src_size, void *dst, size_t dst_cap,
                                               size_t *written, uint64_t *checksum)
{
	gpz_block_info in;
	uint64_t sum = 0;
	size_t got = 0;
	gpz_result r = gpz_parse_block(src, src_size, &in);

	if (r == GPZ_OK) /* frame_read.c checked its kind and sizes */
		r = gpz_gpu_use(g);
	if (r != GPZ_OK)
		return r;
	r = gpz_gpu_reserve(&g->in, &g->in_cap, (size_t)in.block_bytes);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->out, &g->out_cap, (size_t)in.content_bytes + 16);
	if (r == GPZ_OK)
		r = gpz_gpu_to_device(g, g->in, src, (size_t)in.block_bytes);
	if (r == GPZ_OK)
		r = decompress_frame_dev(g, g->in, (size_t)in.block_bytes, (const uint8_t *)src, NULL,
		                         g->out, dst_cap, &got, &sum, g->stream);
	if (checksum)
		*checksum = sum;
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, dst, g->out, got);
	if (r == GPZ_OK)
		*written = got;
	return r;
}

extern "C" gpz_result gpz_gpu_frames_decompress(struct gpz_gpu *g, int nthreads, const void *src,
                                                size_t src_size, void *dst, size_t cap,
                                                size_t *written)
{
	size_t got = 0;
	gpz_result r = gpz_gpu_use(g);

	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->in, &g->in_cap, src_size);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->out, &g->out_cap, cap + 16);
	if (r == GPZ_OK)
		r = gpz_gpu_to_device(g, g->in, src, src_size);
	if (r == GPZ_OK)
		r = gpz_gpu_frames_decompress_dev(g, nthreads, g->in, src_size, 1, g->out, cap, &got,
		                                  g->stream);
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, dst, g->out, got);
	if (r == GPZ_OK)
		*written = got;
	return r;
}

/* ---- what the device-buffer API (device_api.cu) takes from here ---- */

extern "C" gpz_result gpz_gpu_frame_decompress_dev(struct gpz_gpu *g, const uint8_t *d_src,
                                                   size_t src_size, const uint8_t *h_peek,
                                                   uint8_t *d_dst, size_t cap, size_t *written,
                                                   uint64_t *stored_sum, gpz_stream_t stream)
{
	return decompress_frame_dev(g, d_src, src_size, NULL, h_peek, d_dst, cap, written, stored_sum,
	                            (cudaStream_t)stream);
}

extern "C" size_t gpz_gpu_frame_workspace(const gpz_params *p, size_t frame_bytes)
{
	size_t n = frame_bytes / (size_t)p->symbol_bytes;
	size_t h = layout_for(n, p->symbol_bytes, p->chunk_log).total;
	size_t z = p->lz_symbols ? gpz_lzs_gpu_workspace(p, frame_bytes) : 0;
	return h > z ? h : z;
}
