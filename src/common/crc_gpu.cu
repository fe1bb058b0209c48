/* crc_gpu.cu - gzip's CRC-32 and zlib's Adler-32 of a device buffer, on the GPU.
 *
 * Layout. The buffer is cut into a head (up to the first 16-byte-aligned address, < 16 bytes), a
 * body of whole 512-byte stripes, and a tail (< 512 bytes). The body is split into one
 * contiguous range of stripes per warp (a single wave of resident warps); in each stripe lane l
 * reads the 16 bytes at 16 l with one coalesced 16-byte load, so a warp streams 512 contiguous
 * bytes per step. Head and tail are done by one warp in a separate small kernel, which runs first
 * and stores the initial value into *d_out; every body warp then folds its result in with an
 * atomic (XOR for the CRC, a CAS loop adding mod 65521 for Adler): both are commutative, so the
 * result does not depend on the order.
 *
 * CRC-32 (reflected, poly 0xEDB88320). A raw CRC (zero initial value, no final inversion) is
 * linear: raw(A || B) = raw(A) * x^(8|B|) + raw(B) mod P. Each lane computes the raw CRC of the
 * message made of its own 16-byte chunks with every other byte zero: per chunk, its state is
 * advanced over the 496 bytes of the other lanes plus the chunk's first 8 bytes (a fold table),
 * and the chunk is run through two 8-byte slicing steps. The tables are split by nibble (16
 * entries each) and every entry is replicated 32 times, once per shared-memory bank, so lane l
 * reads bank l only: no bank conflicts (24 tables x 16 x 32 words = 48 KiB). At the end each lane
 * multiplies by x^(8 * bytes after its last chunk in the stripe), the warp XORs its lanes, and
 * multiplies by x^(8 * bytes after its range) (computed across the lanes from the precomputed
 * x^(8 * 2^k)). zlib's value is raw(M) ^ raw-shift(0xffffffff, |M|) ^ 0xffffffff.
 *
 * Adler-32. s1 = 1 + sum b_i, s2 = n + sum (n - i) b_i (mod 65521). Each lane sums its bytes and
 * their positional weights with dp4a; the warp adds its lanes; (n - end of range) * sum moves the
 * weights to whole-buffer positions. */
#include "common/crc_combine.h"
#include "common/checksum_gpu.h"
#include "gpu/cuda_check.h"

#define HD __host__ __device__ /* device code, also run on the host by tests */
#ifdef __CUDA_ARCH__
#define GPZ_UNROLL _Pragma("unroll")
#else
#define GPZ_UNROLL
#endif

