/* test_gpu_deflate.cu - gzip / zlib / raw DEFLATE streams on the GPU backend (deflate_gpu.cu,
 * through gpz_deflate_compress on a GPU context) against the CPU backend's, byte for byte, and
 * zlib must decode them to the input. Inputs: empty, 1 and 3 bytes (every level in every
 * format), piece - 1, piece, piece + 1, 2 pieces + 12345, long runs, random bytes, repeated
 * phrases (every level, the format rotating, and all three formats at level 1); the shared
 * corpora when present ($GPZ_CORPORA or ../shared/corpora: canterbury and calgary, each
 * concatenated) and the prepared data ($GPZ_DATA or corpora/data: silesia's dickens and samba)
 * at levels 1, 6 and 9. Batches of cut streams (gzip at levels 4-9: every 32nd piece without
 * history) starting anywhere in the stream's cut grid, against the CPU's. Also
 * gpz_gpu_deflate_raw on device buffers (guards past the output must keep their poison; a too
 * small out_cap must be reported) and GPZ_ERR_DST_TOO_SMALL on both
 * backends. Prints the GPU's MB/s (whole call: transfers, allocation, checksum) per level on
 * the largest input.
 *   test_gpu_deflate [full] [FILE...]   full: every level in every format on every input, and a
 *                                       1 GiB + 1 input (two batches of pieces); FILEs are
 *                                       checked at levels 1, 6 and 9 too
 * Exits 77 ("SKIP: no GPU") when no GPU is usable. */
#include "cuda_test.h"
#include "lz_inputs.h"
#include "common/context.h"
#include "deflate/code_warp.cuh"
#include "deflate/deflate.h"
#include "deflate/deflate_gpu.h"

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <dirent.h>
#include <string.h>
#include <string>
#include <thread>
#include <vector>

