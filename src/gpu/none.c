/* none.c - the CUDA runtime of a build without CUDA: no GPU is ever usable, so contexts use the
 * CPU backend (AUTO) or fail with GPZ_ERR_NO_GPU (GPU), and nothing reaches the GPU stages. */
#include "gpu/gpu.h"

int gpz_gpu_usable(void)
{
	return 0;
}

int gpz_gpu_built(void)
{
	return 0;
}

int gpz_gpu_count(void)
{
	return 0;
}

gpz_result gpz_gpu_use(const struct gpz_gpu *g)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_open(struct gpz_gpu **out, int device)
{
	*out = NULL;
	return GPZ_ERR_NO_GPU;
}

void gpz_gpu_close(struct gpz_gpu *g)
{
}

gpz_result gpz_gpu_reserve(uint8_t **buf, size_t *cap, size_t need)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_to_device(struct gpz_gpu *g, void *d_dst, const void *src, size_t n)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_to_host(struct gpz_gpu *g, void *dst, const void *d_src, size_t n)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_host_alloc(void **p, size_t n)
{
	*p = NULL;
	return GPZ_ERR_NO_GPU;
}

void gpz_gpu_host_free(void *p)
{
}

int gpz_gpu_is_pinned(const void *p)
{
	return 0;
}
