/* gunzip.c - gpz_inflate: gzip (any number of members), zlib and raw DEFLATE from a host buffer.
 *
 * A gzip member written by gpz carries the piece index (docs/FORMAT.md): its pieces start on
 * byte boundaries at known offsets, so a batch of them is inflated in parallel on the context's
 * threads by gpz's own decoder (inflate.c), each thread a stretch of pieces in order: straight to
 * bytes where the window is known (the batch's first stretch, every piece after the first of a
 * stretch that ends clear of unknown bytes, and every piece on one thread), else into 16-bit
 * symbols, some of which stand for bytes of the unknown 32 KiB before the piece; then the
 * symbols become bytes through a table of the window (each piece's last 32 KiB in order, since
 * it is the next one's window, then the rest in parallel), and the CRC-32 is taken piece by
 * piece (as it is decoded, where that can be); on a GPU context such a member of 64 MiB or
 * more (any size when the GPU was asked for) is inflated on the GPU instead (gunzip_gpu.cu), the
 * CPU redoing it if the GPU fails on an AUTO context. Other members, and zlib and raw streams,
 * go through zlib on one thread. Every length, checksum and size is checked; zero bytes after
 * the last gzip member are accepted (tape padding), anything else after it is an error. */
#include "deflate/deflate.h"
#include "common/bits.h"
#include "common/context.h"
#include "common/crc32.h"
#include "common/crc_combine.h"
#include "common/parallel.h"
#include "deflate/deflate_gpu.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define WINDOW 32768
/* Members from which AUTO contexts inflate on the GPU (as for DEFLATE compression) */
#define GPU_AUTO_MIN ((uint64_t)64 << 20)

/* ---- gzip header ---- */

uint32_t gpz_gzip_index_crc(const uint8_t *sub, const uint8_t *lens, size_t np)
{
	/* versions 6 and 7 bind their version and flags too: a flag that a bit flip set would
	 * send a reader down a wrong path */
	uLong c = sub[0] == 6 || sub[0] == 7 ? crc32(0L, sub, 8)
	                                     : crc32(crc32(0L, sub + 1, 1), sub + 4, 4);
	return (uint32_t)crc32(c, lens, (uInt)(4 * np));
}

/* Index flags and period byte (versions 6 and 7) this reader knows: other flags, or a period
 * without its flag or past any count of entries, make the index unused. */
static int index_marks_known(uint8_t flags, uint8_t period)
{
	return !(flags & ~GPZ_GZIP_INDEX_FLAGS) &&
	       (flags & GPZ_GZIP_INDEX_CUT ? period <= 16 : period == 0);
}

static uint32_t index_cut(uint8_t flags, uint8_t period)
{
	return flags & GPZ_GZIP_INDEX_CUT ? (uint32_t)1 << period : 0;
}

gpz_result gpz_gzip_header(const uint8_t *s, size_t n, struct gpz_gzip_member *m)
{
	size_t o = 10;
	uint8_t flg;

	memset(m, 0, sizeof(*m));
	if ((n > 0 && s[0] != 0x1f) || (n > 1 && s[1] != 0x8b) || (n > 2 && s[2] != 8))
		return GPZ_ERR_FORMAT; /* not gzip (what is there is told apart from a cut header) */
	if (n < 10)
		return GPZ_ERR_TRUNCATED;
	flg = s[3];
	if (flg & 0xe0)
		return GPZ_ERR_CORRUPT; /* reserved flags */
	if (flg & 0x04) { /* FEXTRA: subfields, one of which may be gpz's piece index */
		size_t xlen, end;
		if (n - o < 2)
			return GPZ_ERR_TRUNCATED;
		xlen = gpz_load_le16(s + o);
		o += 2;
		if (n - o < xlen)
			return GPZ_ERR_TRUNCATED;
		end = o + xlen;
		while (end - o >= 4) {
			size_t len = gpz_load_le16(s + o + 2);
			const uint8_t *d = s + o + 4;
			if (end - o - 4 < len)
				return GPZ_ERR_CORRUPT;
			/* gpz's index, filled in and intact (else it is not used: zlib reads on) */
			if (s[o] == 'G' && s[o + 1] == 'P' && len >= 12 &&
			    (d[0] == 4 || (d[0] == 6 && index_marks_known(d[2], d[3]))) &&
			    d[1] >= GPZ_DEFLATE_PIECE_LOG && d[1] <= GPZ_GZIP_MAX_PIECE_LOG &&
			    gpz_load_le32(d + 4) > 0 && (len - 12) / 4 == gpz_load_le32(d + 4) &&
			    (len - 12) % 4 == 0 &&
			    gpz_gzip_index_crc(d, d + 12, (len - 12) / 4) == gpz_load_le32(d + 8)) {
				m->np = gpz_load_le32(d + 4);
				m->piece_log = d[1];
				m->alone = d[0] == 6 && (d[2] & GPZ_GZIP_INDEX_ALONE);
				m->cut = d[0] == 6 ? index_cut(d[2], d[3]) : 0;
				m->lens = d + 12;
			}
			if (s[o] == 'G' && s[o + 1] == 'P' && len == 4 && d[0] == GPZ_GZIP_TRAILS &&
			    !d[1] && !d[2] && !d[3])
				m->trails = 1;
			o += 4 + len;
		}
		if (o != end)
			return GPZ_ERR_CORRUPT;
	}
	for (int k = 0; k < 2; k++) { /* FNAME, FCOMMENT: zero-terminated */
		if (!(flg & (k ? 0x10 : 0x08)))
			continue;
		const uint8_t *z = memchr(s + o, 0, n - o);
		if (!z)
			return GPZ_ERR_TRUNCATED;
		o = (size_t)(z - s) + 1;
	}
	if (flg & 0x02) { /* FHCRC: the low 16 bits of the header's CRC-32 */
		if (n - o < 2)
			return GPZ_ERR_TRUNCATED;
		if ((crc32(0L, s, (uInt)o) & 0xffff) != gpz_load_le16(s + o))
			return GPZ_ERR_CORRUPT;
		o += 2;
	}
	m->data = o;
	return GPZ_OK;
}

