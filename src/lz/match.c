/* match.c - LZ77 match finding over DEFLATE's 32 KiB window with hash chains, CPU reference.
 *
 * The matcher itself (level table, hash chains, greedy and lazy parsing) lives in match_core.h,
 * shared with the GPU stage in match.cu so both give the same tokens; this file allocates the
 * matcher and runs it, and runs the GPU's way of getting the same tokens on the CPU
 * (gpz_lz_parse_pure) so that tests can hold the two ways against each other without a GPU. */
#include "lz/lz.h"
#include "lz/dfl_symbols.h"
#include "lz/match_core.h"
#include "lz/dp_core.h"

#include <stdlib.h>
#include <string.h>

/* Level 1's hash of the bytes at p (avail of them readable). Level 1's functions below use its
 * constants rather than a level's table entry: known to the compiler, its mask and shift cost
 * no instructions (0.95x the parse's time of reading them from the entry). */
static inline uint32_t l1_hash(const uint8_t *p, size_t avail)
{
	return gpz_lz_hash(p, avail, GPZ_LZ_L1_HASH_BYTES, GPZ_LZ_L1_HASH_BITS);
}

/* Position p enters level 1's table (when it has a hash). */
static inline void enter(uint32_t *head, const uint8_t *src, size_t p, size_t end)
{
	if (p + GPZ_LZ_L1_HASH_BYTES <= end)
		head[l1_hash(src + p, end - p)] = (uint32_t)p;
}

/* Positions [from, to) enter the table: where 8 bytes can be read at each (all but the last
 * few of an input) without the per-position checks, the hash taking its one-load path. */
static inline void enter_run(uint32_t *head, const uint8_t *src, size_t from, size_t to,
                             size_t end)
{
	size_t wide = end >= 8 ? end - 7 : 0; /* positions below it have 8 bytes */
	size_t p = from;

	for (size_t stop = to < wide ? to : wide; p < stop; p++)
		head[l1_hash(src + p, 8)] = (uint32_t)p;
	for (; p < to; p++)
		enter(head, src, p, end);
}

/* A match's DEFLATE symbols, counted as the parse emits it (a literal's is its byte). */
static inline void count_match(struct gpz_dfl_freqs *f, unsigned len, unsigned dist)
{
	f->lf[257 + gpz_dfl_len_code(len)]++;
	f->df[gpz_dfl_dist_code(dist)]++;
}

/* Level 1's table, and the counts of the unit being parsed beside it: the wide parse then
 * reaches both from one base register (its loop has none to spare for a pointer to the unit). */
struct l1_state {
	uint32_t head[(size_t)1 << GPZ_LZ_L1_HASH_BITS];
	struct gpz_dfl_freqs f;
};

#if GPZ_LZ_WORD_COMPARE
/* A position's first 8 bytes, hash and the head entry it replaced when it entered. */
struct look {
	uint64_t s8;
	uint32_t h;
	size_t cand;
};

/* Position p enters, where 8 bytes can be read at it: its candidate is what it replaced. */
static inline struct look look_enter(uint32_t *head, const uint8_t *src, size_t p)
{
	struct look l;
	l.s8 = gpz_lz_load64(src + p);
	l.h = l1_hash(src + p, 8);
	l.cand = head[l.h];
	head[l.h] = (uint32_t)p;
	return l;
}

/* The positions pos + 2 .. pos + len - 1 of a match shorter than 8 enter (pos + 1 has), where 8
 * bytes can be read at pos + 6: always five stores, the last position repeated (entering it
 * again changes nothing), so that no loop exit is mispredicted. */
static inline void enter_short(uint32_t *head, const uint8_t *src, size_t pos, unsigned len)
{
	for (unsigned k = 2; k < 7; k++) {
		size_t q = pos + (k < len - 1 ? k : len - 1);
		head[l1_hash(src + q, 8)] = (uint32_t)q;
	}
}

/* Where parse_wide's tokens from t at pos (< stop) must stop: at tend, or after stop - pos of
 * them, the most that literals alone can take before pos reaches stop. A literal then tests one
 * bound instead of two (a match moves pos further, and the bound is taken again). */
