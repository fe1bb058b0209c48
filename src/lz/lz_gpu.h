/* lz_gpu.h - the LZ77 match stage on the GPU (match.cu): the CPU's tokens (lz.h), found in
 * parallel.
 *
 * The matches at a position depend on the input alone (match_core.h), so the stage is three
 * kernels: chain links for every position of a range, both matches (full and quarter chain) for
 * every position, then the CPU's parse over them (guessed in segments, fixed up per piece).
 * gpz_gpu_lz_parse runs all three from C; the GPU DEFLATE writer (deflate/deflate.cu) and the
 * benchmark call the stages one by one (C++ only). */
#ifndef GPZ_LZ_GPU_H
#define GPZ_LZ_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The LZ77 match stage of DEFLATE: the input is cut into pieces of `piece` bytes (the last one
 * shorter); piece p gets exactly the tokens of gpz_lz_parse(d_src, p * piece,
 * min(n, (p + 1) * piece), level, d_tokens + p * piece) (with up to 32 KiB of history before
 * it), and d_ntok[p] their count (levels 7-9 leave scratch in a piece's slots past its
 * tokens). d_tokens holds n entries, d_ntok ceil(n / piece). d_work
 * (256-byte aligned): gpz_gpu_lz_work(n, piece) bytes (about 14 bytes an input byte): chain links
 * and matches for every position, then the parse in guessed segments (the stages below). */
size_t gpz_gpu_lz_work(size_t n, size_t piece);
gpz_result gpz_gpu_lz_parse(const uint8_t *d_src, size_t n, int level, size_t piece,
                            uint32_t *d_tokens, uint32_t *d_ntok, void *d_work,
                            size_t work_bytes, gpz_stream_t stream);


#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include <cuda_runtime.h>

/* links[q - lo] = gpz_lz_link of q for q in [lo, hi) of the n input bytes at src, as
 * gpz_lz_links_ref(src, lo, hi, n, level's cfg) gives them; scratch (16-byte aligned): hi - lo
 * entries rounded up to 8, plus the level's hash size per 32 KiB of the range after the first
 * (at most 2 * (hi - lo) + 8). */
cudaError_t gpz_lz_gpu_links(const uint8_t *src, size_t n, size_t lo, size_t hi, int level,
                             uint16_t *links, uint16_t *scratch, cudaStream_t s);

/* pure[2 * (q - a) + 0/1] = gpz_lz_pure_at of every position q in [a, b) (greedy levels:
 * pure[q - a], the full chain's only; levels 7-9 with gpz_lz_inherit, which needs a and piece
 * to be multiples of 8), its piece ending at the next multiple of `piece` (or n) and, when
 * group >= 1, seeing nothing before the start of its group of `group` pieces (groups start at
 * the pieces whose number plus `shift` is a multiple of `group`; before the first, history);
 * links from gpz_lz_gpu_links over [lo, >= b) with lo <= a - GPZ_LZ_WINDOW (or 0). */
cudaError_t gpz_lz_gpu_find(const uint8_t *src, size_t n, size_t piece, int level, size_t a,
                            size_t b, const uint16_t *links, size_t lo, int group,
                            unsigned shift, uint32_t *pure, cudaStream_t s);

/* Pieces p0 .. p1 - 1 (p * piece .. min(n, (p + 1) * piece)), parsed over pure (from position
 * a on) in guessed segments fixed up per piece, then (levels 7-9) the cost-driven rounds
 * (dp_core.h): piece p's tokens go to tok + (p - p0) * tok_stride, their count to
 * ntok[p - p0] (at levels 7-9 the slots past them hold scratch). work (256-byte aligned):
 * gpz_lz_gpu_run_work(p1 - p0, piece) bytes. */
size_t gpz_lz_gpu_run_work(size_t np, size_t piece);
cudaError_t gpz_lz_gpu_run(const uint8_t *src, size_t n, size_t piece, int level, size_t p0,
                           size_t p1, const uint32_t *pure, size_t a, uint32_t *tok,
                           size_t tok_stride, uint32_t *ntok, void *work, cudaStream_t s);

#endif /* __CUDACC__ */

#endif
