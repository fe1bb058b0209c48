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
 * when `last` is set, else in a sync marker. independent: every piece sees no byte before it and
 * is a raw DEFLATE stream of its own (BFINAL, padded), as gpz_deflate_pieces' independent pieces
 * (the .gpz LZ frames). Output, status and workspace as above; the output starts with piece
 * `first`. */
gpz_result gpz_gpu_deflate_part(const uint8_t *d_src, size_t n, size_t first, int last,
                                int independent, int level, uint8_t *d_out, size_t out_cap,
                                gpz_gpu_deflate_status *d_status, void *d_work,
                                size_t work_bytes, gpz_stream_t stream);

/* After gpz_gpu_deflate_raw or _part has run with this d_work: the pieces' byte offsets in its
 * output (ceil(n / GPZ_DEFLATE_PIECE) + 1 entries, at least 2, those from `first` on filled;
 * device memory inside d_work), from which the gzip piece index is made. */
const uint64_t *gpz_gpu_deflate_piece_offsets(const void *d_work, size_t n);

#ifdef __cplusplus
}
#endif
#endif
