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

/* Each position's least cost is kept as a key, cost << 5 | option (GPZ_LZ_DP_OPT bits): the
 * options numbered in the definition's order (0 the literal; 1 .. 14 the full chain's match at
 * lengths 3 .. 16, 15 its whole length; 16 .. 29 and 30 the quarter chain's likewise), so that
 * the least key is the least cost and, among equal costs, the first option in that order: the
 * one "strictly cheaper replaces" keeps. The forward walk then reads one key a token instead
 * of trying the options again over 16 costs (each its own line: a warp's threads walk apart).
 * Costs stay below 2^16 (at most 15 bits a position, 4096 positions). */
#define GPZ_LZ_DP_OPT 5
#define GPZ_LZ_DP_WHOLE 15u   /* + the chain's base: its whole length */
#define GPZ_LZ_DP_QUARTER 15u /* what the quarter chain's options add to the full chain's */

/* The backward pass over a segment of m positions, position by position from m - 1 down to 0
 * (the caller brings each position's matches): key[k * cstride] gets position k's key (key: m +
 * 1 entries; a GPU warp's threads interleave theirs), win[j] the cost j positions on (shifted
 * into a key's place), lk[l] the key of length l's cost and option (3 .. GPZ_LZ_DP_LMAX:
 * registers on the GPU, where a load of c->len a length a position was most of the pass's
 * memory instructions). */
struct gpz_lz_dp_back {
	uint32_t win[GPZ_LZ_DP_LMAX + 1];
	uint32_t lk[GPZ_LZ_DP_LMAX + 1];
};

#if GPZ_LZ_DP_LMAX != 16
#error "gpz_lz_dp_pick selects among lengths 3 .. 16, options 1 .. 14"
#endif

GPZ_HD static inline void gpz_lz_dp_back_init(struct gpz_lz_dp_back *b, unsigned m,
                                              const struct gpz_lz_costs *c, uint32_t *key,
                                              unsigned cstride)
{
	for (unsigned j = 0; j <= GPZ_LZ_DP_LMAX; j++) {
		b->win[j] = 0; /* win[1]: the end's cost; the others lie past it, never asked for */
		b->lk[j] = j < GPZ_LZ_MIN_MATCH ? 0 : (uint32_t)c->len[j] << GPZ_LZ_DP_OPT | (j - 2);
	}
	key[(size_t)m * cstride] = 0;
}

/* pm[l] for l in 3 .. 16. On the GPU a tree of selects on l's bits: a dynamic index would put
 * pm in local memory. */
GPZ_HD static inline uint32_t gpz_lz_dp_pick(const uint32_t *pm, unsigned l)
{
#ifdef __CUDA_ARCH__
	const unsigned i = l - GPZ_LZ_MIN_MATCH; /* 0 .. 13 */
	uint32_t a[7], b[4], d[2];
#pragma unroll
	for (unsigned j = 0; j < 7; j++)
		a[j] = i & 1 ? pm[GPZ_LZ_MIN_MATCH + 2 * j + 1] : pm[GPZ_LZ_MIN_MATCH + 2 * j];
#pragma unroll
	for (unsigned j = 0; j < 3; j++)
		b[j] = i & 2 ? a[2 * j + 1] : a[2 * j];
	b[3] = a[6]; /* i >> 1 is at most 6 */
#pragma unroll
	for (unsigned j = 0; j < 2; j++)
		d[j] = i & 4 ? b[2 * j + 1] : b[2 * j];
	return i & 8 ? d[1] : d[0];
#else
	return pm[l];
#endif
}

/* The least key of match r's options at a position (its length cut to room; UINT32_MAX where it
 * has none; q: 0 the full chain, 1 the quarter): pm[l] is the least key of lengths 3 .. l, shared
 * by the position's matches, so that a match's lengths 3 .. min(L, 16) cost one pick; its whole
 * length L past 16 takes wk, the key L positions on (gpz_lz_dp_load). */
