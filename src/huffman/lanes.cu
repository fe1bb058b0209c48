/*
 * lanes.cu - the 32-lane interleaved payload layout (huffman.h, lanes.c) on the GPU: a warp a
 * chunk, a lane a symbol a step, in lockstep, for both coding directions.
 *
 * Decode: each lane keeps a 64-bit MSB-aligned bit buffer. At a step, lanes whose next code is
 * not wholly in their buffer (read off the canonical limits) take the chunk's next words, in lane
 * order (a ballot and a popcount give each its index, a shuffle from two register windows the
 * word); then each looks its code up in a shared-memory table (codes longer than TB by the
 * canonical search). A lane owns 4 adjacent symbols of each 128-symbol row and stores them with
 * one vector store. Where a 1-bit code carries nearly every symbol (Nyx-Quant), a row of it in
 * every lane is tried first in one go (dec_row_dominant: its words ordered without decoding, one
 * test of the lanes' bits). No search for code boundaries, no second pass: the encoder stored
 * the words in the order the lanes ask for them. Chunk checks are the CPU decoder's (lanes.c):
 * never a word past the chunk's count, all of them taken, leftover bits zero; a corrupt chunk
 * sets the flag (its output is garbage but stays inside the chunk's own place, which depends on
 * the symbol count alone).
 *
 * Encode: a count kernel sums each lane's code lengths into the chunk's word count, a scan
 * (CUB) gives each chunk its first word, then the write kernel replays the decoder's order: a
 * lane asks for its word k at the step whose code holds its bit 32k (ballot, popcount: the word's
 * index), and stores the word once its last bit is coded (by then its index is known: a code is
 * shorter than 32 bits, so a word is asked for strictly before it is complete, and at most one
 * is pending).
 */
#include "huffman/huffman_gpu.h"
#include "gpu/cuda_check.h"

#include <cub/device/device_scan.cuh>
#include <type_traits>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bits the decoder's table resolves: one more than the host decoder's first level, so that a
 * text's rare long codes send fewer steps to the canonical search (16 KiB a block). */
#define TB (GPZ_DECODE_TABLE_BITS + 1)
#define PEEK 24
#define WARPS 4     /* warps (chunks) a block of the encoder's kernels */
#define DEC_WARPS 8 /* the decoder's: each block loads the table once (measured: a block of 4
                     * spent ~15% of its time there, ncu) */
#define FULL 0xffffffffu

