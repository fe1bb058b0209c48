/* encode.cu - Huffman encoding on the GPU, producing exactly the CPU backend's bitstream.
 *
 * The frame payload is the concatenation of every symbol's code (chunks only add the index of
 * chunk bit lengths), so the encoder is one pass over tiles of TILE symbols with a single-pass
 * scan across tiles (decoupled look-back):
 *  1. a block takes the next tile (atomic counter, so every tile it may wait for is already
 *     running), each thread looks up the codes of SPT consecutive symbols, and a block scan of
 *     the threads' bit counts gives each thread its bit offset inside the tile;
 *  2. the block publishes its tile's bit count, then warp 0 sums the counts of earlier tiles
 *     (stopping at the first tile that has published its inclusive prefix) to get the tile's
 *     bit offset in the payload, and publishes its own inclusive prefix;
 *  3. meanwhile the threads place their codes in a shared-memory copy of the tile: each word is
 *     stored by the thread holding its first bit, and a thread starting inside a word ORs its
 *     leading bits in after a barrier, so nothing needs zeroing;
 *  4. the tile is written to the payload at its bit offset with a funnel shift, as big-endian
 *     words; the word it shares with the previous tile (its "head") goes to a side array.
 * A small kernel then ORs the head words in and turns the chunk start positions (recorded by the
 * threads whose first symbol starts a chunk) into chunk bit lengths.
 * Bytes moved: the input once and the payload once (plus 12 bytes per tile), with no zeroing of
 * the payload and no intermediate copy. A code never has to fit a unit it was merged into, so
 * the paper's "breaking" units cannot occur. */
#include "huffman/encode_kernel.cuh"

/* The shapes the library uses, the fastest measured (bench/NOTES.md): 256 threads x 32 symbols
 * per tile, a few blocks per multiprocessor looping over the tiles with the next tile's loads
 * issued early, into registers for 1-byte symbols and by
 * asynchronous copies into shared memory, two interleaved runs per thread, for 2- and 4-byte
 * ones; registers capped so that 3 blocks fit a multiprocessor. The other shapes that were
 * measured live in the benchmark. */
namespace {

struct lib_shape {
	size_t tile = 256 * 32;
	template <int W>
	gpz_result launch(const uint8_t *d_src, const gpz_enc::enc_args &a, cudaStream_t s) const
	{
		if constexpr (W == 1) /* shape 6; many frames side by side are 1-byte symbols */
			return a.frames ? gpz_enc::launch_shape<W, 256, 32, 1, 3, 1, true>(d_src, a, s)
			                : gpz_enc::launch_shape<W, 256, 32, 1, 3, 1>(d_src, a, s);
		else
			return gpz_enc::launch_shape<W, 256, 32, 2, 3, 2>(d_src, a, s); /* shape 15 */
	}
};

} // namespace

extern "C" size_t gpz_gpu_encode_work(size_t n, int chunk_log, int max_len)
{
	(void)max_len;
	return gpz_gpu_encode_frames_work(n, n ? n : 1, chunk_log);
}

extern "C" gpz_result gpz_gpu_encode(const uint8_t *d_src, size_t n, int w,
                                     const uint32_t *d_table, uint32_t alphabet, int max_len,
                                     int chunk_log, uint32_t *d_chunk_bits, uint8_t *d_payload,
                                     void *d_work, size_t work_bytes, gpz_stream_t stream)
{
	/* one kernel pair (aligned input or not) per width: the shape each width measured best */
	return gpz_enc::encode_run(d_src, n, w, d_table, alphabet, max_len, chunk_log, d_chunk_bits,
	                           d_payload, d_work, work_bytes, lib_shape(), stream);
}

extern "C" size_t gpz_gpu_encode_frames_work(size_t n, size_t frame_n, int chunk_log)
{
	size_t ntiles, entries;
	if (n == 0 || frame_n == 0)
		return 0;
	gpz_enc::frame_counts(n, frame_n, gpz_enc::MIN_TILE, chunk_log, &ntiles, &entries);
	return gpz_enc::work_layout(ntiles, entries).total;
}

extern "C" gpz_result gpz_gpu_encode_frames(const uint8_t *d_src, size_t n, size_t frame_n,
                                            int w, const struct gpz_gpu_enc_frame *d_frames,
                                            uint32_t alphabet, int chunk_log, void *d_work,
                                            size_t work_bytes, gpz_stream_t stream)
{
	return gpz_enc::encode_frames_run(d_src, n, frame_n, w, d_frames, alphabet, chunk_log,
	                                  d_work, work_bytes, lib_shape(), stream);
}
