/* crc_mma.cu - gzip's CRC-32 on the tensor cores: is a 1-bit MMA (AND + popcount) a cheaper way
 * to a CRC than crc_gpu.cu's table lookups (2.5 shared loads a byte, 0.54 ms a GiB on an H100)?
 *
 *   nvcc -O3 -arch=sm_90 -Isrc -Iinclude -o crc_mma bench/probe/crc_mma.cu build-gpu/libgpz.a -lz
 *   ./crc_mma [MiB]        (default 1024)
 *   ./crc_mma MiB emulate  (no GPU: the kernel's arithmetic replayed on the host)
 *
 * The library's kernel (src/common/crc_gpu.cu, b33fb82) grew from this probe and is the
 * maintained form; the probe's own copy stays as the record behind
 * bench/results/2026-11-28-h100-inflate-crc-mma.md and for its layout check and host replay,
 * which a change of the fragment layout or of the step should pass first. Built against a
 * library from b33fb82 on, "gpz's kernel" below is the MMA kernel too (the nibble tables'
 * 0.54 ms a GiB was measured against abb673a's library).
 *
 * A raw CRC is linear over GF(2): each data bit adds a fixed 32-bit vector. A warp reads 512
 * contiguous bytes a step (16 a lane) and hands its registers straight to
 * mma.m16n8k256.b1 (AND, popcount) as the A operand, so that row g < 8 of A holds the 8 words of
 * the 64-byte region g at local offsets 16q and 16q + 8 (q < 4), row g + 8 those at 16q + 4 and
 * 16q + 12. B (256 x 8 bits, four MMAs for 32 output bits) maps a row's bits to their
 * contribution to the raw CRC, one B per stripe of a T-stripe step so that the int32 sums
 * accumulate a whole step; a sum's parity is a bit of the step's CRC. Rows differ from the map's
 * reference position by a fixed shift, applied once per lane at the end. Each lane keeps two
 * 32-bit states (its rows g and g + 8), advanced by x^(8 * 512 T) per step with byte tables.
 *
 * Prints: a check of the fragment layout on random matrices, then CRC values of gpz's kernel,
 * this one and zlib, and GB/s of each with a plain read of the same bytes for reference. */
#include <cuda_runtime.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/checksum_gpu.h"
#include "common/crc_combine.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int T = 8;        /* stripes a step */
constexpr int STRIPE = 512; /* bytes a warp reads per stripe */
constexpr int THREADS = 256;

struct MmaParams {
	uint32_t b[T][4][32][2]; /* B fragments: stripe, MMA (output bits 8m ..), lane, register */
	uint32_t step[4][256];   /* byte tables: v * x^(8 * 512 T) */
	uint32_t f_lo[8], f_hi[8]; /* row g, g + 8: reference to true position */
	uint32_t x2n[64];
};

static uint32_t h_gf_mul(uint32_t a, uint32_t b) { return gpz_crc32_gf_mul(a, b); }

static MmaParams make_params()
{
	static MmaParams p;
	memset(&p, 0, sizeof(p));
	/* word at local offset u of stripe s: contribution x^(8 (512 (T - s) - u - 452)) */
	for (int s = 0; s < T; s++)
		for (int lane = 0; lane < 32; lane++) {
			int g = lane >> 2, q = lane & 3;
			for (int r = 0; r < 2; r++) {
				int u = 16 * q + 8 * r;
				uint32_t xs = gpz_crc32_xpow8((uint64_t)(STRIPE * (T - s) - u - 452));
				for (int j = 0; j < 32; j++) {
					uint32_t c = h_gf_mul(1u << j, xs);
					for (int m = 0; m < 4; m++)
						p.b[s][m][lane][r] |= ((c >> (8 * m + g)) & 1u) << j;
				}
			}
		}
	uint32_t xt = gpz_crc32_xpow8((uint64_t)STRIPE * T);
	for (int i = 0; i < 4; i++)
		for (uint32_t v = 0; v < 256; v++)
			p.step[i][v] = h_gf_mul(v << (8 * i), xt);
	for (int g = 0; g < 8; g++) {
		p.f_lo[g] = gpz_crc32_xpow8((uint64_t)(452 - 64 * g));
		p.f_hi[g] = gpz_crc32_xpow8((uint64_t)(448 - 64 * g));
	}
	uint32_t sq = gpz_crc32_xpow8(1);
	for (int k = 0; k < 64; k++) {
		p.x2n[k] = sq;
		sq = h_gf_mul(sq, sq);
	}
	return p;
}