namespace {

/* ---- shared helpers ---- */

__device__ __forceinline__ uint32_t lane_id(void)
{
	return threadIdx.x & 31;
}

/* Bits of the lanes below this one (a special register: nothing to recompute a step). */
__device__ __forceinline__ uint32_t lanes_below(void)
{
	uint32_t m;
	asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
	return m;
}

/* Word i of a payload that may not be 4-byte aligned (little-endian u32 words). */
__device__ __forceinline__ uint32_t load_word(const uint8_t *p, uint64_t i, bool aligned)
{
	if (aligned)
		return __ldg(reinterpret_cast<const uint32_t *>(p) + i);
	const uint8_t *b = p + 4 * i;
	return (uint32_t)__ldg(b) | (uint32_t)__ldg(b + 1) << 8 | (uint32_t)__ldg(b + 2) << 16 |
	       (uint32_t)__ldg(b + 3) << 24;
}

__device__ __forceinline__ void store_word(uint8_t *p, uint64_t i, uint32_t v, bool aligned)
{
	if (aligned) {
		reinterpret_cast<uint32_t *>(p)[i] = v;
		return;
	}
	for (int k = 0; k < 4; k++)
		p[4 * i + k] = (uint8_t)(v >> (8 * k));
}

/* Symbol i of src (little-endian, any alignment): the slow path of the group loads. */
template <int W> __device__ __forceinline__ uint32_t load_sym(const uint8_t *src, uint64_t i)
{
	uint32_t v = 0;
	for (int k = 0; k < W; k++)
		v |= (uint32_t)__ldg(src + W * i + k) << (8 * k);
	return v;
}

/* Symbol i to dst a byte at a time: the slow path of the group stores. */
template <int W> __device__ __forceinline__ void store_sym(uint8_t *dst, uint64_t i, uint32_t v)
{
	for (int k = 0; k < W; k++)
		dst[W * i + k] = (uint8_t)(v >> (8 * k));
}

/* Symbols i .. i + 3 (i a multiple of 4) of src into v[], 0 for those at or past m: one vector
 * load when the group is whole and src is aligned to 4 symbols. */
template <int W> __device__ __forceinline__ void load_group(const uint8_t *src, uint32_t i,
                                                            uint32_t m, bool aligned,
                                                            uint32_t *v)
{
	if (aligned && i + 3 < m) {
		if constexpr (W == 1) {
			const uint32_t x = __ldg(reinterpret_cast<const uint32_t *>(src + i));
			for (int k = 0; k < 4; k++)
				v[k] = (x >> (8 * k)) & 255;
		} else if constexpr (W == 2) {
			const uint2 x = __ldg(reinterpret_cast<const uint2 *>(src + 2 * i));
			v[0] = x.x & 0xffff, v[1] = x.x >> 16, v[2] = x.y & 0xffff, v[3] = x.y >> 16;
		} else {
			const uint4 x = __ldg(reinterpret_cast<const uint4 *>(src + 4 * i));
			v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
		}
		return;
	}
	for (int k = 0; k < 4; k++)
		v[k] = i + k < m ? load_sym<W>(src, i + k) : 0;
}

/* Symbols v[0 .. 3] to o, aligned to 4 symbols: one vector store. */
template <int W> __device__ __forceinline__ void store_four(uint8_t *o, const uint32_t *v)
{
	if constexpr (W == 1)
		*reinterpret_cast<uint32_t *>(o) = v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24;
	else if constexpr (W == 2)
		*reinterpret_cast<uint2 *>(o) = make_uint2(v[0] | v[1] << 16, v[2] | v[3] << 16);
	else
		*reinterpret_cast<uint4 *>(o) = make_uint4(v[0], v[1], v[2], v[3]);
}

/* Symbols v[0 .. 3] to dst[i .. i + 3] (i a multiple of 4), those at or past m left alone: one
 * vector store when whole and aligned. */
template <int W> __device__ __forceinline__ void store_group(uint8_t *dst, uint32_t i, uint32_t m,
                                                             bool aligned, const uint32_t *v)
{
	if (aligned && i + 3 < m) {
		store_four<W>(dst + W * i, v);
		return;
	}
	for (int k = 0; k < 4; k++)
		if (i + k < m)
			store_sym<W>(dst, i + k, v[k]);
}

/* ---- decode ---- */

struct dec_params {
	const uint8_t *payload;
	uint64_t payload_words;
	const uint64_t *chunk_start;
	const uint32_t *table;  /* 2^TB entries: (symbol << 5) | length, 0 for longer codes */
	const uint32_t *sorted; /* symbols by (length, symbol) */
	uint8_t *dst;
	uint32_t *flag;
	uint64_t n, nchunks;
	int chunk_log, max_len;
	bool payload_aligned, dst_aligned;
	uint32_t limit[GPZ_MAX_CODE_LEN + 2];
	int32_t base[GPZ_MAX_CODE_LEN + 1];
	uint32_t dominant; /* the symbol of the 1-bit code 0, where the code has one */
};

/* What a block keeps in shared memory: the table and the canonical search's limits. */
struct dec_shared {
	uint32_t table[1u << TB];
	uint32_t limit[64]; /* the decoder's, then 2^24 (no code is longer) up to any avail */
	int32_t base[GPZ_MAX_CODE_LEN + 1];
};

/* The canonical search for a code longer than TB at the top of buf: (symbol << 5) | length. */
__device__ __noinline__ uint32_t long_code(const dec_params &kp, const dec_shared &sh,
                                           uint64_t buf)
{
	uint32_t v = (uint32_t)(buf >> (64 - PEEK));
	int l = TB + 1;
	while (l < kp.max_len && v >= sh.limit[l])
		l++;
	uint32_t sym = __ldg(kp.sorted + sh.base[l] + (int32_t)(v >> (PEEK - l)));
	return sym << 5 | (uint32_t)l;
}

/* (symbol << 5) | length of the code at the top of buf (all of it in the buffer). */
__device__ __forceinline__ uint32_t lookup(const dec_params &kp, const dec_shared &sh,
                                           uint64_t buf)
{
	uint32_t e = sh.table[(uint32_t)(buf >> 32) >> (32 - TB)];
	if (__builtin_expect(e == 0, 0))
		e = long_code(kp, sh, buf);
	return e;
}

/* Whether the code at the top of buf runs past its `avail` valid bits (zeros below them),
 * without finding the code: canonical codes of at most a bits are exactly the 24-bit
 * left-aligned values below limit[a], and a longer code's first a bits followed by zeros lie
 * at or above it. So the refill is decided before the table is read, and the table is read
 * once a step. limit[0] is 0 (an empty buffer always takes a word); from the longest length
 * on it is 2^24 (never). */
__device__ __forceinline__ bool runs_past(const dec_shared &sh, uint64_t buf, int avail)
{
	return (uint32_t)(buf >> (64 - PEEK)) >= sh.limit[avail];
}

/* Word i of a chunk of n words at p, or 0 past its end (the decoder then fails the chunk). */
__device__ __forceinline__ uint32_t chunk_word(const uint8_t *p, uint32_t i, uint32_t n,
                                               bool aligned)
{
	return i < n ? load_word(p, i, aligned) : 0;
}

/* A lane's decoding state within its chunk. */
struct lane_dec {
	uint64_t buf;  /* MSB-aligned bits */
	int avail;     /* valid bits in buf */
	uint32_t taken, wb, cur, nxt; /* words taken by the warp; the two windows (below) */
};

/*
 * One step of every lane (a lockstep warp): the code at the top of the lane's buffer; lanes
 * whose code is not wholly there take the chunk's next words in lane order. The words pass
 * through two 32-word windows held one word a lane (cur: words wb.., nxt: wb + 32..), loaded
 * whole and coalesced one window ahead, so a lane taking a word gets it by a shuffle. At most 32
 * words go a step and a window moves on as soon as the words taken pass it, so a step's words
 * lie within the two. Returns the symbol; `active` false: the lane has none this step.
 */
__device__ __forceinline__ uint32_t dec_step(const dec_params &kp, const dec_shared &sh,
                                             lane_dec &d, const uint8_t *words, uint32_t nwords,
                                             bool active)
{
	const uint32_t l = lane_id();
	const bool need = active && runs_past(sh, d.buf, d.avail);
	const uint32_t mask = __ballot_sync(FULL, need);
	if (mask) {
		/* the step's words are t .. t + popc - 1 of the windows (t = taken - wb < 32, at most
		 * 32 words): lane j holds word j or j + 32, never both wanted, so one shuffle serves */
		const uint32_t t = d.taken - d.wb, k = t + __popc(mask & lanes_below());
		const uint32_t x = __shfl_sync(FULL, l >= t ? d.cur : d.nxt, k & 31);
		/* avail < 24 here: the word goes right under the valid bits */
		if (need) {
			d.buf |= (uint64_t)x << (32 - d.avail);
			d.avail += 32;
		}
		d.taken += __popc(mask);
		if (d.taken - d.wb >= 32) {
			d.wb += 32;
			d.cur = d.nxt;
			d.nxt = chunk_word(words, d.wb + 32 + l, nwords, kp.payload_aligned);
		}
	}
	const uint32_t e = lookup(kp, sh, d.buf);
	const int len = active ? (int)(e & 31) : 0;
	d.buf <<= len;
	d.avail -= len;
	return e >> 5;
}

/*
 * A whole row of the dominant symbol (the 1-bit code 0) in every lane, tried before the steps
 * where the code has such a symbol. A 1-bit code runs past only an empty buffer, so a lane
 * holding a < 4 bits takes its word at step a and the row's words are ordered without decoding
 * anything; the word goes right under the valid bits whatever the step, so the lane's next four
 * bits are then the row's four codes, and one test that they are all zeros in every lane tells
 * whether the guess held. If it did, the state is the steps' (returns true); if not, the state
 * is left as it was.
 */
__device__ __forceinline__ bool dec_row_dominant(const dec_params &kp, lane_dec &d,
                                                 const uint8_t *words, uint32_t nwords)
{
	const uint32_t l = lane_id();
	const int j = d.avail < 4 ? d.avail : 4; /* the step that takes a word; 4: none */
	uint32_t total = 0, before = 0, mine = 0;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		const uint32_t m = __ballot_sync(FULL, j == k);
		if (j == k)
			before = total, mine = m;
		total += __popc(m);
	}
	uint64_t buf = d.buf;
	uint32_t x = 0;
	if (total) { /* at most 32 words, from the two windows as in dec_step */
		const uint32_t t = d.taken - d.wb, k = t + before + __popc(mine & lanes_below());
		x = __shfl_sync(FULL, l >= t ? d.cur : d.nxt, k & 31);
	}
	if (j < 4)
		buf |= (uint64_t)x << (32 - d.avail);
	if (!__all_sync(FULL, (buf >> 60) == 0))
		return false;
	d.buf = buf << 4;
	d.avail += (j < 4 ? 32 : 0) - 4;
	d.taken += total;
	if (d.taken - d.wb >= 32) {
		d.wb += 32;
		d.cur = d.nxt;
		d.nxt = chunk_word(words, d.wb + 32 + l, nwords, kp.payload_aligned);
	}
	return true;
}

