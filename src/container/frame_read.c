/* frame_read.c - parse and decompress frames and trailers. Every field read from the stream is
 * range-checked before it is used (docs/FORMAT.md lists the rules). */
#include "common/context.h"
#include "container/frame.h"
#include "container/frame_gpu.h"
#include "common/bits.h"
#include "common/checksum.h"
#include "common/parallel.h"
#include "huffman/huffman.h"
#include "lz/lz.h"
#include "lzsym/lzsym.h"

#include <stdlib.h>
#include <string.h>


static gpz_result parse_trailer(const uint8_t *s, size_t size, gpz_block_info *info)
{
	if (size < GPZ_TRAILER_SIZE)
		return GPZ_ERR_TRUNCATED;
	if (s[1] || s[2] || s[3] || gpz_load_le32(s + 16) != gpz_header_check(s, 16))
		return GPZ_ERR_CORRUPT;
	info->kind = GPZ_BLOCK_TRAILER;
	info->block_bytes = GPZ_TRAILER_SIZE;
	info->frame_count = gpz_load_le32(s + 4);
	info->total_bytes = gpz_load_le64(s + 8);
	return GPZ_OK;
}

/* The payload sizes a Huffman frame of n symbols may state: every code takes 1 .. max_len
 * bits; the lanes layout rounds each lane's bits of a chunk up to whole words. */
static int huffman_payload_ok(const gpz_block_info *in, int lanes, uint64_t n, uint64_t payload)
{
	uint64_t L = (uint64_t)in->max_code_len;
	if (lanes)
		return payload % 4 == 0 && payload >= 4 * ((n + 31) / 32) &&
		       payload <= gpz_lanes_payload_bound(n * L, gpz_frame_chunks(n, in->chunk_log));
	return payload >= (n + 7) / 8 && payload <= (n * L + 7) / 8;
}

/* Type-specific field rules; sets the payload size the header must state. */
static gpz_result check_frame_fields(const gpz_block_info *in, int lanes, uint32_t cb_bytes,
                                     uint64_t n, uint64_t payload)
{
	uint64_t bytes = n * (uint64_t)in->symbol_bytes;

	if (lanes && in->frame_type != GPZ_FRAME_HUFFMAN)
		return GPZ_ERR_CORRUPT;
	switch (in->frame_type) {
	case GPZ_FRAME_HUFFMAN:
		if (in->chunk_log < GPZ_MIN_CHUNK_LOG || in->chunk_log > GPZ_MAX_CHUNK_LOG ||
		    in->max_code_len < 1 || in->max_code_len > GPZ_MAX_CODE_LEN ||
		    in->alphabet < 2 || in->alphabet > gpz_alphabet_limit(in->symbol_bytes) ||
		    cb_bytes == 0 || cb_bytes > gpz_lengths_bound(in->alphabet) ||
		    !huffman_payload_ok(in, lanes, n, payload))
			return GPZ_ERR_CORRUPT;
		return GPZ_OK;
	case GPZ_FRAME_STORED:
		return in->chunk_log || in->max_code_len || in->alphabet || cb_bytes ||
		       payload != bytes ? GPZ_ERR_CORRUPT : GPZ_OK;
	case GPZ_FRAME_CONSTANT:
		return in->chunk_log || in->max_code_len || cb_bytes || payload ||
		       (in->symbol_bytes < 4 && in->alphabet >> (8 * in->symbol_bytes))
		       ? GPZ_ERR_CORRUPT : GPZ_OK;
	case GPZ_FRAME_DEFLATE: {
		/* every piece is at least 1 byte and at most gpz_lz_piece_bound of its size; the
		 * index check (lz_piece_starts) makes this exact */
		uint64_t pieces;
		if (in->symbol_bytes != 1 || in->chunk_log < GPZ_MIN_CHUNK_LOG ||
		    in->chunk_log > GPZ_MAX_CHUNK_LOG || in->max_code_len < 0 ||
		    in->max_code_len > GPZ_LZ_MAX_GROUP_LOG ||
		    (in->max_code_len && in->chunk_log < GPZ_LZ_GROUP_MIN_LOG) || in->alphabet ||
		    cb_bytes)
			return GPZ_ERR_CORRUPT; /* max_code_len: log2 of the pieces a group */
		pieces = gpz_frame_chunks(n, in->chunk_log);
		return payload < pieces || payload > n + n / 256 + 64 * pieces ? GPZ_ERR_CORRUPT
		                                                                 : GPZ_OK;
	}
	case GPZ_FRAME_LZSYM: {
		/* the codebook: z, k1, then the two codes (read_codes checks them exactly) */
		uint64_t chunks;
		if (in->chunk_log < GPZ_MIN_CHUNK_LOG || in->chunk_log > GPZ_MAX_CHUNK_LOG)
			return GPZ_ERR_CORRUPT;
		chunks = gpz_frame_chunks(n, in->chunk_log);
		if (in->max_code_len < 1 || in->max_code_len > GPZ_MAX_CODE_LEN || in->alphabet < 1 ||
		    in->alphabet > gpz_alphabet_limit(in->symbol_bytes) ||
		    in->alphabet + GPZ_LZS_EXTRA > GPZ_MAX_ALPHABET || cb_bytes < 9 ||
		    cb_bytes > 8 + gpz_lengths_bound(in->alphabet + GPZ_LZS_EXTRA) +
		                   gpz_lengths_bound(GPZ_LZS_BUCKETS) ||
		    payload < (chunks + 7) / 8 || payload > (n * GPZ_LZS_TOKEN_BITS + 7) / 8)
			return GPZ_ERR_CORRUPT;
		return GPZ_OK;
	}
	}
	return GPZ_ERR_CORRUPT;
}

