/* test_gpu_encode.cu - the GPU encoders against the CPU encoder: every block shape of
 * gpz_gpu_encode_shape (tools/bench_encode_shapes.cu) and the paper's encoder (encode_paper.cu).
 *
 * The main encoder: the same data sets and sizes (chunk_log 8, 10, 13, 16), every shape, payload
 * at offsets 0..3 of a word, bytes before the payload untouched and at most the bytes up to the
 * next 4-byte boundary after it written.
 * The paper's encoder:
 * For 1-, 2- and 4-byte symbols and skewed (Nyx-like), flat and long-code (Fibonacci counts,
 * 24-bit codes, long codes in runs) data, with one code table per data set, the first n symbols
 * are encoded for n = 1, 2, 7, chunk - 1, chunk, chunk + 1 and random sizes, r = 0..5 and
 * chunk_log 8, 10, 13 (and 16 for some r), by gpz_gpu_encode_paper and by gpz_huff_encode: chunk
 * bit lengths and payload bytes must be equal, the bytes around the payload untouched (the payload
 * is not zeroed and starts at offsets 0..3 of a word), the breaking count equal to the host's
 * count of units longer than 32 bits (and > 0 where the data forces it), the unit count
 * ceil(n / 2^r). Sources at odd addresses take the scalar load path. Parameters outside the
 * supported range must give GPZ_ERR_PARAM. Exits 77 ("SKIP: no GPU") when no GPU is usable. */
extern "C" {
#include "testutil.h"
#include "huffman/huffman.h"
}
#include "huffman/huffman_gpu.h"
#include "bench_kernels.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda_test.h"

