/* segment_tables.c - how much a Huffman-only frame would gain with a code table per segment of
 * the input instead of one for the whole frame (issue 14: "codebooks per segment, chosen by cost
 * against one frame-wide codebook"). Counts only, nothing is coded: for each segment size, the
 * payload bits under the segment's own length-limited code plus its serialised lengths and a
 * byte naming the table, against the frame-wide code (a segment may use it when every symbol it
 * has is in it and that is cheaper). Chunk index and header are the same either way and left out.
 * Built against the library's internals (include/ and src/ on the include path, libgpz.a):
 *   cc -O2 -Iinclude -Isrc bench/probe/segment_tables.c build/libgpz.a -lpthread -lz -lxxhash \
 *      -o /tmp/segment_tables
 * Usage: segment_tables FILE [2]   (2: 2-byte symbols; segment sizes are in symbols) */
#include "huffman/huffman.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int w = 1;
static uint32_t alphabet = 256;

static uint32_t sym(const uint8_t *d, size_t i)
{
	return w == 1 ? d[i] : (uint32_t)d[2 * i] | (uint32_t)d[2 * i + 1] << 8;
}

/* Payload bits of the counts under their own code (lengths into len), its serialised size into
 * *cb; a code of fewer than two symbols costs nothing here (a constant frame). */
static size_t own_bits(const uint32_t *c, uint8_t *len, uint8_t *scratch, size_t *cb)
{
	uint32_t used = 0;
	for (uint32_t s = 0; s < alphabet; s++)
		used += c[s] != 0;
	*cb = 0;
	if (used < 2)
		return 0;
	if (gpz_code_lengths(c, alphabet, GPZ_MAX_CODE_LEN, len) < 0)
		exit(2);
	*cb = gpz_lengths_write(len, alphabet, scratch);
	return (size_t)gpz_coded_bits(c, len, alphabet);
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	if (!f) {
		fprintf(stderr, "usage: segment_tables FILE [2]\n");
		return 1;
	}
	if (argc > 2 && !strcmp(argv[2], "2")) {
		w = 2;
		alphabet = 65536;
	}
	fseek(f, 0, SEEK_END);
	size_t bytes = (size_t)ftell(f), n = bytes / (size_t)w;
	fseek(f, 0, SEEK_SET);
	uint8_t *d = malloc(bytes + 1), *glen = malloc(alphabet), *len = malloc(alphabet);
	uint8_t *scratch = malloc(gpz_lengths_bound(alphabet));
	uint32_t *all = calloc(alphabet, 4), *c = malloc(alphabet * 4);
	if (!d || !glen || !len || !scratch || !all || !c || fread(d, 1, bytes, f) != bytes)
		return 1;
	fclose(f);
	for (size_t i = 0; i < n; i++)
		all[sym(d, i)]++;
	size_t gcb, gbits = own_bits(all, glen, scratch, &gcb);
	printf("%s: %zu symbols of %d byte(s); one table: ratio %.4f (table %zu bytes)\n", argv[1], n,
	       w, (double)bytes / ((double)gbits / 8 + (double)gcb), gcb);
	const size_t sizes[] = { 16384, 65536, 262144, 1 << 20, 4 << 20 };
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		size_t seg = sizes[k], own = 0, best = 0, owns = 0, nseg = 0;
		for (size_t a = 0; a < n; a += seg, nseg++) {
			size_t b = a + seg < n ? a + seg : n, cb, gb = 8;
			int covered = 1;
			memset(c, 0, alphabet * 4);
			for (size_t i = a; i < b; i++)
				c[sym(d, i)]++;
			size_t ob = own_bits(c, len, scratch, &cb) + 8 * (cb + 1);
			for (uint32_t s = 0; s < alphabet; s++) {
				covered &= !c[s] || glen[s];
				gb += (size_t)c[s] * glen[s];
			}
			size_t m = covered && gb < ob ? gb : ob;
			own += ob;
			best += m;
			owns += m == ob;
		}
		printf("  segments of %8zu symbols: own tables %.4f; own or the frame's, by cost: %.4f "
		       "(%zu of %zu segments own)\n", seg, (double)bytes / ((double)own / 8),
		       (double)bytes / ((double)best / 8 + (double)gcb), owns, nseg);
	}
	return 0;
}
