/* inflate_io.c - gpz_inflate_member_at(_to): a gzip member gpz wrote (with the piece index) from
 * positional input, through the frame engine, with bounded memory. A frame is a batch of pieces:
 * a lane reads their compressed bytes and inflates them in parallel on the context's threads
 * (deflate/gunzip.c's batches: the bytes copied from each piece's unknown window are left for
 * later; when the batch before has already been decoded to final bytes, as it always has with
 * one lane, its last 32 KiB are the window and the batch goes straight to bytes); then, in frame
 * order, those bytes are filled in from the window (the previous batch's last 32 KiB, or the
 * piece before in the batch), the CRC-32 is taken piece by piece in parallel, and the bytes are
 * written (in order; or, with positional output, by the lane at the batch's offset once that is
 * done, beside the other lanes). On several threads the lanes hand their batches' runs to one
 * pool of the context's threads (a lane's batch cut in runs for twice its share of them), so
 * that no thread waits for its own lane's slowest run. Memory: each lane holds a batch's input,
 * output and 16-bit symbols (3 bytes an output byte; the symbols touched only for runs that
 * start without their window) of GPZ_INFL_PER_THREAD pieces for each of twice its share of the
 * threads (the context's threads over the engine's lanes), so about 48 MiB a thread in all.
 * Every lane's batch on all the threads was 3 x 64 MiB a lane at 16 threads (8 lanes): 1.7 GB
 * touched for the first time while a 1 GB member decoded, its page faults 1.15 s of system time
 * and the run slower than on 8 threads (16-core H100 host,
 * bench/results/2026-11-26-h100-cpu-inflate-threads.md).
 * On a context with a GPU (AUTO ones from 64 MiB of output on) a lane decodes a batch of GPU_BATCH
 * pieces on its GPU instead (deflate/gunzip_gpu.cu), the bytes copied from the batch's window
 * listed after its bytes, and filled in at its turn. */
#include "common/context.h"
#include "common/bits.h"
#include "common/crc_combine.h"
#include "common/parallel.h"
#include "container/engine.h"
#include "deflate/deflate.h"
#include "deflate/deflate_gpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define WINDOW 32768
#define HEAD_MAX ((size_t)80 << 10) /* header bytes read: FEXTRA (<= 64 KiB), name, comment */
/* Pieces a GPU lane decodes at once: a warp each, so the more the better, within what a lane
 * may pin (its output and the list of window bytes: 1.5 bytes an output byte) */
#define GPU_BATCH 512
#define GPU_AUTO_MIN ((uint64_t)64 << 20) /* output bytes from which AUTO contexts use the GPU */
/* GPU lanes a member uses on each GPU: each pins its batch's input and output (about 190 MiB) at its first
 * batch, which costs more than a fifth lane gains (4 GB of text on an H200 host, first call /
 * later calls: 4 lanes 0.84 / 0.68-0.74 s, 6 lanes 0.99-1.19 / 0.55-0.75 s, 8 lanes 1.33 /
 * 0.73-0.76 s; bench/results/2026-11-23-h200-tool-inflate.md) */
#define GPU_LANES 4
#define BATCH_MAX (GPU_BATCH > GPZ_DFL_CPU_BATCH ? GPU_BATCH : GPZ_DFL_CPU_BATCH)

struct iio {
	gpz_ctx *ctx;
	int gpu;                /* the lanes decode on their GPUs */
	uint64_t *off;          /* np + 1 offsets of the pieces in the member's data */
	uint32_t np;
	size_t piece;           /* output bytes an index entry stands for */
	int alone;              /* entries decode without the bytes before them: no symbols */
	uint32_t cut;           /* or every cut-th entry does (0: none said) */
	size_t batch;           /* entries a frame */
	size_t span;            /* entries a lane's buffers hold: a batch's, or the member's if fewer */
	int lane_threads;       /* threads a lane decodes its batch on */
	struct gpz_pool *pool;  /* or the CPU lanes' runs all go to these workers, */
	int split;              /* a batch cut in runs as for this many threads */
	gpz_write_fn write;
	gpz_write_at_fn write_at; /* or positional output: the engine writes after iio_put */
	void *user;
	uint8_t tail[WINDOW];   /* the last 32 KiB written: the next batch's first window */
	uint64_t out;
	uint32_t crc;
	/* The last 32 KiB of a batch its lane decoded to final bytes, and the batch they are the
	 * window of: a lane that takes that batch next (one lane always does) decodes it straight
	 * to bytes instead of to symbols resolved at its turn. */
	pthread_mutex_t mu;
	uint64_t window_for;
	uint8_t window[WINDOW];
};

