/* match_core.h - the LZ77 match finder shared by the CPU (match.c) and the GPU (match.cu).
 *
 * Hash chains over DEFLATE's 32 KiB window. The per-level search effort follows gzip's table
 * (good, lazy, nice, chain): how long a match must be to cut the search short, how long to still
 * try a lazy match, when a match is good enough to stop, and how many chain links to follow.
 * Everything is deterministic: the same input and level always give the same tokens, on either
 * side. Every function here is GPZ_HD (host and device under nvcc, plain C otherwise) and uses no
 * globals, no libc and no compiler builtins on the device, so both compilers run the same code.
 *
 * The caller owns the matcher (256 KiB: malloc on the CPU, a workspace slice on the GPU), fills
 * head[] and prev[] with GPZ_LZ_NIL bytes (0xff), sets src and end, then calls
 * gpz_lz_core_parse(). */
#ifndef GPZ_LZ_MATCH_CORE_H
#define GPZ_LZ_MATCH_CORE_H

#include <stddef.h>
#include <stdint.h>
#ifndef __CUDA_ARCH__
#include <string.h>
#endif

#include "lz/lz.h"

#ifdef __CUDACC__
#define GPZ_HD __host__ __device__
#else
#define GPZ_HD
#endif

#define GPZ_LZ_HASH_BITS 15
#define GPZ_LZ_HASH_SIZE (1u << GPZ_LZ_HASH_BITS)
#define GPZ_LZ_WMASK (GPZ_LZ_WINDOW - 1)
#define GPZ_LZ_NIL 0xffffffffu
#define GPZ_LZ_TOO_FAR 4096

struct gpz_lz_level {
	unsigned good, lazy, nice, chain;
	int lazy_parse;
};

struct gpz_lz_matcher {
	const uint8_t *src;
	size_t end;
	uint32_t head[GPZ_LZ_HASH_SIZE];
	uint32_t prev[GPZ_LZ_WINDOW];
};

/* The level table (a switch rather than an array: no global the device would need a copy of).
 * level is clamped to 1..9. */
GPZ_HD static inline struct gpz_lz_level gpz_lz_level_cfg(int level)
{
	struct gpz_lz_level c;
	unsigned g, l, n, ch;
	int lz;
	switch (level < 1 ? 1 : level > 9 ? 9 : level) {
	case 1: g = 4; l = 4; n = 8; ch = 4; lz = 0; break;          /* greedy, fastest */
	case 2: g = 4; l = 5; n = 16; ch = 8; lz = 0; break;
	case 3: g = 4; l = 6; n = 32; ch = 32; lz = 0; break;
	case 4: g = 4; l = 4; n = 16; ch = 16; lz = 1; break;        /* lazy from here on */
	case 5: g = 8; l = 16; n = 32; ch = 32; lz = 1; break;
	case 6: g = 8; l = 16; n = 128; ch = 128; lz = 1; break;     /* default */
	case 7: g = 8; l = 32; n = 128; ch = 256; lz = 1; break;
	case 8: g = 32; l = 128; n = 258; ch = 1024; lz = 1; break;
	default: g = 32; l = 258; n = 258; ch = 4096; lz = 1; break; /* 9: best */
	}
	c.good = g;
	c.lazy = l;
	c.nice = n;
	c.chain = ch;
	c.lazy_parse = lz;
	return c;
}

/* Tokens as lz.h codes them (its inline helpers are host-only). */
GPZ_HD static inline uint32_t gpz_lz_core_literal(uint8_t b)
{
	return b;
}
GPZ_HD static inline uint32_t gpz_lz_core_match(unsigned len, unsigned dist)
{
	return GPZ_TOK_MATCH | ((uint32_t)(len - 3) << 16) | (dist - 1);
}

/* 8 bytes at p (any alignment), little-endian on the device; native order on the host, where
 * it is only used when the host is little-endian (see gpz_lz_match_len). */
GPZ_HD static inline uint64_t gpz_lz_load64(const uint8_t *p)
{
#ifdef __CUDA_ARCH__
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
#else
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
#endif
}

/* Index of the lowest set bit of x != 0. */
GPZ_HD static inline unsigned gpz_lz_ctz64(uint64_t x)
{
#ifdef __CUDA_ARCH__
	return (unsigned)(__ffsll((long long)x) - 1);
#else
	return (unsigned)__builtin_ctzll(x);
#endif
}

#if defined(__CUDA_ARCH__) || (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define GPZ_LZ_WORD_COMPARE 1
#else
#define GPZ_LZ_WORD_COMPARE 0
#endif

GPZ_HD static inline uint32_t gpz_lz_hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
	return (v * 2654435761u) >> (32 - GPZ_LZ_HASH_BITS);
}

GPZ_HD static inline void gpz_lz_insert(struct gpz_lz_matcher *m, size_t pos)
{
	if (pos + 3 > m->end)
		return;
	uint32_t h = gpz_lz_hash3(m->src + pos);
	m->prev[pos & GPZ_LZ_WMASK] = m->head[h];
	m->head[h] = (uint32_t)pos;
}

/* Length of the common prefix of c and s (c < s), at most maxlen: 8 bytes at a time where the
 * byte order allows, the remainder (or everything) byte by byte. */
