/*
 * frame_lzsym_gpu.cu - LZ-symbol frames on the GPU (frame_lzsym_gpu.h): the CPU writer's steps
 * with the tokens made on the device (lzsym/tokens.cu) and the decisions taken on the host from
 * what comes back, through the same plan (gpz_lzs_plan_make), so the bytes are the CPU's.
 *
 * Writing: content checksum on the context's side stream (it only reads the input); token
 * counts -> host (main alphabet + 144 counts: 256 KiB for 2-byte symbols) -> plan (codes,
 * header, exact size: not smaller than `beat`, nothing more is done) -> chunk lengths -> host
 * (4 bytes a chunk) -> starts, header, codebook, index and header check on the host -> the
 * payload coded into the workspace and copied after the head -> the checksum after the
 * payload. Three synchronisations a frame; the host's codebook for a 65632-symbol alphabet is
 * the largest host cost (the GPU codebook of codebook.cu can take it over once measured).
 *
 * Reading: the reader of frame_lzsym.c validates the head on the host (codes, chunk lengths),
 * the payload's last byte comes back for the padding rule, the chunks decode on the device
 * (lzsym/decode.cu), then the checksum on the device.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "container/frame.h"
#include "common/bits.h"
}
#include "container/frame_lzsym_gpu.h"
#include "common/checksum_gpu.h"
#include "lzsym/lzsym_gpu.h"
#include "gpu/cuda_check.h"

#define NB GPZ_LZS_BUCKETS

/* The workspace of a frame: checksum, counts, code lengths and tables, chunk lengths and
 * starts, the tokens the count pass keeps and their counts, then the payload's words (sized once
 * the plan is known; the workspace grows keeping what comes before them). */
struct wlayout {
	size_t sum, counts, mlen, dlen, mtab, dtab, bits, starts, ntok, tokens, words, total;
};

static wlayout layout_for(uint32_t alphabet, size_t nchunks, int chunk_log, int w,
                          uint64_t payload_bits)
{
	const size_t nm = (size_t)alphabet + GPZ_LZS_EXTRA;
	wlayout l;
	l.sum = 0;
	l.counts = 256;
	l.mlen = l.counts + gpz_align256((nm + NB) * 4);
	l.dlen = l.mlen + gpz_align256(nm);
	l.mtab = l.dlen + 256;
	l.dtab = l.mtab + gpz_align256(nm * 4);
	l.bits = l.dtab + 256;
	l.starts = l.bits + gpz_align256(nchunks * 4);
	l.ntok = l.starts + gpz_align256((nchunks + 1) * 8);
	l.tokens = l.ntok + gpz_align256(nchunks * 4);
	l.words = l.tokens + gpz_align256(nchunks * (size_t)GPZ_LZS_GPU_KEEP(chunk_log, w) * 8);
	l.total = l.words + gpz_align256((size_t)(payload_bits / 32 + 2) * 4);
	return l;
}

extern "C" size_t gpz_lzs_gpu_workspace(const gpz_params *p, size_t frame_bytes)
{
	const size_t n = frame_bytes / (size_t)p->symbol_bytes;
	const uint32_t most = p->symbol_bytes == 1 ? 256u
	                      : p->symbol_bytes == 2 ? 65536u
	                                             : GPZ_MAX_ALPHABET - GPZ_LZS_EXTRA;
	return layout_for(most, (size_t)gpz_frame_chunks(n, p->chunk_log), p->chunk_log,
	                  p->symbol_bytes, ((uint64_t)frame_bytes + GPZ_FRAME_FIXED) * 8).total;
}

/* The plan's codes to the device, then the chunk lengths back: starts, and the head (header,
 * codebook, index, header check) made on the host. */
