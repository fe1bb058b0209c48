/*
 * huffman_gpu.h - the Huffman stages on the GPU (histogram.cu, codebook.cu, encode.cu,
 * decode.cu), each computing exactly what its CPU twin in huffman.h computes, so tests compare
 * them byte for byte. Device pointers are from cudaMalloc; functions are asynchronous on
 * `stream` unless their comment says they synchronise; CUDA failures map to GPZ_ERR_GPU /
 * GPZ_ERR_NOMEM.
 */
#ifndef GPZ_HUFFMAN_GPU_H
#define GPZ_HUFFMAN_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "huffman/huffman.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- histogram.cu ----
 * Count n symbols of width w at d_src into d_counts[0 .. gpz_alphabet_limit(w)) (zeroed here).
 * d_stats[0] receives the largest symbol value seen (0 when n == 0); symbols of 4 bytes at or
 * above GPZ_MAX_ALPHABET are not counted and set d_stats[1] to 1 (else 0). */
gpz_result gpz_gpu_histogram(const uint8_t *d_src, size_t n, int w, uint32_t *d_counts,
                             uint32_t *d_stats, gpz_stream_t stream);

/* 1-byte symbols in frames of frame_n bytes (a multiple of 16; d_src 16-byte aligned; at most
 * 65535 frames): frame f's 256 counts at d_counts + 256 f, its largest symbol at d_stats[2 f]. */
gpz_result gpz_gpu_histogram_frames(const uint8_t *d_src, size_t n, size_t frame_n,
                                    uint32_t *d_counts, uint32_t *d_stats, gpz_stream_t stream);

/* ---- codebook.cu ----
 * Code lengths on the GPU, bit for bit those of gpz_code_lengths(counts, alphabet, 0, len) (the
 * unlimited two-queue Huffman construction over symbols sorted by (count, symbol), ties to the
 * leaf queue). Needs >= 2 used symbols. d_len[0 .. alphabet) receives the lengths (0 = unused);
 * *d_max_len the longest, which may exceed GPZ_MAX_CODE_LEN: the caller then limits on the host
 * with package-merge. d_work must hold gpz_gpu_code_lengths_work(alphabet) bytes. */
size_t gpz_gpu_code_lengths_work(uint32_t alphabet);
gpz_result gpz_gpu_code_lengths(const uint32_t *d_counts, uint32_t alphabet, uint8_t *d_len,
                                int *d_max_len, void *d_work, size_t work_bytes,
                                gpz_stream_t stream);

/* Canonical codes from valid lengths (max <= GPZ_MAX_CODE_LEN): d_table[s] = (code << 8) | len,
 * exactly gpz_canonical_codes + gpz_encoder_table. d_work: gpz_gpu_canonical_work(alphabet). */
size_t gpz_gpu_canonical_work(uint32_t alphabet);
gpz_result gpz_gpu_canonical(const uint8_t *d_len, uint32_t alphabet, uint32_t *d_table,
                             void *d_work, size_t work_bytes, gpz_stream_t stream);

/* ---- encode.cu ----
 * Encode n symbols in chunks of 2^chunk_log (8 <= chunk_log) into the MSB-first payload layout
 * of FORMAT.md: d_chunk_bits[c] receives each chunk's bit length, d_payload (any alignment, need
 * not be zeroed) the joined bitstream. Bytes before d_payload are not touched; up to 3 bytes past
 * the payload's last byte may be overwritten (the end is rounded up to a 4-byte boundary).
 * d_work (256-byte aligned): gpz_gpu_encode_work() bytes. */
size_t gpz_gpu_encode_work(size_t n, int chunk_log, int max_len);
gpz_result gpz_gpu_encode(const uint8_t *d_src, size_t n, int w, const uint32_t *d_table,
                          uint32_t alphabet, int max_len, int chunk_log, uint32_t *d_chunk_bits,
                          uint8_t *d_payload, void *d_work, size_t work_bytes,
                          gpz_stream_t stream);
/* Many frames side by side (the device's batched frames, container/frames_gpu.cu): n symbols
 * in frames of frame_n (a multiple of 32; the last may be shorter), frame f coded as
 * gpz_gpu_encode codes one, into d_frames[f] (device memory, read by the kernels): its payload
 * words (`out`, 4-byte aligned, the payload starting `base_bits` into the first word; the words
 * before and after it keep other bytes: as gpz_gpu_encode, bytes before the payload are
 * not touched and up to 3 past it may be), its chunk index (u32 little-endian bit lengths at
 * `index`) and its table of `alphabet` entries; frames with `huff` 0 are skipped. d_work:
 * gpz_gpu_encode_frames_work() bytes, 256-byte aligned. */
struct gpz_gpu_enc_frame {
	uint32_t *out;
	uint8_t *index;
	const uint32_t *table;
	uint32_t base_bits;
	uint32_t huff;
};
size_t gpz_gpu_encode_frames_work(size_t n, size_t frame_n, int chunk_log);
gpz_result gpz_gpu_encode_frames(const uint8_t *d_src, size_t n, size_t frame_n, int w,
                                 const struct gpz_gpu_enc_frame *d_frames, uint32_t alphabet,
                                 int chunk_log, void *d_work, size_t work_bytes,
                                 gpz_stream_t stream);
/* ---- decode.cu ----
 * Decode n symbols of width w in chunks of 2^chunk_log from d_payload; chunk c spans bits
 * [d_chunk_start[c], d_chunk_start[c + 1]). dec is the host-built decoder (its tables are copied
 * to the device here). Synchronises the stream; GPZ_ERR_CORRUPT when a chunk does not end
 * exactly at its recorded end (as gpz_huff_decode). */
