/* test_lz.c - the LZ77 match stage: the CPU's parse (gpz_lz_parse, chains walked as the parse
 * goes) against the GPU's way (gpz_lz_parse_pure: every position's matches first, then the same
 * parse over them), token for token, at every level, and the GPU's parse in segments
 * (gpz_lz_parse_segments: guessed segments fixed up, with various segment sizes and caps); and
 * every token list rebuilds its input. The parse that counts DEFLATE symbols as it goes
 * (gpz_lz_parse_counted) is held to the same tokens and to the block writer's own counts.
 * The fix-up's clean states are also held to parses begun there (clean_claims). The cost-driven
 * parse of levels 7-9 (dp_core.h) is held to an exhaustive search on small segments
 * (`test_lz dp`) and, on every input, to costing no more than the lazy parse it starts from.
 * `test_lz edge` runs generated inputs, `test_lz corpora` the first 2 MiB of each corpus file
 * (parsed from 1 MiB on, so the first MiB is history). */
#include "lz/lz.h"
#include "deflate/block_core.h"
#include "lz/dp_core.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long cases;

/* Does tok[0 .. nt) rebuild src[start .. end) with src[0 .. start) as history? */
static int rebuilds(const uint8_t *src, size_t start, size_t end, const uint32_t *tok, size_t nt)
{
	size_t pos = start;
	for (size_t i = 0; i < nt; i++) {
		if (!(tok[i] & GPZ_TOK_MATCH)) {
			if (pos >= end || src[pos] != (tok[i] & 0xff) || tok[i] > 0xff)
				return 0;
			pos++;
			continue;
		}
		size_t len = gpz_tok_len(tok[i]), dist = gpz_tok_dist(tok[i]);
		if (len > GPZ_LZ_MAX_MATCH || dist > pos || pos - dist < (start > GPZ_LZ_WINDOW ?
		                                                             start - GPZ_LZ_WINDOW : 0) ||
		    end - pos < len)
			return 0;
		for (size_t k = 0; k < len; k++)
			if (src[pos + k] != src[pos + k - dist])
				return 0;
		pos += len;
	}
	return pos == end;
}

/* The fix-up's clean states (gpz_lz_clean_marks) at a lazy level are claims that a parse begun
 * there, with what comes before as history, goes on exactly as the whole parse a[0 .. na) does.
 * Checks a spread of them, literal boundaries (the subtle rule) first: a fresh parse of the
 * next 8 KiB, compared token for token up to where its end could have changed a token. */
static void clean_claims(const uint8_t *src, size_t start, size_t end, int l, const uint32_t *a,
                         size_t na, const char *what)
{
	enum { WIN = 8192, PICK = 12 };
	uint8_t *clean = malloc(na + 1);
	size_t *pos = malloc((na + 1) * sizeof(*pos)), *lit = malloc(na * sizeof(*lit));
	size_t *mat = malloc(na * sizeof(*mat)), nl = 0, nm = 0, pick[2 * PICK], np = 0;
	uint32_t *b = malloc(WIN * sizeof(*b));

	CHECK(clean && pos && lit && mat && b &&
	      gpz_lz_clean_marks(src, start, end, l, a, na, clean) == na,
	      "%s level %d: clean marks", what, l);
	if (!clean || !pos || !lit || !mat || !b || test_failures)
		goto out;
	pos[0] = start;
	for (size_t i = 0; i < na; i++)
		pos[i + 1] = pos[i] + (a[i] & GPZ_TOK_MATCH ? gpz_tok_len(a[i]) : 1);
	for (size_t i = 1; i < na; i++) /* clean boundaries after a literal, after a match */
		if (clean[i] && (a[i - 1] & GPZ_TOK_MATCH))
			mat[nm++] = i;
		else if (clean[i])
			lit[nl++] = i;
	for (size_t k = 0; k < PICK && k < nl; k++) /* spread over each kind */
		pick[np++] = lit[k * nl / (nl < PICK ? nl : PICK)];
	for (size_t k = 0; k < PICK && k < nm; k++)
		pick[np++] = mat[k * nm / (nm < PICK ? nm : PICK)];
	for (size_t k = 0; k < np; k++) {
		size_t i = pick[k], p = pos[i], e = end - p < WIN ? end : p + WIN;
		size_t nb = gpz_lz_parse(src, p, e, l, b);
		cases++;
		for (size_t j = 0; j < nb && i + j < na; j++) {
			if (e < end && pos[i + j] + GPZ_LZ_MAX_MATCH + 2 > e)
				break; /* from here the cut at e may change the tokens */
			if (b[j] != a[i + j]) {
				CHECK(0, "%s level %d: a parse begun at %zu (token %zu, claimed clean) "
				      "differs at its token %zu: %08x vs %08x", what, l, p, i, j, b[j],
				      a[i + j]);
				goto out;
			}
		}
	}
out:
	free(clean);
	free(pos);
	free(lit);
	free(mat);
	free(b);
}

