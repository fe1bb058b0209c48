/* test_gpu_lanes.cu - the 32-lane interleaved layout on the GPU (src/huffman/lanes.cu) against
 * the CPU's (lanes.c): the GPU encoder's words and chunk counts equal the CPU encoder's, the GPU
 * decoder gives back the input from the CPU's payload, and damaged payloads or chunk starts get
 * the CPU decoder's verdict (and, where both accept, its bytes). Widths 1, 2 and 4, chunk_log
 * 5..16, sizes not a multiple of the chunk, tiny inputs, 24-bit codes, unaligned payload and
 * destination pointers, guard bytes around every destination, one symbol nearly always (the
 * decoder's dominant rows).
 *
 *   test_gpu_lanes                      the checks (data files from $GPZ_DATA when present)
 *   test_gpu_lanes bench FILE W [LOG..] FILE's W-byte symbols tiled to 1 GiB on the device:
 *                                       the whole calls gpz_gpu_encode_lanes and
 *                                       gpz_gpu_decode_lanes against gpz_gpu_encode and
 *                                       gpz_gpu_decode (the one-bitstream layout) on the same
 *                                       symbols and code, and both payload sizes
 * Exits 77 ("SKIP: no GPU") when no GPU is usable. */
extern "C" {
#include "testutil.h"
#include "huffman/huffman.h"
}
#include "huffman/huffman_gpu.h"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda_test.h"

