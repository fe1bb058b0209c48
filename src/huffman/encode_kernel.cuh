/* encode_kernel.cuh - the GPU Huffman encoder's kernels and driver (encode.cu explains the
 * method), as templates over the block shape. Included by encode.cu, which instantiates the
 * shapes the library uses, and by the benchmark (tools/bench_encode_shapes.cu), which
 * instantiates every shape that was measured; every shape writes the same bytes. */
#ifndef GPZ_HUFFMAN_ENCODE_KERNEL_CUH
#define GPZ_HUFFMAN_ENCODE_KERNEL_CUH

#include <cub/cub.cuh>
#include <cuda_pipeline.h>

#include "gpu/cuda_check.h"
#include "huffman/huffman_gpu.h"
#include "common/bits.h"

namespace gpz_enc {
namespace { /* every file that includes this gets its own kernels */

#define SMEM_TABLE 4096u          /* encoder tables up to this size are staged in shared memory */

/* Look-back states: 2 flag bits over a 62-bit bit count. */
#define ST_AGG (1ull << 62)       /* the tile's own bit count is published */
#define ST_INC (2ull << 62)       /* the bit offset of the tile's end is published */
#define ST_VAL (ST_AGG - 1)

template <int W> __device__ __forceinline__ uint32_t load_symbol(const uint8_t *src, size_t i)
{
	if (W == 1)
		return src[i];
	if (W == 2)
		return (uint32_t)src[2 * i] | ((uint32_t)src[2 * i + 1] << 8);
	return (uint32_t)src[4 * i] | ((uint32_t)src[4 * i + 1] << 8) |
	       ((uint32_t)src[4 * i + 2] << 16) | ((uint32_t)src[4 * i + 3] << 24);
}

/* A thread's SPT symbols as loaded: 16-byte vectors, so that the next tile's loads can be issued
 * before the current tile is finished. */
template <int W, int SPT> struct raw_syms {
	uint4 v[SPT * W / 16];
};

template <int W, bool VEC, int SPT>
__device__ __forceinline__ void load_raw(const uint8_t *src, size_t i, size_t end,
                                         raw_syms<W, SPT> &r)
{
	if (VEC && i + SPT <= end) {
		const uint4 *v = reinterpret_cast<const uint4 *>(src + i * W);
#pragma unroll
		for (int q = 0; q < SPT * W / 16; q++)
			r.v[q] = __ldg(&v[q]);
	}
}

/* The codes (code << 8 | len) of the thread's SPT symbols; 0 past the end. From the vectors of
 * load_raw when the input is aligned and the thread's symbols are all there, else loaded here. */
template <int W, bool VEC, int SPT>
__device__ __forceinline__ void load_codes(const uint8_t *src, size_t i, size_t end,
                                           const raw_syms<W, SPT> &r, const uint32_t *tab,
                                           uint32_t (&e)[SPT])
{
	if (VEC && i + SPT <= end) {
#pragma unroll
		for (int q = 0; q < SPT * W / 16; q++) {
			uint32_t wd[4] = { r.v[q].x, r.v[q].y, r.v[q].z, r.v[q].w };
#pragma unroll
			for (int k = 0; k < 16 / W; k++) {
				uint32_t word = wd[k * W / 4];
				uint32_t s = W == 4 ? word
				           : W == 2 ? (word >> (16 * (k & 1))) & 0xffff
				                    : (word >> (8 * (k & 3))) & 0xff;
				e[q * (16 / W) + k] = tab[s];
			}
		}
		return;
	}
#pragma unroll
	for (int k = 0; k < SPT; k++)
		e[k] = i + k < end ? tab[load_symbol<W>(src, i + k)] : 0;
}

/* Prefetch through shared memory (PF == 2): each warp copies its threads' input with
 * asynchronous 16-byte copies, coalesced (copy q of lane l is chunk 32q + l of the warp's range),
 * into slots swizzled so that a thread's later read of its own Q consecutive chunks hits 8
 * different 16-byte bank groups per quarter warp. No registers hold the next tile meanwhile. */
template <int W, int SPT>
__device__ __forceinline__ int stage_slot(int t, int q)
{
	const int Q = SPT * W / 16;
	return t * Q + (q ^ ((t / (Q < 8 ? 8 / Q : 1)) & (Q - 1)));
}

template <int W, int SPT>
__device__ __forceinline__ void stage_async(uint4 *stage, const uint8_t *src, size_t first,
                                            size_t n)
{
	const int Q = SPT * W / 16;
	int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	size_t base = (first + (size_t)warp * 32 * SPT) * W, limit = n * W;
	uint4 *ws = stage + warp * 32 * Q;
#pragma unroll
	for (int q = 0; q < Q; q++) {
		int c = q * 32 + lane;
		size_t at = base + (size_t)c * 16;
		if (at + 16 <= limit)
			__pipeline_memcpy_async(&ws[stage_slot<W, SPT>(c / Q, c % Q)], src + at, 16);
	}
	__pipeline_commit();
}

template <int W, int SPT>
__device__ __forceinline__ void stage_read(const uint4 *stage, raw_syms<W, SPT> &r)
{
	const int Q = SPT * W / 16;
	int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	__pipeline_wait_prior(0);
	__syncwarp();
#pragma unroll
	for (int q = 0; q < Q; q++)
		r.v[q] = stage[warp * 32 * Q + stage_slot<W, SPT>(lane, q)];
}

/* Store the thread's codes at bit `off` of the tile buffer: every word whose first bit is the
 * thread's is stored whole; the bits of a word begun by an earlier thread (or part) are kept in
 * lead[] (to be ORed in after a barrier, at lead_at[]). The codes are cut into PARTS runs placed
 * side by side, so that their dependency chains interleave (instruction-level parallelism).
 * Each run shifts its codes in from the right of a 64-bit accumulator (hi:lo, funnel shifts):
 * its low `nacc` bits are the current word so far, the bits before the run counted as zeros. */
template <int SPT, int PARTS>
__device__ __forceinline__ void place_codes(uint32_t *buf, uint32_t off, const uint32_t (&e)[SPT],
                                            uint32_t (&lead)[PARTS], uint32_t (&lead_at)[PARTS])
{
	const int K = SPT / PARTS;
	uint32_t wi[PARTS], hi[PARTS], lo[PARTS], start[PARTS];
	int nacc[PARTS];
	bool leading[PARTS], any[PARTS];
#pragma unroll
	for (int p = 0; p < PARTS; p++) {
		uint32_t bits = 0;
#pragma unroll
		for (int k = 0; k < K; k++)
			bits += e[p * K + k] & 0xff;
		start[p] = off;
		wi[p] = off / 32;
		nacc[p] = off % 32;
		hi[p] = lo[p] = 0;
		any[p] = bits != 0; /* runs past the end of the input have no bits and store nothing */
		leading[p] = nacc[p] != 0 && any[p];
		lead[p] = 0;
		lead_at[p] = leading[p] ? off / 32 : 0xffffffffu;
		off += bits;
	}
#pragma unroll
	for (int k = 0; k < K; k++) {
#pragma unroll
		for (int p = 0; p < PARTS; p++) {
			uint32_t x = e[p * K + k], len = x & 0xff;
			hi[p] = __funnelshift_l(lo[p], hi[p], len);
			lo[p] = (lo[p] << len) | (x >> 8);
			nacc[p] += len;
			if (nacc[p] >= 32) {
				nacc[p] -= 32;
				uint32_t word = __funnelshift_r(lo[p], hi[p], nacc[p]);
				if (leading[p])
					lead[p] = word;
				else
					buf[wi[p]] = word;
				leading[p] = false;
				wi[p]++;
			}
		}
	}
#pragma unroll
	for (int p = 0; p < PARTS; p++) {
		/* a partial last word with bits of this run */
		if (any[p] && nacc[p] > (leading[p] ? (int)(start[p] % 32) : 0)) {
			uint32_t word = lo[p] << (32 - nacc[p]);
			if (leading[p])
				lead[p] = word;
			else
				buf[wi[p]] = word;
		}
	}
}

/* Warp 0: the bit offset where tile t starts, from the published states of tiles t0 .. t - 1
 * (t0, its frame's first tile, publishes its end at once; tiles before it, another frame's,
 * may never publish anything). */
__device__ uint64_t look_back(unsigned long long *state, size_t t, size_t t0)
{
	int lane = threadIdx.x % 32;
	uint64_t prefix = 0;
	for (long long j = (long long)t - 1;; j -= 32) {
		long long idx = j - lane;
		uint64_t v;
		do {
			v = idx >= (long long)t0 ? *(volatile unsigned long long *)&state[idx] : ST_INC;
		} while (__any_sync(0xffffffffu, (v >> 62) == 0));
		unsigned inc = __ballot_sync(0xffffffffu, (v & ST_INC) != 0);
		int stop = inc ? __ffs(inc) - 1 : 32;
		uint64_t x = lane <= stop ? (v & ST_VAL) : 0;
#pragma unroll
		for (int d = 16; d; d >>= 1)
			x += __shfl_xor_sync(0xffffffffu, x, d);
		prefix += x;
		if (inc)
			return prefix;
	}
}

/* Where one frame's payload goes and the code it is written with. The encoder codes one frame
 * (gpz_gpu_encode) or many side by side (gpz_gpu_encode_frames: frames of frame_n symbols but
 * the last, each with its own code, payload and chunk index; a tile never spans two frames and
 * the look-back scan stops at its frame's first tile). */
typedef gpz_gpu_enc_frame enc_frame;

struct enc_args {
	size_t n, tile, ntiles;      /* symbols and tiles of every frame */
	size_t frame_n, frame_tiles, frame_chunks; /* a whole frame's symbols, tiles and chunks */
	size_t nframes;
	const enc_frame *frames;     /* per frame, in device memory; NULL: the one frame `one` */
	enc_frame one;
	uint32_t alphabet;           /* table entries (tables up to SMEM_TABLE are staged) */
	int chunk_log;
	unsigned long long *state;   /* per tile, zeroed before the launch */
	unsigned int *counter;       /* zeroed before the launch */
	uint32_t *head;              /* per tile: its bits in the word shared with the tile before */
	uint64_t *chunk_pos;         /* per frame, frame_chunks + 1: bit position of a chunk start */
	uint32_t buf_words;          /* shared-memory tile buffer; the input stage follows it */
};

/* Tile t's frame, its first tile, the frame's symbols [fs, fe) and the tile's [first, end). */
struct tile_span {
	size_t f, t0, fs, fe, first, end;
};

template <bool FRAMES>
__device__ __forceinline__ tile_span span_of(const enc_args &a, size_t t)
{
	tile_span p;
	if (!FRAMES) { /* one frame: the code of the encoder before frames existed */
		p.f = p.t0 = p.fs = 0;
		p.fe = a.n;
		p.first = t * a.tile;
		p.end = min(a.n, p.first + a.tile);
		return p;
	}
	/* tiles are fewer than 2^31 (encode_run): a 32-bit division, not a 64-bit one's ~70 */
	p.f = (uint32_t)t / (uint32_t)a.frame_tiles;
	p.t0 = p.f * a.frame_tiles;
	p.fs = p.f * a.frame_n;
	p.fe = min(a.n, p.fs + a.frame_n);
	p.first = p.fs + (t - p.t0) * a.tile;
	p.end = min(p.fe, p.first + a.tile);
	return p;
}

__device__ __forceinline__ enc_frame frame_of(const enc_args &a, size_t f)
{
	return a.frames ? a.frames[f] : a.one;
}

/* Issue the loads of tile t ahead of its use (PF 1: into registers, PF 2: asynchronous copies
 * into shared memory); nothing for PF 0 or past the last tile. */
template <int W, bool VEC, int SPT, int PF, bool FRAMES>
__device__ __forceinline__ void prefetch(const uint8_t *src, const enc_args &a, size_t t,
                                         raw_syms<W, SPT> &raw, uint4 *stage)
{
	if (PF == 0 || t >= a.ntiles)
		return;
	tile_span sp = span_of<FRAMES>(a, t);
	if (PF == 1)
		load_raw<W, VEC, SPT>(src, sp.first + (size_t)threadIdx.x * SPT, sp.end, raw);
	if (PF == 2 && VEC)
		stage_async<W, SPT>(stage, src, sp.first, sp.end);
}

/* One block shape: THREADS x SPT symbols per tile. PF = 0: one tile per block, loaded when it
 * is processed; PF = 1 or 2: a few blocks per multiprocessor loop over the tiles and the loads
 * of the block's next tile are issued before the current tile's look-back and stores, into
 * registers (1) or by asynchronous copies into shared memory (2). FRAMES: many frames side by
 * side (a.frames), else the one frame a.one. */
template <int W, bool VEC, int THREADS, int SPT, int PF, int MINB, int PARTS, bool FRAMES>
__global__ void __launch_bounds__(THREADS, MINB)
encode_kernel(const uint8_t *src, enc_args a)
{
	typedef cub::BlockScan<uint32_t, THREADS, cub::BLOCK_SCAN_WARP_SCANS> BlockScan;
	extern __shared__ uint32_t smem[];
	__shared__ typename BlockScan::TempStorage scan_tmp;
	__shared__ unsigned s_tile, s_next;
	__shared__ unsigned long long s_start;
	uint32_t *stable = smem;                                     /* staged table, if small */
	uint32_t *buf = smem + (a.alphabet <= SMEM_TABLE ? a.alphabet : 0);
	uint4 *stage = reinterpret_cast<uint4 *>(
		smem + (((a.alphabet <= SMEM_TABLE ? a.alphabet : 0) + a.buf_words + 3) & ~3u));
	raw_syms<W, SPT> raw;
	size_t staged = ~(size_t)0; /* the frame whose table is in stable */
	/* The next tile's frame and (tables of at most THREADS entries) the thread's word of its
	 * table, loaded with the tile's input: many frames side by side change frame every tile. */
	enc_frame fr_next = a.one;
	uint32_t tw_next = 0;
	const bool one_word = a.alphabet <= THREADS;
	auto fetch = [&](size_t tn) {
		if (FRAMES && tn < a.ntiles) {
			fr_next = a.frames[span_of<FRAMES>(a, tn).f];
			if (one_word && fr_next.huff && threadIdx.x < a.alphabet)
				tw_next = fr_next.table[threadIdx.x];
		}
	};

	if (threadIdx.x == 0)
		s_tile = atomicAdd(a.counter, 1u);
	__syncthreads();
	size_t t = s_tile;
	prefetch<W, VEC, SPT, PF, FRAMES>(src, a, t, raw, stage);
	fetch(t);
	/* A block holds its tile and the next one it claimed; every tile it waits for is held by a
	 * block working on a smaller tile, so the block on the smallest tile always proceeds. */
	while (t < a.ntiles) {
		const tile_span sp = span_of<FRAMES>(a, t);
		const enc_frame fr = fr_next;
		const uint32_t tw = tw_next;
		size_t i = sp.first + (size_t)threadIdx.x * SPT;
		uint32_t e[SPT], nb = 0, off, total, lead[PARTS], lead_at[PARTS];

		if (threadIdx.x == 0)
			s_next = atomicAdd(a.counter, 1u);
		if (FRAMES && !fr.huff) { /* a stored or constant frame among many: nothing to code */
			if (PF == 2 && VEC)
				__pipeline_wait_prior(0); /* the stage is refilled below */
			__syncthreads();
			t = s_next;
			prefetch<W, VEC, SPT, PF, FRAMES>(src, a, t, raw, stage);
			fetch(t);
			__syncthreads(); /* s_next is reused */
			continue;
		}
		const uint32_t *tab = fr.table;
		if (a.alphabet <= SMEM_TABLE) { /* the loop's last barrier is behind every reader */
			if (sp.f != staged) {
				if (FRAMES && one_word) {
					if (threadIdx.x < a.alphabet)
						stable[threadIdx.x] = tw;
				} else {
					for (uint32_t k = threadIdx.x; k < a.alphabet; k += THREADS)
						stable[k] = fr.table[k];
				}
				staged = sp.f;
				__syncthreads();
			}
			tab = stable;
		}
		if (PF == 0)
			load_raw<W, VEC, SPT>(src, i, sp.end, raw);
		if (PF == 2 && VEC)
			stage_read<W, SPT>(stage, raw);
		load_codes<W, VEC, SPT>(src, i, sp.end, raw, tab, e);
#pragma unroll
		for (int k = 0; k < SPT; k++)
			nb += e[k] & 0xff;
		BlockScan(scan_tmp).ExclusiveSum(nb, off, total);
		if (threadIdx.x == 0)
			*(volatile unsigned long long *)&a.state[t] =
				t != sp.t0 ? ST_AGG | total : ST_INC | (fr.base_bits + (uint64_t)total);
		place_codes<SPT, PARTS>(buf, off, e, lead, lead_at);
		if (threadIdx.x < 32) {
			uint64_t start = t != sp.t0 ? look_back(a.state, t, sp.t0) : fr.base_bits;
			if (threadIdx.x == 0) {
				s_start = start;
				if (t != sp.t0)
					*(volatile unsigned long long *)&a.state[t] = ST_INC | (start + total);
			}
		}
		__syncthreads(); /* whole words stored, tile start and next tile known */
		size_t next = s_next;
		prefetch<W, VEC, SPT, PF, FRAMES>(src, a, next, raw, stage);
		fetch(next);
#pragma unroll
		for (int p = 0; p < PARTS; p++)
			if (lead_at[p] != 0xffffffffu)
				atomicOr(&buf[lead_at[p]], lead[p]);
		uint64_t start = s_start;
		uint64_t *cpos = a.chunk_pos + sp.f * (a.frame_chunks + 1);
		if (i < sp.end && ((i - sp.fs) & (((size_t)1 << a.chunk_log) - 1)) == 0)
			cpos[(i - sp.fs) >> a.chunk_log] = start + off;
		if (sp.end == sp.fe && threadIdx.x == 0)
			cpos[(sp.fe - sp.fs + ((size_t)1 << a.chunk_log) - 1) >> a.chunk_log] = start + total;
		__syncthreads(); /* leading bits ORed in */
		uint32_t sh = (uint32_t)(start % 32);
		uint64_t base = start / 32;
		uint32_t nsrc = (total + 31) / 32, ndst = (sh + total + 31) / 32;
		for (uint32_t j = threadIdx.x; j < ndst; j += THREADS) {
			uint32_t hi = j < nsrc ? buf[j] : 0;
			uint32_t v = sh ? (hi >> sh) | (j ? buf[j - 1] << (32 - sh) : 0) : hi;
			v = __byte_perm(v, 0, 0x0123); /* big-endian: the stream's first bit is the MSB */
			if (j == 0 && sh)
				a.head[t] = v;
			else
				fr.out[base + j] = v;
		}
		if (threadIdx.x == 0 && (sh == 0 || total == 0))
			a.head[t] = 0;
		__syncthreads(); /* buf, s_start and s_next are reused */
		t = next;
	}
}

/* OR each tile's head bits into the word the tile before it wrote (a frame's first tile's head
 * holds bytes of whatever precedes its payload: only the payload's bytes are stored), and each
 * frame's chunk lengths from its chunk start positions. */
__global__ void finish_kernel(enc_args a)
{
	size_t nc = a.nframes * a.frame_chunks, nt = max(a.ntiles, nc);
	for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nt;
	     k += (size_t)gridDim.x * blockDim.x) {
		if (k < nc) {
			size_t f = k / a.frame_chunks, c = k % a.frame_chunks;
			size_t fn = min(a.n - f * a.frame_n, a.frame_n);
			const enc_frame fr = frame_of(a, f);
			const uint64_t *cpos = a.chunk_pos + f * (a.frame_chunks + 1);
			if (fr.huff && c < ((fn + ((size_t)1 << a.chunk_log) - 1) >> a.chunk_log))
				gpz_store_le32(fr.index + 4 * c, (uint32_t)(cpos[c + 1] - cpos[c]));
		}
		if (k >= a.ntiles)
			continue;
		const tile_span sp = a.frames ? span_of<true>(a, k) : span_of<false>(a, k);
		const enc_frame fr = frame_of(a, sp.f);
		if (!fr.huff)
			continue;
		uint64_t start = k != sp.t0 ? a.state[k - 1] & ST_VAL : fr.base_bits;
		uint32_t h = a.head[k];
		if (start % 32 == 0 || (k != sp.t0 && h == 0))
			continue;
		uint8_t *p = reinterpret_cast<uint8_t *>(fr.out) + (start / 32) * 4;
		for (uint32_t b = 0; b < 4; b++) {
			uint8_t v = (uint8_t)(h >> (8 * b));
			if (k != sp.t0)
				p[b] |= v;
			else if (b >= fr.base_bits / 8)
				p[b] = v;
		}
	}
}

size_t align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

/* Workspace: tile states and the tile counter (zeroed per call), head words, chunk starts. */
struct enc_work {
	size_t counter, head, chunk_pos, total;
};

enc_work work_layout(size_t ntiles, size_t chunk_pos_entries)
{
	enc_work l;
	l.counter = ntiles * 8;
	l.head = align256(l.counter + 4);
	l.chunk_pos = l.head + align256(ntiles * 4);
	l.total = l.chunk_pos + align256(chunk_pos_entries * 8);
	return l;
}

/* The smallest tile of any shape: workspace bounds hold for every shape. */
constexpr size_t MIN_TILE = 2048;

/* Tiles and chunk-start entries of n symbols in frames of frame_n. */
void frame_counts(size_t n, size_t frame_n, size_t tile, int chunk_log, size_t *ntiles,
                  size_t *entries)
{
	size_t nframes = (n + frame_n - 1) / frame_n, last = n - (nframes - 1) * frame_n;
	size_t chunks = (frame_n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
	*ntiles = (nframes - 1) * ((frame_n + tile - 1) / tile) + (last + tile - 1) / tile;
	*entries = nframes * (chunks + 1);
}

template <int W, int THREADS, int SPT, int PF, int MINB, int PARTS, bool FRAMES = false>
gpz_result launch_shape(const uint8_t *d_src, const enc_args &a, cudaStream_t s)
{
	bool vec = reinterpret_cast<uintptr_t>(d_src) % 16 == 0;
	if ((a.frames != NULL) != FRAMES)
		return GPZ_ERR_PARAM;
	auto k = vec ? encode_kernel<W, true, THREADS, SPT, PF, MINB, PARTS, FRAMES>
	             : encode_kernel<W, false, THREADS, SPT, PF, MINB, PARTS, FRAMES>;
	size_t grid = a.ntiles;
	size_t smem = (((a.alphabet <= SMEM_TABLE ? a.alphabet : 0) + a.buf_words + 3) & ~(size_t)3) * 4 +
	              (PF == 2 ? (size_t)THREADS * SPT * W : 0);
	/* The limit is the kernel's largest need, the same from every call: host threads encoding
	 * frames at once (the frame engine's lanes) must not lower it under each other's launch. */
	const size_t most = (((size_t)SMEM_TABLE + (size_t)THREADS * SPT * GPZ_MAX_CODE_LEN / 32 + 2 +
	                      3) & ~(size_t)3) * 4 + (PF == 2 ? (size_t)THREADS * SPT * W : 0);
	GPZ_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most));
	if (PF) { /* as many blocks as fit at once */
		int dev, sms, per_sm;
		GPZ_CUDA_TRY(cudaGetDevice(&dev));
		GPZ_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
		GPZ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, THREADS, smem));
		size_t resident = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1);
		grid = grid < resident ? grid : resident;
	}
	k<<<(unsigned)grid, THREADS, smem, s>>>(d_src, a);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

