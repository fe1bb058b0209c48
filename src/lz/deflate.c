/* deflate.c - DEFLATE blocks (RFC 1951) from LZ tokens, CPU reference.
 *
 * Each block is written in the smallest of its three forms: dynamic Huffman (codes from the
 * project's codebook stage, limited to 15 bits by package-merge; the code-length code to 7),
 * fixed Huffman, or stored. Block boundaries come from the statistics: the tokens are cut into
 * units of UNIT_TOKENS, and a unit joins the current block while the estimated cost of coding
 * them together (order-0 entropy plus a header allowance) is no more than coding them apart. */
#include "lz/lz.h"
#include "huffman/huffman.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#define UNIT_TOKENS 2048 /* deflate_stream.c's size bounds rely on blocks this large */
#define MAX_BLOCK_TOKENS (1u << 18)
#define HEADER_BITS_PER_SYMBOL 3.0 /* rough cost of a used symbol's length in a block header */
#define NLIT 286
#define NDIST 30
#define NCL 19

static const uint16_t len_base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                       35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                       3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
                                        193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
                                        6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                        6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };
static const uint8_t cl_order[NCL] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2,
                                       14, 1, 15 };

void gpz_bitw_init(struct gpz_bitw *bw, uint8_t *dst, size_t cap)
{
	bw->p = dst;
	bw->end = dst + cap;
	bw->acc = 0;
	bw->nb = 0;
	bw->overflow = 0;
}

void gpz_bitw_put(struct gpz_bitw *bw, uint32_t bits, unsigned n)
{
	bw->acc |= (uint64_t)bits << bw->nb;
	bw->nb += n;
	while (bw->nb >= 8) {
		if (bw->p < bw->end)
			*bw->p++ = (uint8_t)bw->acc;
		else
			bw->overflow = 1;
		bw->acc >>= 8;
		bw->nb -= 8;
	}
}

void gpz_bitw_finish(struct gpz_bitw *bw)
{
	if (bw->nb)
		gpz_bitw_put(bw, 0, 8 - bw->nb);
}

/* Code of a match length (3..258) and distance (1..32768), by table: lengths directly, small
 * distances directly and large ones by (dist - 1) >> 7, which never splits a code's range. */
static uint8_t len_table[GPZ_LZ_MAX_MATCH + 1];
static uint8_t dist_table[512];

static void fill_tables(void)
{
	for (unsigned c = 0, l = 3; l <= GPZ_LZ_MAX_MATCH; l++) {
		while (c < 28 && len_base[c + 1] <= l)
			c++;
		len_table[l] = (uint8_t)c;
	}
	for (unsigned c = 0, d = 1; d <= 32768; d++) {
		while (c < 29 && dist_base[c + 1] <= d)
			c++;
		if (d <= 256)
			dist_table[d - 1] = (uint8_t)c;
		else
			dist_table[256 + ((d - 1) >> 7)] = (uint8_t)c;
	}
}

static void init_tables(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, fill_tables); /* pieces are coded on several threads */
}

static inline unsigned len_code(unsigned len)
{
	return len_table[len];
}

static inline unsigned dist_code(unsigned dist)
{
	return dist <= 256 ? dist_table[dist - 1] : dist_table[256 + ((dist - 1) >> 7)];
}

static uint32_t reverse(uint32_t code, unsigned len)
{
	uint32_t r = 0;
	for (unsigned i = 0; i < len; i++)
		r |= ((code >> i) & 1) << (len - 1 - i);
	return r;
}

/* DEFLATE codes for `n` symbols: lengths limited to `limit`, codes bit-reversed for LSB-first
 * output. Alphabets with fewer than two used symbols get a second one so a code exists. */
static void build_code(uint32_t *freq, unsigned n, int limit, uint8_t *len, uint32_t *code)
{
	unsigned used = 0;
	for (unsigned s = 0; s < n; s++)
		used += freq[s] != 0;
	for (unsigned s = 0; used < 2 && s < n; s++)
		if (!freq[s]) {
			freq[s] = 1;
			used++;
		}
	gpz_code_lengths(freq, n, limit, len);
	gpz_canonical_codes(len, n, code);
	for (unsigned s = 0; s < n; s++)
		code[s] = reverse(code[s], len[s]);
}

