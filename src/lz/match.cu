/* match.cu - the LZ77 match stage on the GPU: tokens identical to the CPU's gpz_lz_parse.
 *
 * The CPU walks hash chains as its parse goes; here every position's matches are found at once
 * (they depend on the input alone, match_core.h), then one thread per piece runs the CPU's very
 * parse over them (gpz_lz_finder). Three kernels:
 *
 * 1. links: the chain link of every position (distance to the previous position with the same
 *    hash, 16 bits; the level's hash, match_core.h: level 1's head table is half the others').
 *    Every position's hash first (a plain parallel kernel), then one warp per 32 KiB segment
 *    walks it 32 positions at a time with a head table in shared memory (positions in the
 *    segment + 1, 16 bits), the hashes of the next 16 steps in flight and their lanes grouped
 *    by hash (__match_any_sync) before the steps; within a step, the lowest lane of a group
 *    reads the head table, the others link to the lane before them, and the highest writes the
 *    head. The warp
 *    leaves its head table (each hash's last position in the segment) for the next segment,
 *    whose first occurrences of a hash link there (links_join_kernel): the window is no longer
 *    than a segment, so nothing earlier can be in reach. Where the hash has 15 bits (levels
 *    2-9) a block a segment sorts the positions by hash instead (links_sort_kernel).
 * 2. find: one thread per position walks its chain (gpz_lz_pure_at) and stores both matches a
 *    level may use (full chain, quarter chain). A block takes 16 Ki positions and first copies
 *    the 32 KiB window before them, their bytes and all these links into shared memory (145 KiB):
 *    the walks' scattered reads then stay on the SM instead of going to L2. Level 1 looks at one
 *    candidate a position: its links stay in global memory and only the bytes are staged.
 *    Levels 7-9 walk at every 8th position first; the positions between take what that one
 *    found where it reaches far enough past them (gpz_lz_inherit).
 * 3. run: the parse (gzip's greedy or lazy) over them, in segments of 4 Ki positions: every
 *    segment's parse is guessed as if a parse began there (a thread a segment; at greedy levels
 *    a warp, spec_greedy_kernel), then one thread per piece runs the true parse, taking over
 *    each guess from the first clean state it shares with it (match_core.h, gpz_lz_fixup:
 *    usually after a few tokens), and the kept guesses are
 *    copied into place. At lazy levels a literal whose position has no match is a clean state
 *    too, so incompressible stretches neither run a guess to the piece's end nor leave the
 *    fix-up to parse them alone.
 */
#include "lz/lz_gpu.h"
#include "gpu/cuda_check.h"
#include "lz/match_core.h"
#include "lz/dp_core.h"

#include <cub/block/block_radix_sort.cuh>

