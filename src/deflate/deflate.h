/* deflate.h - DEFLATE (RFC 1951) from the LZ stage's tokens, CPU side: the bit writer, the
 * block writer (block_core.h holds its logic, shared with the GPU), and the one piece driver
 * that both gzip/zlib/raw streams (stream.c) and the .gpz container's LZ frames use.
 *
 * Input is cut into pieces of GPZ_DEFLATE_PIECE bytes at fixed positions, each coded as its own
 * blocks into a private buffer, so pieces compress in parallel and the output depends only on
 * the input and the level. */
#ifndef GPZ_DEFLATE_H
#define GPZ_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPZ_DEFLATE_PIECE_LOG 20
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
 * Code tokens (covering src[start .. start + nbytes)) as DEFLATE blocks: dynamic Huffman codes
 * (limited to 15 bits, code-length code to 7), or fixed codes or a stored block when smaller.
 * The last block gets BFINAL when `last` is set. *stored (may be NULL) is set when some block
 * is stored (such a string of blocks must start on a byte boundary of the stream).
 */
gpz_result gpz_deflate_blocks(struct gpz_bitw *bw, const uint8_t *src, size_t start,
                              size_t nbytes, const uint32_t *tokens, size_t ntok, int last,
                              int *stored);

/* A chained piece holding stored blocks was padded as if it started on a byte boundary; when
 * it starts at stream bit pos, it is preceded by an empty stored block (BFINAL 0, BTYPE 00, zero
 * bits to the byte boundary, LEN 0, NLEN 0xffff) of this many bits (0 when none is needed): its
 * last 16 bits are ones, the others zeros. */
unsigned gpz_deflate_marker_bits(uint64_t pos, int stored);

/* One piece's output: the caller sets buf and cap (gpz_deflate_piece_cap of its length); the
 * driver fills the rest. The piece's bits are `bytes` whole bytes of buf, then nb (< 8) bits
 * in acc. */
struct gpz_dfl_piece {
	uint8_t *buf;
	size_t cap;
	size_t bytes;
	uint64_t acc;
	unsigned nb;
	int stored; /* some block is stored: the piece must start on a byte boundary */
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
 * Chained (independent = 0): each piece is parsed with the bytes before it (up to 32 KiB of
 * src[0 .. start + i * PIECE)) as history, only the final piece gets BFINAL, and only when
 * `last` is set; n == 0 with `last` gives one empty final block. Joining them is stream.c's work.
 * Independent (independent = 1): each piece sees no history, ends in BFINAL and is padded to a
 * byte, so it is a raw DEFLATE stream of its own (the .gpz LZ frames).
 * check (GPZ_DFL_CHECK_*): each piece's check of its own bytes into out[i].check, computed by
 * the piece's thread (the stream combines them), so no thread reads the whole input.
 */
void gpz_deflate_pieces(int nthreads, const uint8_t *src, size_t start, size_t n, int level,
                        int independent, int last, int check, struct gpz_dfl_piece *out);

#ifdef __cplusplus
}
#endif
#endif
