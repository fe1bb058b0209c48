/* matcher_probe.c - candidate definitions for a GPU-first DEFLATE match finder (issue 13),
 * measured on the CPU before any kernel is written: the size of the DEFLATE they give (the
 * project's block writer over 256 KiB pieces with 32 KiB of history, as gzip output is cut) and
 * the matcher's own time on one thread.
 *
 * Every candidate here is parse-independent, the property that lets a GPU find all candidates
 * at once (the current levels already are: every position enters the hash chains):
 *   stride S H   a table of the last position per hash of H bytes (every position enters);
 *                a match is looked for only at multiples of S, then extended backwards (as
 *                far as the previous token allows) and forwards; greedy.
 *                S = 1 is the plain greedy hash-table matcher. For level 1.
 *   bucket B H L every position enters a bucket of its B most recent positions per hash of H
 *                bytes; the longest of the B candidates wins (the nearest on ties); greedy
 *                (L = 0) or lazy (L = 1: a literal first when the next position matches longer).
 *                For levels 4-9.
 * Built against the library's internals:
 *   cc -O2 -Iinclude -Isrc bench/probe/matcher_probe.c build/libgpz.a -lpthread -lz -lxxhash \
 *      -o /tmp/matcher_probe
 * Usage: matcher_probe FILE stride S H | bucket B H L | level N   (level: the current gpz_lz_parse)
 * Prints: bytes in, bytes of DEFLATE, matcher seconds (one thread). */
#include "deflate/deflate.h"
#include "lz/dfl_symbols.h"
#include "lz/lz.h"
#include "probe_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW 32768u
#define MAXM 258u
#define HBITS 16

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint32_t hash(const uint8_t *p, int h)
{
	uint64_t v;
	memcpy(&v, p, 8);
	v &= h >= 8 ? ~0ull : (1ull << (8 * h)) - 1;
	return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> (64 - HBITS));
}

static unsigned extend(const uint8_t *s, size_t a, size_t b, size_t max)
{
	unsigned l = 0;
	while (l < max && s[a + l] == s[b + l])
		l++;
	return l;
}

/* ---- stride S: level 1 ---- */
static size_t parse_stride(const uint8_t *s, size_t lo, size_t start, size_t end, int S, int H,
                           uint32_t *tab, uint32_t *tok)
{
	size_t n = 0, pos = start, j = (start + S - 1) / S * S, ins = lo;
	while (pos < end) {
		size_t best_at = 0, best_c = 0;
		unsigned best = 0;
		for (; j + 8 <= end; j += S) {
			for (; ins < j; ins++) /* every position enters; only stride ones look */
				tab[hash(s + ins, H)] = (uint32_t)ins + 1;
			uint32_t h = hash(s + j, H), c = tab[h];
			tab[h] = (uint32_t)j + 1;
			ins = j + 1;
			if (!c || c - 1 < lo || j - (c - 1) > WINDOW || j < pos)
				continue;
			size_t cp = c - 1;
			unsigned f = extend(s, cp, j, end - j < MAXM ? end - j : MAXM);
			if (f < 4)
				continue;
			size_t a = j, ca = cp; /* backwards, not past pos nor the window */
			while (a > pos && ca > lo && s[a - 1] == s[ca - 1] && (j - a) + f < MAXM)
				a--, ca--;
			best_at = a;
			best_c = ca;
			best = (unsigned)(j - a) + f;
			j += S;
			break;
		}
		if (!best) { /* literals to the end */
			while (pos < end)
				tok[n++] = gpz_tok_literal(s[pos++]);
			break;
		}
		while (pos < best_at)
			tok[n++] = gpz_tok_literal(s[pos++]);
		tok[n++] = gpz_tok_match(best, (unsigned)(best_at - best_c));
		pos += best;
		while (j < pos) /* stride positions the match covers look no further */
			j += S;
	}
	return n;
}

/* ---- bucket B: levels 4-9 ---- */
struct bucket_state {
	int B, H;
	uint32_t *tab; /* 2^HBITS x B, most recent first, position + 1 */
};

static void insert(struct bucket_state *b, const uint8_t *s, size_t i)
{
	uint32_t *e = b->tab + (size_t)hash(s + i, b->H) * (size_t)b->B;
	memmove(e + 1, e, (size_t)(b->B - 1) * sizeof(*e));
	e[0] = (uint32_t)i + 1;
}