static gpz_result parse_frame(const uint8_t *s, size_t size, gpz_block_info *info)
{
	uint32_t cb_bytes;
	uint64_t n, payload, index = 0;
	gpz_result r;

	if (size < GPZ_FRAME_HEADER_SIZE)
		return GPZ_ERR_TRUNCATED;
	info->kind = GPZ_BLOCK_FRAME;
	info->frame_type = (gpz_frame_type)s[0];
	info->symbol_bytes = s[1];
	info->chunk_log = s[2];
	info->max_code_len = s[3];
	info->alphabet = gpz_load_le32(s + 4);
	n = gpz_load_le64(s + 8);
	cb_bytes = gpz_load_le32(s + 16);
	payload = gpz_load_le64(s + 24);
	if (info->symbol_bytes != 1 && info->symbol_bytes != 2 && info->symbol_bytes != 4)
		return GPZ_ERR_CORRUPT;
	/* byte 20: the Huffman payload's layout (0 or 1); 21 .. 23 reserved */
	if (s[20] > 1 || s[21] || s[22] || s[23] || n == 0 ||
	    n > GPZ_MAX_FRAME_BYTES / (unsigned)info->symbol_bytes)
		return GPZ_ERR_CORRUPT;
	r = check_frame_fields(info, s[20], cb_bytes, n, payload);
	if (r != GPZ_OK)
		return r;
	if (info->frame_type == GPZ_FRAME_HUFFMAN || info->frame_type == GPZ_FRAME_DEFLATE ||
	    info->frame_type == GPZ_FRAME_LZSYM)
		index = 4 * gpz_frame_chunks(n, info->chunk_log);
	info->content_bytes = n * (uint64_t)info->symbol_bytes;
	info->block_bytes = GPZ_FRAME_HEADER_SIZE + cb_bytes + index + GPZ_CHECK_SIZE + payload +
	                    GPZ_CONTENT_SIZE;
	return GPZ_OK;
}

gpz_result gpz_parse_block(const void *src, size_t src_size, gpz_block_info *info)
{
	const uint8_t *s = src;

	if (!src || !info)
		return GPZ_ERR_PARAM;
	memset(info, 0, sizeof(*info));
	if (src_size == 0)
		return GPZ_ERR_TRUNCATED;
	if (s[0] == GPZ_TRAILER_TYPE)
		return parse_trailer(s, src_size, info);
	return parse_frame(s, src_size, info);
}

/* The index entry range of a chunk of m symbols: its bits (1 .. max_len a symbol), or in the
 * lanes layout its words (a word at least for each lane that has symbols; each lane's bits
 * rounded up, at most a word more than they need). */
