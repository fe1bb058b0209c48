/*
 * frames_decode_gpu.cu - a stream of many small Huffman-only frames decoded from device memory
 * with a few waits in all, not several a frame (gpz_decompress_device; frames_gpu.cu writes such
 * streams for the ratio a code per frame gives text).
 *
 * A thread walks the frame headers on the device (their sizes chain); every frame's bytes up to
 * its payload, its payload's last byte and its content checksum come back to the host in one
 * copy. The host then checks each frame with the same functions as a frame at a time
 * (gpz_parse_block, the header check, gpz_frame_prepare_decode, the padding rule) and builds the
 * decoders' table images and launch parameters on the context's threads; they go to the device
 * in one copy, one launch decodes every frame's chunks (a block takes a few chunks of one frame
 * at a time, loading that frame's table), then one launch sums every frame's content and one
 * compares the sums and the decoders' flags. Any stream this does not take, or any check that
 * fails, is left to the frame-at-a-time path, which then reports exactly what a host call
 * would.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "common/context.h"
#include "common/parallel.h"
#include "container/frame.h"
}
#include "common/bits.h"
#include "common/checksum_gpu.h"
#include "container/frame_gpu.h"
#include "gpu/gpu.h"
#include "gpu/cuda_check.h"
#include "huffman/huffman_gpu.h"

namespace {

constexpr size_t MAX_FRAMES = 65536;
constexpr uint32_t UNIT = 8; /* chunks a block takes at a time (one table load) */
constexpr size_t MAX_IMAGES = (size_t)256 << 20; /* bytes of table images a call */
constexpr size_t TAIL = 16; /* a frame's content checksum and its payload's last byte */
/* Heads copied back before the host checks any: a hostile stream of frames with huge heads
 * would otherwise pin as much host memory as its size. 1 GiB in 1 MiB frames needs ~1%. */
constexpr uint64_t MAX_HEADS = (uint64_t)64 << 20;

/* What the walk found: status 0 when the frames run from the stream header to a trailer that
 * ends the input, every one of a kind this path takes. */
struct walk_out {
	unsigned long long status, nf, end, packed;
};

struct walk_arrays {
	uint64_t *at;        /* frame offsets in the input */
	uint64_t *block;     /* frame sizes */
	uint64_t *head;      /* bytes up to the payload: header, codebook, index, header check */
	uint64_t *packed_at; /* where the frame's head and tail go in the packed copy */
};

/* One thread: frame after frame from the stream header on (from the start for a job's frames:
 * `bare`, which end with the input); Huffman (one bitstream a chunk), stored and constant frames
 * only, every size within the input. The host checks each header again with gpz_parse_block
 * before anything is decoded. */
__global__ void walk_kernel(const uint8_t *s, size_t size, int bare, walk_out *o, walk_arrays a)
{
	size_t pos = bare ? 0 : GPZ_HEADER_SIZE, nf = 0, packed = 0;
	unsigned long long status = 1;
	while (pos < size && nf < MAX_FRAMES) {
		const uint8_t *b = s + pos;
		if (b[0] == GPZ_TRAILER_TYPE) {
			status = !bare && size - pos == GPZ_TRAILER_SIZE ? 0 : 1;
			break;
		}
		if (size - pos < GPZ_FRAME_HEADER_SIZE || b[0] < GPZ_FRAME_HUFFMAN ||
		    b[0] > GPZ_FRAME_CONSTANT)
			break;
		const uint64_t n = gpz_load_le64(b + 8), cb = gpz_load_le32(b + 16),
		               payload = gpz_load_le64(b + 24);
		const int cl = b[2];
		if (n == 0 || n > GPZ_MAX_FRAME_BYTES || cb > (1u << 22) || payload > ((uint64_t)1 << 34))
			break;
		uint64_t nch = 0;
		if (b[0] == GPZ_FRAME_HUFFMAN) {
			if (b[20] != 0 || cl < GPZ_MIN_CHUNK_LOG || cl > GPZ_MAX_CHUNK_LOG)
				break;
			nch = (n + ((uint64_t)1 << cl) - 1) >> cl;
		}
		const uint64_t head = GPZ_FRAME_HEADER_SIZE + cb + 4 * nch + GPZ_CHECK_SIZE;
		const uint64_t block = head + payload + GPZ_CONTENT_SIZE;
		if (block > size - pos || packed + head > MAX_HEADS)
			break; /* the frame-at-a-time path takes the stream */
		a.at[nf] = pos;
		a.block[nf] = block;
		a.head[nf] = head;
		a.packed_at[nf] = packed;
		packed += ((head + 15) & ~(uint64_t)15) + TAIL;
		nf++;
		pos += block;
	}
	if (bare && pos == size && nf)
		status = 0;
	o->status = status;
	o->nf = nf;
	o->end = pos;
	o->packed = packed;
}

