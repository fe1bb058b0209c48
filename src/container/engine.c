/* engine.c - the pipelined frame engine (engine.h). */
#include "container/engine.h"
#include "common/context.h"
#include "common/memory.h"
#include "common/parallel.h"
#include "container/frame.h"
#include "container/frame_gpu.h"
#include "gpu/gpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* On the GPU, a lane's frame time is mostly its host copies (to and from pinned memory), so
 * throughput grows with lanes up to the host's memory bandwidth: 6 lanes reach about 23 GB/s on
 * an H200 host (bench/results), at 6 * 2 frames of pinned memory. */
#define DEPTH_GPU 6
/* On the CPU, a frame's stages are parallel but not perfectly so (the codebook, joining the
 * threads' bits, thread start-up): frames side by side fill the gaps. With 16 threads on an H200
 * host, Huffman-only compression of 1 GiB ran 2.5 (text) and 4.9 (Nyx codes) GB/s with 2 lanes,
 * 3.3 and 7.3 with 8 (bench/results/2026-11-23-h200-file-engine.md). Since each lane's frame
 * runs on all the threads, 4 lanes did better than 8 at 16 threads on an H100 host, the tool
 * file to /dev/null (Huffman-only 1 GiB of Nyx codes 0.22-0.25 s against 0.26-0.28, of text
 * 0.30-0.31 against 0.35-0.42, gzip -6 of 1 GB of text 1.57 against 1.85; 8 lanes touched
 * 0.6-1 GB for the first time, 1.1 s of page faults;
 * bench/results/2026-11-26-h100-cpu-inflate-threads.md). Lanes: half the threads, from 2 to 4,
 * at two frames of memory each. */
#define DEPTH_CPU_MIN 2
#define DEPTH_CPU_MAX 4
/* LZ-mode frames at levels 1-3: every lane pins two frames of host memory at its first frame,
 * and fewer lanes keep the GPU as busy, so they start sooner; at higher levels more lanes'
 * kernels overlap better (as the gzip writer's batches: container/deflate_io.c). */
#define LZ_FAST_GPU_LANES 3
#define LZ_FAST_LEVEL 3

/* A host buffer of a lane: pinned when the lane works on a GPU. */
struct hbuf {
	uint8_t *p;
	size_t cap;
	int pinned;
};

/* What a lane keeps between calls. */
struct lane {
	struct gpz_gpu *g; /* NULL: the lane works on the CPU */
	int gpu_tried;     /* a warm lane has tried to open g */
	struct hbuf in, out;
	gpz_ctx cpu;       /* a warm lane's CPU side: the context with a share of its threads */
	struct gpz_scratch scratch; /* the CPU stages' memory kept between frames (cpu.scratch) */
};

/* Lanes made while an AUTO context was still starting its GPU are warm: they work on the CPU,
 * each with a share of the threads, and each opens its GPU resources itself once the start is
 * over, so the first frames need not wait for the CUDA context (about 0.4 s; the output is the
 * same on either side). LZ-mode compression, too slow on a share of the CPU, waits instead. */
struct lanes {
	int n;
	int warm;
	struct lane lane[GPZ_MAX_DEPTH];
};

/* A lane's job in this call. */
struct slot {
	struct gpz_engine *e;
	struct lane *ln;
	pthread_t tid;
	int started;
	int busy;          /* a frame is submitted and not yet handed over */
	const uint8_t *src;
	size_t n;
	uint8_t *dst;
	size_t dst_cap;
	uint64_t index;    /* the frame's number in this call */
	int at;            /* positional input at in_off */
	uint64_t in_off;
	uint64_t out_off;  /* positional output: where the frame's content goes */
	size_t pre;        /* a job's history bytes before src */
	int last;          /* a job's last frame */
	void *meta;        /* a job's meta_bytes about the frame */
	uint8_t *placed;   /* where the frame went in a pinned memory sink (place_frame), or NULL */
	size_t placed_len;
};

