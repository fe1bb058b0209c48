/*
 * huffman.h - the stages of the Huffman-only codec, CPU backend: histogram, codebook, encode,
 * decode. The container (src/container/) strings them together; gpz-bench times them one by one.
 * Symbols are little-endian unsigned integers of width w = 1, 2 or 4 bytes.
 */
#ifndef GPZ_HUFFMAN_H
#define GPZ_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"
#include "common/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- histogram.c ---- */

/* Largest alphabet a symbol width can need: 256, 65536, or GPZ_MAX_ALPHABET. */
uint32_t gpz_alphabet_limit(int w);

/*
 * Count the n symbols of src into counts[0 .. gpz_alphabet_limit(w)) (zeroed here) and set
 * *alphabet to the largest symbol + 1 (0 when n == 0). n < 2^32. GPZ_ERR_ALPHABET when a
 * 4-byte symbol is >= GPZ_MAX_ALPHABET.
 */
gpz_result gpz_histogram(const uint8_t *src, size_t n, int w, int nthreads, uint32_t *counts,
                         uint32_t *alphabet);

/* The same, and *sum = the content checksum of the n * w bytes (common/checksum.h), read from
 * memory once for both. The threads' tables go in scratch when not NULL (memory the caller
 * keeps from call to call). */
struct gpz_scratch;
gpz_result gpz_histogram_sum(const uint8_t *src, size_t n, int w, int nthreads,
                             uint32_t *counts, uint32_t *alphabet, uint64_t *sum,
                             struct gpz_scratch *scratch);

/* ---- codebook.c ---- */

/*
 * Optimal code lengths for counts[0 .. alphabet), at most `limit` bits (0 = no limit), into
 * len[0 .. alphabet); unused symbols get 0. Unlimited Huffman lengths (two-queue construction
 * over symbols sorted by (count, symbol)) are kept when they fit; otherwise the lengths come from
 * the package-merge algorithm (Larmore & Hirschberg 1990), which is optimal under the limit.
 * Needs at least 2 used symbols; returns the longest length, or -1 when out of memory.
 */
int gpz_code_lengths(const uint32_t *counts, uint32_t alphabet, int limit, uint8_t *len);

/* Canonical codes (shorter codes first, then by symbol) for valid lengths; MSB-first values. */
void gpz_canonical_codes(const uint8_t *len, uint32_t alphabet, uint32_t *code);

/* Total coded bits sum(counts[s] * len[s]). */
uint64_t gpz_coded_bits(const uint32_t *counts, const uint8_t *len, uint32_t alphabet);

/* Check that lengths form a complete prefix code (Kraft sum exactly 1) of >= 2 symbols. */
gpz_result gpz_lengths_check(const uint8_t *len, uint32_t alphabet);

/*
 * Compact code-length serialisation (docs/FORMAT.md, "Codebook"). write returns the bytes used
 * (at most gpz_lengths_bound(alphabet)); read fills len[0 .. alphabet) and sets *used to the bytes
 * consumed, bounds-checking everything.
 */
size_t gpz_lengths_bound(uint32_t alphabet);
size_t gpz_lengths_write(const uint8_t *len, uint32_t alphabet, uint8_t *dst);
gpz_result gpz_lengths_read(const uint8_t *src, size_t src_size, uint32_t alphabet, uint8_t *len,
                            size_t *used);

/* ---- CPU tasks (encode.c, decode.c, lanes.c) ---- */

/* Chunks a CPU task takes: about `symbols` symbols' worth (at least one chunk), or all of them
 * when there is one thread. The output never depends on it. */
static inline size_t gpz_task_chunks(int chunk_log, size_t symbols, int nthreads, size_t nchunks)
{
	size_t per = symbols >> chunk_log;
	if (nthreads <= 1)
		return nchunks ? nchunks : 1;
	return per ? per : 1;
}

/* Task t's chunks [*c0, *c1) when each takes `per` of nchunks. */
static inline void gpz_task_range(size_t t, size_t per, size_t nchunks, size_t *c0, size_t *c1)
{
	*c0 = t * per;
	*c1 = *c0 + per < nchunks ? *c0 + per : nchunks;
}

/* ---- encode.c ---- */

/* Encoder table entry: (code << 8) | length. */
void gpz_encoder_table(const uint8_t *len, const uint32_t *code, uint32_t alphabet,
                       uint32_t *table);

/* Bytes the encoder may write past the last payload byte (it stores 8 bytes at a time). */
#define GPZ_ENCODE_SLACK 16

