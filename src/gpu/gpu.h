/*
 * gpu.h - the GPU backend's stages, callable from C. Implemented in CUDA (*.cu); every function
 * checks its CUDA calls and launches and maps failures to GPZ_ERR_GPU / GPZ_ERR_NOMEM.
 *
 * Data layouts are those of the CPU backend (src/huffman/huffman.h), so each GPU stage can be
 * compared byte for byte with its CPU counterpart. All device pointers are from cudaMalloc;
 * `stream` is a cudaStream_t (0 = the legacy default stream). Functions are asynchronous on the
 * stream unless their comment says they synchronise.
 */
#ifndef GPZ_GPU_H
#define GPZ_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"
#include "huffman/huffman.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *gpz_stream_t;

/* 1 when a CUDA device is present and usable; 0 otherwise (also when built without CUDA). */
int gpz_gpu_usable(void);

/* ---- histogram.cu ----
 * Count n symbols of width w at d_src into d_counts[0 .. gpz_alphabet_limit(w)) (zeroed here).
 * d_stats[0] receives the largest symbol value seen (0 when n == 0); symbols of 4 bytes at or
 * above GPZ_MAX_ALPHABET are not counted and set d_stats[1] to 1 (else 0). */
gpz_result gpz_gpu_histogram(const uint8_t *d_src, size_t n, int w, uint32_t *d_counts,
                             uint32_t *d_stats, gpz_stream_t stream);

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
/* The same with a given block shape (0 .. GPZ_GPU_ENCODE_SHAPES - 1, listed in encode.cu;
 * gpz_gpu_encode uses the fastest measured), for the benchmark and tests: every shape writes the
 * same bytes. */
#define GPZ_GPU_ENCODE_SHAPES 17
gpz_result gpz_gpu_encode_shape(const uint8_t *d_src, size_t n, int w, const uint32_t *d_table,
                                uint32_t alphabet, int max_len, int chunk_log,
                                uint32_t *d_chunk_bits, uint8_t *d_payload, void *d_work,
                                size_t work_bytes, int shape, gpz_stream_t stream);

/* ---- encode_paper.cu ----
 * The paper's encoder (reduce-merge of 2^r codes per 32-bit unit, then chunk_log - r rounds of
 * shuffle-merge in shared memory), for comparison: the same d_chunk_bits and payload bytes as
 * gpz_gpu_encode. Chunks holding a "breaking" unit (over 32 bits) are re-encoded by a fallback
 * kernel, so no bit is lost. Needs 8 <= chunk_log <= 16, 0 <= r <= 5, chunk_log - r <= 14 and
 * 8 * max(256, 2^(chunk_log - r)) bytes of shared memory (+ 4 * alphabet when alphabet <= 4096)
 * within the device's per-block limit; GPZ_ERR_PARAM otherwise. d_payload: any alignment, need
 * not be zeroed, only its ceil(total / 8) bytes are written. d_work (256-byte aligned):
 * gpz_gpu_encode_paper_work() bytes. stats, when not NULL, is filled after the call, which then
 * synchronises the stream (to read the breaking count); NULL keeps the call asynchronous. */
struct gpz_paper_stats {
	int r;             /* reduction factor used */
	uint64_t units;    /* merged units: ceil(n / 2^r) */
	uint64_t breaking; /* units longer than 32 bits */
};
size_t gpz_gpu_encode_paper_work(size_t n, int chunk_log, int max_len);
gpz_result gpz_gpu_encode_paper(const uint8_t *d_src, size_t n, int w, const uint32_t *d_table,
                                uint32_t alphabet, int max_len, int chunk_log, int r,
                                uint32_t *d_chunk_bits, uint8_t *d_payload, void *d_work,
                                size_t work_bytes, gpz_stream_t stream,
                                struct gpz_paper_stats *stats);
/* r as the paper chooses it from the average code length: 2^r * avg_bits in [16, 32) (0..4). */
int gpz_paper_choose_r(double avg_bits);

/* ---- decode.cu ----
 * Decode n symbols of width w in chunks of 2^chunk_log from d_payload; chunk c spans bits
 * [d_chunk_start[c], d_chunk_start[c + 1]). dec is the host-built decoder (its tables are copied
 * to the device here). Synchronises the stream; GPZ_ERR_CORRUPT when a chunk does not end
 * exactly at its recorded end (as gpz_huff_decode). */
gpz_result gpz_gpu_decode(const gpz_decoder *dec, const uint8_t *d_payload, size_t payload_size,
                          const uint64_t *d_chunk_start, size_t n, int w, int chunk_log,
                          uint8_t *d_dst, gpz_stream_t stream);

