/* deflate.h - DEFLATE (RFC 1951) from the LZ stage's tokens, CPU side: the bit writer, the
 * block writer (block_core.h holds its logic, shared with the GPU), and the one piece driver
 * that both gzip/zlib/raw streams (stream.c) and the .gpz container's LZ frames use.
 *
 * Input is cut into pieces of GPZ_DEFLATE_PIECE bytes at fixed positions, each coded as its own
 * blocks into a private buffer, so pieces compress in parallel and the output depends only on
 * the input and the level. 256 KiB pieces: each is an entry point for a parallel (GPU) decoder,
 * 4096 a GiB, at about 0.05% of size for the sync markers and block headers they add. */
#ifndef GPZ_DEFLATE_H
#define GPZ_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPZ_DEFLATE_PIECE_LOG 18
#define GPZ_DEFLATE_PIECE ((size_t)1 << GPZ_DEFLATE_PIECE_LOG)

/* LSB-first bit writer of DEFLATE. */
struct gpz_bitw {
	uint8_t *p, *end;
	uint64_t acc;
	unsigned nb;
	int overflow;
};

void gpz_bitw_init(struct gpz_bitw *bw, uint8_t *dst, size_t cap);
void gpz_bitw_put(struct gpz_bitw *bw, uint32_t bits, unsigned n);
/* Pad to a byte boundary with zero bits and flush. */
void gpz_bitw_finish(struct gpz_bitw *bw);

/*
 * Code tokens (covering src[start .. start + nbytes)) as one piece's DEFLATE blocks: dynamic
 * Huffman codes (limited to 15 bits, code-length code to 7), or fixed codes or a stored block
 * when smaller. The piece ends on a byte boundary: its last block gets BFINAL and is padded with
 * zero bits when `last` is set, else an empty stored block (a sync marker) ends it. units: the
 * tokens' units as gpz_lz_parse_counted leaves them (block_core.h: struct gpz_dfl_unit).
 */
struct gpz_dfl_unit;
gpz_result gpz_deflate_blocks(struct gpz_bitw *bw, const uint8_t *src, size_t start,
                              size_t nbytes, const uint32_t *tokens, size_t ntok,
                              struct gpz_dfl_unit *units, int last);

/* One piece's output: the caller sets buf and cap (gpz_deflate_piece_cap of its length); the
 * driver fills the rest. A piece is whole bytes: buf[0 .. bytes). */
struct gpz_dfl_piece {
	uint8_t *buf;
	size_t cap;
	size_t bytes;
	uint32_t check; /* the piece's CRC-32 or Adler-32 when asked for (zlib's values) */
	gpz_result r;
};

/* Which check gpz_deflate_pieces computes per piece, beside the coding. */
#define GPZ_DFL_CHECK_NONE 0
#define GPZ_DFL_CHECK_CRC32 1
#define GPZ_DFL_CHECK_ADLER32 2

/* Bytes a piece of len input bytes may need (never more: every block is at most its bytes
 * stored, and blocks hold at least 2048 tokens but the last). */
size_t gpz_deflate_piece_cap(size_t len);

/*
 * Code npieces pieces of GPZ_DEFLATE_PIECE bytes (the last may be shorter) over
 * src[start .. start + n) on nthreads threads, piece i into out[i].
 * Chained (group = 0): each piece is parsed with the bytes before it (up to 32 KiB of
 * src[0 .. start + i * PIECE)) as history, only the final piece gets BFINAL, and only when
 * `last` is set (the others end in a sync marker); n == 0 with `last` gives one empty final
 * block. The stream is the pieces' bytes one after another.
 * Groups (group = g >= 1): every g pieces from src[start] on (the last group may be shorter)
 * form a chained stream of their own: no history from before the group, BFINAL at its end, so
 * that each group is a raw DEFLATE stream (a .gpz LZ frame's piece is a group).
 * Cut (group = -c, c >= 1): chained, but the history is cut before every piece whose number in
 * the stream (k0 + i: k0 is the stream's number of the call's first piece) is a multiple of c,
 * so that such a piece decodes without the bytes before it. GPZ_DFL_ALONE (c = 1): every piece
 * (gzip at the fast levels); GPZ_DFL_CUT (gzip at the others: gpz_dfl_group).
 * check (GPZ_DFL_CHECK_*): each piece's check of its own bytes into out[i].check, computed by
 * the piece's thread (the stream combines them), so no thread reads the whole input.
 */
void gpz_deflate_pieces(int nthreads, const uint8_t *src, size_t start, size_t n, int level,
                        int group, size_t k0, int last, int check, struct gpz_dfl_piece *out);

