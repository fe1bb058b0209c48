/* gunzip_gpu.cu - gzip members that gpz wrote with the piece index, inflated on the GPU
 * (inflate.cu's kernels), and gpz_inflate_device.
 *
 * Two shapes of work. A member resident on the device (gpz_inflate_device, and host buffers
 * staged there) decodes in batches of up to BATCH pieces into 16-bit symbols, and each batch's
 * symbols resolve to bytes with the output before it, already on the device, as the window.
 * The frame engine's batches (inflate_io.c) arrive one at a time out of order, so a batch's
 * first window is not known on the device: its bytes are listed, and filled in on the host when
 * the batch's turn comes. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "common/checksum_gpu.h"
#include "common/context.h"
#include "common/bits.h"
#include "deflate/deflate.h"
#include "deflate/deflate_gpu.h"
#include "gpu/cuda_check.h"

namespace {

constexpr size_t PIECE = GPZ_DEFLATE_PIECE;
constexpr size_t WIN = 32768;
constexpr size_t BATCH = GPZ_DFL_BATCH_MAX; /* pieces decoded at once: a warp each */

/* In the counters' area (256 bytes): the window pass's word for skipping the joins of segments
 * (gpz_gpu_inflate_resolve), after the count and the batch sizes. */
constexpr size_t JOINS = 32;

/* Workspace for nk pieces (and np + 1 offsets): offsets, results, counters, symbols (for
 * pieces decoded straight to bytes, room for one piece's bytes instead), the decoder's room,
 * list. */
struct wlayout {
	size_t off, res, cnt, sym, room, list, total;
};

wlayout wlayout_for(size_t np, size_t nk, size_t list_cap, bool direct = false)
{
	wlayout l;
	l.off = 0;
	l.res = l.off + gpz_align256((np + 1) * sizeof(uint64_t));
	l.cnt = l.res + gpz_align256(nk * sizeof(gpz_gpu_infl_res));
	l.sym = l.cnt + 256;
	l.room = l.sym + gpz_align256(direct ? PIECE : nk * PIECE * sizeof(uint16_t));
	l.list = l.room + gpz_align256(gpz_gpu_inflate_room(nk, PIECE));
	l.total = l.list + gpz_align256(list_cap * sizeof(uint64_t));
	return l;
}

/* The pieces' results, checked as the CPU checks them: *n output bytes in all. */
gpz_result check_pieces(const gpz_gpu_infl_res *res, size_t k0, size_t nk, size_t np,
                        size_t room, size_t *n, struct gpz_infl_res *out)
{
	*n = 0;
	for (size_t j = 0; j < nk; j++) {
		gpz_result r = gpz_infl_piece_check((gpz_result)res[j].result, res[j].n,
		                                    (int)res[j].final, k0 + j, np, PIECE,
		                                    room > *n ? room - *n : 0);
		if (out) {
			out[j].r = r;
			out[j].n = r == GPZ_OK ? res[j].n : 0;
		}
		if (r != GPZ_OK)
			return r;
		*n += res[j].n;
	}
	return GPZ_OK;
}

gpz_result sync_copy(void *dst, const void *src, size_t n, cudaStream_t st)
{
	GPZ_CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, st));
	GPZ_CUDA_TRY(cudaStreamSynchronize(st));
	return GPZ_OK;
}

/* nk pieces alone, each straight to its bytes at d_dst (room bytes free there, more than
 * nk - 1 whole pieces): no symbols, no window pass. Their results into res (host), unchecked. */
gpz_result alone_pieces(const uint8_t *d_data, const uint64_t *d_off, size_t nk, uint8_t *d_dst,
                        size_t room, uint8_t *w, const wlayout &l, gpz_gpu_infl_res *res,
                        cudaStream_t st)
{
	size_t total = room < nk * PIECE ? room : nk * PIECE;
	gpz_result r = gpz_gpu_inflate_pieces(d_data, d_off, nk, PIECE, total, 0, d_dst, w + l.room,
	                                      (gpz_gpu_infl_res *)(w + l.res), st);
	return r == GPZ_OK ? sync_copy(res, w + l.res, nk * sizeof(*res), st) : r;
}