/* The fixed code of RFC 1951 3.2.6: canonical over all 288 literal/length symbols (286 and 287
 * never occur but take codes) and 32 distance symbols. */
static void fixed_code(uint8_t *llen, uint32_t *lcode, uint8_t *dlen, uint32_t *dcode)
{
	uint8_t l288[288], d32[32];
	uint32_t c288[288], c32[32];
	for (unsigned s = 0; s < 288; s++)
		l288[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
	memset(d32, 5, sizeof(d32));
	gpz_canonical_codes(l288, 288, c288);
	gpz_canonical_codes(d32, 32, c32);
	memcpy(llen, l288, NLIT);
	memcpy(lcode, c288, NLIT * sizeof(*lcode));
	memcpy(dlen, d32, NDIST);
	memcpy(dcode, c32, NDIST * sizeof(*dcode));
	for (unsigned s = 0; s < NLIT; s++)
		lcode[s] = reverse(lcode[s], llen[s]);
	for (unsigned s = 0; s < NDIST; s++)
		dcode[s] = reverse(dcode[s], dlen[s]);
}

struct block_codes {
	uint8_t llen[NLIT], dlen[NDIST];
	uint32_t lcode[NLIT], dcode[NDIST];
	unsigned hlit, hdist, hclen, nrle;
	uint8_t rle[NLIT + NDIST], rle_extra[NLIT + NDIST];
	uint8_t cllen[NCL];
	uint32_t clcode[NCL];
};

/* Run-length code the concatenated lengths with symbols 16, 17, 18. */
static void rle_lengths(struct block_codes *b, uint32_t *clfreq)
{
	uint8_t all[NLIT + NDIST];
	unsigned n = b->hlit + b->hdist;
	memcpy(all, b->llen, b->hlit);
	memcpy(all + b->hlit, b->dlen, b->hdist);
	b->nrle = 0;
	for (unsigned i = 0; i < n;) {
		unsigned run = 1;
		while (i + run < n && all[i + run] == all[i])
			run++;
		if (all[i] == 0 && run >= 3) {
			unsigned r = run > 138 ? 138 : run;
			b->rle[b->nrle] = r >= 11 ? 18 : 17;
			b->rle_extra[b->nrle++] = (uint8_t)(r >= 11 ? r - 11 : r - 3);
			clfreq[r >= 11 ? 18 : 17]++;
			i += r;
		} else if (all[i] != 0 && run >= 4) {
			unsigned r = run - 1 > 6 ? 6 : run - 1;
			b->rle[b->nrle] = all[i];
			b->rle_extra[b->nrle++] = 0;
			clfreq[all[i]]++;
			b->rle[b->nrle] = 16;
			b->rle_extra[b->nrle++] = (uint8_t)(r - 3);
			clfreq[16]++;
			i += 1 + r;
		} else {
			b->rle[b->nrle] = all[i];
			b->rle_extra[b->nrle++] = 0;
			clfreq[all[i]]++;
			i++;
		}
	}
}

static uint64_t dynamic_bits(const struct block_codes *b, const uint32_t *lf, const uint32_t *df)
{
	uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)b->hclen;
	for (unsigned i = 0; i < b->nrle; i++) {
		unsigned s = b->rle[i];
		bits += b->cllen[s] + (s == 16 ? 2 : s == 17 ? 3 : s == 18 ? 7 : 0);
	}
	for (unsigned s = 0; s < NLIT; s++)
		bits += (uint64_t)lf[s] * (b->llen[s] + (s >= 257 ? len_extra[s - 257] : 0));
	for (unsigned s = 0; s < NDIST; s++)
		bits += (uint64_t)df[s] * (b->dlen[s] + dist_extra[s]);
	return bits;
}

static uint64_t fixed_bits(const uint32_t *lf, const uint32_t *df)
{
	uint64_t bits = 3;
	for (unsigned s = 0; s < NLIT; s++)
		bits += (uint64_t)lf[s] * ((s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8) +
		                           (s >= 257 ? len_extra[s - 257] : 0));
	for (unsigned s = 0; s < NDIST; s++)
		bits += (uint64_t)df[s] * (5 + dist_extra[s]);
	return bits;
}

