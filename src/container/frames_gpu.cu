/*
 * frames_gpu.cu - many Huffman-only frames of 1-byte symbols planned and coded on the device at
 * once (gpz_compress_device with small frames: a code per frame is what lifts the ratio of text,
 * and a frame of a MiB or less would cost the one-frame path more in host round trips than in
 * coding).
 *
 * The same bytes as the CPU backend, frame for frame, because every decision is made by the
 * host's own rules, compiled for the device: a block per frame sorts its used symbols, builds
 * the code lengths (code_lengths.h), the codebook bytes (codebook_bytes.h) and the frame's type,
 * header and offsets (frame.h's plan rules). Then one scan places the frames, one encoder launch
 * codes every frame's payload and index (gpz_gpu_encode_frames), one launch sums every frame's
 * content (on the side stream, from the start) and a thread a frame stores its checksum and
 * header check. Nothing waits for the host until the end, when the total size comes back.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <string.h>

extern "C" {
#include "container/frame.h"
}
#include "common/xxh64.h"
#include "common/checksum_gpu.h"
#include "container/frame_gpu.h"
#include "gpu/gpu.h"
#include "gpu/cuda_check.h"
#include "huffman/code_lengths.h"
#include "huffman/codebook_bytes.h"
#include "huffman/huffman_gpu.h"

namespace {

constexpr unsigned SYMS = 256;                              /* 1-byte symbols */
constexpr size_t HEAD_MAX = GPZ_FRAME_HEADER_SIZE + SYMS;   /* header + codebook */
constexpr unsigned SCAN_THREADS = 1024;
constexpr size_t MAX_FRAMES = 65535;                        /* the histogram's grid */
constexpr size_t MAX_CHUNKS = 4096;                         /* a frame's, below */

/* The workspace, in g->work. */
struct layout {
	size_t counts, stats, plans, heads, tables, offs, encf, sums, status, enc, total;
};

layout layout_for(size_t n, size_t frame_n, int chunk_log)
{
	size_t nf = (n + frame_n - 1) / frame_n;
	layout l;
	l.counts = 0;
	l.stats = l.counts + gpz_align256(nf * SYMS * 4);
	l.plans = l.stats + gpz_align256(nf * 8);
	l.heads = l.plans + gpz_align256(nf * sizeof(struct gpz_frame_plan));
	l.tables = l.heads + gpz_align256(nf * HEAD_MAX);
	l.offs = l.tables + gpz_align256(nf * SYMS * 4);
	l.encf = l.offs + gpz_align256((nf + 1) * 8);
	l.sums = l.encf + gpz_align256(nf * sizeof(struct gpz_gpu_enc_frame));
	l.status = l.sums + gpz_align256(nf * 8);
	l.enc = l.status + 256;
	l.total = l.enc + gpz_align256(gpz_gpu_encode_frames_work(n, frame_n, chunk_log));
	return l;
}

/* A block's scratch for one frame's code: the sort and code_lengths.h's lists. */
struct plan_smem {
	uint64_t key_in[SYMS], key[SYMS];
	uint64_t w[SYMS], nw[SYMS];
	uint32_t parent[2 * SYMS - 1], depth[2 * SYMS - 1];
	uint64_t cur[2 * SYMS], nxt[2 * SYMS];
	uint64_t is_pkg[GPZ_MAX_CODE_LEN * (2 * SYMS / 64)];
	uint8_t plen[SYMS], len[SYMS];
	uint32_t code[SYMS];
	unsigned long long bits;
};

/* Frame blockIdx.x's plan, as gpz_frame_plan_make makes it on the host: constant when one
 * symbol occurs, else Huffman when smaller than stored, else stored; its header and codebook
 * at heads + HEAD_MAX f, its encoder table (zeros past its alphabet) at tables + 256 f. */
