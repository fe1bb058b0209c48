/* match.c - LZ77 match finding over DEFLATE's 32 KiB window with hash chains, CPU reference.
 *
 * The matcher itself (level table, hash chains, greedy and lazy parsing) lives in match_core.h,
 * shared with the GPU stage in match.cu so both give the same tokens; this file allocates the
 * matcher and runs it. */
#include "lz/lz.h"
#include "lz/match_core.h"

#include <stdlib.h>
#include <string.h>

size_t gpz_lz_parse(const uint8_t *src, size_t start, size_t end, int level, uint32_t *tokens)
{
	struct gpz_lz_matcher *m;
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
	n = gpz_lz_core_parse(m, start, level, tokens);
	free(m);
	return n;
}
