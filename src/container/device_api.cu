/*
 * device_api.cu - the device-buffer calls (gpz_compress_device, gpz_decompress_device): a .gpz
 * stream from and to device memory, frame by frame through frame_gpu.cu.
 *
 * Why lanes: a frame costs the host a few synchronisations (the plan is made on the host from
 * the device's counts), and a 64 MiB frame's kernels are about one wave of the GPU, so frames
 * done one after another leave it idle most of the time (an H100, 1 GiB of Nyx-Quant in 64 MiB
 * LZ-symbol frames: 71 GB/s, against 250 GB/s in one 1 GiB frame). With several frames, lanes
 * (host threads) each take the next frame on GPU resources of their own (the context's and up
 * to GPZ_DEV_LANES - 1 more, made on first use and kept until gpz_ctx_free), on their own
 * streams: COMPRESS_LANES of them to compress (each holds a frame's workspace and output),
 * GPZ_DEV_LANES to decode (a frame's chunk index each). Measured there: 4 lanes 71 -> 137-150
 * GB/s compress and 74 -> 218-242 decompress; 8 lanes 143-171 and 273-279.
 * Compression writes each frame into its lane's buffer and copies it after the frames before it
 * once their sizes are known; decompression reads every frame header first (they chain by their
 * sizes), then decodes the frames at their known offsets. The bytes are those of one frame at a
 * time; the error reported is the first in stream order.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "common/context.h"
#include "container/frame.h"
}
#include "container/frame_gpu.h"
#include "gpu/gpu.h"
#include "gpu/cuda_check.h"

/* LZ mode: one frame from device memory through host buffers and frame_write.c (which codes
 * its pieces on the context's GPU), back to the device. */
static gpz_result lz_compress_via_host(gpz_ctx *ctx, const gpz_params *p, const uint8_t *d_src,
                                       size_t size, uint8_t *d_dst, size_t cap, size_t *written,
                                       cudaStream_t s)
{
	size_t bound = gpz_frame_bound(size, p), got = 0;
	uint8_t *in = (uint8_t *)malloc(size ? size : 1), *out = (uint8_t *)malloc(bound);
	gpz_result r = in && out ? GPZ_OK : GPZ_ERR_NOMEM;

	if (r == GPZ_OK)
		r = gpz_cuda_d2h(in, d_src, size, s);
	if (r == GPZ_OK)
		r = gpz_compress_frame(ctx, p, in, size, out, bound, &got);
	if (r == GPZ_OK && got > cap)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(d_dst, out, got, cudaMemcpyHostToDevice, s));
	if (r == GPZ_OK) /* the host buffer must outlive the copy */
		r = gpz_cuda_result(cudaStreamSynchronize(s));
	if (r == GPZ_OK)
		*written = got;
	free(in);
	free(out);
	return r;
}

/* ---- lanes ---- */

#define COMPRESS_LANES 4

/* The lanes a call of nframes frames takes: the context's GPU and up to most - 1 more on its
 * device (fewer when they cannot be made). */
static int lanes_for(gpz_ctx *ctx, size_t nframes, int most, struct gpz_gpu **g)
{
	int n = 1;
	g[0] = ctx->gpu;
	for (int i = 1; i < most && (size_t)i < nframes; i++) {
		if (!ctx->dev_lane[i - 1] &&
		    gpz_gpu_open(&ctx->dev_lane[i - 1], ctx->gpu->device) != GPZ_OK)
			break;
		g[n++] = ctx->dev_lane[i - 1];
	}
	return n;
}

/* What the lanes of one call share. Frames are taken in order (next); `done` counts the frames
 * whose outcome is in (compression: copied to their place, in order). */
struct lanes_job {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t nframes, next, done;
	gpz_result err;  /* the first failure in frame order */
	size_t err_at;   /* its frame */
	cudaEvent_t ready; /* the input, as the caller's stream has it */
	/* compress */
	const gpz_params *p;
	const uint8_t *src;
	size_t src_size;
	uint8_t *dst;
	size_t cap, pos; /* pos: where the next frame in order goes */
	/* decompress: frame k at src + at[k], its content at dst + out[k]; the stream's first
	 * head_n bytes, as the host read them */
	const size_t *at, *out, *avail;
	const uint8_t *head;
	size_t head_n;
};

struct lane_arg {
	struct lanes_job *j;
	struct gpz_gpu *g;
	void (*frame)(struct lanes_job *j, struct gpz_gpu *g, size_t k);
};

