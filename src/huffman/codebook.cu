/*
 * codebook.cu - code lengths and canonical codes on the GPU, bit for bit those of codebook.c.
 *
 * Code lengths: Huffman's two-queue construction done in parallel rounds.
 *
 *   Leaves L (used symbols sorted by (count, symbol)) and internal nodes I (in creation order,
 *   nondecreasing weight) are two sorted queues. Let S be their merge, ordered by weight with a
 *   leaf ahead of an internal node of equal weight (and queue order within each queue): that is
 *   exactly the order in which the sequential algorithm would pop them if it created no node.
 *   With t = w(S0) + w(S1), every node created in this round weighs >= t (each is the sum of two
 *   items at positions >= 0 and >= 1 of S), so the sequential algorithm pops every item of S of
 *   weight <= t before it pops any new node: a leaf wins a tie against a new node, and an older
 *   internal node stands ahead of the new ones in its queue. One round therefore takes the prefix
 *   P of S of weight <= t (all items of weight <= t, S being sorted), drops its last item when
 *   |P| is odd, and melds (P0,P1), (P2,P3), ... into new internal nodes appended in that order:
 *   the very nodes, with the very children, that the sequential algorithm creates next.
 *   Rounds end when one node is left. Node numbers are creation order, as in codebook.c.
 *
 *   Round count: after round r every item is >= t_r except at most one held-over odd item, which
 *   is the head of round r + 1 and is consumed there; so t_{r+2} >= 2 t_r, t_0 >= 2 and the last
 *   t is the total weight W < 2^52 (2^20 counts below 2^32): at most 2 log2(W) <= 104 rounds
 *   (<= 64 when the counts sum below 2^32, as for real data). Also the tree height <= rounds.
 *
 *   One block builds the tree. Warp 0 plans every round: t from the four queue heads, the
 *   prefix sizes by 32-ary searches (one load and one ballot per lane and level). Rounds of at
 *   most SOLO_PAIRS new nodes (most of them: the late rounds are small) are melded by warp 0
 *   alone, each lane a contiguous run of pairs found by a merge-path search, with __syncwarp
 *   only. Larger rounds go to the whole block between two __syncthreads: each warp takes a
 *   contiguous share of the pairs and merges it 32 items at a time, coalesced (meld_warp); a
 *   round of leaves only, or of internal nodes only, is paired directly. A round reads only
 *   nodes older than itself and writes only new nodes and parent links, so it needs no barrier
 *   inside. Depths: a node's parent is made in a later round, so the rounds are walked
 *   backwards with depth = depth(parent) + 1, small ones by warp 0 alone. The deepest node is a
 *   leaf whose parent is the deepest internal node: max length = max internal depth + 1.
 *
 *   Alphabets up to 8192 (less where shared memory is smaller): one kernel of one block,
 *   counts -> keys -> cub::BlockRadixSort over only the key bits in use -> tree in shared
 *   memory -> lengths. Larger: keys kernel, cub::DeviceRadixSort (sbits + 32 bits), the tree
 *   block in global memory until the live items fit in shared memory (then staged there; the
 *   depths stay in shared memory up to 2^16 symbols), a grid kernel scattering the lengths.
 *   A grid-wide (cooperative) build was not chosen: there are tens of rounds and a grid barrier
 *   costs microseconds, while one SM does a round of 2^16 symbols in a few microseconds.
 *
 *   Measured on an H200 (tests/gpu/test_gpu_codebook, medians; "geom": every symbol used,
 *   two-sided geometric counts, max length 22-30; "nyx": one symbol at p = 0.996, ~1000 others):
 *     symbols          1024   4096   65536   2^20
 *     lengths  geom      43     78     252   1888 us
 *              nyx       26     42     104    162 us
 *     canonical         9.5     18      21     41 us
 *   (about 5 us of each is launch latency; 65536 "nyx": ~80 us are keys + cub sort + launches)
 *   For 1024 symbols (geom): ~8 us sort, ~23 us rounds (29 rounds), ~4 us depths, ~6 us launch.
 *
 * Canonical codes: code[s] = first[len] + rank of s among the symbols of its length. Ranks: per
 * warp by one ballot per length, per tile of 1024 by a warp scan per length over the 32 warps,
 * across tiles by a running base. One kernel of one block up to CANON_FUSED_MAX symbols; above,
 * a per-block length-count kernel and a code kernel in which every block sums the counts of
 * the blocks before it.
 */
#include "huffman/huffman_gpu.h"
#include "gpu/cuda_check.h"
#include "gpu/warp.cuh"

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#ifdef GPZ_CB_PROFILE /* development only: cycle stamps of the phases, printed by thread 0 */
#include <cstdio>
#define PROF_T(i) long long prof_##i = clock64()
#define PROF_PRINT(name, n) \
	if (threadIdx.x == 0) \
		printf("%s n=%u: sort %lld build %lld depth %lld rest %lld cycles\n", name, n, \
		       prof_1 - prof_0, prof_2 - prof_1, prof_3 - prof_2, clock64() - prof_3)
#else
#define PROF_T(i) (void)0
#define PROF_PRINT(name, n) (void)0
#endif