/* The same, checked: pieces k0 .. k0 + nk - 1 of np, *n bytes in all. A last piece that fails
 * where its room was short of a whole piece is decoded again into the workspace, room for a
 * whole piece, so that a destination too small is told from corrupt input (as on the CPU). */
gpz_result alone_checked(const uint8_t *d_data, const uint64_t *d_off, size_t k0, size_t nk,
                         size_t np, uint8_t *d_dst, size_t room, uint8_t *w, const wlayout &l,
                         gpz_gpu_infl_res *res, size_t *n, cudaStream_t st)
{
	size_t before = 0, last_room = room - (nk - 1) * PIECE;
	gpz_result r = alone_pieces(d_data, d_off, nk, d_dst, room, w, l, res, st);
	if (r == GPZ_OK)
		r = check_pieces(res, k0, nk, np, room, n, NULL);
	if (r != GPZ_ERR_CORRUPT || last_room >= PIECE ||
	    check_pieces(res, k0, nk - 1, np, room, &before, NULL) != GPZ_OK)
		return r;
	r = alone_pieces(d_data, d_off + nk - 1, 1, w + l.sym, PIECE, w, l, res, st);
	if (r == GPZ_OK)
		r = check_pieces(res, k0 + nk - 1, 1, np, last_room, n, NULL);
	return r == GPZ_OK ? GPZ_ERR_CORRUPT : r; /* it fits after all: not a short destination */
}

/* Pinned host memory for a member's offsets (np + 1), its pieces' results (np), the CRC-32 and
 * the trailer: the copies run asynchronously, and the results are fetched in one wait at the
 * end. */
struct hlayout {
	size_t off, res, crc, trailer, total;
};

hlayout hlayout_for(size_t np)
{
	hlayout h;
	h.off = 0;
	h.res = gpz_align256((np + 1) * sizeof(uint64_t));
	h.crc = h.res + gpz_align256(np * sizeof(gpz_gpu_infl_res));
	h.trailer = h.crc + 8;
	h.total = h.trailer + 8;
	return h;
}

/* Chained pieces (each may refer to the 32 KiB before it) in batches of nb, queued without a
 * wait: each batch's size is taken on the device from its last piece's result (d_n[1]: the
 * total so far), its results copied to hres as they come. Every launch is bounded by the
 * destination, so a corrupt stream writes nothing outside it; the caller checks the results. */
gpz_result queue_chained(uint8_t *w, const wlayout &l, const uint8_t *d_data, uint32_t np,
                         size_t nb, uint8_t *d_dst, size_t cap, gpz_gpu_infl_res *hres,
                         size_t *total, cudaStream_t st)
{
	uint64_t *d_n = (uint64_t *)(w + l.cnt + 8);
	gpz_result r = GPZ_OK;

	*total = 0;
	for (size_t k0 = 0; r == GPZ_OK && k0 < np; k0 += nb) {
		size_t nk = np - k0 < nb ? np - k0 : nb;
		size_t bound = cap - *total < nk * PIECE ? cap - *total : nk * PIECE;
		uint16_t *sym = (uint16_t *)(w + l.sym);
		int flags = GPZ_GPU_INFL_SYMBOLS | GPZ_GPU_INFL_CHAINED |
		            (k0 ? GPZ_GPU_INFL_FIRST_WINDOW : 0);
		r = gpz_gpu_inflate_pieces(d_data, (const uint64_t *)(w + l.off) + k0, nk, PIECE,
		                           nk * PIECE, flags, sym, w + l.room,
		                           (gpz_gpu_infl_res *)(w + l.res), st);
		if (r == GPZ_OK && cudaMemcpyAsync(hres + k0, w + l.res, nk * sizeof(*hres),
		                                   cudaMemcpyDeviceToHost, st) != cudaSuccess)
			r = GPZ_ERR_GPU;
		if (r == GPZ_OK)
			r = gpz_gpu_inflate_batch_n((const gpz_gpu_infl_res *)(w + l.res), nk, PIECE, bound,
			                            *total, d_n, st);
		if (r == GPZ_OK && bound)
			r = gpz_gpu_inflate_resolve(sym, bound, d_n, PIECE,
			                            k0 ? d_dst + *total - WIN : NULL, d_dst + *total, NULL, 0,
			                            (uint32_t *)(w + l.cnt), (uint32_t *)(w + l.cnt + JOINS), st);
		*total += bound;
	}
	return r;
}

} /* namespace */

