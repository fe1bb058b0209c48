/* cuda_test.h - what every GPU test shares: the test utilities, the GPU stage interface, and CU(),
 * which ends the test with the failing call and CUDA's message (a CUDA failure is never a result
 * to compare). */
#ifndef GPZ_CUDA_TEST_H
#define GPZ_CUDA_TEST_H

extern "C" {
#include "testutil.h"
}
#include "gpu/gpu.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CU(call)                                                                             \
	do {                                                                                     \
		cudaError_t e_ = (call);                                                             \
		if (e_ != cudaSuccess) {                                                             \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                    \
			        cudaGetErrorString(e_));                                                 \
			exit(1);                                                                         \
		}                                                                                    \
	} while (0)

/* 1 when a GPU is usable (its name is printed); 0 after printing the skip line, for
 * `if (!gpu_test_start()) return TEST_SKIP;`. */
static inline int gpu_test_start(void)
{
	cudaDeviceProp prop;
	if (!gpz_gpu_usable()) {
		printf("SKIP: no GPU\n");
		return 0;
	}
	CU(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
	return 1;
}

#endif
