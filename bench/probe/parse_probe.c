/* parse_probe.c - a cost-driven parse over position-pure matches (issue 13's levels 7-9),
 * measured on the CPU before any kernel is written: the DEFLATE size it gives through the
 * project's block writer (256 KiB pieces, 32 KiB of history, as gzip output is cut).
 *
 * The matches are the GPU's kind: every position's longest match (and the quarter chain's) from
 * a level's chains, found before any parse. The parse is a shortest path over the piece: a
 * literal costs its code length, a match of length l (any l from 3 to the match found, same
 * distance) its length and distance codes' lengths plus extra bits (src/lz/dp_core.h's costs);
 * the code lengths come from a first parse's symbol counts (the lazy parse of the level whose chains are used), then from
 * the shortest path's own counts for `iters` more rounds. Segments of seg positions are parsed
 * apart (matches cut at a segment's end), as a GPU thread a segment would.
 *
 * Built against the library's internals:
 *   cc -O2 -Iinclude -Isrc bench/probe/parse_probe.c build-cpu/libgpz.a -lpthread -lz -lxxhash \
 *      -o /tmp/parse_probe
 * Usage: parse_probe FILE LEVEL ITERS SEG_LOG [QUARTER]   (ITERS 0: the lazy parse itself)
 * Prints: bytes in, bytes of DEFLATE. */
#include "deflate/block_core.h"
#include "deflate/deflate.h"
#include "lz/dfl_symbols.h"
#include "lz/lz.h"
#include "lz/match_core.h"
#include "lz/dp_core.h"
#include "probe_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest path over [a, b) of the piece (positions relative to pure's base p). */
static size_t dp(const uint8_t *s, size_t p, size_t a, size_t b, const uint32_t *pure,
                 unsigned stride, int quarter, const struct gpz_lz_costs *c, uint32_t *cost,
                 uint32_t *from, uint32_t *tok)
{
	size_t m = b - a;
	for (size_t i = 0; i <= m; i++)
		cost[i] = 0xffffffffu;
	cost[0] = 0;
	for (size_t i = 0; i < m; i++) {
		uint32_t ci = cost[i];
		uint32_t lc = ci + c->lit[s[p + a + i]];
		if (lc < cost[i + 1]) {
			cost[i + 1] = lc;
			from[i + 1] = 0;
		}
		for (int q = 0; q <= quarter; q++) {
			uint32_t r = pure[stride * (a + i) + (unsigned)q];
			unsigned L = r >> 16, D = r & 0xffff;
			if (L < 3 || !D)
				continue;
			if (L > m - i)
				L = (unsigned)(m - i);
			for (unsigned l = 3; l <= L; l++) {
				uint32_t v = ci + c->len[l] + c->dist[gpz_dfl_dist_code(D)];
				if (v < cost[i + l]) {
					cost[i + l] = v;
					from[i + l] = l << 16 | D;
				}
			}
		}
	}
	/* back from the end, then forwards */
	size_t n = 0, i = m;
	while (i > 0) {
		uint32_t f = from[i];
		tok[n++] = f;
		i -= f ? f >> 16 : 1;
	}
	for (size_t k = 0; k < n / 2; k++) {
		uint32_t t = tok[k];
		tok[k] = tok[n - 1 - k];
		tok[n - 1 - k] = t;
	}
	size_t pos = p + a;
	for (size_t k = 0; k < n; k++) {
		uint32_t f = tok[k];
		if (f) {
			tok[k] = gpz_tok_match(f >> 16, f & 0xffff);
			pos += f >> 16;
		} else {
			tok[k] = gpz_tok_literal(s[pos++]);
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: parse_probe FILE LEVEL ITERS SEG_LOG [QUARTER]\n");
		return 1;
	}
	size_t n;
	uint8_t *s = probe_read(argv[1], &n);
	if (!s)
		return 1;
	int level = atoi(argv[2]), iters = atoi(argv[3]), seg_log = atoi(argv[4]);
	int quarter = argc > 5 ? atoi(argv[5]) : 0;
	struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	size_t P = GPZ_DEFLATE_PIECE, W = GPZ_LZ_WINDOW;
	uint32_t *tok = malloc((P + 1) * sizeof(*tok)), *tok2 = malloc((P + 1) * sizeof(*tok2));
	uint32_t *pure = malloc(2 * P * sizeof(*pure)), *head = malloc(sizeof(uint32_t) << 16);
	uint32_t *cost = malloc((P + 1) * sizeof(*cost)), *from = malloc((P + 1) * sizeof(*from));
	uint16_t *links = malloc((P + W) * sizeof(*links));
	size_t cap = gpz_deflate_piece_cap(P), out = 0;
	uint8_t *buf = malloc(cap);
	struct gpz_dfl_unit *units = malloc(gpz_dfl_units(P + 1) * sizeof(*units));
	for (size_t p = 0; p < n; p += P) {
		size_t end = n - p < P ? n : p + P, lo = p > W ? p - W : 0, nt;
		nt = gpz_lz_parse(s + lo, p - lo, end - lo, level, tok);
		if (iters > 0) {
			gpz_lz_links_ref(s, lo, end, end, &cfg, head, links);
			for (size_t i = p; i < end; i++)
				gpz_lz_pure_at(s, links, lo, i, end, 0, &cfg, pure + 2 * (i - p));
			size_t seg = seg_log ? (size_t)1 << seg_log : P;
			for (int it = 0; it < iters; it++) {
				uint32_t lf[GPZ_DFL_NLIT], df[GPZ_DFL_NDIST];
				struct gpz_lz_costs c;
				struct gpz_dfl_huff h;
				gpz_lz_dp_count(tok, nt, lf, df);
				gpz_lz_dp_costs(lf, df, &c, &h);
				size_t m = 0;
				for (size_t a = 0; a < end - p; a += seg) {
					size_t b = a + seg < end - p ? a + seg : end - p;
					m += dp(s, p, a, b, pure, 2, quarter && cfg.lazy_parse, &c, cost, from,
					        tok2 + m);
				}
				memcpy(tok, tok2, m * sizeof(*tok));
				nt = m;
			}
		}
		struct gpz_bitw bw;
		gpz_bitw_init(&bw, buf, cap);
		gpz_dfl_count_units(tok, nt, units);
		if (gpz_deflate_blocks(&bw, s, p, end - p, tok, nt, units, end == n) != GPZ_OK ||
		    bw.overflow)
			return 3;
		gpz_bitw_finish(&bw);
		out += (size_t)(bw.p - buf);
	}
	printf("%s level %d iters %d seg %d quarter %d: %zu -> %zu\n", argv[1], level, iters, seg_log,
	       quarter, n, out);
	return 0;
}