namespace {

const size_t MiB = 1048576, PIECE = GPZ_DEFLATE_PIECE;

/* ---- the warp's code builder (code_warp.cuh) against gpz_dfl_build_code ---- */

struct CodeCase {
	uint32_t freq[GPZ_DFL_NLIT];
	unsigned n;
	int limit;
};

struct CodeOut {
	uint32_t freq[GPZ_DFL_NLIT], code[GPZ_DFL_NLIT];
	uint8_t len[GPZ_DFL_NLIT];
};

/* A block a case, one warp each (code_warp.cuh's shared scratch is per block). */
__global__ void __launch_bounds__(32) build_code_kernel(const CodeCase *in, CodeOut *out)
{
	__shared__ gpz_dfl_huff h;
	__shared__ gpz_dfl_warp::small sm;
	__shared__ uint32_t freq[GPZ_DFL_NLIT];
	__shared__ uint8_t len[GPZ_DFL_NLIT];
	__shared__ uint32_t code[GPZ_DFL_NLIT];
	const CodeCase &c = in[blockIdx.x];
	for (unsigned i = threadIdx.x; i < c.n; i += 32)
		freq[i] = c.freq[i];
	__syncwarp();
	gpz_dfl_warp::build_code(freq, c.n, c.limit, len, code, &h, &sm);
	for (unsigned i = threadIdx.x; i < c.n; i += 32) {
		out[blockIdx.x].freq[i] = freq[i];
		out[blockIdx.x].len[i] = len[i];
		out[blockIdx.x].code[i] = code[i];
	}
}

/* Counts of every shape the block writer meets and some it rarely does: random, skewed,
 * Fibonacci (lengths far past the limit: package-merge), equal, sparse, one and no symbol. */
void check_codes()
{
	std::vector<CodeCase> cases;
	uint64_t seed = 0x2545F4914F6CDD1Dull;
	const unsigned sizes[] = { GPZ_DFL_NLIT, GPZ_DFL_NDIST, GPZ_DFL_NCL };
	for (int shape = 0; shape < 9; shape++)
		for (unsigned n : sizes)
			for (int rep = 0; rep < 20; rep++) {
				CodeCase c{};
				c.n = n;
				c.limit = n == GPZ_DFL_NCL ? 7 : 15;
				uint64_t f0 = 1, f1 = 1;
				for (unsigned i = 0; i < n; i++) {
					uint32_t r = lz_inputs::rnd(&seed, 1u << 16);
					switch (shape) {
					case 0: c.freq[i] = r % 1000; break;
					case 1: c.freq[i] = r % 8 ? 0 : r % 50000; break;        /* sparse */
					case 2: c.freq[i] = 1u << (r % 18); break;                /* skewed */
					case 3: { uint64_t f = f0 + f1; f0 = f1; f1 = f;          /* Fibonacci */
						c.freq[i] = i < 27 ? (uint32_t)f1 : 0; break; }
					case 4: c.freq[i] = 7; break;                             /* equal */
					case 5: c.freq[i] = i == r % n ? 1000 : 0; break;         /* one */
					case 6: c.freq[i] = 0; break;                             /* none */
					case 7: c.freq[i] = i < 2u + (unsigned)rep ? (r % 3) + 1 : 0; break; /* a few */
					default: c.freq[i] = (r % 4 ? r % 4 : 1u << (r % 17)) * (r % 3 != 0);
					}
				}
				if (shape == 3 && rep % 2) /* shuffled Fibonacci */
					for (unsigned i = n - 1; i > 0; i--)
						std::swap(c.freq[i], c.freq[lz_inputs::rnd(&seed, i + 1)]);
				cases.push_back(c);
			}
	CodeCase *d_in;
	CodeOut *d_out;
	CU(cudaMalloc(&d_in, cases.size() * sizeof(CodeCase)));
	CU(cudaMalloc(&d_out, cases.size() * sizeof(CodeOut)));
	CU(cudaMemcpy(d_in, cases.data(), cases.size() * sizeof(CodeCase), cudaMemcpyHostToDevice));
	CU(cudaMemset(d_out, 0xab, cases.size() * sizeof(CodeOut)));
	build_code_kernel<<<(unsigned)cases.size(), 32>>>(d_in, d_out);
	CU(cudaGetLastError());
	std::vector<CodeOut> got(cases.size());
	CU(cudaMemcpy(got.data(), d_out, got.size() * sizeof(CodeOut), cudaMemcpyDeviceToHost));
	gpz_dfl_huff *h = new gpz_dfl_huff;
	int long_codes = 0;
	for (size_t k = 0; k < cases.size(); k++) {
		CodeCase c = cases[k];
		uint8_t len[GPZ_DFL_NLIT];
		uint32_t code[GPZ_DFL_NLIT];
		gpz_dfl_build_code(c.freq, c.n, c.limit, len, code, h);
		bool same = true;
		for (unsigned i = 0; i < c.n; i++) {
			same = same && len[i] == got[k].len[i] && code[i] == got[k].code[i] &&
			       c.freq[i] == got[k].freq[i];
			long_codes += len[i] == (unsigned)c.limit;
		}
		CHECK(same, "warp code builder, case %zu (%u symbols, limit %d): not the CPU's code", k,
		      c.n, c.limit);
	}
	delete h;
	CHECK(long_codes > 0, "no case reached the length limit");
	printf("warp code builder: %zu cases equal to gpz_dfl_build_code (%d codes at the limit)\n",
	       cases.size(), long_codes);
	CU(cudaFree(d_in));
	CU(cudaFree(d_out));
}

struct Input {
	std::string name;
	std::vector<uint8_t> data;
};

uint64_t g_seed = 0x9E3779B97F4A7C15ull;

/* Stretches of phrases, runs and random bytes: stored, fixed and dynamic blocks in one stream,
 * with piece boundaries falling anywhere. */
std::vector<uint8_t> mixed(size_t n)
{
	std::vector<uint8_t> v;
	while (v.size() < n) {
		size_t len = std::min(n - v.size(), (size_t)(1000 + lz_inputs::rnd(&g_seed, 200000)));
		uint32_t kind = lz_inputs::rnd(&g_seed, 3);
		std::vector<uint8_t> part = kind == 0 ? lz_inputs::random_bytes(&g_seed, len)
		                          : kind == 1 ? lz_inputs::runs(&g_seed, len)
		                                      : lz_inputs::phrases(&g_seed, len);
		v.insert(v.end(), part.begin(), part.end());
	}
	return v;
}

bool read_input(const std::string &path, const std::string &name, std::vector<Input> &out)
{
	size_t size = 0;
	uint8_t *p = test_read_file(path.c_str(), &size);
	if (!p)
		return false;
	out.push_back({ name, std::vector<uint8_t>(p, p + size) });
	free(p);
	return true;
}

/* zlib's inflate; windowBits 31 gzip, 15 zlib, -15 raw. */
bool zlib_decode(const uint8_t *c, size_t n, gpz_format f, const std::vector<uint8_t> &want)
{
	static const int wbits[4] = { 0, 31, 15, -15 };
	std::vector<uint8_t> out(want.size() + 1);
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, wbits[f]) != Z_OK)
		return false;
	bool ok = true;
	size_t in_off = 0, out_off = 0;
	int r = Z_OK;
	while (r == Z_OK) { /* avail_* are 32-bit: feed in steps */
		size_t ni = std::min(n - in_off, (size_t)1 << 30);
		size_t no = std::min(out.size() - out_off, (size_t)1 << 30);
		z.next_in = (Bytef *)c + in_off;
		z.avail_in = (uInt)ni;
		z.next_out = out.data() + out_off;
		z.avail_out = (uInt)no;
		r = inflate(&z, Z_NO_FLUSH);
		in_off += ni - z.avail_in;
		out_off += no - z.avail_out;
		if (r == Z_OK && ni == z.avail_in && no == z.avail_out)
			break; /* no progress */
	}
	ok = r == Z_STREAM_END && in_off == n && out_off == want.size() &&
	     memcmp(out.data(), want.data(), want.size()) == 0;
	inflateEnd(&z);
	return ok;
}