/* gpz_lz_parse_counted gives the tokens a[0 .. na) and, unit by unit, gpz_dfl_count_units'
 * counts and bytes of them. */
static void counted(const uint8_t *src, size_t start, size_t end, int l, const uint32_t *a,
                    size_t na, const char *what)
{
	size_t nu = gpz_dfl_units(end - start) + 1;
	uint32_t *b = malloc((end - start + 1) * sizeof(*b));
	struct gpz_dfl_unit *u = malloc(nu * sizeof(*u)), *v = malloc(nu * sizeof(*v));
	size_t nb = b && u && v ? gpz_lz_parse_counted(src, start, end, l, b, u, NULL) : 0;

	cases++;
	CHECK(nb == na && (na == 0 || !memcmp(a, b, na * sizeof(*a))),
	      "%s [%zu, %zu) level %d: counted parse %zu tokens, not %zu", what, start, end, l, nb,
	      na);
	if (nb == na && v) {
		gpz_dfl_count_units(a, na, v);
		for (size_t k = 0; k < gpz_dfl_units(na); k++)
			CHECK(u[k].bytes == v[k].bytes && !memcmp(&u[k].f, &v[k].f, sizeof(u[k].f)),
			      "%s [%zu, %zu) level %d: unit %zu's counts", what, start, end, l, k);
	}
	free(b);
	free(u);
	free(v);
}

/* Level 1's parse of [start, end) in three consecutive parts with one carried table gives each
 * part the tokens and counts of its parse with a table of its own. */
static void carried(const uint8_t *src, size_t start, size_t end, const char *what)
{
	size_t cut[4] = {start, start + (end - start) / 3, start + 2 * (end - start) / 3, end};
	size_t nu = gpz_dfl_units(end - start) + 1;
	uint32_t *a = malloc((end - start + 1) * sizeof(*a)), *b = malloc((end - start + 1) * sizeof(*b));
	struct gpz_dfl_unit *u = malloc(nu * sizeof(*u)), *v = malloc(nu * sizeof(*v));
	struct gpz_lz_carry *c = gpz_lz_carry_new();

	for (int k = 0; k < 3 && a && b && u && v && c; k++) {
		size_t s = cut[k], e = cut[k + 1];
		size_t na = gpz_lz_parse_counted(src, s, e, 1, a, u, NULL);
		size_t nb = gpz_lz_parse_counted(src, s, e, 1, b, v, c);
		int ok = na == nb && (na == 0 || !memcmp(a, b, na * sizeof(*a)));
		for (size_t i = 0; ok && i < gpz_dfl_units(na); i++)
			ok = u[i].bytes == v[i].bytes && !memcmp(&u[i].f, &v[i].f, sizeof(u[i].f));
		cases++;
		CHECK(ok, "%s [%zu, %zu) level 1: carried table, %zu tokens, not %zu", what, s, e, nb,
		      na);
	}
	gpz_lz_carry_free(c);
	free(a);
	free(b);
	free(u);
	free(v);
}

