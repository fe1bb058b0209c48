/* lanes.c - the 32-lane interleaved Huffman payload layout (huffman.h), CPU reference.
 *
 * The encoder runs the decoder's schedule: within a step, lane by lane, a lane whose next code
 * does not fit in the bits it holds takes its next word. The encoder gives that word its place
 * in the output at that moment and fills its bits as the lane's codes arrive, storing it once it
 * is whole (when the lane takes the word after it, or at the end of the chunk). So one pass
 * writes every word once, with no lane's bit string built beforehand.
 *
 * A chunk's word count follows from its code lengths alone, so the chunks are sized first and
 * then encoded in parallel, each at its own word offset: the output does not depend on the
 * thread count. */
#include "huffman/huffman.h"
#include "common/bits.h"
#include "common/parallel.h"

#include <stdlib.h>
#include <string.h>

#define TB GPZ_DECODE_TABLE_BITS
#define PEEK 24 /* bits compared in the canonical search: the longest code */

#define TASK_SYMBOLS ((size_t)1 << 20) /* symbols a CPU task codes */

/* Symbols in chunk c (the last may be short). */
static size_t chunk_symbols(size_t n, int chunk_log, size_t c)
{
	size_t cs = (size_t)1 << chunk_log, first = c * cs;
	return n - first < cs ? n - first : cs;
}

/* The chunk's m symbols rounded up to whole rows: the (step, lane) pairs to walk. */
static size_t rows_end(size_t m)
{
	return (m + GPZ_LANES_ROW - 1) / GPZ_LANES_ROW * GPZ_LANES_ROW;
}

uint64_t gpz_lanes_chunk_words(const uint8_t *src, size_t m, int w, const uint32_t *table)
{
	uint64_t bits[GPZ_LANES] = { 0 }, words = 0;

	for (size_t i = 0; i < m; i++)
		bits[(i >> 2) % GPZ_LANES] += table[gpz_load_symbol(src, i, w)] & 0xff;
	for (int l = 0; l < GPZ_LANES; l++)
		words += (bits[l] + 31) / 32;
	return words;
}

/* A lane's word being filled: val holds its bits so far (MSB-first), avail the bits still free
 * (the decoder's buffered bits at this point), at its place in the output (NULL before the
 * lane's first word). */
struct lane_out {
	uint32_t val;
	unsigned avail;
	uint8_t *at;
};

/* Encode one chunk of m symbols at out (4 bytes a word). */
static void encode_chunk(const uint8_t *src, size_t m, int w, const uint32_t *table,
                             uint8_t *out)
{
	struct lane_out lane[GPZ_LANES] = { { 0, 0, NULL } };
	uint8_t *next = out;

	for (size_t j = 0; j < rows_end(m); j++) { /* steps, lane by lane */
		size_t i = gpz_lanes_symbol(j / GPZ_LANES, (unsigned)(j % GPZ_LANES));
		if (i >= m) /* the last row's lanes past the end */
			continue;
		struct lane_out *o = &lane[j % GPZ_LANES];
		uint32_t e = table[gpz_load_symbol(src, i, w)], code = e >> 8;
		unsigned len = e & 0xff, rest;

		if (len <= o->avail) {
			o->avail -= len;
			o->val |= code << o->avail;
			continue;
		}
		/* The code runs into the lane's next word, so that word is due now. The code's head
		 * completes the current word (none before the first: then avail = 0 and the head is
		 * empty); its tail, 1 .. 24 bits, starts the new one. */
		rest = len - o->avail;
		if (o->at)
			gpz_store_le32(o->at, o->val | code >> rest);
		o->at = next;
		next += 4;
		o->avail = 32 - rest;
		o->val = code << o->avail;
	}
	for (int l = 0; l < GPZ_LANES; l++)
		if (lane[l].at)
			gpz_store_le32(lane[l].at, lane[l].val);
}

struct enc_job {
	const uint8_t *src;
	size_t n;
	int w, chunk_log;
	const uint32_t *table;
	size_t nchunks, per_task;
	uint8_t *dst;
	uint32_t *chunk_words;
	uint64_t *task_start; /* first word of each task's chunks */
};

