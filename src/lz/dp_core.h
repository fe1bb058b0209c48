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

/* Each position's least cost and option, as one key in the pass, cost << 5 | option
 * (GPZ_LZ_DP_OPT bits): the options numbered in the definition's order (0 the literal; 1 .. 14
 * the full chain's match at lengths 3 .. 16, 15 its whole length; 16 .. 29 and 30 the quarter
 * chain's likewise), so that the least key is the least cost and, among equal costs, the first
 * option in that order: the one "strictly cheaper replaces" keeps. Stored apart: the cost (16
 * bits: at most 15 a position, GPZ_LZ_DP_SEG positions), which later positions' whole matches
 * read, and the option (a byte), which the forward walk reads, a token at a time, instead of
 * trying the options again. */
#define GPZ_LZ_DP_OPT 5
#define GPZ_LZ_DP_WHOLE 15u   /* + the chain's base: its whole length */
#define GPZ_LZ_DP_QUARTER 15u /* what the quarter chain's options add to the full chain's */
#if GPZ_LZ_DP_SEG * 15 > 0xffff
#error "a segment's costs must fit 16 bits"
#endif

/* Where a segment's costs and options go. cost[k * cstride]: position k's cost (m + 1 entries;
 * a GPU warp's threads interleave theirs, so that the backward pass's stores, all threads at the
 * same k, are one line). The options in chunks of 16 positions, chunk g at opt + g * ostride
 * (16 on the CPU; a GPU warp's threads interleave whole chunks): the pass stores a chunk at once
 * and the walk, whose threads are each at their own position, loads one for 16 positions. */
struct gpz_lz_dp_out {
	uint16_t *cost;
	uint8_t *opt;
	unsigned cstride, ostride;
};

/* The backward pass over a segment of m positions, position by position from m - 1 down to 0:
 * lk[l] the key of length l's cost and option (3 .. GPZ_LZ_DP_LMAX: registers on the GPU, where
 * a load of c->len a length a position was most of the pass's memory instructions); on the GPU
 * only (the CPU reads the next costs from memory and stores each option at once), win[j] the
 * cost j positions on (shifted into a key's place) and ob the options of the chunk at hand
 * (position 16 g + j in byte j). */
struct gpz_lz_dp_back {
	uint32_t win[GPZ_LZ_DP_LMAX + 1];
	uint32_t lk[GPZ_LZ_DP_LMAX + 1];
	uint32_t ob[4];
};

#if GPZ_LZ_DP_LMAX != 16
#error "gpz_lz_dp_pick selects among lengths 3 .. 16, options 1 .. 14"
#endif

