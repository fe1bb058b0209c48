/* test_gpu_lz.cu - gpz_gpu_lz_parse (src/lz/match.cu) against the CPU's gpz_lz_parse, piece by
 * piece: token counts and tokens must be equal, at levels 1..9 (and the clamped 0 and 10), with
 * pieces of 1 MiB and 64 KiB, on generated inputs (random bytes, long runs, repeated phrases,
 * sizes 0..3, piece - 1, piece, piece + 1) and the shared corpora when present ($GPZ_CORPORA or
 * ../shared/corpora: canterbury and calgary, each concatenated), and with pieces that 64 KiB
 * does not divide. Token slots a piece does not
 * fill (but at levels 7-9, which leave scratch there) and guards past the buffers must
 * keep their poison. Prints the GPU parse time per level
 * and the MB/s on the largest input (whole call: links, matches, parse).
 *   test_gpu_lz [quick]   quick: levels 1, 6 and 9 only
 * Exits 77 ("SKIP: no GPU") when no GPU is usable. */
extern "C" {
#include "testutil.h"
#include "lz/lz.h"
}
#include "lz/lz_gpu.h"
#include "lz/match_core.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <thread>
#include <vector>

#include "cuda_test.h"
#include "lz_inputs.h"

namespace {

const uint32_t POISON = 0xA5A5A5A5u;
const size_t GUARD = 64; /* tokens / counts past the end */

struct Input {
	std::string name;
	std::vector<uint8_t> data;
};

uint64_t g_seed = 0x2545F4914F6CDD1Dull;

/* CPU reference, pieces spread over the host's threads. */
void cpu_parse(const std::vector<uint8_t> &src, int level, size_t piece,
               std::vector<uint32_t> &tok, std::vector<uint32_t> &ntok)
{
	size_t n = src.size(), np = (n + piece - 1) / piece;
	tok.assign(n, POISON);
	ntok.assign(np, 0);
	std::atomic<size_t> next(0);
	unsigned nt = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
	std::vector<std::thread> th;
	for (unsigned t = 0; t < nt && t < np; t++)
		th.emplace_back([&]() {
			for (size_t p; (p = next++) < np;) {
				size_t s = p * piece, e = std::min(n, s + piece);
				ntok[p] = (uint32_t)gpz_lz_parse(src.data(), s, e, level, tok.data() + s);
			}
		});
	for (std::thread &t : th)
		t.join();
}

struct Gpu {
	uint8_t *src = NULL;
	uint32_t *tok = NULL, *ntok = NULL;
	void *work = NULL;
	size_t work_bytes = 0;
	cudaStream_t st;
	cudaEvent_t e0, e1;
};

/* One input at one piece size and level: returns the GPU time (ms), -1 on failure. */
float check_one(Gpu &g, const Input &in, size_t piece, int level)
{
	size_t n = in.data.size(), np = (n + piece - 1) / piece;
	std::vector<uint32_t> want, want_n;
	cpu_parse(in.data, level, piece, want, want_n);

	CU(cudaMemsetAsync(g.tok, 0xA5, (n + GUARD) * sizeof(uint32_t), g.st));
	CU(cudaMemsetAsync(g.ntok, 0xA5, (np + GUARD) * sizeof(uint32_t), g.st));
	CU(cudaEventRecord(g.e0, g.st));
	gpz_result r = gpz_gpu_lz_parse(g.src, n, level, piece, g.tok, g.ntok, g.work, g.work_bytes,
	                                (gpz_stream_t)g.st);
	CU(cudaEventRecord(g.e1, g.st));
	CU(cudaEventSynchronize(g.e1));
	CU(cudaGetLastError());
	CHECK(r == GPZ_OK, "%s piece %zu level %d: %s", in.name.c_str(), piece, level,
	      gpz_result_string(r));
	float ms = 0;
	CU(cudaEventElapsedTime(&ms, g.e0, g.e1));

	std::vector<uint32_t> got(n + GUARD), got_n(np + GUARD);
	CU(cudaMemcpy(got.data(), g.tok, got.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
	CU(cudaMemcpy(got_n.data(), g.ntok, got_n.size() * sizeof(uint32_t),
	              cudaMemcpyDeviceToHost));
	int bad = 0;
	for (size_t p = 0; p < np && bad < 5; p++) {
		size_t s = p * piece, e = std::min(n, s + piece);
		if (got_n[p] != want_n[p]) {
			CHECK(0, "%s piece %zu level %d: piece %zu: %u tokens, CPU %u", in.name.c_str(),
			      piece, level, p, got_n[p], want_n[p]);
			bad++;
			continue;
		}
		for (size_t i = s; i < s + want_n[p]; i++)
			if (got[i] != want[i]) {
				CHECK(0, "%s piece %zu level %d: piece %zu token %zu: %08x, CPU %08x",
				      in.name.c_str(), piece, level, p, i - s, got[i], want[i]);
				bad++;
				break;
			}
		/* levels 7-9 leave scratch past their tokens (gpz_lz_gpu_run) */
		for (size_t i = s + want_n[p]; i < e && !gpz_lz_level_cfg(level).dp_rounds; i++)
			if (got[i] != POISON) {
				CHECK(0, "%s piece %zu level %d: piece %zu: slot %zu past its tokens written",
				      in.name.c_str(), piece, level, p, i - s);
				bad++;
				break;
			}
	}
	for (size_t i = n; i < n + GUARD; i++)
		if (got[i] != POISON) {
			CHECK(0, "%s piece %zu level %d: token guard overwritten", in.name.c_str(), piece,
			      level);
			break;
		}
	for (size_t i = np; i < np + GUARD; i++)
		if (got_n[i] != POISON) {
			CHECK(0, "%s piece %zu level %d: count guard overwritten", in.name.c_str(), piece,
			      level);
			break;
		}
	return r == GPZ_OK && bad == 0 ? ms : -1;
}

/* All levels of one input at one piece size; returns the times per level (index = level). The
 * input starts `shift` bytes into its device buffer (level 1's links read it by aligned words). */
std::vector<float> check_input(const Input &in, size_t piece, const std::vector<int> &levels,
                               size_t shift = 0)
{
	Gpu g;
	uint8_t *base = NULL;
	size_t n = in.data.size(), np = (n + piece - 1) / piece;
	std::vector<float> ms(11, -1);
	CU(cudaStreamCreate(&g.st));
	CU(cudaEventCreate(&g.e0));
	CU(cudaEventCreate(&g.e1));
	/* exactly n after the shift: reads past the end would be caught */
	CU(cudaMalloc(&base, n + shift ? n + shift : 1));
	g.src = base + shift;
	if (n)
		CU(cudaMemcpy(g.src, in.data.data(), n, cudaMemcpyHostToDevice));
	CU(cudaMalloc(&g.tok, (n + GUARD) * sizeof(uint32_t)));
	CU(cudaMalloc(&g.ntok, (np + GUARD) * sizeof(uint32_t)));
	g.work_bytes = gpz_gpu_lz_work(n, piece);
	CU(cudaMalloc(&g.work, g.work_bytes ? g.work_bytes : 1));
	printf("%-22s %9zu B, piece %7zu%s:", in.name.c_str(), n, piece, shift ? ", shifted" : "");
	for (int level : levels) {
		ms[level] = check_one(g, in, piece, level);
		printf(" L%d %.0fms", level, ms[level]);
		fflush(stdout);
	}
	printf("\n");
	CU(cudaFree(base));
	CU(cudaFree(g.tok));
	CU(cudaFree(g.ntok));
	CU(cudaFree(g.work));
	CU(cudaEventDestroy(g.e0));
	CU(cudaEventDestroy(g.e1));
	CU(cudaStreamDestroy(g.st));
	return ms;
}

} // namespace

int main(int argc, char **argv)
{
	if (!gpu_test_start())
		return TEST_SKIP;
	bool quick = argc > 1 && !strcmp(argv[1], "quick");

	std::vector<int> levels = quick ? std::vector<int>{ 1, 6, 9 }
	                                : std::vector<int>{ 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	const size_t MiB = 1048576;
	std::vector<Input> common;
	for (size_t n = 0; n < 4; n++)
		common.push_back({ "random " + std::to_string(n) + " B", lz_inputs::random_bytes(&g_seed, n) });
	common.push_back({ "random bytes", lz_inputs::random_bytes(&g_seed, MiB + MiB / 2 + 7) });
	common.push_back({ "long runs", lz_inputs::runs(&g_seed, 2 * MiB + MiB / 2) });
	common.push_back({ "phrases", lz_inputs::phrases(&g_seed, 2 * MiB + 3) });
	const char *corp = test_corpora_dir();
	if (corp) {
		for (const char *set : { "canterbury", "calgary" }) {
			std::vector<uint8_t> v = lz_inputs::concat_dir(std::string(corp) + "/" + set);
			if (!v.empty())
				common.push_back({ std::string(set) + " (concat.)", v });
		}
	} else {
		printf("shared corpora absent (set GPZ_CORPORA): generated inputs only\n");
	}
	size_t largest = 0;
	for (size_t i = 1; i < common.size(); i++)
		if (common[i].data.size() > common[largest].data.size())
			largest = i;

	for (size_t piece : { MiB, (size_t)65536 }) {
		std::vector<Input> inputs = common;
		std::vector<uint8_t> text = lz_inputs::phrases(&g_seed, piece + 1);
		for (long d = -1; d <= 1; d++) {
			std::vector<uint8_t> v(text.begin(), text.begin() + (long)piece + d);
			inputs.push_back({ "phrases piece" + std::string(d < 0 ? "-1" : d > 0 ? "+1" : ""),
			                   v });
		}
		for (size_t i = 0; i < inputs.size(); i++) {
			std::vector<float> ms = check_input(inputs[i], piece, levels);
			if (i == largest) {
				printf("throughput %s (%zu B), piece %zu, GPU:", inputs[i].name.c_str(),
				       inputs[i].data.size(), piece);
				for (int level : levels)
					if (ms[level] > 0)
						printf(" L%d %.2f MB/s", level,
						       inputs[i].data.size() / (ms[level] * 1e3));
				printf("\n");
			}
		}
	}
	/* sources that do not start on a word: every shift, lengths around a word */
	for (size_t shift = 1; shift < 4; shift++)
		for (size_t len : { (size_t)65536 + 5, (size_t)300001 })
			check_input({ "phrases " + std::to_string(len), lz_inputs::phrases(&g_seed, len) },
			            65536, std::vector<int>{ 1 }, shift);
	/* pieces that 64 KiB does not divide: find tiles then span two pieces (find_one<false>) */
	for (size_t piece : { (size_t)100000, (size_t)65536 + 8 }) {
		check_input({ "phrases, odd pieces", lz_inputs::phrases(&g_seed, 3 * piece + 17) }, piece,
		            levels);
		check_input({ "random, odd pieces", lz_inputs::random_bytes(&g_seed, 2 * piece + 5) },
		            piece, std::vector<int>{ 1, 6, 9 });
	}
	/* levels outside 1..9 are clamped like the CPU's */
	check_input({ "phrases, level 0/10", lz_inputs::phrases(&g_seed, 300000) }, 65536, std::vector<int>{ 0, 10 });

	if (test_failures) {
		printf("%d failures\n", test_failures);
		return 1;
	}
	printf("gpu_lz: all passed\n");
	return 0;
}