static inline uint32_t *bound(uint32_t *t, uint32_t *tend, size_t pos, size_t stop)
{
	return (size_t)(tend - t) < stop - pos ? tend : t + (stop - pos);
}

/*
 * parse_one's tokens from pos while 16 bytes can be read past it, up to the nstop-th token
 * (counted into f). Returns the position reached. The literal/match branch is what costs: after
 * each mispredict, the next decision waits on a chain of loads (bytes, head, candidate). So:
 * - the candidate's first 8 bytes are loaded whatever (the position's own when there is none in
 *   the window, marked unequal): one unpredictable branch a literal instead of three (none, too
 *   far, too short), 0.86x the parse's time on debtext100m;
 * - the next position enters (and so is looked up) before the branch: it enters whatever the
 *   branch decides, as the literal after this one or as the match's first inner position, and a
 *   literal resumes with its loads done; a short match's positions enter without a loop, and
 *   tokens go through a pointer (fewer registers spilled): together 0.91x the parse's time.
 */
static size_t parse_wide(const uint8_t *src, size_t pos, size_t end, struct l1_state *l1,
                         uint32_t *tok, size_t *np, size_t nstop)
{
	uint32_t *head = l1->head;
	struct gpz_dfl_freqs *f = &l1->f;
	size_t stop = end >= 16 ? end - 16 : 0;
	uint32_t *t = tok + *np, *tend = tok + nstop, *lim;
	struct look at;

	if (pos >= stop)
		return pos;
	at = look_enter(head, src, pos);
	lim = bound(t, tend, pos, stop);
	while (t < lim) {
		size_t dist = pos - at.cand, far = dist > GPZ_LZ_WINDOW;
		const uint8_t *c = src + (far ? pos : at.cand);
		uint64_t x = (gpz_lz_load64(c) ^ at.s8) | far; /* x's zero low bytes: the equal ones */
		struct look next = look_enter(head, src, pos + 1);
		if (x & 0xffffff) {
			*t++ = gpz_lz_core_literal((uint8_t)at.s8);
			f->lf[(uint8_t)at.s8]++;
			pos++;
			at = next;
			continue;
		}
		unsigned len;
		if (x) {
			len = gpz_lz_ctz64(x) >> 3;
			enter_short(head, src, pos, len);
		} else {
			unsigned maxlen = end - pos < GPZ_LZ_MAX_MATCH ? (unsigned)(end - pos)
			                                               : GPZ_LZ_MAX_MATCH;
			len = 8 + gpz_lz_match_len(c + 8, src + pos + 8, maxlen - 8);
			enter_run(head, src, pos + 2, pos + len, end);
		}
		*t++ = gpz_lz_core_match(len, (unsigned)dist);
		count_match(f, len, (unsigned)dist);
		pos += len;
		if (pos >= stop)
			goto out;
		at = look_enter(head, src, pos);
		lim = bound(t, tend, pos, stop);
	}
	head[at.h] = (uint32_t)at.cand; /* pos entered but is not parsed here: undone */
out:
	*np = (size_t)(t - tok);
	return pos;
}
#endif

/* parse_one's tokens from pos on, up to the end or the nstop-th token, the general way (near the
 * end, or where words cannot be compared). Returns the position reached. */
static size_t parse_tail(const uint8_t *src, size_t pos, size_t end, uint32_t *head,
                         uint32_t *tok, size_t *np, size_t nstop, struct gpz_dfl_freqs *f)
{
	size_t n = *np;

	while (pos < end && n < nstop) {
		size_t avail = end - pos;
		unsigned maxlen = avail < GPZ_LZ_MAX_MATCH ? (unsigned)avail : GPZ_LZ_MAX_MATCH, len = 0;
		uint32_t cand = GPZ_LZ_NIL;
		if (avail >= GPZ_LZ_L1_HASH_BYTES) {
			uint32_t h = l1_hash(src + pos, avail);
			cand = head[h];
			head[h] = (uint32_t)pos;
		}
		if (cand != GPZ_LZ_NIL && pos - cand <= GPZ_LZ_WINDOW && maxlen >= GPZ_LZ_MIN_MATCH)
			len = gpz_lz_match_len(src + cand, src + pos, maxlen);
		if (len < GPZ_LZ_MIN_MATCH) {
			f->lf[src[pos]]++;
			tok[n++] = gpz_lz_core_literal(src[pos++]);
			continue;
		}
		tok[n++] = gpz_lz_core_match(len, (unsigned)(pos - cand));
		count_match(f, len, (unsigned)(pos - cand));
		enter_run(head, src, pos + 1, pos + len, end);
		pos += len;
	}
	*np = n;
	return pos;
}

