/* fuzz_stream.c - libFuzzer target: the streaming readers, which take untrusted sizes from
 * headers as they read: gpz_decompress_stream (.gpz, through the frame engine) and
 * gpz_inflate_stream (gzip as from a pipe; inputs of even size through gpz_inflate_stream_ahead
 * with the whole input allowed ahead, so that a trailing index is looked for and used), each fed
 * in small random steps. */
#define GPZ_ADVANCED
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpz.h"

struct feed {
	const uint8_t *src;
	size_t size, pos;
	uint32_t rng;
	uint64_t out;
};

static gpz_result feed_read(void *user, void *buf, size_t cap, size_t *got)
{
	struct feed *f = user;
	size_t n = f->size - f->pos;

	f->rng = f->rng * 1103515245u + 12345u;
	if (n > cap)
		n = cap;
	if (n > 1 + (f->rng >> 16) % 4096) /* short reads, as from a pipe */
		n = 1 + (f->rng >> 16) % 4096;
	memcpy(buf, f->src + f->pos, n);
	f->pos += n;
	*got = n;
	return GPZ_OK;
}

static gpz_result feed_write(void *user, const void *buf, size_t n)
{
	struct feed *f = user;
	(void)buf;
	f->out += n;
	return f->out > ((uint64_t)256 << 20) ? GPZ_ERR_DST_TOO_SMALL : GPZ_OK; /* bounded work */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer's entry */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gpz_ctx *ctx;
	struct feed f = { data, size, 0, (uint32_t)size, 0 };

	if (!ctx && (gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2) != GPZ_OK ||
	             gpz_ctx_set_depth(ctx, 2) != GPZ_OK))
		abort();
	if (size >= 4 && memcmp(data, "\x89GPZ", 4) == 0)
		gpz_decompress_stream(ctx, feed_read, feed_write, &f, NULL, NULL);
	else if (size % 2)
		gpz_inflate_stream(ctx, GPZ_FORMAT_GZIP, feed_read, feed_write, &f, NULL, NULL);
	else
		gpz_inflate_stream_ahead(ctx, GPZ_FORMAT_GZIP, feed_read, feed_write, &f, size, NULL,
		                         NULL);
	return 0;
}
