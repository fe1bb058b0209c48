/* inflate.c - gpz's own DEFLATE decoder (RFC 1951), for pieces decoded in parallel.
 *
 * A piece of a gpz-written stream may copy from the 32 KiB before it, which another thread is
 * still decoding. So the output is 16-bit: 0..255 are bytes, 256 + w stands for byte w of the
 * unknown 32 KiB window before the piece (w = 32767: the byte just before it), and copies carry
 * such markers along; the caller puts the real bytes in once the window is known. With the window
 * given, references into it give bytes, and without either they are corrupt input. A piece's
 * symbols may also follow those of the piece before it, markers and all: its markers then stand
 * for the window of the first piece of such a run, and die out along the run as literals and
 * copies of them take over. Where the window is known and lies just before the output (one
 * thread, or the pieces after the first of a thread's stretch), the piece is decoded straight to
 * bytes instead: the same checks, the same results, half the bytes written and no pass to turn
 * symbols into bytes.
 *
 * Everything read is checked: code lengths (no over-subscribed code, no incomplete one but a
 * single 1-bit code, an end-of-block code), symbols 286/287 and distances 30/31, distances
 * beyond the window, stored-block lengths, the output's capacity and the input's end. Codes are
 * decoded through two-level tables (one lookup a symbol but for the rare long codes), from a
 * 64-bit buffer refilled a word at a time, copies moving 8 bytes at a time. */
#include "deflate/deflate.h"
#include "common/bits.h"

#include <stdlib.h>
#include <string.h>

#define MAXBITS 15
#define NLIT 288
#define NDIST 32
#define WINDOW 32768u

static const uint16_t len_base[29] = { 3,  4,  5,  6,  7,  8,   9,   10,  11,  13,
	                               15, 17, 19, 23, 27, 31,  35,  43,  51,  59,
	                               67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
	                               2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
	                                33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
	                                1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
	                                6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };
static const uint8_t cl_order[19] = { 16, 17, 18, 0,  8, 7,  9, 6,  10, 5,
	                               11, 4,  12, 3, 13, 2, 14, 1, 15 };

/* LSB-first bit reader; past the end it reads zeros and counts them, so a stream that needed
 * them is found truncated at the end instead of read out of bounds. */
struct br {
	const uint8_t *p, *end;
	uint64_t bits;
	unsigned n;
	size_t phantom; /* zero bytes supplied past the end */
};

static inline void refill(struct br *b)
{
	if (b->end - b->p >= 8) {
		/* a whole word: the bytes beyond the n + 8k bits kept are read again by the next
		 * refill, to the same bits, so OR-ing them in early does no harm */
		b->bits |= gpz_load_le64(b->p) << b->n;
		b->p += (63 - b->n) >> 3;
		b->n |= 56;
		return;
	}
	while (b->n <= 56) {
		if (b->p < b->end)
			b->bits |= (uint64_t)*b->p++ << b->n;
		else
			b->phantom++;
		b->n += 8;
	}
}

static inline unsigned take(struct br *b, unsigned k)
{
	unsigned v = (unsigned)(b->bits & ((1ull << k) - 1));
	b->bits >>= k;
	b->n -= k;
	return v;
}

static inline unsigned getbits(struct br *b, unsigned k)
{
	if (b->n < k)
		refill(b);
	return take(b, k);
}

static int overran(const struct br *b)
{
	/* the zero bytes supplied past the end that were consumed */
	return b->phantom * 8 > b->n;
}

/* All the input read but fewer than 8 bits, all zero (padding to the byte boundary). */
static int at_end(const struct br *b)
{
	size_t real = b->phantom * 8 <= b->n ? b->n - b->phantom * 8 : 0;
	return b->p == b->end && real < 8 && (b->bits & ((1ull << real) - 1)) == 0;
}

