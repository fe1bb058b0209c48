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

/* ---- several tasks: each writes its own bits straight into dst ----
 *
 * A first pass adds up every chunk's code lengths, so each task knows the bit range it owns
 * before anything is written. A task then encodes into dst itself, except where its bytes touch
 * a neighbour's: its first byte (the previous task's last bits may share it) is kept aside and
 * ORed in after every task is done, and its last bytes, where an 8-byte store would run into the
 * next task's range, go through a small local buffer first. No private buffers (whose fresh pages
 * cost as much as the encoding) and no joining pass. */

/* Code lengths of chunks [c0, c1) into chunk_bits; returns their sum. */
static uint64_t count_chunks(const uint8_t *src, size_t n, int w, const uint32_t *table,
                             int chunk_log, size_t c0, size_t c1, uint32_t *chunk_bits)
{
	size_t cs = (size_t)1 << chunk_log;
	uint64_t total = 0;

	for (size_t c = c0; c < c1; c++) {
		size_t first = c * cs, m = n - first < cs ? n - first : cs;
		const uint8_t *s = src + first * (size_t)w;
		uint64_t b0 = 0, b1 = 0;
		size_t i = 0;
		for (; i + 2 <= m; i += 2) { /* two sums: independent additions */
			b0 += table[gpz_load_symbol(s, i, w)] & 0xff;
			b1 += table[gpz_load_symbol(s, i + 1, w)] & 0xff;
		}
		if (i < m)
			b0 += table[gpz_load_symbol(s, i, w)] & 0xff;
		chunk_bits[c] = (uint32_t)(b0 + b1);
		total += b0 + b1;
	}
	return total;
}

/* Encode symbols [i, i1) while every 8-byte store stays at or before bw->limit; returns the
 * first symbol not encoded. Every store leaves the pending partial byte in memory too. */
static inline size_t encode_run(struct bit_writer *bw, const uint8_t *s, size_t i, size_t i1,
                                int w, const uint32_t *table)
{
	for (; i + 2 <= i1 && bw->p <= bw->limit; i += 2) {
		put_code(bw, table[gpz_load_symbol(s, i, w)]);
		put_code(bw, table[gpz_load_symbol(s, i + 1, w)]);
		flush(bw);
	}
	if (i + 1 == i1 && bw->p <= bw->limit) {
		put_code(bw, table[gpz_load_symbol(s, i, w)]);
		flush(bw);
		i++;
	}
	return i;
}

static size_t encode_any(struct bit_writer *bw, const uint8_t *s, size_t i, size_t i1, int w,
                         const uint32_t *table)
{
	return w == 1 ? encode_run(bw, s, i, i1, 1, table)
	     : w == 2 ? encode_run(bw, s, i, i1, 2, table) : encode_run(bw, s, i, i1, 4, table);
}

struct enc_job {
	const uint8_t *src;
	size_t n;
	int w;
	const uint32_t *table;
	int chunk_log;
	size_t nchunks, chunks_per_task;
	uint8_t *dst;
	uint32_t *chunk_bits;
	uint64_t *task_bit;  /* ntasks + 1: where each task's bits start in dst */
	uint8_t *head;       /* per task: its first byte, ORed in afterwards */
	int *bad;            /* per task: the encoder and the counts disagreed */
};

static void count_task(void *ctx, size_t t)
{
	struct enc_job *j = ctx;
	size_t c0 = t * j->chunks_per_task;
	size_t c1 = c0 + j->chunks_per_task < j->nchunks ? c0 + j->chunks_per_task : j->nchunks;

	j->task_bit[t + 1] = count_chunks(j->src, j->n, j->w, j->table, j->chunk_log, c0, c1,
	                                  j->chunk_bits);
}