namespace {

constexpr unsigned SEG = GPZ_LZ_WINDOW; /* positions per links warp */
constexpr int AHEAD = 16;               /* links: steps of hashes loaded ahead */
constexpr int JOIN_ILP = 8;             /* links join: positions a thread loads at once */
constexpr uint16_t NO_HASH = 0xffff;    /* hashes are at most 15 bits */
constexpr unsigned FT = 16384;          /* find: positions per block */
constexpr unsigned FT1 = 65536;         /* and at one candidate a position (bytes alone staged) */
/* run: positions per guessed segment, and its tokens at most (then it stops short). A guess is
 * a thread's chain of dependent loads, so the stage wants many threads, each of whose current
 * line of matches stays in its SM's L1: 64 a 256 KiB piece are ~64 Ki threads for the DEFLATE
 * writer's batches of 1024 pieces (H100, whole call against 16 a piece: level 6 text 5.5 -> 6.4,
 * x-ray 7.6 -> 10.5 GB/s; level 9 text 3.9 -> 4.3). A run over 4096 pieces at once (the
 * benchmark's parse column) has 4x the threads and thrashes L1: there 16 a piece is faster. */
constexpr size_t SPEC_SEG = 4096;
constexpr size_t SPEC_CAP = SPEC_SEG + 1024;
constexpr unsigned FTHREADS = 1024;
/* find's shared memory: the links and the bytes of the window and the tile (+ a match's reach) */
constexpr size_t FIND_LINKS = (GPZ_LZ_WINDOW + FT) * sizeof(uint16_t);
/* + 16: gpz_lz_load32 reads the aligned word after the last byte it needs */
constexpr size_t FIND_SMEM = FIND_LINKS + GPZ_LZ_WINDOW + FT + GPZ_LZ_MAX_MATCH + 16;
/* find_one compares up to ONE_CAP bytes from a position (+ an 8-byte step and the aligned word
 * gpz_lz_load32 reads after) */
constexpr unsigned ONE_CAP = GPZ_LZ_MAX_MATCH + 31;
constexpr size_t FIND1_REACH = ONE_CAP + 8;
constexpr size_t FIND1_SMEM = GPZ_LZ_WINDOW + FT1 + FIND1_REACH + 16;

__global__ void hash_kernel(const uint8_t *src, size_t n, size_t lo, size_t hi, unsigned bytes,
                            unsigned bits, uint16_t *hash)
{
	for (size_t q = lo + blockIdx.x * (size_t)blockDim.x + threadIdx.x; q < hi;
	     q += (size_t)gridDim.x * blockDim.x)
		hash[q - lo] = q + bytes <= n ? (uint16_t)gpz_lz_hash(src + q, n - q, bytes, bits)
		                              : NO_HASH;
}

/* The key a links step matches lanes by: the hash, or a value no other lane has where position
 * q has none (past the range or the input's end). */
__device__ __forceinline__ uint32_t links_key(size_t q, size_t s1, unsigned hv)
{
	return q < s1 && hv != NO_HASH ? hv : NO_HASH + 1 + threadIdx.x;
}

/* One step of links_kernel: positions q0 .. q0 + 31 (lane's hash hv); same: the lanes whose key
 * is this lane's (links_key, __match_any_sync: computed ahead by the caller, since its latency
 * is most of a step's when it waits behind the step before). */
__device__ __forceinline__ void links_step(uint16_t *head, size_t q0, size_t base, size_t s0,
                                           size_t s1, size_t lo, unsigned hv, unsigned same,
                                           uint16_t *links)
{
	const unsigned lane = threadIdx.x;
	const size_t q = q0 + lane;
	const bool valid = q < s1 && hv != NO_HASH;
	const uint32_t h = links_key(q, s1, hv);
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
	/* the group's last lane moves the head (q - base < 32768 here: the bound only guards the
	 * 16-bit entry) */
	if (valid && !(same >> lane >> 1) && q - base < 0xffff)
		head[h] = (uint16_t)(q - base + 1);
	__syncwarp();
	if (q >= s0 && q < s1)
		links[q - lo] = link;
}

__global__ void __launch_bounds__(32)
links_kernel(const uint16_t *hash, size_t lo, size_t hi, unsigned hsize, uint16_t *links,
             uint16_t *last)
{
	extern __shared__ __align__(16) uint16_t head[]; /* 1 + position - s0, 0 for none */
	const unsigned lane = threadIdx.x;
	const size_t s0 = lo + (size_t)blockIdx.x * SEG, base = s0;
	const size_t s1 = hi - s0 < SEG ? hi : s0 + SEG;
	uint16_t ring[AHEAD]; /* the hashes of the next AHEAD steps: their loads overlap the steps */

	for (unsigned i = lane; i < hsize / 8; i += 32)
		reinterpret_cast<uint4 *>(head)[i] = make_uint4(0, 0, 0, 0);
#pragma unroll
	for (int k = 0; k < AHEAD; k++) {
		size_t q = base + 32 * k + lane;
		ring[k] = q < s1 ? hash[q - lo] : NO_HASH;
	}
	__syncwarp();
	for (size_t q0 = base; q0 < s1; q0 += 32 * AHEAD) {
		/* the AHEAD steps' lane groups first: they depend on the hashes alone, and one
		 * __match_any_sync waited out behind each step's head updates was half the kernel's
		 * stalls (ncu) */
		unsigned same[AHEAD];
#pragma unroll
		for (int k = 0; k < AHEAD; k++)
			same[k] = __match_any_sync(0xffffffffu, links_key(q0 + 32 * k + lane, s1, ring[k]));
#pragma unroll
		for (int k = 0; k < AHEAD; k++) {
			const size_t qk = q0 + 32 * k, qn = qk + 32 * AHEAD + lane;
			const unsigned hv = ring[k];
			if (qk >= s1)
				break;
			ring[k] = qn < s1 ? hash[qn - lo] : NO_HASH;
			links_step(head, qk, base, s0, s1, lo, hv, same[k], links);
		}
	}
	__syncwarp();
	if (s1 < hi) /* the next segment's first occurrences look here (links_join_kernel) */
		for (unsigned i = lane; i < hsize / 8; i += 32)
			reinterpret_cast<uint4 *>(last + blockIdx.x * (size_t)hsize)[i] =
				reinterpret_cast<const uint4 *>(head)[i];
}

/* links_kernel's results by sorting instead of walking: a block a segment sorts its positions by
 * hash (key hash << 15 | position, the sort stable, so a hash's positions stay in order), and
 * each position's link is to the one before it in sorted order when both have its hash; the
 * last of each hash is the head table left for the next segment. The walk's warp needs the whole
 * head table in shared memory: 64 KiB at 15 hash bits leaves room for 3 warps an SM, and there
 * the sort is faster (H100, 1 GiB: links with the hashes and the join 30.5 -> 44.8 GB/s at
 * level 6, the whole call +6-7%); at level 1's 14 bits 6 warps walk faster than the sort (50.6
 * against 45.3 GB/s; bench/NOTES.md). */
constexpr unsigned SORT_FROM_BITS = 15;
constexpr unsigned SORT_THREADS = 1024;
constexpr unsigned SORT_ITEMS = SEG / SORT_THREADS;
using links_sort = cub::BlockRadixSort<uint32_t, SORT_THREADS, SORT_ITEMS>;
/* after the sort, its shared memory holds the segment's links, the head table and each
 * thread's first and last sorted keys */
constexpr size_t SORT_LAYOUT = SEG * sizeof(uint16_t) + GPZ_LZ_HASH_SIZE * sizeof(uint16_t) +
                               2 * SORT_THREADS * sizeof(uint32_t);
constexpr size_t SORT_SMEM = sizeof(links_sort::TempStorage) > SORT_LAYOUT
                             ? sizeof(links_sort::TempStorage) : SORT_LAYOUT;

__global__ void __launch_bounds__(SORT_THREADS, 1)
links_sort_kernel(const uint16_t *hash, size_t lo, size_t hi, unsigned hbits, uint16_t *links,
                  uint16_t *last)
{
	extern __shared__ __align__(16) uint8_t sort_smem[];
	auto &tmp = *reinterpret_cast<links_sort::TempStorage *>(sort_smem);
	uint16_t *seg_links = reinterpret_cast<uint16_t *>(sort_smem);
	uint16_t *head = seg_links + SEG;
	uint32_t *first = reinterpret_cast<uint32_t *>(head + GPZ_LZ_HASH_SIZE);
	uint32_t *lastk = first + SORT_THREADS;
	const unsigned t = threadIdx.x, hsize = 1u << hbits, none = hsize; /* sorts after all */
	const size_t s0 = lo + (size_t)blockIdx.x * SEG, s1 = hi - s0 < SEG ? hi : s0 + SEG;
	const unsigned n = (unsigned)(s1 - s0);
	uint32_t key[SORT_ITEMS];

#pragma unroll
	for (unsigned j = 0; j < SORT_ITEMS; j++) {
		const unsigned pos = t * SORT_ITEMS + j;
		const unsigned hv = pos < n ? hash[s0 - lo + pos] : NO_HASH;
		key[j] = (hv == NO_HASH ? none : hv) << 15 | pos;
	}
	links_sort(tmp).Sort(key, 15, 15 + (int)hbits + 1);
	__syncthreads(); /* the sort's memory is free */
	first[t] = key[0];
	lastk[t] = key[SORT_ITEMS - 1];
	for (unsigned i = t; i < hsize; i += SORT_THREADS)
		head[i] = 0;
	__syncthreads();
#pragma unroll
	for (unsigned j = 0; j < SORT_ITEMS; j++) {
		const unsigned h = key[j] >> 15, pos = key[j] & 0x7fff;
		const uint32_t prev = j ? key[j - 1] : t ? lastk[t - 1] : ~0u;
		const uint32_t next = j + 1 < SORT_ITEMS ? key[j + 1]
		                    : t + 1 < SORT_THREADS ? first[t + 1] : ~0u;
		if (pos >= n)
			continue;
		seg_links[pos] = h != none && prev >> 15 == h ? (uint16_t)(pos - (prev & 0x7fff)) : 0;
		if (h != none && next >> 15 != h)
			head[h] = (uint16_t)(pos + 1);
	}
	__syncthreads();
	for (unsigned i = t; i < n; i += SORT_THREADS)
		links[s0 - lo + i] = seg_links[i];
	if (s1 < hi) /* the next segment's first occurrences look here (links_join_kernel) */
		for (unsigned i = t; i < hsize; i += SORT_THREADS)
			last[blockIdx.x * (size_t)hsize + i] = head[i];
}

/* Segment blockIdx.x + 1's positions whose hash did not occur earlier in their segment: their
 * link is to the previous segment's last occurrence of it, if that is within the window (any
 * earlier one is not). The previous segment's head table is staged in shared memory first: the
 * lookups are scattered. */
__global__ void __launch_bounds__(1024)
links_join_kernel(const uint16_t *hash, size_t lo, size_t hi, unsigned hsize, uint16_t *links,
                  const uint16_t *last)
{
	extern __shared__ __align__(16) uint16_t prev_head[];
	const size_t k = blockIdx.x + 1, s0 = lo + k * SEG, s1 = hi - s0 < SEG ? hi : s0 + SEG;
	const uint4 *from = reinterpret_cast<const uint4 *>(last + (k - 1) * hsize);
	for (unsigned i = threadIdx.x; i < hsize / 8; i += blockDim.x)
		reinterpret_cast<uint4 *>(prev_head)[i] = from[i];
	__syncthreads();
	/* JOIN_ILP positions a thread at a time, their loads first: one after another, each
	 * thread waited out a load's latency per position */
	for (size_t q0 = s0 + threadIdx.x; q0 < s1; q0 += JOIN_ILP * blockDim.x) {
		uint16_t lk[JOIN_ILP], hv[JOIN_ILP];
#pragma unroll
		for (int j = 0; j < JOIN_ILP; j++) {
			const size_t q = q0 + j * blockDim.x;
			lk[j] = q < s1 ? links[q - lo] : 1;
			hv[j] = q < s1 ? hash[q - lo] : NO_HASH;
		}
#pragma unroll
		for (int j = 0; j < JOIN_ILP; j++) {
			const size_t q = q0 + j * blockDim.x;
			if (lk[j] != 0 || hv[j] == NO_HASH)
				continue;
			const uint16_t t = prev_head[hv[j]];
			if (t)
				links[q - lo] = gpz_lz_link(q - (s0 - SEG), t - 1u);
		}
	}
}

/* len bytes from src to shared memory by the block: 16 at a time where src is 16-byte aligned
 * (the input's batches and tiles start on multiples of 16 KiB), the rest byte by byte. */
__device__ void stage_bytes(uint8_t *to, const uint8_t *src, size_t len)
{
	size_t head = 0;
	if (!((uintptr_t)src & 15)) {
		head = len / 16 * 16;
		for (size_t k = threadIdx.x; k < len / 16; k += blockDim.x)
			reinterpret_cast<uint4 *>(to)[k] = reinterpret_cast<const uint4 *>(src)[k];
	}
	for (size_t k = head + threadIdx.x; k < len; k += blockDim.x)
		to[k] = src[k];
}

/* The end of the piece holding a position and the start of its group of pieces (0 without
 * groups, or before the first group's start), followed as a thread's positions rise: a division
 * at the start, additions after (64-bit divisions a position were 11% of find_one's
 * instructions). Groups start where (piece number + shift) is a multiple of `group`. */
struct piece_bounds {
	size_t piece, gsize, end, gstart, gnext;
	__device__ piece_bounds(size_t q, size_t piece_, int group, unsigned shift)
		: piece(piece_), gsize(group ? piece_ * (size_t)group : 0)
	{
		const size_t sh = piece_ * shift;
		end = (q / piece + 1) * piece;
		const size_t g = gsize ? (q + sh) / gsize * gsize : 0;
		gstart = g >= sh ? g - sh : 0;
		gnext = gsize ? g + gsize - sh : SIZE_MAX;
	}
	__device__ void move_to(size_t q)
	{
		while (q >= end)
			end += piece;
		while (q >= gnext) {
			gstart = gnext;
			gnext += gsize;
		}
	}
};

/* Matches at positions [t0, t1) at one candidate a position (level 1), a warp taking 32
 * consecutive positions at a time: out[q - t0] = gpz_lz_pure_at's match (full chain), the walk
 * unrolled. Every lane compares its first 16 bytes; a match that goes on is measured by the
 * whole warp, 8 bytes a lane, and only once for a run of lanes with the same distance (the next
 * position's match at the same distance is one byte shorter), which in repetitive input is most
 * of them (lanes each measuring a long match held their warps up). sd: bytes from w0 on,
 * ONE_CAP + 8 past t1 (or to the input's end). */
template <bool in_piece> /* the tile [t0, t1) lies in one piece: its bounds once, in 32 bits
                          * (the bookkeeping a position was a quarter of the kernel's
                          * instructions, spilled at its 32 registers) */
__device__ __forceinline__ void find_one(const uint8_t *sd, const uint16_t *lk, size_t w0, size_t t0, size_t t1,
                         size_t piece, size_t n, int group, unsigned shift,
                         const struct gpz_lz_level &cfg,
                         uint32_t *out)
{
	const unsigned lane = threadIdx.x % 32;
	const unsigned FULL = 0xffffffffu;
#ifdef __CUDA_ARCH__
	__builtin_assume(__isShared(sd)); /* shared loads, not generic ones */
#endif
	piece_bounds pb(t0 + threadIdx.x, piece, group, shift);
	const unsigned pend1 = (unsigned)((pb.end < n ? pb.end : n) - w0);
	const unsigned floor1 = group && pb.gstart > w0 ? (unsigned)(pb.gstart - w0) : 0;
	for (size_t qb = t0 + (threadIdx.x - lane); qb < t1; qb += FTHREADS) {
		const size_t q = qb + lane;
		const bool in = q < t1;
		unsigned pend = pend1, floor = floor1;
		if constexpr (!in_piece) {
			pb.move_to(q);
			const size_t pe = pb.end, gstart = pb.gstart;
			pend = (unsigned)((pe < n ? pe : n) - w0);
			floor = group && gstart > w0 ? (unsigned)(gstart - w0) : 0;
		}
		const unsigned pos = (unsigned)(q - w0);
		const unsigned reach = pos - floor < GPZ_LZ_WINDOW ? pos - floor : GPZ_LZ_WINDOW;
		const unsigned maxlen = in ? (pend - pos < GPZ_LZ_MAX_MATCH ? pend - pos
		                                                            : GPZ_LZ_MAX_MATCH) : 0;
		const unsigned d = in ? lk[pos] : 0;
		const bool valid = maxlen >= GPZ_LZ_MIN_MATCH && maxlen >= cfg.hash_bytes && d != 0 &&
		                   d <= reach;
		unsigned len = valid ? gpz_lz_match_len(sd + pos - d, sd + pos, maxlen < 16 ? maxlen : 16)
		                     : 0;
		const bool open = valid && len == 16 && maxlen > 16;
		const unsigned ob = __ballot_sync(FULL, open);
		/* a run: open lanes after an open lane with the same distance, in the same piece */
		const unsigned pd = __shfl_up_sync(FULL, d, 1), pp = __shfl_up_sync(FULL, pend, 1);
		const unsigned fb = __ballot_sync(FULL, open && lane > 0 && (ob >> (lane - 1) & 1) &&
		                                            pd == d && pp == pend);
		unsigned heads = ob & ~fb, m = 0;
		const unsigned all_heads = heads;
		while (heads) { /* each run's first lane: its match measured by the warp */
			const unsigned h = __ffs(heads) - 1;
			heads &= heads - 1;
			const unsigned hp = __shfl_sync(FULL, pos, h), hd = __shfl_sync(FULL, d, h);
			const unsigned hend = __shfl_sync(FULL, pend, h) - hp;
			const unsigned cap = hend < ONE_CAP ? hend : ONE_CAP;
			unsigned found = cap;
			for (unsigned o0 = 16; o0 < cap; o0 += 256) {
				const unsigned o = o0 + 8 * lane;
				const uint8_t *c = sd + hp - hd + o, *x = sd + hp + o;
				unsigned mis = 8;
#ifdef __CUDA_ARCH__ /* gpz_lz_load32 is device code only */
				if (o < cap) {
					uint32_t a0 = gpz_lz_load32(c) ^ gpz_lz_load32(x);
					uint32_t a1 = gpz_lz_load32(c + 4) ^ gpz_lz_load32(x + 4);
					mis = a0 ? (__ffs(a0) - 1) / 8 : a1 ? 4 + (__ffs(a1) - 1) / 8 : 8;
				}
#endif
				const unsigned hit = __ballot_sync(FULL, mis < 8);
				if (hit) {
					const unsigned at = __shfl_sync(FULL, o + mis, __ffs(hit) - 1);
					found = at < cap ? at : cap;
					break;
				}
			}
			if (lane == h)
				m = found;
		}
		/* a run's lanes: the head's length less their distance from it */
		const unsigned h = 31 - __clz(all_heads & (FULL >> (31 - lane)));
		const unsigned hm = __shfl_sync(FULL, m, all_heads ? h : 0);
		if (open) {
			const unsigned k = hm - (lane - h);
			len = k < maxlen ? k : maxlen;
		}
		if (in)
			out[q - t0] = valid && len >= GPZ_LZ_MIN_MATCH ? gpz_lz_pack(len, d) : 0;
	}
}

/* Positions [t0, t1) of one block: the window before them and their links are staged in shared
 * memory, where the chain walks (about a hundred steps a position at level 6) find them. */
template <bool one, /* one candidate a position (chain 1): its link is read once, from global
                     * memory, and only the bytes are staged (less shared memory a position:
                     * longer tiles, less of the window again; two blocks an SM) */
          bool in_piece = false> /* and every tile lies in one piece (find_one) */
__global__ void __launch_bounds__(FTHREADS, one ? 2 : 1)
find_kernel(const uint8_t *src, size_t n, size_t piece, int level, size_t a, size_t b,
            const uint16_t *links, size_t lo, int group, unsigned shift, uint32_t *pure)
{
	extern __shared__ __align__(16) uint8_t sm[];
	const struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	const size_t ft = one ? FT1 : FT;
	const size_t t0 = a + (size_t)blockIdx.x * ft, t1 = b - t0 < ft ? b : t0 + ft;
	const size_t w0 = t0 - lo > GPZ_LZ_WINDOW ? t0 - GPZ_LZ_WINDOW : lo;
	const size_t reach = one ? FIND1_REACH : GPZ_LZ_MAX_MATCH;
	const size_t dend = n - t1 < reach ? n : t1 + reach;
	uint16_t *sl = reinterpret_cast<uint16_t *>(sm);
	uint8_t *sd = one ? sm : sm + FIND_LINKS;
	const uint16_t *lk = one ? links + (w0 - lo) : sl; /* lk[q - w0]: q's link */

	if (!one)
		for (size_t q = w0 + threadIdx.x; q < t1; q += FTHREADS)
			sl[q - w0] = links[q - lo];
	stage_bytes(sd, src + w0, dend - w0);
	__syncthreads();
	if constexpr (one) {
		find_one<in_piece>(sd, lk, w0, t0, t1, piece, n, group, shift, cfg,
		                   pure + (t0 - a));
	} else {
		/* positions relative to w0: distances (all the walk uses) are unchanged */
		const auto put = [&](size_t q, const uint32_t *out) {
			if (gpz_lz_wants_quarter(&cfg))
				reinterpret_cast<uint2 *>(pure)[q - a] = make_uint2(out[0], out[1]);
			else /* the full chain's alone: half the bytes for the parse */
				pure[q - a] = out[0];
		};
		const auto walk = [&](piece_bounds &pb, size_t q, uint32_t *out) {
			pb.move_to(q);
			const size_t pend = pb.end, gstart = pb.gstart;
			const size_t floor = group && gstart > w0 ? gstart - w0 : 0;
			gpz_lz_pure_at(sd, lk, 0, q - w0, (pend < n ? pend : n) - w0, floor, &cfg, out);
			put(q, out);
		};
		uint32_t out[2] = { 0, 0 };
		if (!cfg.skip) {
			piece_bounds pb(t0 + threadIdx.x, piece, group, shift);
			for (size_t q = t0 + threadIdx.x; q < t1; q += FTHREADS)
				walk(pb, q, out);
			return;
		}
		/* gpz_lz_inherit: a warp takes 256 positions at a time (tiles and pieces start on
		 * multiples of 8), a lane an anchor first; then the positions between the anchors, 7
		 * rounds of 32, each taking its anchor's matches from that lane and walking only where
		 * they fall short. The warp's own anchors: no wait for the block. */
		const unsigned lane = threadIdx.x & 31;
		const size_t first = t0 + (threadIdx.x - lane) * 8;
		piece_bounds pa(first + 8 * lane, piece, group, shift),
			pb(first + 1 + lane / 7 * 8 + lane % 7, piece, group, shift);
		for (size_t c = first; c < t1; c += 8 * FTHREADS) {
			if (c + 8 * lane < t1)
				walk(pa, c + 8 * lane, out);
			const uint32_t an0 = out[0], an1 = out[1];
			for (unsigned r = 0; r < 7; r++) {
				const unsigned x = r * 32 + lane, g = x / 7, k = x % 7 + 1;
				const uint32_t anchor[2] = { __shfl_sync(0xffffffffu, an0, g),
					                     __shfl_sync(0xffffffffu, an1, g) };
				const size_t q = c + 8 * g + k;
				uint32_t mine[2];
				if (q >= t1)
					continue;
				if (gpz_lz_inherit(anchor, k, cfg.skip, mine))
					put(q, mine);
				else
					walk(pb, q, mine);
			}
		}
	}
}

/* The parse, as gpz_lz_parse_segments does it on the CPU: spec_kernel guesses every segment of
 * every piece (a thread each), fixup_kernel runs each piece's true parse over the guesses (a
 * thread per piece, parsing only where a guess was wrong), copy_kernel moves the guessed tokens it
 * kept into place. */
struct run_args {
	const uint8_t *src;
	size_t n, piece, p0, np, nseg, a;
	int level;
	const uint32_t *pure;
	uint32_t *tok, *ntok, *spec;
	size_t tok_stride;
	gpz_lz_seg *seg;
	/* levels 7-9 (dp_core.h), a thread a DSEG-position segment (ndseg a piece), in the guesses'
	 * room (spent by then): each warp's costs and options, its threads' interleaved
	 * (dp_out_at), each segment's token count (then offset) at dpn[segment], each piece's
	 * costs */
	size_t ndseg;
	uint32_t *dpcost, *dpn;
	gpz_lz_costs *costs;