static int chunk_len_ok(uint64_t len, uint64_t m, uint64_t L, int lanes)
{
	if (lanes) {
		uint64_t busy = (m + 3) / 4 < GPZ_LANES ? (m + 3) / 4 : GPZ_LANES;
		return len >= busy && len <= m * L / 32 + GPZ_LANES;
	}
	return len >= m && len <= m * L;
}

/* Chunk start offsets (bits; words in the lanes layout) from the stored chunk lengths, checked
 * against the chunk sizes and the payload size. starts[] has nchunks + 1 entries. */
static gpz_result chunk_starts(const uint8_t *index, const gpz_block_info *in, int lanes,
                               uint64_t payload, uint64_t *starts)
{
	uint64_t n = in->content_bytes / (uint64_t)in->symbol_bytes;
	uint64_t nchunks = gpz_frame_chunks(n, in->chunk_log);
	uint64_t cs = (uint64_t)1 << in->chunk_log;

	starts[0] = 0;
	for (uint64_t c = 0; c < nchunks; c++) {
		uint64_t m = n - c * cs < cs ? n - c * cs : cs;
		uint64_t len = gpz_load_le32(index + 4 * c);
		if (!chunk_len_ok(len, m, (uint64_t)in->max_code_len, lanes))
			return GPZ_ERR_CORRUPT;
		starts[c + 1] = starts[c] + len;
	}
	if (lanes)
		return 4 * starts[nchunks] == payload ? GPZ_OK : GPZ_ERR_CORRUPT;
	return (starts[nchunks] + 7) / 8 == payload ? GPZ_OK : GPZ_ERR_CORRUPT;
}

gpz_result gpz_frame_decoder(const uint8_t *s, const gpz_block_info *in, gpz_decoder *dec)
{
	uint32_t cb_bytes = gpz_load_le32(s + 16);
	uint8_t *len = malloc(in->alphabet);
	size_t used = 0;
	gpz_result r = len ? GPZ_OK : GPZ_ERR_NOMEM;

	memset(dec, 0, sizeof(*dec));
	if (r == GPZ_OK)
		r = gpz_lengths_read(s + GPZ_FRAME_HEADER_SIZE, cb_bytes, in->alphabet, len, &used);
	if (r == GPZ_OK && used != cb_bytes)
		r = GPZ_ERR_CORRUPT;
	if (r == GPZ_OK)
		r = gpz_decoder_init(dec, len, in->alphabet, in->symbol_bytes);
	if (r == GPZ_OK && dec->max_len != in->max_code_len)
		r = GPZ_ERR_CORRUPT;
	free(len);
	if (r != GPZ_OK)
		gpz_decoder_free(dec);
	return r;
}

gpz_result gpz_frame_prepare_decode(const uint8_t *s, const gpz_block_info *in, gpz_decoder *dec,
                                    uint64_t *starts)
{
	const uint8_t *index = s + GPZ_FRAME_HEADER_SIZE + gpz_load_le32(s + 16);
	gpz_result r = gpz_frame_decoder(s, in, dec);

	if (r == GPZ_OK)
		r = chunk_starts(index, in, gpz_frame_lanes(s), gpz_load_le64(s + 24), starts);
	if (r != GPZ_OK)
		gpz_decoder_free(dec);
	return r;
}

/* A Huffman frame's content into dst; *summed set when *sum is its content checksum (taken
 * while decoding; not for the lanes layout). */
