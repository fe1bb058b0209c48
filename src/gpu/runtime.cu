/* runtime.cu - is a GPU usable, and a context's GPU resources (gpu.h). */
#include <stdlib.h>
#include <sys/mman.h>

#include "gpu/gpu.h"
#include "gpu/cuda_check.h"

extern "C" int gpz_gpu_usable(void)
{
	/* probed once (cudaGetDeviceCount initialises the driver); threads that race here all
	 * probe and store the same answer */
	static int usable = -1;
	int u = __atomic_load_n(&usable, __ATOMIC_ACQUIRE);
	if (u < 0) {
		int n = 0;
		u = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
		if (!u)
			cudaGetLastError(); /* clear the sticky "no device" error */
		__atomic_store_n(&usable, u, __ATOMIC_RELEASE);
	}
	return u;
}

extern "C" int gpz_gpu_built(void)
{
	return 1;
}

extern "C" int gpz_gpu_count(void)
{
	int n = 0;
	if (!gpz_gpu_usable() || cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return n;
}

extern "C" gpz_result gpz_gpu_use(const struct gpz_gpu *g)
{
	int cur = -1;
	if (cudaGetDevice(&cur) == cudaSuccess && cur == g->device)
		return GPZ_OK;
	GPZ_CUDA_TRY(cudaSetDevice(g->device));
	return GPZ_OK;
}

/* The calling thread's current device, to be given back: the library opens and closes lanes'
 * resources on other GPUs from the caller's thread and must not leave it switched. */
static int current_device(void)
{
	int d = 0;
	if (cudaGetDevice(&d) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return d;
}

extern "C" gpz_result gpz_gpu_open(struct gpz_gpu **out, int device)
{
	struct gpz_gpu *g = (struct gpz_gpu *)calloc(1, sizeof(*g));
	int prev = current_device();
	if (!g)
		return GPZ_ERR_NOMEM;
	g->device = device < 0 ? prev : device;
	if (gpz_gpu_use(g) != GPZ_OK ||
	    cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking) != cudaSuccess ||
	    cudaStreamCreateWithFlags(&g->side, cudaStreamNonBlocking) != cudaSuccess ||
	    cudaEventCreateWithFlags(&g->in_ready, cudaEventDisableTiming) != cudaSuccess ||
	    cudaEventCreateWithFlags(&g->sum_done, cudaEventDisableTiming) != cudaSuccess ||
	    cudaMallocHost(&g->pinned, 64) != cudaSuccess) {
		cudaGetLastError();
		gpz_gpu_close(g);
		cudaSetDevice(prev);
		return GPZ_ERR_GPU;
	}
	cudaSetDevice(prev);
	*out = g;
	return GPZ_OK;
}

extern "C" void gpz_gpu_close(struct gpz_gpu *g)
{
	int prev;
	if (!g) /* before any CUDA call: a CPU context must not start the driver (0.25 s) */
		return;
	prev = current_device();
	gpz_gpu_use(g);
	if (g->stream)
		cudaStreamSynchronize(g->stream);
	cudaFree(g->work);
	cudaFree(g->in);
	cudaFree(g->out);
	if (g->pinned)
		cudaFreeHost(g->pinned);
	gpz_gpu_host_free(g->host);
	if (g->stream)
		cudaStreamDestroy(g->stream);
	if (g->side)
		cudaStreamDestroy(g->side);
	if (g->in_ready)
		cudaEventDestroy(g->in_ready);
	if (g->sum_done)
		cudaEventDestroy(g->sum_done);
	free(g);
	cudaSetDevice(prev);
}

extern "C" gpz_result gpz_gpu_reserve(uint8_t **buf, size_t *cap, size_t need)
{
	if (*cap >= need)
		return GPZ_OK;
	cudaFree(*buf);
	*buf = NULL;
	*cap = 0;
	GPZ_CUDA_TRY(cudaMalloc(buf, need ? need : 1));
	*cap = need;
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_grow(uint8_t **buf, size_t *cap, size_t need, size_t keep,
                                   gpz_stream_t stream)
{
	uint8_t *nb = NULL;
	if (*cap >= need)
		return GPZ_OK;
	GPZ_CUDA_TRY(cudaMalloc(&nb, need));
	cudaError_t e = keep ? cudaMemcpyAsync(nb, *buf, keep, cudaMemcpyDeviceToDevice,
	                                       (cudaStream_t)stream)
	                     : cudaSuccess;
	if (e == cudaSuccess) /* the old buffer goes once the copy has read it */
		e = cudaStreamSynchronize((cudaStream_t)stream);
	if (e != cudaSuccess) {
		cudaFree(nb);
		return gpz_cuda_result(e);
	}
	cudaFree(*buf);
	*buf = nb;
	*cap = need;
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_to_device(struct gpz_gpu *g, void *d_dst, const void *src, size_t n)
{
	if (n)
		GPZ_CUDA_TRY(cudaMemcpyAsync(d_dst, src, n, cudaMemcpyHostToDevice, g->stream));
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_to_host(struct gpz_gpu *g, void *dst, const void *d_src, size_t n)
{
	if (n)
		GPZ_CUDA_TRY(cudaMemcpyAsync(dst, d_src, n, cudaMemcpyDeviceToHost, g->stream));
	GPZ_CUDA_TRY(cudaStreamSynchronize(g->stream));
	return GPZ_OK;
}

/* Page-locked memory in 2 MiB huge pages where the kernel gives them: registering them with
 * CUDA pins 512 times fewer pages, which on an H200 host takes 0.044 s for a lane's 132 MiB
 * against 0.088 s for cudaHostAlloc (bench/probe/alloc_probe.cu). The pages are faulted in
 * first, in the allocating lane's thread: left to cudaHostRegister, the faults ran inside the
 * driver, one lane's registration after another (~45 ms each for 136 MiB; GPU gzip -d of 4 GB
 * on an H200 host reached its first batch 0.1-0.15 s later, bench/results/
 * 2026-11-28-h200-tool-output-start.md). cudaHostAlloc stands in when registration fails. */
#define HUGE_PAGE ((size_t)2 << 20)

extern "C" gpz_result gpz_gpu_host_alloc(void **p, size_t n)
{
	size_t len = ((n ? n : 1) + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	void *q = aligned_alloc(HUGE_PAGE, len);

	*p = NULL;
	if (q) {
		madvise(q, len, MADV_HUGEPAGE); /* a hint: without it, ordinary pages */
		for (size_t at = 0; at < len; at += 4096)
			((volatile char *)q)[at] = 0;
		if (cudaHostRegister(q, len, cudaHostRegisterPortable) == cudaSuccess) {
			*p = q;
			return GPZ_OK;
		}
		cudaGetLastError();
		free(q);
	}
	if (cudaHostAlloc(p, n ? n : 1, cudaHostAllocPortable) != cudaSuccess) { /* any GPU */
		cudaGetLastError();
		*p = NULL;
		return GPZ_ERR_NOMEM;
	}
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_host_reserve(struct gpz_gpu *g, size_t need)
{
	void *p;
	if (g->host_cap >= need)
		return GPZ_OK;
	need += need / 2; /* frames of a stream grow a little at a time */
	if (gpz_gpu_host_alloc(&p, need) != GPZ_OK)
		return GPZ_ERR_NOMEM;
	gpz_gpu_host_free(g->host);
	g->host = (uint8_t *)p;
	g->host_cap = need;
	return GPZ_OK;
}

extern "C" void gpz_gpu_host_free(void *p)
{
	if (!p)
		return;
	if (cudaHostUnregister(p) == cudaSuccess) {
		free(p);
		return;
	}
	cudaGetLastError(); /* not registered: from cudaHostAlloc */
	cudaFreeHost(p);
}

extern "C" int gpz_gpu_is_pinned(const void *p)
{
	cudaPointerAttributes a;
	if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return a.type == cudaMemoryTypeHost;
}
