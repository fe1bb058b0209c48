/* test_gpu.c - the GPU backend against the CPU backend, byte for byte: every edge case of
 * test_edge.c and every corpus file, through the host API (GPU context) and the device API;
 * LZ-symbol frames too; each GPU stream is then decoded on both backends, and corrupt streams
 * must be rejected by the GPU decoder as by the CPU one. `exit-start`: processes that exit while
 * an AUTO context's GPU is still starting end cleanly. Exit 77 (skipped) without a usable GPU.
 * Usage: test_gpu [edge|corpora|hostile|all|exit-start|huff-hostile] */
#include "testutil.h"
#include "common/bits.h"
#include "container/frame.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static gpz_ctx *cpu, *gpu;
static int cases;

static size_t compress(gpz_ctx *ctx, const gpz_params *p, const uint8_t *src, size_t n,
                       uint8_t **out, gpz_result *r)
{
	size_t cap = gpz_compress_bound(n, p), got = 0;
	*out = malloc(cap);
	*r = gpz_compress(ctx, p, src, n, *out, cap, &got);
	return got;
}

/* Device API: compress from and decompress into device memory. */
static void check_device_api(const gpz_params *p, const uint8_t *src, size_t n,
                             const uint8_t *want, size_t want_n, const char *what)
{
	size_t cap = gpz_compress_bound(n, p), got = 0, back = 0;
	void *d_src = NULL, *d_dst = NULL, *d_back = NULL;
	uint8_t *h = malloc(cap), *hb = malloc(n + 1);
	gpz_result r;

	if (cudaMalloc(&d_src, n + 1) || cudaMalloc(&d_dst, cap) || cudaMalloc(&d_back, n + 1)) {
		CHECK(0, "%s: cudaMalloc", what);
		goto out;
	}
	cudaMemcpy(d_src, src, n, cudaMemcpyHostToDevice);
	r = gpz_compress_device(gpu, p, d_src, n, d_dst, cap, &got, NULL);
	CHECK(r == GPZ_OK, "%s: device compress: %s", what, gpz_result_string(r));
	cudaMemcpy(h, d_dst, got, cudaMemcpyDeviceToHost);
	CHECK(got == want_n && memcmp(h, want, got) == 0, "%s: device API output differs from CPU",
	      what);
	r = gpz_decompress_device(gpu, d_dst, got, d_back, n, &back, NULL);
	cudaMemcpy(hb, d_back, back, cudaMemcpyDeviceToHost);
	CHECK(r == GPZ_OK && back == n && memcmp(hb, src, n) == 0, "%s: device decompress: %s",
	      what, gpz_result_string(r));
out:
	cudaFree(d_src);
	cudaFree(d_dst);
	cudaFree(d_back);
	free(h);
	free(hb);
}

/* GPU output == CPU output; both decoders restore the input. */
static void same(const uint8_t *src, size_t n, const gpz_params *p, const char *what, int device)
{
	uint8_t *c_cpu, *c_gpu, *back = malloc(n + 1);
	gpz_result rc, rg;
	size_t nc = compress(cpu, p, src, n, &c_cpu, &rc);
	size_t ng = compress(gpu, p, src, n, &c_gpu, &rg);
	size_t nb = 0;

	cases++;
	CHECK(rc == rg, "%s: CPU says %s, GPU says %s", what, gpz_result_string(rc),
	      gpz_result_string(rg));
	if (rc == GPZ_OK && rg == GPZ_OK) {
		CHECK(nc == ng && memcmp(c_cpu, c_gpu, nc) == 0, "%s: GPU output differs (%zu vs %zu "
		      "bytes)", what, ng, nc);
		rg = gpz_decompress(gpu, c_gpu, ng, back, n, &nb);
		CHECK(rg == GPZ_OK && nb == n && memcmp(back, src, n) == 0, "%s: GPU decode: %s", what,
		      gpz_result_string(rg));
		rc = gpz_decompress(cpu, c_gpu, ng, back, n, &nb);
		CHECK(rc == GPZ_OK && nb == n && memcmp(back, src, n) == 0, "%s: CPU decode of GPU "
		      "output: %s", what, gpz_result_string(rc));
		if (device && n)
			check_device_api(p, src, n, c_cpu, nc, what);
	}
	free(c_cpu);
	free(c_gpu);
	free(back);
}

static gpz_params params(int w, int chunk_log)
{
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = w;
	p.chunk_log = chunk_log;
	return p;
}

/* LZ-symbol frames, forced and automatic, of quantization-like symbols (runs of one value,
 * others, copies of earlier stretches): the CPU's bytes through the GPU context's host and
 * device calls, coded and decoded on the GPU there. */
