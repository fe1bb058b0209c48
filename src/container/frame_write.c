/* frame_write.c - compress one frame: histogram, codebook, then the smallest of a Huffman,
 * stored or constant frame (docs/FORMAT.md). */
#include "container/context.h"
#include "container/frame.h"
#include "common/bits.h"
#include "common/checksum.h"
#include "huffman/huffman.h"

#include <stdlib.h>
#include <string.h>
#include "common/xxh64.h"

/* Fixed bytes of every frame: header, header check, content checksum. */
#define FRAME_FIXED (GPZ_FRAME_HEADER_SIZE + GPZ_CHECK_SIZE + GPZ_CONTENT_SIZE)

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
	return gpz_params_check(p) == GPZ_OK ? src_size + FRAME_FIXED : 0;
}

static void put_header(uint8_t *h, gpz_frame_type type, int w, int chunk_log, int max_len,
                       uint32_t alphabet, uint64_t n, uint32_t codebook_bytes, uint64_t payload)
{
	memset(h, 0, GPZ_FRAME_HEADER_SIZE);
	h[0] = (uint8_t)type;
	h[1] = (uint8_t)w;
	h[2] = (uint8_t)chunk_log;
	h[3] = (uint8_t)max_len;
	gpz_store_le32(h + 4, alphabet);
	gpz_store_le64(h + 8, n);
	gpz_store_le32(h + 16, codebook_bytes);
	gpz_store_le64(h + 24, payload);
}

/* Header check, payload, content checksum for frames without codebook (stored, constant). */
static gpz_result write_simple(gpz_ctx *ctx, gpz_frame_type type, const uint8_t *src,
                               size_t size, int w, uint32_t value, uint8_t *dst, size_t cap,
                               size_t *written)
{
	size_t payload = type == GPZ_FRAME_STORED ? size : 0;
	uint8_t *o = dst + GPZ_FRAME_HEADER_SIZE;

	if (cap < FRAME_FIXED + payload)
		return GPZ_ERR_DST_TOO_SMALL;
	put_header(dst, type, w, 0, 0, type == GPZ_FRAME_CONSTANT ? value : 0, size / (size_t)w, 0,
	           payload);
	gpz_store_le32(o, gpz_header_check(dst, GPZ_FRAME_HEADER_SIZE));
	o += GPZ_CHECK_SIZE;
	memcpy(o, src, payload);
	o += payload;
	gpz_store_le64(o, gpz_checksum_threads(src, size, ctx->nthreads));
	*written = FRAME_FIXED + payload;
	return GPZ_OK;
}

struct huff_plan {
	uint32_t *counts;  /* gpz_alphabet_limit(w) entries */
	uint32_t alphabet; /* largest symbol + 1 */
	uint8_t *len;
	uint32_t *table;   /* encoder table */
	int max_len;
	uint64_t bits;     /* coded payload bits */
};

static void plan_free(struct huff_plan *pl)
{
	free(pl->counts);
	free(pl->len);
	free(pl->table);
}

/* Histogram and codebook. Sets pl->alphabet to 1 for a constant frame (one distinct symbol). */
static gpz_result plan_codes(gpz_ctx *ctx, const uint8_t *src, size_t n, int w,
                             struct huff_plan *pl)
{
	uint32_t used = 0, *code;
	gpz_result r;

	memset(pl, 0, sizeof(*pl));
	pl->counts = malloc(gpz_alphabet_limit(w) * sizeof(uint32_t));
	if (!pl->counts)
		return GPZ_ERR_NOMEM;
	r = gpz_histogram(src, n, w, ctx->nthreads, pl->counts, &pl->alphabet);
	if (r != GPZ_OK)
		return r;
	for (uint32_t s = 0; s < pl->alphabet; s++)
		used += pl->counts[s] != 0;
	if (used < 2)
		return GPZ_OK;
	pl->len = malloc(pl->alphabet);
	pl->table = malloc(pl->alphabet * sizeof(uint32_t));
	code = malloc(pl->alphabet * sizeof(uint32_t));
	if (!pl->len || !pl->table || !code) {
		free(code);
		return GPZ_ERR_NOMEM;
	}
	pl->max_len = gpz_code_lengths(pl->counts, pl->alphabet, GPZ_MAX_CODE_LEN, pl->len);
	if (pl->max_len < 0) {
		free(code);
		return GPZ_ERR_NOMEM;
	}
	gpz_canonical_codes(pl->len, pl->alphabet, code);
	gpz_encoder_table(pl->len, code, pl->alphabet, pl->table);
	free(code);
	pl->bits = gpz_coded_bits(pl->counts, pl->len, pl->alphabet);
	return GPZ_OK;
}

/* Encode the payload at o (room for `room` bytes), through a scratch buffer when o lacks the
 * encoder's slack. */