/* The bits tok[0 .. nt) costs under c (dp_core.h's model). */
static uint64_t tokens_cost(const uint32_t *tok, size_t nt, const struct gpz_lz_costs *c)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < nt; i++)
		sum += tok[i] & GPZ_TOK_MATCH
		               ? c->len[gpz_tok_len(tok[i])] +
		                         c->dist[gpz_dfl_dist_code(gpz_tok_dist(tok[i]))]
		               : c->lit[tok[i] & 0xff];
	return sum;
}

/* A cost-driven level's last round costs no more than the parse it starts from (its rounds but
 * one; none: the lazy parse), under the costs of that parse's counts, with that parse's matches
 * cut at the segment ends (the rest of a cut match as literals): every option such a parse
 * takes is one the shortest path weighs. dp[0 .. nd): the level's tokens. */
static void dp_no_worse(const uint8_t *src, size_t start, size_t end, int l, const uint32_t *dp,
                        size_t nd, const char *what)
{
	size_t cap = end - start + 1;
	uint32_t *prev = malloc(cap * sizeof(*prev)), *cut = malloc(cap * sizeof(*cut));
	struct gpz_dfl_huff *h = malloc(sizeof(*h));
	if (!prev || !cut || !h || end <= start)
		goto out;
	size_t np = gpz_lz_parse_rounds(src, start, end, l, gpz_lz_level_cfg(l).dp_rounds - 1, prev);
	size_t nc = 0, pos = start;
	for (size_t i = 0; i < np; i++) {
		uint32_t t = prev[i];
		size_t seg_end = start + ((pos - start) / GPZ_LZ_DP_SEG + 1) * GPZ_LZ_DP_SEG;
		if (!(t & GPZ_TOK_MATCH)) {
			cut[nc++] = t;
			pos++;
			continue;
		}
		size_t len = gpz_tok_len(t), keep = len;
		if (pos + len > seg_end)
			keep = seg_end - pos >= GPZ_LZ_MIN_MATCH ? seg_end - pos : 0;
		if (keep)
			cut[nc++] = gpz_tok_match((unsigned)keep, gpz_tok_dist(t));
		for (size_t k = keep; k < len; k++)
			cut[nc++] = gpz_tok_literal(src[pos + k]);
		pos += len;
	}
	uint32_t lf[GPZ_DFL_NLIT], df[GPZ_DFL_NDIST];
	struct gpz_lz_costs c;
	gpz_lz_dp_count(prev, np, lf, df);
	gpz_lz_dp_costs(lf, df, &c, h);
	uint64_t got = tokens_cost(dp, nd, &c), before = tokens_cost(cut, nc, &c);
	cases++;
	CHECK(got <= before, "%s [%zu, %zu) level %d: the last round costs %llu bits, its start %llu",
	      what, start, end, l, (unsigned long long)got, (unsigned long long)before);
out:
	free(prev);
	free(cut);
	free(h);
}

/* May a parse of positions [k, m) take the match r (gpz_lz_pack) at k at length l? dp_core.h's
 * options: lengths 3 .. min(L, cap), and L itself, L = the match's length cut at m. */
static int dp_option(uint32_t r, unsigned k, unsigned m, unsigned l)
{
	unsigned len = r >> 16;
	if (len > m - k)
		len = m - k;
	return len >= GPZ_LZ_MIN_MATCH && l >= GPZ_LZ_MIN_MATCH &&
	       (l == len || (l <= len && l <= GPZ_LZ_DP_LMAX));
}

/* The least cost of a parse of positions [k, m), by recursion over every option at k (each
 * position's least cost kept once found in memo[], all ~0 at first). */