/*
 * A decoding table in two levels: `root` is indexed by the next ROOT bits, `full` by the next 15
 * and consulted only for codes longer than ROOT (root's entry is then LINK). Entries: symbol << 4
 * | code length, 0 = no code. Only the root (2 KiB) is cleared and filled for every code; full's
 * entries are written for the long codes alone, which cover every index behind a LINK because
 * the code is complete (the one incomplete code allowed, a single 1-bit code, is short): so the
 * common lookups stay in the first-level cache and a dynamic block's tables cost little to build.
 */
#define ROOT 10
#define LINK 15u /* a root entry whose code is longer than ROOT */

struct table {
	uint16_t root[1u << ROOT];
	uint16_t full[1u << MAXBITS];
};

static unsigned reverse(unsigned code, unsigned len)
{
	unsigned r = 0;
	for (unsigned i = 0; i < len; i++, code >>= 1)
		r = r << 1 | (code & 1);
	return r;
}

/* The kinds of code, which differ in what incomplete codes they may be (as zlib has it). */
enum { CODE_CL, CODE_LIT, CODE_DIST };

/* Build the table of n code lengths. Returns 0, or -1 for a code zlib would reject:
 * over-subscribed, or incomplete (but a literal/length or distance code of a single 1-bit code,
 * and a distance code of no code at all, which only a block without matches can use). */
static int build(struct table *t, const uint8_t *lens, unsigned n, int kind)
{
	unsigned count[MAXBITS + 1] = { 0 }, next[MAXBITS + 1], maxlen = 0, ncodes = 0;
	int left = 1;

	for (unsigned s = 0; s < n; s++)
		count[lens[s]]++;
	for (unsigned l = 1; l <= MAXBITS; l++) {
		left <<= 1;
		left -= (int)count[l];
		if (left < 0)
			return -1; /* over-subscribed */
		if (count[l])
			maxlen = l;
		ncodes += count[l];
	}
	memset(t->root, 0, sizeof(t->root));
	if (ncodes == 0)
		return kind == CODE_DIST ? 0 : -1;
	if (left > 0 && (kind == CODE_CL || !(ncodes == 1 && maxlen == 1)))
		return -1; /* incomplete */
	next[1] = 0;
	for (unsigned l = 1; l < MAXBITS; l++)
		next[l + 1] = (next[l] + count[l]) << 1;
	for (unsigned s = 0; s < n; s++) {
		unsigned l = lens[s], r;
		if (!l)
			continue;
		r = reverse(next[l]++, l);
		if (l <= ROOT) {
			for (unsigned i = r; i < (1u << ROOT); i += 1u << l)
				t->root[i] = (uint16_t)(s << 4 | l);
			continue;
		}
		t->root[r & ((1u << ROOT) - 1)] = LINK;
		for (unsigned i = r; i < (1u << MAXBITS); i += 1u << l)
			t->full[i] = (uint16_t)(s << 4 | l);
	}
	return 0;
}

/* A symbol with at least 15 bits in the buffer; -1 for no code. */
static inline int lookup(struct br *b, const struct table *t)
{
	unsigned e = t->root[b->bits & ((1u << ROOT) - 1)];
	if (e == LINK)
		e = t->full[b->bits & ((1u << MAXBITS) - 1)];
	if (!e)
		return -1;
	take(b, e & 15);
	return (int)(e >> 4);
}

static inline int decode(struct br *b, const struct table *t)
{
	if (b->n < MAXBITS)
		refill(b);
	return lookup(b, t);
}

struct infl {
	struct br b;
	struct table lit, dist, cl;
	uint16_t *out;  /* symbols, or: */
	uint8_t *out8;  /* bytes; either after `before` bytes or symbols of window */
	size_t before;
	size_t pos, cap;
	const uint8_t *hist; /* the window's bytes when known */
	size_t hist_n;
	int markers;
	int strict; /* the padding before a stored block's length must be zero (.gpz LZ frames) */
};