static void fail(struct lanes_job *j, size_t k, gpz_result r)
{
	if (r != GPZ_OK && (j->err == GPZ_OK || k < j->err_at)) {
		j->err = r;
		j->err_at = k;
	}
}

static void *lane_main(void *arg)
{
	struct lane_arg *a = (struct lane_arg *)arg;
	struct lanes_job *j = a->j;
	gpz_result r = gpz_gpu_use(a->g);
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamWaitEvent((cudaStream_t)a->g->stream, j->ready, 0));
	for (;;) {
		pthread_mutex_lock(&j->mu);
		size_t k = j->next;
		if (r != GPZ_OK)
			fail(j, k, r);
		/* no new frame after a failure before it: its outcome could not be reported */
		bool stop = k >= j->nframes || (j->err != GPZ_OK && j->err_at < k);
		if (!stop)
			j->next++;
		pthread_mutex_unlock(&j->mu);
		if (stop || r != GPZ_OK)
			return NULL;
		a->frame(j, a->g, k);
	}
}

/* Run the call's frames on n lanes (the caller's thread is lane 0); the first error in frame
 * order, or GPZ_OK. */
static gpz_result run_lanes(struct lanes_job *j, struct gpz_gpu **g, int n, cudaStream_t st,
                            void (*frame)(struct lanes_job *, struct gpz_gpu *, size_t))
{
	struct lane_arg a[GPZ_DEV_LANES];
	pthread_t tid[GPZ_DEV_LANES];
	bool started[GPZ_DEV_LANES] = { false };
	gpz_result r = gpz_cuda_result(cudaEventCreateWithFlags(&j->ready, cudaEventDisableTiming));

	if (r != GPZ_OK)
		return r;
	r = gpz_cuda_result(cudaEventRecord(j->ready, st));
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	for (int i = 0; r == GPZ_OK && i < n; i++) {
		a[i] = (struct lane_arg){ j, g[i], frame };
		if (i > 0)
			started[i] = pthread_create(&tid[i], NULL, lane_main, &a[i]) == 0;
	}
	if (r == GPZ_OK)
		lane_main(&a[0]);
	for (int i = 1; i < n; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	gpz_gpu_use(g[0]); /* lane 0 ran here: the thread stays on the context's device */
	cudaEventDestroy(j->ready);
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	return r != GPZ_OK ? r : j->err;
}

/* ---- compress ---- */

extern "C" size_t gpz_device_workspace_size(const gpz_params *p, size_t src_size)
{
	if (gpz_params_check(p) != GPZ_OK)
		return 0;
	const size_t frame = src_size < p->frame_bytes ? src_size : p->frame_bytes;
	const size_t nframes = frame ? (src_size + frame - 1) / frame : 0;
	const size_t lanes = nframes < COMPRESS_LANES ? nframes : COMPRESS_LANES;
	const size_t one = gpz_gpu_frame_workspace(p, frame);
	/* with several frames, each lane also holds one frame's output */
	const size_t per_frame = lanes > 1 ? lanes * (one + gpz_frame_bound(frame, p)) : one;
	/* frames that may go through frames_gpu.cu (its rule but the input's address) */
	const size_t batched = gpz_gpu_frames_take(p, NULL, src_size)
	                               ? gpz_gpu_frames_workspace(p, src_size) : 0;
	return per_frame > batched ? per_frame : batched;
}

/* Frame k into the lane's buffer, then, after the frames before it, to its place. */
static void compress_lane_frame(struct lanes_job *j, struct gpz_gpu *g, size_t k)
{
	const gpz_params *p = j->p;
	const size_t done = k * p->frame_bytes;
	const size_t piece = j->src_size - done < p->frame_bytes ? j->src_size - done : p->frame_bytes;
	const size_t bound = gpz_frame_bound(piece, p);
	size_t w = 0;
	gpz_result r = gpz_gpu_reserve(&g->out, &g->out_cap, bound);

	if (r == GPZ_OK)
		r = gpz_gpu_frame_compress_dev(g, p, j->src + done, piece, g->out, bound, &w, g->stream);
	pthread_mutex_lock(&j->mu);
	while (j->done < k)
		pthread_cond_wait(&j->cv, &j->mu);
	if (j->err != GPZ_OK && j->err_at < k)
		r = GPZ_OK; /* an earlier frame failed: this one's outcome does not matter */
	else if (r == GPZ_OK && w > j->cap - j->pos)
		r = GPZ_ERR_DST_TOO_SMALL;
	else if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(j->dst + j->pos, g->out, w, cudaMemcpyDeviceToDevice,
		                                    (cudaStream_t)g->stream));
	if (r == GPZ_OK) /* the lane's buffer is reused by its next frame */
		r = gpz_cuda_result(cudaStreamSynchronize((cudaStream_t)g->stream));
	if (j->err == GPZ_OK || j->err_at > k) {
		fail(j, k, r);
		if (r == GPZ_OK)
			j->pos += w;
	}
	j->done++;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

extern "C" gpz_result gpz_compress_device(gpz_ctx *ctx, const gpz_params *p, const void *d_src,
                                          size_t src_size, void *d_dst, size_t dst_cap,
                                          size_t *dst_size, void *stream)
{
	const uint8_t *s = (const uint8_t *)d_src;
	uint8_t *d = (uint8_t *)d_dst, hdr[GPZ_HEADER_SIZE], trl[GPZ_TRAILER_SIZE];
	cudaStream_t st = (cudaStream_t)stream;
	size_t pos = 0, done = 0, w = 0;
	uint32_t frames = 0;
	gpz_result r;

	if (!ctx || !dst_size || gpz_params_check(p) != GPZ_OK || (!d_src && src_size) || !d_dst)
		return GPZ_ERR_PARAM;
	if (!gpz_ctx_gpu(ctx))
		return GPZ_ERR_NO_GPU;
	*dst_size = 0;
	if (src_size % (size_t)p->symbol_bytes)
		return GPZ_ERR_SIZE_ALIGN;
	r = gpz_write_header(hdr, sizeof(hdr), &w);
	if (r == GPZ_OK && dst_cap < w)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(d, hdr, w, cudaMemcpyHostToDevice, st));
	pos = w;
	const size_t nframes = (src_size + p->frame_bytes - 1) / p->frame_bytes;
	if (r == GPZ_OK && gpz_gpu_frames_take(p, s, src_size)) { /* every frame at once */
		r = gpz_gpu_frames_compress_dev(ctx->gpu, p, s, src_size, d + pos, dst_cap - pos, &w,
		                                (gpz_stream_t)st);
		pos += w;
		done = src_size;
		frames = (uint32_t)nframes;
	}
	struct gpz_gpu *g[GPZ_DEV_LANES];
	const int nl = r == GPZ_OK && p->lz_level == 0 && done < src_size
	                       ? lanes_for(ctx, nframes, COMPRESS_LANES, g) : 1;
	if (nl > 1) {
		struct lanes_job j;
		memset(&j, 0, sizeof(j));
		j.nframes = nframes;
		j.p = p;
		j.src = s;
		j.src_size = src_size;
		j.dst = d;
		j.cap = dst_cap;
		j.pos = pos;
		r = run_lanes(&j, g, nl, st, compress_lane_frame);
		pos = j.pos;
		done = src_size;
		frames = (uint32_t)nframes;
	}
	while (r == GPZ_OK && done < src_size) {
		size_t piece = src_size - done < p->frame_bytes ? src_size - done : p->frame_bytes;
		if (p->lz_level > 0) /* coded on the host */
			r = lz_compress_via_host(ctx, p, s + done, piece, d + pos, dst_cap - pos, &w, st);
		else
			r = gpz_gpu_frame_compress_dev(ctx->gpu, p, s + done, piece, d + pos,
			                               dst_cap - pos, &w, (gpz_stream_t)st);
		pos += w;
		done += piece;
		frames++;
	}
	if (r == GPZ_OK)
		r = gpz_write_trailer(src_size, frames, trl, sizeof(trl), &w);
	if (r == GPZ_OK && dst_cap - pos < w)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(d + pos, trl, w, cudaMemcpyHostToDevice, st));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamSynchronize(st));
	if (r == GPZ_OK)
		*dst_size = pos + w;
	return r;
}

