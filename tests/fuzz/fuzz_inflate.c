/* fuzz_inflate.c - libFuzzer target: gzip (with and without gpz's piece index, several
 * members), zlib and raw DEFLATE through gpz_inflate. The first byte picks the format; the
 * output buffer is bounded, so a stream that inflates past it must end in an error. */
#include <stdint.h>
#include <stdlib.h>

#include "gpz.h"

#define OUT_CAP ((size_t)8 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer's entry */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gpz_ctx *ctx;
	static uint8_t *out;
	static const gpz_format formats[4] = { GPZ_FORMAT_GZIP, GPZ_FORMAT_GZIP, GPZ_FORMAT_ZLIB,
	                                       GPZ_FORMAT_DEFLATE };
	size_t got = 0;
	gpz_result r;

	if (!ctx && gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 2) != GPZ_OK)
		abort();
	if (!out && !(out = malloc(OUT_CAP)))
		abort();
	if (size < 1)
		return 0;
	r = gpz_inflate(ctx, formats[data[0] & 3], data + 1, size - 1, out, OUT_CAP, &got);
	if (r == GPZ_OK && got > OUT_CAP)
		abort();
	return 0;
}