/* Task t: symbols [i, i1) into bits [b0, b1) of dst (b1 > b0). */
static int encode_task(const struct enc_job *j, size_t i, size_t i1, uint64_t b0, uint64_t b1,
                       uint8_t *head)
{
	uint8_t local[64];
	size_t first = (size_t)(b0 / 8), last = (size_t)((b1 - 1) / 8), k;
	struct bit_writer bw = { 0, (unsigned)(b0 % 8), local, local, local + sizeof local - 8 };

	/* the head: locally, until the first byte is complete */
	while (i < i1 && bw.p == local)
		i = encode_any(&bw, j->src, i, i + 2 < i1 ? i + 2 : i1, j->w, j->table);
	*head = local[0];
	if (i == i1) { /* the whole task fitted */
		if ((size_t)(bw.p - local) * 8 + bw.nb != (b1 - first * 8) || last - first >= 56)
			return 1;
		memcpy(j->dst + first + 1, local + 1, last - first);
		return 0;
	}
	k = (size_t)(bw.p - local);
	memcpy(j->dst + first + 1, local + 1, k - 1);
	/* the body: straight into dst, each store ending at the task's last byte at most */
	bw.p = j->dst + first + k;
	bw.start = j->dst;
	bw.limit = last >= 7 ? j->dst + last - 7 : j->dst;
	if (bw.p <= bw.limit)
		i = encode_any(&bw, j->src, i, i1, j->w, j->table);
	/* the tail: locally, then copied up to the last byte */
	if (i < i1) {
		uint8_t *p0 = bw.p; /* within 7 bytes of the last byte: the remaining bits go there */
		size_t at = (size_t)(p0 - j->dst);
		bw.p = local;
		bw.limit = local + sizeof local - 8;
		i = encode_any(&bw, j->src, i, i1, j->w, j->table);
		if (i < i1 || (at + (size_t)(bw.p - local)) * 8 + bw.nb != b1 || at > last ||
		    last - at >= 56)
			return 1;
		memcpy(p0, local, last - at + 1);
		return 0;
	}
	return (size_t)(bw.p - j->dst) * 8 + bw.nb != b1;
}

static void enc_task(void *ctx, size_t t)
{
	struct enc_job *j = ctx;
	size_t cs = (size_t)1 << j->chunk_log;
	size_t i = t * j->chunks_per_task * cs, i1 = i + j->chunks_per_task * cs;

	if (i1 > j->n)
		i1 = j->n;
	if (j->task_bit[t + 1] > j->task_bit[t])
		j->bad[t] = encode_task(j, i, i1, j->task_bit[t], j->task_bit[t + 1], &j->head[t]);
	else
		j->bad[t] = i < i1; /* symbols that take no bits: not a valid table */
}

gpz_result gpz_huff_encode(const uint8_t *src, size_t n, int w, const uint32_t *table,
                           int chunk_log, int nthreads, uint8_t *dst, size_t dst_cap,
                           uint32_t *chunk_bits, uint64_t *total_bits)
{
	size_t cs = (size_t)1 << chunk_log;
	struct enc_job j = { src, n, w, table, chunk_log, (n + cs - 1) / cs, 0, dst, chunk_bits,
	                     NULL, NULL, NULL };
	size_t ntasks;
	gpz_result r = GPZ_OK;

	j.chunks_per_task = TASK_SYMBOLS / cs ? TASK_SYMBOLS / cs : 1;
	ntasks = (j.nchunks + j.chunks_per_task - 1) / j.chunks_per_task;
	if (nthreads <= 1 || ntasks <= 1) { /* one pass, straight into dst */
		int64_t bits = encode_chunks(src, n, w, table, chunk_log, 0, j.nchunks, dst, dst_cap,
		                             chunk_bits);
		if (bits < 0)
			return GPZ_ERR_DST_TOO_SMALL;
		*total_bits = (uint64_t)bits;
		return GPZ_OK;
	}
	j.task_bit = calloc(ntasks + 1, sizeof(*j.task_bit));
	j.head = calloc(ntasks, 1);
	j.bad = calloc(ntasks, sizeof(*j.bad));
	if (!j.task_bit || !j.head || !j.bad) {
		r = GPZ_ERR_NOMEM;
		goto out;
	}
	gpz_parallel_for(nthreads, ntasks, count_task, &j);
	for (size_t t = 0; t < ntasks; t++)
		j.task_bit[t + 1] += j.task_bit[t];
	if ((j.task_bit[ntasks] + 7) / 8 + GPZ_ENCODE_SLACK > dst_cap) {
		r = GPZ_ERR_DST_TOO_SMALL;
		goto out;
	}
	gpz_parallel_for(nthreads, ntasks, enc_task, &j);
	for (size_t t = 0; t < ntasks; t++) {
		uint64_t b0 = j.task_bit[t];
		if (j.bad[t]) {
			r = GPZ_ERR_PARAM; /* cannot happen with a valid table */
			break;
		}
		if (j.task_bit[t + 1] == b0)
			continue;
		if (b0 % 8) /* the previous task wrote this byte's first bits */
			dst[b0 / 8] |= j.head[t];
		else
			dst[b0 / 8] = j.head[t];
	}
	*total_bits = j.task_bit[ntasks];
out:
	free(j.task_bit);
	free(j.head);
	free(j.bad);
	return r;
}
