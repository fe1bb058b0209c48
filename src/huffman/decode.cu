/*
 * decode.cu - chunk-parallel, table-driven Huffman decoding on the GPU (gpz_gpu_decode).
 *
 * Output is byte for byte that of gpz_huff_decode (decode.c), and a stream is rejected exactly
 * when the CPU decoder rejects it: GPZ_ERR_CORRUPT when the chunk index's total passes the
 * payload, or when some chunk's 2^chunk_log (or fewer, for the last) symbols do not end exactly
 * at the next chunk's start.
 *
 * ---- Why not one thread per chunk ----
 * Nyx-Quant has 134M 2-byte symbols in 8192 chunks of 2^14. A thread per chunk gives 62 threads
 * per SM on an H200 (132 SMs): two warps, each walking a chain of dependent table lookups
 * (~50-60 cycles a step). The whole decode then takes one chunk's sequential time, 16384 / 3
 * symbols a step * ~55 cycles ~ 150 us for Nyx and 16384 / ~2 * ~55 ~ 230 us for text, with the
 * SMs nearly idle, stores 32 KB apart, and no way to hide the bit reader's global-load latency.
 * Larger chunk_log values (up to 24) make it proportionally worse.
 *
 * ---- The scheme: 128 sub-ranges per chunk, found by speculative decoding ----
 * A block of LANES = 128 threads decodes one chunk at a time (blocks are persistent and take
 * chunk after chunk; the code table is loaded into shared memory once per block). The chunk's
 * payload bits are first copied into shared memory with coalesced loads (chunks too long for
 * the STAGE_WORDS buffer are read from global memory instead, slower but the same code). The
 * chunk's bits [B0, B1) are cut into 128 sub-ranges of L bits (L a multiple of 8, so that
 * byte-aligned fixed-length codes start every sub-range on a codeword boundary, and of the gcd g
 * of the code's lengths: every codeword boundary lies a multiple of g past B0, so a start that
 * is not would never meet the true decode; a code of 3- and 6-bit codewords, say). Thread j owns
 * the codewords that START in its sub-range [p_j, E_j); its true first codeword starts at
 * e_{j-1}, the first boundary at or after p_j of thread j-1's decode.
 *
 *   1. Speculative count pass (D0): thread j decodes from p_j as if a codeword started there
 *      (thread 0 really does start at B0), counting codewords until its position reaches E_j.
 *      It records its end e_j (first boundary >= E_j) and count n_j. Nothing is written.
 *   2. Repair rounds: thread j compares its start with e_{j-1}. Where they differ it re-decodes
 *      from e_{j-1} and at the same time re-walks its own speculative decode from p_j one codeword
 *      at a time ("chasing": whichever is behind steps). Huffman codes self-synchronise: the two
 *      decodes soon land on a common boundary q, after which they are identical, so
 *      n_j = (true codewords before q) + n_j(D0) - (D0 codewords before q), and e_j is unchanged.
 *      If they have not met within CHASE_BITS the true decode simply runs on to E_j. A round ends
 *      with a block vote; rounds repeat while any start changed. Thread 0 is always right, so after
 *      round r threads 0..r are right: at most 128 rounds, normally one (plus the vote that ends
 *      it). Measured: Nyx needs a repair round in a third of its chunks, text in all of them, and
 *      1 resynchronisation in 600 misses the chase window.
 *      Codes that never resynchronise (a hostile stream chooses its code) would take one round
 *      per thread, 128 sub-range decodes one after the other. So from round MAP_ROUND on, threads
 *      look their answer up instead: first each thread decodes its sub-range from every start
 *      p_j + phi, phi < max_len a multiple of g (a true start lies within one codeword of p_j),
 *      each chasing D0 as above, all threads at once. A chunk then costs at most
 *      MAP_ROUND + max_len / g + 2 sub-range decodes whatever its code; the later rounds are a
 *      vote and a lookup each. The worst we could craft (bench/decode-worst.sh: all-ones 24-bit
 *      codewords behind 100 1-bit ones, 2^26 2-byte symbols, H100) takes 13-15x the time of an
 *      ordinary 11-bit code (7x per payload bit), where the rounds alone took up to 35x; lengths
 *      that share a factor (3/6, 9/18 bits), up to 23x before, now decode as fast as any code.
 *   3. Check: the counts must add up to the chunk's symbol count and thread 127's end must be B1.
 *      This is exactly the CPU's "m symbols end at B1" test. A failing chunk sets the corruption
 *      flag and writes nothing (so corrupt input can never write outside the chunk, or at all).
 *   4. A block-wide exclusive scan of n_j gives each thread its output offset; each thread decodes
 *      its sub-range again from its true start into a 16-byte register block that is stored with
 *      one aligned 16-byte store whenever it fills (only each thread's first and last block are
 *      partial, written with aligned 8/4/2/1-byte pieces that never touch a neighbour's bytes).
 *      Each thread's stores are sequential, so L2 merges them into whole sectors.
 *      A chunk of nearly all 1-bit codewords (at most 1.125 bits a symbol, with a run code) is
 *      first laid with the run symbol by the whole block in coalesced stores; the threads then
 *      store only their blocks that hold another symbol.
 *
 * Steps: the table (built here from the host decoder's first-level table; 16 KB, one copy per
 * block in shared memory) resolves up to 3 codewords of at most TB bits per lookup (2 for 4-byte
 * symbols) and also stores where the first two end, so a step can stop exactly at the end of a
 * sub-range, or take a single codeword (the chase), without a second table. Far from the end
 * (BULK_MARGIN) a step takes everything the lookup offers with no end logic. When some symbol
 * has the 1-bit codeword "0" (Nyx: p = 0.996), a step that sees a 0 bit takes the whole run of
 * zero bits (up to 32 symbols) with one count-leading-zeros, and the writer lays the repeated
 * symbol down a 16-byte block at a time. Codes longer than TB (rare by construction) use the
 * canonical search, unrolled against limits held in the kernel parameters, and sorted[] in
 * global memory. The bits are read from the staged words with two shared loads and a funnel
 * shift (the reader has no state), which also lets the chase step whichever decode is behind
 * without diverging.
 *
 * Scheduling: a persistent grid (7 blocks of 128 threads per SM, ~31 KB of shared memory each);
 * the first chunks go by block index, the rest by an atomic counter. Nyx gives 8192 chunks *
 * 128 = 1M sub-ranges, 100 MB of text 6104 * 128 = 780K, against 924 * 128 resident threads.
 *
 * Host side: no allocation in the common case. The table image (16.6 KB, plus sorted[] when it
 * has at most INLINE_SORTED entries) goes with one cudaMemcpyAsync into one of IMG_SLOTS static
 * device images, leased per call; the image also carries the corruption flag and the chunk
 * counter, which the upload clears. A call allocates (stream-ordered) only for a larger sorted[]
 * (4-byte alphabets) or when all slots are in use. Then one launch, one 4-byte copy back and
 * the stream synchronisation: ~20 us per call measured on top of the kernel.
 *
 * Measured on an H200 (whole call, median of 20; tests/gpu/test_gpu_decode.cu):
 *   Nyx-Quant, 2-byte, chunk_log 14, 1.006 bit/symbol:  0.47-0.49 ms = 545-570 GB/s of output
 *   debtext 100 MB, 1-byte, chunk_log 14, 5.21 bit/symbol: 0.65-0.67 ms = 150-155 GB/s (goal 200)
 * (kernel alone, Nsight Compute: Nyx ~0.42 ms, text ~0.63 ms.) The same call on 1 GiB
 * (gpz-bench --gpu -b W, H200, thirty-second session, after the changes below): Nyx-Quant
 * 1861-1906 GB/s, text 222 GB/s.
 * Where the time goes (Nsight Compute): Nyx was bound by its 16-byte per-thread stores (each
 * warp store touches 32 sectors; ~75 instructions a block for runs): whole run blocks stored
 * straight from the pattern, then the block-wide fill, took its kernel from 514 to 1753 GB/s
 * on an H100 (1 GiB, chunk_log 14; bench/results/2026-11-27-h100-decode-run-fill.md); the
 * writer without branches on its byte offset and eight staging loads in flight took text from
 * 199 to 223 and Nyx to 1800. Text is bound by issue (75% of slots): the write pass decodes
 * every symbol a second time (the count pass's symbols are not kept: no shared memory is left
 * for them at 7 blocks an SM), and the repair rounds take ~10% of the instructions. Ideas not
 * done yet: a 32-bit table for 1-byte symbols (fewer conflicts, 8 blocks per SM), writing
 * through shared memory in coalesced rows.
 *
 * Bit reading: MSB-first bits come from big-endian 32-bit words. d_payload need not be aligned:
 * words are taken from the 4-byte-aligned address below it, and every word that is not wholly
 * inside [d_payload, d_payload + payload_size) is assembled from the bytes that are (the rest
 * read as zeros, like the CPU reader), so no read leaves the payload. Bit positions are 64-bit;
 * within a chunk they are 32-bit offsets from B0 (a valid chunk has at most 2^24 * 24 bits, and
 * longer chunks are rejected before decoding).
 */