struct gpz_engine {
	gpz_ctx *ctx;
	gpz_params p;
	int decompress;
	struct gpz_engine_job job;  /* a job's (run set), else .gpz frames */
	gpz_engine_out_fn out;
	void *user;
	uint8_t *sink;              /* or a memory sink: output appended at sink_pos */
	size_t sink_cap, sink_pos;
	int sink_pinned;            /* GPU lanes copy frames straight into it (place_frame) */
	gpz_read_at_fn read_at; /* or positional input read by the lanes themselves */
	void *io_user;
	gpz_write_at_fn write_at; /* positional output written by the lanes themselves */
	void *wa_user;
	int append;                 /* ... at offsets learnt in frame order (gpz_engine_append_at) */
	uint64_t append_pos;        /* where the next frame's output goes then */
	struct lanes *L;
	int n;                      /* lanes this engine uses: the first n of L */
	struct slot slot[GPZ_MAX_DEPTH];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t submitted, handed; /* frames submitted, frames handed over in order */
	int quit;
	gpz_result err;             /* the first error in frame order */
};

/* ---- buffers ---- */

static void buf_free(struct hbuf *b)
{
	if (b->pinned)
		gpz_gpu_host_free(b->p);
	else
		free(b->p);
	b->p = NULL;
	b->cap = 0;
}

/* Make b hold at least need bytes (its first `keep` kept), pinned when the lane has a GPU. */
static gpz_result buf_reserve(struct lane *ln, struct hbuf *b, size_t need, size_t keep)
{
	struct hbuf nb = { NULL, need, ln->g != NULL };

	if (b->cap >= need && (b->pinned || !ln->g))
		return GPZ_OK;
	if (nb.pinned) {
		if (gpz_gpu_host_alloc((void **)&nb.p, need) != GPZ_OK)
			return GPZ_ERR_NOMEM;
	} else if (!(nb.p = gpz_big_alloc(need))) {
		return GPZ_ERR_NOMEM;
	}
	if (keep)
		memcpy(nb.p, b->p, keep);
	buf_free(b);
	*b = nb;
	return GPZ_OK;
}

static void lanes_free(gpz_ctx *ctx)
{
	struct lanes *L = ctx->lanes;

	for (int i = 0; L && i < L->n; i++) {
		buf_free(&L->lane[i].in);
		buf_free(&L->lane[i].out);
		gpz_scratch_free(&L->lane[i].scratch);
		gpz_gpu_close(L->lane[i].g);
	}
	free(L);
	ctx->lanes = NULL;
	ctx->lanes_free = NULL;
}

/* GPUs the lanes spread over. */
static int lane_gpus(const gpz_ctx *ctx)
{
	int ngpu = gpz_gpu_count();

	return ctx->gpus > 0 && ctx->gpus < ngpu ? ctx->gpus : ngpu;
}

/* The default number of lanes once the backend is known. */
static int default_lanes(const gpz_ctx *ctx)
{
	int ngpu = ctx->backend == GPZ_BACKEND_GPU ? lane_gpus(ctx) : 0;
	int n = ctx->depth ? ctx->depth : ctx->backend == GPZ_BACKEND_GPU
	      ? DEPTH_GPU * (ngpu > 0 ? ngpu : 1)
	      : ctx->nthreads <= 1 ? 1 /* one thread means one core busy */
	      : ctx->nthreads / 2 < DEPTH_CPU_MIN ? DEPTH_CPU_MIN
	      : ctx->nthreads / 2 > DEPTH_CPU_MAX ? DEPTH_CPU_MAX : ctx->nthreads / 2;

	return n < GPZ_MAX_DEPTH ? n : GPZ_MAX_DEPTH;
}

/* Give each lane a context of its own on the CPU with a share of the threads: lanes that all ran
 * frames with every thread oversubscribed the cores (4 lanes x 16 threads on 16 cores) and made
 * every frame's per-thread buffers for all of them. */
static void share_threads(const gpz_ctx *ctx, struct lanes *L)
{
	for (int i = 0; i < L->n; i++) {
		gpz_ctx *c = &L->lane[i].cpu;
		*c = *ctx;
		c->backend = GPZ_BACKEND_CPU;
		c->gpu_asked = 0;
		c->gpu = NULL;
		c->lanes = NULL;
		c->lanes_free = NULL;
		c->starting = 0;
		c->settled = 1;
		c->nthreads = (ctx->nthreads + L->n - 1) / L->n;
		c->scratch = &L->lane[i].scratch;
	}
}