static void lz_symbol_cases(uint8_t *buf)
{
	uint64_t st = 11;
	const size_t n = 300001;
	for (int w = 1; w <= 4; w *= 2) {
		uint32_t z = w == 1 ? 40 : 1000;
		for (size_t i = 0; i < n;) {
			uint64_t r = test_rand(&st);
			size_t run = 1 + (r >> 40) % 200, d = 1 + (r >> 20) % 3000;
			if (i > 3000 && r % 100 < 3) { /* a copy */
				for (size_t k = 0; k < 40 && i < n; k++, i++)
					gpz_store_symbol(buf, i, w, gpz_load_symbol(buf, i - d, w));
				continue;
			}
			uint32_t v = r % 10 < 7 ? z : (uint32_t)(z + 1 + (r >> 8) % 150);
			for (size_t k = 0; k < (v == z ? run : 1) && i < n; k++, i++)
				gpz_store_symbol(buf, i, w, v);
		}
		for (int lz = 1; lz <= GPZ_LZS_AUTO; lz++)
			for (int cl = 8; cl <= 14; cl += 6) {
				char what[80];
				gpz_params p = params(w, cl);
				p.lz_symbols = lz;
				snprintf(what, sizeof(what), "LZ-symbol (%s) w=%d chunk_log=%d",
				         lz == GPZ_LZS_AUTO ? "auto" : "forced", w, cl);
				same(buf, n * (size_t)w, &p, what, 1);
				/* several frames: the device calls' lanes */
				p.frame_bytes = 65536;
				snprintf(what, sizeof(what), "LZ-symbol (%s) w=%d chunk_log=%d, 64 KiB frames",
				         lz == GPZ_LZS_AUTO ? "auto" : "forced", w, cl);
				same(buf, n * (size_t)w, &p, what, 1);
			}
	}
}

/* Frame k's bytes for the frames coded all at once on the device (frames_gpu.cu): each kind
 * of frame the plan can make, side by side. */
static void frame_kind(uint8_t *f, size_t n, int kind, uint64_t *st)
{
	switch (kind % 6) {
	case 0: /* constant */
		memset(f, 0xff, n);
		break;
	case 1: /* random bytes: stored */
		for (size_t i = 0; i < n; i++)
			f[i] = (uint8_t)test_rand(st);
		break;
	case 2: /* skewed, every byte value (alphabet 256) */
		test_skewed_symbols(f, n, 1, st);
		f[n / 2] = 255;
		break;
	case 3: /* two symbols */
		for (size_t i = 0; i < n; i++)
			f[i] = (uint8_t)(test_rand(st) % 3 ? 'a' : 'b');
		break;
	case 4: { /* Fibonacci counts: over 24 bits, package-merge (when the frame is long enough) */
		size_t k = 0;
		uint32_t a = 1, b = 1;
		for (int i = 0; k < n; i++) {
			for (uint32_t j = 0; j < a && k < n; j++)
				f[k++] = (uint8_t)(7 * i);
			uint32_t c = a + b;
			a = b;
			b = c;
		}
		break;
	}
	default: /* text-like */
		for (size_t i = 0; i < n; i++)
			f[i] = (uint8_t)("etaoin shrdlu"[test_rand_skewed(st, 13)]);
	}
}

/* Two streams of small frames back to back through the device decoder (which takes one stream
 * whole and leaves anything else to the frame-at-a-time path): both streams' bytes, in order;
 * then the same with the second stream's trailer cut off (truncated, as the host call says). */
