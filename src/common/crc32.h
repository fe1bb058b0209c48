/* crc32.h - gzip's CRC-32 on the CPU: zlib's values, folded with carry-less multiplies where the
 * processor has them (x86-64 PCLMULQDQ), zlib's own code elsewhere. */
#ifndef GPZ_CRC32_H
#define GPZ_CRC32_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* zlib's crc32(crc, p, n). */
uint32_t gpz_crc32(uint32_t crc, const void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
