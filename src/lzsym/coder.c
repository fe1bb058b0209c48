/* coder.c - the bits of LZ-symbol frames (lzsym.h), CPU reference: tokens to MSB-first codes and
 * extra bits, and one chunk's bits back to symbols, every length and distance checked. */
#include "lzsym/lzsym.h"
#include "common/bits.h"

#include <string.h>

#define TB GPZ_DECODE_TABLE_BITS
#define PEEK 24

/* ---- writing ---- */

struct bw {
	uint8_t *dst;
	uint64_t at;  /* bit position of acc's first bit */
	uint64_t acc; /* pending bits, left-aligned */
	unsigned nb;
};

static inline void put(struct bw *b, uint32_t v, unsigned n)
{
	if (!n)
		return;
	b->acc |= (uint64_t)v << (64 - n) >> b->nb;
	b->nb += n;
	if (b->nb >= 32) { /* whole bytes out; the partial first byte of dst is OR-ed */
		unsigned bytes = b->nb / 8;
		uint8_t *p = b->dst + b->at / 8;
		for (unsigned k = 0; k < bytes; k++)
			p[k] |= (uint8_t)(b->acc >> (56 - 8 * k));
		b->acc <<= 8 * bytes;
		b->nb -= 8 * bytes;
		b->at += 8 * bytes;
	}
}

static inline void put_code(struct bw *b, uint32_t e)
{
	put(b, e >> 8, e & 0xff);
}

uint64_t gpz_lzs_put(const struct gpz_lzs_code *c, const struct gpz_lzs_token *tok, size_t n,
                     uint8_t *dst, uint64_t at)
{
	/* start on a byte boundary, the bits before `at` in its byte kept */
	struct bw b = { dst, at & ~7ull, 0, 0 };
	uint8_t first = dst[at / 8];

	dst[at / 8] = 0;
	put(&b, (uint32_t)(first >> (8 - at % 8)), (unsigned)(at % 8));
	for (size_t i = 0; i < n; i++) {
		const struct gpz_lzs_token *t = &tok[i];
		if (t->len == 0) {
			put_code(&b, c->main_table[t->sym]);
		} else if (t->dist == 0) {
			unsigned k = gpz_lzs_bucket(t->len - 1);
			put_code(&b, c->main_table[c->alphabet + k]);
			put(&b, t->len - 1 - gpz_lzs_base(k), gpz_lzs_extra_bits(k));
		} else {
			unsigned k = gpz_lzs_bucket(t->len - GPZ_LZS_MIN_MATCH);
			unsigned d = gpz_lzs_bucket(t->dist - 1);
			put_code(&b, c->main_table[c->alphabet + GPZ_LZS_BUCKETS + k]);
			put(&b, t->len - GPZ_LZS_MIN_MATCH - gpz_lzs_base(k), gpz_lzs_extra_bits(k));
			put_code(&b, c->dist_table[d]);
			put(&b, t->dist - 1 - gpz_lzs_base(d), gpz_lzs_extra_bits(d));
		}
	}
	uint64_t end = b.at + b.nb;
	uint8_t *p = dst + b.at / 8;
	for (unsigned k = 0; k * 8 < b.nb; k++)
		p[k] |= (uint8_t)(b.acc >> (56 - 8 * k));
	return end;
}

/* ---- reading ---- */

struct br {
	uint64_t buf; /* next bits, left-aligned */
	unsigned nb;
	const uint8_t *p, *end;
	uint64_t consumed; /* bits taken since `from` */
};

static inline void refill(struct br *r)
{
	if (r->end - r->p >= 8) { /* a word; the bytes past the bits kept are read again later */
		r->buf |= gpz_load_be64(r->p) >> r->nb;
		r->p += (63 - r->nb) >> 3;
		r->nb |= 56;
		return;
	}
	while (r->nb <= 56) {
		uint64_t byte = r->p < r->end ? *r->p : 0;
		r->buf |= byte << (56 - r->nb);
		r->p++;
		r->nb += 8;
	}
}

