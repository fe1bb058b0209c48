/* deflate_io.c - gzip / zlib / raw deflate streams through the frame engine: whole inputs from
 * callbacks (gpz_deflate_stream_from, gpz_deflate_stream_from_at) and the one-shot
 * gpz_deflate_compress. A frame is a batch of pieces (deflate.h) coded on a lane, on the lane's
 * GPU when the context has one, with the 32 KiB before it as history; the batches' bytes,
 * checksums and piece lengths join the stream in order (deflate/stream.h). The bytes are those
 * of gpz_deflate_update, whatever the backend, lanes or batch size. */
#include "common/context.h"
#include "container/engine.h"
#include "deflate/stream.h"
#include "lz/lz.h"

#include <string.h>

#define PIECE GPZ_DEFLATE_PIECE
#define HIST GPZ_LZ_WINDOW
/* Pieces a GPU lane codes at once (64 MiB): a lane's device workspace is about 5.3 MiB a piece. */
#ifndef GPZ_DFL_GPU_BATCH
#define GPZ_DFL_GPU_BATCH 256
#endif
/* GPU lanes a GPU codes batches on at levels 1-3 (above, all of them): each lane pins a batch's
 * input and output (about 130 MiB) at its first batch, and at level 1 fewer lanes keep the GPU
 * as busy: gzip -1 of 4 GB of text to /dev/null on an H100 host took 0.86-1.03 s with 6 lanes,
 * 0.81-0.84 with 4, 0.75-0.77 with 3 (the first round of batches ends 0.1 s sooner with 4 than
 * with 6). At level 6 the kernels of 6 lanes' batches overlap better: 3 lanes were ~5% slower
 * (bench/results/2026-11-26-h100-parallel-output.md). */
#define FAST_GPU_LANES 3
#define FAST_LEVEL 3
/* Input from which AUTO contexts use the GPU for DEFLATE (smaller inputs finish sooner on the
 * CPU's threads than the copies and launches take). */
#define GPU_AUTO_MIN ((uint64_t)64 << 20)

struct dio {
	gpz_deflate_stream *st;
	int gpu;            /* the lanes code on their GPUs */
	size_t step;        /* input bytes a batch */
	gpz_write_fn write;
	gpz_write_at_fn write_at; /* or positional output: the lanes write their batches */
	void *user;
	uint64_t out;
};

static size_t dio_bound(void *u, size_t n)
{
	(void)u;
	return gpz_dfl_batch_bound(n);
}

static gpz_result dio_run(void *u, struct gpz_gpu *g, uint64_t index, const uint8_t *src,
                          size_t pre, size_t n, int last, uint8_t *out, size_t cap, size_t *len,
                          void *meta)
{
	struct dio *d = u;
	gpz_deflate_stream *st = d->st;
	struct gpz_dfl_batch *b = meta;
	size_t k0 = (size_t)index * (d->step / PIECE); /* the batch's first piece in the stream */
	gpz_result r;

	if (g && d->gpu) {
		r = gpz_ctx_test_gpu_failure() ? GPZ_ERR_GPU
		  : gpz_dfl_batch_gpu(g, src, pre, n, st->level, last, st->group, k0,
		                      st->check_kind, out, cap, b);
		if (r == GPZ_OK || !gpz_ctx_falls_back(st->ctx, r)) {
			*len = r == GPZ_OK ? b->bytes : 0;
			return r;
		}
	}
	r = gpz_dfl_batch_cpu(st->ctx->nthreads, src, pre, n, st->level, last, st->group, k0,
	                      st->check_kind, out, cap, b);
	*len = r == GPZ_OK ? b->bytes : 0;
	return r;
}

static gpz_result dio_put(void *u, const uint8_t *buf, size_t len, const void *meta,
                          size_t in_bytes)
{
	struct dio *d = u;
	gpz_result r = d->write_at ? GPZ_OK : d->write(d->user, buf, len);

	if (r == GPZ_OK) {
		gpz_dfl_stream_add(d->st, meta, in_bytes);
		d->out += len;
	}
	return r;
}

/* Pieces per batch at one thread: they are coded in order, each parse carrying on in the table
 * of the one before (pieces.c), so more of them re-enter fewer windows; but the lanes' buffers
 * are touched afresh. 16 cost small files the page faults (dickens 1.07x the time of batches of
 * one), 4 gain on both (dickens 0.98x, debtext100m 0.97x). */
#define ONE_THREAD_BATCH 4

/* Pieces per batch: a GPU lane's, or GPZ_DFL_PER_THREAD a thread on the CPU (a batch waits for its slowest
 * piece; two CPU lanes keep the threads busy meanwhile). */
static size_t batch_pieces(const struct dio *d)
{
	int t = d->st->ctx->nthreads;
	size_t b = d->gpu    ? GPZ_DFL_GPU_BATCH
	           : t > 1   ? GPZ_DFL_PER_THREAD * (size_t)t
	                     : ONE_THREAD_BATCH;
	size_t cap = d->gpu ? GPZ_DFL_BATCH_MAX : GPZ_DFL_CPU_BATCH;
	return b < cap ? b : cap;
}