static void size_task(void *ctx, size_t t)
{
	struct enc_job *j = ctx;
	size_t c0, c1;

	gpz_task_range(t, j->per_task, j->nchunks, &c0, &c1);
	for (size_t c = c0; c < c1; c++) {
		const uint8_t *s = j->src + (c << j->chunk_log) * (size_t)j->w;
		size_t m = chunk_symbols(j->n, j->chunk_log, c);
		j->chunk_words[c] = (uint32_t)gpz_lanes_chunk_words(s, m, j->w, j->table);
	}
}

static void encode_task(void *ctx, size_t t)
{
	struct enc_job *j = ctx;
	uint64_t word = j->task_start[t];
	size_t c0, c1;

	gpz_task_range(t, j->per_task, j->nchunks, &c0, &c1);
	for (size_t c = c0; c < c1; c++) {
		const uint8_t *s = j->src + (c << j->chunk_log) * (size_t)j->w;
		size_t m = chunk_symbols(j->n, j->chunk_log, c);
		encode_chunk(s, m, j->w, j->table, j->dst + 4 * word);
		word += j->chunk_words[c];
	}
}

gpz_result gpz_huff_encode_lanes(const uint8_t *src, size_t n, int w, const uint32_t *table,
                                 int chunk_log, int nthreads, uint8_t *dst, size_t dst_cap,
                                 uint32_t *chunk_words, uint64_t *total_words)
{
	size_t cs = (size_t)1 << chunk_log, nchunks = (n + cs - 1) / cs;
	struct enc_job j = { src, n, w, chunk_log, table, nchunks,
	                     gpz_task_chunks(chunk_log, TASK_SYMBOLS, nthreads, nchunks), dst, chunk_words, NULL };
	size_t ntasks = (nchunks + j.per_task - 1) / j.per_task;
	uint64_t total = 0;

	j.task_start = malloc((ntasks ? ntasks : 1) * sizeof(*j.task_start));
	if (!j.task_start)
		return GPZ_ERR_NOMEM;
	gpz_parallel_for(nthreads, ntasks, size_task, &j);
	for (size_t c = 0; c < nchunks; c++) {
		if (c % j.per_task == 0)
			j.task_start[c / j.per_task] = total;
		total += chunk_words[c];
	}
	if (total > dst_cap / 4) {
		free(j.task_start);
		return GPZ_ERR_DST_TOO_SMALL;
	}
	gpz_parallel_for(nthreads, ntasks, encode_task, &j);
	free(j.task_start);
	*total_words = total;
	return GPZ_OK;
}

/* A lane's bit buffer: the next bits MSB-aligned, avail of them valid, zeros below them. */
struct lane_in {
	uint64_t buf;
	unsigned avail;
};

/* The symbol and length of the code at the top of buf. Codes are complete, so every bit
 * pattern starts with one. A code found within the valid bits is the true one, whatever lies
 * below (no code is a prefix of another); so when the true code runs past the valid bits, the
 * one found does too, and the caller knows to take a word. */
static inline uint32_t lookup(const gpz_decoder *d, uint64_t buf, unsigned *len)
{
	uint32_t e = d->table[buf >> (64 - TB)], top;
	unsigned l = TB + 1;

	if (e & 31) {
		*len = e & 31;
		return e >> 5;
	}
	top = (uint32_t)(buf >> (64 - PEEK));
	while (top >= d->limit[l])
		l++;
	*len = l;
	return d->sorted[d->base[l] + (int32_t)(top >> (PEEK - l))];
}

/* One step of a lane: its symbol, after taking the chunk's next word when the code is not wholly
 * in its buffer. The word is taken with selects rather than a branch (text takes one every few
 * symbols a lane, too irregularly to predict): both look-ups are made, one kept (measured here,
 * text: 242 -> 267 MB/s; taking the words of a step in a second pass over the lanes, to break
 * the chain through the word count, was slower: 176-204). *bad is set when the chunk has no
 * word left to take. */
