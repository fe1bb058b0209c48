/* test_checksum.c - the library's own XXH64 against reference values of xxHash64 (produced with
 * libxxhash 0.8.1) and, when libxxhash is installed, against the library on random inputs; and
 * the frame content checksum's block rule. */
#include "testutil.h"
#include "common/checksum.h"
#include "common/xxh64.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef GPZ_HAVE_LIBXXHASH
#include <xxhash.h>
#endif

static const struct { size_t len; uint64_t seed, hash; } vectors[] = {
	{ 0, 0u, 0xef46db3751d8e999ull },
	{ 0, 4354685564936845354u, 0x90772f46c14bc03eull },
	{ 1, 0u, 0xa96c7f0ce858bbb7ull },
	{ 1, 4354685564936845354u, 0xc51bae49d164aae5ull },
	{ 3, 0u, 0xbed43740ee6332bbull },
	{ 3, 4354685564936845354u, 0xc2a70cb1e0d7268aull },
	{ 4, 0u, 0xfa212ae44b3bb23dull },
	{ 4, 4354685564936845354u, 0xa86b1c4059ffe2d5ull },
	{ 7, 0u, 0x2744460dd675d2c0ull },
	{ 7, 4354685564936845354u, 0xc79a8160f941fdc3ull },
	{ 8, 0u, 0x994b676b71ce94ddull },
	{ 8, 4354685564936845354u, 0xfa753b68d4eb5438ull },
	{ 15, 0u, 0x09e6451ed2ff8b1dull },
	{ 15, 4354685564936845354u, 0xb44ebb63b1f89f37ull },
	{ 16, 0u, 0x94ad0095e72b24d5ull },
	{ 16, 4354685564936845354u, 0x0c4c75fd47bf5a63ull },
	{ 31, 0u, 0x6711d55e306b5d8full },
	{ 31, 4354685564936845354u, 0x0e899a6c5dc32dcbull },
	{ 32, 0u, 0x07f7b8e3bc5d6e25ull },
	{ 32, 4354685564936845354u, 0x604a22e3e292dad2ull },
	{ 33, 0u, 0x09f85eeb4e1cbe9full },
	{ 33, 4354685564936845354u, 0x322ea2e4cfc1859aull },
	{ 63, 0u, 0xb7c9968c066cb6a5ull },
	{ 63, 4354685564936845354u, 0xed6ab0f647f8ceccull },
	{ 64, 0u, 0x50d4159a0411632eull },
	{ 64, 4354685564936845354u, 0xbe9ff7eb0a9580feull },
	{ 100, 0u, 0x9ddada11d3dc2d8full },
	{ 100, 4354685564936845354u, 0x197a62e91272c1b6ull },
	{ 299, 0u, 0xc15be6b669e4f9f1ull },
	{ 299, 4354685564936845354u, 0xf3e853a1732915bbull },
};

static void test_vectors(void)
{
	uint8_t b[300];
	for (int i = 0; i < 300; i++)
		b[i] = (uint8_t)(i * 131 + 7);
	for (size_t k = 0; k < sizeof(vectors) / sizeof(vectors[0]); k++)
		CHECK(gpz_xxh64(b, vectors[k].len, vectors[k].seed) == vectors[k].hash,
		      "XXH64 of %zu bytes, seed %llu", vectors[k].len,
		      (unsigned long long)vectors[k].seed);
}

static void test_against_libxxhash(void)
{
#ifdef GPZ_HAVE_LIBXXHASH
	uint64_t st = 42;
	uint8_t *buf = malloc(5000);
	for (int iter = 0; iter < 2000; iter++) {
		size_t n = test_rand(&st) % 4992, off = test_rand(&st) % 8;
		uint64_t seed = test_rand(&st);
		for (size_t i = 0; i < n; i++)
			buf[off + i] = (uint8_t)test_rand(&st);
		CHECK(gpz_xxh64(buf + off, n, seed) == XXH64(buf + off, n, seed), "iter %d differs",
		      iter);
	}
	free(buf);
	printf("checksum: compared with libxxhash\n");
#else
	printf("checksum: libxxhash not installed, reference vectors only\n");
#endif
}

static void test_content_checksum(void)
{
	size_t n = 3 * GPZ_CHECKSUM_BLOCK + 123;
	uint8_t *buf = malloc(n);
	uint64_t st = 9, sum = 0;
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)test_rand(&st);
	for (size_t b = 0; b * GPZ_CHECKSUM_BLOCK < n; b++) {
		size_t len = n - b * GPZ_CHECKSUM_BLOCK;
		sum += gpz_xxh64(buf + b * GPZ_CHECKSUM_BLOCK,
		                 len < GPZ_CHECKSUM_BLOCK ? len : GPZ_CHECKSUM_BLOCK, b);
	}
	CHECK(gpz_content_checksum(buf, n) == sum, "content checksum is not the block sum");
	CHECK(gpz_checksum_threads(buf, n, 3) == sum, "threaded content checksum differs");
	CHECK(gpz_content_checksum(buf, 1000) == gpz_xxh64(buf, 1000, 0), "one block is plain XXH64");
	CHECK(gpz_content_checksum("", 0) == 0xef46db3751d8e999ull, "empty content");
	free(buf);
}

int main(void)
{
	test_vectors();
	test_against_libxxhash();
	test_content_checksum();
	if (test_failures)
		fprintf(stderr, "%d failures\n", test_failures);
	else
		printf("checksum: all checks passed\n");
	return test_failures != 0;
}
