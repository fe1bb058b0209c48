/*
 * gpu.h - the CUDA runtime as the rest of the library sees it from C: is a GPU usable, and the
 * GPU resources a context owns (streams, events, device workspace and staging buffers, a small
 * pinned buffer), created once per context and reused by every stage that runs on it.
 *
 * Each stage declares its own GPU half beside its CPU half (huffman/huffman_gpu.h,
 * lz/lz_gpu.h, deflate/deflate_gpu.h, common/checksum_gpu.h). Without CUDA, none.c says no GPU
 * is usable and no context ever reaches the GPU code.
 */
#ifndef GPZ_GPU_H
#define GPZ_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cudaStream_t and cudaEvent_t, spelled so that C code needs no CUDA header. */
typedef struct CUstream_st *gpz_stream_t;
typedef struct CUevent_st *gpz_event_t;

/* 1 when a CUDA device is present and usable; 0 otherwise (also when built without CUDA). */
int gpz_gpu_usable(void);
/* 1 when the library was built with CUDA (says nothing about a device being there). */
int gpz_gpu_built(void);
/* Number of visible CUDA devices (0 without one). */
int gpz_gpu_count(void);

/* A context's GPU resources. Buffers grow on demand (gpz_gpu_reserve) and live until
 * gpz_gpu_close; the host-buffer calls stage input in `in`, output in `out`, and run on
 * `stream`; `side` runs work that only reads the input (content checksums) beside it. */
struct gpz_gpu {
	int device;               /* the CUDA device all of it lives on */
	gpz_stream_t stream, side;
	gpz_event_t in_ready, sum_done;
	uint8_t *work, *in, *out; /* device memory */
	size_t work_cap, in_cap, out_cap;
	uint64_t *pinned;         /* 64 bytes of pinned host memory for small results */
	uint8_t *host;            /* pinned host staging (gpz_gpu_host_reserve) */
	size_t host_cap;
};

/* Create resources on CUDA device `device` (-1: the calling thread's current one; GPZ_ERR_GPU
 * when it cannot be set up), and free them; neither changes the thread's current device. Work
 * on them runs after gpz_gpu_use. */
gpz_result gpz_gpu_open(struct gpz_gpu **out, int device);
void gpz_gpu_close(struct gpz_gpu *g);

/* Make g's device the calling thread's current one (the frame engine's lanes may each be on
 * another GPU). */
gpz_result gpz_gpu_use(const struct gpz_gpu *g);

/* Make *buf (device memory, *cap bytes) hold at least `need` bytes; its contents are lost when
 * it grows. GPZ_ERR_NOMEM when the device is out of memory. */
gpz_result gpz_gpu_reserve(uint8_t **buf, size_t *cap, size_t need);
/* The same, keeping the first `keep` bytes (copied on `stream` when it grows). */
gpz_result gpz_gpu_grow(uint8_t **buf, size_t *cap, size_t need, size_t keep,
                        gpz_stream_t stream);

/* Make g->host (pinned host memory) hold at least `need` bytes; its contents are lost when it
 * grows, so nothing queued may still use it. For a frame's headers and chunk offsets: copies
 * from pinned memory are asynchronous, and reusing it spares fresh pages every frame. */
gpz_result gpz_gpu_host_reserve(struct gpz_gpu *g, size_t need);

/* Copy n bytes to the device on g->stream, asynchronously (src must stay valid until the
 * stream has run the copy: gpz_gpu_to_host waits for it). */
gpz_result gpz_gpu_to_device(struct gpz_gpu *g, void *d_dst, const void *src, size_t n);
/* Copy n bytes from the device on g->stream and wait for everything queued on it. */
gpz_result gpz_gpu_to_host(struct gpz_gpu *g, void *dst, const void *d_src, size_t n);

/* Page-locked host memory (DMA runs at full speed and asynchronously from it);
 * GPZ_ERR_NOMEM when it cannot be had. */
gpz_result gpz_gpu_host_alloc(void **p, size_t n);
void gpz_gpu_host_free(void *p);
/* Is p in page-locked host memory (allocated or registered with CUDA)? */
int gpz_gpu_is_pinned(const void *p);

#ifdef __cplusplus
}
#endif
#endif