/* ---- decompress ---- */

static void decompress_lane_frame(struct lanes_job *j, struct gpz_gpu *g, size_t k)
{
	size_t got = 0, off = j->out[k], at = j->at[k];
	uint64_t sum;
	/* the frame's header, where the host has it already */
	const uint8_t *peek = at <= j->head_n && j->head_n - at >= GPZ_BLOCK_PEEK_SIZE ? j->head + at
	                                                                             : NULL;
	gpz_result r = gpz_gpu_frame_decompress_dev(g, j->src + at, j->avail[k], peek, j->dst + off,
	                                            off < j->cap ? j->cap - off : 0, &got, &sum,
	                                            g->stream);
	pthread_mutex_lock(&j->mu);
	fail(j, k, r);
	pthread_mutex_unlock(&j->mu);
}

/* The frames of the streams at d_src, in order: each frame's offset, the bytes from there to
 * the end, its content's offset in the output. Stops at the first header, frame header or
 * trailer that is wrong (*err, the frames before it listed) or at the end. */
struct frame_list {
	size_t n, cap, *at, *avail, *out;
	uint64_t total;
};

static gpz_result list_add(struct frame_list *fl, size_t at, size_t avail, uint64_t out)
{
	if (fl->n == fl->cap) {
		size_t c = fl->cap ? 2 * fl->cap : 64;
		size_t *a = (size_t *)realloc(fl->at, c * sizeof(size_t));
		if (a)
			fl->at = a;
		size_t *v = (size_t *)realloc(fl->avail, c * sizeof(size_t));
		if (v)
			fl->avail = v;
		size_t *o = (size_t *)realloc(fl->out, c * sizeof(size_t));
		if (o)
			fl->out = o;
		if (!a || !v || !o)
			return GPZ_ERR_NOMEM;
		fl->cap = c;
	}
	fl->at[fl->n] = at;
	fl->avail[fl->n] = avail;
	fl->out[fl->n] = (size_t)out;
	fl->n++;
	return GPZ_OK;
}

