/* dp_core.h - the cost-driven parse of levels 7-9, shared by the CPU (match.c) and the GPU
 * (match.cu), so that both emit the same tokens.
 *
 * Why: the lazy parse takes a match when the next position's is not longer; it never asks what
 * the bits cost. With every position's matches found beforehand (position-pure, match_core.h),
 * a piece's parse can instead be the cheapest path through it: a literal costs its code length,
 * a match (cut to some length, same distance) its length and distance codes' lengths plus their
 * extra bits. The code lengths come from the symbol counts of the parse before (first the
 * level's lazy parse, then this parse's own, once per round). Chains of 8-32 then give smaller
 * output than gzip -9's chains of 4096 and than libdeflate -9 (bench/NOTES.md, 2026-11-27).
 *
 * Definition (what both sides compute):
 * - costs: the piece's tokens are counted into DEFLATE symbols (plus one end-of-block), the
 *   lengths made by the block writer's builder (gpz_dfl_code_lengths, limit 15; a symbol not
 *   counted costs two bits more than the longest code, at most 15);
 * - the piece is cut into segments of GPZ_LZ_DP_SEG positions from its start, each parsed
 *   apart (a match never crosses a segment's end) by a backward pass: cost[k] is the least cost
 *   from position s + k to the segment's end t (cost[t - s] = 0). At each position the options,
 *   in order: the literal; the full chain's match (length L, cut at t) at lengths 3 .. min(L, 16)
 *   and then L; the quarter chain's likewise, where its distance differs. An option replaces the
 *   best so far only when strictly cheaper. Lengths between 16 and L are not tried: every length
 *   is a loop turn of a GPU thread, whose warp waits for its longest (trying all of them cost the
 *   first GPU form ~1,500 warp instructions a position step); levels 7-9 lose 0.1-0.2% of size;
 * - the tokens: from s forwards, at each token start the option its cost came from.
 * GPZ_HD, no globals, integer arithmetic only, as match_core.h. */
#ifndef GPZ_LZ_DP_CORE_H
#define GPZ_LZ_DP_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/hd.h"
#include "huffman/code_lengths.h"
#include "lz/dfl_symbols.h"
#include "lz/match_core.h"

#define GPZ_LZ_DP_SEG 4096u /* positions a segment: a GPU thread's share */
#define GPZ_LZ_DP_LMAX 16u /* lengths a match is tried at: 3 .. this, and its whole length */

/* A piece's bit costs: a literal byte, a match length (its code and extra bits, by length),
 * a distance code (with its extra bits). */
struct gpz_lz_costs {
	uint8_t lit[256];
	uint8_t len[GPZ_LZ_MAX_MATCH + 1];
	uint8_t dist[GPZ_DFL_NDIST];
};

/* The symbol counts of tok[0 .. nt) (one end-of-block added). */
GPZ_HD static inline void gpz_lz_dp_count(const uint32_t *tok, size_t nt, uint32_t *lf,
                                          uint32_t *df)
{
	for (unsigned s = 0; s < GPZ_DFL_NLIT; s++)
		lf[s] = 0;
	for (unsigned s = 0; s < GPZ_DFL_NDIST; s++)
		df[s] = 0;
	for (size_t i = 0; i < nt; i++) {
		uint32_t t = tok[i];
		if (t & GPZ_TOK_MATCH) {
			lf[257 + gpz_dfl_len_code(gpz_dfl_tok_len(t))]++;
			df[gpz_dfl_dist_code(gpz_dfl_tok_dist(t))]++;
		} else {
			lf[t & 0xff]++;
		}
	}
	lf[256]++;
}

/* len[0 .. n) from counts (modified: as gpz_dfl_build_code, an alphabet with fewer than two
 * used symbols gets a second), uncounted symbols at two bits past the longest code. */
GPZ_HD static inline void gpz_lz_dp_lengths(uint32_t *freq, unsigned n, uint8_t *len,
                                            struct gpz_dfl_huff *h)
{
	unsigned used = 0, longest = 0;
	for (unsigned s = 0; s < n; s++)
		used += freq[s] != 0;
	gpz_dfl_two_used(freq, n, used);
	gpz_dfl_code_lengths(freq, n, 15, len, h);
	for (unsigned s = 0; s < n; s++)
		if (freq[s] && len[s] > longest)
			longest = len[s];
	longest = longest + 2 > 15 ? 15 : longest + 2;
	for (unsigned s = 0; s < n; s++)
		if (!freq[s])
			len[s] = (uint8_t)longest;
}

