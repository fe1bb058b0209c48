/* histogram.c - symbol counts, CPU backend.
 *
 * Each worker counts a contiguous slice into private tables, so no counter is shared between
 * threads. Within a worker, symbols of 1 and 2 bytes go round-robin into 4 copies of the table:
 * on skewed data (Nyx-Quant: one symbol has p = 0.996) consecutive increments of one counter
 * would otherwise form a store-to-load dependency chain of ~5 cycles per symbol. Runs of one
 * value (quantization codes: 94% of Nyx-Quant's 16-symbol blocks are one symbol) are counted a
 * block at a time in a register, with one compare of four 8-byte words against the run's value.
 *
 * The tables of all tasks are one allocation, zeroed by each task itself, kept from frame to
 * frame by a lane that gives its scratch: calloc'd per task, they were 1 MiB each (2-byte
 * symbols) and every frame's call faulted them in afresh, the source of most page faults of
 * Huffman-only compression at 16 threads. */
#include "huffman/huffman.h"
#include "common/bits.h"
#include "common/checksum.h"
#include "common/memory.h"
#include "common/xxh64.h"
#include "common/parallel.h"

#include <stdlib.h>
#include <string.h>

/* Symbols per task: large enough that zeroing and merging private tables is amortised. */
#define MIN_TASK_SYMBOLS ((size_t)1 << 20)

uint32_t gpz_alphabet_limit(int w)
{
	return w == 1 ? 256u : w == 2 ? 65536u : GPZ_MAX_ALPHABET;
}

static int table_copies(int w)
{
	return w == 4 ? 1 : 4;
}

struct hist_job {
	const uint8_t *src;
	size_t n;
	int w;
	uint32_t *counts;
	uint32_t limit;      /* counters a table */
	size_t copies;       /* tables a task */
	size_t ntasks, per_task;
	size_t stride;       /* copies * limit: a task's tables */
	uint32_t *tables;    /* every task's, one after the other */
	int *bad;            /* per task: saw a symbol beyond the alphabet */
	uint64_t *sum;       /* per task: its checksum blocks' part of the content checksum, or
	                      * NULL when not asked for */
};

static void count_bytes(const uint8_t *s, size_t n, uint32_t *t)
{
	uint32_t *t1 = t + 256, *t2 = t + 512, *t3 = t + 768;
	uint64_t run = 0, pat = n ? gpz_splat(s[0], 1) : 0;
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		if (gpz_run32(s + i, pat)) {
			run += 32;
			continue;
		}
		for (size_t k = i; k < i + 32; k += 4) {
			t[s[k]]++;
			t1[s[k + 1]]++;
			t2[s[k + 2]]++;
			t3[s[k + 3]]++;
		}
		t[pat & 0xff] += (uint32_t)run;
		run = 0;
		pat = gpz_splat(s[i + 31], 1);
	}
	t[pat & 0xff] += (uint32_t)run;
	for (; i < n; i++)
		t[s[i]]++;
}

static void count_u16(const uint8_t *s, size_t n, uint32_t *t)
{
	uint32_t *t1 = t + 65536, *t2 = t + 2 * 65536, *t3 = t + 3 * 65536;
	uint64_t run = 0, pat = n ? gpz_splat(gpz_load_le16(s), 2) : 0;
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		const uint8_t *b = s + 2 * i;
		if (gpz_run32(b, pat)) {
			run += 16;
			continue;
		}
		for (int k = 0; k < 32; k += 8) {
			uint64_t v = gpz_load_le64(b + k);
			t[v & 0xffff]++;
			t1[(v >> 16) & 0xffff]++;
			t2[(v >> 32) & 0xffff]++;
			t3[v >> 48]++;
		}
		t[pat & 0xffff] += (uint32_t)run;
		run = 0;
		pat = gpz_splat(gpz_load_le16(b + 30), 2);
	}
	t[pat & 0xffff] += (uint32_t)run;
	for (; i < n; i++)
		t[gpz_load_le16(s + 2 * i)]++;
}

/* Returns nonzero when a symbol is out of range (counting stops there). */
static int count_u32(const uint8_t *s, size_t n, uint32_t *t)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v = gpz_load_le32(s + 4 * i);
		if (v >= GPZ_MAX_ALPHABET)
			return 1;
		t[v]++;
	}
	return 0;
}

/* Count n symbols at s into the task's tables t; nonzero when one is out of range. */
static int count(const uint8_t *s, size_t n, int w, uint32_t *t)
{
	if (w == 1)
		count_bytes(s, n, t);
	else if (w == 2)
		count_u16(s, n, t);
	else
		return count_u32(s, n, t);
	return 0;
}

/* A task counts its slice; asked for the content checksum too, it hashes each checksum block
 * of its slice (slices are whole blocks) just before counting it, while the block is in cache,
 * so that the input is read from memory once for both. */
