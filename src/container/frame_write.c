/* frame_write.c - compress one frame on the CPU: histogram, plan (frame_plan.c), then the
 * payload, chunk index, header check and content checksum (docs/FORMAT.md). Contexts on the GPU
 * backend hand Huffman-mode frames to frame_gpu.cu; LZ-mode frames (type 4: raw DEFLATE pieces
 * chained in groups) are written here, their pieces coded on the GPU (deflate/batch.c) or the
 * CPU. */
#include "common/context.h"
#include "container/frame.h"
#include "container/frame_gpu.h"
#include "common/bits.h"
#include "common/checksum.h"
#include "common/parallel.h"
#include "common/xxh64.h"
#include "deflate/deflate.h"
#include "lzsym/lzsym.h"

#include <stdlib.h>
#include <string.h>

uint32_t gpz_header_check(const void *data, size_t size)
{
	return (uint32_t)gpz_xxh64(data, size, 0);
}

void gpz_params_default(gpz_params *p)
{
	p->symbol_bytes = 1;
	p->chunk_log = GPZ_DEFAULT_CHUNK_LOG;
	p->frame_bytes = GPZ_DEFAULT_FRAME_BYTES;
	p->lz_level = 0;
	p->lz_symbols = 0;
	p->huff_lanes = 0;
}

gpz_result gpz_params_check(const gpz_params *p)
{
	if (!p)
		return GPZ_ERR_PARAM;
	if (p->symbol_bytes != 1 && p->symbol_bytes != 2 && p->symbol_bytes != 4)
		return GPZ_ERR_PARAM;
	if (p->chunk_log < GPZ_MIN_CHUNK_LOG || p->chunk_log > GPZ_MAX_CHUNK_LOG)
		return GPZ_ERR_PARAM;
	if (p->frame_bytes == 0 || p->frame_bytes > GPZ_MAX_FRAME_BYTES ||
	    p->frame_bytes % (size_t)p->symbol_bytes)
		return GPZ_ERR_PARAM;
	if (p->lz_level < 0 || p->lz_level > 9 || (p->lz_level > 0 && p->symbol_bytes != 1))
		return GPZ_ERR_PARAM;
	if (p->lz_symbols < 0 || p->lz_symbols > GPZ_LZS_AUTO || (p->lz_symbols && p->lz_level))
		return GPZ_ERR_PARAM;
	if ((p->huff_lanes != 0 && p->huff_lanes != 1) || (p->huff_lanes && p->lz_level))
		return GPZ_ERR_PARAM;
	return GPZ_OK;
}

size_t gpz_frame_bound(size_t src_size, const gpz_params *p)
{
	/* A stored frame is never exceeded: Huffman or DEFLATE is chosen only when smaller. */
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
	/* all the room: with room for the input the encoder's threads need no memory of their own */
	r = gpz_huff_encode_in(src, pl->n, pl->w, pl->table, pl->alphabet, pl->chunk_log,
	                       ctx->nthreads, buf, buf == o ? room : pl->payload + GPZ_ENCODE_SLACK,
	                       chunk_bits, &bits, ctx->scratch);
	if (r == GPZ_OK && bits != pl->bits)
		r = GPZ_ERR_PARAM; /* cannot happen: the histogram and the encoder disagree */
	if (buf != o) {
		if (r == GPZ_OK)
			memcpy(o, buf, pl->payload);
		free(buf);
	}
	return r;
}

/* The lanes layout's payload at o (room for the plan's bound), then the plan's size set. */
static gpz_result encode_lanes(gpz_ctx *ctx, const uint8_t *src, struct gpz_frame_plan *pl,
                               uint8_t *o, uint32_t *chunk_words)
{
	uint64_t words = 0;
	gpz_result r = gpz_huff_encode_lanes(src, pl->n, pl->w, pl->table, pl->chunk_log,
	                                     ctx->nthreads, o, pl->payload, chunk_words, &words);
	if (r == GPZ_OK)
		gpz_frame_plan_set_payload(pl, (size_t)(4 * words));
	return r;
}

