/*
 * bench_gpu.cu - `gpz-bench --gpu`: times the GPU stages on device-resident data, each input
 * tiled to 1 GiB (far larger than L2), with CUDA events, median of the runs after a warm-up.
 * Throughput is input bytes per second. Columns follow the paper's table (average bits, histogram,
 * codebook, encode, histogram + encode) plus decode, the whole device pipeline (compress and
 * decompress through the device API, one 1 GiB frame) and the device's copy bandwidth.
 *
 * The encoder places codes by a block scan, so no unit can overflow. For comparison the paper's
 * encoder (encode_paper.cu: reduce-merge into 32-bit units, then shuffle-merge) runs too, with r
 * chosen from the average code length as in the paper: its output must equal the scan encoder's
 * byte for byte (at M = 10 and at the bench's chunk_log when it supports it; "MISMATCH" and exit 1
 * otherwise). "r" and "breaking units %" (units of 2^r codes longer than 32 bits, which it
 * re-encodes in a fallback kernel) are its; "paper encode GB/s (M=10)" times it on 1024-symbol
 * chunks, the paper's choice.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>
#include <algorithm>

#include "gpz.h"
#include "common/checksum_gpu.h"
#include "huffman/huffman_gpu.h"
#include "bench_kernels.h"
#include "bench_cuda.h"

static double host_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint8_t *read_tiled(const char *path, size_t target, int w, size_t *size, size_t *orig)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (n <= 0) {
		fclose(f);
		return NULL;
	}
	size_t fn = (size_t)n - (size_t)n % (size_t)w;
	uint8_t *buf = (uint8_t *)malloc(target > fn ? target : fn);
	if (fread(buf, 1, fn, f) != fn) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	size_t have = fn;
	while (have < target) {
		size_t k = std::min(fn, target - have);
		memcpy(buf + have, buf, k);
		have += k;
	}
	*size = std::min(have, target) - std::min(have, target) % (size_t)w;
	*orig = fn;
	return buf;
}

struct gpu_row {
	double bits, hist, code_host, code_gpu, enc, dec, sum;
	double pipe_c[2], pipe_d[2]; /* the payload layouts: a bitstream a chunk, lanes */
	double enc_shape[GPZ_GPU_ENCODE_SHAPES]; /* each block shape of the encoder */
	int code_same; /* GPU lengths == CPU unlimited lengths */
	int paper_r;         /* the paper encoder's r (-1: not run) */
	double paper, paper_break; /* its time at M = 10; breaking units, % of units */
	uint32_t used;
	size_t compressed[2];
	int ok;
};

