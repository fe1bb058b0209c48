/* encode.cu - Huffman encoding on the GPU, producing exactly the CPU backend's bitstream.
 *
 * Three steps, all on the device:
 *  1. encode: one block per chunk. The chunk is cut into tiles of TILE symbols; each thread
 *     takes SPT consecutive symbols, a block scan of the threads' bit counts gives each thread
 *     its bit offset, and the threads write their codes into a zeroed shared-memory tile (plain
 *     stores for words a thread owns, atomicOr for the two words it may share with neighbours).
 *     The tile is appended to the chunk's slot in global memory. Unlike the paper's
 *     reduce-merge/shuffle-merge into fixed 32-bit units, placement by scan has no "breaking"
 *     units: a code never has to fit a word it was merged into, so no bit can be lost.
 *  2. scan of the chunk bit lengths (cub) -> each chunk's bit offset in the frame payload.
 *  3. join: every chunk's slot is copied to its offset with a funnel shift; words are stored
 *     big-endian, so the payload bytes are the MSB-first stream of FORMAT.md.
 * Bytes moved: input once, the compressed stream three times (slot write, slot read, payload
 * write); on Nyx-Quant (16x compression) that is 1.2x the input. */
#include <cub/cub.cuh>

#include "gpu/gpu.h"
#include "gpu/cuda_check.h"

#define THREADS 512
#define SPT 16                    /* symbols per thread in a tile */
#define TILE (THREADS * SPT)      /* 8192 symbols */
#define TILE_WORDS (TILE * GPZ_MAX_CODE_LEN / 32)
#define SMEM_TABLE 4096u          /* encoder tables up to this size are staged in shared memory */

typedef cub::BlockScan<uint32_t, THREADS> BlockScan;

static size_t slot_words(int chunk_log, int max_len)
{
	return ((((size_t)1 << chunk_log) * (size_t)max_len + 31) / 32) + 1;
}

template <int W> __device__ __forceinline__ uint32_t load_symbol(const uint8_t *src, size_t i)
{
	if (W == 1)
		return src[i];
	if (W == 2)
		return (uint32_t)src[2 * i] | ((uint32_t)src[2 * i + 1] << 8);
	return (uint32_t)src[4 * i] | ((uint32_t)src[4 * i + 1] << 8) |
	       ((uint32_t)src[4 * i + 2] << 16) | ((uint32_t)src[4 * i + 3] << 24);
}

/* The SPT symbols of one thread: 16-byte vector loads when the input is aligned. */
template <int W, bool VEC>
__device__ __forceinline__ void load_symbols(const uint8_t *src, size_t i, size_t end,
                                             uint32_t (&sym)[SPT])
{
	if (VEC && i + SPT <= end) {
		const uint4 *v = reinterpret_cast<const uint4 *>(src + i * W);
#pragma unroll
		for (int q = 0; q < SPT * W / 16; q++) {
			uint4 x = __ldg(&v[q]);
			uint32_t wd[4] = { x.x, x.y, x.z, x.w };
#pragma unroll
			for (int k = 0; k < 16 / W; k++) {
				uint32_t word = wd[k * W / 4];
				sym[q * (16 / W) + k] = W == 4 ? word
				                      : W == 2 ? (word >> (16 * (k & 1))) & 0xffff
				                               : (word >> (8 * (k & 3))) & 0xff;
			}
		}
		return;
	}
#pragma unroll
	for (int k = 0; k < SPT; k++)
		sym[k] = i + k < end ? load_symbol<W>(src, i + k) : 0;
}

/* Write the thread's codes at bit `off` of the zeroed tile buffer. */
__device__ __forceinline__ void put_codes(uint32_t *buf, uint32_t off, const uint32_t (&e)[SPT])
{
	uint32_t wi = off / 32;
	int nacc = off % 32; /* bits of earlier threads in the first word */
	uint64_t acc = 0;
	bool shared_word = true;
#pragma unroll
	for (int k = 0; k < SPT; k++) {
		int len = e[k] & 0xff;
		if (len == 0)
			continue;
		acc |= (uint64_t)(e[k] >> 8) << (64 - nacc - len);
		nacc += len;
		if (nacc >= 32) {
			uint32_t word = (uint32_t)(acc >> 32);
			if (shared_word)
				atomicOr(&buf[wi], word);
			else
				buf[wi] = word;
			shared_word = false;
			wi++;
			acc <<= 32;
			nacc -= 32;
		}
	}
	if (nacc > 0 && (acc >> 32))
		atomicOr(&buf[wi], (uint32_t)(acc >> 32));
}

