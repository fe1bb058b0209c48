/* frame.h - the byte layout of frames and trailers (docs/FORMAT.md), for writer and reader. */
#ifndef GPZ_FRAME_H
#define GPZ_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"
#include "common/bits.h"
#include "common/hd.h"
#include "deflate/deflate.h"
#include "huffman/huffman.h"
#include "lzsym/lzsym.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPZ_FRAME_HEADER_SIZE 32 /* = GPZ_BLOCK_PEEK_SIZE of gpz.h */
#define GPZ_TRAILER_TYPE 0xFF
/* Pieces of LZ-mode (type-4) frames as gpz writes them: the piece driver's (deflate.h), chained
 * in groups of 2^GPZ_LZ_GROUP_LOG (1 MiB), each group a raw DEFLATE stream of its own: history
 * within a group keeps the ratio, and every piece is an entry point for a parallel decoder
 * (docs/FORMAT.md). Levels up to GPZ_LZ_ALONE_LEVEL code every piece alone (groups of one):
 * 0.5-0.6% larger on text, but a decoder needs no window pass (gpz_lz_group_log). */
#define GPZ_LZ_PIECE_LOG GPZ_DEFLATE_PIECE_LOG
#define GPZ_LZ_PIECE GPZ_DEFLATE_PIECE
#define GPZ_LZ_GROUP_LOG 2
#define GPZ_LZ_GROUP (1 << GPZ_LZ_GROUP_LOG)
#define GPZ_LZ_ALONE_LEVEL 3
#define GPZ_LZ_MAX_GROUP_LOG 4   /* what readers accept */
#define GPZ_LZ_GROUP_MIN_LOG 15  /* chained pieces are at least a window long */
#define GPZ_CHECK_SIZE 4     /* header check after the chunk index */
#define GPZ_CONTENT_SIZE 8   /* content checksum at the end of a frame */

/* The group log gpz writes at an LZ level. */
GPZ_HD_INLINE int gpz_lz_group_log(int level)
{
	return level <= GPZ_LZ_ALONE_LEVEL ? 0 : GPZ_LZ_GROUP_LOG;
}

/* Chunks of a Huffman frame. */
GPZ_HD_INLINE uint64_t gpz_frame_chunks(uint64_t n_symbols, int chunk_log)
{
	return (n_symbols + ((uint64_t)1 << chunk_log) - 1) >> chunk_log;
}

/* Deflate (LZ-mode) frames: the largest compressed size the format allows a piece of m bytes
 * (docs/FORMAT.md); gpz's DEFLATE writer stays below it (every block is at most its bytes
 * stored, and blocks but the last hold at least 2048 bytes). */
static inline uint64_t gpz_lz_piece_bound(uint64_t m)
{
	return m + m / 256 + 64;
}

/* Low 32 bits of XXH64(data, 0): the header and trailer check. */
uint32_t gpz_header_check(const void *data, size_t size);

/* A deflate (LZ-mode) frame's piece start offsets in its payload (npieces + 1 entries) from its
 * index, each piece length within the format's bounds and the sum equal to the payload size
 * (frame_read.c). */
gpz_result gpz_lz_piece_starts(const uint8_t *index, uint64_t n, int log, uint64_t payload,
                               uint64_t *starts);

/* Fixed bytes of every frame: header, header check, content checksum. */
#define GPZ_FRAME_FIXED (GPZ_FRAME_HEADER_SIZE + GPZ_CHECK_SIZE + GPZ_CONTENT_SIZE)

/*
 * What a frame will be, decided from the histogram alone, so that both backends make the same
 * decisions: constant when one symbol occurs, else Huffman when smaller than stored, else stored.
 * The plan holds the frame's header and codebook bytes (`head`, `head_bytes` = header + codebook;
 * the chunk index follows them) and, for Huffman frames, the encoder table.
 */