#include "huffman/huffman_gpu.h"
#include "gpu/cuda_check.h"
#include "gpu/warp.cuh"

#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#ifdef GPZ_DECODE_STATS
#include <stdio.h>
#include <time.h>
#endif

#define TB GPZ_DECODE_TABLE_BITS
#define TSIZE (1u << TB)
#define PEEK 24 /* bits compared by the canonical search for codes longer than TB */
#define LANES 128
#define BLOCKS_PER_SM 7
#define CHASE_BITS 256
/* Repair rounds before the phase maps are made. Valid text needs up to ~4 (2: 3 chunks of
 * debtext100m's 6104 took the maps, and their tail cost the whole call 0.4 ms of 0.66). */
#define MAP_ROUND 4
/* Payload words staged per chunk: 2^14 symbols at up to ~6.9 bits each. */
#define STAGE_WORDS 3584
/* Words a chunk of `bits` bits starting at bit vb0 (< 32) of its first word needs staged: the
 * readers look at most 64 bits past a position below the chunk's end. */
#define STAGE_NEED(vb0, bits) ((((uint64_t)(vb0) + (uint64_t)(bits)) >> 5) + 6)
/* sorted[] entries carried in a table image (larger sorted[] get an allocation of their own). */
#define INLINE_SORTED 3072
/* Table images in device memory (a static array, so no allocation), leased one per call in
 * flight; a call that finds none free allocates its own. */
#define IMG_SLOTS 16

#ifdef GPZ_DECODE_STATS
__device__ unsigned long long g_stats[8];
#define STAT(i, v) atomicAdd(&g_stats[i], (unsigned long long)(v))
#else
#define STAT(i, v) ((void)0)
#endif

/* Table entry: symbols packed from bit 0 (8, 16 or 20 bits each; unused slots zero), count at 48
 * (0: the first codeword is longer than TB), then the bit offsets at which the first and second
 * codewords end and the bits all of them take, 4 bits each at 50, 54 and 58. */
#define E_CNT(e) ((uint32_t)((e) >> 48) & 3u)
#define E_END1(e) ((uint32_t)((e) >> 50) & 15u)
#define E_END2(e) ((uint32_t)((e) >> 54) & 15u)
#define E_USED(e) ((uint32_t)((e) >> 58) & 15u)
/* A step far from the end of the range (at least this many bits before it) may take everything
 * its lookup offers: a run of at most 32, or codewords starting within the first TB bits. */
#define BULK_MARGIN 32

/* Everything the kernel needs from the host decoder, uploaded with one copy. The corruption
 * flag rides along, so the upload also clears it. */
struct alignas(16) dec_image { /* 16: the table is read with 16-byte loads */
	uint64_t table[TSIZE];
	int32_t base[GPZ_MAX_CODE_LEN + 1];
	uint32_t flag;             /* set to 1 by the kernel when some chunk is corrupt */
	uint32_t pad;
	unsigned long long next;   /* chunk counter for dynamic scheduling (less gridDim.x) */
	uint32_t sorted[INLINE_SORTED]; /* sorted[sorted_lo ..] when it fits (only that much is sent) */
};

/* The payload as seen by the bit readers. */
struct src_view {
	const uint32_t *words; /* payload address rounded down to 4 bytes */
	const uint8_t *bytes;  /* the payload */
	uint64_t head;         /* bytes between words and bytes (0..3) */
	uint64_t vend;         /* head + payload_size: end of the payload in word-space bytes */
	uint64_t full_lo;      /* first word lying wholly inside the payload */
	uint64_t full_hi;      /* one past the last such word */
};

struct kparams {
	const dec_image *img;
	const uint32_t *sorted; /* sorted[sorted_lo ..] of the host decoder */
	src_view src;
	const uint64_t *chunk_start;
	uint64_t n;
	uint64_t nchunks;
	uint64_t payload_bits;
	uint8_t *dst;
	uint32_t *flag;
	unsigned long long *next;
	uint64_t run_pattern; /* the 1-bit codeword's symbol repeated over 8 bytes */
	uint32_t sorted_lo;
	uint32_t gcd;   /* of the code's lengths: codeword boundaries lie a multiple of it past B0 */
	uint32_t align; /* lcm(8, gcd): sub-range lengths are multiples of it */
	int chunk_log;
	int max_len;
	int run;              /* some symbol has the 1-bit codeword "0" */
	/* limits of the canonical search, in the parameters so that the unrolled search reads them
	 * as constants (no divergent loop, no shared-memory loads) */
	uint32_t limit[GPZ_MAX_CODE_LEN + 2];
};

__shared__ uint64_t s_table[TSIZE];
__shared__ int32_t s_base[GPZ_MAX_CODE_LEN + 1];
__shared__ uint32_t s_stage[STAGE_WORDS];
__shared__ int32_t s_end[LANES];
__shared__ uint32_t s_warp[LANES / 32];
__shared__ unsigned long long s_next;

__device__ dec_image g_img[IMG_SLOTS];

__device__ __forceinline__ uint64_t umin64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

__device__ __forceinline__ uint32_t bswap32(uint32_t x)
{
	return __byte_perm(x, 0, 0x0123);
}

/* Big-endian word wi of the word space; bytes outside the payload read as zero and are never
 * loaded. */
__device__ __forceinline__ uint32_t load_word(const src_view &s, uint64_t wi)
{
	if (wi >= s.full_lo && wi < s.full_hi)
		return bswap32(__ldg(s.words + wi));
	uint32_t v = 0;
	for (uint32_t k = 0; k < 4; k++) {
		uint64_t b = 4 * wi + k;
		if (b >= s.head && b < s.vend)
			v |= (uint32_t)__ldg(s.bytes + (b - s.head)) << (24 - 8 * k);
	}
	return v;
}

/*
 * MSB-first bit readers. peek(pos) returns the 32 bits from chunk-relative bit pos; advance(n)
 * moves on by n bits, which the caller adds to pos itself. Every step takes at most 32 bits.
 */

/* From the chunk's words staged in shared memory (chunk bit 0 is bit vb0 of s_stage): two
 * shared loads and a funnel shift, no state. */
struct stage_reader {
	static constexpr bool stateless = true;
	uint32_t vb0;

	__device__ __forceinline__ void init(uint32_t vb0_, uint64_t, const src_view &, int32_t)
	{
		vb0 = vb0_;
	}
	__device__ __forceinline__ uint32_t peek(const src_view &, int32_t pos) const
	{
		uint32_t b = vb0 + (uint32_t)pos, i = b >> 5;
		return __funnelshift_l(s_stage[i + 1], s_stage[i], b & 31);
	}
	__device__ __forceinline__ void advance(uint32_t) {}
};