int gpz_gzip_tail_index(const uint8_t *tail, size_t tn, uint64_t total, struct gpz_gzip_tail *t)
{
	static const uint8_t end[10] = { 0x03, 0 }; /* empty block, CRC-32 0, size 0 */
	const uint8_t *m;
	size_t np, size;

	memset(t, 0, sizeof(*t));
	if (tn < 54 || tn > total || memcmp(tail + tn - 10, end, 10) != 0)
		return 0;
	np = gpz_load_le32(tail + tn - 14);
	if (np == 0 || np > GPZ_GZIP_TAIL_INDEX_MAX_PIECES || (size = 50 + 4 * np) > tn)
		return 0;
	m = tail + tn - size;
	if (m[0] != 0x1f || m[1] != 0x8b || m[2] != 8 || m[3] != 0x04 ||
	    gpz_load_le16(m + 10) != 28 + 4 * np || m[12] != 'G' || m[13] != 'P' ||
	    gpz_load_le16(m + 14) != 24 + 4 * np || !(m[16] == 5 || m[16] == 7) ||
	    m[17] < GPZ_DEFLATE_PIECE_LOG || m[17] > GPZ_GZIP_MAX_PIECE_LOG ||
	    (m[16] == 5 ? m[18] || m[19] : !index_marks_known(m[18], m[19])) ||
	    gpz_load_le32(m + 20) != np ||
	    (uint32_t)crc32(gpz_gzip_index_crc(m + 16, m + 36, np), m + 24, 8) !=
	            gpz_load_le32(m + 32))
		return 0;
	t->back = gpz_load_le64(m + 24);
	if (t->back > total - size)
		return 0;
	t->member = total - size - t->back;
	t->np = (uint32_t)np;
	t->piece_log = m[17];
	t->alone = m[16] == 7 && (m[18] & GPZ_GZIP_INDEX_ALONE);
	t->cut = m[16] == 7 ? index_cut(m[18], m[19]) : 0;
	t->lens = m + 36;
	return 1;
}

/* The index a member without one of its own gets from a trailing index that names it: header,
 * pieces and trailer must span exactly what the trailing index says. */
void gpz_gzip_adopt_tail(struct gpz_gzip_member *m, const struct gpz_gzip_tail *t)
{
	uint64_t data_len = 0;
	if (m->np || !t || !t->np)
		return;
	for (uint32_t k = 0; k < t->np; k++)
		data_len += gpz_load_le32(t->lens + 4 * k);
	if (m->data + data_len + 8 == t->back) {
		m->np = t->np;
		m->piece_log = t->piece_log;
		m->alone = t->alone;
		m->cut = t->cut;
		m->lens = t->lens;
	}
}

/* ---- one member through zlib ---- */

