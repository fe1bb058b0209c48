/*
 * lzsym_gpu.h - LZ-symbol frames (lzsym.h) on the GPU: the tokens of gpz_lzs_tokens counted,
 * sized and coded (tokens.cu), and chunks decoded (decode.cu), each exactly as the CPU reference
 * does, so tests compare them bit for bit.
 * tests/gpu/test_gpu_lzsym.cu checks them against the CPU reference.
 *
 * Device pointers come from cudaMalloc; functions are asynchronous on `stream` unless their
 * comment says they synchronise; CUDA failures map to GPZ_ERR_GPU / GPZ_ERR_NOMEM.
 */
#ifndef GPZ_LZSYM_GPU_H
#define GPZ_LZSYM_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "lzsym/lzsym.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tokens the count pass keeps for a chunk of 2^chunk_log symbols of w bytes (8 bytes each, as
 * many bytes as the chunk's input). */
#define GPZ_LZS_GPU_KEEP(chunk_log, w) (((uint32_t)1 << (chunk_log) >> 3) * (uint32_t)(w))

/* The symbols a frame codes: n symbols of width w at d_src in chunks of 2^chunk_log, literal
 * values below alphabet, run symbol z. d_tokens (8 * GPZ_LZS_GPU_KEEP(chunk_log, w) bytes a
 * chunk, 8-byte aligned) and d_ntok (4 bytes a chunk): where the count pass keeps the tokens
 * for the later passes; NULL: every pass makes them again. */
struct gpz_lzs_gpu_src {
	const uint8_t *d_src;
	size_t n;
	int w, chunk_log;
	uint32_t alphabet, z;
	void *d_tokens;
	uint32_t *d_ntok;
};

/* The frame's token counts: d_counts[0 .. alphabet + 96) the main code's symbols, then 48
 * distance buckets (zeroed here), as frame_lzsym.c's count_task sums them; the tokens kept in
 * d_tokens when there is one. The sizes and write passes that follow on the same source read
 * them there, so nothing may change d_tokens or d_ntok in between. */
gpz_result gpz_gpu_lzs_count(const struct gpz_lzs_gpu_src *s, uint32_t *d_counts,
                             gpz_stream_t stream);

/* Each chunk's length in bits under the code lengths d_main_len[alphabet + 96] and
 * d_dist_len[48] (a distance code of all zeros when the frame has no match). */
gpz_result gpz_gpu_lzs_sizes(const struct gpz_lzs_gpu_src *s, const uint8_t *d_main_len,
                             const uint8_t *d_dist_len, uint32_t *d_chunk_bits,
                             gpz_stream_t stream);

/* The payload: chunk c's tokens at bit d_chunk_start[c] (the exclusive sum of the sizes above,
 * nchunks + 1 entries), MSB first, coded with the encoder tables (code << 8) | length.
 * d_words: ceil(total / 32) + 1 words, 4-byte aligned, zeroed here; its bytes in memory order
 * are the payload (gpz_lzs_put's bits). */
gpz_result gpz_gpu_lzs_write(const struct gpz_lzs_gpu_src *s, const uint32_t *d_main_table,
                             const uint32_t *d_dist_table, const uint64_t *d_chunk_start,
                             uint32_t *d_words, size_t nwords, gpz_stream_t stream);

/* Decode n symbols of width w in chunks of 2^chunk_log from d_payload (payload_size bytes);
 * chunk c spans bits [d_chunk_start[c], d_chunk_start[c + 1]). d: the host decoders (their
 * tables are copied to the device here). Synchronises the stream; GPZ_ERR_CORRUPT exactly when
 * gpz_lzs_decode_chunk rejects some chunk. */
gpz_result gpz_gpu_lzs_decode(const struct gpz_lzs_decoders *d, const uint8_t *d_payload,
                              size_t payload_size, const uint64_t *d_chunk_start, size_t n,
                              int w, int chunk_log, uint8_t *d_dst, gpz_stream_t stream);

#ifdef __cplusplus
}
#endif
#endif
