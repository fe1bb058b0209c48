/* stream.c - gzip / zlib / raw deflate streams from pieces of GPZ_DEFLATE_PIECE bytes.
 *
 * Piece k covers input bytes [k * PIECE, (k + 1) * PIECE); it is parsed with the 32 KiB before it
 * as history and coded as its own DEFLATE blocks, ending on a byte boundary (BFINAL on the
 * stream's last piece, a sync marker after the others), so a batch of pieces compresses in
 * parallel and the stream is their bytes one after another. Piece boundaries are fixed positions
 * of the input, so the output never depends on threads, batches or how the caller feeds the
 * stream. This file keeps the stream's state (header, checksum, piece index, trailer) and runs the
 * streaming calls' batches on the CPU; container/deflate_io.c runs whole inputs through the frame
 * engine, on the GPU when the context has one. */
#include "deflate/stream.h"
#include "common/bits.h"
#include "common/context.h"
#include "common/crc_combine.h"
#include "lz/lz.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PIECE GPZ_DEFLATE_PIECE
#define HIST GPZ_LZ_WINDOW
#define INDEX_SUB 12 /* index subfield: version, log2, 2 reserved, count, CRC-32; then u32s */

/* Bytes the gzip piece index adds to the header for np pieces (0 = none). */
static size_t index_bytes(uint32_t np)
{
	return np ? 2 + 4 + INDEX_SUB + 4 * (size_t)np : 0;
}

_Static_assert(GPZ_DEFLATE_PIECE == GPZ_GZIP_PIECE_BYTES, "the public piece size is the coder's");

/* The most entries an index takes: the format's; a test (GPZ_TEST_INDEX_ENTRIES) lowers it to
 * reach coarser entries without gigabytes of input. */
static size_t index_max(size_t format_max)
{
	static atomic_long test = -1;
	long t = atomic_load(&test);
	if (t < 0) {
		const char *e = getenv("GPZ_TEST_INDEX_ENTRIES");
		t = e ? atol(e) : 0;
		atomic_store(&test, t);
	}
	return t > 0 && (size_t)t < format_max ? (size_t)t : format_max;
}

/* Index entries for np pieces (an empty stream is one piece), each covering 2^*log of them so
 * that they fit the extra field: inputs past 16379 pieces (4.29 GB) get coarser entries. */
static uint32_t index_entries(uint64_t np, unsigned *log)
{
	*log = 0;
	while (((np - 1) >> *log) + 1 > index_max(GPZ_GZIP_INDEX_MAX_PIECES))
		++*log;
	return (uint32_t)(((np - 1) >> *log) + 1);
}

static uint32_t index_pieces(uint64_t n, unsigned *log)
{
	return index_entries(n ? (n - 1) / PIECE + 1 : 1, log);
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
	free(st->buf);
	free(st->obuf);
	free(st->name);
	free(st->piece_bytes);
	free(st->tail);
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
	st->check_kind = format == GPZ_FORMAT_ZLIB ? GPZ_DFL_CHECK_ADLER32
	               : format == GPZ_FORMAT_GZIP ? GPZ_DFL_CHECK_CRC32 : GPZ_DFL_CHECK_NONE;
	if (gzip && gzip->name)
		st->name = strdup(gzip->name);
	st->mtime = gzip ? gzip->mtime : 0;
	if (gzip && gzip->index_size && format == GPZ_FORMAT_GZIP)
		st->index_np = index_pieces(gzip->index_size, &st->index_log);
	else if (gzip && gzip->tail_index && format == GPZ_FORMAT_GZIP)
		st->tail_index = 1;
	/* pieces alone only where an index will say so: without one they would cost size for
	 * nothing (a reader cannot know) */
	st->group = st->index_np || st->tail_index ? gpz_dfl_group(format, level) : 0;
	st->piece_bytes = st->index_np ? calloc(st->index_np, sizeof(*st->piece_bytes)) : NULL;
	st->hdr = malloc(4200 + index_bytes(st->index_np));
	st->check = st->check_kind == GPZ_DFL_CHECK_ADLER32 ? 1u : 0u;
	if ((gzip && gzip->name && !st->name) || !st->hdr || (st->index_np && !st->piece_bytes)) {
		gpz_deflate_stream_free(st);
		return GPZ_ERR_NOMEM;
	}
	*out = st;
	return GPZ_OK;
}