/*
 * gpz_lz_core_parse at a greedy level with one candidate a position (level 1), unrolled: no
 * chain ring (one link is all a walk reads), the link taken from the head as each position
 * enters. The same tokens as the general parse (test_lz holds gpz_lz_parse to the position-pure
 * walk at every level): the candidate is the latest earlier position with the same hash within
 * the window, a match needs 3 equal bytes, a position less than hash_bytes before the end has
 * neither hash nor match, and every position of a match enters the table. Each unit's symbols
 * are counted as its tokens are emitted, where the literal/match branch is taken anyway: the
 * block writer's own pass over the tokens mispredicts it again (gzip -1 on debtext100m: 0.91x
 * the time). Positions [enter, start) enter the table first (the window, or what a carried
 * table lacks of it).
 */
static size_t parse_one(const uint8_t *src, size_t enter, size_t start, size_t end,
                        struct l1_state *l1, uint32_t *tok, struct gpz_dfl_unit *u)
{
	size_t n = 0, pos = start;

	enter_run(l1->head, src, enter, start, end); /* those before start not in the table yet */
	for (; pos < end; u++) {
		size_t from = pos, nstop = n + GPZ_DFL_UNIT_TOKENS;
		gpz_dfl_zero_freqs(&l1->f);
#if GPZ_LZ_WORD_COMPARE
		pos = parse_wide(src, pos, end, l1, tok, &n, nstop);
#endif
		pos = parse_tail(src, pos, end, l1->head, tok, &n, nstop, &l1->f);
		u->f = l1->f;
		u->bytes = (uint32_t)(pos - from);
	}
	return n;
}

struct gpz_lz_carry {
	const uint8_t *src; /* the last parse's input (NULL: none yet) */
	size_t end;         /* and where it ended */
	struct l1_state l1;
};

struct gpz_lz_carry *gpz_lz_carry_new(void)
{
	struct gpz_lz_carry *c = malloc(sizeof(*c));
	if (c)
		c->src = NULL;
	return c;
}

void gpz_lz_carry_free(struct gpz_lz_carry *c)
{
	free(c);
}

/* The parse of the one level with one candidate, greedy (level 1, whose hash GPZ_LZ_L1_HASH_*
 * is), in c's table when c is given. Where the parse before ended at start in the same src, the
 * table holds every position before it that had a hash there (the latest of each hash); those
 * further back than the window are no candidates, as none would be. So only the last few
 * positions, which had too few bytes left to hash, enter: the same tokens as a table filled
 * from the window before start. */
static size_t parse_level1(const uint8_t *src, size_t start, size_t end, uint32_t *tok,
                           struct gpz_dfl_unit *u, struct gpz_lz_carry *c)
{
	struct l1_state *l1 = c ? &c->l1 : malloc(sizeof(*l1));
	size_t n, from = start > GPZ_LZ_WINDOW ? start - GPZ_LZ_WINDOW : 0;

	if (!l1)
		return 0;
	if (c && c->src == src && c->end == start) {
		size_t nohash = start >= GPZ_LZ_L1_HASH_BYTES - 1 ? start - (GPZ_LZ_L1_HASH_BYTES - 1)
		                                                  : 0;
		from = nohash > from ? nohash : from;
	} else {
		memset(l1->head, 0xff, sizeof(l1->head));
	}
	n = parse_one(src, from, start, end, l1, tok, u);
	if (c) {
		c->src = src;
		c->end = end;
	} else {
		free(l1);
	}
	return n;
}

/* ---- levels 4-6: lazy, chains of a 4-byte hash walked in full ----
 *
 * gzip's shortcuts are off at these levels (good, lazy and nice at 258), so a walk is its chain's
 * first `chain` candidates in the window, stopping only at a match as long as the input allows.
 * The parse below is gpz_lz_step's lazy one with the level's constants compiled in. Its ring
 * holds the same links as gpz_lz_link, but a position with none in the window gets LINK_NONE
 * (past the window) instead of 0: the walk then tests one bound a step, not three. */