__global__ void __launch_bounds__(SYMS)
plan_kernel(const uint32_t *counts, const uint32_t *stats, size_t n, size_t frame_n,
            int chunk_log, struct gpz_frame_plan *plans, uint8_t *heads, uint32_t *tables)
{
	__shared__ plan_smem sm;
	const size_t f = blockIdx.x;
	const uint32_t s = threadIdx.x, alphabet = stats[2 * f] + 1;
	const uint32_t cnt = counts[SYMS * f + s];
	const uint64_t key = cnt ? ((uint64_t)cnt << 20) | s : ~(uint64_t)0;

	sm.key_in[s] = key;
	sm.len[s] = 0;
	if (s == 0)
		sm.bits = 0;
	const uint32_t used = (uint32_t)__syncthreads_count(cnt != 0);
	if (cnt) { /* keys are distinct: a key's rank is its place in (count, symbol) order */
		uint32_t rank = 0;
		for (uint32_t t = 0; t < SYMS; t++)
			rank += sm.key_in[t] < key;
		sm.key[rank] = key;
	}
	__syncthreads();
	struct gpz_frame_plan p;
	memset(&p, 0, sizeof(p));
	p.w = 1;
	p.chunk_log = chunk_log;
	p.n = min(frame_n, n - f * frame_n);
	p.alphabet = alphabet;
	p.head = heads + HEAD_MAX * f;
	if (used == 1) { /* the one symbol present is the largest */
		if (s == 0) {
			gpz_frame_set_simple(&p, GPZ_FRAME_CONSTANT);
			gpz_frame_put_header(p.head, &p, alphabet - 1, 0);
			gpz_frame_set_layout(&p);
			plans[f] = p;
		}
		tables[SYMS * f + s] = 0;
		return;
	}
	int max_len = 0; /* thread 0's: 2 to 256 symbols always get lengths */
	if (s == 0) {
		struct gpz_cl_scratch cs = { sm.w, sm.nw, sm.parent, sm.depth,
			                     sm.cur, sm.nxt, sm.is_pkg, sm.plen };
		max_len = gpz_cl_lengths(sm.key, used, GPZ_MAX_CODE_LEN, &cs, sm.len);
		gpz_cl_canonical(sm.len, alphabet, sm.code);
	}
	__syncthreads();
	tables[SYMS * f + s] = s < alphabet ? (sm.code[s] << 8) | sm.len[s] : 0;
	atomicAdd(&sm.bits, (unsigned long long)cnt * sm.len[s]);
	__syncthreads();
	if (s != 0)
		return;
	p.max_len = max_len;
	p.bits = sm.bits;
	size_t cb_bytes = gpz_cb_write(sm.len, alphabet, p.head + GPZ_FRAME_HEADER_SIZE);
	if (gpz_frame_set_huffman(&p, cb_bytes, 0)) {
		gpz_frame_put_header(p.head, &p, alphabet, (uint32_t)cb_bytes);
	} else {
		gpz_frame_set_simple(&p, GPZ_FRAME_STORED);
		gpz_frame_put_header(p.head, &p, 0, 0);
	}
	gpz_frame_set_layout(&p);
	plans[f] = p;
}

/* Each frame's offset in the output (from 0), the total in status[0] and whether it fits `cap`
 * in status[1]: one block scanning the frames' sizes. */
__global__ void __launch_bounds__(SCAN_THREADS)
place_kernel(const struct gpz_frame_plan *plans, size_t nf, size_t cap, uint64_t *offs,
             uint64_t *status)
{
	typedef cub::BlockScan<uint64_t, SCAN_THREADS> Scan;
	__shared__ typename Scan::TempStorage tmp;
	uint64_t carry = 0;
	for (size_t base = 0; base < nf; base += SCAN_THREADS) {
		size_t f = base + threadIdx.x;
		uint64_t size = f < nf ? plans[f].total : 0, at, sum;
		Scan(tmp).ExclusiveSum(size, at, sum);
		if (f < nf)
			offs[f] = carry + at;
		carry += sum;
		__syncthreads(); /* tmp is reused */
	}
	if (threadIdx.x == 0) {
		offs[nf] = carry;
		status[0] = carry;
		status[1] = carry <= cap;
	}
}

/* Frame blockIdx.x's header and codebook into place, its payload's destination for the
 * encoder, and a stored frame's bytes. Nothing is written when the frames do not fit. */
