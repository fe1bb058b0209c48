/* stream.c - gzip / zlib / raw deflate streams from pieces of GPZ_DEFLATE_PIECE bytes.
 *
 * Piece k covers input bytes [k * PIECE, (k + 1) * PIECE); it is parsed with the 32 KiB before it
 * as history and coded as its own DEFLATE blocks into a private buffer, so a batch of pieces
 * compresses in parallel. The pieces' bit strings are then appended in order (DEFLATE blocks need
 * not end on a byte boundary; a piece holding stored blocks, which were padded as if the piece
 * started on a byte boundary, gets an empty stored block before it when it would start mid-byte),
 * and only the stream's last block carries BFINAL. Piece boundaries are fixed positions of the
 * input, so the output never depends on threads or on how the caller feeds the stream.
 *
 * On a GPU context (and an AUTO one from GPU_AUTO_MIN bytes on) the one-shot
 * gpz_deflate_compress runs the same pieces on the device (deflate.cu: the same matches,
 * parse and block decisions, computed in parallel, the pieces joined there) and only the
 * gzip/zlib header and trailer are written here, the checksum and the piece offsets coming from
 * the device: the bytes are those of the CPU. The streaming API runs on the CPU. */
#include "common/bits.h"
#include "common/context.h"
#include "common/crc_combine.h"
#include "deflate/deflate.h"
#include "common/checksum_gpu.h"
#include "deflate/deflate_gpu.h"
#include "gpu/gpu.h"
#include "lz/lz.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PIECE GPZ_DEFLATE_PIECE
#define HIST GPZ_LZ_WINDOW
#define MAX_BATCH 64 /* pieces compressed at once: bounds memory at ~6 MiB a piece */
#define GPU_AUTO_MIN ((size_t)64 << 20) /* one-shot input from which AUTO contexts use the GPU */

struct gpz_deflate_stream {
	gpz_ctx *ctx;
	int level;
	gpz_format format;
	char *name;
	uint32_t mtime;
	uint8_t *buf;          /* history (hist bytes) then pending input */
	size_t hist, pending, batch;
	struct gpz_dfl_piece *out; /* batch entries */
	uint32_t check;        /* running CRC-32 or Adler-32 */
	uint64_t total;
	uint64_t acc;          /* stream bits not yet written */
	unsigned nb;
	int started, finished;
	uint32_t index_np;     /* pieces the gzip piece index has room for (0: no index) */
	uint32_t *piece_bits;  /* their lengths in bits as they are appended */
	size_t pieces;         /* pieces appended */
	uint8_t *hdr;          /* the header as first written */
	size_t hl;
};

#define INDEX_SUB 8 /* piece index subfield: version, log2 piece, 2 reserved, count; then u32s */

/* Bytes the gzip piece index adds to the header for np pieces (0 = none). */
static size_t index_bytes(uint32_t np)
{
	return np ? 2 + 4 + INDEX_SUB + 4 * (size_t)np : 0;
}

/* Pieces of an n-byte stream, or 0 when the index would not fit (an empty stream is one). */
static uint32_t index_pieces(uint64_t n)
{
	uint64_t np = n ? (n - 1) / PIECE + 1 : 1;
	return np <= GPZ_GZIP_INDEX_MAX_PIECES ? (uint32_t)np : 0;
}

size_t gpz_deflate_update_bound(size_t n)
{
	/* at most a piece pending from earlier calls, plus the pieces' worst case, header (name,
	 * piece index), trailer */
	return n + PIECE + (n + PIECE) / 256 + 4400 + index_bytes(GPZ_GZIP_INDEX_MAX_PIECES);
}

size_t gpz_deflate_bound(size_t n)
{
	return gpz_deflate_update_bound(n);
}

void gpz_deflate_stream_free(gpz_deflate_stream *st)
{
	if (!st)
		return;
	if (st->out)
		for (size_t i = 0; i < st->batch; i++)
			free(st->out[i].buf);
	free(st->out);
	free(st->buf);
	free(st->name);
	free(st->piece_bits);
	free(st->hdr);
	free(st);
}

