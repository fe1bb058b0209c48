/* match_core.h - the LZ77 match finder shared by the CPU (match.c) and the GPU (match.cu).
 *
 * Hash chains over DEFLATE's 32 KiB window. A level sets the chains' hash and gzip's four search
 * knobs (good, lazy, nice, chain): how long a match must be to cut the search short, how long to
 * still try a lazy match, when a match is good enough to stop, and how many chain links to follow.
 * Everything is deterministic: the same input and level always give the same tokens, on either
 * side. Every function here is GPZ_HD (host and device under nvcc, plain C otherwise) and uses no
 * globals, no libc and no compiler builtins on the device, so both compilers run the same code.
 *
 * The matches at a position are a function of the input alone (every position enters the chains,
 * and one chain walk gives both chain lengths a level may use), so the GPU can find them for all
 * positions at once and then run the very same parse over them (gpz_lz_finder); the CPU finds them
 * only where its parse asks.
 *
 * The caller owns the matcher (192 KiB: malloc on the CPU, a workspace slice on the GPU), fills
 * head[] with GPZ_LZ_NIL bytes (0xff), sets src and end, then calls gpz_lz_core_parse(). */
#ifndef GPZ_LZ_MATCH_CORE_H
#define GPZ_LZ_MATCH_CORE_H

#include <stddef.h>
#include <stdint.h>
#ifndef __CUDA_ARCH__
#include <string.h>
#endif

#include "common/hd.h"
#include "lz/lz.h"


#define GPZ_LZ_HASH_BITS 15
#define GPZ_LZ_HASH_SIZE (1u << GPZ_LZ_HASH_BITS)
#define GPZ_LZ_WMASK (GPZ_LZ_WINDOW - 1)
#define GPZ_LZ_NIL 0xffffffffu
#define GPZ_LZ_TOO_FAR 4096
#define GPZ_LZ_L1_HASH_BYTES 5
#define GPZ_LZ_L1_HASH_BITS 14

struct gpz_lz_level {
	unsigned good, lazy, nice, chain;
	int lazy_parse;
	/* rounds of the cost-driven parse after the lazy one (dp_core.h; levels 7-9), else 0 */
	unsigned dp_rounds;
	/* inside long matches (gpz_lz_inherit): how far past a position its anchor's match must
	 * reach for the position to take it instead of walking its chain; 0: every position walks */
	unsigned skip;
	/* the chains' hash: of hash_bytes (3-5) bytes, to hash_bits (<= GPZ_LZ_HASH_BITS) bits. A
	 * position less than hash_bytes before the end has no hash and no match. */
	unsigned hash_bytes, hash_bits;
};

struct gpz_lz_matcher {
	const uint8_t *src;
	size_t end;
	unsigned hash_bytes, hash_bits; /* the level's (gpz_lz_core_parse sets them) */
	uint32_t head[GPZ_LZ_HASH_SIZE];
	uint16_t prev[GPZ_LZ_WINDOW]; /* gpz_lz_link of the window's positions, a ring */
};

/* The level table (a switch rather than an array: no global the device would need a copy of).
 * level is clamped to 1..9. Levels 1-6 are defined for the GPU, where every position walks its
 * chain to the end of `chain` (the walk's cost), whatever the parse later takes: level 1 one
 * candidate of a 5-byte hash; levels 2-6 chains of a 4-byte hash (fewer, truer candidates than
 * gzip's 3-byte chains, so shorter walks find as much), walked in full (good, lazy and nice at
 * 258: gzip's shortcuts save the CPU steps, not the GPU). Levels 7-9 take the lazy parse of such
 * chains as the start of a cost-driven parse (dp_core.h), one or two rounds of it. Each level is
 * no larger than the one before and than gzip's same level on debtext100m and the Silesia total
 * (bench/results/2026-11-26-h200-gpu-levels.md, 2026-11-27-h100-dp-levels.md). */