static inline uint32_t lane_step(const gpz_decoder *d, struct lane_in *x, const uint8_t *words,
                                 uint64_t nwords, uint64_t *taken, int *bad)
{
	unsigned len, len2;
	uint32_t sym = lookup(d, x->buf, &len);
	const int need = len > x->avail;
	const uint64_t t = *taken < nwords ? *taken : 0;
	const uint64_t word = nwords ? gpz_load_le32(words + 4 * t) : 0;
	/* avail < len <= 24 when the word is taken: it goes right under the valid bits, and the
	 * look-up after it sees the whole code (the shift is masked for the lanes that take none) */
	const uint64_t nb = x->buf | (word << ((32 - x->avail) & 63));
	const uint32_t sym2 = lookup(d, nb, &len2);

	*bad |= need & (*taken >= nwords);
	*taken += (uint64_t)need;
	x->buf = need ? nb : x->buf;
	x->avail += need ? 32 : 0;
	len = need ? len2 : len;
	x->buf <<= len;
	x->avail -= len;
	return need ? sym2 : sym;
}

/*
 * A whole row of the dominant symbol (the 1-bit code 0) in every lane, tried before the steps
 * where the code has one (lanes.cu does the same). A 1-bit code runs past only an empty
 * buffer, so a lane holding a < 4 bits takes its word at step a: the row's words go to the lanes
 * by step, then by lane, without decoding anything, and right under each lane's valid bits
 * whatever the step. The guess held when every lane's next four bits are then zeros: returns 1
 * with the lanes moved on, else 0 with nothing changed (the steps then take the row, and report
 * a chunk that runs out of words).
 */
static inline int row_dominant(struct lane_in *lane, const uint8_t *words, uint64_t nwords,
                               uint64_t *taken)
{
	uint64_t nb[GPZ_LANES];
	unsigned c0 = 0, c1 = 0, c2 = 0, c3 = 0, at[4];

	/* counted in registers: a count array in memory chained every lane through one slot */
	for (unsigned l = 0; l < GPZ_LANES; l++) {
		const unsigned a = lane[l].avail;
		c0 += a == 0, c1 += a == 1, c2 += a == 2, c3 += a == 3;
	}
	at[0] = 0, at[1] = c0, at[2] = c0 + c1, at[3] = c0 + c1 + c2;
	const uint64_t total = at[3] + c3;
	if (*taken > nwords || total > nwords - *taken) /* a step may have run past the words */
		return 0;
	for (unsigned l = 0; l < GPZ_LANES; l++) {
		const unsigned a = lane[l].avail;
		nb[l] = lane[l].buf;
		if (a < 4)
			nb[l] |= (uint64_t)gpz_load_le32(words + 4 * (*taken + at[a]++)) << (32 - a);
		if (nb[l] >> 60)
			return 0;
	}
	for (unsigned l = 0; l < GPZ_LANES; l++) {
		lane[l].buf = nb[l] << 4;
		lane[l].avail += (lane[l].avail < 4 ? 32 : 0) - 4;
	}
	*taken += total;
	return 1;
}

/* Rows [r0, r1) of a chunk whose every symbol in them exists, w a constant once inlined; with
 * dom, rows of the dominant symbol taken at once where they are (row_dominant), dom_row such a
 * row's bytes. */
static inline void decode_rows(const gpz_decoder *d, struct lane_in *lane, const uint8_t *words,
                               uint64_t nwords, uint64_t *taken, int *bad, size_t r0, size_t r1,
                               int w, int dom, const uint8_t *dom_row, uint8_t *out)
{
	for (size_t r = r0; r < r1; r++) {
		if (dom && row_dominant(lane, words, nwords, taken)) {
			memcpy(out + GPZ_LANES_ROW * r * (size_t)w, dom_row, GPZ_LANES_ROW * (size_t)w);
			continue;
		}
		for (unsigned k = 0; k < 4; k++)
			for (unsigned l = 0; l < GPZ_LANES; l++)
				gpz_store_symbol(out, GPZ_LANES_ROW * r + 4 * l + k, w,
				                 lane_step(d, &lane[l], words, nwords, taken, bad));
	}
}