/* A block a frame: its head, then its checksum and last payload byte, into the packed copy. */
__global__ void gather_kernel(const uint8_t *s, walk_arrays a, uint8_t *packed)
{
	const size_t f = blockIdx.x;
	const uint8_t *b = s + a.at[f];
	const uint64_t head = a.head[f], block = a.block[f];
	uint8_t *d = packed + a.packed_at[f];
	for (size_t i = threadIdx.x; i < head; i += blockDim.x)
		d[i] = b[i];
	uint8_t *t = d + ((head + 15) & ~(uint64_t)15);
	if (threadIdx.x < 8)
		t[threadIdx.x] = b[block - 8 + threadIdx.x];
	if (threadIdx.x == 8)
		t[8] = block > head + GPZ_CONTENT_SIZE ? b[block - GPZ_CONTENT_SIZE - 1] : 0;
}

/* A thread a frame: its decoder's flag (Huffman frames) and its content checksum against the
 * stored one; *bad counts the frames that fail. */
__global__ void verify_kernel(size_t nf, const uint8_t *packed, walk_arrays a,
                              const uint64_t *img_at, const uint8_t *imgs, size_t flag_at,
                              const uint64_t *sums, unsigned long long *bad)
{
	size_t f = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (f >= nf)
		return;
	const uint8_t *t = packed + a.packed_at[f] + ((a.head[f] + 15) & ~(uint64_t)15);
	bool flag = img_at[f] != ~(uint64_t)0 &&
	            *reinterpret_cast<const uint32_t *>(imgs + img_at[f] + flag_at) != 0;
	if (flag || gpz_load_le64(t) != sums[f])
		atomicAdd(bad, 1ull);
}

/* The host's view of one frame, checked. */
struct frame_job {
	const uint8_t *head; /* in the packed host copy */
	uint8_t last;        /* the payload's last byte */
	gpz_block_info in;
	uint64_t payload, n, nchunks, out, starts_at, img_at;
	uint64_t hidx;       /* its place among the Huffman frames */
	gpz_result r;
};

/* The frames, and where their decode's pieces lie: on the host (pinned, h_) and the device. */
struct batch {
	struct frame_job *jobs;
	size_t nf;
	int w;
	uint64_t *h_starts;
	uint8_t *h_imgs, *h_params;
	const uint8_t *d_src;
	const uint64_t *at, *d_starts;
	const uint8_t *d_imgs;
	uint8_t *d_dst;
};

/* Frame k's decoder, chunk starts and table image (context threads, one frame each). */
void prepare_frame(void *v, size_t k)
{
	struct batch *b = (struct batch *)v;
	struct frame_job *j = &b->jobs[k];
	if (j->in.frame_type != GPZ_FRAME_HUFFMAN)
		return;
	uint64_t *starts = b->h_starts + j->starts_at;
	size_t bytes = 0;
	gpz_decoder dec;
	memset(&dec, 0, sizeof(dec));
	j->r = gpz_frame_prepare_decode(j->head, &j->in, &dec, starts);
	if (j->r == GPZ_OK && !gpz_frame_padding_ok(j->last, j->payload, starts[j->nchunks]))
		j->r = GPZ_ERR_CORRUPT;
	struct gpz_gpu_dec_plan plan;
	if (j->r == GPZ_OK)
		j->r = gpz_gpu_decode_image(&dec, b->w, b->h_imgs + j->img_at, &bytes, &plan);
	gpz_decoder_free(&dec);
	const uint8_t *payload =
		b->d_src + b->at[k] + j->in.block_bytes - GPZ_CONTENT_SIZE - j->payload;
	if (j->r == GPZ_OK)
		j->r = gpz_gpu_decode_params(&plan, b->d_imgs + j->img_at, payload, (size_t)j->payload,
		                             b->d_starts + j->starts_at, (size_t)j->n, j->in.chunk_log,
		                             b->d_dst + j->out,
		                             b->h_params + j->hidx * gpz_gpu_decode_params_size());
}

