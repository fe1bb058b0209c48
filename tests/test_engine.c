/* test_engine.c - the pipelined frame engine (src/container/engine.c): the same bytes for every
 * depth and thread count, on the CPU and (where one is usable) the GPU; the callback streams
 * (gpz_compress_stream / gpz_decompress_stream) against the one-shot calls; concatenated
 * streams; errors reported in frame order; a failing callback stops the call.
 *
 * On a machine with a GPU, run it with GPZ_TEST_GPU_FAIL=k as well: the k-th GPU frame fails,
 * is redone on the CPU, and the output must still be identical (`fallback` mode checks that a
 * fallback happened). */
#include "testutil.h"
#include "common/context.h"
#include "common/parallel.h"

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Input of n bytes: runs, a skewed alphabet and noise, so frames differ in type and size. */
static uint8_t *make_input(size_t n, int w)
{
	uint8_t *b = malloc(n ? n : 1);
	uint64_t st = 0x5eed + n;
	for (size_t i = 0; i < n; i += (size_t)w) {
		uint64_t r = test_rand(&st);
		uint32_t v = (i / 70000) % 5 == 0 ? 7u : (uint32_t)(r % 100 < 90 ? r % 13 : r % 3000);
		for (int k = 0; k < w && i + (size_t)k < n; k++)
			b[i + (size_t)k] = (uint8_t)(v >> (8 * k));
	}
	return b;
}

static gpz_ctx *make_ctx(gpz_backend b, int threads, int depth)
{
	gpz_ctx *ctx = NULL;
	if (gpz_ctx_create(&ctx, b, threads) != GPZ_OK)
		return NULL;
	CHECK(gpz_ctx_set_depth(ctx, depth) == GPZ_OK, "set depth %d", depth);
	return ctx;
}

/* The reference: CPU, one thread, the stream put together a frame at a time by the public
 * calls (header, gpz_compress_frame for each frame_bytes of input, trailer), so that the
 * engine's jobs of several frames are held to the frames one by one. */
static uint8_t *reference(const uint8_t *src, size_t n, const gpz_params *p, size_t *len)
{
	gpz_ctx *ctx = make_ctx(GPZ_BACKEND_CPU, 1, 1);
	size_t cap = gpz_compress_bound(n, p), at = 0, w = 0;
	uint32_t frames = 0;
	uint8_t *c = malloc(cap);
	int ok = ctx && gpz_write_header(c, cap, &w) == GPZ_OK;
	at = w;
	for (size_t done = 0; ok && done < n; done += p->frame_bytes, frames++) {
		size_t k = n - done < p->frame_bytes ? n - done : p->frame_bytes;
		ok = gpz_compress_frame(ctx, p, src + done, k, c + at, cap - at, &w) == GPZ_OK;
		at += w;
	}
	ok = ok && gpz_write_trailer(n, frames, c + at, cap - at, &w) == GPZ_OK;
	CHECK(ok, "reference");
	*len = at + w;
	gpz_ctx_free(ctx);
	return c;
}

/* Positional output into memory: every call inside the buffer, and the bytes counted (lanes
 * call it at once: the count is atomic). The input is read through `in` (first: the read
 * callback takes the same user pointer). */
struct at_sink {
	struct test_mem in;
	uint8_t *dst;
	size_t cap;
	uint64_t bytes;
	int outside;
};

static gpz_result sink_write_at(void *user, const void *buf, size_t n, uint64_t off)
{
	struct at_sink *a = user;

	if (off > a->cap || n > a->cap - off) {
		__atomic_store_n(&a->outside, 1, __ATOMIC_RELAXED);
		return GPZ_ERR_DST_TOO_SMALL;
	}
	memcpy(a->dst + off, buf, n);
	__atomic_add_fetch(&a->bytes, n, __ATOMIC_RELAXED);
	return GPZ_OK;
}

