/* bench_encode_shapes.cu - every block shape of the GPU Huffman encoder that was measured
 * (encode_kernel.cuh), for gpz-bench --gpu and test_gpu_encode; the library compiles only the
 * two it uses. */
#include "huffman/encode_kernel.cuh"
#include "bench_kernels.h"

/* Block shapes: THREADS x SPT symbols per tile, one block per tile or (PF, see encode_kernel)
 * a few blocks per multiprocessor looping over the tiles with the next tile prefetched, a
 * register cap through MINB resident blocks, and PARTS interleaved runs per thread when placing
 * codes.
 * gpz_gpu_encode (encode.cu) uses shapes 6 and 15. SPT <= 256 keeps every chunk start (chunks
 * are >= 256 symbols) at a thread's first symbol. bench/ records how they compare. */
#define SHAPES(X)               \
	X(0, 256, 32, 0, 1, 1)      \
	X(1, 512, 16, 0, 1, 1)      \
	X(2, 128, 32, 0, 1, 1)      \
	X(3, 256, 32, 1, 1, 1)      \
	X(4, 512, 16, 1, 1, 1)      \
	X(5, 256, 16, 1, 1, 1)      \
	X(6, 256, 32, 1, 3, 1)      \
	X(7, 128, 32, 0, 6, 1)      \
	X(8, 256, 16, 0, 4, 1)      \
	X(9, 256, 32, 1, 4, 1)      \
	X(10, 128, 32, 1, 6, 1)     \
	X(11, 256, 32, 1, 3, 2)     \
	X(12, 256, 32, 1, 3, 4)     \
	X(13, 128, 32, 1, 6, 2)     \
	X(14, 256, 32, 2, 4, 1)     \
	X(15, 256, 32, 2, 3, 2)     \
	X(16, 256, 32, 2, 4, 2)

namespace {

template <int THREADS, int SPT, int PF, int MINB, int PARTS> struct shape {
	size_t tile = (size_t)THREADS * SPT;
	template <int W>
	gpz_result launch(const uint8_t *d_src, const gpz_enc::enc_args &a, cudaStream_t s) const
	{
		return gpz_enc::launch_shape<W, THREADS, SPT, PF, MINB, PARTS>(d_src, a, s);
	}
};

} // namespace

extern "C" gpz_result gpz_gpu_encode_shape(const uint8_t *d_src, size_t n, int w,
                                           const uint32_t *d_table, uint32_t alphabet,
                                           int max_len, int chunk_log, uint32_t *d_chunk_bits,
                                           uint8_t *d_payload, void *d_work, size_t work_bytes,
                                           int id, gpz_stream_t stream)
{
#define SHAPE_CASE(i, t, spt, pf, minb, parts)                                                     \
	case i:                                                                                    \
		return gpz_enc::encode_run(d_src, n, w, d_table, alphabet, max_len, chunk_log,     \
		                           d_chunk_bits, d_payload, d_work, work_bytes,            \
		                           shape<t, spt, pf, minb, parts>(), stream);
	switch (id) {
		SHAPES(SHAPE_CASE)
	}
	return GPZ_ERR_PARAM;
}
