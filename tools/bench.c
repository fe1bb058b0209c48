/*
 * bench.c - gpz-bench: times each stage of the Huffman-only codec (histogram, codebook, encode,
 * decode) and the whole library calls on files held in memory, and prints a markdown table.
 *
 * Throughputs are input (uncompressed) bytes per second, median of the runs. The stage timings
 * treat each file as one frame (files over 1 GiB are cut to 1 GiB); the end-to-end columns use
 * gpz_compress / gpz_decompress with the given frame size, checksums included.
 */
#include "gpz.h"
#include "huffman/huffman.h"
#include "bench_time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct opts {
	int w, threads, runs, chunk_log, gpu, deflate, level;
	size_t frame_bytes;
	int inflate;
};

int gpz_bench_deflate(int argc, char **argv, int threads, int runs); /* bench_deflate.c */

#ifdef GPZ_HAVE_CUDA
int gpz_bench_gpu(int argc, char **argv, int w, int chunk_log, int runs); /* bench_gpu.cu */
int gpz_bench_gpu_deflate(int argc, char **argv, int runs, int threads,
                          int level); /* bench_gpu_deflate.cu */
int gpz_bench_gpu_inflate(int argc, char **argv, int runs, int threads,
                          int level); /* bench_gpu_inflate.cu */
#endif

struct row {
	const char *name;
	size_t bytes;
	double entropy, bits, bits_unlimited;
	int max_len;
	uint32_t used;
	double hist_s, code_s, enc_s, dec_s, comp_s, decomp_s;
	size_t compressed;
};

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	return buf;
}

static double entropy(const uint32_t *counts, uint32_t alphabet, size_t n)
{
	double h = 0;
	for (uint32_t s = 0; s < alphabet; s++) {
		if (counts[s]) {
			double p = (double)counts[s] / (double)n;
			h -= p * log2(p);
		}
	}
	return h;
}

struct stage_state {
	const uint8_t *src;
	size_t n;
	uint32_t *counts, alphabet;
	uint8_t *len;
	uint32_t *code, *table, *chunk_bits;
	uint8_t *payload, *out;
	size_t payload_cap;
	uint64_t bits;
};

static int run_codebook(struct stage_state *s)
{
	int maxl = gpz_code_lengths(s->counts, s->alphabet, GPZ_MAX_CODE_LEN, s->len);
	gpz_canonical_codes(s->len, s->alphabet, s->code);
	gpz_encoder_table(s->len, s->code, s->alphabet, s->table);
	return maxl;
}

/* Time the four stages; returns 0 on a failure. Data with one distinct symbol has no codes:
 * only the histogram is timed. */
static int bench_stages(const struct opts *o, struct stage_state *s, struct row *r)
{
	int runs = o->runs, w = o->w;
	double *t = malloc((size_t)runs * sizeof(*t));
	size_t nchunks = (s->n + ((size_t)1 << o->chunk_log) - 1) >> o->chunk_log;
	uint64_t *starts = malloc((nchunks + 1) * sizeof(*starts));
	gpz_decoder dec;
	int ok = 1;

	for (int i = 0; i < runs; i++) {
		t[i] = bench_now();
		gpz_histogram(s->src, s->n, w, o->threads, s->counts, &s->alphabet);
		t[i] = bench_now() - t[i];
	}
	r->hist_s = bench_median(t, runs);
	for (uint32_t a = 0; a < s->alphabet; a++)
		r->used += s->counts[a] != 0;
	r->entropy = entropy(s->counts, s->alphabet, s->n);
	if (r->used < 2) {
		free(t);
		free(starts);
		return 1;
	}
	for (int i = 0; i < runs; i++) {
		t[i] = bench_now();
		r->max_len = run_codebook(s);
		t[i] = bench_now() - t[i];
	}
	r->code_s = bench_median(t, runs);
	r->bits = (double)gpz_coded_bits(s->counts, s->len, s->alphabet) / (double)s->n;
	for (int i = 0; i < runs; i++) {
		t[i] = bench_now();
		gpz_huff_encode(s->src, s->n, w, s->table, o->chunk_log, o->threads, s->payload,
		                s->payload_cap, s->chunk_bits, &s->bits);
		t[i] = bench_now() - t[i];
	}
	r->enc_s = bench_median(t, runs);
	starts[0] = 0;
	for (size_t c = 0; c < nchunks; c++)
		starts[c + 1] = starts[c] + s->chunk_bits[c];
	gpz_decoder_init(&dec, s->len, s->alphabet, w);
	for (int i = 0; i < runs; i++) {
		t[i] = bench_now();
		if (gpz_huff_decode(&dec, s->payload, (size_t)((s->bits + 7) / 8), starts, s->n, w,
		                    o->chunk_log, o->threads, s->out) != GPZ_OK)
			ok = 0;
		t[i] = bench_now() - t[i];
	}
	r->dec_s = bench_median(t, runs);
	gpz_decoder_free(&dec);
	if (!ok || memcmp(s->out, s->src, s->n * (size_t)w)) {
		fprintf(stderr, "gpz-bench: %s: stage decode does not match the input\n", r->name);
		ok = 0;
	}
	/* the cost of the length limit: unlimited Huffman on the same counts */
	gpz_code_lengths(s->counts, s->alphabet, 0, s->len);
	r->bits_unlimited = (double)gpz_coded_bits(s->counts, s->len, s->alphabet) / (double)s->n;
	free(t);
	free(starts);
	return ok;
}

