/* gunzip_stream.c - gpz_inflate_stream: gzip (every member), zlib or raw DEFLATE read in order
 * through a callback (a pipe will do), output written in order, memory bounded.
 *
 * A gzip member whose header carries gpz's piece index goes in batches of pieces: a batch's
 * compressed bytes are read whole, inflated on the context's threads (gunzip.c's batches; the
 * window of its first piece is the last 32 KiB written, so that stretch goes straight to bytes),
 * the window symbols of the others filled in, the CRC-32 combined, and the bytes written before
 * the next batch is read. Other members, and zlib and raw streams, go through zlib as the bytes
 * come. Sizes and checksums are checked as gpz_inflate checks them; zero bytes after the last
 * gzip member are padding, anything else there is an error. Memory: the batch's input (its
 * pieces, as the index gives their lengths) and output (4 pieces a thread, up to 64).
 *
 * gpz_inflate_stream_ahead also looks for the index a pipe's writer puts after the stream (a
 * trailing index member, docs/FORMAT.md): a member whose header says its index trails has up to
 * `ahead` bytes of input read ahead; if the input ends within them with a trailing index naming
 * the member, the member, now all in memory, goes through gpz_inflate_member_at (inflate_io.c:
 * the file path's lanes, whose batches overlap, where this file's batches each end with every
 * thread waiting and then the write). Otherwise, and for larger input, zlib takes it from the
 * bytes read. So such a member's output starts only once the input has ended; that is the
 * price of the threads. Other gzip streams are not held. This reader sits in container/ for
 * that hand-over; its batches are deflate/'s. */
#include "deflate/deflate.h"
#include "common/bits.h"
#include "common/context.h"
#include "common/crc_combine.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define WINDOW 32768
#define HEAD_MAX ((size_t)80 << 10) /* header bytes looked at: FEXTRA (<= 64 KiB), name, comment */
#define ZCHUNK ((size_t)1 << 20)    /* zlib's steps */
#define STREAM_BATCH ((size_t)256 << 20) /* output bytes a batch of a member with cuts, at most */

/* Sequential input: buf[pos .. len) read but not used; `in` bytes used in all; up to `ahead`
 * unused bytes read ahead looking for a trailing index. */
struct rd {
	gpz_read_fn read;
	void *user;
	uint8_t *buf;
	size_t pos, len, cap;
	int eof;
	uint64_t in;
	size_t ahead;
};

/* At least k bytes unused in the buffer, fewer only at the end of the input. */
static gpz_result need(struct rd *r, size_t k)
{
	if (r->len - r->pos >= k || r->eof)
		return GPZ_OK;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	if (k > r->cap) {
		uint8_t *b = realloc(r->buf, k);
		if (!b)
			return GPZ_ERR_NOMEM;
		r->buf = b;
		r->cap = k;
	}
	while (r->len < k && !r->eof) {
		size_t got = 0;
		gpz_result e = r->read(r->user, r->buf + r->len, r->cap - r->len, &got);
		if (e != GPZ_OK)
			return e;
		r->eof = got == 0;
		r->len += got;
	}
	return GPZ_OK;
}

static void use(struct rd *r, size_t k)
{
	r->pos += k;
	r->in += k;
}

/* Read until the input ends or more than r->ahead bytes are unused (one past it, so that input
 * of exactly r->ahead bytes is seen to end), growing the buffer by doubling (a short stream
 * costs no more than its size). Memory refused ends the looking, not the decoding: what was
 * read stays for zlib. */
static gpz_result read_ahead(struct rd *r)
{
	const size_t most = r->ahead < SIZE_MAX ? r->ahead + 1 : r->ahead;
	gpz_result e = GPZ_OK;
	while (e == GPZ_OK && !r->eof && r->len - r->pos < most) {
		size_t have = r->len - r->pos, want = have < ZCHUNK ? ZCHUNK : 2 * have;
		e = need(r, want < most ? want : most);
	}
	return e == GPZ_ERR_NOMEM ? GPZ_OK : e;
}

/* The index a trailing index member gives the member at the reader's position, when all the
 * rest of the input is read and ends with one that names it (else m keeps np 0). */
static void trailing_index(const struct rd *r, struct gpz_gzip_member *m)
{
	struct gpz_gzip_tail t;
	size_t rest = r->len - r->pos;
	if (r->eof && gpz_gzip_tail_index(r->buf + r->pos, rest, rest, &t) && t.member == 0)
		gpz_gzip_adopt_tail(m, &t);
}

struct wr {
	gpz_write_fn write;
	void *user;
	uint64_t out;
};

/* One zlib stream (wbits as inflateInit2 takes them: a gzip member, a zlib or raw stream) from
 * the reader's position to its end. */