gpz_result gpz_deflate_stream_create(gpz_ctx *ctx, int level, gpz_format format,
                                     const gpz_gzip_info *gzip, gpz_deflate_stream **out)
{
	gpz_deflate_stream *st;

	if (!ctx || !out || level < 1 || level > 9 || format < GPZ_FORMAT_GZIP ||
	    format > GPZ_FORMAT_DEFLATE)
		return GPZ_ERR_PARAM;
	st = calloc(1, sizeof(*st));
	if (!st)
		return GPZ_ERR_NOMEM;
	st->ctx = ctx;
	st->level = level;
	st->format = format;
	/* four pieces a thread: a batch waits for its slowest piece, and joins alone */
	st->batch = (size_t)(ctx->nthreads > 1 ? 4 * ctx->nthreads : 1);
	if (st->batch > MAX_BATCH)
		st->batch = MAX_BATCH;
	/* one piece more than a batch: the piece holding the newest byte waits for the next call */
	st->buf = malloc(HIST + (st->batch + 1) * PIECE);
	st->out = calloc(st->batch, sizeof(*st->out));
	if (gzip && gzip->name)
		st->name = strdup(gzip->name);
	st->mtime = gzip ? gzip->mtime : 0;
	if (gzip && gzip->index_size && format == GPZ_FORMAT_GZIP)
		st->index_np = index_pieces(gzip->index_size);
	st->piece_bits = st->index_np ? calloc(st->index_np, sizeof(*st->piece_bits)) : NULL;
	st->hdr = malloc(4200 + index_bytes(st->index_np));
	st->check = format == GPZ_FORMAT_ZLIB ? (uint32_t)adler32(0L, Z_NULL, 0)
	                                      : (uint32_t)crc32(0L, Z_NULL, 0);
	for (size_t i = 0; st->out && i < st->batch; i++) {
		st->out[i].cap = gpz_deflate_piece_cap(PIECE);
		st->out[i].buf = malloc(st->out[i].cap);
		if (!st->out[i].buf)
			break;
	}
	if (!st->buf || !st->out || (gzip && gzip->name && !st->name) ||
	    !st->out[st->batch - 1].buf || !st->hdr || (st->index_np && !st->piece_bits)) {
		gpz_deflate_stream_free(st);
		return GPZ_ERR_NOMEM;
	}
	*out = st;
	return GPZ_OK;
}

/* ---- output ---- */

struct sink {
	uint8_t *p, *end;
	int overflow;
};

static void sink_bytes(struct sink *k, const uint8_t *b, size_t n)
{
	if (n == 0) /* b may be NULL then (a piece of bits only) */
		return;
	if ((size_t)(k->end - k->p) < n) {
		k->overflow = 1;
		return;
	}
	memcpy(k->p, b, n);
	k->p += n;
}

/* Append n whole bytes and then `nb` bits to the stream's pending bits. */
static void append_bits(gpz_deflate_stream *st, struct sink *k, const uint8_t *b, size_t n,
                        uint64_t acc, unsigned nb)
{
	if (st->nb == 0) {
		sink_bytes(k, b, n);
	} else { /* shifted by nb bits: eight bytes at a time, then the rest */
		size_t i = 0;
		for (; i + 8 <= n; i += 8) {
			uint64_t w = gpz_load_le64(b + i);
			uint8_t o[8];
			gpz_store_le64(o, st->acc | (w << st->nb));
			sink_bytes(k, o, 8);
			st->acc = w >> (64 - st->nb);
		}
		for (; i < n; i++) {
			uint8_t byte = (uint8_t)(st->acc | ((uint64_t)b[i] << st->nb));
			sink_bytes(k, &byte, 1);
			st->acc = (uint64_t)b[i] >> (8 - st->nb);
		}
	}
	st->acc |= acc << st->nb;
	st->nb += nb;
	while (st->nb >= 8) {
		uint8_t byte = (uint8_t)st->acc;
		sink_bytes(k, &byte, 1);
		st->acc >>= 8;
		st->nb -= 8;
	}
}