/* The costs from a piece's counts (lf, df: modified). */
GPZ_HD static inline void gpz_lz_dp_costs(uint32_t *lf, uint32_t *df, struct gpz_lz_costs *c,
                                          struct gpz_dfl_huff *h)
{
	uint8_t ll[GPZ_DFL_NLIT], dl[GPZ_DFL_NDIST];
	gpz_lz_dp_lengths(lf, GPZ_DFL_NLIT, ll, h);
	gpz_lz_dp_lengths(df, GPZ_DFL_NDIST, dl, h);
	for (unsigned s = 0; s < 256; s++)
		c->lit[s] = ll[s];
	for (unsigned l = 0; l < GPZ_LZ_MIN_MATCH; l++)
		c->len[l] = 0;
	for (unsigned l = GPZ_LZ_MIN_MATCH; l <= GPZ_LZ_MAX_MATCH; l++) {
		unsigned k = gpz_dfl_len_code(l);
		c->len[l] = (uint8_t)(ll[257 + k] + gpz_dfl_len_extra(k));
	}
	for (unsigned k = 0; k < GPZ_DFL_NDIST; k++)
		c->dist[k] = (uint8_t)(dl[k] + gpz_dfl_dist_extra(k));
}

/* The cost of the best option of the match r (gpz_lz_pack form; its length cut to `room`) at a
 * position whose next costs are win[1 .. GPZ_LZ_DP_LMAX] (win[j]: j positions on) and
 * cost[L * cstride] for its whole length L past them; best / *ch updated when strictly cheaper
 * (*ch = length | q << 15). A loop of fixed turns over a register window: the GPU thread walks
 * its segment with no memory on the chain from one position to the next but for long matches. */
GPZ_HD static inline uint32_t gpz_lz_dp_match(uint32_t r, unsigned room, unsigned q,
                                              const struct gpz_lz_costs *c,
                                              const uint32_t *win, const uint32_t *cost,
                                              unsigned cstride, uint32_t best, unsigned *ch)
{
	unsigned len = r >> 16;
	if (len > room)
		len = room;
	if (len < GPZ_LZ_MIN_MATCH)
		return best;
	const uint32_t dc = c->dist[gpz_dfl_dist_code(r & 0xffff)];
#ifdef __CUDA_ARCH__
	const unsigned turns = GPZ_LZ_DP_LMAX; /* fixed: the window stays in registers */
#pragma unroll
#else
	const unsigned turns = len < GPZ_LZ_DP_LMAX ? len : GPZ_LZ_DP_LMAX; /* the same options */
#endif
	for (unsigned l = GPZ_LZ_MIN_MATCH; l <= turns; l++) {
		uint32_t v = dc + c->len[l] + win[l];
		if (l <= len && v < best) {
			best = v;
			*ch = l | q << 15;
		}
	}
	if (len > GPZ_LZ_DP_LMAX) { /* the whole match */
		uint32_t v = dc + c->len[len] + cost[(size_t)len * cstride];
		if (v < best) {
			best = v;
			*ch = len | q << 15;
		}
	}
	return best;
}

/* The backward pass over a segment of m positions, position by position from m - 1 down to 0
 * (the caller brings each position's matches, so that the GPU can stage them): cost[k * cstride]
 * gets position k's least cost (cost: m + 1 entries; a GPU warp's threads interleave theirs),
 * win[j] holds the cost j positions on. */
struct gpz_lz_dp_back {
	uint32_t win[GPZ_LZ_DP_LMAX + 1];
};

GPZ_HD static inline void gpz_lz_dp_back_init(struct gpz_lz_dp_back *b, unsigned m,
                                              uint32_t *cost, unsigned cstride)
{
	for (unsigned j = 0; j <= GPZ_LZ_DP_LMAX; j++)
		b->win[j] = 0; /* win[1]: the end's cost; the others lie past it, never asked for */
	cost[(size_t)m * cstride] = 0;
}

