/* encode.c - Huffman encoding into chunked MSB-first bitstreams, CPU backend.
 *
 * The bit writer keeps pending bits left-aligned in a 64-bit accumulator and flushes after every
 * two symbols with one unconditional 8-byte big-endian store: two codes add at most
 * 2 * 24 = 48 bits to at most 7 pending ones, so the accumulator never overflows and the loop
 * has no data-dependent branch.
 *
 * Threads take contiguous runs of chunks (tasks), the first written straight into the output. The
 * others go into a scratch buffer when the caller keeps one (an engine lane), and are then moved
 * to their exact bit offsets by the threads side by side; without one, each is written where its
 * input lies in the output when the output has room (else into a private buffer), and moved down
 * to its place in order, one task after the other. Either way the stream does not depend on the
 * thread count. */
#include "huffman/huffman.h"
#include "common/bits.h"
#include "common/memory.h"
#include "common/parallel.h"

#include <stdlib.h>
#include <string.h>

/* 1-byte symbols from which the encoder codes pairs (pair_table). */
#define PAIR_MIN_SYMBOLS ((size_t)1 << 20)
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

/* The pending bits stored (8 bytes, zeros after them), whole bytes moved past; the caller has
 * made sure of the room. */
static inline void store_bits(struct bit_writer *bw)
{
	gpz_store_be64(bw->p, bw->acc);
	bw->p += bw->nb >> 3;
	bw->acc <<= bw->nb & ~7u;
	bw->nb &= 7;
}

/* Returns 0 when the store would pass the end of the buffer. */
static inline int flush(struct bit_writer *bw)
{
	if (bw->p > bw->limit)
		return 0;
	store_bits(bw);
	return 1;
}

static inline uint64_t bit_pos(const struct bit_writer *bw)
{
	return (uint64_t)(bw->p - bw->start) * 8 + bw->nb;
}

/* A block of symbols the run path takes at once: gpz_run32's 32 bytes. */
#define RUN_BYTES 32

/* A block of one symbol's code repeated, when its bits fit one put (k codes of e; 0 if not). */
static inline uint32_t run_code(uint32_t e, unsigned k, uint64_t *bits)
{
	unsigned len = e & 0xff;
	uint64_t r = 0;
	if (len * k > 56)
		return 0;
	for (unsigned i = 0; i < k; i++)
		r = (r << len) | (e >> 8);
	*bits = r;
	return len * k;
}

/* The pair table of 1-byte symbols: entry a | b << 8 (the two bytes read as a little-endian
 * word) is a's code then b's, (bits << 8) | length, up to 2 * 24 bits. One put a pair instead of
 * two halves the chain of shifts that sets the loop's pace (each put's place depends on the
 * last one's length). NULL when there is no memory for it. */
static uint64_t *pair_table(const uint32_t *table, uint32_t alphabet)
{
	uint64_t *pairs = malloc(65536 * sizeof(*pairs));

	for (uint32_t b = 0; pairs && b < 256; b++) {
		uint32_t eb = b < alphabet ? table[b] : 0;
		for (uint32_t a = 0; a < 256; a++) {
			uint32_t ea = a < alphabet ? table[a] : 0;
			pairs[a | b << 8] = ((uint64_t)(ea >> 8) << (eb & 0xff) | eb >> 8) << 8 |
			                    ((ea & 0xff) + (eb & 0xff));
		}
	}
	return pairs;
}

/* Has a symbol of the code a 1-bit code (so that encode_symbols' runs may fire)? */
static int one_bit_code(const uint32_t *table, uint32_t alphabet)
{
	for (uint32_t s = 0; s < alphabet; s++)
		if ((table[s] & 0xff) == 1)
			return 1;
	return 0;
}

/* Symbols j and j + 1: both in one put through the pair table when there is one (1-byte
 * symbols), else a put each. */
static inline void put_two(struct bit_writer *bw, const uint8_t *s, size_t j, int w,
                           const uint32_t *table, const uint64_t *pairs)
{
	if (pairs) {
		uint64_t e = pairs[gpz_load_le16(s + j)];
		unsigned len = (unsigned)(e & 0xff);
		bw->acc |= (e >> 8) << (64 - bw->nb - len);
		bw->nb += len;
	} else {
		put_code(bw, table[gpz_load_symbol(s, j, w)]);
		put_code(bw, table[gpz_load_symbol(s, j + 1, w)]);
	}
}

/* Encode n symbols of width w; returns 0 on buffer overflow. w is a constant at each call site,
 * and so is whether pairs is NULL, so the compiler specialises the loop for each. Runs of one
 * symbol with a short code (quantization codes: Nyx-Quant's most common symbol has p = 0.996, a
 * 1-bit code) go a block of RUN_BYTES at a time: one put of the block's bits, which the symbol's
 * own puts would give. */