gpz_ctx *g_cpu, *g_gpu;

const char *fmt_name(gpz_format f)
{
	return f == GPZ_FORMAT_GZIP ? "gzip" : f == GPZ_FORMAT_ZLIB ? "zlib" : "raw";
}

/* One input at one level and format: GPU bytes == CPU bytes, zlib decodes them. Returns the
 * GPU call's seconds, -1 on failure. */
double check_one(const Input &in, int level, gpz_format f)
{
	size_t n = in.data.size(), cap = gpz_deflate_bound(n), a = 0, b = 0;
	std::vector<uint8_t> want(cap), got(cap);
	gpz_gzip_info gi = { "name.txt", 1700000000u, 0, 0 };
	const gpz_gzip_info *g = f == GPZ_FORMAT_GZIP && level % 2 ? &gi : NULL;

	gpz_result rc = gpz_deflate_compress(g_cpu, level, f, g, in.data.data(), n, want.data(), cap,
	                                     &a);
	auto t0 = std::chrono::steady_clock::now();
	gpz_result rg = gpz_deflate_compress(g_gpu, level, f, g, in.data.data(), n, got.data(), cap,
	                                     &b);
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	CHECK(rc == GPZ_OK, "%s L%d %s: CPU %s", in.name.c_str(), level, fmt_name(f),
	      gpz_result_string(rc));
	CHECK(rg == GPZ_OK, "%s L%d %s: GPU %s", in.name.c_str(), level, fmt_name(f),
	      gpz_result_string(rg));
	if (rc != GPZ_OK || rg != GPZ_OK)
		return -1;
	if (a != b || memcmp(want.data(), got.data(), a) != 0) {
		size_t i = 0;
		while (i < a && i < b && want[i] == got[i])
			i++;
		CHECK(0, "%s L%d %s: GPU %zu bytes, CPU %zu, first difference at byte %zu",
		      in.name.c_str(), level, fmt_name(f), b, a, i);
		return -1;
	}
	if (!zlib_decode(got.data(), b, f, in.data)) {
		CHECK(0, "%s L%d %s: zlib does not decode the GPU's stream to the input",
		      in.name.c_str(), level, fmt_name(f));
		return -1;
	}
	return s;
}

/* levels x formats on one input; prints a line, returns the seconds per level (index = level) */
std::vector<double> check_input(const Input &in, const std::vector<int> &levels, bool all_formats,
                                int rot)
{
	std::vector<double> sec(10, -1);
	printf("%-26s %10zu B:", in.name.c_str(), in.data.size());
	fflush(stdout);
	for (int level : levels) {
		for (int k = 0; k < 3; k++) {
			gpz_format f = (gpz_format)(1 + (level + rot + k) % 3);
			if (k > 0 && !all_formats && level != 1)
				break;
			double s = check_one(in, level, f);
			if (k == 0)
				sec[level] = s;
		}
		printf(" L%d %.2fs", level, sec[level]);
		fflush(stdout);
	}
	printf("\n");
	return sec;
}

/* gpz_gpu_deflate_raw on device buffers: the CPU's raw bytes, poison kept past them, the bit
 * count consistent, a too small out_cap reported as GPZ_ERR_DST_TOO_SMALL. */
