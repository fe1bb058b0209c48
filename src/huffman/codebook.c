/* codebook.c - code lengths, canonical codes and their compact serialisation, CPU backend.
 *
 * Lengths come from the shared builder (code_lengths.h): symbols sorted by (count, symbol),
 * two-queue Huffman, package-merge when over the limit. The GPU backend reproduces them. */
#include "huffman/huffman.h"
#include "huffman/code_lengths.h"
#include "huffman/codebook_bytes.h"

#include <stdlib.h>
#include <string.h>

/* Sorted list of used symbols: key = (count << 20) | symbol, so sorting keys sorts by
 * (count, symbol). Counts are < 2^32 and symbols < 2^20, so keys fit 52 bits. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t *sorted_keys(const uint32_t *counts, uint32_t alphabet, uint32_t *n_used)
{
	uint32_t n = 0;
	uint64_t *keys;

	for (uint32_t s = 0; s < alphabet; s++)
		n += counts[s] != 0;
	keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys)
		return NULL;
	n = 0;
	for (uint32_t s = 0; s < alphabet; s++)
		if (counts[s])
			keys[n++] = ((uint64_t)counts[s] << 20) | s;
	qsort(keys, n, sizeof(*keys), cmp_u64);
	*n_used = n;
	return keys;
}

int gpz_code_lengths(const uint32_t *counts, uint32_t alphabet, int limit, uint8_t *len)
{
	uint32_t n;
	uint64_t *keys = sorted_keys(counts, alphabet, &n);
	struct gpz_cl_scratch s = { 0 };
	int maxd = -1;

	if (!keys || n < 2 || (limit > 0 && limit < 32 && n > (1u << limit)))
		goto out;
	s.w = malloc((size_t)n * sizeof(*s.w));
	s.nw = malloc((size_t)n * sizeof(*s.nw));
	s.parent = malloc((2 * (size_t)n - 1) * sizeof(*s.parent));
	s.depth = malloc((2 * (size_t)n - 1) * sizeof(*s.depth));
	if (!s.w || !s.nw || !s.parent || !s.depth)
		goto out;
	if (limit > 0) { /* package-merge's lists, touched only when the limit is exceeded */
		s.cur = malloc(2 * (size_t)n * sizeof(*s.cur));
		s.nxt = malloc(2 * (size_t)n * sizeof(*s.nxt));
		s.is_pkg = malloc((size_t)limit * ((2 * (size_t)n + 63) / 64) * sizeof(*s.is_pkg));
		s.plen = malloc(n);
		if (!s.cur || !s.nxt || !s.is_pkg || !s.plen)
			goto out;
	}
	memset(len, 0, alphabet);
	maxd = gpz_cl_lengths(keys, n, limit, &s, len);
out:
	free(keys);
	free(s.w);
	free(s.nw);
	free(s.parent);
	free(s.depth);
	free(s.cur);
	free(s.nxt);
	free(s.is_pkg);
	free(s.plen);
	return maxd;
}

void gpz_canonical_codes(const uint8_t *len, uint32_t alphabet, uint32_t *code)
{
	gpz_cl_canonical(len, alphabet, code);
}

uint64_t gpz_coded_bits(const uint32_t *counts, const uint8_t *len, uint32_t alphabet)
{
	uint64_t bits = 0;
	for (uint32_t s = 0; s < alphabet; s++)
		bits += (uint64_t)counts[s] * len[s];
	return bits;
}

gpz_result gpz_lengths_check(const uint8_t *len, uint32_t alphabet)
{
	uint64_t kraft = 0;
	uint32_t used = 0;

	for (uint32_t s = 0; s < alphabet; s++) {
		if (len[s] > GPZ_MAX_CODE_LEN)
			return GPZ_ERR_CORRUPT;
		if (len[s]) {
			used++;
			kraft += (uint64_t)1 << (GPZ_MAX_CODE_LEN - len[s]);
		}
	}
	return used >= 2 && kraft == ((uint64_t)1 << GPZ_MAX_CODE_LEN) ? GPZ_OK : GPZ_ERR_CORRUPT;
}

/* The items are codebook_bytes.h's. */
size_t gpz_lengths_bound(uint32_t alphabet)
{
	return alphabet;
}

size_t gpz_lengths_write(const uint8_t *len, uint32_t alphabet, uint8_t *dst)
{
	return gpz_cb_write(len, alphabet, dst);
}

/* LEB128 of at most 3 bytes (21 bits); returns bytes read, 0 when malformed or truncated. */
static size_t read_varint(const uint8_t *src, size_t size, uint32_t *v)
{
	*v = 0;
	for (size_t i = 0; i < 3 && i < size; i++) {
		*v |= (uint32_t)(src[i] & 127) << (7 * i);
		if (!(src[i] & 128))
			return i + 1;
	}
	return 0;
}

gpz_result gpz_lengths_read(const uint8_t *src, size_t src_size, uint32_t alphabet, uint8_t *len,
                            size_t *used)
{
	size_t i = 0;
	uint32_t s = 0;

	while (s < alphabet) {
		uint32_t v, run;
		if (i >= src_size)
			return GPZ_ERR_CORRUPT;
		v = src[i++];
		if (v <= GPZ_MAX_CODE_LEN) {
			len[s++] = (uint8_t)v;
			continue;
		}
		if (v == GPZ_CB_LONG_ZRUN) {
			size_t k = read_varint(src + i, src_size - i, &run);
			if (!k)
				return GPZ_ERR_CORRUPT;
			i += k;
			run += GPZ_CB_ZRUN_MAX + 1;
		} else if (v < GPZ_CB_ZRUN_BASE || (v >= GPZ_CB_REP_BASE && s == 0)) {
			return GPZ_ERR_CORRUPT;
		} else {
			run = v < GPZ_CB_REP_BASE ? v - GPZ_CB_ZRUN_BASE + 2 : v - GPZ_CB_REP_BASE + 2;
		}
		if (run > alphabet - s)
			return GPZ_ERR_CORRUPT;
		memset(len + s, v < GPZ_CB_REP_BASE ? 0 : len[s - 1], run);
		s += run;
	}
	*used = i;
	return GPZ_OK;
}