/* From global memory, for chunks too long to stage: 64 buffered bits, one word loaded ahead. */
struct global_reader {
	static constexpr bool stateless = false;
	uint64_t buf;
	uint64_t wi; /* word index of nextw */
	uint32_t nb;
	uint32_t nextw;

	__device__ __forceinline__ void init(uint32_t, uint64_t B0, const src_view &s, int32_t rel)
	{
		uint64_t vb = B0 + (uint64_t)rel + 8 * s.head;
		uint32_t off = (uint32_t)(vb & 31);
		uint64_t w = vb >> 5;
		uint32_t w0 = load_word(s, w), w1 = load_word(s, w + 1);
		nextw = load_word(s, w + 2);
		wi = w + 2;
		buf = ((((uint64_t)w0) << 32) | w1) << off;
		nb = 64 - off;
	}
	__device__ __forceinline__ uint32_t peek(const src_view &s, int32_t)
	{
		if (nb < 32) {
			buf |= (uint64_t)nextw << (32 - nb);
			nb += 32;
			wi++;
			nextw = load_word(s, wi);
		}
		return (uint32_t)(buf >> 32);
	}
	__device__ __forceinline__ void advance(uint32_t n)
	{
		buf <<= n;
		nb -= n;
	}
};

/* What one decode step took. */
struct step_out {
	uint32_t bits; /* bits consumed */
	uint32_t k;    /* codewords taken */
	uint64_t v;    /* their symbols, k * W little-endian bytes (unless run) */
	bool run;      /* k copies of the 1-bit codeword's symbol */
};

/*
 * One decode step at pos (< end): takes the codewords that start before end (only the first one
 * if single): a run of the 1-bit codeword "0" (up to 32), or those of one table lookup, or one
 * long codeword.
 */
template <int W, bool SYM, bool BULK, class R>
__device__ __forceinline__ step_out step(const kparams &kp, R &r, int32_t pos, int32_t end,
                                         bool single)
{
	step_out o;
	const uint32_t x = r.peek(kp.src, pos);
	const int32_t rem = end - pos; /* >= 1 */
	o.run = false;
	o.v = 0;
	if (kp.run && (x >> 31) == 0) {
		uint32_t z = (uint32_t)__clz(x); /* 32 when x == 0 */
		o.k = BULK ? z : single ? 1u : (uint32_t)min((int32_t)z, rem);
		o.bits = o.k;
		o.run = true;
	} else {
		uint64_t e = s_table[x >> (32 - TB)];
		uint32_t c = E_CNT(e);
		if (BULK && c != 0) {
			o.k = c;
			o.bits = E_USED(e);
			if (SYM)
				o.v = W == 4 ? (e & 0xfffffu) | (((e >> 20) & 0xfffffu) << 32)
				             : e & 0xffffffffffffull;
		} else if (c != 0) {
			uint32_t o1 = E_END1(e), o2 = E_END2(e);
			/* the second codeword starts at o1, the third at o2; t2 implies t1 */
			bool t1 = !single && c > 1 && (int32_t)o1 < rem;
			bool t2 = !single && c > 2 && (int32_t)o2 < rem;
			o.k = 1 + (uint32_t)t1 + (uint32_t)t2;
			o.bits = t2 ? E_USED(e) : t1 ? o2 : o1;
			if (SYM) {
				if (W == 4)
					o.v = (e & 0xfffffu) | (t1 ? ((e >> 20) & 0xfffffu) << 32 : 0);
				else
					o.v = e & ((1ull << (8 * W * o.k)) - 1);
			}
		} else {
			/* Longer than TB: canonical search. limit[] does not decrease with the length,
			 * so the length is TB + 1 plus the number of limits top reaches; codes are
			 * complete (checked by gpz_decoder_init), so it is at most max_len. */
			uint32_t top = x >> (32 - PEEK), len = TB + 1;
#pragma unroll
			for (int l = TB + 1; l < GPZ_MAX_CODE_LEN; l++)
				len += top >= kp.limit[l] ? 1u : 0u;
			o.k = 1;
			o.bits = len;
			if (SYM) {
				int32_t idx = s_base[len] + (int32_t)(top >> (PEEK - len));
				o.v = __ldg(kp.sorted + (idx - (int32_t)kp.sorted_lo));
			}
		}
	}
	r.advance(o.bits);
	return o;
}

/* Bytes [a, b) (0 <= a <= b <= 8) of a 64-bit word set. */
__device__ __forceinline__ uint64_t byte_mask(uint32_t a, uint32_t b)
{
	uint64_t hi = b >= 8 ? ~0ull : (1ull << (8 * b)) - 1;
	uint64_t lo = a >= 8 ? ~0ull : (1ull << (8 * a)) - 1;
	return hi & ~lo;
}

/* Output of one thread: a 16-byte block (lo, hi) aligned in the destination, filled from byte f.
 * Bytes below lim of the current block and from end on belong to other threads: never written.
 * PRE: the block has already laid the run pattern over the whole chunk (fill_runs). Then lo:hi
 * start as the pattern, a run only moves f on, another symbol replaces its bytes, and only the
 * blocks that hold one (dirty) are stored. */