/* d's bytes at the stream's offset d->out, in order or positionally. */
static gpz_result dio_write(struct dio *d, const void *buf, size_t n)
{
	gpz_result r = d->write_at ? d->write_at(d->user, buf, n, d->out) : d->write(d->user, buf, n);

	d->out += n;
	return r;
}

/* Write the header and start the engine on the stream. size: the input's, or UINT64_MAX when
 * unknown. Output goes through write, or positionally through write_at. */
static gpz_result dio_open(struct dio *d, gpz_deflate_stream *st, uint64_t size,
                           gpz_write_fn write, gpz_write_at_fn write_at, void *user,
                           struct gpz_engine **e)
{
	struct gpz_engine_job job = { d, HIST, sizeof(struct gpz_dfl_batch), dio_bound, dio_run,
		                      dio_put, st->level <= FAST_LEVEL ? FAST_GPU_LANES : 0 };
	gpz_ctx *ctx = st->ctx;
	const uint8_t *h;
	size_t hl;
	gpz_result r;

	if (st->started || (!write == !write_at))
		return GPZ_ERR_PARAM;
	d->st = st;
	d->gpu = gpz_ctx_gpu(ctx) && (ctx->gpu_asked || size >= GPU_AUTO_MIN);
	d->step = batch_pieces(d) * PIECE;
	d->write = write;
	d->write_at = write_at;
	d->user = user;
	d->out = 0;
	h = gpz_dfl_stream_head(st, &hl);
	r = dio_write(d, h, hl);
	if (r == GPZ_OK)
		r = gpz_engine_open_job(ctx, &job, e);
	if (r == GPZ_OK && write_at)
		gpz_engine_append_at(*e, write_at, user, hl);
	return r;
}

/* Wait for the batches, then write the trailer; the first error is returned. */
static gpz_result dio_close(struct dio *d, struct gpz_engine *e, gpz_result r, uint64_t *out)
{
	gpz_result re = gpz_engine_close(e, NULL);

	r = re != GPZ_OK ? re : r;
	if (r == GPZ_OK) {
		size_t tl = 0;
		const uint8_t *t = gpz_dfl_stream_tail(d->st, &tl);
		r = t ? dio_write(d, t, tl) : GPZ_ERR_NOMEM;
	}
	if (out)
		*out = d->out;
	return r;
}

/* The whole input from read_at, output through write or write_at. */
static gpz_result from_at(gpz_deflate_stream *st, gpz_read_at_fn read_at, uint64_t src_size,
                          gpz_write_fn write, gpz_write_at_fn write_at, void *user,
                          uint64_t *in_bytes, uint64_t *out_bytes)
{
	struct dio d;
	struct gpz_engine *e;
	uint64_t off = 0;
	gpz_result r;

	if (in_bytes)
		*in_bytes = 0;
	if (!st || !read_at)
		return GPZ_ERR_PARAM;
	r = dio_open(&d, st, src_size, write, write_at, user, &e);
	if (r != GPZ_OK)
		return r;
	gpz_engine_positional(e, read_at, user);
	do { /* an empty input is one empty batch */
		size_t n = src_size - off < d.step ? (size_t)(src_size - off) : d.step;
		r = gpz_engine_next(e, 0, NULL);
		if (r == GPZ_OK)
			gpz_engine_submit_job(e, NULL, n, 0, off, off + n == src_size, 0);
		off += n;
	} while (r == GPZ_OK && off < src_size);
	r = dio_close(&d, e, r, out_bytes);
	if (in_bytes)
		*in_bytes = r == GPZ_OK ? src_size : 0;
	return r;
}

gpz_result gpz_deflate_stream_from_at(gpz_deflate_stream *st, gpz_read_at_fn read_at,
                                      uint64_t src_size, gpz_write_fn write, void *user,
                                      uint64_t *in_bytes, uint64_t *out_bytes)
{
	return write ? from_at(st, read_at, src_size, write, NULL, user, in_bytes, out_bytes)
	             : GPZ_ERR_PARAM;
}

gpz_result gpz_deflate_stream_from_at_to(gpz_deflate_stream *st, gpz_read_at_fn read_at,
                                         uint64_t src_size, gpz_write_at_fn write_at,
                                         void *user, uint64_t *in_bytes, uint64_t *out_bytes)
{
	return write_at ? from_at(st, read_at, src_size, NULL, write_at, user, in_bytes, out_bytes)
	                : GPZ_ERR_PARAM;
}