__device__ __forceinline__ void mma_b1(int c[4], uint4 a, uint32_t b0, uint32_t b1)
{
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
	             "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
	             : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
	             : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t gf_mul(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
#pragma unroll
	for (int i = 31; i >= 0; i--) {
		p ^= b & (0u - ((a >> i) & 1u));
		b = (b >> 1) ^ (GPZ_CRC32_POLY & (0u - (b & 1u)));
	}
	return p;
}

__device__ uint32_t warp_xpow8(const MmaParams &p, uint64_t d)
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

__device__ __forceinline__ uint32_t step_mul(const uint32_t (*tab)[256], uint32_t a)
{
	return tab[0][a & 255] ^ tab[1][(a >> 8) & 255] ^ tab[2][(a >> 16) & 255] ^ tab[3][a >> 24];
}

/* Stripes s0 .. T - 1 of a step at q: the parities of rows g, g + 8 (this lane's bits). */
__device__ __forceinline__ void mma_step(const uint2 *sb, const uint4 *q, int s0, int lane,
                                         uint32_t *lo, uint32_t *hi)
{
	int c[4][4] = {};
	uint4 v[T];
#pragma unroll
	for (int s = 0; s < T; s++)
		if (s >= s0)
			v[s] = __ldg(q + (s - s0) * 32);
#pragma unroll
	for (int s = 0; s < T; s++)
		if (s >= s0)
#pragma unroll
			for (int m = 0; m < 4; m++) {
				uint2 b = sb[(s * 4 + m) * 32 + lane];
				mma_b1(c[m], v[s], b.x, b.y);
			}
	const int sh = 2 * (lane & 3);
	uint32_t pl = 0, ph = 0;
#pragma unroll
	for (int m = 0; m < 4; m++) {
		pl |= (uint32_t)(c[m][0] & 1) << (8 * m + sh) | (uint32_t)(c[m][1] & 1) << (8 * m + sh + 1);
		ph |= (uint32_t)(c[m][2] & 1) << (8 * m + sh) | (uint32_t)(c[m][3] & 1) << (8 * m + sh + 1);
	}
	*lo = pl;
	*hi = ph;
}

__global__ void __launch_bounds__(THREADS)
crc_mma_kernel(const __grid_constant__ MmaParams p, const uint8_t *body, uint64_t ns,
               uint64_t after, uint32_t *out)
{
	__shared__ uint2 sb[T * 4 * 32];
	__shared__ uint32_t tab[4][256];
	for (int i = threadIdx.x; i < T * 4 * 32; i += THREADS)
		sb[i] = make_uint2((&p.b[0][0][0][0])[2 * i], (&p.b[0][0][0][0])[2 * i + 1]);
	for (int i = threadIdx.x; i < 1024; i += THREADS)
		(&tab[0][0])[i] = (&p.step[0][0])[i];
	__syncthreads();

	const int lane = threadIdx.x & 31;
	uint64_t nw = (uint64_t)gridDim.x * (THREADS / 32);
	uint64_t w = (uint64_t)blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
	uint64_t qd = ns / nw, rm = ns % nw;
	uint64_t s0 = w * qd + (w < rm ? w : rm), s1 = s0 + qd + (w < rm ? 1 : 0);
	if (s0 == s1)
		return;
	const uint4 *q = reinterpret_cast<const uint4 *>(body) + s0 * 32 + lane;
	uint64_t k = s1 - s0;
	uint32_t lo = 0, hi = 0;
	int r = (int)(k % T);
	if (r) { /* the first r stripes as the last r of a step */
		mma_step(sb, q, T - r, lane, &lo, &hi);
		q += r * 32;
		k -= r;
	}
	for (; k > 0; k -= T, q += T * 32) {
		uint32_t pl, ph;
		mma_step(sb, q, 0, lane, &pl, &ph);
		lo = step_mul(tab, lo) ^ pl;
		hi = step_mul(tab, hi) ^ ph;
	}
	const int g = lane >> 2;
	uint32_t c = gf_mul(lo, p.f_lo[g]) ^ gf_mul(hi, p.f_hi[g]);
#pragma unroll
	for (int s = 16; s >= 1; s >>= 1)
		c ^= __shfl_xor_sync(0xffffffffu, c, s);
	uint32_t f = warp_xpow8(p, (ns - s1) * STRIPE + after);
	if (lane == 0)
		atomicXor(out, gf_mul(c, f));
}


/* ---- the kernel's arithmetic replayed on the host, the fragment layout as assumed ---- */

static uint32_t emulate(const MmaParams &p, const uint8_t *body, uint64_t ns, uint64_t nw,
                        uint64_t after)
{
	uint32_t total = 0;
	for (uint64_t w = 0; w < nw; w++) {
		uint64_t qd = ns / nw, rm = ns % nw;
		uint64_t s0 = w * qd + (w < rm ? w : rm), s1 = s0 + qd + (w < rm ? 1 : 0);
		if (s0 == s1)
			continue;
		uint32_t lo[32] = {}, hi[32] = {};
		uint64_t k = s1 - s0, at = s0;
		bool first = true;
		while (k > 0) {
			int r = first && k % T ? (int)(k % T) : T, sb = T - r;
			first = false;
			int c[32][4][4] = {};
			for (int s = sb; s < T; s++) {
				const uint32_t *st = reinterpret_cast<const uint32_t *>(body + (at + s - sb) * STRIPE);
				for (int m = 0; m < 4; m++)
					for (int l = 0; l < 32; l++)
						for (int i = 0; i < 4; i++) {
							int g = l >> 2, col = 2 * (l & 3) + (i & 1), row = g + (i >= 2 ? 8 : 0);
							int sum = 0;
							for (int qq = 0; qq < 4; qq++) /* k words of the row: lane 4 (row % 8) + qq */
								for (int half = 0; half < 2; half++) {
									int src = 4 * (row & 7) + qq, reg = (row >= 8 ? 1 : 0) + 2 * half;
									uint32_t a = st[4 * src + reg];
									uint32_t b = p.b[s][m][4 * col + qq][half];
									sum += __builtin_popcount(a & b);
								}
							c[l][m][i] += sum;
						}
			}
			for (int l = 0; l < 32; l++) {
				uint32_t pl = 0, ph = 0;
				int sh = 2 * (l & 3);
				for (int m = 0; m < 4; m++) {
					pl |= (uint32_t)(c[l][m][0] & 1) << (8 * m + sh) | (uint32_t)(c[l][m][1] & 1) << (8 * m + sh + 1);
					ph |= (uint32_t)(c[l][m][2] & 1) << (8 * m + sh) | (uint32_t)(c[l][m][3] & 1) << (8 * m + sh + 1);
				}
				uint32_t a = lo[l], b = hi[l];
				lo[l] = (p.step[0][a & 255] ^ p.step[1][(a >> 8) & 255] ^ p.step[2][(a >> 16) & 255] ^ p.step[3][a >> 24]) ^ pl;
				hi[l] = (p.step[0][b & 255] ^ p.step[1][(b >> 8) & 255] ^ p.step[2][(b >> 16) & 255] ^ p.step[3][b >> 24]) ^ ph;
			}
			at += r;
			k -= r;
		}
		uint32_t c = 0;
		for (int l = 0; l < 32; l++)
			c ^= h_gf_mul(lo[l], p.f_lo[l >> 2]) ^ h_gf_mul(hi[l], p.f_hi[l >> 2]);
		total ^= h_gf_mul(c, gpz_crc32_xpow8((ns - s1) * STRIPE + after));
	}
	return total;
}

/* ---- the fragment layout on random matrices ---- */

__global__ void layout_kernel(const uint32_t *a, const uint32_t *b, int *c)
{
	int l = threadIdx.x, cc[4] = {};
	uint4 av = make_uint4(a[4 * l], a[4 * l + 1], a[4 * l + 2], a[4 * l + 3]);
	mma_b1(cc, av, b[2 * l], b[2 * l + 1]);
	for (int i = 0; i < 4; i++)
		c[4 * l + i] = cc[i];
}

static bool check_layout()
{
	static uint8_t A[16][256], B[256][8];
	srand(7);
	for (int i = 0; i < 16; i++)
		for (int k = 0; k < 256; k++)
			A[i][k] = rand() & 1;
	for (int k = 0; k < 256; k++)
		for (int n = 0; n < 8; n++)
			B[k][n] = rand() & 1;
	uint32_t ha[128] = {}, hb[64] = {};
	for (int l = 0; l < 32; l++) {
		int g = l >> 2, q = l & 3;
		for (int j = 0; j < 32; j++) {
			ha[4 * l + 0] |= (uint32_t)A[g][32 * q + j] << j;
			ha[4 * l + 1] |= (uint32_t)A[g + 8][32 * q + j] << j;
			ha[4 * l + 2] |= (uint32_t)A[g][128 + 32 * q + j] << j;
			ha[4 * l + 3] |= (uint32_t)A[g + 8][128 + 32 * q + j] << j;
			hb[2 * l + 0] |= (uint32_t)B[32 * q + j][g] << j;
			hb[2 * l + 1] |= (uint32_t)B[128 + 32 * q + j][g] << j;
		}
	}
	uint32_t *da, *db;
	int *dc, hc[128];
	CK(cudaMalloc(&da, sizeof(ha)));
	CK(cudaMalloc(&db, sizeof(hb)));
	CK(cudaMalloc(&dc, sizeof(hc)));
	CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
	layout_kernel<<<1, 32>>>(da, db, dc);
	CK(cudaMemcpy(hc, dc, sizeof(hc), cudaMemcpyDeviceToHost));
	int bad = 0;
	for (int l = 0; l < 32; l++) {
		int g = l >> 2, q = l & 3;
		for (int i = 0; i < 4; i++) {
			int row = g + (i >= 2 ? 8 : 0), col = 2 * q + (i & 1), want = 0;
			for (int k = 0; k < 256; k++)
				want += A[row][k] & B[k][col];
			bad += hc[4 * l + i] != want;
		}
	}
	printf("layout check: %s (%d of 128 sums differ)\n", bad ? "FAIL" : "pass", bad);
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	return bad == 0;
}

__global__ void fill_kernel(uint8_t *d, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n / 8;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t x = i * 0x9E3779B97F4A7C15ull;
		x ^= x >> 29;
		x *= 0xBF58476D1CE4E5B9ull;
		x ^= x >> 32;
		/* text-like: mostly low bytes, some runs */
		reinterpret_cast<uint64_t *>(d)[i] = (i & 63) < 8 ? 0x2020202020202020ull : x & 0x7f7f7f7f7f7f7f7full;
	}
}

