/* codebook.c - code lengths, canonical codes and their compact serialisation, CPU backend.
 *
 * Lengths are a pure function of the counts: symbols are sorted by (count, symbol), Huffman's
 * two-queue construction breaks weight ties in favour of the leaf queue, and package-merge breaks
 * them in favour of leaves too. The GPU backend must reproduce exactly these lengths. */
#include "huffman/huffman.h"

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

/* Huffman code lengths of n >= 2 ascending weights, by the two-queue method: leaves and
 * internal nodes are both produced in nondecreasing weight order, so the two lightest nodes are
 * always at the heads of the two queues. depth[] must hold 2n - 1 entries. */
static int huffman_depths(const uint64_t *w, uint32_t n, uint32_t *depth)
{
	uint64_t *nw = malloc((size_t)n * sizeof(*nw));
	uint32_t *parent = malloc((2 * (size_t)n - 1) * sizeof(*parent));
	uint32_t leaf = 0, next = 0, maxd = 0;

	if (!nw || !parent) {
		free(nw);
		free(parent);
		return -1;
	}
	for (uint32_t k = 0; k < n - 1; k++) {
		uint64_t sum = 0;
		for (int pick = 0; pick < 2; pick++) {
			if (leaf < n && (next >= k || w[leaf] <= nw[next])) {
				sum += w[leaf];
				parent[leaf++] = n + k;
			} else {
				sum += nw[next];
				parent[n + next++] = n + k;
			}
		}
		nw[k] = sum;
	}
	depth[2 * n - 2] = 0;
	for (uint32_t i = 2 * n - 2; i-- > 0;) {
		depth[i] = depth[parent[i]] + 1;
		if (i < n && depth[i] > maxd)
			maxd = depth[i];
	}
	free(nw);
	free(parent);
	return (int)maxd;
}

/* Package-merge (Larmore & Hirschberg, 1990): optimal lengths of at most `limit` bits for
 * n ascending weights, n <= 2^limit. The list of depth d merges the leaves with the pairs
 * ("packages") of the list of depth d + 1; the first 2n - 2 items of the depth-1 list form the
 * optimal code, and a leaf's length is the number of lists in which it is selected. Only a
 * package/leaf bit per item is kept per depth, so memory is O(n * limit) bits. */
static int package_merge(const uint64_t *w, uint32_t n, int limit, uint8_t *out_len)
{
	size_t cap = 2 * (size_t)n;
	size_t words = (cap + 63) / 64;
	uint64_t *cur = malloc(cap * sizeof(*cur));
	uint64_t *nxt = malloc(cap * sizeof(*nxt));
	uint64_t *is_pkg = calloc((size_t)limit * words, sizeof(*is_pkg));
	size_t m = n, k;

	if (!cur || !nxt || !is_pkg) {
		free(cur);
		free(nxt);
		free(is_pkg);
		return -1;
	}
	memcpy(cur, w, n * sizeof(*w));
	for (int d = limit - 1; d >= 1; d--) {
		size_t np = m / 2, li = 0, pi = 0, o = 0;
		uint64_t *bits = is_pkg + (size_t)d * words;
		while (li < n || pi < np) {
			uint64_t pw = pi < np ? cur[2 * pi] + cur[2 * pi + 1] : 0;
			if (li < n && (pi >= np || w[li] <= pw)) {
				nxt[o++] = w[li++];
			} else {
				bits[o / 64] |= (uint64_t)1 << (o % 64);
				nxt[o++] = pw;
				pi++;
			}
		}
		m = o;
		uint64_t *t = cur;
		cur = nxt;
		nxt = t;
	}
	memset(out_len, 0, n);
	k = 2 * (size_t)n - 2;
	for (int d = 1; d <= limit && k > 0; d++) {
		size_t p = 0;
		const uint64_t *bits = is_pkg + (size_t)d * words;
		if (d < limit)
			for (size_t i = 0; i < k; i++)
				p += (bits[i / 64] >> (i % 64)) & 1;
		for (size_t i = 0; i < k - p; i++)
			out_len[i]++;
		k = 2 * p;
	}
	free(cur);
	free(nxt);
	free(is_pkg);
	return out_len[0];
}