/* Codebook built on the host from the device histogram (counts down, table up). */
static double codebook_host(const uint32_t *d_counts, uint32_t alphabet, uint32_t *d_table,
                            int runs, uint8_t *len, int *max_len)
{
	std::vector<uint32_t> counts(alphabet), code(alphabet), table(alphabet);
	std::vector<double> t;
	for (int i = 0; i <= runs; i++) {
		double t0 = host_now();
		CK(cudaMemcpy(counts.data(), d_counts, alphabet * 4, cudaMemcpyDeviceToHost));
		*max_len = gpz_code_lengths(counts.data(), alphabet, GPZ_MAX_CODE_LEN, len);
		gpz_canonical_codes(len, alphabet, code.data());
		gpz_encoder_table(len, code.data(), alphabet, table.data());
		CK(cudaMemcpy(d_table, table.data(), alphabet * 4, cudaMemcpyHostToDevice));
		if (i)
			t.push_back(host_now() - t0);
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

/* The paper's encoder (encode_paper.cu) at chunk_log cl and reduction factor pr: its chunk bit
 * lengths and payload must equal gpz_gpu_encode's at the same chunk_log byte for byte, else
 * "MISMATCH" and exit 1. With runs > 0 returns its median time (timed with stats = NULL, which
 * keeps it asynchronous); 0 when cl is not supported. *st receives its stats. */
static double paper_encode(const uint8_t *d_src, size_t n, int w, const uint32_t *d_table,
                           uint32_t alphabet, int max_len, int cl, int pr, uint64_t bits,
                           int runs, gpz_paper_stats *st)
{
	size_t nchunks = (n + ((size_t)1 << cl) - 1) >> cl, pbytes = (size_t)((bits + 7) / 8);
	size_t rwork = gpz_gpu_encode_work(n, cl, max_len);
	size_t pwork = gpz_gpu_encode_paper_work(n, cl, max_len);
	uint8_t *d_ref, *d_pay;
	uint32_t *d_rbits, *d_pbits;
	void *d_rw, *d_pw;
	double t = 0;

	CK(cudaMalloc(&d_ref, pbytes + 64));
	CK(cudaMalloc(&d_pay, pbytes + 64));
	CK(cudaMalloc(&d_rbits, nchunks * 4));
	CK(cudaMalloc(&d_pbits, nchunks * 4));
	CK(cudaMalloc(&d_rw, rwork));
	CK(cudaMalloc(&d_pw, pwork ? pwork : 256));
	CK(cudaMemset(d_ref, 0, pbytes + 64));
	gpz_result e = gpz_gpu_encode(d_src, n, w, d_table, alphabet, max_len, cl, d_rbits, d_ref,
	                              d_rw, rwork, 0);
	if (e != GPZ_OK) {
		fprintf(stderr, "gpz-bench: gpz_gpu_encode (chunk_log %d): %s\n", cl,
		        gpz_result_string(e));
		exit(1);
	}
	std::vector<uint8_t> ref(pbytes), got(pbytes);
	std::vector<uint32_t> rb(nchunks), pb(nchunks);
	CK(cudaMemcpy(ref.data(), d_ref, pbytes, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(rb.data(), d_rbits, nchunks * 4, cudaMemcpyDeviceToHost));
	auto check = [&](const char *when) {
		CK(cudaMemcpy(got.data(), d_pay, pbytes, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(pb.data(), d_pbits, nchunks * 4, cudaMemcpyDeviceToHost));
		if (got != ref || pb != rb) {
			size_t i = 0, c = 0;
			while (i < pbytes && got[i] == ref[i])
				i++;
			while (c < nchunks && pb[c] == rb[c])
				c++;
			printf("MISMATCH: paper encoder (chunk_log %d, r %d, %s): payload differs from byte "
			       "%zu of %zu, chunk bits from chunk %zu of %zu\n",
			       cl, pr, when, i, pbytes, c, nchunks);
			exit(1);
		}
	};
	CK(cudaMemset(d_pay, 0xa5, pbytes + 64));
	e = gpz_gpu_encode_paper(d_src, n, w, d_table, alphabet, max_len, cl, pr, d_pbits, d_pay,
	                         d_pw, pwork, 0, st);
	if (e == GPZ_OK) {
		check("first run");
		if (runs > 0) {
			CK(cudaMemset(d_pay, 0xa5, pbytes + 64));
			t = time_median(runs, [&] {
				gpz_gpu_encode_paper(d_src, n, w, d_table, alphabet, max_len, cl, pr, d_pbits,
				                     d_pay, d_pw, pwork, 0, NULL);
			});
			check("timed runs");
		}
	} else if (e != GPZ_ERR_PARAM) {
		fprintf(stderr, "gpz-bench: paper encoder (chunk_log %d, r %d): %s\n", cl, pr,
		        gpz_result_string(e));
		exit(1);
	} else {
		fprintf(stderr, "gpz-bench: paper encoder: chunk_log %d with r %d not supported\n", cl,
		        pr);
	}
	CK(cudaFree(d_ref));
	CK(cudaFree(d_pay));
	CK(cudaFree(d_rbits));
	CK(cudaFree(d_pbits));
	CK(cudaFree(d_rw));
	CK(cudaFree(d_pw));
	return t;
}

static gpu_row bench_one(gpz_ctx *ctx, const uint8_t *h, size_t size, int w, int chunk_log,
                         int runs)
{
	gpu_row r = {};
	r.paper_r = -1;
	size_t n = size / (size_t)w, nchunks = (n + ((size_t)1 << chunk_log) - 1) >> chunk_log;
	uint32_t limit = gpz_alphabet_limit(w), stats[2];
	uint8_t *d_src, *d_payload, *d_out, *d_c, *d_back;
	uint32_t *d_counts, *d_stats, *d_table, *d_bits;
	uint64_t *d_starts;
	void *d_work;
	size_t work = gpz_gpu_encode_work(n, chunk_log, GPZ_MAX_CODE_LEN);

	CK(cudaMalloc(&d_src, size + 16));
	CK(cudaMalloc(&d_counts, limit * 4));
	CK(cudaMalloc(&d_stats, 8));
	CK(cudaMalloc(&d_table, limit * 4));
	CK(cudaMalloc(&d_bits, nchunks * 4));
	CK(cudaMalloc(&d_payload, n * 3 + 64));
	CK(cudaMalloc(&d_out, size + 16));
	CK(cudaMalloc(&d_starts, (nchunks + 1) * 8));
	CK(cudaMalloc(&d_work, work));
	CK(cudaMemcpy(d_src, h, size, cudaMemcpyHostToDevice));

	r.hist = time_median(runs, [&] { gpz_gpu_histogram(d_src, n, w, d_counts, d_stats, 0); });
	CK(cudaMemcpy(stats, d_stats, 8, cudaMemcpyDeviceToHost));
	uint32_t alphabet = stats[0] + 1;
	std::vector<uint32_t> counts(alphabet);
	CK(cudaMemcpy(counts.data(), d_counts, alphabet * 4, cudaMemcpyDeviceToHost));
	for (uint32_t s = 0; s < alphabet; s++)
		r.used += counts[s] != 0;
	if (stats[1] || r.used < 2)
		return r;
	std::vector<uint8_t> len(alphabet);
	int max_len = 0;
	r.code_host = codebook_host(d_counts, alphabet, d_table, runs, len.data(), &max_len);
	{ /* the same codebook built on the GPU (codebook.cu): lengths, then canonical codes */
		size_t lw = gpz_gpu_code_lengths_work(alphabet), cw = gpz_gpu_canonical_work(alphabet);
		uint8_t *d_len;
		int *d_max;
		void *d_lw = NULL, *d_cw = NULL;
		CK(cudaMalloc(&d_len, alphabet));
		CK(cudaMalloc(&d_max, sizeof(int)));
		if (lw)
			CK(cudaMalloc(&d_lw, lw));
		if (cw)
			CK(cudaMalloc(&d_cw, cw));
		r.code_gpu = time_median(runs, [&] {
			gpz_gpu_code_lengths(d_counts, alphabet, d_len, d_max, d_lw, lw, 0);
			if (max_len <= GPZ_MAX_CODE_LEN)
				gpz_gpu_canonical(d_len, alphabet, d_table, d_cw, cw, 0);
		});
		std::vector<uint8_t> glen(alphabet);
		CK(cudaMemcpy(glen.data(), d_len, alphabet, cudaMemcpyDeviceToHost));
		std::vector<uint8_t> ulen(alphabet);
		gpz_code_lengths(counts.data(), alphabet, 0, ulen.data());
		r.code_same = memcmp(glen.data(), ulen.data(), alphabet) == 0;
		/* the encoder below uses the host-built (limited) table */
		std::vector<uint32_t> code(alphabet), table(alphabet);
		gpz_canonical_codes(len.data(), alphabet, code.data());
		gpz_encoder_table(len.data(), code.data(), alphabet, table.data());
		CK(cudaMemcpy(d_table, table.data(), alphabet * 4, cudaMemcpyHostToDevice));
		CK(cudaFree(d_len));
		CK(cudaFree(d_max));
		CK(cudaFree(d_lw));
		CK(cudaFree(d_cw));
	}
	uint64_t bits = gpz_coded_bits(counts.data(), len.data(), alphabet);
	r.bits = (double)bits / (double)n;
	size_t words = (size_t)((bits + 31) / 32);
	r.enc = time_median(runs, [&] {
		gpz_gpu_encode(d_src, n, w, d_table, alphabet, max_len, chunk_log, d_bits, d_payload,
		               d_work, work, 0);
	});
	{ /* the other block shapes: the same bytes, and their speed */
		std::vector<uint8_t> ref(words * 4), alt(words * 4);
		std::vector<uint32_t> rb(nchunks), ab(nchunks);
		CK(cudaMemcpy(ref.data(), d_payload, (bits + 7) / 8, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(rb.data(), d_bits, nchunks * 4, cudaMemcpyDeviceToHost));
		for (int sh = 0; sh < GPZ_GPU_ENCODE_SHAPES; sh++) {
			CK(cudaMemset(d_payload, 0xa5, words * 4));
			r.enc_shape[sh] = time_median(runs, [&] {
				gpz_gpu_encode_shape(d_src, n, w, d_table, alphabet, max_len, chunk_log, d_bits,
				                     d_payload, d_work, work, sh, 0);
			});
			CK(cudaMemcpy(alt.data(), d_payload, (bits + 7) / 8, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(ab.data(), d_bits, nchunks * 4, cudaMemcpyDeviceToHost));
			if (memcmp(ref.data(), alt.data(), (bits + 7) / 8) || rb != ab) {
				fprintf(stderr, "gpz-bench: encoder shape %d: MISMATCH\n", sh);
				exit(1);
			}
		}
		/* the default shape wrote last in the decode check below */
		gpz_gpu_encode(d_src, n, w, d_table, alphabet, max_len, chunk_log, d_bits, d_payload,
		               d_work, work, 0);
		uint64_t *d_sum;
		CK(cudaMalloc(&d_sum, 8));
		r.sum = time_median(runs, [&] { gpz_gpu_checksum(d_src, size, d_sum, 0); });
		CK(cudaFree(d_sum));
	}
	{ /* the paper's encoder, r from the average code length (same bytes, checked) */
		gpz_paper_stats ps = {};
		r.paper_r = gpz_paper_choose_r(r.bits);
		r.paper = paper_encode(d_src, n, w, d_table, alphabet, max_len, 10, r.paper_r, bits, runs,
		                       &ps);
		r.paper_break = ps.units ? 100.0 * (double)ps.breaking / (double)ps.units : 0;
		if (chunk_log != 10)
			paper_encode(d_src, n, w, d_table, alphabet, max_len, chunk_log, r.paper_r, bits, 0,
			             NULL);
	}
	/* decode: chunk starts from the encoder's chunk lengths */
	std::vector<uint32_t> cb(nchunks);
	std::vector<uint64_t> starts(nchunks + 1, 0);
	CK(cudaMemcpy(cb.data(), d_bits, nchunks * 4, cudaMemcpyDeviceToHost));
	for (size_t c = 0; c < nchunks; c++)
		starts[c + 1] = starts[c] + cb[c];
	CK(cudaMemcpy(d_starts, starts.data(), (nchunks + 1) * 8, cudaMemcpyHostToDevice));
	gpz_decoder dec;
	gpz_decoder_init(&dec, len.data(), alphabet, w);
	gpz_result dr = GPZ_OK;
	r.dec = time_median(runs, [&] {
		gpz_result x = gpz_gpu_decode(&dec, d_payload, (size_t)((bits + 7) / 8), d_starts, n,
		                              w, chunk_log, d_out, 0);
		if (x != GPZ_OK)
			dr = x;
	});
	gpz_decoder_free(&dec);
	std::vector<uint8_t> back(size);
	CK(cudaMemcpy(back.data(), d_out, size, cudaMemcpyDeviceToHost));
	r.ok = dr == GPZ_OK && memcmp(back.data(), h, size) == 0;
	CK(cudaFree(d_work));
	CK(cudaFree(d_payload));

	/* the whole pipeline through the device API, one frame of the whole input */
	gpz_params p;
	gpz_params_default(&p);
	p.symbol_bytes = w;
	p.chunk_log = chunk_log;
	p.frame_bytes = GPZ_MAX_FRAME_BYTES;
	size_t cap = gpz_compress_bound(size, &p), got = 0, nb = 0;
	CK(cudaMalloc(&d_c, cap));
	CK(cudaMalloc(&d_back, size + 16));
	gpz_result pr = GPZ_OK;
	/* both payload layouts: a bitstream a chunk, then lanes (gpz_params.huff_lanes) */
	for (int lanes = 0; lanes < 2; lanes++) {
		p.huff_lanes = lanes;
		r.pipe_c[lanes] = time_median(runs, [&] {
			gpz_result x = gpz_compress_device(ctx, &p, d_src, size, d_c, cap, &got, NULL);
			if (x != GPZ_OK)
				pr = x;
		});
		r.pipe_d[lanes] = time_median(runs, [&] {
			gpz_result x = gpz_decompress_device(ctx, d_c, got, d_back, size, &nb, NULL);
			if (x != GPZ_OK)
				pr = x;
		});
		r.compressed[lanes] = got;
		CK(cudaMemcpy(back.data(), d_back, size, cudaMemcpyDeviceToHost));
		r.ok &= pr == GPZ_OK && nb == size && memcmp(back.data(), h, size) == 0;
	}
	if (pr != GPZ_OK)
		fprintf(stderr, "gpz-bench: device pipeline: %s\n", gpz_result_string(pr));
	CK(cudaFree(d_c));
	CK(cudaFree(d_back));
	CK(cudaFree(d_src));
	CK(cudaFree(d_counts));
	CK(cudaFree(d_stats));
	CK(cudaFree(d_table));
	CK(cudaFree(d_bits));
	CK(cudaFree(d_out));
	CK(cudaFree(d_starts));
	return r;
}

static double copy_bandwidth(size_t bytes, int runs)
{
	void *a, *b;
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 1, bytes));
	double t = time_median(runs, [&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
	CK(cudaFree(a));
	CK(cudaFree(b));
	return 2.0 * (double)bytes / t;
}

extern "C" int gpz_bench_gpu(int argc, char **argv, int w, int chunk_log, int runs)
{
	cudaDeviceProp prop;
	gpz_ctx *ctx;
	int failed = 0;
	size_t target = (size_t)1 << 30;

	if (!gpz_gpu_usable() || gpz_ctx_create(&ctx, GPZ_BACKEND_GPU, 0) != GPZ_OK) {
		fprintf(stderr, "gpz-bench: no usable GPU\n");
		return 1;
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("GPU backend on %s (%d SMs), %d-byte symbols, chunk 2^%d, inputs tiled to 1 GiB on "
	       "the device, median of %d runs; GB/s of input bytes.\n",
	       prop.name, prop.multiProcessorCount, w, chunk_log, runs);
	printf("Device-to-device copy: %.0f GB/s (bytes read + written).\n\n",
	       copy_bandwidth(target, runs) / 1e9);
	printf("| file | tiled bytes | symbols used | avg bits | r | breaking units %% | "
	       "histogram GB/s | codebook us (host) | codebook us (GPU) | encode GB/s | "
	       "paper encode GB/s (M=10) | "
	       "hist+encode GB/s | decode GB/s | pipeline compress GB/s | "
	       "pipeline decompress GB/s | ratio | lanes: pipeline compress GB/s | "
	       "lanes: pipeline decompress GB/s | lanes: ratio | ok | encode GB/s, shapes 0-16 | "
	       "checksum GB/s |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	       "---:|---:|---|---:|---:|\n");
	for (int i = 0; i < argc; i++) {
		size_t size, orig;
		uint8_t *h = read_tiled(argv[i], target, w, &size, &orig);
		if (!h) {
			fprintf(stderr, "gpz-bench: %s: cannot read\n", argv[i]);
			failed = 1;
			continue;
		}
		gpu_row r = bench_one(ctx, h, size, w, chunk_log, runs);
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		char pr[16] = "-", pb[32] = "-", pg[32] = "-";
		if (r.paper_r >= 0) {
			snprintf(pr, sizeof(pr), "%d", r.paper_r);
			snprintf(pb, sizeof(pb), "%.6f", r.paper_break);
			snprintf(pg, sizeof(pg), "%.0f", gbs(size, r.paper));
		}
		char shapes[1024] = "";
		for (int sh = 0; sh < GPZ_GPU_ENCODE_SHAPES; sh++)
			snprintf(shapes + strlen(shapes), sizeof(shapes) - strlen(shapes), "%s%.0f",
			         sh ? ", " : "", gbs(size, r.enc_shape[sh]));
		printf("| %s | %zu | %u | %.4f | %s | %s | %.0f | %.1f | %.1f%s | %.0f | %s | %.0f | %.0f | "
		       "%.0f | %.0f | %.4f | %.0f | %.0f | %.4f | %s | %s | %.0f |\n",
		       name, size, r.used, r.bits, pr, pb, gbs(size, r.hist), r.code_host * 1e6,
		       r.code_gpu * 1e6, r.code_same ? "" : " (DIFFERS)",
		       gbs(size, r.enc), pg, gbs(size, r.hist + r.enc), gbs(size, r.dec),
		       gbs(size, r.pipe_c[0]), gbs(size, r.pipe_d[0]),
		       size ? (double)r.compressed[0] / (double)size : 0, gbs(size, r.pipe_c[1]),
		       gbs(size, r.pipe_d[1]), size ? (double)r.compressed[1] / (double)size : 0,
		       r.ok ? "yes" : "NO", shapes, gbs(size, r.sum));
		fflush(stdout);
		failed |= (!r.ok || !r.code_same) && r.used >= 2;
		free(h);
	}
	gpz_ctx_free(ctx);
	return failed;
}
