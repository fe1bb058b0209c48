/* code_lengths.h - the one code-length builder of gpz, for every alphabet: the Huffman codebook
 * (codebook.c, up to 2^20 symbols, 24-bit limit) and the DEFLATE block writer
 * (deflate/block_core.h, 286/30/19 symbols, 15- and 7-bit limits, on the host and the device).
 *
 * Lengths are a pure function of the counts: the used symbols are sorted by (count, symbol) (the
 * caller sorts the keys (count << 20) | symbol, which are distinct, so any sort gives the same
 * order), Huffman's two-queue construction breaks weight ties in favour of the leaf queue, and
 * when the longest code exceeds the limit, package-merge (Larmore and Hirschberg 1990), optimal
 * under the limit, breaks them in favour of leaves too. The GPU codebook (codebook.cu)
 * reproduces the unlimited lengths in parallel.
 *
 * GPZ_HD, no allocation, no libc: the caller gives the scratch (struct gpz_cl_scratch), so the
 * same code runs in a device thread with its scratch in global memory. */
#ifndef GPZ_HUFFMAN_CODE_LENGTHS_H
#define GPZ_HUFFMAN_CODE_LENGTHS_H

#include <stddef.h>
#include <stdint.h>

#include "common/hd.h"

#define GPZ_CL_KEY_SYMBOL 0xfffffu /* symbol bits of a sort key (count << 20 | symbol) */

/* Scratch for n used symbols and a length limit L (entries each array needs). */
struct gpz_cl_scratch {
	uint64_t *w;       /* n: the sorted weights */
	uint64_t *nw;      /* n: weights of the internal nodes */
	uint32_t *parent;  /* 2n - 1 */
	uint32_t *depth;   /* 2n - 1 */
	uint64_t *cur;     /* 2n: package-merge lists */
	uint64_t *nxt;     /* 2n */
	uint64_t *is_pkg;  /* L * ceil(2n / 64): per depth, a bit per list item: a package? */
	uint8_t *plen;     /* n: package-merge lengths, in sorted order */
};

/* Two-queue Huffman depths of n >= 2 ascending weights w[] into depth[0 .. n) (leaves; the
 * internal nodes follow); returns the deepest leaf. Leaves and internal nodes are both produced
 * in nondecreasing weight order, so the two lightest nodes are always at the queues' heads. */
GPZ_HD static inline unsigned gpz_cl_huffman_depths(struct gpz_cl_scratch *s, uint32_t n)
{
	const uint64_t *w = s->w;
	uint32_t leaf = 0, next = 0, maxd = 0;
	for (uint32_t k = 0; k < n - 1; k++) {
		uint64_t sum = 0;
		for (int pick = 0; pick < 2; pick++) {
			if (leaf < n && (next >= k || w[leaf] <= s->nw[next])) {
				sum += w[leaf];
				s->parent[leaf++] = n + k;
			} else {
				sum += s->nw[next];
				s->parent[n + next++] = n + k;
			}
		}
		s->nw[k] = sum;
	}
	s->depth[2 * n - 2] = 0;
	for (uint32_t i = 2 * n - 2; i-- > 0;) {
		s->depth[i] = s->depth[s->parent[i]] + 1;
		if (i < n && s->depth[i] > maxd)
			maxd = s->depth[i];
	}
	return maxd;
}

/* Package-merge: optimal lengths of at most `limit` bits for the n ascending weights w[]
 * (n <= 2^limit) into plen[]; returns plen[0], the longest. The list of depth d merges the
 * leaves with the pairs ("packages") of the list of depth d + 1, ties to the leaves; the first
 * 2n - 2 items of the depth-1 list form the code, and a leaf's length is the number of lists in
 * which it is selected. Only a package/leaf bit per item is kept per depth. */