static void concatenated_small_frames(uint8_t *buf)
{
	uint64_t st = 11;
	size_t n = 5 * 65536 + 100, cap, got = 0, back = 0;
	gpz_params p = params(1, 10);
	p.frame_bytes = 65536;
	for (size_t i = 0; i < 2 * n; i++)
		buf[i] = (uint8_t)("etaoin shrdlu"[test_rand_skewed(&st, 13)] + (i >= n));
	uint8_t *c1, *c2;
	gpz_result r1, r2, r;
	size_t n1 = compress(cpu, &p, buf, n, &c1, &r1), n2 = compress(cpu, &p, buf + n, n, &c2, &r2);
	uint8_t *cat = malloc(n1 + n2), *h = malloc(2 * n);
	void *d_c = NULL, *d_out = NULL;
	cases++;
	CHECK(r1 == GPZ_OK && r2 == GPZ_OK && cat && h, "concatenated: CPU compress");
	if (r1 != GPZ_OK || r2 != GPZ_OK || !cat || !h || cudaMalloc(&d_c, n1 + n2) ||
	    cudaMalloc(&d_out, 2 * n)) {
		CHECK(0, "concatenated: setup");
		goto out;
	}
	memcpy(cat, c1, n1);
	memcpy(cat + n1, c2, n2);
	cudaMemcpy(d_c, cat, n1 + n2, cudaMemcpyHostToDevice);
	cap = 2 * n;
	r = gpz_decompress_device(gpu, d_c, n1 + n2, d_out, cap, &back, NULL);
	cudaMemcpy(h, d_out, back, cudaMemcpyDeviceToHost);
	CHECK(r == GPZ_OK && back == 2 * n && memcmp(h, buf, 2 * n) == 0,
	      "concatenated small-frame streams, device decode: %s", gpz_result_string(r));
	r = gpz_decompress_device(gpu, d_c, n1 + n2 - GPZ_TRAILER_SIZE, d_out, cap, &got, NULL);
	r2 = gpz_decompress(cpu, cat, n1 + n2 - GPZ_TRAILER_SIZE, h, cap, &got);
	CHECK(r != GPZ_OK && r == r2, "concatenated, trailer cut: device %s, host %s",
	      gpz_result_string(r), gpz_result_string(r2));
out:
	cudaFree(d_c);
	cudaFree(d_out);
	free(c1);
	free(c2);
	free(cat);
	free(h);
}

static void batched_frames(uint8_t *buf)
{
	uint64_t st = 7;
	size_t sizes[] = { 32, 96, 4096, 65536, 1 << 20 };
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t fs = sizes[z], nf = fs < 4096 ? 40 : fs < (1 << 20) ? 13 : 7;
		for (size_t f = 0; f < nf; f++)
			frame_kind(buf + f * fs, fs, (int)f, &st);
		size_t tails[] = { 0, 1, 33 };
		for (int t = 0; t < 3; t++) {
			char what[80];
			gpz_params p = params(1, fs < 65536 ? 8 : 12);
			p.frame_bytes = fs;
			frame_kind(buf + nf * fs, tails[t], 5, &st);
			snprintf(what, sizeof(what), "frames of %zu all at once, +%zu", fs, tails[t]);
			same(buf, nf * fs + tails[t], &p, what, 1);
		}
	}
	concatenated_small_frames(buf);
}

/* The device calls with several frames (worked on at once) report what the host calls report,
 * the first failure in stream order: damaged frames, a short output buffer, truncations. */
static void device_api_errors(uint8_t *buf, size_t n)
{
	gpz_params p = params(1, 10);
	p.frame_bytes = 65536;
	gpz_result r, rd, rc;
	uint8_t *c;
	size_t nc = compress(cpu, &p, buf, n, &c, &r), got = 0, wrote = 0, agree = 0, tried = 0;
	void *d_c = NULL, *d_out = NULL, *d_src = NULL;
	uint8_t *back = malloc(n + 1);

	CHECK(r == GPZ_OK, "device errors: CPU compress");
	if (cudaMalloc(&d_c, nc) || cudaMalloc(&d_out, n + 1) || cudaMalloc(&d_src, n)) {
		CHECK(0, "device errors: cudaMalloc");
		goto out;
	}
	cudaMemcpy(d_src, buf, n, cudaMemcpyHostToDevice);
	/* a byte changed at places through the stream, one at a time, and two at once */
	for (int k = 1; k <= 40; k++) {
		size_t at = nc * (size_t)k / 41, at2 = nc * (size_t)(k * 7 % 41) / 41;
		for (int two = 0; two < 2; two++) {
			c[at] ^= 0x5a;
			if (two)
				c[at2] ^= 0x21;
			cudaMemcpy(d_c, c, nc, cudaMemcpyHostToDevice);
			rc = gpz_decompress(cpu, c, nc, back, n, &got);
			rd = gpz_decompress_device(gpu, d_c, nc, d_out, n, &wrote, NULL);
			agree += rc == rd;
			tried++;
			if (rc != rd)
				fprintf(stderr, "  byte %zu%s: CPU %s, device %s\n", at, two ? " (+1)" : "",
				        gpz_result_string(rc), gpz_result_string(rd));
			c[at] ^= 0x5a;
			if (two)
				c[at2] ^= 0x21;
		}
	}
	cudaMemcpy(d_c, c, nc, cudaMemcpyHostToDevice);
	for (int k = 0; k < 12; k++) { /* truncations */
		size_t len = nc * (size_t)k / 12 + (size_t)k;
		rc = gpz_decompress(cpu, c, len, back, n, &got);
		rd = gpz_decompress_device(gpu, d_c, len, d_out, n, &wrote, NULL);
		agree += rc == rd && rc != GPZ_OK;
		tried++;
	}
	rd = gpz_decompress_device(gpu, d_c, nc, d_out, n - 1, &wrote, NULL);
	agree += rd == GPZ_ERR_DST_TOO_SMALL;
	rd = gpz_compress_device(gpu, &p, d_src, n, d_c, nc - 1, &wrote, NULL);
	agree += rd == GPZ_ERR_DST_TOO_SMALL;
	rd = gpz_compress_device(gpu, &p, d_src, n, d_c, nc / 2, &wrote, NULL);
	agree += rd == GPZ_ERR_DST_TOO_SMALL;
	tried += 3;
	CHECK(agree == tried, "device calls, several frames: %zu of %zu verdicts as the host's",
	      agree, tried);
	printf("device calls, several frames: %zu damaged, truncated or short cases, verdicts as "
	       "the host calls'\n", tried);
out:
	cudaFree(d_c);
	cudaFree(d_out);
	cudaFree(d_src);
	free(back);
	free(c);
}