static gpz_result encode_payload(gpz_ctx *ctx, const uint8_t *src, size_t n, int w,
                                 const struct huff_plan *pl, int chunk_log, uint8_t *o,
                                 size_t room, uint32_t *chunk_bits)
{
	size_t payload = (size_t)((pl->bits + 7) / 8);
	uint8_t *buf = o;
	uint64_t bits = 0;
	gpz_result r;

	if (room < payload + GPZ_ENCODE_SLACK) {
		buf = malloc(payload + GPZ_ENCODE_SLACK);
		if (!buf)
			return GPZ_ERR_NOMEM;
	}
	r = gpz_huff_encode(src, n, w, pl->table, chunk_log, ctx->nthreads, buf,
	                    payload + GPZ_ENCODE_SLACK, chunk_bits, &bits);
	if (r == GPZ_OK && bits != pl->bits)
		r = GPZ_ERR_PARAM; /* cannot happen: the histogram and the encoder disagree */
	if (buf != o) {
		if (r == GPZ_OK)
			memcpy(o, buf, payload);
		free(buf);
	}
	return r;
}

static gpz_result write_huffman(gpz_ctx *ctx, const gpz_params *p, const uint8_t *src, size_t n,
                                const struct huff_plan *pl, size_t cb_bytes, uint8_t *dst,
                                size_t cap, size_t *written)
{
	int w = p->symbol_bytes;
	uint64_t nchunks = gpz_frame_chunks(n, p->chunk_log);
	size_t payload = (size_t)((pl->bits + 7) / 8);
	size_t head = GPZ_FRAME_HEADER_SIZE + cb_bytes + 4 * (size_t)nchunks;
	uint8_t *o = dst + GPZ_FRAME_HEADER_SIZE;
	uint32_t *chunk_bits;
	gpz_result r;

	if (cap < head + GPZ_CHECK_SIZE + payload + GPZ_CONTENT_SIZE)
		return GPZ_ERR_DST_TOO_SMALL;
	chunk_bits = malloc((size_t)nchunks * sizeof(*chunk_bits));
	if (!chunk_bits)
		return GPZ_ERR_NOMEM;
	put_header(dst, GPZ_FRAME_HUFFMAN, w, p->chunk_log, pl->max_len, pl->alphabet, n,
	           (uint32_t)cb_bytes, payload);
	o += gpz_lengths_write(pl->len, pl->alphabet, o);
	o += 4 * (size_t)nchunks + GPZ_CHECK_SIZE;
	r = encode_payload(ctx, src, n, w, pl, p->chunk_log, o, cap - (size_t)(o - dst),
	                   chunk_bits);
	if (r == GPZ_OK) {
		for (uint64_t c = 0; c < nchunks; c++)
			gpz_store_le32(dst + GPZ_FRAME_HEADER_SIZE + cb_bytes + 4 * c, chunk_bits[c]);
		gpz_store_le32(dst + head, gpz_header_check(dst, head));
		gpz_store_le64(o + payload, gpz_checksum_threads(src, n * (size_t)w, ctx->nthreads));
		*written = (size_t)(o - dst) + payload + GPZ_CONTENT_SIZE;
	}
	free(chunk_bits);
	return r;
}

/* Write a Huffman frame if it is smaller than a stored one, else a stored frame. */
static gpz_result write_coded(gpz_ctx *ctx, const gpz_params *p, const uint8_t *src, size_t n,
                              const struct huff_plan *pl, uint8_t *dst, size_t cap,
                              size_t *written)
{
	size_t size = n * (size_t)p->symbol_bytes;
	uint8_t *tmp = malloc(gpz_lengths_bound(pl->alphabet));
	size_t cb_bytes, huff_size;

	if (!tmp)
		return GPZ_ERR_NOMEM;
	cb_bytes = gpz_lengths_write(pl->len, pl->alphabet, tmp);
	free(tmp);
	huff_size = FRAME_FIXED + cb_bytes + 4 * (size_t)gpz_frame_chunks(n, p->chunk_log) +
	            (size_t)((pl->bits + 7) / 8);
	if (huff_size < FRAME_FIXED + size)
		return write_huffman(ctx, p, src, n, pl, cb_bytes, dst, cap, written);
	return write_simple(ctx, GPZ_FRAME_STORED, src, size, p->symbol_bytes, 0, dst, cap,
	                    written);
}

gpz_result gpz_compress_frame(gpz_ctx *ctx, const gpz_params *p, const void *src,
                              size_t src_size, void *dst, size_t dst_cap, size_t *written)
{
	const uint8_t *s = src;
	struct huff_plan pl;
	size_t n;
	gpz_result r;

	if (!ctx || !written || gpz_params_check(p) != GPZ_OK || src_size > p->frame_bytes ||
	    (!src && src_size) || !dst)
		return GPZ_ERR_PARAM;
	*written = 0;
	if (src_size % (size_t)p->symbol_bytes)
		return GPZ_ERR_SIZE_ALIGN;
	if (src_size == 0)
		return GPZ_OK; /* an empty frame is not written */
	n = src_size / (size_t)p->symbol_bytes;
	r = plan_codes(ctx, s, n, p->symbol_bytes, &pl);
	if (r == GPZ_OK && !pl.len) /* one distinct symbol */
		r = write_simple(ctx, GPZ_FRAME_CONSTANT, s, src_size, p->symbol_bytes,
		                 gpz_load_symbol(s, 0, p->symbol_bytes), dst, dst_cap, written);
	else if (r == GPZ_OK)
		r = write_coded(ctx, p, s, n, &pl, dst, dst_cap, written);
	plan_free(&pl);
	return r;
}