/*
 * One chunk, one warp, in rows of 128 symbols: lane l decodes symbols 4l .. 4l + 3 of a row, a
 * step each, and stores the four with one vector store (the warp's stores are a row: coalesced).
 * Positions are 32-bit and chunk-relative (a chunk has at most 2^24 symbols), which keeps the
 * step short: the loop is bound by instructions issued (ncu).
 */
template <int W, bool DOM> __device__ void decode_chunk(const dec_params &kp,
                                                        const dec_shared &sh, uint64_t c)
{
	const uint32_t l = lane_id();
	const uint64_t first = c << kp.chunk_log;
	const uint32_t m = (uint32_t)min((uint64_t)1 << kp.chunk_log, kp.n - first);
	const uint64_t w0 = kp.chunk_start[c], w1 = kp.chunk_start[c + 1];
	/* a valid chunk has at most 24 bits a symbol plus a partial word a lane */
	if (w1 < w0 || w1 > kp.payload_words || w1 - w0 > (uint64_t)m + 32) {
		if (l == 0)
			*kp.flag = 1;
		return;
	}
	const uint8_t *words = kp.payload + 4 * w0;
	uint8_t *dst = kp.dst + first * W;
	const uint32_t nwords = (uint32_t)(w1 - w0), rows = (m + 127) / 128;
	lane_dec d;
	d.buf = 0;
	d.avail = 0;
	d.taken = d.wb = 0;
	d.cur = chunk_word(words, l, nwords, kp.payload_aligned);
	d.nxt = chunk_word(words, 32 + l, nwords, kp.payload_aligned);
	uint32_t v[4];
	/* whole rows, the lane's store address carried from row to row (computed afresh from the
	 * chunk's base, it was a third of a dominant row's instructions: ncu) */
	const uint32_t whole = m / 128;
	const bool aligned = kp.dst_aligned;
	uint8_t *o = dst + (size_t)(4 * l) * W;
	for (uint32_t r = 0; r < whole; r++, o += 128 * W) {
		if (DOM && dec_row_dominant(kp, d, words, nwords)) {
			v[0] = v[1] = v[2] = v[3] = kp.dominant;
		} else {
#pragma unroll
			for (int k = 0; k < 4; k++)
				v[k] = dec_step(kp, sh, d, words, nwords, true);
		}
		if (aligned)
			store_four<W>(o, v);
		else
			store_group<W>(dst, 128 * r + 4 * l, m, false, v);
	}
	if (whole < rows) { /* the last row, short */
		const uint32_t i = 128 * whole + 4 * l;
#pragma unroll
		for (int k = 0; k < 4; k++)
			v[k] = dec_step(kp, sh, d, words, nwords, i + k < m);
		store_group<W>(dst, i, m, aligned, v);
	}
	/* taken > nwords: a lane read past the chunk (zeros); leftover bits must be zero */
	const bool bad = d.taken != nwords || d.buf != 0;
	if (__any_sync(FULL, bad) && l == 0)
		*kp.flag = 1;
}