GPZ_HD static inline uint32_t gpz_lz_dp_least(uint32_t r, unsigned room, unsigned q,
                                              const struct gpz_lz_costs *c, const uint32_t *pm,
                                              uint32_t wk)
{
	unsigned len = r >> 16;
	if (len > room)
		len = room;
	if (len < GPZ_LZ_MIN_MATCH)
		return UINT32_MAX;
	const uint32_t dc = c->dist[gpz_dfl_dist_code(r & 0xffff)], qo = q * GPZ_LZ_DP_QUARTER;
	uint32_t v = gpz_lz_dp_pick(pm, len < GPZ_LZ_DP_LMAX ? len : GPZ_LZ_DP_LMAX) +
	             (dc << GPZ_LZ_DP_OPT) + qo;
	if (len > GPZ_LZ_DP_LMAX) {
		const uint32_t w = ((dc + c->len[len]) << GPZ_LZ_DP_OPT) +
		                   (wk >> GPZ_LZ_DP_OPT << GPZ_LZ_DP_OPT) + GPZ_LZ_DP_WHOLE + qo;
		v = w < v ? w : v;
	}
	return v;
}

/* What the backward pass reads for a position: its matches and byte (loaded two positions
 * ahead), and for a match longer than GPZ_LZ_DP_LMAX the key its whole length on (one ahead,
 * once the match is in: that key is 17 or more positions on, already made). Loaded ahead so
 * that a GPU thread's loads are in flight while it works on the positions after them. */
struct gpz_lz_dp_in {
	uint32_t m0, m1, w0, w1;
	uint8_t lit;
};

GPZ_HD static inline void gpz_lz_dp_load_m(struct gpz_lz_dp_in *in, const uint8_t *src,
                                           const uint32_t *pure, unsigned stride, int quarter,
                                           size_t base, size_t s, unsigned k)
{
	const uint32_t *p = pure + stride * (s + k - base);
	in->m0 = p[0];
	in->m1 = quarter ? p[1] : 0;
	in->lit = src[s + k];
}

/* the key a whole match of r at k would read: L on, or the segment's end (always made) */
GPZ_HD static inline size_t gpz_lz_dp_far(uint32_t r, unsigned k, unsigned m)
{
	const unsigned len = r >> 16, room = m - k;
	return len > GPZ_LZ_DP_LMAX && len <= room ? k + len : m;
}

GPZ_HD static inline void gpz_lz_dp_load_w(struct gpz_lz_dp_in *in, unsigned k, unsigned m,
                                           const uint32_t *key, unsigned cstride)
{
	in->w0 = key[gpz_lz_dp_far(in->m0, k, m) * cstride];
	in->w1 = key[gpz_lz_dp_far(in->m1, k, m) * cstride];
}

/* Position k (of m), its inputs in `in`: its key, the least of the literal's and each match's
 * (the quarter chain's only where its distance differs from the full chain's). */
GPZ_HD static inline void gpz_lz_dp_back_step(struct gpz_lz_dp_back *b, unsigned k, unsigned m,
                                              const struct gpz_lz_dp_in *in, int quarter,
                                              const struct gpz_lz_costs *c, uint32_t *key,
                                              unsigned cstride)
{
	const uint32_t m0 = in->m0, m1 = in->m1;
	uint32_t best = ((uint32_t)c->lit[in->lit] << GPZ_LZ_DP_OPT) + b->win[1];
	const int two = quarter && (m1 & 0xffff) != (m0 & 0xffff);
	if ((m0 >> 16) >= GPZ_LZ_MIN_MATCH || (two && (m1 >> 16) >= GPZ_LZ_MIN_MATCH)) {
		uint32_t pm[GPZ_LZ_DP_LMAX + 1], run = UINT32_MAX;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (unsigned l = GPZ_LZ_MIN_MATCH; l <= GPZ_LZ_DP_LMAX; l++) {
			const uint32_t v = b->lk[l] + b->win[l];
			run = v < run ? v : run;
			pm[l] = run;
		}
		uint32_t v = gpz_lz_dp_least(m0, m - k, 0, c, pm, in->w0);
		best = v < best ? v : best;
		if (two) {
			v = gpz_lz_dp_least(m1, m - k, 1, c, pm, in->w1);
			best = v < best ? v : best;
		}
	}
	key[(size_t)k * cstride] = best;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (unsigned j = GPZ_LZ_DP_LMAX; j > 1; j--)
		b->win[j] = b->win[j - 1];
	b->win[1] = best >> GPZ_LZ_DP_OPT << GPZ_LZ_DP_OPT;
}