/* Raw DEFLATE at in[0 .. n) into out (cap bytes): *used input bytes, *got output bytes. */
static gpz_result zlib_raw(const uint8_t *in, size_t n, int wbits, uint8_t *out, size_t cap,
                           size_t *used, size_t *got)
{
	z_stream z;
	int zr = Z_OK;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, wbits) != Z_OK)
		return GPZ_ERR_NOMEM;
	z.next_in = (Bytef *)in;
	z.next_out = out;
	*used = *got = 0;
	/* zlib counts in uInt: feed at most 1 GiB a step */
	while (zr == Z_OK) {
		size_t in_left = n - (size_t)(z.next_in - in), out_left = cap - (size_t)(z.next_out - out);
		z.avail_in = (uInt)(in_left < (1u << 30) ? in_left : (1u << 30));
		z.avail_out = (uInt)(out_left < (1u << 30) ? out_left : (1u << 30));
		uInt ai = z.avail_in, ao = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_BUF_ERROR || (zr == Z_OK && ai == z.avail_in && ao == z.avail_out))
			break;
	}
	*used = (size_t)(z.next_in - in);
	*got = (size_t)(z.next_out - out);
	inflateEnd(&z);
	if (zr == Z_STREAM_END)
		return GPZ_OK;
	if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT)
		return GPZ_ERR_CORRUPT;
	if (zr == Z_MEM_ERROR)
		return GPZ_ERR_NOMEM;
	/* stuck: either the output is full or the input ended */
	return *got == cap && *used < n ? GPZ_ERR_DST_TOO_SMALL : GPZ_ERR_TRUNCATED;
}

/* ---- one indexed member, piece by piece ---- */

struct batch_task {
	struct gpz_infl_batch *b;
	const uint8_t *window;
};

gpz_result gpz_infl_piece_check(gpz_result r, size_t n, int final, size_t k, size_t np,
                                size_t piece, size_t room)
{
	int last = k + 1 == np;
	if (r == GPZ_OK && (final != last || (!last && n != piece) || (last && k > 0 && n == 0)))
		r = GPZ_ERR_CORRUPT; /* not where the index says the stream ends, or a short piece */
	if (r == GPZ_OK && n > room)
		r = GPZ_ERR_DST_TOO_SMALL;
	return r;
}

static void crc_of(struct gpz_infl_batch *b, size_t j)
{
	b->res[j].crc = gpz_crc32(0, b->dst + j * b->piece, b->res[j].n);
	b->res[j].crc_done = 1;
}

/* Whether any of n symbols stands for a window byte (a high byte not 0). */
static int any_window_symbol(const uint16_t *sym, size_t n)
{
	size_t i = 0;
	unsigned acc = 0;
#ifdef __SSE2__
	__m128i v = _mm_setzero_si128();
	for (; i + 8 <= n; i += 8)
		v = _mm_or_si128(v, _mm_loadu_si128((const __m128i *)(sym + i)));
	acc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_srli_epi16(v, 8), _mm_setzero_si128()));
	acc = acc != 0xffff;
#endif
	for (; i < n; i++)
		acc |= sym[i] >> 8;
	return acc != 0;
}

/* n symbols without window symbols to bytes: their low bytes (SSE2: 16 at a time). */
static void narrow(const uint16_t *sym, uint8_t *d, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	for (; i + 16 <= n; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(sym + i));
		__m128i c = _mm_loadu_si128((const __m128i *)(sym + i + 8));
		_mm_storeu_si128((__m128i *)(d + i), _mm_packus_epi16(a, c));
	}
#endif
	for (; i < n; i++)
		d[i] = (uint8_t)sym[i];
}

/* Piece j without its window: as symbols, after those of piece base .. j - 1 (decoded so, in
 * full) when base < j, so that its window symbols stand for the window of piece base. In text
 * they die out within about a MiB of that piece, and the pieces after go to bytes: words copied
 * from the window get copied again, but less and less. A piece without window symbols gets its
 * bytes and CRC-32 now; the others keep their symbols for gpz_infl_batch_resolve, but for the
 * last 32 KiB when those are bytes alone (the next piece's window then). Returns whether its
 * last 32 KiB are all bytes. */