struct gpz_frame_plan {
	gpz_frame_type type;
	int w, chunk_log, max_len;
	int lanes;             /* Huffman: the lanes layout (its payload size, and so the offsets
	                        * from sum_at on, is a bound until the payload is coded) */
	size_t n;              /* symbols */
	uint32_t alphabet;     /* largest symbol + 1 */
	uint8_t *len;          /* Huffman: code lengths [alphabet] */
	uint32_t *table;       /* Huffman: encoder table [alphabet] */
	uint64_t bits;         /* Huffman: payload bits */
	uint64_t nchunks;      /* Huffman: chunk index entries */
	size_t payload;        /* payload bytes */
	uint8_t *head;         /* frame header + codebook */
	size_t head_bytes;
	size_t index_at, check_at, payload_at, sum_at, total; /* offsets in the frame; size */
};

/* The lanes layout's largest payload for `bits` coded bits in nchunks chunks: each chunk's lanes
 * round their bits up to words, at most 32 words more than its bits need. */
GPZ_HD_INLINE uint64_t gpz_lanes_payload_bound(uint64_t bits, uint64_t nchunks)
{
	return 4 * ((bits + 31) / 32 + GPZ_LANES * nchunks);
}

/* The plan's rules that both backends apply, the device to many frames at once (frames_gpu.cu):
 * the header bytes, the offsets that follow from head_bytes, nchunks and payload, and the
 * choice between a Huffman frame whose codebook takes cb_bytes and a stored one. */
GPZ_HD_INLINE void gpz_frame_put_header(uint8_t *h, const struct gpz_frame_plan *pl,
                                        uint32_t alphabet_field, uint32_t cb_bytes)
{
	int huff = pl->type == GPZ_FRAME_HUFFMAN;
	for (int i = 0; i < GPZ_FRAME_HEADER_SIZE; i++)
		h[i] = 0;
	h[0] = (uint8_t)pl->type;
	h[1] = (uint8_t)pl->w;
	h[2] = (uint8_t)(huff ? pl->chunk_log : 0);
	h[3] = (uint8_t)(huff ? pl->max_len : 0);
	gpz_store_le32(h + 4, alphabet_field);
	gpz_store_le64(h + 8, pl->n);
	gpz_store_le32(h + 16, cb_bytes);
	h[20] = (uint8_t)(huff && pl->lanes);
	gpz_store_le64(h + 24, pl->payload);
}

GPZ_HD_INLINE void gpz_frame_set_layout(struct gpz_frame_plan *pl)
{
	pl->index_at = pl->head_bytes;
	pl->check_at = pl->index_at + 4 * (size_t)pl->nchunks;
	pl->payload_at = pl->check_at + GPZ_CHECK_SIZE;
	pl->sum_at = pl->payload_at + pl->payload;
	pl->total = pl->sum_at + GPZ_CONTENT_SIZE;
}

/* A stored or constant frame's fields (its header still to be put). */
GPZ_HD_INLINE void gpz_frame_set_simple(struct gpz_frame_plan *pl, gpz_frame_type type)
{
	pl->type = type;
	pl->nchunks = 0;
	pl->payload = type == GPZ_FRAME_STORED ? pl->n * (size_t)pl->w : 0;
	pl->head_bytes = GPZ_FRAME_HEADER_SIZE;
}

/* A Huffman frame's fields from its code (bits, max_len set) and codebook size, when it is
 * smaller than stored; 0 (nothing set) when it is not. */
GPZ_HD_INLINE int gpz_frame_set_huffman(struct gpz_frame_plan *pl, size_t cb_bytes, int lanes)
{
	uint64_t nchunks = gpz_frame_chunks(pl->n, pl->chunk_log);
	/* the lanes layout's size is known once coded: its bound decides against stored, the same
	 * on both backends */
	size_t payload = lanes ? (size_t)gpz_lanes_payload_bound(pl->bits, nchunks)
	                       : (size_t)((pl->bits + 7) / 8);
	if (GPZ_FRAME_FIXED + cb_bytes + 4 * (size_t)nchunks + payload >=
	    GPZ_FRAME_FIXED + pl->n * (size_t)pl->w)
		return 0;
	pl->type = GPZ_FRAME_HUFFMAN;
	pl->nchunks = nchunks;
	pl->lanes = lanes;
	pl->payload = payload;
	pl->head_bytes = GPZ_FRAME_HEADER_SIZE + cb_bytes;
	return 1;
}