int gpz_code_lengths(const uint32_t *counts, uint32_t alphabet, int limit, uint8_t *len)
{
	uint32_t n;
	uint64_t *keys = sorted_keys(counts, alphabet, &n);
	uint64_t *w = NULL;
	uint32_t *depth = NULL;
	uint8_t *plen = NULL;
	int maxd = -1;

	if (!keys || n < 2 || (limit > 0 && limit < 32 && n > (1u << limit)))
		goto out;
	w = malloc((size_t)n * sizeof(*w));
	depth = malloc((2 * (size_t)n - 1) * sizeof(*depth));
	if (!w || !depth)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		w[i] = keys[i] >> 20;
	maxd = huffman_depths(w, n, depth);
	if (maxd < 0)
		goto out;
	memset(len, 0, alphabet);
	if (limit > 0 && maxd > limit) {
		plen = malloc(n);
		maxd = plen ? package_merge(w, n, limit, plen) : -1;
		for (uint32_t i = 0; maxd > 0 && i < n; i++)
			len[keys[i] & 0xfffff] = plen[i];
	} else {
		for (uint32_t i = 0; i < n; i++)
			len[keys[i] & 0xfffff] = (uint8_t)depth[i];
	}
out:
	free(keys);
	free(w);
	free(depth);
	free(plen);
	return maxd;
}

void gpz_canonical_codes(const uint8_t *len, uint32_t alphabet, uint32_t *code)
{
	uint32_t count[GPZ_MAX_CODE_LEN + 2] = { 0 };
	uint32_t next[GPZ_MAX_CODE_LEN + 2];
	uint32_t c = 0;

	for (uint32_t s = 0; s < alphabet; s++)
		count[len[s]]++;
	count[0] = 0;
	for (int l = 1; l <= GPZ_MAX_CODE_LEN; l++) {
		c = (c + count[l - 1]) << 1;
		next[l] = c;
	}
	for (uint32_t s = 0; s < alphabet; s++)
		code[s] = len[s] ? next[len[s]]++ : 0;
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

/* Serialised lengths, one byte per item:
 *   0 .. 24     one length
 *   31, varint  a run of (98 + varint) zero lengths; the varint is LEB128 (7 bits per byte, low
 *               group first, high bit set on all but the last byte, at most 3 bytes)
 *   32 .. 127   a run of (v - 30) zero lengths (2 .. 97)
 *   128 .. 255  (v - 126) more copies of the previous length (2 .. 129)
 * Values 25 .. 30 are invalid. Long zero runs make sparse alphabets of 4-byte symbols cheap. */
#define LONG_ZRUN 31
#define ZRUN_BASE 32
#define ZRUN_MAX 97
#define REP_BASE 128
#define REP_MAX 129

size_t gpz_lengths_bound(uint32_t alphabet)
{
	return alphabet;
}

static size_t write_zero_run(uint32_t run, uint8_t *dst)
{
	size_t o = 0;
	if (run > ZRUN_MAX) {
		uint32_t k = run - ZRUN_MAX - 1;
		dst[o++] = LONG_ZRUN;
		for (; k >= 128; k >>= 7)
			dst[o++] = (uint8_t)(0x80 | (k & 127));
		dst[o++] = (uint8_t)k;
		return o;
	}
	if (run >= 2)
		dst[o++] = (uint8_t)(ZRUN_BASE + run - 2);
	else
		dst[o++] = 0;
	return o;
}

size_t gpz_lengths_write(const uint8_t *len, uint32_t alphabet, uint8_t *dst)
{
	size_t o = 0;
	uint32_t s = 0;

	while (s < alphabet) {
		uint32_t run = 1;
		while (s + run < alphabet && len[s + run] == len[s])
			run++;
		s += run;
		if (len[s - run] == 0) {
			o += write_zero_run(run, dst + o);
			continue;
		}
		dst[o++] = len[s - run];
		for (run--; run >= 2; run -= run < REP_MAX ? run : REP_MAX)
			dst[o++] = (uint8_t)(REP_BASE + (run < REP_MAX ? run : REP_MAX) - 2);
		if (run)
			dst[o++] = len[s - 1];
	}
	return o;
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
		if (v == LONG_ZRUN) {
			size_t k = read_varint(src + i, src_size - i, &run);
			if (!k)
				return GPZ_ERR_CORRUPT;
			i += k;
			run += ZRUN_MAX + 1;
		} else if (v < ZRUN_BASE || (v >= REP_BASE && s == 0)) {
			return GPZ_ERR_CORRUPT;
		} else {
			run = v < REP_BASE ? v - ZRUN_BASE + 2 : v - REP_BASE + 2;
		}
		if (run > alphabet - s)
			return GPZ_ERR_CORRUPT;
		memset(len + s, v < REP_BASE ? 0 : len[s - 1], run);
		s += run;
	}
	*used = i;
	return GPZ_OK;
}
