/* crc_combine.h - GF(2) arithmetic of gzip's CRC-32 (reflected polynomial 0xEDB88320) and the
 * Adler-32 combine of zlib, without zlib: join the checks of two adjacent pieces of data.
 * Used by the GPU checksums (crc_gpu.cu) to build their tables, and usable on the CPU. */
#ifndef GPZ_CRC_COMBINE_H
#define GPZ_CRC_COMBINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPZ_CRC32_POLY 0xEDB88320u /* reflected: bit 31 is x^0, bit 0 is x^31 */
#define GPZ_CRC32_ONE 0x80000000u  /* the polynomial 1 in that representation */
#define GPZ_ADLER_MOD 65521u

/* a * b mod P, both reflected polynomials. */
uint32_t gpz_crc32_gf_mul(uint32_t a, uint32_t b);
/* x^(8 n) mod P: what appending n zero bytes multiplies a raw (zero-init) CRC by. */
uint32_t gpz_crc32_xpow8(uint64_t n);
/* A raw CRC (no pre/post inversion) advanced over n zero bytes. */
uint32_t gpz_crc32_shift(uint32_t crc, uint64_t n);
/* crc32(A || B) from crc32(A), crc32(B) and |B| (zlib's crc32 values, crc32(0, ...)). */
uint32_t gpz_crc32_combine(uint32_t a, uint32_t b, uint64_t len_b);
/* adler32(A || B) from adler32(A), adler32(B) and |B| (zlib's adler32 values, adler32(1, ...)). */
uint32_t gpz_adler32_combine(uint32_t a, uint32_t b, uint64_t len_b);

#ifdef __cplusplus
}
#endif
#endif
