/* test_gpu_lzsym.cu - the staged GPU half of LZ-symbol frames (src/lzsym/tokens.cu, decode.cu)
 * against the CPU reference (match.c, coder.c), bit for bit.
 *
 * For each input the CPU makes the frame's pieces as frame_lzsym.c does (run symbol, tokens
 * chunk by chunk, counts, its plan's codes, each chunk's bits, the payload); the GPU must
 * give the same counts, the same chunk lengths under the CPU's code lengths, the same payload
 * under the CPU's codes, and decode the CPU's payload to the input; whole frames
 * (container/frame_lzsym_gpu.cu) must be gpz_lzs_frame_write's bytes and decode on the GPU, their
 * checksum checked. Then damaged payloads and
 * chunk starts: the GPU's verdict must be the CPU's, and where both accept, the same output.
 * Inputs: one value, alternating runs, copies (matches, overlapping ones too), 1-, 2- and 4-byte
 * symbols, the largest alphabet, chunk logs 8 to 16, sizes that are not a multiple of the chunk
 * (1, 31, 33 symbols ...), every prepared quantization file and Nyx-Quant.
 *
 *   test_gpu_lzsym            the tests
 *   test_gpu_lzsym bench F [W]  GPU passes and decode of file F (W-byte symbols, default 2),
 *                             tiled to 1 GiB: GB/s of input, the same payload as the CPU's
 *                             checked first; then the device API
 * Exits 77 ("SKIP: no GPU") when no GPU is usable. */
extern "C" {
#include "testutil.h"
#include "common/bits.h"
#include "common/checksum.h"
#include "huffman/huffman.h"
}
#include "lzsym/lzsym_gpu.h"
#include "container/frame_lzsym_gpu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <string>
#include <vector>

#include "cuda_test.h"

