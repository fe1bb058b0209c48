/* window_reach.c - how far into a piece the unknown window reaches (issue 11): each piece of
 * gpz-written gzip decoded without the 32 KiB before it (markers: 256 + w for byte w of that
 * window), and for each, where its last marker is. The GPU decoder writes every piece as 16-bit
 * symbols and its bytes pass reads them all (2 bytes in, 1 out a byte: ~1.3 ms a GiB on an H100,
 * a tenth of the call); if markers end early in most pieces, the decoder could write bytes past a
 * point and the bytes pass touch only what comes before it. That point, known while decoding:
 * no marker can appear past the last one written + 32 KiB (a copy reaches back at most 32 KiB),
 * nor past 32 KiB without one before it ("online" below; "last" is the last marker itself).
 *
 *   cc -O2 -Iinclude -Isrc bench/probe/window_reach.c build-cpu/libgpz.a -lpthread -lz \
 *      -lxxhash -lm -o /tmp/window_reach
 * Usage: window_reach FILE LEVEL   (WINDOW_REACH_MIB=N tiles the input to N MiB first) */
#include "common/bits.h"
#include "probe_gzip.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIN 32768

int main(int argc, char **argv)
{
	size_t clen = 0;
	struct gpz_gzip_member m;
	if (argc < 3) {
		fprintf(stderr, "usage: window_reach FILE LEVEL\n");
		return 2;
	}
	uint8_t *c = probe_gzip("window_reach", argv[1], atoi(argv[2]), "WINDOW_REACH_MIB", &m, &clen);
	if (!c || m.piece_log != GPZ_DEFLATE_PIECE_LOG)
		return 1;
	uint16_t *sym = malloc(GPZ_DEFLATE_PIECE * sizeof(uint16_t));
	/* pieces by where the online point falls, in eighths of a piece (8: the whole piece) */
	unsigned long long hist[9] = { 0 }, pieces = 0, marked_tail = 0, markers = 0;
	unsigned long long sym_all = 0, sym_last = 0, sym_online = 0;
	uint64_t off = m.data;
	for (uint32_t k = 0; k < m.np; k++) {
		uint32_t len = gpz_load_le32(m.lens + 4 * k);
		size_t got = 0;
		int final = 0;
		if (gpz_inflate_piece(c + off, len, NULL, 0, 1, sym, GPZ_DEFLATE_PIECE, &got, &final) !=
		    GPZ_OK) {
			fprintf(stderr, "window_reach: piece %u: bad stream\n", k);
			return 1;
		}
		off += len;
		if (k == 0)
			continue; /* the first piece has no window */
		size_t last = 0; /* one past the last marker */
		for (size_t i = 0; i < got; i++)
			if (sym[i] >= 256) {
				last = i + 1;
				markers++;
			}
		size_t online = last ? last - 1 + WIN + 1 : WIN;
		online = online < got ? online : got;
		pieces++;
		sym_all += got;
		sym_last += last;
		sym_online += online;
		hist[got ? online * 8 / got : 8]++;
		marked_tail += got > WIN && last > got - WIN;
	}
	printf("%s level %s: %llu pieces after the first, %.2f%% of their symbols markers\n",
	       argv[1], argv[2], pieces, 100.0 * markers / (sym_all ? sym_all : 1));
	printf("symbols up to the last marker %.1f%%, up to the online point %.1f%%; pieces whose "
	       "last 32 KiB hold a marker %.1f%%\n", 100.0 * sym_last / (sym_all ? sym_all : 1),
	       100.0 * sym_online / (sym_all ? sym_all : 1), 100.0 * marked_tail / (pieces ? pieces : 1));
	printf("online point, pieces by eighths of the piece:");
	for (int i = 0; i < 9; i++)
		printf(" %s%.1f%%", i == 8 ? "whole " : "", 100.0 * hist[i] / (pieces ? pieces : 1));
	printf("\n");
	return 0;
}
