/* probe_file.h - the bench probes' input: a whole file in memory, with 8 zero bytes after it
 * (the matchers' word loads may read past the end). */
#ifndef GPZ_PROBE_FILE_H
#define GPZ_PROBE_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file at path, its length in *n; NULL when it cannot be read. */
static uint8_t *probe_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *s = NULL;
	long len;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		s = malloc((size_t)len + 8);
		if (s && fread(s, 1, (size_t)len, f) != (size_t)len) {
			free(s);
			s = NULL;
		}
	}
	fclose(f);
	if (s) {
		memset(s + len, 0, 8);
		*n = (size_t)len;
	}
	return s;
}

/* src (n bytes, from probe_read) tiled to the MiB that the environment variable `var` names, as
 * gpz-bench tiles its inputs; src itself when it is unset. NULL when memory runs out. */
static uint8_t *probe_tile(uint8_t *src, size_t *n, const char *var)
{
	const char *v = getenv(var);
	if (!src || !v)
		return src;
	size_t t = (size_t)strtoull(v, NULL, 10) << 20;
	uint8_t *r = malloc(t + 8);
	for (size_t i = 0; r && *n && i < t; i += *n)
		memcpy(r + i, src, t - i < *n ? t - i : *n);
	if (r)
		memset(r + t, 0, 8);
	free(src);
	*n = r ? t : 0;
	return r;
}

#endif