/*
 * The stream's header: gzip (RFC 1952: FEXTRA with the piece index when np > 0, FNAME when there
 * is a name), zlib (RFC 1950) or nothing. The index (docs/FORMAT.md) is subfield 'G','P':
 * version (1, or 0 while bits is NULL: reserved, not filled), log2 of the piece size, two zero
 * bytes, the piece count, then each piece's length in bits in the deflate stream (u32 LE each).
 */
static size_t write_header(gpz_format format, int level, const char *gz_name, uint32_t mtime,
                           uint32_t np, const uint32_t *bits, uint8_t *d)
{
	if (format == GPZ_FORMAT_GZIP) {
		size_t o = 10, name = gz_name ? strlen(gz_name) : 0;
		if (name > 4095)
			name = 4095;
		d[0] = 0x1f;
		d[1] = 0x8b;
		d[2] = 8;                                              /* CM: deflate */
		d[3] = (uint8_t)((name ? 0x08 : 0) | (np ? 0x04 : 0)); /* FLG: FNAME, FEXTRA */
		gpz_store_le32(d + 4, mtime);
		d[8] = level >= 9 ? 2 : level == 1 ? 4 : 0; /* XFL */
		d[9] = 3;                                    /* OS: Unix */
		if (np) {
			size_t sub = INDEX_SUB + 4 * (size_t)np;
			gpz_store_le16(d + o, (uint16_t)(4 + sub)); /* XLEN */
			d[o + 2] = 'G';
			d[o + 3] = 'P';
			gpz_store_le16(d + o + 4, (uint16_t)sub);
			o += 6;
			d[o] = bits ? 1 : 0;
			d[o + 1] = 20; /* log2 GPZ_DEFLATE_PIECE */
			d[o + 2] = d[o + 3] = 0;
			gpz_store_le32(d + o + 4, np);
			o += INDEX_SUB;
			for (uint32_t i = 0; i < np; i++, o += 4)
				gpz_store_le32(d + o, bits ? bits[i] : 0);
		}
		if (name) {
			memcpy(d + o, gz_name, name);
			o += name;
			d[o++] = 0;
		}
		return o;
	}
	if (format == GPZ_FORMAT_ZLIB) {
		unsigned flevel = level <= 1 ? 0 : level <= 5 ? 1 : level == 6 ? 2 : 3;
		unsigned cmf = 0x78, flg = flevel << 6;
		flg += 31 - (cmf * 256 + flg) % 31;
		d[0] = (uint8_t)cmf;
		d[1] = (uint8_t)flg;
		return 2;
	}
	return 0;
}

gpz_result gpz_deflate_stream_header(const gpz_deflate_stream *st, void *dst, size_t dst_cap,
                                     size_t *len)
{
	if (!st || !len || (!dst && dst_cap))
		return GPZ_ERR_PARAM;
	*len = 0;
	if (!st->index_np || !st->finished || st->pieces != st->index_np)
		return GPZ_ERR_PARAM;
	if (dst_cap < st->hl)
		return GPZ_ERR_DST_TOO_SMALL;
	*len = write_header(st->format, st->level, st->name, st->mtime, st->index_np,
	                    st->piece_bits, dst);
	return GPZ_OK;
}

static void put_trailer(gpz_deflate_stream *st, struct sink *k)
{
	uint8_t t[8];
	if (st->nb)
		append_bits(st, k, NULL, 0, 0, 8 - st->nb);
	if (st->format == GPZ_FORMAT_GZIP) {
		gpz_store_le32(t, st->check);
		gpz_store_le32(t + 4, (uint32_t)st->total);
		sink_bytes(k, t, 8);
	} else if (st->format == GPZ_FORMAT_ZLIB) {
		for (int i = 0; i < 4; i++)
			t[i] = (uint8_t)(st->check >> (24 - 8 * i));
		sink_bytes(k, t, 4);
	}
}