namespace {

constexpr int STRIPE = 512;              /* bytes per warp step: 16 per lane */
constexpr int GAP = STRIPE - 16;         /* bytes of the other lanes between two chunks */
constexpr int NTAB = 24;                 /* nibble tables: 16 slicing + 8 fold */
constexpr int TAB_WORDS = NTAB * 16 * 32; /* replicated per bank: 48 KiB */
constexpr int CRC_THREADS = 256;
constexpr int ADLER_THREADS = 256;
constexpr uint64_t MIN_STRIPES = 16;     /* at least 8 KiB per warp */
constexpr uint32_t MOD = GPZ_ADLER_MOD;

struct CrcParams {
	/* nib[j][u], j < 8: nibble j of the first word of an 8-byte step, (u << 4j) * x^64;
	 * 8 <= j < 16: nibble j - 8 of the second word, * x^32;
	 * 16 <= j < 24: nibble j - 16 of the state, advanced over GAP + 8 bytes: * x^(8 (GAP + 8)) */
	uint32_t nib[NTAB][16];
	uint32_t x2n[64];      /* x^(8 * 2^k) mod P */
	uint32_t lane_mul[32]; /* x^(8 * (STRIPE - 16 (l + 1))) */
};

CrcParams make_params()
{
	CrcParams p;
	uint32_t x64 = gpz_crc32_xpow8(8), x32 = gpz_crc32_xpow8(4), xf = gpz_crc32_xpow8(GAP + 8);
	for (int j = 0; j < 8; j++)
		for (uint32_t u = 0; u < 16; u++) {
			p.nib[j][u] = gpz_crc32_gf_mul(u << (4 * j), x64);
			p.nib[8 + j][u] = gpz_crc32_gf_mul(u << (4 * j), x32);
			p.nib[16 + j][u] = gpz_crc32_gf_mul(u << (4 * j), xf);
		}
	uint32_t sq = gpz_crc32_xpow8(1);
	for (int k = 0; k < 64; k++) {
		p.x2n[k] = sq;
		sq = gpz_crc32_gf_mul(sq, sq);
	}
	for (int l = 0; l < 32; l++)
		p.lane_mul[l] = gpz_crc32_xpow8((uint64_t)(STRIPE - 16 * (l + 1)));
	return p;
}

const CrcParams &params()
{
	static const CrcParams p = make_params(); /* C++11: initialised once, thread-safe */
	return p;
}

HD inline uint32_t gf_mul(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
	GPZ_UNROLL
	for (int i = 31; i >= 0; i--) {
		p ^= b & (0u - ((a >> i) & 1u));
		b = (b >> 1) ^ (GPZ_CRC32_POLY & (0u - (b & 1u)));
	}
	return p;
}

/* x^(8 d) mod P in one lane. */
HD inline uint32_t lane_xpow8(const CrcParams &p, uint64_t d)
{
	uint32_t r = GPZ_CRC32_ONE;
	for (int k = 0; d; k++, d >>= 1)
		if (d & 1)
			r = gf_mul(r, p.x2n[k]);
	return r;
}

/* x^(8 d) mod P, d the same in every lane of the (full) warp. */
__device__ uint32_t warp_xpow8(const CrcParams &p, uint64_t d)
{
	int k = threadIdx.x & 31;
	uint32_t f = (d >> k) & 1 ? p.x2n[k] : GPZ_CRC32_ONE;
	uint32_t g = (d >> (k + 32)) & 1 ? p.x2n[k + 32] : GPZ_CRC32_ONE;
	f = gf_mul(f, g);
#pragma unroll
	for (int s = 16; s >= 1; s >>= 1)
		f = gf_mul(f, __shfl_xor_sync(0xffffffffu, f, s));
	return f;
}

HD inline uint4 load16(const uint4 *q)
{
#ifdef __CUDA_ARCH__
	return __ldg(q);
#else
	return *q;
#endif
}

HD inline uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
	return __dp4a(a, b, c);
#else
	for (int i = 0; i < 32; i += 8)
		c += ((a >> i) & 255) * ((b >> i) & 255);
	return c;
#endif
}

/* Word i of the replicated tables: [(t * 16 + u) * 32 + bank] = nib[t][u]. */
HD inline uint32_t tab_word(const CrcParams &p, int i)
{
	return (&p.nib[0][0])[i >> 5];
}

/* Table T, nibble J of w: the replicated entry in this lane's bank (tb = table base + lane). */
template <int T, int J>
HD inline uint32_t look(const char *tb, uint32_t w)
{
	uint32_t off = (J >= 2 ? (w >> (4 * J - 7)) : (w << (7 - 4 * J))) & 0x780u; /* u * 128 */
	return *reinterpret_cast<const uint32_t *>(tb + off + T * 2048);
}

/* One 8-byte slicing step: (w0 * x^64 + w1 * x^32) mod P. */
HD inline uint32_t slice8(const char *tb, uint32_t w0, uint32_t w1)
{
	uint32_t a = look<0, 0>(tb, w0) ^ look<1, 1>(tb, w0) ^ look<2, 2>(tb, w0) ^
	             look<3, 3>(tb, w0);
	uint32_t b = look<4, 4>(tb, w0) ^ look<5, 5>(tb, w0) ^ look<6, 6>(tb, w0) ^
	             look<7, 7>(tb, w0);
	uint32_t c = look<8, 0>(tb, w1) ^ look<9, 1>(tb, w1) ^ look<10, 2>(tb, w1) ^
	             look<11, 3>(tb, w1);
	uint32_t d = look<12, 4>(tb, w1) ^ look<13, 5>(tb, w1) ^ look<14, 6>(tb, w1) ^
	             look<15, 7>(tb, w1);
	return a ^ b ^ c ^ d;
}