GPZ_HD static inline struct gpz_lz_level gpz_lz_level_cfg(int level)
{
	struct gpz_lz_level c;
	unsigned g, l, n, ch;
	int lz;
	c.hash_bytes = 3;
	c.hash_bits = GPZ_LZ_HASH_BITS;
	c.dp_rounds = 0;
	c.skip = 0;
	switch (level < 1 ? 1 : level > 9 ? 9 : level) {
	case 1: /* greedy, one candidate: the latest position whose 5 bytes hash alike (the GPU's
	         * head table is small enough to keep many warps on an SM) */
		g = 4; l = 4; n = 258; ch = 1; lz = 0;
		c.hash_bytes = GPZ_LZ_L1_HASH_BYTES;
		c.hash_bits = GPZ_LZ_L1_HASH_BITS;
		break;
	case 2: g = 258; l = 258; n = 258; ch = 4; lz = 0; c.hash_bytes = 4; break;
	case 3: g = 258; l = 258; n = 258; ch = 8; lz = 0; c.hash_bytes = 4; break;
	case 4: g = 258; l = 258; n = 258; ch = 8; lz = 1; c.hash_bytes = 4; break;  /* lazy from here on */
	case 5: g = 258; l = 258; n = 258; ch = 16; lz = 1; c.hash_bytes = 4; break;
	case 6: g = 258; l = 258; n = 258; ch = 32; lz = 1; c.hash_bytes = 4; break; /* default */
	case 7: /* the cost-driven rounds from here on (dp_core.h) */
		g = 258; l = 258; n = 258; ch = 8; lz = 1; c.hash_bytes = 4; c.dp_rounds = 1; break;
	case 8:
		g = 258; l = 258; n = 258; ch = 16; lz = 1; c.hash_bytes = 4; c.dp_rounds = 1; break;
	default: /* 9: best */
		g = 258; l = 258; n = 258; ch = 32; lz = 1; c.hash_bytes = 4; c.dp_rounds = 2; break;
	}
	if (c.dp_rounds)
		c.skip = 32; /* +0.02-0.15% in size on debtext100m and Silesia's total (skip 64: 0.02%;
		              * 16: 0.2-0.4%) */
	c.good = g;
	c.lazy = l;
	c.nice = n;
	c.chain = ch;
	c.lazy_parse = lz;
	return c;
}

/* Does anything read a position's quarter-chain match? The lazy parse asks for it only after a
 * match of `good` or more while it still looks (shorter than `lazy`), and the cost-driven rounds
 * take it as an option. Levels 4-6 (good = lazy = 258) never read it: the GPU then neither
 * records it in the walk nor stores it (half the matches' bytes). */
