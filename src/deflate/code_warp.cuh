/* code_warp.cuh - gpz_dfl_build_code (block_core.h) by the 32 lanes of a warp: the same lengths
 * and codes, for plan_kernel (deflate.cu), where one lane building every block's codes alone was
 * most of the kernel's time (package-merge above all: literal/length codes of large blocks
 * usually pass 15 bits).
 *
 * What changes is only who does the work. The used symbols' keys (count << 20 | symbol) are
 * distinct, so a key's place in the sorted order is the number of smaller keys (a rank sort).
 * Huffman's two-queue construction stays on lane 0 (a step a node). Each package-merge list is
 * the stable merge of the leaves with the packages of the list below, ties to the leaves, so a
 * leaf's place is its index plus the packages lighter than it and a package's its index plus the
 * leaves no heavier than it (two binary searches); a leaf's length is the number of lists whose
 * first 2n - 2 items, less the packages among them, reach past it. Canonical codes come from the
 * count of shorter codes plus the symbol's rank among the earlier symbols of its length.
 *
 * Everything lives in the caller's scratch (struct gpz_dfl_huff, in shared memory); all 32 lanes
 * call, with the same arguments. */
#ifndef GPZ_DEFLATE_CODE_WARP_CUH
#define GPZ_DEFLATE_CODE_WARP_CUH

#include "deflate/block_core.h"
#include "gpu/warp.cuh"

