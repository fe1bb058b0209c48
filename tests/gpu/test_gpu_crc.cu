/* test_gpu_crc.cu - gpz_gpu_crc32 / gpz_gpu_adler32 (src/common/crc_gpu.cu) against zlib's crc32
 * and adler32: random data of sizes 0 .. 100 MiB + 1 (around the 16-byte head, the 512-byte
 * stripes and the 8 KiB per warp) at offsets 0..3 of the device buffer, with the words around
 * *d_out checked untouched; then the throughput on 1 GiB (CUDA events, median of 5 after a
 * warm-up), also checked against zlib. Exits 77 ("SKIP: no GPU") when no GPU is usable. */
extern "C" {
#include "testutil.h"
}
#include "common/checksum_gpu.h"

#include <cuda_runtime.h>
#include <zlib.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "cuda_test.h"

namespace {

const uint32_t POISON = 0xA5A5A5A5u;

/* Both checks of d_data[0 .. n) on the GPU into words 1 and 4 of d_words (10 words; the others
 * must keep their poison), and gpz_gpu_crc32_upto's CRC into words 6 (the size on the device,
 * the bound 777 bytes more) and 8 (the size on the device 5 bytes past the bound n); out[0]
 * crc, out[1] adler. d_n: two device u64 of scratch. */
void gpu_checks(const uint8_t *d_data, size_t n, uint32_t *d_words, uint64_t *d_n,
                cudaStream_t st, uint32_t out[2])
{
	std::vector<uint32_t> h(10, POISON);
	uint64_t sizes[2] = { n, n + 5 };
	CU(cudaMemcpy(d_words, h.data(), 10 * sizeof(uint32_t), cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_n, sizes, sizeof(sizes), cudaMemcpyHostToDevice));
	gpz_result r1 = gpz_gpu_crc32(d_data, n, d_words + 1, (gpz_stream_t)st);
	gpz_result r2 = gpz_gpu_adler32(d_data, n, d_words + 4, (gpz_stream_t)st);
	gpz_result r3 = gpz_gpu_crc32_upto(d_data, n + 777, d_n, d_words + 6, (gpz_stream_t)st);
	gpz_result r4 = gpz_gpu_crc32_upto(d_data, n, d_n + 1, d_words + 8, (gpz_stream_t)st);
	CHECK(r1 == GPZ_OK && r2 == GPZ_OK && r3 == GPZ_OK && r4 == GPZ_OK, "size %zu: %s / %s / %s",
	      n, gpz_result_string(r1), gpz_result_string(r2), gpz_result_string(r3));
	CU(cudaStreamSynchronize(st));
	CU(cudaGetLastError());
	CU(cudaMemcpy(h.data(), d_words, 10 * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	CHECK(h[0] == POISON && h[2] == POISON && h[3] == POISON && h[5] == POISON &&
	      h[7] == POISON && h[9] == POISON,
	      "size %zu: words next to the result were overwritten", n);
	CHECK(h[6] == h[1] && h[8] == h[1], "size %zu: crc32_upto %08x / %08x, crc32 %08x", n, h[6],
	      h[8], h[1]);
	out[0] = h[1];
	out[1] = h[4];
}

__global__ void fill_kernel(uint8_t *d, size_t n, uint64_t seed)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint64_t x = (i + seed) * 0x9E3779B97F4A7C15ull;
		x ^= x >> 29;
		x *= 0xBF58476D1CE4E5B9ull;
		x ^= x >> 32;
		d[i] = (uint8_t)x;
	}
}

void throughput(cudaStream_t st, uint32_t *d_out)
{
	const size_t n = (size_t)1 << 30;
	uint8_t *d = NULL;
	if (cudaMalloc(&d, n) != cudaSuccess) {
		cudaGetLastError();
		printf("throughput: cannot allocate 1 GiB, skipped\n");
		return;
	}
	fill_kernel<<<1024, 256, 0, st>>>(d, n, 77);
	CU(cudaGetLastError());
	std::vector<uint8_t> h(n);
	CU(cudaMemcpyAsync(h.data(), d, n, cudaMemcpyDeviceToHost, st));
	CU(cudaStreamSynchronize(st));
	uint32_t want[2] = { (uint32_t)crc32(0L, h.data(), (uInt)n),
	                     (uint32_t)adler32(1L, h.data(), (uInt)n) };
	cudaEvent_t e0, e1;
	CU(cudaEventCreate(&e0));
	CU(cudaEventCreate(&e1));
	const char *names[2] = { "crc32", "adler32" };
	for (int which = 0; which < 2; which++) {
		std::vector<float> ms;
		for (int i = 0; i < 6; i++) {
			CU(cudaEventRecord(e0, st));
			gpz_result r = which == 0 ? gpz_gpu_crc32(d, n, d_out, (gpz_stream_t)st)
			                          : gpz_gpu_adler32(d, n, d_out, (gpz_stream_t)st);
			CU(cudaEventRecord(e1, st));
			CU(cudaEventSynchronize(e1));
			CHECK(r == GPZ_OK, "1 GiB %s: %s", names[which], gpz_result_string(r));
			float t = 0;
			CU(cudaEventElapsedTime(&t, e0, e1));
			if (i > 0)
				ms.push_back(t); /* the first is the warm-up */
		}
		uint32_t got = 0;
		CU(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
		CHECK(got == want[which], "1 GiB %s: %08x, zlib %08x", names[which], got, want[which]);
		std::sort(ms.begin(), ms.end());
		double med = ms[ms.size() / 2];
		printf("throughput %-8s 1 GiB: median %.3f ms (min %.3f) = %.1f GB/s\n", names[which],
		       med, ms[0], n / (med * 1e6));
	}
	CU(cudaEventDestroy(e0));
	CU(cudaEventDestroy(e1));
	CU(cudaFree(d));
}

} // namespace

int main(void)
{
	if (!gpu_test_start())
		return TEST_SKIP;

	const size_t MiB = 1048576;
	std::vector<size_t> sizes = { 0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 511, 512, 513, 527, 528,
	                              529, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8192, 8193,
	                              8192 + 512 + 15, 65536 + 7, MiB + 3, 3 * MiB + 511, 100 * MiB + 1 };
	uint64_t seed = 0x1234567;
	for (int i = 0; i < 20; i++)
		sizes.push_back((size_t)(test_rand(&seed) % (4 * MiB)));
	size_t maxn = *std::max_element(sizes.begin(), sizes.end());
	std::vector<uint8_t> h(maxn + 16);
	for (size_t i = 0; i < h.size(); i++)
		h[i] = (uint8_t)(test_rand(&seed) >> 32);
	uint8_t *d = NULL;
	uint32_t *d_out = NULL;
	uint64_t *d_n = NULL;
	CU(cudaMalloc(&d, h.size()));
	CU(cudaMalloc(&d_out, 10 * sizeof(uint32_t)));
	CU(cudaMalloc(&d_n, 2 * sizeof(uint64_t)));
	CU(cudaMemcpy(d, h.data(), h.size(), cudaMemcpyHostToDevice));
	cudaStream_t st;
	CU(cudaStreamCreate(&st));

	int cases = 0;
	for (size_t n : sizes)
		for (size_t off = 0; off < 4; off++) {
			uint32_t got[2];
			gpu_checks(d + off, n, d_out, d_n, st, got);
			uint32_t c = (uint32_t)crc32(0L, h.data() + off, (uInt)n);
			uint32_t a = (uint32_t)adler32(1L, h.data() + off, (uInt)n);
			CHECK(got[0] == c, "crc32 size %zu offset %zu: %08x, zlib %08x", n, off, got[0], c);
			CHECK(got[1] == a, "adler32 size %zu offset %zu: %08x, zlib %08x", n, off, got[1],
			      a);
			cases++;
		}
	/* all bytes 0xff (largest Adler sums) and all zeros */
	for (int v = 0; v < 2; v++) {
		size_t n = 9 * MiB + 5;
		CU(cudaMemset(d, v ? 0xff : 0, n + 3));
		std::vector<uint8_t> hv(n, v ? 0xff : 0);
		for (size_t off = 0; off < 4; off += 3) {
			uint32_t got[2];
			gpu_checks(d + off, n, d_out, d_n, st, got);
			CHECK(got[0] == (uint32_t)crc32(0L, hv.data(), (uInt)n), "crc32 of %s",
			      v ? "0xff bytes" : "zeros");
			CHECK(got[1] == (uint32_t)adler32(1L, hv.data(), (uInt)n), "adler32 of %s",
			      v ? "0xff bytes" : "zeros");
			cases++;
		}
	}
	printf("%d cases compared with zlib\n", cases);
	CU(cudaFree(d));

	throughput(st, d_out);
	CU(cudaStreamDestroy(st));
	CU(cudaFree(d_out));
	CU(cudaFree(d_n));
	if (test_failures) {
		printf("%d failures\n", test_failures);
		return 1;
	}
	printf("gpu_crc: all passed\n");
	return 0;
}