/* ---- pieces ---- */

/* Compress pending bytes and keep the last 32 KiB as history. Unless `last`, only whole pieces
 * that end before the newest byte go: the piece holding the stream's final byte must be the one
 * that carries BFINAL, whatever the batch size or the way the caller fed the stream. */
static gpz_result run_batch(gpz_deflate_stream *st, struct sink *k, int last)
{
	size_t bytes = last ? st->pending : st->pending ? (st->pending - 1) / PIECE * PIECE : 0;
	size_t npieces = (bytes + PIECE - 1) / PIECE, keep;
	int final = last;

	if (npieces > st->batch) { /* a whole batch first, the rest after */
		npieces = st->batch;
		bytes = st->batch * PIECE;
		final = 0;
	}
	if (npieces == 0 && final)
		npieces = 1; /* empty stream: one empty final block */
	if (npieces == 0)
		return GPZ_OK;
	gpz_deflate_pieces(st->ctx->nthreads, st->buf, st->hist, bytes, st->level, 0, final,
	                   st->format == GPZ_FORMAT_ZLIB ? GPZ_DFL_CHECK_ADLER32 : GPZ_DFL_CHECK_CRC32,
	                   st->out);
	for (size_t i = 0; i < npieces; i++) {
		size_t len = bytes - i * PIECE < PIECE ? bytes - i * PIECE : PIECE;
		st->check = st->format == GPZ_FORMAT_ZLIB
		          ? gpz_adler32_combine(st->check, st->out[i].check, len)
		          : gpz_crc32_combine(st->check, st->out[i].check, len);
		if (st->out[i].r != GPZ_OK)
			return st->out[i].r;
		/* a piece with stored blocks was padded as if it started on a byte boundary: when it
		 * does not, an empty stored block takes the stream there (gpz_deflate_marker_bits) */
		unsigned mk = gpz_deflate_marker_bits(st->nb, st->out[i].stored);
		if (mk) {
			append_bits(st, k, NULL, 0, 0, 3);
			append_bits(st, k, NULL, 0, 0, (8 - st->nb) % 8);
			append_bits(st, k, NULL, 0, 0xffff0000u, 32);
		}
		if (st->pieces < st->index_np)
			st->piece_bits[st->pieces] =
				(uint32_t)(mk + 8 * st->out[i].bytes + st->out[i].nb);
		st->pieces++;
		append_bits(st, k, st->out[i].buf, st->out[i].bytes, st->out[i].acc, st->out[i].nb);
	}
	/* history for the next batch: the HIST bytes before the first unprocessed byte */
	keep = st->hist + bytes < HIST ? st->hist + bytes : HIST;
	memmove(st->buf, st->buf + st->hist + bytes - keep, keep + st->pending - bytes);
	st->pending -= bytes;
	st->hist = keep;
	if (k->overflow)
		return GPZ_ERR_DST_TOO_SMALL;
	return final == last ? GPZ_OK : run_batch(st, k, last);
}

