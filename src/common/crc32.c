/* crc32.c - gzip's CRC-32, 64 bytes a step by carry-less multiplication where the processor can
 * (the folding of Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ", for the
 * reflected polynomial 0xEDB88320; constants as in Linux's crc32-pclmul). zlib 1.2's crc32 runs
 * at ~4 GB/s here, a twentieth of a one-thread level-1 compression's time. */
#include "common/crc32.h"

#include <zlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define CLMUL __attribute__((target("pclmul,sse4.1")))

/* x's two halves multiplied by k's (x^(512+32) and x^(512-32) mod P, or the same at 128 bits:
 * moves x that many bits on) and added. */
CLMUL static inline __m128i fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The raw CRC (no inversions) of n >= 64 bytes, n a multiple of 16, after crc. */
CLMUL static uint32_t crc_fold(uint32_t crc, const uint8_t *p, size_t n)
{
	const __m128i k512 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
	const __m128i k128 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
	const __m128i k64 = _mm_set_epi64x(0, 0x163cd6124);
	const __m128i poly = _mm_set_epi64x(0x1f7011641, 0x1db710641); /* mu, P */
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i x0 = _mm_loadu_si128((const __m128i *)p), x1, x2, x3, t;

	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)crc));
	x1 = _mm_loadu_si128((const __m128i *)(p + 16));
	x2 = _mm_loadu_si128((const __m128i *)(p + 32));
	x3 = _mm_loadu_si128((const __m128i *)(p + 48));
	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		x0 = _mm_xor_si128(fold(x0, k512), _mm_loadu_si128((const __m128i *)p));
		x1 = _mm_xor_si128(fold(x1, k512), _mm_loadu_si128((const __m128i *)(p + 16)));
		x2 = _mm_xor_si128(fold(x2, k512), _mm_loadu_si128((const __m128i *)(p + 32)));
		x3 = _mm_xor_si128(fold(x3, k512), _mm_loadu_si128((const __m128i *)(p + 48)));
	}
	x0 = _mm_xor_si128(fold(x0, k128), x1);
	x0 = _mm_xor_si128(fold(x0, k128), x2);
	x0 = _mm_xor_si128(fold(x0, k128), x3);
	for (; n >= 16; p += 16, n -= 16)
		x0 = _mm_xor_si128(fold(x0, k128), _mm_loadu_si128((const __m128i *)p));
	/* 128 bits to 64 (32 zero bits appended), to 32, then Barrett's reduction mod P */
	x0 = _mm_xor_si128(_mm_srli_si128(x0, 8), _mm_clmulepi64_si128(x0, k128, 0x10));
	x0 = _mm_xor_si128(_mm_srli_si128(x0, 4),
	                   _mm_clmulepi64_si128(_mm_and_si128(x0, low32), k64, 0x00));
	t = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), poly, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), poly, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x0, t), 1);
}

uint32_t gpz_crc32(uint32_t crc, const void *p, size_t n)
{
	size_t m = n & ~(size_t)15;

	if (m < 64 || !__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("sse4.1"))
		return (uint32_t)crc32_z(crc, p, n);
	crc = ~crc_fold(~crc, p, m);
	return (uint32_t)crc32_z(crc, (const uint8_t *)p + m, n - m);
}
#else
uint32_t gpz_crc32(uint32_t crc, const void *p, size_t n)
{
	return (uint32_t)crc32_z(crc, p, n);
}
#endif
