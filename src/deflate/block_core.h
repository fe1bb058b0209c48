/* block_core.h - the DEFLATE block writer (RFC 1951) shared by the CPU (blocks.c) and the GPU
 * (deflate.cu), so that both write the same bits.
 *
 * Each block is written in the smallest of its three forms: dynamic Huffman (lengths limited to
 * 15 bits by package-merge, the code-length code to 7), fixed Huffman, or stored. Block
 * boundaries come from the statistics: the tokens are cut into units of GPZ_DFL_UNIT_TOKENS, and
 * a unit joins the current block while the estimated cost of coding them together (order-0
 * entropy plus a header allowance) is no more than coding them apart.
 *
 * As in match_core.h, every function is GPZ_HD (host and device under nvcc, plain C otherwise)
 * and uses no globals, no libc, no floating point and no allocation: the code tables are
 * formulas, the entropy estimate is fixed-point (log2 with GPZ_DFL_LOG_FRAC fractional bits, by
 * repeated squaring; the caller provides a table of the small values, filled by
 * gpz_dfl_log_fill, which is only a cache of the same function), and the caller owns the
 * scratch memory (struct gpz_dfl_scratch, about 32 KiB: malloc on the CPU, a workspace slice in
 * global memory on the GPU, so the GPU thread's stack stays small).
 *
 * The code lengths come from the codebook stage's builder (huffman/code_lengths.h), the one
 * gpz_code_lengths() uses, over fixed arrays in the scratch (gpz_dfl_code_lengths there): the same
 * lengths for alphabets of up to GPZ_DFL_HMAX symbols. */
#ifndef GPZ_DEFLATE_BLOCK_CORE_H
#define GPZ_DEFLATE_BLOCK_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"
#include "common/hd.h"
#include "deflate/deflate.h"
#include "huffman/code_lengths.h"
#include "lz/match_core.h"
#include "lz/dfl_symbols.h"


#define GPZ_DFL_MAX_BLOCK_TOKENS (1u << 18)
#define GPZ_DFL_HEADER_BITS_PER_SYMBOL 3 /* rough cost of a used symbol's length in a header */
#define GPZ_DFL_NCL 19
#define GPZ_DFL_LOG_FRAC 24  /* fractional bits of the fixed-point log2 */
#define GPZ_DFL_LOG_TAB 4096 /* log2 of 0 .. GPZ_DFL_LOG_TAB - 1 come from the caller's table */

/* ---- small helpers ---- */

/* The order of the code-length code's lengths in a header: 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13
 * 2 14 1 15. */
GPZ_HD static inline unsigned gpz_dfl_cl_order(unsigned i)
{
	unsigned j;
	if (i < 3)
		return 16 + i;
	if (i == 3)
		return 0;
	j = i - 4;
	return j & 1 ? 7 - (j >> 1) : 8 + (j >> 1);
}

GPZ_HD static inline uint32_t gpz_dfl_reverse(uint32_t code, unsigned len)
{
	uint32_t r = 0;
	for (unsigned i = 0; i < len; i++)
		r |= ((code >> i) & 1) << (len - 1 - i);
	return r;
}

/* ---- the LSB-first bit writer (struct gpz_bitw of deflate.h) ---- */

GPZ_HD static inline void gpz_dfl_bitw_init(struct gpz_bitw *bw, uint8_t *dst, size_t cap)
{
	bw->p = dst;
	bw->end = dst + cap;
	bw->acc = 0;
	bw->nb = 0;
	bw->overflow = 0;
}

GPZ_HD static inline void gpz_dfl_put(struct gpz_bitw *bw, uint32_t bits, unsigned n)
{
	bw->acc |= (uint64_t)bits << bw->nb;
	bw->nb += n;
	while (bw->nb >= 8) {
		if (bw->p < bw->end)
			*bw->p++ = (uint8_t)bw->acc;
		else
			bw->overflow = 1;
		bw->acc >>= 8;
		bw->nb -= 8;
	}
}

/* Pad to a byte boundary with zero bits and flush. */
GPZ_HD static inline void gpz_dfl_bitw_finish(struct gpz_bitw *bw)
{
	if (bw->nb)
		gpz_dfl_put(bw, 0, 8 - bw->nb);
}