/*
 * Encode n symbols in chunks of 2^chunk_log symbols into one MSB-first bitstream at dst (chunks
 * follow each other without padding). chunk_bits[c] receives chunk c's length in bits;
 * *total_bits the sum. dst needs ceil(total_bits / 8) + GPZ_ENCODE_SLACK bytes, total_bits
 * being gpz_coded_bits() of these symbols; with less it returns GPZ_ERR_DST_TOO_SMALL and writes
 * nothing outside dst. Every symbol must have a nonzero length in the table.
 */
gpz_result gpz_huff_encode(const uint8_t *src, size_t n, int w, const uint32_t *table,
                           int chunk_log, int nthreads, uint8_t *dst, size_t dst_cap,
                           uint32_t *chunk_bits, uint64_t *total_bits);

/* The same, with tasks after the first staged in scratch (kept by the caller from call to
 * call) and joined by the threads side by side (NULL: as gpz_huff_encode), and, given the
 * table's alphabet (0: not given), 1-byte symbols coded two at a time. Same bytes. */
gpz_result gpz_huff_encode_in(const uint8_t *src, size_t n, int w, const uint32_t *table,
                              uint32_t alphabet, int chunk_log, int nthreads, uint8_t *dst,
                              size_t dst_cap, uint32_t *chunk_bits, uint64_t *total_bits,
                              struct gpz_scratch *scratch);

/* ---- decode.c ---- */

/* Bits resolved by the first-level lookup table. */
#define GPZ_DECODE_TABLE_BITS 11

typedef struct gpz_decoder {
	int max_len;
	int w; /* symbol width the multi-symbol table is laid out for */
	/* Multi-symbol table for 1- and 2-byte symbols: up to 3 whole codes within the next
	 * GPZ_DECODE_TABLE_BITS bits: the symbols packed at w * 8-bit spacing from bit 0, the count
	 * at bit 48, the bits they take at bit 52. Count 0: the first code is longer than the table.
	 * Built by the CPU decoder at its first call (multi_built): the GPU builds its own table,
	 * and this one took the H200 hosts ~50 us a frame before the GPU's decode could start. */
	uint64_t multi[1u << GPZ_DECODE_TABLE_BITS];
	int multi_built;
	/* first level: (symbol << 5) | length, or 0 when the code is longer than the table */
	uint32_t table[1u << GPZ_DECODE_TABLE_BITS];
	/* canonical search for long codes over the top 24 bits of the stream */
	uint32_t limit[GPZ_MAX_CODE_LEN + 2]; /* one past the last code of each length, left-aligned */
	int32_t base[GPZ_MAX_CODE_LEN + 1];   /* sorted index minus first code, per length */
	uint32_t *sorted;                     /* symbols ordered by (length, symbol) */
	/* a 1-bit code "0" (a symbol with p >= 1/2, as quantization codes have): 32 zero bits are 32
	 * copies of it, decoded at once; zero_run says whether there is one, zero_sym which */
	int zero_run;
	uint32_t zero_sym;
} gpz_decoder;

/* Whether `bits` for n symbols are at most 1.125 bits a symbol (bits <= 9n / 8, as bits is
 * whole): a code whose 1-bit codeword carries nearly everything, where the decoders take their
 * dominant-symbol paths (lanes.c and lanes.cu for a frame, decode.cu's prefilled chunks for a
 * chunk). */
GPZ_HD_INLINE int gpz_huff_nearly_one_bit(uint64_t bits, uint64_t n)
{
	return bits <= n + n / 8;
}

/* Codes that stand for runs in a multi-symbol table: symbol first + k is k + 1 copies of z
 * (k < count); an LZ-symbol frame's short runs, which have no extra bits. */
struct gpz_multi_runs {
	uint32_t first, count, z;
};

/* A multi-symbol table of 2^GPZ_DECODE_TABLE_BITS entries (the layout of gpz_decoder.multi,
 * symbols w * 8 bits apart, at most 3 an entry) from d's first-level table, taking symbols
 * below `below` (UINT32_MAX: all) and, when runs is not NULL, its runs: what gpz_decoder_init
 * builds for 1- and 2-byte symbols, and LZ-symbol frames build for their literals and runs. */
void gpz_multi_table(const gpz_decoder *d, uint32_t below, int w,
                     const struct gpz_multi_runs *runs, uint64_t *t);

/* Build decoding tables for symbols of width w from lengths (checked here). */
gpz_result gpz_decoder_init(gpz_decoder *d, const uint8_t *len, uint32_t alphabet, int w);
void gpz_decoder_free(gpz_decoder *d);

