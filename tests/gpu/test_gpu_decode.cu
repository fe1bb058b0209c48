/* test_gpu_decode.cu - gpz_gpu_decode (src/huffman/decode.cu) against the CPU codec.
 *
 * Data is encoded on the host (histogram, package-merge lengths limited to GPZ_MAX_CODE_LEN,
 * canonical codes, gpz_huff_encode), decoded on the GPU and compared with the input: widths 1, 2
 * and 4, chunk_log 8..16, sizes that are not a multiple of the chunk, tiny inputs, Fibonacci
 * counts (24-bit codes), a 2^20 alphabet of 4-byte symbols, codes that never resynchronise
 * (lengths that are all multiples of 3, 5, 7 or 11; crafted all-ones streams, which take the
 * phase maps), and unaligned payload and destination pointers. Every destination has poisoned guard bytes on both
 * sides that must survive. Corrupt inputs (shifted chunk starts, flipped payload bits, a short
 * payload, wild chunk starts) must give the CPU decoder's result; where both accept a damaged
 * payload the outputs must match too. 24 host threads decode at once on their own streams.
 *
 * GPZ_DECODE_WORST=1: only the worst-case table of bench/decode-worst.sh.
 * Then the decode throughput (CUDA events around the whole call, median of 20 after warm-up) on
 * Nyx-Quant (2-byte) and a 1-byte text file, when present:
 *   test_gpu_decode [NYX_B16 [TEXT]]   default: $GPZ_DATA (or corpora/data)/nyx/baryon_density.dat.b16
 *                                      and debtext100m, else a silesia file
 * Exits 77 ("SKIP: no GPU") when no GPU is usable. */
extern "C" {
#include "testutil.h"
#include "huffman/huffman.h"
}
#include "huffman/huffman_gpu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <math.h>
#include <thread>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda_test.h"

