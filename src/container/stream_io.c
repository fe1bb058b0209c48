/* stream_io.c - .gpz streams through read/write callbacks (gpz_compress_stream[_at],
 * gpz_decompress_stream[_at]): what the gpz tool uses for files, with the frame engine
 * overlapping reading, coding and writing. Memory stays bounded by the engine's lanes whatever the size. */
#include "common/context.h"
#include "container/engine.h"
#include "container/frame.h"

#include <string.h>

/* The caller's callbacks, with counts. Nothing is read past the stream's end, so the caller
 * can go on reading whatever follows it. */
struct io {
	gpz_read_fn read;
	gpz_write_fn write;
	void *user;
	uint64_t in, out;
};

static gpz_result io_put(void *vio, const void *buf, size_t n)
{
	struct io *io = vio;
	gpz_result r = io->write ? io->write(io->user, buf, n) : GPZ_OK;
	if (r == GPZ_OK)
		io->out += n;
	return r;
}

/* Read up to n bytes (fewer only at the end of the input). */
static gpz_result io_get(struct io *io, void *buf, size_t n, size_t *got)
{
	gpz_result r = io->read(io->user, buf, n, got);

	if (r == GPZ_OK && *got > n)
		r = GPZ_ERR_PARAM; /* the callback claims more than it was asked for */
	io->in += *got;
	return r;
}

/* Write the stream's header and start the engine, whose output goes to io. */
static gpz_result open_stream(gpz_ctx *ctx, const gpz_params *p, struct io *io,
                              struct gpz_engine **e)
{
	uint8_t h[GPZ_HEADER_SIZE];
	size_t w;
	gpz_result r = gpz_write_header(h, sizeof h, &w);

	if (r == GPZ_OK)
		r = io_put(io, h, w);
	return r == GPZ_OK ? gpz_engine_open(ctx, p, io_put, io, e) : r;
}

/* Wait for the frames, then write the trailer; the first error (a frame's first) is returned. */
static gpz_result close_stream(struct gpz_engine *e, gpz_result r, uint64_t total,
                               uint32_t frames, struct io *io)
{
	uint8_t t[GPZ_TRAILER_SIZE];
	size_t w;
	gpz_result re = gpz_engine_close(e, NULL);

	r = re != GPZ_OK ? re : r;
	if (r == GPZ_OK)
		r = gpz_write_trailer(total, frames, t, sizeof t, &w);
	return r == GPZ_OK ? io_put(io, t, w) : r;
}

gpz_result gpz_compress_stream(gpz_ctx *ctx, const gpz_params *p, gpz_read_fn read,
                               gpz_write_fn write, void *user, uint64_t *in_bytes,
                               uint64_t *out_bytes)
{
	struct io io = { read, write, user, 0, 0 };
	struct gpz_engine *e;
	uint32_t frames = 0;
	size_t got, job;
	gpz_result r;

	if (!ctx || !read || !write || gpz_params_check(p) != GPZ_OK)
		return GPZ_ERR_PARAM;
	job = gpz_job_bytes(p);
	r = open_stream(ctx, p, &io, &e);
	if (r != GPZ_OK)
		return r;
	do {
		uint8_t *buf;
		uint64_t k;
		got = 0;
		r = gpz_engine_next(e, job, &buf);
		if (r == GPZ_OK)
			r = io_get(&io, buf, job, &got);
		if (r == GPZ_OK && got % (size_t)p->symbol_bytes)
			r = GPZ_ERR_SIZE_ALIGN;
		k = (got + p->frame_bytes - 1) / p->frame_bytes;
		if (r == GPZ_OK && k > UINT32_MAX - frames)
			r = GPZ_ERR_PARAM; /* too many frames: a larger frame_bytes is needed */
		if (r == GPZ_OK && got) {
			gpz_engine_submit(e, NULL, got, NULL, 0);
			frames += (uint32_t)k;
		}
	} while (r == GPZ_OK && got == job);
	r = close_stream(e, r, io.in, frames, &io);
	if (in_bytes)
		*in_bytes = io.in;
	if (out_bytes)
		*out_bytes = io.out;
	return r;
}

/* Frames of a positional input: the lanes read their own. */
static gpz_result submit_at(struct gpz_engine *e, const gpz_params *p, gpz_read_at_fn read_at,
                            void *user, uint64_t src_size, uint32_t *frames)
{
	const size_t job = gpz_job_bytes(p);
	gpz_result r = GPZ_OK;

	gpz_engine_positional(e, read_at, user);
	for (uint64_t off = 0; r == GPZ_OK && off < src_size; off += job) {
		size_t n = src_size - off < job ? (size_t)(src_size - off) : job;
		r = gpz_engine_next(e, 0, NULL);
		if (r == GPZ_OK)
			gpz_engine_submit_at(e, n, off);
		*frames += (uint32_t)((n + p->frame_bytes - 1) / p->frame_bytes);
	}
	return r;
}

