/*
 * bench_gpu_inflate.cu - `gpz-bench --gpu --inflate`: decompression of what gpz writes, each
 * input tiled to 1 GiB. Per level: the gzip stream (with the piece index, written by the GPU
 * backend) decoded on the device by gpz_inflate_device (the whole call: header, pieces, the
 * window pass, CRC-32, trailer), its two kernels alone (pieces into 16-bit symbols, then
 * bytes) and the CRC-32 of the output alone; the .gpz LZ frames of the same level (1 GiB frames) by gpz_decompress_device; then
 * on the host, gpz_inflate on the GPU context (staged through the device) and on the CPU with
 * -T threads and with one, and zlib on one thread.
 * GB/s of output bytes; medians of CUDA-event timings after a warm-up (device) or wall clock
 * (host, fewer runs). Every output is compared with the input. With GPZ_BENCH_SAVE=DIR the
 * gzip streams are written to DIR/NAME.L<level>.gz, for nvCOMP's decoder on the same bytes.
 * With GPZ_BENCH_DEVICE_ONLY set, the host columns are left out (0): a quick look at the kernels.
 * GPZ_BENCH_INFLATE_MIB=N tiles to N MiB instead (past 1 GiB the device call takes several
 * batches of pieces).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>
#include <zlib.h>

#include "gpz.h"
#include "common/checksum_gpu.h"
#include "deflate/deflate.h"
#include "deflate/deflate_gpu.h"
#include "bench_cuda.h"

namespace {

double now()
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

template <class F> double wall_median(int runs, F f)
{
	std::vector<double> t;
	for (int i = 0; i < runs; i++) {
		double a = now();
		f();
		t.push_back(now() - a);
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

/* zlib, one thread, the whole stream (gzip, so inflateInit2 with 31). */
size_t zlib_inflate(const std::vector<uint8_t> &c, std::vector<uint8_t> &out)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	inflateInit2(&z, 31);
	z.next_in = (Bytef *)c.data();
	z.next_out = out.data();
	size_t in_left = c.size(), out_left = out.size();
	int zr = Z_OK;
	while (zr == Z_OK) {
		z.avail_in = (uInt)std::min(in_left, (size_t)1 << 30);
		z.avail_out = (uInt)std::min(out_left, (size_t)1 << 30);
		uInt ai = z.avail_in, ao = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		in_left -= ai - z.avail_in;
		out_left -= ao - z.avail_out;
		if (ai == z.avail_in && ao == z.avail_out)
			break;
	}
	size_t n = zr == Z_STREAM_END ? out.size() - out_left : 0;
	inflateEnd(&z);
	return n;
}

} // namespace