__global__ void read_kernel(const uint4 *d, size_t n16, uint32_t *out)
{
	uint32_t x = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint4 v = __ldg(d + i);
		x ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (x == 0x12345678u)
		*out = x;
}

template <class F> static double time_ms(int runs, F f)
{
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	std::vector<float> t;
	f();
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < runs; i++) {
		CK(cudaEventRecord(a));
		f();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		float ms;
		CK(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms);
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 1024;
	size_t n = mib << 20;
	if (argc > 2 && !strcmp(argv[2], "emulate")) { /* host only: the arithmetic, no GPU */
		std::vector<uint8_t> h(n + 100);
		for (size_t i = 0; i < h.size(); i++)
			h[i] = (uint8_t)(rand() >> 7);
		const MmaParams &p = make_params();
		for (uint64_t nw : {1, 3, 7, 64}) {
			size_t m = n + 37 * nw; /* a tail after the stripes */
			uint64_t ns = m / STRIPE;
			uint32_t raw = emulate(p, h.data(), ns, nw, m - ns * STRIPE);
			uint32_t want = (uint32_t)crc32(0, h.data(), (uInt)(ns * STRIPE));
			/* the kernel's value: the stripes' raw CRC moved over the bytes after them */
			uint32_t exp_raw = h_gf_mul(want ^ 0xffffffffu ^ h_gf_mul(0xffffffffu, gpz_crc32_xpow8(ns * STRIPE)),
			                            gpz_crc32_xpow8(m - ns * STRIPE));
			printf("emulate nw %llu: %08x want %08x %s\n", (unsigned long long)nw, raw, exp_raw,
			       raw == exp_raw ? "same" : "DIFFER");
		}
		return 0;
	}
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
	bool ok = check_layout();

	uint8_t *d;
	uint32_t *d_out;
	CK(cudaMalloc(&d, n));
	CK(cudaMalloc(&d_out, 16));
	fill_kernel<<<4096, 256>>>(d, n);
	CK(cudaDeviceSynchronize());
	std::vector<uint8_t> h(n);
	CK(cudaMemcpy(h.data(), d, n, cudaMemcpyDeviceToHost));
	uint32_t want = (uint32_t)crc32(0, h.data(), (uInt)0);
	for (size_t o = 0; o < n; o += (size_t)1 << 30)
		want = (uint32_t)crc32(want, h.data() + o, (uInt)(n - o < ((size_t)1 << 30) ? n - o : (size_t)1 << 30));

	const MmaParams &p = make_params();
	int per_sm = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, crc_mma_kernel, THREADS, 0));
	uint64_t ns = n / STRIPE;
	unsigned blocks = (unsigned)(prop.multiProcessorCount * per_sm);
	if ((uint64_t)blocks * (THREADS / 32) * 16 > ns)
		blocks = (unsigned)(ns / ((THREADS / 32) * 16) + 1);
	auto mma = [&] {
		cudaMemsetAsync(d_out, 0, 4);
		crc_mma_kernel<<<blocks, THREADS>>>(p, d, ns, n - ns * STRIPE, d_out);
	};
	mma();
	CK(cudaDeviceSynchronize());
	uint32_t raw;
	CK(cudaMemcpy(&raw, d_out, 4, cudaMemcpyDeviceToHost));
	uint32_t got = raw ^ gpz_crc32_gf_mul(0xffffffffu, gpz_crc32_xpow8(n)) ^ 0xffffffffu;
	auto base = [&] { gpz_gpu_crc32(d, n, d_out + 1, 0); };
	base();
	CK(cudaDeviceSynchronize());
	uint32_t gz;
	CK(cudaMemcpy(&gz, d_out + 1, 4, cudaMemcpyDeviceToHost));
	printf("crc: zlib %08x gpz kernel %08x mma %08x -> %s\n", want, gz, got,
	       got == want && gz == want ? "same" : "DIFFER");
	double tb = time_ms(20, base), tm = time_ms(20, mma);
	double tr = time_ms(20, [&] { read_kernel<<<prop.multiProcessorCount * 8, 512>>>(
	                                  reinterpret_cast<const uint4 *>(d), n / 16, d_out + 2); });
	printf("%zu MiB: gpz crc %.3f ms (%.0f GB/s), mma crc %.3f ms (%.0f GB/s, %d blocks/SM), "
	       "read %.3f ms (%.0f GB/s)\n",
	       mib, tb, n / tb / 1e6, tm, n / tm / 1e6, per_sm, tr, n / tr / 1e6);
	return ok && got == want ? 0 : 1;
}