static int decode_symbols(struct gpz_infl_batch *b, size_t j, size_t base)
{
	struct gpz_infl_res *pr = &b->res[j];
	size_t k = b->k0 + j, start = j * b->piece, n = 0;
	uint16_t *sym = b->sym + start;
	const uint8_t *in = b->in + b->off[j];
	size_t in_n = (size_t)(b->off[j + 1] - b->off[j]);
	int final = 0;
	gpz_result r = base < j ? gpz_inflate_piece_after(in, in_n, sym, WINDOW, b->piece, &n, &final)
	                        : gpz_inflate_piece(in, in_n, NULL, 0, k > 0 && !b->alone, sym,
	                                            b->piece, &n, &final);

	r = gpz_infl_piece_check(r, n, final, k, b->np, b->piece,
	                         b->room > start ? b->room - start : 0);
	pr->r = r;
	pr->n = r == GPZ_OK ? n : 0;
	pr->base = base;
	size_t tail = pr->n > WINDOW ? pr->n - WINDOW : 0;
	int clean = !any_window_symbol(sym + tail, pr->n - tail);
	pr->marked = !clean || any_window_symbol(sym, tail);
	pr->tail_final = clean;
	if (clean)
		narrow(sym + tail, b->dst + start + tail, pr->n - tail);
	if (!pr->marked) {
		narrow(sym, b->dst + start, tail);
		if (r == GPZ_OK)
			crc_of(b, j);
	}
	return r == GPZ_OK && clean;
}

/* Piece j decoded straight to bytes with `before` bytes of history (0 or its 32 KiB window:
 * the 32 KiB before it in dst, final, or at `window` when that is elsewhere), at most cap of
 * them: the decoder's result, *n bytes, *final. */
static gpz_result bytes_of(struct gpz_infl_batch *b, size_t j, const uint8_t *window,
                           size_t before, size_t cap, size_t *n, int *final)
{
	const uint8_t *in = b->in + b->off[j];
	size_t in_n = (size_t)(b->off[j + 1] - b->off[j]);
	uint8_t *out = b->dst + j * b->piece, *tmp = NULL;
	gpz_result r;

	if (before && window && window + WINDOW != out) { /* elsewhere: after a copy of it */
		if (!(tmp = malloc(WINDOW + cap + 1)))
			return GPZ_ERR_NOMEM;
		memcpy(tmp, window, WINDOW);
		out = tmp + WINDOW;
	}
	r = gpz_inflate_piece_bytes(in, in_n, out, before, cap, n, final);
	if (tmp) {
		memcpy(b->dst + j * b->piece, out, *n);
		free(tmp);
	}
	return r;
}

/* Piece j's result as decoded to bytes, with its CRC-32 while the bytes are in cache. */
static void bytes_done(struct gpz_infl_batch *b, size_t j, gpz_result r, size_t n)
{
	struct gpz_infl_res *pr = &b->res[j];
	pr->r = r;
	pr->n = r == GPZ_OK ? n : 0;
	pr->marked = 0;
	pr->tail_final = 1;
	pr->crc_done = 0;
	if (r == GPZ_OK)
		crc_of(b, j);
}

/* The room dst has for piece j, and the most bytes it may decode there (a piece at most). */
static size_t piece_room(const struct gpz_infl_batch *b, size_t j, size_t *cap)
{
	size_t start = j * b->piece, room = b->room > start ? b->room - start : 0;
	*cap = room < b->piece ? room : b->piece;
	return room;
}

/* Piece j straight to bytes, after its window (the 32 KiB before it in dst, final; none for the
 * member's first piece, nor for pieces alone). */
static void decode_bytes(struct gpz_infl_batch *b, size_t j, const uint8_t *window)
{
	size_t k = b->k0 + j, n = 0, cap, room = piece_room(b, j, &cap);
	int final = 0;
	gpz_result r = bytes_of(b, j, window, k && !b->alone ? WINDOW : 0, cap, &n, &final);

	if (r == GPZ_ERR_CORRUPT && cap < b->piece && b->sym) {
		/* a copy or the piece's end past a short dst (the decoder stops before a copy that
		 * would not fit: n may be below cap), or bad input? the symbols, with room for the
		 * whole piece, say */
		decode_symbols(b, j, j);
		return;
	}
	bytes_done(b, j, gpz_infl_piece_check(r, n, final, k, b->np, b->piece, room), n);
}

/* Whether piece j is one the index says decodes without its window (a cut). */
static int at_cut(const struct gpz_infl_batch *b, size_t j)
{
	return b->cut && (b->k0 + j) % b->cut == 0;
}

/* The batch's first cut (b->cut set): pieces before it, 0 when the batch starts at one. */
static size_t first_cut(const struct gpz_infl_batch *b)
{
	return (b->cut - b->k0 % b->cut) % b->cut;
}

/* Piece j, a cut, straight to bytes with no history. Returns 0 when that fails, leaving the
 * piece to the path of any other (so a stream whose index lies about a cut still decodes as
 * DEFLATE says, as it does on readers that ignore cuts; a short dst or bad input get their
 * verdict there). */