/* One-shot and callback compression on ctx give the reference bytes, and decode back. */
static void check_ctx(gpz_ctx *ctx, const uint8_t *src, size_t n, const gpz_params *p,
                      const uint8_t *ref, size_t ref_len, const char *what)
{
	size_t cap = gpz_compress_bound(n, p), len = 0, dlen = 0;
	uint8_t *c = malloc(cap), *d = malloc(n + 1);
	struct test_mem m = { .src = src, .size = n, .dst = c, .cap = cap };
	uint64_t in = 0, out = 0;

	CHECK(gpz_compress(ctx, p, src, n, c, cap, &len) == GPZ_OK, "%s: compress", what);
	CHECK(len == ref_len && memcmp(c, ref, len) == 0, "%s: one-shot bytes differ", what);
	CHECK(gpz_decompress(ctx, c, len, d, n, &dlen) == GPZ_OK && dlen == n &&
	      memcmp(d, src, n) == 0, "%s: one-shot round trip", what);
	memset(c, 0, cap);
	CHECK(gpz_compress_stream(ctx, p, test_mem_read, test_mem_write, &m, &in, &out) == GPZ_OK,
	      "%s: stream compress", what);
	CHECK(m.len == ref_len && memcmp(c, ref, ref_len) == 0 && in == n && out == ref_len,
	      "%s: stream bytes differ", what);
	struct test_mem u = { .src = ref, .size = ref_len, .dst = d, .cap = n };
	memset(d, 0, n);
	CHECK(gpz_decompress_stream(ctx, test_mem_read, test_mem_write, &u, &in, &out) == GPZ_OK &&
	      u.len == n && memcmp(d, src, n) == 0 && in == ref_len && out == n,
	      "%s: stream round trip", what);
	/* positional output: the lanes write their frames' content at its offset */
	struct at_sink as = { { .src = ref, .size = ref_len }, d, n, 0, 0 };
	memset(d, 0, n);
	CHECK(gpz_decompress_stream_at(ctx, test_mem_read, sink_write_at, &as, &in, &out) ==
	              GPZ_OK &&
	      !as.outside && as.bytes == n && memcmp(d, src, n) == 0 && in == ref_len && out == n,
	      "%s: positional output round trip", what);
	/* positional input: the lanes read their frames */
	struct test_mem pa = { .src = src, .size = n, .dst = c, .cap = cap };
	memset(c, 0, cap);
	CHECK(gpz_compress_stream_at(ctx, p, test_mem_read_at, n, test_mem_write, &pa, &in, &out) ==
	              GPZ_OK &&
	      pa.len == ref_len && memcmp(c, ref, ref_len) == 0 && in == n && out == ref_len,
	      "%s: positional compress", what);
	/* positional input and output: the lanes also write their frames, at offsets learnt in
	 * frame order */
	struct test_mem po = { .src = src, .size = n, .dst = c, .cap = cap };
	memset(c, 0, cap);
	CHECK(gpz_compress_stream_at_to(ctx, p, test_mem_read_at, n, test_mem_write_at, &po, &in,
	                                &out) == GPZ_OK &&
	      po.len == ref_len && po.at_bytes == ref_len && memcmp(c, ref, ref_len) == 0 &&
	      in == n && out == ref_len,
	      "%s: positional compress in and out", what);

	free(c);
	free(d);
}

static void same_bytes(gpz_backend b, const char *bname)
{
	static const size_t sizes[] = { 0, 1, 4096, 300000, 1000003 };
	static const int widths[] = { 1, 2 };
	static const int depths[] = { 1, 2, 3, 5 };

	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
		for (size_t wi = 0; wi < 2; wi++) {
			size_t n = sizes[si] / (size_t)widths[wi] * (size_t)widths[wi], ref_len = 0;
			uint8_t *src = make_input(n, widths[wi]);
			gpz_params p;
			gpz_params_default(&p);
			p.symbol_bytes = widths[wi];
			p.frame_bytes = 65536; /* many frames in flight */
			p.lz_level = widths[wi] == 1 && si % 2 ? 3 : 0;
			uint8_t *ref = reference(src, n, &p, &ref_len);
			for (size_t di = 0; di < sizeof depths / sizeof *depths; di++) {
				char what[96];
				gpz_ctx *ctx = make_ctx(b, 1 + (int)di, depths[di]);
				if (!ctx)
					continue;
				/* on a machine with several GPUs: one, then every one (same bytes) */
				CHECK(gpz_ctx_set_gpus(ctx, di % 2 ? 0 : 1) == GPZ_OK, "set gpus");
				snprintf(what, sizeof what, "%s n=%zu w=%d lz=%d depth=%d", bname, n,
				         widths[wi], p.lz_level, depths[di]);
				check_ctx(ctx, src, n, &p, ref, ref_len, what);
				gpz_ctx_free(ctx);
			}
			free(ref);
			free(src);
		}
}