/* The serial checks of every frame head, and the layout of the starts and images; false when
 * this path does not take the stream. */
bool plan_frames(struct batch *b, const uint8_t *host, const uint64_t *packed_at,
                 const uint64_t *head_bytes, const uint64_t *block, size_t cap, size_t slot,
                 uint64_t *total, uint64_t *nstarts)
{
	uint64_t out = 0, starts = 0, img = 0;
	for (size_t k = 0; k < b->nf; k++) {
		struct frame_job *j = &b->jobs[k];
		const uint64_t hb = head_bytes[k];
		j->head = host + packed_at[k];
		j->last = j->head[((hb + 15) & ~(uint64_t)15) + 8];
		const size_t check_at = (size_t)hb - GPZ_CHECK_SIZE;
		if (gpz_parse_block(j->head, (size_t)hb, &j->in) != GPZ_OK ||
		    j->in.kind != GPZ_BLOCK_FRAME || j->in.block_bytes != block[k] ||
		    j->in.symbol_bytes != b->w ||
		    gpz_load_le32(j->head + check_at) != gpz_header_check(j->head, check_at))
			return false;
		/* the checksum launch takes frames of one size (but the last) */
		if (k && k + 1 < b->nf && j->in.content_bytes != b->jobs[0].in.content_bytes)
			return false;
		if (k + 1 == b->nf && k && j->in.content_bytes > b->jobs[0].in.content_bytes)
			return false;
		j->payload = gpz_load_le64(j->head + 24);
		j->n = j->in.content_bytes / (uint64_t)j->in.symbol_bytes;
		j->out = out;
		out += j->in.content_bytes;
		j->nchunks = j->in.frame_type == GPZ_FRAME_HUFFMAN ? gpz_frame_chunks(j->n, j->in.chunk_log)
		                                                   : 0;
		j->starts_at = starts;
		starts += j->nchunks ? j->nchunks + 1 : 0;
		j->hidx = j->in.frame_type == GPZ_FRAME_HUFFMAN ? img / slot : ~(uint64_t)0;
		j->img_at = j->in.frame_type == GPZ_FRAME_HUFFMAN ? img : ~(uint64_t)0;
		img += j->in.frame_type == GPZ_FRAME_HUFFMAN ? slot : 0;
		j->r = GPZ_OK;
	}
	*total = out;
	*nstarts = starts;
	return out <= cap;
}

/* Device workspace: the walk's results, then (sized after it) the packed heads, then the chunk
 * starts, the image offsets, the Huffman frames' first units and launch parameters and the
 * table images (laid out as the host's pinned copy of them), the sums, the verdict and the
 * decoder's unit counter. */
struct dlayout {
	size_t out, at, block, head, packed_at, packed, starts, img_at, unit_base, params, imgs, sums,
		bad, total;
};

dlayout dlayout_for(size_t packed, size_t nstarts, size_t imgs, size_t nf, size_t nh)
{
	dlayout l;
	l.out = 0;
	l.at = 256;
	l.block = l.at + MAX_FRAMES * 8;
	l.head = l.block + MAX_FRAMES * 8;
	l.packed_at = l.head + MAX_FRAMES * 8;
	l.packed = l.packed_at + MAX_FRAMES * 8;
	l.starts = l.packed + gpz_align256(packed);
	l.img_at = l.starts + gpz_align256(nstarts * 8);
	l.unit_base = l.img_at + gpz_align256(nf * 8);
	l.params = l.unit_base + gpz_align256(nh * 8);
	l.imgs = l.params + gpz_align256(nh * gpz_gpu_decode_params_size());
	l.sums = l.imgs + gpz_align256(imgs);
	l.bad = l.sums + gpz_align256(nf * 8);
	l.total = l.bad + 256;
	return l;
}

