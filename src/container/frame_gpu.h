/* frame_gpu.h - .gpz frames on the GPU backend (frame_gpu.cu; without CUDA, frame_gpu_none.c,
 * never reached because no context has the GPU backend). The same plan and bytes as the CPU's
 * frame writer and reader. The public device-buffer calls (gpz_compress_device, ...) are in
 * device_api.cu (without CUDA, frame_gpu_none.c). */
#ifndef GPZ_CONTAINER_FRAME_GPU_H
#define GPZ_CONTAINER_FRAME_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"
#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpz_gpu;

/* Where a frame goes once its size is known: fn(user, n) returns a pinned host address for the
 * n bytes, or NULL for the caller's dst. `used` is set when the frame was copied there (the
 * frame engine places frames straight into a pinned destination this way: their place there
 * depends on the sizes of the frames before them). */
struct gpz_place {
	void *(*fn)(void *user, size_t n);
	void *user;
	int used;
};

/* One Huffman-only (or stored/constant) frame of a host buffer through a set of GPU resources
 * (a context's, or one lane's of the frame engine): staged in its device buffers, synchronous.
 * Pinned src/dst make the copies asynchronous DMA. place may be NULL. More than p->frame_bytes
 * of input, where gpz_gpu_frames_take takes it: the frames of a job, all at once. */
gpz_result gpz_gpu_frame_compress(struct gpz_gpu *g, const gpz_params *p, const void *src,
                                  size_t src_size, void *dst, size_t dst_cap, size_t *written,
                                  struct gpz_place *place);
/* The same for decoding one whole frame (validated for kind and sizes by the caller). */
gpz_result gpz_gpu_frame_decompress(struct gpz_gpu *g, const void *src, size_t src_size,
                                    void *dst, size_t dst_cap, size_t *written,
                                    uint64_t *checksum);

/* One frame (not LZ mode) from device memory into device memory on `stream` (and g's side
 * stream), in g's workspace; synchronises before returning. For the device-buffer API. */
gpz_result gpz_gpu_frame_compress_dev(struct gpz_gpu *g, const gpz_params *p,
                                      const uint8_t *d_src, size_t size, uint8_t *d_dst,
                                      size_t cap, size_t *written, gpz_stream_t stream);
/* Validate and decode the frame at d_src (src_size bytes available) into d_dst; the stored
 * checksum comes back in *stored_sum. h_peek: the frame's first GPZ_BLOCK_PEEK_SIZE bytes where
 * the caller has them on the host (else NULL). Synchronises before returning. */
gpz_result gpz_gpu_frame_decompress_dev(struct gpz_gpu *g, const uint8_t *d_src,
                                        size_t src_size, const uint8_t *h_peek, uint8_t *d_dst,
                                        size_t cap, size_t *written, uint64_t *stored_sum,
                                        gpz_stream_t stream);
/* Many frames of 1-byte symbols at once (frames_gpu.cu): every frame of the `size` bytes at
 * d_src (frames of p->frame_bytes) into d_dst, the bytes gpz_gpu_frame_compress_dev writes frame
 * after frame, with one synchronisation in all; *written the frames' bytes. GPZ_ERR_DST_TOO_SMALL
 * (nothing written) when they pass cap. gpz_gpu_frames_take says whether it takes p and the
 * input (Huffman-only, 1-byte symbols, one bitstream a chunk, frames a multiple of 32 bytes,
 * d_src 16-byte aligned, at most 65535 frames); gpz_gpu_frames_workspace is the g->work it
 * takes. */
int gpz_gpu_frames_take(const gpz_params *p, const void *d_src, size_t size);
size_t gpz_gpu_frames_workspace(const gpz_params *p, size_t size);
gpz_result gpz_gpu_frames_compress_dev(struct gpz_gpu *g, const gpz_params *p,
                                       const uint8_t *d_src, size_t size, uint8_t *d_dst,
                                       size_t cap, size_t *written, gpz_stream_t stream);
/* A stream of many Huffman-only, stored or constant frames at d_src (src_size bytes: one
 * stream, header to trailer; or with `bare`, a frame engine job's frames alone) decoded into
 * d_dst with a few waits in all (frames_decode_gpu.cu), the frames' checks made on nthreads
 * host threads; *written the content's bytes. GPZ_ERR_PARAM when it does not take the stream,
 * or when any check fails: the frame-at-a-time path then decodes it and reports what is wrong
 * (d_dst's bytes are undefined meanwhile). */
gpz_result gpz_gpu_frames_decompress_dev(struct gpz_gpu *g, int nthreads, const uint8_t *d_src,
                                         size_t src_size, int bare, uint8_t *d_dst, size_t cap,
                                         size_t *written, gpz_stream_t stream);
/* A job's frames from host memory into dst the same way (staged in g's buffers); GPZ_ERR_PARAM
 * as above. */
gpz_result gpz_gpu_frames_decompress(struct gpz_gpu *g, int nthreads, const void *src,
                                     size_t src_size, void *dst, size_t cap, size_t *written);
/* n symbols of width w, each v, at d_dst (a constant frame's content). */
gpz_result gpz_gpu_fill(uint8_t *d_dst, size_t n, int w, uint32_t v, gpz_stream_t stream);
/* The most of g->work one frame of frame_bytes takes in gpz_gpu_frame_compress_dev. */
size_t gpz_gpu_frame_workspace(const gpz_params *p, size_t frame_bytes);

#ifdef __cplusplus
}
#endif
#endif