/* The state advanced over GAP + 8 bytes. */
HD inline uint32_t fold(const char *tb, uint32_t c)
{
	return look<16, 0>(tb, c) ^ look<17, 1>(tb, c) ^ look<18, 2>(tb, c) ^ look<19, 3>(tb, c) ^
	       look<20, 4>(tb, c) ^ look<21, 5>(tb, c) ^ look<22, 6>(tb, c) ^ look<23, 7>(tb, c);
}

/* One 16-byte chunk of this lane, the previous one GAP bytes before it. */
HD inline uint32_t crc_chunk(const char *tb, uint32_t c, uint4 v)
{
	c = fold(tb, c) ^ slice8(tb, v.x, v.y);
	return slice8(tb, c ^ v.z, v.w);
}

/* Stripes [s0, s1) of warp w out of nw, for ns stripes in all. */
HD inline void warp_range(uint64_t ns, uint64_t w, uint64_t nw, uint64_t *s0, uint64_t *s1)
{
	uint64_t q = ns / nw, r = ns % nw;
	*s0 = w * q + (w < r ? w : r);
	*s1 = *s0 + q + (w < r ? 1 : 0);
}

/* Lane `lane` of a warp doing stripes [s0, s1) > 0 of body: the raw CRC of its chunks (the other
 * lanes' bytes taken as zeros), moved to the end of stripe s1 - 1. tb: tables + lane. */
HD inline uint32_t crc_lane(const CrcParams &p, const char *tb, const uint4 *body, uint64_t s0,
                            uint64_t s1, int lane)
{
	const uint4 *q = body + s0 * 32 + lane;
	uint64_t k = s1 - s0;
	uint32_t c = 0;
	for (; k >= 4; k -= 4, q += 4 * 32) {
		uint4 v0 = load16(q), v1 = load16(q + 32), v2 = load16(q + 64), v3 = load16(q + 96);
		c = crc_chunk(tb, c, v0);
		c = crc_chunk(tb, c, v1);
		c = crc_chunk(tb, c, v2);
		c = crc_chunk(tb, c, v3);
	}
	for (; k > 0; k--, q += 32)
		c = crc_chunk(tb, c, load16(q));
	return gf_mul(c, p.lane_mul[lane]);
}

/* Raw CRC of d[b .. e) after c, a byte at a time; t0[v] = v * x^8. */
HD inline uint32_t crc_bytes(const uint32_t *t0, uint32_t c, const uint8_t *d, uint64_t b,
                             uint64_t e)
{
	for (uint64_t i = b; i < e; i++)
		c = t0[(c ^ d[i]) & 0xff] ^ (c >> 8);
	return c;
}

/* Lane `lane`'s part of the tail [tail, n), moved to the end of the buffer. */
HD inline uint32_t crc_tail_lane(const CrcParams &p, const uint32_t *t0, const uint8_t *data,
                                 uint64_t n, uint64_t tail, int lane)
{
	uint64_t per = (n - tail + 31) / 32;
	uint64_t b = tail + lane * per, e = b + per < n ? b + per : n;
	if (b >= e)
		return 0;
	return gf_mul(crc_bytes(t0, 0, data, b, e), lane_xpow8(p, n - e));
}