walk_arrays arrays_at(uint8_t *w, const dlayout &l)
{
	walk_arrays a = { (uint64_t *)(w + l.at), (uint64_t *)(w + l.block), (uint64_t *)(w + l.head),
		          (uint64_t *)(w + l.packed_at) };
	return a;
}

/* One call's state, phase to phase. */
struct dec_call {
	struct gpz_gpu *g;
	cudaStream_t s;
	const uint8_t *d_src;
	size_t src_size, cap;
	uint8_t *d_dst;
	int nthreads;
	int bare; /* a job's frames: no stream header or trailer */
	walk_out wo;
	dlayout l;
	struct batch b;
	uint8_t *host; /* the walk's arrays, the packed heads, the stream header and trailer */
	size_t fo, ho, so, slot, nimg;
	uint64_t total, nstarts, units;
};

/* The walk, then (when it found a stream this path takes) every frame's head and tail, the
 * stream header and the trailer, copied to c->host. */
gpz_result walk_and_gather(struct dec_call *c)
{
	struct gpz_gpu *g = c->g;
	gpz_result r = gpz_gpu_reserve(&g->work, &g->work_cap, c->l.total);
	if (r == GPZ_OK) {
		walk_kernel<<<1, 1, 0, c->s>>>(c->d_src, c->src_size, c->bare, (walk_out *)g->work,
		                               arrays_at(g->work, c->l));
		r = gpz_cuda_result(cudaGetLastError());
	}
	if (r == GPZ_OK)
		r = gpz_cuda_d2h(&c->wo, g->work, sizeof(c->wo), c->s);
	if (r == GPZ_OK && (c->wo.status != 0 || c->wo.nf < 2))
		r = GPZ_ERR_PARAM;
	if (r != GPZ_OK)
		return r;
	const size_t nf = c->b.nf = (size_t)c->wo.nf;
	c->fo = gpz_align256(4 * nf * 8);
	c->ho = c->fo + gpz_align256((size_t)c->wo.packed);
	c->so = c->ho + 256;
	c->l = dlayout_for(c->wo.packed, 0, 0, 0, 0);
	r = gpz_gpu_host_reserve(g, c->so);
	if (r == GPZ_OK)
		r = gpz_gpu_grow(&g->work, &g->work_cap, c->l.total, c->l.packed, (gpz_stream_t)c->s);
	if (r == GPZ_OK) {
		gather_kernel<<<(unsigned)nf, 128, 0, c->s>>>(c->d_src, arrays_at(g->work, c->l),
		                                              g->work + c->l.packed);
		r = gpz_cuda_result(cudaGetLastError());
	}
	uint64_t *h_arr = (uint64_t *)g->host;
	for (int i = 0; i < 4 && r == GPZ_OK; i++) /* at, block, head, packed_at */
		r = gpz_cuda_result(cudaMemcpyAsync(h_arr + i * nf,
		                                    g->work + c->l.at + i * MAX_FRAMES * 8, nf * 8,
		                                    cudaMemcpyDeviceToHost, c->s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->host + c->fo, g->work + c->l.packed,
		                                    (size_t)c->wo.packed, cudaMemcpyDeviceToHost, c->s));
	if (r == GPZ_OK && !c->bare)
		r = gpz_cuda_result(cudaMemcpyAsync(g->host + c->ho, c->d_src, GPZ_HEADER_SIZE,
		                                    cudaMemcpyDeviceToHost, c->s));
	if (r == GPZ_OK && !c->bare)
		r = gpz_cuda_result(cudaMemcpyAsync(g->host + c->ho + 64, c->d_src + c->wo.end,
		                                    GPZ_TRAILER_SIZE, cudaMemcpyDeviceToHost, c->s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamSynchronize(c->s));
	/* out of the pinned buffer, which grows next for the starts and images */
	if (r == GPZ_OK && !(c->host = (uint8_t *)malloc(c->so)))
		r = GPZ_ERR_NOMEM;
	if (r == GPZ_OK)
		memcpy(c->host, g->host, c->so);
	return r;
}

/* The stream header, every frame's head (as a frame at a time checks it) and the trailer, and
 * the layout of the chunk starts and images; false when this path does not take the stream. */
bool check_heads(struct dec_call *c)
{
	const size_t nf = c->b.nf;
	const uint64_t *arr = (const uint64_t *)c->host, *packed_at = arr + 3 * nf;
	const uint8_t *heads = c->host + c->fo;
	uint32_t most = 0; /* images as large as the largest code's */
	for (size_t k = 0; k < nf; k++)
		if (heads[packed_at[k]] == GPZ_FRAME_HUFFMAN) {
			uint32_t alpha = gpz_load_le32(heads + packed_at[k] + 4);
			most = alpha > most ? alpha : most;
		}
	c->slot = gpz_gpu_decode_image_size(most);
	c->b.w = heads[1];
	if (!(c->b.jobs = (struct frame_job *)calloc(nf, sizeof(*c->b.jobs))) ||
	    (!c->bare && gpz_read_header(c->host + c->ho, GPZ_HEADER_SIZE) != GPZ_OK) ||
	    !plan_frames(&c->b, heads, packed_at, arr + 2 * nf, arr + nf, c->cap, c->slot, &c->total,
	                 &c->nstarts) ||
	    (!c->bare && gpz_read_trailer(c->host + c->ho + 64, GPZ_TRAILER_SIZE, c->total,
	                                  (uint32_t)nf) != GPZ_OK))
		return false;
	c->nimg = 0;
	for (size_t k = 0; k < nf; k++)
		c->nimg += c->b.jobs[k].in.frame_type == GPZ_FRAME_HUFFMAN;
	return c->nimg * c->slot <= MAX_IMAGES;
}

/* The decoders' chunk starts, table images and launch parameters made on the host threads and
 * sent in one copy; *taken false when a frame fails its checks. */
gpz_result prepare_all(struct dec_call *c, bool *taken)
{
	struct gpz_gpu *g = c->g;
	struct batch *b = &c->b;
	c->l = dlayout_for(c->wo.packed, c->nstarts, c->nimg * c->slot, b->nf, c->nimg);
	const dlayout &l = c->l;
	gpz_result r = gpz_gpu_host_reserve(g, l.sums - l.starts);
	if (r == GPZ_OK) /* before the parameters are made: they hold device addresses */
		r = gpz_gpu_grow(&g->work, &g->work_cap, l.total, l.starts, (gpz_stream_t)c->s);
	if (r != GPZ_OK)
		return r;
	uint8_t *h = g->host;
	uint64_t *img_at = (uint64_t *)(h + (l.img_at - l.starts));
	uint64_t *unit_base = (uint64_t *)(h + (l.unit_base - l.starts));
	b->h_starts = (uint64_t *)h;
	b->h_params = h + (l.params - l.starts);
	b->h_imgs = h + (l.imgs - l.starts);
	b->d_src = c->d_src;
	b->at = (const uint64_t *)c->host;
	b->d_starts = (const uint64_t *)(g->work + l.starts);
	b->d_imgs = g->work + l.imgs;
	b->d_dst = c->d_dst;
	c->units = 0;
	for (size_t k = 0; k < b->nf; k++) {
		const struct frame_job *j = &b->jobs[k];
		img_at[k] = j->img_at;
		if (j->in.frame_type == GPZ_FRAME_HUFFMAN) {
			unit_base[j->hidx] = c->units;
			c->units += (j->nchunks + UNIT - 1) / UNIT;
		}
	}
	gpz_parallel_for(c->nthreads, b->nf, prepare_frame, b);
	for (size_t k = 0; k < b->nf; k++)
		*taken = *taken && b->jobs[k].r == GPZ_OK;
	if (*taken) /* laid out as in the workspace */
		r = gpz_cuda_result(cudaMemcpyAsync(g->work + l.starts, h, l.sums - l.starts,
		                                    cudaMemcpyHostToDevice, c->s));
	return r;
}

/* The stored and constant frames copied and filled, every Huffman frame decoded in one launch,
 * then the sums, the verdict and one wait; *bad the frames that failed. */
gpz_result decode_all(struct dec_call *c, uint64_t *bad)
{
	struct gpz_gpu *g = c->g;
	const struct batch *b = &c->b;
	const dlayout &l = c->l;
	gpz_result r = GPZ_OK;
	for (size_t k = 0; r == GPZ_OK && k < b->nf; k++) {
		const struct frame_job *j = &b->jobs[k];
		const uint8_t *payload =
			c->d_src + b->at[k] + j->in.block_bytes - GPZ_CONTENT_SIZE - j->payload;
		if (j->in.frame_type == GPZ_FRAME_STORED)
			r = gpz_cuda_result(cudaMemcpyAsync(c->d_dst + j->out, payload,
			                                    j->in.content_bytes, cudaMemcpyDeviceToDevice,
			                                    c->s));
		else if (j->in.frame_type == GPZ_FRAME_CONSTANT)
			r = gpz_gpu_fill(c->d_dst + j->out, (size_t)j->n, b->w, j->in.alphabet,
			                 (gpz_stream_t)c->s);
	}
	unsigned long long *d_bad = (unsigned long long *)(g->work + l.bad);
	if (r == GPZ_OK && c->nimg)
		r = gpz_gpu_decode_frames(g->work + l.params, (const uint64_t *)(g->work + l.unit_base),
		                          c->nimg, c->units, UNIT, b->w, d_bad + 1, (gpz_stream_t)c->s);
	uint64_t *d_sums = (uint64_t *)(g->work + l.sums);
	if (r == GPZ_OK)
		r = gpz_gpu_checksum_frames(c->d_dst, (size_t)c->total,
		                            (size_t)b->jobs[0].in.content_bytes, d_sums,
		                            (gpz_stream_t)c->s);
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemsetAsync(d_bad, 0, 8, c->s));
	if (r == GPZ_OK) {
		verify_kernel<<<(unsigned)((b->nf + 127) / 128), 128, 0, c->s>>>(
			b->nf, g->work + l.packed, arrays_at(g->work, l),
			(const uint64_t *)(g->work + l.img_at), g->work + l.imgs, gpz_gpu_decode_flag_at(),
			d_sums, d_bad);
		r = gpz_cuda_result(cudaGetLastError());
	}
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaMemcpyAsync(g->pinned, d_bad, 8, cudaMemcpyDeviceToHost, c->s));
	if (r == GPZ_OK)
		r = gpz_cuda_result(cudaStreamSynchronize(c->s));
	*bad = g->pinned[0];
	return r;
}

} // namespace