/* gzip streams at levels up to GPZ_DFL_ALONE_LEVEL are coded with every piece alone: 0.5-0.9%
 * larger on text (still 6-8% under gzip -L), but their piece index says so (version 6), and a
 * parallel reader then decodes each piece straight to bytes, with no window pass (on a GPU about
 * 1.2x the speed of chained pieces). zlib and raw streams carry no index, so they stay chained. */
#define GPZ_DFL_ALONE (-1)
#define GPZ_DFL_ALONE_LEVEL 3
/* At the other levels a piece in 2^GPZ_DFL_CUT_LOG (8 MiB) starts without history, and the
 * index says which: a CPU reader's threads each start a stretch there and decode it straight to
 * bytes, where a stretch starting anywhere else decodes to 16-bit symbols until its window is
 * known (~1.4x the work; at level 6, 16 threads of an H100 host ran ~8x one thread). The cut
 * costs 0.028% on debtext100m at level 6 (0.99% for every piece), which stays under gzip -6. */
#define GPZ_DFL_CUT_LOG 5
#define GPZ_DFL_CUT (-(1 << GPZ_DFL_CUT_LOG))
/* The group argument a gzip/zlib/raw stream's batches are coded with: 0 (chained),
 * GPZ_DFL_ALONE or GPZ_DFL_CUT (stream.c asks only for streams that carry an index). */
static inline int gpz_dfl_group(gpz_format format, int level)
{
	return format != GPZ_FORMAT_GZIP            ? 0
	       : level <= GPZ_DFL_ALONE_LEVEL       ? GPZ_DFL_ALONE
	                                            : GPZ_DFL_CUT;
}

/*
 * A batch: consecutive pieces of a chained stream (gzip/zlib/raw) coded at once, the unit of
 * work of the streaming calls and of the frame engine's lanes (batch.c). src points at the
 * batch's first byte, which lies on the piece grid of the stream; the `pre` bytes before it
 * (up to 32 KiB) are its history. All pieces are whole but the stream's last; `last`: the batch
 * ends the stream. out (cap >= gpz_dfl_batch_bound(n)) receives the batch's bytes, and b what
 * the stream needs of it. The GPU version gives the same bytes, and GPZ_ERR_NOMEM or
 * GPZ_ERR_GPU when the device fails, so the caller can turn to the CPU; `group` and k0 (the
 * stream's number of the batch's first piece) as for gpz_deflate_pieces: 0 (chained), a cut
 * (GPZ_DFL_ALONE: the pre bytes then go unused), or groups of pieces (pre 0, k0 0, check NONE:
 * a .gpz LZ frame's payload, the pieces' sizes in b).
 */
#define GPZ_DFL_BATCH_MAX 4096 /* a .gpz LZ frame of up to 1 GiB is one GPU batch */
#define GPZ_DFL_PER_THREAD 16 /* pieces a thread takes in a CPU batch (4 MiB) */
/* ... and in an inflating one (8 MiB): a thread's stretch of a batch starts without its window
 * (its first pieces decoded to 16-bit symbols, about 1.4x the work, until the window's bytes die
 * out, ~1 MiB of text), so longer stretches spend less of it so. 1 GB of text -t on 16 threads
 * of an H100 host: 0.44-0.55 s with 16, 0.39-0.46 with 32, 0.39-0.47 with 64 (3.3-3.8 on one);
 * peak memory 227 -> 448 MB (bench/results/2026-11-26-h100-backend-choice.md). */
#define GPZ_INFL_PER_THREAD 32
#define GPZ_DFL_CPU_BATCH 256 /* the most pieces a CPU batch takes (64 MiB) */
/* ... and one of a member with cuts inflated into a caller's buffer (1 GiB: its symbols' 2 GiB
 * are address space, touched only where a cut reaches back) */
#define GPZ_INFL_CUT_BATCH 4096

struct gpz_dfl_batch {
	size_t bytes;      /* output bytes */
	uint32_t check;    /* CRC-32 or Adler-32 of the batch's input (zlib's values), as asked */
	uint32_t npieces;
	uint32_t piece_bytes[GPZ_DFL_BATCH_MAX];
};

struct gpz_gpu;
size_t gpz_dfl_batch_bound(size_t n);
gpz_result gpz_dfl_batch_cpu(int nthreads, const uint8_t *src, size_t pre, size_t n, int level,
                             int last, int group, size_t k0, int check, uint8_t *out,
                             size_t cap, struct gpz_dfl_batch *b);
gpz_result gpz_dfl_batch_gpu(struct gpz_gpu *g, const uint8_t *src, size_t pre, size_t n,
                             int level, int last, int group, size_t k0, int check,
                             uint8_t *out, size_t cap, struct gpz_dfl_batch *b);

