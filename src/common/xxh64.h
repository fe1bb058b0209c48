/* xxh64.h - xxHash64, written from its specification (github.com/Cyan4973/xxHash, doc/
 * xxhash_spec.md) so that the CPU and the GPU compute it with the same code and the library
 * needs no xxHash package. Little-endian loads are explicit, so the result is the same on any
 * host. Checked against libxxhash in tests/test_checksum.c. */
#ifndef GPZ_XXH64_H
#define GPZ_XXH64_H

#include <stddef.h>
#include <stdint.h>

#include "common/hd.h"

#define GPZ_P64_1 0x9E3779B185EBCA87ULL
#define GPZ_P64_2 0xC2B2AE3D27D4EB4FULL
#define GPZ_P64_3 0x165667B19E3779F9ULL
#define GPZ_P64_4 0x85EBCA77C2B2AE63ULL
#define GPZ_P64_5 0x27D4EB2F165667C5ULL

GPZ_HD_INLINE uint64_t gpz_xxh_rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

GPZ_HD_INLINE uint64_t gpz_xxh_read64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

GPZ_HD_INLINE uint32_t gpz_xxh_read32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

GPZ_HD_INLINE uint64_t gpz_xxh_round(uint64_t acc, uint64_t input)
{
	acc += input * GPZ_P64_2;
	acc = gpz_xxh_rotl(acc, 31);
	return acc * GPZ_P64_1;
}

GPZ_HD_INLINE uint64_t gpz_xxh_merge(uint64_t acc, uint64_t val)
{
	acc ^= gpz_xxh_round(0, val);
	return acc * GPZ_P64_1 + GPZ_P64_4;
}

/* The four lanes that consume 32-byte stripes, and how they fold into one value. The GPU
 * checksum kernel feeds stripes from vector loads and shares the rest of the algorithm here. */
struct gpz_xxh_lanes {
	uint64_t v1, v2, v3, v4;
};

GPZ_HD_INLINE void gpz_xxh_lanes_init(struct gpz_xxh_lanes *l, uint64_t seed)
{
	l->v1 = seed + GPZ_P64_1 + GPZ_P64_2;
	l->v2 = seed + GPZ_P64_2;
	l->v3 = seed;
	l->v4 = seed - GPZ_P64_1;
}

GPZ_HD_INLINE void gpz_xxh_stripe(struct gpz_xxh_lanes *l, uint64_t a, uint64_t b, uint64_t c,
                                  uint64_t d)
{
	l->v1 = gpz_xxh_round(l->v1, a);
	l->v2 = gpz_xxh_round(l->v2, b);
	l->v3 = gpz_xxh_round(l->v3, c);
	l->v4 = gpz_xxh_round(l->v4, d);
}

GPZ_HD_INLINE uint64_t gpz_xxh_converge(const struct gpz_xxh_lanes *l)
{
	uint64_t h = gpz_xxh_rotl(l->v1, 1) + gpz_xxh_rotl(l->v2, 7) + gpz_xxh_rotl(l->v3, 12) +
	             gpz_xxh_rotl(l->v4, 18);
	h = gpz_xxh_merge(h, l->v1);
	h = gpz_xxh_merge(h, l->v2);
	h = gpz_xxh_merge(h, l->v3);
	return gpz_xxh_merge(h, l->v4);
}

/* h (after the stripes, or seed + P5 for short input) plus the total length, then the last
 * len % 32 bytes at p, then the avalanche. */
GPZ_HD_INLINE uint64_t gpz_xxh_finish(uint64_t h, uint64_t total, const uint8_t *p, size_t rest)
{
	const uint8_t *end = p + rest;
	h += total;
	for (; end - p >= 8; p += 8) {
		h ^= gpz_xxh_round(0, gpz_xxh_read64(p));
		h = gpz_xxh_rotl(h, 27) * GPZ_P64_1 + GPZ_P64_4;
	}
	if (end - p >= 4) {
		h ^= (uint64_t)gpz_xxh_read32(p) * GPZ_P64_1;
		h = gpz_xxh_rotl(h, 23) * GPZ_P64_2 + GPZ_P64_3;
		p += 4;
	}
	for (; p < end; p++) {
		h ^= (uint64_t)*p * GPZ_P64_5;
		h = gpz_xxh_rotl(h, 11) * GPZ_P64_1;
	}
	h ^= h >> 33;
	h *= GPZ_P64_2;
	h ^= h >> 29;
	h *= GPZ_P64_3;
	h ^= h >> 32;
	return h;
}

GPZ_HD_INLINE uint64_t gpz_xxh64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = (const uint8_t *)data;
	size_t stripes = len / 32;
	uint64_t h = seed + GPZ_P64_5;

	if (stripes) {
		struct gpz_xxh_lanes l;
		gpz_xxh_lanes_init(&l, seed);
		for (size_t i = 0; i < stripes; i++, p += 32)
			gpz_xxh_stripe(&l, gpz_xxh_read64(p), gpz_xxh_read64(p + 8),
			               gpz_xxh_read64(p + 16), gpz_xxh_read64(p + 24));
		h = gpz_xxh_converge(&l);
	}
	return gpz_xxh_finish(h, (uint64_t)len, p, len % 32);
}

#endif
