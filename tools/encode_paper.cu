/* encode_paper.cu - the paper's GPU encoder (Tian et al., IPDPS 2021, section IV-C): reduce-merge
 * then shuffle-merge, kept beside encode.cu for comparison. Its output is byte for byte that of
 * gpz_gpu_encode: the chunk bit lengths and the joined MSB-first payload of FORMAT.md.
 *
 *  1. merge kernel: blocks of PT threads, one chunk of 2^M symbols per block (several when a
 *     chunk has fewer than PT units).
 *     - reduce-merge: a thread concatenates the codes of 2^r consecutive symbols in a register,
 *       Merge((a, l), (b, m)) = (a << m | b, l + m), into a "unit": one left-aligned 32-bit word
 *       and its bit length. The merge is associative, so this sequential fold equals the paper's
 *       r rounds of pairwise merging.
 *     - shuffle-merge: s = M - r rounds over the chunk's 2^s units in shared memory. In round k
 *       each left group of 2^k words receives its right group at the left group's end bit: the
 *       word at the end is completed and the right group's words follow, funnel-shifted. One
 *       thread per destination word reads, a barrier, then writes, so the in-place move is free of
 *       races. Group lengths sum pairwise in place (lens[start of group]).
 *     - a unit longer than 32 bits ("breaking") cannot be held in its word. Its length is clamped
 *       so that the rounds stay in bounds, it is counted, and its chunk is queued: the merge
 *       kernel writes nothing for that chunk.
 *  2. redo kernel: one warp per queued chunk re-encodes it by placement: a warp scan of 32 code
 *     lengths at a time gives each code its bit offset, and codes are ORed into the chunk's slot,
 *     whose words are zeroed as they are first reached. No bit of a breaking unit is lost.
 *  3. scan of the chunk bit lengths (cub) -> each chunk's bit offset in the payload.
 *  4. join kernel: one warp per chunk writes the payload words whose first bit lies in its chunk,
 *     completing its last word with the head of the next chunk's slot, as big-endian words. Every
 *     payload word is stored by exactly one thread, so the payload needs no zeroing, may have any
 *     alignment, and no byte outside it is touched.
 * Chunk slots are 2^M * max_len bits (the redo kernel may need them all). */
#include <cub/cub.cuh>
#include <string.h>

#include "huffman/huffman_gpu.h"
#include "bench_kernels.h"
#include "gpu/cuda_check.h"

#define PT 256                  /* threads per merge block */
#define MAX_CPB (PT / 8)        /* chunks per merge block: a chunk has >= 2^(8 - 5) units */
#define MAX_R 5                 /* 2^5 codes of >= 1 bit: beyond that every unit breaks */
#define MIN_CHUNK_LOG 8
#define MAX_CHUNK_LOG 16
#define MAX_SHUFFLE_LOG 14      /* units per chunk: 8 bytes each in shared memory */
#define TABLE_IN_SMEM 4096u     /* encoder tables up to this size are staged in shared memory */
#define JOIN_BLOCK 256
#define REDO_BLOCK 256

/* #pragma unroll inside functions that are also compiled for the host */
#ifdef __CUDA_ARCH__
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