template <int W, bool DOM> __global__ void __launch_bounds__(32 * DEC_WARPS)
lanes_decode_kernel(const __grid_constant__ dec_params kp)
{
	__shared__ dec_shared sh;
	for (uint32_t i = threadIdx.x; i < (1u << TB); i += blockDim.x)
		sh.table[i] = __ldg(kp.table + i);
	if (threadIdx.x < 64)
		sh.limit[threadIdx.x] = threadIdx.x <= GPZ_MAX_CODE_LEN ? kp.limit[threadIdx.x] : 1u << PEEK;
	if (threadIdx.x < GPZ_MAX_CODE_LEN + 1)
		sh.base[threadIdx.x] = kp.base[threadIdx.x];
	__syncthreads();
	const uint64_t c = (uint64_t)blockIdx.x * DEC_WARPS + threadIdx.x / 32;
	if (c < kp.nchunks)
		decode_chunk<W, DOM>(kp, sh, c);
}

/* ---- encode ---- */

struct enc_params {
	const uint8_t *src;
	const uint32_t *table; /* (code << 8) | length */
	uint32_t *chunk_words;
	const uint64_t *chunk_first; /* exclusive scan of chunk_words */
	uint8_t *payload;
	uint64_t cap_words;
	uint64_t *total; /* [0] total words, [1] set when they pass cap_words */
	uint64_t n, nchunks;
	int chunk_log;
	bool payload_aligned, src_aligned;
};

