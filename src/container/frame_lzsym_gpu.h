/* frame_lzsym_gpu.h - LZ-symbol frames (type 5) written and read on the GPU from device memory
 * (frame_lzsym_gpu.cu), the bytes of frame_lzsym.c's gpz_lzs_frame_write exactly.
 * frame_gpu.cu calls them for LZ-symbol frames on the GPU backend; tests/gpu/test_gpu_lzsym.cu
 * checks them against the CPU bit for bit. */
#ifndef GPZ_CONTAINER_FRAME_LZSYM_GPU_H
#define GPZ_CONTAINER_FRAME_LZSYM_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"
#include "gpu/gpu.h"
#include "container/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpz_gpu;

/* As gpz_lzs_frame_write: n symbols at d_src (hist[0 .. alphabet) their histogram, on the
 * host), the frame into d_dst only when smaller than `beat` bytes (*written 0 and GPZ_OK
 * otherwise). Uses g->work; synchronises the stream. */
gpz_result gpz_lzs_frame_write_gpu(struct gpz_gpu *g, const gpz_params *p, const uint8_t *d_src,
                                   size_t n, const uint32_t *hist, uint32_t alphabet, size_t beat,
                                   uint8_t *d_dst, size_t cap, size_t *written,
                                   gpz_stream_t stream);

/* The most of g->work that gpz_lzs_frame_write_gpu takes for a frame of frame_bytes (the
 * largest alphabet of the symbol width, a payload as large as the frame). */
size_t gpz_lzs_gpu_workspace(const gpz_params *p, size_t frame_bytes);

/* As gpz_lzs_frame_decode, from the frame at d_frame (in parsed from its header, the header
 * check verified) whose first bytes up to its payload are at head on the host; the content is
 * checked against the frame's checksum, which comes back in *sum. Synchronises the stream. */
gpz_result gpz_lzs_frame_decode_gpu(struct gpz_gpu *g, const uint8_t *d_frame, const uint8_t *head,
                                    const gpz_block_info *in, uint8_t *d_dst, uint64_t *sum,
                                    gpz_stream_t stream);

#ifdef __cplusplus
}
#endif
#endif