static void edge_cases(void)
{
	uint64_t st = 1;
	size_t big = 3 * (size_t)GPZ_MAX_ALPHABET;
	uint8_t *buf = malloc(4 * big);
	gpz_params p = params(1, 14);

	same((const uint8_t *)"", 0, &p, "empty", 0);
	same((const uint8_t *)"x", 1, &p, "one byte", 1);
	same((const uint8_t *)"xy", 2, &p, "two bytes", 1);
	p = params(2, 14);
	same((const uint8_t *)"abc", 3, &p, "odd size, 2-byte symbols", 0);
	memset(buf, 'a', 1000001);
	p = params(1, 12);
	same(buf, 1000001, &p, "constant", 1);
	for (size_t i = 0; i < 65536 * 8; i++)
		gpz_store_le16(buf + 2 * i, (uint16_t)i);
	p = params(2, 14);
	same(buf, 2 * 65536 * 8, &p, "all 65536 symbols (stored)", 1);
	for (size_t i = 0; i < 65536 * 8; i++)
		gpz_store_le16(buf + 2 * i, test_rand(&st) % 4 ? (uint16_t)(test_rand(&st) % 8)
		                                                : (uint16_t)i);
	same(buf, 2 * 65536 * 8, &p, "65536 symbols, skewed", 1);
	{ /* Fibonacci counts: 24-bit limit */
		size_t k = 0;
		uint32_t f[30] = { 1, 1 };
		for (int i = 2; i < 30; i++)
			f[i] = f[i - 1] + f[i - 2];
		for (int i = 0; i < 30; i++)
			for (uint32_t j = 0; j < f[i]; j++, k++)
				gpz_store_le16(buf + 2 * k, (uint16_t)(i * 1000));
		p = params(2, 10);
		same(buf, 2 * k, &p, "fibonacci", 1);
	}
	size_t sizes[] = { 255, 256, 257, 4095, 4097, 3 * 16384 + 17, 100000, 1 << 20 };
	for (int w = 1; w <= 4; w *= 2)
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			test_skewed_symbols(buf, sizes[z], w, &st);
			for (int cl = GPZ_MIN_CHUNK_LOG; cl <= 20; cl += 3) {
				char what[80];
				p = params(w, cl);
				snprintf(what, sizeof(what), "w=%d n=%zu chunk_log=%d", w, sizes[z], cl);
				same(buf, sizes[z] * (size_t)w, &p, what, cl == 14);
				/* the lanes layout: coded and decoded by lanes.cu */
				p.huff_lanes = 1;
				snprintf(what, sizeof(what), "lanes w=%d n=%zu chunk_log=%d", w, sizes[z], cl);
				same(buf, sizes[z] * (size_t)w, &p, what, cl == 14 || cl == 17);
			}
		}
	for (size_t i = 0; i < big; i++)
		gpz_store_le32(buf + 4 * i, i < GPZ_MAX_ALPHABET ? (uint32_t)i
		                            : test_rand_skewed(&st, 2000));
	p = params(4, 16);
	same(buf, 4 * big, &p, "2^20 alphabet", 1);
	p.huff_lanes = 1;
	same(buf, 4 * big, &p, "2^20 alphabet, lanes", 1);
	p.huff_lanes = 0;
	gpz_store_le32(buf, GPZ_MAX_ALPHABET);
	same(buf, 4 * 1000, &p, "symbol 2^20 (error)", 0);
	for (size_t i = 0; i < 1000003; i++)
		buf[i] = (uint8_t)("abcdefgh"[test_rand(&st) % 8] + (i / 65536) % 3);
	p = params(1, 10);
	p.frame_bytes = 65536;
	same(buf, 1000003, &p, "many frames", 1);
	p.frame_bytes = 65537; /* frames at unaligned device addresses */
	same(buf, 1000003, &p, "unaligned frames", 1);
	p.huff_lanes = 1;
	same(buf, 1000003, &p, "unaligned frames, lanes", 1);
	p.huff_lanes = 0;
	/* LZ mode (deflate frames) runs on the CPU on every backend: same bytes through the GPU
	 * context's host and device calls */
	p = params(1, 14);
	for (int level = 1; level <= 9; level += 4) {
		p.lz_level = level;
		same(buf, 1000003, &p, "LZ frames", 1);
		p.frame_bytes = 300001;
		same(buf, 1000003, &p, "LZ frames, several", 1);
		p.frame_bytes = GPZ_MAX_FRAME_BYTES;
	}
	lz_symbol_cases(buf);
	batched_frames(buf);
	for (size_t i = 0; i < 1000003; i++)
		buf[i] = (uint8_t)("abcdefgh"[test_rand(&st) % 8] + (i / 65536) % 3);
	device_api_errors(buf, 1000003);
	free(buf);
}

