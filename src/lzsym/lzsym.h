/*
 * lzsym.h - LZ over symbols for a large alphabet (.gpz type-5 frames, docs/FORMAT.md "LZ-symbol
 * frames"), CPU reference. A chunk of 2^M symbols becomes tokens: literals (a symbol value),
 * runs of the frame's run symbol Z (the most frequent one: in quantization codes the zero-error
 * code), and matches (length and distance in symbols, within the chunk). Literals, run lengths
 * and match lengths share one alphabet (A literals, then 48 run buckets, then 48 match-length
 * buckets), distances have their own (48 buckets); a bucket's extra bits follow its code. Both
 * are coded by the project's canonical Huffman codebook. Chunks are independent, so they are
 * tokenized, coded and decoded in parallel.
 */
#ifndef GPZ_LZSYM_H
#define GPZ_LZSYM_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"
#include "common/hd.h"
#include "huffman/huffman.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPZ_LZS_BUCKETS 48   /* buckets of a run length, match length or distance */
#define GPZ_LZS_EXTRA 96     /* main-alphabet symbols after the literals */
#define GPZ_LZS_MIN_MATCH 2  /* the format's shortest match; the encoder uses MATCH_MIN */
#define GPZ_LZS_MATCH_MIN 4  /* the shortest match gpz's tokenizer emits */
#define GPZ_LZS_MATCH_TOKENS 12 /* ... and only where it replaces this many literals and runs */
#define GPZ_LZS_HASH_LOG 12  /* the tokenizer's table: 2^12 entries, 16 KiB (a warp's on a GPU) */
/* The most bits one token takes: two codes of up to 24 bits and two 22-bit extras. */
#define GPZ_LZS_TOKEN_BITS (2 * GPZ_MAX_CODE_LEN + 44)

/* Values v >= 0 (a run length - 1, a match length - 2, a distance - 1, each < 2^24) in buckets:
 * 0..3 alone, then two buckets per power of two, with e - 1 extra bits for 2^e <= v < 2^(e+1).
 * Host and device (the GPU tokenizer and decoder use them too). */
GPZ_HD_INLINE unsigned gpz_lzs_bucket(uint32_t v)
{
	unsigned e;
	if (v < 4)
		return v;
#ifdef __CUDA_ARCH__
	e = 31u - (unsigned)__clz(v);
#else
	e = 31u - (unsigned)__builtin_clz(v);
#endif
	return 4 + 2 * (e - 2) + ((v >> (e - 1)) & 1u);
}

GPZ_HD_INLINE unsigned gpz_lzs_extra_bits(unsigned b)
{
	return b < 4 ? 0 : 1 + (b - 4) / 2;
}

GPZ_HD_INLINE uint32_t gpz_lzs_base(unsigned b)
{
	unsigned e;
	if (b < 4)
		return b;
	e = 2 + (b - 4) / 2;
	return (1u << e) | (((b - 4) & 1u) << (e - 1));
}

/* The tokenizer's hash of 4 symbols s0..s3 of width w (into GPZ_LZS_HASH_LOG bits): the words
 * match.c loads, made from the symbols, for the GPU tokenizer and its CPU model. */
GPZ_HD_INLINE uint32_t gpz_lzs_hash_syms(uint64_t s0, uint64_t s1, uint64_t s2, uint64_t s3,
                                         int w)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t v = w == 1   ? s0 | s1 << 8 | s2 << 16 | s3 << 24
	             : w == 2 ? s0 | s1 << 16 | s2 << 32 | s3 << 48
	                      : (s0 | s1 << 32) * k ^ (s2 | s3 << 32);
	return (uint32_t)((v * k) >> (64 - GPZ_LZS_HASH_LOG));
}

/* A token: a literal (len 0: the symbol value), a run of the run symbol (dist 0), or a match. */
struct gpz_lzs_token {
	uint32_t sym, len, dist;
};

/*
 * The tokens of the chunk [c0, c1) of src (width w) from *pos on, greedy and deterministic: at
 * each position a run when the symbol is z, else the longest match (at least GPZ_LZS_MATCH_MIN
 * symbols, replacing at least GPZ_LZS_MATCH_TOKENS literals and runs) with the candidate, else a
 * literal. The candidate of i: the last position before i in the chunk whose symbol is not z and
 * whose next 4 symbols hash alike, whether the parse landed on it or a match covered it. At
 * most max tokens into tok; *pos moves past them (c1: the chunk is done); the tokens do not
 * depend on max. head: 2^GPZ_LZS_HASH_LOG entries of scratch, zeroed once, that need no
 * clearing between chunks (positions + 1 before c0 are stale). Returns the token count.
 */
size_t gpz_lzs_tokens(const uint8_t *src, int w, size_t c0, size_t c1, size_t *pos, uint32_t z,
                      uint32_t *head, struct gpz_lzs_token *tok, size_t max);
/* A match the tokenizer took: at symbol `at`, len symbols from dist before. */
struct gpz_lzs_taken {
	uint64_t at;
	uint32_t len, dist;
};

/*
 * The same tokens as gpz_lzs_tokens, from the matches it took (taken[*mi ..], in order, *mi
 * moved past those used) instead of the hash table: runs and literals follow from the symbols
 * alone once the matches are known, so a second pass over a chunk needs no hashing.
 */
size_t gpz_lzs_tokens_again(const uint8_t *src, int w, size_t c1, size_t *pos, uint32_t z,
                            const struct gpz_lzs_taken *taken, size_t ntaken, size_t *mi,
                            struct gpz_lzs_token *tok, size_t max);

/* Tokens a batch holds in frame_lzsym.c, whatever the chunk size */
#define GPZ_LZS_BATCH 65536

/* The two codes of a frame: main lengths[alphabet + GPZ_LZS_EXTRA], distance lengths[48]
 * (all 0 when the frame has no match), encoder tables made from them. */
struct gpz_lzs_code {
	uint32_t alphabet, z;
	const uint32_t *main_table, *dist_table; /* (code << 8) | length */
};

/* MSB-first bits of tokens[0 .. n) at bit `at` of dst (which must be zero from there on and hold
 * them, plus 8 bytes); returns the new bit position. */
uint64_t gpz_lzs_put(const struct gpz_lzs_code *c, const struct gpz_lzs_token *tok, size_t n,
                     uint8_t *dst, uint64_t at);

/* Decoders for a frame's codes (built from checked lengths; dist NULL: no distance code). */
struct gpz_lzs_decoders {
	uint32_t alphabet, z;
	const gpz_decoder *main, *dist;
	/* optional, 1- and 2-byte symbols: up to 3 symbols a lookup from literals and runs of 1-4
	 * (gpz_multi_table of main) */
	const uint64_t *literals;
};


/*
 * Decode the m symbols of one chunk (width w) from bits [from, to) of payload (size bytes; past
 * its end zeros are read) into dst. GPZ_ERR_CORRUPT when a token does not fit the chunk (a run
 * or match past its end, a distance before its start, a match without a distance code) or the
 * chunk does not end exactly at `to`.
 */
gpz_result gpz_lzs_decode_chunk(const struct gpz_lzs_decoders *d, const uint8_t *payload,
                                size_t size, uint64_t from, uint64_t to, size_t m, int w,
                                uint8_t *dst);

#ifdef __cplusplus
}
#endif
#endif