/* Read until buf holds n bytes or the input ends. */
static gpz_result read_full(gpz_read_fn read, void *user, uint8_t *buf, size_t n, size_t *got)
{
	*got = 0;
	while (*got < n) {
		size_t k = 0;
		gpz_result r = read(user, buf + *got, n - *got, &k);
		if (r != GPZ_OK)
			return r;
		if (k > n - *got)
			return GPZ_ERR_PARAM; /* the callback claims more than it was asked for */
		if (k == 0)
			break;
		*got += k;
	}
	return GPZ_OK;
}

/*
 * Pushed input: each lane buffer holds the history, then up to a batch and one piece more. The
 * piece holding the newest byte waits for the next batch unless the input has ended there, so the
 * final piece (BFINAL) is the one holding the last byte, as gpz_deflate_update has it. The next
 * buffer starts with what the previous one kept (the 32 KiB before its uncoded bytes, and those),
 * copied from it while its lane works on it (lanes only read their input).
 */
gpz_result gpz_deflate_stream_from(gpz_deflate_stream *st, gpz_read_fn read, gpz_write_fn write,
                                   void *user, uint64_t *in_bytes, uint64_t *out_bytes)
{
	struct dio d;
	struct gpz_engine *e;
	const uint8_t *prev = NULL; /* where the kept bytes are */
	size_t keep = 0, hist = 0;
	uint64_t total = 0;
	int eof = 0, last = 0;
	gpz_result r;

	if (!st || !read)
		return GPZ_ERR_PARAM;
	r = dio_open(&d, st, UINT64_MAX, write, NULL, user, &e);
	if (r != GPZ_OK)
		return r;
	while (r == GPZ_OK && !last) {
		uint8_t *buf;
		size_t got = 0, want = d.step + PIECE - (keep - hist), pending, n;
		r = gpz_engine_next(e, HIST + d.step + PIECE, &buf);
		if (r != GPZ_OK)
			break;
		if (keep)
			memmove(buf, prev, keep); /* the same buffer when there is one lane */
		if (!eof)
			r = read_full(read, user, buf + keep, want, &got);
		if (r != GPZ_OK)
			break;
		total += got;
		eof = eof || got < want;
		pending = keep - hist + got;
		last = eof && pending <= d.step;
		n = last ? pending : d.step;
		gpz_engine_submit_job(e, NULL, n, hist, 0, last, 0);
		prev = buf + hist + n - HIST; /* n is a whole batch (> HIST) unless last */
		keep = HIST + pending - n;
		hist = HIST;
	}
	r = dio_close(&d, e, r, out_bytes);
	if (in_bytes)
		*in_bytes = total;
	return r;
}

/* ---- one shot ---- */

struct mem_out {
	uint8_t *dst;
	size_t cap, pos;
};

static gpz_result mem_write(void *user, const void *buf, size_t n)
{
	struct mem_out *m = user;

	if (n > m->cap - m->pos)
		return GPZ_ERR_DST_TOO_SMALL;
	memcpy(m->dst + m->pos, buf, n);
	m->pos += n;
	return GPZ_OK;
}

/* The whole input in memory: batches named in place (GPU lanes stage them in pinned memory). */
static gpz_result from_memory(gpz_deflate_stream *st, const uint8_t *src, size_t n,
                              struct mem_out *m)
{
	struct dio d;
	struct gpz_engine *e;
	size_t off = 0;
	gpz_result r = dio_open(&d, st, n, mem_write, NULL, m, &e);

	if (r != GPZ_OK)
		return r;
	do {
		size_t k = n - off < d.step ? n - off : d.step;
		r = gpz_engine_next(e, 0, NULL);
		if (r == GPZ_OK)
			gpz_engine_submit_job(e, src + off, k, off < HIST ? off : HIST, 0, off + k == n, 0);
		off += k;
	} while (r == GPZ_OK && off < n);
	return dio_close(&d, e, r, NULL);
}

gpz_result gpz_deflate_compress(gpz_ctx *ctx, int level, gpz_format format,
                                const gpz_gzip_info *gzip, const void *src, size_t src_size,
                                void *dst, size_t dst_cap, size_t *dst_size)
{
	/* gzip gets the piece index: the whole output is in dst, so its header is rewritten */
	gpz_gzip_info gi = { gzip ? gzip->name : NULL, gzip ? gzip->mtime : 0,
		             src_size ? src_size : 1, 0 };
	struct mem_out m = { dst, dst_cap, 0 };
	gpz_deflate_stream *st;
	gpz_result r;

	if (!dst_size || (!src && src_size) || (!dst && dst_cap))
		return GPZ_ERR_PARAM;
	*dst_size = 0;
	r = gpz_deflate_stream_create(ctx, level, format, &gi, &st);
	if (r != GPZ_OK)
		return r;
	r = from_memory(st, src, src_size, &m);
	if (r == GPZ_OK && st->index_np) {
		size_t hl;
		r = gpz_deflate_stream_header(st, dst, dst_cap, &hl);
	}
	gpz_deflate_stream_free(st);
	if (r == GPZ_OK)
		*dst_size = m.pos;
	return r;
}