gpz_result gpz_deflate_update(gpz_deflate_stream *st, const void *src, size_t src_size, int last,
                              void *dst, size_t dst_cap, size_t *written)
{
	const uint8_t *s = src;
	struct sink k = { dst, (uint8_t *)dst + dst_cap, 0 };
	gpz_result r = GPZ_OK;

	if (!st || !written || (!src && src_size) || (!dst && dst_cap))
		return GPZ_ERR_PARAM;
	*written = 0;
	if (st->finished)
		return GPZ_ERR_PARAM;
	if (!st->started) {
		st->hl = write_header(st->format, st->level, st->name, st->mtime, st->index_np, NULL,
		                      st->hdr);
		sink_bytes(&k, st->hdr, st->hl);
		st->started = 1;
	}
	st->total += src_size;
	while (r == GPZ_OK && src_size) {
		size_t room = (st->batch + 1) * PIECE - st->pending;
		size_t take = src_size < room ? src_size : room;
		memcpy(st->buf + st->hist + st->pending, s, take);
		st->pending += take;
		s += take;
		src_size -= take;
		if (st->pending == (st->batch + 1) * PIECE)
			r = run_batch(st, &k, 0);
	}
	if (r == GPZ_OK)
		r = run_batch(st, &k, last);
	if (r == GPZ_OK && last) {
		put_trailer(st, &k);
		st->finished = 1;
	}
	if (r == GPZ_OK && k.overflow)
		r = GPZ_ERR_DST_TOO_SMALL;
	*written = (size_t)(k.p - (uint8_t *)dst);
	return r;
}

/* The raw stream of n bytes on the context's GPU, into dst (*raw bytes), with its checksum
 * (CRC-32 for gzip, Adler-32 for zlib) and, when off is not NULL, the pieces' bit offsets. The
 * input is staged in the context's buffers; the raw stream, the status and the checksum share
 * its output buffer. */
static gpz_result raw_on_gpu(struct gpz_gpu *g, int level, gpz_format format, const uint8_t *src,
                             size_t n, uint8_t *dst, size_t dst_cap, size_t *raw, uint32_t *check,
                             uint64_t *off)
{
	size_t work = gpz_gpu_deflate_work(n), cap = gpz_gpu_deflate_raw_bound(n);
	size_t tail = (cap + 255) & ~(size_t)255, np = n ? (n - 1) / PIECE + 1 : 1;
	gpz_gpu_deflate_status *d_status, status = { 0, 0, 0 };
	uint32_t *d_check;
	gpz_result r = gpz_gpu_reserve(&g->in, &g->in_cap, n);

	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->out, &g->out_cap, tail + 256);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->work, &g->work_cap, work);
	if (r != GPZ_OK)
		return r;
	d_status = (gpz_gpu_deflate_status *)(g->out + tail);
	d_check = (uint32_t *)(g->out + tail + 128);
	r = gpz_gpu_to_device(g, g->in, src, n);
	if (r == GPZ_OK)
		r = gpz_gpu_deflate_raw(g->in, n, level, g->out, cap, d_status, g->work, work,
		                        g->stream);
	if (r == GPZ_OK && format == GPZ_FORMAT_GZIP)
		r = gpz_gpu_crc32(g->in, n, d_check, g->stream);
	if (r == GPZ_OK && format == GPZ_FORMAT_ZLIB)
		r = gpz_gpu_adler32(g->in, n, d_check, g->stream);
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, &status, d_status, sizeof(status));
	if (r == GPZ_OK && format != GPZ_FORMAT_DEFLATE)
		r = gpz_gpu_to_host(g, check, d_check, sizeof(*check));
	if (r == GPZ_OK && status.result != GPZ_OK)
		r = (gpz_result)status.result;
	*raw = (size_t)((status.bits + 7) / 8);
	if (r == GPZ_OK && *raw > dst_cap)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, dst, g->out, *raw);
	if (r == GPZ_OK && off)
		r = gpz_gpu_to_host(g, off, gpz_gpu_deflate_piece_offsets(g->work, n),
		                    (np + 1) * sizeof(*off));
	return r;
}

/* The one-shot stream on the GPU: the raw stream, its checksum and piece offsets from the
 * device; header (with the piece index for gzip) and trailer here. */
