/* context.c - creating contexts and choosing the backend. */
#include "common/context.h"
#include "common/parallel.h"
#include "gpu/gpu.h"

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
	ctx->gpu_asked = backend == GPZ_BACKEND_GPU;
	if (ctx->backend == GPZ_BACKEND_GPU) {
		gpz_result r = gpz_gpu_open(&ctx->gpu);
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
	if (ctx)
		gpz_gpu_close(ctx->gpu);
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
