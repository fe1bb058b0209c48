/*
 * decode.cu - LZ-symbol chunks decoded on the GPU (lzsym_gpu.h), a warp per chunk. Every lane
 * decodes the same token from the same bits (the loads are broadcasts), then the warp writes it
 * together: a run in 16-byte stores, a match as a copy whose source repeats with the distance's
 * period (an overlapping copy is periodic, so every lane reads symbols written before the
 * match), a literal by one lane. Nyx-Quant's chunks are a few dozen runs each, so the warp
 * mostly stores. Every check of gpz_lzs_decode_chunk (coder.c) is made in the same order, so a
 * stream is rejected exactly when the CPU rejects it; bits past the payload read as zeros.
 */
#include "lzsym/lzsym_gpu.h"
#include "gpu/cuda_check.h"

#include <stdlib.h>
#include <string.h>

#define TB GPZ_DECODE_TABLE_BITS
#define NB GPZ_LZS_BUCKETS
#define WARPS 4
#define FULL 0xffffffffu

/* One code as the host decoder holds it (huffman.h), in device memory. */
struct dcode {
	const uint32_t *table;  /* 2^TB entries: (symbol << 5) | length, 0 when longer */
	const uint32_t *limit;  /* GPZ_MAX_CODE_LEN + 2, left-aligned on 24 bits */
	const int32_t *base;    /* GPZ_MAX_CODE_LEN + 1 */
	const uint32_t *sorted; /* symbols by (length, symbol) */
};

struct dparams {
	dcode main, dist;
	int has_dist;
	const uint8_t *pay;
	uint64_t size;
	const uint64_t *chunk_start;
	uint64_t n, nchunks;
	int w, chunk_log;
	uint32_t alphabet, z;
	uint8_t *dst;
	uint32_t *flag;
};

/* The 32 bits from bit pos of the payload, zeros past its end. */
__device__ __forceinline__ uint32_t peek32(const dparams &p, uint64_t pos)
{
	const uint64_t b = pos >> 3;
	uint64_t v = 0;
	for (unsigned k = 0; k < 5; k++)
		v = v << 8 | (b + k < p.size ? __ldg(p.pay + b + k) : 0u);
	return (uint32_t)(v >> (8 - (pos & 7)));
}

__device__ __forceinline__ uint32_t take(const dparams &p, uint64_t &pos, unsigned n)
{
	if (!n)
		return 0;
	uint32_t v = peek32(p, pos) >> (32 - n);
	pos += n;
	return v;
}

/* coder.c's decode_sym: the table, else the canonical search over 24 bits. */
__device__ __forceinline__ uint32_t decode_sym(const dparams &p, const dcode &c, uint64_t &pos)
{
	const uint32_t top = peek32(p, pos);
	uint32_t e = __ldg(c.table + (top >> (32 - TB))), len = e & 31, sym = e >> 5;
	if (len == 0) {
		const uint32_t t24 = top >> 8;
		len = TB + 1;
		while (t24 >= __ldg(c.limit + len))
			len++;
		sym = __ldg(c.sorted + __ldg(c.base + len) + (int32_t)(t24 >> (24 - len)));
	}
	pos += len;
	return sym;
}

__device__ __forceinline__ void store_sym(uint8_t *o, uint64_t i, int w, uint32_t v)
{
	uint8_t *q = o + i * (uint64_t)w;
	for (int k = 0; k < w; k++)
		q[k] = (uint8_t)(v >> (8 * k));
}

__device__ __forceinline__ uint32_t load_sym(const uint8_t *o, uint64_t i, int w)
{
	const uint8_t *q = o + i * (uint64_t)w;
	uint32_t v = 0;
	for (int k = 0; k < w; k++)
		v |= (uint32_t)q[k] << (8 * k);
	return v;
}

/* Symbols [i, i + len) of out set to z by the warp: 16-byte stores of z repeated between the
 * run's first and last 16-byte boundaries when out is 16-byte aligned (a chunk's output starts a
 * multiple of 256 symbols into dst, so the pattern's phase is the same at every boundary),
 * bytes elsewhere. */