static uint64_t dp_brute(const uint8_t *src, const uint32_t *pure, unsigned k, unsigned m,
                         const struct gpz_lz_costs *c, uint64_t *memo)
{
	if (k == m)
		return 0;
	if (memo[k] != ~0ull)
		return memo[k];
	uint64_t best = c->lit[src[k]] + dp_brute(src, pure, k + 1, m, c, memo);
	for (int q = 0; q < 2; q++)
		for (unsigned l = GPZ_LZ_MIN_MATCH; k + l <= m; l++)
			if (dp_option(pure[2 * k + q], k, m, l) &&
			    !(q && (pure[2 * k] & 0xffff) == (pure[2 * k + 1] & 0xffff))) {
				uint64_t v = c->len[l] + c->dist[gpz_dfl_dist_code(pure[2 * k + q] & 0xffff)] +
				             dp_brute(src, pure, k + l, m, c, memo);
				best = v < best ? v : best;
			}
	return memo[k] = best;
}

/* gpz_lz_dp_segment against dp_brute on random small segments, costs and matches (the parse
 * looks at the matches alone, so they need not be true ones); its tokens must be options. */
static void dp_exhaustive(void)
{
	uint64_t seed = 0x5eed;
	uint8_t src[24];
	uint32_t pure[48], tok[25];
	uint16_t cost[3 * 25];
	uint8_t opt[2 * 32];
	struct gpz_lz_costs c;
	for (int trial = 0; trial < 3000; trial++) {
		unsigned m = 1 + (unsigned)(test_rand(&seed) % 24);
		for (unsigned i = 0; i < sizeof(c.lit); i++)
			c.lit[i] = (uint8_t)(1 + test_rand(&seed) % 12);
		for (unsigned i = 0; i < sizeof(c.len); i++)
			c.len[i] = (uint8_t)(1 + test_rand(&seed) % 12);
		for (unsigned i = 0; i < sizeof(c.dist); i++)
			c.dist[i] = (uint8_t)(1 + test_rand(&seed) % 12);
		for (unsigned k = 0; k < m; k++) {
			src[k] = (uint8_t)test_rand(&seed);
			for (int q = 0; q < 2; q++) {
				uint64_t r = test_rand(&seed);
				unsigned len = r % 3 ? 3 + (unsigned)(r >> 8) % 30 : 0;
				/* distances from a few, so that the two chains' are often the same */
				pure[2 * k + q] = gpz_lz_pack(len, 1 + (unsigned)(r >> 20) % (r & 8 ? 3 : 32768));
			}
		}
		/* costs at a stride of 3 and option chunks at 32, as a GPU warp's threads keep
		 * theirs (at 32 and 512) */
		const struct gpz_lz_dp_out o = { cost, opt, 3, 32 };
		size_t n = gpz_lz_dp_segment(src, pure, 2, 1, 0, 0, m, &c, &o, tok);
		uint64_t memo[24], got = 0, want;
		memset(memo, 0xff, sizeof(memo));
		want = dp_brute(src, pure, 0, m, &c, memo);
		unsigned k = 0;
		int valid = 1;
		for (size_t i = 0; i < n && valid; i++) {
			if (!(tok[i] & GPZ_TOK_MATCH)) {
				valid = k < m && tok[i] == src[k];
				got += c.lit[src[k++]];
				continue;
			}
			unsigned l = gpz_tok_len(tok[i]), d = gpz_tok_dist(tok[i]), ok = 0;
			for (int q = 0; q < 2 && k < m; q++)
				ok |= d == (pure[2 * k + q] & 0xffff) && dp_option(pure[2 * k + q], k, m, l);
			valid = ok && k + l <= m;
			got += c.len[l] + c.dist[gpz_dfl_dist_code(d)];
			k += l;
		}
		cases++;
		CHECK(valid && k == m && got == want,
		      "dp trial %d (%u positions): %zu tokens cost %llu, least %llu, valid %d", trial, m,
		      n, (unsigned long long)got, (unsigned long long)want, valid);
	}
}

