/* crc_combine.c - see crc_combine.h.
 *
 * A raw CRC (initial value 0, no final inversion) of a message M is M(x) * x^32 mod P. Hence
 * raw(A || B) = raw(A) * x^(8|B|) + raw(B), and zlib's CRC (initial and final inversion) obeys
 * the same rule: the inversions' terms cancel. x^(8n) is built from x^(8 * 2^k) by squaring. */
#include "common/crc_combine.h"

#include <pthread.h>

uint32_t gpz_crc32_gf_mul(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
	/* walk a from x^0 (bit 31) upwards while b runs through b * x^i mod P */
	for (int i = 31; i >= 0 && a; i--) {
		if (a & (1u << i)) {
			p ^= b;
			a &= ~(1u << i);
		}
		b = (b >> 1) ^ (b & 1 ? GPZ_CRC32_POLY : 0);
	}
	return p;
}

/* x2n[k] = x^(8 * 2^k) mod P, made once: a combine then costs a multiply per set bit of the
 * length (one for a whole piece) instead of squaring up to it (~1.5 us a 256 KiB piece; an
 * inflating batch combines each piece's CRC-32 in order, while its threads wait). */
static uint32_t x2n[64];
static pthread_once_t x2n_once = PTHREAD_ONCE_INIT;

static void fill_x2n(void)
{
	uint32_t sq = GPZ_CRC32_ONE >> 8; /* x^8 */
	for (int k = 0; k < 64; k++) {
		x2n[k] = sq;
		sq = gpz_crc32_gf_mul(sq, sq);
	}
}

uint32_t gpz_crc32_xpow8(uint64_t n)
{
	uint32_t r = GPZ_CRC32_ONE;
	pthread_once(&x2n_once, fill_x2n);
	for (int k = 0; n; k++, n >>= 1)
		if (n & 1)
			r = gpz_crc32_gf_mul(r, x2n[k]);
	return r;
}

uint32_t gpz_crc32_shift(uint32_t crc, uint64_t n)
{
	return gpz_crc32_gf_mul(crc, gpz_crc32_xpow8(n));
}

uint32_t gpz_crc32_combine(uint32_t a, uint32_t b, uint64_t len_b)
{
	return gpz_crc32_shift(a, len_b) ^ b;
}

uint32_t gpz_adler32_combine(uint32_t a, uint32_t b, uint64_t len_b)
{
	/* s1 = a1 + b1 - 1, s2 = a2 + b2 + |B| * a1 - |B| (mod 65521) */
	const uint64_t m = GPZ_ADLER_MOD;
	uint64_t rem = len_b % m;
	uint64_t a1 = a & 0xffff, a2 = a >> 16, b1 = b & 0xffff, b2 = b >> 16;
	uint64_t s1 = (a1 + b1 + m - 1) % m;
	uint64_t s2 = (a2 + b2 + rem * a1 + m - rem) % m;
	return (uint32_t)(s2 << 16 | s1);
}