static int bench_api(const struct opts *o, const uint8_t *src, size_t size, struct row *r)
{
	gpz_params p;
	gpz_ctx *ctx;
	size_t cap, got = 0, back = 0;
	uint8_t *c, *d = malloc(size);
	double *t = malloc((size_t)o->runs * sizeof(*t));
	int ok = 1;

	gpz_params_default(&p);
	p.symbol_bytes = o->w;
	p.chunk_log = o->chunk_log;
	p.frame_bytes = o->frame_bytes;
	cap = gpz_compress_bound(size, &p);
	c = malloc(cap);
	if (gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, o->threads) != GPZ_OK || !c || !d || !t)
		return 0;
	for (int i = 0; i < o->runs; i++) {
		t[i] = bench_now();
		ok &= gpz_compress(ctx, &p, src, size, c, cap, &got) == GPZ_OK;
		t[i] = bench_now() - t[i];
	}
	r->comp_s = bench_median(t, o->runs);
	r->compressed = got;
	for (int i = 0; i < o->runs; i++) {
		t[i] = bench_now();
		ok &= gpz_decompress(ctx, c, got, d, size, &back) == GPZ_OK;
		t[i] = bench_now() - t[i];
	}
	r->decomp_s = bench_median(t, o->runs);
	ok &= back == size && memcmp(d, src, size) == 0;
	if (!ok)
		fprintf(stderr, "gpz-bench: %s: library round trip failed\n", r->name);
	gpz_ctx_free(ctx);
	free(c);
	free(d);
	free(t);
	return ok;
}

static int bench_file(const struct opts *o, const char *path, struct row *r)
{
	struct stage_state s = { 0 };
	size_t size = 0;
	uint8_t *src = read_file(path, &size);
	uint32_t limit = gpz_alphabet_limit(o->w);
	int ok;

	memset(r, 0, sizeof(*r));
	r->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!src) {
		fprintf(stderr, "gpz-bench: %s: cannot read\n", path);
		return 0;
	}
	size -= size % (size_t)o->w;
	if (size > GPZ_MAX_FRAME_BYTES)
		size = GPZ_MAX_FRAME_BYTES;
	r->bytes = size;
	s.src = src;
	s.n = size / (size_t)o->w;
	s.counts = malloc(limit * sizeof(uint32_t));
	s.len = malloc(limit);
	s.code = malloc(limit * sizeof(uint32_t));
	s.table = malloc(limit * sizeof(uint32_t));
	s.chunk_bits = malloc(((s.n >> o->chunk_log) + 1) * sizeof(uint32_t));
	s.payload_cap = s.n * GPZ_MAX_CODE_LEN / 8 + GPZ_ENCODE_SLACK;
	s.payload = malloc(s.payload_cap);
	s.out = malloc(size);
	ok = bench_stages(o, &s, r);
	ok &= bench_api(o, src, size, r);
	free(s.counts);
	free(s.len);
	free(s.code);
	free(s.table);
	free(s.chunk_bits);
	free(s.payload);
	free(s.out);
	free(src);
	return ok;
}

static double gbps(size_t bytes, double s)
{
	return s > 0 ? (double)bytes / s / 1e9 : 0;
}