static gpz_result check_at(gpz_ctx *ctx, const gpz_params *p, uint64_t src_size)
{
	if (!ctx || gpz_params_check(p) != GPZ_OK)
		return GPZ_ERR_PARAM;
	if (src_size % (uint64_t)p->symbol_bytes)
		return GPZ_ERR_SIZE_ALIGN;
	if ((src_size + p->frame_bytes - 1) / p->frame_bytes > UINT32_MAX)
		return GPZ_ERR_PARAM; /* too many frames: a larger frame_bytes is needed */
	return GPZ_OK;
}

gpz_result gpz_compress_stream_at(gpz_ctx *ctx, const gpz_params *p, gpz_read_at_fn read_at,
                                  uint64_t src_size, gpz_write_fn write, void *user,
                                  uint64_t *in_bytes, uint64_t *out_bytes)
{
	struct io io = { NULL, write, user, 0, 0 };
	struct gpz_engine *e;
	uint32_t frames = 0;
	gpz_result r = read_at && write ? check_at(ctx, p, src_size) : GPZ_ERR_PARAM;

	if (r == GPZ_OK)
		r = open_stream(ctx, p, &io, &e);
	if (r != GPZ_OK)
		return r;
	r = submit_at(e, p, read_at, user, src_size, &frames);
	r = close_stream(e, r, src_size, frames, &io);
	if (in_bytes)
		*in_bytes = r == GPZ_OK ? src_size : 0;
	if (out_bytes)
		*out_bytes = io.out;
	return r;
}

gpz_result gpz_compress_stream_at_to(gpz_ctx *ctx, const gpz_params *p, gpz_read_at_fn read_at,
                                     uint64_t src_size, gpz_write_at_fn write_at, void *user,
                                     uint64_t *in_bytes, uint64_t *out_bytes)
{
	uint8_t h[GPZ_HEADER_SIZE], t[GPZ_TRAILER_SIZE];
	struct gpz_engine *e;
	uint32_t frames = 0;
	size_t hl = 0, tl = 0, end = 0;
	gpz_result r = read_at && write_at ? check_at(ctx, p, src_size) : GPZ_ERR_PARAM;

	if (in_bytes)
		*in_bytes = 0;
	if (out_bytes)
		*out_bytes = 0;
	if (r == GPZ_OK)
		r = gpz_write_header(h, sizeof h, &hl);
	if (r == GPZ_OK)
		r = write_at(user, h, hl, 0);
	if (r == GPZ_OK)
		r = gpz_engine_open(ctx, p, NULL, NULL, &e);
	if (r != GPZ_OK)
		return r;
	gpz_engine_append_at(e, write_at, user, hl);
	r = submit_at(e, p, read_at, user, src_size, &frames);
	{
		gpz_result re = gpz_engine_close(e, &end);
		r = re != GPZ_OK ? re : r;
	}
	if (r == GPZ_OK)
		r = gpz_write_trailer(src_size, frames, t, sizeof t, &tl);
	if (r == GPZ_OK)
		r = write_at(user, t, tl, end);
	if (r == GPZ_OK && in_bytes)
		*in_bytes = src_size;
	if (r == GPZ_OK && out_bytes)
		*out_bytes = end + tl;
	return r;
}

/* Frames read into one lane's buffer as one job (gpz_job_joins), not yet submitted. */
struct read_job {
	uint8_t *buf;
	size_t have, frames;
	uint64_t out, content;
};

static void submit_read(struct gpz_engine *e, struct read_job *j, int at)
{
	if (!j->frames)
		return;
	if (at) /* the content goes at the sum of the earlier frames' (each decode checks its own) */
		gpz_engine_submit_to(e, j->have, j->out);
	else
		gpz_engine_submit(e, NULL, j->have, NULL, 0);
	j->frames = 0;
}

/* Read the next block (its first `got` bytes are in pk) into a lane's buffer, after the frames
 * of the job there when it joins them (else that job is submitted first), or check it as the
 * stream's trailer. */