static int decode_cut(struct gpz_infl_batch *b, size_t j)
{
	size_t k = b->k0 + j, n = 0, cap, room = piece_room(b, j, &cap);
	int final = 0;
	gpz_result r = bytes_of(b, j, NULL, 0, cap, &n, &final);

	r = gpz_infl_piece_check(r, n, final, k, b->np, b->piece, room);
	if (r != GPZ_OK)
		return 0;
	bytes_done(b, j, r, n);
	return 1;
}

struct run_task {
	struct gpz_infl_batch *b;
	size_t nruns;
	size_t parts;          /* runs a stretch between cuts is split into (cut batches) */
	const uint8_t *window; /* the 32 KiB before the batch, when known */
};

/* The first piece of run r: runs split the batch evenly; in a batch with cuts, the stretches
 * from one cut to the next (and the one before the first) are split evenly into t->parts. */
static size_t run_start(const struct run_task *t, size_t r)
{
	const struct gpz_infl_batch *b = t->b;
	if (!t->parts)
		return r * b->nk / t->nruns;
	size_t first = first_cut(b);
	size_t seg = r / t->parts, part = r % t->parts, s0, s1;
	if (first) /* a stretch before it */
		s0 = seg ? first + (seg - 1) * b->cut : 0;
	else
		s0 = seg * b->cut;
	s1 = first && !seg ? first : s0 + b->cut;
	s0 = s0 < b->nk ? s0 : b->nk;
	s1 = s1 < b->nk ? s1 : b->nk;
	return s0 + part * (s1 - s0) / t->parts;
}

/* Run r: a stretch of the batch's pieces on one thread, in order. Its first piece's window is
 * another thread's (unless it is known, or the piece is a cut), so that piece goes to symbols;
 * so do the next ones until a piece ends with 32 KiB of bytes alone, the window the rest need
 * to go straight to bytes (in text that is usually the first piece), or until a cut. */
static void run_pieces(void *v, size_t r)
{
	const struct run_task *t = v;
	struct gpz_infl_batch *b = t->b;
	size_t j0 = run_start(t, r), j1 = r + 1 < t->nruns ? run_start(t, r + 1) : b->nk;
	int clean = b->alone || (r == 0 && (t->window || b->k0 == 0));
	size_t base = j0; /* the first piece of the current run of symbols */

	for (size_t j = j0; j < j1; j++) {
		b->res[j].crc_done = 0;
		if (clean) {
			decode_bytes(b, j, j == 0 && !b->alone ? t->window : NULL);
			base = j + 1;
		} else if (at_cut(b, j) && decode_cut(b, j)) {
			clean = 1;
			base = j + 1;
		} else {
			clean = decode_symbols(b, j, base);
		}
		if (b->res[j].r != GPZ_OK) {
			for (size_t i = j + 1; i < j1; i++) /* not decoded: behind an error */
				b->res[i] = (struct gpz_infl_res){ .r = b->res[j].r };
			return;
		}
	}
}

gpz_result gpz_infl_batch_decode(int nthreads, struct gpz_infl_batch *b, const uint8_t *window,
                                 size_t *out_n)
{
	struct run_task t = { b, (size_t)(nthreads > 0 ? nthreads : 1), 0, window };

	/* pieces alone need no run: a task a piece, so that threads that drew quick pieces take
	 * more (runs of a sixteenth of a batch each ended the batch with the slowest run); with
	 * cuts, runs start at them, as many as there are threads at least */
	if (!b->alone && b->cut) {
		size_t first = first_cut(b);
		size_t segs = (first ? 1 : 0) + (b->nk > first ? (b->nk - first - 1) / b->cut + 1 : 0);
		t.parts = (t.nruns + segs - 1) / segs;
		t.nruns = segs * t.parts;
	}
	if (b->alone || t.nruns > b->nk) {
		t.nruns = b->nk;
		t.parts = 0;
	}
	if (b->pool)
		gpz_pool_run(b->pool, t.nruns, run_pieces, &t);
	else
		gpz_parallel_for(nthreads, t.nruns, run_pieces, &t);
	*out_n = 0;
	for (size_t j = 0; j < b->nk; j++) {
		if (b->res[j].r != GPZ_OK)
			return b->res[j].r;
		*out_n += b->res[j].n;
	}
	return GPZ_OK;
}

