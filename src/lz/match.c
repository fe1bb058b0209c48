/* match.c - LZ77 match finding over DEFLATE's 32 KiB window with hash chains, CPU reference.
 *
 * The per-level search effort follows gzip's table (good, lazy, nice, chain): how long a match
 * must be to cut the search short, how long to still try a lazy match, when a match is good
 * enough to stop, and how many chain links to follow. Everything is deterministic: the same
 * input and level always give the same tokens. */
#include "lz/lz.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BITS 15
#define HASH_SIZE (1u << HASH_BITS)
#define WMASK (GPZ_LZ_WINDOW - 1)
#define NIL 0xffffffffu
#define TOO_FAR 4096

struct level_cfg {
	unsigned good, lazy, nice, chain;
	int lazy_parse;
};

static const struct level_cfg levels[10] = {
	{ 0, 0, 0, 0, 0 },          /* unused */
	{ 4, 4, 8, 4, 0 },          /* 1: greedy, fastest */
	{ 4, 5, 16, 8, 0 },
	{ 4, 6, 32, 32, 0 },
	{ 4, 4, 16, 16, 1 },        /* 4: lazy from here on */
	{ 8, 16, 32, 32, 1 },
	{ 8, 16, 128, 128, 1 },     /* 6: default */
	{ 8, 32, 128, 256, 1 },
	{ 32, 128, 258, 1024, 1 },
	{ 32, 258, 258, 4096, 1 },  /* 9: best */
};

struct matcher {
	const uint8_t *src;
	size_t end;
	uint32_t head[HASH_SIZE];
	uint32_t prev[GPZ_LZ_WINDOW];
};

static inline uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
	return (v * 2654435761u) >> (32 - HASH_BITS);
}

static inline void insert(struct matcher *m, size_t pos)
{
	if (pos + 3 > m->end)
		return;
	uint32_t h = hash3(m->src + pos);
	m->prev[pos & WMASK] = m->head[h];
	m->head[h] = (uint32_t)pos;
}

/* Length of the common prefix of c and s (c < s), at most maxlen: 8 bytes at a time. */
static inline unsigned match_len(const uint8_t *c, const uint8_t *s, unsigned maxlen)
{
	unsigned len = 0;
	while (len + 8 <= maxlen) {
		uint64_t a, b;
		memcpy(&a, c + len, 8);
		memcpy(&b, s + len, 8);
		if (a != b) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return len + (unsigned)(__builtin_ctzll(a ^ b) >> 3);
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
static unsigned longest(const struct matcher *m, size_t pos, unsigned chain, unsigned nice,
                        unsigned prev_len, unsigned good, unsigned *dist)
{
	const uint8_t *s = m->src + pos;
	size_t avail = m->end - pos;
	unsigned maxlen = avail < GPZ_LZ_MAX_MATCH ? (unsigned)avail : GPZ_LZ_MAX_MATCH;
	unsigned best = prev_len >= 2 ? prev_len : 2;
	uint32_t cand = m->prev[pos & WMASK]; /* pos itself is already inserted */

	if (maxlen < GPZ_LZ_MIN_MATCH)
		return 0;
	if (nice > maxlen)
		nice = maxlen;
	if (prev_len >= good)
		chain >>= 2;
	*dist = 0;
	while (cand != NIL && chain-- > 0 && pos - cand <= GPZ_LZ_WINDOW && cand < pos &&
	       best < maxlen) {
		const uint8_t *c = m->src + cand;
		if (c[best] == s[best] && c[0] == s[0] && c[1] == s[1]) {
			unsigned len = match_len(c, s, maxlen);
			if (len > best) {
				best = len;
				*dist = (unsigned)(pos - cand);
				if (len >= nice)
					break;
			}
		}
		uint32_t next = m->prev[cand & WMASK];
		if (next != NIL && next >= cand)
			break; /* the ring slot was reused: the chain ends */
		cand = next;
	}
	return *dist ? best : 0;
}

static size_t parse_greedy(struct matcher *m, size_t start, const struct level_cfg *cfg,
                           uint32_t *tok)
{
	size_t pos = start, n = 0;
	while (pos < m->end) {
		unsigned dist, len;
		insert(m, pos);
		len = longest(m, pos, cfg->chain, cfg->nice, 0, cfg->good, &dist);
		if (len >= GPZ_LZ_MIN_MATCH) {
			tok[n++] = gpz_tok_match(len, dist);
			/* short matches also feed the hash chains; long ones are skipped for speed */
			if (len <= cfg->lazy)
				for (size_t k = 1; k < len; k++)
					insert(m, pos + k);
			pos += len;
		} else {
			tok[n++] = gpz_tok_literal(m->src[pos++]);
		}
	}
	return n;
}

/* Lazy parsing: a match is emitted only if the match starting one byte later is not longer. */
static size_t parse_lazy(struct matcher *m, size_t start, const struct level_cfg *cfg,
                         uint32_t *tok)
{
	size_t pos = start, n = 0;
	unsigned prev_len = 0, prev_dist = 0;
	int have_prev = 0;

	while (pos < m->end) {
		unsigned dist = 0, len = 0;
		insert(m, pos);
		if (!have_prev || prev_len < cfg->lazy)
			len = longest(m, pos, cfg->chain, cfg->nice, have_prev ? prev_len : 0, cfg->good,
			              &dist);
		if (len == GPZ_LZ_MIN_MATCH && dist > TOO_FAR)
			len = 0; /* a 3-byte match this far away costs more bits than 3 literals */
		if (have_prev && prev_len >= GPZ_LZ_MIN_MATCH && len <= prev_len) {
			/* the match at pos - 1 wins: emit it and skip over it */
			tok[n++] = gpz_tok_match(prev_len, prev_dist);
			for (size_t k = pos + 1; k < pos - 1 + prev_len; k++)
				insert(m, k);
			pos = pos - 1 + prev_len;
			have_prev = 0;
			continue;
		}
		if (have_prev)
			tok[n++] = gpz_tok_literal(m->src[pos - 1]);
		prev_len = len;
		prev_dist = dist;
		have_prev = 1;
		pos++;
	}
	if (have_prev)
		tok[n++] = gpz_tok_literal(m->src[pos - 1]);
	return n;
}

size_t gpz_lz_parse(const uint8_t *src, size_t start, size_t end, int level, uint32_t *tokens)
{
	const struct level_cfg *cfg = &levels[level < 1 ? 1 : level > 9 ? 9 : level];
	struct matcher *m;
	size_t n;

	if (end <= start)
		return 0;
	m = malloc(sizeof(*m));
	if (!m)
		return 0;
	m->src = src;
	m->end = end;
	memset(m->head, 0xff, sizeof(m->head));
	memset(m->prev, 0xff, sizeof(m->prev));
	/* history: the window before start feeds the chains */
	for (size_t p = start > GPZ_LZ_WINDOW ? start - GPZ_LZ_WINDOW : 0; p < start; p++)
		insert(m, p);
	n = cfg->lazy_parse ? parse_lazy(m, start, cfg, tokens) : parse_greedy(m, start, cfg, tokens);
	free(m);
	return n;
}
