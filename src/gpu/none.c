/* none.c - the GPU entry points of a build without CUDA: no GPU is ever usable, so contexts use
 * the CPU backend (AUTO) or fail with GPZ_ERR_NO_GPU (GPU). */
#include "gpu/gpu.h"

int gpz_gpu_usable(void)
{
	return 0;
}