struct file_set {
	int w;
	const char *suffix;
};

static void corpus_file(const char *path, void *v)
{
	const struct file_set *fs = v;
	size_t size, n = strlen(path), sl = fs->suffix ? strlen(fs->suffix) : 0;
	uint8_t *data;
	gpz_params p = params(fs->w, GPZ_DEFAULT_CHUNK_LOG);

	if (sl && (n < sl || strcmp(path + n - sl, fs->suffix)))
		return;
	data = test_read_file(path, &size);
	if (!data)
		return;
	size -= size % (size_t)fs->w;
	same(data, size, &p, path, strstr(path, "baryon") || strstr(path, "dickens"));
	p.huff_lanes = 1;
	p.chunk_log = 16;
	same(data, size, &p, path, strstr(path, "baryon") || strstr(path, "dickens"));
	p = params(fs->w, GPZ_DEFAULT_CHUNK_LOG);
	if (fs->w == 2) { /* quantization codes: LZ-symbol frames too */
		p.lz_symbols = GPZ_LZS_AUTO;
		same(data, size, &p, path, strstr(path, "baryon") != NULL);
	}
	free(data);
}

/* A few small cases, for the slow compute-sanitizer tools. */
static void quick(void)
{
	uint64_t st = 5;
	uint8_t buf[4 * 20000];
	gpz_params p;
	for (int w = 1; w <= 4; w *= 2) {
		for (size_t i = 0; i < 20000; i++) {
			uint32_t v = test_rand_skewed(&st, 300);
			if (w == 1)
				buf[i] = (uint8_t)v;
			else if (w == 2)
				gpz_store_le16(buf + 2 * i, (uint16_t)v);
			else
				gpz_store_le32(buf + 4 * i, v * 7);
		}
		p = params(w, 10);
		same(buf, 20000 * (size_t)w, &p, "quick", 1);
		p.huff_lanes = 1;
		same(buf, 20000 * (size_t)w, &p, "quick, lanes", 1);
	}
	memset(buf, 7, 5000);
	p = params(1, 8);
	same(buf, 5000, &p, "quick constant", 1);
}

static void corpora(void)
{
	const char *shared = test_corpora_dir(), *data = test_data_dir();
	char path[4096];
	struct file_set bytes = { 1, NULL }, codes = { 2, ".u16" }, nyx = { 2, ".b16" };

	if (shared)
		test_for_each_file(shared, corpus_file, &bytes);
	if (data) {
		snprintf(path, sizeof(path), "%s/silesia", data);
		test_for_each_file(path, corpus_file, &bytes);
		snprintf(path, sizeof(path), "%s/dna", data);
		test_for_each_file(path, corpus_file, &bytes);
		snprintf(path, sizeof(path), "%s/quant", data);
		test_for_each_file(path, corpus_file, &codes);
		snprintf(path, sizeof(path), "%s/nyx", data);
		test_for_each_file(path, corpus_file, &nyx);
	}
}