/* ---- checksum.cu ----
 * The frame content checksum of FORMAT.md into *d_sum (device u64). */
gpz_result gpz_gpu_checksum(const uint8_t *d_data, size_t size, uint64_t *d_sum,
                            gpz_stream_t stream);

/* ---- crc_gpu.cu ----
 * gzip's CRC-32 (zlib's crc32(0, data, n)) and zlib's Adler-32 (adler32(1, data, n)) of n bytes
 * at d_data (any alignment, n may be 0) into *d_out (device u32). Two kernels on the stream; no
 * workspace. */
gpz_result gpz_gpu_crc32(const uint8_t *d_data, size_t n, uint32_t *d_out, gpz_stream_t stream);
gpz_result gpz_gpu_adler32(const uint8_t *d_data, size_t n, uint32_t *d_out,
                           gpz_stream_t stream);

/* ---- match.cu ----
 * The LZ77 match stage of DEFLATE: the input is cut into pieces of `piece` bytes (the last one
 * shorter); piece p gets exactly the tokens of gpz_lz_parse(d_src, p * piece,
 * min(n, (p + 1) * piece), level, d_tokens + p * piece) (with up to 32 KiB of history before
 * it), and d_ntok[p] their count. d_tokens holds n entries, d_ntok ceil(n / piece). d_work
 * (256-byte aligned): gpz_gpu_lz_work(n, piece) bytes (about 14 bytes an input byte): chain links
 * and matches for every position, then the parse in guessed segments (match_gpu.h). */
size_t gpz_gpu_lz_work(size_t n, size_t piece);
gpz_result gpz_gpu_lz_parse(const uint8_t *d_src, size_t n, int level, size_t piece,
                            uint32_t *d_tokens, uint32_t *d_ntok, void *d_work,
                            size_t work_bytes, gpz_stream_t stream);

/* ---- deflate_gpu.cu ----
 * Raw DEFLATE (RFC 1951) of n bytes at d_src at level 1..9: exactly the bytes of the CPU's
 * gpz_deflate_compress(GPZ_FORMAT_DEFLATE) (pieces of GPZ_DEFLATE_PIECE bytes, each parsed with
 * the 32 KiB before it as history and coded by the CPU's block writer, deflate_core.h; BFINAL
 * on the last block of the last piece), from match.cu's stages and a parallel block writer.
 * d_out receives
 * ceil(bits / 8) bytes, the last padded with zero bits; out_cap >= gpz_gpu_deflate_raw_bound(n)
 * always suffices. *d_status (device memory) receives the stream's length in bits and GPZ_OK,
 * or GPZ_ERR_DST_TOO_SMALL when out_cap (or a piece's slot, as on the CPU) is too small; read it
 * after the stream has run. d_work (256-byte aligned): gpz_gpu_deflate_work(n) bytes (about
 * 21 MiB a piece, at most 1024 pieces' worth). Returns GPZ_ERR_PARAM for bad arguments, else
 * launch errors only. */
typedef struct gpz_gpu_deflate_status {
	uint64_t bits;
	int32_t result;
	uint32_t reserved;
} gpz_gpu_deflate_status;
size_t gpz_gpu_deflate_work(size_t n);
size_t gpz_gpu_deflate_raw_bound(size_t n);
gpz_result gpz_gpu_deflate_raw(const uint8_t *d_src, size_t n, int level, uint8_t *d_out,
                               size_t out_cap, gpz_gpu_deflate_status *d_status, void *d_work,
                               size_t work_bytes, gpz_stream_t stream);

/* The same for a host buffer, synchronously, with its own stream and device buffers: the raw
 * stream into dst (*written bytes; GPZ_ERR_DST_TOO_SMALL when it does not fit dst_cap) and, in
 * *check (may be NULL), the input's CRC-32 (GPZ_GPU_CHECK_CRC32, gzip) or Adler-32
 * (GPZ_GPU_CHECK_ADLER32, zlib) computed on the device. gpz_deflate_compress uses it on GPU
 * contexts. */
#define GPZ_GPU_CHECK_NONE 0
#define GPZ_GPU_CHECK_CRC32 1
#define GPZ_GPU_CHECK_ADLER32 2
gpz_result gpz_gpu_deflate_host(const void *src, size_t n, int level, int check_kind, void *dst,
                                size_t dst_cap, size_t *written, uint32_t *check,
                                uint64_t *piece_off);

#ifdef __cplusplus
}
#endif
#endif