#define LINK_NONE 0xffffu

/* gpz_lz_hash of 4 bytes to GPZ_LZ_HASH_BITS bits, from one 4-byte load. */
static inline uint32_t hash4(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return (uint32_t)(((uint64_t)v * 0x9e3779b97f4a7c15ull) >> (64 - GPZ_LZ_HASH_BITS));
}

/* Position p, with 4 bytes at it, enters the chains. */
static inline void enter4(struct gpz_lz_matcher *m, size_t p)
{
	uint32_t h = hash4(m->src + p), head = m->head[h];
	m->prev[p & GPZ_LZ_WMASK] = head != GPZ_LZ_NIL && p - head <= GPZ_LZ_WINDOW
	                                ? (uint16_t)(p - head) : LINK_NONE;
	m->head[h] = (uint32_t)p;
}

/* Positions [from, to) enter, those with 4 bytes at them. */
static inline void enter4_run(struct gpz_lz_matcher *m, size_t from, size_t to)
{
	size_t last = m->end >= 4 ? m->end - 3 : 0; /* positions below it have a hash */
	for (size_t p = from; p < to && p < last; p++)
		enter4(m, p);
}

/* gpz_lz_walk at pos (entered, with 4 bytes) for a level of these: the longest match longer than
 * best (>= 2) among `chain` candidates, at most maxlen (>= best + 1) long. The one ring slot that
 * is not its candidate's, at exactly the window's distance, is pos's own: its link (>= 1) leaves
 * the window, where gpz_lz_walk stops too. */
static inline unsigned walk4(const struct gpz_lz_matcher *m, size_t pos, unsigned best,
                             unsigned maxlen, unsigned chain, unsigned *dist)
{
	const uint8_t *s = m->src + pos;
	ptrdiff_t lo = (ptrdiff_t)pos - GPZ_LZ_WINDOW, q = (ptrdiff_t)pos - m->prev[pos & GPZ_LZ_WMASK];
	unsigned bd = 0;

	for (unsigned steps = chain; steps && q >= lo; steps--) {
		const uint8_t *c = m->src + q;
		if (gpz_lz_may_beat(c, s, best)) {
			unsigned len = gpz_lz_match_len(c, s, maxlen);
			if (len > best) {
				best = len;
				bd = (unsigned)(pos - (size_t)q);
				if (len >= maxlen)
					break;
			}
		}
		q -= m->prev[q & GPZ_LZ_WMASK];
	}
	*dist = bd;
	return bd ? best : 0;
}

/* The match at pos longer than prev_len (gpz_lz_find at these levels). */
static inline unsigned find4(const struct gpz_lz_matcher *m, size_t pos, unsigned prev_len,
                             unsigned chain, unsigned *dist)
{
	size_t avail = m->end - pos;
	unsigned maxlen = avail < GPZ_LZ_MAX_MATCH ? (unsigned)avail : GPZ_LZ_MAX_MATCH;
	*dist = 0;
	if (maxlen < 4 || prev_len >= maxlen)
		return 0; /* no hash, or nothing longer fits */
	return walk4(m, pos, prev_len > 2 ? prev_len : 2, maxlen, chain, dist);
}

/* Tokens as they are emitted, each unit's symbols counted on the way (the block writer's
 * counting pass over the tokens, gpz_dfl_count_units, is then not needed): the next token goes
 * to t, the current unit u ends at token `stop` and began at input position `from`. */
struct emit {
	uint32_t *t, *stop;
	struct gpz_dfl_unit *u;
	size_t from;
};

/* Makes room in the current unit for a token at position pos: at its stop, a new unit. */
static inline struct gpz_dfl_freqs *unit_at(struct emit *e, size_t pos)
{
	if (e->t == e->stop) {
		e->u->bytes = (uint32_t)(pos - e->from);
		e->u++;
		gpz_dfl_zero_freqs(&e->u->f);
		e->from = pos;
		e->stop += GPZ_DFL_UNIT_TOKENS;
	}
	return &e->u->f;
}