template <int W> __global__ void __launch_bounds__(32 * WARPS)
lanes_count_kernel(const __grid_constant__ enc_params kp)
{
	const uint64_t c = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
	if (c >= kp.nchunks)
		return;
	const uint64_t first = c << kp.chunk_log;
	const uint32_t m = (uint32_t)min((uint64_t)1 << kp.chunk_log, kp.n - first);
	const uint8_t *src = kp.src + first * W;
	uint32_t bits = 0, v[4];
	for (uint32_t i = 4 * lane_id(); i < m; i += 128) {
		load_group<W>(src, i, m, kp.src_aligned, v);
		for (int k = 0; k < 4; k++)
			bits += i + k < m ? __ldg(kp.table + v[k]) & 255 : 0;
	}
	uint32_t words = (bits + 31) / 32;
	for (int o = 16; o; o >>= 1)
		words += __shfl_xor_sync(FULL, words, o);
	if (lane_id() == 0)
		kp.chunk_words[c] = words;
}

/* Rows (4 steps each) whose codes a lane fetches ahead, so that the loads of the next rows are
 * in flight while the lockstep part works through these. */
#define AHEAD 2
#define G (4 * AHEAD)

/* Codes (table entries; 0 past the chunk's end) of the lane's steps in rows r .. r + AHEAD - 1. */
template <int W> __device__ __forceinline__ void fetch(const enc_params &kp, const uint8_t *src,
                                                       uint32_t m, uint32_t r, uint32_t *e)
{
#pragma unroll
	for (int h = 0; h < AHEAD; h++) {
		const uint32_t i = 128 * (r + h) + 4 * lane_id();
		uint32_t v[4];
		load_group<W>(src, i, m, kp.src_aligned, v);
#pragma unroll
		for (int k = 0; k < 4; k++)
			e[4 * h + k] = i + k < m ? __ldg(kp.table + v[k]) : 0;
	}
}