/* The dynamic block header: the literal/length and distance codes. */
static gpz_result dynamic_codes(struct infl *f)
{
	uint8_t lens[NLIT + NDIST], cl[19] = { 0 };
	unsigned nlit = getbits(&f->b, 5) + 257, ndist = getbits(&f->b, 5) + 1;
	unsigned ncl = getbits(&f->b, 4) + 4, i = 0;

	if (nlit > 286 || ndist > 30)
		return GPZ_ERR_CORRUPT;
	for (unsigned k = 0; k < ncl; k++)
		cl[cl_order[k]] = (uint8_t)getbits(&f->b, 3);
	if (build(&f->cl, cl, 19, CODE_CL) != 0)
		return GPZ_ERR_CORRUPT;
	while (i < nlit + ndist) {
		int s = decode(&f->b, &f->cl);
		unsigned rep, v = 0;
		if (s < 0)
			return GPZ_ERR_CORRUPT;
		if (s < 16) {
			lens[i++] = (uint8_t)s;
			continue;
		}
		if (s == 16) {
			if (i == 0)
				return GPZ_ERR_CORRUPT; /* nothing to repeat */
			v = lens[i - 1];
			rep = 3 + getbits(&f->b, 2);
		} else {
			rep = s == 17 ? 3 + getbits(&f->b, 3) : 11 + getbits(&f->b, 7);
		}
		if (rep > nlit + ndist - i)
			return GPZ_ERR_CORRUPT;
		memset(lens + i, (int)v, rep);
		i += rep;
	}
	if (lens[256] == 0 || build(&f->lit, lens, nlit, CODE_LIT) != 0 ||
	    build(&f->dist, lens + nlit, ndist, CODE_DIST) != 0)
		return GPZ_ERR_CORRUPT;
	return overran(&f->b) ? GPZ_ERR_TRUNCATED : GPZ_OK;
}

static void fixed_codes(struct infl *f)
{
	uint8_t lens[NLIT];
	unsigned s = 0;
	for (; s < 144; s++)
		lens[s] = 8;
	for (; s < 256; s++)
		lens[s] = 9;
	for (; s < 280; s++)
		lens[s] = 7;
	for (; s < NLIT; s++)
		lens[s] = 8;
	build(&f->lit, lens, NLIT, CODE_LIT);
	memset(lens, 5, NDIST);
	build(&f->dist, lens, NDIST, CODE_DIST);
}

/* A copy of len symbols from dist back that reaches before the piece: those from the window
 * (its bytes, or markers), then the rest. */
static gpz_result copy_window(struct infl *f, unsigned len, unsigned dist)
{
	uint16_t *o = f->out;
	size_t pos = f->pos, back = dist - pos; /* into the window: 1 .. WINDOW */

	if (dist > WINDOW || (!f->markers && back > f->hist_n))
		return GPZ_ERR_CORRUPT;
	for (; len && dist > pos; len--, pos++) {
		back = dist - pos;
		o[pos] = f->markers && back > f->hist_n ? (uint16_t)(256 + WINDOW - back)
		                                        : f->hist[f->hist_n - back];
	}
	for (; len; len--, pos++)
		o[pos] = o[pos - dist];
	f->pos = pos;
	return GPZ_OK;
}

/*
 * Copy len elements of size sz (1: bytes, 2: symbols) from dist back within the output, end
 * being where the output must stop. Copies that do not overlap themselves by less than 8 bytes
 * move 8 bytes at a time, up to 7 bytes beyond the copy when `end` leaves room for that (what
 * lies there is written later).
 */
static inline void copy_fast(uint8_t *o, size_t len, size_t dist, const uint8_t *end, size_t sz)
{
	const uint8_t *src = o - dist * sz;
	uint8_t *stop = o + len * sz;
	if (dist * sz >= 8 && (size_t)(end - stop) >= 16) {
		do { /* 16 bytes a turn, 8 at a time in order: a source 8 or more back is written */
			memcpy(o, src, 8);
			memcpy(o + 8, src + 8, 8);
			o += 16;
			src += 16;
		} while (o < stop);
	} else if (dist * sz >= 8 && (size_t)(end - stop) >= 8) {
		do {
			memcpy(o, src, 8);
			o += 8;
			src += 8;
		} while (o < stop);
	} else if (dist == 1 && sz == 1) {
		memset(o, *src, len);
	} else {
		for (; o < stop; o++, src++)
			*o = *src;
	}
}

