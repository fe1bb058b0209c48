/* dp_core.h - the cost-driven parse of levels 7-9, shared by the CPU (match.c) and the GPU
 * (match.cu), so that both emit the same tokens.
 *
 * Why: the lazy parse takes a match when the next position's is not longer; it never asks what
 * the bits cost. With every position's matches found beforehand (position-pure, match_core.h),
 * a piece's parse can instead be the cheapest path through it: a literal costs its code length,
 * a match of any length from 3 to the one found at its position (same distance) costs its length
 * and distance codes' lengths plus their extra bits. The code lengths come from the symbol
 * counts of the parse before (first the level's lazy parse, then this parse's own, once per
 * round). Chains of 16-32 then give smaller output than gzip -9's 4096 and libdeflate -9
 * (bench/NOTES.md, 2026-11-27).
 *
 * Definition (what both sides compute):
 * - costs: the piece's tokens are counted into DEFLATE symbols (plus one end-of-block), the
 *   lengths made by the block writer's builder (gpz_dfl_code_lengths, limit 15; a symbol not
 *   counted costs two bits more than the longest code, at most 15);
 * - the piece is cut into segments of GPZ_LZ_DP_SEG positions from its start, each parsed
 *   apart (a match never crosses a segment's end) by a backward pass: cost[k] is the least cost
 *   from position s + k to the segment's end t (cost[t - s] = 0); at each position the literal
 *   is tried first, then the full chain's match at lengths 3 .. L, then (lazy levels) the
 *   quarter chain's; an option replaces the best so far only when strictly cheaper;
 * - the tokens are the choices followed from s.
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
	for (unsigned s = 0; used < 2 && s < n; s++)
		if (!freq[s]) {
			freq[s] = 1;
			used++;
		}
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

/* Choices: 0 a literal, else the match length, with bit 15 set for the quarter chain's. */
#define GPZ_LZ_DP_QUARTER 0x8000u

/*
 * The segment [s, t) (t - s <= GPZ_LZ_DP_SEG) parsed at least cost: the matches of position q are
 * pure[stride * (q - base) + 0] (full chain) and, when quarter, + 1 (gpz_lz_pack form). cost: t - s
 * + 1 entries, choice: t - s. The tokens go to tok (which may be cost itself: a token is written
 * only over costs already spent); returns their number.
 */
GPZ_HD static inline size_t gpz_lz_dp_segment(const uint8_t *src, const uint32_t *pure,
                                              unsigned stride, int quarter, size_t base,
                                              size_t s, size_t t,
                                              const struct gpz_lz_costs *c, uint32_t *cost,
                                              uint16_t *choice, uint32_t *tok)
{
	const unsigned m = (unsigned)(t - s);
	cost[m] = 0;
	for (unsigned k = m; k-- > 0;) {
		const uint32_t *at = pure + stride * (s + k - base);
		uint32_t best = c->lit[src[s + k]] + cost[k + 1];
		unsigned ch = 0;
		for (int q = 0; q <= quarter; q++) {
			uint32_t r = at[q];
			unsigned len = r >> 16, d = r & 0xffff;
			if (len < GPZ_LZ_MIN_MATCH || (q && d == (at[0] & 0xffff)))
				continue; /* none, or the full chain's match again (never strictly cheaper) */
			if (len > m - k)
				len = m - k;
			const uint32_t dc = c->dist[gpz_dfl_dist_code(d)];
			for (unsigned l = GPZ_LZ_MIN_MATCH; l <= len; l++) {
				uint32_t v = dc + c->len[l] + cost[k + l];
				if (v < best) {
					best = v;
					ch = l | (q ? GPZ_LZ_DP_QUARTER : 0);
				}
			}
		}
		cost[k] = best;
		choice[k] = (uint16_t)ch;
	}
	size_t n = 0;
	for (unsigned k = 0; k < m;) {
		unsigned ch = choice[k];
		if (!ch) {
			tok[n++] = gpz_lz_core_literal(src[s + k]);
			k++;
			continue;
		}
		unsigned l = ch & ~GPZ_LZ_DP_QUARTER, q = ch >> 15;
		tok[n++] = gpz_lz_core_match(l, pure[stride * (s + k - base) + q] & 0xffff);
		k += l;
	}
	return n;
}

#endif
