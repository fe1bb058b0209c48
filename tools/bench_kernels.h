/* bench_kernels.h - GPU kernels that exist for the benchmark and the tests only, compiled into
 * gpz-bench and test_gpu_encode, not into libgpz: every block shape of the Huffman encoder that
 * was measured (bench_encode_shapes.cu) and the paper's encoder (encode_paper.cu). */
#ifndef GPZ_BENCH_KERNELS_H
#define GPZ_BENCH_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "huffman/huffman_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gpz_gpu_encode with a given block shape (0 .. GPZ_GPU_ENCODE_SHAPES - 1, listed in
 * bench_encode_shapes.cu; gpz_gpu_encode uses the fastest measured, shapes 6 and 15): every
 * shape writes the same bytes. */
#define GPZ_GPU_ENCODE_SHAPES 17
gpz_result gpz_gpu_encode_shape(const uint8_t *d_src, size_t n, int w, const uint32_t *d_table,
                                uint32_t alphabet, int max_len, int chunk_log,
                                uint32_t *d_chunk_bits, uint8_t *d_payload, void *d_work,
                                size_t work_bytes, int shape, gpz_stream_t stream);

/* encode_paper.cu: the paper's encoder (reduce-merge of 2^r codes per 32-bit unit, then chunk_log - r rounds of
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

#ifdef __cplusplus
}
#endif
#endif
