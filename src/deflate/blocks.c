/* blocks.c - DEFLATE blocks (RFC 1951) from LZ tokens, CPU side.
 *
 * The block writer itself (block splitting, dynamic / fixed / stored blocks, the bit writer)
 * lives in block_core.h, shared with the GPU (deflate.cu) so both write the same bits; this file
 * gives it its scratch memory and the table of small logarithms. */
#include "deflate/deflate.h"
#include "deflate/block_core.h"

#include <pthread.h>
#include <stdlib.h>

void gpz_bitw_init(struct gpz_bitw *bw, uint8_t *dst, size_t cap)
{
	gpz_dfl_bitw_init(bw, dst, cap);
}

void gpz_bitw_put(struct gpz_bitw *bw, uint32_t bits, unsigned n)
{
	gpz_dfl_put(bw, bits, n);
}

void gpz_bitw_finish(struct gpz_bitw *bw)
{
	gpz_dfl_bitw_finish(bw);
}

static uint32_t log_tab[GPZ_DFL_LOG_TAB];

static void fill_log_tab(void)
{
	gpz_dfl_log_fill(log_tab, 0, GPZ_DFL_LOG_TAB);
}

gpz_result gpz_deflate_blocks(struct gpz_bitw *bw, const uint8_t *src, size_t start,
                              size_t nbytes, const uint32_t *tokens, size_t ntok,
                              struct gpz_dfl_unit *units, int last)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct gpz_dfl_scratch *s = malloc(sizeof(*s));
	gpz_result r;

	if (!s)
		return GPZ_ERR_NOMEM;
	pthread_once(&once, fill_log_tab); /* pieces are coded on several threads */
	r = gpz_dfl_blocks(bw, src, start, nbytes, tokens, ntok, units, last, s, log_tab);
	free(s);
	return r;
}

size_t gpz_deflate_piece_cap(size_t len)
{
	return gpz_dfl_piece_cap(len);
}