__device__ __forceinline__ void fill_run(uint8_t *out, uint64_t i, uint64_t len, int w, uint32_t z,
                                         unsigned lane)
{
	const uint64_t a = i * (uint64_t)w, b = (i + len) * (uint64_t)w;
	const uint64_t a16 = (a + 15) & ~15ull, b16 = b & ~15ull;
	const uint32_t zp = w == 1 ? z * 0x01010101u : w == 2 ? z | z << 16 : z;
	if (((uintptr_t)out & 15) == 0 && a16 < b16) {
		const uint4 q = make_uint4(zp, zp, zp, zp);
		for (uint64_t o = a16 + 16 * (uint64_t)lane; o < b16; o += 16 * 32)
			*(uint4 *)(out + o) = q;
		if (lane < a16 - a)
			out[a + lane] = (uint8_t)(zp >> (8 * ((a + lane) & 3)));
		if (lane < b - b16)
			out[b16 + lane] = (uint8_t)(zp >> (8 * ((b16 + lane) & 3)));
		return;
	}
	for (uint64_t o = a + lane; o < b; o += 32)
		out[o] = (uint8_t)(zp >> (8 * (o & 3)));
}

/* One chunk: 0 when its tokens make exactly its m symbols and end at bit `to`. */
__device__ int decode_chunk(const dparams &p, uint64_t from, uint64_t to, uint64_t m,
                            uint8_t *out, unsigned lane)
{
	uint64_t pos = from, i = 0;
	while (i < m) {
		uint32_t s = decode_sym(p, p.main, pos);
		if (s < p.alphabet) {
			if (lane == 0)
				store_sym(out, i, p.w, s);
			i++;
			continue;
		}
		s -= p.alphabet;
		if (s < NB) { /* a run of z */
			const uint64_t len =
			        1 + gpz_lzs_base(s) + take(p, pos, gpz_lzs_extra_bits(s));
			if (len > m - i)
				return 1;
			fill_run(out, i, len, p.w, p.z, lane);
			i += len;
			continue;
		}
		s -= NB; /* a match: its length, then its distance */
		const uint32_t len =
		        GPZ_LZS_MIN_MATCH + gpz_lzs_base(s) + take(p, pos, gpz_lzs_extra_bits(s));
		if (!p.has_dist || len > m - i)
			return 1;
		const uint32_t ds = decode_sym(p, p.dist, pos);
		const uint32_t dist = 1 + gpz_lzs_base(ds) + take(p, pos, gpz_lzs_extra_bits(ds));
		if (dist > i)
			return 1;
		__syncwarp(); /* what the lanes wrote before is the source */
		for (uint32_t k = lane; k < len; k += 32)
			store_sym(out, i + k, p.w, load_sym(out, i - dist + k % dist, p.w));
		__syncwarp();
		i += len;
	}
	return pos - from != to - from;
}

__global__ void __launch_bounds__(WARPS * 32) decode_kernel(const dparams p)
{
	const unsigned lane = threadIdx.x & 31;
	const uint64_t warps = (uint64_t)gridDim.x * WARPS;
	for (uint64_t c = (uint64_t)blockIdx.x * WARPS + (threadIdx.x >> 5); c < p.nchunks;
	     c += warps) {
		const uint64_t c0 = c << p.chunk_log, full = 1ull << p.chunk_log;
		const uint64_t m = p.n - c0 < full ? p.n - c0 : full;
		if (decode_chunk(p, p.chunk_start[c], p.chunk_start[c + 1], m,
		                 p.dst + c0 * (uint64_t)p.w, lane) && lane == 0)
			atomicOr(p.flag, 1u);
		__syncwarp();
	}
}

