/* testutil.h - helpers shared by the C tests: data generators, file reading, round trips. */
#ifndef GPZ_TESTUTIL_H
#define GPZ_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

/* Exit status that ctest reports as "skipped" (SKIP_RETURN_CODE). */
#define TEST_SKIP 77

extern int test_failures;

#define CHECK(cond, ...)                                                                 \
	do {                                                                                 \
		if (!(cond)) {                                                                   \
			test_failures++;                                                             \
			test_fail_msg(__FILE__, __LINE__, #cond, __VA_ARGS__);                       \
		}                                                                                \
	} while (0)

void test_fail_msg(const char *file, int line, const char *cond, const char *fmt, ...);

/* Deterministic pseudo-random numbers (xorshift64*). */
uint64_t test_rand(uint64_t *state);
/* A skewed draw: below a bound itself drawn below `range` (small values likelier); the bound is
 * drawn first, so that every build draws the same numbers (two test_rand calls in one
 * expression would leave their order to the compiler). */
uint32_t test_rand_skewed(uint64_t *state, uint32_t range);

/* n symbols of width w into buf: values below a random bound below 300 (skewed towards small
 * ones), spread by 97 (2-byte) or 3001 (4-byte) so that wide alphabets occur. */
void test_skewed_symbols(uint8_t *buf, size_t n, int w, uint64_t *state);

/* Whole file into memory; NULL (and *size 0) when it cannot be read. */
uint8_t *test_read_file(const char *path, size_t *size);

/* The shared corpora directory ($GPZ_CORPORA or <source>/../shared/corpora), NULL if absent. */
const char *test_corpora_dir(void);
/* The prepared data directory ($GPZ_DATA or <source>/corpora/data), NULL if absent. */
const char *test_data_dir(void);

/*
 * Compress src with the CPU backend at 1 and 3 threads (outputs must be identical), decompress
 * with 2 threads, compare. Returns the compressed size, or 0 after recording a failure.
 * If out is not NULL it receives the compressed stream (caller frees).
 */
size_t test_roundtrip(const void *src, size_t size, const gpz_params *p, const char *what,
                      uint8_t **out);

/* Memory behind the streaming calls' callbacks: test_mem_read gives up to what is asked (random
 * sizes of 1 .. step bytes when step is set), test_mem_read_at any range (several lanes call it
 * at once), test_mem_write appends to dst (cap bytes; the fail_write_at-th write fails when it
 * is set), test_mem_write_at copies to dst + offset (several lanes at once, in any order; len
 * becomes the furthest end written, at_bytes counts the bytes, fail_write_at as above). */
struct test_mem {
	const uint8_t *src;
	size_t size, pos;
	uint8_t *dst;
	size_t cap, len;
	size_t step;
	uint64_t rng;
	int fail_write_at, writes;
	uint64_t at_bytes;
};
gpz_result test_mem_read(void *user, void *buf, size_t cap, size_t *got);
gpz_result test_mem_read_at(void *user, void *buf, size_t n, uint64_t off);
gpz_result test_mem_write(void *user, const void *buf, size_t n);
gpz_result test_mem_write_at(void *user, const void *buf, size_t n, uint64_t off);

/* Call fn(path, ctx) for every regular file under dir (recursively, sorted); returns the count. */
int test_for_each_file(const char *dir, void (*fn)(const char *path, void *ctx), void *ctx);

#endif