	__device__ size_t start(size_t q) const
	{
		return (p0 + q) * piece;
	}
	__device__ size_t end(size_t q) const
	{
		return n - start(q) < piece ? n : start(q) + piece;
	}
	__device__ gpz_lz_finder finder(size_t q) const
	{
		gpz_lz_finder f;
		f.m = NULL;
		f.pure = pure;
		f.base = a;
		f.end = end(q);
		const struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
		f.stride = gpz_lz_wants_quarter(&cfg) ? 2 : 1;
		return f;
	}
};

__global__ void __launch_bounds__(64) spec_kernel(run_args r)
{
	const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, q = i / r.nseg;
	if (q >= r.np)
		return;
	const size_t s = r.start(q) + (i % r.nseg) * SPEC_SEG, end = r.end(q);
	if (s >= end)
		return;
	const struct gpz_lz_level cfg = gpz_lz_level_cfg(r.level);
	gpz_lz_finder f = r.finder(q);
	gpz_lz_spec(&f, r.src, s, end - s < SPEC_SEG ? end : s + SPEC_SEG, end, &cfg,
	            r.spec + i * SPEC_CAP, SPEC_CAP, &r.seg[i]);
}

/* spec_kernel at greedy levels, a warp a segment, in windows of GW positions: the window's
 * matches are staged in shared memory (coalesced), lane 0 walks the greedy parse through them
 * marking the positions where tokens start (a shared load and an add a token), and the warp
 * writes those tokens in order (coalesced). A greedy spec never reaches its cap (a token a
 * position at most). */
constexpr unsigned GW = 1024;     /* positions a window */
constexpr unsigned GWARPS = 4;    /* warps (segments) a block */
static_assert(SPEC_CAP >= SPEC_SEG, "a greedy spec fits its cap");

__global__ void __launch_bounds__(32 * GWARPS) spec_greedy_kernel(run_args r)
{
	__shared__ uint32_t m[GWARPS][GW];         /* the window's matches */
	__shared__ uint32_t mark[GWARPS][GW / 32]; /* where its tokens start */
	const unsigned w = threadIdx.x / 32, lane = threadIdx.x % 32;
	const size_t i = blockIdx.x * (size_t)GWARPS + w, q = i / r.nseg;
	if (q >= r.np)
		return;
	const size_t s = r.start(q) + (i % r.nseg) * SPEC_SEG, end = r.end(q);
	if (s >= end)
		return;
	const size_t t = end - s < SPEC_SEG ? end : s + SPEC_SEG;
	uint32_t *tok = r.spec + i * SPEC_CAP;
	size_t pos = s, n = 0;

	for (size_t wb = s; wb < t; wb += GW) {
		const unsigned len = (unsigned)(t - wb < GW ? t - wb : GW);
		for (unsigned k = lane; k < GW; k += 32)
			m[w][k] = k < len ? r.pure[wb + k - r.a] : 0;
		for (unsigned k = lane; k < GW / 32; k += 32)
			mark[w][k] = 0;
		__syncwarp();
		if (lane == 0 && pos < wb + len) {
			unsigned k = (unsigned)(pos - wb), ci = k / 32;
			uint32_t cw = 0;
			while (k < len) {
				if (k / 32 != ci) {
					mark[w][ci] = cw;
					cw = 0;
					ci = k / 32;
				}
				cw |= 1u << (k % 32);
				k = (unsigned)gpz_lz_greedy_next(k, m[w][k]);
			}
			mark[w][ci] = cw;
			pos = wb + k;
		}
		pos = __shfl_sync(0xffffffffu, pos, 0);
		__syncwarp();
		for (unsigned c = 0; c < len; c += 32) {
			const unsigned k = c + lane;
			const bool on = k < len && (mark[w][c / 32] >> lane & 1);
			const unsigned b = __ballot_sync(0xffffffffu, on);
			if (on)
				tok[n + __popc(b & ((1u << lane) - 1))] =
					gpz_lz_greedy_token(m[w][k], r.src + wb + k);
			n += __popc(b);
		}
		__syncwarp();
	}
	if (lane == 0) {
		r.seg[i].n = n;
		r.seg[i].exit = pos;
	}
}

__global__ void __launch_bounds__(1) fixup_kernel(run_args r)
{
	const size_t q = blockIdx.x;
	const struct gpz_lz_level cfg = gpz_lz_level_cfg(r.level);
	gpz_lz_finder f = r.finder(q);
	r.ntok[q] = (uint32_t)gpz_lz_fixup(&f, r.src, r.start(q), r.end(q), SPEC_SEG, &cfg,
	                                   r.spec + q * r.nseg * SPEC_CAP, SPEC_CAP,
	                                   r.seg + q * r.nseg, r.tok + q * r.tok_stride);
}

__global__ void __launch_bounds__(256) copy_kernel(run_args r)
{
	const size_t i = blockIdx.x, q = i / r.nseg;
	if (r.start(q) + (i % r.nseg) * SPEC_SEG >= r.end(q))
		return; /* no such segment: its seg entry was never written */
	gpz_lz_copy(r.spec + i * SPEC_CAP, &r.seg[i], r.tok + q * r.tok_stride, threadIdx.x,
	            blockDim.x);
}

/* ---- levels 7-9: rounds of the cost-driven parse (dp_core.h), as match.c's dp_rounds ---- */
constexpr size_t DSEG = GPZ_LZ_DP_SEG;

/* A piece's costs from its tokens: the warp counts them, lane 0 builds the code lengths. */
__global__ void __launch_bounds__(32) dp_cost_kernel(run_args r)
{
	__shared__ gpz_dfl_huff h;
	__shared__ uint32_t lf[GPZ_DFL_NLIT], df[GPZ_DFL_NDIST];
	const size_t q = blockIdx.x;
	const uint32_t *tok = r.tok + q * r.tok_stride, nt = r.ntok[q];
	for (unsigned k = threadIdx.x; k < GPZ_DFL_NLIT; k += 32)
		lf[k] = k == 256; /* the end of block */
	if (threadIdx.x < GPZ_DFL_NDIST)
		df[threadIdx.x] = 0;
	__syncwarp();
	for (uint32_t i = threadIdx.x; i < nt; i += 32) {
		uint32_t t = tok[i];
		if (t & GPZ_TOK_MATCH) {
			atomicAdd(&lf[257 + gpz_dfl_len_code(gpz_dfl_tok_len(t))], 1u);
			atomicAdd(&df[gpz_dfl_dist_code(gpz_dfl_tok_dist(t))], 1u);
		} else {
			atomicAdd(&lf[t & 0xff], 1u);
		}
	}
	__syncwarp();
	if (threadIdx.x == 0)
		gpz_lz_dp_costs(lf, df, &r.costs[q], &h);
}

/* The room of segment thread i's costs and options (dp_core.h), in its warp's room of
 * (DSEG + 1) x 32 words: first the costs, entry k of lane l at 32 k + l (16 bits each), so
 * that the backward pass's stores, the warp's threads at the same k, are one line; then the
 * options, chunk g of lane l at 32 g + l (16 bytes each): a chunk a thread stored at once,
 * loaded by the walk once for 16 positions. */
__device__ gpz_lz_dp_out dp_out_at(const run_args &r, size_t i)
{
	uint8_t *room = reinterpret_cast<uint8_t *>(r.dpcost + (i / 32) * 32 * (DSEG + 1));
	const unsigned lane = (unsigned)(i % 32);
	gpz_lz_dp_out o;
	o.cost = reinterpret_cast<uint16_t *>(room) + lane;
	o.opt = room + (DSEG + 1) * 32 * sizeof(uint16_t) + lane * 16;
	o.cstride = 32;
	o.ostride = 32 * 16;
	return o;
}
static_assert((DSEG + 1) * 32 * sizeof(uint16_t) % 16 == 0, "option chunks 16-byte aligned");
static_assert((DSEG + 1) * 32 * sizeof(uint16_t) + DSEG * 32 <= (DSEG + 1) * 32 * 4,
              "costs and options in the warp's room");

/* A thread a segment: its least-cost parse, the tokens in the piece's slots from the segment's
 * start (dp_gather_kernel closes them up). Staging the block's matches in shared memory, in
 * steps all its threads take together, made the whole DEFLATE call slower (one wave of 64-thread
 * blocks waits at every step: bench/NOTES.md, 2026-11-27). */
constexpr unsigned DPB = 64; /* segments (threads) a block */

__global__ void __launch_bounds__(DPB) dp_kernel(run_args r)
{
	const size_t i = blockIdx.x * (size_t)DPB + threadIdx.x, q = i / r.ndseg;
	if (q >= r.np)
		return;
	const size_t s = r.start(q) + (i % r.ndseg) * DSEG, end = r.end(q);
	if (s >= end) {
		r.dpn[i] = 0;
		return;
	}
	const size_t t = end - s < DSEG ? end : s + DSEG;
	/* levels 7-9 are lazy: the matches come in pairs (full, quarter chain) */
	const gpz_lz_dp_out o = dp_out_at(r, i);
	r.dpn[i] = (uint32_t)gpz_lz_dp_segment(r.src, r.pure, 2, 1, r.a, s, t, &r.costs[q], &o,
	                                       r.tok + q * r.tok_stride + (s - r.start(q)));
}

/* A thread a piece: segment counts to offsets, the piece's count. */
__global__ void dp_scan_kernel(run_args r)
{
	const size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (q >= r.np)
		return;
	uint32_t *n = r.dpn + q * r.ndseg, sum = 0;
	for (size_t j = 0; j < r.ndseg; j++) {
		uint32_t c = n[j];
		n[j] = sum;
		sum += c;
	}
	r.ntok[q] = sum;
}

/* A block a piece closes up its segments' tokens, segment by segment: each segment's are all
 * loaded before any is stored, as its new place may overlap its old (never a later segment's). */
constexpr unsigned GATHER = 256;
__global__ void __launch_bounds__(GATHER) dp_gather_kernel(run_args r)
{
	const size_t q = blockIdx.x;
	const uint32_t *off = r.dpn + q * r.ndseg;
	uint32_t *tok = r.tok + q * r.tok_stride;
	for (size_t j = 0; j < r.ndseg; j++) {
		const uint32_t from = off[j], to = j + 1 < r.ndseg ? off[j + 1] : r.ntok[q];
		uint32_t v[DSEG / GATHER];
#pragma unroll
		for (unsigned k = 0; k < DSEG / GATHER; k++)
			if (k * GATHER + threadIdx.x < to - from)
				v[k] = tok[j * DSEG + k * GATHER + threadIdx.x];
		__syncthreads();
#pragma unroll
		for (unsigned k = 0; k < DSEG / GATHER; k++)
			if (k * GATHER + threadIdx.x < to - from)
				tok[from + k * GATHER + threadIdx.x] = v[k];
		__syncthreads();
	}
}

} // namespace