template <int W> __global__ void __launch_bounds__(32 * WARPS)
lanes_write_kernel(const __grid_constant__ enc_params kp)
{
	const uint64_t c = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
	if (c >= kp.nchunks)
		return;
	const uint32_t l = lane_id(), lt = lanes_below();
	const uint64_t first = c << kp.chunk_log, base = kp.chunk_first[c];
	const uint32_t m = (uint32_t)min((uint64_t)1 << kp.chunk_log, kp.n - first);
	const uint32_t rows = (m + 127) / 128;
	if (c == kp.nchunks - 1 && l == 0) {
		kp.total[0] = base + kp.chunk_words[c];
		kp.total[1] = base + kp.chunk_words[c] > kp.cap_words;
	}
	if (base + kp.chunk_words[c] > kp.cap_words)
		return; /* the call fails with GPZ_ERR_DST_TOO_SMALL: write nothing past the end */
	const uint8_t *src = kp.src + first * W;
	uint8_t *out = kp.payload + 4 * base;
	/* bits coded so far, the bit the next word asked for starts at, words asked for by the
	 * warp, where this lane's pending word goes */
	uint32_t cum = 0, bound = 0, taken = 0, pend = 0;
	uint64_t acc = 0;
	int nacc = 0;
	uint32_t e[G], nx[G];
	fetch<W>(kp, src, m, 0, e);
	for (uint32_t r = 0; r < rows; r += AHEAD) {
		fetch<W>(kp, src, m, r + AHEAD, nx);
#pragma unroll
		for (int k = 0; k < G; k++) {
			const uint32_t len = e[k] & 255;
			const bool ask = cum + len > bound; /* len 0 (no symbol) never asks */
			const uint32_t mask = __ballot_sync(FULL, ask);
			const uint32_t pos = taken + __popc(mask & lt);
			taken += __popc(mask);
			/* no symbol: a zero code, whose shift by up to 64 gives zero (PTX clamps) */
			acc |= (uint64_t)(e[k] >> 8) << (64 - nacc - (int)len);
			nacc += (int)len;
			cum += len;
			if (nacc >= 32) { /* the word asked for earlier is complete */
				store_word(out, pend, (uint32_t)(acc >> 32), kp.payload_aligned);
				acc <<= 32;
				nacc -= 32;
			}
			if (ask) {
				pend = pos;
				bound += 32;
			}
		}
#pragma unroll
		for (int k = 0; k < G; k++)
			e[k] = nx[k];
	}
	if (nacc > 0)
		store_word(out, pend, (uint32_t)(acc >> 32), kp.payload_aligned);
}

/* f(std::integral_constant<int, w>{}): the kernels are instantiated per symbol width. */
template <typename F> void by_width(int w, F f)
{
	if (w == 1)
		f(std::integral_constant<int, 1>{});
	else if (w == 2)
		f(std::integral_constant<int, 2>{});
	else
		f(std::integral_constant<int, 4>{});
}

/* One warp a chunk, WARPS to a block. */
unsigned grid_for(uint64_t nchunks)
{
	return (unsigned)((nchunks + WARPS - 1) / WARPS);
}

} // namespace

/* ---- host: decode ---- */

/* The decoder's table: for each TB-bit value, (symbol << 5) | length of the code it starts with
 * when that is at most TB bits, else 0: the host decoder's first level (one bit shorter) and
 * the codes of exactly TB bits from the canonical limits. */
static void build_table(const gpz_decoder *dec, uint32_t *t)
{
	for (uint32_t x = 0; x < (1u << TB); x++) {
		const uint32_t e = dec->table[x >> (TB - GPZ_DECODE_TABLE_BITS)];
		const uint32_t v = x << (PEEK - TB);
		if (e || v >= dec->limit[TB])
			t[x] = e; /* 0: a longer code */
		else
			t[x] = dec->sorted[dec->base[TB] + (int32_t)x] << 5 | TB;
	}
}