/* Decode one chunk of m symbols from its nwords words; 0 when the chunk is not valid. */
static int decode_chunk(const gpz_decoder *d, const uint8_t *words, uint64_t nwords, size_t m,
                        int w, int dom, uint8_t *out)
{
	struct lane_in lane[GPZ_LANES] = { { 0, 0 } };
	uint64_t taken = 0;
	size_t full = m / GPZ_LANES_ROW;
	int bad = 0;
	uint8_t dom_row[GPZ_LANES_ROW * 4];

	if (dom)
		for (unsigned i = 0; i < GPZ_LANES_ROW; i++)
			gpz_store_symbol(dom_row, i, w, d->zero_sym);

	/* whole rows, the width a constant in each call */
	if (w == 1)
		decode_rows(d, lane, words, nwords, &taken, &bad, 0, full, 1, dom, dom_row, out);
	else if (w == 2)
		decode_rows(d, lane, words, nwords, &taken, &bad, 0, full, 2, dom, dom_row, out);
	else
		decode_rows(d, lane, words, nwords, &taken, &bad, 0, full, 4, dom, dom_row, out);
	for (size_t j = full * GPZ_LANES_ROW; j < rows_end(m); j++) { /* the last, partial row */
		size_t i = gpz_lanes_symbol(j / GPZ_LANES, (unsigned)(j % GPZ_LANES));
		if (i < m) /* its lanes past the end have no step */
			gpz_store_symbol(out, i, w,
			                 lane_step(d, &lane[j % GPZ_LANES], words, nwords, &taken, &bad));
	}
	if (bad || taken != nwords)
		return 0;
	/* the bits left over are the last words' padding: zeros below the valid bits too */
	for (int l = 0; l < GPZ_LANES; l++)
		if (lane[l].buf)
			return 0;
	return 1;
}

struct dec_job {
	const gpz_decoder *d;
	const uint8_t *payload;
	const uint64_t *chunk_start;
	size_t n, nchunks, per_task;
	int w, chunk_log;
	int dom; /* rows of the dominant symbol tried first (row_dominant) */
	uint8_t *dst;
	int *bad; /* per task */
};

static void decode_task(void *ctx, size_t t)
{
	struct dec_job *j = ctx;
	size_t c0, c1;

	gpz_task_range(t, j->per_task, j->nchunks, &c0, &c1);
	for (size_t c = c0; c < c1; c++) {
		const uint64_t *cs = j->chunk_start + c;
		size_t m = chunk_symbols(j->n, j->chunk_log, c);
		uint8_t *out = j->dst + (c << j->chunk_log) * (size_t)j->w;
		if (!decode_chunk(j->d, j->payload + 4 * cs[0], cs[1] - cs[0], m, j->w, j->dom, out)) {
			j->bad[t] = 1;
			return;
		}
	}
}

gpz_result gpz_huff_decode_lanes(const gpz_decoder *d, const uint8_t *payload,
                                 size_t payload_size, const uint64_t *chunk_start, size_t n,
                                 int w, int chunk_log, int nthreads, uint8_t *dst)
{
	size_t cs = (size_t)1 << chunk_log, nchunks = (n + cs - 1) / cs;
	/* as lanes.cu: where a 1-bit code carries nearly everything (under 1.125 bits a symbol) */
	const int dom = d->zero_run && gpz_huff_nearly_one_bit((uint64_t)payload_size * 8, n);
	struct dec_job j = { d, payload, chunk_start, n, nchunks,
	                     gpz_task_chunks(chunk_log, TASK_SYMBOLS, nthreads, nchunks), w, chunk_log,
	                     dom, dst, NULL };
	size_t ntasks = (nchunks + j.per_task - 1) / j.per_task;

	/* every chunk's words inside the payload before any is read */
	if (chunk_start[nchunks] > payload_size / 4)
		return GPZ_ERR_CORRUPT;
	for (size_t c = 0; c < nchunks; c++)
		if (chunk_start[c] > chunk_start[c + 1])
			return GPZ_ERR_CORRUPT;
	return gpz_parallel_checked(nthreads, ntasks, decode_task, &j, &j.bad);
}