namespace gpz_dfl_warp {

constexpr unsigned FULL = 0xffffffffu;

__device__ inline unsigned lane_id()
{
	return threadIdx.x % 32;
}

/* Entries [0, n) of the ascending a[] that are < v (strict) or <= v (!strict). */
__device__ inline unsigned count_below(const uint64_t *a, unsigned n, uint64_t v, bool strict)
{
	unsigned lo = 0, hi = n;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (strict ? a[mid] < v : a[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* gpz_cl_package_merge over h->w[0 .. n) by the warp; plen[] in sorted order, returns plen[0]. */
__device__ inline int package_merge(struct gpz_dfl_huff *h, unsigned n, int limit,
                                    unsigned *thr)
{
	const unsigned lane = lane_id(), words = (2 * n + 63) / 64;
	uint64_t *cur = h->cur, *nxt = h->nxt, *pw = h->nw;
	unsigned m = n;

	for (unsigned i = lane; i < (unsigned)limit * words; i += 32)
		h->is_pkg[i] = 0;
	for (unsigned i = lane; i < n; i += 32)
		cur[i] = h->w[i];
	__syncwarp();
	for (int d = limit - 1; d >= 1; d--) {
		const unsigned np = m / 2;
		uint64_t *bits = h->is_pkg + (size_t)d * words;
		for (unsigned j = lane; j < np; j += 32)
			pw[j] = cur[2 * j] + cur[2 * j + 1];
		__syncwarp();
		for (unsigned i = lane; i < n; i += 32)
			nxt[i + count_below(pw, np, h->w[i], true)] = h->w[i];
		for (unsigned j = lane; j < np; j += 32) {
			unsigned o = j + count_below(h->w, n, pw[j], false);
			nxt[o] = pw[j];
			atomicOr((unsigned long long *)&bits[o / 64], 1ull << (o % 64));
		}
		__syncwarp();
		m = n + np;
		uint64_t *t = cur;
		cur = nxt;
		nxt = t;
	}
	/* thr[d]: the leaves below it are selected in list d */
	if (lane == 0) {
		size_t k = 2 * (size_t)n - 2;
		for (int d = 1; d <= limit; d++) {
			size_t p = 0;
			if (k > 0 && d < limit) {
				const uint64_t *bits = h->is_pkg + (size_t)d * words;
				for (size_t i = 0; i < k / 64; i++)
					p += __popcll(bits[i]);
				if (k % 64)
					p += __popcll(bits[k / 64] & ((1ull << (k % 64)) - 1));
			}
			thr[d] = k > 0 ? (unsigned)(k - p) : 0;
			k = k > 0 ? 2 * p : 0;
		}
	}
	__syncwarp();
	for (unsigned i = lane; i < n; i += 32) {
		unsigned l = 0;
		for (int d = 1; d <= limit; d++)
			l += i < thr[d];
		h->plen[i] = (uint8_t)l;
	}
	__syncwarp();
	return h->plen[0];
}

/* Shared scratch build_code needs besides a struct gpz_dfl_huff. */
struct small {
	unsigned thr[GPZ_DFL_MAX_LIMIT + 1];       /* package-merge's list ends */
	unsigned next_code[GPZ_DFL_MAX_LIMIT + 1]; /* canonical codes */
};

/* gpz_dfl_build_code(freq, n, limit, len, code, h) by the warp (freq may gain symbols as
 * there). */
__device__ inline void build_code(uint32_t *freq, unsigned n, int limit, uint8_t *len,
                                  uint32_t *code, struct gpz_dfl_huff *h, struct small *sm)
{
	const unsigned lane = lane_id();
	unsigned *next_code = sm->next_code;
	unsigned used = 0;

	for (unsigned s0 = 0; s0 < n; s0 += 32)
		used += __popc(__ballot_sync(FULL, s0 + lane < n && freq[s0 + lane]));
	if (used < 2 && lane == 0)
		used = gpz_dfl_two_used(freq, n, used);
	used = __shfl_sync(FULL, used, 0);
	__syncwarp();
	/* the keys in symbol order, then each at its rank */
	unsigned base = 0;
	for (unsigned s0 = 0; s0 < n; s0 += 32) {
		const unsigned s = s0 + lane;
		const bool on = s < n && freq[s];
		const unsigned b = __ballot_sync(FULL, on);
		if (on)
			h->nxt[base + __popc(b & ((1u << lane) - 1))] = ((uint64_t)freq[s] << 20) | s;
		base += __popc(b);
	}
	for (unsigned s = lane; s < n; s += 32)
		len[s] = 0;
	__syncwarp();
	for (unsigned i = lane; i < used; i += 32) {
		const uint64_t k = h->nxt[i];
		unsigned r = 0;
		for (unsigned j = 0; j < used; j++)
			r += h->nxt[j] < k;
		h->key[r] = k;
	}
	__syncwarp();
	for (unsigned i = lane; i < used; i += 32)
		h->w[i] = h->key[i] >> 20;
	__syncwarp();
	/* Huffman depths, a node at a time */
	int maxd = 0;
	if (lane == 0) {
		struct gpz_cl_scratch cs = { h->w, h->nw, h->parent, h->depth, h->cur, h->nxt,
			                     h->is_pkg, h->plen };
		maxd = (int)gpz_cl_huffman_depths(&cs, used);
	}
	maxd = __shfl_sync(FULL, maxd, 0);
	__syncwarp();
	if (maxd > limit) {
		package_merge(h, used, limit, sm->thr);
		for (unsigned i = lane; i < used; i += 32)
			len[h->key[i] & GPZ_CL_KEY_SYMBOL] = h->plen[i];
	} else {
		for (unsigned i = lane; i < used; i += 32)
			len[h->key[i] & GPZ_CL_KEY_SYMBOL] = (uint8_t)h->depth[i];
	}
	__syncwarp();
	/* canonical codes: the first code of each length, then a symbol's rank among the earlier
	 * symbols of its length */
	if (lane == 0) {
		unsigned count[GPZ_DFL_MAX_LIMIT + 1], c = 0;
		for (int l = 0; l <= GPZ_DFL_MAX_LIMIT; l++)
			count[l] = 0;
		for (unsigned s = 0; s < n; s++)
			count[len[s]]++;
		count[0] = 0;
		for (int l = 1; l <= GPZ_DFL_MAX_LIMIT; l++) {
			c = (c + count[l - 1]) << 1;
			next_code[l] = c;
		}
	}
	__syncwarp();
	for (unsigned s0 = 0; s0 < n; s0 += 32) {
		const unsigned s = s0 + lane;
		const unsigned l = s < n ? len[s] : 0;
		const unsigned peers = __match_any_sync(FULL, s < n ? l : 32 + lane);
		const unsigned rank = __popc(peers & ((1u << lane) - 1));
		uint32_t cd = 0;
		if (s < n && l)
			cd = __brev(next_code[l] + rank) >> (32 - l);
		if (s < n)
			code[s] = cd;
		__syncwarp();
		if (s < n && l && !(peers >> lane >> 1)) /* the group's last lane moves it on */
			next_code[l] += rank + 1;
		__syncwarp();
	}
}

/* How many symbols gpz_dfl_rle_run codes a maximal run of L lengths equal to v with (its rules,
 * counted without writing). */
__device__ inline unsigned rle_run_count(unsigned v, unsigned L)
{
	unsigned c = 0;
	if (v == 0) {
		for (; L >= 3; c++)
			L -= L > 138 ? 138 : L;
	} else {
		for (; L >= 4; c += 2)
			L -= 1 + (L - 1 > 6 ? 6 : L - 1);
	}
	return c + L;
}

/* gpz_dfl_rle_lengths(b, clfreq, all) by the warp (b's hlit and hdist set, clfreq zeroed): the
 * same symbols in the same order and the same counts. The runs' starts are listed (a ballot a 32
 * lengths), then each lane codes whole runs at offsets from a scan of their symbol counts; one
 * lane coding every length was a fifth of plan_kernel's time (ncu, level 1). start: room for
 * hlit + hdist + 1 entries. */
__device__ inline void rle_lengths(struct gpz_dfl_codes *b, uint32_t *clfreq, uint8_t *all,
                                   uint32_t *start)
{
	const unsigned lane = lane_id(), hlit = b->hlit, n = hlit + b->hdist;
	for (unsigned i = lane; i < n; i += 32)
		all[i] = i < hlit ? b->llen[i] : b->dlen[i - hlit];
	__syncwarp();
	unsigned nruns = 0;
	for (unsigned i0 = 0; i0 < n; i0 += 32) {
		const unsigned i = i0 + lane;
		const bool first = i < n && (i == 0 || all[i] != all[i - 1]);
		const unsigned m = __ballot_sync(FULL, first);
		if (first)
			start[nruns + __popc(m & ((1u << lane) - 1))] = i;
		nruns += __popc(m);
	}
	if (lane == 0)
		start[nruns] = n;
	__syncwarp();
	unsigned base = 0;
	for (unsigned r0 = 0; r0 < nruns; r0 += 32) {
		const unsigned r = r0 + lane;
		unsigned v = 0, len = 0, c = 0;
		if (r < nruns) {
			v = all[start[r]];
			len = start[r + 1] - start[r];
			c = rle_run_count(v, len);
		}
		const unsigned x = gpz_warp_scan(c);
		if (r < nruns)
			gpz_dfl_rle_run(b, clfreq, base + x - c, v, len, 1);
		base += __shfl_sync(FULL, x, 31);
	}
	if (lane == 0)
		b->nrle = base;
	__syncwarp();
}

} // namespace gpz_dfl_warp

#endif
