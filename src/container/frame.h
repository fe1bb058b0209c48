/* frame.h - the byte layout of frames and trailers (docs/FORMAT.md), shared by writer and reader. */
#ifndef GPZ_FRAME_H
#define GPZ_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

#define GPZ_TRAILER_TYPE 0xFF
#define GPZ_CHECK_SIZE 4     /* header check after the chunk index */
#define GPZ_CONTENT_SIZE 8   /* content checksum at the end of a frame */

/* Chunks of a Huffman frame. */
static inline uint64_t gpz_frame_chunks(uint64_t n_symbols, int chunk_log)
{
	return (n_symbols + ((uint64_t)1 << chunk_log) - 1) >> chunk_log;
}

/* Low 32 bits of XXH64(data, 0): the header and trailer check. */
uint32_t gpz_header_check(const void *data, size_t size);

#endif
