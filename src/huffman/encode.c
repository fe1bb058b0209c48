/* encode.c - Huffman encoding into chunked MSB-first bitstreams, CPU backend.
 *
 * The bit writer keeps pending bits left-aligned in a 64-bit accumulator and flushes after every
 * two symbols with one unconditional 8-byte big-endian store: two codes add at most
 * 2 * 24 = 48 bits to at most 7 pending ones, so the accumulator never overflows and the loop
 * has no data-dependent branch.
 *
 * Threads take contiguous runs of chunks. The first run is written straight into the output;
 * the others go to private buffers that are appended afterwards at their exact bit offsets, so
 * the stream does not depend on the thread count. */
#include "huffman/huffman.h"
#include "common/bits.h"
#include "common/parallel.h"

#include <stdlib.h>
#include <string.h>

/* Symbols per parallel task (rounded to whole chunks). */
#define TASK_SYMBOLS ((size_t)1 << 22)

void gpz_encoder_table(const uint8_t *len, const uint32_t *code, uint32_t alphabet,
                       uint32_t *table)
{
	for (uint32_t s = 0; s < alphabet; s++)
		table[s] = (code[s] << 8) | len[s];
}

struct bit_writer {
	uint64_t acc;    /* pending bits, left-aligned */
	unsigned nb;     /* number of pending bits, < 8 after a flush */
	uint8_t *p;      /* next byte to store */
	uint8_t *start;
	uint8_t *limit;  /* last position an 8-byte store may start at */
};

static inline void put_code(struct bit_writer *bw, uint32_t e)
{
	unsigned len = e & 0xff;
	bw->acc |= (uint64_t)(e >> 8) << (64 - bw->nb - len);
	bw->nb += len;
}

/* Returns 0 when the store would pass the end of the buffer. */
static inline int flush(struct bit_writer *bw)
{
	if (bw->p > bw->limit)
		return 0;
	gpz_store_be64(bw->p, bw->acc);
	bw->p += bw->nb >> 3;
	bw->acc <<= bw->nb & ~7u;
	bw->nb &= 7;
	return 1;
}

static inline uint64_t bit_pos(const struct bit_writer *bw)
{
	return (uint64_t)(bw->p - bw->start) * 8 + bw->nb;
}

/* Encode n symbols of width w; returns 0 on buffer overflow. w is a constant at each call site,
 * so the compiler specialises the loop per width. */
static inline int encode_symbols(struct bit_writer *bw, const uint8_t *s, size_t n, int w,
                                 const uint32_t *table)
{
	size_t i = 0;
	for (; i + 2 <= n; i += 2) {
		put_code(bw, table[gpz_load_symbol(s, i, w)]);
		put_code(bw, table[gpz_load_symbol(s, i + 1, w)]);
		if (!flush(bw))
			return 0;
	}
	if (i < n)
		put_code(bw, table[gpz_load_symbol(s, i, w)]);
	return flush(bw);
}

/* Encode chunks [c0, c1) into buf (bit 0 = first bit); returns bits written, or -1. */
static int64_t encode_chunks(const uint8_t *src, size_t n, int w, const uint32_t *table,
                             int chunk_log, size_t c0, size_t c1, uint8_t *buf, size_t cap,
                             uint32_t *chunk_bits)
{
	struct bit_writer bw = { 0, 0, buf, buf, cap >= 8 ? buf + cap - 8 : NULL };
	size_t cs = (size_t)1 << chunk_log;

	if (!bw.limit)
		return -1;
	for (size_t c = c0; c < c1; c++) {
		size_t first = c * cs;
		size_t m = n - first < cs ? n - first : cs;
		const uint8_t *s = src + first * (size_t)w;
		uint64_t before = bit_pos(&bw);
		int ok = w == 1 ? encode_symbols(&bw, s, m, 1, table)
		       : w == 2 ? encode_symbols(&bw, s, m, 2, table)
		                : encode_symbols(&bw, s, m, 4, table);
		if (!ok)
			return -1;
		chunk_bits[c] = (uint32_t)(bit_pos(&bw) - before);
	}
	return (int64_t)bit_pos(&bw);
}

/* Append src_bits bits from src (zero-padded, readable 8 bytes past its last byte) at bit offset
 * dst_bits of dst, whose bits past dst_bits are zero. Writes up to 8 bytes past the end. */