static gpz_result next_block(struct gpz_engine *e, struct io *io, uint8_t *pk, size_t got,
                             uint64_t *total, uint32_t *frames, int *end, struct read_job *j,
                             int at)
{
	gpz_block_info in;
	size_t more = 0, need, base;
	enum { READ_STEP = 64 << 20 };
	gpz_result r = got ? gpz_parse_block(pk, got, &in) : GPZ_ERR_TRUNCATED;

	if (r != GPZ_OK)
		return r;
	need = (size_t)in.block_bytes;
	if (in.kind == GPZ_BLOCK_TRAILER) {
		*end = 1;
		return gpz_read_trailer(pk, got, *total, *frames);
	}
	if (*frames == UINT32_MAX || in.content_bytes > GPZ_MAX_FRAME_BYTES)
		return GPZ_ERR_CORRUPT;
	if (!gpz_job_joins(j->content, j->frames, in.content_bytes)) {
		submit_read(e, j, at);
		/* the buffer grows as bytes arrive, so a corrupt size cannot make it huge up front */
		r = gpz_engine_next(e, need < READ_STEP ? need : READ_STEP, &j->buf);
		*j = (struct read_job){ j->buf, 0, 0, *total, 0 };
	}
	base = j->have;
	if (r == GPZ_OK)
		r = gpz_engine_grow(e, base + got, base, &j->buf);
	if (r == GPZ_OK)
		memcpy(j->buf + base, pk, got);
	for (size_t have = got; r == GPZ_OK && have < need; have += more) {
		size_t step = have > READ_STEP ? have : READ_STEP; /* doubling: few copies */
		size_t want = need - have <= step ? need : have + step;
		r = gpz_engine_grow(e, base + want, base + have, &j->buf);
		if (r == GPZ_OK)
			r = io_get(io, j->buf + base + have, want - have, &more);
		if (r == GPZ_OK && more < want - have)
			r = GPZ_ERR_TRUNCATED;
	}
	if (r != GPZ_OK)
		return r;
	j->have += need;
	j->content += in.content_bytes;
	j->frames++;
	*total += in.content_bytes;
	(*frames)++;
	return GPZ_OK;
}

/* The start of the next block into pk: a trailer's 20 bytes, or a frame's 32-byte header (a
 * trailer is told by its first byte, so nothing past the stream is read). */
static gpz_result peek_block(struct io *io, uint8_t *pk, size_t *got)
{
	size_t more = 0;
	gpz_result r = io_get(io, pk, GPZ_TRAILER_SIZE, got);

	if (r == GPZ_OK && *got == GPZ_TRAILER_SIZE && pk[0] != GPZ_TRAILER_TYPE)
		r = io_get(io, pk + *got, GPZ_BLOCK_PEEK_SIZE - *got, &more);
	*got += more;
	return r;
}

static gpz_result decompress_stream(gpz_ctx *ctx, gpz_read_fn read, gpz_write_fn write,
                                    gpz_write_at_fn write_at, void *user, uint64_t *in_bytes,
                                    uint64_t *out_bytes)
{
	struct io io = { read, write, user, 0, 0 };
	uint8_t pk[GPZ_BLOCK_PEEK_SIZE];
	struct gpz_engine *e = NULL;
	struct read_job job = { 0 };
	uint64_t total = 0;
	uint32_t frames = 0;
	size_t got;
	int end = 0;
	gpz_result r, re;

	if (!ctx || !read)
		return GPZ_ERR_PARAM;
	r = io_get(&io, pk, GPZ_HEADER_SIZE, &got);
	if (r == GPZ_OK)
		r = gpz_read_header(pk, got);
	if (r == GPZ_OK)
		r = gpz_engine_open(ctx, NULL, io_put, &io, &e);
	if (r == GPZ_OK && write_at)
		gpz_engine_positional_out(e, write_at, user);
	while (r == GPZ_OK && !end) {
		r = peek_block(&io, pk, &got);
		if (r == GPZ_OK)
			r = next_block(e, &io, pk, got, &total, &frames, &end, &job, write_at != NULL);
	}
	/* the frames read before an error are decoded: theirs come first */
	if (e)
		submit_read(e, &job, write_at != NULL);
	/* a frame's error comes before anything found after it (a later frame, the trailer) */
	re = e ? gpz_engine_close(e, NULL) : GPZ_OK;
	r = re != GPZ_OK ? re : r;
	if (write_at)
		io.out = r == GPZ_OK ? total : 0;
	if (in_bytes)
		*in_bytes = io.in;
	if (out_bytes)
		*out_bytes = io.out;
	return r;
}


gpz_result gpz_decompress_stream(gpz_ctx *ctx, gpz_read_fn read, gpz_write_fn write, void *user,
                                 uint64_t *in_bytes, uint64_t *out_bytes)
{
	return decompress_stream(ctx, read, write, NULL, user, in_bytes, out_bytes);
}

gpz_result gpz_decompress_stream_at(gpz_ctx *ctx, gpz_read_fn read, gpz_write_at_fn write_at,
                                    void *user, uint64_t *in_bytes, uint64_t *out_bytes)
{
	if (!write_at)
		return GPZ_ERR_PARAM;
	return decompress_stream(ctx, read, NULL, write_at, user, in_bytes, out_bytes);
}