static void plan_dynamic(struct block_codes *b, uint32_t *lf, uint32_t *df)
{
	uint32_t lfc[NLIT], dfc[NDIST], clfreq[NCL] = { 0 };
	memcpy(lfc, lf, sizeof(lfc));
	memcpy(dfc, df, sizeof(dfc));
	build_code(lfc, NLIT, 15, b->llen, b->lcode);
	build_code(dfc, NDIST, 15, b->dlen, b->dcode);
	for (b->hlit = NLIT; b->hlit > 257 && !b->llen[b->hlit - 1]; b->hlit--)
		;
	for (b->hdist = NDIST; b->hdist > 1 && !b->dlen[b->hdist - 1]; b->hdist--)
		;
	rle_lengths(b, clfreq);
	build_code(clfreq, NCL, 7, b->cllen, b->clcode);
	for (b->hclen = NCL; b->hclen > 4 && !b->cllen[cl_order[b->hclen - 1]]; b->hclen--)
		;
}

static void put_tokens(struct gpz_bitw *bw, const uint32_t *tok, size_t n, const uint8_t *llen,
                       const uint32_t *lcode, const uint8_t *dlen, const uint32_t *dcode)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t t = tok[i];
		if (!(t & GPZ_TOK_MATCH)) {
			gpz_bitw_put(bw, lcode[t], llen[t]);
			continue;
		}
		unsigned len = gpz_tok_len(t), dist = gpz_tok_dist(t);
		unsigned lc = len_code(len), dc = dist_code(dist);
		gpz_bitw_put(bw, lcode[257 + lc], llen[257 + lc]);
		gpz_bitw_put(bw, len - len_base[lc], len_extra[lc]);
		gpz_bitw_put(bw, dcode[dc], dlen[dc]);
		gpz_bitw_put(bw, dist - dist_base[dc], dist_extra[dc]);
	}
	gpz_bitw_put(bw, lcode[256], llen[256]);
}

static void put_dynamic_header(struct gpz_bitw *bw, const struct block_codes *b)
{
	gpz_bitw_put(bw, b->hlit - 257, 5);
	gpz_bitw_put(bw, b->hdist - 1, 5);
	gpz_bitw_put(bw, b->hclen - 4, 4);
	for (unsigned i = 0; i < b->hclen; i++)
		gpz_bitw_put(bw, b->cllen[cl_order[i]], 3);
	for (unsigned i = 0; i < b->nrle; i++) {
		unsigned s = b->rle[i];
		gpz_bitw_put(bw, b->clcode[s], b->cllen[s]);
		if (s >= 16)
			gpz_bitw_put(bw, b->rle_extra[i], s == 16 ? 2 : s == 17 ? 3 : 7);
	}
}

/* Stored blocks (at most 65535 bytes each) for src[0 .. n); BFINAL on the last if `last`. */
static void put_stored(struct gpz_bitw *bw, const uint8_t *src, size_t n, int last)
{
	size_t off = 0;
	do {
		size_t k = n - off > 65535 ? 65535 : n - off;
		int fin = last && off + k == n;
		gpz_bitw_put(bw, (uint32_t)fin, 1);
		gpz_bitw_put(bw, 0, 2);
		gpz_bitw_finish(bw);
		gpz_bitw_put(bw, (uint32_t)k, 16);
		gpz_bitw_put(bw, (uint32_t)(~k & 0xffff), 16);
		for (size_t i = 0; i < k; i++)
			gpz_bitw_put(bw, src[off + i], 8);
		off += k;
	} while (off < n);
}

static size_t token_bytes(const uint32_t *tok, size_t n)
{
	size_t b = 0;
	for (size_t i = 0; i < n; i++)
		b += tok[i] & GPZ_TOK_MATCH ? gpz_tok_len(tok[i]) : 1;
	return b;
}