namespace {

constexpr unsigned FULL = 0xffffffffu;
constexpr uint64_t NONE = ~(uint64_t)0; /* above any weight (weights are < 2^52) */
constexpr int MAX_ROUNDS = 128;         /* the bound above is 104 */
constexpr int BUILD_THREADS = 1024;     /* threads of the tree-building block, large path */

__device__ __forceinline__ uint32_t warp_sum(uint32_t v)
{
	for (int o = 16; o; o >>= 1)
		v += __shfl_xor_sync(FULL, v, o);
	return v;
}

__device__ __forceinline__ uint32_t warp_max(uint32_t v)
{
	for (int o = 16; o; o >>= 1)
		v = max(v, __shfl_xor_sync(FULL, v, o));
	return v;
}

/* Tree storage in shared memory (small alphabets): node indices < 8192 fit 16 bits; leaf
 * weights are counts, < 2^32. */
struct SmemTree {
	const uint32_t *lw;
	uint64_t *iw;
	uint16_t *lpar, *ipar;
	uint8_t *dep;
	__device__ uint64_t leaf(uint32_t i) const { return lw[i]; }
	__device__ uint64_t node(uint32_t i) const { return iw[i]; }
	__device__ void set_node(uint32_t i, uint64_t w) const { iw[i] = w; }
	__device__ void set_lpar(uint32_t i, uint32_t p) const { lpar[i] = (uint16_t)p; }
	__device__ void set_ipar(uint32_t i, uint32_t p) const { ipar[i] = (uint16_t)p; }
	__device__ uint32_t parent(uint32_t i) const { return ipar[i]; }
	__device__ bool can_stage(uint32_t) const { return false; }
	__device__ void stage(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {}
	__device__ void prefetch_leaf(uint32_t) const {}
	__device__ void prefetch_node(uint32_t) const {}
};

/* Tree storage in global memory (large alphabets); leaf weights are read from the sorted keys.
 * Global loads of nodes written by the block miss L1 and cost an L2 round trip each, so once
 * the live items (unconsumed leaves and internal nodes) fit in shared memory they are staged
 * there: leaves >= lsw and internal nodes >= hsw (all later nodes included) live in sl / sn. */
struct GmemTree {
	const uint64_t *keys; /* sorted keys of the used symbols: (count << sbits) | symbol */
	int sbits;
	uint64_t *iw;
	uint32_t *lpar, *ipar;
	uint8_t *dep;   /* shared or global */
	uint32_t *sl;   /* shared: leaf weights from lsw on (rcap entries; counts fit 32 bits) */
	uint64_t *sn;   /* shared: internal weights from hsw on (2 * rcap entries) */
	uint32_t rcap;  /* live items that can be staged; 0: never */
	uint32_t lsw, hsw;
	__device__ uint64_t leaf(uint32_t i) const
	{
		return i >= lsw ? sl[i - lsw] : __ldg(&keys[i]) >> sbits;
	}
	__device__ uint64_t node(uint32_t i) const { return i >= hsw ? sn[i - hsw] : iw[i]; }
	__device__ void set_node(uint32_t i, uint64_t w) const
	{
		if (i >= hsw)
			sn[i - hsw] = w;
		else
			iw[i] = w;
	}
	__device__ void set_lpar(uint32_t i, uint32_t p) const { lpar[i] = p; }
	__device__ void set_ipar(uint32_t i, uint32_t p) const { ipar[i] = p; }
	__device__ uint32_t parent(uint32_t i) const { return ipar[i]; }
	/* into L1, ahead of the windows of meld_warp (16 weights a line) */
	__device__ void prefetch_leaf(uint32_t i) const
	{
		if (i < lsw)
			asm volatile("prefetch.global.L1 [%0];" ::"l"(keys + i));
	}
	__device__ void prefetch_node(uint32_t i) const
	{
		if (i < hsw)
			asm volatile("prefetch.global.L1 [%0];" ::"l"(iw + i));
	}
	/* Stage when the live items fit: leaves [c, n) and internal nodes [h, m); the nodes still
	 * to be made (live - 1) follow them in sn. By the whole block, between two barriers. */
	__device__ bool can_stage(uint32_t live) const { return lsw == ~0u && live <= rcap; }
	__device__ void stage(uint32_t n, uint32_t c, uint32_t h, uint32_t m, uint32_t tid,
	                      uint32_t T)
	{
		for (uint32_t i = c + tid; i < n; i += T)
			sl[i - c] = (uint32_t)(__ldg(&keys[i]) >> sbits);
		for (uint32_t i = h + tid; i < m; i += T)
			sn[i - h] = iw[i];
		lsw = c;
		hsw = h;
	}
};

/* Where warp 0, which runs the rounds, hands a round to the whole block. */
struct RoundShared {
	uint32_t rstart[MAX_ROUNDS + 1]; /* first internal node of each round; then n - 1 */
	uint32_t c, h, m, cl, ci;        /* the round to meld (build) */
	int go;                          /* build: 1 = meld that round, 2 = stage, 0 = done */
	int dq;                          /* depths: the round to do, -1 = done */
	uint32_t rounds;
};

/* Rounds of at most this many new nodes (depths: nodes) are done by warp 0 alone, with warp
 * barriers only; larger ones by the whole block, at two block barriers. */
constexpr uint32_t SOLO_PAIRS = 256;
constexpr uint32_t SOLO_DEPTHS = 512;

/* Number of leading trues of a monotone (true ..., false ...) predicate over [lo, lo + len), by
 * a warp: a 32-ary search, one load per lane and one ballot per level (2 levels for 1024
 * items, 4 for 65536). Every lane returns the count. */
template <class Pred>
__device__ __forceinline__ uint32_t warp_leading(uint32_t lo, uint32_t len, uint32_t lane,
                                                 Pred pred)
{
	const uint32_t begin = lo;
	while (len > 32) {
		const uint32_t stride = (len + 31) >> 5, i = lane * stride;
		const uint32_t cnt = __popc(__ballot_sync(FULL, i < len && pred(lo + i)));
		if (cnt == 0)
			return lo - begin;
		/* the first false lies in ((cnt - 1) * stride, min(len, cnt * stride)] */
		const uint32_t hi = min(len, cnt * stride);
		lo += (cnt - 1) * stride + 1;
		len = hi - (cnt - 1) * stride - 1;
	}
	return lo - begin + __popc(__ballot_sync(FULL, lane < len && pred(lo + lane)));
}

/* The round at (c, h, m), by the 32 lanes of a warp (each gets the same answer): cl leaves and
 * ci internal nodes form the even prefix of S that is melded. See the top of the file. */
template <class Tree>
__device__ __forceinline__ void plan_round(const Tree &tr, uint32_t n, uint32_t c, uint32_t h,
                                           uint32_t m, uint32_t lane, uint32_t &cl,
                                           uint32_t &ci)
{
	const uint32_t nl = n - c, ni = m - h;
	/* t = weight of the two lightest items (the heads, tie to the leaf) */
	const uint64_t a0 = nl > 0 ? tr.leaf(c) : NONE, a1 = nl > 1 ? tr.leaf(c + 1) : NONE;
	const uint64_t b0 = ni > 0 ? tr.node(h) : NONE, b1 = ni > 1 ? tr.node(h + 1) : NONE;
	const uint64_t t = a0 <= b0 ? a0 + min(a1, b0) : b0 + min(a0, b1);
	/* prefix P: every leaf and every old internal node of weight <= t */
	cl = warp_leading(c, n - c, lane, [&](uint32_t i) { return tr.leaf(i) <= t; });
	ci = warp_leading(h, m - h, lane, [&](uint32_t i) { return tr.node(i) <= t; });
	if ((cl + ci) & 1) {
		/* drop P's last item: the leaf unless an internal node sorts after it */
		if (ci == 0 || (cl != 0 && tr.node(h + ci - 1) < tr.leaf(c + cl - 1)))
			cl--;
		else
			ci--;
	}
}

/* Meld the planned round: pair k of P (merge of leaves [c, c + cl) and internal nodes
 * [h, h + ci), leaf first on ties) becomes internal node m + k. Thread tid of T takes a
 * contiguous run of pairs, found by a merge-path search. Reads only nodes < m; writes nodes
 * >= m and parent links. Used by warp 0 alone for the small rounds (lowest latency there). */
template <class Tree>
__device__ __forceinline__ void meld(const Tree &tr, uint32_t c, uint32_t h, uint32_t m,
                                     uint32_t cl, uint32_t ci, uint32_t tid, uint32_t T)
{
	const uint32_t np = (cl + ci) >> 1;
	const uint32_t per = (np + T - 1) / T;
	uint32_t d = 2 * per * tid;
	const uint32_t dend = min(2 * np, d + 2 * per);
	if (d >= dend)
		return;
	/* a = leaves among P's first d items */
	uint32_t alo = d > ci ? d - ci : 0, ahi = min(d, cl);
	while (alo < ahi) {
		const uint32_t mid = (alo + ahi + 1) >> 1;
		if (tr.leaf(c + mid - 1) <= tr.node(h + d - mid))
			alo = mid;
		else
			ahi = mid - 1;
	}
	uint32_t a = alo, b = d - alo;
	uint64_t wl = a < cl ? tr.leaf(c + a) : 0, wi = b < ci ? tr.node(h + b) : 0;
	for (; d < dend; d += 2) {
		const uint32_t p = m + (d >> 1);
		uint64_t sum = 0;
#pragma unroll
		for (int e = 0; e < 2; e++) {
			if (a < cl && (b >= ci || wl <= wi)) {
				sum += wl;
				tr.set_lpar(c + a, p);
				a++;
				wl = a < cl ? tr.leaf(c + a) : 0;
			} else {
				sum += wi;
				tr.set_ipar(h + b, p);
				b++;
				wi = b < ci ? tr.node(h + b) : 0;
			}
		}
		tr.set_node(p, sum);
	}
}

/* Meld pairs [p0, p1) of the planned round, by one warp, 32 items of P per step: lane j holds
 * the next leaf A_j and the next internal node B_j; A_j's place among the 32 is j + #(B < A_j)
 * and B_j's is j + #(A <= B_j) (leaf first on ties), found by binary searches over the lanes.
 * Loads and stores are coalesced, unlike in meld(), whose runs per thread make every warp
 * access touch 32 cache lines: this is the block rounds' version. */
template <class Tree>
__device__ __forceinline__ void meld_warp(const Tree &tr, uint32_t c, uint32_t h, uint32_t m,
                                          uint32_t cl, uint32_t ci, uint32_t p0, uint32_t p1,
                                          uint32_t lane)
{
	uint32_t d = 2 * p0;
	const uint32_t dend = 2 * p1;
	if (d >= dend)
		return;
	/* merge path at d: a = leaves among P's first d items, the largest a in [lo, hi] with
	 * a == lo or leaf a - 1 ahead of internal d - a */
	const uint32_t lo = d > ci ? d - ci : 0, hi = min(d, cl);
	uint32_t a = lo + warp_leading(lo + 1, hi - lo, lane, [&](uint32_t x) {
		return tr.leaf(c + x - 1) <= tr.node(h + d - x);
	});
	uint32_t b = d - a;
	const uint32_t lt = (1u << lane) - 1;
	while (d < dend) {
		/* global memory: fetch the lines 64 .. 127 items ahead in both queues */
		if (lane < 4 && a + 64 + 16 * lane < cl)
			tr.prefetch_leaf(c + a + 64 + 16 * lane);
		else if (lane >= 4 && lane < 8 && b + 16 * lane < ci)
			tr.prefetch_node(h + b + 16 * lane);
		const uint64_t A = a + lane < cl ? tr.leaf(c + a + lane) : NONE;
		const uint64_t B = b + lane < ci ? tr.node(h + b + lane) : NONE;
		/* rA = #(B < A_j), rB = #(A <= B_j) over the 32 lanes; a NONE (past the end) lands
		 * behind every real item, and the 'want' items below are all real */
		uint32_t rA = 0, rB = 0;
#pragma unroll
		for (uint32_t st = 16; st; st >>= 1) {
			const uint64_t vb = __shfl_sync(FULL, B, rA + st - 1);
			const uint64_t va = __shfl_sync(FULL, A, rB + st - 1);
			rA += vb < A ? st : 0;
			rB += va <= B ? st : 0;
		}
		rA += __shfl_sync(FULL, B, rA) < A ? 1 : 0; /* 31 -> 32 */
		rB += __shfl_sync(FULL, A, rB) <= B ? 1 : 0;
		const uint32_t want = min(32u, dend - d); /* even */
		const uint32_t posA = lane + rA, posB = lane + rB;
		const bool tA = posA < want, tB = posB < want;
		const uint32_t nA = __popc(__ballot_sync(FULL, tA));
		if (tA)
			tr.set_lpar(c + a + lane, m + ((d + posA) >> 1));
		if (tB)
			tr.set_ipar(h + b + lane, m + ((d + posB) >> 1));
		/* weight of output slot `lane`, then the pair sums */
		const uint32_t slots = gpz_warp_or(tA ? 1u << posA : 0u); /* slots holding leaves */
		const uint32_t ia = __popc(slots & lt);
		const uint64_t wa = __shfl_sync(FULL, A, ia), wb = __shfl_sync(FULL, B, lane - ia);
		const uint64_t w = (slots >> lane) & 1 ? wa : wb;
		const uint64_t w2 = __shfl_down_sync(FULL, w, 1);
		if (!(lane & 1) && lane < want)
			tr.set_node(m + ((d + lane) >> 1), w + w2);
		a += nA;
		b += want - nA;
		d += want;
	}
}

/* Pair k of a round made of leaves only (LEAVES) or internal nodes only: items base + 2k and
 * base + 2k + 1 become node m + k. */
template <bool LEAVES, class Tree>
__device__ __forceinline__ void meld_pairs(const Tree &tr, uint32_t base, uint32_t m, uint32_t np,
                                           uint32_t tid, uint32_t T)
{
#pragma unroll 4
	for (uint32_t k = tid; k < np; k += T) {
		const uint32_t a = base + 2 * k;
		if (LEAVES) {
			tr.set_node(m + k, tr.leaf(a) + tr.leaf(a + 1));
			tr.set_lpar(a, m + k);
			tr.set_lpar(a + 1, m + k);
		} else {
			tr.set_node(m + k, tr.node(a) + tr.node(a + 1));
			tr.set_ipar(a, m + k);
			tr.set_ipar(a + 1, m + k);
		}
	}
}

/* A block round: warp w melds the w-th share of the pairs. */
template <class Tree>
__device__ __forceinline__ void meld_block(const Tree &tr, uint32_t c, uint32_t h, uint32_t m,
                                           uint32_t cl, uint32_t ci, uint32_t tid, uint32_t T)
{
	const uint32_t np = (cl + ci) >> 1, nw = T >> 5, w = tid >> 5;
	if (ci == 0) { /* leaves only (the first round, typically): pair k = leaves 2k, 2k + 1 */
		meld_pairs<true>(tr, c, m, np, tid, T);
		return;
	}
	if (cl == 0) { /* internal nodes only */
		meld_pairs<false>(tr, h, m, np, tid, T);
		return;
	}
	const uint32_t per = (np + nw - 1) / nw;
	const uint32_t p0 = min(np, w * per);
	meld_warp(tr, c, h, m, cl, ci, p0, min(np, p0 + per), tid & 31);
}

/*
 * Huffman tree of the n >= 2 leaves of tr, by rounds, by the whole block: warp 0 plans every
 * round and melds the small ones alone while the other warps wait at barrier A; a large round
 * (or the staging) is done by all between barriers A and B. Every thread passes the same two
 * barrier instructions, as __syncthreads requires. Internal node k (creation order, root
 * n - 2) gets its weight in tr.node(k); every node but the root its parent (an internal
 * index). sh.rstart[r] = first node of round r, sh.rstart[rounds] = n - 1. Returns the number
 * of rounds; ends with a block barrier.
 */
template <class Tree>
__device__ uint32_t build_tree(Tree tr, uint32_t n, RoundShared &sh)
{
	const uint32_t tid = threadIdx.x, T = blockDim.x;
	uint32_t c = 0, h = 0, m = 0, r = 0; /* warp 0: leaf head, internal head, internal count */
	for (;;) {
		if (tid < 32) {
			int next = 0; /* 0: done, 1: meld a large round, 2: stage */
			while ((n - c) + (m - h) > 1) {
				if (tr.can_stage((n - c) + (m - h))) {
					next = 2;
					break;
				}
				uint32_t cl, ci;
				plan_round(tr, n, c, h, m, tid, cl, ci);
				const uint32_t np = (cl + ci) >> 1; /* >= 1 */
				if (np > SOLO_PAIRS) {
					next = 1;
					if (tid == 0) {
						sh.cl = cl;
						sh.ci = ci;
					}
				} else {
					meld(tr, c, h, m, cl, ci, tid, 32);
					__syncwarp();
				}
				if (next) { /* the block melds it; the state moves on here already */
					if (tid == 0) {
						sh.c = c;
						sh.h = h;
						sh.m = m;
					}
				}
				if (tid == 0 && r < MAX_ROUNDS)
					sh.rstart[r] = m;
				r++;
				c += cl;
				h += ci;
				m += np;
				if (next)
					break;
			}
			if (tid == 0) {
				if (next == 2) {
					sh.c = c;
					sh.h = h;
					sh.m = m;
				} else if (next == 0) {
					r = min(r, (uint32_t)MAX_ROUNDS); /* r <= 104: see the top of the file */
					sh.rstart[r] = m;
					sh.rounds = r;
				}
				sh.go = next;
			}
			__syncwarp();
		}
		__syncthreads(); /* A */
		const int go = sh.go; /* sh is rewritten only after barrier B */
		if (!go)
			break;
		if (go == 2)
			tr.stage(n, sh.c, sh.h, sh.m, tid, T);
		else
			meld_block(tr, sh.c, sh.h, sh.m, sh.cl, sh.ci, tid, T);
		__syncthreads(); /* B: the new nodes are read from the next round on */
	}
	return sh.rounds;
}

template <class Tree>
__device__ __forceinline__ uint32_t depth_range(const Tree &tr, uint32_t b, uint32_t e,
                                                uint32_t tid, uint32_t T)
{
	uint32_t maxd = 0;
	for (uint32_t j = b + tid; j < e; j += T) {
		const uint32_t d = tr.dep[tr.parent(j)] + 1u;
		tr.dep[j] = (uint8_t)d;
		maxd = max(maxd, d);
	}
	return maxd;
}

/* Depths of the internal nodes into tr.dep (root 0), walking the rounds backwards: a node's
 * parent is made in a later round. Small rounds by warp 0 alone, large ones by the block, with
 * the barriers as in build_tree. Returns this thread's largest depth (combine across the
 * block); ends with a block barrier. */
template <class Tree>
__device__ uint32_t internal_depths(const Tree &tr, uint32_t n, uint32_t rounds, RoundShared &sh)
{
	const uint32_t tid = threadIdx.x, T = blockDim.x;
	uint32_t maxd = 0;
	int q = (int)rounds - 2; /* warp 0: the next round to do */
	if (tid == 0)
		tr.dep[n - 2] = 0; /* the root: the last round makes it alone */
	for (;;) {
		if (tid < 32) {
			__syncwarp();
			int cmd = -1;
			for (; q >= 0; q--) {
				const uint32_t b = sh.rstart[q], e = sh.rstart[q + 1];
				if (e - b > SOLO_DEPTHS) {
					cmd = q--;
					break;
				}
				maxd = max(maxd, depth_range(tr, b, e, tid, 32));
				__syncwarp();
			}
			if (tid == 0)
				sh.dq = cmd;
			__syncwarp();
		}
		__syncthreads(); /* A */
		const int cmd = sh.dq; /* rewritten only after barrier B */
		if (cmd < 0)
			break;
		maxd = max(maxd, depth_range(tr, sh.rstart[cmd], sh.rstart[cmd + 1], tid, T));
		__syncthreads(); /* B */
	}
	return maxd;
}

/* ---------------- small alphabets: one block, everything in shared memory ---------------- */

template <int THREADS, int IPT>
struct Small {
	static constexpr uint32_t CAP = (uint32_t)THREADS * IPT;
	static constexpr int SBITS = CAP <= 256 ? 8 : CAP <= 512 ? 9 : CAP <= 1024 ? 10
	                           : CAP <= 2048 ? 11 : CAP <= 4096 ? 12 : 13;
	static_assert((1u << SBITS) == CAP, "CAP must be a power of two <= 8192");
	using Sort = cub::BlockRadixSort<uint64_t, THREADS, IPT>; /* 6-bit digits: no faster */
	/* tree arrays: leaf weights u32 (reused as the length-by-symbol bytes), internal weights
	 * u64, leaf and internal parents u16, internal depths u8 */
	static constexpr size_t TREE_BYTES = 17 * (size_t)CAP;
	static constexpr size_t SMEM = sizeof(typename Sort::TempStorage) > TREE_BYTES
	                                       ? sizeof(typename Sort::TempStorage)
	                                       : TREE_BYTES;
};

template <int THREADS, int IPT>
__global__ void __launch_bounds__(THREADS, 1)
	lengths_small_kernel(const uint32_t *__restrict__ counts, uint32_t alphabet,
	                     uint8_t *__restrict__ d_len, int *__restrict__ d_max_len)
{
	using K = Small<THREADS, IPT>;
	constexpr uint32_t CAP = K::CAP;
	constexpr int SBITS = K::SBITS;
	extern __shared__ __align__(16) unsigned char smem[];
	__shared__ RoundShared rsh;
	__shared__ uint32_t sh_used, sh_maxc, sh_maxd;
	const uint32_t tid = threadIdx.x;
	PROF_T(0);

	if (tid == 0) {
		sh_used = 0;
		sh_maxc = 0;
		sh_maxd = 0;
	}
	__syncthreads();

	/* keys: unused symbols (and the padding up to CAP) get count 0 and so sort first */
	uint64_t key[IPT];
	uint32_t used = 0, maxc = 0;
#pragma unroll
	for (int j = 0; j < IPT; j++) {
		const uint32_t s = (uint32_t)j * THREADS + tid;
		const uint32_t cnt = s < alphabet ? counts[s] : 0;
		key[j] = ((uint64_t)cnt << SBITS) | s;
		used += cnt != 0;
		maxc = max(maxc, cnt);
	}
	used = warp_sum(used);
	maxc = warp_max(maxc);
	if ((tid & 31) == 0) {
		atomicAdd(&sh_used, used);
		atomicMax(&sh_maxc, maxc);
	}
	__syncthreads();
	const uint32_t n = sh_used;
	if (n < 2) { /* as gpz_code_lengths: no code; lengths all 0 here */
		for (uint32_t s = tid; s < alphabet; s += THREADS)
			d_len[s] = 0;
		if (tid == 0)
			*d_max_len = -1;
		return;
	}
	const int end_bit = SBITS + 32 - __clz((int)sh_maxc);
	typename K::Sort(*reinterpret_cast<typename K::Sort::TempStorage *>(smem))
		.Sort(key, 0, end_bit); /* blocked: thread tid holds positions tid * IPT + j */
	__syncthreads();             /* the sort's storage becomes the tree's */

	uint32_t *lw = reinterpret_cast<uint32_t *>(smem);
	uint64_t *iw = reinterpret_cast<uint64_t *>(smem + 4 * (size_t)CAP);
	uint16_t *lpar = reinterpret_cast<uint16_t *>(smem + 12 * (size_t)CAP);
	uint16_t *ipar = reinterpret_cast<uint16_t *>(smem + 14 * (size_t)CAP);
	uint8_t *dep = smem + 16 * (size_t)CAP;
	const uint32_t off = CAP - n; /* sorted position of leaf 0 */
#pragma unroll
	for (int j = 0; j < IPT; j++) {
		const uint32_t p = tid * IPT + j;
		if (p >= off)
			lw[p - off] = (uint32_t)(key[j] >> SBITS);
	}
	__syncthreads();

	const SmemTree tr{lw, iw, lpar, ipar, dep};
	PROF_T(1);
	const uint32_t rounds = build_tree(tr, n, rsh);
	PROF_T(2);
	uint32_t maxd = internal_depths(tr, n, rounds, rsh);
	PROF_T(3);

	/* lengths by symbol, into the leaf-weight bytes (no longer read) */
	uint8_t *len_sh = reinterpret_cast<uint8_t *>(smem);
#pragma unroll
	for (int j = 0; j < IPT; j++) {
		const uint32_t p = tid * IPT + j;
		const uint32_t s = (uint32_t)key[j] & (CAP - 1);
		len_sh[s] = p >= off ? (uint8_t)(dep[lpar[p - off]] + 1) : 0;
	}
	maxd = warp_max(maxd);
	if ((tid & 31) == 0)
		atomicMax(&sh_maxd, maxd);
	__syncthreads();
	for (uint32_t s = tid; s < alphabet; s += THREADS)
		d_len[s] = len_sh[s];
	if (tid == 0)
		*d_max_len = (int)sh_maxd + 1;
	PROF_PRINT("small", n);
}

/* ---------------- large alphabets: device sort, tree in global memory ---------------- */

__global__ void make_keys_kernel(const uint32_t *__restrict__ counts, uint32_t alphabet, int sbits,
                                 uint64_t *__restrict__ keys)
{
	for (uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < alphabet;
	     s += gridDim.x * blockDim.x)
		keys[s] = ((uint64_t)counts[s] << sbits) | s;
}

__global__ void __launch_bounds__(BUILD_THREADS, 1)
	build_large_kernel(const uint64_t *__restrict__ keys, uint32_t alphabet, int sbits,
	                   uint64_t *iw, uint32_t *lpar, uint32_t *ipar, uint8_t *dep,
	                   uint32_t *d_off, int *d_max_len, uint32_t rcap, int dep_smem)
{
	extern __shared__ __align__(16) unsigned char smem[];
	__shared__ RoundShared rsh;
	__shared__ uint32_t sh_maxd, sh_off;
	const uint32_t tid = threadIdx.x;
	PROF_T(0);
	if (tid < 32) {
		/* off = number of unused symbols = sorted keys below 1 << sbits: a 32-ary search */
		const uint64_t lim = (uint64_t)1 << sbits;
		uint32_t lo = 0, len = alphabet;
		while (len > 32) {
			const uint32_t stride = (len + 31) >> 5, i = tid * stride;
			const uint32_t cnt = __popc(__ballot_sync(FULL, i < len && keys[lo + i] < lim));
			if (cnt == 0)
				break;
			const uint32_t hi = min(len, cnt * stride);
			lo += (cnt - 1) * stride + 1;
			len = hi - (cnt - 1) * stride - 1;
		}
		if (len <= 32)
			lo += __popc(__ballot_sync(FULL, tid < len && keys[lo + tid] < lim));
		if (tid == 0) {
			sh_off = lo;
			sh_maxd = 0;
		}
	}
	__syncthreads();
	const uint32_t off = sh_off, n = alphabet - off;
	if (tid == 0) {
		*d_off = off;
		if (n < 2)
			*d_max_len = -1;
	}
	if (n < 2)
		return;
	/* dynamic shared memory: sn (2 rcap u64), sl (rcap u32), then the depths if they fit */
	uint64_t *sn = reinterpret_cast<uint64_t *>(smem);
	uint32_t *sl = reinterpret_cast<uint32_t *>(smem + 16 * (size_t)rcap);
	uint8_t *sdep = smem + 20 * (size_t)rcap;
	const GmemTree tr{keys + off, sbits, iw, lpar, ipar, dep_smem ? sdep : dep, sl, sn, rcap,
	                  ~0u, ~0u};
	PROF_T(1);
	const uint32_t rounds = build_tree(tr, n, rsh);
	PROF_T(2);
	uint32_t maxd = warp_max(internal_depths(tr, n, rounds, rsh));
	PROF_T(3);
	if (dep_smem) /* for scatter_lengths_kernel */
		for (uint32_t j = tid; j < n - 1; j += BUILD_THREADS)
			dep[j] = sdep[j];
	if ((tid & 31) == 0)
		atomicMax(&sh_maxd, maxd);
	__syncthreads();
	if (tid == 0)
		*d_max_len = (int)sh_maxd + 1;
	PROF_PRINT("large", n);
}

/* One length per sorted position: every symbol of the alphabet is written exactly once. */
__global__ void scatter_lengths_kernel(const uint64_t *__restrict__ keys, uint32_t alphabet,
                                       int sbits, const uint32_t *__restrict__ lpar,
                                       const uint8_t *__restrict__ dep,
                                       const uint32_t *__restrict__ d_off,
                                       uint8_t *__restrict__ d_len)
{
	const uint32_t off = *d_off;
	const bool code = alphabet - off >= 2;
	const uint32_t mask = (1u << sbits) - 1;
	for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < alphabet;
	     p += gridDim.x * blockDim.x) {
		const uint32_t s = (uint32_t)keys[p] & mask;
		d_len[s] = code && p >= off ? (uint8_t)(dep[lpar[p - off]] + 1) : 0;
	}
}

/* ---------------- host side: lengths ---------------- */

int bit_width(uint32_t v)
{
	int b = 0;
	while (v) {
		b++;
		v >>= 1;
	}
	return b;
}

size_t align_up(size_t v)
{
	return (v + 255) & ~(size_t)255;
}

/* Raise a kernel's dynamic shared memory limit to `bytes`, once per device (slot: the kernel's
 * number; the runtime keeps the setting, so a repeat is only a wasted call). */
gpz_result smem_limit(const void *fn, int slot, int dev, size_t bytes)
{
	static unsigned char done[32][8]; /* benign race: setting twice is harmless */
	if (bytes <= 48 * 1024)
		return GPZ_OK;
	if (dev >= 0 && dev < 32 && done[dev][slot])
		return GPZ_OK;
	GPZ_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
	if (dev >= 0 && dev < 32)
		done[dev][slot] = 1;
	return GPZ_OK;
}

typedef void (*small_fn)(const uint32_t *, uint32_t, uint8_t *, int *);

struct SmallCfg {
	uint32_t cap;
	int threads;
	size_t smem;
	small_fn fn;
};

/* One-block configurations, smallest first. The thread counts favour few threads (cheap
 * barriers) for tiny alphabets and 1024 threads from 2048 symbols on. */
const SmallCfg small_cfgs[] = {
	{256, 256, Small<256, 1>::SMEM, lengths_small_kernel<256, 1>},
	{1024, 512, Small<512, 2>::SMEM, lengths_small_kernel<512, 2>},
	{2048, 1024, Small<1024, 2>::SMEM, lengths_small_kernel<1024, 2>},
	{4096, 1024, Small<1024, 4>::SMEM, lengths_small_kernel<1024, 4>},
	{8192, 1024, Small<1024, 8>::SMEM, lengths_small_kernel<1024, 8>},
};

/* The current device and its opt-in shared memory per block (0 when unknown). */
int device_smem(int *dev)
{
	int optin = 0;
	*dev = -1;
	if (cudaGetDevice(dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, *dev) !=
	            cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return optin;
}

/* The one-block configuration for this alphabet on the current device, or NULL. */
const SmallCfg *small_cfg(uint32_t alphabet, int *dev)
{
	const int optin = device_smem(dev);
	for (const SmallCfg &c : small_cfgs)
		if (alphabet <= c.cap)
			/* leave room for the static shared arrays */
			return c.smem + 2048 <= (size_t)optin ? &c : nullptr;
	return nullptr;
}

struct LargeLayout {
	size_t keys_a, keys_b, temp, lpar, ipar, dep, scal, total;
	size_t temp_bytes;
	int sbits, end_bit;
};

gpz_result large_layout(uint32_t alphabet, LargeLayout *L)
{
	size_t o = 0;
	cub::DoubleBuffer<uint64_t> db(nullptr, nullptr);
	L->sbits = bit_width(alphabet - 1);
	L->end_bit = L->sbits + 32;
	L->temp_bytes = 0;
	GPZ_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, L->temp_bytes, db, (int)alphabet, 0,
	                                            L->end_bit, (cudaStream_t)0));
	L->keys_a = o;
	o = align_up(o + 8 * (size_t)alphabet);
	L->keys_b = o; /* the internal weights after the sort */
	o = align_up(o + 8 * (size_t)alphabet);
	L->temp = o;
	o = align_up(o + L->temp_bytes);
	L->lpar = o;
	o = align_up(o + 4 * (size_t)alphabet);
	L->ipar = o;
	o = align_up(o + 4 * (size_t)alphabet);
	L->dep = o;
	o = align_up(o + alphabet);
	L->scal = o;
	o = align_up(o + 64);
	L->total = o;
	return GPZ_OK;
}

