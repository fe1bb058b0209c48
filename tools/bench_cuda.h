/* bench_cuda.h - what the GPU benchmarks (bench_gpu.cu, bench_gpu_deflate.cu) share: CUDA calls
 * that end the program on failure, and a median of CUDA-event timings after a warm-up. */
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

#endif