/* The bytes of piece j's symbols in [from, to), those of window symbols from `window` (the
 * 32 KiB its window symbols stand for): one lookup a symbol in a table of the 256 bytes and then
 * the window's, without branches, but for groups of 16 without window symbols. In text the two
 * kinds are finely mixed (debtext100m's gzip -6 on two threads, pieces decoded each on its own:
 * 40% window symbols, in runs of 2.7 on average, 3% of 16-symbol groups without one; after the
 * symbols of the piece before, 19% and 34%), so this beats narrowing every symbol with a bit for
 * each window symbol and then visiting those alone (perf: 2.0x the samples there). */
static void resolve(struct gpz_infl_batch *b, size_t j, const uint8_t *window, size_t from,
                    size_t to)
{
	const uint16_t *sym = b->sym + j * b->piece;
	uint8_t *d = b->dst + j * b->piece;
	uint8_t table[256 + WINDOW];

	for (unsigned c = 0; c < 256; c++)
		table[c] = (uint8_t)c;
	memcpy(table + 256, window, WINDOW);
	/* symbols are below 256 + WINDOW: the decoder makes no others */
	size_t i = from;
#ifdef __SSE2__
	/* 16 symbols without window symbols: their low bytes at once */
	for (; i + 16 <= to; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(sym + i));
		__m128i c = _mm_loadu_si128((const __m128i *)(sym + i + 8));
		__m128i hi = _mm_srli_epi16(_mm_or_si128(a, c), 8);
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(hi, _mm_setzero_si128())) == 0xffff) {
			_mm_storeu_si128((__m128i *)(d + i), _mm_packus_epi16(a, c));
			continue;
		}
		for (unsigned q = 0; q < 16; q++)
			d[i + q] = table[sym[i + q]];
	}
#endif
	for (; i < to; i++)
		d[i] = table[sym[i]];
}

static const uint8_t *window_of(const struct batch_task *t, size_t j)
{
	return j ? t->b->dst + j * t->b->piece - WINDOW : t->window;
}

static void resolve_task(void *v, size_t j)
{
	const struct batch_task *t = v;
	const struct gpz_infl_res *pr = &t->b->res[j];
	if (pr->marked)
		resolve(t->b, j, window_of(t, pr->base), 0, pr->n > WINDOW ? pr->n - WINDOW : 0);
}

static void crc_task(void *v, size_t j)
{
	struct gpz_infl_batch *b = ((struct batch_task *)v)->b;
	if (!b->res[j].crc_done)
		crc_of(b, j);
}

/* A piece's window symbols stand for the 32 KiB before the first piece of its run of symbols
 * (res[j].base), the last 32 KiB of an earlier piece: so those are resolved first, in order (32
 * KiB a piece); then the rest of every piece at once. */
void gpz_infl_batch_resolve(int nthreads, struct gpz_infl_batch *b, const uint8_t *window)
{
	struct batch_task t = { b, window };
	int marked = 0, crc = 0;

	for (size_t j = 0; j < b->nk; j++) {
		const struct gpz_infl_res *pr = &b->res[j];
		if (pr->marked)
			resolve(b, j, window_of(&t, pr->base), pr->n > WINDOW ? pr->n - WINDOW : 0,
			        pr->n);
		marked |= pr->marked;
		crc |= !pr->crc_done;
	}
	/* threads start per call: none where there is nothing to do (pieces decoded to bytes) */
	if (marked)
		gpz_parallel_for(nthreads, b->nk, resolve_task, &t);
	if (crc)
		gpz_parallel_for(nthreads, b->nk, crc_task, &t);
}

/* The rest of an early piece (resolve_inner), then its CRC-32. */
static void early_task(void *v, size_t j)
{
	const struct batch_task *t = v;
	struct gpz_infl_res *pr = &t->b->res[j];
	if (pr->early) {
		resolve(t->b, j, window_of(t, pr->base), 0, pr->n > WINDOW ? pr->n - WINDOW : 0);
		pr->marked = 0;
		crc_of(t->b, j);
	}
}

/* A stretch of pieces that began inside the batch has its window there: the last 32 KiB of the
 * piece before its first, final once that piece's tail is (a stretch that ended clear of window
 * bytes, or one resolved here first, in order). Such pieces need nothing from the batch before,
 * so a lane resolves them on its own threads before its turn, where they took a 16-thread
 * resolve in order with every other lane's (1 GB of gzip -6 text, 16 threads on an H100 host:
 * 8.5 of the 49 ms a batch took on its lane, one batch after another). */