extern "C" gpz_result gpz_gpu_inflate_indexed(struct gpz_gpu *g, const uint8_t *d_data,
                                              const uint64_t *off, uint32_t np, int alone,
                                              uint8_t *d_dst, size_t cap, size_t *out_n,
                                              uint32_t *crc, uint8_t *trailer,
                                              gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	size_t nb = np < BATCH ? np : BATCH, total = 0, bound = 0;
	/* pieces alone go straight to their bytes when the destination holds all but the last
	 * whole; into a shorter one, the symbols' way, references before a piece then corrupt
	 * input as in alone_pieces */
	const bool direct = alone && cap > ((size_t)np - 1) * PIECE;
	const bool chained = !alone;
	wlayout l = wlayout_for(np, nb, 0, direct);
	hlayout hl = hlayout_for(np);
	gpz_result r = gpz_gpu_reserve(&g->work, &g->work_cap, l.total);
	uint8_t *w = g->work;

	*out_n = 0;
	if (r == GPZ_OK)
		r = gpz_gpu_host_reserve(g, hl.total);
	uint8_t *h = g->host;
	gpz_gpu_infl_res *hres = r == GPZ_OK ? (gpz_gpu_infl_res *)(h + hl.res) : NULL;
	if (r == GPZ_OK) {
		memcpy(h + hl.off, off, ((size_t)np + 1) * sizeof(*off));
		if (cudaMemcpyAsync(w + l.off, h + hl.off, ((size_t)np + 1) * sizeof(*off),
		                    cudaMemcpyHostToDevice, st) != cudaSuccess)
			r = GPZ_ERR_GPU;
	}
	if (r == GPZ_OK && chained) {
		r = queue_chained(w, l, d_data, np, nb, d_dst, cap, hres, &bound, st);
		if (r == GPZ_OK)
			r = gpz_gpu_crc32_upto(d_dst, bound, (const uint64_t *)(w + l.cnt + 16),
			                       (uint32_t *)(w + l.cnt), stream);
	}
	for (size_t k0 = 0; r == GPZ_OK && !chained && k0 < np; k0 += nb) {
		size_t nk = np - k0 < nb ? np - k0 : nb, n = 0;
		uint16_t *sym = (uint16_t *)(w + l.sym);
		if (direct) {
			r = alone_checked(d_data, (const uint64_t *)(w + l.off) + k0, k0, nk, np,
			                  d_dst + total, cap - total, w, l, hres, &n, st);
			total += n;
			continue;
		}
		/* alone, into a destination short of all pieces: symbols (a reference before its
		 * piece is corrupt input), checked before their bytes are written */
		r = gpz_gpu_inflate_pieces(d_data, (const uint64_t *)(w + l.off) + k0, nk, PIECE,
		                           nk * PIECE, GPZ_GPU_INFL_SYMBOLS, sym, w + l.room,
		                           (gpz_gpu_infl_res *)(w + l.res), stream);
		if (r == GPZ_OK)
			r = sync_copy(hres, w + l.res, nk * sizeof(*hres), st);
		if (r == GPZ_OK)
			r = check_pieces(hres, k0, nk, np, cap - total, &n, NULL);
		if (r == GPZ_OK)
			r = gpz_gpu_inflate_resolve(sym, n, NULL, PIECE, NULL, d_dst + total, NULL, 0,
			                            (uint32_t *)(w + l.cnt), (uint32_t *)(w + l.cnt + JOINS),
			                            stream);
		total += n;
	}
	if (r == GPZ_OK && !chained)
		r = gpz_gpu_crc32(d_dst, total, (uint32_t *)(w + l.cnt), stream);
	if (r == GPZ_OK && cudaMemcpyAsync(h + hl.crc, w + l.cnt, 4, cudaMemcpyDeviceToHost, st) !=
	                           cudaSuccess)
		r = GPZ_ERR_GPU;
	if (r == GPZ_OK && trailer &&
	    cudaMemcpyAsync(h + hl.trailer, d_data + off[np], 8, cudaMemcpyDeviceToHost, st) !=
	            cudaSuccess)
		r = GPZ_ERR_GPU;
	if (r == GPZ_OK && cudaStreamSynchronize(st) != cudaSuccess)
		r = GPZ_ERR_GPU;
	/* the chained batches' results, in order, as each batch's were checked before its bytes */
	for (size_t k0 = 0; r == GPZ_OK && chained && k0 < np; k0 += nb) {
		size_t nk = np - k0 < nb ? np - k0 : nb, n = 0;
		r = check_pieces(hres + k0, k0, nk, np, cap - total, &n, NULL);
		total += n;
	}
	if (r == GPZ_OK) {
		memcpy(crc, h + hl.crc, 4);
		if (trailer)
			memcpy(trailer, h + hl.trailer, 8);
		*out_n = total;
	}
	return r;
}