static inline void emit_literal(struct emit *e, size_t pos, uint8_t b)
{
	unit_at(e, pos)->lf[b]++;
	*e->t++ = gpz_lz_core_literal(b);
}

static inline void emit_match(struct emit *e, size_t pos, unsigned len, unsigned dist)
{
	count_match(unit_at(e, pos), len, dist);
	*e->t++ = gpz_lz_core_match(len, dist);
}

/* gpz_lz_core_parse at a level of these (chain candidates a walk), counting each unit's symbols
 * into u (gpz_dfl_units(tokens) of them) as it goes. */
static inline size_t parse_lazy4(struct gpz_lz_matcher *m, size_t start, unsigned chain,
                                 uint32_t *tok, struct gpz_dfl_unit *u)
{
	const uint8_t *src = m->src;
	size_t end = m->end, pos = start, last = end >= 4 ? end - 3 : 0;
	struct emit e = { tok, tok + GPZ_DFL_UNIT_TOKENS, u, start };

	gpz_dfl_zero_freqs(&u->f);
	enter4_run(m, start > GPZ_LZ_WINDOW ? start - GPZ_LZ_WINDOW : 0, start);
	while (pos < end) { /* a clean state: nothing deferred */
		unsigned dist, len = 0;
		if (pos < last) {
			enter4(m, pos);
			len = find4(m, pos, 0, chain, &dist);
			if (len == GPZ_LZ_MIN_MATCH && dist > GPZ_LZ_TOO_FAR)
				len = 0; /* a 3-byte match this far away costs more bits than 3 literals */
		}
		/* the match at pos is deferred while the one at pos + 1 is longer */
		while (len >= GPZ_LZ_MIN_MATCH && pos + 1 < end) {
			unsigned d1, len1 = 0;
			if (pos + 1 < last) {
				enter4(m, pos + 1);
				if (len < GPZ_LZ_MAX_MATCH)
					len1 = find4(m, pos + 1, len, chain, &d1);
			}
			if (!len1)
				break;
			emit_literal(&e, pos, src[pos]);
			pos++;
			len = len1;
			dist = d1;
		}
		if (len < GPZ_LZ_MIN_MATCH || pos + 1 >= end) {
			emit_literal(&e, pos, src[pos]);
			pos++;
			continue;
		}
		emit_match(&e, pos, len, dist);
		enter4_run(m, pos + 2, pos + len);
		pos += len;
	}
	e.u->bytes = (uint32_t)(end - e.from);
	return (size_t)(e.t - tok);
}

/* Whether a level is one of these. */
static int lazy4_level(const struct gpz_lz_level *c)
{
	return c->lazy_parse && c->hash_bytes == 4 && c->hash_bits == GPZ_LZ_HASH_BITS &&
	       c->good == GPZ_LZ_MAX_MATCH && c->lazy == GPZ_LZ_MAX_MATCH &&
	       c->nice == GPZ_LZ_MAX_MATCH;
}

/* parse_lazy4 of src[start .. end) with the level's chain known to the compiler (0 when out of
 * memory). */
static size_t parse_lazy(const uint8_t *src, size_t start, size_t end, unsigned chain,
                         uint32_t *tok, struct gpz_dfl_unit *u)
{
	struct gpz_lz_matcher *m = malloc(sizeof(*m));
	size_t n;

	if (!m)
		return 0;
	m->src = src;
	m->end = end;
	memset(m->head, 0xff, sizeof(m->head));
	switch (chain) {
	case 8: n = parse_lazy4(m, start, 8, tok, u); break;
	case 16: n = parse_lazy4(m, start, 16, tok, u); break;
	case 32: n = parse_lazy4(m, start, 32, tok, u); break;
	default: n = parse_lazy4(m, start, chain, tok, u); break;
	}
	free(m);
	return n;
}

/* The levels whose parse counts the symbols as it goes (level 1, levels 4-6) and that parse. */
static int counts_itself(const struct gpz_lz_level *c)
{
	return (c->chain == 1 && !c->lazy_parse) || lazy4_level(c);
}

