/* bits.h - byte-order helpers shared by every stage. The formats are little-endian except the
 * Huffman bitstream, which is MSB-first so that canonical codes compare as integers. */
#ifndef GPZ_BITS_H
#define GPZ_BITS_H

#include <stdint.h>
#include <string.h>

#include "common/hd.h"

GPZ_HD_INLINE uint16_t gpz_load_le16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return (uint16_t)(b[0] | (b[1] << 8));
}

GPZ_HD_INLINE uint32_t gpz_load_le32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
	       ((uint32_t)b[3] << 24);
}

GPZ_HD_INLINE uint64_t gpz_load_le64(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return (uint64_t)gpz_load_le32(b) | ((uint64_t)gpz_load_le32(b + 4) << 32);
}

GPZ_HD_INLINE void gpz_store_le16(void *p, uint16_t v)
{
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

GPZ_HD_INLINE void gpz_store_le32(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

GPZ_HD_INLINE void gpz_store_le64(void *p, uint64_t v)
{
	gpz_store_le32(p, (uint32_t)v);
	gpz_store_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

/* Big-endian 64-bit load (the compiler turns this into one load and a bswap). */
static inline uint64_t gpz_load_be64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void gpz_store_be64(void *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

/* Write symbol i of a little-endian array of width w (1, 2 or 4 bytes). */
static inline void gpz_store_symbol(uint8_t *dst, size_t i, int w, uint32_t v)
{
	if (w == 1)
		dst[i] = (uint8_t)v;
	else if (w == 2)
		gpz_store_le16(dst + 2 * i, (uint16_t)v);
	else
		gpz_store_le32(dst + 4 * i, v);
}

/* Read symbol i of a little-endian array of width w (1, 2 or 4 bytes). */
static inline uint32_t gpz_load_symbol(const uint8_t *src, size_t i, int w)
{
	if (w == 1)
		return src[i];
	if (w == 2)
		return gpz_load_le16(src + 2 * i);
	return gpz_load_le32(src + 4 * i);
}

/* Symbol v repeated in every w-byte lane (w = 1, 2 or 4) of a little-endian 64-bit word. */
static inline uint64_t gpz_splat(uint32_t v, int w)
{
	return (uint64_t)v * (w == 1 ? 0x0101010101010101ull
	                      : w == 2 ? 0x0001000100010001ull : 0x0000000100000001ull);
}

/* Are the 32 bytes at s all the word pat (a run of one symbol: gpz_splat)? The first word
 * decides alone on data without runs, so callers pay one compare there. */
static inline int gpz_run32(const uint8_t *s, uint64_t pat)
{
	return gpz_load_le64(s) == pat && gpz_load_le64(s + 8) == pat &&
	       gpz_load_le64(s + 16) == pat && gpz_load_le64(s + 24) == pat;
}

#endif