/*
 * One piece of raw DEFLATE (inflate.c, gpz's own decoder): the blocks in in[0 .. in_n), up to
 * the final one (*final set) or to the end of the input at a block's end; every byte of the
 * input must be used. Output: up to cap 16-bit symbols, *out_n of them: bytes (0..255), or, when
 * `markers` is set, 256 + w for byte w of the unknown 32 KiB before the piece (w = 32767 is the
 * last), where references reach before the output and beyond the hist_n bytes of hist (the bytes
 * before the piece, when known; may be NULL). GPZ_ERR_CORRUPT or GPZ_ERR_TRUNCATED for bad input.
 */
gpz_result gpz_inflate_piece(const uint8_t *in, size_t in_n, const uint8_t *hist, size_t hist_n,
                             int markers, uint16_t *out, size_t cap, size_t *out_n, int *final);
/* The same piece decoded to symbols after those of the piece before it: out[-before .. -1]
 * (up to 32 KiB of them) are its window, markers included, which then stand for the same window
 * bytes as there; references beyond them are corrupt input. */
gpz_result gpz_inflate_piece_after(const uint8_t *in, size_t in_n, uint16_t *out, size_t before,
                                   size_t cap, size_t *out_n, int *final);
/* The same piece decoded to bytes at out, the `before` bytes before out being its window (the
 * output before the piece, up to 32 KiB of it): the same checks and results, byte for symbol. */
gpz_result gpz_inflate_piece_bytes(const uint8_t *in, size_t in_n, uint8_t *out, size_t before,
                                   size_t cap, size_t *out_n, int *final);
/* And with the rule .gpz LZ frames add (the GPU's reader with GPZ_GPU_INFL_STRICT): the bits
 * between a stored block's header and the byte boundary must be zero. */
gpz_result gpz_inflate_piece_strict(const uint8_t *in, size_t in_n, uint8_t *out, size_t before,
                                    size_t cap, size_t *out_n, int *final);

/* A gzip member's header (gunzip.c): where its DEFLATE data starts, and gpz's piece index
 * (np entries, their lengths as u32 LE at lens, each for 2^piece_log output bytes: one piece of
 * GPZ_DEFLATE_PIECE or a run of them; np 0 when there is none, or none this reader knows);
 * alone: the index (version 6) says no entry's matches reach before its first byte; cut: that
 * this holds for every entry whose number is a multiple of cut (0: none said); trails: the
 * header says the member's index follows the stream (subfield version GPZ_GZIP_TRAILS, written
 * where the header cannot take the index: a reader of a pipe may read ahead for it). */
#define GPZ_GZIP_MAX_PIECE_LOG (GPZ_DEFLATE_PIECE_LOG + 12)
#define GPZ_GZIP_TRAILS 8 /* the 'G','P' subfield's version that says "the index trails" */
#define GPZ_GZIP_INDEX_ALONE 1 /* flag bits of index versions 6 and 7 */
#define GPZ_GZIP_INDEX_CUT 2   /* entries alone at a period, its log2 in the fourth byte */
#define GPZ_GZIP_INDEX_FLAGS (GPZ_GZIP_INDEX_ALONE | GPZ_GZIP_INDEX_CUT)
struct gpz_gzip_member {
	size_t data;
	uint32_t np;
	unsigned piece_log;
	int alone;
	uint32_t cut;
	const uint8_t *lens;
	int trails;
};
gpz_result gpz_gzip_header(const uint8_t *s, size_t n, struct gpz_gzip_member *m);
/* The piece index's CRC-32 (zlib's) over its log2 and count fields (the subfield's data from
 * `sub`: bytes 1 and 4..7; versions 6 and 7: bytes 0..7, version and flags too) and its np
 * lengths (at lens); a trailing index continues it over its `back` field. A reader checks it
 * before it seeks with the index. */
uint32_t gpz_gzip_index_crc(const uint8_t *sub, const uint8_t *lens, size_t np);
/* A trailing piece index (docs/FORMAT.md: an empty gzip member at the very end of the input,
 * written after streams whose header could not take the index): tail is the input's last tn
 * bytes of total. Returns 1 and the indexed member's offset in the input, its header-to-index
 * length `back` (header, stream and trailer: a reader checks it) and its pieces; 0 if there is
 * none. GPZ_GZIP_TAIL_BYTES: the most bytes such a member takes. */