template <bool PRE> struct out_writer {
	uint8_t *blk;
	const uint8_t *end;
	uint64_t lo, hi;
	uint32_t f, lim;
	bool dirty;

	__device__ __forceinline__ void init(uint8_t *start, const uint8_t *stop, uint64_t pat)
	{
		uint32_t a = (uint32_t)((uintptr_t)start & 15);
		blk = start - a;
		end = stop;
		lo = hi = PRE ? pat : 0;
		f = lim = a;
		dirty = false;
	}
	/* Bytes [a, b) of the block, in naturally aligned pieces. */
	__device__ void store_part(uint32_t a, uint32_t b)
	{
		while (a < b) {
			uint64_t v = a < 8 ? lo : hi;
			uint32_t sh = (a & 7) * 8;
			if ((a & 7) == 0 && a + 8 <= b) {
				*reinterpret_cast<uint64_t *>(blk + a) = v;
				a += 8;
			} else if ((a & 3) == 0 && a + 4 <= b) {
				*reinterpret_cast<uint32_t *>(blk + a) = (uint32_t)(v >> sh);
				a += 4;
			} else if ((a & 1) == 0 && a + 2 <= b) {
				*reinterpret_cast<uint16_t *>(blk + a) = (uint16_t)(v >> sh);
				a += 2;
			} else {
				blk[a] = (uint8_t)(v >> sh);
				a += 1;
			}
		}
	}
	__device__ __forceinline__ uint32_t room() const
	{
		ptrdiff_t r = end - blk;
		return r <= 0 ? 0u : r >= 16 ? 16u : (uint32_t)r;
	}
	/* A thread's first block (lim > 0) or its last (past end). */
	__device__ void flush_rare()
	{
		if (dirty || !PRE)
			store_part(lim, room());
	}
	__device__ __forceinline__ void flush_block()
	{
		if (lim == 0 && end - blk >= 16) {
			if (dirty || !PRE)
				*reinterpret_cast<ulonglong2 *>(blk) = make_ulonglong2(lo, hi);
		} else {
			flush_rare();
		}
		dirty = false;
	}
	/* Append nbytes (1..8) bytes of v (zero above them). The lanes of a warp sit at every byte f
	 * of their blocks, so v is placed with selects, not branches on f (on text, branching there
	 * and the store's rare cases inlined beside it cost a quarter of the write pass, by ncu). */
	__device__ __forceinline__ void put(uint64_t v, uint32_t nbytes, uint64_t pat)
	{
		const uint32_t sh = (f & 7) * 8;
		const uint64_t a = v << sh, b = (v >> 1) >> (63 - sh); /* b: v >> (64 - sh), 0 if sh = 0 */
		const bool low = f < 8; /* then v ends within hi (f + nbytes < 16) */
		if constexpr (PRE) { /* the pattern's bytes under v go */
			const uint64_t m = nbytes >= 8 ? ~0ull : (1ull << (8 * nbytes)) - 1;
			const uint64_t ma = m << sh, mb = (m >> 1) >> (63 - sh);
			lo &= low ? ~ma : ~0ull;
			hi &= low ? ~mb : ~ma;
		}
		lo |= low ? a : 0;
		hi |= low ? b : a;
		f += nbytes;
		dirty = true;
		if (f >= 16) {
			flush_block();
			f -= 16; /* < 8: bytes of v past the stored block */
			dirty = f != 0;
			uint32_t fit = nbytes - f; /* bytes of v that went into the stored block: 1..nbytes */
			lo = fit >= 8 ? 0 : v >> (fit * 8);
			hi = 0;
			if constexpr (PRE) {
				lo |= pat & (~0ull << (8 * f));
				hi = pat;
			}
			lim = 0;
			blk += 16;
		}
	}
	/* Append nbytes of a pattern with the symbol width as period; pat holds 8 bytes of it as
	 * they fall at 8-aligned destination addresses. Prefilled, the bytes are there already.
	 * Else whole blocks are stored straight from the pattern (lim is 0 whenever f is): a zero
	 * run of Nyx-Quant is 64 bytes a step, and the masked path below cost ~75 instructions per
	 * 16 bytes (46% of the kernel's, by ncu). */
	__device__ __forceinline__ void put_run(uint64_t pat, uint32_t nbytes)
	{
		if constexpr (PRE) { /* the run's blocks after the current one hold nothing else */
			const uint32_t t = f + nbytes;
			if (t >= 16) {
				flush_block();
				blk += 16 * (size_t)(t >> 4);
				lo = hi = pat;
				lim = 0;
			}
			f = t & 15;
		} else {
			put_run_stored(pat, nbytes);
		}
	}
	__device__ __forceinline__ void put_run_stored(uint64_t pat, uint32_t nbytes)
	{
		for (;;) {
			if (f == 0 && nbytes >= 16) {
				const ptrdiff_t room_blocks = (end - blk) >> 4;
				uint32_t k = nbytes >> 4;
				if (room_blocks < (ptrdiff_t)k)
					k = room_blocks > 0 ? (uint32_t)room_blocks : 0u;
				for (uint32_t i = 0; i < k; i++)
					reinterpret_cast<ulonglong2 *>(blk)[i] = make_ulonglong2(pat, pat);
				blk += 16 * (size_t)k;
				nbytes -= 16 * k;
			}
			if (nbytes == 0)
				return;
			uint32_t take = 16 - f < nbytes ? 16 - f : nbytes, b = f + take;
			lo |= pat & byte_mask(f < 8 ? f : 8, b < 8 ? b : 8);
			hi |= pat & byte_mask(f > 8 ? f - 8 : 0, b > 8 ? b - 8 : 0);
			f = b;
			nbytes -= take;
			if (f == 16) {
				flush_block();
				f = 0;
				lo = hi = 0;
				lim = 0;
				blk += 16;
			}
		}
	}
	__device__ __forceinline__ void finish()
	{
		uint32_t b = f < room() ? f : room();
		if (b > lim && (dirty || !PRE))
			store_part(lim, b);
	}
};

/* The run pattern over bytes [a, a + len) by all LANES threads: 16-byte stores, consecutive
 * threads at consecutive addresses, and single bytes for the unaligned head and tail. */
__device__ __forceinline__ void fill_runs(uint8_t *a, uint64_t len, uint64_t pat)
{
	const uint32_t j = threadIdx.x;
	uint8_t *b = a + len;
	uintptr_t lo = ((uintptr_t)a + 15) & ~(uintptr_t)15, hi = (uintptr_t)b & ~(uintptr_t)15;
	if (lo > hi)
		lo = hi = (uintptr_t)b; /* no whole block: the head takes every byte */
	const uint32_t head = (uint32_t)(lo - (uintptr_t)a), tail = (uint32_t)((uintptr_t)b - hi);
	if (j < head)
		a[j] = (uint8_t)(pat >> (8 * (((uintptr_t)a + j) & 7)));
	else if (j >= 16 && j - 16 < tail)
		((uint8_t *)hi)[j - 16] = (uint8_t)(pat >> (8 * ((hi + j - 16) & 7)));
	ulonglong2 *blk = reinterpret_cast<ulonglong2 *>(lo);
	const uint64_t nblk = (hi - lo) / 16;
	for (uint64_t i = j; i < nblk; i += LANES)
		blk[i] = make_ulonglong2(pat, pat);
}

/*
 * Decode the codewords that start in [pos, end) (positions relative to B0), counting them into
 * cnt and, if WRITE, appending their symbols to wr. pos ends at the first boundary >= end. The
 * codewords taken (hence pos and cnt) do not depend on WRITE.
 */
template <int W, bool WRITE, bool BULK, class R, class WR>
__device__ __forceinline__ void decode_step(const kparams &kp, R &r, int32_t &pos, int32_t end,
                                            uint32_t &cnt, WR *wr)
{
	step_out o = step<W, WRITE, BULK>(kp, r, pos, end, false);
	pos += (int32_t)o.bits;
	cnt += o.k;
	if (WRITE) {
		if (o.run)
			wr->put_run(kp.run_pattern, o.k * W);
		else
			wr->put(o.v, o.k * W, kp.run_pattern);
	}
}

template <int W, bool WRITE, class R, class WR>
__device__ __forceinline__ void decode_range(const kparams &kp, R &r, int32_t &pos, int32_t end,
                                             uint32_t &cnt, WR *wr)
{
	while (end - pos > BULK_MARGIN)
		decode_step<W, WRITE, true>(kp, r, pos, end, cnt, wr);
	while (pos < end)
		decode_step<W, WRITE, false>(kp, r, pos, end, cnt, wr);
}

/* The write pass of one sub-range: its bytes [dst, dst + bytes). */
template <int W, bool PRE, class R>
__device__ __forceinline__ void write_range(const kparams &kp, R &r, int32_t &pos, int32_t end,
                                            uint32_t &cnt, uint8_t *dst, uint64_t bytes)
{
	out_writer<PRE> wr;
	wr.init(dst, dst + bytes, kp.run_pattern);
	decode_range<W, true>(kp, r, pos, end, cnt, &wr);
	wr.finish();
}

/*
 * Repair of one sub-range [p, end): the true decode starts at want (>= p); the speculative decode
 * D0 from p ended at e0 with n0 codewords. Returns the true end and count.
 */
template <int W, class R>
__device__ void resync(const kparams &kp, uint32_t vb0, uint64_t B0, int32_t p, int32_t end,
                       int32_t want, int32_t e0, uint32_t n0, int32_t &e_out, uint32_t &n_out)
{
	if (want >= end) {
		e_out = want;
		n_out = 0;
		return;
	}
	R rt, ra;
	rt.init(vb0, B0, kp.src, want);
	ra.init(vb0, B0, kp.src, p);
	int32_t tp = want, a = p;
	uint32_t ct = 0, ca = 0;
	while (tp < end && tp - want < CHASE_BITS) {
		if (a == tp) { /* synchronised: from here on the true decode is D0 */
			e_out = e0;
			n_out = ct + (n0 - ca);
			return;
		}
		const bool adv_a = a < tp;
		if constexpr (R::stateless) {
			/* one step at whichever position is behind: no divergence */
			uint32_t b = step<W, false, false>(kp, rt, adv_a ? a : tp, end, true).bits;
			a += adv_a ? (int32_t)b : 0;
			ca += adv_a ? 1u : 0u;
			tp += adv_a ? 0 : (int32_t)b;
			ct += adv_a ? 0u : 1u;
		} else if (adv_a) {
			a += (int32_t)step<W, false, false>(kp, ra, a, end, true).bits;
			ca++;
		} else {
			tp += (int32_t)step<W, false, false>(kp, rt, tp, end, true).bits;
			ct++;
		}
	}
	STAT(3, 1);
	decode_range<W, false>(kp, rt, tp, end, ct, (out_writer<false> *)nullptr);
	e_out = tp;
	n_out = ct;
}