cudaError_t gpz_lz_gpu_links(const uint8_t *src, size_t n, size_t lo, size_t hi, int level,
                             uint16_t *links, uint16_t *scratch, cudaStream_t s)
{
	const struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	const unsigned hsize = 1u << cfg.hash_bits;
	/* the head table: smaller hashes leave room for more warps on an SM */
	const size_t smem = hsize * sizeof(uint16_t);
	static_assert(GPZ_LZ_HASH_SIZE * sizeof(uint16_t) <= 65536, "head table size");
	if (hi <= lo)
		return cudaSuccess;
	cudaError_t e = cudaFuncSetAttribute(links_kernel,
	                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
	if (e != cudaSuccess)
		return e;
	size_t blocks = (hi - lo + 255) / 256;
	hash_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, s>>>(
		src, n, lo, hi, cfg.hash_bytes, cfg.hash_bits, scratch);
	uint16_t *last = scratch + (hi - lo + 7) / 8 * 8;
	if (cfg.hash_bits < SORT_FROM_BITS) {
		links_kernel<<<(unsigned)((hi - lo + SEG - 1) / SEG), 32, smem, s>>>(scratch, lo, hi,
		                                                                   hsize, links, last);
	} else {
		e = cudaFuncSetAttribute(links_sort_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                         (int)SORT_SMEM);
		if (e != cudaSuccess)
			return e;
		links_sort_kernel<<<(unsigned)((hi - lo + SEG - 1) / SEG), SORT_THREADS, SORT_SMEM, s>>>(
			scratch, lo, hi, cfg.hash_bits, links, last);
	}
	if (hi - lo > SEG) {
		e = cudaFuncSetAttribute(links_join_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                         (int)smem);
		if (e != cudaSuccess)
			return e;
		links_join_kernel<<<(unsigned)((hi - lo - 1) / SEG), 1024, smem, s>>>(scratch, lo, hi,
		                                                                     hsize, links, last);
	}
	return cudaGetLastError();
}

cudaError_t gpz_lz_gpu_find(const uint8_t *src, size_t n, size_t piece, int level, size_t a,
                            size_t b, const uint16_t *links, size_t lo, int group,
                            unsigned shift, uint32_t *pure, cudaStream_t s)
{
	if (b <= a)
		return cudaSuccess;
	/* anchors are every 8th position from a piece's start; the tiles start on them */
	if (gpz_lz_level_cfg(level).skip && (a % 8 || piece % 8))
		return cudaErrorInvalidValue;
	/* one candidate a position (find_kernel): the bytes alone, longer tiles */
	const bool one = gpz_lz_level_cfg(level).chain == 1;
	const size_t smem = one ? FIND1_SMEM : FIND_SMEM, ft = one ? FT1 : FT;
	/* tiles start at a + k * FT1: each lies in one piece where FT1 divides the piece and a is
	 * a piece's start */
	const bool in_piece = piece % FT1 == 0 && a % piece == 0;
	auto kernel = !one ? find_kernel<false> : in_piece ? find_kernel<true, true>
	                                                   : find_kernel<true>;
	cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                                     (int)smem);
	if (e != cudaSuccess)
		return e;
	if (one)
		kernel<<<(unsigned)((b - a + ft - 1) / ft), FTHREADS, smem, s>>>(
			src, n, piece, level, a, b, links, lo, group, shift, pure);
	else
		find_kernel<false><<<(unsigned)((b - a + ft - 1) / ft), FTHREADS, smem, s>>>(
			src, n, piece, level, a, b, links, lo, group, shift, pure);
	return cudaGetLastError();
}

