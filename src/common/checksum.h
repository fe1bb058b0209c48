/* checksum.h - the frame content checksum (docs/FORMAT.md, "Content checksum"). */
#ifndef GPZ_CHECKSUM_H
#define GPZ_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes per checksum block. Blocks hash independently, so the GPU and threads can split them. */
#define GPZ_CHECKSUM_BLOCK ((size_t)1 << 16)

/* Sum over blocks i of XXH64(block i, seed i), mod 2^64, on up to nthreads threads. */
uint64_t gpz_checksum_threads(const void *data, size_t size, int nthreads);

/* The part of that sum from blocks [first, last) of the size bytes at data: for code that hashes
 * blocks as it produces them, while they are in cache. */
uint64_t gpz_checksum_blocks(const void *data, size_t size, size_t first, size_t last);

#ifdef __cplusplus
}
#endif
#endif
