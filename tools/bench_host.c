/* bench_host.c - gpz-host-bench: what a program calling the library on host buffers gets.
 *
 *   gpz-host-bench [-b W] [-s GiB] [-r RUNS] [-l LEVEL] [-d DEPTH] [-g GPUS] [-T THREADS]
 *                  [-f FRAME_MIB]
 *                  [--cpu|--gpu] [--pinned] FILE
 *
 * Tiles FILE to -s GiB (default 4) in host memory (pageable, or pinned with --pinned), then
 * times gpz_compress and gpz_decompress on it (median of RUNS, default 3, after one warm-up),
 * checks the round trip, and prints input GB/s (10^9 bytes per second) and the ratio. */
#include "gpz.h"
#include "gpu/gpu.h"
#include "bench_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *alloc_host(size_t n, int pinned)
{
	void *p = NULL;
	if (pinned)
		return gpz_gpu_host_alloc(&p, n) == GPZ_OK ? p : NULL;
	return malloc(n);
}

static void free_host(void *p, int pinned)
{
	if (pinned)
		gpz_gpu_host_free(p);
	else
		free(p);
}

static int load_tiled(const char *path, size_t n, int w, uint8_t *dst)
{
	FILE *f = fopen(path, "rb");
	size_t got = 0, k;
	if (!f)
		return -1;
	got = fread(dst, 1, n, f);
	fclose(f);
	got -= got % (size_t)w;
	if (got == 0)
		return -1;
	for (k = got; k < n; k += got) /* whole copies of the file, then part of one */
		memcpy(dst + k, dst, n - k < got ? n - k : got);
	return 0;
}

int main(int argc, char **argv)
{
	int w = 1, runs = 3, level = 0, depth = 0, pinned = 0, gpus = 0, threads = 0;
	double gib = 4, frame_mib = 0;
	gpz_backend be = GPZ_BACKEND_AUTO;
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-b") && i + 1 < argc) w = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc) gib = atof(argv[++i]);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc) runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-l") && i + 1 < argc) level = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-d") && i + 1 < argc) depth = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-g") && i + 1 < argc) gpus = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-T") && i + 1 < argc) threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-f") && i + 1 < argc) frame_mib = atof(argv[++i]);
		else if (!strcmp(argv[i], "--cpu")) be = GPZ_BACKEND_CPU;
		else if (!strcmp(argv[i], "--gpu")) be = GPZ_BACKEND_GPU;
		else if (!strcmp(argv[i], "--pinned")) pinned = 1;
		else path = argv[i];
	}
	if (depth < 0 || depth > GPZ_MAX_DEPTH) {
		fprintf(stderr, "gpz-host-bench: -d takes 0 (the default) to %d\n", GPZ_MAX_DEPTH);
		return 2;
	}
	if (!path || runs < 1 || runs > 50) {
		fprintf(stderr, "usage: gpz-host-bench [-b W] [-s GiB] [-r RUNS] [-l LEVEL] "
		        "[-d DEPTH] [-g GPUS] [-T THREADS] [-f FRAME_MIB] [--cpu|--gpu] [--pinned] FILE\n");
		return 2;
	}
	size_t n = (size_t)(gib * (double)(1u << 30)) / (size_t)w * (size_t)w, clen = 0, dlen = 0;
	gpz_params p;
	gpz_ctx *ctx;
	gpz_params_default(&p);
	p.symbol_bytes = w;
	p.lz_level = level;
	if (frame_mib > 0)
		p.frame_bytes = (size_t)(frame_mib * 1048576) / (size_t)w * (size_t)w;
	size_t cap = gpz_compress_bound(n, &p);
	uint8_t *src = alloc_host(n, pinned), *c = alloc_host(cap, pinned), *d = alloc_host(n, pinned);
	if (!src || !c || !d || load_tiled(path, n, w, src) != 0) {
		fprintf(stderr, "gpz-host-bench: cannot prepare %zu bytes of %s\n", n, path);
		return 1;
	}
	if (gpz_ctx_create(&ctx, be, threads) != GPZ_OK || gpz_ctx_set_depth(ctx, depth) != GPZ_OK ||
	    gpz_ctx_set_gpus(ctx, gpus) != GPZ_OK) {
		fprintf(stderr, "gpz-host-bench: no context\n");
		return 1;
	}
	double tc[50], td[50];
	for (int r = -1; r < runs; r++) { /* run -1 warms up: lanes, pinned buffers, page faults */
		double t0 = bench_now();
		gpz_result e = gpz_compress(ctx, &p, src, n, c, cap, &clen);
		double t1 = bench_now();
		gpz_result f = gpz_decompress(ctx, c, clen, d, n, &dlen);
		double t2 = bench_now();
		if (e != GPZ_OK || f != GPZ_OK || dlen != n || memcmp(d, src, n)) {
			fprintf(stderr, "gpz-host-bench: round trip failed: %s / %s\n",
			        gpz_result_string(e), gpz_result_string(f));
			return 1;
		}
		if (r >= 0) {
			tc[r] = t1 - t0;
			td[r] = t2 - t1;
		}
	}
	printf("| %s | %s | -b %d lz %d | %.2f GiB | %s | depth %d gpus %d T %d | ratio %.3f | compress %.2f GB/s | "
	       "decompress %.2f GB/s | fallbacks %llu |\n",
	       strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
	       gpz_ctx_backend(ctx) == GPZ_BACKEND_GPU ? "gpu" : "cpu", w, level,
	       (double)n / (1u << 30),
	       pinned ? "pinned" : "pageable", depth, gpus, gpz_ctx_threads(ctx), (double)n / (double)clen,
	       (double)n / bench_median(tc, runs) / 1e9, (double)n / bench_median(td, runs) / 1e9,
	       (unsigned long long)gpz_ctx_gpu_fallbacks(ctx));
	gpz_ctx_free(ctx);
	free_host(src, pinned);
	free_host(c, pinned);
	free_host(d, pinned);
	return 0;
}
