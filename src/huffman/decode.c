/* decode.c - table-driven Huffman decoding of chunked MSB-first bitstreams, CPU backend.
 *
 * A first-level table indexed by the next GPZ_DECODE_TABLE_BITS bits resolves every code up to
 * that length in one lookup; longer codes (rare by construction) fall back to a canonical search
 * over the per-length limits. Codes are complete (checked before decoding), so every bit pattern
 * decodes to some symbol; a corrupt stream shows up as a chunk that does not end exactly where
 * the chunk index says, and the frame checksum catches the rest. One chunk's lookups form a chain
 * (each waits for the shift before it), so a thread decodes 1- and 2-byte symbols four whole
 * chunks at a time, a step of each in turn. */
#include "huffman/huffman.h"
#include "common/bits.h"
#include "common/checksum.h"
#include "common/parallel.h"
#include "common/xxh64.h"

#include <stdlib.h>
#include <string.h>

#define TB GPZ_DECODE_TABLE_BITS
#define PEEK 24 /* bits compared in the canonical search: the longest code */

void gpz_multi_table(const gpz_decoder *d, uint32_t below, int w,
                     const struct gpz_multi_runs *runs, uint64_t *t)
{
	const uint32_t mask = (1u << TB) - 1;
	for (uint32_t v = 0; v <= mask; v++) {
		uint64_t e = 0;
		unsigned used = 0, n = 0;
		for (;;) {
			uint32_t x = d->table[(v << used) & mask], l = x & 31, s = x >> 5;
			/* symbols it stands for: itself, or a run's copies of runs->z */
			unsigned k = s < below ? 1
			             : runs && s - runs->first < runs->count ? s - runs->first + 1
			                                                     : 0;
			if (l == 0 || used + l > TB || k == 0 || n + k > 3)
				break;
			for (unsigned j = 0; j < k; j++, n++)
				e |= (uint64_t)(s < below ? s : runs->z) << (8 * w * n);
			used += l;
		}
		t[v] = e | ((uint64_t)n << 48) | ((uint64_t)used << 52);
	}
}

gpz_result gpz_decoder_init(gpz_decoder *d, const uint8_t *len, uint32_t alphabet, int w)
{
	uint32_t count[GPZ_MAX_CODE_LEN + 1] = { 0 };
	uint32_t offset[GPZ_MAX_CODE_LEN + 2], pos[GPZ_MAX_CODE_LEN + 2];
	uint32_t first[GPZ_MAX_CODE_LEN + 1];
	uint32_t code = 0, nused = 0;

	memset(d, 0, sizeof(*d));
	d->w = w;
	if (gpz_lengths_check(len, alphabet) != GPZ_OK)
		return GPZ_ERR_CORRUPT;
	for (uint32_t s = 0; s < alphabet; s++)
		count[len[s]]++;
	count[0] = 0;
	offset[1] = 0;
	for (int l = 1; l <= GPZ_MAX_CODE_LEN; l++) {
		code = (code + count[l - 1]) << 1;
		first[l] = code;
		offset[l + 1] = offset[l] + count[l];
		if (count[l])
			d->max_len = l;
	}
	nused = offset[GPZ_MAX_CODE_LEN + 1];
	d->sorted = malloc(nused * sizeof(*d->sorted));
	if (!d->sorted)
		return GPZ_ERR_NOMEM;
	for (int l = 1; l <= GPZ_MAX_CODE_LEN; l++) {
		d->limit[l] = (first[l] + count[l]) << (PEEK - l);
		d->base[l] = (int32_t)offset[l] - (int32_t)first[l];
	}
	/* A sentinel past the longest length: no 24-bit value reaches it. */
	d->limit[GPZ_MAX_CODE_LEN + 1] = 1u << PEEK;
	memcpy(pos, offset, sizeof(pos));
	for (uint32_t s = 0; s < alphabet; s++)
		if (len[s])
			d->sorted[pos[len[s]]++] = s;
	/* First-level table: codes of length l <= TB fill 2^(TB - l) consecutive entries. */
	for (int l = 1; l <= TB && l <= GPZ_MAX_CODE_LEN; l++) {
		for (uint32_t k = 0; k < count[l]; k++) {
			uint32_t sym = d->sorted[offset[l] + k];
			uint32_t lo = (first[l] + k) << (TB - l);
			for (uint32_t e = 0; e < (1u << (TB - l)); e++)
				d->table[lo + e] = (sym << 5) | (uint32_t)l;
		}
	}
	d->zero_run = count[1] > 0;
	d->zero_sym = d->zero_run ? d->sorted[0] : 0;
	return GPZ_OK;
}