static inline int encode_symbols(struct bit_writer *bw, const uint8_t *s, size_t n, int w,
                                 const uint32_t *table, const uint64_t *pairs)
{
	const unsigned k = RUN_BYTES / (unsigned)w; /* symbols a block */
	uint64_t pat = n ? gpz_splat(gpz_load_symbol(s, 0, w), w) : 0, run_bits = 0;
	uint32_t run_len = 0;
	int run_ready = 0; /* run_bits and run_len are pat's */
	size_t i = 0;

	for (; i + k <= n; i += k) {
		if (gpz_run32(s + i * (size_t)w, pat)) {
			if (!run_ready) {
				run_len = run_code(table[gpz_load_symbol(s, i, w)], k, &run_bits);
				run_ready = 1;
			}
			if (run_len) {
				bw->acc |= run_bits << (64 - bw->nb - run_len);
				bw->nb += run_len;
				if (!flush(bw))
					return 0;
				continue;
			}
		}
		for (size_t j = i; j < i + k; j += 2) {
			put_two(bw, s, j, w, table, pairs);
			if (!flush(bw))
				return 0;
		}
		uint64_t last = gpz_splat(gpz_load_symbol(s, i + k - 1, w), w);
		run_ready &= last == pat;
		pat = last;
	}
	for (; i + 2 <= n; i += 2) {
		put_two(bw, s, i, w, table, pairs);
		if (!flush(bw))
			return 0;
	}
	if (i < n)
		put_code(bw, table[gpz_load_symbol(s, i, w)]);
	return flush(bw);
}

/* Move src_bits bits from src (zero-padded, readable 8 bytes past its last byte) to bit offset
 * dst_bits of dst, whose bits past dst_bits are zero. Writes up to 8 bytes past the end. src may
 * lie in dst at or after the bits' destination: every store lands on bytes already read. */
