/* batch.c - a batch of consecutive pieces of a gzip/zlib/raw stream, coded at once on the CPU's
 * threads or on a GPU, with the same bytes: what the streaming calls and the frame engine's lanes
 * run (deflate.h). */
#include "deflate/deflate.h"
#include "common/checksum_gpu.h"
#include "common/crc_combine.h"
#include "deflate/deflate_gpu.h"

#include <stddef.h>
#include <string.h>

#define PIECE GPZ_DEFLATE_PIECE

static size_t batch_pieces(size_t n)
{
	return n ? (n - 1) / PIECE + 1 : 1; /* an empty stream is one (empty) piece */
}

size_t gpz_dfl_batch_bound(size_t n)
{
	return batch_pieces(n) * gpz_deflate_piece_cap(PIECE);
}

static uint32_t check_empty(int check)
{
	return check == GPZ_DFL_CHECK_ADLER32 ? 1u : 0u;
}

gpz_result gpz_dfl_batch_cpu(int nthreads, const uint8_t *src, size_t pre, size_t n, int level,
                             int last, int group, size_t k0, int check, uint8_t *out,
                             size_t cap, struct gpz_dfl_batch *b)
{
	struct gpz_dfl_piece piece[GPZ_DFL_CPU_BATCH];
	size_t np = batch_pieces(n), pcap = gpz_deflate_piece_cap(PIECE), at = 0;

	if (np > GPZ_DFL_CPU_BATCH || cap < np * pcap)
		return GPZ_ERR_PARAM;
	/* each piece straight into its slot of out, then moved down behind the one before */
	for (size_t i = 0; i < np; i++) {
		piece[i].buf = out + i * pcap;
		piece[i].cap = pcap;
	}
	gpz_deflate_pieces(nthreads, src - pre, pre, n, level, group, k0, last, check, piece);
	b->check = check_empty(check);
	b->npieces = (uint32_t)np;
	for (size_t i = 0; i < np; i++) {
		size_t len = n - i * PIECE < PIECE ? n - i * PIECE : PIECE;
		if (piece[i].r != GPZ_OK)
			return piece[i].r;
		memmove(out + at, piece[i].buf, piece[i].bytes);
		at += piece[i].bytes;
		b->piece_bytes[i] = (uint32_t)piece[i].bytes;
		if (check == GPZ_DFL_CHECK_CRC32)
			b->check = gpz_crc32_combine(b->check, piece[i].check, len);
		else if (check == GPZ_DFL_CHECK_ADLER32)
			b->check = gpz_adler32_combine(b->check, piece[i].check, len);
	}
	b->bytes = at;
	return GPZ_OK;
}

/* What the GPU leaves after the batch's output, fetched in one copy. */
struct batch_res {
	gpz_gpu_deflate_status st;
	uint32_t check;
};

/* The GPU's copy of the batch: the pieces before it are history only (one piece of room, the
 * last `pre` bytes of it filled), so that the batch's pieces keep their places in the stream's
 * piece grid. Status and check share one small region after the output. */
gpz_result gpz_dfl_batch_gpu(struct gpz_gpu *g, const uint8_t *src, size_t pre, size_t n,
                             int level, int last, int group, size_t k0, int check,
                             uint8_t *out, size_t cap, struct gpz_dfl_batch *b)
{
	size_t first = pre ? 1 : 0, total = first * PIECE + n, np = batch_pieces(n);
	size_t work = gpz_gpu_deflate_work(total), ocap = gpz_gpu_deflate_raw_bound(total);
	size_t tail = (ocap + 255) & ~(size_t)255;
	uint64_t off[GPZ_DFL_BATCH_MAX + 1];
	struct batch_res res;
	gpz_gpu_deflate_status *d_status;
	uint32_t *d_check;
	gpz_result r;

	if (np > GPZ_DFL_BATCH_MAX || pre > PIECE)
		return GPZ_ERR_PARAM;
	r = gpz_gpu_use(g);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->in, &g->in_cap, total ? total : 1);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->out, &g->out_cap, tail + sizeof(res));
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->work, &g->work_cap, work);
	if (r != GPZ_OK)
		return r;
	d_status = (gpz_gpu_deflate_status *)(g->out + tail);
	d_check = (uint32_t *)(g->out + tail + offsetof(struct batch_res, check));
	r = gpz_gpu_to_device(g, g->in + first * PIECE - pre, src - pre, pre + n);
	if (r == GPZ_OK)
		r = gpz_gpu_deflate_part(g->in, total, first, k0, last, group, level, g->out, ocap,
		                         d_status, g->work, work, g->stream);
	if (r == GPZ_OK && check == GPZ_DFL_CHECK_CRC32)
		r = gpz_gpu_crc32(g->in + first * PIECE, n, d_check, g->stream);
	if (r == GPZ_OK && check == GPZ_DFL_CHECK_ADLER32)
		r = gpz_gpu_adler32(g->in + first * PIECE, n, d_check, g->stream);
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, &res, d_status, sizeof(res));
	if (r == GPZ_OK && res.st.result != GPZ_OK)
		r = (gpz_result)res.st.result;
	b->bytes = (size_t)(res.st.bits / 8);
	if (r == GPZ_OK && b->bytes > cap)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, off, gpz_gpu_deflate_piece_offsets(g->work, total) + first,
		                    (np + 1) * sizeof(*off));
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, out, g->out, b->bytes);
	if (r != GPZ_OK)
		return r;
	b->check = check == GPZ_DFL_CHECK_NONE ? 0 : res.check;
	b->npieces = (uint32_t)np;
	for (size_t i = 0; i < np; i++)
		b->piece_bytes[i] = (uint32_t)(off[i + 1] - off[i]);
	return GPZ_OK;
}