/* The stream's bytes the host reads first: its first head_n and its last tail_n (where a
 * one-frame stream's trailer is), copied back together. */
struct ends {
	uint8_t head[GPZ_HEADER_SIZE + GPZ_BLOCK_PEEK_SIZE];
	uint8_t tail[GPZ_TRAILER_SIZE];
	size_t head_n, tail_n, tail_at;
};

/* Through the context's 64 pinned bytes, so that both copies take one wait (from pageable
 * memory each would wait on its own). */
static gpz_result read_ends(struct gpz_gpu *g, const uint8_t *s, size_t src_size,
                            struct ends *e, cudaStream_t st)
{
	uint8_t *p = (uint8_t *)g->pinned;
	static_assert(sizeof(e->head) + sizeof(e->tail) <= 64, "the pinned bytes hold both ends");
	e->head_n = src_size < sizeof(e->head) ? src_size : sizeof(e->head);
	e->tail_n = src_size < sizeof(e->tail) ? src_size : sizeof(e->tail);
	e->tail_at = src_size - e->tail_n;
	GPZ_CUDA_TRY(cudaMemcpyAsync(p, s, e->head_n, cudaMemcpyDeviceToHost, st));
	GPZ_CUDA_TRY(cudaMemcpyAsync(p + sizeof(e->head), s + e->tail_at, e->tail_n,
	                             cudaMemcpyDeviceToHost, st));
	GPZ_CUDA_TRY(cudaStreamSynchronize(st));
	memcpy(e->head, p, e->head_n);
	memcpy(e->tail, p + sizeof(e->head), e->tail_n);
	return GPZ_OK;
}

/* n bytes of the device stream s from pos into buf: from the ends the host has where they hold
 * them, else copied back. */
static gpz_result peek(uint8_t *buf, const uint8_t *s, size_t pos, size_t n, const struct ends *e,
                       cudaStream_t st)
{
	if (pos <= e->head_n && n <= e->head_n - pos) {
		memcpy(buf, e->head + pos, n);
		return GPZ_OK;
	}
	if (pos >= e->tail_at && n <= e->tail_n - (pos - e->tail_at)) {
		memcpy(buf, e->tail + (pos - e->tail_at), n);
		return GPZ_OK;
	}
	return gpz_cuda_d2h(buf, s + pos, n, st);
}

static gpz_result list_frames(const uint8_t *s, size_t src_size, const struct ends *e,
                              cudaStream_t st, struct frame_list *fl)
{
	uint8_t buf[GPZ_BLOCK_PEEK_SIZE];
	size_t pos = 0;
	gpz_result r = GPZ_OK;

	while (r == GPZ_OK && pos < src_size) { /* one stream per iteration: concatenation */
		uint32_t frames = 0;
		uint64_t stream_total = 0;
		size_t np = src_size - pos < GPZ_HEADER_SIZE ? src_size - pos : GPZ_HEADER_SIZE;
		r = peek(buf, s, pos, np, e, st);
		if (r == GPZ_OK)
			r = gpz_read_header(buf, np);
		pos += GPZ_HEADER_SIZE;
		while (r == GPZ_OK) {
			gpz_block_info in;
			np = src_size - pos < sizeof(buf) ? src_size - pos : sizeof(buf);
			r = np ? peek(buf, s, pos, np, e, st) : GPZ_ERR_TRUNCATED;
			if (r == GPZ_OK)
				r = gpz_parse_block(buf, np, &in);
			if (r == GPZ_OK && in.kind == GPZ_BLOCK_TRAILER) {
				r = gpz_read_trailer(buf, np, stream_total, frames);
				pos += GPZ_TRAILER_SIZE;
				break;
			}
			/* a frame whose own size runs past the input: its decoder reports it */
			if (r == GPZ_OK)
				r = list_add(fl, pos, src_size - pos, fl->total);
			if (r == GPZ_OK && in.block_bytes > src_size - pos)
				return GPZ_ERR_TRUNCATED;
			pos += (size_t)in.block_bytes;
			fl->total += in.content_bytes;
			stream_total += in.content_bytes;
			frames++;
		}
	}
	return r;
}