/* Entries of sorted[] the device needs: all of it (long codes index it from the start). */
static uint32_t lanes_nsorted(const gpz_decoder *dec)
{
	uint32_t nsorted = 0;
	for (int l = 1; l <= dec->max_len; l++)
		nsorted = (uint32_t)(dec->base[l] + (int32_t)(dec->limit[l] >> (PEEK - l)));
	return nsorted;
}

extern "C" size_t gpz_gpu_decode_lanes_work(const gpz_decoder *dec)
{
	return 16 + ((size_t)4 << TB) + 4 * (size_t)lanes_nsorted(dec);
}

extern "C" gpz_result gpz_gpu_decode_lanes(const gpz_decoder *dec, const uint8_t *d_payload,
                                           size_t payload_size, const uint64_t *d_chunk_start,
                                           size_t n, int w, int chunk_log, uint8_t *d_dst,
                                           void *d_work, uint32_t *h_flag, gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (!dec || !d_chunk_start || (w != 1 && w != 2 && w != 4) || chunk_log < 5 ||
	    chunk_log > GPZ_MAX_CHUNK_LOG || dec->max_len < 1 || dec->max_len > GPZ_MAX_CODE_LEN ||
	    (payload_size && !d_payload) || (n && !d_dst))
		return GPZ_ERR_PARAM;
	if (h_flag)
		*h_flag = 0;
	if (n == 0)
		return GPZ_OK;
	/* one device block: the flag, the table, then sorted[] */
	const uint32_t nsorted = lanes_nsorted(dec);
	const size_t tbytes = (size_t)4 << TB, bytes = gpz_gpu_decode_lanes_work(dec);
	uint8_t *img = (uint8_t *)calloc(1, bytes), *d_img = (uint8_t *)d_work;
	if (!img)
		return GPZ_ERR_NOMEM;
	build_table(dec, (uint32_t *)(img + 16));
	memcpy(img + 16 + tbytes, dec->sorted, 4 * (size_t)nsorted);
	/* a stream-ordered allocation when no workspace is given: each one took ~0.2 ms on an
	 * H100, about a quarter of the kernel's time on 1 GiB of Nyx-Quant */
	gpz_result r = d_work ? GPZ_OK : gpz_cuda_result(cudaMallocAsync((void **)&d_img, bytes, st));
	/* img is pageable: the call returns once it is staged, so it may be freed below */
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(d_img, img, bytes, cudaMemcpyHostToDevice, st));
	free(img);
	uint32_t flag = 0;
	if (r == GPZ_OK) {
		dec_params kp;
		memset(&kp, 0, sizeof(kp));
		kp.payload = d_payload;
		kp.payload_words = payload_size / 4;
		kp.chunk_start = d_chunk_start;
		kp.flag = (uint32_t *)d_img;
		kp.table = (const uint32_t *)(d_img + 16);
		kp.sorted = (const uint32_t *)(d_img + 16 + tbytes);
		kp.dst = d_dst;
		kp.n = n;
		kp.nchunks = (n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
		kp.chunk_log = chunk_log;
		kp.max_len = dec->max_len;
		kp.payload_aligned = (uintptr_t)d_payload % 4 == 0;
		kp.dst_aligned = (uintptr_t)d_dst % (4 * (uintptr_t)w) == 0;
		memcpy(kp.limit, dec->limit, sizeof(kp.limit));
		memcpy(kp.base, dec->base, sizeof(kp.base));
		const unsigned grid = (unsigned)((kp.nchunks + DEC_WARPS - 1) / DEC_WARPS);
		/* rows of the dominant symbol first where a 1-bit code carries nearly everything:
		 * under 1.125 bits a symbol (Nyx-Quant: 1.06, 84% of its rows) */
		const bool dom = dec->zero_run && gpz_huff_nearly_one_bit((uint64_t)payload_size * 8, n);
		kp.dominant = dec->zero_sym;
		by_width(w, [&](auto W) {
			if (dom)
				lanes_decode_kernel<W.value, true><<<grid, 32 * DEC_WARPS, 0, st>>>(kp);
			else
				lanes_decode_kernel<W.value, false><<<grid, 32 * DEC_WARPS, 0, st>>>(kp);
		});
		r = gpz_cuda_result(cudaGetLastError());
		if (r == GPZ_OK)
			r = gpz_cuda_result(cudaMemcpyAsync(h_flag ? h_flag : &flag, d_img, 4,
			                                    cudaMemcpyDeviceToHost, st));
	}
	if (d_img && !d_work)
		cudaFreeAsync(d_img, st);
	if (h_flag && r == GPZ_OK)
		return GPZ_OK; /* the caller reads *h_flag after its synchronisation */
	cudaError_t e = cudaStreamSynchronize(st);
	if (r == GPZ_OK)
		r = gpz_cuda_result(e);
	if (r == GPZ_OK && flag)
		r = GPZ_ERR_CORRUPT;
	return r;
}