/* A lane's batch, for the hand-over. On the CPU, the lane's output buffer holds the batch's
 * bytes, then its 16-bit symbols (2 bytes an output byte: the bytes copied from the window are
 * known only in order). On the GPU: the bytes, then the list of those copied from the window;
 * a batch the CPU redoes gets its symbols in `scratch`. */
struct imeta {
	uint64_t off[BATCH_MAX + 1]; /* the pieces' offsets in the lane's input */
	struct gpz_infl_res res[BATCH_MAX];
	struct gpz_infl_batch b;
	int on_gpu;    /* decoded by the GPU */
	size_t nlist;  /* the window bytes it listed */
	void *scratch; /* freed once the batch is written */
};

static size_t iio_bound(void *u, size_t n)
{
	const struct iio *io = u;
	(void)n;
	if (io->gpu) /* pieces alone list no window bytes */
		return io->span * io->piece +
		       (io->alone ? 0 : gpz_gpu_infl_batch_list(io->span) * sizeof(uint64_t));
	return (io->alone ? 1 : 3) * io->span * io->piece;
}

static gpz_result iio_run(void *u, struct gpz_gpu *g, uint64_t index, const uint8_t *src,
                          size_t pre, size_t n, int last, uint8_t *out, size_t cap, size_t *len,
                          void *meta)
{
	struct iio *io = u; /* its window state changes, under io->mu */
	struct imeta *m = meta;
	size_t k0 = (size_t)index * io->batch;
	size_t nk = io->np - k0 < io->batch ? io->np - k0 : io->batch;

	(void)pre, (void)n, (void)last, (void)cap;
	for (size_t j = 0; j <= nk; j++)
		m->off[j] = io->off[k0 + j] - io->off[k0];
	m->scratch = NULL;
	m->b = (struct gpz_infl_batch){ src,
		                        m->off,
		                        k0,
		                        nk,
		                        io->np,
		                        io->alone ? NULL : (uint16_t *)(out + io->span * io->piece),
		                        out,
		                        io->span * io->piece,
		                        m->res,
		                        io->piece,
		                        io->alone,
		                        io->cut,
		                        io->pool };
	m->on_gpu = 0;
	m->nlist = 0;
	if (io->gpu) {
		uint64_t *list = (uint64_t *)(out + io->span * io->piece);
		gpz_result r = !g || gpz_ctx_test_gpu_failure()
		                       ? GPZ_ERR_GPU
		                       : gpz_gpu_infl_batch(g, &m->b, list, &m->nlist, len);
		if (r == GPZ_OK && m->nlist <= gpz_gpu_infl_batch_list(nk)) {
			m->on_gpu = 1;
			return GPZ_OK;
		}
		if (r != GPZ_OK && !gpz_ctx_falls_back(io->ctx, r))
			return r; /* bad input (the CPU would say the same), or no fallback asked for */
		/* the CPU redoes it, with symbols of its own */
		m->nlist = 0;
		m->scratch = malloc(nk * io->piece * sizeof(uint16_t));
		if (!m->scratch)
			return GPZ_ERR_NOMEM;
		m->b.sym = m->scratch;
	}
	uint8_t *win = NULL;
	if (index > 0) { /* the window, when the batch before is already final bytes */
		pthread_mutex_lock(&io->mu);
		if (io->window_for == index && (win = malloc(WINDOW)) != NULL)
			memcpy(win, io->window, WINDOW);
		pthread_mutex_unlock(&io->mu);
	}
	gpz_result r = gpz_infl_batch_decode(io->split, &m->b, win, len);
	free(win);
	if (r == GPZ_OK)
		gpz_infl_batch_resolve_inner(io->lane_threads, &m->b);
	if (r == GPZ_OK && *len >= WINDOW && !m->res[nk - 1].marked) { /* ends in final bytes */
		pthread_mutex_lock(&io->mu);
		memcpy(io->window, out + *len - WINDOW, WINDOW);
		io->window_for = index + 1;
		pthread_mutex_unlock(&io->mu);
	}
	if (r != GPZ_OK) { /* no put follows */
		free(m->scratch);
		m->scratch = NULL;
	}
	return r;
}