static size_t parse_counting(const uint8_t *src, size_t start, size_t end,
                             const struct gpz_lz_level *c, uint32_t *tok, struct gpz_dfl_unit *u,
                             struct gpz_lz_carry *carry)
{
	return c->lazy_parse ? parse_lazy(src, start, end, c->chain, tok, u)
	                     : parse_level1(src, start, end, tok, u, carry);
}

size_t gpz_lz_parse_counted(const uint8_t *src, size_t start, size_t end, int level,
                            uint32_t *tokens, struct gpz_dfl_unit *units,
                            struct gpz_lz_carry *carry)
{
	const struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	size_t n;

	if (end <= start)
		return 0;
	if (counts_itself(&cfg) && !cfg.dp_rounds)
		return parse_counting(src, start, end, &cfg, tokens, units, carry);
	n = gpz_lz_parse(src, start, end, level, tokens);
	gpz_dfl_count_units(tokens, n, units);
	return n;
}

size_t gpz_lz_parse(const uint8_t *src, size_t start, size_t end, int level, uint32_t *tokens)
{
	const struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	struct gpz_lz_matcher *m;
	size_t n;

	if (end <= start)
		return 0;
	if (cfg.dp_rounds) /* its matches are wanted at every position anyway */
		return gpz_lz_parse_pure(src, start, end, level, tokens);
	if (counts_itself(&cfg)) { /* the counts go to scratch */
		struct gpz_dfl_unit *u = malloc(gpz_dfl_units(end - start) * sizeof(*u));
		n = u ? parse_counting(src, start, end, &cfg, tokens, u, NULL) : 0;
		free(u);
		return n;
	}
	m = malloc(sizeof(*m));
	if (!m)
		return 0;
	m->src = src;
	m->end = end;
	memset(m->head, 0xff, sizeof(m->head));
	n = gpz_lz_core_parse(m, start, level, tokens);
	free(m);
	return n;
}

/* Every position's matches (full and quarter chain) for [start, end), as the GPU finds them. */
static uint32_t *pure_matches(const uint8_t *src, size_t start, size_t end,
                              const struct gpz_lz_level *cfg)
{
	size_t lo = start > GPZ_LZ_WINDOW ? start - GPZ_LZ_WINDOW : 0;
	uint32_t *head = malloc(GPZ_LZ_HASH_SIZE * sizeof(*head));
	uint16_t *links = malloc((end - lo + 1) * sizeof(*links));
	uint32_t *pure = malloc(2 * (end - start + 1) * sizeof(*pure));

	if (head && links && pure) {
		gpz_lz_links_ref(src, lo, end, end, cfg, head, links);
		for (size_t p = start; p < end; p++) {
			const size_t k = (p - start) & 7; /* past its anchor (gpz_lz_inherit) */
			if (!k || !gpz_lz_inherit(pure + 2 * (p - k - start), (unsigned)k, cfg->skip,
			                          pure + 2 * (p - start)))
				gpz_lz_pure_at(src, links, lo, p, end, 0, cfg, pure + 2 * (p - start));
		}
	} else {
		free(pure);
		pure = NULL;
	}
	free(head);
	free(links);
	return pure;
}

/* A level's rounds of the cost-driven parse (dp_core.h) after its lazy parse tok[0 .. n) of
 * [start, end), over pure (pure_matches). Returns the final token count, 0 when out of memory. */
static size_t dp_rounds(const uint8_t *src, size_t start, size_t end,
                        const struct gpz_lz_level *cfg, const uint32_t *pure, uint32_t *tok,
                        size_t n)
{
	struct gpz_dfl_huff *h = malloc(sizeof(*h));
	uint16_t *cost = malloc((GPZ_LZ_DP_SEG + 1) * sizeof(*cost));
	uint8_t *opt = malloc(GPZ_LZ_DP_SEG);
	const struct gpz_lz_dp_out o = { cost, opt, 1, 16 };

	if (!h || !cost || !opt)
		n = 0;
	for (unsigned r = 0; n && r < cfg->dp_rounds; r++) {
		uint32_t lf[GPZ_DFL_NLIT], df[GPZ_DFL_NDIST];
		struct gpz_lz_costs c;
		gpz_lz_dp_count(tok, n, lf, df);
		gpz_lz_dp_costs(lf, df, &c, h);
		n = 0; /* a segment's tokens never pass its end: they overwrite spent ones only */
		for (size_t s = start; s < end; s += GPZ_LZ_DP_SEG) {
			size_t t = end - s < GPZ_LZ_DP_SEG ? end : s + GPZ_LZ_DP_SEG;
			n += gpz_lz_dp_segment(src, pure, 2, cfg->lazy_parse, start, s, t, &c, &o,
			                       tok + n);
		}
	}
	free(h);
	free(cost);
	free(opt);
	return n;
}

