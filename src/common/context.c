/* context.c - creating contexts and choosing the backend. */
#include "common/context.h"
#include "common/parallel.h"
#include "gpu/gpu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* GPU starts still running in this process. A process may exit while one runs (a program that
 * fails fast right after creating an AUTO context): the CUDA driver's own exit handlers must not
 * run under a thread setting up a device (glibc aborts on a mutex inside the driver), so exit
 * waits for the starts (at most 10 s) from a handler of ours. Exit handlers run in the reverse
 * order of registration and the driver registers its own when it initialises, so the caller's
 * thread probes the GPU (cudaGetDeviceCount, about 0.1 s on an H200 host) before ours is
 * registered and the start is handed to a thread. (The shared library is linked -z nodelete, so
 * that a host that dlcloses it at exit, as HDF5 does its plugins, runs this at exit too, not at
 * dlclose, where the loader's lock would hold up the start.) */
static pthread_mutex_t starts_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t starts_cv = PTHREAD_COND_INITIALIZER;
static int starts_running;
static pthread_once_t starts_once = PTHREAD_ONCE_INIT;

static void wait_for_starts(void)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&starts_mu);
	while (starts_running && pthread_cond_timedwait(&starts_cv, &starts_mu, &until) == 0)
		;
	pthread_mutex_unlock(&starts_mu);
}

static void register_wait(void)
{
	atexit(wait_for_starts);
}

static void starts_add(int d)
{
	pthread_mutex_lock(&starts_mu);
	starts_running += d;
	if (!starts_running)
		pthread_cond_broadcast(&starts_cv);
	pthread_mutex_unlock(&starts_mu);
}

int gpz_gpu_available(void)
{
	return gpz_gpu_usable();
}

/* The starter thread of an AUTO context: is there a GPU, and can it be set up? */
static void *start_gpu(void *v)
{
	gpz_ctx *ctx = v;
	gpz_backend b = GPZ_BACKEND_CPU;

	if (gpz_gpu_available() && gpz_gpu_open(&ctx->gpu, -1) == GPZ_OK)
		b = GPZ_BACKEND_GPU;
	ctx->backend = b;
	__atomic_store_n(&ctx->settled, 1, __ATOMIC_RELEASE);
	starts_add(-1);
	return NULL;
}

gpz_result gpz_ctx_create(gpz_ctx **out, gpz_backend backend, int nthreads)
{
	gpz_ctx *ctx;

	if (!out || nthreads < 0 || backend < GPZ_BACKEND_AUTO || backend > GPZ_BACKEND_GPU)
		return GPZ_ERR_PARAM;
	*out = NULL;
	if (backend == GPZ_BACKEND_GPU && !gpz_gpu_available())
		return GPZ_ERR_NO_GPU;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return GPZ_ERR_NOMEM;
	ctx->backend = backend == GPZ_BACKEND_GPU ? GPZ_BACKEND_GPU : GPZ_BACKEND_CPU;
	ctx->nthreads = nthreads ? nthreads : gpz_cpu_count();
	ctx->gpu_asked = backend == GPZ_BACKEND_GPU;
	ctx->settled = 1;
	if (backend == GPZ_BACKEND_GPU) {
		gpz_result r = gpz_gpu_open(&ctx->gpu, -1);
		if (r != GPZ_OK) {
			free(ctx);
			return r;
		}
	} else if (backend == GPZ_BACKEND_AUTO && gpz_gpu_built()) {
		/* whether there is a GPU is the starter's question too: the driver's first call
		 * takes about 0.1 s, which the caller would otherwise wait for */
		ctx->settled = 0;
		pthread_once(&starts_once, register_wait);
		starts_add(1);
		ctx->starting = pthread_create(&ctx->starter, NULL, start_gpu, ctx) == 0;
		if (!ctx->starting)
			start_gpu(ctx); /* no thread to spare: start it here */
	}
	*out = ctx;
	return GPZ_OK;
}

void gpz_ctx_settle(gpz_ctx *ctx)
{
	if (ctx && ctx->starting) {
		pthread_join(ctx->starter, NULL);
		ctx->starting = 0;
	}
}

int gpz_ctx_is_settled(const gpz_ctx *ctx)
{
	return __atomic_load_n(&ctx->settled, __ATOMIC_ACQUIRE);
}

struct gpz_gpu *gpz_ctx_gpu(gpz_ctx *ctx)
{
	gpz_ctx_settle(ctx);
	return ctx && ctx->backend == GPZ_BACKEND_GPU ? ctx->gpu : NULL;
}

void gpz_ctx_free(gpz_ctx *ctx)
{
	if (ctx) {
		gpz_ctx_settle(ctx);
		if (ctx->lanes_free)
			ctx->lanes_free(ctx);
		for (int i = 0; i < GPZ_DEV_LANES - 1; i++)
			gpz_gpu_close(ctx->dev_lane[i]);
		gpz_gpu_close(ctx->gpu);
	}
	free(ctx);
}

gpz_backend gpz_ctx_backend(const gpz_ctx *ctx)
{
	gpz_ctx_settle((gpz_ctx *)ctx); /* the start's state is not part of what const protects */
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