/* The longest match at i among its bucket's candidates (before inserting i). */
static unsigned best_at(struct bucket_state *b, const uint8_t *s, size_t lo, size_t i,
                        size_t end, unsigned *dist)
{
	const uint32_t *e = b->tab + (size_t)hash(s + i, b->H) * (size_t)b->B;
	unsigned best = 0;
	size_t max = end - i < MAXM ? end - i : MAXM;
	for (int k = 0; k < b->B && e[k]; k++) {
		size_t c = e[k] - 1;
		if (c < lo || i - c > WINDOW)
			break;
		unsigned l = extend(s, c, i, max);
		if (l > best) {
			best = l;
			*dist = (unsigned)(i - c);
		}
	}
	return best >= 3 ? best : 0;
}

/* The match at k with the table holding every position before k (entered on the way, so the
 * candidates do not depend on the parse; the CPU asks only where its parse stands). */
static unsigned match_at(struct bucket_state *b, const uint8_t *s, size_t lo, size_t *ins,
                         size_t k, size_t end, unsigned *dist)
{
	for (; *ins < k; (*ins)++)
		if (*ins + 8 <= end)
			insert(b, s, *ins);
	return k + 8 <= end ? best_at(b, s, lo, k, end, dist) : 0;
}

static size_t parse_bucket(const uint8_t *s, size_t lo, size_t start, size_t end, int lazy,
                           struct bucket_state *b, uint32_t *tok)
{
	size_t n = 0, i = start, ins = lo;
	unsigned d = 0, l = match_at(b, s, lo, &ins, i, end, &d);
	while (i < end) {
		unsigned d2 = 0, l2 = 0;
		if (l && lazy && i + 1 < end)
			l2 = match_at(b, s, lo, &ins, i + 1, end, &d2);
		if (l && l2 > l) { /* a literal, then the longer match */
			tok[n++] = gpz_tok_literal(s[i++]);
			l = l2;
			d = d2;
			continue;
		}
		if (l) {
			tok[n++] = gpz_tok_match(l, d);
			i += l;
		} else {
			tok[n++] = gpz_tok_literal(s[i++]);
		}
		if (i < end)
			l = match_at(b, s, lo, &ins, i, end, &d);
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: matcher_probe FILE stride S H | bucket B H L | level N\n");
		return 1;
	}
	size_t n;
	uint8_t *s = probe_read(argv[1], &n);
	if (!s)
		return 1;
	const char *kind = argv[2];
	int a = atoi(argv[3]), h = argc > 4 ? atoi(argv[4]) : 4, lz = argc > 5 ? atoi(argv[5]) : 0;
	uint32_t *tok = malloc(GPZ_DEFLATE_PIECE * sizeof(*tok));
	uint32_t *tab = NULL;
	struct bucket_state b = { a, h, NULL };
	if (!strcmp(kind, "stride"))
		tab = calloc((size_t)1 << HBITS, sizeof(*tab));
	if (!strcmp(kind, "bucket"))
		b.tab = calloc(((size_t)1 << HBITS) * (size_t)a, sizeof(*b.tab));
	size_t cap = gpz_deflate_piece_cap(GPZ_DEFLATE_PIECE), out = 0;
	uint8_t *buf = malloc(cap);
	double t_match = 0;
	for (size_t p = 0; p < n; p += GPZ_DEFLATE_PIECE) {
		size_t end = n - p < GPZ_DEFLATE_PIECE ? n : p + GPZ_DEFLATE_PIECE;
		size_t lo = p > WINDOW ? p - WINDOW : 0, nt;
		double t0 = now();
		if (tab) {
			memset(tab, 0, ((size_t)1 << HBITS) * sizeof(*tab)); /* a piece starts afresh */
			nt = parse_stride(s, lo, p, end, a, h, tab, tok);
		} else if (b.tab) {
			memset(b.tab, 0, ((size_t)1 << HBITS) * (size_t)a * sizeof(*b.tab));
			nt = parse_bucket(s, lo, p, end, lz, &b, tok);
		} else {
			nt = gpz_lz_parse(s + lo, p - lo, end - lo, a, tok);
		}
		t_match += now() - t0;
		struct gpz_bitw bw;
		struct gpz_dfl_unit *u = malloc((gpz_dfl_units(nt) + 1) * sizeof(*u));
		if (!u)
			return 3;
		gpz_dfl_count_units(tok, nt, u); /* the blocks are cut at units (block_core.h) */
		gpz_bitw_init(&bw, buf, cap);
		if (gpz_deflate_blocks(&bw, s, p, end - p, tok, nt, u, end == n) != GPZ_OK ||
		    bw.overflow)
			return 3;
		free(u);
		gpz_bitw_finish(&bw);
		out += (size_t)(bw.p - buf);
	}
	printf("%s %s %d %d %d: %zu -> %zu (%.4f), matcher %.3f s\n", argv[1], kind, a, h, lz, n, out,
	       (double)n / (double)out, t_match);
	return 0;
}
