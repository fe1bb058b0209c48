/* big_oneshot.c - one-shot host-buffer calls on a GPU context with inputs far larger than any
 * GPU workspace (issue 17: they must run in a bounded workspace, not one sized by the input):
 * Huffman-only (2-byte symbols) gpz_compress / gpz_decompress and gzip level 1
 * gpz_deflate_compress / gpz_inflate on GiB gibibytes tiled from FILE, each round trip checked
 * byte for byte. Run it beside `nvidia-smi --query-gpu=memory.used -lms 100` for the device's
 * memory (bench/probe/big-oneshot.sh does).
 * Usage: big_oneshot FILE GiB huff|gzip [cpu]   (cpu: the CPU backend, to check the program) */
#define GPZ_ADVANCED
#include "gpz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned char *tiled(const char *path, size_t n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = malloc(n);
	size_t k = 0, got;

	if (!f || !b)
		return NULL;
	while (k < n && (got = fread(b + k, 1, n - k, f)) > 0)
		k += got;
	fclose(f);
	if (k == 0)
		return NULL;
	for (size_t at = k; at < n; at += at < n - at ? at : n - at) /* doubling copies */
		memcpy(b + at, b, at < n - at ? at : n - at);
	return b;
}

int main(int argc, char **argv)
{
	size_t n, cap, csize = 0, dsize = 0;
	unsigned char *src, *c, *back;
	int huff;
	gpz_ctx *ctx;
	gpz_result r;
	double t0, t1, t2;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: big_oneshot FILE GiB huff|gzip [cpu]\n");
		return 2;
	}
	n = (size_t)atoi(argv[2]) << 30;
	huff = !strcmp(argv[3], "huff");
	if (!(src = tiled(argv[1], n)) || gpz_ctx_create(&ctx, argc == 5 ? GPZ_BACKEND_CPU : GPZ_BACKEND_GPU, 0) != GPZ_OK) {
		fprintf(stderr, "big_oneshot: no input or no GPU context\n");
		return 2;
	}
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = 2;
	cap = huff ? gpz_compress_bound(n, &p) : gpz_deflate_bound(n);
	c = malloc(cap);
	back = malloc(n);
	if (!c || !back)
		return 2;
	memset(back, 0, n); /* its pages made before the timed calls */
	t0 = now();
	r = huff ? gpz_compress(ctx, &p, src, n, c, cap, &csize)
	         : gpz_deflate_compress(ctx, 1, GPZ_FORMAT_GZIP, NULL, src, n, c, cap, &csize);
	t1 = now();
	if (r == GPZ_OK)
		r = huff ? gpz_decompress(ctx, c, csize, back, n, &dsize)
		         : gpz_inflate(ctx, GPZ_FORMAT_GZIP, c, csize, back, n, &dsize);
	t2 = now();
	printf("%s, %zu GiB of %s: %s; compressed %.3f of the input in %.2f s (%.2f GB/s), "
	       "decompressed in %.2f s (%.2f GB/s), %s\n",
	       huff ? "Huffman-only -b 2 (gpz_compress)" : "gzip -1 (gpz_deflate_compress)",
	       n >> 30, argv[1], gpz_result_string(r), (double)csize / (double)n, t1 - t0,
	       (double)n / (t1 - t0) / 1e9, t2 - t1, (double)n / (t2 - t1) / 1e9,
	       r == GPZ_OK && dsize == n && !memcmp(back, src, n) ? "round trip exact"
	                                                          : "ROUND TRIP FAILED");
	gpz_ctx_free(ctx);
	return r != GPZ_OK || dsize != n || memcmp(back, src, n);
}