/* ---- fixed-point log2 and the entropy estimate ---- */

/* log2(x) * 2^GPZ_DFL_LOG_FRAC, truncated, for x >= 1: the integer part from the bit length, the
 * fraction bit by bit by squaring the mantissa (kept in [1, 2) as a Q31 number). Exact integer
 * arithmetic, so the host and the device agree; monotone in x. */
GPZ_HD static inline uint64_t gpz_dfl_log2_calc(uint32_t x)
{
	unsigned k = gpz_dfl_bitlen(x) - 1;
	uint64_t m = (uint64_t)x << (31 - k);
	uint64_t r = (uint64_t)k << GPZ_DFL_LOG_FRAC;
	for (int i = GPZ_DFL_LOG_FRAC - 1; i >= 0; i--) {
		m = (m * m) >> 31;
		if (m >> 32) {
			m >>= 1;
			r |= (uint64_t)1 << i;
		}
	}
	return r;
}

/* tab[x] = gpz_dfl_log2_calc(x) for 1 <= x < GPZ_DFL_LOG_TAB (tab[0] = 0); entries from..to-1
 * only, so that threads can share the work. */
GPZ_HD static inline void gpz_dfl_log_fill(uint32_t *tab, unsigned from, unsigned to)
{
	for (unsigned x = from; x < to && x < GPZ_DFL_LOG_TAB; x++)
		tab[x] = x ? (uint32_t)gpz_dfl_log2_calc(x) : 0;
}

GPZ_HD static inline uint64_t gpz_dfl_log2(uint32_t x, const uint32_t *tab)
{
	return x < GPZ_DFL_LOG_TAB ? tab[x] : gpz_dfl_log2_calc(x);
}

/* sum f * log2(total / f) over the used symbols, in 2^-GPZ_DFL_LOG_FRAC bits. */
GPZ_HD static inline uint64_t gpz_dfl_entropy(const uint32_t *f, unsigned n, unsigned *used,
                                              const uint32_t *tab)
{
	uint64_t total = 0, sum = 0;
	for (unsigned s = 0; s < n; s++)
		if (f[s]) {
			total += f[s];
			sum += (uint64_t)f[s] * gpz_dfl_log2(f[s], tab);
			(*used)++;
		}
	return total ? total * gpz_dfl_log2((uint32_t)total, tab) - sum : 0;
}

/* Estimated bits of one dynamic block with these frequencies, in 2^-GPZ_DFL_LOG_FRAC bits (extra
 * bits are the same whether blocks are joined or not, so they are left out). Totals stay below
 * 2^19, so nothing here overflows. */
GPZ_HD static inline uint64_t gpz_dfl_est(const struct gpz_dfl_freqs *f, const uint32_t *tab)
{
	unsigned used = 0;
	uint64_t bits = gpz_dfl_entropy(f->lf, GPZ_DFL_NLIT, &used, tab) +
	                gpz_dfl_entropy(f->df, GPZ_DFL_NDIST, &used, tab);
	return bits + ((80 + (uint64_t)GPZ_DFL_HEADER_BITS_PER_SYMBOL * used) << GPZ_DFL_LOG_FRAC);
}

/* ---- blocks ---- */

struct gpz_dfl_codes {
	uint8_t llen[GPZ_DFL_NLIT], dlen[GPZ_DFL_NDIST];
	uint32_t lcode[GPZ_DFL_NLIT], dcode[GPZ_DFL_NDIST];
	unsigned hlit, hdist, hclen, nrle;
	uint8_t rle[GPZ_DFL_NLIT + GPZ_DFL_NDIST], rle_extra[GPZ_DFL_NLIT + GPZ_DFL_NDIST];
	uint8_t cllen[GPZ_DFL_NCL];
	uint32_t clcode[GPZ_DFL_NCL];
};