/*
 * A Huffman-coded block's symbols, into bytes (wide 0) or 16-bit symbols (wide 1; references
 * before the piece through copy_window). One refill a length/distance pair: a length, its extra
 * bits, a distance and its extra bits take at most 15 + 5 + 15 + 13 = 48 bits; literals while the
 * bits left hold a code. Called with a constant `wide`, so each output gets its own loop.
 */
static inline gpz_result codes_to(struct infl *f, const int wide)
{
	struct br b = f->b;
	uint8_t *o = wide ? (uint8_t *)f->out : f->out8;
	const size_t sz = wide ? 2 : 1;
	size_t pos = f->pos, cap = f->cap, before = f->before;
	gpz_result r = GPZ_OK;

	for (;;) {
		if (b.n < 48)
			refill(&b);
		int s = lookup(&b, &f->lit);
		while (s >= 0 && s < 256) {
			if (pos == cap) {
				r = GPZ_ERR_CORRUPT; /* more output than the piece holds */
				goto out;
			}
			if (wide)
				f->out[pos++] = (uint16_t)s;
			else
				o[pos++] = (uint8_t)s;
			if (b.n < MAXBITS)
				break;
			s = lookup(&b, &f->lit);
		}
		if (s >= 0 && s < 256)
			continue;
		if (s < 0 || s == 256 || s > 285) {
			r = s > 285 ? GPZ_ERR_CORRUPT : overran(&b) ? GPZ_ERR_TRUNCATED
			          : s < 0 ? GPZ_ERR_CORRUPT : GPZ_OK;
			goto out;
		}
		if (b.n < 48)
			refill(&b);
		s -= 257;
		unsigned len = len_base[s] + take(&b, len_extra[s]);
		int d = lookup(&b, &f->dist);
		if (d < 0 || d > 29) {
			r = overran(&b) ? GPZ_ERR_TRUNCATED : GPZ_ERR_CORRUPT;
			goto out;
		}
		unsigned dist = dist_base[d] + take(&b, dist_extra[d]);
		if (len > cap - pos) {
			r = GPZ_ERR_CORRUPT;
			goto out;
		}
		if (dist > pos + before) {
			/* before the output and what precedes it: bytes of a window known apart, or
			 * markers, for symbols with nothing before them; else bad input */
			if (!wide || before) {
				r = GPZ_ERR_CORRUPT;
				goto out;
			}
			f->pos = pos;
			r = copy_window(f, len, dist);
			if (r != GPZ_OK)
				goto out;
			pos += len;
			continue;
		}
		copy_fast(o + pos * sz, len, dist, o + cap * sz, sz);
		pos += len;
	}
out:
	f->b = b;
	f->pos = pos;
	return r;
}

static gpz_result codes(struct infl *f)
{
	return f->out8 ? codes_to(f, 0) : codes_to(f, 1);
}

/* Bytes in the output: 16-bit symbols, or bytes. */
static inline void put(struct infl *f, size_t pos, unsigned v)
{
	if (f->out8)
		f->out8[pos] = (uint8_t)v;
	else
		f->out[pos] = (uint16_t)v;
}

static gpz_result stored(struct infl *f)
{
	struct br *b = &f->b;
	unsigned len, nlen;
	size_t c;

	if (take(b, b->n % 8) && f->strict) /* to the byte boundary */
		return GPZ_ERR_CORRUPT;
	len = getbits(b, 16);
	nlen = getbits(b, 16);
	if (len != (~nlen & 0xffff))
		return GPZ_ERR_CORRUPT;
	if (len > f->cap - f->pos)
		return GPZ_ERR_CORRUPT;
	for (; len && b->n >= 8; len--)
		put(f, f->pos++, take(b, 8));
	if (!len)
		return overran(b) ? GPZ_ERR_TRUNCATED : GPZ_OK;
	/* the buffer is empty (n was a multiple of 8): the rest straight from the input, and
	 * zeros (counted as read past the end) for what it lacks */
	b->bits = 0;
	c = (size_t)(b->end - b->p) < len ? (size_t)(b->end - b->p) : len;
	if (f->out8)
		memcpy(f->out8 + f->pos, b->p, c);
	else
		for (size_t i = 0; i < c; i++)
			f->out[f->pos + i] = b->p[i];
	b->p += c;
	f->pos += c;
	for (; c < len; c++) {
		put(f, f->pos++, 0);
		b->phantom++;
	}
	return overran(b) ? GPZ_ERR_TRUNCATED : GPZ_OK;
}