/* A stream of small frames (decoded in jobs of many) with a frame damaged in its second half,
 * then cut there: the error of that frame, one-shot and streaming, never success. */
static void damaged_jobs(gpz_ctx *ctx, const uint8_t *c, size_t len, size_t n, const char *what)
{
	uint8_t *bad = malloc(len), *d = malloc(n);
	size_t dlen = 0;
	memcpy(bad, c, len);
	bad[len / 3 * 2] ^= 0x21;
	gpz_result r = gpz_decompress(ctx, bad, len, d, n, &dlen);
	CHECK(r == GPZ_ERR_CORRUPT || r == GPZ_ERR_CHECKSUM, "%s: damaged: %s", what,
	      gpz_result_string(r));
	struct test_mem m = { .src = bad, .size = len, .dst = d, .cap = n };
	r = gpz_decompress_stream(ctx, test_mem_read, test_mem_write, &m, NULL, NULL);
	CHECK(r == GPZ_ERR_CORRUPT || r == GPZ_ERR_CHECKSUM, "%s: damaged, streaming: %s", what,
	      gpz_result_string(r));
	r = gpz_decompress(ctx, c, len / 3 * 2, d, n, &dlen);
	CHECK(r == GPZ_ERR_TRUNCATED, "%s: cut: %s", what, gpz_result_string(r));
	struct test_mem t = { .src = c, .size = len / 3 * 2, .dst = d, .cap = n };
	r = gpz_decompress_stream(ctx, test_mem_read, test_mem_write, &t, NULL, NULL);
	CHECK(r == GPZ_ERR_TRUNCATED, "%s: cut, streaming: %s", what, gpz_result_string(r));
	free(bad);
	free(d);
}

/* Frames far smaller than a lane's job (gpz_job_bytes): several jobs of many frames each, the
 * last job and its last frame short, frames a multiple of 32 bytes (the GPU codes a job's
 * frames at once) and not, 1- and 2-byte symbols; the bytes of the frames one by one. */
static void small_frame_jobs(gpz_backend b, const char *bname)
{
	static const size_t frames[] = { 1024, 992, 1000 };

	for (int w = 1; w <= 2; w++)
		for (size_t fi = 0; fi < sizeof frames / sizeof *frames; fi++) {
			size_t n = (size_t)3 << 20 | 6, ref_len = 0;
			uint8_t *src = make_input(n, w);
			gpz_params p;
			gpz_params_default(&p);
			p.symbol_bytes = w;
			p.frame_bytes = frames[fi];
			p.chunk_log = 8;
			uint8_t *ref = reference(src, n, &p, &ref_len);
			for (int depth = 1; depth <= 3; depth += 2) {
				char what[96];
				gpz_ctx *ctx = make_ctx(b, 2, depth);
				snprintf(what, sizeof what, "%s small frames %zu w=%d depth=%d", bname,
				         frames[fi], w, depth);
				if (ctx) {
					check_ctx(ctx, src, n, &p, ref, ref_len, what);
					damaged_jobs(ctx, ref, ref_len, n, what);
				}
				gpz_ctx_free(ctx);
			}
			free(ref);
			free(src);
		}
}

/* Many frames of alternating statistics (flat bytes with short codes, skewed ones with codes up
 * to 20 bits) at a high depth: lanes launch kernels whose resources differ at the same time. */