/* counts[0 .. alphabet) of n >= 1 symbols; alphabet from the histogram. `lengths`, when not
 * NULL, are the code lengths already built for these counts (by the GPU codebook, which
 * reproduces gpz_code_lengths exactly, and only when they fit GPZ_MAX_CODE_LEN). */
gpz_result gpz_frame_plan_make(struct gpz_frame_plan *pl, const gpz_params *p,
                               const uint32_t *counts, uint32_t alphabet, size_t n,
                               const uint8_t *lengths);
void gpz_frame_plan_free(struct gpz_frame_plan *pl);
/* A lanes-layout frame's payload size once coded: the header's field and the offsets after it. */
void gpz_frame_plan_set_payload(struct gpz_frame_plan *pl, size_t payload);

/* A parsed Huffman frame's payload layout (header byte 20): 1 for the lanes layout. */
static inline int gpz_frame_lanes(const uint8_t *frame)
{
	return frame[20];
}

/* Reading a Huffman frame: from its bytes up to the payload (header, codebook, chunk index;
 * the header check already verified), build the decoder and the chunk start offsets into
 * starts (nchunks + 1 entries; bits, or words in the lanes layout), checking every rule of
 * FORMAT.md but the payload's. */
gpz_result gpz_frame_prepare_decode(const uint8_t *frame, const gpz_block_info *in,
                                    gpz_decoder *dec, uint64_t *starts);
/* Its first part alone: the decoder from the code lengths. */
gpz_result gpz_frame_decoder(const uint8_t *frame, const gpz_block_info *in, gpz_decoder *dec);
/* A parsed block that a caller wants decoded as a frame: GPZ_ERR_PARAM when it is not one,
 * GPZ_ERR_TRUNCATED when it passes src_size, GPZ_ERR_DST_TOO_SMALL when its content passes
 * dst_cap. */
gpz_result gpz_frame_fits(const gpz_block_info *in, size_t src_size, size_t dst_cap);
/* The payload's padding bits (after `bits`) in its last byte must be zero. */
GPZ_HD_INLINE int gpz_frame_padding_ok(uint8_t last_byte, uint64_t payload, uint64_t bits)
{
	unsigned pad = (unsigned)(8 * payload - bits);
	return pad == 0 || (last_byte & ((1u << pad) - 1)) == 0;
}

/* LZ-symbol frames (frame_lzsym.c): n symbols of src with their histogram hist[0 .. alphabet)
 * and content checksum `sum`, written only when smaller than `beat` bytes (*written 0 and GPZ_OK
 * otherwise: its size is known exactly before anything is coded). And decoding one (the header
 * check verified, the header parsed into in). */
gpz_result gpz_lzs_frame_write(gpz_ctx *ctx, const gpz_params *p, const uint8_t *src, size_t n,
                               const uint32_t *hist, uint32_t alphabet, uint64_t sum, size_t beat,
                               uint8_t *dst, size_t cap, size_t *written);
gpz_result gpz_lzs_frame_decode(gpz_ctx *ctx, const uint8_t *s, const gpz_block_info *in,
                                uint8_t *dst);

/* What the CPU and GPU writers of an LZ-symbol frame share, so that their bytes agree: the run
 * symbol (the most frequent value, ties to the smallest), and from the frame's token counts
 * (main [alphabet + 96], then distance [48]) its codes, header and codebook section (head,
 * index_at bytes), layout and payload bits. max_len 0: one symbol value (a constant frame). */