/*
 * Decode n symbols in chunks of 2^chunk_log from payload; chunk c starts at bit
 * chunk_start[c] and must end exactly at chunk_start[c + 1] (nchunks + 1 entries; the last is the
 * total, <= 8 * payload_size). GPZ_ERR_CORRUPT when a chunk does not. Writes n * w bytes at dst.
 */
gpz_result gpz_huff_decode(gpz_decoder *d, const uint8_t *payload, size_t payload_size,
                           const uint64_t *chunk_start, size_t n, int w, int chunk_log,
                           int nthreads, uint8_t *dst);
/* The same, and *sum = the content checksum of the n * w bytes written (common/checksum.h),
 * each 64 KiB block hashed by the task that decoded it while it is in cache. n > 0. */
gpz_result gpz_huff_decode_sum(gpz_decoder *d, const uint8_t *payload,
                               size_t payload_size, const uint64_t *chunk_start, size_t n, int w,
                               int chunk_log, int nthreads, uint8_t *dst, uint64_t *sum);

/* ---- lanes.c: the 32-lane interleaved payload layout ----
 *
 * Why: a chunk coded as one bitstream is decoded by one thread at a time or found again by
 * speculative decoding (decode.cu), twice over. In this layout a warp decodes a chunk in
 * lockstep, a symbol a lane a step, with no search, writing 32 consecutive symbols a step.
 *
 * The definition (docs/FORMAT.md gets it once it is a frame layout). A chunk of m symbols is
 * cut into rows of 128; in row r, lane l (0 .. 31) owns symbols 4l .. 4l + 3, as its steps
 * 4r .. 4r + 3 (so a lane's four symbols of a row sit side by side, and the warp's 128 fill the
 * row: one vector store a lane; the last row may be partial). Lane l's codes, in step order,
 * make its bit string; cut into 32-bit words (word k = bits [32k, 32k+32),
 * the first bit the word's most significant; the last word padded with zero bits). Word k of a
 * lane is due at the step whose code contains the lane's bit 32k. The chunk is its lanes' words
 * ordered by (due step, lane), each stored as a little-endian u32; chunks follow each other.
 * A decoder (a 64-bit bit buffer per lane) reproduces the order: at each step, lanes in
 * increasing order, a lane whose next code is not wholly in its buffer takes the next word.
 * A chunk is valid when decoding its m symbols takes exactly its recorded word count and every
 * lane's bits left over (fewer than 32) are zero.
 */
#define GPZ_LANES 32
#define GPZ_LANES_ROW 128 /* symbols a row: 4 a lane */

/* The symbol a lane decodes at a step: row step / 4, place 4 lane + step % 4 in it. */
static inline size_t gpz_lanes_symbol(size_t step, unsigned lane)
{
	return GPZ_LANES_ROW * (step >> 2) + 4 * (size_t)lane + (step & 3);
}

/* The words a chunk of m symbols at src takes in the lanes layout, from the encoder table alone
 * (the sum of ceil(lane bits / 32) over its lanes). */
uint64_t gpz_lanes_chunk_words(const uint8_t *src, size_t m, int w, const uint32_t *table);

/*
 * Encode n symbols in chunks of 2^chunk_log (chunk_log >= 5) in the lanes layout at dst
 * (dst_cap bytes). chunk_words[c] receives chunk c's word count, *total_words their sum.
 * GPZ_ERR_DST_TOO_SMALL when 4 * total words passes dst_cap (nothing written outside dst).
 */
gpz_result gpz_huff_encode_lanes(const uint8_t *src, size_t n, int w, const uint32_t *table,
                                 int chunk_log, int nthreads, uint8_t *dst, size_t dst_cap,
                                 uint32_t *chunk_words, uint64_t *total_words);

/*
 * Decode n symbols in chunks of 2^chunk_log from a lanes-layout payload: chunk c's words are
 * words [chunk_start[c], chunk_start[c + 1]) of payload (nchunks + 1 entries, the last at most
 * payload_size / 4). GPZ_ERR_CORRUPT when a chunk is not valid (above). Writes n * w bytes.
 */
gpz_result gpz_huff_decode_lanes(const gpz_decoder *d, const uint8_t *payload,
                                 size_t payload_size, const uint64_t *chunk_start, size_t n,
                                 int w, int chunk_log, int nthreads, uint8_t *dst);

#ifdef __cplusplus
}
#endif
#endif