static void mixed_frames(gpz_backend b, const char *bname)
{
	size_t n = 160 * 65536, ref_len = 0;
	uint8_t *src = malloc(n);
	uint64_t st = 99;
	gpz_params p;
	gpz_params_default(&p);
	p.frame_bytes = 65536;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = test_rand(&st);
		if ((i / 65536) % 2) /* geometric: byte k with probability about 2^-(k+1) */
			src[i] = (uint8_t)(r ? __builtin_ctzll(r) : 63);
		else
			src[i] = (uint8_t)r;
	}
	uint8_t *ref = reference(src, n, &p, &ref_len);
	gpz_ctx *ctx = make_ctx(b, 4, 12);
	if (ctx)
		check_ctx(ctx, src, n, &p, ref, ref_len, bname);
	gpz_ctx_free(ctx);
	free(ref);
	free(src);
}

/* Two streams back to back: the one-shot call decodes both; the callback call reads exactly
 * the first, and a second call the next. A corrupt frame fails with the frame's error. */
static void concatenated(void)
{
	size_t n = 200000, l1 = 0, l2 = 0, dlen = 0;
	uint8_t *src = make_input(n, 1), *d = malloc(2 * n);
	gpz_params p;
	gpz_params_default(&p);
	p.frame_bytes = 50000;
	uint8_t *a = reference(src, n, &p, &l1);
	p.lz_level = 1;
	uint8_t *b = reference(src, n, &p, &l2);
	uint8_t *ab = malloc(l1 + l2);
	gpz_ctx *ctx = make_ctx(GPZ_BACKEND_AUTO, 2, 3);
	uint64_t in = 0, out = 0;

	memcpy(ab, a, l1);
	memcpy(ab + l1, b, l2);
	CHECK(gpz_decompress(ctx, ab, l1 + l2, d, 2 * n, &dlen) == GPZ_OK && dlen == 2 * n &&
	      !memcmp(d, src, n) && !memcmp(d + n, src, n), "concatenated one-shot");
	CHECK(gpz_decompress(ctx, ab, l1 + l2, d, 2 * n - 1, &dlen) == GPZ_ERR_DST_TOO_SMALL,
	      "a destination one byte short");
	struct test_mem m = { .src = ab, .size = l1 + l2, .dst = d, .cap = 2 * n };
	CHECK(gpz_decompress_stream(ctx, test_mem_read, test_mem_write, &m, &in, &out) == GPZ_OK &&
	      in == l1 && out == n && m.pos == l1, "the first stream alone, nothing read past it");
	CHECK(gpz_decompress_stream(ctx, test_mem_read, test_mem_write, &m, &in, &out) == GPZ_OK &&
	      in == l2 && out == n && m.pos == l1 + l2 && !memcmp(d + n, src, n), "the second");
	/* corrupt the payload of the second frame of the first stream */
	ab[8 + (l1 - 8) / 2] ^= 0x55;
	gpz_result r = gpz_decompress(ctx, ab, l1 + l2, d, 2 * n, &dlen);
	CHECK(r == GPZ_ERR_CORRUPT || r == GPZ_ERR_CHECKSUM, "a corrupt frame: %s",
	      gpz_result_string(r));
	struct test_mem c = { .src = ab, .size = l1 + l2, .dst = d, .cap = 2 * n };
	r = gpz_decompress_stream(ctx, test_mem_read, test_mem_write, &c, NULL, NULL);
	CHECK(r == GPZ_ERR_CORRUPT || r == GPZ_ERR_CHECKSUM, "a corrupt frame, streaming: %s",
	      gpz_result_string(r));
	/* a failing write stops the call with its error */
	struct test_mem f = { .src = src, .size = n, .dst = a, .cap = l1, .fail_write_at = 3 };
	p.lz_level = 0;
	CHECK(gpz_compress_stream(ctx, &p, test_mem_read, test_mem_write, &f, NULL, NULL) ==
	      GPZ_ERR_TRUNCATED, "a failing write");
	for (int k = 1; k <= 3; k++) { /* the header, the frames (4, one job), the trailer */
		struct test_mem fa = { .src = src, .size = n, .dst = a, .cap = l1, .fail_write_at = k };
		CHECK(gpz_compress_stream_at_to(ctx, &p, test_mem_read_at, n, test_mem_write_at, &fa,
		                                NULL, NULL) == GPZ_ERR_TRUNCATED,
		      "a failing positional write (%d)", k);
	}
	/* a truncated stream through the callbacks */
	struct test_mem t = { .src = b, .size = l2 - 30, .dst = d, .cap = 2 * n };
	CHECK(gpz_decompress_stream(ctx, test_mem_read, NULL, &t, NULL, NULL) == GPZ_ERR_TRUNCATED,
	      "a truncated stream");
	gpz_ctx_free(ctx);
	free(a);
	free(b);
	free(ab);
	free(d);
	free(src);
}