/* Lanes made warm (the context still starting its GPU), each with a share of the threads. */
static void make_warm(gpz_ctx *ctx, struct lanes *L)
{
	L->warm = 1;
	L->n = ctx->depth ? ctx->depth : DEPTH_GPU;
	share_threads(ctx, L);
}

/* The lanes of one GPU: lane i belongs to GPU i % ngpu. */
struct gpu_lanes {
	struct lanes *L;
	int dev, ngpu;
	pthread_t tid;
	int threaded; /* tid runs it */
	gpz_result r;
};

static void *open_gpu_lanes(void *v)
{
	struct gpu_lanes *a = v;
	a->r = GPZ_OK;
	for (int i = a->dev; i < a->L->n; i += a->ngpu) {
		gpz_result r = gpz_gpu_open(&a->L->lane[i].g, a->dev);
		if (r != GPZ_OK && a->r == GPZ_OK)
			a->r = r;
	}
	return NULL;
}

/* Open every lane's GPU resources, each GPU's on a thread of its own: the first use of a GPU
 * creates its CUDA context (about 0.4 s), so one after the other the start grew with every GPU
 * (this way `gpz --gpu` of 1 MiB starts in 0.65-0.69 s on one or two H200s). The first error is
 * returned; lanes that failed keep g NULL. Every GPU entry selects its lane's device itself. */
static gpz_result open_lanes(struct lanes *L, int ngpu)
{
	struct gpu_lanes a[GPZ_MAX_DEPTH];
	gpz_result r = GPZ_OK;
	int n = ngpu < L->n ? ngpu : L->n;

	for (int d = 0; d < n; d++) {
		a[d] = (struct gpu_lanes){ .L = L, .dev = d, .ngpu = ngpu };
		a[d].threaded = d > 0 && pthread_create(&a[d].tid, NULL, open_gpu_lanes, &a[d]) == 0;
	}
	for (int d = 0; d < n; d++) {
		if (a[d].threaded)
			pthread_join(a[d].tid, NULL);
		else
			open_gpu_lanes(&a[d]); /* GPU 0 here, and any GPU no thread was left for */
		if (a[d].r != GPZ_OK && r == GPZ_OK)
			r = a[d].r;
	}
	return r;
}

/* The context's lanes, made on first use: a lane that cannot get GPU resources works on the CPU
 * (an AUTO context) or fails the call (a GPU one). Warm lanes are remade once the start is over
 * when the backend it found wants another number of them. */
static gpz_result lanes_get(gpz_ctx *ctx, struct lanes **out)
{
	struct lanes *L = ctx->lanes;
	int settled = gpz_ctx_is_settled(ctx);

	if (L && L->warm && settled && L->n != default_lanes(ctx))
		lanes_free(ctx);
	L = ctx->lanes;
	if (!L) {
		int gpu = settled && ctx->backend == GPZ_BACKEND_GPU;
		int ngpu = gpu ? lane_gpus(ctx) : 0;
		L = calloc(1, sizeof(*L));
		if (!L)
			return GPZ_ERR_NOMEM;
		if (settled) {
			L->n = default_lanes(ctx); /* lane i on GPU i % ngpu */
			if (!gpu)
				share_threads(ctx, L);
		} else
			make_warm(ctx, L);
		ctx->lanes = L;
		ctx->lanes_free = lanes_free;
		if (gpu) {
			gpz_result r = open_lanes(L, ngpu > 0 ? ngpu : 1);
			if (r != GPZ_OK && ctx->gpu_asked) {
				lanes_free(ctx);
				return r;
			}
		}
	}
	*out = L;
	return GPZ_OK;
}

/* ---- one frame on a lane ---- */

/* A lane reads its positional input in steps of READ_STEP on up to READ_THREADS threads: one
 * thread copies about 4 GB/s out of the page cache, so a 64 MiB frame read by one thread would
 * leave the CPU's cores or the GPU waiting (bench/results/2026-11-23-h200-gzip-engine.md). */
#define READ_STEP ((size_t)4 << 20)
#define READ_THREADS 8