void gpz_decoder_free(gpz_decoder *d)
{
	free(d->sorted);
	d->sorted = NULL;
}

struct bit_reader {
	uint64_t buf;          /* next bits, left-aligned */
	unsigned nb;           /* valid bits in buf */
	const uint8_t *p;      /* next byte to load (may run past end: zeros are read there) */
	const uint8_t *start, *end;
};

/* Make at least 56 bits available. Past the end of the payload the stream reads as zeros;
 * the chunk-end check rejects a chunk that consumed them. */
static inline void refill(struct bit_reader *br)
{
	if (br->p + 8 <= br->end) {
		br->buf |= gpz_load_be64(br->p) >> br->nb;
		br->p += (63 - br->nb) >> 3;
		br->nb |= 56;
		return;
	}
	while (br->nb <= 56) {
		uint64_t byte = br->p < br->end ? *br->p : 0;
		br->buf |= byte << (56 - br->nb);
		br->p++;
		br->nb += 8;
	}
}

static inline uint64_t reader_pos(const struct bit_reader *br)
{
	return (uint64_t)(br->p - br->start) * 8 - br->nb;
}

static void reader_init(struct bit_reader *br, const uint8_t *payload, size_t size, uint64_t bit)
{
	br->start = payload;
	br->end = payload + size;
	br->p = payload + bit / 8;
	br->buf = 0;
	br->nb = 0;
	refill(br);
	br->buf <<= bit % 8;
	br->nb -= (unsigned)(bit % 8);
}

/* The symbol of a code longer than the table at the top of bits (PEEK of them valid, or at least
 * as many as the longest code), by the canonical limits; its length in *len. */
static inline uint32_t long_code(const gpz_decoder *d, uint64_t bits, unsigned *len)
{
	const uint32_t top = (uint32_t)(bits >> (64 - PEEK));
	unsigned l = TB + 1;

	while (top >= d->limit[l])
		l++;
	*len = l;
	return d->sorted[d->base[l] + (int32_t)(top >> (PEEK - l))];
}

static inline uint32_t decode_one(const gpz_decoder *d, struct bit_reader *br)
{
	uint32_t e = d->table[br->buf >> (64 - TB)];
	unsigned len = e & 31;
	uint32_t sym = e >> 5;

	if (len == 0)
		sym = long_code(d, br->buf, &len);
	br->buf <<= len;
	br->nb -= len;
	return sym;
}

/* Decode n symbols of width w (a constant at each call site). After a refill at least 56 bits
 * are buffered, enough for two codes of up to 24 bits. */
static inline void decode_symbols(const gpz_decoder *d, struct bit_reader *br, uint8_t *dst,
                                  size_t n, int w)
{
	size_t i = 0;
	for (; i + 2 <= n; i += 2) {
		refill(br);
		gpz_store_symbol(dst, i, w, decode_one(d, br));
		gpz_store_symbol(dst, i + 1, w, decode_one(d, br));
	}
	if (i < n) {
		refill(br);
		gpz_store_symbol(dst, i, w, decode_one(d, br));
	}
}

/* 1- and 2-byte symbols: up to 3 symbols per lookup, written with one 4- or 8-byte store. The
 * store covers 4 output slots, so a step needs 4 slots left. One step at *i: */
/* The step at the top of bits (at least PEEK valid): up to 3 symbols of the multi-symbol table
 * in one 4-slot store at out, or one code longer than the table; returns how many, and the bits
 * they took in *len. */
static inline unsigned step_at(const gpz_decoder *d, uint64_t bits, uint8_t *out, int w,
                               unsigned *len)
{
	const uint64_t e = d->multi[bits >> (64 - TB)];
	const unsigned cnt = (unsigned)(e >> 48 & 3);

	*len = (unsigned)(e >> 52);
	if (__builtin_expect(cnt == 0, 0)) { /* a code longer than the table */
		gpz_store_symbol(out, 0, w, long_code(d, bits, len));
		return 1;
	}
	if (w == 1)
		gpz_store_le32(out, (uint32_t)e);
	else
		gpz_store_le64(out, e & 0xffffffffffffull);
	return cnt;
}

static inline void multi_step(const gpz_decoder *d, struct bit_reader *br, uint8_t *dst,
                              size_t *i, int w)
{
	unsigned len;

	refill(br);
	*i += step_at(d, br->buf, dst + *i * (size_t)w, w, &len);
	br->buf <<= len;
	br->nb -= len;
}