GPZ_HD static inline int gpz_lz_wants_quarter(const struct gpz_lz_level *c)
{
	return c->lazy_parse && (c->good < c->lazy || c->dp_rounds);
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

/* The hash of the bytes bytes at p (3, 4 or 5), to bits bits, where avail >= bytes bytes can be
 * read from p; 3 bytes at GPZ_LZ_HASH_BITS is gzip's (gpz_lz_hash3). */
GPZ_HD static inline uint32_t gpz_lz_hash(const uint8_t *p, size_t avail, unsigned bytes,
                                          unsigned bits)
{
	if (bytes == 3 && bits == GPZ_LZ_HASH_BITS)
		return gpz_lz_hash3(p);
	uint64_t v = 0;
#if !defined(__CUDA_ARCH__) && GPZ_LZ_WORD_COMPARE
	if (avail >= 8) { /* one load and a mask instead of a load a byte (little-endian) */
		v = gpz_lz_load64(p) & ((~0ull) >> (64 - 8 * bytes));
		return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> (64 - bits));
	}
#endif
	(void)avail;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* A chain link: the distance from pos back to the previous position with the same hash, or 0
 * when there is none within the window. Distances (not positions) make the link independent of
 * where the chain lives: the CPU keeps them in a ring of GPZ_LZ_WINDOW slots, the GPU in one
 * array over the whole range (match.cu), and both walk the same chains. */
GPZ_HD static inline uint16_t gpz_lz_link(size_t pos, uint32_t head)
{
	return head != GPZ_LZ_NIL && pos - head <= GPZ_LZ_WINDOW ? (uint16_t)(pos - head) : 0;
}

GPZ_HD static inline void gpz_lz_insert(struct gpz_lz_matcher *m, size_t pos)
{
	if (pos + m->hash_bytes > m->end)
		return;
	uint32_t h = gpz_lz_hash(m->src + pos, m->end - pos, m->hash_bytes, m->hash_bits);
	m->prev[pos & GPZ_LZ_WMASK] = gpz_lz_link(pos, m->head[h]);
	m->head[h] = (uint32_t)pos;
}

#ifdef __CUDA_ARCH__
/* 4 bytes at p (any alignment) from the two aligned words around them: the memory must be
 * readable up to the end of the aligned word after p + 3 (the GPU's shared-memory window has
 * padding for that). */
__device__ static inline uint32_t gpz_lz_load32(const uint8_t *p)
{
	/* aligned down by pointer arithmetic, not through an integer: the compiler then still
	 * knows p's memory space (shared-memory loads instead of generic ones in the walks), and
	 * the offset from the 32-bit shared address where p is there (a generic address's low
	 * bits cost the walk's compare loop 64-bit arithmetic a word) */
	const unsigned off = __isShared(p) ? (unsigned)__cvta_generic_to_shared(p) & 3
	                                   : (unsigned)(uintptr_t)p & 3;
	const uint32_t *w = (const uint32_t *)(p - off);
	return __funnelshift_r(w[0], w[1], 8 * off);
}
#endif

/* Length of the common prefix of c and s (c < s), at most maxlen: 8 bytes at a time where the
 * byte order allows (4 on the GPU, from shared memory: see gpz_lz_load32), the remainder (or
 * everything) byte by byte. */
GPZ_HD static inline unsigned gpz_lz_match_len(const uint8_t *c, const uint8_t *s,
                                               unsigned maxlen)
{
	unsigned len = 0;
#ifdef __CUDA_ARCH__
	while (len + 4 <= maxlen) {
		uint32_t a = gpz_lz_load32(c + len), b = gpz_lz_load32(s + len);
		if (a != b)
			return len + ((unsigned)(__ffs((int)(a ^ b)) - 1) >> 3);
		len += 4;
	}
#else
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
#endif
	while (len < maxlen && c[len] == s[len])
		len++;
	return len;
}

/* Positions inside a walk: the GPU walks positions relative to its shared-memory window (below
 * 2^17), where 32-bit arithmetic saves instructions; the CPU walks absolute ones. */
#ifdef __CUDA_ARCH__
typedef uint32_t gpz_lz_idx;
#else
typedef size_t gpz_lz_idx;
#endif

/* Can the candidate at c beat a match of length best at s? Only if it agrees with s at bytes 0,
 * 1 and best (and, on the CPU, which reads two bytes at once, at best - 1 too); a filter, so the
 * walk's result is the same either way. */
GPZ_HD static inline int gpz_lz_may_beat(const uint8_t *c, const uint8_t *s, unsigned best)
{
#ifdef __CUDA_ARCH__
	return c[best] == s[best] && c[0] == s[0] && c[1] == s[1];
#else
	uint16_t ce, se, c0, s0;
	memcpy(&ce, c + best - 1, 2);
	memcpy(&se, s + best - 1, 2);
	memcpy(&c0, c, 2);
	memcpy(&s0, s, 2);
	return ce == se && c0 == s0;
#endif
}

/* A match as the position-pure search stores it: length << 16 | distance, 0 for none. */
GPZ_HD static inline uint32_t gpz_lz_pack(unsigned len, unsigned dist)
{
	return dist ? (uint32_t)len << 16 | dist : 0;
}

/*
 * The chain walk: the longest match at pos (length >= 3 and > best0, else 0) among the first
 * `chain` candidates of pos's hash chain at most `reach` back (GPZ_LZ_WINDOW, or less where the
 * bytes before a piece are not its history), stopping at the first of length >= nice; *dist gets
 * its distance (0 for none). Links come from links[(q - loff) & lmask] (the CPU's ring: loff 0,
 * lmask the window mask; the GPU's array: loff its first position, lmask all ones; on the GPU,
 * pos - loff must be below 2^32); pos must be inserted. When snap_out is not NULL it receives
 * (gpz_lz_pack) what the same walk with chain = snap would have returned (best0 <= 2 only): one
 * walk gives the results of both chain lengths a lazy level needs, which makes every position's
 * matches a function of the input alone.
 */
GPZ_HD static inline unsigned gpz_lz_walk(const uint8_t *src, const uint16_t *links, size_t lmask,
                                          size_t loff, size_t pos, size_t end, size_t reach,
                                          unsigned hash_bytes, unsigned chain,
                                          unsigned nice, unsigned best0, unsigned snap,
                                          uint32_t *snap_out, unsigned *dist)
{
	const uint8_t *s = src + pos;
	const gpz_lz_idx at = (gpz_lz_idx)(pos - loff), mask = (gpz_lz_idx)lmask;
	size_t avail = end - pos;
	unsigned maxlen = avail < GPZ_LZ_MAX_MATCH ? (unsigned)avail : GPZ_LZ_MAX_MATCH;
	unsigned best = best0 >= 2 ? best0 : 2, bd = 0, steps = 0, d, dd;
	int snapped = 0;

	*dist = 0;
	if (snap_out)
		*snap_out = 0;
	else
		snap = ~0u;
	if (maxlen < GPZ_LZ_MIN_MATCH || maxlen < hash_bytes)
		return 0; /* no match fits, or pos has no hash (and no link) */
	if (nice > maxlen)
		nice = maxlen;
	d = dd = links[at & mask]; /* dd: the candidate's distance */
	for (;;) {
		if (d == 0 || dd > reach || best >= maxlen)
			break; /* the chain, the window or the possible length ends */
		if (steps == snap) {
			*snap_out = gpz_lz_pack(best, bd);
			snapped = 1;
		}
		if (steps == chain)
			break;
		steps++;
		const uint8_t *c = s - dd;
		if (gpz_lz_may_beat(c, s, best)) {
			unsigned len = gpz_lz_match_len(c, s, maxlen);
			if (len > best) {
				best = len;
				bd = dd;
				if (len >= nice)
					break;
			}
		}
		d = links[(at - dd) & mask];
		if (d > at - dd)
			break; /* only where the CPU's ring slot was reused: beyond the window anyway */
		dd += d;
	}
	if (snap_out && !snapped)
		*snap_out = gpz_lz_pack(best, bd);
	*dist = bd;
	return bd ? best : 0;
}

/* Where the parse gets its matches: the CPU's matcher walking its chains as the parse goes, or
 * (pure != NULL) every position's matches found beforehand (the GPU's way, match.cu):
 * pure[stride * (pos - base)] the full chain's, pure[stride * (pos - base) + 1] the quarter
 * chain's (stride 2; levels that never read the quarter chain, gpz_lz_wants_quarter, may have
 * stride 1). */
struct gpz_lz_finder {
	struct gpz_lz_matcher *m;
	const uint32_t *pure;
	size_t base, end; /* pure's first position; the parse's end (bounds the GPU's prefetch) */
	unsigned stride;
};

GPZ_HD static inline void gpz_lz_note(struct gpz_lz_finder *f, size_t pos)
{
	if (!f->pure)
		gpz_lz_insert(f->m, pos);
}

/* The match at pos that beats prev_len (gzip: a previous match at least `good` long cuts the
 * chain to a quarter). */
GPZ_HD static inline unsigned gpz_lz_find(const struct gpz_lz_finder *f, size_t pos,
                                          const struct gpz_lz_level *cfg, unsigned prev_len,
                                          unsigned *dist)
{
	unsigned quarter = prev_len >= cfg->good;
	if (!f->pure) {
		const struct gpz_lz_matcher *m = f->m;
		return gpz_lz_walk(m->src, m->prev, GPZ_LZ_WMASK, 0, pos, m->end, GPZ_LZ_WINDOW,
		                   cfg->hash_bytes, quarter ? cfg->chain >> 2 : cfg->chain, cfg->nice, prev_len, 0, NULL,
		                   dist);
	}
	const uint32_t *at = f->pure + f->stride * (pos - f->base);
#ifdef __CUDA_ARCH__
	/* the parse is one thread walking forward: ask for the matches 128 positions on early */
	if (pos + 128 < f->end)
		asm volatile("prefetch.global.L1 [%0];" ::"l"(at + 256));
#endif
	uint32_t r = at[quarter];
	unsigned len = r >> 16;
	if (len <= prev_len) {
		*dist = 0;
		return 0;
	}
	*dist = r & 0xffff;
	return len;
}

#define GPZ_LZ_ABORT ((size_t)-1)

/* A greedy level's token at a position whose match is r (gpz_lz_pack; s: the position's byte),
 * and the position after it: what gpz_lz_step does at greedy levels, for walkers that hold the
 * position-pure matches (match.cu). */
GPZ_HD static inline uint32_t gpz_lz_greedy_token(uint32_t r, const uint8_t *s)
{
	unsigned len = r >> 16;
	return len >= GPZ_LZ_MIN_MATCH ? gpz_lz_core_match(len, r & 0xffff) : gpz_lz_core_literal(*s);
}
GPZ_HD static inline size_t gpz_lz_greedy_next(size_t pos, uint32_t r)
{
	unsigned len = r >> 16;
	return pos + (len >= GPZ_LZ_MIN_MATCH ? len : 1);
}

/*
 * One step of the parse from a clean state at pos (nothing pending: where a parse begins, right
 * after a match it emitted, or, when lazy, right after a literal whose position had no match to
 * defer) to the next clean state: one token when greedy; when lazy, such a literal, or the
 * literals up to and including the next match, or the rest of the input. The future of a parse
 * depends only on its clean position, which is what lets the GPU guess the parse of a segment
 * from the segment's start and fix it where its guess was wrong (gpz_lz_fixup). Tokens go to
 * tok[*n ..]; returns the position reached, or GPZ_LZ_ABORT when more than cap tokens would be
 * written (tok[*n ..] is then garbage).
 */
GPZ_HD static inline size_t gpz_lz_step(struct gpz_lz_finder *f, size_t pos, size_t end,
                                        const struct gpz_lz_level *cfg, uint32_t *tok,
                                        size_t *n, size_t cap, const uint8_t *src)
{
	unsigned prev_len = 0, prev_dist = 0;
	int have_prev = 0;

	if (!cfg->lazy_parse) {
		unsigned dist, len;
		if (*n >= cap)
			return GPZ_LZ_ABORT;
		gpz_lz_note(f, pos);
		len = gpz_lz_find(f, pos, cfg, 0, &dist);
		tok[(*n)++] = gpz_lz_greedy_token(gpz_lz_pack(len, dist), src + pos);
		if (len < GPZ_LZ_MIN_MATCH)
			return pos + 1;
		/* every position feeds the chains, so that the matches at a position do not depend on
		 * the parse (see gpz_lz_walk) */
		for (size_t k = 1; k < len; k++)
			gpz_lz_note(f, pos + k);
		return pos + len;
	}
	/* lazy: a match is emitted only if the match starting one byte later is not longer */
	while (pos < end) {
		unsigned dist = 0, len = 0;
		if (have_prev && prev_len < GPZ_LZ_MIN_MATCH) {
			/* nothing deferred: pos is a clean state (its find is a fresh start's). Stopping
			 * here keeps a guessed segment of matchless data from running to the piece's end */
			if (*n >= cap)
				return GPZ_LZ_ABORT;
			tok[(*n)++] = gpz_lz_core_literal(src[pos - 1]);
			return pos;
		}
		gpz_lz_note(f, pos);
#ifndef __CUDA_ARCH__
		if (!f->pure && pos + 9 <= end) { /* the next position's head, ahead of its insert */
			const struct gpz_lz_matcher *m = f->m;
			__builtin_prefetch(&m->head[gpz_lz_hash(src + pos + 1, 8, m->hash_bytes,
			                                        m->hash_bits)]);
		}
#endif
		if (!have_prev || prev_len < cfg->lazy)
			len = gpz_lz_find(f, pos, cfg, have_prev ? prev_len : 0, &dist);
		if (len == GPZ_LZ_MIN_MATCH && dist > GPZ_LZ_TOO_FAR)
			len = 0; /* a 3-byte match this far away costs more bits than 3 literals */
		if (have_prev && (*n >= cap))
			return GPZ_LZ_ABORT;
		if (have_prev && prev_len >= GPZ_LZ_MIN_MATCH && len <= prev_len) {
			/* the match at pos - 1 wins: emit it and skip over it */
			tok[(*n)++] = gpz_lz_core_match(prev_len, prev_dist);
			for (size_t k = pos + 1; k < pos - 1 + prev_len; k++)
				gpz_lz_note(f, k);
			return pos - 1 + prev_len;
		}
		if (have_prev)
			tok[(*n)++] = gpz_lz_core_literal(src[pos - 1]);
		prev_len = len;
		prev_dist = dist;
		have_prev = 1;
		pos++;
	}
	if (have_prev) {
		if (*n >= cap)
			return GPZ_LZ_ABORT;
		tok[(*n)++] = gpz_lz_core_literal(src[pos - 1]);
	}
	return pos;
}

/* Parse src[start .. end) into tok (end - start entries) with the finder's matches. */
GPZ_HD static inline size_t gpz_lz_core_run(struct gpz_lz_finder *f, const uint8_t *src,
                                            size_t start, size_t end, int level, uint32_t *tok)
{
	struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	size_t pos = start, n = 0;
	while (pos < end)
		pos = gpz_lz_step(f, pos, end, &cfg, tok, &n, (size_t)-1, src);
	return n;
}

/* ---- the parse in segments: the GPU's way to run it in parallel ----
 *
 * A piece is cut into segments of S positions. Each segment's parse is first guessed (the spec)
 * as if a parse began at its start; then one pass (gpz_lz_fixup) runs the true parse from the
 * piece's start, and wherever it reaches a clean state (gpz_lz_step) that a spec also passed
 * through, the rest of that spec is the true parse, so the pass takes it over without parsing it
 * again. The pass only parses where specs guessed wrong: near segment starts, usually a few
 * tokens. A spec stops at its first clean state at or past its segment's end, or at cap tokens
 * (keeping what it had at its last clean state). */
struct gpz_lz_seg {
	size_t n;    /* spec tokens up to its last clean state */
	size_t exit; /* the position of that state */
	size_t copy_dst, copy_src, copy_n; /* spec tokens the true parse takes over, and where */
};

GPZ_HD static inline void gpz_lz_spec(struct gpz_lz_finder *f, const uint8_t *src, size_t s,
                                      size_t t, size_t end, const struct gpz_lz_level *cfg,
                                      uint32_t *tok, size_t cap, struct gpz_lz_seg *seg)
{
	size_t pos = s, n = 0;
	seg->n = 0;
	seg->exit = s;
	while (pos < t) {
		pos = gpz_lz_step(f, pos, end, cfg, tok, &n, cap, src);
		if (pos == GPZ_LZ_ABORT)
			break;
		seg->n = n;
		seg->exit = pos;
	}
}

/* Does a lazy parse in a clean state at pos find no match there (gpz_lz_step's first find and
 * its rule for far 3-byte matches)? Then the literal it emits for pos leaves it clean again. */
GPZ_HD static inline int gpz_lz_matchless(const struct gpz_lz_finder *f, size_t pos,
                                          const struct gpz_lz_level *cfg)
{
	unsigned dist, len = gpz_lz_find(f, pos, cfg, 0, &dist);
	return len == 0 || (len == GPZ_LZ_MIN_MATCH && dist > GPZ_LZ_TOO_FAR);
}

/* The true parse of [start, end) given the specs of its segments (segment k: spec tokens at
 * spec + k * stride, state seg[k]). Tokens it parses itself go to out; the spec tokens it takes
 * over are left to gpz_lz_copy (seg[k].copy_*). Returns the piece's token count. */
GPZ_HD static inline size_t gpz_lz_fixup(struct gpz_lz_finder *f, const uint8_t *src,
                                         size_t start, size_t end, size_t S,
                                         const struct gpz_lz_level *cfg, const uint32_t *spec,
                                         size_t stride, struct gpz_lz_seg *seg, uint32_t *out)
{
	size_t pos = start, n = 0, nseg = (end - start + S - 1) / S;
	for (size_t k = 0; k < nseg; k++) {
		const size_t s = start + k * S, t = end - s < S ? end : s + S;
		const uint32_t *st = spec + k * stride;
		size_t j = 0, sp = s; /* the spec's clean state at or after pos: token j, position sp */
		int clean = 1;        /* the spec is in a clean state at sp (it begins in one) */
		seg[k].copy_n = 0;
		while (pos < t) {
			while ((sp < pos || !clean) && j < seg[k].n) { /* the spec's next clean state */
				uint32_t tk = st[j++];
				if (tk & GPZ_TOK_MATCH) {
					sp += ((tk >> 16) & 0xff) + 3;
					clean = 1;
				} else {
					/* lazy: a literal leaves the parse clean only if it was clean before it
					 * and found no match at its position (none deferred) */
					clean = !cfg->lazy_parse || (clean && gpz_lz_matchless(f, sp, cfg));
					sp++;
				}
			}
			if (sp == pos && clean && j < seg[k].n) { /* met: the rest of the spec is the parse */
				seg[k].copy_dst = n;
				seg[k].copy_src = j;
				seg[k].copy_n = seg[k].n - j;
				n += seg[k].n - j;
				pos = sp = seg[k].exit;
				j = seg[k].n;
				continue;
			}
			pos = gpz_lz_step(f, pos, end, cfg, out, &n, (size_t)-1, src);
		}
	}
	return n;
}

/* Segment k's share of gpz_lz_fixup's output. */
GPZ_HD static inline void gpz_lz_copy(const uint32_t *spec, const struct gpz_lz_seg *seg,
                                      uint32_t *out, size_t from, size_t step)
{
	for (size_t i = from; i < seg->copy_n; i += step)
		out[seg->copy_dst + i] = spec[seg->copy_src + i];
}

/* Parse src[start .. m->end) into tok (end - start entries), with the window before start as
 * history. m->head must be all GPZ_LZ_NIL; m->src and m->end set (m->prev needs no
 * initialisation: a slot is written before it is read). Returns the token count (0 when
 * end <= start). */
GPZ_HD static inline size_t gpz_lz_core_parse(struct gpz_lz_matcher *m, size_t start, int level,
                                              uint32_t *tok)
{
	struct gpz_lz_finder f;
	f.m = m;
	f.pure = NULL;
	f.base = 0;
	f.end = m->end;
	f.stride = 2;
	if (m->end <= start)
		return 0;
	m->hash_bytes = gpz_lz_level_cfg(level).hash_bytes;
	m->hash_bits = gpz_lz_level_cfg(level).hash_bits;
	/* history: the window before start feeds the chains */
	for (size_t p = start > GPZ_LZ_WINDOW ? start - GPZ_LZ_WINDOW : 0; p < start; p++)
		gpz_lz_insert(m, p);
	return gpz_lz_core_run(&f, m->src, start, m->end, level, tok);
}

/* ---- position-pure matches (what the GPU computes for every position at once) ---- */

/* Both matches at pos (full chain, quarter chain) for a lazy level, the full one for a greedy
 * level, into out[0..1]; links as gpz_lz_walk's GPU form. Positions below `floor` are not
 * history (an independent piece's start; 0 for none): the chain is cut there, as a matcher that
 * began at floor would have it. */
GPZ_HD static inline void gpz_lz_pure_at(const uint8_t *src, const uint16_t *links, size_t loff,
                                         size_t pos, size_t end, size_t floor,
                                         const struct gpz_lz_level *cfg, uint32_t *out)
{
	unsigned dist, len;
	uint32_t quarter = 0; /* a pointer that may be NULL kept it in local memory */
	size_t reach = pos - floor < GPZ_LZ_WINDOW ? pos - floor : GPZ_LZ_WINDOW;
	/* snap ~0: never reached, so the walk records no quarter where none is read */
	len = gpz_lz_walk(src, links, (size_t)-1, loff, pos, end, reach, cfg->hash_bytes, cfg->chain,
	                  cfg->nice, 0, gpz_lz_wants_quarter(cfg) ? cfg->chain >> 2 : ~0u, &quarter,
	                  &dist);
	out[0] = gpz_lz_pack(len, dist);
	out[1] = gpz_lz_wants_quarter(cfg) ? quarter : 0;
}

/* Every 8th position of a piece (from its start) is an anchor and walks its chain. A position k
 * = 1..7 past its anchor whose anchor's full-chain match reaches at least `skip` bytes past it
 * takes that match, k bytes shorter at the same distance, and the anchor's quarter-chain match
 * likewise where it still reaches 3 bytes (else none): inside long matches, where a walk is
 * the costliest (every candidate compares far), the parse loses little. anchor: the anchor's
 * two matches. Returns 1 when out[0..1] got them, 0 when the position walks. */
GPZ_HD static inline int gpz_lz_inherit(const uint32_t *anchor, unsigned k, unsigned skip,
                                        uint32_t *out)
{
	const unsigned la = anchor[0] >> 16, lq = anchor[1] >> 16;
	if (!skip || la < k + skip)
		return 0;
	out[0] = gpz_lz_pack(la - k, anchor[0] & 0xffff);
	out[1] = lq >= k + GPZ_LZ_MIN_MATCH ? gpz_lz_pack(lq - k, anchor[1] & 0xffff) : 0;
	return 1;
}

/* The GPU's chain links done the plain way: links[q - lo] = gpz_lz_link of q for q in [lo, hi)
 * with every position from lo on inserted (0 where q + cfg->hash_bytes > n: no hash there).
 * head: 1 << cfg->hash_bits entries, overwritten. */
GPZ_HD static inline void gpz_lz_links_ref(const uint8_t *src, size_t lo, size_t hi, size_t n,
                                           const struct gpz_lz_level *cfg, uint32_t *head,
                                           uint16_t *links)
{
	for (size_t h = 0; h < (size_t)1 << cfg->hash_bits; h++)
		head[h] = GPZ_LZ_NIL;
	for (size_t q = lo; q < hi; q++) {
		if (q + cfg->hash_bytes > n) {
			links[q - lo] = 0;
			continue;
		}
		uint32_t h = gpz_lz_hash(src + q, n - q, cfg->hash_bytes, cfg->hash_bits);
		links[q - lo] = gpz_lz_link(q - lo, head[h]);
		head[h] = (uint32_t)(q - lo);
	}
}

#endif
