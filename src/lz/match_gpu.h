/* match_gpu.h - the stages of the GPU's LZ77 match stage (match.cu), for match.cu's
 * gpz_gpu_lz_parse and deflate_gpu.cu. C++ (CUDA) only.
 *
 * The matches at a position depend on the input alone (match_core.h), so the stage is three
 * kernels: chain links for every position of a range, both matches (full and quarter chain) for
 * every position, then the CPU's parse over them (guessed in segments, fixed up per piece). */
#ifndef GPZ_LZ_MATCH_GPU_H
#define GPZ_LZ_MATCH_GPU_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* links[q - lo] = gpz_lz_link of q for q in [lo, hi) of the n input bytes at src, as
 * gpz_lz_links_ref(src, lo, hi, n) gives them; scratch (16-byte aligned): hi - lo entries rounded
 * up to 8, plus 32768 per 32 KiB of the range after the first (at most 2 * (hi - lo) + 8). */
cudaError_t gpz_lz_gpu_links(const uint8_t *src, size_t n, size_t lo, size_t hi, uint16_t *links,
                             uint16_t *scratch, cudaStream_t s);

/* pure[2 * (q - a) + 0/1] = gpz_lz_pure_at of every position q in [a, b) (greedy levels:
 * pure[q - a], the full chain's only), its piece ending at the next multiple of `piece` (or n); links from gpz_lz_gpu_links over [lo, >= b) with
 * lo <= a - GPZ_LZ_WINDOW (or 0). */
cudaError_t gpz_lz_gpu_find(const uint8_t *src, size_t n, size_t piece, int level, size_t a,
                            size_t b, const uint16_t *links, size_t lo, uint32_t *pure,
                            cudaStream_t s);

/* Pieces p0 .. p1 - 1 (p * piece .. min(n, (p + 1) * piece)), parsed over pure (from position
 * a on) in guessed segments fixed up per piece: piece p's tokens go to
 * tok + (p - p0) * tok_stride, their count to ntok[p - p0]. work (256-byte aligned):
 * gpz_lz_gpu_run_work(p1 - p0, piece) bytes. */
size_t gpz_lz_gpu_run_work(size_t np, size_t piece);
cudaError_t gpz_lz_gpu_run(const uint8_t *src, size_t n, size_t piece, int level, size_t p0,
                           size_t p1, const uint32_t *pure, size_t a, uint32_t *tok,
                           size_t tok_stride, uint32_t *ntok, void *work, cudaStream_t s);

#endif