void check_raw_device(const Input &in, int level)
{
	size_t n = in.data.size(), cap = gpz_deflate_bound(n), a = 0;
	std::vector<uint8_t> want(cap);
	gpz_result r = gpz_deflate_compress(g_cpu, level, GPZ_FORMAT_DEFLATE, NULL, in.data.data(), n,
	                                    want.data(), cap, &a);
	CHECK(r == GPZ_OK, "raw %s: CPU %s", in.name.c_str(), gpz_result_string(r));
	size_t out_cap = gpz_gpu_deflate_raw_bound(n), work = gpz_gpu_deflate_work(n);
	const size_t GUARD = 4096;
	uint8_t *d_src, *d_out;
	void *d_work;
	gpz_gpu_deflate_status *d_st, st;
	cudaStream_t s;
	CU(cudaStreamCreate(&s));
	CU(cudaMalloc(&d_src, n ? n : 1));
	CU(cudaMalloc(&d_out, out_cap + GUARD));
	CU(cudaMalloc(&d_work, work));
	CU(cudaMalloc(&d_st, sizeof(*d_st)));
	if (n)
		CU(cudaMemcpy(d_src, in.data.data(), n, cudaMemcpyHostToDevice));
	CU(cudaMemset(d_out, 0xA5, out_cap + GUARD));
	r = gpz_gpu_deflate_raw(d_src, n, level, d_out, out_cap, d_st, d_work, work,
	                        (gpz_stream_t)s);
	CU(cudaStreamSynchronize(s));
	CU(cudaGetLastError());
	CU(cudaMemcpy(&st, d_st, sizeof(st), cudaMemcpyDeviceToHost));
	CHECK(r == GPZ_OK && st.result == GPZ_OK, "raw %s L%d: %s / %s", in.name.c_str(), level,
	      gpz_result_string(r), gpz_result_string((gpz_result)st.result));
	size_t bytes = (size_t)((st.bits + 7) / 8);
	std::vector<uint8_t> got(out_cap + GUARD);
	CU(cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost));
	CHECK(bytes == a && memcmp(got.data(), want.data(), a) == 0,
	      "raw %s L%d: device stream differs (%zu bytes, CPU %zu)", in.name.c_str(), level, bytes,
	      a);
	CHECK(st.bits > 8 * (uint64_t)a - 8 && st.bits <= 8 * (uint64_t)a,
	      "raw %s L%d: %llu bits for %zu bytes", in.name.c_str(), level,
	      (unsigned long long)st.bits, a);
	for (size_t i = bytes; i < got.size(); i++)
		if (got[i] != 0xA5) {
			CHECK(0, "raw %s L%d: byte %zu past the stream written", in.name.c_str(), level, i);
			break;
		}
	/* one byte short */
	if (a > 0) {
		r = gpz_gpu_deflate_raw(d_src, n, level, d_out, a - 1, d_st, d_work, work,
		                        (gpz_stream_t)s);
		CU(cudaStreamSynchronize(s));
		CU(cudaMemcpy(&st, d_st, sizeof(st), cudaMemcpyDeviceToHost));
		CHECK(r == GPZ_OK && st.result == GPZ_ERR_DST_TOO_SMALL,
		      "raw %s L%d: out_cap %zu: %s / %s, want DST_TOO_SMALL", in.name.c_str(), level,
		      a - 1, gpz_result_string(r), gpz_result_string((gpz_result)st.result));
	}
	/* bad arguments */
	CHECK(gpz_gpu_deflate_raw(d_src, n, 0, d_out, out_cap, d_st, d_work, work, (gpz_stream_t)s) ==
	          GPZ_ERR_PARAM,
	      "level 0 accepted");
	CHECK(gpz_gpu_deflate_raw(d_src, n, level, d_out, out_cap, d_st, d_work, work - 1,
	                          (gpz_stream_t)s) == GPZ_ERR_PARAM,
	      "short workspace accepted");
	CU(cudaFree(d_src));
	CU(cudaFree(d_out));
	CU(cudaFree(d_work));
	CU(cudaFree(d_st));
	CU(cudaStreamDestroy(s));
	printf("raw device buffers %s L%d: %zu bytes, %llu bits\n", in.name.c_str(), level, a,
	       (unsigned long long)st.bits);
}

/* A too small destination fails the same way on both backends. */
void check_too_small(const Input &in, int level, gpz_format f)
{
	size_t n = in.data.size(), cap = gpz_deflate_bound(n), a = 0, x = 0, y = 0;
	std::vector<uint8_t> buf(cap);
	gpz_deflate_compress(g_cpu, level, f, NULL, in.data.data(), n, buf.data(), cap, &a);
	for (size_t c : { a - 1, (size_t)1, (size_t)0 }) {
		gpz_result rc = gpz_deflate_compress(g_cpu, level, f, NULL, in.data.data(), n,
		                                     buf.data(), c, &x);
		gpz_result rg = gpz_deflate_compress(g_gpu, level, f, NULL, in.data.data(), n,
		                                     buf.data(), c, &y);
		CHECK(rc == GPZ_ERR_DST_TOO_SMALL && rg == GPZ_ERR_DST_TOO_SMALL,
		      "%s %s cap %zu of %zu: CPU %s, GPU %s", in.name.c_str(), fmt_name(f), c, a,
		      gpz_result_string(rc), gpz_result_string(rg));
	}
}

} // namespace

/* An AUTO context takes the GPU for one-shot streams from 64 MiB on (deflate_stream.c): same
 * bytes as the CPU's. Prints both calls' times. */