static gpz_result decode_huffman(gpz_ctx *ctx, const uint8_t *s, const gpz_block_info *in,
                                 uint8_t *dst, uint64_t *sum, int *summed)
{
	uint64_t payload = gpz_load_le64(s + 24);
	uint64_t n = in->content_bytes / (uint64_t)in->symbol_bytes;
	uint64_t nchunks = gpz_frame_chunks(n, in->chunk_log);
	const uint8_t *data = s + GPZ_FRAME_HEADER_SIZE + gpz_load_le32(s + 16) + 4 * nchunks +
	                      GPZ_CHECK_SIZE;
	uint64_t *starts = malloc((size_t)(nchunks + 1) * sizeof(*starts));
	gpz_decoder dec;
	gpz_result r = starts ? gpz_frame_prepare_decode(s, in, &dec, starts) : GPZ_ERR_NOMEM;

	if (r != GPZ_OK) {
		free(starts);
		return r;
	}
	if (gpz_frame_lanes(s))
		r = gpz_huff_decode_lanes(&dec, data, (size_t)payload, starts, (size_t)n,
		                          in->symbol_bytes, in->chunk_log, ctx->nthreads, dst);
	else if (!gpz_frame_padding_ok(data[payload - 1], payload, starts[nchunks]))
		r = GPZ_ERR_CORRUPT;
	else if (n > 0) {
		r = gpz_huff_decode_sum(&dec, data, (size_t)payload, starts, (size_t)n,
		                        in->symbol_bytes, in->chunk_log, ctx->nthreads, dst, sum);
		*summed = r == GPZ_OK;
	}
	gpz_decoder_free(&dec);
	free(starts);
	return r;
}

/* ---- deflate (LZ-mode) frames ---- */

gpz_result gpz_lz_piece_starts(const uint8_t *index, uint64_t n, int log, uint64_t payload,
                               uint64_t *starts)
{
	uint64_t npieces = gpz_frame_chunks(n, log), ps = (uint64_t)1 << log;

	starts[0] = 0;
	for (uint64_t i = 0; i < npieces; i++) {
		uint64_t m = n - i * ps < ps ? n - i * ps : ps;
		uint64_t len = gpz_load_le32(index + 4 * i);
		if (len < 1 || len > gpz_lz_piece_bound(m))
			return GPZ_ERR_CORRUPT;
		starts[i + 1] = starts[i] + len;
	}
	return starts[npieces] == payload ? GPZ_OK : GPZ_ERR_CORRUPT;
}

/* Inflate one piece of clen bytes into exactly m bytes at out, the `dict` bytes before out its
 * window (0: the start of a stream), with gpz's own decoder (deflate/inflate.c: the GPU's reader
 * decodes these pieces with the same rules, so both backends give the same verdict). The last
 * piece of a group must end (BFINAL) at its last byte with zero padding bits; any other must end
 * at a block boundary at its last byte without BFINAL (gpz ends such pieces with an empty stored
 * block); the padding before a stored block's length must be zero (the writer's: a DEFLATE
 * decoder skips it, so without this check flipping a bit there would go unnoticed). */
static gpz_result inflate_piece(const uint8_t *c, size_t clen, uint8_t *out, size_t m, size_t dict,
                                int last)
{
	size_t n = 0;
	int final = 0;
	gpz_result r = gpz_inflate_piece_strict(c, clen, out, dict, m, &n, &final);

	if (r == GPZ_ERR_NOMEM)
		return r;
	return r == GPZ_OK && n == m && final == last ? GPZ_OK : GPZ_ERR_CORRUPT;
}

struct inflate_job {
	const uint8_t *data;    /* payload */
	const uint64_t *starts; /* piece offsets in it */
	uint8_t *dst;
	uint64_t n, np;
	int log, group_log;
	gpz_result *res;
	uint64_t *sums;         /* or NULL: each group's part of the content checksum */
};

/* Group g: its pieces in order, each with the ones before it in the group as its window; with
 * sums, each checksum block is hashed as soon as it is decoded, while it is in cache (groups
 * then start on block boundaries). */
static void inflate_task(void *vj, size_t g)
{
	struct inflate_job *j = vj;
	uint64_t ps = (uint64_t)1 << j->log, k0 = (uint64_t)g << j->group_log;
	uint64_t k1 = k0 + ((uint64_t)1 << j->group_log) < j->np ? k0 + ((uint64_t)1 << j->group_log)
	                                                           : j->np;
	size_t hashed = (size_t)((k0 << j->log) / GPZ_CHECKSUM_BLOCK); /* blocks before it: done */
	uint64_t sum = 0;
	gpz_result r = GPZ_OK;

	for (uint64_t k = k0; r == GPZ_OK && k < k1; k++) {
		uint64_t at = k << j->log, m = j->n - at < ps ? j->n - at : ps;
		uint64_t dict = (k - k0) * ps < GPZ_LZ_WINDOW ? (k - k0) * ps : GPZ_LZ_WINDOW;
		r = inflate_piece(j->data + j->starts[k], (size_t)(j->starts[k + 1] - j->starts[k]),
		                  j->dst + at, (size_t)m, (size_t)dict, k + 1 == k1);
		if (r == GPZ_OK && j->sums) { /* the frame's last block may be short */
			size_t upto = (size_t)(at + m == j->n ? (j->n + GPZ_CHECKSUM_BLOCK - 1)
			                                      : at + m) / GPZ_CHECKSUM_BLOCK;
			sum += gpz_checksum_blocks(j->dst, (size_t)j->n, hashed, upto);
			hashed = upto;
		}
	}
	j->res[g] = r;
	if (j->sums)
		j->sums[g] = sum;
}

