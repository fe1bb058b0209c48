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

#endif