static void put_block(struct gpz_bitw *bw, const uint8_t *src, const uint32_t *tok, size_t n,
                      size_t nbytes, int last)
{
	uint32_t lf[NLIT] = { 0 }, df[NDIST] = { 0 };
	struct block_codes b;
	uint64_t dyn, fix, stored;

	for (size_t i = 0; i < n; i++) {
		uint32_t t = tok[i];
		if (t & GPZ_TOK_MATCH) {
			lf[257 + len_code(gpz_tok_len(t))]++;
			df[dist_code(gpz_tok_dist(t))]++;
		} else {
			lf[t]++;
		}
	}
	lf[256] = 1;
	plan_dynamic(&b, lf, df);
	dyn = dynamic_bits(&b, lf, df);
	fix = fixed_bits(lf, df);
	stored = (nbytes / 65535 + 1) * 40 + 8 * (uint64_t)nbytes + 7;
	if (stored < dyn && stored < fix) {
		put_stored(bw, src, nbytes, last);
	} else if (fix <= dyn) {
		uint8_t llen[NLIT], dlen[NDIST];
		uint32_t lcode[NLIT], dcode[NDIST];
		fixed_code(llen, lcode, dlen, dcode);
		gpz_bitw_put(bw, (uint32_t)last | (1u << 1), 3);
		put_tokens(bw, tok, n, llen, lcode, dlen, dcode);
	} else {
		gpz_bitw_put(bw, (uint32_t)last | (2u << 1), 3);
		put_dynamic_header(bw, &b);
		put_tokens(bw, tok, n, b.llen, b.lcode, b.dlen, b.dcode);
	}
}

struct freqs {
	uint32_t lf[NLIT], df[NDIST];
};

static void add_unit(struct freqs *f, const uint32_t *tok, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t t = tok[i];
		if (t & GPZ_TOK_MATCH) {
			f->lf[257 + len_code(gpz_tok_len(t))]++;
			f->df[dist_code(gpz_tok_dist(t))]++;
		} else {
			f->lf[t]++;
		}
	}
}

static double entropy_bits(const uint32_t *f, unsigned n, unsigned *used)
{
	double total = 0, bits = 0;
	for (unsigned s = 0; s < n; s++)
		total += f[s];
	for (unsigned s = 0; s < n; s++)
		if (f[s]) {
			bits += f[s] * log2(total / f[s]);
			(*used)++;
		}
	return bits;
}

/* Estimated bits of one dynamic block with these frequencies (extra bits are the same whether
 * blocks are joined or not, so they are left out). */
static double est_bits(const struct freqs *f)
{
	unsigned used = 0;
	double bits = entropy_bits(f->lf, NLIT, &used) + entropy_bits(f->df, NDIST, &used);
	return bits + 80 + HEADER_BITS_PER_SYMBOL * used;
}

static void merge(struct freqs *a, const struct freqs *b)
{
	for (unsigned s = 0; s < NLIT; s++)
		a->lf[s] += b->lf[s];
	for (unsigned s = 0; s < NDIST; s++)
		a->df[s] += b->df[s];
}

/* Tokens in the next block starting at tokens[0]: whole units while joining them pays. */
static size_t next_block(const uint32_t *tok, size_t ntok)
{
	struct freqs cur = { { 0 }, { 0 } }, unit;
	size_t n = ntok < UNIT_TOKENS ? ntok : UNIT_TOKENS;

	add_unit(&cur, tok, n);
	while (n < ntok && n < MAX_BLOCK_TOKENS) {
		size_t u = ntok - n < UNIT_TOKENS ? ntok - n : UNIT_TOKENS;
		struct freqs joined = cur;
		memset(&unit, 0, sizeof(unit));
		add_unit(&unit, tok + n, u);
		merge(&joined, &unit);
		if (est_bits(&joined) > est_bits(&cur) + est_bits(&unit))
			break;
		cur = joined;
		n += u;
	}
	return n;
}

gpz_result gpz_deflate_blocks(struct gpz_bitw *bw, const uint8_t *src, size_t start,
                              size_t nbytes, const uint32_t *tokens, size_t ntok, int last)
{
	size_t pos = start, i = 0;

	init_tables();
	if (ntok == 0) { /* empty input: one empty final block */
		put_block(bw, src + pos, tokens, 0, 0, last);
		return bw->overflow ? GPZ_ERR_DST_TOO_SMALL : GPZ_OK;
	}
	while (i < ntok) {
		size_t n = next_block(tokens + i, ntok - i);
		size_t b = token_bytes(tokens + i, n);
		put_block(bw, src + pos, tokens + i, n, b, last && i + n == ntok);
		pos += b;
		i += n;
	}
	return bw->overflow ? GPZ_ERR_DST_TOO_SMALL : (pos - start == nbytes ? GPZ_OK : GPZ_ERR_PARAM);
}
