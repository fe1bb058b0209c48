/*
 * bench_gpu_deflate.cu - `gpz-bench --gpu --deflate`: GPU DEFLATE on device-resident data, each
 * input tiled to 1 GiB, CUDA events, median of the runs after a warm-up. Throughput is input bytes
 * per second. Per level: the LZ stages of match.cu over the whole input (chain links, matches at
 * every position, the parse), then the whole raw-DEFLATE call (gpz_gpu_deflate_raw: those
 * stages again in batches, the block writer, the join), the compressed size, and
 * whether the stream is byte for byte the CPU backend's (gpz_deflate_compress, raw) on the same
 * tiled input.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>

#include "gpz.h"
#include "deflate/deflate.h"
#include "deflate/deflate_gpu.h"
#include "lz/lz_gpu.h"
#include "bench_cuda.h"

extern "C" int gpz_bench_gpu_deflate(int argc, char **argv, int runs, int threads, int only)
{
	const size_t target = (size_t)1 << 30, piece = GPZ_DEFLATE_PIECE;
	const int levels[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	cudaDeviceProp prop;
	gpz_ctx *cpu;
	cudaStream_t s = 0;
	int failed = 0;

	if (!gpz_gpu_usable() || gpz_ctx_create(&cpu, GPZ_BACKEND_CPU, threads) != GPZ_OK) {
		fprintf(stderr, "gpz-bench: no usable GPU\n");
		return 1;
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("GPU DEFLATE on %s (%d SMs), inputs tiled to 1 GiB on the device, median of %d "
	       "runs; GB/s of input bytes. Stages: chain links, matches at every position, parse "
	       "(16 Ki segments guessed in parallel, fixed up per 256 KiB piece); whole = "
	       "gpz_gpu_deflate_raw (stages + block writer + join). same = equal to the CPU "
	       "backend's raw stream (%d threads).\n\n",
	       prop.name, prop.multiProcessorCount, runs, threads);
	printf("| file | level | links GB/s | find GB/s | parse GB/s | LZ total GB/s | whole GB/s | "
	       "ratio | same |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (int i = 0; i < argc; i++) {
		std::vector<uint8_t> h = read_tiled(argv[i], target);
		size_t n = h.size(), np = (n + piece - 1) / piece;
		if (!n) {
			fprintf(stderr, "gpz-bench: %s: cannot read\n", argv[i]);
			failed = 1;
			continue;
		}
		uint8_t *d_src, *d_out, *d_work, *d_run;
		uint16_t *links;
		uint32_t *pure, *tok, *ntok;
		gpz_gpu_deflate_status *d_st;
		size_t wb = gpz_gpu_deflate_work(n), ob = gpz_gpu_deflate_raw_bound(n);
		CK(cudaMalloc(&d_src, n));
		CK(cudaMemcpy(d_src, h.data(), n, cudaMemcpyHostToDevice));
		CK(cudaMalloc(&links, n * sizeof(uint16_t)));
		CK(cudaMalloc(&pure, 2 * n * sizeof(uint32_t)));
		CK(cudaMalloc(&tok, n * sizeof(uint32_t)));
		CK(cudaMalloc(&ntok, np * sizeof(uint32_t)));
		CK(cudaMalloc(&d_out, ob));
		CK(cudaMalloc(&d_work, wb));
		CK(cudaMalloc(&d_run, gpz_lz_gpu_run_work(np, piece)));
		CK(cudaMalloc(&d_st, sizeof(*d_st)));
		std::vector<uint8_t> cpu_out(gpz_deflate_bound(n)), gpu_out(ob);
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		for (int level : levels) {
			if (only ? level != only : level != 1 && level != 6 && level != 9)
				continue;
			double tl = time_median(runs, [&] {
				CK(gpz_lz_gpu_links(d_src, n, 0, n, level, links,
				                    reinterpret_cast<uint16_t *>(pure), s));
			});
			double tf = time_median(runs, [&] {
				CK(gpz_lz_gpu_find(d_src, n, piece, level, 0, n, links, 0, 0, 0, pure, s));
			});
			double tp = time_median(runs, [&] {
				CK(gpz_lz_gpu_run(d_src, n, piece, level, 0, np, pure, 0, tok, piece, ntok, d_run,
				                   s));
			});
			double tw = time_median(runs, [&] {
				if (gpz_gpu_deflate_raw(d_src, n, level, d_out, ob, d_st, d_work, wb,
				                        (gpz_stream_t)s) != GPZ_OK)
					exit(1);
			});
			gpz_gpu_deflate_status st;
			CK(cudaMemcpy(&st, d_st, sizeof(st), cudaMemcpyDeviceToHost));
			size_t gsz = (size_t)((st.bits + 7) / 8), csz = 0;
			CK(cudaMemcpy(gpu_out.data(), d_out, gsz, cudaMemcpyDeviceToHost));
			gpz_result r = gpz_deflate_compress(cpu, level, GPZ_FORMAT_DEFLATE, NULL, h.data(),
			                                    n, cpu_out.data(), cpu_out.size(), &csz);
			int same = st.result == GPZ_OK && r == GPZ_OK && csz == gsz &&
			           !memcmp(cpu_out.data(), gpu_out.data(), gsz);
			failed |= !same;
			printf("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.4f | %s |\n", name, level,
			       gbs(n, tl), gbs(n, tf), gbs(n, tp), gbs(n, tl + tf + tp), gbs(n, tw),
			       (double)gsz / (double)n, same ? "yes" : "NO");
			fflush(stdout);
		}
		cudaFree(d_src);
		cudaFree(links);
		cudaFree(pure);
		cudaFree(tok);
		cudaFree(ntok);
		cudaFree(d_out);
		cudaFree(d_work);
		cudaFree(d_run);
		cudaFree(d_st);
	}
	gpz_ctx_free(cpu);
	return failed;
}
