/* histogram.c - symbol counts, CPU backend.
 *
 * Each worker counts a contiguous slice into private tables, so no counter is shared between
 * threads. Within a worker, symbols of 1 and 2 bytes go round-robin into 4 copies of the table:
 * on skewed data (Nyx-Quant: one symbol has p = 0.996) consecutive increments of one counter
 * would otherwise form a store-to-load dependency chain of ~5 cycles per symbol. */
#include "huffman/huffman.h"
#include "common/bits.h"
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
	size_t per_task;
	uint32_t **tables;   /* one private table set per task */
	int *bad;            /* per task: saw a symbol beyond the alphabet */
};

static void count_bytes(const uint8_t *s, size_t n, uint32_t *t)
{
	uint32_t *t1 = t + 256, *t2 = t + 512, *t3 = t + 768;
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		t[s[i]]++;
		t1[s[i + 1]]++;
		t2[s[i + 2]]++;
		t3[s[i + 3]]++;
	}
	for (; i < n; i++)
		t[s[i]]++;
}

static void count_u16(const uint8_t *s, size_t n, uint32_t *t)
{
	uint32_t *t1 = t + 65536, *t2 = t + 2 * 65536, *t3 = t + 3 * 65536;
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		uint64_t v = gpz_load_le64(s + 2 * i);
		t[v & 0xffff]++;
		t1[(v >> 16) & 0xffff]++;
		t2[(v >> 32) & 0xffff]++;
		t3[v >> 48]++;
	}
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

static void hist_task(void *ctx, size_t task)
{
	struct hist_job *j = ctx;
	size_t first = task * j->per_task;
	size_t n = j->n - first < j->per_task ? j->n - first : j->per_task;
	const uint8_t *s = j->src + first * (size_t)j->w;
	uint32_t *t = j->tables[task];

	if (j->w == 1)
		count_bytes(s, n, t);
	else if (j->w == 2)
		count_u16(s, n, t);
	else
		j->bad[task] = count_u32(s, n, t);
}

static void free_tables(uint32_t **tables, size_t ntasks)
{
	for (size_t i = 0; i < ntasks; i++)
		free(tables[i]);
	free(tables);
}

gpz_result gpz_histogram(const uint8_t *src, size_t n, int w, int nthreads, uint32_t *counts,
                         uint32_t *alphabet)
{
	uint32_t limit = gpz_alphabet_limit(w);
	size_t copies = (size_t)table_copies(w);
	size_t ntasks = nthreads > 1 ? (size_t)nthreads : 1;
	struct hist_job j = { src, n, w, 0, NULL, NULL };
	gpz_result r = GPZ_OK;

	if (ntasks > 1 && n / ntasks < MIN_TASK_SYMBOLS)
		ntasks = n / MIN_TASK_SYMBOLS > 1 ? n / MIN_TASK_SYMBOLS : 1;
	j.per_task = (n + ntasks - 1) / ntasks;
	if (j.per_task == 0)
		j.per_task = 1;
	j.tables = calloc(ntasks, sizeof(*j.tables));
	j.bad = calloc(ntasks, sizeof(*j.bad));
	if (!j.tables || !j.bad) {
		free(j.tables);
		free(j.bad);
		return GPZ_ERR_NOMEM;
	}
	for (size_t t = 0; t < ntasks; t++) {
		j.tables[t] = calloc(copies * limit, sizeof(uint32_t));
		if (!j.tables[t]) {
			free_tables(j.tables, ntasks);
			free(j.bad);
			return GPZ_ERR_NOMEM;
		}
	}
	gpz_parallel_for(nthreads, n ? ntasks : 0, hist_task, &j);

	memset(counts, 0, limit * sizeof(uint32_t));
	for (size_t t = 0; t < ntasks; t++) {
		if (j.bad[t])
			r = GPZ_ERR_ALPHABET;
		for (size_t c = 0; c < copies; c++) {
			const uint32_t *tc = j.tables[t] + c * limit;
			for (uint32_t s = 0; s < limit; s++)
				counts[s] += tc[s];
		}
	}
	free_tables(j.tables, ntasks);
	free(j.bad);

	*alphabet = 0;
	for (uint32_t s = limit; s > 0; s--) {
		if (counts[s - 1]) {
			*alphabet = s;
			break;
		}
	}
	return r;
}