extern "C" size_t gpz_gpu_infl_batch_list(size_t nk)
{
	return nk * PIECE / 16; /* a batch whose window bytes are more than this goes to the CPU */
}

extern "C" gpz_result gpz_gpu_infl_batch(struct gpz_gpu *g, struct gpz_infl_batch *b,
                                         uint64_t *list, size_t *nlist, size_t *out_n)
{
	cudaStream_t st = (cudaStream_t)g->stream;
	size_t in_n = (size_t)b->off[b->nk], list_cap = gpz_gpu_infl_batch_list(b->nk), n = 0;
	wlayout l = wlayout_for(b->nk, b->nk, list_cap, b->alone != 0);
	gpz_gpu_infl_res *res = (gpz_gpu_infl_res *)malloc(b->nk * sizeof(*res));
	uint32_t count = 0;
	gpz_result r = res ? gpz_gpu_use(g) : GPZ_ERR_NOMEM; /* a lane may own another GPU */

	*out_n = *nlist = 0;
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->work, &g->work_cap, l.total);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->in, &g->in_cap, in_n);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->out, &g->out_cap, b->nk * PIECE);
	if (r == GPZ_OK)
		r = gpz_gpu_to_device(g, g->in, b->in, in_n);
	if (r == GPZ_OK)
		r = gpz_gpu_to_device(g, g->work + l.off, b->off, (b->nk + 1) * sizeof(uint64_t));
	if (r == GPZ_OK && cudaMemsetAsync(g->work + l.cnt, 0, 4, st) != cudaSuccess)
		r = GPZ_ERR_GPU;
	if (r == GPZ_OK && b->alone) { /* straight to bytes: nothing listed */
		r = alone_pieces(g->in, (const uint64_t *)(g->work + l.off), b->nk, g->out,
		                 b->nk * PIECE, g->work, l, res, st);
		if (r == GPZ_OK)
			r = check_pieces(res, b->k0, b->nk, b->np, b->room, &n, b->res);
		if (r == GPZ_OK)
			r = gpz_gpu_to_host(g, b->dst, g->out, n);
		*out_n = r == GPZ_OK ? n : 0;
		free(res);
		return r;
	}
	if (r == GPZ_OK)
		r = gpz_gpu_inflate_pieces(g->in, (const uint64_t *)(g->work + l.off), b->nk, PIECE,
		                           b->nk * PIECE,
		                           GPZ_GPU_INFL_SYMBOLS | GPZ_GPU_INFL_CHAINED |
		                                   (b->k0 ? GPZ_GPU_INFL_FIRST_WINDOW : 0),
		                           g->work + l.sym, g->work + l.room,
		                           (gpz_gpu_infl_res *)(g->work + l.res), g->stream);
	if (r == GPZ_OK)
		r = sync_copy(res, g->work + l.res, b->nk * sizeof(*res), st);
	if (r == GPZ_OK)
		r = check_pieces(res, b->k0, b->nk, b->np, b->room, &n, b->res);
	if (r == GPZ_OK)
		r = gpz_gpu_inflate_resolve((uint16_t *)(g->work + l.sym), n, NULL, PIECE, NULL, g->out,
		                            (uint64_t *)(g->work + l.list), (uint32_t)list_cap,
		                            (uint32_t *)(g->work + l.cnt),
		                            (uint32_t *)(g->work + l.cnt + JOINS), g->stream);
	if (r == GPZ_OK)
		r = sync_copy(&count, g->work + l.cnt, 4, st);
	if (r == GPZ_OK && count > list_cap) { /* pathological: the caller redoes it on the CPU */
		*nlist = count;
		free(res);
		return GPZ_OK;
	}
	if (r == GPZ_OK && cudaMemcpyAsync(list, g->work + l.list, count * sizeof(uint64_t),
	                                   cudaMemcpyDeviceToHost, st) != cudaSuccess)
		r = GPZ_ERR_GPU;
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, b->dst, g->out, n);
	if (r == GPZ_OK) {
		*out_n = n;
		*nlist = count;
	}
	free(res);
	return r;
}