/* More than 4 GiB through the engine with callbacks, without holding it in memory: constant
 * frames but the two around the 4 GiB mark, which get Huffman codes; the size is not a multiple
 * of the frame. Checks the 64-bit counts, the trailer and every byte on the way back. */
#define BIG_FRAME ((size_t)64 << 20)
#define BIG_SIZE (((uint64_t)4 << 30) + (3u << 20) + 5)

static uint8_t big_byte(uint64_t off)
{
	uint64_t k = off / BIG_FRAME, x;
	if (k != 63 && k != 64)
		return (uint8_t)(k * 7 + 1);
	x = off * 0x9E3779B97F4A7C15ull;
	x ^= x >> 29;
	return (uint8_t)((x >> 40) % 11 + ((x >> 50) & 1) * 100); /* a skewed alphabet */
}

static void big_fill(uint8_t *b, uint64_t off, size_t n)
{
	for (size_t i = 0; i < n;) { /* runs of one frame's constant byte, or byte by byte */
		uint64_t k = (off + i) / BIG_FRAME;
		size_t run = (size_t)((k + 1) * BIG_FRAME - (off + i));
		if (run > n - i)
			run = n - i;
		if (k != 63 && k != 64)
			memset(b + i, big_byte(off + i), run);
		else
			for (size_t j = 0; j < run; j++)
				b[i + j] = big_byte(off + i + j);
		i += run;
	}
}

struct big_io {
	uint64_t pos;        /* reading: bytes made; verifying: bytes checked */
	uint8_t *c;          /* the compressed stream */
	size_t clen, ccap;
	struct test_mem back;  /* reading it back */
	uint8_t *tmp;
	int bad;
};

static gpz_result big_read(void *user, void *buf, size_t cap, size_t *got)
{
	struct big_io *b = user;
	size_t n = BIG_SIZE - b->pos < cap ? (size_t)(BIG_SIZE - b->pos) : cap;
	big_fill(buf, b->pos, n);
	b->pos += n;
	*got = n;
	return GPZ_OK;
}

static gpz_result big_keep(void *user, const void *buf, size_t n)
{
	struct big_io *b = user;
	if (b->clen + n > b->ccap) {
		size_t cap = 2 * (b->clen + n);
		uint8_t *c = realloc(b->c, cap);
		if (!c)
			return GPZ_ERR_NOMEM;
		b->c = c;
		b->ccap = cap;
	}
	memcpy(b->c + b->clen, buf, n);
	b->clen += n;
	return GPZ_OK;
}

static gpz_result big_creturn(void *user, void *buf, size_t cap, size_t *got)
{
	struct big_io *b = user;
	return test_mem_read(&b->back, buf, cap, got);
}

static gpz_result big_check(void *user, const void *buf, size_t n)
{
	struct big_io *b = user;
	for (size_t i = 0; i < n; i += BIG_FRAME) {
		size_t m = n - i < BIG_FRAME ? n - i : BIG_FRAME;
		big_fill(b->tmp, b->pos + i, m);
		b->bad |= memcmp(b->tmp, (const uint8_t *)buf + i, m) != 0;
	}
	b->pos += n;
	return GPZ_OK;
}

