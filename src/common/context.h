/* context.h - what a gpz_ctx holds: the backend, the CPU threads, the GPU resources. Every
 * stage that takes a context (the frame engine, DEFLATE streams) reads it here. */
#ifndef GPZ_CONTEXT_H
#define GPZ_CONTEXT_H

#include <pthread.h>

#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpz_gpu;

/* Frames a device-buffer call works on at once (device_api.cu). */
#ifndef GPZ_DEV_LANES
#define GPZ_DEV_LANES 8
#endif

struct gpz_ctx {
	gpz_backend backend; /* resolved: CPU or GPU */
	int gpu_asked;       /* created with GPZ_BACKEND_GPU (not AUTO): also paths the GPU runs
	                      * slower than the CPU today (DEFLATE), for those who want them */
	int nthreads;        /* CPU worker threads, >= 1 */
	struct gpz_gpu *gpu; /* GPU resources (gpu/gpu.h), NULL on the CPU backend */
	int depth;           /* frames in flight in the frame engine (0 = the default) */
	int gpus;            /* GPUs the frame engine spreads lanes over (0 = every visible one) */
	uint64_t fallbacks;  /* GPU failures redone on the CPU (atomic) */
	void *lanes;         /* the frame engine's lanes (container/engine.c), made on first use */
	/* the device-buffer calls' lanes beside `gpu` (container/device_api.cu), made on first use */
	struct gpz_gpu *dev_lane[GPZ_DEV_LANES - 1];
	void (*lanes_free)(gpz_ctx *ctx); /* set by whoever made them; called by gpz_ctx_free */
	/* memory a frame's CPU stages may keep between frames: a frame engine lane's own (its
	 * context is a copy of the caller's that only the lane uses), NULL elsewhere */
	struct gpz_scratch *scratch;
	/* An AUTO context starts the GPU on a thread of its own (a CUDA context takes about 0.4 s
	 * to create), so the frame engine's lanes can begin on the CPU meanwhile. `backend` and
	 * `gpu` are final once `settled` is set (the lanes read it with gpz_ctx_is_settled); every
	 * other reader calls gpz_ctx_settle first. */
	int settled;
	int starting;        /* the starter thread is still to be joined */
	pthread_t starter;
};

/* Wait for an AUTO context's GPU start (from the thread that uses the context). */
void gpz_ctx_settle(gpz_ctx *ctx);
/* Has it finished? (Any thread; never waits.) */
int gpz_ctx_is_settled(const gpz_ctx *ctx);
/* The context's GPU resources, settled first (NULL on the CPU backend). */
struct gpz_gpu *gpz_ctx_gpu(gpz_ctx *ctx);

/* After a GPU stage returned r: should the work be redone on the CPU? Yes for a GPU failure or
 * a lack of memory, unless the context was created for the GPU explicitly (then the error is
 * the answer). Counts the fallbacks. */
int gpz_ctx_falls_back(gpz_ctx *ctx, gpz_result r);

/* Test hook: GPZ_TEST_GPU_FAIL=k in the environment makes the k-th GPU frame of the process
 * (counted from 1, across threads) fail as if the device had, so tests can check the fallback
 * on a machine with a GPU. Returns 1 for that frame. */
int gpz_ctx_test_gpu_failure(void);

#ifdef __cplusplus
}
#endif
#endif