static gpz_result zlib_stream(struct rd *r, struct wr *w, int wbits)
{
	z_stream z;
	uint8_t *o = malloc(ZCHUNK);
	int zr = Z_OK;
	gpz_result e = o ? GPZ_OK : GPZ_ERR_NOMEM;

	memset(&z, 0, sizeof(z));
	if (e == GPZ_OK && inflateInit2(&z, wbits) != Z_OK)
		e = GPZ_ERR_NOMEM;
	while (e == GPZ_OK && zr != Z_STREAM_END) {
		if ((e = need(r, 1)) != GPZ_OK)
			break;
		size_t avail = r->len - r->pos;
		z.next_in = r->buf + r->pos;
		z.avail_in = (uInt)(avail < ((size_t)1 << 30) ? avail : ((size_t)1 << 30));
		z.next_out = o;
		z.avail_out = (uInt)ZCHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		use(r, (size_t)(z.next_in - (r->buf + r->pos)));
		size_t made = ZCHUNK - z.avail_out;
		if (made && (e = w->write(w->user, o, made)) == GPZ_OK)
			w->out += made;
		if (e != GPZ_OK)
			break;
		if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT)
			e = GPZ_ERR_CORRUPT;
		else if (zr == Z_MEM_ERROR)
			e = GPZ_ERR_NOMEM;
		else if (zr == Z_BUF_ERROR && r->eof && r->len == r->pos)
			e = GPZ_ERR_TRUNCATED; /* zlib wants more and there is none */
	}
	inflateEnd(&z);
	free(o);
	return e;
}

/* An indexed member's pieces (np index entries of `piece` bytes, lengths at lens; alone: each
 * without the bytes before it; cut: every cut-th does), from the reader's position: batches of
 * nb entries into out (the 32 KiB window, then nb entries). *crc and *size of its output. */
static gpz_result pieces(gpz_ctx *ctx, struct rd *r, struct wr *w, uint32_t np, size_t piece,
                         int alone, uint32_t cut, const uint32_t *lens, uint32_t *crc,
                         uint64_t *size)
{
	size_t least = gpz_infl_batch_entries(ctx->nthreads, piece), nb = least;
	/* with cuts, a batch of a cut's pieces a thread starts every run at one, straight to bytes
	 * (batches of 256 started half the runs of 16 threads between cuts, on symbols); the
	 * symbols' memory is then touched only where a cut reaches back. At most STREAM_BATCH
	 * bytes of output a batch. */
	if (cut && !alone && ctx->nthreads > 1) {
		size_t want = (size_t)cut * (size_t)ctx->nthreads, most = STREAM_BATCH / piece;
		want = want < most ? want : most;
		nb = want > least ? want : least;
	}
	nb = nb < np ? nb : np;
	uint8_t *out = malloc(WINDOW + nb * piece);
	uint16_t *sym = malloc(nb * piece * sizeof(*sym));
	if ((!out || !sym) && nb > least) { /* that much refused: the usual batches */
		free(out);
		free(sym);
		nb = least < np ? least : np;
		out = malloc(WINDOW + nb * piece);
		sym = malloc(nb * piece * sizeof(*sym));
	}
	uint64_t *off = malloc((nb + 1) * sizeof(*off));
	struct gpz_infl_res *res = calloc(nb, sizeof(*res));
	gpz_result e = out && sym && off && res ? GPZ_OK : GPZ_ERR_NOMEM;

	*crc = 0;
	*size = 0;
	for (size_t k0 = 0; e == GPZ_OK && k0 < np; k0 += nb) {
		size_t nk = np - k0 < nb ? np - k0 : nb, got = 0;
		off[0] = 0;
		for (size_t j = 0; j < nk; j++)
			off[j + 1] = off[j] + lens[k0 + j];
		if ((e = need(r, (size_t)off[nk])) != GPZ_OK)
			break;
		if (r->len - r->pos < off[nk]) {
			e = GPZ_ERR_TRUNCATED;
			break;
		}
		struct gpz_infl_batch b = { r->buf + r->pos, off, k0,  nk,          np,
			                    sym,               out + WINDOW, nk * piece, res,
			                    piece,             alone,        cut,         NULL };
		e = gpz_infl_batch_decode(ctx->nthreads, &b, k0 ? out : NULL, &got);
		if (e != GPZ_OK)
			break;
		gpz_infl_batch_resolve(ctx->nthreads, &b, k0 ? out : NULL);
		for (size_t j = 0; j < nk; j++)
			*crc = gpz_crc32_combine(*crc, res[j].crc, res[j].n);
		use(r, (size_t)off[nk]);
		if ((e = w->write(w->user, out + WINDOW, got)) != GPZ_OK)
			break;
		w->out += got;
		*size += got;
		if (got >= WINDOW) /* only the last batch may be shorter */
			memcpy(out, out + WINDOW + got - WINDOW, WINDOW);
	}
	free(res);
	free(off);
	free(sym);
	free(out);
	return e;
}

/* The reader's buffered bytes and the writer, for gpz_inflate_member_at (one user for both). */
struct held {
	const uint8_t *p;
	size_t n;
	struct wr *w;
};