/* ---- host: encode ---- */

extern "C" size_t gpz_gpu_encode_lanes_work(size_t n, int chunk_log)
{
	const size_t nchunks = (n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
	size_t scan = 0;
	cub::DeviceScan::ExclusiveSum(nullptr, scan, (const uint32_t *)nullptr, (uint64_t *)nullptr,
	                              (int)(nchunks ? nchunks : 1));
	return gpz_align256(16) + gpz_align256(8 * nchunks) + gpz_align256(scan);
}

extern "C" gpz_result gpz_gpu_encode_lanes(const uint8_t *d_src, size_t n, int w,
                                           const uint32_t *d_table, int chunk_log,
                                           uint32_t *d_chunk_words, uint8_t *d_payload,
                                           size_t payload_cap, uint64_t *total_words,
                                           void *d_work, size_t work_bytes,
                                           gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if ((w != 1 && w != 2 && w != 4) || chunk_log < 5 || chunk_log > GPZ_MAX_CHUNK_LOG ||
	    !total_words || (n && (!d_src || !d_table || !d_chunk_words || !d_work)) ||
	    work_bytes < gpz_gpu_encode_lanes_work(n, chunk_log))
		return GPZ_ERR_PARAM;
	*total_words = 0;
	if (n == 0)
		return GPZ_OK;
	enc_params kp;
	memset(&kp, 0, sizeof(kp));
	uint8_t *wk = (uint8_t *)d_work;
	kp.src = d_src;
	kp.table = d_table;
	kp.chunk_words = d_chunk_words;
	kp.payload = d_payload;
	kp.cap_words = payload_cap / 4;
	kp.n = n;
	kp.nchunks = (n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
	kp.chunk_log = chunk_log;
	kp.payload_aligned = (uintptr_t)d_payload % 4 == 0;
	kp.src_aligned = (uintptr_t)d_src % (4 * (uintptr_t)w) == 0;
	kp.total = (uint64_t *)wk;
	uint64_t *d_first = (uint64_t *)(wk + gpz_align256(16));
	kp.chunk_first = d_first;
	void *d_scan = wk + gpz_align256(16) + gpz_align256(8 * kp.nchunks);
	size_t scan_bytes = work_bytes - gpz_align256(16) - gpz_align256(8 * kp.nchunks);
	const unsigned grid = grid_for(kp.nchunks);

	by_width(w, [&](auto W) { lanes_count_kernel<W.value><<<grid, 32 * WARPS, 0, st>>>(kp); });
	GPZ_LAUNCH_TRY();
	GPZ_CUDA_TRY(cub::DeviceScan::ExclusiveSum(d_scan, scan_bytes, d_chunk_words, d_first,
	                                           (int)kp.nchunks, st));
	by_width(w, [&](auto W) { lanes_write_kernel<W.value><<<grid, 32 * WARPS, 0, st>>>(kp); });
	GPZ_LAUNCH_TRY();
	uint64_t t[2];
	gpz_result r = gpz_cuda_d2h(t, kp.total, sizeof(t), st);
	if (r != GPZ_OK)
		return r;
	if (t[1])
		return GPZ_ERR_DST_TOO_SMALL;
	*total_words = t[0];
	return GPZ_OK;
}