/* body: 16-byte aligned, ns stripes; after: bytes of the buffer after the body. */
__global__ void __launch_bounds__(CRC_THREADS, 4)
crc_body_kernel(const __grid_constant__ CrcParams p, const uint8_t *body, uint64_t ns,
                uint64_t after, uint32_t *out)
{
	extern __shared__ uint32_t tab[]; /* TAB_WORDS */
	for (int i = threadIdx.x; i < TAB_WORDS; i += CRC_THREADS)
		tab[i] = tab_word(p, i);
	__syncthreads();

	const int lane = threadIdx.x & 31;
	uint64_t nw = (uint64_t)gridDim.x * (CRC_THREADS / 32);
	uint64_t w = (uint64_t)blockIdx.x * (CRC_THREADS / 32) + threadIdx.x / 32, s0, s1;
	warp_range(ns, w, nw, &s0, &s1);
	if (s0 == s1)
		return; /* the whole warp */
	uint32_t c = crc_lane(p, reinterpret_cast<const char *>(tab + lane),
	                      reinterpret_cast<const uint4 *>(body), s0, s1, lane);
#pragma unroll
	for (int s = 16; s >= 1; s >>= 1)
		c ^= __shfl_xor_sync(0xffffffffu, c, s);
	uint32_t f = warp_xpow8(p, (ns - s1) * STRIPE + after);
	if (lane == 0)
		atomicXor(out, gf_mul(c, f));
}

/* One warp: the head [0, head) and tail [tail, n), plus the initial value; stores *out. */
__global__ void __launch_bounds__(32)
crc_edge_kernel(const __grid_constant__ CrcParams p, const uint8_t *data, uint64_t n,
                uint64_t head, uint64_t tail, uint32_t *out)
{
	__shared__ uint32_t t0[256]; /* one byte: b * x^8 (the last byte of an 8-byte step) */
	const int lane = threadIdx.x;
	for (int v = lane; v < 256; v += 32)
		t0[v] = p.nib[14][v & 15] ^ p.nib[15][v >> 4];
	__syncwarp();

	uint32_t r = crc_tail_lane(p, t0, data, n, tail, lane);
	uint32_t fh = warp_xpow8(p, n - head), fn = warp_xpow8(p, n);
	if (lane == 0)
		r ^= gf_mul(crc_bytes(t0, 0, data, 0, head), fh) ^ gf_mul(0xffffffffu, fn) ^ 0xffffffffu;
#pragma unroll
	for (int s = 16; s >= 1; s >>= 1)
		r ^= __shfl_xor_sync(0xffffffffu, r, s);
	if (lane == 0)
		*out = r;
}

/* ---- Adler-32 ---- */

HD inline void adler_chunk(uint4 v, uint32_t &A, uint32_t &Z, uint32_t &D)
{
	uint32_t s = dp4a(v.x, 0x01010101u, 0u);
	s = dp4a(v.y, 0x01010101u, s);
	s = dp4a(v.z, 0x01010101u, s);
	s = dp4a(v.w, 0x01010101u, s);
	uint32_t d = dp4a(v.x, 0x03020100u, D);
	d = dp4a(v.y, 0x07060504u, d);
	d = dp4a(v.z, 0x0b0a0908u, d);
	D = dp4a(v.w, 0x0f0e0d0cu, d);
	A += s;
	Z += A;
}

/* Lane `lane` of a warp doing stripes [s0, s1) of body: *a = sum of its bytes, *t = sum of
 * (E - position) * byte, E the end of stripe s1 - 1 (both mod MOD). */