static gpz_result chunk_starts(struct gpz_gpu *g, const struct gpz_lzs_gpu_src *gs,
                               const struct gpz_lzs_plan *pl, const wlayout &l, uint8_t *head,
                               uint64_t *starts, cudaStream_t s)
{
	const size_t nm = (size_t)pl->alphabet + GPZ_LZS_EXTRA, nc = pl->nchunks;
	uint32_t *bits = (uint32_t *)malloc(nc * sizeof(uint32_t) + 1);
	gpz_result r = bits ? GPZ_OK : GPZ_ERR_NOMEM;

	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->work + l.mlen, pl->mlen, nm,
		                                    cudaMemcpyHostToDevice, s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->work + l.dlen, pl->dlen, NB,
		                                    cudaMemcpyHostToDevice, s));
	if (r == GPZ_OK)
		r = gpz_gpu_lzs_sizes(gs, g->work + l.mlen, g->work + l.dlen,
		                      (uint32_t *)(g->work + l.bits), (gpz_stream_t)s);
	if (r == GPZ_OK) /* waits for the copies above too, before pl's buffers may change */
		r = gpz_cuda_d2h(bits, g->work + l.bits, nc * sizeof(uint32_t), s);
	starts[0] = 0;
	for (size_t c = 0; r == GPZ_OK && c < nc; c++)
		starts[c + 1] = starts[c] + bits[c];
	if (r == GPZ_OK && starts[nc] != pl->bits)
		r = GPZ_ERR_GPU; /* the device's tokens are not the plan's: never write such a frame */
	if (r == GPZ_OK)
		gpz_lzs_plan_head(pl, bits, head);
	free(bits);
	return r;
}

extern "C" gpz_result gpz_lzs_frame_write_gpu(struct gpz_gpu *g, const gpz_params *p,
                                              const uint8_t *d_src, size_t n,
                                              const uint32_t *hist, uint32_t alphabet,
                                              size_t beat, uint8_t *d_dst, size_t cap,
                                              size_t *written, gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	const size_t nm = (size_t)alphabet + GPZ_LZS_EXTRA;
	const size_t nchunks = (size_t)gpz_frame_chunks(n, p->chunk_log);
	struct gpz_lzs_gpu_src gs = { d_src, n, p->symbol_bytes, p->chunk_log, alphabet,
		                      gpz_lzs_run_symbol(hist, alphabet), NULL, NULL };
	struct gpz_lzs_plan pl;
	wlayout l = layout_for(alphabet, nchunks, p->chunk_log, p->symbol_bytes, 0);
	uint32_t *counts = (uint32_t *)malloc((nm + NB) * sizeof(uint32_t));
	uint8_t *head = NULL;
	uint64_t *starts = NULL;
	bool side = false;
	gpz_result r = counts ? GPZ_OK : GPZ_ERR_NOMEM;

	*written = 0;
	memset(&pl, 0, sizeof(pl));
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->work, &g->work_cap, l.total);
	gs.d_tokens = g->work + l.tokens;
	gs.d_ntok = (uint32_t *)(g->work + l.ntok);
	if (r == GPZ_OK)
		r = gpz_gpu_lzs_count(&gs, (uint32_t *)(g->work + l.counts), stream);
	if (r == GPZ_OK)
		r = gpz_cuda_d2h(counts, g->work + l.counts, (nm + NB) * sizeof(uint32_t), s);
	if (r == GPZ_OK)
		r = gpz_lzs_plan_make(&pl, p, n, alphabet, gs.z, counts);
	/* one value (a constant frame), or not smaller: the caller writes its own plan */
	if (r != GPZ_OK || pl.max_len < 1 || pl.total >= beat)
		goto done;
	if (pl.total > cap) {
		r = GPZ_ERR_DST_TOO_SMALL;
		goto done;
	}
	l = layout_for(alphabet, nchunks, p->chunk_log, p->symbol_bytes, pl.bits);
	r = gpz_gpu_grow(&g->work, &g->work_cap, l.total, l.words, stream); /* the tokens kept */
	gs.d_tokens = g->work + l.tokens;
	gs.d_ntok = (uint32_t *)(g->work + l.ntok);
	/* the checksum only reads the input: beside the rest, on the side stream */
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaEventRecord(g->in_ready, s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamWaitEvent(g->side, g->in_ready, 0));
	if (r == GPZ_OK)
		r = gpz_gpu_checksum(d_src, n * (size_t)p->symbol_bytes, (uint64_t *)(g->work + l.sum),
		                     (gpz_stream_t)g->side);
	if (r == GPZ_OK) {
		side = true;
		r = gpz_cuda_result(cudaEventRecord(g->sum_done, g->side));
	}
	head = (uint8_t *)malloc(pl.pay_at);
	starts = (uint64_t *)malloc((nchunks + 1) * sizeof(uint64_t));
	if (r == GPZ_OK && (!head || !starts))
		r = GPZ_ERR_NOMEM;
	if (r == GPZ_OK)
		r = chunk_starts(g, &gs, &pl, l, head, starts, s);
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->work + l.mtab, pl.mtab, nm * 4,
		                                    cudaMemcpyHostToDevice, s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->work + l.dtab, pl.dtab, NB * 4,
		                                    cudaMemcpyHostToDevice, s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->work + l.starts, starts,
		                                    (nchunks + 1) * sizeof(uint64_t),
		                                    cudaMemcpyHostToDevice, s));
	if (r == GPZ_OK)
		r = gpz_gpu_lzs_write(&gs, (const uint32_t *)(g->work + l.mtab),
		                      (const uint32_t *)(g->work + l.dtab),
		                      (const uint64_t *)(g->work + l.starts),
		                      (uint32_t *)(g->work + l.words), (size_t)(pl.bits / 32 + 2), stream);
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(d_dst, head, pl.pay_at, cudaMemcpyHostToDevice, s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(d_dst + pl.pay_at, g->work + l.words, pl.payload,
		                                    cudaMemcpyDeviceToDevice, s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamWaitEvent(s, g->sum_done, 0));
	if (r == GPZ_OK) /* the device's u64 is little-endian: the stored bytes as they are */
		r = gpz_cuda_result(cudaMemcpyAsync(d_dst + pl.pay_at + pl.payload, g->work + l.sum,
		                                    GPZ_CONTENT_SIZE, cudaMemcpyDeviceToDevice, s));
	/* the frame is complete here; queued errors surface now, and the host buffers may go */
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamSynchronize(s));
	if (r == GPZ_OK)
		*written = pl.total;