gpz_result gpz_gpu_decode(const gpz_decoder *dec, const uint8_t *d_payload, size_t payload_size,
                          const uint64_t *d_chunk_start, size_t n, int w, int chunk_log,
                          uint8_t *d_dst, gpz_stream_t stream);
/* The same in two halves, so that more work (the content checksum) queues behind the decoder
 * without a wait between them. _start queues the decode; _end copies the corruption flag to
 * *h_flag (nonzero: GPZ_ERR_CORRUPT; pinned memory keeps the copy from waiting), waits for the
 * stream and releases the call's resources. _end must follow every _start, whatever _start
 * returned; it returns r or the first failure after it. */
struct gpz_gpu_decode_call {
	void *img;        /* the host's table image (sent from pageable memory: freed at the end) */
	void *d_mem;      /* the call's own device memory, if it needed some */
	uint32_t *d_flag; /* the decoder's corruption flag, once launched */
	int slot;         /* the leased table image slot, or -1 */
};
gpz_result gpz_gpu_decode_start(struct gpz_gpu_decode_call *call, const gpz_decoder *dec,
                                const uint8_t *d_payload, size_t payload_size,
                                const uint64_t *d_chunk_start, size_t n, int w, int chunk_log,
                                uint8_t *d_dst, gpz_stream_t stream);
gpz_result gpz_gpu_decode_end(struct gpz_gpu_decode_call *call, gpz_result r, uint32_t *h_flag,
                              gpz_stream_t stream);

/* Many payloads decoded in one launch, nothing waiting: the host builds each decoder's table
 * image at h_img (at most gpz_gpu_decode_image_size(alphabet) bytes for a code of `alphabet`
 * lengths, *bytes of them used, a multiple of 16) and the rest a launch needs (*plan), so that
 * the decoder itself can go; the caller copies the image to the device at a 16-byte aligned
 * d_img (GPZ_ERR_PARAM when its long codes' table does not fit an image). The uint32 at d_img +
 * gpz_gpu_decode_flag_at() becomes nonzero when some chunk is corrupt. */
struct gpz_gpu_dec_plan {
	uint32_t limit[GPZ_MAX_CODE_LEN + 2];
	uint32_t lo, gcd, run_sym;
	int max_len, run, w;
};
size_t gpz_gpu_decode_image_size(uint32_t alphabet);
size_t gpz_gpu_decode_flag_at(void);
gpz_result gpz_gpu_decode_image(const gpz_decoder *dec, int w, void *h_img, size_t *bytes,
                                struct gpz_gpu_dec_plan *plan);
/* Then each payload's (of one symbol width) launch parameters
 * (gpz_gpu_decode_params_size() bytes, made at h_params by gpz_gpu_decode_params with the
 * device addresses the decode will use) in an array at d_params (8-byte aligned); frame f's
 * chunks are cut into units of `unit` chunks, its first unit d_unit_base[f] (nf entries, from
 * 0, `units` in all); d_counter is 8 bytes of workspace. Nothing waits; the flags are those of
 * the images. */
size_t gpz_gpu_decode_params_size(void);
gpz_result gpz_gpu_decode_params(const struct gpz_gpu_dec_plan *plan, const void *d_img,
                                 const uint8_t *d_payload, size_t payload_size,
                                 const uint64_t *d_chunk_start, size_t n, int chunk_log,
                                 uint8_t *d_dst, void *h_params);
gpz_result gpz_gpu_decode_frames(const void *d_params, const uint64_t *d_unit_base, size_t nf,
                                 size_t units, uint32_t unit, int w,
                                 unsigned long long *d_counter, gpz_stream_t stream);

/* ---- lanes.cu: the 32-lane interleaved layout (huffman.h, lanes.c) ----
 * Encode n symbols in chunks of 2^chunk_log into d_payload (payload_cap bytes, any alignment):
 * d_chunk_words[c] receives each chunk's word count, *total_words (host) their sum; exactly the
 * bytes of gpz_huff_encode_lanes. GPZ_ERR_DST_TOO_SMALL (nothing written past payload_cap) when
 * the words do not fit. Synchronises the stream. d_work: gpz_gpu_encode_lanes_work() bytes. */
size_t gpz_gpu_encode_lanes_work(size_t n, int chunk_log);
gpz_result gpz_gpu_encode_lanes(const uint8_t *d_src, size_t n, int w, const uint32_t *d_table,
                                int chunk_log, uint32_t *d_chunk_words, uint8_t *d_payload,
                                size_t payload_cap, uint64_t *total_words, void *d_work,
                                size_t work_bytes, gpz_stream_t stream);
/* Decode as gpz_huff_decode_lanes (chunk c's words [d_chunk_start[c], d_chunk_start[c + 1]),
 * checked against payload_size on the device). d_work: gpz_gpu_decode_lanes_work(dec) bytes of
 * device memory for the decoder's tables, or NULL (allocated on the stream). With h_flag
 * (pinned host memory) nothing waits: *h_flag becomes nonzero, once the stream has run, when
 * some chunk is not valid. Without it the stream is synchronised and that is GPZ_ERR_CORRUPT. */
size_t gpz_gpu_decode_lanes_work(const gpz_decoder *dec);
gpz_result gpz_gpu_decode_lanes(const gpz_decoder *dec, const uint8_t *d_payload,
                                size_t payload_size, const uint64_t *d_chunk_start, size_t n,
                                int w, int chunk_log, uint8_t *d_dst, void *d_work,
                                uint32_t *h_flag, gpz_stream_t stream);

#ifdef __cplusplus
}
#endif
#endif