namespace {

const size_t GUARD = 64;
const uint8_t POISON = 0xA5;

struct Coded {
	std::vector<uint8_t> payload; /* exactly ceil(total / 8) bytes */
	std::vector<uint64_t> start;  /* nchunks + 1 bit offsets */
	gpz_decoder dec;
	int max_len = 0;
	bool ok = false;
	Coded() { memset(&dec, 0, sizeof(dec)); }
	~Coded() { gpz_decoder_free(&dec); }
	Coded(const Coded &) = delete;
	Coded &operator=(const Coded &) = delete;
};

uint64_t g_seed = 0x9e3779b97f4a7c15ull;

double urand(void)
{
	return (double)(test_rand(&g_seed) >> 11) * (1.0 / 9007199254740992.0);
}

void put_sym(std::vector<uint8_t> &v, size_t i, int w, uint32_t s)
{
	for (int k = 0; k < w; k++)
		v[i * w + k] = (uint8_t)(s >> (8 * k));
}

/* Host encoding with the CPU codec. */
bool encode(const uint8_t *src, size_t n, int w, int chunk_log, Coded &c, const char *what)
{
	uint32_t lim = gpz_alphabet_limit(w), alphabet = 0;
	std::vector<uint32_t> counts(lim);
	if (gpz_histogram(src, n, w, 4, counts.data(), &alphabet) != GPZ_OK) {
		CHECK(0, "%s: histogram failed", what);
		return false;
	}
	std::vector<uint8_t> len(alphabet);
	c.max_len = gpz_code_lengths(counts.data(), alphabet, GPZ_MAX_CODE_LEN, len.data());
	if (c.max_len < 1) {
		CHECK(0, "%s: code lengths failed", what);
		return false;
	}
	std::vector<uint32_t> code(alphabet), table(alphabet);
	gpz_canonical_codes(len.data(), alphabet, code.data());
	gpz_encoder_table(len.data(), code.data(), alphabet, table.data());
	uint64_t bits = gpz_coded_bits(counts.data(), len.data(), alphabet), total = 0;
	size_t cs = (size_t)1 << chunk_log, nchunks = (n + cs - 1) / cs;
	std::vector<uint8_t> buf((size_t)((bits + 7) / 8) + GPZ_ENCODE_SLACK);
	std::vector<uint32_t> chunk_bits(nchunks);
	gpz_result r = gpz_huff_encode(src, n, w, table.data(), chunk_log, 4, buf.data(), buf.size(),
	                               chunk_bits.data(), &total);
	CHECK(r == GPZ_OK && total == bits, "%s: encode: %s", what, gpz_result_string(r));
	if (r != GPZ_OK)
		return false;
	c.payload.assign(buf.begin(), buf.begin() + (size_t)((total + 7) / 8));
	c.start.assign(nchunks + 1, 0);
	for (size_t i = 0; i < nchunks; i++)
		c.start[i + 1] = c.start[i] + chunk_bits[i];
	gpz_decoder_free(&c.dec);
	r = gpz_decoder_init(&c.dec, len.data(), alphabet, w);
	CHECK(r == GPZ_OK, "%s: decoder init: %s", what, gpz_result_string(r));
	c.ok = r == GPZ_OK;
	return c.ok;
}

/* Decode on the GPU from a payload buffer of exactly payload_size bytes at offset pay_off of its
 * allocation, into a poisoned destination at offset dst_off past a guard; checks the guards. */
gpz_result gpu_decode(const gpz_decoder *dec, const uint8_t *payload, size_t payload_size,
                      const std::vector<uint64_t> &start, size_t n, int w, int chunk_log,
                      std::vector<uint8_t> &out, size_t pay_off, size_t dst_off,
                      const char *what)
{
	uint8_t *d_pay = NULL, *d_dst = NULL;
	uint64_t *d_start = NULL;
	size_t out_bytes = n * (size_t)w, dst_total = out_bytes + 2 * GUARD + dst_off;
	CU(cudaMalloc(&d_pay, payload_size + pay_off + 1));
	CU(cudaMalloc(&d_start, start.size() * sizeof(uint64_t)));
	CU(cudaMalloc(&d_dst, dst_total));
	CU(cudaMemset(d_pay, 0xFF, payload_size + pay_off + 1)); /* ones around the payload */
	if (payload_size)
		CU(cudaMemcpy(d_pay + pay_off, payload, payload_size, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_start, start.data(), start.size() * sizeof(uint64_t),
	              cudaMemcpyHostToDevice));
	CU(cudaMemset(d_dst, POISON, dst_total));
	gpz_result r = gpz_gpu_decode(dec, d_pay + pay_off, payload_size, d_start, n, w, chunk_log,
	                              d_dst + GUARD + dst_off, 0);
	CU(cudaGetLastError());
	std::vector<uint8_t> all(dst_total);
	CU(cudaMemcpy(all.data(), d_dst, dst_total, cudaMemcpyDeviceToHost));
	size_t bad = 0;
	for (size_t i = 0; i < GUARD + dst_off; i++)
		bad += all[i] != POISON;
	for (size_t i = GUARD + dst_off + out_bytes; i < dst_total; i++)
		bad += all[i] != POISON;
	CHECK(bad == 0, "%s: %zu guard bytes around the output were overwritten", what, bad);
	out.assign(all.begin() + GUARD + dst_off, all.begin() + GUARD + dst_off + out_bytes);
	CU(cudaFree(d_pay));
	CU(cudaFree(d_start));
	CU(cudaFree(d_dst));
	return r;
}

/* Encode, decode on the GPU (at a few alignments), compare with the input. */
void roundtrip(const std::vector<uint8_t> &src, int w, int chunk_log, const char *what)
{
	size_t n = src.size() / w;
	Coded c;
	if (!encode(src.data(), n, w, chunk_log, c, what))
		return;
	static unsigned turn = 0;
	size_t pay_off = turn % 4, dst_off = (turn * 5) % 16;
	turn++;
	std::vector<uint8_t> out;
	gpz_result r = gpu_decode(&c.dec, c.payload.data(), c.payload.size(), c.start, n, w,
	                          chunk_log, out, pay_off, dst_off, what);
	CHECK(r == GPZ_OK, "%s: gpu decode: %s", what, gpz_result_string(r));
	if (r == GPZ_OK) {
		size_t diff = 0;
		while (diff < out.size() && out[diff] == src[diff])
			diff++;
		CHECK(diff == out.size(), "%s: output differs at byte %zu of %zu", what, diff,
		      out.size());
	}
	printf("  %-4s %-40s w=%d log=%2d n=%9zu max_len=%2d %.3f bit/sym\n",
	       r == GPZ_OK ? "ok" : "FAIL", what, w, chunk_log, n, c.max_len,
	       n ? 8.0 * c.payload.size() / n : 0.0);
}

/* Skewed random symbols: about `bits` bits of entropy over an alphabet of `amax`. */
std::vector<uint8_t> gen_skewed(size_t n, int w, uint32_t amax, double power)
{
	std::vector<uint8_t> v(n * w);
	for (size_t i = 0; i < n; i++) {
		uint32_t s = (uint32_t)(amax * pow(urand(), power));
		put_sym(v, i, w, s < amax ? s : amax - 1);
	}
	if (n >= 2) { /* at least two symbols, and the largest one */
		put_sym(v, 0, w, 0);
		put_sym(v, n - 1, w, amax - 1);
	}
	return v;
}

std::vector<uint8_t> gen_uniform(size_t n, int w, uint32_t amax)
{
	std::vector<uint8_t> v(n * w);
	for (size_t i = 0; i < n; i++)
		put_sym(v, i, w, (uint32_t)(test_rand(&g_seed) % amax));
	put_sym(v, 0, w, 0);
	put_sym(v, n - 1, w, amax - 1);
	return v;
}

/* A code whose lengths are all d or 2d bits (2^d - 1 symbols of d bits, 2^d of 2d; exactly
 * dyadic counts, rep of each unit, shuffled, so Huffman gives just those lengths): codeword
 * boundaries are d bits apart, and a sub-range start that is not (a multiple of 8 with d odd)
 * never resynchronises. Symbols are spread over the alphabet by `stride`. */
std::vector<uint8_t> gen_classes(int w, int d, uint32_t rep, uint32_t stride)
{
	std::vector<uint32_t> syms;
	const uint32_t nshort = (1u << d) - 1, nlong = 1u << d;
	for (uint32_t s = 0; s < nshort + nlong; s++) {
		uint64_t c = (uint64_t)rep * (s < nshort ? 1u << d : 1u);
		syms.insert(syms.end(), c, s * stride);
	}
	for (size_t i = syms.size(); i > 1; i--)
		std::swap(syms[i - 1], syms[test_rand(&g_seed) % i]);
	std::vector<uint8_t> v(syms.size() * w);
	for (size_t i = 0; i < syms.size(); i++)
		put_sym(v, i, w, syms[i]);
	return v;
}

/* A stream no encoder writes but a hostile one may: a code with one codeword of each length
 * 1..len-1 and two of len (complete; the lengths' gcd is 1), and chunks that each hold `lead`
 * copies of symbol 0 (codeword "0") and then copies of the last symbol, whose canonical codeword
 * is len one bits. A decode from a start that is not lead plus a multiple of len past a chunk's
 * start parses the same all-ones codewords and never meets the true one, while every sub-range
 * start is a multiple of 8 past it. lead = 1: the speculative decodes all agree with each other,
 * and the true start passes from thread to thread one round at a time; lead = 100: sub-ranges
 * of 8 mod 24 bits at 24-bit codewords, where every round changes every thread's start.
 * Fills c; src gets the expected output. */
bool craft_ones(int w, int len, size_t n, int chunk_log, size_t lead, Coded &c,
                std::vector<uint8_t> &src)
{
	std::vector<uint8_t> lens((size_t)len + 1);
	for (int l = 1; l <= len; l++)
		lens[l - 1] = (uint8_t)l;
	lens[len] = (uint8_t)len;
	gpz_decoder_free(&c.dec);
	gpz_result r = gpz_decoder_init(&c.dec, lens.data(), (uint32_t)lens.size(), w);
	CHECK(r == GPZ_OK, "all-ones code of %d bits: %s", len, gpz_result_string(r));
	if (r != GPZ_OK)
		return false;
	c.max_len = len;
	size_t cs = (size_t)1 << chunk_log, nchunks = (n + cs - 1) / cs;
	c.start.assign(nchunks + 1, 0);
	for (size_t k = 0; k < nchunks; k++) {
		size_t m = std::min(cs, n - k * cs), z = std::min(lead, m);
		c.start[k + 1] = c.start[k] + z + (uint64_t)(m - z) * (uint64_t)len;
	}
	c.payload.assign((size_t)((c.start[nchunks] + 7) / 8), 0xFF);
	src.assign(n * (size_t)w, 0);
	for (size_t i = 0; i < n; i++)
		put_sym(src, i, w, i % cs < lead ? 0 : (uint32_t)len);
	for (size_t k = 0; k < nchunks; k++) /* each chunk's leading "0"s */
		for (uint64_t b = c.start[k], z = std::min(lead, n - k * cs); z; z--, b++)
			c.payload[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
	c.ok = true;
	return true;
}

/* Decode a crafted stream on the GPU and the CPU: both must give src. */
void roundtrip_crafted(int w, int len, size_t n, int chunk_log, size_t lead)
{
	Coded c;
	std::vector<uint8_t> src, out, cpu(n * (size_t)w + 16);
	char what[96];
	snprintf(what, sizeof(what), "all ones, %d-bit codewords, %zu zeros first", len, lead);
	if (!craft_ones(w, len, n, chunk_log, lead, c, src))
		return;
	gpz_result rc = gpz_huff_decode(&c.dec, c.payload.data(), c.payload.size(), c.start.data(),
	                                n, w, chunk_log, 1, cpu.data());
	gpz_result rg = gpu_decode(&c.dec, c.payload.data(), c.payload.size(), c.start, n, w,
	                           chunk_log, out, 1, 3, what);
	CHECK(rc == GPZ_OK && rg == GPZ_OK, "%s: cpu says %s, gpu says %s", what,
	      gpz_result_string(rc), gpz_result_string(rg));
	if (rc == GPZ_OK && rg == GPZ_OK)
		CHECK(out == src && memcmp(cpu.data(), src.data(), src.size()) == 0,
		      "%s: output differs", what);
	printf("  %-4s %-40s w=%d log=%2d n=%9zu\n", rg == GPZ_OK && out == src ? "ok" : "FAIL",
	       what, w, chunk_log, n);
}

/* One symbol with probability p (it gets the 1-bit codeword "0"), the rest uniform over 40
 * others. */
std::vector<uint8_t> gen_dominant(size_t n, int w, double p)
{
	const uint32_t d = w == 1 ? 101 : w == 2 ? 512 : 70000;
	std::vector<uint8_t> v(n * w);
	for (size_t i = 0; i < n; i++)
		put_sym(v, i, w, urand() < p ? d : d + 1 + (uint32_t)(test_rand(&g_seed) % 40));
	return v;
}

/* Nyx-Quant-like codes: 512 with p = 0.996, a narrow spread around it, a few zeros. */
std::vector<uint8_t> gen_quant(size_t n)
{
	std::vector<uint8_t> v(n * 2);
	for (size_t i = 0; i < n; i++) {
		double u = urand();
		uint32_t s = 512;
		if (u < 0.0009) {
			s = 0;
		} else if (u < 0.004) {
			double g = sqrt(-2 * log(urand() + 1e-300)) * cos(6.283185307179586 * urand());
			int x = 512 + (int)lrint(g * 6);
			s = (uint32_t)(x < 1 ? 1 : x > 1008 ? 1008 : x);
		}
		put_sym(v, i, 2, s);
	}
	return v;
}

/* Symbol i appears fib(i + 1) times, shuffled: unlimited Huffman lengths reach 29, so the
 * package-merge limit gives codes of 24 bits. */
std::vector<uint8_t> gen_fibonacci(int w, int k, uint32_t scale)
{
	std::vector<uint8_t> v;
	uint64_t a = 1, b = 1;
	std::vector<uint32_t> syms;
	for (int i = 0; i < k; i++) {
		for (uint64_t j = 0; j < a; j++)
			syms.push_back((uint32_t)i * scale);
		uint64_t t = a + b;
		a = b;
		b = t;
	}
	for (size_t i = syms.size(); i > 1; i--)
		std::swap(syms[i - 1], syms[test_rand(&g_seed) % i]);
	v.resize(syms.size() * w);
	for (size_t i = 0; i < syms.size(); i++)
		put_sym(v, i, w, syms[i]);
	return v;
}

void test_roundtrips(void)
{
	printf("round trips:\n");
	char what[96];
	for (int w = 1; w <= 4; w *= 2) {
		uint32_t amax = w == 1 ? 256 : w == 2 ? 4096 : 300000;
		for (int cl = 8; cl <= 16; cl++) {
			size_t cs = (size_t)1 << cl;
			size_t n = cs * (cl <= 12 ? 37 : 5) + (cs * 3) / 7 + 1; /* not a multiple */
			snprintf(what, sizeof(what), "skewed");
			roundtrip(gen_skewed(n, w, amax, 3.0 + cl % 3), w, cl, what);
		}
		snprintf(what, sizeof(what), "exact multiple of the chunk");
		roundtrip(gen_skewed((size_t)1 << 18, w, amax, 4.0), w, 12, what);
		for (size_t n = 2; n <= 5; n++) {
			snprintf(what, sizeof(what), "tiny, %zu symbols", n);
			roundtrip(gen_uniform(n, w, 2), w, 8, what);
		}
		snprintf(what, sizeof(what), "two symbols, long");
		roundtrip(gen_uniform(100003, w, 2), w, 14, what);
		snprintf(what, sizeof(what), "fibonacci counts (24-bit codes)");
		roundtrip(gen_fibonacci(w, 30, w == 1 ? 7 : w == 2 ? 2111 : 34000), w, 14, what);
		snprintf(what, sizeof(what), "fibonacci counts, small chunks");
		roundtrip(gen_fibonacci(w, 30, 1), w, 9, what);
	}
	/* Fixed-length codes: 8 and 9 bits (a full chunk's sub-ranges are then a whole number of
	 * codewords long: 2^chunk_log * len / 128 bits; only the last chunk's are not), and a
	 * 7/8-bit mix. */
	roundtrip(gen_uniform(3 << 16, 1, 256), 1, 14, "uniform bytes (8-bit codes)");
	roundtrip(gen_uniform(300000, 2, 512), 2, 14, "uniform over 512 (9-bit codes)");
	roundtrip(gen_uniform(300000, 2, 512), 2, 10, "uniform over 512, small chunks");
	roundtrip(gen_uniform(300000, 1, 200), 1, 14, "uniform over 200 (7/8-bit codes)");
	/* Codes that never resynchronise (lengths d and 2d, d odd): the phase maps decide, staged
	 * and (chunk_log 20) read from global memory, 22-bit codes among them. */
	roundtrip(gen_classes(1, 3, 5000, 1), 1, 14, "3/6-bit codes (never resynchronise)");
	roundtrip(gen_classes(1, 3, 5000, 1), 1, 9, "3/6-bit codes, small chunks");
	roundtrip(gen_classes(2, 5, 200, 7), 2, 12, "5/10-bit codes");
	roundtrip(gen_classes(4, 7, 20, 4099), 4, 14, "7/14-bit codes, 4-byte symbols");
	roundtrip(gen_classes(2, 11, 1, 3), 2, 14, "11/22-bit codes");
	roundtrip(gen_classes(2, 11, 1, 3), 2, 20, "11/22-bit codes, chunk_log 20");
	/* Crafted all-ones streams: most sub-ranges need the phase maps. */
	roundtrip_crafted(1, 9, 300001, 14, 1);
	roundtrip_crafted(2, 24, 300001, 8, 1);
	roundtrip_crafted(2, 24, 300001, 14, 1);
	roundtrip_crafted(2, 24, 300001, 14, 100);
	roundtrip_crafted(4, 17, 1000003, 20, 100);
	roundtrip_crafted(2, 23, 5, 8, 100);
	/* Chunks of at most 1.125 bits a symbol are first laid with the dominant symbol by the
	 * whole block, then the threads store only blocks with other symbols: every width, p on
	 * either side of that line (0.98 is about 1.13 bits), the 16 destination alignments the
	 * round trips take in turn, and chunks of 256 symbols or fewer. */
	for (int w = 1; w <= 4; w *= 2) {
		const double ps[4] = { 0.9999, 0.999, 0.99, 0.98 };
		const int cls[4] = { 16, 14, 10, 8 };
		for (int k = 0; k < 4; k++) {
			snprintf(what, sizeof(what), "dominant symbol, p = %.4f", ps[k]);
			roundtrip(gen_dominant(((size_t)5 << cls[k]) + 777, w, ps[k]), w, cls[k], what);
		}
		for (int k = 0; k < 16; k++) {
			snprintf(what, sizeof(what), "dominant symbol, small, turn %d", k);
			roundtrip(gen_dominant(3000 + 37 * (size_t)k, w, 0.995), w, 8, what);
		}
	}
	roundtrip(gen_quant(3000001), 2, 14, "quantization codes (p = 0.996)");
	roundtrip(gen_quant(1000000), 2, 8, "quantization codes, chunk_log 8");
	/* A 2^20 alphabet of 4-byte symbols: half uniform over all of it, half skewed. */
	{
		size_t n = 3000000;
		std::vector<uint8_t> v(n * 4);
		for (size_t i = 0; i < n; i++) {
			uint32_t s = i & 1 ? (uint32_t)(test_rand(&g_seed) % GPZ_MAX_ALPHABET)
			                   : (uint32_t)(1000 * pow(urand(), 4.0));
			put_sym(v, i, 4, s);
		}
		put_sym(v, 7, 4, GPZ_MAX_ALPHABET - 1);
		roundtrip(v, 4, 14, "2^20 alphabet, 4-byte symbols");
		roundtrip(v, 4, 16, "2^20 alphabet, chunk_log 16");
	}
}

/* Decode corrupted variants on the CPU and the GPU: same result, same output where accepted. */
void compare_corrupt(Coded &c, const std::vector<uint8_t> &payload,
                     const std::vector<uint64_t> &start, size_t n, int w, int cl,
                     const char *what, bool must_fail)
{
	std::vector<uint8_t> cpu(n * (size_t)w + 16), gpu;
	gpz_result rc = gpz_huff_decode(&c.dec, payload.data(), payload.size(), start.data(), n, w,
	                                cl, 1, cpu.data());
	gpz_result rg = gpu_decode(&c.dec, payload.data(), payload.size(), start, n, w, cl, gpu, 1,
	                           3, what);
	CHECK(rc == rg, "%s: cpu says %s, gpu says %s", what, gpz_result_string(rc),
	      gpz_result_string(rg));
	if (must_fail)
		CHECK(rg == GPZ_ERR_CORRUPT, "%s: gpu says %s", what, gpz_result_string(rg));
	if (rc == GPZ_OK && rg == GPZ_OK)
		CHECK(memcmp(cpu.data(), gpu.data(), gpu.size()) == 0, "%s: outputs differ", what);
}

void test_corrupt(void)
{
	printf("corrupt inputs:\n");
	struct {
		int w, cl;
		size_t n;
		int d; /* > 0: a code that never resynchronises (gen_classes), of n * 2^(2d) symbols */
	} cases[] = { { 1, 10, 200001, 0 }, { 2, 12, 150007, 0 }, { 4, 9, 40000, 0 },
	              { 1, 12, 3000, 3 } };
	char what[96];
	for (auto &k : cases) {
		std::vector<uint8_t> src = k.d ? gen_classes(k.w, k.d, (uint32_t)k.n, 1)
		                         : k.w == 2 ? gen_quant(k.n)
		                                    : gen_skewed(k.n, k.w, 5000, 3.0);
		if (k.d)
			k.n = src.size() / k.w;
		Coded c;
		snprintf(what, sizeof(what), "corrupt base w=%d", k.w);
		if (!encode(src.data(), k.n, k.w, k.cl, c, what))
			continue;
		size_t nch = c.start.size() - 1;
		int cases_run = 0, accepted = 0;
		/* Chunk starts shifted by one bit: every such index is rejected. */
		size_t picks[] = { 0, 1, nch / 2, nch - 1, nch };
		for (size_t pi = 0; pi < 5; pi++) {
			for (int d = -1; d <= 1; d += 2) {
				size_t i = picks[pi];
				if (i == 0 && d < 0)
					continue;
				std::vector<uint64_t> s = c.start;
				s[i] += (uint64_t)(int64_t)d;
				snprintf(what, sizeof(what), "w=%d chunk_start[%zu] %+d bit", k.w, i, d);
				/* Moving chunk_start[0] alone can decode to m symbols that still end at
				 * chunk_start[1] (both decoders then accept); any other shift moves the end
				 * of a chunk decoded from its true start, which is always rejected. */
				compare_corrupt(c, c.payload, s, k.n, k.w, k.cl, what, i != 0);
				cases_run++;
			}
		}
		/* A total past the payload; wild starts. */
		{
			std::vector<uint64_t> s = c.start;
			s[nch] = c.payload.size() * 8 + 9;
			compare_corrupt(c, c.payload, s, k.n, k.w, k.cl, "total past the payload", true);
			std::vector<uint8_t> gpu;
			s = c.start;
			s[nch / 2] = ~(uint64_t)0 - 3;
			gpz_result r = gpu_decode(&c.dec, c.payload.data(), c.payload.size(), s, k.n, k.w,
			                          k.cl, gpu, 0, 0, "wild chunk start");
			CHECK(r == GPZ_ERR_CORRUPT, "wild chunk start: %s", gpz_result_string(r));
			s = c.start;
			s[1] = s[2];
			compare_corrupt(c, c.payload, s, k.n, k.w, k.cl, "empty chunk", true);
			cases_run += 3;
		}
		/* A payload one byte short. */
		if (c.payload.size() > 1) {
			std::vector<uint8_t> p(c.payload.begin(), c.payload.end() - 1);
			compare_corrupt(c, p, c.start, k.n, k.w, k.cl, "payload one byte short", false);
			cases_run++;
		}
		/* Flipped payload bits: rejected, or accepted with the CPU's (wrong) output. */
		for (int t = 0; t < 40; t++) {
			std::vector<uint8_t> p = c.payload;
			int flips = 1 + t % 5;
			for (int f = 0; f < flips; f++) {
				uint64_t bit = test_rand(&g_seed) % (p.size() * 8);
				p[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
			}
			snprintf(what, sizeof(what), "w=%d %d flipped bits (trial %d)", k.w, flips, t);
			std::vector<uint8_t> cpu(k.n * (size_t)k.w + 16);
			accepted += gpz_huff_decode(&c.dec, p.data(), p.size(), c.start.data(), k.n, k.w,
			                            k.cl, 1, cpu.data()) == GPZ_OK;
			compare_corrupt(c, p, c.start, k.n, k.w, k.cl, what, false);
			cases_run++;
		}
		printf("  w=%d: %d corrupt variants, %d bit-flip variants accepted by both\n", k.w,
		       cases_run, accepted);
	}
}

/* Many host threads decoding at once, each on its own stream: more calls in flight than the
 * decoder's table-image slots, so some take the allocating path; every output must be right. */
void test_concurrent(void)
{
	printf("concurrent calls:\n");
	const int nthreads = 24;
	const size_t n = 1 << 20;
	std::vector<uint8_t> src = gen_skewed(n, 2, 3000, 3.0);
	Coded c;
	if (!encode(src.data(), n, 2, 12, c, "concurrent"))
		return;
	uint8_t *d_pay = NULL;
	uint64_t *d_start = NULL;
	CU(cudaMalloc(&d_pay, c.payload.size()));
	CU(cudaMalloc(&d_start, c.start.size() * sizeof(uint64_t)));
	CU(cudaMemcpy(d_pay, c.payload.data(), c.payload.size(), cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_start, c.start.data(), c.start.size() * sizeof(uint64_t),
	              cudaMemcpyHostToDevice));
	std::atomic<int> bad{ 0 }, go{ 0 };
	std::vector<std::thread> th;
	for (int t = 0; t < nthreads; t++) {
		th.emplace_back([&, t]() {
			cudaStream_t st;
			uint8_t *d_dst = NULL;
			if (cudaStreamCreate(&st) != cudaSuccess || cudaMalloc(&d_dst, 2 * n) != cudaSuccess) {
				bad++;
				return;
			}
			go++;
			while (go.load() < nthreads) /* start together */
				std::this_thread::yield();
			for (int rep = 0; rep < 4; rep++) {
				if (cudaMemsetAsync(d_dst, rep + t, 2 * n, st) != cudaSuccess) {
					bad++;
					break;
				}
				gpz_result r = gpz_gpu_decode(&c.dec, d_pay, c.payload.size(), d_start, n, 2,
				                              12, d_dst, (gpz_stream_t)st);
				std::vector<uint8_t> out(2 * n);
				if (r != GPZ_OK || cudaMemcpy(out.data(), d_dst, 2 * n,
				                              cudaMemcpyDeviceToHost) != cudaSuccess ||
				    out != src)
					bad++;
			}
			cudaFree(d_dst);
			cudaStreamDestroy(st);
		});
	}
	for (auto &x : th)
		x.join();
	CHECK(bad == 0, "concurrent: %d of %d decodes failed", bad.load(), 4 * nthreads);
	printf("  %s %d threads x 4 decodes\n", bad == 0 ? "ok  " : "FAIL", nthreads);
	CU(cudaFree(d_pay));
	CU(cudaFree(d_start));
}

/* Throughput of the whole call (tables up, kernel, flag back, synchronisation) on a coded
 * stream whose output must be src. */
void bench_coded(const char *label, const Coded &c, const std::vector<uint8_t> &src, int w,
                 int chunk_log, int iters)
{
	size_t n = src.size() / w;
	uint8_t *d_pay = NULL, *d_dst = NULL;
	uint64_t *d_start = NULL;
	CU(cudaMalloc(&d_pay, c.payload.size()));
	CU(cudaMalloc(&d_start, c.start.size() * sizeof(uint64_t)));
	CU(cudaMalloc(&d_dst, src.size()));
	CU(cudaMemcpy(d_pay, c.payload.data(), c.payload.size(), cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_start, c.start.data(), c.start.size() * sizeof(uint64_t),
	              cudaMemcpyHostToDevice));
	CU(cudaMemset(d_dst, POISON, src.size()));
	cudaStream_t st;
	CU(cudaStreamCreate(&st));
	cudaEvent_t e0, e1;
	CU(cudaEventCreate(&e0));
	CU(cudaEventCreate(&e1));
	gpz_result r = GPZ_OK;
	for (int i = 0; i < (iters < 20 ? 1 : 3) && r == GPZ_OK; i++)
		r = gpz_gpu_decode(&c.dec, d_pay, c.payload.size(), d_start, n, w, chunk_log, d_dst,
		                   (gpz_stream_t)st);
	CHECK(r == GPZ_OK, "%s: %s", label, gpz_result_string(r));
	std::vector<uint8_t> out(src.size());
	CU(cudaMemcpy(out.data(), d_dst, src.size(), cudaMemcpyDeviceToHost));
	CHECK(out == src, "%s: output differs from the input", label);
	std::vector<float> ms;
	for (int i = 0; i < iters && r == GPZ_OK; i++) {
		CU(cudaEventRecord(e0, st));
		r = gpz_gpu_decode(&c.dec, d_pay, c.payload.size(), d_start, n, w, chunk_log, d_dst,
		                   (gpz_stream_t)st);
		CU(cudaEventRecord(e1, st));
		CU(cudaEventSynchronize(e1));
		float t = 0;
		CU(cudaEventElapsedTime(&t, e0, e1));
		ms.push_back(t);
	}
	CHECK(r == GPZ_OK, "%s: %s", label, gpz_result_string(r));
	if (!ms.empty()) {
		std::sort(ms.begin(), ms.end());
		double med = ms[ms.size() / 2];
		printf("throughput %-28s w=%d log=%d %10zu B  %.3f bit/sym: median %.3f ms (min %.3f) "
		       "= %.1f GB/s of output\n",
		       label, w, chunk_log, src.size(), 8.0 * c.payload.size() / n, med, ms[0],
		       src.size() / (med * 1e6));
	}
	CU(cudaEventDestroy(e0));
	CU(cudaEventDestroy(e1));
	CU(cudaStreamDestroy(st));
	CU(cudaFree(d_pay));
	CU(cudaFree(d_start));
	CU(cudaFree(d_dst));
}

void bench(const char *label, const std::vector<uint8_t> &src, int w, int chunk_log,
           int iters = 20)
{
	Coded c;
	if (encode(src.data(), src.size() / w, w, chunk_log, c, label))
		bench_coded(label, c, src, w, chunk_log, iters);
}

/* GPZ_DECODE_WORST=1: codes that never resynchronise against ordinary ones, 2^26 2-byte symbols
 * each, at the default chunk size and the largest (bench/decode-worst.sh records it). */
void bench_worst(void)
{
	const size_t n = (size_t)1 << 26;
	struct {
		const char *label;
		std::vector<uint8_t> v;
	} sets[] = {
		{ "skewed over 5000", gen_skewed(n, 2, 5000, 3.0) },
		{ "uniform over 256 (8-bit)", gen_uniform(n, 2, 256) },
		{ "uniform over 400 (8/9-bit)", gen_uniform(n, 2, 400) },
		{ "3/6-bit, never resync", gen_classes(2, 3, (uint32_t)(n >> 6), 1) },
		{ "5/10-bit, never resync", gen_classes(2, 5, (uint32_t)(n >> 10), 1) },
		{ "9/18-bit, never resync", gen_classes(2, 9, (uint32_t)(n >> 18), 1) },
		{ "11/22-bit, never resync", gen_classes(2, 11, (uint32_t)(n >> 22), 1) },
	};
	for (int cl : { GPZ_DEFAULT_CHUNK_LOG, 18, GPZ_MAX_CHUNK_LOG }) {
		for (auto &t : sets)
			bench(t.label, t.v, 2, cl, 5);
		for (int len : { 12, 24 }) {
			for (size_t lead : { 1, 100 }) {
				Coded c;
				std::vector<uint8_t> src;
				char label[64];
				snprintf(label, sizeof(label), "all ones %d-bit, %zu zeros", len, lead);
				if (craft_ones(2, len, n, cl, lead, c, src))
					bench_coded(label, c, src, 2, cl, 5);
			}
		}
	}
}

std::vector<uint8_t> read_file(const char *path, size_t multiple)
{
	size_t size = 0;
	uint8_t *p = test_read_file(path, &size);
	std::vector<uint8_t> v;
	if (p) {
		size -= size % multiple;
		v.assign(p, p + size);
		free(p);
	}
	return v;
}

} // namespace

int main(int argc, char **argv)
{
	if (!gpu_test_start())
		return TEST_SKIP;

	const char *worst = getenv("GPZ_DECODE_WORST");
	if (worst && worst[0] == '1') {
		bench_worst();
		return test_failures ? 1 : 0;
	}
	/* GPZ_DECODE_BENCH_ONLY=1: only the throughput runs (for profiling). */
	const char *bench_only = getenv("GPZ_DECODE_BENCH_ONLY");
	bool full = !(bench_only && bench_only[0] == '1');
	if (full) {
		test_roundtrips();
		test_corrupt();
		test_concurrent();
	}

	const char *dir = test_data_dir();
	char nyx[4096] = "", text[4096] = "";
	if (argc > 1)
		snprintf(nyx, sizeof(nyx), "%s", argv[1]);
	else if (dir)
		snprintf(nyx, sizeof(nyx), "%s/nyx/baryon_density.dat.b16", dir);
	if (argc > 2) {
		snprintf(text, sizeof(text), "%s", argv[2]);
	} else if (dir) {
		const char *cand[] = { "debtext100m", "silesia/dickens", "silesia/samba", "silesia/xml",
		                       "silesia/reymont", "silesia/mr" };
		for (const char *f : cand) {
			snprintf(text, sizeof(text), "%s/%s", dir, f);
			FILE *fp = fopen(text, "rb");
			if (fp) {
				fclose(fp);
				break;
			}
			text[0] = 0;
		}
	}
	std::vector<uint8_t> v = nyx[0] ? read_file(nyx, 2) : std::vector<uint8_t>();
	if (v.size() >= 4) {
		printf("Nyx-Quant: %s\n", nyx);
		if (full)
			roundtrip(v, 2, 16, "nyx, chunk_log 16");
		bench("nyx (2-byte)", v, 2, GPZ_DEFAULT_CHUNK_LOG);
	} else {
		printf("Nyx-Quant file absent (%s): no Nyx throughput\n", nyx[0] ? nyx : "no data dir");
	}
	v = text[0] ? read_file(text, 1) : std::vector<uint8_t>();
	if (v.size() >= 2) {
		printf("text: %s\n", text);
		if (full)
			roundtrip(v, 1, 10, "text, chunk_log 10");
		bench("text (1-byte)", v, 1, GPZ_DEFAULT_CHUNK_LOG);
	} else {
		printf("text file absent: no text throughput\n");
	}
	if (test_failures) {
		printf("FAILED: %d checks\n", test_failures);
		return 1;
	}
	printf("all GPU decode checks passed\n");
	return 0;
}
