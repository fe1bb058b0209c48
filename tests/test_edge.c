/* test_edge.c - edge cases of the Huffman-only codec through the public API. */
#include "testutil.h"
#include "common/bits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gpz_params params(int w, int chunk_log)
{
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = w;
	p.chunk_log = chunk_log;
	return p;
}

/* Frame type of the first frame of a stream. */
static int first_frame_type(const uint8_t *c, size_t n)
{
	gpz_block_info in;
	if (n < GPZ_HEADER_SIZE || gpz_parse_block(c + GPZ_HEADER_SIZE, n - GPZ_HEADER_SIZE, &in))
		return -1;
	return in.kind == GPZ_BLOCK_FRAME ? (int)in.frame_type : 0;
}

static void test_empty_and_tiny(void)
{
	gpz_params p = params(1, GPZ_DEFAULT_CHUNK_LOG);
	uint8_t one = 'x', *c;
	size_t n = test_roundtrip("", 0, &p, "empty", &c);
	CHECK(n == GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE, "empty input gives %zu bytes", n);
	CHECK(first_frame_type(c, n) == 0, "empty input has a frame");
	free(c);
	n = test_roundtrip(&one, 1, &p, "one byte", &c);
	CHECK(first_frame_type(c, n) == GPZ_FRAME_CONSTANT, "one byte: frame type");
	free(c);
	uint8_t two[2] = { 1, 2 };
	test_roundtrip(two, 2, &p, "two bytes", NULL);
}

static void test_constant(void)
{
	size_t n = 3000001;
	uint8_t *buf = malloc(4 * n), *c;
	memset(buf, 'a', n);
	gpz_params p = params(1, 12);
	size_t got = test_roundtrip(buf, n, &p, "constant bytes", &c);
	CHECK(got < 100 && first_frame_type(c, got) == GPZ_FRAME_CONSTANT, "constant: %zu bytes", got);
	free(c);
	for (size_t i = 0; i < n; i++)
		gpz_store_le32(buf + 4 * i, 0xfffff);
	p = params(4, 12);
	got = test_roundtrip(buf, 4 * n, &p, "constant u32", NULL);
	CHECK(got < 100, "constant u32: %zu bytes", got);
	free(buf);
}

static void test_uniform_u16(void)
{
	size_t n = 65536 * 8;
	uint8_t *buf = malloc(2 * n), *c;
	uint64_t st = 5;
	for (size_t i = 0; i < n; i++)
		gpz_store_le16(buf + 2 * i, (uint16_t)i);
	gpz_params p = params(2, 14);
	size_t got = test_roundtrip(buf, 2 * n, &p, "all 65536 symbols", &c);
	/* 16-bit codes cannot shrink it: the stored frame keeps it to a few bytes of overhead */
	CHECK(got == 2 * n + GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE + 44 && first_frame_type(c, got) == GPZ_FRAME_STORED,
	      "uniform 65536: %zu bytes, type %d", got, first_frame_type(c, got));
	free(c);
	/* all 65536 symbols present, skewed: Huffman with long codes */
	for (size_t i = 0; i < n; i++)
		gpz_store_le16(buf + 2 * i, test_rand(&st) % 4 ? (uint16_t)(test_rand(&st) % 8)
		                                                : (uint16_t)i);
	got = test_roundtrip(buf, 2 * n, &p, "65536 skewed", &c);
	CHECK(first_frame_type(c, got) == GPZ_FRAME_HUFFMAN, "65536 skewed: not Huffman");
	free(c);
	free(buf);
}

/* Fibonacci-like counts force the 24-bit length limit through the whole pipeline. */
static void test_fibonacci_stream(void)
{
	uint32_t f[30];
	size_t n = 0, k = 0;
	f[0] = f[1] = 1;
	for (int i = 2; i < 30; i++)
		f[i] = f[i - 1] + f[i - 2];
	for (int i = 0; i < 30; i++)
		n += f[i];
	uint8_t *buf = malloc(2 * n);
	for (int i = 0; i < 30; i++)
		for (uint32_t j = 0; j < f[i]; j++)
			gpz_store_le16(buf + 2 * k++, (uint16_t)(i * 1000));
	/* shuffle deterministically so chunks see a mix */
	uint64_t st = 3;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = test_rand(&st) % (i + 1);
		uint16_t a = gpz_load_le16(buf + 2 * i), b = gpz_load_le16(buf + 2 * j);
		gpz_store_le16(buf + 2 * i, b);
		gpz_store_le16(buf + 2 * j, a);
	}
	gpz_params p = params(2, 10);
	uint8_t *c;
	size_t got = test_roundtrip(buf, 2 * n, &p, "fibonacci", &c);
	gpz_block_info in;
	CHECK(got && gpz_parse_block(c + GPZ_HEADER_SIZE, got, &in) == GPZ_OK &&
	      in.frame_type == GPZ_FRAME_HUFFMAN && in.max_code_len == GPZ_MAX_CODE_LEN,
	      "fibonacci: max code length %d", in.max_code_len);
	free(c);
	free(buf);
}