static int big(void)
{
	struct big_io b = { .tmp = malloc(BIG_FRAME) };
	gpz_ctx *ctx = make_ctx(GPZ_BACKEND_AUTO, 0, 0);
	uint64_t in = 0, out = 0, size = 0;
	gpz_params p;

	gpz_params_default(&p);
	p.frame_bytes = BIG_FRAME;
	CHECK(ctx && b.tmp, "setup");
	CHECK(gpz_compress_stream(ctx, &p, big_read, big_keep, &b, &in, &out) == GPZ_OK &&
	      in == BIG_SIZE && out == b.clen, "compress %llu bytes", (unsigned long long)BIG_SIZE);
	CHECK(gpz_decompressed_size(b.c, b.clen, &size) == GPZ_OK && size == BIG_SIZE,
	      "the trailer's size: %llu", (unsigned long long)size);
	b.pos = 0;
	b.back.src = b.c;
	b.back.size = b.clen;
	CHECK(gpz_decompress_stream(ctx, big_creturn, big_check, &b, &in, &out) == GPZ_OK &&
	      in == b.clen && out == BIG_SIZE && b.pos == BIG_SIZE && !b.bad, "round trip");
	printf("big: %llu bytes -> %zu, back intact\n", (unsigned long long)BIG_SIZE, b.clen);
	gpz_ctx_free(ctx);
	free(b.c);
	free(b.tmp);
	return 0;
}

/* GPZ_TEST_GPU_FAIL set on a GPU machine: the AUTO backend redid a frame on the CPU and the
 * bytes are those of the CPU. */
/* Fresh AUTO contexts: their first frames run on warm lanes (on the CPU while the GPU starts,
 * on the GPU once it has; LZ-mode frames wait for the start), a call after another until the
 * start is over and two more; every call gives the reference bytes and decodes back. Rounds 0-2
 * Huffman-only (round 2 at depth 4), round 3 LZ mode. */
static void warm_start(void)
{
	size_t n = 8u << 20, ref_len = 0;
	uint8_t *src = make_input(n, 2), *ref = NULL;
	gpz_params p;

	for (int round = 0; round < 4; round++) {
		if (round == 0 || round == 3) {
			gpz_params_default(&p);
			p.symbol_bytes = round == 3 ? 1 : 2;
			p.lz_level = round == 3 ? 1 : 0;
			p.frame_bytes = round == 3 ? 1u << 20 : 65536;
			free(ref);
			ref = reference(src, n, &p, &ref_len);
		}
		gpz_ctx *ctx = make_ctx(GPZ_BACKEND_AUTO, 0, round == 2 ? 4 : 0);
		int after = 0, calls = 0;
		CHECK(ctx != NULL, "auto context");
		while (ctx && after < 2 && calls < 1000) {
			char what[64];
			after += gpz_ctx_is_settled(ctx);
			snprintf(what, sizeof what, "warm start round %d call %d", round, calls++);
			check_ctx(ctx, src, n, &p, ref, ref_len, what);
		}
		printf("warm start round %d: %d calls, backend %s\n", round, calls,
		       gpz_ctx_backend(ctx) == GPZ_BACKEND_GPU ? "GPU" : "CPU");
		gpz_ctx_free(ctx);
	}
	free(ref);
	free(src);
}

static int fallback(void)
{
	size_t n = 1 << 20, ref_len = 0;
	uint8_t *src = make_input(n, 2);
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = 2;
	p.frame_bytes = 65536;
	uint8_t *ref = reference(src, n, &p, &ref_len);
	gpz_ctx *ctx = make_ctx(GPZ_BACKEND_AUTO, 4, 3);

	if (!getenv("GPZ_TEST_GPU_FAIL") || !ctx || gpz_ctx_backend(ctx) != GPZ_BACKEND_GPU) {
		printf("fallback: needs a GPU and GPZ_TEST_GPU_FAIL (skipped)\n");
		gpz_ctx_free(ctx);
		free(ref);
		free(src);
		return TEST_SKIP;
	}
	check_ctx(ctx, src, n, &p, ref, ref_len, "GPU with an injected failure");
	CHECK(gpz_ctx_gpu_fallbacks(ctx) == 1, "fallbacks: %llu",
	      (unsigned long long)gpz_ctx_gpu_fallbacks(ctx));
	gpz_ctx_free(ctx);
	free(ref);
	free(src);
	return 0;
}