/* Everything the block writer needs besides its input and output. */
struct gpz_dfl_scratch {
	struct gpz_dfl_freqs joined; /* block splitting: the block so far and the next unit */
	struct gpz_dfl_freqs blk;    /* the counts of the block being written */
	uint32_t lfc[GPZ_DFL_NLIT], dfc[GPZ_DFL_NDIST], clfreq[GPZ_DFL_NCL];
	uint8_t all[GPZ_DFL_NLIT + GPZ_DFL_NDIST];
	struct gpz_dfl_codes dyn, fix;
	struct gpz_dfl_huff huff;
};

/* DEFLATE codes for n symbols: lengths limited to `limit`, codes bit-reversed for LSB-first
 * output. Alphabets with fewer than two used symbols get a second one so a code exists. Not
 * inlined on the device: plan_kernel builds three codes, and one copy of the builder makes
 * deflate.cu compile in a third of the time. */
GPZ_HD_NOINLINE static inline void gpz_dfl_build_code(uint32_t *freq, unsigned n, int limit,
                                                      uint8_t *len, uint32_t *code,
                                                      struct gpz_dfl_huff *h)
{
	unsigned used = 0;
	for (unsigned s = 0; s < n; s++)
		used += freq[s] != 0;
	gpz_dfl_two_used(freq, n, used);
	gpz_dfl_code_lengths(freq, n, limit, len, h);
	gpz_cl_canonical(len, n, code);
	for (unsigned s = 0; s < n; s++)
		code[s] = gpz_dfl_reverse(code[s], len[s]);
}

/* The fixed literal/length code's length of symbol s (RFC 1951 3.2.6). */
GPZ_HD static inline unsigned gpz_dfl_fixed_llen(unsigned s)
{
	return s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
}

/* Extra bits after code-length symbol s (16: 2, 17: 3, 18: 7, the lengths themselves: 0). */
GPZ_HD static inline unsigned gpz_dfl_cl_extra(unsigned s)
{
	return s == 16 ? 2 : s == 17 ? 3 : s == 18 ? 7 : 0;
}

/* The fixed code of RFC 1951 3.2.6 (canonical over all 288 literal/length symbols and 32
 * distance symbols), bit-reversed. */
GPZ_HD static inline void gpz_dfl_fixed_code(struct gpz_dfl_codes *b)
{
	for (unsigned s = 0; s < GPZ_DFL_NLIT; s++) {
		unsigned l = gpz_dfl_fixed_llen(s);
		uint32_t c = s < 144 ? 0x30 + s : s < 256 ? 0x190 + (s - 144) : s < 280 ? s - 256
		                                                                       : 0xc0 + (s - 280);
		b->llen[s] = (uint8_t)l;
		b->lcode[s] = gpz_dfl_reverse(c, l);
	}
	for (unsigned s = 0; s < GPZ_DFL_NDIST; s++) {
		b->dlen[s] = 5;
		b->dcode[s] = gpz_dfl_reverse(s, 5);
	}
}

/* Count code-length symbol s (atomic: lanes of a warp count into one table on the device). */
GPZ_HD static inline void gpz_dfl_cl_count(uint32_t *clfreq, unsigned s, int atomic)
{
#ifdef __CUDA_ARCH__
	if (atomic) {
		atomicAdd(&clfreq[s], 1u);
		return;
	}
#endif
	(void)atomic;
	clfreq[s]++;
}

/* A maximal run of L lengths equal to v, from rle[o] on; returns the index after it. A run of
 * zeros goes as 17/18 covering up to 138 while 3 or more remain, a run of another length as the
 * length and a 16 repeating it up to 6 times while 4 or more remain, what is left as plain
 * lengths: gzip's coder, which restarts inside a run only with what remains of it, so a run codes
 * the same wherever it lies (the GPU's warp codes runs side by side, code_warp.cuh). */
