/* checksum_gpu.h - the checksums on the GPU: the frame content checksum (checksum.cu, the same
 * value as checksum.h's) and gzip's CRC-32 / zlib's Adler-32 (crc_gpu.cu, zlib's values).
 * Asynchronous on `stream`. */
#ifndef GPZ_COMMON_CHECKSUM_GPU_H
#define GPZ_COMMON_CHECKSUM_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* checksum.cu: the frame content checksum of FORMAT.md into *d_sum (device u64). */
gpz_result gpz_gpu_checksum(const uint8_t *d_data, size_t size, uint64_t *d_sum,
                            gpz_stream_t stream);

/* The content checksum of each frame of frame_n bytes (the last may be shorter) into d_sums[f]. */
gpz_result gpz_gpu_checksum_frames(const uint8_t *d_data, size_t size, size_t frame_n,
                                   uint64_t *d_sums, gpz_stream_t stream);

/* crc_gpu.cu:
 * gzip's CRC-32 (zlib's crc32(0, data, n)) and zlib's Adler-32 (adler32(1, data, n)) of n bytes
 * at d_data (any alignment, n may be 0) into *d_out (device u32). Two kernels on the stream; no
 * workspace. */

gpz_result gpz_gpu_crc32(const uint8_t *d_data, size_t n, uint32_t *d_out, gpz_stream_t stream);
/* The same over the first *d_n bytes (device u64, at most cap: a size the stream learns on the
 * device), so that the caller need not wait for it. */
gpz_result gpz_gpu_crc32_upto(const uint8_t *d_data, size_t cap, const uint64_t *d_n,
                              uint32_t *d_out, gpz_stream_t stream);
gpz_result gpz_gpu_adler32(const uint8_t *d_data, size_t n, uint32_t *d_out,
                           gpz_stream_t stream);

#ifdef __cplusplus
}
#endif
#endif