/* Position k (of m): m0, m1 its full and quarter chain's matches (m1 unused unless quarter),
 * lit its byte. */
GPZ_HD static inline void gpz_lz_dp_back_step(struct gpz_lz_dp_back *b, unsigned k, unsigned m,
                                              uint32_t m0, uint32_t m1, int quarter, uint8_t lit,
                                              const struct gpz_lz_costs *c, uint32_t *cost,
                                              unsigned cstride)
{
	unsigned ch = 0;
	uint32_t *at = cost + (size_t)k * cstride;
	uint32_t best = c->lit[lit] + b->win[1];
	best = gpz_lz_dp_match(m0, m - k, 0, c, b->win, at, cstride, best, &ch);
	if (quarter && (m1 & 0xffff) != (m0 & 0xffff))
		best = gpz_lz_dp_match(m1, m - k, 1, c, b->win, at, cstride, best, &ch);
	*at = best;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (unsigned j = GPZ_LZ_DP_LMAX; j > 1; j--)
		b->win[j] = b->win[j - 1];
	b->win[1] = best;
}

/* The forward walk over the costs of [s, t) (gpz_lz_dp_back_step's): the option each token
 * start's cost came from, found again by the same function over the same costs (so the choices
 * need no storing). Matches as gpz_lz_dp_segment's; the tokens go to tok; returns their number. */
GPZ_HD static inline size_t gpz_lz_dp_walk(const uint8_t *src, const uint32_t *pure,
                                           unsigned stride, int quarter, size_t base, size_t s,
                                           size_t t, const struct gpz_lz_costs *c,
                                           const uint32_t *cost, unsigned cstride, uint32_t *tok)
{
	const unsigned m = (unsigned)(t - s);
	uint32_t win[GPZ_LZ_DP_LMAX + 1];
	size_t n = 0;
	for (unsigned k = 0; k < m;) {
		const uint32_t *p = pure + stride * (s + k - base);
		const uint32_t m0 = p[0], m1 = quarter ? p[1] : 0;
		const uint32_t *at = cost + (size_t)k * cstride;
		win[0] = 0;
		for (unsigned j = 1; j <= GPZ_LZ_DP_LMAX; j++)
			win[j] = k + j <= m ? at[(size_t)j * cstride] : 0;
		unsigned ch = 0;
		uint32_t best = c->lit[src[s + k]] + win[1];
		best = gpz_lz_dp_match(m0, m - k, 0, c, win, at, cstride, best, &ch);
		if (quarter && (m1 & 0xffff) != (m0 & 0xffff))
			gpz_lz_dp_match(m1, m - k, 1, c, win, at, cstride, best, &ch);
		if (!ch) {
			tok[n++] = gpz_lz_core_literal(src[s + k]);
			k++;
			continue;
		}
		tok[n++] = gpz_lz_core_match(ch & 0x7fff, (ch >> 15 ? m1 : m0) & 0xffff);
		k += ch & 0x7fff;
	}
	return n;
}

/*
 * The segment [s, t) (t - s <= GPZ_LZ_DP_SEG) parsed at least cost, the CPU's way (the GPU
 * stages the matches, match.cu): the matches of position q are pure[stride * (q - base) + 0]
 * (full chain) and, when quarter, + 1 (gpz_lz_pack form); cost: t - s + 1 entries, at a stride
 * of cstride. The tokens go to tok; returns their number.
 */
GPZ_HD static inline size_t gpz_lz_dp_segment(const uint8_t *src, const uint32_t *pure,
                                              unsigned stride, int quarter, size_t base,
                                              size_t s, size_t t,
                                              const struct gpz_lz_costs *c, uint32_t *cost,
                                              unsigned cstride, uint32_t *tok)
{
	const unsigned m = (unsigned)(t - s);
	struct gpz_lz_dp_back b;
	gpz_lz_dp_back_init(&b, m, cost, cstride);
	for (unsigned k = m; k-- > 0;) {
		const uint32_t *p = pure + stride * (s + k - base);
		gpz_lz_dp_back_step(&b, k, m, p[0], quarter ? p[1] : 0, quarter, src[s + k], c, cost,
		                    cstride);
	}
	return gpz_lz_dp_walk(src, pure, stride, quarter, base, s, t, c, cost, cstride, tok);
}

#endif
