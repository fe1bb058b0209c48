/* stream.h - a gzip / zlib / raw deflate stream's state (stream.c), for the callers that code
 * its batches themselves (the frame engine's lanes, container/deflate_io.c): the header first,
 * then each batch's bytes in order with gpz_dfl_stream_add, then the trailer. */
#ifndef GPZ_DEFLATE_STREAM_H
#define GPZ_DEFLATE_STREAM_H

#include "deflate/deflate.h"

struct gpz_deflate_stream {
	gpz_ctx *ctx;
	int level;
	gpz_format format;
	int check_kind;        /* GPZ_DFL_CHECK_*: CRC-32 for gzip, Adler-32 for zlib */
	int group;             /* 0 (pieces chained), GPZ_DFL_ALONE or GPZ_DFL_CUT (gpz_dfl_group) */
	char *name;
	uint32_t mtime;
	/* gpz_deflate_update's buffers, made on its first call */
	uint8_t *buf;          /* history (hist bytes) then pending input */
	size_t hist, pending, batch;
	uint8_t *obuf;         /* a batch's output */
	size_t ocap;
	uint32_t check;        /* running CRC-32 or Adler-32 */
	uint64_t total;        /* input bytes coded */
	int started, finished;
	uint32_t index_np;     /* entries the gzip piece index has room for (0: no index) */
	int tail_index;        /* or: the index goes after the stream */
	unsigned index_log;    /* an entry covers 2^index_log pieces (inputs past 16379 pieces) */
	uint32_t *piece_bytes; /* the entries' lengths as pieces are appended */
	size_t pieces;         /* pieces appended */
	uint64_t data_bytes;   /* the deflate stream's bytes so far */
	uint8_t *tail;         /* the trailer, and the trailing index */
	uint8_t *hdr;          /* the header as first written */
	size_t hl;
};

/* The stream's header (written once: the stream is started). */
const uint8_t *gpz_dfl_stream_head(gpz_deflate_stream *st, size_t *len);
/* A batch of in_bytes input bytes was appended: checksum, size and piece index follow it. */
void gpz_dfl_stream_add(gpz_deflate_stream *st, const struct gpz_dfl_batch *b, size_t in_bytes);
/* The trailer (0, 4 or 8 bytes), and the trailing piece index (a gzip member) when the stream
 * has one: *len bytes, held by the stream. The stream is finished. NULL: out of memory. */
const uint8_t *gpz_dfl_stream_tail(gpz_deflate_stream *st, size_t *len);

#endif