void check_auto(const std::vector<uint8_t> &m)
{
	std::vector<uint8_t> v;
	while (v.size() < 64 * MiB + 5)
		v.insert(v.end(), m.begin(), m.begin() + std::min(m.size(), 64 * MiB + 5 - v.size()));
	gpz_ctx *aut;
	CHECK(gpz_ctx_create(&aut, GPZ_BACKEND_AUTO, 0) == GPZ_OK, "AUTO context");
	size_t cap = gpz_deflate_bound(v.size()), a = 0, b = 0;
	std::vector<uint8_t> want(cap), got(cap);
	for (int level : { 1, 6 }) {
		auto t0 = std::chrono::steady_clock::now();
		gpz_result r1 = gpz_deflate_compress(aut, level, GPZ_FORMAT_GZIP, NULL, v.data(),
		                                     v.size(), got.data(), cap, &b);
		auto t1 = std::chrono::steady_clock::now();
		gpz_result r2 = gpz_deflate_compress(g_cpu, level, GPZ_FORMAT_GZIP, NULL, v.data(),
		                                     v.size(), want.data(), cap, &a);
		auto t2 = std::chrono::steady_clock::now();
		CHECK(r1 == GPZ_OK && r2 == GPZ_OK && a == b && !memcmp(want.data(), got.data(), a),
		      "AUTO context, 64 MiB + 5, level %d: not the CPU's bytes", level);
		printf("AUTO context, 64 MiB + 5, L%d: %.3f s (CPU context, %u threads: %.3f s)\n", level,
		       std::chrono::duration<double>(t1 - t0).count(), std::thread::hardware_concurrency(),
		       std::chrono::duration<double>(t2 - t1).count());
	}
	gpz_ctx_free(aut);
}

/* Memory callbacks for the engine's streams: reads of uneven sizes, positional reads, output
 * appended. */
struct MemIO {
	const std::vector<uint8_t> *src;
	size_t pos = 0;
	std::vector<uint8_t> out;
};

gpz_result mem_read(void *user, void *buf, size_t cap, size_t *got)
{
	MemIO *m = static_cast<MemIO *>(user);
	size_t k = std::min({ cap, m->src->size() - m->pos, (size_t)(3 * MiB + 777) });
	memcpy(buf, m->src->data() + m->pos, k);
	m->pos += k;
	*got = k;
	return GPZ_OK;
}

gpz_result mem_read_at(void *user, void *buf, size_t n, uint64_t off)
{
	MemIO *m = static_cast<MemIO *>(user);
	if (off > m->src->size() || n > m->src->size() - off)
		return GPZ_ERR_TRUNCATED;
	memcpy(buf, m->src->data() + off, n);
	return GPZ_OK;
}

gpz_result mem_write(void *user, const void *buf, size_t n)
{
	MemIO *m = static_cast<MemIO *>(user);
	m->out.insert(m->out.end(), (const uint8_t *)buf, (const uint8_t *)buf + n);
	return GPZ_OK;
}

/* Several GPU batches through the engine (pushed and positional) on ctx: the CPU one-shot's
 * bytes, index included. */
void check_engine(gpz_ctx *ctx, const Input &in, int level, gpz_format f)
{
	size_t n = in.data.size(), cap = gpz_deflate_bound(n), a = 0;
	std::vector<uint8_t> want(cap);
	gpz_gzip_info gi = { "name.txt", 1700000000u, n ? n : 1, 0 };
	gpz_result r = gpz_deflate_compress(g_cpu, level, f, &gi, in.data.data(), n, want.data(),
	                                    cap, &a);
	CHECK(r == GPZ_OK, "engine %s: CPU %s", in.name.c_str(), gpz_result_string(r));
	for (int positional = 0; positional < 2; positional++) {
		MemIO m;
		m.src = &in.data;
		gpz_deflate_stream *ds;
		uint64_t i = 0, o = 0;
		auto t0 = std::chrono::steady_clock::now();
		r = gpz_deflate_stream_create(ctx, level, f, &gi, &ds);
		if (r == GPZ_OK)
			r = positional ? gpz_deflate_stream_from_at(ds, mem_read_at, n, mem_write, &m, &i, &o)
			               : gpz_deflate_stream_from(ds, mem_read, mem_write, &m, &i, &o);
		double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		size_t hl = 0;
		if (r == GPZ_OK && f == GPZ_FORMAT_GZIP)
			r = gpz_deflate_stream_header(ds, m.out.data(), m.out.size(), &hl);
		gpz_deflate_stream_free(ds);
		CHECK(r == GPZ_OK && m.out.size() == a && !memcmp(m.out.data(), want.data(), a),
		      "engine %s L%d %s %s: %s, %zu bytes vs the CPU's %zu", in.name.c_str(), level,
		      fmt_name(f), positional ? "positional" : "pushed", gpz_result_string(r),
		      m.out.size(), a);
		printf("engine %s L%d %s %s: %zu -> %zu B, %.2f GB/s (memory callbacks)\n",
		       in.name.c_str(), level, fmt_name(f), positional ? "positional" : "pushed", n, a,
		       n / s / 1e9);
	}
}

/* A batch of a cut stream (every 32nd piece without history) anywhere in it: the stream's
 * number k0 of its first piece puts the cuts (none in the batch, the first piece, or later),
 * with history before it. The GPU's bytes, piece sizes and CRC-32 are the CPU's. */