extern "C" gpz_result gpz_gpu_frames_decompress_dev(struct gpz_gpu *g, int nthreads,
                                                    const uint8_t *d_src, size_t src_size,
                                                    int bare, uint8_t *d_dst, size_t cap,
                                                    size_t *written, gpz_stream_t stream)
{
	struct dec_call c;
	uint64_t bad = 1;
	bool taken = false;

	memset(&c, 0, sizeof(c));
	c.g = g;
	c.s = (cudaStream_t)stream;
	c.d_src = d_src;
	c.src_size = src_size;
	c.d_dst = d_dst;
	c.cap = cap;
	c.nthreads = nthreads;
	c.bare = bare;
	c.l = dlayout_for(0, 0, 0, 0, 0);
	*written = 0;
	gpz_result r = bare || src_size > GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE ? GPZ_OK : GPZ_ERR_PARAM;
	if (r == GPZ_OK)
		r = walk_and_gather(&c);
	taken = r == GPZ_OK && check_heads(&c);
	if (taken)
		r = prepare_all(&c, &taken);
	if (r == GPZ_OK && taken)
		r = decode_all(&c, &bad);
	else if (r == GPZ_OK && c.b.nf) /* nothing may still use the pinned buffer */
		r = gpz_cuda_result(cudaStreamSynchronize(c.s));
	free(c.b.jobs);
	free(c.host);
	if (r == GPZ_OK && (!taken || bad))
		r = GPZ_ERR_PARAM; /* left to the frame-at-a-time path, which says what is wrong */
	if (r == GPZ_OK)
		*written = (size_t)c.total;
	return r;
}
