/* probe_gzip.h - the inflate probes' input: a file (tiled to the MiB that the environment
 * variable `var` names, as gpz-bench tiles it) written as gpz's gzip at a level on the CPU
 * backend (the GPU's bytes are the same), and its member's header with the piece index. */
#ifndef GPZ_PROBE_GZIP_H
#define GPZ_PROBE_GZIP_H

#include "gpz.h"
#include "deflate/deflate.h"
#include "probe_file.h"

/* The gzip (its length in *clen, the member in *m); NULL, with a message, when the file cannot
 * be read or compressed, or the member has no piece index. */
static uint8_t *probe_gzip(const char *who, const char *path, int level, const char *var,
                           struct gpz_gzip_member *m, size_t *clen)
{
	size_t n = 0;
	uint8_t *src = probe_tile(probe_read(path, &n), &n, var), *c = NULL;
	gpz_ctx *ctx = NULL;
	if (src)
		c = malloc(gpz_deflate_bound(n));
	if (!c || gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2) != GPZ_OK ||
	    gpz_deflate_compress(ctx, level, GPZ_FORMAT_GZIP, NULL, src, n, c, gpz_deflate_bound(n),
	                         clen) != GPZ_OK ||
	    gpz_gzip_header(c, *clen, m) != GPZ_OK || !m->np) {
		fprintf(stderr, "%s: %s: cannot read, compress or index\n", who, path);
		free(c);
		c = NULL;
	}
	if (ctx)
		gpz_ctx_free(ctx);
	free(src);
	return c;
}

#endif