struct gpz_lzs_plan {
	uint32_t alphabet, z;
	int max_len, has_dist;
	uint8_t *mlen, dlen[GPZ_LZS_BUCKETS];
	uint32_t *mtab, dtab[GPZ_LZS_BUCKETS]; /* encoder tables, (code << 8) | length */
	uint8_t *head;
	size_t nchunks, cb, index_at, check_at, pay_at, payload, total;
	uint64_t bits;
};
uint32_t gpz_lzs_run_symbol(const uint32_t *hist, uint32_t alphabet);
gpz_result gpz_lzs_plan_make(struct gpz_lzs_plan *pl, const gpz_params *p, size_t n,
                             uint32_t alphabet, uint32_t z, const uint32_t *counts);
void gpz_lzs_plan_free(struct gpz_lzs_plan *pl);
/* The frame's bytes before its payload: header, codebook section, chunk index, header check. */
void gpz_lzs_plan_head(const struct gpz_lzs_plan *pl, const uint32_t *chunk_bits, uint8_t *dst);

/* Reading one: from its bytes up to the payload (header check verified, header parsed into
 * in), the decoders and chunk starts (nchunks + 1), every rule of FORMAT.md checked but the
 * payload's padding (gpz_frame_padding_ok, on its last byte). */
struct gpz_lzs_reader {
	gpz_decoder main, dist;
	int have_main, have_dist;
	struct gpz_lzs_decoders dec;
	uint64_t *literals; /* the literals' multi-symbol table, for 1- and 2-byte symbols */
	uint64_t *starts;
	size_t nchunks, payload_at, payload_bytes;
};
gpz_result gpz_lzs_reader_open(struct gpz_lzs_reader *rd, const uint8_t *s,
                               const gpz_block_info *in);
void gpz_lzs_reader_close(struct gpz_lzs_reader *rd);

/* gpz_compress_frame / gpz_decompress_frame with the GPU resources to use (a context's, or
 * one lane's of the frame engine; NULL = the CPU). A GPU failure falls back to the CPU unless
 * the context asked for the GPU (gpz_ctx_falls_back). place (may be NULL): where a Huffman-only
 * frame coded on the GPU may go instead of dst (container/frame_gpu.h); a frame coded on the CPU
 * always goes to dst. */
struct gpz_gpu;
struct gpz_place;
gpz_result gpz_frame_compress_on(gpz_ctx *ctx, struct gpz_gpu *g, const gpz_params *p,
                                 const void *src, size_t src_size, void *dst, size_t dst_cap,
                                 size_t *written, struct gpz_place *place);
/* A lane's job of consecutive frames (gpz_job_bytes of input at most, frames of p->frame_bytes):
 * the same bytes as gpz_frame_compress_on frame after frame, in one GPU round trip where the
 * batched path takes them (container/frames_gpu.cu); gpz_frames_bound is the room they need. */
size_t gpz_job_bytes(const gpz_params *p);
size_t gpz_frames_bound(size_t src_size, const gpz_params *p);
gpz_result gpz_frames_compress_on(gpz_ctx *ctx, struct gpz_gpu *g, const gpz_params *p,
                                  const void *src, size_t src_size, void *dst, size_t dst_cap,
                                  size_t *written, struct gpz_place *place);
/* Whether a frame of `content` bytes joins a job that holds `frames` frames (at least one) of
 * `have` bytes of content; a job's content (every frame checked to lie within src_size); and a
 * job of such frames decoded (src_size bytes: whole frames), the first frame's error in order. */
int gpz_job_joins(uint64_t have, size_t frames, uint64_t content);
gpz_result gpz_job_content(const void *src, size_t src_size, uint64_t *content);
gpz_result gpz_frames_decompress_on(gpz_ctx *ctx, struct gpz_gpu *g, const void *src,
                                    size_t src_size, void *dst, size_t dst_cap, size_t *written);
gpz_result gpz_frame_decompress_on(gpz_ctx *ctx, struct gpz_gpu *g, const void *src,
                                   size_t src_size, void *dst, size_t dst_cap, size_t *written,
                                   uint64_t *checksum);

#ifdef __cplusplus
}
#endif
#endif