/* An LZ-mode frame's content into dst; *summed set when *sum is its content checksum (taken
 * while decoding, where its groups of pieces start on checksum blocks: 256 KiB pieces do). */
static gpz_result decode_deflate(gpz_ctx *ctx, const uint8_t *s, const gpz_block_info *in,
                                 uint8_t *dst, uint64_t *sum, int *summed)
{
	uint64_t payload = gpz_load_le64(s + 24), n = in->content_bytes;
	uint64_t npieces = gpz_frame_chunks(n, in->chunk_log);
	uint64_t ngroups = ((npieces - 1) >> in->max_code_len) + 1;
	const uint8_t *index = s + GPZ_FRAME_HEADER_SIZE;
	struct inflate_job j = { index + 4 * npieces + GPZ_CHECK_SIZE, NULL, dst, n, npieces,
		                 in->chunk_log, in->max_code_len, NULL, NULL };
	uint64_t *starts = malloc((size_t)(npieces + 1) * sizeof(*starts));
	uint64_t group_bytes = (uint64_t)1 << (in->chunk_log + in->max_code_len);
	int fused = n > 0 && (ngroups == 1 || group_bytes % GPZ_CHECKSUM_BLOCK == 0);
	gpz_result r = GPZ_OK;

	j.res = malloc((size_t)ngroups * sizeof(*j.res));
	j.sums = fused ? malloc((size_t)ngroups * sizeof(*j.sums)) : NULL;
	if (!starts || !j.res || (fused && !j.sums))
		r = GPZ_ERR_NOMEM;
	if (r == GPZ_OK)
		r = gpz_lz_piece_starts(index, n, in->chunk_log, payload, starts);
	if (r == GPZ_OK) {
		j.starts = starts;
		gpz_parallel_for(ctx->nthreads, (size_t)ngroups, inflate_task, &j);
		for (uint64_t i = 0; r == GPZ_OK && i < ngroups; i++)
			r = j.res[i];
	}
	if (r == GPZ_OK && fused) {
		*sum = 0;
		for (uint64_t i = 0; i < ngroups; i++)
			*sum += j.sums[i];
		*summed = 1;
	}
	free(starts);
	free(j.res);
	free(j.sums);
	return r;
}

static void fill_constant(uint8_t *dst, uint64_t n, int w, uint32_t v)
{
	if (w == 1) {
		memset(dst, (int)v, (size_t)n);
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (w == 2)
			gpz_store_le16(dst + 2 * i, (uint16_t)v);
		else
			gpz_store_le32(dst + 4 * i, v);
	}
}

gpz_result gpz_frame_fits(const gpz_block_info *in, size_t src_size, size_t dst_cap)
{
	if (in->kind != GPZ_BLOCK_FRAME)
		return GPZ_ERR_PARAM;
	if (in->block_bytes > src_size)
		return GPZ_ERR_TRUNCATED;
	return in->content_bytes > dst_cap ? GPZ_ERR_DST_TOO_SMALL : GPZ_OK;
}

