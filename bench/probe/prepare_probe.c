/* prepare_probe.c - the host's part of decoding one Huffman frame (issue 14): the frame's
 * header check and gpz_frame_prepare_decode (code lengths, decoder tables, chunk starts), which
 * the device path ran between reading the frame's head and queueing its decode, with the GPU
 * idle (since the thirty-second session it sums the one-bitstream layout's starts on the GPU;
 * the lanes layout and the CPU backend still build them here). FILE tiled to MIB MiB (default
 * 1024), compressed on the CPU in one frame of W-byte symbols at chunk_log 14; then each step
 * timed, median of 21.
 * Built against the library's internals:
 *   cc -O2 -Iinclude -Isrc bench/probe/prepare_probe.c build-cpu/libgpz.a -lpthread -lz -lxxhash \
 *      -o /tmp/prepare_probe
 * Usage: prepare_probe FILE W [MIB] */
#define GPZ_ADVANCED
#include "gpz.h"
#include "container/frame.h"
#include "huffman/huffman.h"
#include "probe_file.h"

#include <time.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#define RUNS 21

int main(int argc, char **argv)
{
	size_t n1 = 0, n = (size_t)(argc > 3 ? atoi(argv[3]) : 1024) << 20, got = 0;
	uint8_t *one = argc > 2 ? probe_read(argv[1], &n1) : NULL;
	if (!one || !n1)
		return 2;
	uint8_t *src = malloc(n);
	for (size_t i = 0; i < n; i += n1)
		memcpy(src + i, one, n - i < n1 ? n - i : n1);
	gpz_ctx *ctx = NULL;
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = atoi(argv[2]);
	p.chunk_log = 14;
	p.frame_bytes = n;
	size_t cap = gpz_compress_bound(n, &p);
	uint8_t *dst = malloc(cap);
	if (gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2) != GPZ_OK ||
	    gpz_compress(ctx, &p, src, n, dst, cap, &got) != GPZ_OK)
		return 1;
	const uint8_t *s = dst + GPZ_HEADER_SIZE;
	gpz_block_info in;
	if (gpz_parse_block(s, got - GPZ_HEADER_SIZE, &in) != GPZ_OK ||
	    in.frame_type != GPZ_FRAME_HUFFMAN)
		return 1;
	uint64_t payload = gpz_load_le64(s + 24), nchunks = gpz_frame_chunks(n / p.symbol_bytes, 14);
	size_t check_at = (size_t)(in.block_bytes - GPZ_CONTENT_SIZE - payload - GPZ_CHECK_SIZE);
	uint64_t *starts = malloc((nchunks + 1) * 8);
	double t_check[RUNS], t_prep[RUNS], t_len[RUNS], t_init[RUNS];
	uint32_t cb_bytes = gpz_load_le32(s + 16);
	uint8_t *len = malloc(in.alphabet);
	size_t used = 0;
	uint32_t sink = 0;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_us();
		sink += gpz_header_check(s, check_at);
		double t1 = now_us();
		gpz_decoder dec;
		if (gpz_frame_prepare_decode(s, &in, &dec, starts) != GPZ_OK)
			return 1;
		double t2 = now_us();
		gpz_decoder_free(&dec);
		if (gpz_lengths_read(s + GPZ_FRAME_HEADER_SIZE, cb_bytes, in.alphabet, len, &used) !=
		    GPZ_OK)
			return 1;
		double t3 = now_us();
		if (gpz_decoder_init(&dec, len, in.alphabet, p.symbol_bytes) != GPZ_OK)
			return 1;
		double t4 = now_us();
		gpz_decoder_free(&dec);
		t_check[r] = t1 - t0;
		t_prep[r] = t2 - t1;
		t_len[r] = t3 - t2;
		t_init[r] = t4 - t3;
	}
	qsort(t_check, RUNS, sizeof(double), cmp_d);
	qsort(t_prep, RUNS, sizeof(double), cmp_d);
	qsort(t_len, RUNS, sizeof(double), cmp_d);
	qsort(t_init, RUNS, sizeof(double), cmp_d);
	printf("frame: %zu bytes of content, alphabet %u, %llu chunks, head %zu bytes (sink %u)\n", n,
	       in.alphabet, (unsigned long long)nchunks, check_at, sink & 1);
	printf("header check %.1f us, prepare_decode %.1f us, of which lengths %.1f, decoder %.1f "
	       "(the rest: chunk starts; medians of %d)\n",
	       t_check[RUNS / 2], t_prep[RUNS / 2], t_len[RUNS / 2], t_init[RUNS / 2], RUNS);
	return 0;
}