static inline uint32_t take(struct br *r, unsigned n)
{
	uint32_t v;
	if (!n)
		return 0;
	if (r->nb < n)
		refill(r);
	v = (uint32_t)(r->buf >> (64 - n));
	r->buf <<= n;
	r->nb -= n;
	r->consumed += n;
	return v;
}

static inline uint32_t decode_sym(const gpz_decoder *d, struct br *r)
{
	if (r->nb < PEEK)
		refill(r);
	uint32_t e = d->table[r->buf >> (64 - TB)], len = e & 31, sym = e >> 5;
	if (len == 0) {
		uint32_t top = (uint32_t)(r->buf >> (64 - PEEK));
		len = TB + 1;
		while (top >= d->limit[len])
			len++;
		sym = d->sorted[d->base[len] + (int32_t)(top >> (PEEK - len))];
	}
	r->buf <<= len;
	r->nb -= len;
	r->consumed += len;
	return sym;
}

/* len copies of v from symbol i on: runs are most of the output of quantization codes */
static void fill(uint8_t *dst, size_t i, size_t len, int w, uint32_t v)
{
	uint8_t *o = dst + i * (size_t)w;
	if (w == 1 || (w == 2 && v == (v & 0xff) * 0x0101u) ||
	    (w == 4 && v == (v & 0xff) * 0x01010101u)) { /* the same byte throughout */
		memset(o, (int)(v & 0xff), len * (size_t)w);
	} else if (w == 2) {
		for (size_t k = 0; k < len; k++)
			gpz_store_le16(o + 2 * k, (uint16_t)v);
	} else {
		for (size_t k = 0; k < len; k++)
			gpz_store_le32(o + 4 * k, v);
	}
}

gpz_result gpz_lzs_decode_chunk(const struct gpz_lzs_decoders *d, const uint8_t *payload,
                                size_t size, uint64_t from, uint64_t to, size_t m, int w,
                                uint8_t *dst)
{
	struct br r = { 0, 0, payload + from / 8, payload + size, 0 };
	const uint32_t a = d->alphabet;
	size_t i = 0;

	take(&r, (unsigned)(from % 8));
	r.consumed = 0;
	while (i < m) {
		if (d->literals && i + 4 <= m) { /* literals, several a lookup, one store (4 slots) */
			if (r.nb < PEEK)
				refill(&r);
			uint64_t e = d->literals[r.buf >> (64 - TB)];
			unsigned cnt = (unsigned)(e >> 48) & 3, used = (unsigned)(e >> 52);
			if (cnt) {
				if (w == 1)
					gpz_store_le32(dst + i, (uint32_t)e);
				else
					gpz_store_le64(dst + 2 * i, e & 0xffffffffffffull);
				r.buf <<= used;
				r.nb -= used;
				r.consumed += used;
				i += cnt;
				continue;
			}
		}
		uint32_t s = decode_sym(d->main, &r);
		if (s < a) {
			gpz_store_symbol(dst, i++, w, s);
			continue;
		}
		s -= a;
		if (s < GPZ_LZS_BUCKETS) { /* a run of z */
			size_t len = 1 + gpz_lzs_base(s) + take(&r, gpz_lzs_extra_bits(s));
			if (len > m - i)
				return GPZ_ERR_CORRUPT;
			fill(dst, i, len, w, d->z);
			i += len;
			continue;
		}
		s -= GPZ_LZS_BUCKETS; /* a match: its length, then its distance */
		size_t len = GPZ_LZS_MIN_MATCH + gpz_lzs_base(s) + take(&r, gpz_lzs_extra_bits(s));
		if (!d->dist || len > m - i)
			return GPZ_ERR_CORRUPT;
		uint32_t ds = decode_sym(d->dist, &r);
		size_t dist = 1 + gpz_lzs_base(ds) + take(&r, gpz_lzs_extra_bits(ds));
		if (dist > i)
			return GPZ_ERR_CORRUPT;
		/* forward, byte by byte: an overlapping copy repeats its source */
		uint8_t *o = dst + i * (size_t)w;
		const uint8_t *src = o - dist * (size_t)w;
		for (size_t k = 0; k < len * (size_t)w; k++)
			o[k] = src[k];
		i += len;
	}
	return r.consumed == to - from ? GPZ_OK : GPZ_ERR_CORRUPT;
}