namespace {

const size_t GUARD = 64;
const uint8_t POISON = 0xA5;

/* A code for the symbols of src (at least two values must occur) and its CPU lanes coding. */
struct Code {
	std::vector<uint8_t> len;
	std::vector<uint32_t> table;
	gpz_decoder dec;
	int max_len = 0;
	Code() { memset(&dec, 0, sizeof(dec)); }
	~Code() { gpz_decoder_free(&dec); }
	Code(const Code &) = delete;
	Code &operator=(const Code &) = delete;
};

bool make_code(const uint8_t *src, size_t n, int w, Code &c)
{
	std::vector<uint32_t> counts(gpz_alphabet_limit(w));
	uint32_t alphabet = 0;
	if (gpz_histogram(src, n, w, 1, counts.data(), &alphabet) != GPZ_OK)
		return false;
	uint32_t used = 0;
	for (uint32_t s = 0; s < alphabet; s++)
		used += counts[s] != 0;
	if (used < 2)
		return false;
	c.len.resize(alphabet);
	c.max_len = gpz_code_lengths(counts.data(), alphabet, GPZ_MAX_CODE_LEN, c.len.data());
	std::vector<uint32_t> code(alphabet);
	gpz_canonical_codes(c.len.data(), alphabet, code.data());
	c.table.resize(alphabet);
	gpz_encoder_table(c.len.data(), code.data(), alphabet, c.table.data());
	return c.max_len > 0 && gpz_decoder_init(&c.dec, c.len.data(), alphabet, w) == GPZ_OK;
}

struct Coded {
	std::vector<uint8_t> payload;
	std::vector<uint32_t> words; /* per chunk */
	std::vector<uint64_t> start; /* nchunks + 1 */
};

bool cpu_encode(const uint8_t *src, size_t n, int w, int log, const Code &c, Coded &out)
{
	size_t nchunks = (n + ((size_t)1 << log) - 1) >> log;
	size_t cap = 4 * ((n * GPZ_MAX_CODE_LEN + 31) / 32 + 32 * nchunks) + 4;
	uint64_t total = 0;
	out.payload.assign(cap, 0);
	out.words.assign(nchunks, 0);
	gpz_result r = gpz_huff_encode_lanes(src, n, w, c.table.data(), log, 2, out.payload.data(),
	                                     cap, out.words.data(), &total);
	CHECK(r == GPZ_OK, "cpu encode: %s", gpz_result_string(r));
	out.payload.resize(4 * total);
	out.start.assign(1, 0);
	for (uint32_t x : out.words)
		out.start.push_back(out.start.back() + x);
	return r == GPZ_OK;
}

/* GPU decode of (payload, start) placed at the given misalignments; returns the result and
 * fills out (n * w bytes) when the guards survived. */
gpz_result gpu_decode(const Code &c, const std::vector<uint8_t> &payload,
                      const std::vector<uint64_t> &start, size_t n, int w, int log, size_t pay_off,
                      size_t dst_off, std::vector<uint8_t> &out, const char *label)
{
	size_t bytes = n * w, dsz = bytes + 2 * GUARD + dst_off;
	uint8_t *d_pay = NULL, *d_dst = NULL;
	uint64_t *d_start = NULL;
	CU(cudaMalloc(&d_pay, payload.size() + pay_off + 1));
	CU(cudaMalloc(&d_start, start.size() * 8));
	CU(cudaMalloc(&d_dst, dsz));
	CU(cudaMemcpy(d_pay + pay_off, payload.data(), payload.size(), cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_start, start.data(), start.size() * 8, cudaMemcpyHostToDevice));
	CU(cudaMemset(d_dst, POISON, dsz));
	gpz_result r = gpz_gpu_decode_lanes(&c.dec, d_pay + pay_off, payload.size(), d_start, n, w,
	                                    log, d_dst + GUARD + dst_off, NULL, NULL, 0);
	std::vector<uint8_t> all(dsz), again(dsz);
	CU(cudaMemcpy(all.data(), d_dst, dsz, cudaMemcpyDeviceToHost));
	/* the frame decoder's way: tables in a given workspace, the verdict left in pinned memory
	 * for the caller's synchronisation; the same bytes and verdict */
	void *d_work = NULL;
	uint32_t *h_flag = NULL;
	CU(cudaMalloc(&d_work, gpz_gpu_decode_lanes_work(&c.dec)));
	CU(cudaMallocHost(&h_flag, sizeof(*h_flag)));
	*h_flag = 0xdead;
	CU(cudaMemset(d_dst, POISON, dsz));
	gpz_result r2 = gpz_gpu_decode_lanes(&c.dec, d_pay + pay_off, payload.size(), d_start, n, w,
	                                     log, d_dst + GUARD + dst_off, d_work, h_flag, 0);
	CU(cudaStreamSynchronize(0));
	if (r2 == GPZ_OK && *h_flag)
		r2 = GPZ_ERR_CORRUPT;
	CU(cudaMemcpy(again.data(), d_dst, dsz, cudaMemcpyDeviceToHost));
	CHECK(r2 == r && again == all, "%s: with a workspace and a deferred verdict: %s, not %s",
	      label, gpz_result_string(r2), gpz_result_string(r));
	CU(cudaFree(d_work));
	CU(cudaFreeHost(h_flag));
	bool guards = true;
	for (size_t i = 0; i < GUARD + dst_off; i++)
		guards &= all[i] == POISON;
	for (size_t i = GUARD + dst_off + bytes; i < dsz; i++)
		guards &= all[i] == POISON;
	CHECK(guards, "%s: bytes outside the destination were written", label);
	out.assign(all.begin() + GUARD + dst_off, all.begin() + GUARD + dst_off + bytes);
	CU(cudaFree(d_pay));
	CU(cudaFree(d_start));
	CU(cudaFree(d_dst));
	return r;
}

/* GPU encode at a misaligned payload; its bytes and chunk counts must be the CPU's. */
void gpu_encode_check(const uint8_t *src, size_t n, int w, int log, const Code &c,
                      const Coded &cpu, size_t pay_off, const char *label)
{
	size_t nchunks = cpu.words.size(), cap = cpu.payload.size() + pay_off;
	size_t work = gpz_gpu_encode_lanes_work(n, log);
	uint8_t *d_src = NULL, *d_pay = NULL;
	uint32_t *d_table = NULL, *d_words = NULL;
	void *d_work = NULL;
	CU(cudaMalloc(&d_src, n * w + 1));
	CU(cudaMalloc(&d_pay, cap + GUARD));
	CU(cudaMalloc(&d_table, c.table.size() * 4));
	CU(cudaMalloc(&d_words, nchunks * 4 + 4));
	CU(cudaMalloc(&d_work, work));
	CU(cudaMemcpy(d_src, src, n * w, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_table, c.table.data(), c.table.size() * 4, cudaMemcpyHostToDevice));
	CU(cudaMemset(d_pay, POISON, cap + GUARD));
	uint64_t total = 0;
	gpz_result r = gpz_gpu_encode_lanes(d_src, n, w, d_table, log, d_words, d_pay + pay_off,
	                                    cpu.payload.size(), &total, d_work, work, 0);
	CHECK(r == GPZ_OK, "%s: gpu encode: %s", label, gpz_result_string(r));
	std::vector<uint8_t> pay(cap + GUARD);
	std::vector<uint32_t> words(nchunks);
	CU(cudaMemcpy(pay.data(), d_pay, cap + GUARD, cudaMemcpyDeviceToHost));
	if (nchunks)
		CU(cudaMemcpy(words.data(), d_words, nchunks * 4, cudaMemcpyDeviceToHost));
	CHECK(total * 4 == cpu.payload.size(), "%s: gpu %llu words, cpu %zu", label,
	      (unsigned long long)total, cpu.payload.size() / 4);
	CHECK(words == cpu.words, "%s: chunk word counts differ", label);
	CHECK(std::equal(cpu.payload.begin(), cpu.payload.end(), pay.begin() + pay_off),
	      "%s: gpu payload differs from the cpu's", label);
	bool guards = true;
	for (size_t i = 0; i < pay_off; i++)
		guards &= pay[i] == POISON;
	for (size_t i = cap; i < cap + GUARD; i++)
		guards &= pay[i] == POISON;
	CHECK(guards, "%s: gpu encode wrote outside its payload", label);
	/* one word too little room: too small, nothing past it */
	if (total) {
		CU(cudaMemset(d_pay, POISON, cap + GUARD));
		r = gpz_gpu_encode_lanes(d_src, n, w, d_table, log, d_words, d_pay + pay_off,
		                         cpu.payload.size() - 1, &total, d_work, work, 0);
		CHECK(r == GPZ_ERR_DST_TOO_SMALL, "%s: small payload gave %s", label,
		      gpz_result_string(r));
		CU(cudaMemcpy(pay.data(), d_pay, cap + GUARD, cudaMemcpyDeviceToHost));
		bool past = true;
		for (size_t i = pay_off + 4 * (cpu.payload.size() / 4 - 1); i < cap + GUARD; i++)
			past &= pay[i] == POISON;
		CHECK(past, "%s: a too-small encode wrote past its room", label);
	}
	CU(cudaFree(d_src));
	CU(cudaFree(d_pay));
	CU(cudaFree(d_table));
	CU(cudaFree(d_words));
	CU(cudaFree(d_work));
}

/* Everything for one input: GPU encode == CPU encode, GPU decode == input (aligned and not),
 * and damaged versions judged as the CPU judges them. */
void check_input(const std::vector<uint8_t> &v, int w, int log, const char *label)
{
	size_t n = v.size() / w;
	Code c;
	Coded cpu;
	if (!make_code(v.data(), n, w, c)) {
		CHECK(0, "%s: no code", label);
		return;
	}
	if (!cpu_encode(v.data(), n, w, log, c, cpu))
		return;
	int before = test_failures;
	for (size_t off : { (size_t)0, (size_t)1, (size_t)3 })
		gpu_encode_check(v.data(), n, w, log, c, cpu, off, label);
	std::vector<uint8_t> out;
	for (size_t off : { (size_t)0, (size_t)1 }) {
		gpz_result r = gpu_decode(c, cpu.payload, cpu.start, n, w, log, off, off ? 3 : 0, out,
		                          label);
		CHECK(r == GPZ_OK && out == v, "%s: gpu decode (offset %zu): %s%s", label, off,
		      gpz_result_string(r), r == GPZ_OK ? ", bytes differ" : "");
	}
	/* damage: the CPU's verdict, and its bytes when it accepts */
	uint64_t seed = 0x1234 + v.size() * 31 + log;
	std::vector<uint8_t> want(v.size());
	for (int t = 0; t < 24 && !cpu.payload.empty(); t++) {
		std::vector<uint8_t> pay = cpu.payload;
		std::vector<uint64_t> start = cpu.start;
		size_t pay_size = pay.size();
		uint64_t x = test_rand(&seed);
		if (t % 4 == 0 && start.size() > 2) { /* move an inner chunk boundary by one word */
			size_t k = 1 + x % (start.size() - 2);
			start[k] += (x >> 20) & 1 ? 1 : (uint64_t)-1;
		} else if (t % 4 == 1) { /* claim one word less */
			start.back()--;
			pay_size -= 4;
		} else {
			for (int f = 0; f < 1 + t % 3; f++) {
				uint64_t b = test_rand(&seed) % (8 * pay.size());
				pay[b / 8] ^= (uint8_t)(1u << (b % 8));
			}
		}
		pay.resize(pay_size);
		gpz_result rc = gpz_huff_decode_lanes(&c.dec, pay.data(), pay.size(), start.data(), n,
		                                      w, log, 1, want.data());
		gpz_result rg = gpu_decode(c, pay, start, n, w, log, 0, 0, out, label);
		CHECK(rc == rg, "%s: damage %d: cpu %s, gpu %s", label, t, gpz_result_string(rc),
		      gpz_result_string(rg));
		if (rc == GPZ_OK && rg == GPZ_OK)
			CHECK(out == want, "%s: damage %d: both accept, bytes differ", label, t);
	}
	printf("  %s %-40s w=%d log=%-2d %9zu B -> %9zu B\n",
	       test_failures == before ? "ok  " : "FAIL", label, w, log, v.size(),
	       cpu.payload.size());
}

std::vector<uint8_t> skewed(size_t n, int w, uint64_t seed)
{
	std::vector<uint8_t> v(n * w + 1);
	test_skewed_symbols(v.data(), n, w, &seed);
	v.resize(n * w);
	return v;
}

/* Symbols with Fibonacci counts: codes up to 24 bits (the canonical search). */
std::vector<uint8_t> fibonacci(int w, uint32_t spread)
{
	std::vector<uint32_t> syms;
	uint64_t a = 1, b = 1;
	for (uint32_t s = 0; s < 27; s++) {
		for (uint64_t k = 0; k < a; k++)
			syms.push_back(s * spread);
		uint64_t t = a + b;
		a = b;
		b = t;
	}
	uint64_t seed = 77;
	for (size_t i = syms.size(); i > 1; i--)
		std::swap(syms[i - 1], syms[test_rand(&seed) % i]);
	std::vector<uint8_t> v(syms.size() * w);
	for (size_t i = 0; i < syms.size(); i++)
		for (int k = 0; k < w; k++)
			v[i * w + k] = (uint8_t)(syms[i] >> (8 * k));
	return v;
}

/* One symbol nearly always (~99.75%), the others in bursts of 1-4 (Nyx-Quant's shape): the
 * decoder's rows of the dominant symbol (lanes.cu), and the rows that go back to the steps. */
std::vector<uint8_t> dominant(size_t n, int w, uint64_t seed)
{
	std::vector<uint8_t> v(n * w);
	const uint32_t dom = w == 1 ? 200 : 512, spread = w == 4 ? 9973 : 1;
	auto put = [&](size_t i, uint32_t s) {
		for (int k = 0; k < w; k++)
			v[i * w + k] = (uint8_t)(s >> (8 * k));
	};
	for (size_t i = 0; i < n;) {
		const uint64_t x = test_rand(&seed);
		for (size_t run = 1 + x % 2000; run && i < n; run--)
			put(i++, dom);
		for (size_t b = 1 + (x >> 20) % 4; b && i < n; b--)
			put(i++, (uint32_t)((x >> 30) % 97) * spread);
	}
	return v;
}

void test_inputs(void)
{
	for (int w : { 1, 2, 4 })
		for (size_t n : { (size_t)1000, (size_t)100003, (size_t)1 << 20 })
			for (int log : { 5, 8, 14 })
				check_input(dominant(n, w, n + w), w, log, "dominant");
	for (int w : { 1, 2, 4 }) {
		for (size_t n : { (size_t)2, (size_t)31, (size_t)32, (size_t)33, (size_t)1000,
		                  (size_t)100003 })
			for (int log : { 5, 8, 14 })
				check_input(skewed(n, w, n * 7 + w), w, log, "skewed");
		check_input(skewed((size_t)1 << 20, w, 5), w, 16, "skewed 2^20");
		check_input(fibonacci(w, w == 1 ? 1 : w == 2 ? 2400 : 38000), w, 10, "fibonacci");
	}
	std::vector<uint8_t> one(300000, 7);
	one[123456] = 9;
	check_input(one, 1, 14, "one symbol and one other");
	std::vector<uint8_t> flat(1 << 20);
	for (size_t i = 0; i < flat.size(); i++)
		flat[i] = (uint8_t)i;
	check_input(flat, 1, 12, "256 values equally likely");
	std::vector<uint8_t> big(4 * 300000);
	uint64_t seed = 99;
	for (size_t i = 0; i < 300000; i++) {
		uint32_t s = (uint32_t)(test_rand(&seed) % ((1u << 20) - 1)) | (i % 5 ? 0 : 0xFFFFF);
		memcpy(&big[4 * i], &s, 4);
	}
	check_input(big, 4, 13, "4-byte, 2^20 alphabet");
}

std::vector<uint8_t> read_prefix(const char *path, size_t cap, int w)
{
	size_t size = 0;
	uint8_t *p = test_read_file(path, &size);
	std::vector<uint8_t> v;
	if (p) {
		size = std::min(size, cap);
		size -= size % w;
		v.assign(p, p + size);
		free(p);
	}
	return v;
}

void test_files(void)
{
	const char *dir = test_data_dir();
	if (!dir) {
		printf("  data directory absent: no file checks\n");
		return;
	}
	struct {
		const char *name;
		int w;
	} files[] = { { "debtext100m", 1 }, { "silesia/samba", 1 }, { "silesia/x-ray", 1 },
		          { "nyx/baryon_density.dat.b16", 2 } };
	for (auto &f : files) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, f.name);
		std::vector<uint8_t> v = read_prefix(path, (size_t)24 << 20, f.w);
		if (v.empty()) {
			printf("  %s absent\n", f.name);
			continue;
		}
		check_input(v, f.w, 16, f.name);
	}
}

