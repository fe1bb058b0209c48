/* none.c - the GPU entry points of a build without CUDA: no GPU is ever usable, so contexts use
 * the CPU backend (AUTO) or fail with GPZ_ERR_NO_GPU (GPU). */
#include "gpu/gpu.h"
#include "container/context.h"

int gpz_gpu_usable(void)
{
	return 0;
}

/* Unreachable without CUDA: no context ever has the GPU backend. */
gpz_result gpz_gpu_ctx_init(gpz_ctx *ctx)
{
	return GPZ_ERR_NO_GPU;
}

void gpz_gpu_ctx_free(gpz_ctx *ctx)
{
}

gpz_result gpz_gpu_compress_frame_host(gpz_ctx *ctx, const gpz_params *p, const void *src,
                                       size_t src_size, void *dst, size_t dst_cap,
                                       size_t *written)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_decompress_frame_host(gpz_ctx *ctx, const void *src, size_t src_size,
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

/* deflate_gpu.cu: unreachable without CUDA (deflate_stream.c takes the GPU path only on GPU
 * contexts). */
size_t gpz_gpu_deflate_work(size_t n)
{
	return 0;
}

size_t gpz_gpu_deflate_raw_bound(size_t n)
{
	return 0;
}

gpz_result gpz_gpu_deflate_raw(const uint8_t *d_src, size_t n, int level, uint8_t *d_out,
                               size_t out_cap, gpz_gpu_deflate_status *d_status, void *d_work,
                               size_t work_bytes, gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_deflate_host(const void *src, size_t n, int level, int check_kind, void *dst,
                                size_t dst_cap, size_t *written, uint32_t *check,
                                uint64_t *piece_off)
{
	return GPZ_ERR_NO_GPU;
}