static void bits_append(uint8_t *dst, uint64_t dst_bits, const uint8_t *src, uint64_t src_bits)
{
	uint8_t *d = dst + dst_bits / 8;
	unsigned sh = (unsigned)(dst_bits % 8);
	size_t nbytes = (size_t)((src_bits + 7) / 8);
	uint64_t carry;

	if (sh == 0) {
		memcpy(d, src, nbytes);
		return;
	}
	carry = (uint64_t)d[0] << 56;
	for (size_t i = 0; i < nbytes; i += 8) {
		uint64_t v = gpz_load_be64(src + i);
		gpz_store_be64(d + i, carry | (v >> sh));
		carry = v << (64 - sh);
	}
	d[(nbytes + 7) / 8 * 8] = (uint8_t)(carry >> 56);
}

struct enc_job {
	const uint8_t *src;
	size_t n;
	int w;
	const uint32_t *table;
	int chunk_log;
	size_t nchunks, chunks_per_task;
	uint8_t *dst;
	size_t dst_cap;
	uint8_t **buf;      /* per task (task 0 writes to dst) */
	size_t *buf_cap;
	int64_t *bits;      /* per task, -1 on overflow */
	uint32_t *chunk_bits;
};

static void enc_task(void *ctx, size_t t)
{
	struct enc_job *j = ctx;
	size_t c0, c1;
	gpz_task_range(t, j->chunks_per_task, j->nchunks, &c0, &c1);
	uint8_t *out = t == 0 ? j->dst : j->buf[t];
	size_t cap = t == 0 ? j->dst_cap : j->buf_cap[t];

	j->bits[t] = encode_chunks(j->src, j->n, j->w, j->table, j->chunk_log, c0, c1, out, cap,
	                           j->chunk_bits);
}

static void free_job(struct enc_job *j, size_t ntasks)
{
	if (j->buf)
		for (size_t t = 1; t < ntasks; t++)
			free(j->buf[t]);
	free(j->buf);
	free(j->buf_cap);
	free(j->bits);
}

/* Concatenate the private task buffers after task 0's output; returns the total or -1. */
static int64_t join_tasks(struct enc_job *j, size_t ntasks)
{
	uint64_t total = (uint64_t)j->bits[0];
	for (size_t t = 1; t < ntasks; t++) {
		uint64_t b = (uint64_t)j->bits[t];
		if (total / 8 + (b + 7) / 8 + GPZ_ENCODE_SLACK > j->dst_cap)
			return -1;
		bits_append(j->dst, total, j->buf[t], b);
		total += b;
	}
	return (int64_t)total;
}

gpz_result gpz_huff_encode(const uint8_t *src, size_t n, int w, const uint32_t *table,
                           int chunk_log, int nthreads, uint8_t *dst, size_t dst_cap,
                           uint32_t *chunk_bits, uint64_t *total_bits)
{
	size_t cs = (size_t)1 << chunk_log;
	struct enc_job j = { src, n, w, table, chunk_log, (n + cs - 1) / cs, 0, dst, dst_cap,
	                     NULL, NULL, NULL, chunk_bits };
	size_t ntasks;
	int64_t total;

	j.chunks_per_task = gpz_task_chunks(chunk_log, TASK_SYMBOLS, nthreads, j.nchunks);
	ntasks = (j.nchunks + j.chunks_per_task - 1) / j.chunks_per_task;
	if (ntasks == 0)
		ntasks = 1;
	j.buf = calloc(ntasks, sizeof(*j.buf));
	j.buf_cap = calloc(ntasks, sizeof(*j.buf_cap));
	j.bits = calloc(ntasks, sizeof(*j.bits));
	if (!j.buf || !j.buf_cap || !j.bits) {
		free_job(&j, ntasks);
		return GPZ_ERR_NOMEM;
	}
	/* Private buffers are sized for the worst case; untouched pages cost no memory. */
	for (size_t t = 1; t < ntasks; t++) {
		j.buf_cap[t] = j.chunks_per_task * cs * GPZ_MAX_CODE_LEN / 8 + 2 * GPZ_ENCODE_SLACK;
		j.buf[t] = malloc(j.buf_cap[t]);
		if (!j.buf[t]) {
			free_job(&j, ntasks);
			return GPZ_ERR_NOMEM;
		}
	}
	gpz_parallel_for(nthreads, ntasks, enc_task, &j);
	for (size_t t = 0; t < ntasks; t++) {
		if (j.bits[t] < 0) {
			free_job(&j, ntasks);
			return GPZ_ERR_DST_TOO_SMALL;
		}
	}
	total = join_tasks(&j, ntasks);
	free_job(&j, ntasks);
	if (total < 0)
		return GPZ_ERR_DST_TOO_SMALL;
	*total_bits = (uint64_t)total;
	return GPZ_OK;
}