/* The frame of plan pl; sum: the content checksum of src, taken with its histogram. */
static gpz_result write_frame(gpz_ctx *ctx, const uint8_t *src, struct gpz_frame_plan *pl,
                              uint64_t sum, uint8_t *dst, size_t cap)
{
	size_t size = pl->n * (size_t)pl->w;

	if (pl->type == GPZ_FRAME_HUFFMAN) {
		uint32_t *chunk_len = malloc((size_t)pl->nchunks * sizeof(*chunk_len));
		gpz_result r = chunk_len ? GPZ_OK : GPZ_ERR_NOMEM;
		if (r == GPZ_OK)
			r = pl->lanes ? encode_lanes(ctx, src, pl, dst + pl->payload_at, chunk_len)
			              : encode_payload(ctx, src, pl, dst + pl->payload_at,
			                               cap - pl->payload_at, chunk_len);
		for (uint64_t c = 0; r == GPZ_OK && c < pl->nchunks; c++)
			gpz_store_le32(dst + pl->index_at + 4 * c, chunk_len[c]);
		free(chunk_len);
		if (r != GPZ_OK)
			return r;
	} else if (pl->type == GPZ_FRAME_STORED) {
		memcpy(dst + pl->payload_at, src, size);
	}
	memcpy(dst, pl->head, pl->head_bytes); /* after the payload: its size is in the header */
	gpz_store_le32(dst + pl->check_at, gpz_header_check(dst, pl->check_at));
	gpz_store_le64(dst + pl->sum_at, sum);
	return GPZ_OK;
}

static gpz_result compress_cpu(gpz_ctx *ctx, const gpz_params *p, const uint8_t *src, size_t n,
                               uint8_t *dst, size_t cap, size_t *written)
{
	uint32_t *counts = malloc(gpz_alphabet_limit(p->symbol_bytes) * sizeof(uint32_t));
	uint32_t alphabet = 0;
	uint64_t sum = 0;
	struct gpz_frame_plan pl = { 0 };
	gpz_result r = counts ? GPZ_OK : GPZ_ERR_NOMEM;

	if (r == GPZ_OK)
		r = gpz_histogram_sum(src, n, p->symbol_bytes, ctx->nthreads, counts, &alphabet, &sum,
		                      ctx->scratch);
	if (r == GPZ_OK)
		r = gpz_frame_plan_make(&pl, p, counts, alphabet, n, NULL);
	/* LZ-symbol frames where asked for (not for one symbol value, nor when the main alphabet
	 * would pass the format's largest) when smaller than stored (forced) or than the plan's
	 * frame (automatic) */
	if (r == GPZ_OK && p->lz_symbols && pl.type != GPZ_FRAME_CONSTANT &&
	    alphabet + GPZ_LZS_EXTRA <= GPZ_MAX_ALPHABET) {
		size_t beat = p->lz_symbols == GPZ_LZS_AUTO ? pl.total
		                                            : GPZ_FRAME_FIXED + n * (size_t)p->symbol_bytes;
		r = gpz_lzs_frame_write(ctx, p, src, n, counts, alphabet, sum, beat, dst, cap, written);
		if (r != GPZ_OK || *written) {
			gpz_frame_plan_free(&pl);
			free(counts);
			return r;
		}
	}
	if (r == GPZ_OK && pl.total > cap)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		r = write_frame(ctx, src, &pl, sum, dst, cap);
	if (r == GPZ_OK)
		*written = pl.total;
	gpz_frame_plan_free(&pl);
	free(counts);
	return r;
}

/* ---- LZ mode: type-4 frames ---- */

/* Header of a frame written in LZ mode (1-byte symbols; docs/FORMAT.md). */
static void put_lz_header(uint8_t *h, gpz_frame_type type, int chunk_log, int group_log,
                          uint32_t alphabet, size_t n, uint64_t payload)
{
	memset(h, 0, GPZ_FRAME_HEADER_SIZE);
	h[0] = (uint8_t)type;
	h[1] = 1;
	h[2] = (uint8_t)chunk_log;
	h[3] = (uint8_t)group_log;
	gpz_store_le32(h + 4, alphabet);
	gpz_store_le64(h + 8, n);
	gpz_store_le64(h + 24, payload);
}

/* A stored or constant frame of n bytes (LZ mode's fallbacks). */
static gpz_result write_byte_frame(gpz_ctx *ctx, gpz_frame_type type, const uint8_t *src,
                                   size_t n, uint8_t *dst, size_t cap, size_t *written)
{
	size_t payload = type == GPZ_FRAME_STORED ? n : 0;
	size_t total = GPZ_FRAME_FIXED + payload;

	if (total > cap)
		return GPZ_ERR_DST_TOO_SMALL;
	put_lz_header(dst, type, 0, 0, type == GPZ_FRAME_CONSTANT ? src[0] : 0, n, payload);
	gpz_store_le32(dst + GPZ_FRAME_HEADER_SIZE, gpz_header_check(dst, GPZ_FRAME_HEADER_SIZE));
	memcpy(dst + GPZ_FRAME_HEADER_SIZE + GPZ_CHECK_SIZE, src, payload);
	gpz_store_le64(dst + total - GPZ_CONTENT_SIZE, gpz_checksum_threads(src, n, ctx->nthreads));
	*written = total;
	return GPZ_OK;
}