/*
 * The repair rounds from round MAP_ROUND on (all LANES threads call it, with the state of the
 * round that found a change). First each thread decodes its sub-range from every start p + phi,
 * phi < max_len: a true start lies within the longest codeword of p (the codeword before it
 * starts below p), and only starts a multiple of the lengths' gcd past p (p is one). Then each
 * round only looks its answer up. Out of line: the common rounds do not carry it.
 * Map entries are count << 5 | (end - range end): a decode stops within a codeword (< 24 bits)
 * of the range's end, and a sub-range holds fewer than 2^27 codewords.
 */
template <int W, class R>
__device__ __noinline__ void repair_by_maps(const kparams &kp, uint32_t vb0, uint64_t B0,
                                            int32_t p, int32_t end, int32_t e0, uint32_t n0,
                                            int32_t &cur, int32_t &e, uint32_t &cnt)
{
	uint32_t map[GPZ_MAX_CODE_LEN];
	const int32_t len = min(kp.max_len, end - p), g = (int32_t)kp.gcd;
	for (int32_t phi = 0; phi < len; phi += g) {
		int32_t pe = e0;
		uint32_t pn = n0;
		if (phi)
			resync<W, R>(kp, vb0, B0, p, end, p + phi, e0, n0, pe, pn);
		map[phi / g] = pn << 5 | (uint32_t)(pe - end);
	}
	const uint32_t j = threadIdx.x;
	for (;;) {
		const int32_t want = j ? s_end[j - 1] : 0;
		if (want != cur) {
			const uint32_t phi = (uint32_t)(want - p); /* want >= p, see above */
			if (phi < (uint32_t)len && phi % (uint32_t)g == 0) {
				e = end + (int32_t)(map[phi / g] & 31);
				cnt = map[phi / g] >> 5;
			} else {
				resync<W, R>(kp, vb0, B0, p, end, want, e0, n0, e, cnt);
			}
			cur = want;
		}
		__syncthreads(); /* every s_end read */
		s_end[j] = e;
		__syncthreads();
		if (!__syncthreads_or((j ? s_end[j - 1] : 0) != cur))
			return;
	}
}

/* Steps 1-5 of the scheme for one chunk (all LANES threads call it). */
template <int W, class R>
__device__ __forceinline__ void decode_chunk(const kparams &kp, uint32_t vb0, uint64_t B0,
                                             int32_t bits, uint64_t m, uint64_t first)
{
	const uint32_t j = threadIdx.x;
	const uint64_t A = kp.align;
	const int32_t L = (int32_t)((((uint64_t)bits + LANES - 1) / LANES + A - 1) / A * A);
	const int32_t p = (int32_t)umin64((uint64_t)j * (uint64_t)L, (uint64_t)bits);
	const int32_t end =
		j == LANES - 1 ? bits : (int32_t)umin64((uint64_t)(j + 1) * (uint64_t)L, (uint64_t)bits);

	/* 1. speculative count pass */
	int32_t e0 = p;
	uint32_t n0 = 0;
	if (p < end) {
		R r;
		r.init(vb0, B0, kp.src, p);
		decode_range<W, false>(kp, r, e0, end, n0, (out_writer<false> *)nullptr);
	}

	/* 2. repair rounds; from round MAP_ROUND on by repair_by_maps */
	int32_t cur = p, e = e0;
	uint32_t cnt = n0;
	for (uint32_t round = 0;; round++) {
		s_end[j] = e;
		__syncthreads();
		int32_t want = j ? s_end[j - 1] : 0;
		int changed = want != cur;
		if (!__syncthreads_or(changed))
			break;
		if (j == 0)
			STAT(1, 1);
		if (round == MAP_ROUND) { /* uniform over the block */
			if (j == 0)
				STAT(5, 1);
			repair_by_maps<W, R>(kp, vb0, B0, p, end, e0, n0, cur, e, cnt);
			break;
		}
		if (changed) {
			STAT(2, 1);
			resync<W, R>(kp, vb0, B0, p, end, want, e0, n0, e, cnt);
			cur = want;
		}
	}

	/* 3. check and 4. scan */
	const uint32_t incl = gpz_warp_scan(cnt);
	const uint32_t lane = j & 31, warp = j >> 5;
	if (lane == 31)
		s_warp[warp] = incl;
	__syncthreads();
	uint32_t before = 0, total = 0;
	for (uint32_t w = 0; w < LANES / 32; w++) {
		uint32_t x = s_warp[w];
		before += w < warp ? x : 0;
		total += x;
	}
	if (total != m || s_end[LANES - 1] != bits) { /* uniform over the block */
		if (j == 0)
			*kp.flag = 1;
		return;
	}

	/* 5. write pass. A chunk of nearly all 1-bit codewords (at most 1.125 bits a symbol) is
	 * first laid with the run pattern by the whole block in coalesced stores, and the threads
	 * then store only their blocks that hold other symbols: each thread's own 16-byte stores,
	 * 256 bytes apart across a warp, were the kernel's limit (ncu: stalled on their issue). */
	const bool prefill = kp.run && gpz_huff_nearly_one_bit(bits, m); /* uniform over the block */
	if (prefill) {
		fill_runs(kp.dst + first * W, m * W, kp.run_pattern);
		__syncthreads(); /* the pattern lies under the threads' own stores */
	}
	if (cnt) {
		uint64_t o = (first + before + incl - cnt) * (uint64_t)W;
		R r;
		r.init(vb0, B0, kp.src, cur);
		int32_t pos = cur;
		uint32_t k = 0;
		if (prefill)
			write_range<W, true>(kp, r, pos, end, k, kp.dst + o, (uint64_t)cnt * W);
		else
			write_range<W, false>(kp, r, pos, end, k, kp.dst + o, (uint64_t)cnt * W);
	}
}

/* The chunk's `need` words from word wb into s_stage, eight loads in flight a thread before any
 * is used where they all lie inside the payload (loaded one at a time, text's ~21 words a
 * thread each waited out a load's latency: 10% of the kernel's stall samples, by ncu). */
__device__ __forceinline__ void stage_words(const src_view &s, uint64_t wb, uint32_t need)
{
	const uint32_t j = threadIdx.x;
	if (wb >= s.full_lo && wb + need <= s.full_hi) {
		for (uint32_t i = j; i < need; i += 8 * LANES) {
			uint32_t v[8];
#pragma unroll
			for (uint32_t k = 0; k < 8; k++)
				v[k] = i + k * LANES < need ? __ldg(s.words + wb + i + k * LANES) : 0u;
#pragma unroll
			for (uint32_t k = 0; k < 8; k++)
				if (i + k * LANES < need)
					s_stage[i + k * LANES] = bswap32(v[k]);
		}
	} else {
		for (uint32_t i = j; i < need; i += LANES)
			s_stage[i] = load_word(s, wb + i);
	}
}