/* Whether the stream (its first buf_n bytes in buf) starts with a Huffman-only, stored or
 * constant frame of at most SMALL_FRAME bytes that is not its last block: one that
 * frames_decode_gpu.cu may take whole (a frame at a time costs a few host round trips a
 * frame). */
#define SMALL_FRAME ((uint64_t)16 << 20)

static bool small_frames(const uint8_t *buf, size_t buf_n, size_t src_size)
{
	gpz_block_info in;
	if (buf_n < GPZ_HEADER_SIZE + GPZ_BLOCK_PEEK_SIZE ||
	    gpz_read_header(buf, GPZ_HEADER_SIZE) != GPZ_OK ||
	    gpz_parse_block(buf + GPZ_HEADER_SIZE, GPZ_BLOCK_PEEK_SIZE, &in) != GPZ_OK)
		return false;
	return in.kind == GPZ_BLOCK_FRAME && in.frame_type >= GPZ_FRAME_HUFFMAN &&
	       in.frame_type <= GPZ_FRAME_CONSTANT && in.content_bytes <= SMALL_FRAME &&
	       in.block_bytes + GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE < src_size;
}

extern "C" gpz_result gpz_decompress_device(gpz_ctx *ctx, const void *d_src, size_t src_size,
                                            void *d_dst, size_t dst_cap, size_t *dst_size,
                                            void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	struct frame_list fl;
	struct gpz_gpu *g[GPZ_DEV_LANES];

	if (!ctx || !d_src || !dst_size || (!d_dst && dst_cap))
		return GPZ_ERR_PARAM;
	if (!gpz_ctx_gpu(ctx))
		return GPZ_ERR_NO_GPU;
	*dst_size = 0;
	if (src_size == 0) /* as the host call: a stream has a header at least */
		return GPZ_ERR_TRUNCATED;
	/* the stream's ends, read once for the choice below and the list of frames */
	struct ends e;
	gpz_result hr = read_ends(ctx->gpu, (const uint8_t *)d_src, src_size, &e, st);
	if (hr != GPZ_OK)
		return hr;
	if (small_frames(e.head, e.head_n, src_size)) {
		gpz_result rb = gpz_gpu_frames_decompress_dev(ctx->gpu, ctx->nthreads,
		                                              (const uint8_t *)d_src, src_size, 0,
		                                              (uint8_t *)d_dst, dst_cap, dst_size,
		                                              (gpz_stream_t)st);
		/* done, or the GPU failed; not taken, or short of host memory: a frame at a time */
		if (rb != GPZ_ERR_PARAM && rb != GPZ_ERR_NOMEM)
			return rb;
	}
	memset(&fl, 0, sizeof(fl));
	/* a failure in the list comes after every frame listed: theirs are reported first */
	gpz_result lr = list_frames((const uint8_t *)d_src, src_size, &e, st, &fl),
		   r = GPZ_OK;
	if (fl.n) {
		struct lanes_job j;
		memset(&j, 0, sizeof(j));
		j.nframes = fl.n;
		j.src = (const uint8_t *)d_src;
		j.dst = (uint8_t *)d_dst;
		j.cap = dst_cap;
		j.at = fl.at;
		j.avail = fl.avail;
		j.out = fl.out;
		j.head = e.head;
		j.head_n = e.head_n;
		r = run_lanes(&j, g, lanes_for(ctx, fl.n, GPZ_DEV_LANES, g), st, decompress_lane_frame);
	}
	if (r == GPZ_OK)
		r = lr;
	if (r == GPZ_OK)
		*dst_size = (size_t)fl.total;
	free(fl.at);
	free(fl.avail);
	free(fl.out);
	return r;
}