static void test_chunk_edges(void)
{
	uint64_t st = 11;
	size_t sizes[] = { 255, 256, 257, 4095, 4096, 4097, 3 * 16384 + 17, 100000 };
	for (int w = 1; w <= 4; w *= 2) {
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];
			uint8_t *buf = malloc(n * (size_t)w);
			test_skewed_symbols(buf, n, w, &st);
			for (int cl = GPZ_MIN_CHUNK_LOG; cl <= 16; cl += 4) {
				char what[64];
				gpz_params p = params(w, cl);
				snprintf(what, sizeof(what), "w=%d n=%zu chunk_log=%d", w, n, cl);
				test_roundtrip(buf, n * (size_t)w, &p, what, NULL);
			}
			free(buf);
		}
	}
}

/* Frames in the lanes layout (gpz_params.huff_lanes): every width, chunk sizes, sizes that are
 * not a multiple of a row or a chunk, several frames, a 2^20 alphabet, 24-bit codes; the layout
 * byte is set, the payload is whole words, and the one-bitstream frame of the same input is
 * never smaller by more than the layout's bound allows. */
static void test_lanes_layout(void)
{
	uint64_t st = 31;
	size_t sizes[] = { 1, 2, 127, 129, 4097, 3 * 16384 + 17, 300001 };
	for (int w = 1; w <= 4; w *= 2) {
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];
			uint8_t *buf = malloc(n * (size_t)w), *c, *c0;
			test_skewed_symbols(buf, n, w, &st);
			for (int cl = GPZ_MIN_CHUNK_LOG; cl <= 16; cl += 4) {
				char what[80];
				gpz_params p = params(w, cl);
				p.huff_lanes = 1;
				p.frame_bytes = k % 2 ? 65536 : p.frame_bytes;
				snprintf(what, sizeof(what), "lanes w=%d n=%zu chunk_log=%d", w, n, cl);
				size_t got = test_roundtrip(buf, n * (size_t)w, &p, what, &c);
				p.huff_lanes = 0;
				size_t one = test_roundtrip(buf, n * (size_t)w, &p, what, &c0);
				if (got && first_frame_type(c, got) == GPZ_FRAME_HUFFMAN) {
					gpz_block_info in;
					gpz_parse_block(c + GPZ_HEADER_SIZE, got - GPZ_HEADER_SIZE, &in);
					CHECK(c[GPZ_HEADER_SIZE + 20] == 1 &&
					      gpz_load_le64(c + GPZ_HEADER_SIZE + 24) % 4 == 0,
					      "%s: layout byte or payload size", what);
					CHECK(got >= one - 8 * (size_t)w, "%s: %zu bytes against %zu", what, got,
					      one);
				}
				free(c);
				free(c0);
			}
			free(buf);
		}
	}
	/* 24-bit codes and the largest alphabet */
	size_t n = (size_t)GPZ_MAX_ALPHABET + 70001;
	uint8_t *buf = malloc(4 * n);
	uint64_t a = 1, b = 1, i = 0;
	for (uint32_t s = 0; i < n; s++) { /* Fibonacci counts, then every value once */
		for (uint64_t k = 0; k < a && i < 70001; k++, i++)
			gpz_store_le32(buf + 4 * i, s * 30011 % GPZ_MAX_ALPHABET);
		uint64_t t = a + b;
		a = b;
		b = t;
		if (i == 70001)
			for (uint32_t v = 0; v < GPZ_MAX_ALPHABET; v++, i++)
				gpz_store_le32(buf + 4 * i, v);
	}
	gpz_params p = params(4, 12);
	p.huff_lanes = 1;
	test_roundtrip(buf, 4 * n, &p, "lanes: 2^20 alphabet, long codes", NULL);
	free(buf);
	p = params(1, 12);
	p.huff_lanes = 1;
	p.lz_level = 1;
	CHECK(gpz_compress_bound(10, &p) == 0, "lanes with LZ mode accepted");
	p.lz_level = 0;
	p.huff_lanes = 2;
	CHECK(gpz_compress_bound(10, &p) == 0, "huff_lanes 2 accepted");
}