static int all_same(const uint8_t *s, size_t n)
{
	return n < 2 || (s[0] == s[1] && memcmp(s, s + 1, n - 1) == 0);
}

/* An LZ-mode frame's pieces: their sizes, their total, and whether one exceeded the format's
 * bound (the frame is then stored). */
struct lz_pieces {
	uint32_t *sizes;
	size_t payload;
	int stored;
};

/* A piece of o->sizes beyond the format's bound makes the frame stored (never seen: the piece
 * driver's own bound is lower). */
static void lz_check_bounds(size_t np, size_t n, struct lz_pieces *o)
{
	for (size_t i = 0; i < np; i++) {
		size_t m = n - i * GPZ_LZ_PIECE;
		o->stored |= o->sizes[i] > gpz_lz_piece_bound(m < GPZ_LZ_PIECE ? m : GPZ_LZ_PIECE);
	}
}

/* The pieces on the CPU's threads, each into its slot, copied to pay (room bytes) when they fit. */
static gpz_result lz_pieces_cpu(gpz_ctx *ctx, int level, const uint8_t *src, size_t n, uint8_t *pay,
                                size_t room, struct lz_pieces *o)
{
	size_t np = (n + GPZ_LZ_PIECE - 1) >> GPZ_LZ_PIECE_LOG, at = 0;
	size_t slot = gpz_deflate_piece_cap(GPZ_LZ_PIECE);
	uint8_t *slots = malloc(np * slot);
	struct gpz_dfl_piece *out = calloc(np, sizeof(*out));
	gpz_result r = slots && out ? GPZ_OK : GPZ_ERR_NOMEM;

	for (size_t i = 0; r == GPZ_OK && i < np; i++) {
		out[i].buf = slots + i * slot;
		out[i].cap = slot;
	}
	if (r == GPZ_OK)
		gpz_deflate_pieces(ctx->nthreads, src, 0, n, level, 1 << gpz_lz_group_log(level), 0,
		                   1, GPZ_DFL_CHECK_NONE, out);
	for (size_t i = 0; r == GPZ_OK && i < np; i++) {
		r = out[i].r;
		o->sizes[i] = (uint32_t)out[i].bytes;
		o->payload += out[i].bytes;
	}
	if (r == GPZ_OK)
		lz_check_bounds(np, n, o);
	for (size_t i = 0; r == GPZ_OK && !o->stored && o->payload <= room && i < np; i++) {
		memcpy(pay + at, out[i].buf, out[i].bytes);
		at += out[i].bytes;
	}
	free(slots);
	free(out);
	return r;
}

/* The same pieces on the GPU (deflate.cu), straight into pay. */
static gpz_result lz_pieces_gpu(struct gpz_gpu *g, int level, const uint8_t *src, size_t n,
                                uint8_t *pay, size_t room, struct lz_pieces *o)
{
	struct gpz_dfl_batch *b = malloc(sizeof(*b));
	gpz_result r = b ? gpz_dfl_batch_gpu(g, src, 0, n, level, 1, 1 << gpz_lz_group_log(level),
	                                     0, GPZ_DFL_CHECK_NONE, pay, room, b)
	                 : GPZ_ERR_NOMEM;

	if (r == GPZ_ERR_DST_TOO_SMALL && b->bytes > room) {
		o->payload = b->bytes; /* does not fit: only its size matters (stored or an error) */
		r = GPZ_OK;
	} else if (r == GPZ_OK) {
		o->payload = b->bytes;
		memcpy(o->sizes, b->piece_bytes, b->npieces * sizeof(*o->sizes));
		lz_check_bounds(b->npieces, n, o);
	}
	free(b);
	return r;
}

/* An LZ-mode frame of n >= 1 bytes: constant when one byte value repeats, else deflate when
 * smaller than stored, else stored. The pieces are coded on g (the lane's GPU) when there is one,
 * else (or when an AUTO context's GPU fails) on the CPU: the output depends on the input and
 * the level only. */
