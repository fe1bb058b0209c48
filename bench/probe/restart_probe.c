/* restart_probe.c - what would it cost level 1 (and 2-3) to restart the parse at fixed
 * boundaries (issue 13)? On the GPU the greedy parse of a piece is guessed per segment and then
 * fixed up in order (match.cu: spec_greedy_kernel, fixup_kernel: one thread a piece), because
 * a match may run over a segment's start. If the level were defined so that the parse restarts
 * at every K-th byte (a match stops at the segment's end; the next segment parses from its own
 * first byte, with the window before it), every segment would parse on its own, with no fix-up.
 *
 * For each K this parses every 256 KiB piece (gzip's pieces at levels 1-3 are alone: no window
 * before them) in segments of K with gpz_lz_parse, and prices the tokens as a Huffman code per
 * piece would (the entropy of the piece's literal/length and distance symbols, plus extra bits):
 * an estimate of the DEFLATE size, compared with K = the piece (today's parse).
 *
 * Build (after the CPU build in build-gpu or build):
 *   cc -O2 -Iinclude -Isrc bench/probe/restart_probe.c build-gpu/libgpz.a -lz -lm -lpthread \
 *      -lstdc++ -L/usr/local/cuda/targets/x86_64-linux/lib -lcudart_static -ldl -lrt \
 *      -o restart_probe
 * Usage: restart_probe LEVEL FILE... */
#include "lz/lz.h"
#include "lz/dfl_symbols.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE ((size_t)256 << 10)

/* Bits of a piece's tokens under a code fitted to them (entropy) plus their extra bits. */
static double price(const uint32_t *tok, size_t n)
{
	static const unsigned len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
		                                    2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
	static const unsigned dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
		                                     6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };
	double lf[286] = { 0 }, df[30] = { 0 }, extra = 0, bits = 0, nl = 0, nd = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(tok[i] & GPZ_TOK_MATCH)) {
			lf[tok[i] & 0xff]++;
			continue;
		}
		unsigned lc = gpz_dfl_len_code(gpz_tok_len(tok[i])), dc = gpz_dfl_dist_code(gpz_tok_dist(tok[i]));
		lf[257 + lc]++;
		df[dc]++;
		extra += len_extra[lc] + dist_extra[dc];
	}
	lf[256]++; /* end of block */
	for (int s = 0; s < 286; s++)
		nl += lf[s];
	for (int s = 0; s < 30; s++)
		nd += df[s];
	for (int s = 0; s < 286; s++)
		if (lf[s])
			bits += lf[s] * log2(nl / lf[s]);
	for (int s = 0; s < 30; s++)
		if (df[s])
			bits += df[s] * log2(nd / df[s]);
	return bits + extra;
}

/* The estimated bits of the whole input parsed in pieces, each in segments of k bytes. */
static double parse_all(const uint8_t *src, size_t size, int level, size_t k, uint32_t *tok)
{
	double bits = 0;
	for (size_t p = 0; p < size; p += PIECE) {
		size_t pn = size - p < PIECE ? size - p : PIECE, n = 0;
		for (size_t s = 0; s < pn; s += k) {
			size_t e = s + k < pn ? s + k : pn;
			n += gpz_lz_parse(src + p, s, e, level, tok + n);
		}
		bits += price(tok, n);
	}
	return bits;
}

int main(int argc, char **argv)
{
	static const size_t ks[] = { PIECE, 65536, 16384, 8192, 4096, 2048 };
	int level = argc > 1 ? atoi(argv[1]) : 1;
	if (argc < 3) {
		fprintf(stderr, "usage: restart_probe LEVEL FILE...\n");
		return 2;
	}
	printf("level %d, 256 KiB pieces alone; estimated bytes, and against the parse of whole pieces\n",
	       level);
	printf("%-24s", "file");
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
		printf(" %14zu", ks[i]);
	printf("\n");
	for (int f = 2; f < argc; f++) {
		FILE *in = fopen(argv[f], "rb");
		if (!in) {
			perror(argv[f]);
			return 1;
		}
		fseek(in, 0, SEEK_END);
		size_t size = (size_t)ftell(in);
		fseek(in, 0, SEEK_SET);
		uint8_t *src = malloc(size + 16);
		uint32_t *tok = malloc((PIECE + 16) * sizeof(uint32_t));
		if (!src || !tok || fread(src, 1, size, in) != size)
			return 1;
		fclose(in);
		const char *name = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
		double base = 0;
		printf("%-24s", name);
		for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
			double b = parse_all(src, size, level, ks[i], tok) / 8;
			if (i == 0) {
				base = b;
				printf(" %14.0f", b);
			} else {
				printf("  %+12.3f%%", 100 * (b - base) / base);
			}
		}
		printf("\n");
		free(src);
		free(tok);
	}
	return 0;
}
