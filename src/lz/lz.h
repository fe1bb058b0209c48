/* lz.h - the LZ77 match stage (CPU reference): DEFLATE tokens over a 32 KiB window, found by
 * hash chains at levels 1-9 (match_core.h, defined for the GPU; levels 7-9 then take the
 * cost-driven parse of dp_core.h); deflate/ codes them. */
#ifndef GPZ_LZ_H
#define GPZ_LZ_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPZ_LZ_WINDOW 32768
#define GPZ_LZ_MIN_MATCH 3
#define GPZ_LZ_MAX_MATCH 258

/* A token: a literal byte (bit 31 clear, value in bits 0-7) or a match (bit 31 set,
 * length - 3 in bits 16-23, distance - 1 in bits 0-14). */
#define GPZ_TOK_MATCH 0x80000000u
static inline uint32_t gpz_tok_literal(uint8_t b)
{
	return b;
}
static inline uint32_t gpz_tok_match(unsigned len, unsigned dist)
{
	return GPZ_TOK_MATCH | ((uint32_t)(len - 3) << 16) | (dist - 1);
}
static inline unsigned gpz_tok_len(uint32_t t)
{
	return ((t >> 16) & 0xff) + 3;
}
static inline unsigned gpz_tok_dist(uint32_t t)
{
	return (t & 0x7fff) + 1;
}

/*
 * Parse src[start .. end) into tokens at compression level 1..9 (greedy parsing for 1-3, lazy
 * for 4-6, cost-driven for 7-9 (dp_core.h), more match candidates as the level rises). Bytes
 * src[0 .. start) are history that matches may reach into (at most GPZ_LZ_WINDOW back). tokens
 * must hold end - start entries; returns the number written, or 0 when out of memory (and
 * end > start).
 */
size_t gpz_lz_parse(const uint8_t *src, size_t start, size_t end, int level, uint32_t *tokens);

/* Level 1's match table carried from one parse to the next by one thread: a parse that starts
 * where the one before it (in the same src) ended then enters a few positions instead of the
 * window before it (~2% of gzip -1's time), with the same tokens. NULL when out of memory. */
struct gpz_lz_carry;
struct gpz_lz_carry *gpz_lz_carry_new(void);
void gpz_lz_carry_free(struct gpz_lz_carry *c);

/* gpz_lz_parse that also counts the tokens' DEFLATE symbols for the block writer: units
 * (gpz_dfl_units(end - start) entries, dfl_symbols.h) receive each unit's counts and bytes as
 * gpz_dfl_count_units gives them; levels 1 and 4-6 count as they parse, other levels after the
 * parse. carry (or NULL) is level 1's table from the thread's parse before (other levels leave
 * it alone). */
struct gpz_dfl_unit;
size_t gpz_lz_parse_counted(const uint8_t *src, size_t start, size_t end, int level,
                            uint32_t *tokens, struct gpz_dfl_unit *units,
                            struct gpz_lz_carry *carry);

/* The same tokens the way the GPU finds them (every position's matches first, then the parse
 * over them): a reference for tests, slower than gpz_lz_parse. */
size_t gpz_lz_parse_pure(const uint8_t *src, size_t start, size_t end, int level,
                         uint32_t *tokens);
/* gpz_lz_parse_pure with at most `rounds` of the level's cost-driven rounds (levels 7-9,
 * dp_core.h; 0: the lazy parse they start from), for tests. */
size_t gpz_lz_parse_rounds(const uint8_t *src, size_t start, size_t end, int level,
                           unsigned rounds, uint32_t *tokens);
/* And the GPU's parse in segments of seg_size positions, each guessed with at most cap tokens,
 * then fixed up (match_core.h: gpz_lz_spec, gpz_lz_fixup). */
size_t gpz_lz_parse_segments(const uint8_t *src, size_t start, size_t end, int level,
                             size_t seg_size, size_t cap, uint32_t *tokens);
/* Where the segment fix-up takes a parse to be clean (gpz_lz_fixup's rule: after a match, or at
 * lazy levels after a literal at a position without a match in a clean state), for
 * tests: clean[i] for the state before tok[i] (clean[0] = 1), up to clean[nt]; returns nt, or
 * 0 when out of memory. */
size_t gpz_lz_clean_marks(const uint8_t *src, size_t start, size_t end, int level,
                          const uint32_t *tok, size_t nt, uint8_t *clean);

#ifdef __cplusplus
}
#endif
#endif