size_t gpz_lz_parse_segments(const uint8_t *src, size_t start, size_t end, int level,
                             size_t seg_size, size_t cap, uint32_t *tokens)
{
	struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	size_t nseg = seg_size ? (end - start + seg_size - 1) / seg_size : 0, n = 0;
	uint32_t *pure = end > start && seg_size ? pure_matches(src, start, end, &cfg) : NULL;
	uint32_t *spec = pure ? malloc((nseg * cap + 1) * sizeof(*spec)) : NULL;
	struct gpz_lz_seg *seg = spec ? malloc(nseg * sizeof(*seg)) : NULL;

	if (seg) {
		struct gpz_lz_finder f = {NULL, pure, start, end, 2};
		if (!gpz_lz_wants_quarter(&cfg)) { /* as the GPU keeps them: the full chain's only */
			for (size_t i = 0; i < end - start; i++)
				pure[i] = pure[2 * i];
			f.stride = 1;
		}
		for (size_t k = 0; k < nseg; k++) { /* the GPU runs these in parallel */
			size_t s = start + k * seg_size, t = end - s < seg_size ? end : s + seg_size;
			gpz_lz_spec(&f, src, s, t, end, &cfg, spec + k * cap, cap, &seg[k]);
		}
		n = gpz_lz_fixup(&f, src, start, end, seg_size, &cfg, spec, cap, seg, tokens);
		for (size_t k = 0; k < nseg; k++)
			gpz_lz_copy(spec + k * cap, &seg[k], tokens, 0, 1);
		if (cfg.dp_rounds)
			n = dp_rounds(src, start, end, &cfg, pure, tokens, n);
	}
	free(pure);
	free(spec);
	free(seg);
	return n;
}

size_t gpz_lz_parse_rounds(const uint8_t *src, size_t start, size_t end, int level,
                           unsigned rounds, uint32_t *tokens)
{
	struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	uint32_t *pure = end > start ? pure_matches(src, start, end, &cfg) : NULL;
	size_t n = 0;

	if (pure) {
		struct gpz_lz_finder f = {NULL, pure, start, end, 2};
		n = gpz_lz_core_run(&f, src, start, end, level, tokens);
		cfg.dp_rounds = rounds < cfg.dp_rounds ? rounds : cfg.dp_rounds;
		if (cfg.dp_rounds)
			n = dp_rounds(src, start, end, &cfg, pure, tokens, n);
	}
	free(pure);
	return n;
}

size_t gpz_lz_parse_pure(const uint8_t *src, size_t start, size_t end, int level,
                         uint32_t *tokens)
{
	return gpz_lz_parse_rounds(src, start, end, level, ~0u, tokens);
}

size_t gpz_lz_clean_marks(const uint8_t *src, size_t start, size_t end, int level,
                          const uint32_t *tok, size_t nt, uint8_t *clean)
{
	struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	uint32_t *pure = end > start ? pure_matches(src, start, end, &cfg) : NULL;
	size_t sp = start, i = 0;
	int c = 1;

	if (!pure)
		return 0;
	struct gpz_lz_finder f = {NULL, pure, start, end, 2};
	clean[0] = 1;
	for (; i < nt && sp < end; i++) { /* gpz_lz_fixup's rule, token by token */
		if (tok[i] & GPZ_TOK_MATCH) {
			sp += gpz_tok_len(tok[i]);
			c = 1;
		} else {
			c = !cfg.lazy_parse || (c && gpz_lz_matchless(&f, sp, &cfg));
			sp++;
		}
		clean[i + 1] = (uint8_t)c;
	}
	free(pure);
	return i;
}
