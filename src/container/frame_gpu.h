/* frame_gpu.h - .gpz frames on the GPU backend (frame_gpu.cu; without CUDA, frame_gpu_none.c,
 * never reached because no context has the GPU backend). The same plan and bytes as the CPU's
 * frame writer and reader; the public device-buffer calls (gpz_compress_device, ...) live there
 * too. */
#ifndef GPZ_CONTAINER_FRAME_GPU_H
#define GPZ_CONTAINER_FRAME_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One Huffman-mode frame of a host buffer through the context's GPU (staged in its device
 * buffers, synchronous). */
gpz_result gpz_gpu_compress_frame_host(gpz_ctx *ctx, const gpz_params *p, const void *src,
                                       size_t src_size, void *dst, size_t dst_cap,
                                       size_t *written);
gpz_result gpz_gpu_decompress_frame_host(gpz_ctx *ctx, const void *src, size_t src_size,
                                         void *dst, size_t dst_cap, size_t *written,
                                         uint64_t *checksum);

#ifdef __cplusplus
}
#endif
#endif