static gpz_result compress_gpu(struct gpz_gpu *g, int level, gpz_format format,
                               const gpz_gzip_info *gzip, const uint8_t *src, size_t n,
                               uint8_t *dst, size_t dst_cap, size_t *dst_size)
{
	const char *name = gzip ? gzip->name : NULL;
	uint32_t mtime = gzip ? gzip->mtime : 0;
	uint32_t np = format == GPZ_FORMAT_GZIP ? index_pieces(n) : 0;
	size_t tl = format == GPZ_FORMAT_GZIP ? 8 : format == GPZ_FORMAT_ZLIB ? 4 : 0, raw = 0, hl;
	uint8_t *h = malloc(4200 + index_bytes(np));
	uint64_t *off = np ? malloc((np + 1) * sizeof(*off)) : NULL;
	uint32_t *bits = np ? malloc(np * sizeof(*bits)) : NULL;
	uint32_t check = 0;
	gpz_result r = GPZ_ERR_NOMEM;

	if (!h || (np && (!off || !bits)))
		goto done;
	hl = write_header(format, level, name, mtime, np, NULL, h);
	r = GPZ_ERR_DST_TOO_SMALL;
	if (dst_cap < hl + tl)
		goto done;
	r = raw_on_gpu(g, level, format, src, n, dst + hl, dst_cap - hl - tl, &raw, &check, off);
	if (r != GPZ_OK)
		goto done;
	for (uint32_t i = 0; i < np; i++)
		bits[i] = (uint32_t)(off[i + 1] - off[i]);
	write_header(format, level, name, mtime, np, bits, h);
	memcpy(dst, h, hl);
	if (format == GPZ_FORMAT_GZIP) {
		gpz_store_le32(dst + hl + raw, check);
		gpz_store_le32(dst + hl + raw + 4, (uint32_t)n);
	} else if (format == GPZ_FORMAT_ZLIB) {
		for (int i = 0; i < 4; i++)
			dst[hl + raw + i] = (uint8_t)(check >> (24 - 8 * i));
	}
	*dst_size = hl + raw + tl;
done:
	free(h);
	free(off);
	free(bits);
	return r;
}

gpz_result gpz_deflate_compress(gpz_ctx *ctx, int level, gpz_format format,
                                const gpz_gzip_info *gzip, const void *src, size_t src_size,
                                void *dst, size_t dst_cap, size_t *dst_size)
{
	gpz_deflate_stream *st;
	gpz_result r;

	if (!dst_size)
		return GPZ_ERR_PARAM;
	*dst_size = 0;
	/* GPU contexts get the GPU (the same bytes); AUTO contexts from GPU_AUTO_MIN on, where it
	 * is well ahead of the CPU's threads even with the copies (bench/results), and they fall
	 * back to the CPU when the GPU lacks the memory. */
	if (ctx && ctx->backend == GPZ_BACKEND_GPU && ctx->gpu &&
	    (ctx->gpu_asked || src_size >= GPU_AUTO_MIN)) {
		if (level < 1 || level > 9 || format < GPZ_FORMAT_GZIP || format > GPZ_FORMAT_DEFLATE ||
		    (!src && src_size) || (!dst && dst_cap))
			return GPZ_ERR_PARAM;
		r = compress_gpu(ctx->gpu, level, format, gzip, src, src_size, dst, dst_cap, dst_size);
		if (ctx->gpu_asked || (r != GPZ_ERR_NOMEM && r != GPZ_ERR_GPU))
			return r;
		*dst_size = 0;
	}
	/* gzip gets the piece index: the whole output is in dst, so its header is rewritten */
	gpz_gzip_info gi = { gzip ? gzip->name : NULL, gzip ? gzip->mtime : 0, src_size ? src_size : 1 };
	r = gpz_deflate_stream_create(ctx, level, format, &gi, &st);
	if (r != GPZ_OK)
		return r;
	r = gpz_deflate_update(st, src, src_size, 1, dst, dst_cap, dst_size);
	if (r == GPZ_OK && st->index_np) {
		size_t hl;
		r = gpz_deflate_stream_header(st, dst, dst_cap, &hl);
	}
	gpz_deflate_stream_free(st);
	if (r != GPZ_OK)
		*dst_size = 0;
	return r;
}