/* ---------------- canonical codes ---------------- */

constexpr int CANON_THREADS = 1024; /* 32 warps: one lane per warp in the scans */
constexpr uint32_t CANON_CHUNK = 4096;      /* symbols per block, grid version */
constexpr uint32_t CANON_FUSED_MAX = 16384; /* one block up to here */

struct CanonShared {
	uint32_t wc[2][32][33]; /* [tile parity][warp][length]: rank offsets; padded row */
	uint32_t total[32];     /* symbols per length, whole alphabet */
	uint32_t base[32];      /* symbols per length before this block */
	uint32_t first[32];     /* first code per length */
};

/* For the warp's 32 lengths: this lane's rank among the lanes of its length, and in lane l
 * (1 <= l <= 24) the number of lanes of length l (0 in the other lanes). */
__device__ __forceinline__ void warp_len_ranks(uint32_t len, uint32_t lane, uint32_t &rank,
                                               uint32_t &lane_count)
{
	const uint32_t lt = (1u << lane) - 1;
	rank = 0;
	lane_count = 0;
#pragma unroll
	for (uint32_t l = 1; l <= GPZ_MAX_CODE_LEN; l++) {
		const uint32_t b = __ballot_sync(FULL, len == l);
		if (len == l)
			rank = __popc(b & lt);
		if (lane == l)
			lane_count = __popc(b);
	}
}