/* 32 copies of the 1-bit code "0" when the next 32 bits are zero and 32 slots are left: one
 * test a step, taken by every step on runs of quantization codes (Nyx-Quant: 94% of its 32-symbol
 * blocks), where the multi-symbol table would take 3 a lookup. */
static inline int zero_run_step(const gpz_decoder *d, struct bit_reader *br, uint8_t *dst,
                                size_t *i, size_t n, int w)
{
	if ((br->buf >> 32) != 0 || *i + 32 > n)
		return 0;
	uint64_t v = gpz_splat(d->zero_sym, w);
	uint8_t *o = dst + *i * (size_t)w;
	for (int k = 0; k < 4 * w; k++)
		memcpy(o + 8 * k, &v, 8);
	br->buf <<= 32;
	br->nb -= 32;
	*i += 32;
	return 1;
}

/* A step: a zero run where the code has one (`runs`, a constant at each call site), else up to
 * 3 symbols of the multi-symbol table. */
static inline void step(const gpz_decoder *d, struct bit_reader *br, uint8_t *dst, size_t *i,
                        size_t n, int w, int runs)
{
	if (runs) {
		refill(br);
		if (zero_run_step(d, br, dst, i, n, w))
			return;
	}
	multi_step(d, br, dst, i, w);
}

static inline void decode_multi_r(const gpz_decoder *d, struct bit_reader *br, uint8_t *dst,
                                  size_t n, int w, int runs)
{
	size_t i = 0;
	while (i + 4 <= n)
		step(d, br, dst, &i, n, w, runs);
	decode_symbols(d, br, dst + i * (size_t)w, n - i, w);
}

/*
 * The bulk of four chunks of 1- or 2-byte symbols without zero runs: a reader here is only where
 * it is (p, and `used` bits of the byte at p), its 64 bits loaded afresh every two steps with no
 * test, for as many rounds as no chunk can reach its end or the payload's (computed, then run
 * without a check). The same lookups as multi_step; the plain loop tested the payload's end at
 * every step and kept its four readers' state partly in memory, and took 1.5-1.8x the time on
 * text (bench/NOTES.md, twenty-first session).
 */
#define FAST_SLOTS 6 /* symbols a round writes at most: two steps of up to 3 */
#define FAST_BYTES 6 /* bytes a round consumes at most: two codes of up to 24 bits */

static inline __attribute__((always_inline)) void fast_step(const gpz_decoder *d,
                                                            uint64_t *bits, unsigned *used,
                                                            uint8_t **out, int w)
{
	unsigned len;

	*out += step_at(d, *bits, *out, w, &len) * (size_t)w;
	*bits <<= len;
	*used += len;
}

/* Rounds every reader can run unchecked: its chunk has room for FAST_SLOTS more symbols a round
 * and for the last round's 4-slot store, and its loads stay inside the payload. */
static inline size_t fast_rounds(const uint8_t *const p[4], const uint8_t *pend,
                                 uint8_t *const o[4], uint8_t *const oend[4], int w)
{
	size_t r = SIZE_MAX;
	for (int k = 0; k < 4; k++) {
		size_t slots = (size_t)(oend[k] - o[k]) / (size_t)w;
		size_t in = p[k] < pend ? (size_t)(pend - p[k]) : 0; /* a chunk start past the end */
		size_t ro = slots >= 4 + FAST_SLOTS ? (slots - 4) / FAST_SLOTS : 0;
		size_t ri = in >= 16 + FAST_BYTES ? (in - 16) / FAST_BYTES : 0;
		r = ro < r ? ro : r;
		r = ri < r ? ri : r;
	}
	return r;
}

static inline __attribute__((always_inline)) void
decode_fast4(const gpz_decoder *d, struct bit_reader br[4], uint8_t *dst[4], size_t i[4],
             size_t n, int w)
{
	const uint8_t *start = br[0].start, *pend = br[0].end, *p[4];
	uint8_t *o[4], *oend[4];
	unsigned used[4];
	size_t r;

	for (int k = 0; k < 4; k++) {
		uint64_t pos = reader_pos(&br[k]);
		p[k] = start + pos / 8;
		used[k] = (unsigned)(pos % 8);
		o[k] = dst[k] + i[k] * (size_t)w;
		oend[k] = dst[k] + n * (size_t)w;
	}
	while ((r = fast_rounds(p, pend, o, oend, w)) >= 4) {
		for (; r > 0; r--) {
			/* unrolled, the readers live in registers (GCC kept the arrays in memory) */
#pragma GCC unroll 4
			for (int k = 0; k < 4; k++) {
				uint64_t bits;
				p[k] += used[k] >> 3;
				used[k] &= 7;
				bits = gpz_load_be64(p[k]) << used[k];
				fast_step(d, &bits, &used[k], &o[k], w);
				fast_step(d, &bits, &used[k], &o[k], w);
			}
		}
	}
	for (int k = 0; k < 4; k++) {
		reader_init(&br[k], start, (size_t)(pend - start),
		            (uint64_t)(p[k] - start) * 8 + used[k]);
		i[k] = (size_t)(o[k] - dst[k]) / (size_t)w;
	}
}