void check_cut_batch(const std::vector<uint8_t> &m, int level, size_t k0)
{
	const size_t pre = 32768, n = 40 * PIECE + 999, cap = gpz_dfl_batch_bound(n);
	if (m.size() < pre + n)
		return;
	const uint8_t *src = m.data() + pre;
	std::vector<uint8_t> a(cap), b(cap);
	std::vector<gpz_dfl_batch> ba(1), bb(1);
	gpz_result ra = gpz_dfl_batch_cpu(4, src, pre, n, level, 0, GPZ_DFL_CUT, k0,
	                                  GPZ_DFL_CHECK_CRC32, a.data(), cap, &ba[0]);
	gpz_result rb = gpz_dfl_batch_gpu(gpz_ctx_gpu(g_gpu), src, pre, n, level, 0, GPZ_DFL_CUT, k0,
	                                  GPZ_DFL_CHECK_CRC32, b.data(), cap, &bb[0]);
	bool same = ra == GPZ_OK && rb == GPZ_OK && ba[0].bytes == bb[0].bytes &&
	            ba[0].check == bb[0].check && ba[0].npieces == bb[0].npieces &&
	            !memcmp(a.data(), b.data(), ba[0].bytes) &&
	            !memcmp(ba[0].piece_bytes, bb[0].piece_bytes, ba[0].npieces * sizeof(uint32_t));
	CHECK(same, "cut batch L%d k0 %zu: CPU %s %zu B, GPU %s %zu B", level, k0,
	      gpz_result_string(ra), ba[0].bytes, gpz_result_string(rb), bb[0].bytes);
	/* and a batch that starts at a cut is the one with no history given */
	if (k0 % 32 == 0 && ra == GPZ_OK) {
		std::vector<uint8_t> c(cap);
		std::vector<gpz_dfl_batch> bc(1);
		gpz_result rc = gpz_dfl_batch_cpu(4, src, 0, n, level, 0, GPZ_DFL_CUT, k0,
		                                  GPZ_DFL_CHECK_CRC32, c.data(), cap, &bc[0]);
		CHECK(rc == GPZ_OK && bc[0].bytes == ba[0].bytes &&
		              !memcmp(c.data(), a.data(), ba[0].bytes),
		      "cut batch L%d k0 %zu: history before a cut is not used", level, k0);
	}
	printf("cut batch L%d k0 %zu: %zu -> %zu B\n", level, k0, n, ba[0].bytes);
}

/* .gpz LZ frames (independent pieces) coded on the GPU: the CPU's bytes, and they decode. */
void check_lz_frames(const Input &in, int level, size_t frame_bytes)
{
	gpz_params p;
	gpz_params_default(&p);
	p.lz_level = level;
	p.frame_bytes = frame_bytes;
	size_t n = in.data.size(), cap = gpz_compress_bound(n, &p), a = 0, b = 0, back = 0;
	std::vector<uint8_t> want(cap), got(cap), dec(n + 1);
	gpz_result rc = gpz_compress(g_cpu, &p, in.data.data(), n, want.data(), cap, &a);
	auto t0 = std::chrono::steady_clock::now();
	gpz_result rg = gpz_compress(g_gpu, &p, in.data.data(), n, got.data(), cap, &b);
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	CHECK(rc == GPZ_OK && rg == GPZ_OK && a == b && !memcmp(want.data(), got.data(), a),
	      "LZ frames %s L%d: GPU %s %zu bytes, CPU %s %zu", in.name.c_str(), level,
	      gpz_result_string(rg), b, gpz_result_string(rc), a);
	gpz_result rd = gpz_decompress(g_gpu, got.data(), b, dec.data(), n + 1, &back);
	CHECK(rd == GPZ_OK && back == n && !memcmp(dec.data(), in.data.data(), n),
	      "LZ frames %s L%d: round trip %s", in.name.c_str(), level, gpz_result_string(rd));
	printf("LZ frames %s L%d: %zu -> %zu B, GPU %.2f GB/s (host buffers)\n", in.name.c_str(),
	       level, n, b, n / s / 1e9);
}

/* Pinned destinations (GPU lanes decode straight into them, and place compressed frames in
 * them, with no copy of their own): an interior, unaligned pointer of a cudaMallocHost buffer
 * gets the bytes a pageable buffer gets, for Huffman-only and LZ frames over several frames; one
 * byte too little room fails and leaves the bytes after the room as they were. */