GPZ_HD static inline unsigned gpz_dfl_rle_run(struct gpz_dfl_codes *b, uint32_t *clfreq,
                                              unsigned o, unsigned v, unsigned L, int atomic)
{
	if (v == 0) {
		while (L >= 3) {
			const unsigned r = L > 138 ? 138 : L, sym = r >= 11 ? 18 : 17;
			b->rle[o] = (uint8_t)sym;
			b->rle_extra[o++] = (uint8_t)(r >= 11 ? r - 11 : r - 3);
			gpz_dfl_cl_count(clfreq, sym, atomic);
			L -= r;
		}
	} else {
		while (L >= 4) {
			const unsigned r = L - 1 > 6 ? 6 : L - 1;
			b->rle[o] = (uint8_t)v;
			b->rle_extra[o++] = 0;
			b->rle[o] = 16;
			b->rle_extra[o++] = (uint8_t)(r - 3);
			gpz_dfl_cl_count(clfreq, v, atomic);
			gpz_dfl_cl_count(clfreq, 16, atomic);
			L -= 1 + r;
		}
	}
	for (; L; L--) {
		b->rle[o] = (uint8_t)v;
		b->rle_extra[o++] = 0;
		gpz_dfl_cl_count(clfreq, v, atomic);
	}
	return o;
}

/* The literal/length and distance code lengths, run-length coded for a dynamic header into
 * b->rle (clfreq counts the symbols); all: room for hlit + hdist lengths. */
GPZ_HD static inline void gpz_dfl_rle_lengths(struct gpz_dfl_codes *b, uint32_t *clfreq,
                                              uint8_t *all)
{
	unsigned n = b->hlit + b->hdist, o = 0;
	for (unsigned i = 0; i < b->hlit; i++)
		all[i] = b->llen[i];
	for (unsigned i = 0; i < b->hdist; i++)
		all[b->hlit + i] = b->dlen[i];
	for (unsigned i = 0; i < n;) {
		unsigned run = 1;
		while (i + run < n && all[i + run] == all[i])
			run++;
		o = gpz_dfl_rle_run(b, clfreq, o, all[i], run, 0);
		i += run;
	}
	b->nrle = o;
}

GPZ_HD static inline uint64_t gpz_dfl_dynamic_bits(const struct gpz_dfl_codes *b,
                                                   const uint32_t *lf, const uint32_t *df)
{
	uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)b->hclen;
	for (unsigned i = 0; i < b->nrle; i++) {
		unsigned s = b->rle[i];
		bits += b->cllen[s] + gpz_dfl_cl_extra(s);
	}
	for (unsigned s = 0; s < GPZ_DFL_NLIT; s++)
		bits += (uint64_t)lf[s] * (b->llen[s] + (s >= 257 ? gpz_dfl_len_extra(s - 257) : 0));
	for (unsigned s = 0; s < GPZ_DFL_NDIST; s++)
		bits += (uint64_t)df[s] * (b->dlen[s] + gpz_dfl_dist_extra(s));
	return bits;
}

GPZ_HD static inline uint64_t gpz_dfl_fixed_bits(const uint32_t *lf, const uint32_t *df)
{
	uint64_t bits = 3;
	for (unsigned s = 0; s < GPZ_DFL_NLIT; s++)
		bits += (uint64_t)lf[s] * (gpz_dfl_fixed_llen(s) +
		                           (s >= 257 ? gpz_dfl_len_extra(s - 257) : 0));
	for (unsigned s = 0; s < GPZ_DFL_NDIST; s++)
		bits += (uint64_t)df[s] * (5 + gpz_dfl_dist_extra(s));
	return bits;
}

/* HLIT and HDIST: the literal/length and distance lengths sent, trailing zeros dropped. */
GPZ_HD static inline void gpz_dfl_trim_lengths(struct gpz_dfl_codes *b)
{
	for (b->hlit = GPZ_DFL_NLIT; b->hlit > 257 && !b->llen[b->hlit - 1]; b->hlit--)
		;
	for (b->hdist = GPZ_DFL_NDIST; b->hdist > 1 && !b->dlen[b->hdist - 1]; b->hdist--)
		;
}

/* HCLEN: the code-length code's lengths sent, in their order, trailing zeros dropped. */
GPZ_HD static inline void gpz_dfl_trim_cl(struct gpz_dfl_codes *b)
{
	for (b->hclen = GPZ_DFL_NCL; b->hclen > 4 && !b->cllen[gpz_dfl_cl_order(b->hclen - 1)];
	     b->hclen--)
		;
}

