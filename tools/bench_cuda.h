/* bench_cuda.h - what the GPU benchmarks (bench_gpu.cu, bench_gpu_deflate.cu,
 * bench_gpu_inflate.cu) share: CUDA calls that end the program on failure, a median of
 * CUDA-event timings after a warm-up, a file tiled to a size, GB/s. */
#ifndef GPZ_BENCH_CUDA_H
#define GPZ_BENCH_CUDA_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CK(call)                                                                          \
	do {                                                                                  \
		cudaError_t e_ = (call);                                                          \
		if (e_ != cudaSuccess) {                                                          \
			fprintf(stderr, "gpz-bench: CUDA: %s (%s:%d)\n", cudaGetErrorString(e_),      \
			        __FILE__, __LINE__);                                                  \
			exit(1);                                                                      \
		}                                                                                 \
	} while (0)

/* Seconds f() takes on the default stream: the median of `runs` after one warm-up call. */
template <class F> static double time_median(int runs, F f)
{
	cudaEvent_t a, b;
	std::vector<double> t;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	f(); /* warm-up */
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < runs; i++) {
		float ms;
		CK(cudaEventRecord(a));
		f();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms * 1e-3);
	}
	CK(cudaGetLastError());
	std::sort(t.begin(), t.end());
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	return t[t.size() / 2];
}

/* The file at path repeated to `target` bytes (empty when it cannot be read). */
static inline std::vector<uint8_t> read_tiled(const char *path, size_t target)
{
	std::vector<uint8_t> v;
	FILE *f = fopen(path, "rb");
	if (!f)
		return v;
	uint8_t buf[1 << 16];
	size_t k;
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		v.insert(v.end(), buf, buf + k);
	fclose(f);
	size_t fn = v.size();
	while (fn && v.size() < target)
		v.insert(v.end(), v.begin(), v.begin() + (ptrdiff_t)std::min(fn, target - v.size()));
	return v;
}

static inline double gbs(size_t bytes, double s)
{
	return s > 0 ? (double)bytes / s / 1e9 : 0;
}

#endif