GPZ_HD static inline void gpz_lz_dp_back_init(struct gpz_lz_dp_back *b, unsigned m,
                                              const struct gpz_lz_costs *c,
                                              const struct gpz_lz_dp_out *o)
{
	for (unsigned j = 0; j <= GPZ_LZ_DP_LMAX; j++) {
		b->win[j] = 0; /* win[1]: the end's cost; the others lie past it, never asked for */
		b->lk[j] = j < GPZ_LZ_MIN_MATCH ? 0 : (uint32_t)c->len[j] << GPZ_LZ_DP_OPT | (j - 2);
	}
	for (unsigned j = 0; j < 4; j++)
		b->ob[j] = 0;
	o->cost[(size_t)m * o->cstride] = 0;
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

/* What the backward pass reads for a position, loaded ahead so that a GPU thread's loads are in
 * flight while it works on the positions after them: its matches and byte (two positions
 * ahead); then (one ahead, once those are in) the byte's cost, each match's distance cost, the
 * cost of its whole length and the cost that many positions on (used where the length, cut to
 * the segment, is past GPZ_LZ_DP_LMAX: those positions are 17 or more on, already made). */
struct gpz_lz_dp_in {
	uint32_t m0, m1, w0, w1;
	uint8_t lit, litc, d0, d1, l0, l1;
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

/* match r's length cut to the room there is */
GPZ_HD static inline unsigned gpz_lz_dp_cut(uint32_t r, unsigned room)
{
	const unsigned len = r >> 16;
	return len < room ? len : room;
}

GPZ_HD static inline void gpz_lz_dp_load_w(struct gpz_lz_dp_in *in, unsigned k, unsigned m,
                                           const struct gpz_lz_costs *c,
                                           const struct gpz_lz_dp_out *o)
{
	const unsigned n0 = gpz_lz_dp_cut(in->m0, m - k), n1 = gpz_lz_dp_cut(in->m1, m - k);
	in->litc = c->lit[in->lit];
	in->d0 = in->m0 ? c->dist[gpz_dfl_dist_code(in->m0 & 0xffff)] : 0;
	in->d1 = in->m1 ? c->dist[gpz_dfl_dist_code(in->m1 & 0xffff)] : 0;
	in->l0 = c->len[n0];
	in->l1 = c->len[n1];
	/* past GPZ_LZ_DP_LMAX the cost that far on, else the segment end's (always made) */
	in->w0 = o->cost[(size_t)(n0 > GPZ_LZ_DP_LMAX ? k + n0 : m) * o->cstride];
	in->w1 = o->cost[(size_t)(n1 > GPZ_LZ_DP_LMAX ? k + n1 : m) * o->cstride];
}

/* The least key of a match's options (n: its length cut to the segment; UINT32_MAX where it has
 * none; qo: the option base, 0 or GPZ_LZ_DP_QUARTER; d, l, w: its costs from gpz_lz_dp_load_w):
 * pm[l] is the least key of lengths 3 .. l, shared by the position's matches, so that a match's
 * lengths 3 .. min(n, 16) cost one pick. */
GPZ_HD static inline uint32_t gpz_lz_dp_least(unsigned n, uint32_t qo, uint32_t d, uint32_t l,
                                              uint32_t w, const uint32_t *pm)
{
	if (n < GPZ_LZ_MIN_MATCH)
		return UINT32_MAX;
	uint32_t v = gpz_lz_dp_pick(pm, n < GPZ_LZ_DP_LMAX ? n : GPZ_LZ_DP_LMAX) +
	             (d << GPZ_LZ_DP_OPT) + qo;
	if (n > GPZ_LZ_DP_LMAX) {
		const uint32_t x = ((d + l + w) << GPZ_LZ_DP_OPT) + GPZ_LZ_DP_WHOLE + qo;
		v = x < v ? x : v;
	}
	return v;
}

/* Position k (of m), its inputs in `in`: its key, the least of the literal's and each match's
 * (the quarter chain's only where its distance differs from the full chain's); the cost stored,
 * the option kept in b->ob until its chunk is whole (k a multiple of 16). */
GPZ_HD static inline void gpz_lz_dp_back_step(struct gpz_lz_dp_back *b, unsigned k, unsigned m,
                                              const struct gpz_lz_dp_in *in, int quarter,
                                              const struct gpz_lz_dp_out *o)
{
	const uint32_t m0 = in->m0, m1 = in->m1;
#ifdef __CUDA_ARCH__
	/* the next costs from the register window, over fixed turns */
#define GPZ_LZ_DP_WIN(j) b->win[j]
	const unsigned top = GPZ_LZ_DP_LMAX;
#else
	/* the next costs from memory (a window shifted in memory costs more than it saves on a
	 * CPU), lengths no further than the segment's end */
#define GPZ_LZ_DP_WIN(j) ((uint32_t)o->cost[(size_t)(k + (j)) * o->cstride] << GPZ_LZ_DP_OPT)
	const unsigned top = m - k < GPZ_LZ_DP_LMAX ? m - k : GPZ_LZ_DP_LMAX;
#endif
	uint32_t best = ((uint32_t)in->litc << GPZ_LZ_DP_OPT) + GPZ_LZ_DP_WIN(1);
	const int two = quarter && (m1 & 0xffff) != (m0 & 0xffff);
	const unsigned n0 = gpz_lz_dp_cut(m0, m - k), n1 = two ? gpz_lz_dp_cut(m1, m - k) : 0;
	if (n0 >= GPZ_LZ_MIN_MATCH || n1 >= GPZ_LZ_MIN_MATCH) {
		uint32_t pm[GPZ_LZ_DP_LMAX + 1], run = UINT32_MAX;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (unsigned l = GPZ_LZ_MIN_MATCH; l <= top; l++) {
			const uint32_t v = b->lk[l] + GPZ_LZ_DP_WIN(l);
			run = v < run ? v : run;
			pm[l] = run;
		}
		uint32_t v = gpz_lz_dp_least(n0, 0, in->d0, in->l0, in->w0, pm);
		best = v < best ? v : best;
		v = gpz_lz_dp_least(n1, GPZ_LZ_DP_QUARTER, in->d1, in->l1, in->w1, pm);
		best = v < best ? v : best;
	}
#undef GPZ_LZ_DP_WIN
	o->cost[(size_t)k * o->cstride] = (uint16_t)(best >> GPZ_LZ_DP_OPT);
#ifndef __CUDA_ARCH__
	o->opt[(size_t)(k / 16) * o->ostride + k % 16] = (uint8_t)(best & ((1u << GPZ_LZ_DP_OPT) - 1));
#else
	/* the chunk's options shift up a byte; this one in at the bottom (byte k % 16 once the
	 * chunk's 16 or fewer positions are in) */
	b->ob[3] = b->ob[3] << 8 | b->ob[2] >> 24;
	b->ob[2] = b->ob[2] << 8 | b->ob[1] >> 24;
	b->ob[1] = b->ob[1] << 8 | b->ob[0] >> 24;
	b->ob[0] = b->ob[0] << 8 | (best & ((1u << GPZ_LZ_DP_OPT) - 1));
	if (k % 16 == 0)
		*(uint4 *)(o->opt + (size_t)(k / 16) * o->ostride) =
		        make_uint4(b->ob[0], b->ob[1], b->ob[2], b->ob[3]);
#pragma unroll
	for (unsigned j = GPZ_LZ_DP_LMAX; j > 1; j--)
		b->win[j] = b->win[j - 1];
	b->win[1] = best >> GPZ_LZ_DP_OPT << GPZ_LZ_DP_OPT;
#endif
}

/* Position k's option, the walk's way: its chunk's 16 options are loaded once (ch, the chunk
 * held in c[]; on the CPU a byte load). */
struct gpz_lz_dp_opts {
	uint32_t c[4];
	unsigned ch;
};

GPZ_HD static inline unsigned gpz_lz_dp_option(struct gpz_lz_dp_opts *w,
                                               const struct gpz_lz_dp_out *o, unsigned k)
{
#ifdef __CUDA_ARCH__
	if (k / 16 != w->ch) {
		const uint4 v = *(const uint4 *)(o->opt + (size_t)(k / 16) * o->ostride);
		w->c[0] = v.x;
		w->c[1] = v.y;
		w->c[2] = v.z;
		w->c[3] = v.w;
		w->ch = k / 16;
	}
	const unsigned q = k / 4 % 4; /* selects, not an index: c stays in registers */
	const uint32_t x = q & 2 ? (q & 1 ? w->c[3] : w->c[2]) : (q & 1 ? w->c[1] : w->c[0]);
	return x >> (8 * (k % 4)) & 0xff;
#else
	(void)w;
	return o->opt[(size_t)(k / 16) * o->ostride + k % 16];
#endif
}

/* The forward walk over [s, t) after the backward pass: at each token start the option stored
 * there. Matches as gpz_lz_dp_segment's; the tokens go to tok; returns their number. */
GPZ_HD static inline size_t gpz_lz_dp_walk(const uint8_t *src, const uint32_t *pure,
                                           unsigned stride, int quarter, size_t base, size_t s,
                                           size_t t, const struct gpz_lz_dp_out *o,
                                           uint32_t *tok)
{
	const unsigned m = (unsigned)(t - s);
	struct gpz_lz_dp_opts w;
	size_t n = 0;
	w.ch = ~0u;
	for (unsigned k = 0; k < m;) {
		const unsigned op = gpz_lz_dp_option(&w, o, k);
		if (op == 0) {
			tok[n++] = gpz_lz_core_literal(src[s + k]);
			k++;
			continue;
		}
		const uint32_t *p = pure + stride * (s + k - base);
		const unsigned q = quarter && op > GPZ_LZ_DP_QUARTER, j = op - q * GPZ_LZ_DP_QUARTER;
		const uint32_t r = p[q];
		unsigned len = j + 2; /* options 1 .. 14: lengths 3 .. 16 */
		if (j == GPZ_LZ_DP_WHOLE)
			len = gpz_lz_dp_cut(r, m - k);
		tok[n++] = gpz_lz_core_match(len, r & 0xffff);
		k += len;
	}
	return n;
}

/*
 * The segment [s, t) (t - s <= GPZ_LZ_DP_SEG) parsed at least cost: the matches of position q
 * are pure[stride * (q - base) + 0] (full chain) and, when quarter, + 1 (gpz_lz_pack form);
 * o: the pass's room (t - s + 1 costs, ceil((t - s) / 16) chunks of options). The tokens go to
 * tok; returns their number.
 */
GPZ_HD static inline size_t gpz_lz_dp_segment(const uint8_t *src, const uint32_t *pure,
                                              unsigned stride, int quarter, size_t base,
                                              size_t s, size_t t,
                                              const struct gpz_lz_costs *c,
                                              const struct gpz_lz_dp_out *o, uint32_t *tok)
{
	const unsigned m = (unsigned)(t - s);
	struct gpz_lz_dp_back b;
	struct gpz_lz_dp_in cur = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, nx = cur, nn = cur;
	gpz_lz_dp_back_init(&b, m, c, o);
	if (m >= 1) {
		gpz_lz_dp_load_m(&cur, src, pure, stride, quarter, base, s, m - 1);
		gpz_lz_dp_load_w(&cur, m - 1, m, c, o);
	}
	if (m >= 2)
		gpz_lz_dp_load_m(&nx, src, pure, stride, quarter, base, s, m - 2);
	for (unsigned k = m; k-- > 0;) {
		if (k >= 2)
			gpz_lz_dp_load_m(&nn, src, pure, stride, quarter, base, s, k - 2);
		if (k >= 1)
			gpz_lz_dp_load_w(&nx, k - 1, m, c, o);
		gpz_lz_dp_back_step(&b, k, m, &cur, quarter, o);
		cur = nx;
		nx = nn;
	}
	return gpz_lz_dp_walk(src, pure, stride, quarter, base, s, t, o, tok);
}

#endif