static void bits_append(uint8_t *dst, uint64_t dst_bits, const uint8_t *src, uint64_t src_bits)
{
	uint8_t *d = dst + dst_bits / 8;
	unsigned sh = (unsigned)(dst_bits % 8);
	size_t nbytes = (size_t)((src_bits + 7) / 8);
	uint64_t carry;

	if (sh == 0) {
		if (d != src)
			memmove(d, src, nbytes);
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

/* Two whole chunks of m 1-byte symbols (m even) coded side by side through the pair table, a
 * into bw's buffer and b into `side` (3 m + 16 bytes), then b's bits moved to the end of a's:
 * each put's place waits for the last one's length, so one chunk's puts form a chain, and two
 * chains keep the core busier (the move is one pass over b's bytes). No test a put: the room for
 * both chunks' worst case (3 bytes a symbol) is checked first; 0 without it (nothing written).
 * The bits are those of encode_symbols on a, then on b, where no symbol has a 1-bit code (that
 * path's runs never fire then). */
static int encode_two(struct bit_writer *bw, const uint8_t *a, const uint8_t *b, size_t m,
                      const uint64_t *pairs, uint8_t *side, uint32_t *a_bits, uint32_t *b_bits)
{
	struct bit_writer wa = *bw, wb = { 0, 0, side, side, side + 3 * m + 8 };
	uint64_t start = bit_pos(bw), end_a, total;

	if (bw->p > bw->limit || (size_t)(bw->limit - bw->p) < 6 * m + 16)
		return 0;
	for (size_t j = 0; j < m; j += 2) {
		put_two(&wa, a, j, 1, NULL, pairs);
		put_two(&wb, b, j, 1, NULL, pairs);
		store_bits(&wa);
		store_bits(&wb);
	}
	store_bits(&wb); /* b's last bits and 8 bytes of zeros, which bits_append reads */
	end_a = bit_pos(&wa);
	*a_bits = (uint32_t)(end_a - start);
	*b_bits = (uint32_t)bit_pos(&wb);
	bits_append(bw->start, end_a, side, *b_bits);
	total = end_a + *b_bits;
	bw->p = bw->start + total / 8;
	bw->nb = (unsigned)(total % 8);
	bw->acc = bw->nb ? (uint64_t)(bw->p[0] & (0xff00u >> bw->nb)) << 56 : 0;
	/* zeros after the bits, as after every flush: a task's bits are moved with the 8 bytes
	 * past them read as padding (bits_append) */
	store_bits(bw);
	return 1;
}

/* Encode chunks [c0, c1) into buf (bit 0 = first bit); returns bits written, or -1. two: 1-byte
 * symbols with a pair table and no 1-bit code, whose whole chunks go two at a time. */
static int64_t encode_chunks(const uint8_t *src, size_t n, int w, const uint32_t *table,
                             const uint64_t *pairs, int two, int chunk_log, size_t c0,
                             size_t c1, uint8_t *buf, size_t cap, uint32_t *chunk_bits)
{
	struct bit_writer bw = { 0, 0, buf, buf, cap >= 8 ? buf + cap - 8 : NULL };
	size_t cs = (size_t)1 << chunk_log;
	uint8_t *side = two && c1 - c0 >= 2 ? malloc(3 * cs + 16) : NULL;

	if (!bw.limit) {
		free(side);
		return -1;
	}
	for (size_t c = c0; c < c1; c++) {
		size_t first = c * cs;
		size_t m = n - first < cs ? n - first : cs;
		const uint8_t *s = src + first * (size_t)w;
		uint64_t before = bit_pos(&bw);
		if (side && c + 1 < c1 && n - first >= 2 * cs &&
		    encode_two(&bw, s, s + cs, cs, pairs, side, &chunk_bits[c], &chunk_bits[c + 1])) {
			c++;
			continue;
		}
		int ok = w == 1 && pairs ? encode_symbols(&bw, s, m, 1, table, pairs)
		       : w == 1          ? encode_symbols(&bw, s, m, 1, table, NULL)
		       : w == 2          ? encode_symbols(&bw, s, m, 2, table, NULL)
		                         : encode_symbols(&bw, s, m, 4, table, NULL);
		if (!ok) {
			free(side);
			return -1;
		}
		chunk_bits[c] = (uint32_t)(bit_pos(&bw) - before);
	}
	free(side);
	return (int64_t)bit_pos(&bw);
}

struct enc_job {
	const uint8_t *src;
	size_t n;
	int w;
	const uint32_t *table;
	const uint64_t *pairs; /* or NULL */
	int two;               /* whole chunks two at a time (encode_two) */
	int chunk_log;
	size_t nchunks, chunks_per_task, ntasks;
	uint8_t *dst;
	size_t dst_cap;
	uint8_t **out;      /* per task: where it writes */
	size_t *cap;
	int owned;          /* out[1..] are private buffers */
	int64_t *bits;      /* per task, -1 on overflow */
	uint32_t *chunk_bits;
};

static void enc_task(void *ctx, size_t t)
{
	struct enc_job *j = ctx;
	size_t c0, c1;

	gpz_task_range(t, j->chunks_per_task, j->nchunks, &c0, &c1);
	j->bits[t] = encode_chunks(j->src, j->n, j->w, j->table, j->pairs, j->two, j->chunk_log, c0,
	                           c1, j->out[t], j->cap[t], j->chunk_bits);
}

/* Each task writes in dst where its input lies in src (its symbols' bytes): coded bits are
 * rarely more than the symbols' own, so with room for the input the output needs no other
 * memory, and the join moves each task's bits down to their place. Fresh private buffers for
 * every frame cost the CPU backend its scaling: on a 16-core host, 16 threads compressed text at
 * 2.7 GB/s with them, 3.75 with the C library told to keep freed memory (bench/results/
 * 2026-11-26-h100-engine-copies.md). Returns 0 when dst lacks room for this. */
static int places_in_dst(struct enc_job *j)
{
	size_t cs = (size_t)1 << j->chunk_log;

	for (size_t t = 0; t < j->ntasks; t++) {
		size_t at = t * j->chunks_per_task * cs * (size_t)j->w;
		size_t end = t + 1 < j->ntasks ? at + j->chunks_per_task * cs * (size_t)j->w
		                               : j->dst_cap;
		/* a task's bits end GPZ_ENCODE_SLACK before the next task's place: its move writes up
		 * to 8 bytes past them */
		if (end > j->dst_cap || end - at < 2 * GPZ_ENCODE_SLACK)
			return 0;
		j->out[t] = j->dst + at;
		j->cap[t] = end - at - GPZ_ENCODE_SLACK;
	}
	return 1;
}

/* Tasks 1.. in slots of the caller's scratch, each the size of its input: the scratch is kept
 * from frame to frame, so its pages are not faulted in again. 0 when it cannot be had. */
static int slots_in_scratch(struct enc_job *j, struct gpz_scratch *scratch)
{
	size_t slot = j->chunks_per_task * ((size_t)1 << j->chunk_log) * (size_t)j->w +
	              2 * GPZ_ENCODE_SLACK;
	uint8_t *p = gpz_scratch_get(scratch, (j->ntasks - 1) * slot);

	if (!p)
		return 0;
	j->out[0] = j->dst;
	j->cap[0] = j->dst_cap;
	for (size_t t = 1; t < j->ntasks; t++) {
		j->out[t] = p + (t - 1) * slot;
		j->cap[t] = slot - GPZ_ENCODE_SLACK;
	}
	return 1;
}

/* Tasks 1.. in private buffers sized for the worst case (untouched pages cost no memory). */
static gpz_result private_buffers(struct enc_job *j)
{
	size_t cs = (size_t)1 << j->chunk_log;

	j->out[0] = j->dst;
	j->cap[0] = j->dst_cap;
	j->owned = 1;
	for (size_t t = 1; t < j->ntasks; t++) {
		j->cap[t] = j->chunks_per_task * cs * GPZ_MAX_CODE_LEN / 8 + 2 * GPZ_ENCODE_SLACK;
		j->out[t] = malloc(j->cap[t]);
		if (!j->out[t])
			return GPZ_ERR_NOMEM;
	}
	return GPZ_OK;
}

static void free_private(struct enc_job *j)
{
	for (size_t t = 1; j->owned && t < j->ntasks; t++)
		free(j->out[t]);
}

/* Run the tasks; 1 when every one fitted. */
static int run_tasks(struct enc_job *j, int nthreads)
{
	gpz_parallel_for(nthreads, j->ntasks, enc_task, j);
	for (size_t t = 0; t < j->ntasks; t++)
		if (j->bits[t] < 0)
			return 0;
	return 1;
}

/* Join the tasks' bits after task 0's output; returns the total or -1. */
static int64_t join_tasks(struct enc_job *j)
{
	uint64_t total = (uint64_t)j->bits[0];
	for (size_t t = 1; t < j->ntasks; t++) {
		uint64_t b = (uint64_t)j->bits[t];
		if (total / 8 + (b + 7) / 8 + GPZ_ENCODE_SLACK > j->dst_cap)
			return -1;
		bits_append(j->dst, total, j->out[t], b);
		total += b;
	}
	return (int64_t)total;
}

/* The 8 bits of src from bit o on (MSB-first; src readable a byte past them). */
static inline uint8_t byte_at(const uint8_t *src, uint64_t o)
{
	unsigned k = (unsigned)(o % 8);
	const uint8_t *p = src + o / 8;
	return k ? (uint8_t)(p[0] << k | p[1] >> (8 - k)) : p[0];
}

/* The bytes of dst wholly inside bits [at, at + bits), from src's first bits (src readable 8
 * bytes past them). The bytes at either edge, which dst may share with the neighbouring tasks,
 * are left alone. */
static void bits_place(uint8_t *dst, uint64_t at, const uint8_t *src, uint64_t bits)
{
	uint64_t q0 = (at + 7) / 8, q1 = (at + bits) / 8;
	unsigned sh = (unsigned)(at % 8), l = 8 - sh;
	size_t n = (size_t)(q1 - q0), i = 0;
	uint8_t *d = dst + q0;

	if (sh == 0) {
		memcpy(d, src, n);
		return;
	}
	/* byte i of d is src's bits [8i + l, 8i + l + 8) */
	for (; i + 8 <= n; i += 8)
		gpz_store_be64(d + i, gpz_load_be64(src + i) << l | src[i + 8] >> sh);
	for (; i < n; i++)
		d[i] = (uint8_t)(src[i] << l | src[i + 1] >> sh);
}

struct place_job {
	struct enc_job *j;
	uint64_t *at;          /* per task: its first bit in dst */
	uint8_t *head, *tail;  /* per task: its bits of the byte it shares with the task before,
	                        * and with the task after (or the stream's last byte); the encoder's
	                        * last store leaves zeros past a task's bits */
};

static void place_task(void *ctx, size_t i)
{
	struct place_job *pj = ctx;
	size_t t = i + 1;
	const uint8_t *src = pj->j->out[t];
	uint64_t at = pj->at[t], bits = (uint64_t)pj->j->bits[t], end = at + bits;
	unsigned sh = (unsigned)(at % 8), k = (unsigned)(end % 8);

	bits_place(pj->j->dst, at, src, bits);
	pj->head[t] = (uint8_t)(sh ? src[0] >> sh : 0);
	pj->tail[t] = k ? byte_at(src, end / 8 * 8 - at) : 0; /* its bits past `bits` are 0 */
}

/* Join tasks 1.. from their slots after task 0's bits in dst, the tasks side by side, then the
 * bytes two tasks share; returns the total or -1. Tasks of fewer than 64 bits (where a task's two
 * edge bytes could be one) go the serial way. */
static int64_t join_parallel(struct enc_job *j, int nthreads)
{
	struct place_job pj = { j, calloc(j->ntasks, sizeof(uint64_t)), calloc(j->ntasks, 1),
	                        calloc(j->ntasks, 1) };
	uint64_t total = 0;
	int64_t r = -1;
	int serial = 0;

	for (size_t t = 0; pj.at && t < j->ntasks; t++) {
		pj.at[t] = total;
		total += (uint64_t)j->bits[t];
		serial |= t > 0 && j->bits[t] < 64;
	}
	if (!pj.at || !pj.head || !pj.tail || serial) {
		r = join_tasks(j);
	} else if (total / 8 + GPZ_ENCODE_SLACK <= j->dst_cap) {
		gpz_parallel_for(nthreads, j->ntasks - 1, place_task, &pj);
		/* task 0's last byte is in dst already, its unused bits zero */
		for (size_t t = 1; t < j->ntasks; t++)
			if (pj.at[t] % 8)
				j->dst[pj.at[t] / 8] = (uint8_t)((t > 1 ? pj.tail[t - 1]
				                                        : j->dst[pj.at[t] / 8]) |
				                                 pj.head[t]);
		if (total % 8)
			j->dst[total / 8] = pj.tail[j->ntasks - 1];
		r = (int64_t)total;
	}
	free(pj.at);
	free(pj.head);
	free(pj.tail);
	return r;
}

gpz_result gpz_huff_encode(const uint8_t *src, size_t n, int w, const uint32_t *table,
                           int chunk_log, int nthreads, uint8_t *dst, size_t dst_cap,
                           uint32_t *chunk_bits, uint64_t *total_bits)
{
	return gpz_huff_encode_in(src, n, w, table, 0, chunk_log, nthreads, dst, dst_cap,
	                          chunk_bits, total_bits, NULL);
}

gpz_result gpz_huff_encode_in(const uint8_t *src, size_t n, int w, const uint32_t *table,
                              uint32_t alphabet, int chunk_log, int nthreads, uint8_t *dst,
                              size_t dst_cap, uint32_t *chunk_bits, uint64_t *total_bits,
                              struct gpz_scratch *scratch)
{
	size_t cs = (size_t)1 << chunk_log;
	/* the pair table costs about 0.1 ms to make: for a MiB of symbols or more */
	uint64_t *pairs = w == 1 && alphabet && n >= PAIR_MIN_SYMBOLS ? pair_table(table, alphabet)
	                                                              : NULL;
	struct enc_job j = { src, n, w, table, pairs, pairs && !one_bit_code(table, alphabet),
	                     chunk_log, (n + cs - 1) / cs, 0, 0, dst, dst_cap, NULL, NULL, 0, NULL,
	                     chunk_bits };
	gpz_result r = GPZ_OK;
	int64_t total = -1;
	int staged = 0; /* tasks 1.. in the scratch */

	j.chunks_per_task = gpz_task_chunks(chunk_log, TASK_SYMBOLS, nthreads, j.nchunks);
	j.ntasks = (j.nchunks + j.chunks_per_task - 1) / j.chunks_per_task;
	if (j.ntasks == 0)
		j.ntasks = 1;
	j.out = calloc(j.ntasks, sizeof(*j.out));
	j.cap = calloc(j.ntasks, sizeof(*j.cap));
	j.bits = calloc(j.ntasks, sizeof(*j.bits));
	if (!j.out || !j.cap || !j.bits)
		r = GPZ_ERR_NOMEM;
	/* in the scratch when there is one and every task fits; else in place where there is room
	 * and every task fits; else (or then) private buffers */
	if (r == GPZ_OK && j.ntasks > 1 && scratch)
		staged = slots_in_scratch(&j, scratch) && run_tasks(&j, nthreads);
	if (r == GPZ_OK && !staged &&
	    (j.ntasks == 1 || !places_in_dst(&j) || !run_tasks(&j, nthreads))) {
		memset(j.out, 0, j.ntasks * sizeof(*j.out));
		r = private_buffers(&j);
		if (r == GPZ_OK && !run_tasks(&j, nthreads))
			r = GPZ_ERR_DST_TOO_SMALL;
	}
	if (r == GPZ_OK && (total = staged ? join_parallel(&j, nthreads) : join_tasks(&j)) < 0)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (j.out)
		free_private(&j);
	free(j.out);
	free(j.cap);
	free(j.bits);
	free(pairs);
	if (r == GPZ_OK)
		*total_bits = (uint64_t)total;
	return r;
}