void check_pinned_output(const Input &in)
{
	size_t n = in.data.size();
	for (int level = 0; level <= 1; level++) {
		gpz_params p;
		gpz_params_default(&p);
		p.lz_level = level;
		p.frame_bytes = 3 * PIECE + 5; /* several frames, none a multiple of a piece */
		size_t cap = gpz_compress_bound(n, &p), c = 0, back = 0;
		std::vector<uint8_t> comp(cap);
		uint8_t *pin = NULL;
		CHECK(gpz_compress(g_gpu, &p, in.data.data(), n, comp.data(), cap, &c) == GPZ_OK,
		      "pinned output L%d: compress", level);
		CU(cudaMallocHost((void **)&pin, n + 64));
		memset(pin, 0xA5, n + 64);
		gpz_result r = gpz_decompress(g_gpu, comp.data(), c, pin + 3, n, &back);
		CHECK(r == GPZ_OK && back == n && !memcmp(pin + 3, in.data.data(), n) &&
		          pin[2] == 0xA5 && pin[n + 3] == 0xA5,
		      "pinned output L%d: %s, %zu of %zu bytes", level, gpz_result_string(r), back, n);
		memset(pin, 0xA5, n + 64);
		r = gpz_decompress(g_gpu, comp.data(), c, pin + 3, n - 1, &back);
		CHECK(r == GPZ_ERR_DST_TOO_SMALL && pin[n + 2] == 0xA5 && pin[n + 3] == 0xA5,
		      "pinned output L%d, one byte short: %s", level, gpz_result_string(r));
		CU(cudaFreeHost(pin));
		/* compression into pinned memory (GPU lanes place their frames there themselves) */
		size_t got = 0;
		CU(cudaMallocHost((void **)&pin, cap + 64));
		memset(pin, 0xA5, cap + 64);
		r = gpz_compress(g_gpu, &p, in.data.data(), n, pin + 5, cap, &got);
		CHECK(r == GPZ_OK && got == c && !memcmp(pin + 5, comp.data(), c) && pin[4] == 0xA5 &&
		          pin[c + 5] == 0xA5,
		      "pinned compress L%d: %s, %zu bytes of %zu", level, gpz_result_string(r), got, c);
		memset(pin, 0xA5, cap + 64);
		r = gpz_compress(g_gpu, &p, in.data.data(), n, pin + 5, c - 1, &got);
		CHECK(r == GPZ_ERR_DST_TOO_SMALL && pin[c + 3] == 0xA5 && pin[c + 4] == 0xA5,
		      "pinned compress L%d, one byte short: %s", level, gpz_result_string(r));
		CU(cudaFreeHost(pin));
	}
}

/* test_gpu_deflate fallback (GPZ_TEST_GPU_FAIL=2 set by ctest): an AUTO context redoes the
 * failed GPU batch on the CPU, with the same bytes; it decodes LZ frames too. */
