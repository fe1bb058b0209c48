/* stream.c - the .gpz stream around the frames: header, trailer, and the one-shot calls. */
#include "common/context.h"
#include "container/frame.h"
#include "common/bits.h"
#include "container/engine.h"

#include <string.h>

static const uint8_t magic[4] = { 0x89, 'G', 'P', 'Z' };
#define FORMAT_VERSION 1

gpz_result gpz_write_header(void *dst, size_t dst_cap, size_t *written)
{
	uint8_t *d = dst;

	if (!dst || !written)
		return GPZ_ERR_PARAM;
	if (dst_cap < GPZ_HEADER_SIZE)
		return GPZ_ERR_DST_TOO_SMALL;
	memcpy(d, magic, 4);
	d[4] = FORMAT_VERSION;
	d[5] = d[6] = d[7] = 0;
	*written = GPZ_HEADER_SIZE;
	return GPZ_OK;
}

gpz_result gpz_read_header(const void *src, size_t src_size)
{
	const uint8_t *s = src;

	if (!src)
		return GPZ_ERR_PARAM;
	if (src_size < GPZ_HEADER_SIZE)
		return src_size && memcmp(s, magic, src_size < 4 ? src_size : 4) ? GPZ_ERR_FORMAT
		                                                                 : GPZ_ERR_TRUNCATED;
	if (memcmp(s, magic, 4) || s[4] != FORMAT_VERSION)
		return GPZ_ERR_FORMAT;
	return s[5] || s[6] || s[7] ? GPZ_ERR_FORMAT : GPZ_OK;
}

gpz_result gpz_write_trailer(uint64_t total_bytes, uint32_t frame_count, void *dst,
                             size_t dst_cap, size_t *written)
{
	uint8_t *d = dst;

	if (!dst || !written)
		return GPZ_ERR_PARAM;
	if (dst_cap < GPZ_TRAILER_SIZE)
		return GPZ_ERR_DST_TOO_SMALL;
	d[0] = GPZ_TRAILER_TYPE;
	d[1] = d[2] = d[3] = 0;
	gpz_store_le32(d + 4, frame_count);
	gpz_store_le64(d + 8, total_bytes);
	gpz_store_le32(d + 16, gpz_header_check(d, 16));
	*written = GPZ_TRAILER_SIZE;
	return GPZ_OK;
}

gpz_result gpz_read_trailer(const void *src, size_t src_size, uint64_t total_bytes,
                            uint32_t frame_count)
{
	gpz_block_info in;
	gpz_result r = gpz_parse_block(src, src_size, &in);

	if (r != GPZ_OK)
		return r;
	if (in.kind != GPZ_BLOCK_TRAILER)
		return GPZ_ERR_CORRUPT;
	return in.total_bytes == total_bytes && in.frame_count == frame_count ? GPZ_OK
	                                                                      : GPZ_ERR_CORRUPT;
}

size_t gpz_compress_bound(size_t src_size, const gpz_params *p)
{
	size_t frames, per_frame;

	if (gpz_params_check(p) != GPZ_OK)
		return 0;
	frames = src_size / p->frame_bytes + 1;
	per_frame = gpz_frame_bound(0, p);
	return GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE + frames * per_frame + src_size;
}

gpz_result gpz_compress(gpz_ctx *ctx, const gpz_params *p, const void *src, size_t src_size,
                        void *dst, size_t dst_cap, size_t *dst_size)
{
	const uint8_t *s = src;
	uint8_t *d = dst;
	struct gpz_engine *e;
	size_t done = 0, w = 0, pos, job;
	uint32_t frames = 0;
	gpz_result r, re;

	if (!ctx || !dst_size || gpz_params_check(p) != GPZ_OK || (!src && src_size) || !dst)
		return GPZ_ERR_PARAM;
	*dst_size = 0;
	if (src_size % (size_t)p->symbol_bytes)
		return GPZ_ERR_SIZE_ALIGN;
	if ((src_size + p->frame_bytes - 1) / p->frame_bytes > UINT32_MAX)
		return GPZ_ERR_PARAM; /* too many frames: a larger frame_bytes is needed */
	job = gpz_job_bytes(p);
	r = gpz_write_header(dst, dst_cap, &w);
	if (r == GPZ_OK)
		r = gpz_engine_open(ctx, p, NULL, NULL, &e);
	if (r != GPZ_OK)
		return r;
	gpz_engine_sink(e, dst, dst_cap, w);
	while (r == GPZ_OK && done < src_size) { /* each lane copies its job from src itself */
		size_t piece = src_size - done < job ? src_size - done : job;
		r = gpz_engine_next(e, 0, NULL);
		if (r == GPZ_OK)
			gpz_engine_submit(e, s + done, piece, NULL, 0);
		done += piece;
		frames += (uint32_t)((piece + p->frame_bytes - 1) / p->frame_bytes);
	}
	re = gpz_engine_close(e, &pos);
	r = re != GPZ_OK ? re : r;
	if (r == GPZ_OK)
		r = gpz_write_trailer(src_size, frames, d + pos, dst_cap - pos, &w);
	if (r == GPZ_OK)
		*dst_size = pos + w;
	return r;
}