/* Adds the per-length counts of d_len[begin, end) into cnt[1 .. 24] (shared). The whole block
 * calls it. */
__device__ void count_lengths(const uint8_t *__restrict__ d_len, uint32_t begin, uint32_t end,
                              uint32_t *cnt)
{
	const uint32_t lane = threadIdx.x & 31;
	uint32_t acc = 0, rank, lc;
	for (uint32_t t = begin; t < end; t += blockDim.x) {
		const uint32_t s = t + threadIdx.x;
		warp_len_ranks(s < end ? d_len[s] : 0u, lane, rank, lc);
		acc += lc;
	}
	if (lane >= 1 && lane <= GPZ_MAX_CODE_LEN && acc)
		atomicAdd(&cnt[lane], acc);
}

__global__ void __launch_bounds__(CANON_THREADS)
	canon_count_kernel(const uint8_t *__restrict__ d_len, uint32_t alphabet,
	                   uint32_t *__restrict__ blk_cnt)
{
	__shared__ uint32_t cnt[32];
	const uint32_t begin = blockIdx.x * CANON_CHUNK;
	if (threadIdx.x < 32)
		cnt[threadIdx.x] = 0;
	__syncthreads();
	count_lengths(d_len, begin, min(alphabet, begin + CANON_CHUNK), cnt);
	__syncthreads();
	if (threadIdx.x < 32)
		blk_cnt[blockIdx.x * 32 + threadIdx.x] = cnt[threadIdx.x];
}