extern "C" gpz_result gpz_gpu_inflate_host(struct gpz_gpu *g, const uint8_t *data, uint32_t np,
                                           int alone, const uint8_t *lens, uint8_t *dst,
                                           size_t cap, size_t *out_n, uint32_t *crc)
{
	uint64_t *off = (uint64_t *)malloc(((size_t)np + 1) * sizeof(*off));
	size_t out_cap = (size_t)np * PIECE < cap ? (size_t)np * PIECE : cap;
	gpz_result r = off ? gpz_gpu_use(g) : GPZ_ERR_NOMEM;

	*out_n = 0;
	for (uint32_t k = 0; off && k <= np; k++)
		off[k] = k ? off[k - 1] + gpz_load_le32(lens + 4 * (k - 1)) : 0;
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->in, &g->in_cap, (size_t)off[np]);
	if (r == GPZ_OK)
		r = gpz_gpu_reserve(&g->out, &g->out_cap, out_cap);
	if (r == GPZ_OK)
		r = gpz_gpu_to_device(g, g->in, data, (size_t)off[np]);
	if (r == GPZ_OK)
		r = gpz_gpu_inflate_indexed(g, g->in, off, np, alone, g->out, out_cap, out_n, crc,
		                            NULL, g->stream);
	if (r == GPZ_OK)
		r = gpz_gpu_to_host(g, dst, g->out, *out_n);
	free(off);
	return r;
}

/* ---- gpz_inflate_device ---- */

namespace {

/* The whole input through the host, for what the GPU does not decode (zlib, raw, gzip members
 * without the index). */
gpz_result via_host(gpz_ctx *ctx, gpz_format format, const uint8_t *d_src, size_t n,
                    uint8_t *d_dst, size_t cap, size_t *got, cudaStream_t st)
{
	uint8_t *h = (uint8_t *)malloc(n ? n : 1), *o = (uint8_t *)malloc(cap ? cap : 1);
	gpz_result r = h && o ? sync_copy(h, d_src, n, st) : GPZ_ERR_NOMEM;

	if (r == GPZ_OK)
		r = gpz_inflate_on(ctx, NULL, format, h, n, o, cap, got);
	if (r == GPZ_OK && *got &&
	    cudaMemcpyAsync(d_dst, o, *got, cudaMemcpyHostToDevice, st) != cudaSuccess)
		r = GPZ_ERR_GPU;
	if (r == GPZ_OK && cudaStreamSynchronize(st) != cudaSuccess)
		r = GPZ_ERR_GPU;
	free(h);
	free(o);
	return r;
}

/* A member at d_src (n bytes left): its header read to the host (through g's pinned buffer);
 * *np 0 when it has no index that fits. */
gpz_result member_head(struct gpz_gpu *g, const uint8_t *d_src, size_t n,
                       struct gpz_gzip_member *m, uint64_t **off, cudaStream_t st)
{
	size_t hn = n < ((size_t)80 << 10) ? n : (size_t)80 << 10;
	gpz_result r = gpz_gpu_host_reserve(g, hn ? hn : 1);
	uint8_t *h = g->host;