GPZ_HD static inline void gpz_dfl_plan_dynamic(struct gpz_dfl_scratch *s, const uint32_t *lf,
                                               const uint32_t *df)
{
	struct gpz_dfl_codes *b = &s->dyn;
	for (unsigned i = 0; i < GPZ_DFL_NLIT; i++)
		s->lfc[i] = lf[i];
	for (unsigned i = 0; i < GPZ_DFL_NDIST; i++)
		s->dfc[i] = df[i];
	for (unsigned i = 0; i < GPZ_DFL_NCL; i++)
		s->clfreq[i] = 0;
	gpz_dfl_build_code(s->lfc, GPZ_DFL_NLIT, 15, b->llen, b->lcode, &s->huff);
	gpz_dfl_build_code(s->dfc, GPZ_DFL_NDIST, 15, b->dlen, b->dcode, &s->huff);
	gpz_dfl_trim_lengths(b);
	gpz_dfl_rle_lengths(b, s->clfreq, s->all);
	gpz_dfl_build_code(s->clfreq, GPZ_DFL_NCL, 7, b->cllen, b->clcode, &s->huff);
	gpz_dfl_trim_cl(b);
}

/* A token's bits as the block writer puts them, its first field in the lowest bits (at most
 * 15 + 5 + 15 + 13 = 48); *k gets how many. */
GPZ_HD static inline uint64_t gpz_dfl_token_bits(uint32_t t, const uint32_t *lcode,
                                                 const uint8_t *llen, const uint32_t *dcode,
                                                 const uint8_t *dlen, unsigned *k)
{
	if (!(t & GPZ_TOK_MATCH)) {
		*k = llen[t];
		return lcode[t];
	}
	unsigned len = gpz_dfl_tok_len(t), dist = gpz_dfl_tok_dist(t);
	unsigned lc = gpz_dfl_len_code(len), dc = gpz_dfl_dist_code(dist);
	unsigned n0 = llen[257 + lc], n1 = gpz_dfl_len_extra(lc), n2 = dlen[dc];
	uint64_t v = lcode[257 + lc];
	v |= (uint64_t)(len - gpz_dfl_len_base(lc)) << n0;
	v |= (uint64_t)dcode[dc] << (n0 + n1);
	v |= (uint64_t)(dist - gpz_dfl_dist_base(dc)) << (n0 + n1 + n2);
	*k = n0 + n1 + n2 + gpz_dfl_dist_extra(dc);
	return v;
}

#if !defined(__CUDA_ARCH__) && GPZ_LZ_WORD_COMPARE
/* A block's codes as the host's token writer reads them, so that a token's bits take no branch
 * and few shifts (without BMI2 each variable shift costs a move to cl as well):
 * - lit[x] for a literal x and lit[256 + len - 3] for a match's length: its bits (code, then
 *   the length's extra bits) in the low 24 bits, their count in the top 8;
 * - dist[i] for a distance d = dist - 1 at i = d (d < 256) or 256 + (d >> 7) (zlib's split: a
 *   distance code never straddles it): the code in bits 0-15, its length in 16-23, code and
 *   extra bits' count in 24-31, the extra bits' mask (extra = d & mask: every code's base - 1
 *   is a multiple of its range) from bit 32. */
struct gpz_dfl_host_codes {
	uint32_t lit[512];
	uint64_t dist[512];
};

static inline void gpz_dfl_host_codes(struct gpz_dfl_host_codes *h, const struct gpz_dfl_codes *b)
{
	for (unsigned x = 0; x < 256; x++)
		h->lit[x] = b->lcode[x] | (uint32_t)b->llen[x] << 24;
	for (unsigned len = 3; len <= GPZ_LZ_MAX_MATCH; len++) {
		unsigned c = gpz_dfl_len_code(len), n0 = b->llen[257 + c];
		h->lit[256 + len - 3] = (b->lcode[257 + c] | (len - gpz_dfl_len_base(c)) << n0) |
		                        (n0 + gpz_dfl_len_extra(c)) << 24;
	}
	for (unsigned i = 0; i < 512; i++) {
		unsigned d = i < 256 ? i : (i - 256) << 7, c = gpz_dfl_dist_code(d + 1);
		unsigned x = gpz_dfl_dist_extra(c);
		h->dist[i] = b->dcode[c] | (uint64_t)b->dlen[c] << 16 |
		             (uint64_t)(b->dlen[c] + x) << 24 | (uint64_t)((1u << x) - 1) << 32;
	}
}