/* One chunk: the checks, staging of its payload, then steps 1-5. */
template <int W>
__device__ __forceinline__ void decode_one_chunk(const kparams &kp, uint64_t c, uint64_t cs)
{
	const uint32_t j = threadIdx.x;
	{ /* the block's threads all take the same path through here */
		const uint64_t first = c << kp.chunk_log;
		const uint64_t m = kp.n - first < cs ? kp.n - first : cs;
		const uint64_t B0 = kp.chunk_start[c], B1 = kp.chunk_start[c + 1];

		/* Checks every chunk the CPU accepts passes (its m codewords of 1..max_len bits end at
		 * B1, and chunk starts then increase up to a total <= the payload), bounding the work. */
		if (B1 < B0 || B1 - B0 < m || B1 - B0 > m * (uint64_t)kp.max_len ||
		    B1 > kp.payload_bits) {
			if (j == 0)
				*kp.flag = 1;
			return; /* uniform over the block */
		}
		const int32_t bits = (int32_t)(B1 - B0);
		const uint64_t vb = B0 + 8 * kp.src.head;
		const uint32_t vb0 = (uint32_t)(vb & 31);
		const uint64_t need = STAGE_NEED(vb0, bits);
		if (j == 0)
			STAT(0, 1);
		if (need <= STAGE_WORDS) {
			stage_words(kp.src, vb >> 5, (uint32_t)need);
			__syncthreads();
			decode_chunk<W, stage_reader>(kp, vb0, B0, bits, m, first);
		} else {
			if (j == 0)
				STAT(4, 1);
			decode_chunk<W, global_reader>(kp, vb0, B0, bits, m, first);
		}
	}
}

/* The image's table (16 bytes at a time) and bases into shared memory. */
__device__ __forceinline__ void load_image(const dec_image *img)
{
	const uint4 *src = reinterpret_cast<const uint4 *>(img->table);
	uint4 *dst = reinterpret_cast<uint4 *>(s_table);
	for (uint32_t i = threadIdx.x; i < sizeof(s_table) / 16; i += LANES)
		dst[i] = __ldg(src + i);
	if (threadIdx.x < GPZ_MAX_CODE_LEN + 1)
		s_base[threadIdx.x] = img->base[threadIdx.x];
}

template <int W>
/* __grid_constant__: repair_by_maps (out of line) takes kp's address, which without it makes a
 * copy in local memory that every step then reads (measured: 1 GB of local loads for 100 MB of
 * text). */
__global__ void __launch_bounds__(LANES, BLOCKS_PER_SM)
decode_kernel(const __grid_constant__ kparams kp)
{
	const uint32_t j = threadIdx.x;

	load_image(kp.img);
	if (blockIdx.x == 0 && j == 0 && kp.chunk_start[kp.nchunks] > kp.payload_bits)
		*kp.flag = 1; /* the CPU decoder's first check */

	/* Chunks are handed out dynamically: the first gridDim.x by block index, the rest by an
	 * atomic counter, so blocks that drew slow (unstaged, resynchronising) chunks take fewer. */
	const uint64_t cs = (uint64_t)1 << kp.chunk_log;
	for (uint64_t c = blockIdx.x; c < kp.nchunks; c = s_next) {
		__syncthreads(); /* the previous chunk is done with the stage, s_end, s_warp, s_next */
		if (j == 0)
			s_next = gridDim.x + atomicAdd(kp.next, 1ull);
		decode_one_chunk<W>(kp, c, cs);
		__syncthreads(); /* s_next is visible */
	}
}

__shared__ kparams s_kp;
__shared__ unsigned long long s_unit;

/* Many frames' chunks in one launch (gpz_gpu_decode_frames): frame f's kparams at fkp[f], its
 * chunks cut into units of `unit` chunks, unit_base[f] its first unit. A block takes a unit at
 * a time (an atomic counter) and loads its frame's parameters and table when the frame is not
 * the one it has, so a table load serves a unit's chunks, not one. */
template <int W>
__global__ void __launch_bounds__(LANES, BLOCKS_PER_SM)
decode_frames_kernel(const kparams *fkp, const uint64_t *unit_base, uint64_t nf, uint64_t units,
                     uint32_t unit, unsigned long long *counter)
{
	const uint32_t j = threadIdx.x;
	uint64_t have = ~(uint64_t)0;
	for (;;) {
		__syncthreads(); /* the previous unit is done with s_kp, the table and s_unit */
		if (j == 0)
			s_unit = atomicAdd(counter, 1ull);
		__syncthreads();
		const uint64_t u = s_unit;
		if (u >= units)
			return;
		uint64_t lo = 0, hi = nf - 1; /* the last frame whose first unit is <= u */
		while (lo < hi) {
			uint64_t mid = (lo + hi + 1) / 2;
			if (unit_base[mid] <= u)
				lo = mid;
			else
				hi = mid - 1;
		}
		if (lo != have) {
			have = lo;
			if (j == 0)
				s_kp = fkp[lo];
			__syncthreads();
			load_image(s_kp.img);
			__syncthreads();
		}
		const uint64_t c0 = (u - unit_base[lo]) * unit;
		if (c0 == 0 && j == 0 && s_kp.chunk_start[s_kp.nchunks] > s_kp.payload_bits)
			*s_kp.flag = 1; /* the CPU decoder's first check */
		const uint64_t cs = (uint64_t)1 << s_kp.chunk_log;
		const uint64_t c1 = c0 + unit < s_kp.nchunks ? c0 + unit : s_kp.nchunks;
		for (uint64_t c = c0; c < c1; c++) {
			if (c > c0)
				__syncthreads(); /* the previous chunk is done with the stage, s_end, s_warp */
			decode_one_chunk<W>(s_kp, c, cs);
		}
	}
}

/* Kernel launch geometry, cached per device (idempotent, so racing first calls are harmless). */
template <int W> static gpz_result launch(const kparams &kp, cudaStream_t st)
{
	static int cached_sms[64], cached_per_sm[64];
	int dev = 0;
	GPZ_CUDA_TRY(cudaGetDevice(&dev));
	int sms = dev < 64 ? __atomic_load_n(&cached_sms[dev], __ATOMIC_RELAXED) : 0;
	int per_sm = dev < 64 ? __atomic_load_n(&cached_per_sm[dev], __ATOMIC_RELAXED) : 0;
	if (sms <= 0 || per_sm <= 0) {
		GPZ_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
		/* Seven blocks of ~31 KB of shared memory per SM: ask for the largest carveout. */
		GPZ_CUDA_TRY(cudaFuncSetAttribute(decode_kernel<W>,
		                                  cudaFuncAttributePreferredSharedMemoryCarveout,
		                                  cudaSharedmemCarveoutMaxShared));
		GPZ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, decode_kernel<W>,
		                                                           LANES, 0));
		if (dev < 64) {
			__atomic_store_n(&cached_sms[dev], sms, __ATOMIC_RELAXED);
			__atomic_store_n(&cached_per_sm[dev], per_sm, __ATOMIC_RELAXED);
		}
	}
	uint64_t grid = (uint64_t)(sms > 0 ? sms : 1) * (uint64_t)(per_sm > 0 ? per_sm : 1);
	if (grid > kp.nchunks)
		grid = kp.nchunks ? kp.nchunks : 1;
	decode_kernel<W><<<(unsigned)grid, LANES, 0, st>>>(kp);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

/* The lookup table from the host decoder's first-level table: up to 3 codewords (2 for 4-byte
 * symbols) of at most TB bits in the next TB bits. */
static void build_table(const gpz_decoder *dec, int w, uint64_t *t)
{
	const uint32_t mask = TSIZE - 1, sbits = w == 4 ? 20 : 8 * (uint32_t)w;
	const uint32_t maxc = w == 4 ? 2 : 3;
	for (uint32_t x = 0; x < TSIZE; x++) {
		uint64_t e = 0;
		uint32_t used = 0, n = 0, ends[3] = { 0, 0, 0 };
		while (n < maxc) {
			uint32_t d = dec->table[(x << used) & mask];
			uint32_t l = d & 31;
			if (l == 0 || used + l > TB)
				break;
			e |= (uint64_t)(d >> 5) << (sbits * n);
			used += l;
			ends[n++] = used;
		}
		t[x] = e | ((uint64_t)n << 48) | ((uint64_t)ends[0] << 50) | ((uint64_t)ends[1] << 54) |
		       ((uint64_t)used << 58);
	}
}