extern "C" int gpz_bench_gpu_inflate(int argc, char **argv, int runs, int threads, int only)
{
	const char *mib = getenv("GPZ_BENCH_INFLATE_MIB");
	const size_t target = mib ? (size_t)strtoull(mib, NULL, 10) << 20 : (size_t)1 << 30;
	cudaDeviceProp prop;
	gpz_ctx *gpu, *cpu, *cpu1;
	int failed = 0;
	const char *save = getenv("GPZ_BENCH_SAVE");
	const bool host = getenv("GPZ_BENCH_DEVICE_ONLY") == NULL;

	if (!gpz_gpu_usable() || gpz_ctx_create(&gpu, GPZ_BACKEND_GPU, threads) != GPZ_OK ||
	    gpz_ctx_create(&cpu, GPZ_BACKEND_CPU, threads) != GPZ_OK ||
	    gpz_ctx_create(&cpu1, GPZ_BACKEND_CPU, 1) != GPZ_OK) {
		fprintf(stderr, "gpz-bench: no usable GPU\n");
		return 1;
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("Inflate on %s (%d SMs), inputs tiled to 1 GiB; GB/s of output bytes. device = "
	       "gpz_inflate_device (median of %d), kernels = pieces + window pass alone (none for pieces alone, levels 1-3; pieces: the decode kernel alone), CRC-32 = gpz_gpu_crc32 of the output, LZ = .gpz "
	       "LZ frames by gpz_decompress_device; host: gpz_inflate on the GPU context (staged "
	       "through the device), on the CPU backend with %d threads and 1, zlib on 1 (median of "
	       "3 / 3 / 1 / 1).\n\n",
	       prop.name, prop.multiProcessorCount, runs, threads);
	printf("| file | level | ratio gzip | device GB/s | kernels GB/s | pieces GB/s | CRC-32 GB/s | LZ ratio | LZ device GB/s | "
	       "host GPU GB/s | CPU T%d GB/s | CPU T1 GB/s | zlib T1 GB/s | same |\n"
	       "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
	       threads);
	for (int i = 0; i < argc; i++) {
		std::vector<uint8_t> h = read_tiled(argv[i], target);
		size_t n = h.size();
		if (!n) {
			fprintf(stderr, "gpz-bench: %s: cannot read\n", argv[i]);
			failed = 1;
			continue;
		}
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		uint8_t *d_src, *d_dst;
		CK(cudaMalloc(&d_src, gpz_deflate_bound(n)));
		CK(cudaMalloc(&d_dst, n + 64));
		std::vector<uint8_t> out(n + 64);
		for (int level = 1; level <= 9; level++) {
			if (only ? level != only : level != 1 && level != 6)
				continue;
			std::vector<uint8_t> c(gpz_deflate_bound(n));
			size_t clen = 0, got = 0;
			int same = 1;
			if (gpz_deflate_compress(gpu, level, GPZ_FORMAT_GZIP, NULL, h.data(), n, c.data(),
			                         c.size(), &clen) != GPZ_OK) {
				fprintf(stderr, "gpz-bench: %s: compress failed\n", name);
				return 1;
			}
			c.resize(clen);
			if (save) {
				char p[4096];
				snprintf(p, sizeof p, "%s/%s.L%d.gz", save, name, level);
				FILE *f = fopen(p, "wb");
				if (f) {
					fwrite(c.data(), 1, clen, f);
					fclose(f);
				}
			}
			CK(cudaMemcpy(d_src, c.data(), clen, cudaMemcpyHostToDevice));
			double td = time_median(runs, [&] {
				if (gpz_inflate_device(gpu, GPZ_FORMAT_GZIP, d_src, clen, d_dst, n, &got,
				                       NULL) != GPZ_OK)
					exit(1);
			});
			CK(cudaMemcpy(out.data(), d_dst, n, cudaMemcpyDeviceToHost));
			same &= got == n && !memcmp(out.data(), h.data(), n);

			/* the two kernels alone, on the index's pieces */
			struct gpz_gzip_member m;
			gpz_gzip_header(c.data(), clen, &m);
			std::vector<uint64_t> off(m.np + 1);
			for (uint32_t k = 0; k < m.np; k++)
				off[k + 1] = off[k] + (m.lens[4 * k] | m.lens[4 * k + 1] << 8 |
				                       m.lens[4 * k + 2] << 16 |
				                       (uint64_t)m.lens[4 * k + 3] << 24);
			uint64_t *d_off;
			uint16_t *d_sym;
			void *d_room;
			gpz_gpu_infl_res *d_res;
			uint32_t *d_cnt;
			CK(cudaMalloc(&d_off, off.size() * 8));
			CK(cudaMalloc(&d_sym, (size_t)m.np * GPZ_DEFLATE_PIECE * 2));
			CK(cudaMalloc(&d_room, gpz_gpu_inflate_room(m.np, GPZ_DEFLATE_PIECE)));
			CK(cudaMalloc(&d_res, m.np * sizeof(gpz_gpu_infl_res)));
			CK(cudaMalloc(&d_cnt, 8));
			CK(cudaMemcpy(d_off, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
			/* as gunzip_gpu.cu decodes them: pieces alone straight to bytes (no window
			 * pass), chained ones to symbols and then through the window pass */
			const int flags = m.alone ? 0 : GPZ_GPU_INFL_SYMBOLS | GPZ_GPU_INFL_CHAINED;
			void *pout = m.alone ? (void *)d_dst : (void *)d_sym;
			auto pieces = [&] {
				gpz_gpu_inflate_pieces(d_src + m.data, d_off, m.np, GPZ_DEFLATE_PIECE, n, flags,
				                       pout, d_room, d_res, NULL);
			};
			double tp = time_median(runs, pieces);
			double tk = time_median(runs, [&] {
				pieces();
				if (!m.alone)
					gpz_gpu_inflate_resolve(d_sym, n, NULL, GPZ_DEFLATE_PIECE, NULL, d_dst, NULL,
					                        0, d_cnt, d_cnt + 1, NULL);
			});
			/* the CRC-32 of the output alone (part of the whole call) */
			double tcrc = time_median(runs, [&] { gpz_gpu_crc32(d_dst, n, d_cnt, NULL); });
			cudaFree(d_off);
			cudaFree(d_sym);
			cudaFree(d_room);
			cudaFree(d_res);
			cudaFree(d_cnt);

			/* .gpz LZ frames of the same level */
			gpz_params p;
			gpz_params_default(&p);
			p.lz_level = level;
			p.frame_bytes = (size_t)1 << 30;
			std::vector<uint8_t> lz(gpz_compress_bound(n, &p));
			size_t lzn = 0, lgot = 0;
			double tl = 0;
			if (gpz_compress(gpu, &p, h.data(), n, lz.data(), lz.size(), &lzn) == GPZ_OK) {
				CK(cudaMemcpy(d_src, lz.data(), lzn, cudaMemcpyHostToDevice));
				tl = time_median(runs, [&] {
					if (gpz_decompress_device(gpu, d_src, lzn, d_dst, n, &lgot, NULL) != GPZ_OK)
						exit(1);
				});
				CK(cudaMemcpy(out.data(), d_dst, n, cudaMemcpyDeviceToHost));
				same &= lgot == n && !memcmp(out.data(), h.data(), n);
			} else {
				same = 0;
			}

			/* the host: gpz_inflate on the GPU context (staged through the device) */
			double th = 0, tc = 0, t1 = 0, tz = 0;
			if (host) {
			th = wall_median(3, [&] {
				if (gpz_inflate(gpu, GPZ_FORMAT_GZIP, c.data(), clen, out.data(), n, &got) !=
				    GPZ_OK)
					exit(1);
			});
			same &= got == n && !memcmp(out.data(), h.data(), n);
			/* and on the CPU */
			tc = wall_median(3, [&] {
				if (gpz_inflate(cpu, GPZ_FORMAT_GZIP, c.data(), clen, out.data(), n, &got) !=
				    GPZ_OK)
					exit(1);
			});
			same &= got == n && !memcmp(out.data(), h.data(), n);
			t1 = wall_median(1, [&] {
				gpz_inflate(cpu1, GPZ_FORMAT_GZIP, c.data(), clen, out.data(), n, &got);
			});
			size_t zn = 0;
			tz = wall_median(1, [&] { zn = zlib_inflate(c, out); });
			same &= zn == n && !memcmp(out.data(), h.data(), n);
			}
			failed |= !same;
			printf("| %s | %d | %.3f | %.1f | %.1f | %.1f | %.0f | %.3f | %.1f | %.2f | %.2f | "
			       "%.3f | %.3f | %s |\n",
			       name, level, (double)n / (double)clen, gbs(n, td), gbs(n, tk), gbs(n, tp),
			       gbs(n, tcrc),
			       (double)n / (double)lzn, gbs(n, tl), gbs(n, th), gbs(n, tc), gbs(n, t1),
			       gbs(n, tz), same ? "yes" : "NO");
			fflush(stdout);
		}
		cudaFree(d_src);
		cudaFree(d_dst);
	}
	gpz_ctx_free(gpu);
	gpz_ctx_free(cpu);
	gpz_ctx_free(cpu1);
	return failed;
}
