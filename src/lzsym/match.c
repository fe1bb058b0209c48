/* match.c - the tokenizer of LZ-symbol frames (lzsym.h), CPU reference: greedy, one candidate a
 * position (the last position before it in the chunk, not of the run symbol, with the same hash
 * of the next 4 symbols), runs of the run symbol first. Every such position enters the hash
 * table whether the parse lands on it or a match covers it, so a position's candidate does not
 * depend on the tokens before it: the GPU finds all candidates at once and only the choice of
 * matches (rare) is sequential. Deterministic, chunk by chunk, so any thread count and the GPU
 * give the same tokens. */
#include "lzsym/lzsym.h"
#include "common/bits.h"

#include <string.h>

static inline uint32_t hash4(const uint8_t *src, size_t i, int w)
{
	uint64_t v;
	if (w == 1)
		v = gpz_load_le32(src + i);
	else if (w == 2)
		v = gpz_load_le64(src + 2 * i);
	else
		v = gpz_load_le64(src + 4 * i) * 0x9e3779b97f4a7c15ull ^ gpz_load_le64(src + 4 * i + 8);
	return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> (64 - GPZ_LZS_HASH_LOG));
}

/* log2 of a symbol width (1, 2 or 4): bytes to symbols by a shift, not a division */
static inline unsigned wlog(int w)
{
	return (unsigned)w >> 1;
}

/* Symbols equal at a and b (a < b), at most max, compared 8 bytes at a time. */
static size_t match_len(const uint8_t *src, size_t a, size_t b, size_t max, int w)
{
	const uint8_t *p = src + a * (size_t)w, *q = src + b * (size_t)w;
	size_t bytes = max * (size_t)w, k = 0;
	while (k + 8 <= bytes) {
		uint64_t x = gpz_load_le64(p + k) ^ gpz_load_le64(q + k);
		if (x)
			return (k + (size_t)(__builtin_ctzll(x) >> 3)) >> wlog(w);
		k += 8;
	}
	while (k < bytes && p[k] == q[k])
		k++;
	return k >> wlog(w);
}

/* The literals and runs that symbols [i, i + len) would take without the match: a match pays
 * for itself only when it replaces several (in runs of z, one long run is one token). */
static size_t alt_tokens(const uint8_t *src, size_t i, size_t len, uint32_t z, int w)
{
	size_t t = 0;
	uint32_t prev = ~z;
	for (size_t k = 0; k < len; k++) {
		uint32_t v = gpz_load_symbol(src, i + k, w);
		t += v != z || prev != z;
		prev = v;
	}
	return t;
}

/* The run of z from symbol i (which is z) to the next symbol that is not, or c1: 8 bytes
 * compared at a time (runs are most of quantization codes). */
static inline size_t run_length(const uint8_t *src, size_t i, size_t c1, uint32_t z, int w)
{
	const uint64_t pat = gpz_splat(z, w);
	const size_t per = (size_t)8 >> wlog(w);
	size_t r = 1;

	for (; c1 - i - r >= per; r += per) {
		uint64_t x = gpz_load_le64(src + (i + r) * (size_t)w) ^ pat;
		if (x)
			return r + ((size_t)(__builtin_ctzll(x) >> 3) >> wlog(w));
	}
	while (i + r < c1 && gpz_load_symbol(src, i + r, w) == z)
		r++;
	return r;
}

/* The run of z from symbol i (which is z) as a token into *t; its length. */
static inline size_t run_token(const uint8_t *src, int w, size_t i, size_t c1, uint32_t z,
                               struct gpz_lzs_token *t)
{
	size_t r = run_length(src, i, c1, z, w);
	*t = (struct gpz_lzs_token){ z, (uint32_t)r, 0 };
	return r;
}

/* Positions [a, b) of the chunk ending at c1 enter the table: those not of the run symbol z with
 * GPZ_LZS_MATCH_MIN symbols to hash (the positions a match covers). */
static void insert_covered(const uint8_t *src, int w, size_t a, size_t b, size_t c1, uint32_t z,
                           uint32_t *head)
{
	for (size_t k = a; k < b && c1 - k >= GPZ_LZS_MATCH_MIN; k++)
		if (gpz_load_symbol(src, k, w) != z)
			head[hash4(src, k, w)] = (uint32_t)(k + 1);
}

size_t gpz_lzs_tokens_again(const uint8_t *src, int w, size_t c1, size_t *pos, uint32_t z,
                            const struct gpz_lzs_taken *taken, size_t ntaken, size_t *mi,
                            struct gpz_lzs_token *tok, size_t max)
{
	size_t n = 0, i = *pos, k = *mi;

	while (i < c1 && n < max) {
		if (k < ntaken && taken[k].at == i) {
			tok[n++] = (struct gpz_lzs_token){ 0, taken[k].len, taken[k].dist };
			i += taken[k++].len;
			continue;
		}
		uint32_t v = gpz_load_symbol(src, i, w);
		if (v == z) {
			i += run_token(src, w, i, c1, z, &tok[n++]);
			continue;
		}
		tok[n++] = (struct gpz_lzs_token){ v, 0, 0 };
		i++;
	}
	*pos = i;
	*mi = k;
	return n;
}

size_t gpz_lzs_tokens(const uint8_t *src, int w, size_t c0, size_t c1, size_t *pos, uint32_t z,
                      uint32_t *head, struct gpz_lzs_token *tok, size_t max)
{
	size_t n = 0, i = *pos;

	while (i < c1 && n < max) {
		uint32_t v = gpz_load_symbol(src, i, w);
		if (v == z) {
			i += run_token(src, w, i, c1, z, &tok[n++]);
			continue;
		}
		if (c1 - i >= GPZ_LZS_MATCH_MIN) {
			uint32_t h = hash4(src, i, w), cand = head[h];
			head[h] = (uint32_t)(i + 1);
			if (cand > c0 && cand - 1 < i) {
				size_t p = cand - 1, len = match_len(src, p, i, c1 - i, w);
				if (len >= GPZ_LZS_MATCH_MIN && alt_tokens(src, i, len, z, w) >= GPZ_LZS_MATCH_TOKENS) {
					tok[n++] = (struct gpz_lzs_token){ 0, (uint32_t)len, (uint32_t)(i - p) };
					insert_covered(src, w, i + 1, i + len, c1, z, head);
					i += len;
					continue;
				}
			}
		}
		tok[n++] = (struct gpz_lzs_token){ v, 0, 0 };
		i++;
	}
	*pos = i;
	return n;
}