gpz_result gpz_frame_decompress_on(gpz_ctx *ctx, struct gpz_gpu *g, const void *src,
                                   size_t src_size, void *dst, size_t dst_cap, size_t *written,
                                   uint64_t *checksum)
{
	const uint8_t *s = src;
	gpz_block_info in;
	size_t head, check_at;
	uint64_t stored_sum, sum = 0;
	int summed = 0;
	gpz_result r;

	if (!ctx || !written || (!dst && dst_cap))
		return GPZ_ERR_PARAM;
	*written = 0;
	r = gpz_parse_block(src, src_size, &in);
	if (r == GPZ_OK)
		r = gpz_frame_fits(&in, src_size, dst_cap);
	if (r != GPZ_OK)
		return r;
	/* every frame type on a lane's GPU: LZ-mode frames too, since the GPU inflate decodes a
	 * piece with a warp's lanes at once (`gpz -t` of 4 GB of text as .gpz -1 frames on a 16-core
	 * H100 host: 1.00 s on the GPU, 1.09 s on the CPU's threads; the automatic backend, which
	 * kept them on the CPU lanes of the GPU's count, 1.49 s;
	 * bench/results/2026-11-26-h100-parallel-output.md) */
	if (g) {
		r = gpz_ctx_test_gpu_failure() ? GPZ_ERR_GPU
		                               : gpz_gpu_frame_decompress(g, src, src_size, dst,
		                                                          dst_cap, written, checksum);
		if (!gpz_ctx_falls_back(ctx, r))
			return r;
	}
	head = (size_t)in.block_bytes - GPZ_CONTENT_SIZE - (size_t)gpz_load_le64(s + 24) -
	       GPZ_CHECK_SIZE;
	if (gpz_load_le32(s + head) != gpz_header_check(s, head))
		return GPZ_ERR_CORRUPT;
	if (in.frame_type == GPZ_FRAME_HUFFMAN)
		r = decode_huffman(ctx, s, &in, dst, &sum, &summed);
	else if (in.frame_type == GPZ_FRAME_DEFLATE)
		r = decode_deflate(ctx, s, &in, dst, &sum, &summed);
	else if (in.frame_type == GPZ_FRAME_LZSYM)
		r = gpz_lzs_frame_decode(ctx, s, &in, dst);
	else if (in.frame_type == GPZ_FRAME_STORED)
		memcpy(dst, s + head + GPZ_CHECK_SIZE, (size_t)in.content_bytes);
	else
		fill_constant(dst, in.content_bytes / (uint64_t)in.symbol_bytes, in.symbol_bytes,
		              in.alphabet);
	if (r != GPZ_OK)
		return r;
	check_at = (size_t)in.block_bytes - GPZ_CONTENT_SIZE;
	stored_sum = gpz_load_le64(s + check_at);
	if (checksum)
		*checksum = stored_sum;
	if (!summed)
		sum = gpz_checksum_threads(dst, (size_t)in.content_bytes, ctx->nthreads);
	if (sum != stored_sum)
		return GPZ_ERR_CHECKSUM;
	*written = (size_t)in.content_bytes;
	return GPZ_OK;
}

gpz_result gpz_decompress_frame(gpz_ctx *ctx, const void *src, size_t src_size, void *dst,
                                size_t dst_cap, size_t *written, uint64_t *checksum)
{
	return gpz_frame_decompress_on(ctx, gpz_ctx_gpu(ctx), src, src_size, dst, dst_cap,
	                               written, checksum);
}

/* A job of frames on the CPU: a thread a frame (as gpz_frames_compress_on), frame i from src +
 * at[i] (blk[i] bytes) into dst + out[i] (len[i] bytes). */
struct job_decode {
	gpz_ctx one; /* the caller's context with one thread */
	const uint8_t *src;
	uint8_t *dst;
	size_t *at, *blk, *out, *len;
	gpz_result *res;
};

static void job_decode_task(void *v, size_t i)
{
	struct job_decode *j = v;
	size_t w = 0;

	j->res[i] = gpz_frame_decompress_on(&j->one, NULL, j->src + j->at[i], j->blk[i],
	                                    j->dst + j->out[i], j->len[i], &w, NULL);
	if (j->res[i] == GPZ_OK && w != j->len[i])
		j->res[i] = GPZ_ERR_CORRUPT;
}