struct read_job {
	const struct gpz_engine *e;
	uint8_t *buf;
	size_t n;
	uint64_t off;
	int failed;     /* atomic: the first error wins */
	gpz_result r;
};

static void read_task(void *v, size_t i)
{
	struct read_job *j = v;
	size_t at = i * READ_STEP, len = j->n - at < READ_STEP ? j->n - at : READ_STEP;
	gpz_result r = j->e->read_at(j->e->io_user, j->buf + at, len, j->off + at);

	if (r != GPZ_OK && !__atomic_exchange_n(&j->failed, 1, __ATOMIC_ACQ_REL))
		j->r = r;
}

static gpz_result read_frame(const struct gpz_engine *e, uint8_t *buf, size_t n, uint64_t off)
{
	struct read_job j = { e, buf, n, off, 0, GPZ_OK };
	size_t steps = (n + READ_STEP - 1) / READ_STEP;
	int t = e->ctx->nthreads < READ_THREADS ? e->ctx->nthreads : READ_THREADS;

	if (steps <= 1 || t <= 1)
		return e->read_at(e->io_user, buf, n, off);
	gpz_parallel_for(t, steps, read_task, &j);
	return j.r;
}

/* A lane copies a frame between the caller's memory and its own on up to COPY_THREADS threads:
 * one thread copies a 64 MiB frame in about 8 ms, several times the frame's GPU work, so with
 * pageable buffers the lanes' copies set the call's speed. */
#define COPY_THREADS 4

static void lane_copy(const struct gpz_engine *e, void *dst, const void *src, size_t n)
{
	gpz_parallel_copy(e->ctx->nthreads < COPY_THREADS ? e->ctx->nthreads : COPY_THREADS, dst,
	                  src, n);
}

/* A frame's input: where its n bytes are (after `pre` bytes of a job's history; .gpz frames have
 * none), read by the lane itself for positional input, staged into the lane's pinned buffer when
 * the GPU will read them. */
static gpz_result frame_input(struct slot *s, const uint8_t **src, size_t *pre)
{
	struct lane *ln = s->ln;
	struct gpz_engine *e = s->e;

	*pre = s->pre;
	if (s->at && e->read_at) {
		*pre = s->in_off < e->job.pre ? (size_t)s->in_off : e->job.pre;
		if (buf_reserve(ln, &ln->in, *pre + s->n + 1, 0) != GPZ_OK)
			return GPZ_ERR_NOMEM;
		*src = ln->in.p + *pre;
		return read_frame(e, ln->in.p, *pre + s->n, s->in_off - *pre);
	}
	if (!s->src) {
		*src = ln->in.p + s->pre;
		return GPZ_OK;
	}
	*src = s->src;
	if (!ln->g || gpz_gpu_is_pinned(s->src - s->pre))
		return GPZ_OK;
	if (buf_reserve(ln, &ln->in, s->pre + s->n + 1, 0) != GPZ_OK)
		return GPZ_ERR_NOMEM;
	lane_copy(e, ln->in.p, s->src - s->pre, s->pre + s->n);
	*src = ln->in.p + s->pre;
	return GPZ_OK;
}

/* A warm lane opens its GPU resources itself at its first frame after the start (beside the
 * other lanes); one that cannot stays on the CPU. */
static void lane_gpu(struct slot *s)
{
	struct gpz_engine *e = s->e;
	struct lane *ln = s->ln;
	int ngpu;

	if (!e->L->warm || ln->g || ln->gpu_tried)
		return;
	/* LZ-mode frames are many times slower on a share of the CPU threads (level 6: a 64 MiB
	 * frame on 3 threads takes about a second) than the GPU start: they wait for it */
	while (!e->decompress && e->p.lz_level > 0 && !gpz_ctx_is_settled(e->ctx)) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	if (!gpz_ctx_is_settled(e->ctx))
		return;
	ln->gpu_tried = 1;
	if (e->ctx->backend != GPZ_BACKEND_GPU)
		return;
	ngpu = lane_gpus(e->ctx);
	if (gpz_gpu_open(&ln->g, ngpu > 0 ? (int)(s - e->slot) % ngpu : 0) != GPZ_OK)
		ln->g = NULL;
}

