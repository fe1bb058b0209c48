/* pieces.c - the piece driver: DEFLATE pieces of GPZ_DEFLATE_PIECE bytes compressed in
 * parallel, each into its caller-given buffer (deflate.h). gzip/zlib/raw streams chain them
 * (history, one BFINAL, a sync marker after the others; at the fast levels of gzip no history)
 * and copy them end to end; the .gpz LZ frames chain them in groups that are independent of each
 * other. */
#include "deflate/deflate.h"
#include "common/crc32.h"
#include "common/parallel.h"
#include "deflate/block_core.h"
#include "lz/lz.h"

#include <stdlib.h>
#include <zlib.h>

struct pieces_job {
	const uint8_t *src;
	size_t start, n, npieces, k0;
	int level, group, last, check;
	struct gpz_dfl_piece *out;
};

/* Piece i, parsed in carry's table (or NULL: a table of its own). */
static void piece_run(const struct pieces_job *j, size_t i, struct gpz_lz_carry *carry)
{
	struct gpz_dfl_piece *o = &j->out[i];
	size_t off = i * GPZ_DEFLATE_PIECE;
	size_t len = j->n - off < GPZ_DEFLATE_PIECE ? j->n - off : GPZ_DEFLATE_PIECE;
	/* a group, or the stretch from a cut, is parsed as a buffer of its own: no byte before it
	 * is history (g0: its first piece; none before a batch's first cut) */
	size_t gs = j->group < 0 ? (size_t)-j->group : (size_t)j->group;
	size_t into = gs ? (j->group > 0 ? i : j->k0 + i) % gs : 0;
	int cut = gs && into <= i;
	size_t g0 = cut ? (i - into) * GPZ_DEFLATE_PIECE : 0;
	const uint8_t *base = cut ? j->src + j->start + g0 : j->src;
	size_t start = cut ? off - g0 : j->start + off;
	int grouped = j->group > 0;
	int final = (grouped && (i + 1) % gs == 0) || ((j->last || grouped) && i + 1 == j->npieces);
	uint32_t *tok = malloc((len ? len : 1) * sizeof(*tok));
	struct gpz_dfl_unit *u = malloc((gpz_dfl_units(len) + 1) * sizeof(*u));
	size_t ntok = tok && u ? gpz_lz_parse_counted(base, start, start + len, j->level, tok, u,
	                                              carry)
	                       : 0;
	struct gpz_bitw bw;

	o->r = !tok || !u || (len && !ntok) ? GPZ_ERR_NOMEM : GPZ_OK;
	gpz_bitw_init(&bw, o->buf, o->cap);
	if (o->r == GPZ_OK)
		o->r = gpz_deflate_blocks(&bw, base, start, len, tok, ntok, u, final);
	if (j->check == GPZ_DFL_CHECK_CRC32)
		o->check = gpz_crc32(0, j->src + j->start + off, len);
	else if (j->check == GPZ_DFL_CHECK_ADLER32)
		o->check = (uint32_t)adler32(1L, j->src + j->start + off, (uInt)len);
	o->bytes = (size_t)(bw.p - o->buf);
	free(tok);
	free(u);
}

static void piece_task(void *vj, size_t i)
{
	piece_run(vj, i, NULL);
}

void gpz_deflate_pieces(int nthreads, const uint8_t *src, size_t start, size_t n, int level,
                        int group, size_t k0, int last, int check, struct gpz_dfl_piece *out)
{
	struct pieces_job j = { src, start, n, (n + GPZ_DEFLATE_PIECE - 1) / GPZ_DEFLATE_PIECE,
		                k0, level, group, last, check, out };

	if (j.npieces == 0 && last && group <= 0)
		j.npieces = 1; /* an empty stream: one empty final block */
	if (nthreads > 1 && j.npieces > 1) {
		gpz_parallel_for(nthreads, j.npieces, piece_task, &j);
	} else { /* one after another: each piece's parse carries on in the table before it */
		struct gpz_lz_carry *c = gpz_lz_carry_new();
		for (size_t i = 0; i < j.npieces; i++)
			piece_run(&j, i, c);
		gpz_lz_carry_free(c);
	}
}