/* gpz_pool (common/parallel.c): six callers on threads of their own share three workers, each
 * call's tasks marking their slots; every task of every call runs exactly once, each call
 * returns only when all of its own are done (it checks them itself), and a NULL pool runs them
 * on the caller. */
struct pool_caller {
	struct gpz_pool *pool;
	size_t ntasks;
	int *hits;
	int all_done;
};

static void pool_task(void *v, size_t i)
{
	struct pool_caller *c = v;
	volatile unsigned spin = 0;
	for (unsigned k = 0; k < 1000 * (unsigned)(i % 7); k++)
		spin += k; /* tasks of unequal length */
	__atomic_add_fetch(&c->hits[i], 1, __ATOMIC_RELAXED);
}

static void *pool_caller_main(void *v)
{
	struct pool_caller *c = v;
	for (int round = 0; round < 20; round++)
		gpz_pool_run(c->pool, c->ntasks, pool_task, c);
	c->all_done = 1;
	for (size_t i = 0; i < c->ntasks; i++)
		c->all_done &= __atomic_load_n(&c->hits[i], __ATOMIC_RELAXED) == 20;
	return NULL;
}

static void shared_pool(void)
{
	struct gpz_pool *pool = gpz_pool_open(3);
	struct pool_caller c[6];
	pthread_t tid[6];
	CHECK(pool != NULL, "gpz_pool_open(3)");
	for (int k = 0; k < 6; k++) {
		c[k] = (struct pool_caller){ pool, (size_t)(k * 37 + 1), NULL, 0 };
		c[k].hits = calloc(c[k].ntasks, sizeof(int));
		CHECK(pthread_create(&tid[k], NULL, pool_caller_main, &c[k]) == 0, "caller %d", k);
	}
	for (int k = 0; k < 6; k++) {
		pthread_join(tid[k], NULL);
		CHECK(c[k].all_done, "pool caller %d: every task once a round, done before it returned",
		      k);
		free(c[k].hits);
	}
	gpz_pool_close(pool);
	struct pool_caller alone = { NULL, 5, calloc(5, sizeof(int)), 0 };
	gpz_pool_run(NULL, 5, pool_task, &alone);
	gpz_pool_run(NULL, 0, pool_task, &alone);
	for (size_t i = 0; i < 5; i++)
		CHECK(alone.hits[i] == 1, "NULL pool: task %zu ran %d times", i, alone.hits[i]);
	free(alone.hits);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";

	if (!strcmp(mode, "big")) {
		big();
	} else if (!strcmp(mode, "fallback")) {
		int rc = fallback();
		if (rc)
			return rc;
	} else {
		same_bytes(GPZ_BACKEND_CPU, "cpu");
		small_frame_jobs(GPZ_BACKEND_CPU, "cpu");
		mixed_frames(GPZ_BACKEND_CPU, "cpu mixed frames, depth 12");
		if (gpz_gpu_available()) {
			same_bytes(GPZ_BACKEND_GPU, "gpu");
			small_frame_jobs(GPZ_BACKEND_GPU, "gpu");
			mixed_frames(GPZ_BACKEND_GPU, "gpu mixed frames, depth 12");
		}
		concatenated();
		warm_start();
		shared_pool();
	}
	if (test_failures)
		fprintf(stderr, "test_engine %s: %d failure(s)\n", mode, test_failures);
	else
		printf("test_engine %s: ok\n", mode);
	return test_failures ? 1 : 0;
}