__global__ void __launch_bounds__(SYMS)
write_kernel(const uint8_t *src, size_t frame_n, const struct gpz_frame_plan *plans,
             const uint8_t *heads, const uint32_t *tables, const uint64_t *offs,
             const uint64_t *status, uint8_t *dst, struct gpz_gpu_enc_frame *encf)
{
	const size_t f = blockIdx.x;
	const struct gpz_frame_plan &p = plans[f];
	uint8_t *d = dst + offs[f];
	if (!status[1]) {
		if (threadIdx.x == 0)
			encf[f].huff = 0;
		return;
	}
	for (size_t i = threadIdx.x; i < p.head_bytes; i += blockDim.x)
		d[i] = heads[HEAD_MAX * f + i];
	if (threadIdx.x == 0) {
		uint8_t *pay = d + p.payload_at;
		size_t mis = reinterpret_cast<uintptr_t>(pay) % 4;
		struct gpz_gpu_enc_frame e;
		e.out = reinterpret_cast<uint32_t *>(pay - mis);
		e.index = d + p.index_at;
		e.table = tables + SYMS * f;
		e.base_bits = (uint32_t)(8 * mis);
		e.huff = p.type == GPZ_FRAME_HUFFMAN;
		encf[f] = e;
	}
	if (p.type == GPZ_FRAME_STORED)
		for (size_t i = threadIdx.x; i < p.n; i += blockDim.x)
			d[p.payload_at + i] = src[f * frame_n + i];
}

/* Four threads a frame: the content checksum after the payload (which the encoder may have
 * spilled up to 3 bytes into), then the header check over the header, codebook and chunk index.
 * XXH64's four stripe lanes only meet at the end, so each thread runs one of them. */
__global__ void __launch_bounds__(128)
seal_kernel(const struct gpz_frame_plan *plans, size_t nf, const uint64_t *offs,
            const uint64_t *status, const uint64_t *sums, uint8_t *dst)
{
	const size_t f = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 4;
	const unsigned q = threadIdx.x % 4;
	const bool live = f < nf && status[1];
	const uint8_t *d = live ? dst + offs[f] : NULL;
	const size_t len = live ? plans[f].check_at : 0, stripes = len / 32;
	uint64_t v = q == 0 ? GPZ_P64_1 + GPZ_P64_2 : q == 1 ? GPZ_P64_2 : q == 2 ? 0 : 0 - GPZ_P64_1;
	for (size_t k = 0; k < stripes; k++)
		v = gpz_xxh_round(v, gpz_xxh_read64(d + 32 * k + 8 * q));
	struct gpz_xxh_lanes l;
	l.v1 = __shfl_sync(0xffffffffu, v, 0, 4);
	l.v2 = __shfl_sync(0xffffffffu, v, 1, 4);
	l.v3 = __shfl_sync(0xffffffffu, v, 2, 4);
	l.v4 = __shfl_sync(0xffffffffu, v, 3, 4);
	if (!live || q != 0)
		return;
	uint64_t h = stripes ? gpz_xxh_converge(&l) : GPZ_P64_5;
	h = gpz_xxh_finish(h, len, d + 32 * stripes, len % 32);
	gpz_store_le64(dst + offs[f] + plans[f].sum_at, sums[f]);
	gpz_store_le32(dst + offs[f] + plans[f].check_at, (uint32_t)h);
}

} // namespace

/* Several frames, each of at most MAX_CHUNKS chunks: a frame's header check is a serial hash
 * over its chunk index (four threads), so one large frame goes through frame_gpu.cu instead,
 * which hashes on the host (1 GiB of text in one frame: 2.9 ms there, 6.1 ms here, 3.6 of them
 * one thread's hash; H100). */
extern "C" int gpz_gpu_frames_take(const gpz_params *p, const void *d_src, size_t size)
{
	size_t nf = p->frame_bytes ? (size + p->frame_bytes - 1) / p->frame_bytes : 0;
	return p->lz_level == 0 && p->lz_symbols == 0 && !p->huff_lanes && p->symbol_bytes == 1 &&
	       p->frame_bytes % 32 == 0 && reinterpret_cast<uintptr_t>(d_src) % 16 == 0 &&
	       nf >= 2 && nf <= MAX_FRAMES &&
	       gpz_frame_chunks(p->frame_bytes, p->chunk_log) <= MAX_CHUNKS;
}

