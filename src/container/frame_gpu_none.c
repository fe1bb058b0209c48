/* frame_gpu_none.c - frame_gpu.cu in a build without CUDA: no context has the GPU backend, so
 * the frame calls never come here, and the public device-buffer calls report that no GPU is
 * usable. */
#include "container/frame_gpu.h"

gpz_result gpz_gpu_frame_compress(struct gpz_gpu *g, const gpz_params *p, const void *src,
                                  size_t src_size, void *dst, size_t dst_cap, size_t *written,
                                  struct gpz_place *place)
{
	return GPZ_ERR_NO_GPU;
}

int gpz_gpu_frames_take(const gpz_params *p, const void *d_src, size_t size)
{
	return 0;
}

gpz_result gpz_gpu_frames_decompress(struct gpz_gpu *g, int nthreads, const void *src,
                                     size_t src_size, void *dst, size_t cap, size_t *written)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_frame_decompress(struct gpz_gpu *g, const void *src, size_t src_size,
                                    void *dst, size_t dst_cap, size_t *written,
                                    uint64_t *checksum)
{
	return GPZ_ERR_NO_GPU;
}

size_t gpz_device_workspace_size(const gpz_params *p, size_t src_size)
{
	return 0;
}

gpz_result gpz_compress_device(gpz_ctx *ctx, const gpz_params *p, const void *d_src,
                               size_t src_size, void *d_dst, size_t dst_cap, size_t *dst_size,
                               void *cuda_stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_decompress_device(gpz_ctx *ctx, const void *d_src, size_t src_size, void *d_dst,
                                 size_t dst_cap, size_t *dst_size, void *cuda_stream)
{
	return GPZ_ERR_NO_GPU;
}