	*off = NULL;
	if (r == GPZ_OK)
		r = sync_copy(h, d_src, hn, st);
	if (r == GPZ_OK)
		r = gpz_gzip_header(h, hn, m);
	if (r == GPZ_OK && m->piece_log != GPZ_DEFLATE_PIECE_LOG)
		m->np = 0; /* entries for runs of pieces (inputs past 4.29 GB): the host reads them */
	if (r == GPZ_OK && m->np) {
		*off = (uint64_t *)malloc(((size_t)m->np + 1) * sizeof(uint64_t));
		if (!*off)
			r = GPZ_ERR_NOMEM;
		for (uint32_t k = 0; r == GPZ_OK && k <= m->np; k++)
			(*off)[k] = k ? (*off)[k - 1] + gpz_load_le32(m->lens + 4 * (k - 1)) : 0;
		if (r == GPZ_OK && ((*off)[m->np] > n - m->data || n - m->data - (*off)[m->np] < 8)) {
			free(*off);
			*off = NULL;
			m->np = 0;
		}
	}
	m->lens = NULL; /* it pointed into h */
	return r;
}

} /* namespace */

extern "C" gpz_result gpz_inflate_device(gpz_ctx *ctx, gpz_format format, const void *d_src,
                                         size_t src_size, void *d_dst, size_t dst_cap,
                                         size_t *dst_size, void *cuda_stream)
{
	const uint8_t *s = (const uint8_t *)d_src;
	uint8_t *d = (uint8_t *)d_dst;
	cudaStream_t st = (cudaStream_t)cuda_stream;
	size_t pos = 0, out = 0;
	gpz_result r = GPZ_OK;

	if (!ctx || !dst_size || (!d_src && src_size) || (!d_dst && dst_cap) ||
	    format < GPZ_FORMAT_GZIP || format > GPZ_FORMAT_DEFLATE)
		return GPZ_ERR_PARAM;
	if (!gpz_ctx_gpu(ctx))
		return GPZ_ERR_NO_GPU;
	*dst_size = 0;
	r = gpz_gpu_use(ctx->gpu);
	if (r != GPZ_OK)
		return r;
	if (format != GPZ_FORMAT_GZIP)
		return via_host(ctx, format, s, src_size, d, dst_cap, dst_size, st);
	do { /* members, until only zero padding (or nothing) is left */
		struct gpz_gzip_member m;
		uint64_t *off = NULL;
		size_t got = 0;
		uint32_t crc = 0;
		uint8_t t[8];
		r = member_head(ctx->gpu, s + pos, src_size - pos, &m, &off, st);
		if (r == GPZ_OK && !m.np) { /* not gpz's: the rest through the host */
			r = via_host(ctx, format, s + pos, src_size - pos, d + out, dst_cap - out, &got,
			             st);
			out += r == GPZ_OK ? got : 0;
			break;
		}
		if (r == GPZ_OK)
			r = gpz_gpu_inflate_indexed(ctx->gpu, s + pos + m.data, off, m.np, m.alone, d + out,
			                            dst_cap - out, &got, &crc, t, st);
		if (r == GPZ_OK && (gpz_load_le32(t) != crc || gpz_load_le32(t + 4) != (uint32_t)got))
			r = GPZ_ERR_CORRUPT;
		if (r == GPZ_OK) {
			pos += m.data + (size_t)off[m.np] + 8;
			out += got;
		}
		free(off);
		/* zero padding: looked at on the host a little at a time */
		while (r == GPZ_OK && pos < src_size) {
			uint8_t z[256];
			size_t k = src_size - pos < sizeof(z) ? src_size - pos : sizeof(z), i = 0;
			r = sync_copy(z, s + pos, k, st);
			while (r == GPZ_OK && i < k && z[i] == 0)
				i++;
			pos += i;
			if (i < k)
				break;
		}
	} while (r == GPZ_OK && pos < src_size);
	*dst_size = r == GPZ_OK ? out : 0;
	return r;
}