/* The context a frame's CPU work runs with: a lane on the CPU backend or a warm one has its
 * share of the threads; a GPU lane's CPU fallback takes them all. */
static gpz_ctx *lane_ctx(const struct slot *s)
{
	return s->ln->g || (!s->e->L->warm && s->e->ctx->backend != GPZ_BACKEND_CPU)
	       ? s->e->ctx : &s->ln->cpu;
}

/* A GPU lane's frame of n bytes goes straight into a pinned memory sink: its turn taken now,
 * as soon as its size is known, instead of in hand_over (the copy out of the lane's own buffer
 * was 4 GiB of host copies a 4 GiB call for text, which all lanes of all GPUs share). NULL: the
 * frame goes to the lane's buffer and hand_over as usual (no pinned sink, an earlier error, no
 * room). */
static void *place_frame(void *user, size_t n)
{
	struct slot *s = user;
	struct gpz_engine *e = s->e;
	uint8_t *to = NULL;

	if (!e->sink_pinned)
		return NULL;
	pthread_mutex_lock(&e->mu);
	while (e->handed != s->index)
		pthread_cond_wait(&e->cv, &e->mu);
	if (e->err == GPZ_OK && n <= e->sink_cap - e->sink_pos) {
		to = e->sink + e->sink_pos;
		e->sink_pos += n;
		s->placed = to;
		s->placed_len = n;
		e->handed++;
		pthread_cond_broadcast(&e->cv);
	}
	pthread_mutex_unlock(&e->mu);
	return to;
}

static gpz_result run_compress(struct slot *s, const uint8_t **res, size_t *len)
{
	struct gpz_engine *e = s->e;
	struct lane *ln = s->ln;
	const uint8_t *src;
	size_t pre, cap = gpz_frames_bound(s->n, &e->p);
	struct gpz_place place = { place_frame, s, 0 };
	gpz_result r = frame_input(s, &src, &pre);

	if (r == GPZ_OK)
		r = buf_reserve(ln, &ln->out, cap, 0);
	if (r == GPZ_OK)
		r = gpz_frames_compress_on(lane_ctx(s), ln->g, &e->p, src, s->n, ln->out.p, cap, len,
		                           ln->g && e->sink_pinned ? &place : NULL);
	*res = place.used ? NULL : ln->out.p;
	return r;
}

static gpz_result run_decompress(struct slot *s, const uint8_t **res, size_t *len)
{
	struct lane *ln = s->ln;
	const uint8_t *src;
	uint64_t content = 0;
	size_t pre;
	gpz_result r = frame_input(s, &src, &pre);
	size_t cap;
	int direct;

	if (r == GPZ_OK) /* a job of one frame or several (gpz_job_joins) */
		r = gpz_job_content(src, s->n, &content);
	if (r != GPZ_OK)
		return r;
	cap = s->dst && content > s->dst_cap ? s->dst_cap : (size_t)content;
	/* the GPU decodes into pinned memory: the caller's buffer when it is pinned (the lane's
	 * copy out of its own, at ~10 GB/s a thread, bounded pinned decompression at 39 GB/s on
	 * one H100 and 49 on two), else the lane's; the CPU straight into the caller's buffer */
	direct = s->dst && (!ln->g || (gpz_gpu_is_pinned(s->dst) &&
	                               (!cap || gpz_gpu_is_pinned((uint8_t *)s->dst + cap - 1))));
	if (!direct && buf_reserve(ln, &ln->out, cap ? cap : 1, 0) != GPZ_OK)
		return GPZ_ERR_NOMEM;
	r = gpz_frames_decompress_on(lane_ctx(s), ln->g, src, s->n, direct ? s->dst : ln->out.p,
	                             cap, len);
	if (r == GPZ_OK && s->dst && !direct)
		lane_copy(s->e, s->dst, ln->out.p, *len);
	*res = s->dst ? NULL : ln->out.p;
	return r;
}