/* Frames gathered into one job of the engine (gpz_job_joins): from s + at, len bytes, their
 * content into dst + out. */
struct walk_job {
	size_t at, len, frames;
	uint64_t out, content;
};

static gpz_result submit_job(struct gpz_engine *e, const uint8_t *s, uint8_t *dst,
                             struct walk_job *j)
{
	gpz_result r = GPZ_OK;

	if (e && j->frames) {
		r = gpz_engine_next(e, 0, NULL);
		if (r == GPZ_OK)
			gpz_engine_submit(e, s + j->at, j->len, dst ? dst + j->out : NULL,
			                  dst ? (size_t)j->content : 0);
	}
	j->frames = 0;
	return r;
}

/* Walk one stream from its header; decode frames into dst through the engine when e is not
 * NULL, else only sum their sizes. Sets *consumed and *produced. */
static gpz_result walk_stream(struct gpz_engine *e, const uint8_t *s, size_t size, uint8_t *dst,
                              size_t dst_cap, size_t *consumed, uint64_t *produced)
{
	size_t pos = GPZ_HEADER_SIZE;
	uint64_t total = 0;
	uint32_t frames = 0;
	struct walk_job j = { 0 };
	gpz_result r = gpz_read_header(s, size), rj;

	while (r == GPZ_OK) {
		gpz_block_info in;
		r = gpz_parse_block(s + pos, size - pos, &in);
		if (r != GPZ_OK)
			break;
		if (in.block_bytes > size - pos) {
			r = GPZ_ERR_TRUNCATED;
			break;
		}
		if (in.kind == GPZ_BLOCK_TRAILER) {
			r = gpz_read_trailer(s + pos, size - pos, total, frames);
			pos += GPZ_TRAILER_SIZE;
			break;
		}
		if (e && in.content_bytes > dst_cap - total)
			r = GPZ_ERR_DST_TOO_SMALL;
		if (r == GPZ_OK && frames == UINT32_MAX)
			r = GPZ_ERR_CORRUPT;
		if (r == GPZ_OK && !gpz_job_joins(j.content, j.frames, in.content_bytes))
			r = submit_job(e, s, dst, &j);
		if (r != GPZ_OK)
			break;
		if (j.frames == 0)
			j = (struct walk_job){ pos, 0, 0, total, 0 };
		j.len += (size_t)in.block_bytes;
		j.content += in.content_bytes;
		j.frames++;
		pos += (size_t)in.block_bytes;
		total += in.content_bytes;
		frames++;
	}
	/* the frames before an error are decoded: theirs come first */
	rj = submit_job(e, s, dst, &j);
	*consumed = pos;
	*produced = total;
	return r != GPZ_OK ? r : rj;
}

/* Decode or measure every concatenated stream in src. */
static gpz_result walk_all(struct gpz_engine *e, const uint8_t *s, size_t size, uint8_t *dst,
                           size_t dst_cap, uint64_t *total)
{
	size_t pos = 0;
	gpz_result r;

	*total = 0;
	do {
		size_t used;
		uint64_t got;
		r = walk_stream(e, s + pos, size - pos, dst ? dst + *total : NULL,
		                dst ? dst_cap - (size_t)*total : 0, &used, &got);
		pos += used;
		*total += got;
	} while (r == GPZ_OK && pos < size);
	return r;
}

gpz_result gpz_decompress(gpz_ctx *ctx, const void *src, size_t src_size, void *dst,
                          size_t dst_cap, size_t *dst_size)
{
	struct gpz_engine *e;
	uint64_t total;
	gpz_result r, re;

	if (!ctx || !src || !dst_size || (!dst && dst_cap))
		return GPZ_ERR_PARAM;
	*dst_size = 0;
	r = gpz_engine_open(ctx, NULL, NULL, NULL, &e);
	if (r != GPZ_OK)
		return r;
	r = walk_all(e, src, src_size, dst, dst_cap, &total);
	/* a frame's error comes before anything found after it (a later frame, the trailer) */
	re = gpz_engine_close(e, NULL);
	r = re != GPZ_OK ? re : r;
	if (r == GPZ_OK)
		*dst_size = (size_t)total;
	return r;
}

gpz_result gpz_decompressed_size(const void *src, size_t src_size, uint64_t *size)
{
	if (!src || !size)
		return GPZ_ERR_PARAM;
	return walk_all(NULL, src, src_size, NULL, 0, size);
}