static gpz_result compress_lz(gpz_ctx *ctx, struct gpz_gpu *g, const gpz_params *p,
                              const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                              size_t *written)
{
	size_t npieces = (n + GPZ_LZ_PIECE - 1) >> GPZ_LZ_PIECE_LOG;
	size_t index_at = GPZ_FRAME_HEADER_SIZE, check_at = index_at + 4 * npieces;
	size_t pay_at = check_at + GPZ_CHECK_SIZE, total;
	size_t room = cap > pay_at + GPZ_CONTENT_SIZE ? cap - pay_at - GPZ_CONTENT_SIZE : 0;
	struct lz_pieces o = { calloc(npieces, sizeof(uint32_t)), 0, 0 };
	gpz_result r = o.sizes ? GPZ_ERR_GPU : GPZ_ERR_NOMEM;

	if (all_same(src, n)) {
		r = write_byte_frame(ctx, GPZ_FRAME_CONSTANT, src, n, dst, cap, written);
		goto done;
	}
	if (o.sizes && g) {
		r = gpz_ctx_test_gpu_failure() ? GPZ_ERR_GPU
		  : lz_pieces_gpu(g, p->lz_level, src, n, dst + pay_at, room, &o);
		if (r != GPZ_OK && !gpz_ctx_falls_back(ctx, r))
			goto done;
	}
	if (o.sizes && r != GPZ_OK) {
		o.payload = 0;
		o.stored = 0;
		r = lz_pieces_cpu(ctx, p->lz_level, src, n, dst + pay_at, room, &o);
	}
	if (r != GPZ_OK)
		goto done;
	total = pay_at + o.payload + GPZ_CONTENT_SIZE;
	if (o.stored || total >= GPZ_FRAME_FIXED + n) {
		r = write_byte_frame(ctx, GPZ_FRAME_STORED, src, n, dst, cap, written);
		goto done;
	}
	if (total > cap) {
		r = GPZ_ERR_DST_TOO_SMALL;
		goto done;
	}
	put_lz_header(dst, GPZ_FRAME_DEFLATE, GPZ_LZ_PIECE_LOG, gpz_lz_group_log(p->lz_level), 0, n,
	              o.payload);
	for (size_t i = 0; i < npieces; i++)
		gpz_store_le32(dst + index_at + 4 * i, o.sizes[i]);
	gpz_store_le32(dst + check_at, gpz_header_check(dst, check_at));
	gpz_store_le64(dst + pay_at + o.payload, gpz_checksum_threads(src, n, ctx->nthreads));
	*written = total;
done:
	free(o.sizes);
	return r;
}

gpz_result gpz_frame_compress_on(gpz_ctx *ctx, struct gpz_gpu *g, const gpz_params *p,
                                 const void *src, size_t src_size, void *dst, size_t dst_cap,
                                 size_t *written, struct gpz_place *place)
{
	gpz_result r;

	if (!ctx || !written || gpz_params_check(p) != GPZ_OK || src_size > p->frame_bytes ||
	    (!src && src_size) || !dst)
		return GPZ_ERR_PARAM;
	*written = 0;
	if (src_size % (size_t)p->symbol_bytes)
		return GPZ_ERR_SIZE_ALIGN;
	if (src_size == 0)
		return GPZ_OK; /* an empty frame is not written */
	if (p->lz_level > 0)
		return compress_lz(ctx, g, p, src, src_size, dst, dst_cap, written);
	if (g) {
		r = gpz_ctx_test_gpu_failure() ? GPZ_ERR_GPU
		                               : gpz_gpu_frame_compress(g, p, src, src_size, dst,
		                                                        dst_cap, written, place);
		if (!gpz_ctx_falls_back(ctx, r))
			return r;
	}
	return compress_cpu(ctx, p, src, src_size / (size_t)p->symbol_bytes, dst, dst_cap, written);
}

/* Small Huffman-only frames go to the lanes in jobs of about this much input: a job's fixed
 * costs (a GPU round trip above all: 23 GB/s for 1 MiB frames a job on an H200 against 322 for
 * many at once, bench/results/2026-11-27-h200-batched-frames.md) are paid once for many frames,
 * with as much memory in flight as one frame of the default size. */
#define JOB_BYTES ((size_t)64 << 20)
#define JOB_FRAMES_MAX 256

size_t gpz_job_bytes(const gpz_params *p)
{
	size_t k;

	if (p->lz_level > 0 || p->frame_bytes >= JOB_BYTES)
		return p->frame_bytes;
	k = JOB_BYTES / p->frame_bytes;
	return (k < JOB_FRAMES_MAX ? k : JOB_FRAMES_MAX) * p->frame_bytes;
}

int gpz_job_joins(uint64_t have, size_t frames, uint64_t content)
{
	return frames >= 1 && frames < JOB_FRAMES_MAX && have < JOB_BYTES &&
	       content <= JOB_BYTES - have;
}