namespace {

const size_t GUARD = 32;
const uint8_t POISON = 0xA5;
uint64_t g_seed = 0x243f6a8885a308d3ull;
int g_cases = 0;

double urand(void)
{
	return (double)(test_rand(&g_seed) >> 11) * (1.0 / 9007199254740992.0);
}

uint32_t get_sym(const std::vector<uint8_t> &v, size_t i, int w)
{
	uint32_t s = 0;
	for (int k = 0; k < w; k++)
		s |= (uint32_t)v[i * w + k] << (8 * k);
	return s;
}

void put_sym(std::vector<uint8_t> &v, size_t i, int w, uint32_t s)
{
	for (int k = 0; k < w; k++)
		v[i * w + k] = (uint8_t)(s >> (8 * k));
}

/* A data set and its code table (built from counts over all of it, so any prefix encodes). */
struct Set {
	const char *name;
	int w;
	std::vector<uint8_t> data;
	std::vector<uint32_t> table;
	int max_len;
	bool forces_breaking; /* some unit exceeds 32 bits for r >= min_break_r */
	int min_break_r;
};

void build_table(Set &s, std::vector<uint32_t> counts)
{
	uint32_t alphabet = 0;
	for (uint32_t i = 0; i < counts.size(); i++)
		if (counts[i])
			alphabet = i + 1;
	std::vector<uint8_t> len(alphabet);
	s.max_len = gpz_code_lengths(counts.data(), alphabet, GPZ_MAX_CODE_LEN, len.data());
	std::vector<uint32_t> code(alphabet);
	s.table.assign(alphabet, 0);
	gpz_canonical_codes(len.data(), alphabet, code.data());
	gpz_encoder_table(len.data(), code.data(), alphabet, s.table.data());
}

void table_from_data(Set &s)
{
	size_t n = s.data.size() / s.w;
	std::vector<uint32_t> counts(gpz_alphabet_limit(s.w));
	uint32_t alphabet = 0;
	gpz_histogram(s.data.data(), n, s.w, 1, counts.data(), &alphabet);
	build_table(s, counts);
}

/* Nyx-Quant-like: one value with p = 0.996, a narrow spread around it, a few zeros. */
Set make_skewed(int w, size_t n)
{
	Set s = { "skewed (Nyx-like)", w, std::vector<uint8_t>(n * w), {}, 0, false, 99 };
	uint32_t mid = w == 1 ? 128 : 512, top = w == 1 ? 255 : 1008;
	for (size_t i = 0; i < n; i++) {
		double u = urand();
		uint32_t x = mid;
		if (u < 0.0009) {
			x = 0;
		} else if (u < 0.004) {
			double g = sqrt(-2 * log(urand() + 1e-300)) * cos(6.283185307179586 * urand());
			int y = (int)mid + (int)lrint(g * 6);
			x = (uint32_t)(y < 1 ? 1 : y > (int)top ? (int)top : y);
		}
		put_sym(s.data, i, w, x);
	}
	put_sym(s.data, 0, w, 0); /* at least two symbols from the start */
	put_sym(s.data, 1, w, top);
	table_from_data(s);
	return s;
}

/* Flat over 2^k symbols: k-bit codes; 2^r * k > 32 breaks every full unit. */
Set make_flat(int w, size_t n)
{
	uint32_t amax = w == 1 ? 256 : w == 2 ? 1024 : 70000;
	Set s = { "flat", w, std::vector<uint8_t>(n * w), {}, 0, true, 0 };
	for (size_t i = 0; i < n; i++)
		put_sym(s.data, i, w, (uint32_t)(test_rand(&g_seed) % amax));
	put_sym(s.data, 0, w, 0);
	put_sym(s.data, 1, w, amax - 1);
	table_from_data(s);
	/* codes of >= 8 bits: r = 2 may reach 32 exactly, r = 3 always exceeds it */
	s.min_break_r = 3;
	return s;
}

/* Fibonacci counts over 30 symbols (lengths limited to 24 bits) with the rare symbols in runs
 * of 3, so that units of two or more long codes break: r >= 1. */
Set make_long(int w, size_t n)
{
	Set s = { "long codes (24 bits)", w, std::vector<uint8_t>(n * w), {}, 0, true, 1 };
	uint32_t scale = w == 1 ? 7 : w == 2 ? 2111 : 34000;
	for (size_t i = 0; i < n; i++) {
		uint32_t x = 0;
		if ((i / 3) % 40 < 2)
			x = (uint32_t)(test_rand(&g_seed) % 30);
		put_sym(s.data, i, w, x * scale);
	}
	put_sym(s.data, 0, w, 29 * scale); /* n = 2 breaks at r >= 1 */
	put_sym(s.data, 1, w, 28 * scale);
	std::vector<uint32_t> counts(30 * scale + 1);
	uint64_t a = 1, b = 1;
	for (int k = 29; k >= 0; k--) {
		counts[k * scale] = (uint32_t)a;
		uint64_t t = a + b;
		a = b;
		b = t;
	}
	build_table(s, counts);
	return s;
}

/* Units (of 2^r symbols) of the first n symbols whose codes exceed 32 bits. */
uint64_t host_breaking(const Set &s, size_t n, int r)
{
	uint64_t cnt = 0;
	size_t u = (size_t)1 << r;
	for (size_t i = 0; i < n; i += u) {
		uint32_t bits = 0;
		for (size_t k = i; k < std::min(n, i + u); k++)
			bits += s.table[get_sym(s.data, k, s.w)] & 0xff;
		cnt += bits > 32;
	}
	return cnt;
}

struct Device {
	uint8_t *src = NULL, *pay = NULL;
	uint32_t *table = NULL, *bits = NULL;
	void *work = NULL;
	size_t src_cap = 0, pay_cap = 0, bits_cap = 0, work_cap = 0;
	void reserve(void **p, size_t *cap, size_t need)
	{
		if (need <= *cap)
			return;
		CU(cudaFree(*p));
		CU(cudaMalloc(p, need));
		*cap = need;
	}
	~Device()
	{
		cudaFree(src);
		cudaFree(pay);
		cudaFree(table);
		cudaFree(bits);
		cudaFree(work);
	}
};

Device *g_dev;

/* Encode the first n symbols of s on both sides and compare. Returns the breaking count. */
uint64_t check(const Set &s, size_t n, int chunk_log, int r, size_t src_off, size_t pay_off)
{
	Device &d = *g_dev;
	int w = s.w;
	size_t cs = (size_t)1 << chunk_log, nchunks = (n + cs - 1) / cs;
	std::vector<uint32_t> cpu_bits(nchunks), gpu_bits(nchunks);
	std::vector<uint8_t> cpu((size_t)n * GPZ_MAX_CODE_LEN / 8 + GPZ_ENCODE_SLACK + 8);
	uint64_t total = 0;
	char what[160];
	snprintf(what, sizeof(what), "%s w=%d n=%zu chunk_log=%d r=%d src+%zu pay+%zu", s.name, w, n,
	         chunk_log, r, src_off, pay_off);
	g_cases++;

	gpz_result e = gpz_huff_encode(s.data.data(), n, w, s.table.data(), chunk_log, 1, cpu.data(),
	                               cpu.size(), cpu_bits.data(), &total);
	CHECK(e == GPZ_OK, "%s: cpu encode: %s", what, gpz_result_string(e));
	size_t pbytes = (size_t)((total + 7) / 8);

	d.reserve((void **)&d.src, &d.src_cap, n * w + 64);
	d.reserve((void **)&d.pay, &d.pay_cap, pbytes + 2 * GUARD + 8);
	d.reserve((void **)&d.bits, &d.bits_cap, nchunks * 4);
	size_t work = gpz_gpu_encode_paper_work(n, chunk_log, s.max_len);
	d.reserve(&d.work, &d.work_cap, work);
	CU(cudaMemcpy(d.src + src_off, s.data.data(), n * w, cudaMemcpyHostToDevice));
	CU(cudaMemset(d.pay, POISON, pbytes + 2 * GUARD + 8));
	CU(cudaMemset(d.bits, 0xEE, nchunks * 4));

	gpz_paper_stats st;
	memset(&st, 0, sizeof(st));
	e = gpz_gpu_encode_paper(d.src + src_off, n, w, d.table, (uint32_t)s.table.size(), s.max_len,
	                         chunk_log, r, d.bits, d.pay + GUARD + pay_off, d.work, work, 0, &st);
	CU(cudaDeviceSynchronize());
	CHECK(e == GPZ_OK, "%s: gpu encode: %s", what, gpz_result_string(e));
	if (e != GPZ_OK)
		return 0;
	std::vector<uint8_t> all(pbytes + 2 * GUARD + 8);
	CU(cudaMemcpy(all.data(), d.pay, all.size(), cudaMemcpyDeviceToHost));
	CU(cudaMemcpy(gpu_bits.data(), d.bits, nchunks * 4, cudaMemcpyDeviceToHost));

	size_t c = 0;
	while (c < nchunks && gpu_bits[c] == cpu_bits[c])
		c++;
	CHECK(c == nchunks, "%s: chunk %zu: %u bits, cpu %u", what, c, c < nchunks ? gpu_bits[c] : 0,
	      c < nchunks ? cpu_bits[c] : 0);
	const uint8_t *g = all.data() + GUARD + pay_off;
	size_t i = 0;
	while (i < pbytes && g[i] == cpu[i])
		i++;
	CHECK(i == pbytes, "%s: payload differs at byte %zu of %zu (gpu %02x, cpu %02x)", what, i,
	      pbytes, i < pbytes ? g[i] : 0, i < pbytes ? cpu[i] : 0);
	size_t bad = 0;
	for (size_t k = 0; k < GUARD + pay_off; k++)
		bad += all[k] != POISON;
	for (size_t k = GUARD + pay_off + pbytes; k < all.size(); k++)
		bad += all[k] != POISON;
	CHECK(bad == 0, "%s: %zu bytes around the payload were written", what, bad);

	uint64_t want = host_breaking(s, n, r), units = (n + ((size_t)1 << r) - 1) >> r;
	CHECK(st.r == r && st.units == units && st.breaking == want,
	      "%s: stats r=%d units=%llu breaking=%llu, expected units=%llu breaking=%llu", what,
	      st.r, (unsigned long long)st.units, (unsigned long long)st.breaking,
	      (unsigned long long)units, (unsigned long long)want);
	return st.breaking;
}

/* The main encoder, every block shape, on the first n symbols of s. */
void check_shapes(const Set &s, size_t n, int chunk_log, size_t src_off, size_t pay_off)
{
	Device &d = *g_dev;
	int w = s.w;
	size_t cs = (size_t)1 << chunk_log, nchunks = (n + cs - 1) / cs;
	std::vector<uint32_t> cpu_bits(nchunks), gpu_bits(nchunks);
	std::vector<uint8_t> cpu((size_t)n * GPZ_MAX_CODE_LEN / 8 + GPZ_ENCODE_SLACK + 8);
	uint64_t total = 0;
	gpz_result e = gpz_huff_encode(s.data.data(), n, w, s.table.data(), chunk_log, 1, cpu.data(),
	                               cpu.size(), cpu_bits.data(), &total);
	CHECK(e == GPZ_OK, "cpu encode: %s", gpz_result_string(e));
	size_t pbytes = (size_t)((total + 7) / 8);
	d.reserve((void **)&d.src, &d.src_cap, n * w + 64);
	d.reserve((void **)&d.pay, &d.pay_cap, pbytes + 2 * GUARD + 8);
	d.reserve((void **)&d.bits, &d.bits_cap, nchunks * 4);
	size_t work = gpz_gpu_encode_work(n, chunk_log, s.max_len);
	d.reserve(&d.work, &d.work_cap, work);
	CU(cudaMemcpy(d.src + src_off, s.data.data(), n * w, cudaMemcpyHostToDevice));
	for (int shape = 0; shape < GPZ_GPU_ENCODE_SHAPES; shape++) {
		char what[160];
		snprintf(what, sizeof(what), "%s w=%d n=%zu chunk_log=%d shape %d src+%zu pay+%zu",
		         s.name, w, n, chunk_log, shape, src_off, pay_off);
		g_cases++;
		CU(cudaMemset(d.pay, POISON, pbytes + 2 * GUARD + 8));
		CU(cudaMemset(d.bits, 0xEE, nchunks * 4));
		uint8_t *pay = d.pay + GUARD + pay_off;
		e = gpz_gpu_encode_shape(d.src + src_off, n, w, d.table, (uint32_t)s.table.size(),
		                         s.max_len, chunk_log, d.bits, pay, d.work, work, shape, 0);
		CU(cudaDeviceSynchronize());
		CHECK(e == GPZ_OK, "%s: gpu encode: %s", what, gpz_result_string(e));
		if (e != GPZ_OK)
			continue;
		std::vector<uint8_t> all(pbytes + 2 * GUARD + 8);
		CU(cudaMemcpy(all.data(), d.pay, all.size(), cudaMemcpyDeviceToHost));
		CU(cudaMemcpy(gpu_bits.data(), d.bits, nchunks * 4, cudaMemcpyDeviceToHost));
		CHECK(gpu_bits == cpu_bits, "%s: chunk bit lengths differ", what);
		CHECK(memcmp(all.data() + GUARD + pay_off, cpu.data(), pbytes) == 0,
		      "%s: payload differs", what);
		size_t spill = (4 - ((uintptr_t)(pay + pbytes) % 4)) % 4, bad = 0;
		for (size_t k = 0; k < GUARD + pay_off; k++)
			bad += all[k] != POISON;
		for (size_t k = GUARD + pay_off + pbytes + spill; k < all.size(); k++)
			bad += all[k] != POISON;
		CHECK(bad == 0, "%s: %zu bytes outside the payload (and its last word) written", what,
		      bad);
	}
}

void run_set(const Set &s)
{
	Device &d = *g_dev;
	size_t total = s.data.size() / s.w;
	CU(cudaFree(d.table));
	CU(cudaMalloc(&d.table, s.table.size() * 4));
	CU(cudaMemcpy(d.table, s.table.data(), s.table.size() * 4, cudaMemcpyHostToDevice));
	int fails0 = test_failures, cases0 = g_cases;
	uint64_t breaking = 0, forced = 0;
	const int logs[] = { 8, 10, 13, 16 };
	for (int cl : logs) {
		size_t cs = (size_t)1 << cl;
		std::vector<size_t> ns = { 1, 2, 7, cs - 1, cs, cs + 1 };
		for (int k = 0; k < 2; k++)
			ns.push_back(1 + test_rand(&g_seed) % std::min(total, 5 * cs));
		ns.push_back(std::min(total, 3 * cs + 1234));
		for (size_t idx = 0; idx < ns.size(); idx++)
			if (ns[idx] <= total)
				check_shapes(s, ns[idx], cl, idx % 3 == 2 ? 1 : 0, idx % 4);
		for (int r = 0; r <= 5; r++) {
			if (cl - r > 14) /* outside the supported range: checked below */
				continue;
			if (cl == 16 && r < 3 && s.w != 2)
				continue; /* large shared-memory configurations: once per set is enough */
			for (size_t idx = 0; idx < ns.size(); idx++) {
				size_t n = ns[idx];
				if (n > total)
					continue;
				size_t src_off = idx % 3 == 2 ? 1 + idx % 3 : 0; /* unaligned: scalar loads */
				size_t pay_off = (idx + (size_t)r) % 4;
				uint64_t b = check(s, n, cl, r, src_off, pay_off);
				breaking += b;
				if (s.forces_breaking && r >= s.min_break_r && n >= ((size_t)2 << r)) {
					forced++;
					CHECK(b > 0, "%s w=%d n=%zu chunk_log=%d r=%d: no breaking unit where the "
					      "data forces some", s.name, s.w, n, cl, r);
				}
			}
		}
	}
	printf("  %-4s %-22s w=%d alphabet %6zu max_len %2d: %4d cases, %llu breaking units (%llu "
	       "forced cases)\n",
	       test_failures == fails0 ? "ok" : "FAIL", s.name, s.w, s.table.size(), s.max_len,
	       g_cases - cases0, (unsigned long long)breaking, (unsigned long long)forced);
}

void check_params(void)
{
	Set s = make_skewed(2, 4096);
	Device &d = *g_dev;
	CU(cudaFree(d.table));
	CU(cudaMalloc(&d.table, s.table.size() * 4));
	CU(cudaMemcpy(d.table, s.table.data(), s.table.size() * 4, cudaMemcpyHostToDevice));
	d.reserve((void **)&d.src, &d.src_cap, 4096 * 2);
	d.reserve((void **)&d.pay, &d.pay_cap, 4096 * 4);
	d.reserve((void **)&d.bits, &d.bits_cap, 4096);
	size_t work = gpz_gpu_encode_paper_work(4096, 10, s.max_len);
	d.reserve(&d.work, &d.work_cap, work);
	struct {
		size_t n;
		int w, cl, r;
	} bad[] = { { 0, 2, 10, 3 },  { 100, 3, 10, 3 }, { 100, 2, 7, 3 }, { 100, 2, 17, 3 },
	            { 100, 2, 10, -1 }, { 100, 2, 10, 6 }, { 100, 2, 15, 0 } };
	for (auto &b : bad) {
		gpz_result e = gpz_gpu_encode_paper(d.src, b.n, b.w, d.table, (uint32_t)s.table.size(),
		                                    s.max_len, b.cl, b.r, d.bits, d.pay, d.work,
		                                    d.work_cap, 0, NULL);
		CHECK(e == GPZ_ERR_PARAM, "n=%zu w=%d chunk_log=%d r=%d: %s, expected GPZ_ERR_PARAM",
		      b.n, b.w, b.cl, b.r, gpz_result_string(e));
	}
	gpz_result e = gpz_gpu_encode_paper(d.src, 4096, 2, d.table, (uint32_t)s.table.size(),
	                                    s.max_len, 10, 3, d.bits, d.pay, d.work, work - 1, 0, NULL);
	CHECK(e == GPZ_ERR_PARAM, "short work: %s", gpz_result_string(e));
	/* the paper's rule: 2^r * average bits in [16, 32) */
	struct {
		double avg;
		int r;
	} rr[] = { { 1.0, 4 }, { 1.027, 4 }, { 1.99, 4 }, { 2.0, 3 }, { 2.3, 3 }, { 4.5, 2 },
	           { 8.0, 1 }, { 15.9, 1 }, { 16.0, 0 }, { 24.0, 0 } };
	for (auto &x : rr)
		CHECK(gpz_paper_choose_r(x.avg) == x.r, "choose_r(%g) = %d, expected %d", x.avg,
		      gpz_paper_choose_r(x.avg), x.r);
	printf("  %-4s parameter checks and r choice\n", test_failures ? "FAIL" : "ok");
}

} // namespace

int main(void)
{
	if (!gpu_test_start())
		return TEST_SKIP;
	Device dev;
	g_dev = &dev;
	check_params();
	for (int w = 1; w <= 4; w *= 2) {
		size_t n = 3 * ((size_t)1 << 16) + 4321;
		run_set(make_skewed(w, n));
		run_set(make_flat(w, n));
		run_set(make_long(w, n));
	}
	if (test_failures) {
		printf("FAILED: %d checks in %d cases\n", test_failures, g_cases);
		return 1;
	}
	printf("all %d GPU encoder cases match the CPU encoder\n", g_cases);
	return 0;
}