/* FUSED: one block over the whole alphabet. Otherwise block b codes its chunk, taking the
 * length counts of all chunks from blk_cnt (canon_count_kernel). */
template <bool FUSED>
__global__ void __launch_bounds__(CANON_THREADS)
	canon_code_kernel(const uint8_t *__restrict__ d_len, uint32_t alphabet,
	                  const uint32_t *__restrict__ blk_cnt, uint32_t *__restrict__ d_table)
{
	__shared__ CanonShared sh;
	const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const uint32_t begin = FUSED ? 0 : blockIdx.x * CANON_CHUNK;
	const uint32_t end = FUSED ? alphabet : min(alphabet, begin + CANON_CHUNK);

	if (FUSED) {
		if (tid < 32) {
			sh.total[tid] = 0;
			sh.base[tid] = 0;
		}
		__syncthreads();
		count_lengths(d_len, 0, alphabet, sh.total);
	} else if (warp <= GPZ_MAX_CODE_LEN) {
		/* warp l sums length l over all blocks and over the blocks before this one */
		uint32_t tot = 0, pre = 0;
		if (warp >= 1)
			for (uint32_t b = lane; b < gridDim.x; b += 32) {
				const uint32_t v = blk_cnt[b * 32 + warp];
				tot += v;
				pre += b < blockIdx.x ? v : 0;
			}
		tot = warp_sum(tot);
		pre = warp_sum(pre);
		if (lane == 0) {
			sh.total[warp] = tot;
			sh.base[warp] = pre;
		}
	}
	__syncthreads();
	if (tid == 0) { /* as gpz_canonical_codes */
		uint32_t c = 0;
		sh.first[0] = 0;
		for (int l = 1; l <= GPZ_MAX_CODE_LEN; l++) {
			c = (c + (l > 1 ? sh.total[l - 1] : 0)) << 1;
			sh.first[l] = c;
		}
	}
	/* warp l (1..24) keeps the running count of length l across the tiles */
	uint32_t run = warp >= 1 && warp <= GPZ_MAX_CODE_LEN ? sh.base[warp] : 0;
	__syncthreads();

	int buf = 0;
	for (uint32_t t = begin; t < end; t += CANON_THREADS, buf ^= 1) {
		const uint32_t s = t + tid;
		const uint32_t len = s < end ? d_len[s] : 0;
		uint32_t rank, lc;
		warp_len_ranks(len, lane, rank, lc);
		sh.wc[buf][warp][lane] = lc;
		__syncthreads();
		if (warp >= 1 && warp <= GPZ_MAX_CODE_LEN) {
			const uint32_t v = sh.wc[buf][lane][warp];
			const uint32_t incl = gpz_warp_scan(v);
			sh.wc[buf][lane][warp] = run + incl - v;
			run += __shfl_sync(FULL, incl, 31);
		}
		__syncthreads(); /* buffer buf is rewritten two tiles on, after the next barrier */
		if (s < end) {
			uint32_t e = 0;
			if (len >= 1 && len <= GPZ_MAX_CODE_LEN)
				e = ((sh.first[len] + sh.wc[buf][warp][len] + rank) << 8) | len;
			else if (len)
				e = len; /* invalid length: no code */
			d_table[s] = e;
		}
	}
}

