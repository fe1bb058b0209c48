/* deflate_gpu_none.c - deflate.cu in a build without CUDA: no context has the GPU backend, so
 * the GPU paths are never taken and these are never reached. */
#include "deflate/deflate_gpu.h"

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

gpz_result gpz_gpu_deflate_part(const uint8_t *d_src, size_t n, size_t first, int last,
                                int independent, int level, uint8_t *d_out, size_t out_cap,
                                gpz_gpu_deflate_status *d_status, void *d_work,
                                size_t work_bytes, gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

const uint64_t *gpz_gpu_deflate_piece_offsets(const void *d_work, size_t n)
{
	return NULL;
}