/* The job's frames, one after another to its end (j's arrays filled when not NULL). */
static gpz_result job_walk(const uint8_t *s, size_t n, size_t dst_cap, struct job_decode *j,
                           size_t *nf, size_t *total)
{
	size_t pos = 0;

	*nf = *total = 0;
	while (pos < n) {
		gpz_block_info in;
		gpz_result r = gpz_parse_block(s + pos, n - pos, &in);
		if (r == GPZ_OK)
			r = gpz_frame_fits(&in, n - pos, dst_cap - *total);
		if (r != GPZ_OK)
			return r;
		if (j) {
			j->at[*nf] = pos;
			j->blk[*nf] = (size_t)in.block_bytes;
			j->out[*nf] = *total;
			j->len[*nf] = (size_t)in.content_bytes;
		}
		pos += (size_t)in.block_bytes;
		*total += (size_t)in.content_bytes;
		(*nf)++;
	}
	return GPZ_OK;
}

gpz_result gpz_job_content(const void *src, size_t src_size, uint64_t *content)
{
	size_t nf, total;
	gpz_result r = src ? job_walk(src, src_size, (size_t)-1, NULL, &nf, &total) : GPZ_ERR_PARAM;

	*content = r == GPZ_OK ? total : 0;
	return r;
}

gpz_result gpz_frames_decompress_on(gpz_ctx *ctx, struct gpz_gpu *g, const void *src,
                                    size_t src_size, void *dst, size_t dst_cap, size_t *written)
{
	struct job_decode j = { .src = src, .dst = dst };
	size_t nf = 0, total = 0, *arr = NULL;
	gpz_result r;

	if (!ctx || !written || !src || (!dst && dst_cap))
		return GPZ_ERR_PARAM;
	*written = 0;
	r = job_walk(src, src_size, dst_cap, NULL, &nf, &total);
	if (r == GPZ_OK && nf == 1)
		return gpz_frame_decompress_on(ctx, g, src, src_size, dst, dst_cap, written, NULL);
	if (r == GPZ_OK && g) { /* every frame at once where frames_decode_gpu.cu takes them */
		size_t w = 0;
		gpz_result rb = gpz_gpu_frames_decompress(g, ctx->nthreads, src, src_size, dst,
		                                          dst_cap, &w);
		if (rb == GPZ_OK && w == total) {
			*written = total;
			return GPZ_OK;
		}
		/* not taken, or a check failed: a frame at a time says which; a GPU failure: the
		 * CPU's threads, unless the context asked for the GPU */
		if (rb != GPZ_OK && rb != GPZ_ERR_PARAM && !gpz_ctx_falls_back(ctx, rb))
			return rb;
		if (rb != GPZ_OK && rb != GPZ_ERR_PARAM)
			g = NULL;
	}
	if (r == GPZ_OK) {
		arr = malloc(4 * nf * sizeof(size_t));
		j.res = malloc(nf * sizeof(gpz_result));
		r = arr && j.res ? GPZ_OK : GPZ_ERR_NOMEM;
	}
	if (r == GPZ_OK) {
		j.at = arr;
		j.blk = arr + nf;
		j.out = arr + 2 * nf;
		j.len = arr + 3 * nf;
		r = job_walk(src, src_size, dst_cap, &j, &nf, &total);
	}
	if (r == GPZ_OK && g) { /* a lane's GPU, frames it did not take: a frame at a time */
		for (size_t i = 0; i < nf; i++)
			j.res[i] = GPZ_ERR_PARAM;
		for (size_t i = 0; i < nf && (i == 0 || j.res[i - 1] == GPZ_OK); i++) {
			size_t w = 0;
			j.res[i] = gpz_frame_decompress_on(ctx, g, j.src + j.at[i], j.blk[i],
			                                   j.dst + j.out[i], j.len[i], &w, NULL);
			if (j.res[i] == GPZ_OK && w != j.len[i])
				j.res[i] = GPZ_ERR_CORRUPT;
		}
	} else if (r == GPZ_OK) {
		j.one = *ctx;
		j.one.nthreads = 1;
		j.one.scratch = NULL;
		gpz_parallel_for(ctx->nthreads, nf, job_decode_task, &j);
	}
	for (size_t i = 0; r == GPZ_OK && i < nf; i++)
		r = j.res[i]; /* the first frame's error, in order */
	if (r == GPZ_OK)
		*written = total;
	free(arr);
	free(j.res);
	return r;
}