GPZ_HD static inline int gpz_cl_package_merge(struct gpz_cl_scratch *s, uint32_t n, int limit)
{
	const uint64_t *w = s->w;
	size_t words = (2 * (size_t)n + 63) / 64, m = n, k;
	uint64_t *cur = s->cur, *nxt = s->nxt;

	for (size_t i = 0; i < (size_t)limit * words; i++)
		s->is_pkg[i] = 0;
	for (uint32_t i = 0; i < n; i++)
		cur[i] = w[i];
	for (int d = limit - 1; d >= 1; d--) {
		size_t np = m / 2, li = 0, pi = 0, o = 0;
		uint64_t *bits = s->is_pkg + (size_t)d * words;
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
	for (uint32_t i = 0; i < n; i++)
		s->plen[i] = 0;
	k = 2 * (size_t)n - 2;
	for (int d = 1; d <= limit && k > 0; d++) {
		size_t p = 0;
		const uint64_t *bits = s->is_pkg + (size_t)d * words;
		if (d < limit)
			for (size_t i = 0; i < k; i++)
				p += (bits[i / 64] >> (i % 64)) & 1;
		for (size_t i = 0; i < k - p; i++)
			s->plen[i]++;
		k = 2 * p;
	}
	return s->plen[0];
}

/*
 * Code lengths for the n sorted keys (count << 20) | symbol of the used symbols, at most `limit`
 * bits (0 = none), into len[symbol] (the caller zeroes the unused symbols' entries). Returns the
 * longest length, or -1 (len untouched) when n < 2 or more than 2^limit symbols are used.
 */
GPZ_HD static inline int gpz_cl_lengths(const uint64_t *key, uint32_t n, int limit,
                                        struct gpz_cl_scratch *s, uint8_t *len)
{
	int maxd;

	if (n < 2 || (limit > 0 && limit < 32 && n > (1u << limit)))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		s->w[i] = key[i] >> 20;
	maxd = (int)gpz_cl_huffman_depths(s, n);
	if (limit > 0 && maxd > limit) {
		maxd = gpz_cl_package_merge(s, n, limit);
		for (uint32_t i = 0; i < n; i++)
			len[key[i] & GPZ_CL_KEY_SYMBOL] = s->plen[i];
	} else {
		for (uint32_t i = 0; i < n; i++)
			len[key[i] & GPZ_CL_KEY_SYMBOL] = (uint8_t)s->depth[i];
	}
	return maxd;
}

/* Canonical codes (shorter codes first, then by symbol; MSB-first values) for valid lengths of
 * at most 31 bits. */
GPZ_HD static inline void gpz_cl_canonical(const uint8_t *len, uint32_t alphabet, uint32_t *code)
{
	uint32_t count[32], next[32], c = 0;

	for (int l = 0; l < 32; l++)
		count[l] = 0;
	for (uint32_t s = 0; s < alphabet; s++)
		count[len[s]]++;
	count[0] = 0;
	for (int l = 1; l < 32; l++) {
		c = (c + count[l - 1]) << 1;
		next[l] = c;
	}
	for (uint32_t s = 0; s < alphabet; s++)
		code[s] = len[s] ? next[len[s]]++ : 0;
}

/* ---- the builder over fixed arrays, for DEFLATE-sized alphabets (deflate/block_core.h, and
 * the cost-driven parse's costs, lz/dp_core.h) ---- */

#define GPZ_DFL_HMAX 286     /* largest alphabet of gpz_dfl_code_lengths */
#define GPZ_DFL_MAX_LIMIT 15 /* largest length limit of gpz_dfl_code_lengths */

#define GPZ_DFL_PKG_WORDS ((2 * GPZ_DFL_HMAX + 63) / 64)

struct gpz_dfl_huff {
	uint64_t key[GPZ_DFL_HMAX]; /* (count << 20) | symbol of the used symbols, sorted */
	uint64_t w[GPZ_DFL_HMAX], nw[GPZ_DFL_HMAX];
	uint32_t parent[2 * GPZ_DFL_HMAX - 1], depth[2 * GPZ_DFL_HMAX - 1];
	uint64_t cur[2 * GPZ_DFL_HMAX], nxt[2 * GPZ_DFL_HMAX];
	uint64_t is_pkg[GPZ_DFL_MAX_LIMIT * GPZ_DFL_PKG_WORDS];
	uint8_t plen[GPZ_DFL_HMAX];
};

/* A code needs two used symbols (a DEFLATE decoder wants a second even where one is used): with
 * fewer than two of freq[0 .. n) nonzero (`used` of them), the first unused ones get a count of 1.
 * Returns how many are used then. */
GPZ_HD static inline unsigned gpz_dfl_two_used(uint32_t *freq, unsigned n, unsigned used)
{
	for (unsigned s = 0; used < 2 && s < n; s++)
		if (!freq[s]) {
			freq[s] = 1;
			used++;
		}
	return used;
}

/* Ascending sort of n distinct keys (Shell sort, Ciura's gaps; no recursion and no library on
 * the device): the result is the same as any other sort's. */
GPZ_HD static inline void gpz_dfl_sort(uint64_t *k, unsigned n)
{
	for (int g = 0; g < 6; g++) {
		unsigned gap = g == 0 ? 132 : g == 1 ? 57 : g == 2 ? 23 : g == 3 ? 10 : g == 4 ? 4 : 1;
		for (unsigned i = gap; i < n; i++) {
			uint64_t v = k[i];
			unsigned j = i;
			while (j >= gap && k[j - gap] > v) {
				k[j] = k[j - gap];
				j -= gap;
			}
			k[j] = v;
		}
	}
}

/*
 * gpz_code_lengths(counts, alphabet, limit, len) for alphabet <= GPZ_DFL_HMAX and
 * 0 <= limit <= GPZ_DFL_MAX_LIMIT (0 = no limit): the same lengths and the same return value
 * (the longest code; -1, with len[] untouched, when fewer than two symbols are used or more than
 * 2^limit are). Returns -1 outside that domain too.
 */
GPZ_HD static inline int gpz_dfl_code_lengths(const uint32_t *counts, unsigned alphabet, int limit,
                                              uint8_t *len, struct gpz_dfl_huff *h)
{
	struct gpz_cl_scratch cs = { h->w, h->nw, h->parent, h->depth, h->cur, h->nxt, h->is_pkg,
		                     h->plen };
	unsigned n = 0;

	if (alphabet > GPZ_DFL_HMAX || limit < 0 || limit > GPZ_DFL_MAX_LIMIT)
		return -1;
	for (unsigned s = 0; s < alphabet; s++)
		if (counts[s])
			h->key[n++] = ((uint64_t)counts[s] << 20) | s;
	if (n < 2 || (limit > 0 && n > (1u << limit)))
		return -1;
	gpz_dfl_sort(h->key, n);
	for (unsigned s = 0; s < alphabet; s++)
		len[s] = 0;
	return gpz_cl_lengths(h->key, n, limit, &cs, len);
}

#endif
