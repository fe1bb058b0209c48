// pipe_probe.cu - where a device-resident Huffman-only call's time goes (issue 14): FILE tiled
// to 1 GiB in device memory, one frame, gpz_compress_device and gpz_decompress_device timed with
// CUDA events (median of RUNS after one warm-up), round trip checked. Under
// `ncu --metrics gpu__time_duration.sum` the kernels of each call are listed, so the time
// outside kernels (host planning, copies, synchronisations) is the difference. FRAME_BYTES
// (default: the whole GiB, one frame) cuts it into frames; CHECK=1 also compresses the input on
// the CPU backend and compares the two outputs byte for byte.
// Usage: pipe_probe FILE W CHUNK_LOG LANES(0|1) RUNS [FRAME_BYTES [CHECK]]
#define GPZ_ADVANCED
#include "gpz.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: pipe_probe FILE W CHUNK_LOG LANES RUNS\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	std::vector<uint8_t> one;
	if (!f)
		return 2;
	for (int c; (c = fgetc(f)) != EOF;)
		one.push_back((uint8_t)c);
	fclose(f);
	size_t n = (size_t)1 << 30, w = (size_t)atoi(argv[2]);
	int runs = atoi(argv[5]);
	std::vector<uint8_t> h(n);
	for (size_t i = 0; i < n; i += one.size())
		memcpy(h.data() + i, one.data(), std::min(one.size(), n - i));
	n -= n % w;
	gpz_ctx *ctx;
	if (gpz_ctx_create(&ctx, GPZ_BACKEND_GPU, 0) != GPZ_OK)
		return 1;
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = (int)w;
	p.chunk_log = atoi(argv[3]);
	p.huff_lanes = atoi(argv[4]);
	p.frame_bytes = argc > 6 ? (size_t)strtoull(argv[6], NULL, 0) : n;
	size_t cap = n + n / 4 + (1 << 20), got = 0, back = 0;
	uint8_t *d_in, *d_c, *d_out;
	CK(cudaMalloc(&d_in, n));
	CK(cudaMalloc(&d_c, cap));
	CK(cudaMalloc(&d_out, n + 64));
	CK(cudaMemcpy(d_in, h.data(), n, cudaMemcpyHostToDevice));
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	std::vector<float> tc, td;
	/* one call between two events: its ms, or -1 when it or CUDA failed */
	auto timed = [&](auto call) -> float {
		float ms = -1;
		if (cudaEventRecord(a, 0) != cudaSuccess || call() != GPZ_OK ||
		    cudaEventRecord(b, 0) != cudaSuccess || cudaEventSynchronize(b) != cudaSuccess ||
		    cudaEventElapsedTime(&ms, a, b) != cudaSuccess)
			return -1;
		return ms;
	};
	for (int r = 0; r <= runs; r++) {
		float c = timed([&] { return gpz_compress_device(ctx, &p, d_in, n, d_c, cap, &got, 0); });
		float d = c < 0 ? -1 : timed([&] {
			return gpz_decompress_device(ctx, d_c, got, d_out, n + 64, &back, 0);
		});
		if (c < 0 || d < 0)
			return 1;
		if (r) {
			tc.push_back(c);
			td.push_back(d);
		}
	}
	/* decompression again, runs back to back (above, each follows a compression, whose host
	 * threads, or their absence, can change how fast the host answers the decoder's waits) */
	std::vector<float> ta;
	for (int r = 0; r < runs; r++) {
		float d = timed([&] {
			return gpz_decompress_device(ctx, d_c, got, d_out, n + 64, &back, 0);
		});
		if (d < 0)
			return 1;
		ta.push_back(d);
	}
	std::sort(ta.begin(), ta.end());
	std::vector<uint8_t> chk(n);
	CK(cudaMemcpy(chk.data(), d_out, n, cudaMemcpyDeviceToHost));
	const char *same = "not compared";
	if (argc > 7 && atoi(argv[7])) {
		gpz_ctx *cpu;
		std::vector<uint8_t> gc(got), cc(cap);
		size_t cgot = 0;
		CK(cudaMemcpy(gc.data(), d_c, got, cudaMemcpyDeviceToHost));
		if (gpz_ctx_create(&cpu, GPZ_BACKEND_CPU, 0) != GPZ_OK ||
		    gpz_compress(cpu, &p, h.data(), n, cc.data(), cap, &cgot) != GPZ_OK)
			return 1;
		same = cgot == got && memcmp(cc.data(), gc.data(), got) == 0 ? "same" : "DIFFERENT";
		gpz_ctx_free(cpu);
	}
	std::sort(tc.begin(), tc.end());
	std::sort(td.begin(), td.end());
	printf("%s w%zu c%d lanes %d frames %zu: ratio %.4f, compress %.3f ms (%.0f GB/s), "
	       "decompress %.3f ms (%.0f GB/s; back to back %.0f GB/s), round trip %s, CPU bytes "
	       "%s\n", argv[1], w,
	       p.chunk_log, p.huff_lanes, p.frame_bytes,
	       (double)n / (double)got, tc[tc.size() / 2], n / 1e6 / tc[tc.size() / 2],
	       td[td.size() / 2], n / 1e6 / td[td.size() / 2], n / 1e6 / ta[ta.size() / 2],
	       back == n && chk == h ? "ok" : "FAILED", same);
	gpz_ctx_free(ctx);
	return 0;
}