void gpz_infl_batch_resolve_inner(int nthreads, struct gpz_infl_batch *b)
{
	struct batch_task t = { b, NULL };
	int any = 0;

	for (size_t j = 0; j < b->nk; j++) {
		struct gpz_infl_res *pr = &b->res[j];
		pr->early = pr->marked && pr->base > 0 && b->res[pr->base - 1].tail_final;
		if (!pr->early)
			continue;
		if (!pr->tail_final)
			resolve(b, j, window_of(&t, pr->base), pr->n > WINDOW ? pr->n - WINDOW : 0,
			        pr->n);
		pr->tail_final = 1;
		any = 1;
	}
	if (any)
		gpz_parallel_for(nthreads, b->nk, early_task, &t);
}

void gpz_infl_batch_fill(int nthreads, struct gpz_infl_batch *b, const uint64_t *list,
                         size_t nlist, const uint8_t *window)
{
	struct batch_task t = { b, window };

	for (size_t i = 0; i < nlist; i++)
		b->dst[list[i] >> 15] = window[list[i] & (WINDOW - 1)];
	for (size_t j = 0; j < b->nk; j++)
		b->res[j].crc_done = 0;
	gpz_parallel_for(nthreads, b->nk, crc_task, &t);
}

/* The member's DEFLATE data, np index entries of `piece` output bytes at raw (lengths in lens),
 * into dst: *got bytes, *crc. Batches of GPZ_INFL_PER_THREAD pieces a thread, at most
 * GPZ_DFL_CPU_BATCH pieces' bytes: their symbols need 2 bytes an output byte. */
size_t gpz_infl_batch_entries(int nthreads, size_t piece)
{
	size_t nb = GPZ_INFL_PER_THREAD * (size_t)(nthreads > 1 ? nthreads : 1);
	size_t most = GPZ_DFL_CPU_BATCH * GPZ_DEFLATE_PIECE / piece;
	nb = nb < GPZ_DFL_CPU_BATCH ? nb : GPZ_DFL_CPU_BATCH;
	return nb < most ? nb : most ? most : 1;
}

static gpz_result indexed_member(gpz_ctx *ctx, const uint8_t *raw,
                                 const struct gpz_gzip_member *m, uint8_t *dst, size_t cap,
                                 size_t *got, uint32_t *crc)
{
	const uint32_t np = m->np;
	const uint8_t *lens = m->lens;
	size_t piece = (size_t)1 << m->piece_log, nb = gpz_infl_batch_entries(ctx->nthreads, piece);
	uint64_t *off = malloc(((size_t)np + 1) * sizeof(*off));
	struct gpz_infl_res *res;
	uint16_t *sym;
	gpz_result r = GPZ_OK;

	/* with cuts, every run starts at one and needs no symbols (their memory is touched only by
	 * a cut that reaches back): the more pieces a batch, the less its threads wait at its end
	 * (at 16 threads, batches of 256 also started half their runs between cuts) */
	size_t least = nb;
	if (m->cut && !m->alone && ctx->nthreads > 1)
		nb = np > GPZ_INFL_CUT_BATCH ? GPZ_INFL_CUT_BATCH : np;
	nb = nb < np ? nb : np;
	res = calloc(nb, sizeof(*res));
	sym = malloc(nb * piece * sizeof(*sym));
	if (!sym && nb > least) { /* that much address space refused: the usual batches */
		nb = least < np ? least : np;
		sym = malloc(nb * piece * sizeof(*sym));
	}
	*got = 0;
	*crc = 0;
	if (!off || !res || !sym)
		r = GPZ_ERR_NOMEM;
	for (uint32_t k = 0; off && k <= np; k++)
		off[k] = k ? off[k - 1] + gpz_load_le32(lens + 4 * (k - 1)) : 0;
	for (size_t k0 = 0; r == GPZ_OK && k0 < np; k0 += nb) {
		size_t start = k0 * piece, n = 0;
		struct gpz_infl_batch b = { raw,  off + k0, k0, np - k0 < nb ? np - k0 : nb, np, sym,
			                    dst + start, cap > start ? cap - start : 0, res, piece,
			                    m->alone, m->cut, NULL };
		r = gpz_infl_batch_decode(ctx->nthreads, &b, start ? dst + start - WINDOW : NULL, &n);
		if (r != GPZ_OK)
			break;
		gpz_infl_batch_resolve(ctx->nthreads, &b, start ? dst + start - WINDOW : NULL);
		for (size_t j = 0; j < b.nk; j++)
			*crc = gpz_crc32_combine(*crc, res[j].crc, res[j].n);
		*got += n;
	}
	free(sym);
	free(res);
	free(off);
	return r;
}