/* In order: the window's bytes filled in (from the last 32 KiB written), CRC-32, write. */
static gpz_result iio_put(void *u, const uint8_t *buf, size_t len, const void *meta,
                          size_t in_bytes)
{
	struct iio *io = u;
	struct imeta *m = (struct imeta *)meta;
	gpz_result r;

	(void)in_bytes;
	if (m->on_gpu)
		gpz_infl_batch_fill(io->ctx->nthreads, &m->b,
		                    (const uint64_t *)(buf + io->span * io->piece), m->nlist, io->tail);
	else
		gpz_infl_batch_resolve(io->ctx->nthreads, &m->b, m->b.k0 ? io->tail : NULL);
	free(m->scratch);
	m->scratch = NULL;
	for (size_t j = 0; j < m->b.nk; j++)
		io->crc = gpz_crc32_combine(io->crc, m->res[j].crc, m->res[j].n);
	if (io->write_at) /* written at the offset it was submitted with: it must start there */
		r = io->out == m->b.k0 * io->piece ? GPZ_OK : GPZ_ERR_CORRUPT;
	else
		r = io->write(io->user, buf, len);
	io->out += len;
	if (len >= WINDOW) /* only the last batch may be shorter, and nothing follows it */
		memcpy(io->tail, buf + len - WINDOW, WINDOW);
	return r;
}

/* The member's header at `offset`: where its data starts, and its piece offsets. */
static gpz_result member_index(struct iio *io, gpz_read_at_fn read_at, void *user,
                               uint64_t src_size, uint64_t offset, uint64_t *data)
{
	size_t n = src_size - offset < HEAD_MAX ? (size_t)(src_size - offset) : HEAD_MAX;
	uint8_t *h = malloc(n ? n : 1);
	uint8_t *tail = NULL;
	struct gpz_gzip_member m;
	gpz_result r = h ? read_at(user, h, n, offset) : GPZ_ERR_NOMEM;

	if (r == GPZ_OK)
		r = gpz_gzip_header(h, n, &m);
	if (r == GPZ_OK && m.np == 0) { /* a stream written to a pipe has its index after it */
		size_t tn = src_size < GPZ_GZIP_TAIL_BYTES ? (size_t)src_size : GPZ_GZIP_TAIL_BYTES;
		struct gpz_gzip_tail t;
		tail = malloc(tn ? tn : 1);
		r = tail ? read_at(user, tail, tn, src_size - tn) : GPZ_ERR_NOMEM;
		if (r == GPZ_OK && gpz_gzip_tail_index(tail, tn, src_size, &t) && t.member == offset)
			gpz_gzip_adopt_tail(&m, &t);
	}
	if (r == GPZ_OK && (m.np == 0 || m.np > UINT32_MAX / 2))
		r = GPZ_ERR_FORMAT; /* no index: for zlib */
	if (r == GPZ_OK && !(io->off = malloc(((size_t)m.np + 1) * sizeof(*io->off))))
		r = GPZ_ERR_NOMEM;
	if (r == GPZ_OK) {
		io->np = m.np;
		io->piece = (size_t)1 << m.piece_log;
		io->alone = m.alone;
		io->cut = m.cut;
		io->off[0] = 0;
		for (uint32_t k = 0; k < m.np; k++)
			io->off[k + 1] = io->off[k] + gpz_load_le32(m.lens + 4 * k);
		*data = offset + m.data;
		if (io->off[m.np] > src_size - *data || src_size - *data - io->off[m.np] < 8)
			r = GPZ_ERR_FORMAT; /* an index that does not fit: for zlib, which will tell */
	}
	free(tail);
	free(h);
	return r;
}