int fallback_mode(const Input &in)
{
	gpz_ctx *ctx;
	if (!getenv("GPZ_TEST_GPU_FAIL") ||
	    gpz_ctx_create(&ctx, GPZ_BACKEND_AUTO, 4) != GPZ_OK) {
		printf("fallback: needs GPZ_TEST_GPU_FAIL (skipped)\n");
		return TEST_SKIP;
	}
	check_engine(ctx, in, 1, GPZ_FORMAT_GZIP);
	CHECK(gpz_ctx_gpu_fallbacks(ctx) == 1, "fallbacks: %llu",
	      (unsigned long long)gpz_ctx_gpu_fallbacks(ctx));
	/* LZ frames decoded by the AUTO context (on its GPU lanes): the bytes */
	gpz_params p;
	gpz_params_default(&p);
	p.lz_level = 1;
	p.frame_bytes = 5 * PIECE + 3;
	size_t n = in.data.size(), cap = gpz_compress_bound(n, &p), c = 0, back = 0;
	std::vector<uint8_t> comp(cap), dec(n + 1);
	CHECK(gpz_compress(g_cpu, &p, in.data.data(), n, comp.data(), cap, &c) == GPZ_OK,
	      "LZ frames: compress");
	gpz_result r = gpz_decompress(ctx, comp.data(), c, dec.data(), n + 1, &back);
	CHECK(r == GPZ_OK && back == n && !memcmp(dec.data(), in.data.data(), n),
	      "LZ frames on an AUTO context: %s", gpz_result_string(r));
	gpz_ctx_free(ctx);
	return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (!gpu_test_start())
		return TEST_SKIP;
	bool full = false, fallback = false;
	std::vector<std::string> files;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "full"))
			full = true;
		else if (!strcmp(argv[i], "fallback"))
			fallback = true;
		else
			files.push_back(argv[i]);
	}
	int threads = (int)std::max(1u, std::min(std::thread::hardware_concurrency(), 32u));
	if (gpz_ctx_create(&g_cpu, GPZ_BACKEND_CPU, threads) != GPZ_OK ||
	    gpz_ctx_create(&g_gpu, GPZ_BACKEND_GPU, 1) != GPZ_OK) {
		printf("cannot create the contexts\n");
		return 1;
	}
	const std::vector<int> all_levels{ 1, 2, 3, 4, 5, 6, 7, 8, 9 }, some_levels{ 1, 6, 9 };
	/* three GPU batches of 256 pieces and a short one: history across batches, BFINAL on the last */
	Input batches{ "mixed 3 batches + 7", mixed(3 * 256 * PIECE + 7) };
	if (fallback)
		return fallback_mode(batches);
	check_codes();
	check_engine(g_gpu, batches, 1, GPZ_FORMAT_GZIP);
	check_engine(g_gpu, batches, 6, GPZ_FORMAT_ZLIB);
	check_engine(g_gpu, batches, 6, GPZ_FORMAT_GZIP); /* cuts across GPU batches */
	for (int level : { 4, 6, 9 })
		for (size_t k0 : { 0, 37, 63, 64 })
			check_cut_batch(batches.data, level, k0);
	check_lz_frames(batches, 1, GPZ_DEFAULT_FRAME_BYTES);
	check_lz_frames(batches, 6, 5 * PIECE + 3); /* frames ending mid-piece */
	check_pinned_output(batches);

	/* tiny inputs: every level in every format */
	std::vector<Input> tiny{ { "empty", {} }, { "1 byte", { 'a' } }, { "3 bytes", { 0, 'x', 0 } } };
	for (const Input &in : tiny)
		check_input(in, all_levels, true, 0);

	std::vector<Input> edge;
	std::vector<uint8_t> m = mixed(2 * PIECE + 12345);
	edge.push_back({ "mixed piece-1", std::vector<uint8_t>(m.begin(), m.begin() + PIECE - 1) });
	edge.push_back({ "mixed piece", std::vector<uint8_t>(m.begin(), m.begin() + PIECE) });
	edge.push_back({ "mixed piece+1", std::vector<uint8_t>(m.begin(), m.begin() + PIECE + 1) });
	edge.push_back({ "mixed 2 pieces+12345", m });
	edge.push_back({ "long runs", lz_inputs::runs(&g_seed, 2 * MiB + MiB / 2) });
	edge.push_back({ "random bytes", lz_inputs::random_bytes(&g_seed, MiB + MiB / 2 + 7) });
	edge.push_back({ "phrases", lz_inputs::phrases(&g_seed, 2 * MiB + 3) });
	for (size_t i = 0; i < edge.size(); i++)
		check_input(edge[i], all_levels, full, (int)i);
	for (const Input &in : tiny)
		check_lz_frames(in, 1, GPZ_DEFAULT_FRAME_BYTES);
	for (size_t i = 0; i < edge.size(); i++)
		for (int level : { 1, 4, 9 })
			check_lz_frames(edge[i], level, level == 4 ? PIECE + 1 : GPZ_DEFAULT_FRAME_BYTES);

	check_raw_device(tiny[0], 6);
	check_raw_device(edge[3], 1);
	check_too_small(edge[0], 1, GPZ_FORMAT_GZIP);
	check_too_small(tiny[1], 6, GPZ_FORMAT_DEFLATE);
	check_auto(m);

	std::vector<Input> big;
	const char *corp = test_corpora_dir();
	if (corp) {
		for (const char *set : { "canterbury", "calgary" }) {
			std::vector<uint8_t> v = lz_inputs::concat_dir(std::string(corp) + "/" + set);
			if (!v.empty())
				big.push_back({ std::string(set) + " (concat.)", v });
		}
	} else {
		printf("shared corpora absent (set GPZ_CORPORA)\n");
	}
	const char *data = test_data_dir();
	if (data) {
		for (const char *f : { "dickens", "samba" })
			if (!read_input(std::string(data) + "/silesia/" + f, std::string("silesia/") + f, big))
				printf("%s/silesia/%s absent\n", data, f);
	} else {
		printf("prepared data absent (set GPZ_DATA; corpora/prepare.sh)\n");
	}
	for (const std::string &f : files)
		if (!read_input(f, f, big))
			CHECK(0, "cannot read %s", f.c_str());
	if (full)
		big.push_back({ "mixed 1 GiB + 1", std::vector<uint8_t>() });
	size_t largest = 0;
	std::vector<double> largest_sec;
	for (size_t i = 0; i < big.size(); i++) {
		if (big[i].name == "mixed 1 GiB + 1") { /* two batches of pieces */
			for (size_t k = 0; k < 1024; k++)
				big[i].data.insert(big[i].data.end(), m.begin() + k % 7, m.begin() + k % 7 + MiB);
			big[i].data.push_back('!');
		}
		std::vector<double> sec = check_input(big[i], some_levels, full, (int)i);
		if (big[i].data.size() > largest) {
			largest = big[i].data.size();
			largest_sec = sec;
		}
		if (big[i].data.size() > MiB * 1024)
			big[i].data = std::vector<uint8_t>(); /* free the big one */
	}
	if (big.empty()) { /* the largest generated input then */
		largest = edge[3].data.size();
		largest_sec = check_input(edge[3], some_levels, false, 1);
	}
	printf("GPU throughput, whole gpz_deflate_compress call, %zu B:", largest);
	for (int level : some_levels)
		if (largest_sec[level] > 0)
			printf(" L%d %.2f MB/s", level, largest / (largest_sec[level] * 1e6));
	printf("\n");

	gpz_ctx_free(g_cpu);
	gpz_ctx_free(g_gpu);
	if (test_failures) {
		printf("%d failures\n", test_failures);
		return 1;
	}
	printf("gpu_deflate: all passed\n");
	return 0;
}