/* Every bit flip and truncation of small streams is rejected by the GPU decoder too. */
static void hostile(void)
{
	static const char text[] = "It was the best of times, it was the worst of times; gpz ";
	uint8_t src[800], *c, *back = malloc(800 + 4096);
	gpz_params p = params(1, 8);
	gpz_result r;
	size_t n, got;
	int accepted = 0;

	for (size_t i = 0; i < 700; i++)
		src[i] = (uint8_t)text[(i * 7 + i / 13) % (sizeof(text) - 1)];
	n = compress(cpu, &p, src, 700, &c, &r);
	for (size_t bit = 0; bit < 8 * n; bit++) {
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		accepted += gpz_decompress(gpu, c, n, back, 700 + 4096, &got) == GPZ_OK;
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (size_t len = 0; len < n; len++)
		accepted += gpz_decompress(gpu, c, len, back, 700 + 4096, &got) == GPZ_OK;
	CHECK(accepted == 0, "GPU decoder accepted %d corrupt streams", accepted);
	printf("hostile: %zu bit flips and %zu truncations rejected by the GPU decoder\n", 8 * n, n);
	free(c);
	free(back);
}

/* One stream through gpz_decompress_device (a single frame: the device frame path). */
static gpz_result device_decompress(const uint8_t *c, size_t n, size_t out_n)
{
	uint8_t *d_c = NULL, *d_out = NULL;
	size_t got = 0;
	gpz_result r = GPZ_ERR_NOMEM;
	if (cudaMalloc((void **)&d_c, n) == cudaSuccess &&
	    cudaMalloc((void **)&d_out, out_n + 64) == cudaSuccess &&
	    cudaMemcpy(d_c, c, n, cudaMemcpyHostToDevice) == cudaSuccess)
		r = gpz_decompress_device(gpu, d_c, n, d_out, out_n + 64, &got, NULL);
	cudaFree(d_c);
	cudaFree(d_out);
	return r;
}

/* A Huffman frame's chunk index rewritten and its header check made again, so that only the
 * index is wrong: the device path sums the one-bitstream layout's chunk starts on the GPU and
 * leaves each chunk's length to the decoder, so both backends must still reject every edit
 * (bits moved between chunks with the total kept, a length under its chunk's symbols or over
 * its longest code with the total kept, the total changed) and accept the frame resealed
 * unchanged. */
static void index_rewritten(void)
{
	const size_t n = 40000, m = 256; /* 20000 2-byte symbols: 78 chunks of 256, one of 32 */
	uint8_t *src = malloc(n), *c, *bad, *back = malloc(n + 64);
	gpz_params p = params(2, 8);
	gpz_block_info in;
	gpz_result r;
	size_t got;
	uint64_t rng = 7;
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t x = (uint32_t)(test_rand(&rng) % 100), v = x < 80 ? 300 : 300 + x % 13;
		src[2 * i] = (uint8_t)v;
		src[2 * i + 1] = (uint8_t)(v >> 8);
	}
	size_t cn = compress(cpu, &p, src, n, &c, &r);
	CHECK(r == GPZ_OK && gpz_parse_block(c + GPZ_HEADER_SIZE, cn - GPZ_HEADER_SIZE, &in) ==
	                         GPZ_OK && in.frame_type == GPZ_FRAME_HUFFMAN,
	      "index: compress: %s", gpz_result_string(r));
	bad = malloc(cn);
	uint8_t *f = bad + GPZ_HEADER_SIZE;
	const size_t index_at = GPZ_FRAME_HEADER_SIZE + gpz_load_le32(c + GPZ_HEADER_SIZE + 16);
	const size_t nchunks = (n / 2 + m - 1) / m, check_at = index_at + 4 * nchunks;
	const char *what[] = { "resealed unchanged", "8 bits from chunk 1 to chunk 0",
		               "1 bit from chunk 40 to chunk 41", "chunk 5 under its symbols",
		               "chunk 7 over its longest code", "the total 8 bits more" };
	for (int k = 0; k < 6; k++) {
		uint32_t len[80];
		memcpy(bad, c, cn);
		for (size_t i = 0; i < nchunks; i++)
			len[i] = gpz_load_le32(f + index_at + 4 * i);
		if (k == 1) {
			len[0] += 8;
			len[1] -= 8;
		} else if (k == 2) {
			len[41] += 1;
			len[40] -= 1;
		} else if (k == 3) {
			len[6] += len[5] - (uint32_t)(m - 1);
			len[5] = (uint32_t)(m - 1);
		} else if (k == 4) { /* the excess taken from the chunks after it, none under m */
			uint32_t over = (uint32_t)(m * in.max_code_len + 1) - len[7];
			len[7] += over;
			for (size_t i = 8; over && i + 1 < nchunks; i++) {
				uint32_t take = len[i] - (uint32_t)m < over ? len[i] - (uint32_t)m : over;
				len[i] -= take;
				over -= take;
			}
		} else if (k == 5) {
			len[3] += 8;
		}
		for (size_t i = 0; i < nchunks; i++)
			gpz_store_le32(f + index_at + 4 * i, len[i]);
		gpz_store_le32(f + check_at, gpz_header_check(f, check_at));
		gpz_result rc = gpz_decompress(cpu, bad, cn, back, n + 64, &got);
		gpz_result rg = device_decompress(bad, cn, n);
		CHECK(rc == (k == 0 ? GPZ_OK : GPZ_ERR_CORRUPT) && rg == rc, "index, %s: cpu %s, gpu %s",
		      what[k], gpz_result_string(rc), gpz_result_string(rg));
		cases++;
	}
	printf("index: 6 rewritten chunk indexes judged alike by both backends\n");
	free(src);
	free(c);
	free(bad);
	free(back);
}

