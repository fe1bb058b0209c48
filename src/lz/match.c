/* match.c - LZ77 match finding over DEFLATE's 32 KiB window with hash chains, CPU reference.
 *
 * The matcher itself (level table, hash chains, greedy and lazy parsing) lives in match_core.h,
 * shared with the GPU stage in match.cu so both give the same tokens; this file allocates the
 * matcher and runs it, and runs the GPU's way of getting the same tokens on the CPU
 * (gpz_lz_parse_pure) so that tests can hold the two ways against each other without a GPU. */
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
	n = gpz_lz_core_parse(m, start, level, tokens);
	free(m);
	return n;
}

size_t gpz_lz_parse_pure(const uint8_t *src, size_t start, size_t end, int level,
                         uint32_t *tokens)
{
	struct gpz_lz_level cfg = gpz_lz_level_cfg(level);
	size_t lo = start > GPZ_LZ_WINDOW ? start - GPZ_LZ_WINDOW : 0, n = 0;
	uint32_t *head = malloc(GPZ_LZ_HASH_SIZE * sizeof(*head));
	uint16_t *links = malloc((end - lo + 1) * sizeof(*links));
	uint32_t *pure = malloc(2 * (end - start + 1) * sizeof(*pure));

	if (end > start && head && links && pure) {
		struct gpz_lz_finder f = {NULL, pure, start, end};
		gpz_lz_links_ref(src, lo, end, end, head, links);
		for (size_t p = start; p < end; p++)
			gpz_lz_pure_at(src, links, lo, p, end, &cfg, pure + 2 * (p - start));
		n = gpz_lz_core_run(&f, src, start, end, level, tokens);
	}
	free(head);
	free(links);
	free(pure);
	return n;
}
