/* deflate_gpu.h - DEFLATE on the GPU (deflate.cu): the raw stream of the CPU's piece driver and
 * block writer, bit for bit, from the GPU match stage (lz/lz_gpu.h) and a parallel block
 * writer. stream.c wraps it in gzip/zlib framing with the context's GPU resources; without CUDA,
 * deflate_gpu_none.c stands in and is never reached. */
#ifndef GPZ_DEFLATE_GPU_H
#define GPZ_DEFLATE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Raw DEFLATE (RFC 1951) of n bytes at d_src at level 1..9: exactly the bytes of the CPU's
 * gpz_deflate_compress(GPZ_FORMAT_DEFLATE) (pieces of GPZ_DEFLATE_PIECE bytes, each parsed with
 * the 32 KiB before it as history and coded by the CPU's block writer, block_core.h, each ending on
 * a byte boundary; BFINAL on the last block of the last piece), from match.cu's stages and a
 * parallel block writer. d_out receives the stream's bytes; out_cap >=
 * gpz_gpu_deflate_raw_bound(n) always suffices. *d_status (device memory) receives the stream's
 * length in bits (a multiple of 8) and GPZ_OK, or GPZ_ERR_DST_TOO_SMALL when out_cap (or a
 * piece's slot, as on the CPU) is too small; read it after the stream has run. d_work (256-byte
 * aligned): gpz_gpu_deflate_work(n) bytes (about 21 MiB a piece, at most 1024 pieces' worth).
 * Returns GPZ_ERR_PARAM for bad arguments, else launch errors only. */
typedef struct gpz_gpu_deflate_status {
	uint64_t bits;
	int32_t result;
	uint32_t reserved;
} gpz_gpu_deflate_status;
size_t gpz_gpu_deflate_work(size_t n);
size_t gpz_gpu_deflate_raw_bound(size_t n);
gpz_result gpz_gpu_deflate_raw(const uint8_t *d_src, size_t n, int level, uint8_t *d_out,
                               size_t out_cap, gpz_gpu_deflate_status *d_status, void *d_work,
                               size_t work_bytes, gpz_stream_t stream);

/* A part of such a stream: pieces first .. of the n bytes at d_src (the pieces before `first`
 * are history only: just their last 32 KiB is read), the last piece ending the stream (BFINAL)
 * when `last` is set, else in a sync marker. group g >= 1: every g pieces form a raw DEFLATE
 * stream of their own (no history before the group, BFINAL at its end), as gpz_deflate_pieces'
 * groups (the .gpz LZ frames); a cut (group -c): chained, without history before each piece
 * whose number in the stream is a multiple of c, piece `first` being number k0 there
 * (GPZ_DFL_ALONE: every piece). Output, status and workspace as above; the output starts with piece
 * `first`. */
gpz_result gpz_gpu_deflate_part(const uint8_t *d_src, size_t n, size_t first, size_t k0,
                                int last, int group, int level, uint8_t *d_out, size_t out_cap,
                                gpz_gpu_deflate_status *d_status, void *d_work,
                                size_t work_bytes, gpz_stream_t stream);

/* After gpz_gpu_deflate_raw or _part has run with this d_work: the pieces' byte offsets in its
 * output (ceil(n / GPZ_DEFLATE_PIECE) + 1 entries, at least 2, those from `first` on filled;
 * device memory inside d_work), from which the gzip piece index is made. */
const uint64_t *gpz_gpu_deflate_piece_offsets(const void *d_work, size_t n);


/* ---- inflate.cu: gpz's DEFLATE decoder (inflate.c) on the GPU, a warp a piece ----
 *
 * Piece k of np is raw DEFLATE at d_in + d_off[k] .. d_in + d_off[k + 1] (d_off: np + 1 device
 * u64), decoded as gpz_inflate_piece does (same checks, same results) into at most cap symbols
 * at d_out + k * cap: bytes, or with GPZ_GPU_INFL_SYMBOLS 16-bit symbols where 256 + w stands
 * for byte w of the unknown 32 KiB before the piece (for piece 0 with
 * GPZ_GPU_INFL_FIRST_WINDOW, for the others with GPZ_GPU_INFL_CHAINED; elsewhere such a
 * reference is corrupt input; with GPZ_GPU_INFL_GROUP(g) instead, for every piece but the first
 * of each group of 2^g). GPZ_GPU_INFL_STRICT: the bits before a stored block's length must be
 * zero (gpz writes them so; .gpz frames require it). d_res[k] receives the piece's result,
 * symbols and whether its last block was final; past a piece's result count its output is
 * undefined. d_room (16-byte aligned, gpz_gpu_inflate_room(np, cap) bytes) holds the decoder's
 * working tokens (none for pieces below 64 KiB, which decode in lockstep). Asynchronous on
 * stream. */
#define GPZ_GPU_INFL_SYMBOLS 1
#define GPZ_GPU_INFL_FIRST_WINDOW 2
#define GPZ_GPU_INFL_CHAINED 4
#define GPZ_GPU_INFL_STRICT 8
#define GPZ_GPU_INFL_GROUP(g) ((g) << 4) /* g: 1 .. 15 */
typedef struct gpz_gpu_infl_res {
	int32_t result;
	uint32_t n;
	uint32_t final;
	uint32_t reserved;
} gpz_gpu_infl_res;
size_t gpz_gpu_inflate_room(size_t np, size_t cap);
gpz_result gpz_gpu_inflate_pieces(const uint8_t *d_in, const uint64_t *d_off, size_t np,
                                  size_t cap, size_t total, int flags, void *d_out, void *d_room,
                                  gpz_gpu_infl_res *d_res, gpz_stream_t stream);

/* The bytes of n symbols (d_sym, 16-byte aligned) of consecutive pieces of `piece` symbols
 * each (all full but the last, piece >= 32 KiB) into d_out: a window symbol takes the byte it
 * stands for, following references back through the pieces before (the last 32 KiB of each
 * piece are rewritten in place on the way); those that reach before the first piece take their
 * byte from d_win (its 32 KiB window) when given, else are left 0 and listed for the caller:
 * d_list[i] = position << 15 | w for the first list_cap of them, *d_count (set to 0
 * beforehand) counting all. With d_n, the count is min(n, *d_n), learnt on the device by then
 * (gpz_gpu_inflate_batch_n): n, a bound, sizes the launches. d_joins (or NULL): a device word
 * the pass may use to find that no piece at a multiple of 32 from the first (but the first) has a
 * window symbol, as gzip's cuts and .gpz LZ frames' groups make them, and then skip the steps
 * that join those stretches (the output is the same either way). */
gpz_result gpz_gpu_inflate_resolve(uint16_t *d_sym, size_t n, const uint64_t *d_n, size_t piece,
                                   const uint8_t *d_win, uint8_t *d_out, uint64_t *d_list,
                                   uint32_t list_cap, uint32_t *d_count, uint32_t *d_joins,
                                   gpz_stream_t stream);
/* On the device, from a batch's results (d_res, nk pieces of `piece` bytes, all full but the
 * last): d_n[0] = its bytes, at most bound, and d_n[1] = base + d_n[0]; for the window pass and
 * the CRC-32 to run without a wait for the results, which the caller checks afterwards. */
gpz_result gpz_gpu_inflate_batch_n(const gpz_gpu_infl_res *d_res, size_t nk, size_t piece,
                                   size_t bound, uint64_t base, uint64_t *d_n,
                                   gpz_stream_t stream);

/* ---- gunzip_gpu.cu: indexed gzip members (gpz's piece index) on the GPU ---- */

/* The np pieces of a member's DEFLATE data at d_data (device; off: np + 1 host offsets) into
 * d_dst (cap bytes, device): *out_n bytes and their CRC-32, checked as gunzip.c checks them.
 * alone: the index says each piece decodes without the bytes before it (straight to bytes; a
 * reference before a piece is corrupt input). Workspace: g->work (about 2.1 bytes an output
 * byte, up to GPZ_DFL_BATCH_MAX pieces at once; pieces alone 0.13). trailer (or NULL): the 8
 * bytes after the data (a gzip member's trailer), fetched in the same wait. */
gpz_result gpz_gpu_inflate_indexed(struct gpz_gpu *g, const uint8_t *d_data, const uint64_t *off,
                                   uint32_t np, int alone, uint8_t *d_dst, size_t cap,
                                   size_t *out_n, uint32_t *crc, uint8_t *trailer,
                                   gpz_stream_t stream);
/* The same from and to host memory (np lengths as u32 LE at lens), staged in g's buffers. */
gpz_result gpz_gpu_inflate_host(struct gpz_gpu *g, const uint8_t *data, uint32_t np, int alone,
                                const uint8_t *lens, uint8_t *dst, size_t cap, size_t *out_n,
                                uint32_t *crc);
/* A batch of the frame engine (deflate.h's struct gpz_infl_batch, host buffers: in, off, dst,
 * room, res) on g: its bytes into b->dst, but those copied from the batch's unknown window
 * (when b->k0 > 0), listed instead: list[i] = position << 15 | w (byte w of the 32 KiB window),
 * *nlist of them; more than gpz_gpu_infl_batch_list(b->nk) (a pathological stream) leaves
 * list and dst unfilled, for the caller to decode the batch on the CPU. */
struct gpz_infl_batch;
size_t gpz_gpu_infl_batch_list(size_t nk);
gpz_result gpz_gpu_infl_batch(struct gpz_gpu *g, struct gpz_infl_batch *b, uint64_t *list,
                              size_t *nlist, size_t *out_n);

#ifdef __cplusplus
}
#endif
#endif