namespace {

const size_t NM_EXTRA = GPZ_LZS_EXTRA, NB = GPZ_LZS_BUCKETS;

/* What the CPU makes of one input. */
struct Ref {
	uint32_t alphabet = 0, z = 0;
	std::vector<uint32_t> hist;          /* of the symbols */
	std::vector<uint32_t> counts;        /* main [alphabet + 96], then distance [48] */
	std::vector<uint8_t> mlen, dlen;     /* code lengths (dlen all 0 without matches) */
	std::vector<uint32_t> mtab, dtab;    /* encoder tables */
	std::vector<uint32_t> chunk_bits;
	std::vector<uint64_t> start;         /* nchunks + 1 */
	std::vector<uint8_t> payload;        /* ceil(total / 8) bytes */
	bool coded = false;                  /* false: one symbol value, no code to test */
};

size_t nchunks_of(size_t n, int chunk_log)
{
	return n ? ((n - 1) >> chunk_log) + 1 : 0;
}

Ref cpu_ref(const uint8_t *src, size_t n, int w, int chunk_log)
{
	Ref r;
	std::vector<uint32_t> hist;
	uint32_t top = 0;
	for (size_t i = 0; i < n; i++)
		top = std::max(top, gpz_load_symbol(src, i, w));
	r.alphabet = top + 1;
	hist.assign(r.alphabet, 0);
	for (size_t i = 0; i < n; i++)
		hist[gpz_load_symbol(src, i, w)]++;
	r.z = gpz_lzs_run_symbol(hist.data(), r.alphabet);
	r.hist = hist;

	const uint32_t nm = r.alphabet + NM_EXTRA;
	const size_t nc = nchunks_of(n, chunk_log);
	std::vector<uint32_t> head((size_t)1 << GPZ_LZS_HASH_LOG, 0);
	std::vector<gpz_lzs_token> tok(GPZ_LZS_BATCH);
	std::vector<std::vector<gpz_lzs_token>> all(nc);
	r.counts.assign(nm + NB, 0);
	for (size_t c = 0; c < nc; c++) {
		size_t c0 = c << chunk_log, c1 = std::min(n, c0 + ((size_t)1 << chunk_log)), pos = c0;
		while (pos < c1) {
			size_t nt = gpz_lzs_tokens(src, w, c0, c1, &pos, r.z, head.data(), tok.data(),
			                           tok.size());
			for (size_t k = 0; k < nt; k++) {
				const gpz_lzs_token &t = tok[k];
				if (t.len == 0)
					r.counts[t.sym]++;
				else if (t.dist == 0)
					r.counts[r.alphabet + gpz_lzs_bucket(t.len - 1)]++;
				else {
					r.counts[r.alphabet + NB + gpz_lzs_bucket(t.len - GPZ_LZS_MIN_MATCH)]++;
					r.counts[nm + gpz_lzs_bucket(t.dist - 1)]++;
				}
				all[c].push_back(t);
			}
		}
	}
	/* the codes as the writer makes them (frame_lzsym.c's plan) */
	gpz_params p;
	struct gpz_lzs_plan pl;
	gpz_params_default(&p);
	p.symbol_bytes = w;
	p.chunk_log = chunk_log;
	CHECK(gpz_lzs_plan_make(&pl, &p, n, r.alphabet, r.z, r.counts.data()) == GPZ_OK, "plan");
	if (pl.max_len < 1) {
		gpz_lzs_plan_free(&pl);
		return r; /* one value: a constant frame, nothing coded */
	}
	r.mlen.assign(pl.mlen, pl.mlen + nm);
	r.dlen.assign(pl.dlen, pl.dlen + NB);
	r.mtab.assign(pl.mtab, pl.mtab + nm);
	r.dtab.assign(pl.dtab, pl.dtab + NB);
	gpz_lzs_plan_free(&pl);
	struct gpz_lzs_code lc = { r.alphabet, r.z, r.mtab.data(), r.dtab.data() };
	size_t cap = 16;
	for (size_t c = 0; c < nc; c++)
		cap += all[c].size() * GPZ_LZS_TOKEN_BITS / 8 + 1;
	std::vector<uint8_t> buf(cap + 16, 0);
	uint64_t at = 0;
	r.start.push_back(0);
	for (size_t c = 0; c < nc; c++) {
		uint64_t e = gpz_lzs_put(&lc, all[c].data(), all[c].size(), buf.data(), at);
		r.chunk_bits.push_back((uint32_t)(e - at));
		r.start.push_back(e);
		at = e;
	}
	r.payload.assign(buf.begin(), buf.begin() + (at + 7) / 8);
	r.coded = true;
	return r;
}

template <class T> T *to_dev(const std::vector<T> &v, size_t extra = 0)
{
	T *d = NULL;
	CU(cudaMalloc((void **)&d, (v.size() + extra) * sizeof(T) + 1));
	if (!v.empty())
		CU(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

template <class T> std::vector<T> from_dev(const T *d, size_t n)
{
	std::vector<T> v(n);
	if (n)
		CU(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
	return v;
}

/* The host decoders of a Ref's codes. */
struct Decoders {
	gpz_decoder dm, dd;
	bool has_d = false, ok = false;
	struct gpz_lzs_decoders dec;
	explicit Decoders(const Ref &r)
	{
		memset(&dm, 0, sizeof(dm));
		memset(&dd, 0, sizeof(dd));
		for (uint8_t l : r.dlen)
			has_d = has_d || l;
		ok = gpz_decoder_init(&dm, r.mlen.data(), r.alphabet + (uint32_t)NM_EXTRA, 4) ==
		             GPZ_OK &&
		     (!has_d || gpz_decoder_init(&dd, r.dlen.data(), NB, 4) == GPZ_OK);
		dec = { r.alphabet, r.z, &dm, has_d ? &dd : NULL };
	}
	~Decoders()
	{
		gpz_decoder_free(&dm);
		gpz_decoder_free(&dd);
	}
	Decoders(const Decoders &) = delete;
	Decoders &operator=(const Decoders &) = delete;
};

/* The CPU's verdict on a payload: 0 when every chunk decodes; out receives the symbols. */
int cpu_decode(const Ref &r, const std::vector<uint8_t> &pay, const std::vector<uint64_t> &st,
               size_t n, int w, int chunk_log, std::vector<uint8_t> &out)
{
	Decoders d(r);
	int bad = 0;
	if (!d.ok)
		return -1;
	out.assign(n * (size_t)w, 0);
	for (size_t c = 0; c < nchunks_of(n, chunk_log); c++) {
		size_t c0 = c << chunk_log, m = std::min(n - c0, (size_t)1 << chunk_log);
		bad |= gpz_lzs_decode_chunk(&d.dec, pay.data(), pay.size(), st[c], st[c + 1], m, w,
		                            out.data() + c0 * (size_t)w) != GPZ_OK;
	}
	return bad;
}

/* The GPU's verdict on the same (0, 1 corrupt, -1 another error). */
int gpu_decode(const Ref &r, const std::vector<uint8_t> &pay, const std::vector<uint64_t> &st,
               size_t n, int w, int chunk_log, std::vector<uint8_t> &out)
{
	Decoders d(r);
	if (!d.ok)
		return -1;
	uint8_t *d_pay = to_dev(pay), *d_out = NULL;
	uint64_t *d_st = to_dev(st);
	CU(cudaMalloc((void **)&d_out, n * (size_t)w + 1));
	CU(cudaMemset(d_out, 0, n * (size_t)w + 1));
	gpz_result res =
	        gpz_gpu_lzs_decode(&d.dec, d_pay, pay.size(), d_st, n, w, chunk_log, d_out, 0);
	out = from_dev(d_out, n * (size_t)w);
	CU(cudaFree(d_pay));
	CU(cudaFree(d_st));
	CU(cudaFree(d_out));
	return res == GPZ_OK ? 0 : res == GPZ_ERR_CORRUPT ? 1 : -1;
}

uint64_t g_seed = 0x2545f4914f6cdd1dull;

/* Damaged payloads and chunk starts: the same verdict on both, the same output where accepted. */
void corrupt(const Ref &r, size_t n, int w, int chunk_log, const char *what)
{
	for (int t = 0; t < 24; t++) {
		std::vector<uint8_t> pay = r.payload, co, go;
		std::vector<uint64_t> st = r.start;
		uint64_t x = test_rand(&g_seed);
		if (t % 3 != 2 && !pay.empty()) {
			pay[x % pay.size()] ^= (uint8_t)(1u << (x >> 40) % 8);
		} else if (st.size() > 2) {
			size_t c = 1 + (x >> 8) % (st.size() - 2);
			st[c] += (x & 1) ? 1 : -1;
			if (st[c] < st[c - 1] || st[c] > st[c + 1])
				continue;
		}
		int cv = cpu_decode(r, pay, st, n, w, chunk_log, co);
		int gv = gpu_decode(r, pay, st, n, w, chunk_log, go);
		CHECK(cv == gv, "%s: damage %d: CPU verdict %d, GPU %d", what, t, cv, gv);
		if (cv == 0 && gv == 0)
			CHECK(co == go, "%s: damage %d: both accept, outputs differ", what, t);
	}
}

gpz_ctx *g_ctx;      /* CPU, 2 threads */
struct gpz_gpu *g_gpu;

/* Whole frames: gpz_lzs_frame_write_gpu's bytes are gpz_lzs_frame_write's, and
 * gpz_lzs_frame_decode_gpu gives the input back from either. */
void frames(const Ref &r, const std::vector<uint8_t> &in, size_t n, int w, int chunk_log,
            const uint8_t *d_src, const char *what)
{
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = w;
	p.chunk_log = chunk_log;
	p.lz_symbols = 1;
	/* as the library forces them: written when smaller than stored */
	const size_t cap = GPZ_FRAME_FIXED + in.size();
	std::vector<uint8_t> cf(cap), gf;
	size_t cw = 0, gw = 0;
	uint8_t *d_dst = NULL, *d_out = NULL;
	gpz_result cr = gpz_lzs_frame_write(g_ctx, &p, in.data(), n, r.hist.data(), r.alphabet,
	                                    gpz_checksum_threads(in.data(), in.size(), 1), cap,
	                                    cf.data(), cap, &cw);
	CU(cudaMalloc((void **)&d_dst, cap));
	gpz_result gr = gpz_lzs_frame_write_gpu(g_gpu, &p, d_src, n, r.hist.data(), r.alphabet,
	                                        cap, d_dst, cap, &gw, g_gpu->stream);
	CHECK(cr == gr && cw == gw, "%s: frame: CPU %d (%zu bytes), GPU %d (%zu bytes)", what,
	      (int)cr, cw, (int)gr, gw);
	if (cr == GPZ_OK && gr == GPZ_OK && cw == gw && cw) {
		gf = from_dev(d_dst, gw);
		size_t at = 0;
		while (at < cw && gf[at] == cf[at])
			at++;
		CHECK(at == cw, "%s: frames differ from byte %zu of %zu", what, at, cw);
		gpz_block_info info;
		CHECK(gpz_parse_block(cf.data(), cw, &info) == GPZ_OK, "%s: frame parse", what);
		CU(cudaMalloc((void **)&d_out, in.size() + 1));
		uint64_t sum = 0;
		CHECK(gpz_lzs_frame_decode_gpu(g_gpu, d_dst, cf.data(), &info, d_out, &sum,
		                               g_gpu->stream) == GPZ_OK,
		      "%s: frame decode on the GPU", what);
		CHECK(from_dev(d_out, in.size()) == in, "%s: frame decoded on the GPU differs", what);
		CHECK(sum == gpz_load_le64(cf.data() + cw - 8), "%s: stored checksum", what);
		CU(cudaFree(d_out));
	}
	CU(cudaFree(d_dst));
}

/* off: the input starts that many bytes into a device allocation (the kernels' 16-byte and
 * width-aligned loads give way to narrower ones) */
void check(const uint8_t *src, size_t n, int w, int chunk_log, const char *what, bool damage,
           size_t off = 0)
{
	Ref r = cpu_ref(src, n, w, chunk_log);
	const size_t nc = nchunks_of(n, chunk_log), nm = r.alphabet + NM_EXTRA;
	std::vector<uint8_t> in(src, src + n * (size_t)w);
	uint8_t *d_base = NULL, *d_tok = NULL;
	CU(cudaMalloc((void **)&d_base, in.size() + off + 1));
	uint8_t *d_src = d_base + off;
	CU(cudaMemcpy(d_src, in.data(), in.size(), cudaMemcpyHostToDevice));
	uint32_t *d_ntok = NULL;
	CU(cudaMalloc((void **)&d_tok, nc * (size_t)GPZ_LZS_GPU_KEEP(chunk_log, w) * 8 + 8));
	CU(cudaMalloc((void **)&d_ntok, nc * 4 + 4));
	size_t kept = 0;
	/* the passes each tokenizing, then the later ones replaying what the count pass kept */
	for (int keep = 0; keep < 2; keep++) {
		struct gpz_lzs_gpu_src gs = { d_src, n, w, chunk_log, r.alphabet, r.z,
			                      keep ? d_tok : NULL, keep ? d_ntok : NULL };
		uint32_t *d_counts = NULL;
		CU(cudaMalloc((void **)&d_counts, (nm + NB) * sizeof(uint32_t)));
		CHECK(gpz_gpu_lzs_count(&gs, d_counts, 0) == GPZ_OK, "%s: count", what);
		if (keep) {
			std::vector<uint32_t> nt = from_dev(d_ntok, nc);
			for (size_t c = 0; c < nc; c++)
				kept += nt[c] <= GPZ_LZS_GPU_KEEP(chunk_log, w);
		}
		std::vector<uint32_t> gc = from_dev(d_counts, nm + NB);
		size_t diff = 0;
		for (size_t s = 0; s < nm + NB; s++)
			diff += gc[s] != r.counts[s];
		CHECK(diff == 0, "%s: %zu token counts differ", what, diff);
		if (diff) {
			for (size_t s = 0, k = 0; s < nm + NB && k < 8; s++)
				if (gc[s] != r.counts[s] && ++k)
					fprintf(stderr, "  symbol %zu: CPU %u GPU %u\n", s, r.counts[s],
					        gc[s]);
		}
		CU(cudaFree(d_counts));

		if (r.coded) {
			uint8_t *d_ml = to_dev(r.mlen), *d_dl = to_dev(r.dlen);
			uint32_t *d_bits = NULL, *d_mt = to_dev(r.mtab), *d_dt = to_dev(r.dtab);
			uint32_t *d_words = NULL;
			uint64_t *d_st = to_dev(r.start);
			CU(cudaMalloc((void **)&d_bits, nc * sizeof(uint32_t) + 4));
			CHECK(gpz_gpu_lzs_sizes(&gs, d_ml, d_dl, d_bits, 0) == GPZ_OK, "%s: sizes", what);
			std::vector<uint32_t> gb = from_dev(d_bits, nc);
			size_t bad = 0, first = 0;
			for (size_t c = 0; c < nc; c++)
				if (gb[c] != r.chunk_bits[c] && !bad++)
					first = c;
			CHECK(bad == 0, "%s: %zu chunk lengths differ (first: chunk %zu, CPU %u GPU %u)",
			      what, bad, first, bad ? r.chunk_bits[first] : 0, bad ? gb[first] : 0);
			size_t nwords = (size_t)((r.start[nc] + 31) / 32) + 1;
			CU(cudaMalloc((void **)&d_words, nwords * 4));
			CHECK(gpz_gpu_lzs_write(&gs, d_mt, d_dt, d_st, d_words, nwords, 0) == GPZ_OK,
			      "%s: write", what);
			std::vector<uint8_t> gp = from_dev((const uint8_t *)d_words, nwords * 4);
			size_t at = 0;
			while (at < r.payload.size() && gp[at] == r.payload[at])
				at++;
			CHECK(at == r.payload.size(), "%s: payloads differ from byte %zu of %zu", what, at,
			      r.payload.size());
			for (size_t k = r.payload.size(); k < gp.size(); k++)
				CHECK(gp[k] == 0, "%s: byte %zu past the payload is %u", what, k, gp[k]);
			CU(cudaFree(d_ml));
			CU(cudaFree(d_dl));
			CU(cudaFree(d_bits));
			CU(cudaFree(d_mt));
			CU(cudaFree(d_dt));
			CU(cudaFree(d_words));
			CU(cudaFree(d_st));
		}
	}
	CU(cudaFree(d_tok));
	CU(cudaFree(d_ntok));
	if (r.coded) {
		std::vector<uint8_t> co, go;
		CHECK(cpu_decode(r, r.payload, r.start, n, w, chunk_log, co) == 0, "%s: CPU decode",
		      what);
		CHECK(co == in, "%s: CPU decode differs from the input", what);
		CHECK(gpu_decode(r, r.payload, r.start, n, w, chunk_log, go) == 0, "%s: GPU decode",
		      what);
		CHECK(go == in, "%s: GPU decode differs from the input", what);
		if (damage)
			corrupt(r, n, w, chunk_log, what);
		frames(r, in, n, w, chunk_log, d_src, what);
	}
	CU(cudaFree(d_base));
	printf("  %-44s w=%d 2^%-2d n=%-9zu A=%-7u %s, %zu of %zu chunks' tokens kept, at +%zu\n",
	       what, w, chunk_log, n, r.alphabet, r.coded ? "coded" : "one value", kept, nc, off);
}

/* Quantization-like symbols: runs of z, spreads of others, copies of earlier stretches. */
std::vector<uint8_t> make(size_t n, int w, uint32_t z, uint32_t spread, int zero_permille,
                          int copy_permille, uint64_t seed)
{
	std::vector<uint8_t> v(n * (size_t)w);
	uint64_t st = seed;
	for (size_t i = 0; i < n;) {
		uint64_t r = test_rand(&st);
		if (i > 64 && (int)(r % 1000) < copy_permille) { /* a copy, overlapping or not */
			size_t d = 1 + (r >> 10) % std::min<size_t>(i, 4000), len = 4 + (r >> 30) % 300;
			for (size_t k = 0; k < len && i < n; k++, i++)
				gpz_store_symbol(v.data(), i, w, gpz_load_symbol(v.data(), i - d, w));
			continue;
		}
		uint32_t s = (int)((r >> 12) % 1000) < zero_permille
		                     ? z
		                     : (uint32_t)((z + 1 + (r >> 24) % spread) % (spread + z + 1));
		size_t run = 1 + (r >> 50) % 40;
		for (size_t k = 0; k < run && i < n; k++, i++)
			gpz_store_symbol(v.data(), i, w, s);
	}
	return v;
}

void edge(void)
{
	printf("edge inputs\n");
	const int logs[] = { 8, 10, 14, 16 };
	std::vector<uint8_t> one(100000 * 2);
	for (size_t i = 0; i < 100000; i++)
		gpz_store_le16(&one[2 * i], 7);
	check(one.data(), 100000, 2, 10, "one value", false);
	one[2 * 5000] = 9; /* one other symbol */
	check(one.data(), 100000, 2, 10, "one value and one other", true);
	for (int w : { 1, 2, 4 }) {
		for (int cl : logs) {
			uint32_t spread = w == 1 ? 200 : 3000;
			for (size_t n : { (size_t)1, (size_t)2, (size_t)31, (size_t)33, (size_t)255,
			                  (size_t)4097, (size_t)300001 }) {
				std::vector<uint8_t> v = make(n, w, w == 1 ? 40 : 1000, spread, 700, 5,
				                              n * 131 + (size_t)cl * 7 + (size_t)w);
				char what[96];
				snprintf(what, sizeof what, "quant-like");
				check(v.data(), n, w, cl, what, n == 300001 && cl == 10);
			}
			std::vector<uint8_t> alt = make(200000, w, 3, 2, 500, 0, 99 + (uint64_t)cl);
			check(alt.data(), 200000, w, cl, "alternating runs", false);
			/* long runs of z (the 512-byte test) off 16-byte and off width alignment */
			std::vector<uint8_t> zr = make(300000, w, 7, 50, 995, 20, 3 + (uint64_t)cl);
			for (size_t off : { (size_t)0, (size_t)w, (size_t)3 })
				check(zr.data(), 300000, w, cl, "runs of z", false, off);
			std::vector<uint8_t> cp = make(200000, w, 5, w == 1 ? 250 : 60000, 300, 200,
			                               17 + (uint64_t)cl);
			check(cp.data(), 200000, w, cl, "copies", cl == 14);
		}
	}
	/* the largest alphabet: 4-byte symbols up to 2^20 - 97 */
	size_t n = 600000;
	std::vector<uint8_t> big(n * 4);
	uint64_t st = 5;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = test_rand(&st);
		uint32_t s = r % 3 ? 12345 : (uint32_t)((r >> 20) % (GPZ_MAX_ALPHABET - GPZ_LZS_EXTRA));
		gpz_store_le32(&big[4 * i], i == 77 ? GPZ_MAX_ALPHABET - GPZ_LZS_EXTRA - 1 : s);
	}
	check(big.data(), n, 4, 14, "largest alphabet", true);
}

void files(void)
{
	const char *dir = test_data_dir();
	if (!dir) {
		printf("SKIP corpora: no prepared data (corpora/prepare.sh)\n");
		return;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/quant", dir);
	DIR *d = opendir(path);
	std::vector<std::string> names;
	for (struct dirent *e; d && (e = readdir(d));)
		if (strstr(e->d_name, ".u16"))
			names.push_back(std::string(path) + "/" + e->d_name);
	if (d)
		closedir(d);
	names.push_back(std::string(dir) + "/nyx/baryon_density.dat.b16");
	printf("prepared files (%zu)\n", names.size());
	for (const std::string &f : names) {
		size_t size = 0;
		uint8_t *b = test_read_file(f.c_str(), &size);
		if (!b)
			continue;
		const char *base = strrchr(f.c_str(), '/');
		check(b, size / 2, 2, GPZ_DEFAULT_CHUNK_LOG, base + 1, false);
		free(b);
	}
}

double ms_since(cudaEvent_t a, cudaEvent_t b)
{
	float ms = 0;
	CU(cudaEventElapsedTime(&ms, a, b));
	return ms;
}

double now_s()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The whole device API on v (device copy d_src, freed here): gpz_compress_device with LZ-symbol
 * frames (forced, then automatic) in one frame and in 64 MiB frames, gpz_decompress_device back,
 * the bytes checked; median of 5 after a warm-up. */
void pipeline(const std::vector<uint8_t> &v, uint8_t *d_src, int w)
{
	gpz_ctx *ctx = NULL;
	if (gpz_ctx_create(&ctx, GPZ_BACKEND_GPU, 0) != GPZ_OK) {
		CHECK(false, "bench: no GPU context");
		return;
	}
	const size_t size = v.size();
	uint8_t *d_c = NULL, *d_back = NULL;
	for (int mode = 0; mode < 4; mode++) {
		gpz_params p;
		gpz_params_default(&p);
		p.symbol_bytes = w;
		p.lz_symbols = mode & 1 ? GPZ_LZS_AUTO : 1;
		p.frame_bytes = mode < 2 ? GPZ_MAX_FRAME_BYTES : (size_t)64 << 20;
		size_t cap = gpz_compress_bound(size, &p), got = 0, nb = 0;
		CU(cudaMalloc((void **)&d_c, cap));
		CU(cudaMalloc((void **)&d_back, size));
		std::vector<double> tc, td;
		gpz_result rc = GPZ_OK, rd = GPZ_OK;
		for (int it = 0; it < 6; it++) {
			double t0 = now_s();
			gpz_result x = gpz_compress_device(ctx, &p, d_src, size, d_c, cap, &got, NULL);
			CU(cudaDeviceSynchronize());
			double t1 = now_s();
			gpz_result y = gpz_decompress_device(ctx, d_c, got, d_back, size, &nb, NULL);
			CU(cudaDeviceSynchronize());
			double t2 = now_s();
			rc = x != GPZ_OK ? x : rc;
			rd = y != GPZ_OK ? y : rd;
			if (it) {
				tc.push_back(t1 - t0);
				td.push_back(t2 - t1);
			}
		}
		CHECK(rc == GPZ_OK && rd == GPZ_OK, "bench pipeline: %s / %s", gpz_result_string(rc),
		      gpz_result_string(rd));
		CHECK(nb == size && from_dev(d_back, size) == v, "bench pipeline: round trip differs");
		std::sort(tc.begin(), tc.end());
		std::sort(td.begin(), td.end());
		printf("  device API, lz_symbols %s, %s frames: ratio %.1f, compress %.3f ms (%.0f GB/s), "
		       "decompress %.3f ms (%.0f GB/s)\n",
		       mode & 1 ? "auto" : "1", mode < 2 ? "1 GiB" : "64 MiB", (double)size / (double)got,
		       tc[2] * 1e3, (double)size / tc[2] / 1e9, td[2] * 1e3,
		       (double)size / td[2] / 1e9);
		CU(cudaFree(d_c));
		CU(cudaFree(d_back));
	}
	CU(cudaFree(d_src));
	gpz_ctx_free(ctx);
}

/* The GPU passes on a file tiled to 1 GiB (w-byte symbols), the CPU's code lengths and tables
 * (made once from the counts, as the host would), payload checked against the CPU's first. */
void bench(const char *file, int w)
{
	size_t size = 0;
	uint8_t *b = test_read_file(file, &size);
	if (!b || size < 4) {
		printf("bench: cannot read %s\n", file);
		test_failures++;
		return;
	}
	size_t n0 = size / (size_t)w, n = ((size_t)1 << 30) / (size_t)w / n0 * n0; /* ~1 GiB */
	std::vector<uint8_t> v(n * (size_t)w);
	for (size_t k = 0; k < n; k += n0)
		memcpy(&v[(size_t)w * k], b, (size_t)w * n0);
	free(b);
	const int cl = GPZ_DEFAULT_CHUNK_LOG;
	Ref r = cpu_ref(v.data(), n, w, cl);
	if (!r.coded)
		return;
	const size_t nc = nchunks_of(n, cl), nm = r.alphabet + NM_EXTRA;
	uint8_t *d_src = to_dev(v), *d_ml = to_dev(r.mlen), *d_dl = to_dev(r.dlen), *d_out = NULL;
	uint32_t *d_counts = NULL, *d_bits = NULL, *d_mt = to_dev(r.mtab), *d_dt = to_dev(r.dtab);
	uint32_t *d_words = NULL;
	uint64_t *d_st = to_dev(r.start);
	size_t nwords = (size_t)((r.start[nc] + 31) / 32) + 1;
	CU(cudaMalloc((void **)&d_counts, (nm + NB) * 4));
	CU(cudaMalloc((void **)&d_bits, nc * 4));
	CU(cudaMalloc((void **)&d_words, nwords * 4));
	CU(cudaMalloc((void **)&d_out, n * (size_t)w));
	uint8_t *d_tok = NULL;
	uint32_t *d_ntok = NULL;
	CU(cudaMalloc((void **)&d_tok, nc * (size_t)GPZ_LZS_GPU_KEEP(cl, w) * 8));
	CU(cudaMalloc((void **)&d_ntok, nc * 4));
	struct gpz_lzs_gpu_src gs = { d_src, n, w, cl, r.alphabet, r.z, d_tok, d_ntok };
	cudaEvent_t e[5];
	for (cudaEvent_t &x : e)
		CU(cudaEventCreate(&x));
	double best[4] = { 1e30, 1e30, 1e30, 1e30 };
	for (int it = 0; it < 6; it++) {
		CU(cudaEventRecord(e[0]));
		CHECK(gpz_gpu_lzs_count(&gs, d_counts, 0) == GPZ_OK, "bench count");
		CU(cudaEventRecord(e[1]));
		CHECK(gpz_gpu_lzs_sizes(&gs, d_ml, d_dl, d_bits, 0) == GPZ_OK, "bench sizes");
		CU(cudaEventRecord(e[2]));
		CHECK(gpz_gpu_lzs_write(&gs, d_mt, d_dt, d_st, d_words, nwords, 0) == GPZ_OK,
		      "bench write");
		CU(cudaEventRecord(e[3]));
		CU(cudaEventSynchronize(e[3]));
		std::vector<uint8_t> go;
		uint8_t *d_pay = (uint8_t *)d_words;
		Decoders dd(r);
		cudaEvent_t d0, d1;
		CU(cudaEventCreate(&d0));
		CU(cudaEventCreate(&d1));
		CU(cudaEventRecord(d0));
		CHECK(gpz_gpu_lzs_decode(&dd.dec, d_pay, r.payload.size(), d_st, n, w, cl, d_out, 0) ==
		              GPZ_OK,
		      "bench decode");
		CU(cudaEventRecord(d1));
		CU(cudaEventSynchronize(d1));
		best[0] = std::min(best[0], ms_since(e[0], e[1]));
		best[1] = std::min(best[1], ms_since(e[1], e[2]));
		best[2] = std::min(best[2], ms_since(e[2], e[3]));
		best[3] = std::min(best[3], ms_since(d0, d1));
		if (it == 0) {
			std::vector<uint8_t> gp = from_dev((const uint8_t *)d_words, r.payload.size());
			CHECK(gp == r.payload, "bench: payload differs from the CPU's");
			go = from_dev(d_out, n * (size_t)w);
			CHECK(go == v, "bench: decode differs from the input");
		}
	}
	double gb = (double)n * w / 1e9;
	printf("bench %s x%zu (%.2f GB, ratio %.1f, %zu chunks): best of 6, ms (GB/s of input)\n",
	       file, n / n0, gb, (double)n * w / (double)r.payload.size(), nc);
	printf("  count %.3f (%.0f)  sizes %.3f (%.0f)  write %.3f (%.0f)  three passes %.3f (%.0f)"
	       "  decode %.3f (%.0f)\n",
	       best[0], gb / best[0] * 1e3, best[1], gb / best[1] * 1e3, best[2],
	       gb / best[2] * 1e3, best[0] + best[1] + best[2],
	       gb / (best[0] + best[1] + best[2]) * 1e3, best[3], gb / best[3] * 1e3);
	CU(cudaFree(d_ml));
	CU(cudaFree(d_dl));
	CU(cudaFree(d_out));
	CU(cudaFree(d_counts));
	CU(cudaFree(d_bits));
	CU(cudaFree(d_mt));
	CU(cudaFree(d_dt));
	CU(cudaFree(d_words));
	CU(cudaFree(d_st));
	CU(cudaFree(d_tok));
	CU(cudaFree(d_ntok));
	pipeline(v, d_src, w);
}

} // namespace

int main(int argc, char **argv)
{
	if (!gpu_test_start())
		return TEST_SKIP;
	if (gpz_ctx_create(&g_ctx, GPZ_BACKEND_CPU, 2) != GPZ_OK || gpz_gpu_open(&g_gpu, 0) != GPZ_OK) {
		printf("FAILED: cannot create the CPU context or open the GPU\n");
		return 1;
	}
	if (argc > 2 && !strcmp(argv[1], "bench")) {
		bench(argv[2], argc > 3 ? atoi(argv[3]) : 2);
	} else {
		edge();
		files();
	}
	gpz_gpu_close(g_gpu);
	gpz_ctx_free(g_ctx);
	if (test_failures) {
		printf("FAILED: %d checks\n", test_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