/* Zero the states and the counter, launch the shape's kernel, then finish_kernel. */
template <class Shape>
gpz_result run_args(const uint8_t *d_src, int w, enc_args &a, uint8_t *p, const enc_work &l,
                    const Shape &shape, cudaStream_t s)
{
	a.state = (unsigned long long *)p;
	a.counter = (unsigned int *)(p + l.counter);
	a.head = (uint32_t *)(p + l.head);
	a.chunk_pos = (uint64_t *)(p + l.chunk_pos);
	/* the counter sits right after the largest state array: zero the states in use and it */
	GPZ_CUDA_TRY(cudaMemsetAsync(p, 0, a.ntiles * 8, s));
	GPZ_CUDA_TRY(cudaMemsetAsync(p + l.counter, 0, 4, s));
	gpz_result r = w == 1 ? shape.template launch<1>(d_src, a, s)
	             : w == 2 ? shape.template launch<2>(d_src, a, s)
	                      : shape.template launch<4>(d_src, a, s);
	if (r != GPZ_OK)
		return r;
	size_t nt = max(a.ntiles, a.nframes * a.frame_chunks);
	unsigned blocks = (unsigned)((nt + 255) / 256 < 4096 ? (nt + 255) / 256 : 4096);
	finish_kernel<<<blocks, 256, 0, s>>>(a);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

/* The args of n symbols in frames of frame_n (frame_n >= n: one frame) coded in tiles of
 * `tile` with codes of at most max_len bits, and the workspace's layout; false when they do not
 * fit the workspace or the encoder's limits. */
bool frames_args(size_t n, size_t frame_n, size_t tile, int chunk_log, uint32_t alphabet,
                 int max_len, const void *d_work, size_t work_bytes, enc_args &a, enc_work &l)
{
	size_t ntiles, entries;
	if (n == 0 || frame_n == 0 || (frame_n < n && frame_n % 32) || chunk_log < 8 ||
	    max_len < 1 || max_len > GPZ_MAX_CODE_LEN || !tile ||
	    reinterpret_cast<uintptr_t>(d_work) % 256)
		return false;
	frame_counts(n, frame_n, tile, chunk_log, &ntiles, &entries);
	l = work_layout(ntiles, entries);
	if (work_bytes < l.total || ntiles > 0x7fffffffu)
		return false;
	a.n = n;
	a.frame_n = frame_n < n ? frame_n : n;
	a.tile = tile;
	a.ntiles = ntiles;
	a.frame_tiles = (a.frame_n + tile - 1) / tile;
	a.nframes = (n + a.frame_n - 1) / a.frame_n;
	a.frame_chunks = entries / a.nframes - 1;
	a.frames = NULL;
	a.one = enc_frame();
	a.alphabet = alphabet;
	a.chunk_log = chunk_log;
	a.buf_words = (uint32_t)(tile * (size_t)max_len / 32 + 2);
	return true;
}

/* Run the encoder with one block shape: Shape has `tile` (symbols per tile) and
 * `launch<W>(d_src, args, stream)`, which launches encode_kernel through launch_shape (with
 * FRAMES for encode_frames_run's args, which only the library's shape takes). */
template <class Shape>
gpz_result encode_run(const uint8_t *d_src, size_t n, int w, const uint32_t *d_table,
                      uint32_t alphabet, int max_len, int chunk_log, uint32_t *d_chunk_bits,
                      uint8_t *d_payload, void *d_work, size_t work_bytes, const Shape &shape,
                      cudaStream_t s)
{
	size_t mis = reinterpret_cast<uintptr_t>(d_payload) % 4;
	enc_args a;
	enc_work l;

	if (!frames_args(n, n, shape.tile, chunk_log, alphabet, max_len, d_work, work_bytes, a, l))
		return GPZ_ERR_PARAM;
	a.one.out = (uint32_t *)(d_payload - mis);
	a.one.index = (uint8_t *)d_chunk_bits;
	a.one.table = d_table;
	a.one.base_bits = (uint32_t)(8 * mis);
	a.one.huff = 1;
	return run_args(d_src, w, a, (uint8_t *)d_work, l, shape, s);
}

/* Frames of frame_n symbols (the last may be shorter) side by side, each as encode_run codes
 * one, with the code, payload and index d_frames[f] gives (tables of `alphabet` entries). */
template <class Shape>
gpz_result encode_frames_run(const uint8_t *d_src, size_t n, size_t frame_n, int w,
                             const enc_frame *d_frames, uint32_t alphabet, int chunk_log,
                             void *d_work, size_t work_bytes, const Shape &shape, cudaStream_t s)
{
	enc_args a;
	enc_work l;

	if (frame_n >= n || !frames_args(n, frame_n, shape.tile, chunk_log, alphabet,
	                                 GPZ_MAX_CODE_LEN, d_work, work_bytes, a, l))
		return GPZ_ERR_PARAM;
	a.frames = d_frames;
	return run_args(d_src, w, a, (uint8_t *)d_work, l, shape, s);
}

} // namespace
} // namespace gpz_enc

#endif