/* gpz_dfl_token_bits without a branch: a literal's distance part, looked up from its byte, is
 * masked off, so that the writer does not mispredict the literal/match branch a third time
 * (after the parse and its counts). */
static inline uint64_t gpz_dfl_host_bits(uint32_t t, const struct gpz_dfl_host_codes *h,
                                         unsigned *k)
{
	uint32_t m = t >> 31, d = t & 0x7fff;
	uint32_t lit = h->lit[(t & (m - 1) & 0xff) | ((t >> 16) & 0xff) | m << 8];
	uint64_t e = h->dist[d < 256 ? d : 256 + (d >> 7)], mask = 0 - (uint64_t)m;
	uint64_t dist = ((e & 0xffff) | (d & (e >> 32)) << ((e >> 16) & 0xff)) & mask;
	unsigned n0 = lit >> 24;
	*k = n0 + (((unsigned)e >> 24) & (unsigned)mask);
	return (lit & 0xffffff) | dist << n0;
}
#endif

/* The tokens' codes and the end-of-block code. On a little-endian host, whole tokens go into
 * the accumulator (gpz_dfl_host_bits) and 8 bytes are stored at a time while 16 bytes of room
 * are left (the bytes past the whole ones are rewritten by later stores): the same bytes as
 * gpz_dfl_put's. */
GPZ_HD static inline void gpz_dfl_put_tokens(struct gpz_bitw *bw, const uint32_t *tok, size_t n,
                                             const struct gpz_dfl_codes *b)
{
	size_t i = 0;
#if !defined(__CUDA_ARCH__) && GPZ_LZ_WORD_COMPARE
	struct gpz_dfl_host_codes h;
	uint64_t acc = bw->acc;
	unsigned nb = bw->nb; /* < 8: gpz_dfl_put leaves whole bytes written */
	uint8_t *p = bw->p, *end = bw->end; /* locals: stores through p may alias bw */
	gpz_dfl_host_codes(&h, b);
	for (; i < n && end - p >= 16; i++) {
		unsigned k;
		acc |= gpz_dfl_host_bits(tok[i], &h, &k) << nb;
		nb += k;
		memcpy(p, &acc, 8);
		p += nb >> 3;
		acc >>= nb & ~7u;
		nb &= 7;
	}
	bw->acc = acc;
	bw->nb = nb;
	bw->p = p;
#endif
	for (; i < n; i++) { /* near the end of the room: through gpz_dfl_put's checks */
		unsigned k;
		uint64_t v = gpz_dfl_token_bits(tok[i], b->lcode, b->llen, b->dcode, b->dlen, &k);
		gpz_dfl_put(bw, (uint32_t)v, k < 32 ? k : 32);
		if (k > 32)
			gpz_dfl_put(bw, (uint32_t)(v >> 32), k - 32);
	}
	gpz_dfl_put(bw, b->lcode[256], b->llen[256]);
}

/* A dynamic header's counts: HLIT, HDIST, HCLEN and the code-length code's lengths. */
GPZ_HD static inline void gpz_dfl_put_dynamic_counts(struct gpz_bitw *bw,
                                                     const struct gpz_dfl_codes *b)
{
	gpz_dfl_put(bw, b->hlit - 257, 5);
	gpz_dfl_put(bw, b->hdist - 1, 5);
	gpz_dfl_put(bw, b->hclen - 4, 4);
	for (unsigned i = 0; i < b->hclen; i++)
		gpz_dfl_put(bw, b->cllen[gpz_dfl_cl_order(i)], 3);
}

/* Item i of a dynamic header's run-length coded lengths: its code and extra bits, the code in
 * the lowest (*bits), and (returned) how many bits. */