struct gpz_gzip_tail {
	uint64_t member, back;
	uint32_t np;
	unsigned piece_log;
	int alone;
	uint32_t cut;
	const uint8_t *lens;
};
#define GPZ_GZIP_TAIL_BYTES (50 + 4 * (size_t)GPZ_GZIP_TAIL_INDEX_MAX_PIECES)
int gpz_gzip_tail_index(const uint8_t *tail, size_t tn, uint64_t total, struct gpz_gzip_tail *t);
/* A member m without an index of its own takes t's when t spans exactly m's header, pieces and
 * trailer (t NULL: nothing). */
void gpz_gzip_adopt_tail(struct gpz_gzip_member *m, const struct gpz_gzip_tail *t);

/*
 * A batch of an indexed member's pieces (gunzip.c): pieces k0 .. k0 + nk - 1 of np, their
 * compressed bytes at in + off[j] .. in + off[j + 1]; sym: nk * GPZ_DEFLATE_PIECE symbols of
 * scratch (touched only for pieces decoded without their window; NULL allowed for pieces alone
 * whose room holds them all: a piece alone that fails short of room is told a short destination
 * from corrupt input by decoding it again into sym); dst: their output (room bytes). gpz_infl_batch_decode inflates them on nthreads threads, each a stretch of pieces in
 * order: a piece whose window is another thread's
 * (or unknown: the batch's first, unless `window` gives the final 32 KiB before the batch, at
 * dst - 32 KiB or anywhere else) goes to symbols, the bytes copied from the window left for
 * later; the pieces after it straight to bytes once one ends clear of such bytes. *out_n
 * bytes in all. gpz_infl_batch_resolve then fills those in from `window` (the 32 KiB before
 * the batch; NULL when k0 is 0) and takes the CRC-32 of each piece not yet done (res[j].crc).
 * gpz_infl_batch_resolve_inner may come between: it does so already for the pieces whose window
 * lies in the batch and is final, so that what waits for the batch before is less.
 */
struct gpz_infl_res {
	gpz_result r;
	size_t n;      /* output bytes */
	int marked;    /* symbols of it stand for window bytes: its bytes wait for that window, */
	size_t base;   /* the one before piece `base` of the batch (its first symbols' piece) */
	int tail_final; /* its last 32 KiB (the next piece's window) are final bytes in dst */
	int early;      /* its window is final before the batch's turn (resolve_inner) */
	uint32_t crc;
	int crc_done;  /* crc is taken (pieces without marks, as they are decoded) */
};
struct gpz_pool; /* common/parallel.h */
struct gpz_infl_batch {
	const uint8_t *in;
	const uint64_t *off;
	size_t k0, nk, np;
	uint16_t *sym;
	uint8_t *dst;
	size_t room;
	struct gpz_infl_res *res;
	size_t piece; /* output bytes an index entry stands for */
	int alone;    /* every entry decodes without the bytes before it (straight to bytes) */
	uint32_t cut; /* or those whose number is a multiple of cut do (0: none said); a run of
	               * pieces starting at one goes straight to bytes */
	struct gpz_pool *pool; /* or NULL: the workers gpz_infl_batch_decode's runs go to (split
	                        * for nthreads all the same), else threads of its own */
};
/* gpz_inflate with the GPU resources g (NULL: on the CPU threads only). */
struct gpz_gpu;
gpz_result gpz_inflate_on(gpz_ctx *ctx, struct gpz_gpu *g, gpz_format format, const void *src,
                          size_t src_size, void *dst, size_t dst_cap, size_t *dst_size);

/* Piece k of np decoded with result r into n bytes (final: its last block was final), room
 * bytes free for it: is it what an indexed member's piece must be (every piece but the last
 * whole and not final, the last final and, unless alone, not empty)? r, or the error. */
gpz_result gpz_infl_piece_check(gpz_result r, size_t n, int final, size_t k, size_t np,
                                size_t piece, size_t room);
/* Index entries of `piece` bytes a CPU batch takes on nthreads threads. */
size_t gpz_infl_batch_entries(int nthreads, size_t piece);
gpz_result gpz_infl_batch_decode(int nthreads, struct gpz_infl_batch *b, const uint8_t *window,
                                 size_t *out_n);
void gpz_infl_batch_resolve(int nthreads, struct gpz_infl_batch *b, const uint8_t *window);
void gpz_infl_batch_resolve_inner(int nthreads, struct gpz_infl_batch *b);
/* The same for a batch the GPU decoded (deflate_gpu.h's gpz_gpu_infl_batch): its window bytes
 * listed as position << 15 | w, nlist of them, filled in from window; then the CRC-32s. */
void gpz_infl_batch_fill(int nthreads, struct gpz_infl_batch *b, const uint64_t *list,
                         size_t nlist, const uint8_t *window);

#ifdef __cplusplus
}
#endif
#endif
