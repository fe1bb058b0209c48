// alloc_probe.cu - how long a frame-engine lane's set-up takes on this GPU: the CUDA context,
// then per lane: streams, pinned host buffers, device buffers (sizes of a DEFLATE lane).
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main()
{
	double t0 = now();
	cudaFree(0);
	double t1 = now();
	printf("context: %.3f s\n", t1 - t0);
	for (int lane = 0; lane < 3; lane++) {
		double a = now();
		cudaStream_t s1, s2;
		cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
		cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
		double b = now();
		void *h1, *h2, *d1, *d2, *d3;
		cudaHostAlloc(&h1, 64u << 20, cudaHostAllocPortable);
		double c = now();
		cudaHostAlloc(&h2, 68u << 20, cudaHostAllocPortable);
		double d = now();
		cudaMalloc(&d1, 65u << 20);
		cudaMalloc(&d2, 68u << 20);
		cudaMalloc(&d3, (size_t)1400 << 20);
		double e = now();
		cudaMemsetAsync(d3, 0, (size_t)1400 << 20, s1);
		cudaStreamSynchronize(s1);
		double f = now();
		printf("lane %d: streams %.4f, pinned 64 MiB %.4f, pinned 68 MiB %.4f, device 1.5 GB %.4f, first memset %.4f s\n",
		       lane, b - a, c - b, d - c, e - d, f - e);
	}
	/* the same 132 MiB a lane pins, as transparent huge pages registered with CUDA */
	for (int lane = 0; lane < 3; lane++) {
		double a = now();
		size_t n = (size_t)132 << 20;
		void *p = aligned_alloc((size_t)2 << 20, n);
		int adv = madvise(p, n, MADV_HUGEPAGE);
		memset(p, 0, n); /* populate */
		double b = now();
		cudaError_t e = cudaHostRegister(p, n, cudaHostRegisterPortable);
		double c = now();
		printf("lane %d THP (madvise %d): populate %.4f s, cudaHostRegister %.4f s (%s)\n", lane,
		       adv, b - a, c - b, cudaGetErrorString(e));
	}
	/* plain pages, registered */
	{
		double a = now();
		size_t n = (size_t)132 << 20;
		void *p = malloc(n);
		memset(p, 0, n);
		double b = now();
		cudaError_t e = cudaHostRegister(p, n, cudaHostRegisterPortable);
		double c = now();
		printf("4 KiB pages: populate %.4f s, cudaHostRegister %.4f s (%s)\n", b - a, c - b,
		       cudaGetErrorString(e));
	}
	return 0;
}
