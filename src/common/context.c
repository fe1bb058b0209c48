/* context.c - creating contexts and choosing the backend. */
#include "common/context.h"
#include "common/parallel.h"
#include "gpu/gpu.h"

#include <stdatomic.h>
#include <stdlib.h>

int gpz_gpu_available(void)
{
	return gpz_gpu_usable();
}

gpz_result gpz_ctx_create(gpz_ctx **out, gpz_backend backend, int nthreads)
{
	gpz_ctx *ctx;

	if (!out || nthreads < 0 || backend < GPZ_BACKEND_AUTO || backend > GPZ_BACKEND_GPU)
		return GPZ_ERR_PARAM;
	*out = NULL;
	if (backend == GPZ_BACKEND_GPU && !gpz_gpu_available())
		return GPZ_ERR_NO_GPU;
	ctx = malloc(sizeof(*ctx));
	if (!ctx)
		return GPZ_ERR_NOMEM;
	ctx->backend = backend == GPZ_BACKEND_AUTO && !gpz_gpu_available() ? GPZ_BACKEND_CPU
	             : backend == GPZ_BACKEND_AUTO ? GPZ_BACKEND_GPU : backend;
	ctx->nthreads = nthreads ? nthreads : gpz_cpu_count();
	ctx->gpu = NULL;
	ctx->depth = 0;
	ctx->gpus = 0;
	ctx->fallbacks = 0;
	ctx->lanes = NULL;
	ctx->lanes_free = NULL;
	ctx->gpu_asked = backend == GPZ_BACKEND_GPU;
	if (ctx->backend == GPZ_BACKEND_GPU) {
		gpz_result r = gpz_gpu_open(&ctx->gpu, -1);
		if (r != GPZ_OK && backend == GPZ_BACKEND_GPU) {
			free(ctx);
			return r;
		}
		if (r != GPZ_OK) /* AUTO: a GPU that cannot be set up means the CPU */
			ctx->backend = GPZ_BACKEND_CPU;
	}
	*out = ctx;
	return GPZ_OK;
}

void gpz_ctx_free(gpz_ctx *ctx)
{
	if (ctx) {
		if (ctx->lanes_free)
			ctx->lanes_free(ctx);
		gpz_gpu_close(ctx->gpu);
	}
	free(ctx);
}

gpz_backend gpz_ctx_backend(const gpz_ctx *ctx)
{
	return ctx->backend;
}

int gpz_ctx_threads(const gpz_ctx *ctx)
{
	return ctx->nthreads;
}

int gpz_ctx_falls_back(gpz_ctx *ctx, gpz_result r)
{
	if ((r != GPZ_ERR_GPU && r != GPZ_ERR_NOMEM) || ctx->gpu_asked)
		return 0;
	__atomic_add_fetch(&ctx->fallbacks, 1, __ATOMIC_RELAXED);
	return 1;
}

int gpz_ctx_test_gpu_failure(void)
{
	static atomic_long calls, fail_at = -1;
	long at = atomic_load(&fail_at);
	if (at < 0) { /* every thread that reads it first computes the same value */
		const char *e = getenv("GPZ_TEST_GPU_FAIL");
		at = e ? atol(e) : 0;
		atomic_store(&fail_at, at);
	}
	return at > 0 && atomic_fetch_add(&calls, 1) + 1 == at;
}

uint64_t gpz_ctx_gpu_fallbacks(const gpz_ctx *ctx)
{
	return __atomic_load_n(&ctx->fallbacks, __ATOMIC_RELAXED);
}

gpz_result gpz_ctx_set_gpus(gpz_ctx *ctx, int gpus)
{
	if (!ctx || gpus < 0)
		return GPZ_ERR_PARAM;
	if (ctx->lanes_free && gpus != ctx->gpus)
		ctx->lanes_free(ctx); /* remade on next use */
	ctx->gpus = gpus;
	return GPZ_OK;
}

gpz_result gpz_ctx_set_depth(gpz_ctx *ctx, int frames)
{
	if (!ctx || frames < 0 || frames > GPZ_MAX_DEPTH)
		return GPZ_ERR_PARAM;
	if (ctx->lanes_free && frames != ctx->depth)
		ctx->lanes_free(ctx); /* remade with the new depth on next use */
	ctx->depth = frames;
	return GPZ_OK;
}