static void print_header(const struct opts *o)
{
	printf("CPU backend, %d thread(s), %d-byte symbols, chunk 2^%d, frames of %zu bytes, median of "
	       "%d runs; GB/s of input bytes.\n\n",
	       o->threads, o->w, o->chunk_log, o->frame_bytes, o->runs);
	printf("| file | bytes | symbols used | H0 bits | avg bits | unlimited bits | limit cost %% | "
	       "max len | histogram GB/s | codebook us | encode GB/s | decode GB/s | "
	       "compress GB/s | decompress GB/s | compressed bytes | ratio |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

static void print_row(const struct row *r)
{
	double cost = r->bits_unlimited > 0 ? 100.0 * (r->bits / r->bits_unlimited - 1) : 0;
	printf("| %s | %zu | %u | %.4f | %.4f | %.4f | %.4f | %d | %.2f | %.1f | %.2f | %.2f | %.2f "
	       "| %.2f | %zu | %.4f |\n",
	       r->name, r->bytes, r->used, r->entropy, r->bits, r->bits_unlimited, cost, r->max_len,
	       gbps(r->bytes, r->hist_s), r->code_s * 1e6, gbps(r->bytes, r->enc_s),
	       gbps(r->bytes, r->dec_s), gbps(r->bytes, r->comp_s), gbps(r->bytes, r->decomp_s),
	       r->compressed, r->bytes ? (double)r->compressed / (double)r->bytes : 0);
	fflush(stdout);
}

static void usage(void)
{
	printf("usage: gpz-bench [--gpu | --deflate | --inflate] [-b 1|2|4] [-T threads] [-r runs] "
	       "[-c chunk_log] [-F frame_bytes] FILE...\n"
	       "--deflate: gpz's gzip output against zlib, libdeflate and zstd (levels 1, 6, 9);\n"
	       "--gpu --deflate: the GPU DEFLATE stages on inputs tiled to 1 GiB in device memory\n"
	       "(levels 1, 6, 9, or only -l LEVEL).\n"
	       "--gpu --inflate: decompression of gpz's gzip and LZ frames on the GPU and the CPU\n"
	       "(levels 1 and 6, or only -l LEVEL; inputs tiled to 1 GiB).\n"
	       "Times histogram, codebook, encode and decode of the Huffman-only codec (CPU backend,\n"
	       "or with --gpu the GPU backend on inputs tiled to 1 GiB in device memory) and the\n"
	       "library's compress/decompress calls; prints a markdown table.\n");
}

int main(int argc, char **argv)
{
	struct opts o = { 1, 1, 5, GPZ_DEFAULT_CHUNK_LOG, 0, 0, 0, GPZ_DEFAULT_FRAME_BYTES, 0 };
	int i = 1, failed = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--gpu") || !strcmp(argv[i], "--deflate") ||
		    !strcmp(argv[i], "--inflate")) {
			o.gpu |= !strcmp(argv[i], "--gpu");
			o.deflate |= !strcmp(argv[i], "--deflate");
			o.inflate |= !strcmp(argv[i], "--inflate");
			i--;
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !v) {
			usage();
			return v ? 0 : 2;
		}
		if (!strcmp(argv[i], "-b"))
			o.w = atoi(v);
		else if (!strcmp(argv[i], "-T"))
			o.threads = atoi(v);
		else if (!strcmp(argv[i], "-r"))
			o.runs = atoi(v);
		else if (!strcmp(argv[i], "-c"))
			o.chunk_log = atoi(v);
		else if (!strcmp(argv[i], "-l"))
			o.level = atoi(v);
		else if (!strcmp(argv[i], "-F"))
			o.frame_bytes = (size_t)strtoull(v, NULL, 10);
		else {
			usage();
			return 2;
		}
	}
	if ((o.w != 1 && o.w != 2 && o.w != 4) || o.threads < 1 || o.runs < 1 ||
	    o.chunk_log < GPZ_MIN_CHUNK_LOG || o.chunk_log > GPZ_MAX_CHUNK_LOG || i >= argc) {
		usage();
		return 2;
	}
	if (o.gpu) {
#ifdef GPZ_HAVE_CUDA
		if (o.inflate)
			return gpz_bench_gpu_inflate(argc - i, argv + i, o.runs, o.threads, o.level);
		return o.deflate ? gpz_bench_gpu_deflate(argc - i, argv + i, o.runs, o.threads, o.level)
		                 : gpz_bench_gpu(argc - i, argv + i, o.w, o.chunk_log, o.runs);
#else
		fprintf(stderr, "gpz-bench: built without CUDA: --gpu is not available\n");
		return 2;
#endif
	}
	if (o.deflate)
		return gpz_bench_deflate(argc - i, argv + i, o.threads, o.runs);
	print_header(&o);
	for (; i < argc; i++) {
		struct row r;
		failed |= !bench_file(&o, argv[i], &r);
		print_row(&r);
	}
	return failed;
}