done:
	if (r != GPZ_OK) { /* nothing may still use the workspace, the input or host buffers */
		cudaStreamSynchronize(s);
		if (side)
			cudaStreamSynchronize(g->side);
	}
	gpz_lzs_plan_free(&pl);
	free(counts);
	free(head);
	free(starts);
	return r;
}

extern "C" gpz_result gpz_lzs_frame_decode_gpu(struct gpz_gpu *g, const uint8_t *d_frame,
                                               const uint8_t *head, const gpz_block_info *in,
                                               uint8_t *d_dst, uint64_t *sum,
                                               gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	const size_t n = (size_t)(in->content_bytes / (uint64_t)in->symbol_bytes);
	struct gpz_lzs_reader rd;
	uint64_t tail[2] = { 0, 0 }; /* the stored checksum, the computed one */
	uint8_t last = 0;
	gpz_result r = gpz_lzs_reader_open(&rd, head, in);

	if (r != GPZ_OK)
		return r;
	const size_t sum_at = rd.payload_at + rd.payload_bytes;
	r = gpz_gpu_reserve(&g->work, &g->work_cap, 256 + (rd.nchunks + 1) * sizeof(uint64_t));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(&tail[0], d_frame + sum_at, GPZ_CONTENT_SIZE,
		                                    cudaMemcpyDeviceToHost, s));
	if (r == GPZ_OK)
		r = gpz_cuda_d2h(&last, d_frame + sum_at - 1, 1, s);
	if (r == GPZ_OK && !gpz_frame_padding_ok(last, rd.payload_bytes, rd.starts[rd.nchunks]))
		r = GPZ_ERR_CORRUPT;
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->work + 256, rd.starts,
		                                    (rd.nchunks + 1) * sizeof(uint64_t),
		                                    cudaMemcpyHostToDevice, s));
	if (r == GPZ_OK) /* synchronises */
		r = gpz_gpu_lzs_decode(&rd.dec, d_frame + rd.payload_at, rd.payload_bytes,
		                       (const uint64_t *)(g->work + 256), n, in->symbol_bytes,
		                       in->chunk_log, d_dst, stream);
	if (r == GPZ_OK)
		r = gpz_gpu_checksum(d_dst, (size_t)in->content_bytes, (uint64_t *)g->work, stream);
	if (r == GPZ_OK)
		r = gpz_cuda_d2h(&tail[1], g->work, sizeof(uint64_t), s);
	if (r != GPZ_OK)
		cudaStreamSynchronize(s); /* rd.starts may still be read by a queued copy */
	if (r == GPZ_OK && tail[0] != tail[1])
		r = GPZ_ERR_CHECKSUM;
	if (sum)
		*sum = tail[0];
	gpz_lzs_reader_close(&rd);
	return r;
}