/* Huffman frames on the device path, whose header check, index total and padding are judged
 * after the decoder has run (the decoder stays inside the payload whatever they say): every
 * bit of everything before the payload, of the payload's last byte (its padding) and of the
 * content checksum flipped, 300 of the payload's, and truncations, each judged as the CPU
 * judges it. Two frames: 2-byte codes with a 1-bit code (runs) and 1-byte text. Alone as
 * `test_gpu huff-hostile`, for compute-sanitizer's memcheck. */
static void huff_device_hostile(void)
{
	const size_t n = 12000;
	uint8_t *src = malloc(n), *back = malloc(n + 64);
	uint64_t rng = 11;
	int differ = 0, rejected = 0, tried = 0;

	for (int kind = 0; kind < 2; kind++) {
		gpz_params p = params(kind == 0 ? 2 : 1, 8);
		gpz_block_info in;
		gpz_result r;
		size_t got, cn;
		uint8_t *c;
		for (size_t i = 0; i < n; i++) {
			uint32_t x = (uint32_t)(test_rand(&rng) % 100);
			src[i] = kind == 0 ? (uint8_t)(i % 2 ? 1 : x < 80 ? 44 : 44 + x % 13)
			                   : (uint8_t)("etaoin shrdlu cmfwyp"[x % 20]);
		}
		cn = compress(cpu, &p, src, n, &c, &r);
		CHECK(r == GPZ_OK && gpz_parse_block(c + GPZ_HEADER_SIZE, cn - GPZ_HEADER_SIZE, &in) ==
		                         GPZ_OK && in.frame_type == GPZ_FRAME_HUFFMAN &&
		                         device_decompress(c, cn, n) == GPZ_OK,
		      "huff hostile: the frame itself");
		const uint8_t *f = c + GPZ_HEADER_SIZE;
		const size_t payload = (size_t)gpz_load_le64(f + 24);
		const size_t payload_at = GPZ_HEADER_SIZE + (size_t)in.block_bytes - 8 - payload;
		for (size_t k = 0; k < 8 * cn; k++) {
			size_t byte = k / 8;
			int all = byte < payload_at || byte >= payload_at + payload - 1;
			if (!all && test_rand(&rng) % (8 * payload / 300 + 1) != 0)
				continue;
			c[byte] ^= (uint8_t)(1u << (k % 8));
			gpz_result rc = gpz_decompress(cpu, c, cn, back, n + 64, &got);
			gpz_result rg = device_decompress(c, cn, n);
			c[byte] ^= (uint8_t)(1u << (k % 8));
			tried++;
			differ += rc != rg;
			rejected += rg != GPZ_OK;
			if (rc != rg && differ <= 3)
				fprintf(stderr, "huff hostile %d: bit %zu: cpu %s, gpu %s\n", kind, k,
				        gpz_result_string(rc), gpz_result_string(rg));
		}
		for (size_t len = 0; len < cn; len += cn / 40 + 1)
			differ += device_decompress(c, len, n) == GPZ_OK;
		free(c);
	}
	CHECK(differ == 0, "huff hostile: %d verdicts differ from the CPU's", differ);
	printf("huff hostile: %d bit flips (%d rejected) and truncations judged on the device path "
	       "as on the CPU\n", tried, rejected);
	cases++;
	free(src);
	free(back);
}

/* LZ-mode frames on the device path, whose window pass runs before the pieces' results are
 * checked: bit flips and truncations of a frame of chained pieces (level 6, five pieces) get
 * the CPU's verdict, and a corrupt piece's leftover symbols never take the pass outside its
 * buffers (compute-sanitizer's memcheck on this test says so on the GPU machine). */