static void same(const uint8_t *src, size_t start, size_t end, const char *what)
{
	size_t cap = end - start + 1;
	uint32_t *a = malloc(cap * sizeof(*a)), *b = malloc(cap * sizeof(*b));
	for (int l = 1; l <= 9; l++) {
		size_t na = gpz_lz_parse(src, start, end, l, a);
		size_t nb = gpz_lz_parse_pure(src, start, end, l, b);
		cases++;
		CHECK(na == nb && (na == 0 || !memcmp(a, b, na * sizeof(*a))),
		      "%s [%zu, %zu) level %d: %zu tokens, pure %zu", what, start, end, l, na, nb);
		CHECK(rebuilds(src, start, end, a, na), "%s [%zu, %zu) level %d: tokens do not rebuild",
		      what, start, end, l);
		if (l == 1 || l == 6)
			counted(src, start, end, l, a, na, what);
		if (l == 1)
			carried(src, start, end, what);
		if (l >= 4 && l <= 6 && na > 1) /* lazy levels whose parse is the lazy one */
			clean_claims(src, start, end, l, a, na, what);
		if (l >= 7)
			dp_no_worse(src, start, end, l, a, na, what);
		if (na != nb || (na && memcmp(a, b, na * sizeof(*a)))) {
			for (size_t i = 0; i < na && i < nb; i++)
				if (a[i] != b[i]) {
					fprintf(stderr, "  first difference at token %zu: %08x vs %08x\n", i,
					        a[i], b[i]);
					break;
				}
		}
		/* the parse in segments: the GPU's (1 MiB pieces in 16 Ki segments, 17 Ki tokens
		 * each) at every level, smaller ones (some with caps that cut most guesses short) at a
		 * greedy and a lazy level */
		static const size_t segs[][2] = {{16384, 17408}, {1, 1}, {7, 3}, {1000, 250}};
		for (size_t k = 0; k < sizeof(segs) / sizeof(segs[0]); k++) {
			if (k && l != 1 && l != 6)
				continue;
			size_t ns = gpz_lz_parse_segments(src, start, end, l, segs[k][0], segs[k][1], b);
			CHECK(ns == na && (na == 0 || !memcmp(a, b, na * sizeof(*a))),
			      "%s [%zu, %zu) level %d: segments of %zu (cap %zu): %zu tokens, not %zu",
			      what, start, end, l, segs[k][0], segs[k][1], ns, na);
		}
	}
	free(a);
	free(b);
}

/* n bytes: kind 0 random, 1 few symbols, 2 runs, 3 words, 4 a random block repeated with the
 * given period (matches exactly at or beyond the window edge). */
static uint8_t *make(int kind, size_t n, size_t period, uint64_t *seed)
{
	uint8_t *v = malloc(n + 1);
	static const char *words[] = {"the ", "of ", "and ", "compress", "ion ", "gpu ", "a",
	                              "deflate ", "\n", "window ", "ing ", "e", "th"};
	for (size_t i = 0; i < n;) {
		uint64_t r = test_rand(seed);
		if (kind == 0) {
			v[i++] = (uint8_t)(r >> 24);
		} else if (kind == 1) {
			v[i++] = (uint8_t)('a' + (r >> 40) % 3);
		} else if (kind == 2) {
			size_t len = 1 + (r >> 20) % ((r & 7) ? 40 : 2000);
			uint8_t b = (uint8_t)(r >> 50);
			for (size_t k = 0; k < len && i < n; k++)
				v[i++] = b;
		} else if (kind == 3) {
			const char *w = words[(r >> 33) % 13];
			for (size_t k = 0; w[k] && i < n; k++)
				v[i++] = (uint8_t)w[k];
		} else {
			v[i] = i < period ? (uint8_t)(r >> 24) : v[i - period];
			i++;
		}
	}
	return v;
}

