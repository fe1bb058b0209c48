/* testutil.c - helpers shared by the C tests. */
#include "testutil.h"
#include "common/bits.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int test_failures;

void test_fail_msg(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "FAIL %s:%d: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t test_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

uint32_t test_rand_skewed(uint64_t *state, uint32_t range)
{
	uint64_t bound = 1 + test_rand(state) % range;
	return (uint32_t)(test_rand(state) % bound);
}

void test_skewed_symbols(uint8_t *buf, size_t n, int w, uint64_t *state)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v = test_rand_skewed(state, 300);
		if (w == 1)
			buf[i] = (uint8_t)v;
		else if (w == 2)
			gpz_store_le16(buf + 2 * i, (uint16_t)(v * 97));
		else
			gpz_store_le32(buf + 4 * i, v * 3001);
	}
}

uint8_t *test_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	*size = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			*size = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static const char *existing_dir(const char *env, const char *fallback)
{
	static char path[2][4096];
	const char *e = getenv(env);
	struct stat st;
	int slot = fallback[0] == '.' ? 0 : 1;

	if (e && *e)
		snprintf(path[slot], sizeof(path[slot]), "%s", e);
	else
		snprintf(path[slot], sizeof(path[slot]), "%s/%s", GPZ_SOURCE_DIR, fallback);
	return stat(path[slot], &st) == 0 && S_ISDIR(st.st_mode) ? path[slot] : NULL;
}

const char *test_corpora_dir(void)
{
	return existing_dir("GPZ_CORPORA", "../shared/corpora");
}

const char *test_data_dir(void)
{
	return existing_dir("GPZ_DATA", "corpora/data");
}

static size_t compress_with(int threads, const void *src, size_t size, const gpz_params *p,
                            uint8_t **out, const char *what)
{
	gpz_ctx *ctx;
	size_t cap = gpz_compress_bound(size, p), got = 0;
	gpz_result r = gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, threads);

	*out = malloc(cap ? cap : 1);
	CHECK(r == GPZ_OK && *out, "%s: context", what);
	if (r != GPZ_OK || !*out)
		return 0;
	r = gpz_compress(ctx, p, src, size, *out, cap, &got);
	CHECK(r == GPZ_OK, "%s: compress (%d threads): %s", what, threads, gpz_result_string(r));
	gpz_ctx_free(ctx);
	return r == GPZ_OK ? got : 0;
}

size_t test_roundtrip(const void *src, size_t size, const gpz_params *p, const char *what,
                      uint8_t **out)
{
	uint8_t *c1 = NULL, *c3 = NULL, *back = malloc(size ? size : 1);
	size_t n1 = compress_with(1, src, size, p, &c1, what);
	size_t n3 = compress_with(3, src, size, p, &c3, what);
	size_t nback = 0;
	gpz_ctx *ctx = NULL;
	gpz_result r;
	uint64_t declared = 0;

	CHECK(n1 && n1 == n3 && memcmp(c1, c3, n1) == 0, "%s: output depends on thread count", what);
	gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2);
	r = n1 ? gpz_decompress(ctx, c1, n1, back, size, &nback) : GPZ_ERR_PARAM;
	CHECK(r == GPZ_OK, "%s: decompress: %s", what, gpz_result_string(r));
	CHECK(r != GPZ_OK || (nback == size && memcmp(back, src, size) == 0),
	      "%s: round trip differs", what);
	CHECK(n1 && gpz_decompressed_size(c1, n1, &declared) == GPZ_OK && declared == size,
	      "%s: declared size", what);
	gpz_ctx_free(ctx);
	free(back);
	free(c3);
	if (out)
		*out = c1;
	else
		free(c1);
	return r == GPZ_OK ? n1 : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int test_for_each_file(const char *dir, void (*fn)(const char *path, void *ctx), void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int count = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISDIR(st.st_mode))
			count += test_for_each_file(names[i], fn, ctx);
		else if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			fn(names[i], ctx);
			count++;
		}
		free(names[i]);
	}
	free(names);
	return count;
}

gpz_result test_mem_read(void *user, void *buf, size_t cap, size_t *got)
{
	struct test_mem *m = user;
	size_t n = m->size - m->pos < cap ? m->size - m->pos : cap;
	if (m->step) {
		size_t k = (size_t)(test_rand(&m->rng) % m->step) + 1;
		n = k < n ? k : n;
	}
	memcpy(buf, m->src + m->pos, n);
	m->pos += n;
	*got = n;
	return GPZ_OK;
}

gpz_result test_mem_read_at(void *user, void *buf, size_t n, uint64_t off)
{
	const struct test_mem *m = user;
	if (off > m->size || n > m->size - off)
		return GPZ_ERR_TRUNCATED;
	memcpy(buf, m->src + off, n);
	return GPZ_OK;
}

gpz_result test_mem_write(void *user, const void *buf, size_t n)
{
	struct test_mem *m = user;
	if (++m->writes == m->fail_write_at)
		return GPZ_ERR_TRUNCATED;
	if (n > m->cap - m->len)
		return GPZ_ERR_DST_TOO_SMALL;
	memcpy(m->dst + m->len, buf, n);
	m->len += n;
	return GPZ_OK;
}

gpz_result test_mem_write_at(void *user, const void *buf, size_t n, uint64_t off)
{
	struct test_mem *m = user;
	size_t end = (size_t)off + n, seen = __atomic_load_n(&m->len, __ATOMIC_RELAXED);

	if (__atomic_add_fetch(&m->writes, 1, __ATOMIC_RELAXED) == m->fail_write_at)
		return GPZ_ERR_TRUNCATED;
	if (off > m->cap || n > m->cap - off)
		return GPZ_ERR_DST_TOO_SMALL;
	memcpy(m->dst + off, buf, n);
	__atomic_add_fetch(&m->at_bytes, n, __ATOMIC_RELAXED);
	while (seen < end && !__atomic_compare_exchange_n(&m->len, &seen, end, 1, __ATOMIC_RELAXED,
	                                                  __ATOMIC_RELAXED))
		;
	return GPZ_OK;
}
