/* test_gpu_codebook.cu - the GPU codebook (src/huffman/codebook.cu) against the CPU one:
 * code lengths and max length of gpz_code_lengths(counts, alphabet, 0, len) and the tables of
 * gpz_canonical_codes + gpz_encoder_table, byte for byte, on many histograms; then timings.
 * Exits 77 when no GPU is usable. Usage: test_gpu_codebook [quick|bench] (quick: fewer and
 * smaller histograms, no timings, for compute-sanitizer; bench: timings only). */
extern "C" {
#include "testutil.h"
#include "huffman/huffman.h"
}
#include "huffman/huffman_gpu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda_test.h"

namespace {

struct Dev {
	uint32_t *counts;
	uint8_t *len, *len2;
	int *max_len;
	uint32_t *table;
	void *work, *cwork;
	size_t work_bytes, cwork_bytes;
	cudaStream_t st;
};

int n_cases;

void dev_init(Dev &d)
{
	const uint32_t A = GPZ_MAX_ALPHABET;
	CU(cudaStreamCreate(&d.st));
	CU(cudaMalloc(&d.counts, A * sizeof(uint32_t)));
	CU(cudaMalloc(&d.len, A));
	CU(cudaMalloc(&d.len2, A));
	CU(cudaMalloc(&d.max_len, sizeof(int)));
	CU(cudaMalloc(&d.table, A * sizeof(uint32_t)));
	/* work sizes grow with the alphabet: the largest serves all */
	d.work_bytes = 0;
	d.cwork_bytes = 0;
	for (uint32_t a = 2; a <= A; a *= 2) {
		d.work_bytes = std::max(d.work_bytes, gpz_gpu_code_lengths_work(a));
		d.work_bytes = std::max(d.work_bytes, gpz_gpu_code_lengths_work(a + 1));
		d.cwork_bytes = std::max(d.cwork_bytes, gpz_gpu_canonical_work(a));
		d.cwork_bytes = std::max(d.cwork_bytes, gpz_gpu_canonical_work(a + 1));
	}
	if (d.work_bytes == SIZE_MAX) {
		fprintf(stderr, "gpz_gpu_code_lengths_work failed\n");
		exit(1);
	}
	CU(cudaMalloc(&d.work, d.work_bytes ? d.work_bytes : 1));
	CU(cudaMalloc(&d.cwork, d.cwork_bytes ? d.cwork_bytes : 1));
}

void dev_free(Dev &d)
{
	cudaFree(d.counts);
	cudaFree(d.len);
	cudaFree(d.len2);
	cudaFree(d.max_len);
	cudaFree(d.table);
	cudaFree(d.work);
	cudaFree(d.cwork);
	cudaStreamDestroy(d.st);
}

/* GPU canonical table from host lengths len[0 .. A) against the CPU's. */
void check_canonical(Dev &d, const char *name, const uint8_t *len, uint32_t A)
{
	std::vector<uint32_t> code(A), want(A), got(A);
	gpz_canonical_codes(len, A, code.data());
	gpz_encoder_table(len, code.data(), A, want.data());
	CU(cudaMemcpy(d.len2, len, A, cudaMemcpyHostToDevice));
	CU(cudaMemset(d.table, 0xa5, A * sizeof(uint32_t)));
	gpz_result r = gpz_gpu_canonical(d.len2, A, d.table, d.cwork, d.cwork_bytes, d.st);
	CHECK(r == GPZ_OK, "%s: gpz_gpu_canonical: %d", name, (int)r);
	CU(cudaStreamSynchronize(d.st));
	CU(cudaMemcpy(got.data(), d.table, A * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	for (uint32_t s = 0; s < A; s++)
		if (got[s] != want[s]) {
			CHECK(0, "%s (alphabet %u): table[%u] = %#x, CPU %#x", name, A, s, got[s], want[s]);
			break;
		}
}

/* One histogram: lengths, max length, tables. */
void check_case(Dev &d, const char *name, const uint32_t *counts, uint32_t A)
{
	std::vector<uint8_t> want(A ? A : 1, 0), got(A ? A : 1, 0xee);
	int want_max = gpz_code_lengths(counts, A, 0, want.data());
	int got_max = -2;
	n_cases++;
	if (A)
		CU(cudaMemcpy(d.counts, counts, A * sizeof(uint32_t), cudaMemcpyHostToDevice));
	CU(cudaMemset(d.len, 0xee, A ? A : 1));
	gpz_result r = gpz_gpu_code_lengths(d.counts, A, d.len, d.max_len, d.work, d.work_bytes,
	                                    d.st);
	CHECK(r == GPZ_OK, "%s: gpz_gpu_code_lengths: %d", name, (int)r);
	CU(cudaStreamSynchronize(d.st));
	CU(cudaMemcpy(&got_max, d.max_len, sizeof(int), cudaMemcpyDeviceToHost));
	CHECK(got_max == want_max, "%s (alphabet %u): max length %d, CPU %d", name, A, got_max,
	      want_max);
	if (want_max < 0)
		return; /* fewer than 2 used symbols: the CPU leaves len alone */
	CU(cudaMemcpy(got.data(), d.len, A, cudaMemcpyDeviceToHost));
	for (uint32_t s = 0; s < A; s++)
		if (got[s] != want[s]) {
			CHECK(0, "%s (alphabet %u): len[%u] = %u, CPU %u", name, A, s, got[s], want[s]);
			break;
		}
	if (want_max <= GPZ_MAX_CODE_LEN) {
		check_canonical(d, name, want.data(), A);
	} else {
		/* too deep for a code: check the tables on the package-merge lengths instead */
		std::vector<uint8_t> lim(A);
		int m = gpz_code_lengths(counts, A, GPZ_MAX_CODE_LEN, lim.data());
		CHECK(m > 0 && m <= GPZ_MAX_CODE_LEN, "%s: limited max %d", name, m);
		check_canonical(d, name, lim.data(), A);
	}
}

uint32_t rnd(uint64_t *st, uint32_t n)
{
	return n ? (uint32_t)(test_rand(st) % n) : 0;
}

/* Make sure at least two symbols are used. */
void ensure_two(std::vector<uint32_t> &c, uint64_t *st)
{
	uint32_t A = (uint32_t)c.size(), used = 0;
	for (uint32_t v : c)
		used += v != 0;
	while (used < 2 && A >= 2) {
		uint32_t s = rnd(st, A);
		if (!c[s]) {
			c[s] = 1 + rnd(st, 5);
			used++;
		}
	}
}

/* Random histogram of kind k over A symbols. */
std::vector<uint32_t> gen(int kind, uint32_t A, uint64_t *st)
{
	std::vector<uint32_t> c(A, 0);
	switch (kind) {
	case 0: /* uniform counts, some zeros */
		for (uint32_t s = 0; s < A; s++)
			c[s] = rnd(st, 4) ? rnd(st, 1000) : 0;
		break;
	case 1: /* heavy skew: counts of random magnitude (1 .. 2^24) */
		for (uint32_t s = 0; s < A; s++)
			c[s] = rnd(st, 1u << rnd(st, 25));
		break;
	case 2: /* ties: few distinct values */
		for (uint32_t s = 0; s < A; s++)
			c[s] = 1 + rnd(st, 3);
		break;
	case 3: /* ties: powers of two (merged weights tie with leaves) */
		for (uint32_t s = 0; s < A; s++)
			c[s] = 1u << rnd(st, 6);
		break;
	case 4: { /* two-sided geometric around the middle, like quantization codes */
		double scale = 1.0 + rnd(st, 64);
		for (uint32_t s = 0; s < A; s++) {
			double x = fabs((double)s - A / 2.0) / scale;
			c[s] = (uint32_t)(1e7 * exp(-x));
		}
		break;
	}
	case 5: { /* Nyx-like: one symbol p ~ 0.996, ~1000 others mostly count 1 */
		uint32_t mid = A / 2, others = std::min<uint32_t>(A - 1, 1000);
		uint64_t rest = 0;
		for (uint32_t i = 0; i < others; i++) {
			uint32_t s = rnd(st, A);
			if (s == mid)
				continue;
			c[s] = rnd(st, 8) ? 1 : 1 + rnd(st, 30);
		}
		for (uint32_t v : c)
			rest += v;
		c[mid] = (uint32_t)std::min<uint64_t>(rest * 249, 0xffffffffu);
		break;
	}
	case 6: /* sparse: few used symbols in a wide alphabet */
		for (uint32_t i = 0; i < 1 + A / 64; i++)
			c[rnd(st, A)] = 1 + rnd(st, 100000);
		break;
	case 7: /* huge counts: weights need 64 bits */
		for (uint32_t s = 0; s < A; s++)
			c[s] = 0xffffffffu - rnd(st, 1000);
		break;
	default: /* all equal */
		for (uint32_t s = 0; s < A; s++)
			c[s] = 7;
		break;
	}
	ensure_two(c, st);
	return c;
}
constexpr int KINDS = 9;

void fib_cases(Dev &d)
{
	/* Fibonacci counts: depth = alphabet - 1 beyond GPZ_MAX_CODE_LEN */
	for (uint32_t N : {30u, 45u, 47u}) {
		std::vector<uint32_t> c(N);
		c[0] = c[1] = 1;
		for (uint32_t i = 2; i < N; i++)
			c[i] = c[i - 1] + c[i - 2];
		check_case(d, "fibonacci", c.data(), N);
		std::reverse(c.begin(), c.end());
		check_case(d, "fibonacci reversed", c.data(), N);
	}
	/* Fibonacci counts scattered in large alphabets, alone and among other symbols */
	uint64_t st = 99;
	for (uint32_t A : {1024u, 8192u, 65536u, 1u << 20}) {
		std::vector<uint32_t> c(A, 0);
		uint32_t f0 = 1, f1 = 1;
		for (int i = 0; i < 40; i++) {
			c[rnd(&st, A)] = f0;
			uint32_t f2 = f0 + f1;
			f0 = f1;
			f1 = f2;
		}
		check_case(d, "fibonacci sparse", c.data(), A);
		for (uint32_t s = 0; s < A; s += 3)
			if (!c[s])
				c[s] = 1;
		check_case(d, "fibonacci mixed", c.data(), A);
	}
}

void fixed_cases(Dev &d)
{
	uint32_t c2[2] = {5, 7}, c3[3] = {1, 1, 1}, c3b[3] = {0, 4, 0}, c1[1] = {9};
	check_case(d, "two symbols", c2, 2);
	check_case(d, "three equal", c3, 3);
	check_case(d, "one used of three", c3b, 3); /* no code: max -1 */
	check_case(d, "alphabet 1", c1, 1);
	{
		std::vector<uint32_t> c(65536, 1000);
		check_case(d, "65536 equal", c.data(), 65536);
	}
	for (uint32_t A : {2u, 3u, 256u, 1024u, 8192u, 8193u, 65536u, 1u << 20}) {
		std::vector<uint32_t> c(A, 0);
		c[0] = 1;
		c[A - 1] = 3;
		check_case(d, "first and last", c.data(), A);
		std::fill(c.begin(), c.end(), 1u);
		check_case(d, "all ones", c.data(), A);
		std::fill(c.begin(), c.end(), 0u);
		c[A - 1] = 1;
		check_case(d, "only the last", c.data(), A); /* no code */
	}
	{ /* every count 2^32 - 1: total weight near 2^52 */
		std::vector<uint32_t> c(1u << 20, 0xffffffffu);
		check_case(d, "max counts", c.data(), 1u << 20);
	}
}

void random_cases(Dev &d, bool quick)
{
	uint64_t st = 2024;
	static const uint32_t sizes[] = {2,    3,    4,    5,    17,   100,  255,   256,   257,
	                                 511,  512,  1000, 1023, 1024, 1025, 2047,  2048,  2049,
	                                 4095, 4096, 4097, 8191, 8192, 8193, 12345, 16384, 16385,
	                                 65535, 65536, 65537, 100000, 1u << 20};
	for (uint32_t A : sizes) {
		int reps = quick ? (A <= 65537 ? 1 : 0) : A <= 8192 ? 12 : A <= 65537 ? 3 : 1;
		for (int rep = 0; rep < reps; rep++)
			for (int k = 0; k < KINDS; k++) {
				char name[64];
				snprintf(name, sizeof(name), "random kind %d rep %d", k, rep);
				std::vector<uint32_t> c = gen(k, A, &st);
				check_case(d, name, c.data(), A);
			}
	}
	/* random sizes */
	for (int i = 0; i < (quick ? 10 : 60); i++) {
		uint32_t A = 2 + rnd(&st, i < 50 ? 10000 : 300000);
		std::vector<uint32_t> c = gen(i % KINDS, A, &st);
		check_case(d, "random size", c.data(), A);
	}
}

/* Median of 20 timed runs (after warm-up) of fn on the stream, in microseconds. */
template <class F>
double time_us(Dev &d, F fn)
{
	cudaEvent_t a, b;
	std::vector<float> t;
	CU(cudaEventCreate(&a));
	CU(cudaEventCreate(&b));
	for (int i = 0; i < 3; i++)
		fn();
	CU(cudaStreamSynchronize(d.st));
	for (int i = 0; i < 20; i++) {
		float ms = 0;
		CU(cudaEventRecord(a, d.st));
		fn();
		CU(cudaEventRecord(b, d.st));
		CU(cudaEventSynchronize(b));
		CU(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms * 1000.0f);
	}
	CU(cudaEventDestroy(a));
	CU(cudaEventDestroy(b));
	std::sort(t.begin(), t.end());
	return (t[9] + t[10]) / 2;
}

void timings(Dev &d)
{
	printf("timings (median of 20, us):   lengths  canonical      both   max len\n");
	for (int kind : {4, 5})
		for (uint32_t A : {1024u, 4096u, 65536u, 1u << 20}) {
			uint64_t st = 7;
			std::vector<uint32_t> c = gen(kind, A, &st);
			if (kind == 4) /* every symbol used */
				for (uint32_t &v : c)
					v++;
			CU(cudaMemcpy(d.counts, c.data(), A * sizeof(uint32_t), cudaMemcpyHostToDevice));
			auto lengths = [&] {
				gpz_gpu_code_lengths(d.counts, A, d.len, d.max_len, d.work, d.work_bytes, d.st);
			};
			auto canon = [&] {
				gpz_gpu_canonical(d.len, A, d.table, d.cwork, d.cwork_bytes, d.st);
			};
			double tl = time_us(d, lengths);
			int m = 0;
			CU(cudaMemcpy(&m, d.max_len, sizeof(int), cudaMemcpyDeviceToHost));
			if (m > GPZ_MAX_CODE_LEN) { /* keep the canonical input valid */
				std::vector<uint8_t> lim(A);
				gpz_code_lengths(c.data(), A, GPZ_MAX_CODE_LEN, lim.data());
				CU(cudaMemcpy(d.len, lim.data(), A, cudaMemcpyHostToDevice));
			}
			double tc = time_us(d, canon);
			char both[32] = "n/a"; /* lengths over 24 bits would need package-merge */
			if (m <= GPZ_MAX_CODE_LEN)
				snprintf(both, sizeof(both), "%.1f", time_us(d, [&] {
					lengths();
					canon();
				}));
			printf("  %-8s %8u symbols  %9.1f %10.1f %9s %9d\n",
			       kind == 4 ? "geom" : "nyx-like", A, tl, tc, both, m);
		}
}

} // namespace

int main(int argc, char **argv)
{
	const bool quick = argc > 1 && !strcmp(argv[1], "quick");
	const bool bench = argc > 1 && !strcmp(argv[1], "bench");
	if (!gpz_gpu_usable()) {
		printf("SKIP: no GPU\n");
		return TEST_SKIP;
	}
	Dev d;
	dev_init(d);
	if (!quick && !bench) {
		fixed_cases(d);
		fib_cases(d);
	}
	if (!bench)
		random_cases(d, quick);
	printf("%d histograms compared, %d failures\n", n_cases, test_failures);
	if (!quick)
		timings(d);
	CU(cudaGetLastError());
	dev_free(d);
	return test_failures ? 1 : 0;
}