GPZ_HD static inline unsigned gpz_dfl_rle_bits(const struct gpz_dfl_codes *b, unsigned i,
                                               uint32_t *bits)
{
	const unsigned s = b->rle[i], n = b->cllen[s];
	*bits = b->clcode[s] | (s >= 16 ? (uint32_t)b->rle_extra[i] << n : 0);
	return n + gpz_dfl_cl_extra(s);
}

GPZ_HD static inline void gpz_dfl_put_dynamic_header(struct gpz_bitw *bw,
                                                     const struct gpz_dfl_codes *b)
{
	gpz_dfl_put_dynamic_counts(bw, b);
	for (unsigned i = 0; i < b->nrle; i++) {
		uint32_t bits;
		const unsigned n = gpz_dfl_rle_bits(b, i, &bits);
		gpz_dfl_put(bw, bits, n);
	}
}

/* Stored blocks (at most 65535 bytes each) for src[0 .. n); BFINAL on the last if `last`. */
GPZ_HD static inline void gpz_dfl_put_stored(struct gpz_bitw *bw, const uint8_t *src, size_t n,
                                             int last)
{
	size_t off = 0;
	do {
		size_t k = n - off > 65535 ? 65535 : n - off;
		int fin = last && off + k == n;
		gpz_dfl_put(bw, (uint32_t)fin, 1);
		gpz_dfl_put(bw, 0, 2);
		gpz_dfl_bitw_finish(bw);
		gpz_dfl_put(bw, (uint32_t)k, 16);
		gpz_dfl_put(bw, (uint32_t)(~k & 0xffff), 16);
		for (size_t i = 0; i < k; i++)
			gpz_dfl_put(bw, src[off + i], 8);
		off += k;
	} while (off < n);
}

/* One block of n tokens covering src[0 .. nbytes), in the smallest of the three forms; returns 1
 * when it was written stored. */
/* gpz_dfl_put_block with s->blk already holding the tokens' counts. */
GPZ_HD static inline int gpz_dfl_put_counted(struct gpz_bitw *bw, const uint8_t *src,
                                            const uint32_t *tok, size_t n, size_t nbytes,
                                            int last, struct gpz_dfl_scratch *s)
{
	uint32_t *lf = s->blk.lf, *df = s->blk.df;
	uint64_t dyn, fix, stored;

	lf[256] = 1;
	gpz_dfl_plan_dynamic(s, lf, df);
	dyn = gpz_dfl_dynamic_bits(&s->dyn, lf, df);
	fix = gpz_dfl_fixed_bits(lf, df);
	stored = (nbytes / 65535 + 1) * 40 + 8 * (uint64_t)nbytes + 7;
	if (stored < dyn && stored < fix) {
		gpz_dfl_put_stored(bw, src, nbytes, last);
		return 1;
	}
	if (fix <= dyn) {
		gpz_dfl_fixed_code(&s->fix);
		gpz_dfl_put(bw, (uint32_t)last | (1u << 1), 3);
		gpz_dfl_put_tokens(bw, tok, n, &s->fix);
	} else {
		gpz_dfl_put(bw, (uint32_t)last | (2u << 1), 3);
		gpz_dfl_put_dynamic_header(bw, &s->dyn);
		gpz_dfl_put_tokens(bw, tok, n, &s->dyn);
	}
	return 0;
}

GPZ_HD static inline int gpz_dfl_put_block(struct gpz_bitw *bw, const uint8_t *src,
                                            const uint32_t *tok, size_t n, size_t nbytes,
                                            int last, struct gpz_dfl_scratch *s)
{
	gpz_dfl_zero_freqs(&s->blk);
	gpz_dfl_add_tokens(&s->blk, tok, n);
	return gpz_dfl_put_counted(bw, src, tok, n, nbytes, last, s);
}

/* Units in the next block starting at u[0] (of nu >= 1, estimated): whole units while joining
 * them pays. Leaves the block's counts in s->blk (for gpz_dfl_put_counted). */
GPZ_HD static inline size_t gpz_dfl_next_block(const struct gpz_dfl_unit *u, size_t nu,
                                               struct gpz_dfl_scratch *s, const uint32_t *tab)
{
	size_t k = 1;
	uint64_t cur_est = u[0].est;

