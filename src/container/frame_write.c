/* frame_write.c - compress one frame on the CPU: histogram, plan (frame_plan.c), then the
 * payload, chunk index, header check and content checksum (docs/FORMAT.md). Contexts on the GPU
 * backend hand the frame to frame_gpu.cu. */
#include "container/context.h"
#include "container/frame.h"
#include "common/bits.h"
#include "common/checksum.h"
#include "common/xxh64.h"

#include <stdlib.h>
#include <string.h>

uint32_t gpz_header_check(const void *data, size_t size)
{
	return (uint32_t)gpz_xxh64(data, size, 0);
}

void gpz_params_default(gpz_params *p)
{
	p->mode = GPZ_MODE_HUFFMAN;
	p->symbol_bytes = 1;
	p->chunk_log = GPZ_DEFAULT_CHUNK_LOG;
	p->frame_bytes = GPZ_DEFAULT_FRAME_BYTES;
}

gpz_result gpz_params_check(const gpz_params *p)
{
	if (!p || p->mode != GPZ_MODE_HUFFMAN)
		return GPZ_ERR_PARAM;
	if (p->symbol_bytes != 1 && p->symbol_bytes != 2 && p->symbol_bytes != 4)
		return GPZ_ERR_PARAM;
	if (p->chunk_log < GPZ_MIN_CHUNK_LOG || p->chunk_log > GPZ_MAX_CHUNK_LOG)
		return GPZ_ERR_PARAM;
	if (p->frame_bytes == 0 || p->frame_bytes > GPZ_MAX_FRAME_BYTES ||
	    p->frame_bytes % (size_t)p->symbol_bytes)
		return GPZ_ERR_PARAM;
	return GPZ_OK;
}

size_t gpz_frame_bound(size_t src_size, const gpz_params *p)
{
	/* A stored frame is never exceeded: Huffman is chosen only when smaller. */
	return gpz_params_check(p) == GPZ_OK ? src_size + GPZ_FRAME_FIXED : 0;
}

/* Encode the payload at o, through a scratch buffer when o lacks the encoder's slack. */
static gpz_result encode_payload(gpz_ctx *ctx, const uint8_t *src,
                                 const struct gpz_frame_plan *pl, uint8_t *o, size_t room,
                                 uint32_t *chunk_bits)
{
	uint8_t *buf = o;
	uint64_t bits = 0;
	gpz_result r;

	if (room < pl->payload + GPZ_ENCODE_SLACK) {
		buf = malloc(pl->payload + GPZ_ENCODE_SLACK);
		if (!buf)
			return GPZ_ERR_NOMEM;
	}
	r = gpz_huff_encode(src, pl->n, pl->w, pl->table, pl->chunk_log, ctx->nthreads, buf,
	                    pl->payload + GPZ_ENCODE_SLACK, chunk_bits, &bits);
	if (r == GPZ_OK && bits != pl->bits)
		r = GPZ_ERR_PARAM; /* cannot happen: the histogram and the encoder disagree */
	if (buf != o) {
		if (r == GPZ_OK)
			memcpy(o, buf, pl->payload);
		free(buf);
	}
	return r;
}

static gpz_result write_frame(gpz_ctx *ctx, const uint8_t *src, const struct gpz_frame_plan *pl,
                              uint8_t *dst)
{
	size_t size = pl->n * (size_t)pl->w;

	memcpy(dst, pl->head, pl->head_bytes);
	if (pl->type == GPZ_FRAME_HUFFMAN) {
		uint32_t *chunk_bits = malloc((size_t)pl->nchunks * sizeof(*chunk_bits));
		gpz_result r = chunk_bits ? GPZ_OK : GPZ_ERR_NOMEM;
		if (r == GPZ_OK)
			r = encode_payload(ctx, src, pl, dst + pl->payload_at,
			                   pl->total - pl->payload_at, chunk_bits);
		for (uint64_t c = 0; r == GPZ_OK && c < pl->nchunks; c++)
			gpz_store_le32(dst + pl->index_at + 4 * c, chunk_bits[c]);
		free(chunk_bits);
		if (r != GPZ_OK)
			return r;
	} else if (pl->type == GPZ_FRAME_STORED) {
		memcpy(dst + pl->payload_at, src, size);
	}
	gpz_store_le32(dst + pl->check_at, gpz_header_check(dst, pl->check_at));
	gpz_store_le64(dst + pl->sum_at, gpz_checksum_threads(src, size, ctx->nthreads));
	return GPZ_OK;
}

static gpz_result compress_cpu(gpz_ctx *ctx, const gpz_params *p, const uint8_t *src, size_t n,
                               uint8_t *dst, size_t cap, size_t *written)
{
	uint32_t *counts = malloc(gpz_alphabet_limit(p->symbol_bytes) * sizeof(uint32_t));
	uint32_t alphabet = 0;
	struct gpz_frame_plan pl = { 0 };
	gpz_result r = counts ? GPZ_OK : GPZ_ERR_NOMEM;

	if (r == GPZ_OK)
		r = gpz_histogram(src, n, p->symbol_bytes, ctx->nthreads, counts, &alphabet);
	if (r == GPZ_OK)
		r = gpz_frame_plan_make(&pl, p, counts, alphabet, n, NULL);
	if (r == GPZ_OK && pl.total > cap)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		r = write_frame(ctx, src, &pl, dst);
	if (r == GPZ_OK)
		*written = pl.total;
	gpz_frame_plan_free(&pl);
	free(counts);
	return r;
}

gpz_result gpz_compress_frame(gpz_ctx *ctx, const gpz_params *p, const void *src,
                              size_t src_size, void *dst, size_t dst_cap, size_t *written)
{
	if (!ctx || !written || gpz_params_check(p) != GPZ_OK || src_size > p->frame_bytes ||
	    (!src && src_size) || !dst)
		return GPZ_ERR_PARAM;
	*written = 0;
	if (src_size % (size_t)p->symbol_bytes)
		return GPZ_ERR_SIZE_ALIGN;
	if (src_size == 0)
		return GPZ_OK; /* an empty frame is not written */
	if (ctx->backend == GPZ_BACKEND_GPU)
		return gpz_gpu_compress_frame_host(ctx, p, src, src_size, dst, dst_cap, written);
	return compress_cpu(ctx, p, src, src_size / (size_t)p->symbol_bytes, dst, dst_cap, written);
}
