/* fuzz_decompress.c - libFuzzer target: the .gpz one-shot decoder (every frame type) and its
 * size query on untrusted bytes. The decoder must return an error or the exact output, never
 * read or write out of bounds, and agree with the size the stream states. */
#include <stdint.h>
#include <stdlib.h>

#include "gpz.h"

#define OUT_CAP ((size_t)64 << 20) /* larger claimed outputs are only sized, not decoded */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer's entry */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gpz_ctx *ctx;
	uint64_t want = 0;
	size_t got = 0;
	uint8_t *out;
	gpz_result r;

	if (!ctx && gpz_ctx_create(&ctx, GPZ_BACKEND_CPU, 1) != GPZ_OK)
		abort();
	r = gpz_decompressed_size(data, size, &want);
	if (r != GPZ_OK || want > OUT_CAP)
		want = OUT_CAP / 64; /* decode anyway, into a buffer that may be too small */
	out = malloc(want ? (size_t)want : 1);
	if (!out)
		return 0;
	r = gpz_decompress(ctx, data, size, out, (size_t)want, &got);
	if (r == GPZ_OK && got > want)
		abort(); /* wrote past what it was given */
	free(out);
	return 0;
}