/* Levels 7-9's shortcut inside long matches (gpz_lz_inherit): which positions take their
 * anchor's matches, shortened, and which walk. Levels 1-6 must not use it: their CPU parse
 * walks chains only where it goes, with no anchors at hand. */
static void inherit_rule(void)
{
	const uint32_t anchor[2] = { gpz_lz_pack(40, 100), gpz_lz_pack(9, 50) };
	uint32_t out[2] = { 1, 1 };
	cases++;
	CHECK(gpz_lz_inherit(anchor, 3, 32, out) && out[0] == gpz_lz_pack(37, 100) &&
	              out[1] == gpz_lz_pack(6, 50),
	      "inherit k 3: %08x %08x", out[0], out[1]);
	CHECK(gpz_lz_inherit(anchor, 7, 32, out) && out[0] == gpz_lz_pack(33, 100) && out[1] == 0,
	      "inherit k 7 (the quarter match falls below 3): %08x %08x", out[0], out[1]);
	CHECK(!gpz_lz_inherit(anchor, 7, 34, out) && !gpz_lz_inherit(anchor, 1, 0, out),
	      "a match that does not reach skip bytes past, or skip 0, walks");
	const uint32_t none[2] = { 0, 0 };
	CHECK(!gpz_lz_inherit(none, 1, 32, out), "no anchor match: the position walks");
	for (int l = 1; l <= 9; l++) {
		struct gpz_lz_level c = gpz_lz_level_cfg(l);
		CHECK(c.dp_rounds ? c.skip >= GPZ_LZ_MIN_MATCH && c.lazy_parse : c.skip == 0,
		      "level %d: skip %u with %u rounds", l, c.skip, c.dp_rounds);
	}
}

static void edge(void)
{
	uint64_t seed = 0x1234abcd;
	static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 9, 258, 259, 261, 4097, 32767, 32768, 32769,
	                               70001};
	char what[64];
	dp_exhaustive();
	inherit_rule();
	for (int kind = 0; kind < 4; kind++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i];
			uint8_t *v = make(kind, n + 40000, 0, &seed);
			snprintf(what, sizeof(what), "kind %d n %zu", kind, n);
			same(v, 0, n, what);
			same(v, 40000, 40000 + n, what); /* with a full window of history */
			free(v);
		}
	static const size_t periods[] = {32767, 32768, 32769, 40000};
	for (size_t i = 0; i < 4; i++) {
		uint8_t *v = make(4, 150000, periods[i], &seed);
		snprintf(what, sizeof(what), "period %zu", periods[i]);
		same(v, 0, 150000, what);
		same(v, 33000, 150000, what);
		free(v);
	}
}

static void corpus_file(const char *path, void *unused)
{
	size_t n;
	uint8_t *src = test_read_file(path, &n);
	(void)unused;
	if (!src)
		return;
	size_t start = n > (2u << 20) ? 1u << 20 : n / 2, end = n > (2u << 20) ? 2u << 20 : n;
	same(src, start, end, path);
	free(src);
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "edge";
	if (!strcmp(which, "edge")) {
		edge();
	} else {
		const char *shared = test_corpora_dir();
		char path[4096];
		if (!shared) {
			printf("SKIP: shared corpora absent\n");
			return TEST_SKIP;
		}
		const char *sets[] = {"canterbury", "calgary", "canterbury-artificial",
		                      "canterbury-large", "silesia"};
		for (int i = 0; i < 5; i++) {
			snprintf(path, sizeof(path), "%s/%s", shared, sets[i]);
			test_for_each_file(path, corpus_file, NULL);
		}
	}
	if (test_failures)
		fprintf(stderr, "%d failures in %ld cases\n", test_failures, cases);
	else
		printf("lz %s: %ld cases, all checks passed\n", which, cases);
	return test_failures != 0;
}