static void test_multi_frame(void)
{
	size_t n = 1000003;
	uint8_t *buf = malloc(n);
	uint64_t st = 17;
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)("abcdefgh"[test_rand(&st) % 8] + (i / 65536) % 3);
	gpz_params p = params(1, 10);
	p.frame_bytes = 65536;
	uint8_t *c;
	size_t got = test_roundtrip(buf, n, &p, "many frames", &c);
	/* concatenated streams decode to the concatenation */
	uint8_t *two = malloc(2 * got), *back = malloc(2 * n);
	memcpy(two, c, got);
	memcpy(two + got, c, got);
	gpz_ctx *ctx;
	size_t nb = 0;
	gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2);
	gpz_result r = gpz_decompress(ctx, two, 2 * got, back, 2 * n, &nb);
	CHECK(r == GPZ_OK && nb == 2 * n && !memcmp(back, buf, n) && !memcmp(back + n, buf, n),
	      "concatenated streams: %s", gpz_result_string(r));
	r = gpz_decompress(ctx, c, got, back, n - 1, &nb);
	CHECK(r == GPZ_ERR_DST_TOO_SMALL, "small destination: %s", gpz_result_string(r));
	gpz_ctx_free(ctx);
	free(two);
	free(back);
	free(c);
	free(buf);
}

static void test_errors(void)
{
	gpz_ctx *ctx;
	uint8_t src[8] = { 1, 0, 2, 0, 3 }, dst[256];
	size_t got;
	gpz_params p = params(2, 12);

	gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 1);
	CHECK(gpz_compress(ctx, &p, src, 5, dst, sizeof(dst), &got) == GPZ_ERR_SIZE_ALIGN,
	      "odd byte count with 2-byte symbols");
	p = params(4, 12);
	CHECK(gpz_compress(ctx, &p, src, 6, dst, sizeof(dst), &got) == GPZ_ERR_SIZE_ALIGN,
	      "6 bytes with 4-byte symbols");
	gpz_store_le32(src, GPZ_MAX_ALPHABET);
	gpz_store_le32(src + 4, 1);
	CHECK(gpz_compress(ctx, &p, src, 8, dst, sizeof(dst), &got) == GPZ_ERR_ALPHABET,
	      "symbol 2^20 accepted");
	p = params(3, 12);
	CHECK(gpz_compress(ctx, &p, src, 6, dst, sizeof(dst), &got) == GPZ_ERR_PARAM, "width 3");
	p = params(1, 7);
	CHECK(gpz_compress_bound(10, &p) == 0, "chunk_log 7 accepted");
	p = params(1, 12);
	CHECK(gpz_compress(ctx, &p, src, 8, dst, 20, &got) == GPZ_ERR_DST_TOO_SMALL, "tiny dst");
	CHECK(gpz_ctx_create(&(gpz_ctx *){ NULL }, GPZ_BACKEND_GPU, 1) ==
	      (gpz_gpu_available() ? GPZ_OK : GPZ_ERR_NO_GPU), "explicit GPU without a GPU");
	CHECK(strcmp(gpz_result_string(GPZ_ERR_CHECKSUM), "success") != 0, "result strings");
	gpz_ctx_free(ctx);
}

static void test_largest_alphabet(void)
{
	size_t n = 3 * (size_t)GPZ_MAX_ALPHABET;
	uint8_t *buf = malloc(4 * n);
	uint64_t st = 23;
	for (size_t i = 0; i < n; i++) /* every value below 2^20 appears; skewed */
		gpz_store_le32(buf + 4 * i, i < GPZ_MAX_ALPHABET ? (uint32_t)i
		                            : test_rand_skewed(&st, 2000));
	gpz_params p = params(4, 16);
	uint8_t *c;
	size_t got = test_roundtrip(buf, 4 * n, &p, "2^20 alphabet", &c);
	CHECK(first_frame_type(c, got) == GPZ_FRAME_HUFFMAN, "2^20 alphabet: not Huffman");
	free(c);
	free(buf);
}

int main(void)
{
	test_empty_and_tiny();
	test_constant();
	test_uniform_u16();
	test_fibonacci_stream();
	test_chunk_edges();
	test_lanes_layout();
	test_multi_frame();
	test_errors();
	test_largest_alphabet();
	if (test_failures)
		fprintf(stderr, "%d failures\n", test_failures);
	else
		printf("edge: all checks passed\n");
	return test_failures != 0;
}