static void hist_task(void *ctx, size_t task)
{
	struct hist_job *j = ctx;
	size_t first = task * j->per_task, w = (size_t)j->w;
	size_t n = j->n - first < j->per_task ? j->n - first : j->per_task;
	const uint8_t *s = j->src + first * w;
	uint32_t *t = j->tables + task * j->stride;
	size_t step = j->sum ? GPZ_CHECKSUM_BLOCK / w : n;
	uint64_t sum = 0, block = first * w / GPZ_CHECKSUM_BLOCK;

	memset(t, 0, j->stride * sizeof(*t));
	for (size_t at = 0; at < n; at += step, block++) {
		size_t m = n - at < step ? n - at : step;
		if (j->sum)
			sum += gpz_xxh64(s + at * w, m * w, block);
		if (count(s + at * w, m, j->w, t)) {
			j->bad[task] = 1;
			break;
		}
	}
	if (j->sum)
		j->sum[task] = sum;
}

/* Symbols a merge task sums over every table for: the merge of 16 tasks' 4 copies of 65,536
 * counters is 4 Mi adds, a few percent of a frame if one thread did it. */
#define MERGE_SLICE 4096u

static void merge_task(void *ctx, size_t slice)
{
	struct hist_job *j = ctx;
	uint32_t s0 = (uint32_t)slice * MERGE_SLICE;
	uint32_t s1 = j->limit - s0 < MERGE_SLICE ? j->limit : s0 + MERGE_SLICE;

	memset(j->counts + s0, 0, (s1 - s0) * sizeof(uint32_t));
	for (size_t t = 0; t < j->ntasks * j->copies; t++) {
		const uint32_t *tc = j->tables + t * j->limit;
		for (uint32_t s = s0; s < s1; s++)
			j->counts[s] += tc[s];
	}
}

gpz_result gpz_histogram_sum(const uint8_t *src, size_t n, int w, int nthreads,
                             uint32_t *counts, uint32_t *alphabet, uint64_t *sum,
                             struct gpz_scratch *scratch)
{
	uint32_t limit = gpz_alphabet_limit(w);
	struct hist_job j = { .src = src, .n = n, .w = w, .counts = counts, .limit = limit,
	                      .copies = (size_t)table_copies(w),
	                      .ntasks = nthreads > 1 ? (size_t)nthreads : 1 };
	size_t block = GPZ_CHECKSUM_BLOCK / (size_t)w;
	gpz_result r = GPZ_OK;

	if (j.ntasks > 1 && n / j.ntasks < MIN_TASK_SYMBOLS)
		j.ntasks = n / MIN_TASK_SYMBOLS > 1 ? n / MIN_TASK_SYMBOLS : 1;
	j.per_task = (n + j.ntasks - 1) / j.ntasks;
	if (sum) /* whole checksum blocks a task */
		j.per_task = (j.per_task + block - 1) / block * block;
	if (j.per_task == 0)
		j.per_task = 1;
	j.ntasks = n ? (n + j.per_task - 1) / j.per_task : 1;
	j.stride = j.copies * limit;
	j.tables = scratch ? gpz_scratch_get(scratch, j.ntasks * j.stride * sizeof(uint32_t))
	                   : gpz_big_alloc(j.ntasks * j.stride * sizeof(uint32_t));
	j.bad = calloc(j.ntasks, sizeof(*j.bad));
	j.sum = sum ? calloc(j.ntasks, sizeof(*j.sum)) : NULL;
	if (!j.tables || !j.bad || (sum && !j.sum)) {
		if (!scratch)
			free(j.tables);
		free(j.bad);
		free(j.sum);
		return GPZ_ERR_NOMEM;
	}
	if (n) {
		gpz_parallel_for(nthreads, j.ntasks, hist_task, &j);
		gpz_parallel_for(nthreads, (limit + MERGE_SLICE - 1) / MERGE_SLICE, merge_task, &j);
	} else {
		memset(counts, 0, limit * sizeof(uint32_t));
	}
	for (size_t t = 0; n && t < j.ntasks; t++)
		if (j.bad[t])
			r = GPZ_ERR_ALPHABET;
	if (sum) {
		*sum = 0;
		for (size_t t = 0; n && t < j.ntasks; t++)
			*sum += j.sum[t];
		if (!n)
			*sum = gpz_checksum_threads(src, 0, 1);
	}
	if (!scratch)
		free(j.tables);
	free(j.bad);
	free(j.sum);

	*alphabet = 0;
	for (uint32_t s = limit; s > 0; s--) {
		if (counts[s - 1]) {
			*alphabet = s;
			break;
		}
	}
	return r;
}

gpz_result gpz_histogram(const uint8_t *src, size_t n, int w, int nthreads, uint32_t *counts,
                         uint32_t *alphabet)
{
	return gpz_histogram_sum(src, n, w, nthreads, counts, alphabet, NULL, NULL);
}