HD inline void adler_lane(const uint4 *body, uint64_t s0, uint64_t s1, int lane, uint32_t *a,
                          uint32_t *t)
{
	const uint4 *q = body + s0 * 32 + lane;
	/* over this lane's chunks k = 0 .. K-1 (byte j of chunk k at 512 (s0 + k) + 16 lane + j):
	 * A = sum b, Z = sum (K - k) * (chunk k's sum), D = sum j * b; all reduced mod MOD after
	 * every 256 chunks at most (A < 2^21, Z < 2^29, D < 2^23 in between). */
	uint32_t A = 0, Z = 0, D = 0;
	uint64_t k = s1 - s0;
	while (k > 0) {
		uint64_t m = k < 256 ? k : 256;
		k -= m;
		for (; m >= 8; m -= 8, q += 8 * 32) {
			uint4 v[8];
			GPZ_UNROLL
			for (int i = 0; i < 8; i++)
				v[i] = load16(q + 32 * i);
			GPZ_UNROLL
			for (int i = 0; i < 8; i++)
				adler_chunk(v[i], A, Z, D);
		}
		for (; m > 0; m--, q += 32)
			adler_chunk(load16(q), A, Z, D);
		A %= MOD;
		Z %= MOD;
		D %= MOD;
	}
	/* E - position = 512 (K - k) - 16 lane - j */
	*a = A;
	*t = (uint32_t)(((uint64_t)STRIPE * Z + (uint64_t)MOD * MOD - (uint64_t)(16 * lane) * A +
	                 MOD - D) % MOD);
}

/* Lane `lane`'s bytes of the head [0, head) and tail [tail, n): *a = sum b (< 2^16),
 * *t = sum (n - i) * b_i mod MOD. */
HD inline void adler_edge_lane(const uint8_t *data, uint64_t n, uint64_t head, uint64_t tail,
                               int lane, uint32_t *a, uint32_t *t)
{
	uint32_t sa = 0, st = 0;
	for (uint64_t i = lane; i < head; i += 32) {
		sa += data[i];
		st = (uint32_t)((st + ((n - i) % MOD) * data[i]) % MOD);
	}
	for (uint64_t i = tail + lane; i < n; i += 32) {
		sa += data[i];
		st = (uint32_t)((st + ((n - i) % MOD) * data[i]) % MOD);
	}
	*a = sa;
	*t = st;
}

__device__ __forceinline__ void adler_add(uint32_t *out, uint32_t a, uint32_t t)
{
	uint32_t old = *(volatile uint32_t *)out, assumed;
	do {
		assumed = old;
		uint32_t s1 = (assumed & 0xffff) + a, s2 = (assumed >> 16) + t;
		s1 -= s1 >= MOD ? MOD : 0;
		s2 -= s2 >= MOD ? MOD : 0;
		old = atomicCAS(out, assumed, s2 << 16 | s1);
	} while (old != assumed);
}

__global__ void __launch_bounds__(ADLER_THREADS)
adler_body_kernel(const uint8_t *body, uint64_t ns, uint64_t after, uint32_t *out)
{
	const int lane = threadIdx.x & 31;
	uint64_t nw = (uint64_t)gridDim.x * (ADLER_THREADS / 32);
	uint64_t w = (uint64_t)blockIdx.x * (ADLER_THREADS / 32) + threadIdx.x / 32, s0, s1;
	warp_range(ns, w, nw, &s0, &s1);
	uint32_t a, t;
	adler_lane(reinterpret_cast<const uint4 *>(body), s0, s1, lane, &a, &t);
#pragma unroll
	for (int s = 16; s >= 1; s >>= 1) {
		a += __shfl_xor_sync(0xffffffffu, a, s);
		t += __shfl_xor_sync(0xffffffffu, t, s);
	}
	/* One compare-and-swap per block, not per warp: thousands of them on one word serialise
	 * (measured: 10.9 ms for 1 GiB on an H200 with one per warp). */
	__shared__ uint32_t wa[ADLER_THREADS / 32], wt[ADLER_THREADS / 32];
	if (lane == 0) {
		a %= MOD;
		wa[threadIdx.x / 32] = a;
		wt[threadIdx.x / 32] = (uint32_t)((t + (((ns - s1) * STRIPE + after) % MOD) * a) % MOD);
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		uint32_t ba = 0, bt = 0;
		for (int k = 0; k < ADLER_THREADS / 32; k++) {
			ba = (ba + wa[k]) % MOD;
			bt = (bt + wt[k]) % MOD;
		}
		adler_add(out, ba, bt);
	}
}