/* The blocks of a piece, for either output. */
static gpz_result blocks(struct infl *f, const uint8_t *in, size_t in_n, int *final)
{
	gpz_result r = GPZ_OK;
	int last = 0;

	memset(&f->b, 0, sizeof(f->b));
	f->b.p = in;
	f->b.end = in + in_n;
	f->pos = 0;
	/* blocks until the final one, or until the input ends exactly at a block's end */
	while (r == GPZ_OK && !last) {
		unsigned type;
		last = (int)getbits(&f->b, 1);
		type = getbits(&f->b, 2);
		if (type == 0)
			r = stored(f);
		else if (type == 1) {
			fixed_codes(f);
			r = codes(f);
		} else if (type == 2) {
			r = dynamic_codes(f);
			if (r == GPZ_OK)
				r = codes(f);
		} else
			r = GPZ_ERR_CORRUPT;
		if (r == GPZ_OK && overran(&f->b))
			r = GPZ_ERR_TRUNCATED;
		if (r == GPZ_OK && !last && at_end(&f->b))
			break; /* the piece ends here, after a block */
	}
	if (r == GPZ_OK && last && !at_end(&f->b))
		r = GPZ_ERR_CORRUPT; /* bytes after the final block, inside the piece */
	*final = last;
	return r;
}

/* A piece into symbols (out) or bytes (out8, `before` bytes of window before it). */
static gpz_result piece(const uint8_t *in, size_t in_n, uint16_t *out, uint8_t *out8,
                        size_t before, const uint8_t *hist, size_t hist_n, int markers,
                        int strict, size_t cap, size_t *out_n, int *final)
{
	struct infl *f = malloc(sizeof(*f));
	gpz_result r;

	*out_n = 0;
	*final = 0;
	if (!f)
		return GPZ_ERR_NOMEM;
	f->out = out;
	f->out8 = out8;
	f->before = before < WINDOW ? before : WINDOW;
	f->cap = cap;
	f->hist = hist;
	f->hist_n = hist ? (hist_n < WINDOW ? hist_n : WINDOW) : 0;
	f->markers = markers;
	f->strict = strict;
	r = blocks(f, in, in_n, final);
	*out_n = f->pos;
	free(f);
	return r;
}

gpz_result gpz_inflate_piece(const uint8_t *in, size_t in_n, const uint8_t *hist, size_t hist_n,
                             int markers, uint16_t *out, size_t cap, size_t *out_n, int *final)
{
	return piece(in, in_n, out, NULL, 0, hist, hist_n, markers, 0, cap, out_n, final);
}

gpz_result gpz_inflate_piece_after(const uint8_t *in, size_t in_n, uint16_t *out, size_t before,
                                   size_t cap, size_t *out_n, int *final)
{
	return piece(in, in_n, out, NULL, before, NULL, 0, 0, 0, cap, out_n, final);
}

gpz_result gpz_inflate_piece_bytes(const uint8_t *in, size_t in_n, uint8_t *out, size_t before,
                                   size_t cap, size_t *out_n, int *final)
{
	return piece(in, in_n, NULL, out, before, NULL, 0, 0, 0, cap, out_n, final);
}

gpz_result gpz_inflate_piece_strict(const uint8_t *in, size_t in_n, uint8_t *out, size_t before,
                                    size_t cap, size_t *out_n, int *final)
{
	return piece(in, in_n, NULL, out, before, NULL, 0, 0, 1, cap, out_n, final);
}