/* One gzip member at s[0 .. n): *used bytes of it, *got output bytes at dst. */
static gpz_result gzip_member(gpz_ctx *ctx, struct gpz_gpu *g, const uint8_t *s, size_t n,
                              const struct gpz_gzip_tail *tail, uint8_t *dst, size_t cap,
                              size_t *used, size_t *got)
{
	struct gpz_gzip_member m;
	uint64_t data_len = 0;
	size_t in_used = 0;
	uint32_t crc = 0;
	gpz_result r = gpz_gzip_header(s, n, &m);

	if (r != GPZ_OK)
		return r;
	gpz_gzip_adopt_tail(&m, tail);
	for (uint32_t k = 0; k < m.np; k++)
		data_len += gpz_load_le32(m.lens + 4 * k);
	if (m.np && data_len <= n - m.data) { /* the index fits the input: pieces in parallel */
		r = GPZ_ERR_GPU; /* until the GPU has done it */
		/* the GPU's reader takes the pieces alone, not runs of them (inputs past 4.29 GB) */
		if (g && m.piece_log == GPZ_DEFLATE_PIECE_LOG &&
		    (ctx->gpu_asked || data_len >= GPU_AUTO_MIN)) {
			r = gpz_ctx_test_gpu_failure()
			            ? GPZ_ERR_GPU
			            : gpz_gpu_inflate_host(g, s + m.data, m.np, m.alone, m.lens, dst, cap,
			                                   got, &crc);
			if (r != GPZ_OK && !gpz_ctx_falls_back(ctx, r))
				return r;
		}
		if (r != GPZ_OK)
			r = indexed_member(ctx, s + m.data, &m, dst, cap, got, &crc);
		in_used = (size_t)data_len;
	} else {
		r = zlib_raw(s + m.data, n - m.data, -15, dst, cap, &in_used, got);
		if (r == GPZ_OK)
			crc = gpz_crc32(0, dst, *got);
	}
	if (r != GPZ_OK)
		return r;
	if (n - m.data - in_used < 8)
		return GPZ_ERR_TRUNCATED;
	if (gpz_load_le32(s + m.data + in_used) != crc ||
	    gpz_load_le32(s + m.data + in_used + 4) != (uint32_t)*got)
		return GPZ_ERR_CORRUPT;
	*used = m.data + in_used + 8;
	return GPZ_OK;
}

gpz_result gpz_inflate(gpz_ctx *ctx, gpz_format format, const void *src, size_t src_size,
                       void *dst, size_t dst_cap, size_t *dst_size)
{
	return gpz_inflate_on(ctx, gpz_ctx_gpu(ctx), format,
	                      src, src_size, dst, dst_cap, dst_size);
}

gpz_result gpz_inflate_on(gpz_ctx *ctx, struct gpz_gpu *g, gpz_format format, const void *src,
                          size_t src_size, void *dst, size_t dst_cap, size_t *dst_size)
{
	const uint8_t *s = src;
	uint8_t *d = dst;
	size_t pos = 0, out = 0, used = 0, got = 0;
	gpz_result r = GPZ_OK;

	if (!ctx || !dst_size || (!src && src_size) || (!dst && dst_cap) ||
	    format < GPZ_FORMAT_GZIP || format > GPZ_FORMAT_DEFLATE)
		return GPZ_ERR_PARAM;
	*dst_size = 0;
	if (format != GPZ_FORMAT_GZIP) {
		r = zlib_raw(s, src_size, format == GPZ_FORMAT_ZLIB ? 15 : -15, d, dst_cap, &used, &got);
		if (r == GPZ_OK && used != src_size)
			r = GPZ_ERR_CORRUPT; /* bytes after the stream */
		*dst_size = r == GPZ_OK ? got : 0;
		return r;
	}
	/* a stream written to a pipe has its piece index after it */
	struct gpz_gzip_tail tail;
	int has_tail = gpz_gzip_tail_index(s, src_size, src_size, &tail);
	do { /* members, until only zero padding (or nothing) is left */
		r = gzip_member(ctx, g, s + pos, src_size - pos,
		                has_tail && pos == tail.member ? &tail : NULL, d + out, dst_cap - out,
		                &used, &got);
		pos += used;
		out += got;
		while (r == GPZ_OK && pos < src_size && s[pos] == 0)
			pos++; /* a member starts with 0x1f: zeros are padding */
	} while (r == GPZ_OK && pos < src_size);
	*dst_size = r == GPZ_OK ? out : 0;
	return r;
}