static gpz_result held_read_at(void *user, void *buf, size_t n, uint64_t off)
{
	const struct held *h = user;

	if (off > h->n || n > h->n - off)
		return GPZ_ERR_TRUNCATED;
	memcpy(buf, h->p + off, n);
	return GPZ_OK;
}

static gpz_result held_write(void *user, const void *buf, size_t n)
{
	const struct held *h = user;

	return h->w->write(h->w->user, buf, n);
}

/* A member read ahead to the end of the input, whose index trails there: decoded from memory
 * by the file path's lanes. GPZ_ERR_FORMAT: they did not take it (the caller decodes it). */
static gpz_result held_member(gpz_ctx *ctx, struct rd *r, struct wr *w)
{
	struct held h = { r->buf + r->pos, r->len - r->pos, w };
	uint64_t used = 0, made = 0;
	gpz_result e = gpz_inflate_member_at(ctx, held_read_at, h.n, 0, held_write, &h, &used,
	                                     &made);

	w->out += made; /* written, whatever came after */
	if (e == GPZ_OK)
		use(r, (size_t)used);
	return e;
}

/* One gzip member at the reader's position. */
static gpz_result member(gpz_ctx *ctx, struct rd *r, struct wr *w)
{
	struct gpz_gzip_member m;
	gpz_result e = need(r, HEAD_MAX);
	uint32_t *lens = NULL, crc = 0;
	uint64_t size = 0;

	if (e != GPZ_OK)
		return e;
	e = gpz_gzip_header(r->buf + r->pos, r->len - r->pos, &m);
	if (e == GPZ_ERR_TRUNCATED && !r->eof)
		m.np = 0; /* a header longer than we look at (a long name): zlib reads it */
	else if (e != GPZ_OK)
		return e;
	else if (m.np == 0 && m.trails && r->ahead) {
		if ((e = read_ahead(r)) != GPZ_OK)
			return e;
		trailing_index(r, &m);
		if (m.np && (e = held_member(ctx, r, w)) != GPZ_ERR_FORMAT)
			return e;
	}
	if (m.np == 0)
		return zlib_stream(r, w, 31);
	/* the index lives in the header (or the buffered tail), which the batches' reads may move:
	 * keep it */
	if (!(lens = malloc(m.np * sizeof(*lens))))
		return GPZ_ERR_NOMEM;
	for (uint32_t k = 0; k < m.np; k++)
		lens[k] = gpz_load_le32(m.lens + 4 * k);
	use(r, m.data);
	e = pieces(ctx, r, w, m.np, (size_t)1 << m.piece_log, m.alone, m.cut, lens, &crc, &size);
	free(lens);
	if (e == GPZ_OK)
		e = need(r, 8);
	if (e == GPZ_OK && r->len - r->pos < 8)
		e = GPZ_ERR_TRUNCATED;
	if (e == GPZ_OK && (gpz_load_le32(r->buf + r->pos) != crc ||
	                    gpz_load_le32(r->buf + r->pos + 4) != (uint32_t)size))
		e = GPZ_ERR_CORRUPT;
	if (e == GPZ_OK)
		use(r, 8);
	return e;
}

gpz_result gpz_inflate_stream(gpz_ctx *ctx, gpz_format format, gpz_read_fn read,
                              gpz_write_fn write, void *user, uint64_t *in_bytes,
                              uint64_t *out_bytes)
{
	return gpz_inflate_stream_ahead(ctx, format, read, write, user, 0, in_bytes, out_bytes);
}

gpz_result gpz_inflate_stream_ahead(gpz_ctx *ctx, gpz_format format, gpz_read_fn read,
                                    gpz_write_fn write, void *user, size_t ahead,
                                    uint64_t *in_bytes, uint64_t *out_bytes)
{
	struct rd r = { read, user, NULL, 0, 0, 0, 0, 0, ahead };
	struct wr w = { write, user, 0 };
	gpz_result e = GPZ_OK;

	if (in_bytes)
		*in_bytes = 0;
	if (out_bytes)
		*out_bytes = 0;
	if (!ctx || !read || !write || format < GPZ_FORMAT_GZIP || format > GPZ_FORMAT_DEFLATE)
		return GPZ_ERR_PARAM;
	if (format != GPZ_FORMAT_GZIP) {
		e = zlib_stream(&r, &w, format == GPZ_FORMAT_ZLIB ? 15 : -15);
		if (e == GPZ_OK && (e = need(&r, 1)) == GPZ_OK && r.len > r.pos)
			e = GPZ_ERR_CORRUPT; /* bytes after the stream */
	} else {
		do { /* members, until only zero padding (or nothing) is left */
			e = member(ctx, &r, &w);
			while (e == GPZ_OK && (e = need(&r, 1)) == GPZ_OK && r.len > r.pos &&
			       r.buf[r.pos] == 0)
				use(&r, 1); /* a member starts with 0x1f: zeros are padding */
		} while (e == GPZ_OK && r.len > r.pos);
	}
	free(r.buf);
	if (in_bytes)
		*in_bytes = r.in;
	if (out_bytes)
		*out_bytes = w.out;
	return e;
}