/* The forward walk over the keys of [s, t) (gpz_lz_dp_back_step's): at each token start the
 * option its key names. Matches as gpz_lz_dp_segment's; the tokens go to tok; returns their
 * number. */
GPZ_HD static inline size_t gpz_lz_dp_walk(const uint8_t *src, const uint32_t *pure,
                                           unsigned stride, int quarter, size_t base, size_t s,
                                           size_t t, const uint32_t *key, unsigned cstride,
                                           uint32_t *tok)
{
	const unsigned m = (unsigned)(t - s);
	size_t n = 0;
	for (unsigned k = 0; k < m;) {
		/* all of a token's loads at once, the matches whether or not it is one */
		const unsigned o = key[(size_t)k * cstride] & ((1u << GPZ_LZ_DP_OPT) - 1);
		const uint32_t *p = pure + stride * (s + k - base);
		const uint32_t m0 = p[0], m1 = quarter ? p[1] : 0;
		const uint8_t lit = src[s + k];
		if (o == 0) {
			tok[n++] = gpz_lz_core_literal(lit);
			k++;
			continue;
		}
		const unsigned q = quarter && o > GPZ_LZ_DP_QUARTER, j = o - q * GPZ_LZ_DP_QUARTER;
		const uint32_t r = q ? m1 : m0;
		unsigned len = j + 2; /* options 1 .. 14: lengths 3 .. 16 */
		if (j == GPZ_LZ_DP_WHOLE) {
			len = r >> 16;
			len = len < m - k ? len : m - k;
		}
		tok[n++] = gpz_lz_core_match(len, r & 0xffff);
		k += len;
	}
	return n;
}

/*
 * The segment [s, t) (t - s <= GPZ_LZ_DP_SEG) parsed at least cost: the matches of position q
 * are pure[stride * (q - base) + 0] (full chain) and, when quarter, + 1 (gpz_lz_pack form);
 * key: t - s + 1 entries, at a stride of cstride (a GPU thread's, interleaved with its warp's).
 * The tokens go to tok; returns their number.
 */
GPZ_HD static inline size_t gpz_lz_dp_segment(const uint8_t *src, const uint32_t *pure,
                                              unsigned stride, int quarter, size_t base,
                                              size_t s, size_t t,
                                              const struct gpz_lz_costs *c, uint32_t *key,
                                              unsigned cstride, uint32_t *tok)
{
	const unsigned m = (unsigned)(t - s);
	struct gpz_lz_dp_back b;
	struct gpz_lz_dp_in cur = { 0, 0, 0, 0, 0 }, nx = cur, nn = cur;
	gpz_lz_dp_back_init(&b, m, c, key, cstride);
	if (m >= 1) {
		gpz_lz_dp_load_m(&cur, src, pure, stride, quarter, base, s, m - 1);
		gpz_lz_dp_load_w(&cur, m - 1, m, key, cstride);
	}
	if (m >= 2)
		gpz_lz_dp_load_m(&nx, src, pure, stride, quarter, base, s, m - 2);
	for (unsigned k = m; k-- > 0;) {
		if (k >= 2)
			gpz_lz_dp_load_m(&nn, src, pure, stride, quarter, base, s, k - 2);
		if (k >= 1)
			gpz_lz_dp_load_w(&nx, k - 1, m, key, cstride);
		gpz_lz_dp_back_step(&b, k, m, &cur, quarter, c, key, cstride);
		cur = nx;
		nx = nn;
	}
	return gpz_lz_dp_walk(src, pure, stride, quarter, base, s, t, key, cstride, tok);
}

#endif