uint32_t canon_blocks(uint32_t alphabet)
{
	return (alphabet + CANON_CHUNK - 1) / CANON_CHUNK;
}

} // namespace

/* ---------------- interface ---------------- */

extern "C" size_t gpz_gpu_code_lengths_work(uint32_t alphabet)
{
	LargeLayout L;
	int dev;
	if (alphabet < 2 || alphabet > GPZ_MAX_ALPHABET || small_cfg(alphabet, &dev))
		return 0;
	if (large_layout(alphabet, &L) != GPZ_OK)
		return SIZE_MAX; /* cannot be allocated: the caller reports the failure */
	return L.total;
}

extern "C" gpz_result gpz_gpu_code_lengths(const uint32_t *d_counts, uint32_t alphabet,
                                           uint8_t *d_len, int *d_max_len, void *d_work,
                                           size_t work_bytes, gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (alphabet > GPZ_MAX_ALPHABET || !d_max_len || (alphabet && (!d_counts || !d_len)))
		return GPZ_ERR_PARAM;
	if (alphabet < 2) { /* fewer than 2 used symbols: no code */
		if (alphabet)
			GPZ_CUDA_TRY(cudaMemsetAsync(d_len, 0, alphabet, st));
		GPZ_CUDA_TRY(cudaMemsetAsync(d_max_len, 0xff, sizeof(int), st));
		return GPZ_OK;
	}
	int dev;
	if (const SmallCfg *c = small_cfg(alphabet, &dev)) {
		gpz_result r = smem_limit((const void *)c->fn, (int)(c - small_cfgs), dev, c->smem);
		if (r != GPZ_OK)
			return r;
		c->fn<<<1, c->threads, c->smem, st>>>(d_counts, alphabet, d_len, d_max_len);
		GPZ_LAUNCH_TRY();
		return GPZ_OK;
	}

	LargeLayout L;
	gpz_result r = large_layout(alphabet, &L);
	if (r != GPZ_OK)
		return r;
	if (!d_work || work_bytes < L.total)
		return GPZ_ERR_PARAM;
	unsigned char *w = static_cast<unsigned char *>(d_work);
	uint64_t *keys_a = reinterpret_cast<uint64_t *>(w + L.keys_a);
	uint64_t *keys_b = reinterpret_cast<uint64_t *>(w + L.keys_b);
	uint32_t *lpar = reinterpret_cast<uint32_t *>(w + L.lpar);
	uint32_t *ipar = reinterpret_cast<uint32_t *>(w + L.ipar);
	uint8_t *dep = w + L.dep;
	uint32_t *off = reinterpret_cast<uint32_t *>(w + L.scal);
	const int grid = (int)((alphabet + 255) / 256);

	make_keys_kernel<<<grid, 256, 0, st>>>(d_counts, alphabet, L.sbits, keys_a);
	GPZ_LAUNCH_TRY();
	cub::DoubleBuffer<uint64_t> db(keys_a, keys_b);
	size_t temp_bytes = L.temp_bytes;
	GPZ_CUDA_TRY(cub::DeviceRadixSort::SortKeys(w + L.temp, temp_bytes, db, (int)alphabet, 0,
	                                            L.end_bit, st));
	/* the selector is set on the host: the other buffer is free for the internal weights */
	const uint64_t *sorted = db.Current();
	uint64_t *iw = db.Alternate();
	/* shared memory: the depths when they fit, then as many live items as possible */
	const int optin = device_smem(&dev);
	const size_t avail = optin > 8192 ? (size_t)optin - 4096 : 0; /* 4 KiB for static */
	const size_t dep_bytes = ((size_t)alphabet + 15) & ~(size_t)15;
	const int dep_smem = dep_bytes + 20 * 1024 <= avail;
	uint32_t rcap = (uint32_t)((avail - (dep_smem ? dep_bytes : 0)) / 20) & ~31u;
	if (rcap < 256)
		rcap = 0;
	const size_t smem = 20 * (size_t)rcap + (dep_smem ? dep_bytes : 0);
	r = smem_limit((const void *)build_large_kernel, 7, dev, avail); /* the most it takes */
	if (r != GPZ_OK)
		return r;
	build_large_kernel<<<1, BUILD_THREADS, smem, st>>>(sorted, alphabet, L.sbits, iw, lpar, ipar,
	                                                    dep, off, d_max_len, rcap, dep_smem);
	GPZ_LAUNCH_TRY();
	scatter_lengths_kernel<<<grid, 256, 0, st>>>(sorted, alphabet, L.sbits, lpar, dep, off,
	                                              d_len);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

extern "C" size_t gpz_gpu_canonical_work(uint32_t alphabet)
{
	if (alphabet <= CANON_FUSED_MAX)
		return 0;
	return (size_t)canon_blocks(alphabet) * 32 * sizeof(uint32_t);
}

extern "C" gpz_result gpz_gpu_canonical(const uint8_t *d_len, uint32_t alphabet,
                                        uint32_t *d_table, void *d_work, size_t work_bytes,
                                        gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (alphabet > GPZ_MAX_ALPHABET || (alphabet && (!d_len || !d_table)))
		return GPZ_ERR_PARAM;
	if (alphabet == 0)
		return GPZ_OK;
	if (alphabet <= CANON_FUSED_MAX) {
		canon_code_kernel<true><<<1, CANON_THREADS, 0, st>>>(d_len, alphabet, nullptr, d_table);
		GPZ_LAUNCH_TRY();
		return GPZ_OK;
	}
	if (!d_work || work_bytes < gpz_gpu_canonical_work(alphabet))
		return GPZ_ERR_PARAM;
	uint32_t *blk_cnt = static_cast<uint32_t *>(d_work);
	const uint32_t blocks = canon_blocks(alphabet);
	canon_count_kernel<<<blocks, CANON_THREADS, 0, st>>>(d_len, alphabet, blk_cnt);
	GPZ_LAUNCH_TRY();
	canon_code_kernel<false><<<blocks, CANON_THREADS, 0, st>>>(d_len, alphabet, blk_cnt, d_table);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}