/* The run's work: the guesses (or, later, the cost-driven parse's segments, counts and costs),
 * then the guesses' states. */
static size_t dp_cost_bytes(size_t np, size_t piece)
{
	size_t threads = (np * ((piece + DSEG - 1) / DSEG) + DPB - 1) / DPB * DPB; /* dp_kernel's */
	return gpz_align256(threads * (DSEG + 1) * sizeof(uint32_t));
}
static size_t dp_n_bytes(size_t np, size_t piece)
{
	return gpz_align256(np * ((piece + DSEG - 1) / DSEG) * sizeof(uint32_t));
}
static size_t spec_bytes(size_t np, size_t piece)
{
	size_t guesses = gpz_align256(np * ((piece + SPEC_SEG - 1) / SPEC_SEG) * SPEC_CAP *
	                              sizeof(uint32_t));
	size_t dp = dp_cost_bytes(np, piece) + dp_n_bytes(np, piece) +
	            gpz_align256(np * sizeof(gpz_lz_costs));
	return guesses > dp ? guesses : dp;
}

size_t gpz_lz_gpu_run_work(size_t np, size_t piece)
{
	return spec_bytes(np, piece) + np * ((piece + SPEC_SEG - 1) / SPEC_SEG) * sizeof(gpz_lz_seg);
}

