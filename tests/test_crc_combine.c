/* test_crc_combine.c - gpz_crc32_combine / gpz_adler32_combine (src/common/crc_combine.c) against
 * zlib: random data split at many points (sizes 0 .. a few MiB), pieces of zeros of huge lengths
 * (against zlib's own combine), and the GF(2) helpers against byte-at-a-time CRC updates. And
 * gpz_crc32 (src/common/crc32.c) against zlib's crc32 at every length to 700 from every
 * alignment, and on the whole buffer. */
#include "testutil.h"
#include "common/crc32.h"
#include "common/crc_combine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* raw CRC (zero init, no inversion) of n zero bytes after crc, one bit at a time */
static uint32_t slow_shift(uint32_t crc, size_t n)
{
	for (size_t i = 0; i < 8 * n; i++)
		crc = (crc >> 1) ^ (crc & 1 ? GPZ_CRC32_POLY : 0);
	return crc;
}

int main(void)
{
	uint64_t st = 12345;
	size_t n = 3 * 1048576 + 7;
	uint8_t *buf = malloc(n);
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(test_rand(&st) >> 24);

	/* the helpers: x^(8n) and shift against the bit-serial definition */
	for (size_t k = 0; k < 300; k++) {
		uint32_t c = (uint32_t)test_rand(&st);
		CHECK(gpz_crc32_shift(c, k) == slow_shift(c, k), "shift by %zu", k);
		CHECK(gpz_crc32_xpow8(k) == slow_shift(GPZ_CRC32_ONE, k), "x^(8*%zu)", k);
	}
	CHECK(gpz_crc32_gf_mul(GPZ_CRC32_ONE, 0x12345678u) == 0x12345678u, "1 * a");
	CHECK(gpz_crc32_gf_mul(0x12345678u, GPZ_CRC32_ONE) == 0x12345678u, "a * 1");
	CHECK(gpz_crc32_gf_mul(0, 0x12345678u) == 0, "0 * a");

	/* the folded CRC: every tail length and alignment around its 64- and 16-byte steps */
	for (size_t off = 0; off < 16; off++)
		for (size_t len = 0; len < 700; len++) {
			uint32_t c0 = (uint32_t)test_rand(&st);
			CHECK(gpz_crc32(c0, buf + off, len) == (uint32_t)crc32(c0, buf + off, (uInt)len),
			      "gpz_crc32 offset %zu length %zu", off, len);
		}
	CHECK(gpz_crc32(0, buf, n) == (uint32_t)crc32(0L, buf, (uInt)n), "gpz_crc32 of %zu", n);

	/* splits of random data */
	const size_t sizes[] = { 0, 1, 2, 3, 15, 16, 17, 4095, 4096, 4097, 65536, 1048576 + 3, n };
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t len = sizes[si];
		uint32_t whole_c = (uint32_t)crc32(0L, buf, (uInt)len);
		uint32_t whole_a = (uint32_t)adler32(1L, buf, (uInt)len);
		for (int t = 0; t < 12; t++) {
			size_t cut = t == 0 ? 0 : t == 1 ? len : (size_t)(test_rand(&st) % (len + 1));
			uint32_t ca = (uint32_t)crc32(0L, buf, (uInt)cut);
			uint32_t cb = (uint32_t)crc32(0L, buf + cut, (uInt)(len - cut));
			uint32_t aa = (uint32_t)adler32(1L, buf, (uInt)cut);
			uint32_t ab = (uint32_t)adler32(1L, buf + cut, (uInt)(len - cut));
			CHECK(gpz_crc32_combine(ca, cb, len - cut) == whole_c, "crc size %zu cut %zu", len,
			      cut);
			CHECK(gpz_adler32_combine(aa, ab, len - cut) == whole_a, "adler size %zu cut %zu",
			      len, cut);
		}
	}

	/* many pieces joined left to right */
	{
		uint32_t c = (uint32_t)crc32(0L, Z_NULL, 0), a = (uint32_t)adler32(0L, Z_NULL, 0);
		size_t pos = 0;
		while (pos < n) {
			size_t len = (size_t)(test_rand(&st) % 70000);
			if (len > n - pos)
				len = n - pos;
			c = gpz_crc32_combine(c, (uint32_t)crc32(0L, buf + pos, (uInt)len), len);
			a = gpz_adler32_combine(a, (uint32_t)adler32(1L, buf + pos, (uInt)len), len);
			pos += len;
		}
		CHECK(c == (uint32_t)crc32(0L, buf, (uInt)n), "crc of %zu joined pieces", n);
		CHECK(a == (uint32_t)adler32(1L, buf, (uInt)n), "adler of %zu joined pieces", n);
	}

	/* long second pieces: zlib's combine (z_off_t is 64-bit here) as the reference */
	if (sizeof(z_off_t) >= 8) {
		const uint64_t lens[] = { 65520, 65521, 65522, (uint64_t)1 << 32, ((uint64_t)1 << 40) + 9,
		                          ((uint64_t)1 << 60) + 12345 };
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			uint32_t a = (uint32_t)test_rand(&st), b = (uint32_t)test_rand(&st);
			uint32_t aa = (uint32_t)(test_rand(&st) % 65521) << 16 | (uint32_t)(test_rand(&st) % 65521);
			uint32_t ab = (uint32_t)(test_rand(&st) % 65521) << 16 | (uint32_t)(test_rand(&st) % 65521);
			CHECK(gpz_crc32_combine(a, b, lens[i]) ==
			          (uint32_t)crc32_combine(a, b, (z_off_t)lens[i]),
			      "crc combine, len_b %llu", (unsigned long long)lens[i]);
			CHECK(gpz_adler32_combine(aa, ab, lens[i]) ==
			          (uint32_t)adler32_combine(aa, ab, (z_off_t)lens[i]),
			      "adler combine, len_b %llu", (unsigned long long)lens[i]);
		}
	}
	free(buf);
	if (test_failures)
		printf("%d failures\n", test_failures);
	else
		printf("crc_combine: all passed\n");
	return test_failures != 0;
}
