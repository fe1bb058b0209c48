/* runtime.cu - is a GPU usable? */
#include "gpu/gpu.h"
#include "gpu/cuda_check.h"

extern "C" int gpz_gpu_usable(void)
{
	static int usable = -1; /* probed once: cudaGetDeviceCount initialises the driver */
	if (usable < 0) {
		int n = 0;
		usable = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
		if (!usable)
			cudaGetLastError(); /* clear the sticky "no device" error */
	}
	return usable;
}
