/* lzsym_tiles.h - the GPU tokenizer's warp algorithm on the CPU (lzsym_tiles.c), for tests. */
#ifndef GPZ_TEST_LZSYM_TILES_H
#define GPZ_TEST_LZSYM_TILES_H

#include <stddef.h>
#include <stdint.h>

#include "lzsym/lzsym.h"

/* The tokens of the chunk [c0, c1) of src (width w, run symbol z) into out (room for c1 - c0),
 * made as tokens.cu's warp makes them; the count, or (size_t)-1 when out of memory. Tokens are
 * gpz_lzs_tokens's kind: a literal (len 0), a run of z (dist 0) or a match. */
size_t lzsym_tile_tokens(const uint8_t *src, int w, size_t c0, size_t c1, uint32_t z,
                         struct gpz_lzs_token *out);

#endif