static gpz_result member_at(gpz_ctx *ctx, gpz_read_at_fn read_at, uint64_t src_size,
                            uint64_t offset, gpz_write_fn write, gpz_write_at_fn write_at,
                            void *user, uint64_t *in_bytes, uint64_t *out_bytes)
{
	struct iio *io = calloc(1, sizeof(*io));
	struct gpz_engine_job job = { io, 0, sizeof(struct imeta), iio_bound, iio_run, iio_put,
		                      GPU_LANES };
	struct gpz_engine *e = NULL;
	uint64_t data = 0;
	uint8_t t[8];
	gpz_result r = io && pthread_mutex_init(&io->mu, NULL) == 0 ? GPZ_OK : GPZ_ERR_NOMEM;

	if (r != GPZ_OK) {
		free(io);
		return r;
	}
	if (in_bytes)
		*in_bytes = 0;
	if (out_bytes)
		*out_bytes = 0;
	if (!ctx || !read_at || !(write || write_at) || offset >= src_size) {
		pthread_mutex_destroy(&io->mu);
		free(io);
		return GPZ_ERR_PARAM;
	}
	if (r == GPZ_OK)
		r = member_index(io, read_at, user, src_size, offset, &data);
	if (r == GPZ_OK) {
		io->ctx = ctx;
		/* measured on an H200 host with 16 cores, 4 GB of text, 256 KiB pieces: GPU lanes
		 * 2.3-2.7 GB/s, 16 CPU threads 1.6-1.8 (bench/results/2026-11-23-h200-gpu-inflate-2.md);
		 * smaller members finish before the GPU's copies and start pay off */
		io->gpu = io->piece == GPZ_DEFLATE_PIECE && /* the GPU's reader: pieces alone */
		          (ctx->gpu_asked || (uint64_t)io->np * io->piece >= GPU_AUTO_MIN) &&
		          gpz_ctx_gpu(ctx);
		io->write = write;
		io->write_at = write_at;
		io->user = user;
		r = gpz_engine_open_job(ctx, &job, &e);
	}
	if (r == GPZ_OK) { /* the lanes decode at once: each on its share of the threads */
		int lanes = gpz_engine_lanes(e);
		int th = ctx->nthreads / (lanes > 0 ? lanes : 1);
		io->lane_threads = io->gpu ? ctx->nthreads : th > 1 ? th : 1;
		/* CPU lanes on several threads share one pool of them, each lane's batch split in
		 * runs for twice its share: a worker done with one batch's run takes another's,
		 * where a lane's own threads each waited for the batch's slowest run, and 16 threads
		 * of an H200 host were busy 79% of a 1 GB gzip -6 (a run 8 MiB, ~30 ms) */
		io->split = io->lane_threads;
		if (!io->gpu && ctx->nthreads > 1 && (io->pool = gpz_pool_open(ctx->nthreads)))
			io->split *= 2;
		io->batch = io->gpu ? GPU_BATCH : gpz_infl_batch_entries(io->split, io->piece);
		io->span = io->batch < io->np ? io->batch : io->np;
	}
	if (r == GPZ_OK) {
		gpz_engine_positional(e, read_at, user);
		if (write_at)
			gpz_engine_positional_out(e, write_at, user);
		for (uint32_t k0 = 0; r == GPZ_OK && k0 < io->np; k0 += (uint32_t)io->batch) {
			uint32_t k1 = io->np - k0 < io->batch ? io->np : k0 + (uint32_t)io->batch;
			r = gpz_engine_next(e, 0, NULL);
			if (r == GPZ_OK)
				gpz_engine_submit_job(e, NULL, (size_t)(io->off[k1] - io->off[k0]), 0,
				                      data + io->off[k0], k1 == io->np,
				                      (uint64_t)k0 * io->piece);
		}
	}
	if (e) {
		gpz_result re = gpz_engine_close(e, NULL);
		r = re != GPZ_OK ? re : r;
	}
	if (r == GPZ_OK)
		r = read_at(user, t, 8, data + io->off[io->np]);
	if (r == GPZ_OK && (gpz_load_le32(t) != io->crc || gpz_load_le32(t + 4) != (uint32_t)io->out))
		r = GPZ_ERR_CORRUPT;
	if (r == GPZ_OK && in_bytes)
		*in_bytes = data + io->off[io->np] + 8 - offset;
	if (out_bytes && io)
		*out_bytes = io->out;
	gpz_pool_close(io->pool);
	free(io->off);
	pthread_mutex_destroy(&io->mu);
	free(io);
	return r;
}

gpz_result gpz_inflate_member_at(gpz_ctx *ctx, gpz_read_at_fn read_at, uint64_t src_size,
                                 uint64_t offset, gpz_write_fn write, void *user,
                                 uint64_t *in_bytes, uint64_t *out_bytes)
{
	return member_at(ctx, read_at, src_size, offset, write, NULL, user, in_bytes, out_bytes);
}

gpz_result gpz_inflate_member_at_to(gpz_ctx *ctx, gpz_read_at_fn read_at, uint64_t src_size,
                                    uint64_t offset, gpz_write_at_fn write_at, void *user,
                                    uint64_t *in_bytes, uint64_t *out_bytes)
{
	return member_at(ctx, read_at, src_size, offset, NULL, write_at, user, in_bytes, out_bytes);
}