/* Append `bits` bits of buf at bit `pos` of slot (whose bits past pos are zero or unwritten). */
__device__ __forceinline__ void append_tile(uint32_t *slot, uint64_t pos, const uint32_t *buf,
                                            uint32_t bits)
{
	uint32_t sh = (uint32_t)(pos % 32);
	uint64_t base = pos / 32;
	uint32_t nsrc = (bits + 31) / 32, ndst = (uint32_t)((sh + bits + 31) / 32);
	for (uint32_t i = threadIdx.x; i < ndst; i += blockDim.x) {
		uint32_t hi = i < nsrc ? buf[i] : 0;
		uint32_t v = sh ? (hi >> sh) | (i ? buf[i - 1] << (32 - sh) : 0) : hi;
		if (i == 0 && sh)
			v |= slot[base] & (0xffffffffu << (32 - sh)); /* earlier tiles' bits */
		slot[base + i] = v;
	}
}

template <int W, bool VEC>
__global__ void __launch_bounds__(THREADS)
encode_kernel(const uint8_t *src, size_t n, const uint32_t *table, uint32_t alphabet,
              int chunk_log, uint32_t *slots, size_t words_per_slot, uint32_t *chunk_bits32,
              uint64_t *chunk_bits64)
{
	extern __shared__ uint32_t smem[];
	uint32_t *buf = smem;                  /* TILE_WORDS */
	uint32_t *stable = smem + TILE_WORDS;  /* staged encoder table, when small */
	__shared__ typename BlockScan::TempStorage scan_tmp;
	__shared__ uint32_t tile_total;
	size_t c = blockIdx.x;
	size_t first = c << chunk_log;
	size_t end = min(n, first + ((size_t)1 << chunk_log));
	uint32_t *slot = slots + c * words_per_slot;
	const uint32_t *tab = table;
	uint64_t pos = 0;

	if (alphabet <= SMEM_TABLE) {
		for (uint32_t i = threadIdx.x; i < alphabet; i += blockDim.x)
			stable[i] = table[i];
		tab = stable;
	}
	for (size_t t0 = first; t0 < end; t0 += TILE) {
		uint32_t sym[SPT], e[SPT], nb = 0, off, total;
		size_t i = t0 + (size_t)threadIdx.x * SPT;
		for (uint32_t k = threadIdx.x; k < TILE_WORDS; k += blockDim.x)
			buf[k] = 0;
		load_symbols<W, VEC>(src, i, end, sym);
		__syncthreads(); /* zeroed tile and staged table visible */
#pragma unroll
		for (int k = 0; k < SPT; k++) {
			e[k] = i + k < end ? tab[sym[k]] : 0;
			nb += e[k] & 0xff;
		}
		BlockScan(scan_tmp).ExclusiveSum(nb, off, total);
		put_codes(buf, off, e);
		if (threadIdx.x == 0)
			tile_total = total;
		__syncthreads();
		append_tile(slot, pos, buf, tile_total);
		pos += tile_total;
		__syncthreads(); /* the slot's last word and buf are reused next tile */
	}
	if (threadIdx.x == 0) {
		chunk_bits32[c] = (uint32_t)pos;
		chunk_bits64[c] = pos;
	}
}

/* Copy chunk slots to their bit offsets in the payload, as big-endian words. */
__global__ void join_kernel(const uint32_t *slots, size_t words_per_slot,
                            const uint64_t *chunk_bits, const uint64_t *offsets, size_t nchunks,
                            uint32_t *out)
{
	for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
		const uint32_t *src = slots + c * words_per_slot;
		uint64_t bits = chunk_bits[c], off = offsets[c];
		uint32_t sh = (uint32_t)(off % 32);
		uint64_t base = off / 32;
		uint32_t nsrc = (uint32_t)((bits + 31) / 32), ndst = (uint32_t)((sh + bits + 31) / 32);
		for (uint32_t i = threadIdx.x; i < ndst; i += blockDim.x) {
			uint32_t hi = i < nsrc ? src[i] : 0;
			uint32_t v = sh ? (hi >> sh) | (i ? src[i - 1] << (32 - sh) : 0) : hi;
			/* bits past the chunk's end are zero in the slot, so OR-ing is exact */
			v = __byte_perm(v, 0, 0x0123);
			if (i == 0 || i == ndst - 1)
				atomicOr(&out[base + i], v);
			else
				out[base + i] = v;
		}
	}
}