	s->blk = u[0].f;
	while (k < nu && k * GPZ_DFL_UNIT_TOKENS < GPZ_DFL_MAX_BLOCK_TOKENS) {
		uint64_t joined_est;
		for (unsigned i = 0; i < GPZ_DFL_NLIT; i++)
			s->joined.lf[i] = s->blk.lf[i] + u[k].f.lf[i];
		for (unsigned i = 0; i < GPZ_DFL_NDIST; i++)
			s->joined.df[i] = s->blk.df[i] + u[k].f.df[i];
		joined_est = gpz_dfl_est(&s->joined, tab);
		if (joined_est > cur_est + u[k].est)
			break;
		s->blk = s->joined;
		cur_est = joined_est;
		k++;
	}
	return k;
}

/*
 * The end of a piece that is not the stream's last: an empty stored block (BFINAL 0, BTYPE 00,
 * zero bits to the byte boundary, LEN 0, NLEN 0xffff: what zlib's sync flush writes), after
 * which the next piece starts on a byte boundary. Pieces are then plain byte strings, joined by
 * copying and located by byte offsets (the gzip piece index), for 4 to 6 bytes a piece.
 */
GPZ_HD static inline void gpz_dfl_put_sync(struct gpz_bitw *bw)
{
	gpz_dfl_put(bw, 0, 3);
	gpz_dfl_bitw_finish(bw);
	gpz_dfl_put(bw, 0, 16);
	gpz_dfl_put(bw, 0xffff, 16);
}

/*
 * gpz_deflate_blocks of deflate.h: code tokens (covering src[start .. start + nbytes)) as one
 * piece's DEFLATE blocks, ending on a byte boundary: the last block gets BFINAL and zero bits
 * pad it when `last` is set, else an empty stored block follows (gpz_dfl_put_sync). Every piece
 * thus starts on a byte boundary of the stream, where its stored blocks' padding is right
 * wherever it lies. u: the tokens' units, counted (gpz_dfl_count_units); their estimates are
 * filled here. tab: gpz_dfl_log_fill's table.
 */
GPZ_HD static inline gpz_result gpz_dfl_blocks(struct gpz_bitw *bw, const uint8_t *src,
                                               size_t start, size_t nbytes,
                                               const uint32_t *tokens, size_t ntok,
                                               struct gpz_dfl_unit *u, int last,
                                               struct gpz_dfl_scratch *s, const uint32_t *tab)
{
	size_t pos = start, nu = gpz_dfl_units(ntok);

	for (size_t k = 0; k < nu; k++)
		u[k].est = gpz_dfl_est(&u[k].f, tab);
	if (ntok == 0) /* empty input: one empty block */
		gpz_dfl_put_block(bw, src + pos, tokens, 0, 0, last, s);
	for (size_t k = 0; k < nu;) {
		size_t m = gpz_dfl_next_block(u + k, nu - k, s, tab), b = 0;
		size_t i = k * GPZ_DFL_UNIT_TOKENS, n = k + m < nu ? m * GPZ_DFL_UNIT_TOKENS : ntok - i;
		for (size_t j = k; j < k + m; j++)
			b += u[j].bytes;
		gpz_dfl_put_counted(bw, src + pos, tokens + i, n, b, last && k + m == nu, s);
		pos += b;
		k += m;
	}
	if (!last)
		gpz_dfl_put_sync(bw);
	gpz_dfl_bitw_finish(bw);
	return bw->overflow ? GPZ_ERR_DST_TOO_SMALL : (pos - start == nbytes ? GPZ_OK : GPZ_ERR_PARAM);
}

/* ---- streams cut into pieces (stream.c's layout) ---- */

/* Bytes a piece of len input bytes may need (stream.c gives every piece this much for
 * len = GPZ_DEFLATE_PIECE): every block is at most its bytes stored, 5 bytes per stored
 * sub-block of <= 65535 bytes, and blocks hold at least 2048 tokens (>= 2048 bytes) but the
 * last. */
GPZ_HD static inline size_t gpz_dfl_piece_cap(size_t len)
{
	return len + 5 * (len / 65535 + len / GPZ_DFL_UNIT_TOKENS + 4) + 24; /* + the sync */
}

#endif