/* Four chunks of n symbols at once, a step of each in turn: one chunk's steps form a chain (each
 * lookup waits for the shift before it), four independent chains keep the core busy. Then each
 * chunk's last symbols alone. The same symbols and bit positions as decode_multi_r per chunk.
 * Always inlined: out of line, the four readers lived in memory, ~15% slower on text. */
static inline __attribute__((always_inline)) void
decode_multi4_r(const gpz_decoder *d, struct bit_reader br[4], uint8_t *dst[4], size_t n, int w,
                int runs)
{
	size_t i[4] = { 0, 0, 0, 0 };
	if (!runs)
		decode_fast4(d, br, dst, i, n, w);
	while (i[0] + 4 <= n && i[1] + 4 <= n && i[2] + 4 <= n && i[3] + 4 <= n) {
		step(d, &br[0], dst[0], &i[0], n, w, runs);
		step(d, &br[1], dst[1], &i[1], n, w, runs);
		step(d, &br[2], dst[2], &i[2], n, w, runs);
		step(d, &br[3], dst[3], &i[3], n, w, runs);
	}
	for (int k = 0; k < 4; k++)
		decode_multi_r(d, &br[k], dst[k] + i[k] * (size_t)w, n - i[k], w, runs);
}

struct dec_job {
	const gpz_decoder *d;
	const uint8_t *payload;
	size_t payload_size;
	const uint64_t *chunk_start;
	size_t n, nchunks, chunks_per_task;
	int w, chunk_log;
	uint8_t *dst;
	int *bad;       /* per task */
	uint64_t *sum;  /* per task: its checksum blocks' part of the content checksum, or NULL */
};

static inline int decode_chunk_r(const struct dec_job *j, size_t c, int runs)
{
	size_t cs = (size_t)1 << j->chunk_log;
	size_t first = c * cs;
	size_t m = j->n - first < cs ? j->n - first : cs;
	uint8_t *out = j->dst + first * (size_t)j->w;
	struct bit_reader br;

	reader_init(&br, j->payload, j->payload_size, j->chunk_start[c]);
	if (j->w == 1)
		decode_multi_r(j->d, &br, out, m, 1, runs);
	else if (j->w == 2)
		decode_multi_r(j->d, &br, out, m, 2, runs);
	else
		decode_symbols(j->d, &br, out, m, 4);
	return reader_pos(&br) == j->chunk_start[c + 1];
}

/* Whole chunks c .. c + 3 of 1- or 2-byte symbols, interleaved; 0 when one is corrupt. */
static inline int decode_chunks4_r(const struct dec_job *j, size_t c, int runs)
{
	size_t cs = (size_t)1 << j->chunk_log;
	struct bit_reader br[4];
	uint8_t *out[4];
	int ok = 1;

	for (int k = 0; k < 4; k++) {
		reader_init(&br[k], j->payload, j->payload_size, j->chunk_start[c + k]);
		out[k] = j->dst + (c + k) * cs * (size_t)j->w;
	}
	if (j->w == 1)
		decode_multi4_r(j->d, br, out, cs, 1, runs);
	else
		decode_multi4_r(j->d, br, out, cs, 2, runs);
	for (int k = 0; k < 4; k++)
		ok &= reader_pos(&br[k]) == j->chunk_start[c + k + 1];
	return ok;
}

/* Codes with zero runs take these, out of the plain ones' way. */
static __attribute__((noinline)) int decode_chunk_runs(const struct dec_job *j, size_t c)
{
	return decode_chunk_r(j, c, 1);
}

static __attribute__((noinline)) int decode_chunks4_runs(const struct dec_job *j, size_t c)
{
	return decode_chunks4_r(j, c, 1);
}

static int decode_chunk(const struct dec_job *j, size_t c)
{
	return j->d->zero_run ? decode_chunk_runs(j, c) : decode_chunk_r(j, c, 0);
}