/* The greatest common divisor of the code's lengths (codes of length l are counted by the
 * canonical limits: limit[l] >> (PEEK - l) is one past the last code of length l). */
static uint32_t length_gcd(const gpz_decoder *dec)
{
	uint32_t g = 0, first = 0;
	for (int l = 1; l <= dec->max_len; l++) {
		uint32_t end = dec->limit[l] >> (PEEK - l);
		if (end > first) {
			uint32_t a = (uint32_t)l;
			while (a) {
				uint32_t t = g % a;
				g = a;
				a = t;
			}
		}
		first = end << 1;
	}
	return g ? g : 1;
}

/* Lease a table image slot of g_img (-1: none free, the caller allocates an image). */
static int img_slots_busy[IMG_SLOTS];
static unsigned img_slot_next;

static int lease_img_slot(void)
{
	unsigned start = __atomic_fetch_add(&img_slot_next, 1u, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < IMG_SLOTS; i++) {
		unsigned s = (start + i) % IMG_SLOTS;
		if (__atomic_exchange_n(&img_slots_busy[s], 1, __ATOMIC_ACQUIRE) == 0)
			return (int)s;
	}
	return -1;
}

static void release_img_slot(int s)
{
	if (s >= 0)
		__atomic_store_n(&img_slots_busy[s], 0, __ATOMIC_RELEASE);
}

#ifdef GPZ_DECODE_STATS
static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
#endif

/* The part of sorted[] the long codes use: from the first code longer than TB to the end
 * (lo = hi = 0 without long codes); false when the decoder is inconsistent. */
static bool sorted_span(const gpz_decoder *dec, uint32_t *lo, uint32_t *hi)
{
	*lo = *hi = 0;
	if (dec->max_len <= TB)
		return true;
	*lo = (uint32_t)(dec->base[TB + 1] + (int32_t)((dec->limit[TB] >> (PEEK - TB)) << 1));
	*hi = (uint32_t)(dec->base[dec->max_len] +
	                 (int32_t)(dec->limit[dec->max_len] >> (PEEK - dec->max_len)));
	return *hi >= *lo && dec->sorted;
}

static bool decoder_ok(const gpz_decoder *dec, int w, int chunk_log)
{
	return dec && (w == 1 || w == 2 || w == 4) && chunk_log >= GPZ_MIN_CHUNK_LOG &&
	       chunk_log <= GPZ_MAX_CHUNK_LOG && dec->max_len >= 1 &&
	       dec->max_len <= GPZ_MAX_CODE_LEN;
}

/* The host half of an image: table, base and the inline part of sorted[] (nsorted entries,
 * inline when they fit), the flag cleared. */
static void fill_image(const gpz_decoder *dec, int w, uint32_t lo, size_t ninline, dec_image *img)
{
	memset(img, 0, offsetof(dec_image, sorted));
	build_table(dec, w, img->table);
	memcpy(img->base, dec->base, sizeof(img->base));
	if (ninline)
		memcpy(img->sorted, dec->sorted + lo, ninline * sizeof(uint32_t));
}

/* What a launch takes from the host decoder besides its image. */
static void make_plan(const gpz_decoder *dec, int w, uint32_t lo, struct gpz_gpu_dec_plan *pl)
{
	memcpy(pl->limit, dec->limit, sizeof(pl->limit));
	pl->lo = lo;
	pl->gcd = length_gcd(dec);
	pl->max_len = dec->max_len;
	pl->w = w;
	/* A 1-bit codeword is the canonical code "0": runs of zero bits repeat its symbol. */
	pl->run = (dec->table[0] & 31) == 1;
	pl->run_sym = pl->run ? dec->table[0] >> 5 : 0;
}

/* The parameters of one payload's decode with its image at d_img (sorted[] inline, or at
 * d_sorted). */
static void fill_params(const struct gpz_gpu_dec_plan *pl, const dec_image *d_img,
                        const uint32_t *d_sorted, const uint8_t *d_payload, size_t payload_size,
                        const uint64_t *d_chunk_start, size_t n, int chunk_log, uint8_t *d_dst,
                        kparams &kp)
{
	size_t cs = (size_t)1 << chunk_log;
	const int w = pl->w;
	uintptr_t a = (uintptr_t)d_payload;
	memset(&kp, 0, sizeof(kp));
	kp.img = d_img;
	kp.sorted = d_sorted ? d_sorted
	                     : (const uint32_t *)((const uint8_t *)d_img + offsetof(dec_image, sorted));
	kp.src.bytes = d_payload;
	kp.src.head = a & 3;
	kp.src.words = (const uint32_t *)(a - (a & 3));
	kp.src.vend = kp.src.head + payload_size;
	kp.src.full_lo = (kp.src.head + 3) / 4;
	kp.src.full_hi = kp.src.vend / 4;
	kp.chunk_start = d_chunk_start;
	kp.n = n;
	kp.nchunks = (n + cs - 1) / cs;
	kp.payload_bits = (uint64_t)payload_size * 8;
	kp.dst = d_dst;
	kp.flag = (uint32_t *)((const uint8_t *)d_img + offsetof(dec_image, flag));
	kp.next = (unsigned long long *)((const uint8_t *)d_img + offsetof(dec_image, next));
	memcpy(kp.limit, pl->limit, sizeof(kp.limit));
	kp.sorted_lo = pl->lo;
	kp.gcd = pl->gcd;
	kp.align = kp.gcd % 8 == 0 ? kp.gcd : kp.gcd % 4 == 0 ? 2 * kp.gcd
	         : kp.gcd % 2 == 0 ? 4 * kp.gcd : 8 * kp.gcd;
	kp.chunk_log = chunk_log;
	kp.max_len = pl->max_len;
	if (pl->run) {
		uint64_t sym = pl->run_sym;
		uint64_t pat = w == 1 ? sym * 0x0101010101010101ull
		             : w == 2 ? sym * 0x0001000100010001ull
		                      : sym * 0x0000000100000001ull;
		/* The writers lay the pattern at absolute byte positions: rotate it so that its
		 * symbols line up with those of a destination that is not w-aligned. */
		unsigned ph = (unsigned)((uintptr_t)d_dst % (uintptr_t)w);
		kp.run = 1;
		kp.run_pattern = ph ? (pat << (8 * ph)) | (pat >> (64 - 8 * ph)) : pat;
	}
}

/* Queue the decode of one payload with its image at d_img (sorted[] inline, or at d_sorted). */
static gpz_result launch_decode(const struct gpz_gpu_dec_plan *pl, const dec_image *d_img,
                                const uint32_t *d_sorted, const uint8_t *d_payload,
                                size_t payload_size, const uint64_t *d_chunk_start, size_t n,
                                int chunk_log, uint8_t *d_dst, cudaStream_t st)
{
	kparams kp;
	fill_params(pl, d_img, d_sorted, d_payload, payload_size, d_chunk_start, n, chunk_log,
	            d_dst, kp);
	return pl->w == 1 ? launch<1>(kp, st) : pl->w == 2 ? launch<2>(kp, st) : launch<4>(kp, st);
}

extern "C" size_t gpz_gpu_decode_image_size(uint32_t alphabet)
{
	size_t inline_sorted = alphabet < INLINE_SORTED ? alphabet : INLINE_SORTED;
	return (offsetof(dec_image, sorted) + inline_sorted * sizeof(uint32_t) + 15) & ~(size_t)15;
}

extern "C" size_t gpz_gpu_decode_flag_at(void)
{
	return offsetof(dec_image, flag);
}

