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

struct gpz_gpu;

/* One Huffman-only (or stored/constant) frame of a host buffer through a set of GPU resources
 * (a context's, or one lane's of the frame engine): staged in its device buffers, synchronous.
 * Pinned src/dst make the copies asynchronous DMA. */
gpz_result gpz_gpu_frame_compress(struct gpz_gpu *g, const gpz_params *p, const void *src,
                                  size_t src_size, void *dst, size_t dst_cap, size_t *written);
/* The same for decoding one whole frame (validated for kind and sizes by the caller). */
gpz_result gpz_gpu_frame_decompress(struct gpz_gpu *g, const void *src, size_t src_size,
                                    void *dst, size_t dst_cap, size_t *written,
                                    uint64_t *checksum);

#ifdef __cplusplus
}
#endif
#endif