static gpz_result run_job(struct slot *s, const uint8_t **res, size_t *len)
{
	const struct gpz_engine_job *J = &s->e->job;
	struct lane *ln = s->ln;
	const uint8_t *src;
	size_t pre, cap = J->bound(J->user, s->n);
	gpz_result r = frame_input(s, &src, &pre);

	if (r == GPZ_OK)
		r = buf_reserve(ln, &ln->out, cap, 0);
	if (r == GPZ_OK)
		r = J->run(J->user, ln->g, s->index, src, pre, s->n, s->last, ln->out.p, cap, len,
		           s->meta);
	*res = ln->out.p;
	return r;
}

/* A frame that took its turn in place_frame: it is in the sink already, or, when the GPU failed
 * after that and the CPU redid it, it is copied to its place now (the same bytes, so the same
 * size). Its error, if any, is recorded now, after those of frames that may have followed it. */
static void hand_over_placed(struct slot *s, gpz_result r, const uint8_t *res, size_t len)
{
	struct gpz_engine *e = s->e;

	if (r == GPZ_OK && res && len != s->placed_len)
		r = GPZ_ERR_PARAM; /* cannot happen: both backends give the same bytes */
	if (r == GPZ_OK && res)
		lane_copy(e, s->placed, res, len);
	pthread_mutex_lock(&e->mu);
	if (r != GPZ_OK && e->err == GPZ_OK)
		e->err = r;
	s->placed = NULL;
	s->busy = 0;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

/* Wait for the frame's turn, hand its output over, and free the slot. A memory sink only needs
 * the turn to learn where the output goes, and a job's positional output only its put (which
 * finishes the bytes in order): the copy or the write itself runs beside the other lanes'. */
static void hand_over(struct slot *s, gpz_result r, const uint8_t *res, size_t len)
{
	struct gpz_engine *e = s->e;
	uint8_t *to = NULL;
	int write_after = 0;

	if (s->placed) {
		hand_over_placed(s, r, res, len);
		return;
	}
	pthread_mutex_lock(&e->mu);
	while (e->handed != s->index)
		pthread_cond_wait(&e->cv, &e->mu);
	if (e->err == GPZ_OK && r != GPZ_OK)
		e->err = r;
	if (e->err == GPZ_OK && res && e->sink) {
		if (len > e->sink_cap - e->sink_pos)
			e->err = GPZ_ERR_DST_TOO_SMALL;
		else
			to = e->sink + e->sink_pos;
		e->sink_pos += e->err == GPZ_OK ? len : 0;
	} else if (e->err == GPZ_OK && res && (e->out || e->job.put || e->append)) {
		if (e->append) { /* its place is known now; the write waits until after the turn */
			s->out_off = e->append_pos;
			e->append_pos += len;
		}
		/* the turn is ours until `handed` moves: put without holding the lock */
		pthread_mutex_unlock(&e->mu);
		r = e->job.put ? e->job.put(e->job.user, res, len, s->meta, s->n)
		  : e->append  ? GPZ_OK
		               : e->out(e->user, res, len);
		pthread_mutex_lock(&e->mu);
		if (r != GPZ_OK && e->err == GPZ_OK)
			e->err = r;
		write_after = r == GPZ_OK && (e->job.put || e->append) && e->write_at && len;
	}
	e->handed++;
	pthread_cond_broadcast(&e->cv);
	if (to) {
		pthread_mutex_unlock(&e->mu);
		lane_copy(e, to, res, len);
		pthread_mutex_lock(&e->mu);
	}
	if (write_after) {
		pthread_mutex_unlock(&e->mu);
		r = e->write_at(e->wa_user, res, len, s->out_off);
		pthread_mutex_lock(&e->mu);
		if (r != GPZ_OK && e->err == GPZ_OK)
			e->err = r;
	}
	s->busy = 0;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

static void *lane_main(void *arg)
{
	struct slot *s = arg;
	struct gpz_engine *e = s->e;

	for (;;) {
		const uint8_t *res = NULL;
		size_t len = 0;
		gpz_result r;

		pthread_mutex_lock(&e->mu);
		while (!s->busy && !e->quit)
			pthread_cond_wait(&e->cv, &e->mu);
		if (!s->busy) {
			pthread_mutex_unlock(&e->mu);
			return NULL;
		}
		r = e->err; /* after an error, later frames are only handed over */
		pthread_mutex_unlock(&e->mu);
		lane_gpu(s);
		if (r == GPZ_OK)
			r = e->job.run     ? run_job(s, &res, &len)
			  : e->decompress ? run_decompress(s, &res, &len)
			                  : run_compress(s, &res, &len);
		if (r == GPZ_OK && e->write_at && !e->append && res && !e->job.put) {
			r = len ? e->write_at(e->wa_user, res, len, s->out_off) : GPZ_OK;
			res = NULL; /* written: nothing left to hand over */
		}
		hand_over(s, r, res, len);
	}
}

/* ---- the caller's side ---- */

/* On a GPU context, use at most per_gpu lanes a GPU (0: all of them). */
static void gpu_lanes_at_most(struct gpz_engine *e, int per_gpu)
{
	if (per_gpu > 0 && gpz_ctx_is_settled(e->ctx) && e->ctx->backend == GPZ_BACKEND_GPU) {
		int ngpu = lane_gpus(e->ctx), n = per_gpu * (ngpu > 0 ? ngpu : 1);
		e->n = n < e->n ? n : e->n; /* lane i works on GPU i % ngpu */
	}
}

gpz_result gpz_engine_open(gpz_ctx *ctx, const gpz_params *p, gpz_engine_out_fn out, void *user,
                           struct gpz_engine **ep)
{
	struct gpz_engine *e = calloc(1, sizeof(*e));
	gpz_result r;

	if (p && p->lz_level > 0)
		gpz_ctx_settle(ctx); /* its lanes wait for the GPU's start anyway (lane_gpu) */
	r = e ? lanes_get(ctx, &e->L) : GPZ_ERR_NOMEM;

	if (r != GPZ_OK) {
		free(e);
		return r;
	}
	e->ctx = ctx;
	e->decompress = p == NULL;
	if (p)
		e->p = *p;
	e->out = out;
	e->user = user;
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->cv, NULL);
	for (int i = 0; i < e->L->n; i++) {
		e->slot[i].e = e;
		e->slot[i].ln = &e->L->lane[i];
	}
	e->n = e->L->n;
	if (p && p->lz_level > 0 && p->lz_level <= LZ_FAST_LEVEL)
		gpu_lanes_at_most(e, LZ_FAST_GPU_LANES);
	*ep = e;
	return GPZ_OK;
}

int gpz_engine_lanes(const struct gpz_engine *e)
{
	return e->n;
}

gpz_result gpz_engine_open_job(gpz_ctx *ctx, const struct gpz_engine_job *job,
                               struct gpz_engine **ep)
{
	struct gpz_engine *e;
	gpz_result r = gpz_engine_open(ctx, NULL, NULL, NULL, &e);

	if (r != GPZ_OK)
		return r;
	e->job = *job;
	gpu_lanes_at_most(e, job->gpu_lanes);
	for (int i = 0; i < e->n; i++) {
		e->slot[i].meta = job->meta_bytes ? malloc(job->meta_bytes) : NULL;
		if (job->meta_bytes && !e->slot[i].meta) {
			gpz_engine_close(e, NULL);
			return GPZ_ERR_NOMEM;
		}
	}
	*ep = e;
	return GPZ_OK;
}

void gpz_engine_sink(struct gpz_engine *e, void *dst, size_t cap, size_t pos)
{
	e->sink = dst;
	e->sink_cap = cap;
	e->sink_pos = pos;
	e->sink_pinned = cap > pos && gpz_gpu_is_pinned((uint8_t *)dst + pos) &&
	                 gpz_gpu_is_pinned((uint8_t *)dst + cap - 1);
}

gpz_result gpz_engine_next(struct gpz_engine *e, size_t need, uint8_t **buf)
{
	struct slot *s = &e->slot[e->submitted % (uint64_t)e->n];
	gpz_result r;

	pthread_mutex_lock(&e->mu);
	while (s->busy)
		pthread_cond_wait(&e->cv, &e->mu);
	r = e->err;
	pthread_mutex_unlock(&e->mu);
	if (r == GPZ_OK && !s->started) {
		/* a lane that cannot start a thread leaves the call to fail: nothing would run it */
		if (pthread_create(&s->tid, NULL, lane_main, s) != 0)
			return GPZ_ERR_THREAD;
		s->started = 1;
	}
	if (r == GPZ_OK && buf)
		r = buf_reserve(s->ln, &s->ln->in, need ? need : 1, 0);
	if (buf)
		*buf = r == GPZ_OK ? s->ln->in.p : NULL;
	return r;
}

gpz_result gpz_engine_grow(struct gpz_engine *e, size_t need, size_t keep, uint8_t **buf)
{
	struct slot *s = &e->slot[e->submitted % (uint64_t)e->n];
	size_t cap = s->ln->in.cap;
	/* at least doubling: a job's frames are appended one by one, and a lane's pinned buffer
	 * grown to each one's end cost seconds a GiB in allocations and copies */
	gpz_result r = buf_reserve(s->ln, &s->ln->in,
	                           need > cap && need < 2 * cap ? 2 * cap : need, keep);

	*buf = s->ln->in.p;
	return r;
}

void gpz_engine_positional(struct gpz_engine *e, gpz_read_at_fn read_at, void *user)
{
	e->read_at = read_at;
	e->io_user = user;
}

void gpz_engine_positional_out(struct gpz_engine *e, gpz_write_at_fn write_at, void *user)
{
	e->write_at = write_at;
	e->wa_user = user;
}

void gpz_engine_append_at(struct gpz_engine *e, gpz_write_at_fn write_at, void *user,
                          uint64_t base)
{
	e->write_at = write_at;
	e->wa_user = user;
	e->append = 1;
	e->append_pos = base;
}

/* Hand the next frame to its lane: every field is set before `busy`, under the lock. */
static void submit(struct gpz_engine *e, const void *src, size_t n, void *dst, size_t dst_cap,
                   int at, uint64_t in_off, size_t pre, int last, uint64_t out_off)
{
	struct slot *s = &e->slot[e->submitted % (uint64_t)e->n];

	pthread_mutex_lock(&e->mu);
	s->out_off = out_off;
	s->src = src;
	s->pre = pre;
	s->last = last;
	s->n = n;
	s->dst = dst;
	s->dst_cap = dst_cap;
	s->at = at;
	s->in_off = in_off;
	s->index = e->submitted++;
	s->busy = 1;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

void gpz_engine_submit_at(struct gpz_engine *e, size_t n, uint64_t in_off)
{
	submit(e, NULL, n, NULL, 0, 1, in_off, 0, 0, 0);
}

void gpz_engine_submit_to(struct gpz_engine *e, size_t n, uint64_t out_off)
{
	submit(e, NULL, n, NULL, 0, 0, 0, 0, 0, out_off);
}

void gpz_engine_submit_job(struct gpz_engine *e, const void *src, size_t n, size_t pre,
                           uint64_t in_off, int last, uint64_t out_off)
{
	submit(e, src, n, NULL, 0, !src && e->read_at, in_off, pre, last, out_off);
}

void gpz_engine_submit(struct gpz_engine *e, const void *src, size_t n, void *dst,
                       size_t dst_cap)
{
	submit(e, src, n, dst, dst_cap, 0, 0, 0, 0, 0);
}

static int busy_lanes(const struct gpz_engine *e)
{
	for (int i = 0; i < e->L->n; i++)
		if (e->slot[i].busy)
			return 1;
	return 0;
}

gpz_result gpz_engine_close(struct gpz_engine *e, size_t *sink_end)
{
	gpz_result r;

	pthread_mutex_lock(&e->mu);
	while (e->handed != e->submitted || busy_lanes(e))
		pthread_cond_wait(&e->cv, &e->mu);
	e->quit = 1;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
	for (int i = 0; i < e->L->n; i++) {
		if (e->slot[i].started)
			pthread_join(e->slot[i].tid, NULL);
		free(e->slot[i].meta);
	}
	r = e->err;
	if (sink_end)
		*sink_end = e->append ? (size_t)e->append_pos : e->sink_pos;
	pthread_mutex_destroy(&e->mu);
	pthread_cond_destroy(&e->cv);
	free(e);
	return r;
}