extern "C" gpz_result gpz_gpu_decode_image(const gpz_decoder *dec, int w, void *h_img,
                                           size_t *bytes, struct gpz_gpu_dec_plan *plan)
{
	uint32_t lo, hi;
	if (!decoder_ok(dec, w, GPZ_MIN_CHUNK_LOG) || !sorted_span(dec, &lo, &hi) ||
	    hi - lo > INLINE_SORTED)
		return GPZ_ERR_PARAM;
	fill_image(dec, w, lo, hi - lo, (dec_image *)h_img);
	make_plan(dec, w, lo, plan);
	*bytes = (offsetof(dec_image, sorted) + (hi - lo) * sizeof(uint32_t) + 15) & ~(size_t)15;
	return GPZ_OK;
}

extern "C" size_t gpz_gpu_decode_params_size(void)
{
	return sizeof(kparams);
}

extern "C" gpz_result gpz_gpu_decode_params(const struct gpz_gpu_dec_plan *plan,
                                            const void *d_img, const uint8_t *d_payload,
                                            size_t payload_size, const uint64_t *d_chunk_start,
                                            size_t n, int chunk_log, uint8_t *d_dst,
                                            void *h_params)
{
	if (!plan || !d_img || chunk_log < GPZ_MIN_CHUNK_LOG || chunk_log > GPZ_MAX_CHUNK_LOG ||
	    (payload_size && !d_payload) || (n && !d_dst))
		return GPZ_ERR_PARAM;
	kparams kp;
	fill_params(plan, (const dec_image *)d_img, NULL, d_payload, payload_size, d_chunk_start, n,
	            chunk_log, d_dst, kp);
	memcpy(h_params, &kp, sizeof(kp));
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_decode_frames(const void *d_params, const uint64_t *d_unit_base,
                                            size_t nf, size_t units, uint32_t unit, int w,
                                            unsigned long long *d_counter, gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	int dev = 0, sms = 0, per_sm = 0;
	if (!nf || !units || !unit || (w != 1 && w != 2 && w != 4))
		return GPZ_ERR_PARAM;
	auto k = w == 1 ? decode_frames_kernel<1> : w == 2 ? decode_frames_kernel<2>
	                                                   : decode_frames_kernel<4>;
	GPZ_CUDA_TRY(cudaGetDevice(&dev));
	GPZ_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	GPZ_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
	                                  cudaSharedmemCarveoutMaxShared));
	GPZ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, LANES, 0));
	GPZ_CUDA_TRY(cudaMemsetAsync(d_counter, 0, sizeof(*d_counter), st));
	uint64_t grid = (uint64_t)(sms > 0 ? sms : 1) * (uint64_t)(per_sm > 0 ? per_sm : 1);
	grid = grid < units ? grid : units;
	k<<<(unsigned)grid, LANES, 0, st>>>((const kparams *)d_params, d_unit_base, nf, units, unit,
	                                    d_counter);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_decode_start(struct gpz_gpu_decode_call *call,
                                           const gpz_decoder *dec, const uint8_t *d_payload,
                                           size_t payload_size, const uint64_t *d_chunk_start,
                                           size_t n, int w, int chunk_log, uint8_t *d_dst,
                                           gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	uint32_t lo, hi;
	memset(call, 0, sizeof(*call));
	call->slot = -1;
	if (!decoder_ok(dec, w, chunk_log) || !d_chunk_start || (payload_size && !d_payload) ||
	    (n && !d_dst))
		return GPZ_ERR_PARAM;
	if (!sorted_span(dec, &lo, &hi))
		return GPZ_ERR_PARAM;
	const size_t nsorted = hi - lo, ninline = nsorted <= INLINE_SORTED ? nsorted : 0;
	const size_t send = offsetof(dec_image, sorted) + ninline * sizeof(uint32_t);

	dec_image *img = (dec_image *)malloc(sizeof(*img));
	if (!img)
		return GPZ_ERR_NOMEM;
	call->img = img;
	fill_image(dec, w, lo, ninline, img);

	/* Device memory: a leased image slot; an allocation only for a large sorted[] (or when
	 * every slot is in use). */
	call->slot = lease_img_slot();
	dec_image *d_img = NULL;
	uint32_t *d_sorted = NULL;
	cudaError_t e = cudaSuccess;
	size_t mem_bytes = (call->slot < 0 ? sizeof(dec_image) : 0) +
	                   (ninline ? 0 : nsorted * sizeof(uint32_t));
	if (call->slot >= 0) {
		e = cudaGetSymbolAddress((void **)&d_img, g_img);
		if (e == cudaSuccess)
			d_img += call->slot;
	}
	if (e == cudaSuccess && mem_bytes) {
		e = cudaMallocAsync(&call->d_mem, mem_bytes, st);
		if (e == cudaSuccess && call->slot < 0)
			d_img = (dec_image *)call->d_mem;
		if (e == cudaSuccess && !ninline && nsorted) {
			d_sorted = (uint32_t *)((uint8_t *)call->d_mem +
			                        (call->slot < 0 ? sizeof(dec_image) : 0));
			e = cudaMemcpyAsync(d_sorted, dec->sorted + lo, nsorted * sizeof(uint32_t),
			                    cudaMemcpyHostToDevice, st);
		}
	}
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(d_img, img, send, cudaMemcpyHostToDevice, st);
	gpz_result r = gpz_cuda_result(e);
	if (r == GPZ_OK) {
		struct gpz_gpu_dec_plan plan;
		make_plan(dec, w, lo, &plan);
		r = launch_decode(&plan, d_img, ninline ? NULL : d_sorted, d_payload, payload_size,
		                  d_chunk_start, n, chunk_log, d_dst, st);
	}
	if (r == GPZ_OK)
		call->d_flag = &d_img->flag;
	return r;
}

extern "C" gpz_result gpz_gpu_decode_end(struct gpz_gpu_decode_call *call, gpz_result r,
                                         uint32_t *h_flag, gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (r == GPZ_OK && call->d_flag)
		r = gpz_cuda_result(cudaMemcpyAsync(h_flag, call->d_flag, sizeof(*h_flag),
		                                    cudaMemcpyDeviceToHost, st));
	if (call->d_mem)
		cudaFreeAsync(call->d_mem, st);
	cudaError_t e = cudaStreamSynchronize(st);
	release_img_slot(call->slot);
	free(call->img);
	memset(call, 0, sizeof(*call));
	call->slot = -1;
	if (r == GPZ_OK)
		r = gpz_cuda_result(e);
	return r;
}

extern "C" gpz_result gpz_gpu_decode(const gpz_decoder *dec, const uint8_t *d_payload,
                                     size_t payload_size, const uint64_t *d_chunk_start,
                                     size_t n, int w, int chunk_log, uint8_t *d_dst,
                                     gpz_stream_t stream)
{
	struct gpz_gpu_decode_call call;
	uint32_t flag = 0;
#ifdef GPZ_DECODE_STATS
	double t0 = now_us();
#endif
	gpz_result r = gpz_gpu_decode_start(&call, dec, d_payload, payload_size, d_chunk_start, n,
	                                    w, chunk_log, d_dst, stream);
	r = gpz_gpu_decode_end(&call, r, &flag, stream);
#ifdef GPZ_DECODE_STATS
	{
		unsigned long long h[8];
		cudaMemcpyFromSymbol(h, g_stats, sizeof(h));
		fprintf(stderr,
		        "stats: chunks %llu rounds %llu resynced %llu chase-misses %llu unstaged %llu "
		        "mapped %llu | us: whole call %.0f\n",
		        h[0], h[1], h[2], h[3], h[4], h[5], now_us() - t0);
		memset(h, 0, sizeof(h));
		cudaMemcpyToSymbol(g_stats, h, sizeof(h));
	}
#endif
	if (r == GPZ_OK && flag)
		r = GPZ_ERR_CORRUPT;
	return r;
}