static void lz_device_hostile(void)
{
	const size_t n = 1200000;
	uint8_t *src = malloc(n), *c, *back = malloc(n + 64);
	gpz_params p = params(1, 14);
	gpz_result r;
	uint64_t rng = 5;
	size_t got;
	int differ = 0, flips = 0, cuts = 0;

	for (size_t i = 0; i < n; i++) { /* phrases repeated from far back, across pieces */
		uint64_t x = test_rand(&rng) % 1000;
		src[i] = i > 300000 && x < 900 ? src[i - 262144 - x] : (uint8_t)("etaoin shrdlu"[x % 13]);
	}
	p.lz_level = 6;
	size_t cn = compress(cpu, &p, src, n, &c, &r);
	CHECK(r == GPZ_OK && device_decompress(c, cn, n) == GPZ_OK, "lz hostile: the frame itself");
	for (int k = 0; k < 1500; k++) {
		size_t bit = (size_t)(test_rand(&rng) % (8 * cn));
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		gpz_result rc = gpz_decompress(cpu, c, cn, back, n + 64, &got);
		gpz_result rg = device_decompress(c, cn, n);
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		differ += rc != rg;
		flips += rg != GPZ_OK;
		if (rc != rg && differ <= 3)
			fprintf(stderr, "lz hostile: bit %zu: cpu %s, gpu %s\n", bit, gpz_result_string(rc),
			        gpz_result_string(rg));
	}
	for (size_t len = 0; len < cn; len += cn / 40 + 1) {
		gpz_result rg = device_decompress(c, len, n);
		cuts += rg != GPZ_OK;
		differ += rg == GPZ_OK;
	}
	CHECK(differ == 0, "lz hostile: %d verdicts differ from the CPU's", differ);
	printf("lz hostile: %d of 1500 bit flips and %d truncations rejected on the device path, "
	       "as on the CPU\n", flips, cuts);
	cases++;
	free(src);
	free(c);
	free(back);
}

/* Children that create an AUTO context (the first CUDA use in the process), round-trip a few
 * bytes on the CPU while the GPU starts in the background, and exit at once: the CUDA driver's
 * exit handlers must not run under the starting thread (they aborted in glibc, 12 of 12 runs
 * through h5py, before the context probed the GPU on the caller's thread). The parent makes no
 * CUDA call before forking. */
static int exit_during_start(void)
{
	static const uint8_t text[] = "exit while the GPU starts, exit while the GPU starts";
	int bad = 0;

	for (int i = 0; i < 10; i++) {
		int status = 0;
		pid_t pid = fork();
		if (pid == 0) {
			gpz_ctx *ctx;
			gpz_params p;
			uint8_t packed[512], back[sizeof text];
			size_t n = 0, m = 0;
			gpz_params_default(&p);
			if (gpz_ctx_create(&ctx, GPZ_BACKEND_AUTO, 1) ||
			    gpz_compress(ctx, &p, text, sizeof text, packed, sizeof packed, &n) ||
			    gpz_decompress(ctx, packed, n, back, sizeof back, &m) || m != sizeof text ||
			    memcmp(back, text, m))
				_exit(2);
			exit(0); /* the context is left open, as a program that fails fast leaves it */
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "FAIL: child %d: %s %d\n", i,
			        WIFSIGNALED(status) ? "killed by signal" : "exit status",
			        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			bad++;
		}
	}
	if (!gpz_gpu_available()) {
		printf("SKIP: no usable GPU\n");
		return TEST_SKIP;
	}
	printf("gpu exit-start: 10 children, %d failures\n", bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "all";

	if (!strcmp(which, "exit-start"))
		return exit_during_start();

	if (!gpz_gpu_available()) {
		printf("SKIP: no usable GPU\n");
		return TEST_SKIP;
	}
	if (gpz_ctx_create(&cpu, GPZ_BACKEND_CPU, 2) || gpz_ctx_create(&gpu, GPZ_BACKEND_GPU, 2)) {
		fprintf(stderr, "cannot create contexts\n");
		return 1;
	}
	if (!strcmp(which, "quick"))
		quick();
	if (!strcmp(which, "edge") || !strcmp(which, "all"))
		edge_cases();
	if (!strcmp(which, "hostile") || !strcmp(which, "all")) {
		hostile();
		index_rewritten();
		huff_device_hostile();
		lz_device_hostile();
	}
	if (!strcmp(which, "huff-hostile"))
		huff_device_hostile();
	if (!strcmp(which, "corpora") || !strcmp(which, "all"))
		corpora();
	gpz_ctx_free(cpu);
	gpz_ctx_free(gpu);
	printf("gpu %s: %d cases, %d failures\n", which, cases, test_failures);
	return test_failures != 0;
}
