/* dma_probe.cu - what a host's DMA gives several GPUs at once from and to pinned memory: the
 * ceiling for host-buffer work that sends its input to the GPUs and its output back (issue 10's
 * two-GPU scaling of Huffman-only text, whose output is 65% of its input).
 *
 *   nvcc -O2 -arch=sm_90 -o dma_probe bench/probe/dma_probe.cu && ./dma_probe [GiB]
 *
 * Per GPU: `GiB` (default 2) of pinned host memory each way, sent in 64 MiB copies on two streams
 * (the way the frame engine's lanes do). Rows: H2D alone, D2H alone, and both at once with D2H
 * carrying 0.65 of the H2D bytes, on 1 GPU and on every GPU at once; GB/s of H2D bytes (10^9). */
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static const size_t STEP = (size_t)64 << 20;

struct Gpu {
	void *h_in, *h_out, *d_in, *d_out;
	cudaStream_t s[2];
};

/* Copies of n bytes H2D (h2d) and frac * n bytes D2H (d2h) on each of the first g GPUs. */
static double run(std::vector<Gpu> &gp, int g, size_t n, bool h2d, bool d2h, double frac)
{
	auto t0 = std::chrono::steady_clock::now();
	for (size_t off = 0; off < n; off += STEP) {
		size_t k = n - off < STEP ? n - off : STEP, kb = (size_t)(k * frac) & ~(size_t)4095;
		for (int i = 0; i < g; i++) {
			CK(cudaSetDevice(i));
			cudaStream_t s = gp[i].s[(off / STEP) % 2];
			if (h2d)
				CK(cudaMemcpyAsync((char *)gp[i].d_in + off, (char *)gp[i].h_in + off, k,
				                   cudaMemcpyHostToDevice, s));
			if (d2h)
				CK(cudaMemcpyAsync((char *)gp[i].h_out + off, (char *)gp[i].d_out + off,
				                   h2d ? kb : k, cudaMemcpyDeviceToHost, s));
		}
	}
	for (int i = 0; i < g; i++) {
		CK(cudaSetDevice(i));
		CK(cudaDeviceSynchronize());
	}
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	return (double)n * g / s / 1e9;
}

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atof(argv[1]) : 2.0) * ((size_t)1 << 30);
	int ng = 0;
	CK(cudaGetDeviceCount(&ng));
	std::vector<Gpu> gp(ng);
	for (int i = 0; i < ng; i++) {
		CK(cudaSetDevice(i));
		CK(cudaMallocHost(&gp[i].h_in, n));
		CK(cudaMallocHost(&gp[i].h_out, n));
		CK(cudaMalloc(&gp[i].d_in, n));
		CK(cudaMalloc(&gp[i].d_out, n));
		for (size_t j = 0; j < n; j += 4096) /* touch the pages */
			((char *)gp[i].h_in)[j] = ((char *)gp[i].h_out)[j] = 1;
		CK(cudaStreamCreate(&gp[i].s[0]));
		CK(cudaStreamCreate(&gp[i].s[1]));
	}
	printf("| GPUs | H2D alone | D2H alone | H2D + 0.65 D2H (H2D bytes) | host bytes moved |\n");
	printf("|---:|---:|---:|---:|---:|\n");
	for (int g = 1; g <= ng; g++) {
		run(gp, g, n, true, true, 0.65); /* warm-up */
		double a = run(gp, g, n, true, false, 0), b = run(gp, g, n, false, true, 0);
		double c = run(gp, g, n, true, true, 0.65);
		printf("| %d | %.1f | %.1f | %.1f | %.1f |\n", g, a, b, c, c * 1.65);
	}
	return 0;
}