static int decode_chunks4(const struct dec_job *j, size_t c)
{
	return j->d->zero_run ? decode_chunks4_runs(j, c) : decode_chunks4_r(j, c, 0);
}

/* The checksum blocks of the task's output in [*hashed, upto) that are whole (or end the
 * output), hashed into the task's sum; *hashed moves past them. */
static void hash_blocks(struct dec_job *j, size_t t, size_t *hashed, size_t upto)
{
	size_t end = j->n * (size_t)j->w;
	while (*hashed < upto && (upto - *hashed >= GPZ_CHECKSUM_BLOCK || upto == end)) {
		size_t len = end - *hashed < GPZ_CHECKSUM_BLOCK ? end - *hashed : GPZ_CHECKSUM_BLOCK;
		j->sum[t] += gpz_xxh64(j->dst + *hashed, len, *hashed / GPZ_CHECKSUM_BLOCK);
		*hashed += len;
	}
}

static void dec_task(void *ctx, size_t t)
{
	struct dec_job *j = ctx;
	size_t c0, c1, cs = (size_t)1 << j->chunk_log, cb = cs * (size_t)j->w;
	gpz_task_range(t, j->chunks_per_task, j->nchunks, &c0, &c1);
	/* chunks before `full` hold 2^chunk_log symbols each */
	size_t full = j->n >> j->chunk_log, hashed = c0 * cb, end = j->n * (size_t)j->w;

	for (size_t c = c0; c < c1;) {
		size_t k = j->w <= 2 && c + 4 <= c1 && c + 4 <= full ? 4 : 1;
		if (!(k == 4 ? decode_chunks4(j, c) : decode_chunk(j, c))) {
			j->bad[t] = 1;
			return;
		}
		c += k;
		if (j->sum) /* while the chunks are in cache */
			hash_blocks(j, t, &hashed, c * cb < end ? c * cb : end);
	}
}

static gpz_result decode(gpz_decoder *d, const uint8_t *payload, size_t payload_size,
                         const uint64_t *chunk_start, size_t n, int w, int chunk_log,
                         int nthreads, uint8_t *dst, uint64_t *sum)
{
	if (d->w <= 2 && !d->multi_built) { /* before the tasks, which read it */
		gpz_multi_table(d, UINT32_MAX, d->w, NULL, d->multi);
		d->multi_built = 1;
	}
	size_t cs = (size_t)1 << chunk_log;
	struct dec_job j = { d, payload, payload_size, chunk_start, n, (n + cs - 1) / cs, 0,
	                     w, chunk_log, dst, NULL, NULL };
	size_t ntasks;
	gpz_result r;

	if (chunk_start[j.nchunks] > (uint64_t)payload_size * 8)
		return GPZ_ERR_CORRUPT;
	j.chunks_per_task = gpz_task_chunks(chunk_log, (size_t)1 << 20, nthreads, j.nchunks);
	if (sum) { /* tasks start on checksum blocks */
		size_t per_block = cs * (size_t)w >= GPZ_CHECKSUM_BLOCK
		                   ? 1 : GPZ_CHECKSUM_BLOCK / (cs * (size_t)w);
		j.chunks_per_task = (j.chunks_per_task + per_block - 1) / per_block * per_block;
	}
	ntasks = (j.nchunks + j.chunks_per_task - 1) / j.chunks_per_task;
	if (sum && !(j.sum = calloc(ntasks, sizeof(*j.sum))))
		return GPZ_ERR_NOMEM;
	r = gpz_parallel_checked(nthreads, ntasks, dec_task, &j, &j.bad);
	if (sum) {
		*sum = 0;
		for (size_t t = 0; t < ntasks; t++)
			*sum += j.sum[t];
		free(j.sum);
	}
	return r;
}

gpz_result gpz_huff_decode(gpz_decoder *d, const uint8_t *payload, size_t payload_size,
                           const uint64_t *chunk_start, size_t n, int w, int chunk_log,
                           int nthreads, uint8_t *dst)
{
	return decode(d, payload, payload_size, chunk_start, n, w, chunk_log, nthreads, dst, NULL);
}

gpz_result gpz_huff_decode_sum(gpz_decoder *d, const uint8_t *payload,
                               size_t payload_size, const uint64_t *chunk_start, size_t n, int w,
                               int chunk_log, int nthreads, uint8_t *dst, uint64_t *sum)
{
	return decode(d, payload, payload_size, chunk_start, n, w, chunk_log, nthreads, dst, sum);
}
