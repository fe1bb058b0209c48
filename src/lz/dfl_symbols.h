/* dfl_symbols.h - how LZ tokens (match_core.h) map to DEFLATE's symbols (RFC 1951 3.2.5), and
 * the symbol counts of units of tokens where blocks may start. The block writer (deflate/
 * block_core.h) codes with them; the CPU's parse (match.c) counts them as it emits tokens, so the
 * writer needs no pass of its own over the tokens to count. GPZ_HD, no globals, as match_core.h. */
#ifndef GPZ_LZ_DFL_SYMBOLS_H
#define GPZ_LZ_DFL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "common/hd.h"
#include "lz/match_core.h"

#define GPZ_DFL_UNIT_TOKENS 2048 /* stream.c's size bounds rely on blocks this large */
#define GPZ_DFL_NLIT 286
#define GPZ_DFL_NDIST 30

/* Number of significant bits of x > 0. */
GPZ_HD static inline unsigned gpz_dfl_bitlen(uint32_t x)
{
#ifdef __CUDA_ARCH__
	return 32u - (unsigned)__clz(x);
#else
	return 32u - (unsigned)__builtin_clz(x);
#endif
}

GPZ_HD static inline unsigned gpz_dfl_tok_len(uint32_t t)
{
	return ((t >> 16) & 0xff) + 3;
}

GPZ_HD static inline unsigned gpz_dfl_tok_dist(uint32_t t)
{
	return (t & 0x7fff) + 1;
}

/* RFC 1951 3.2.5 as formulas: length codes 257 + c (c = 0..28), distance codes 0..29. */
GPZ_HD static inline unsigned gpz_dfl_len_extra(unsigned c)
{
	return c < 8 || c == 28 ? 0 : (c - 4) >> 2;
}

GPZ_HD static inline unsigned gpz_dfl_len_base(unsigned c)
{
	if (c < 8)
		return c + 3;
	if (c == 28)
		return 258;
	return ((4 + (c & 3)) << gpz_dfl_len_extra(c)) + 3;
}

GPZ_HD static inline unsigned gpz_dfl_dist_extra(unsigned c)
{
	return c < 4 ? 0 : (c >> 1) - 1;
}

GPZ_HD static inline unsigned gpz_dfl_dist_base(unsigned c)
{
	return c < 4 ? c + 1 : ((2 + (c & 1)) << gpz_dfl_dist_extra(c)) + 1;
}

/* Code of a match length 3..258. */
GPZ_HD static inline unsigned gpz_dfl_len_code(unsigned len)
{
	unsigned l = len - 3, e;
	if (l < 8)
		return l;
	if (len == 258)
		return 28;
	e = gpz_dfl_bitlen(l) - 3;
	return 4 + 4 * e + ((l >> e) & 3);
}

/* Code of a distance 1..32768. */
GPZ_HD static inline unsigned gpz_dfl_dist_code(unsigned dist)
{
	unsigned d = dist - 1, k;
	if (d < 4)
		return d;
	k = gpz_dfl_bitlen(d) - 1;
	return 2 * k + ((d >> (k - 1)) & 1);
}

struct gpz_dfl_freqs {
	uint32_t lf[GPZ_DFL_NLIT], df[GPZ_DFL_NDIST];
};

GPZ_HD static inline void gpz_dfl_zero_freqs(struct gpz_dfl_freqs *f)
{
	for (unsigned s = 0; s < GPZ_DFL_NLIT; s++)
		f->lf[s] = 0;
	for (unsigned s = 0; s < GPZ_DFL_NDIST; s++)
		f->df[s] = 0;
}

GPZ_HD static inline void gpz_dfl_add_tokens(struct gpz_dfl_freqs *f, const uint32_t *tok,
                                             size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t t = tok[i];
		if (t & GPZ_TOK_MATCH) {
			f->lf[257 + gpz_dfl_len_code(gpz_dfl_tok_len(t))]++;
			f->df[gpz_dfl_dist_code(gpz_dfl_tok_dist(t))]++;
		} else {
			f->lf[t]++;
		}
	}
}

/* A unit of GPZ_DFL_UNIT_TOKENS tokens (a piece's last may be shorter), where blocks may start:
 * its counts and the input bytes it covers (the CPU's level-1 parse counts them as it goes,
 * gpz_dfl_count_units after the parse otherwise), and its estimate (gpz_dfl_blocks fills it). */
struct gpz_dfl_unit {
	struct gpz_dfl_freqs f;
	uint32_t bytes;
	uint64_t est;
};

GPZ_HD static inline size_t gpz_dfl_units(size_t ntok)
{
	return (ntok + GPZ_DFL_UNIT_TOKENS - 1) / GPZ_DFL_UNIT_TOKENS;
}

GPZ_HD static inline size_t gpz_dfl_token_bytes(const uint32_t *tok, size_t n)
{
	size_t b = 0;
	for (size_t i = 0; i < n; i++)
		b += tok[i] & GPZ_TOK_MATCH ? gpz_dfl_tok_len(tok[i]) : 1;
	return b;
}

/* The counts and bytes of tok[0 .. ntok)'s units, u[0 .. gpz_dfl_units(ntok)). */
GPZ_HD static inline void gpz_dfl_count_units(const uint32_t *tok, size_t ntok,
                                              struct gpz_dfl_unit *u)
{
	for (size_t i = 0; i < ntok; i += GPZ_DFL_UNIT_TOKENS, u++) {
		size_t n = ntok - i < GPZ_DFL_UNIT_TOKENS ? ntok - i : GPZ_DFL_UNIT_TOKENS;
		gpz_dfl_zero_freqs(&u->f);
		gpz_dfl_add_tokens(&u->f, tok + i, n);
		u->bytes = (uint32_t)gpz_dfl_token_bytes(tok + i, n);
	}
}

#endif