extern "C" size_t gpz_gpu_frames_workspace(const gpz_params *p, size_t size)
{
	return size ? layout_for(size, p->frame_bytes, p->chunk_log).total : 0;
}

extern "C" gpz_result gpz_gpu_frames_compress_dev(struct gpz_gpu *g, const gpz_params *p,
                                                  const uint8_t *d_src, size_t size,
                                                  uint8_t *d_dst, size_t cap, size_t *written,
                                                  gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream, side = (cudaStream_t)g->side;
	const size_t fn = p->frame_bytes, nf = (size + fn - 1) / fn;
	const layout l = layout_for(size, fn, p->chunk_log);
	gpz_result r = gpz_gpu_frames_take(p, d_src, size) ? GPZ_OK : GPZ_ERR_PARAM;
	uint8_t *w = NULL;
	bool side_used = false;

	*written = 0;
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->work, &g->work_cap, l.total);
	w = g->work;
	/* the content checksums only read the input: they run beside everything else */
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaEventRecord((cudaEvent_t)g->in_ready, s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamWaitEvent(side, (cudaEvent_t)g->in_ready, 0));
	if (r == GPZ_OK)
		r = gpz_gpu_checksum_frames(d_src, size, fn, (uint64_t *)(w + l.sums), g->side);
	if (r == GPZ_OK) {
		side_used = true;
		r = gpz_cuda_result(cudaEventRecord((cudaEvent_t)g->sum_done, side));
	}
	if (r == GPZ_OK)
		r = gpz_gpu_histogram_frames(d_src, size, fn, (uint32_t *)(w + l.counts),
		                             (uint32_t *)(w + l.stats), stream);
	struct gpz_frame_plan *plans = (struct gpz_frame_plan *)(w + l.plans);
	uint64_t *offs = (uint64_t *)(w + l.offs), *status = (uint64_t *)(w + l.status);
	struct gpz_gpu_enc_frame *encf = (struct gpz_gpu_enc_frame *)(w + l.encf);
	if (r == GPZ_OK) {
		plan_kernel<<<(unsigned)nf, SYMS, 0, s>>>((const uint32_t *)(w + l.counts),
		                                           (const uint32_t *)(w + l.stats), size, fn,
		                                           p->chunk_log, plans, w + l.heads,
		                                           (uint32_t *)(w + l.tables));
		r = gpz_cuda_result(cudaGetLastError());
	}
	if (r == GPZ_OK) {
		place_kernel<<<1, SCAN_THREADS, 0, s>>>(plans, nf, cap, offs, status);
		r = gpz_cuda_result(cudaGetLastError());
	}
	if (r == GPZ_OK) {
		write_kernel<<<(unsigned)nf, SYMS, 0, s>>>(d_src, fn, plans, w + l.heads,
		                                            (const uint32_t *)(w + l.tables), offs,
		                                            status, d_dst, encf);
		r = gpz_cuda_result(cudaGetLastError());
	}
	if (r == GPZ_OK)
		r = gpz_gpu_encode_frames(d_src, size, fn, 1, encf, SYMS, p->chunk_log, w + l.enc,
		                          l.total - l.enc, stream);
	if (r == GPZ_OK && side_used)
		r = gpz_cuda_result(cudaStreamWaitEvent(s, (cudaEvent_t)g->sum_done, 0));
	if (r == GPZ_OK) {
		seal_kernel<<<(unsigned)((4 * nf + 127) / 128), 128, 0, s>>>(
			plans, nf, offs, status, (const uint64_t *)(w + l.sums), d_dst);
		r = gpz_cuda_result(cudaGetLastError());
	}
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->pinned, status, 16, cudaMemcpyDeviceToHost, s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamSynchronize(s));
	if (r != GPZ_OK && side_used)
		cudaStreamSynchronize(side); /* nothing may still use the workspace or the input */
	if (r == GPZ_OK && !g->pinned[1])
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		*written = (size_t)g->pinned[0];
	return r;
}