cudaError_t gpz_lz_gpu_run(const uint8_t *src, size_t n, size_t piece, int level, size_t p0,
                           size_t p1, const uint32_t *pure, size_t a, uint32_t *tok,
                           size_t tok_stride, uint32_t *ntok, void *work, cudaStream_t s)
{
	if (p1 <= p0)
		return cudaSuccess;
	run_args r;
	r.src = src;
	r.n = n;
	r.piece = piece;
	r.p0 = p0;
	r.np = p1 - p0;
	r.nseg = (piece + SPEC_SEG - 1) / SPEC_SEG;
	r.a = a;
	r.level = level;
	r.pure = pure;
	r.tok = tok;
	r.ntok = ntok;
	r.tok_stride = tok_stride;
	uint8_t *w = static_cast<uint8_t *>(work);
	r.spec = reinterpret_cast<uint32_t *>(w);
	r.seg = reinterpret_cast<gpz_lz_seg *>(w + spec_bytes(r.np, piece));
	r.ndseg = (piece + DSEG - 1) / DSEG;
	r.dpcost = reinterpret_cast<uint32_t *>(w);
	r.dpn = reinterpret_cast<uint32_t *>(w + dp_cost_bytes(r.np, piece));
	r.costs = reinterpret_cast<gpz_lz_costs *>(w + dp_cost_bytes(r.np, piece) +
	                                           dp_n_bytes(r.np, piece));
	const struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	if (cfg.lazy_parse)
		spec_kernel<<<(unsigned)((r.np * r.nseg + 63) / 64), 64, 0, s>>>(r);
	else
		spec_greedy_kernel<<<(unsigned)((r.np * r.nseg + GWARPS - 1) / GWARPS), 32 * GWARPS, 0,
		                     s>>>(r);
	fixup_kernel<<<(unsigned)r.np, 1, 0, s>>>(r);
	copy_kernel<<<(unsigned)(r.np * r.nseg), 256, 0, s>>>(r);
	for (unsigned k = 0; k < cfg.dp_rounds; k++) {
		dp_cost_kernel<<<(unsigned)r.np, 32, 0, s>>>(r);
		dp_kernel<<<(unsigned)((r.np * r.ndseg + DPB - 1) / DPB), DPB, 0, s>>>(r);
		dp_scan_kernel<<<(unsigned)((r.np + 63) / 64), 64, 0, s>>>(r);
		dp_gather_kernel<<<(unsigned)r.np, GATHER, 0, s>>>(r);
	}
	return cudaGetLastError();
}

/* ---- gpz_gpu_lz_parse (gpu.h) ---- */

extern "C" size_t gpz_gpu_lz_work(size_t n, size_t piece)
{
	if (piece == 0)
		return 0;
	return gpz_align256(n * sizeof(uint16_t)) + gpz_align256(2 * n * sizeof(uint32_t)) +
	       gpz_lz_gpu_run_work((n + piece - 1) / piece, piece);
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
	uint32_t *pure = reinterpret_cast<uint32_t *>(w + gpz_align256(n * sizeof(uint16_t)));
	GPZ_CUDA_TRY(gpz_lz_gpu_links(d_src, n, 0, n, level, links, reinterpret_cast<uint16_t *>(pure),
	                              st));
	GPZ_CUDA_TRY(gpz_lz_gpu_find(d_src, n, piece, level, 0, n, links, 0, 0, 0, pure, st));
	GPZ_CUDA_TRY(gpz_lz_gpu_run(d_src, n, piece, level, 0, npieces, pure, 0, d_tokens, piece,
	                            d_ntok, w + gpz_align256(n * sizeof(uint16_t)) + gpz_align256(2 * n * sizeof(uint32_t)),
	                            st));
	return GPZ_OK;
}