/*
 * The stream's header: gzip (RFC 1952: FEXTRA with the piece index when np > 0, or with the
 * note that it trails the stream, FNAME when there is a name), zlib (RFC 1950) or nothing. The
 * index (docs/FORMAT.md) is subfield 'G','P': version (4; 6 when pieces are alone or cut; 0
 * while len is NULL: reserved, not filled; 8, four bytes, the note that it trails), log2
 * of the bytes an entry stands for, flags (version 6: bit 0, the pieces alone; bit 1, entries
 * alone at a period), the period's log2 in entries (0 without bit 1), the entry count, the
 * index's CRC-32, then each entry's length in bytes in the deflate stream (u32 LE each).
 */
/* The index's flags (versions 6 and 7) and its fourth byte for a stream coded with `group`
 * whose entries stand for 2^log pieces: pieces alone, or entries alone at a period (the cut's
 * 2^GPZ_DFL_CUT_LOG pieces in entries: every entry when an entry holds as many). */
static unsigned index_flags(int group, unsigned log, uint8_t *period_log)
{
	*period_log = 0;
	if (group == GPZ_DFL_ALONE)
		return GPZ_GZIP_INDEX_ALONE;
	if (group == GPZ_DFL_CUT) {
		*period_log = (uint8_t)(log < GPZ_DFL_CUT_LOG ? GPZ_DFL_CUT_LOG - log : 0);
		return GPZ_GZIP_INDEX_CUT;
	}
	return 0;
}