GPZ_HD static inline unsigned gpz_lz_match_len(const uint8_t *c, const uint8_t *s,
                                               unsigned maxlen)
{
	unsigned len = 0;
	while (len + 8 <= maxlen) {
		uint64_t a = gpz_lz_load64(c + len), b = gpz_lz_load64(s + len);
		if (a != b) {
#if GPZ_LZ_WORD_COMPARE
			return len + (gpz_lz_ctz64(a ^ b) >> 3);
#else
			break;
#endif
		}
		len += 8;
	}
	while (len < maxlen && c[len] == s[len])
		len++;
	return len;
}

/* Longest match at pos (length >= 3, else 0); *dist receives its distance. */
GPZ_HD static inline unsigned gpz_lz_longest(const struct gpz_lz_matcher *m, size_t pos,
                                             unsigned chain, unsigned nice, unsigned prev_len,
                                             unsigned good, unsigned *dist)
{
	const uint8_t *s = m->src + pos;
	size_t avail = m->end - pos;
	unsigned maxlen = avail < GPZ_LZ_MAX_MATCH ? (unsigned)avail : GPZ_LZ_MAX_MATCH;
	unsigned best = prev_len >= 2 ? prev_len : 2;
	uint32_t cand = m->prev[pos & GPZ_LZ_WMASK]; /* pos itself is already inserted */

	if (maxlen < GPZ_LZ_MIN_MATCH)
		return 0;
	if (nice > maxlen)
		nice = maxlen;
	if (prev_len >= good)
		chain >>= 2;
	*dist = 0;
	while (cand != GPZ_LZ_NIL && chain-- > 0 && pos - cand <= GPZ_LZ_WINDOW && cand < pos &&
	       best < maxlen) {
		const uint8_t *c = m->src + cand;
		if (c[best] == s[best] && c[0] == s[0] && c[1] == s[1]) {
			unsigned len = gpz_lz_match_len(c, s, maxlen);
			if (len > best) {
				best = len;
				*dist = (unsigned)(pos - cand);
				if (len >= nice)
					break;
			}
		}
		uint32_t next = m->prev[cand & GPZ_LZ_WMASK];
		if (next != GPZ_LZ_NIL && next >= cand)
			break; /* the ring slot was reused: the chain ends */
		cand = next;
	}
	return *dist ? best : 0;
}

GPZ_HD static inline size_t gpz_lz_parse_greedy(struct gpz_lz_matcher *m, size_t start,
                                                const struct gpz_lz_level *cfg, uint32_t *tok)
{
	size_t pos = start, n = 0;
	while (pos < m->end) {
		unsigned dist, len;
		gpz_lz_insert(m, pos);
		len = gpz_lz_longest(m, pos, cfg->chain, cfg->nice, 0, cfg->good, &dist);
		if (len >= GPZ_LZ_MIN_MATCH) {
			tok[n++] = gpz_lz_core_match(len, dist);
			/* short matches also feed the hash chains; long ones are skipped for speed */
			if (len <= cfg->lazy)
				for (size_t k = 1; k < len; k++)
					gpz_lz_insert(m, pos + k);
			pos += len;
		} else {
			tok[n++] = gpz_lz_core_literal(m->src[pos++]);
		}
	}
	return n;
}

/* Lazy parsing: a match is emitted only if the match starting one byte later is not longer. */
GPZ_HD static inline size_t gpz_lz_parse_lazy(struct gpz_lz_matcher *m, size_t start,
                                              const struct gpz_lz_level *cfg, uint32_t *tok)
{
	size_t pos = start, n = 0;
	unsigned prev_len = 0, prev_dist = 0;
	int have_prev = 0;

	while (pos < m->end) {
		unsigned dist = 0, len = 0;
		gpz_lz_insert(m, pos);
		if (!have_prev || prev_len < cfg->lazy)
			len = gpz_lz_longest(m, pos, cfg->chain, cfg->nice, have_prev ? prev_len : 0,
			                     cfg->good, &dist);
		if (len == GPZ_LZ_MIN_MATCH && dist > GPZ_LZ_TOO_FAR)
			len = 0; /* a 3-byte match this far away costs more bits than 3 literals */
		if (have_prev && prev_len >= GPZ_LZ_MIN_MATCH && len <= prev_len) {
			/* the match at pos - 1 wins: emit it and skip over it */
			tok[n++] = gpz_lz_core_match(prev_len, prev_dist);
			for (size_t k = pos + 1; k < pos - 1 + prev_len; k++)
				gpz_lz_insert(m, k);
			pos = pos - 1 + prev_len;
			have_prev = 0;
			continue;
		}
		if (have_prev)
			tok[n++] = gpz_lz_core_literal(m->src[pos - 1]);
		prev_len = len;
		prev_dist = dist;
		have_prev = 1;
		pos++;
	}
	if (have_prev)
		tok[n++] = gpz_lz_core_literal(m->src[pos - 1]);
	return n;
}

/* Parse src[start .. m->end) into tok (end - start entries), with the window before start as
 * history. m->head and m->prev must be all GPZ_LZ_NIL; m->src and m->end set. Returns the token
 * count (0 when end <= start). */
GPZ_HD static inline size_t gpz_lz_core_parse(struct gpz_lz_matcher *m, size_t start, int level,
                                              uint32_t *tok)
{
	struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	if (m->end <= start)
		return 0;
	/* history: the window before start feeds the chains */
	for (size_t p = start > GPZ_LZ_WINDOW ? start - GPZ_LZ_WINDOW : 0; p < start; p++)
		gpz_lz_insert(m, p);
	return cfg.lazy_parse ? gpz_lz_parse_lazy(m, start, &cfg, tok)
	                      : gpz_lz_parse_greedy(m, start, &cfg, tok);
}

#endif