static size_t align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

/* Workspace regions, each 256-byte aligned (the 64-bit arrays and cub's temporary storage need
 * it; slot arrays have an odd number of words). */
struct enc_work {
	size_t bits64, offsets, scan, scan_bytes, total;
};

static enc_work work_layout(size_t nchunks, size_t wps)
{
	enc_work l;
	l.scan_bytes = 0;
	cub::DeviceScan::ExclusiveSum(NULL, l.scan_bytes, (uint64_t *)NULL, (uint64_t *)NULL,
	                              (int)(nchunks + 1));
	l.bits64 = align256(nchunks * wps * 4);
	l.offsets = l.bits64 + align256((nchunks + 1) * 8);
	l.scan = l.offsets + align256((nchunks + 1) * 8);
	l.total = l.scan + align256(l.scan_bytes);
	return l;
}

extern "C" size_t gpz_gpu_encode_work(size_t n, int chunk_log, int max_len)
{
	size_t nchunks = (n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
	return work_layout(nchunks, slot_words(chunk_log, max_len)).total;
}

template <int W>
static gpz_result launch_encode(const uint8_t *d_src, size_t n, const uint32_t *d_table,
                                uint32_t alphabet, int chunk_log, uint32_t *slots, size_t wps,
                                uint32_t *d_chunk_bits, uint64_t *bits64, size_t nchunks,
                                cudaStream_t s)
{
	size_t smem = TILE_WORDS * 4 + (alphabet <= SMEM_TABLE ? alphabet * 4 : 0);
	bool vec = reinterpret_cast<uintptr_t>(d_src) % 16 == 0;
	auto k = vec ? encode_kernel<W, true> : encode_kernel<W, false>;
	GPZ_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	k<<<(unsigned)nchunks, THREADS, smem, s>>>(d_src, n, d_table, alphabet, chunk_log, slots, wps,
	                                           d_chunk_bits, bits64);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_encode(const uint8_t *d_src, size_t n, int w,
                                     const uint32_t *d_table, uint32_t alphabet, int max_len,
                                     int chunk_log, uint32_t *d_chunk_bits, uint8_t *d_payload,
                                     void *d_work, size_t work_bytes, gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	size_t nchunks = (n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
	size_t wps = slot_words(chunk_log, max_len);
	uint8_t *p = (uint8_t *)d_work;
	enc_work l = work_layout(nchunks, wps);
	uint32_t *slots = (uint32_t *)p;
	uint64_t *bits64 = (uint64_t *)(p + l.bits64);
	uint64_t *offsets = (uint64_t *)(p + l.offsets);
	void *scan_tmp = p + l.scan;
	size_t scan_bytes = l.scan_bytes;
	gpz_result r;

	if (n == 0 || nchunks > 0x7fffffffu || work_bytes < l.total ||
	    reinterpret_cast<uintptr_t>(d_work) % 256)
		return GPZ_ERR_PARAM;
	GPZ_CUDA_TRY(cudaMemsetAsync(bits64 + nchunks, 0, 8, s));
	r = w == 1 ? launch_encode<1>(d_src, n, d_table, alphabet, chunk_log, slots, wps,
	                              d_chunk_bits, bits64, nchunks, s)
	  : w == 2 ? launch_encode<2>(d_src, n, d_table, alphabet, chunk_log, slots, wps,
	                              d_chunk_bits, bits64, nchunks, s)
	           : launch_encode<4>(d_src, n, d_table, alphabet, chunk_log, slots, wps,
	                              d_chunk_bits, bits64, nchunks, s);
	if (r != GPZ_OK)
		return r;
	GPZ_CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_tmp, scan_bytes, bits64, offsets,
	                                           (int)(nchunks + 1), s));
	unsigned blocks = (unsigned)(nchunks < 65535 ? nchunks : 65535);
	join_kernel<<<blocks, 256, 0, s>>>(slots, wps, bits64, offsets, nchunks,
	                                    (uint32_t *)d_payload);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}