static size_t write_header(gpz_format format, int level, int group, const char *gz_name,
                           uint32_t mtime, uint32_t np, unsigned log, const uint32_t *len,
                           int trails, uint8_t *d)
{
	if (format == GPZ_FORMAT_GZIP) {
		size_t o = 10, name = gz_name ? strlen(gz_name) : 0;
		if (name > 4095)
			name = 4095;
		trails = trails && !np;
		d[0] = 0x1f;
		d[1] = 0x8b;
		d[2] = 8; /* CM: deflate */
		d[3] = (uint8_t)((name ? 0x08 : 0) | (np || trails ? 0x04 : 0)); /* FNAME, FEXTRA */
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
			uint8_t period = 0;
			unsigned flags = len ? index_flags(group, log, &period) : 0;
			d[o] = len ? (flags ? 6 : 4) : 0;
			d[o + 1] = (uint8_t)(GPZ_DEFLATE_PIECE_LOG + log);
			d[o + 2] = (uint8_t)flags;
			d[o + 3] = period;
			gpz_store_le32(d + o + 4, np);
			for (uint32_t i = 0; i < np; i++)
				gpz_store_le32(d + o + INDEX_SUB + 4 * i, len ? len[i] : 0);
			gpz_store_le32(d + o + 8, gpz_gzip_index_crc(d + o, d + o + INDEX_SUB, np));
			o += INDEX_SUB + 4 * (size_t)np;
		}
		if (trails) { /* the index will follow the stream: a reader of a pipe may look ahead */
			static const uint8_t sub[10] = { 8, 0, 'G', 'P', 4, 0, GPZ_GZIP_TRAILS, 0, 0, 0 };
			memcpy(d + o, sub, sizeof(sub)); /* XLEN 8, then the subfield */
			o += sizeof(sub);
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
	if (!st->index_np || !st->finished || !st->pieces ||
	    ((st->pieces - 1) >> st->index_log) + 1 != st->index_np)
		return GPZ_ERR_PARAM;
	if (dst_cap < st->hl)
		return GPZ_ERR_DST_TOO_SMALL;
	*len = write_header(st->format, st->level, st->group, st->name, st->mtime,
	                    st->index_np, st->index_log, st->piece_bytes, 0, dst);
	return GPZ_OK;
}

/* ---- the stream's state, whoever codes its batches ---- */

const uint8_t *gpz_dfl_stream_head(gpz_deflate_stream *st, size_t *len)
{
	if (!st->started) {
		st->hl = write_header(st->format, st->level, st->group, st->name, st->mtime,
		                      st->index_np, st->index_log, NULL, st->tail_index, st->hdr);
		st->started = 1;
	}
	*len = st->hl;
	return st->hdr;
}

/* Piece k's length for the trailing index, whose size is not known ahead: when its entries run
 * out, neighbours merge (each entry then covers twice the pieces). Without memory for it the
 * index is dropped (the stream stays valid). */
static void tail_index_add(gpz_deflate_stream *st, size_t k, uint32_t bytes)
{
	const size_t max = index_max(GPZ_GZIP_TAIL_INDEX_MAX_PIECES);
	if (!st->piece_bytes && !(st->piece_bytes = malloc(max * sizeof(*st->piece_bytes)))) {
		st->tail_index = 0;
		return;
	}
	if ((k >> st->index_log) >= max) { /* full: entries of twice the pieces */
		for (size_t i = 0; i < max; i += 2)
			st->piece_bytes[i / 2] = st->piece_bytes[i] + (i + 1 < max ? st->piece_bytes[i + 1] : 0);
		st->index_log++;
	}
	size_t g = k >> st->index_log;
	st->piece_bytes[g] = (k & (((size_t)1 << st->index_log) - 1) ? st->piece_bytes[g] : 0) + bytes;
}

void gpz_dfl_stream_add(gpz_deflate_stream *st, const struct gpz_dfl_batch *b, size_t in_bytes)
{
	if (st->check_kind == GPZ_DFL_CHECK_CRC32)
		st->check = gpz_crc32_combine(st->check, b->check, in_bytes);
	else if (st->check_kind == GPZ_DFL_CHECK_ADLER32)
		st->check = gpz_adler32_combine(st->check, b->check, in_bytes);
	st->total += in_bytes;
	for (uint32_t i = 0; i < b->npieces; i++, st->pieces++) {
		st->data_bytes += b->piece_bytes[i];
		if ((st->pieces >> st->index_log) < st->index_np)
			st->piece_bytes[st->pieces >> st->index_log] += b->piece_bytes[i];
		else if (st->tail_index)
			tail_index_add(st, st->pieces, b->piece_bytes[i]);
	}
}

/* The trailing piece index (docs/FORMAT.md) at d: an empty gzip member whose extra field holds
 * subfield 'G','P' version 5 (7 when pieces are alone or cut, flags and period then in its third
 * and fourth bytes, as in the header's): the
 * entries' lengths, how far back the member they belong to begins, a CRC-32 over both, and the
 * count again at the end, where a reader coming from the end of the file finds it. */
static size_t write_tail_index(const gpz_deflate_stream *st, uint8_t *d)
{
	size_t np = ((st->pieces - 1) >> st->index_log) + 1, sub = 24 + 4 * np, o = 0;
	/* from the indexed member's first byte to this member's: header, stream, trailer */
	uint64_t back = st->hl + st->data_bytes + 8;

	d[0] = 0x1f;
	d[1] = 0x8b;
	d[2] = 8;
	d[3] = 0x04; /* FEXTRA */
	memset(d + 4, 0, 5); /* MTIME, XFL */
	d[9] = 255;          /* OS: unknown */
	gpz_store_le16(d + 10, (uint16_t)(4 + sub));
	d[12] = 'G';
	d[13] = 'P';
	gpz_store_le16(d + 14, (uint16_t)sub);
	o = 16;
	uint8_t period = 0;
	unsigned flags = index_flags(st->group, st->index_log, &period);
	d[o] = flags ? 7 : 5;
	d[o + 1] = (uint8_t)(GPZ_DEFLATE_PIECE_LOG + st->index_log);
	d[o + 2] = (uint8_t)flags;
	d[o + 3] = period;
	gpz_store_le32(d + o + 4, (uint32_t)np);
	gpz_store_le64(d + o + 8, back);
	for (size_t i = 0; i < np; i++)
		gpz_store_le32(d + o + 20 + 4 * i, st->piece_bytes[i]);
	/* over log2 (version 7: the first four bytes), count, back and the lengths */
	gpz_store_le32(d + o + 16,
	               (uint32_t)crc32(gpz_gzip_index_crc(d + o, d + o + 20, np), d + o + 8, 8));
	o += 20 + 4 * np;
	gpz_store_le32(d + o, (uint32_t)np);
	o += 4;
	d[o++] = 0x03; /* an empty final block (fixed codes: end of block) */
	d[o++] = 0x00;
	memset(d + o, 0, 8); /* CRC-32 and size of nothing */
	return o + 8;
}

const uint8_t *gpz_dfl_stream_tail(gpz_deflate_stream *st, size_t *len)
{
	int tail = st->tail_index && st->pieces > 0;

	st->finished = 1;
	*len = 0;
	free(st->tail);
	st->tail = malloc(8 + (tail ? 50 + 4 * (((st->pieces - 1) >> st->index_log) + 1) : 0));
	if (!st->tail)
		return NULL;
	if (st->format == GPZ_FORMAT_GZIP) {
		gpz_store_le32(st->tail, st->check);
		gpz_store_le32(st->tail + 4, (uint32_t)st->total);
		*len = 8 + (tail ? write_tail_index(st, st->tail + 8) : 0);
	} else if (st->format == GPZ_FORMAT_ZLIB) {
		for (int i = 0; i < 4; i++)
			st->tail[i] = (uint8_t)(st->check >> (24 - 8 * i));
		*len = 4;
	}
	return st->tail;
}

/* ---- gpz_deflate_update: batches on the CPU ---- */

struct sink {
	uint8_t *p, *end;
	int overflow;
};

static void sink_bytes(struct sink *k, const uint8_t *b, size_t n)
{
	if ((size_t)(k->end - k->p) < n) {
		k->overflow = 1;
		return;
	}
	if (n)
		memcpy(k->p, b, n);
	k->p += n;
}

/* The update buffers, made on the first call: a batch of four pieces a thread (a batch waits for
 * its slowest piece), and one piece more for the piece holding the newest byte. */
static gpz_result update_buffers(gpz_deflate_stream *st)
{
	if (st->buf)
		return GPZ_OK;
	st->batch = (size_t)(st->ctx->nthreads > 1 ? 4 * st->ctx->nthreads : 1);
	if (st->batch > GPZ_DFL_CPU_BATCH)
		st->batch = GPZ_DFL_CPU_BATCH;
	st->ocap = gpz_dfl_batch_bound(st->batch * PIECE);
	st->buf = malloc(HIST + (st->batch + 1) * PIECE);
	st->obuf = malloc(st->ocap);
	return st->buf && st->obuf ? GPZ_OK : GPZ_ERR_NOMEM;
}

/* Compress pending bytes and keep the last 32 KiB as history. Unless `last`, only whole pieces
 * that end before the newest byte go: the piece holding the stream's final byte must be the one
 * that carries BFINAL, whatever the batch size or the way the caller fed the stream. */
static gpz_result run_batch(gpz_deflate_stream *st, struct sink *k, int last)
{
	size_t bytes = last ? st->pending : st->pending ? (st->pending - 1) / PIECE * PIECE : 0;
	size_t keep;
	struct gpz_dfl_batch b;
	int final = last;
	gpz_result r;

	if (bytes > st->batch * PIECE) { /* a whole batch first, the rest after */
		bytes = st->batch * PIECE;
		final = 0;
	}
	if (bytes == 0 && !final)
		return GPZ_OK;
	r = gpz_dfl_batch_cpu(st->ctx->nthreads, st->buf + st->hist, st->hist, bytes, st->level,
	                      final, st->group, st->pieces, st->check_kind, st->obuf, st->ocap, &b);
	if (r != GPZ_OK)
		return r;
	gpz_dfl_stream_add(st, &b, bytes);
	sink_bytes(k, st->obuf, b.bytes);
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
	gpz_result r;

	if (!st || !written || (!src && src_size) || (!dst && dst_cap))
		return GPZ_ERR_PARAM;
	*written = 0;
	if (st->finished)
		return GPZ_ERR_PARAM;
	r = update_buffers(st);
	if (r != GPZ_OK)
		return r;
	if (!st->started) {
		size_t hl;
		const uint8_t *h = gpz_dfl_stream_head(st, &hl);
		sink_bytes(&k, h, hl);
	}
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
		size_t tl;
		const uint8_t *t = gpz_dfl_stream_tail(st, &tl);
		if (t)
			sink_bytes(&k, t, tl);
		else
			r = GPZ_ERR_NOMEM;
	}
	if (r == GPZ_OK && k.overflow)
		r = GPZ_ERR_DST_TOO_SMALL;
	*written = (size_t)(k.p - (uint8_t *)dst);
	return r;
}