/* Words of a code's device image: table, limit, base, sorted. */
static size_t code_words(const gpz_decoder *d, uint32_t *nused)
{
	const int l = d->max_len;
	*nused = (uint32_t)(d->base[l] + (int32_t)(d->limit[l] >> (24 - l)));
	return ((size_t)1 << TB) + (GPZ_MAX_CODE_LEN + 2) + (GPZ_MAX_CODE_LEN + 1) + *nused;
}

static void code_image(const gpz_decoder *d, uint32_t nused, uint32_t *img, const uint32_t *dimg,
                       dcode *c)
{
	const size_t t = (size_t)1 << TB, lw = GPZ_MAX_CODE_LEN + 2, bw = GPZ_MAX_CODE_LEN + 1;
	memcpy(img, d->table, t * sizeof(uint32_t));
	memcpy(img + t, d->limit, lw * sizeof(uint32_t));
	memcpy(img + t + lw, d->base, bw * sizeof(int32_t));
	memcpy(img + t + lw + bw, d->sorted, nused * sizeof(uint32_t));
	c->table = dimg;
	c->limit = dimg + t;
	c->base = (const int32_t *)(dimg + t + lw);
	c->sorted = dimg + t + lw + bw;
}

gpz_result gpz_gpu_lzs_decode(const struct gpz_lzs_decoders *d, const uint8_t *d_payload,
                              size_t payload_size, const uint64_t *d_chunk_start, size_t n,
                              int w, int chunk_log, uint8_t *d_dst, gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	dparams kp;
	uint32_t nm = 0, nd = 0, flag = 0;
	size_t wm = code_words(d->main, &nm), wd = d->dist ? code_words(d->dist, &nd) : 0;
	size_t words = 1 + wm + wd; /* the flag first */
	uint32_t *img = (uint32_t *)calloc(words, sizeof(uint32_t)), *dimg = NULL;
	gpz_result r = img ? GPZ_OK : GPZ_ERR_NOMEM;
	int dev = 0, sms = 0;

	memset(&kp, 0, sizeof(kp));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMallocAsync((void **)&dimg, words * sizeof(uint32_t), st));
	if (r == GPZ_OK) {
		code_image(d->main, nm, img + 1, dimg + 1, &kp.main);
		if (d->dist)
			code_image(d->dist, nd, img + 1 + wm, dimg + 1 + wm, &kp.dist);
		kp.has_dist = d->dist != NULL;
		kp.pay = d_payload;
		kp.size = payload_size;
		kp.chunk_start = d_chunk_start;
		kp.n = n;
		kp.nchunks = n ? ((n - 1) >> chunk_log) + 1 : 0;
		kp.w = w;
		kp.chunk_log = chunk_log;
		kp.alphabet = d->alphabet;
		kp.z = d->z;
		kp.dst = d_dst;
		kp.flag = dimg;
		r = gpz_cuda_result(cudaMemcpyAsync(dimg, img, words * sizeof(uint32_t),
		                                    cudaMemcpyHostToDevice, st));
	}
	if (r == GPZ_OK && kp.nchunks) {
		r = gpz_cuda_result(cudaGetDevice(&dev));
		if (r == GPZ_OK)
			r = gpz_cuda_result(
			        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
		uint64_t want = (kp.nchunks + WARPS - 1) / WARPS, most = (uint64_t)sms * 16;
		if (r == GPZ_OK) {
			decode_kernel<<<(unsigned)(want < most ? want : most), WARPS * 32, 0, st>>>(kp);
			r = gpz_cuda_result(cudaGetLastError());
		}
	}
	if (r == GPZ_OK)
		r = gpz_cuda_result(
		        cudaMemcpyAsync(&flag, dimg, sizeof(flag), cudaMemcpyDeviceToHost, st));
	if (dimg)
		cudaFreeAsync(dimg, st);
	if (cudaStreamSynchronize(st) != cudaSuccess && r == GPZ_OK)
		r = GPZ_ERR_GPU;
	free(img);
	if (r == GPZ_OK && flag)
		r = GPZ_ERR_CORRUPT;
	return r;
}