/* ---- bench ---- */

struct Timer {
	cudaEvent_t a, b;
	Timer() { CU(cudaEventCreate(&a)); CU(cudaEventCreate(&b)); }
	~Timer() { cudaEventDestroy(a); cudaEventDestroy(b); }
	template <typename F> double median_ms(int iters, F f)
	{
		std::vector<float> ms;
		f(); /* warm-up */
		for (int i = 0; i < iters; i++) {
			CU(cudaEventRecord(a, 0));
			f();
			CU(cudaEventRecord(b, 0));
			CU(cudaEventSynchronize(b));
			float t = 0;
			CU(cudaEventElapsedTime(&t, a, b));
			ms.push_back(t);
		}
		std::sort(ms.begin(), ms.end());
		return ms[ms.size() / 2];
	}
};

int bench(const char *path, int w, const std::vector<int> &logs)
{
	size_t size = 0;
	uint8_t *p = test_read_file(path, &size);
	if (!p) {
		fprintf(stderr, "cannot read %s\n", path);
		return 1;
	}
	size -= size % w;
	const size_t total = (size_t)1 << 30, n = total / w;
	std::vector<uint8_t> h(total);
	for (size_t o = 0; o < total; o += size)
		memcpy(h.data() + o, p, std::min(size, total - o));
	free(p);
	Code c;
	if (!make_code(h.data(), n, w, c))
		return 1;
	uint8_t *d_src = NULL, *d_pay = NULL, *d_out = NULL;
	uint32_t *d_table = NULL, *d_words = NULL;
	uint64_t *d_start = NULL;
	const size_t cap = total + ((size_t)8 << 20);
	CU(cudaMalloc(&d_src, total));
	CU(cudaMalloc(&d_out, total));
	CU(cudaMalloc(&d_pay, cap));
	CU(cudaMalloc(&d_table, c.table.size() * 4));
	CU(cudaMemcpy(d_src, h.data(), total, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_table, c.table.data(), c.table.size() * 4, cudaMemcpyHostToDevice));
	cudaDeviceProp prop;
	CU(cudaGetDeviceProperties(&prop, 0));
	printf("%s, %s tiled to 1 GiB, %d-byte symbols, max code %d bits; whole calls, median "
	       "of 10 after a warm-up; GB/s of uncompressed bytes\n",
	       prop.name, path, w, c.max_len);
	printf("| layout | chunk_log | payload+index bytes | ratio | encode GB/s | decode GB/s |\n"
	       "|---|---:|---:|---:|---:|---:|\n");
	Timer t;
	std::vector<uint8_t> back(total);
	for (int log : logs) {
		const size_t nchunks = (n + ((size_t)1 << log) - 1) >> log;
		CU(cudaMalloc(&d_words, nchunks * 4));
		CU(cudaMalloc(&d_start, (nchunks + 1) * 8));
		/* one bitstream (today's frames) */
		size_t work = gpz_gpu_encode_work(n, log, c.max_len);
		void *d_work = NULL;
		CU(cudaMalloc(&d_work, std::max(work, gpz_gpu_encode_lanes_work(n, log))));
		gpz_result r = GPZ_OK;
		double enc = t.median_ms(10, [&] {
			r = gpz_gpu_encode(d_src, n, w, d_table, (uint32_t)c.table.size(), c.max_len, log,
			                   d_words, d_pay, d_work, work, 0);
			CU(cudaStreamSynchronize(0));
		});
		std::vector<uint32_t> words(nchunks);
		std::vector<uint64_t> start(nchunks + 1, 0);
		CU(cudaMemcpy(words.data(), d_words, nchunks * 4, cudaMemcpyDeviceToHost));
		for (size_t k = 0; k < nchunks; k++)
			start[k + 1] = start[k] + words[k];
		size_t pay = (start[nchunks] + 7) / 8;
		CU(cudaMemcpy(d_start, start.data(), (nchunks + 1) * 8, cudaMemcpyHostToDevice));
		double dec = t.median_ms(10, [&] {
			r = r == GPZ_OK ? gpz_gpu_decode(&c.dec, d_pay, pay, d_start, n, w, log, d_out, 0)
			                : r;
		});
		CU(cudaMemcpy(back.data(), d_out, total, cudaMemcpyDeviceToHost));
		CHECK(r == GPZ_OK && back == h, "bench: one bitstream, log %d: %s", log,
		      gpz_result_string(r));
		printf("| one bitstream | %d | %zu | %.4f | %.0f | %.0f |\n", log, pay + 4 * nchunks,
		       (double)total / (pay + 4 * nchunks), total / (enc * 1e6), total / (dec * 1e6));
		/* lanes */
		uint64_t tw = 0;
		CU(cudaMemset(d_out, 0, total));
		work = gpz_gpu_encode_lanes_work(n, log);
		enc = t.median_ms(10, [&] {
			r = gpz_gpu_encode_lanes(d_src, n, w, d_table, log, d_words, d_pay, cap, &tw,
			                         d_work, work, 0);
		});
		CU(cudaMemcpy(words.data(), d_words, nchunks * 4, cudaMemcpyDeviceToHost));
		for (size_t k = 0; k < nchunks; k++)
			start[k + 1] = start[k] + words[k];
		CU(cudaMemcpy(d_start, start.data(), (nchunks + 1) * 8, cudaMemcpyHostToDevice));
		pay = 4 * tw;
		dec = t.median_ms(10, [&] {
			r = r == GPZ_OK
			        ? gpz_gpu_decode_lanes(&c.dec, d_pay, pay, d_start, n, w, log, d_out,
			                               d_work, NULL, 0)
			        : r;
		});
		CU(cudaMemcpy(back.data(), d_out, total, cudaMemcpyDeviceToHost));
		CHECK(r == GPZ_OK && back == h, "bench: lanes, log %d: %s", log, gpz_result_string(r));
		printf("| lanes | %d | %zu | %.4f | %.0f | %.0f |\n", log, pay + 4 * nchunks,
		       (double)total / (pay + 4 * nchunks), total / (enc * 1e6), total / (dec * 1e6));
		fflush(stdout);
		CU(cudaFree(d_work));
		CU(cudaFree(d_words));
		CU(cudaFree(d_start));
	}
	CU(cudaFree(d_src));
	CU(cudaFree(d_out));
	CU(cudaFree(d_pay));
	CU(cudaFree(d_table));
	return test_failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (!gpu_test_start())
		return TEST_SKIP;
	if (argc >= 4 && !strcmp(argv[1], "bench")) {
		std::vector<int> logs;
		for (int i = 4; i < argc; i++)
			logs.push_back(atoi(argv[i]));
		if (logs.empty())
			logs = { 14, 16 };
		return bench(argv[2], atoi(argv[3]), logs);
	}
	test_inputs();
	test_files();
	if (test_failures) {
		printf("FAILED: %d checks\n", test_failures);
		return 1;
	}
	printf("all GPU lanes checks passed\n");
	return 0;
}