size_t gpz_frames_bound(size_t src_size, const gpz_params *p)
{
	size_t frames;

	if (gpz_params_check(p) != GPZ_OK)
		return 0;
	frames = src_size / p->frame_bytes + (src_size % p->frame_bytes != 0);
	return src_size + (frames ? frames : 1) * GPZ_FRAME_FIXED;
}

/* A job's frames on the CPU, a thread a frame: frames this small would spend more on starting
 * a frame's threads than on coding it (1 MiB frames of text through a 16-thread host's lanes
 * coded 3x slower than 64 MiB ones). Frame i goes to its own slot, i * slot on (its bound), and
 * the frames are closed up in order after. */
struct job_frames {
	gpz_ctx one; /* the caller's context with one thread and no scratch (threads share none) */
	const gpz_params *p;
	const uint8_t *src;
	size_t n, slot, cap;
	uint8_t *dst;
	size_t *len;
	gpz_result *res;
};

static void job_frame_task(void *v, size_t i)
{
	struct job_frames *j = v;
	size_t off = i * j->p->frame_bytes, at = i * j->slot;
	size_t k = j->n - off < j->p->frame_bytes ? j->n - off : j->p->frame_bytes;
	size_t room = j->cap - at < j->slot ? j->cap - at : j->slot;

	j->res[i] = gpz_frame_compress_on(&j->one, NULL, j->p, j->src + off, k, j->dst + at, room,
	                                  &j->len[i], NULL);
}

static gpz_result job_frames_cpu(gpz_ctx *ctx, const gpz_params *p, const uint8_t *src,
                                 size_t n, uint8_t *dst, size_t dst_cap, size_t *written)
{
	size_t nf = (n + p->frame_bytes - 1) / p->frame_bytes, at = 0;
	struct job_frames j = { *ctx, p, src, n, gpz_frame_bound(p->frame_bytes, p), dst_cap, dst,
		                malloc(nf * sizeof(size_t)), malloc(nf * sizeof(gpz_result)) };
	gpz_result r = j.len && j.res ? GPZ_OK : GPZ_ERR_NOMEM;

	j.one.nthreads = 1;
	j.one.scratch = NULL;
	if (r == GPZ_OK && dst_cap < gpz_frames_bound(n, p))
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		gpz_parallel_for(ctx->nthreads, nf, job_frame_task, &j);
	for (size_t i = 0; r == GPZ_OK && i < nf; i++) {
		r = j.res[i];
		if (r == GPZ_OK)
			memmove(dst + at, dst + i * j.slot, j.len[i]);
		at += r == GPZ_OK ? j.len[i] : 0;
	}
	if (r == GPZ_OK)
		*written = at;
	free(j.len);
	free(j.res);
	return r;
}

gpz_result gpz_frames_compress_on(gpz_ctx *ctx, struct gpz_gpu *g, const gpz_params *p,
                                  const void *src, size_t src_size, void *dst, size_t dst_cap,
                                  size_t *written, struct gpz_place *place)
{
	const uint8_t *s = src;
	uint8_t *d = dst;
	size_t done = 0, at = 0;
	gpz_result r = GPZ_OK;

	if (!p || gpz_params_check(p) != GPZ_OK || src_size <= p->frame_bytes)
		return gpz_frame_compress_on(ctx, g, p, src, src_size, dst, dst_cap, written, place);
	if (!ctx || !written || !src || !dst)
		return GPZ_ERR_PARAM;
	*written = 0;
	if (g && gpz_gpu_frames_take(p, NULL, src_size)) {
		r = gpz_ctx_test_gpu_failure() ? GPZ_ERR_GPU
		                               : gpz_gpu_frame_compress(g, p, src, src_size, dst,
		                                                        dst_cap, written, place);
		if (!gpz_ctx_falls_back(ctx, r))
			return r;
		g = NULL; /* the CPU redoes the job */
		r = GPZ_OK;
	}
	if (!g && p->lz_level == 0)
		return job_frames_cpu(ctx, p, s, src_size, d, dst_cap, written);
	while (r == GPZ_OK && done < src_size) {
		size_t n = src_size - done < p->frame_bytes ? src_size - done : p->frame_bytes, w = 0;
		r = gpz_frame_compress_on(ctx, g, p, s + done, n, d + at, dst_cap - at, &w, NULL);
		done += n;
		at += w;
	}
	if (r == GPZ_OK)
		*written = at;
	return r;
}

gpz_result gpz_compress_frame(gpz_ctx *ctx, const gpz_params *p, const void *src,
                              size_t src_size, void *dst, size_t dst_cap, size_t *written)
{
	return gpz_frame_compress_on(ctx, gpz_ctx_gpu(ctx), p, src, src_size, dst, dst_cap,
	                             written, NULL);
}