namespace {

/* ---- loading symbols ---- */

template <int W> __host__ __device__ __forceinline__ uint32_t load_symbol(const uint8_t *src,
                                                                          size_t i)
{
	const uint8_t *p = src + i * W;
	uint32_t v = p[0];
	if (W >= 2)
		v |= (uint32_t)p[1] << 8;
	if (W == 4)
		v |= ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
	return v;
}

/* B bytes at p (aligned to min(B, 16)) as little-endian 32-bit words; B < 4 fills word 0. */
template <int B> __host__ __device__ __forceinline__ void load_words(const uint8_t *p,
                                                                    uint32_t *wv)
{
#ifdef __CUDA_ARCH__
	if constexpr (B >= 16) {
#pragma unroll
		for (int q = 0; q < B / 16; q++) {
			uint4 x = __ldg(reinterpret_cast<const uint4 *>(p) + q);
			wv[4 * q] = x.x;
			wv[4 * q + 1] = x.y;
			wv[4 * q + 2] = x.z;
			wv[4 * q + 3] = x.w;
		}
	} else if constexpr (B == 8) {
		uint2 x = __ldg(reinterpret_cast<const uint2 *>(p));
		wv[0] = x.x;
		wv[1] = x.y;
	} else if constexpr (B == 4) {
		wv[0] = __ldg(reinterpret_cast<const unsigned int *>(p));
	} else if constexpr (B == 2) {
		wv[0] = __ldg(reinterpret_cast<const unsigned short *>(p));
	} else {
		wv[0] = __ldg(p);
	}
#else
	wv[0] = 0;
	memcpy(wv, p, B);
#endif
}

/* ---- reduce-merge ---- */

/* Append code e = (code << 8) | len to the unit (acc: its codes, right-aligned; *bits: length).
 * Exact while the unit holds at most 32 bits; past that acc keeps only its low 32 bits. */
__host__ __device__ __forceinline__ void merge_code(uint32_t e, uint32_t &acc, uint32_t &bits)
{
	uint32_t len = e & 0xff;
	acc = (acc << len) | (e >> 8);
	bits += len;
}

/* Merge the codes of symbols [i0, min(i0 + 2^R, end)) into a unit; returns its length in bits
 * and stores its word, left-aligned with zero bits after the codes (garbage past 32 bits). */
template <int W, int R, bool VEC>
__host__ __device__ __forceinline__ uint32_t merge_unit(const uint8_t *src, size_t i0, size_t end,
                                                       const uint32_t *tab, uint32_t *word)
{
	const int K = 1 << R, B = W << R;
	uint32_t acc = 0, bits = 0;
	if (VEC && i0 + K <= end) {
		const int NW = B >= 4 ? B / 4 : 1, SPW = (B >= 4 ? 4 : B) / W;
		uint32_t wv[NW];
		load_words<B>(src + i0 * W, wv);
UNROLL
		for (int q = 0; q < NW; q++) {
UNROLL
			for (int k = 0; k < SPW; k++) {
				uint32_t sym = W == 4 ? wv[q]
				             : W == 2 ? (wv[q] >> (16 * k)) & 0xffff
				                      : (wv[q] >> (8 * k)) & 0xff;
				merge_code(tab[sym], acc, bits);
			}
		}
	} else {
UNROLL
		for (int k = 0; k < K; k++)
			if (i0 + k < end)
				merge_code(tab[load_symbol<W>(src, i0 + k)], acc, bits);
	}
	*word = bits == 0 ? 0 : bits >= 32 ? acc : acc << (32 - bits);
	return bits;
}

/* ---- shuffle-merge ---- */

/* One thread's part of a shuffle round: store val at words[dst] (when dst >= 0) and the merged
 * group's length at lens[len_at] (when len_at >= 0). */
struct shuffle_op {
	int32_t dst;
	uint32_t val;
	int32_t len_at;
	uint32_t len;
};

/* Round k, item q of the block's words: q lies in the merged group of 2^(k+1) words starting at
 * gb; it is the group's destination word x = q - gb counted from the left group's end word.
 * Reads only; the caller writes after a barrier. Bits of a group past its length are zero in its
 * last word; words past that are garbage and never read. */
__host__ __device__ __forceinline__ shuffle_op shuffle_read(const uint32_t *words,
                                                          const uint32_t *lens, uint32_t q, int k)
{
	uint32_t half = 1u << k, gb = q & ~(2 * half - 1), x = q & (2 * half - 1);
	uint32_t ll = lens[gb], lr = lens[gb + half];
	uint32_t o = ll / 32, b = ll % 32;          /* left group's end: word o, bit b */
	uint32_t nr = (lr + 31) / 32, nd = (b + lr + 31) / 32;
	shuffle_op op;
	op.dst = -1;
	op.val = 0;
	/* the group's last item updates the length: every item of the group has read it by then */
	op.len_at = x == 2 * half - 1 ? (int32_t)gb : -1;
	op.len = ll + lr;
	if (x < nd) {
		const uint32_t *right = words + gb + half;
		uint32_t v = x < nr ? right[x] : 0;
		if (b) {
			v = (v >> b) | (x ? right[x - 1] << (32 - b) : 0);
			if (x == 0)
				v |= words[gb + o] & (0xffffffffu << (32 - b));
		}
		op.dst = (int32_t)(gb + o + x);
		op.val = v;
	}
	return op;
}

__host__ __device__ __forceinline__ void shuffle_write(uint32_t *words, uint32_t *lens,
                                                      const shuffle_op &op)
{
	if (op.dst >= 0)
		words[op.dst] = op.val;
	if (op.len_at >= 0)
		lens[op.len_at] = op.len;
}

struct merge_args {
	const uint8_t *src;
	size_t n, nchunks;
	const uint32_t *table;
	uint32_t alphabet;
	int chunk_log;
	int s;                   /* chunk_log - r: log2 of the units per chunk, shuffle rounds */
	uint32_t *slots;         /* per chunk: wps words */
	size_t wps;
	uint32_t *chunk_bits;
	uint64_t *bits64;        /* nchunks + 1 entries, the last 0, for the scan */
	uint32_t *redo;          /* queued chunks */
	unsigned int *counters;  /* [0]: chunks queued, [1]: breaking units; zeroed per call */
	size_t table_smem;       /* entries staged in shared memory (0 or alphabet) */
};

/* Words (and lengths) a merge block holds: max(PT, units per chunk). */
__host__ __device__ __forceinline__ uint32_t block_span(int s)
{
	return (1u << s) > PT ? (1u << s) : PT;
}

template <int W, int R, bool VEC>
__global__ void __launch_bounds__(PT) merge_kernel(merge_args a)
{
	extern __shared__ uint32_t smem[];
	__shared__ int s_broken[MAX_CPB];
	const int s = a.s;
	const uint32_t span = block_span(s), upt = span / PT, umask = (1u << s) - 1;
	uint32_t *words = smem, *lens = smem + span, *stable = smem + 2 * span;
	const uint32_t *tab = a.table;
	const size_t chunk0 = (size_t)blockIdx.x * (span >> s);

	if (a.table_smem) {
		for (uint32_t i = threadIdx.x; i < a.table_smem; i += PT)
			stable[i] = __ldg(&a.table[i]);
		tab = stable;
	}
	if (threadIdx.x < MAX_CPB)
		s_broken[threadIdx.x] = 0;
	__syncthreads();

	/* reduce-merge: one unit per item */
	unsigned breaking = 0;
	for (uint32_t j = 0; j < upt; j++) {
		uint32_t q = j * PT + threadIdx.x, word;
		size_t first = (chunk0 + (q >> s)) << a.chunk_log;
		size_t end = min(a.n, first + ((size_t)1 << a.chunk_log));
		uint32_t bits = merge_unit<W, R, VEC>(a.src, first + ((size_t)(q & umask) << R), end,
		                                      tab, &word);
		words[q] = word;
		lens[q] = min(bits, 32u);
		if (bits > 32)
			s_broken[q >> s] = 1;
		breaking += __syncthreads_count(bits > 32);
	}

	/* shuffle-merge: s rounds, each in batches of PT items (read, barrier, write, barrier). The
	 * batches of a group go in increasing order and data moves to lower or equal addresses, so
	 * a later batch never reads a word an earlier batch has overwritten. */
	for (int k = 0; k < s; k++) {
		for (uint32_t j = 0; j < upt; j++) {
			shuffle_op op = shuffle_read(words, lens, j * PT + threadIdx.x, k);
			__syncthreads();
			shuffle_write(words, lens, op);
			__syncthreads();
		}
	}

	/* the chunks' streams to their slots, or the chunks to the redo queue */
	for (uint32_t j = 0; j < upt; j++) {
		uint32_t q = j * PT + threadIdx.x, cl = q >> s, wi = q & umask;
		size_t c = chunk0 + cl;
		if (c >= a.nchunks)
			continue;
		uint32_t bits = lens[cl << s];
		if (s_broken[cl]) {
			if (wi == 0)
				a.redo[atomicAdd(&a.counters[0], 1u)] = (uint32_t)c;
			continue;
		}
		if (wi < (bits + 31) / 32)
			a.slots[c * a.wps + wi] = words[q];
		if (wi == 0) {
			a.chunk_bits[c] = bits;
			a.bits64[c] = bits;
		}
	}
	if (threadIdx.x == 0 && breaking)
		atomicAdd(&a.counters[1], breaking);
}

/* ---- redo: queued chunks by placement ---- */

/* OR code e = (code << 8) | len (len >= 1) in at bit pos of slot. */
__host__ __device__ __forceinline__ void place_code(uint32_t *slot, uint64_t pos, uint32_t e)
{
	uint32_t len = e & 0xff, sh = (uint32_t)(pos % 32);
	uint64_t v = (uint64_t)(e >> 8) << (64 - sh - len);
	uint32_t *p = slot + pos / 32;
#ifdef __CUDA_ARCH__
	atomicOr(p, (uint32_t)(v >> 32));
	if (sh + len > 32)
		atomicOr(p + 1, (uint32_t)v);
#else
	p[0] |= (uint32_t)(v >> 32);
	if (sh + len > 32)
		p[1] |= (uint32_t)v;
#endif
}

template <int W> __global__ void __launch_bounds__(REDO_BLOCK) redo_kernel(merge_args a)
{
	const unsigned FULL = 0xffffffffu;
	unsigned lane = threadIdx.x % 32, queued = a.counters[0];
	size_t warp = ((size_t)blockIdx.x * REDO_BLOCK + threadIdx.x) / 32;
	size_t nwarps = (size_t)gridDim.x * REDO_BLOCK / 32;

	for (size_t qi = warp; qi < queued; qi += nwarps) {
		size_t c = a.redo[qi], first = c << a.chunk_log;
		size_t end = min(a.n, first + ((size_t)1 << a.chunk_log));
		uint32_t *slot = a.slots + c * a.wps;
		uint64_t pos = 0;
		for (size_t i0 = first; i0 < end; i0 += 32) {
			uint32_t e = i0 + lane < end ? __ldg(&a.table[load_symbol<W>(a.src, i0 + lane)]) : 0;
			uint32_t len = e & 0xff, incl = len;
#pragma unroll
			for (unsigned d = 1; d < 32; d *= 2) {
				uint32_t y = __shfl_up_sync(FULL, incl, d);
				if (lane >= d)
					incl += y;
			}
			uint32_t step = __shfl_sync(FULL, incl, 31);
			/* words first reached in this step: [ceil(pos / 32), ceil((pos + step) / 32)),
			 * at most 25 (32 codes of <= 24 bits) */
			uint64_t z0 = (pos + 31) / 32, z1 = (pos + step + 31) / 32;
			if (z0 + lane < z1)
				slot[z0 + lane] = 0;
			__syncwarp();
			if (len)
				place_code(slot, pos + incl - len, e);
			pos += step;
		}
		if (lane == 0) {
			a.chunk_bits[c] = (uint32_t)pos;
			a.bits64[c] = pos;
		}
	}
}

/* ---- join ---- */

/* Chunk c's j-th payload word (the word at bit offset base_bits + offs[c], rounded down, plus j)
 * as a big-endian value; j == last completes it with the head of chunk c + 1. */
__host__ __device__ __forceinline__ uint32_t join_word(const uint32_t *src, uint64_t bits,
                                                      uint32_t sh, uint32_t j, uint32_t last,
                                                      const uint32_t *next)
{
	uint32_t nsrc = (uint32_t)((bits + 31) / 32);
	uint32_t cur = j < nsrc ? src[j] : 0, v = cur;
	if (sh)
		v = (cur >> sh) | (j ? src[j - 1] << (32 - sh) : 0);
	uint32_t tail = (uint32_t)((sh + bits) % 32);
	if (j == last && tail && next)
		v |= next[0] >> tail; /* chunk c's bits after its end are zero */
	return v;
}

/* Store v (the stream's first bit in its MSB) as payload word g of out, whose bytes
 * [lo, hi) are the payload; bytes outside it are not touched. */
__host__ __device__ __forceinline__ void store_word(uint32_t *out, uint64_t g, uint32_t v,
                                                   uint64_t lo, uint64_t hi)
{
	if (4 * g >= lo && 4 * g + 4 <= hi) {
#ifdef __CUDA_ARCH__
		out[g] = __byte_perm(v, 0, 0x0123);
#else
		uint8_t *p = (uint8_t *)(out + g);
		for (int b = 0; b < 4; b++)
			p[b] = (uint8_t)(v >> (24 - 8 * b));
#endif
		return;
	}
	uint8_t *p = (uint8_t *)(out + g);
	for (uint64_t b = 0; b < 4; b++)
		if (4 * g + b >= lo && 4 * g + b < hi)
			p[b] = (uint8_t)(v >> (24 - 8 * b));
}

__global__ void __launch_bounds__(JOIN_BLOCK)
join_kernel(const uint32_t *slots, size_t wps, const uint64_t *offs, size_t nchunks,
            uint32_t base_bits, uint32_t *out)
{
	unsigned lane = threadIdx.x % 32;
	size_t warp = ((size_t)blockIdx.x * JOIN_BLOCK + threadIdx.x) / 32;
	size_t nwarps = (size_t)gridDim.x * JOIN_BLOCK / 32;
	uint64_t lo = base_bits / 8, hi = lo + (offs[nchunks] + 7) / 8;

	for (size_t c = warp; c < nchunks; c += nwarps) {
		uint64_t off = base_bits + offs[c], bits = offs[c + 1] - offs[c];
		uint32_t sh = (uint32_t)(off % 32);
		uint32_t last = (uint32_t)((sh + bits + 31) / 32) - 1;
		const uint32_t *next = c + 1 < nchunks ? slots + (c + 1) * wps : NULL;
		/* word 0 belongs to the chunk before when the chunk starts inside it */
		for (uint32_t j = (sh && c) ? 1 + lane : lane; j <= last; j += 32)
			store_word(out, off / 32 + j,
			           join_word(slots + c * wps, bits, sh, j, last, next), lo, hi);
	}
}

size_t align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

size_t count_chunks(size_t n, int chunk_log)
{
	return (n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
}

size_t slot_words(int chunk_log, int max_len)
{
	return (((size_t)1 << chunk_log) * (size_t)max_len + 31) / 32;
}

/* Workspace regions, 256-byte aligned. */
struct paper_work {
	size_t bits64, offs, redo, counters, scan, scan_bytes, total;
};

paper_work work_layout(size_t nchunks, size_t wps)
{
	paper_work l;
	l.scan_bytes = 0;
	cub::DeviceScan::ExclusiveSum(NULL, l.scan_bytes, (uint64_t *)NULL, (uint64_t *)NULL,
	                              (int)(nchunks + 1));
	l.bits64 = align256(nchunks * wps * 4);
	l.offs = l.bits64 + align256((nchunks + 1) * 8);
	l.redo = l.offs + align256((nchunks + 1) * 8);
	l.counters = l.redo + align256(nchunks * 4);
	l.scan = l.counters + 256;
	l.total = l.scan + align256(l.scan_bytes);
	return l;
}

template <int W, int R>
gpz_result launch_merge(const merge_args &a, size_t smem, unsigned blocks, cudaStream_t s)
{
	const int B = W << R;
	bool vec = reinterpret_cast<uintptr_t>(a.src) % (B < 16 ? B : 16) == 0;
	auto k = vec ? merge_kernel<W, R, true> : merge_kernel<W, R, false>;
	GPZ_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	k<<<blocks, PT, smem, s>>>(a);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

template <int W>
gpz_result launch_w(const merge_args &a, int r, size_t smem, unsigned blocks, cudaStream_t s)
{
	gpz_result res;
	switch (r) {
	case 0: res = launch_merge<W, 0>(a, smem, blocks, s); break;
	case 1: res = launch_merge<W, 1>(a, smem, blocks, s); break;
	case 2: res = launch_merge<W, 2>(a, smem, blocks, s); break;
	case 3: res = launch_merge<W, 3>(a, smem, blocks, s); break;
	case 4: res = launch_merge<W, 4>(a, smem, blocks, s); break;
	default: res = launch_merge<W, 5>(a, smem, blocks, s); break;
	}
	if (res != GPZ_OK)
		return res;
	size_t warps_wanted = a.nchunks < ((size_t)1 << 15) ? a.nchunks : ((size_t)1 << 15);
	unsigned rblocks = (unsigned)((warps_wanted + REDO_BLOCK / 32 - 1) / (REDO_BLOCK / 32));
	redo_kernel<W><<<rblocks, REDO_BLOCK, 0, s>>>(a);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

} // namespace

extern "C" int gpz_paper_choose_r(double avg_bits)
{
	/* the paper: floor(log2 avg) + r + 1 = log2 32, so 2^r * avg lies in [16, 32) */
	int f = 0;
	double x = avg_bits;
	while (x >= 2.0 && f < 4) {
		x /= 2.0;
		f++;
	}
	return 4 - f;
}

extern "C" size_t gpz_gpu_encode_paper_work(size_t n, int chunk_log, int max_len)
{
	if (chunk_log < MIN_CHUNK_LOG || chunk_log > MAX_CHUNK_LOG || max_len < 1 ||
	    max_len > GPZ_MAX_CODE_LEN)
		return 0;
	return work_layout(count_chunks(n, chunk_log), slot_words(chunk_log, max_len)).total;
}

extern "C" gpz_result gpz_gpu_encode_paper(const uint8_t *d_src, size_t n, int w,
                                           const uint32_t *d_table, uint32_t alphabet,
                                           int max_len, int chunk_log, int r,
                                           uint32_t *d_chunk_bits, uint8_t *d_payload,
                                           void *d_work, size_t work_bytes,
                                           gpz_stream_t stream, struct gpz_paper_stats *stats)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (n == 0 || (w != 1 && w != 2 && w != 4) || chunk_log < MIN_CHUNK_LOG ||
	    chunk_log > MAX_CHUNK_LOG || r < 0 || r > MAX_R || chunk_log - r > MAX_SHUFFLE_LOG ||
	    max_len < 1 || max_len > GPZ_MAX_CODE_LEN || alphabet == 0 ||
	    reinterpret_cast<uintptr_t>(d_work) % 256)
		return GPZ_ERR_PARAM;
	size_t nchunks = count_chunks(n, chunk_log), wps = slot_words(chunk_log, max_len);
	paper_work l = work_layout(nchunks, wps);
	int s = chunk_log - r;
	uint32_t span = block_span(s);
	size_t cpb = span >> s, blocks = (nchunks + cpb - 1) / cpb;
	if (work_bytes < l.total || nchunks > 0x7fffffffu || blocks > 0x7fffffffu)
		return GPZ_ERR_PARAM;

	merge_args a;
	uint8_t *p = (uint8_t *)d_work;
	a.src = d_src;
	a.n = n;
	a.nchunks = nchunks;
	a.table = d_table;
	a.alphabet = alphabet;
	a.chunk_log = chunk_log;
	a.s = s;
	a.slots = (uint32_t *)p;
	a.wps = wps;
	a.chunk_bits = d_chunk_bits;
	a.bits64 = (uint64_t *)(p + l.bits64);
	a.redo = (uint32_t *)(p + l.redo);
	a.counters = (unsigned int *)(p + l.counters);
	a.table_smem = alphabet <= TABLE_IN_SMEM ? alphabet : 0;
	uint64_t *offs = (uint64_t *)(p + l.offs);

	size_t smem = (size_t)span * 8 + a.table_smem * 4;
	int dev = 0, optin = 0;
	GPZ_CUDA_TRY(cudaGetDevice(&dev));
	GPZ_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
	if (smem + MAX_CPB * sizeof(int) > (size_t)optin)
		return GPZ_ERR_PARAM;

	GPZ_CUDA_TRY(cudaMemsetAsync(a.counters, 0, 8, st));
	GPZ_CUDA_TRY(cudaMemsetAsync(a.bits64 + nchunks, 0, 8, st));
	gpz_result res = w == 1 ? launch_w<1>(a, r, smem, (unsigned)blocks, st)
	               : w == 2 ? launch_w<2>(a, r, smem, (unsigned)blocks, st)
	                        : launch_w<4>(a, r, smem, (unsigned)blocks, st);
	if (res != GPZ_OK)
		return res;
	size_t scan_bytes = l.scan_bytes;
	GPZ_CUDA_TRY(cub::DeviceScan::ExclusiveSum(p + l.scan, scan_bytes, a.bits64, offs,
	                                           (int)(nchunks + 1), st));
	size_t mis = reinterpret_cast<uintptr_t>(d_payload) % 4;
	size_t jblocks = (nchunks + JOIN_BLOCK / 32 - 1) / (JOIN_BLOCK / 32);
	if (jblocks > ((size_t)1 << 20))
		jblocks = (size_t)1 << 20;
	join_kernel<<<(unsigned)jblocks, JOIN_BLOCK, 0, st>>>(a.slots, wps, offs, nchunks,
	                                                     (uint32_t)(8 * mis),
	                                                     (uint32_t *)(d_payload - mis));
	GPZ_LAUNCH_TRY();

	if (stats) {
		unsigned int h[2];
		GPZ_CUDA_TRY(cudaMemcpyAsync(h, a.counters, sizeof(h), cudaMemcpyDeviceToHost, st));
		GPZ_CUDA_TRY(cudaStreamSynchronize(st));
		stats->r = r;
		stats->units = (uint64_t)((n + ((size_t)1 << r) - 1) >> r);
		stats->breaking = h[1];
	}
	return GPZ_OK;
}