__global__ void __launch_bounds__(32)
adler_edge_kernel(const uint8_t *data, uint64_t n, uint64_t head, uint64_t tail, uint32_t *out)
{
	const int lane = threadIdx.x;
	uint32_t a, t;
	adler_edge_lane(data, n, head, tail, lane, &a, &t);
#pragma unroll
	for (int s = 16; s >= 1; s >>= 1) {
		a += __shfl_xor_sync(0xffffffffu, a, s);
		t += __shfl_xor_sync(0xffffffffu, t, s);
	}
	if (lane == 0) {
		uint32_t s1 = (1 + a) % MOD, s2 = (uint32_t)((n % MOD + t) % MOD);
		*out = s2 << 16 | s1;
	}
}

struct Split {
	uint64_t head, ns, tail; /* head bytes, body stripes, offset of the tail */
};

Split split(const uint8_t *d, size_t n)
{
	Split s;
	uint64_t h = (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15;
	s.head = h < n ? h : n;
	s.ns = (n - s.head) / STRIPE;
	s.tail = s.head + s.ns * STRIPE;
	return s;
}

/* Blocks for ns stripes: at least MIN_STRIPES per warp, at most one wave of resident blocks. */
gpz_result grid_for(const void *kernel, int threads, size_t smem, uint64_t ns, unsigned *blocks)
{
	int dev = 0, sms = 0, per_sm = 0;
	GPZ_CUDA_TRY(cudaGetDevice(&dev));
	GPZ_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	GPZ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
	if (per_sm < 1)
		per_sm = 1;
	uint64_t warps = (ns + MIN_STRIPES - 1) / MIN_STRIPES;
	uint64_t b = (warps + threads / 32 - 1) / (threads / 32);
	uint64_t cap = (uint64_t)sms * per_sm;
	*blocks = (unsigned)(b < cap ? (b ? b : 1) : cap);
	return GPZ_OK;
}

} // namespace

extern "C" gpz_result gpz_gpu_crc32(const uint8_t *d_data, size_t n, uint32_t *d_out,
                                    gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	const CrcParams &p = params();
	Split s = split(d_data, n);

	if (!d_out || (n && !d_data))
		return GPZ_ERR_PARAM;
	crc_edge_kernel<<<1, 32, 0, st>>>(p, d_data, n, s.head, s.tail, d_out);
	GPZ_LAUNCH_TRY();
	if (s.ns) {
		unsigned blocks;
		size_t smem = TAB_WORDS * sizeof(uint32_t);
		gpz_result r = grid_for((const void *)crc_body_kernel, CRC_THREADS, smem, s.ns, &blocks);
		if (r != GPZ_OK)
			return r;
		crc_body_kernel<<<blocks, CRC_THREADS, smem, st>>>(p, d_data + s.head, s.ns, n - s.tail,
		                                                   d_out);
		GPZ_LAUNCH_TRY();
	}
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_adler32(const uint8_t *d_data, size_t n, uint32_t *d_out,
                                     gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	Split s = split(d_data, n);

	if (!d_out || (n && !d_data))
		return GPZ_ERR_PARAM;
	adler_edge_kernel<<<1, 32, 0, st>>>(d_data, n, s.head, s.tail, d_out);
	GPZ_LAUNCH_TRY();
	if (s.ns) {
		unsigned blocks;
		gpz_result r = grid_for((const void *)adler_body_kernel, ADLER_THREADS, 0, s.ns, &blocks);
		int dev = 0, sms = 0;
		if (r != GPZ_OK)
			return r;
		GPZ_CUDA_TRY(cudaGetDevice(&dev));
		GPZ_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
		if (blocks > 2u * (unsigned)sms) /* few blocks: few compare-and-swaps on *d_out */
			blocks = 2u * (unsigned)sms;
		adler_body_kernel<<<blocks, ADLER_THREADS, 0, st>>>(d_data + s.head, s.ns, n - s.tail,
		                                                    d_out);
		GPZ_LAUNCH_TRY();
	}
	return GPZ_OK;
}
