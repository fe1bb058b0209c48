/* frame_lzsym.c - LZ-symbol frames (type 5, docs/FORMAT.md) on the CPU: the frame's tokens
 * counted, its two codes built, the chunks coded (lzsym/), and back. Tokens are not kept (a
 * frame's can take 12 bytes a symbol): the counting pass keeps the matches it took (16 bytes
 * each, up to one for every 16 symbols of a task), and the coding pass makes the tokens again
 * from them without hashing (gpz_lzs_tokens_again); a task with more matches hashes again.
 * Threads take contiguous runs of chunks; their bits are joined in order. */
#include "common/context.h"
#include "container/frame.h"
#include "common/bits.h"
#include "common/parallel.h"
#include "lzsym/lzsym.h"

#include <stdlib.h>
#include <string.h>

#define NB GPZ_LZS_BUCKETS
#define CB_FIXED 8 /* run symbol z and the main codebook's bytes, u32 each */

struct lzs_job {
	const uint8_t *src;
	int w, chunk_log;
	size_t n, nchunks, ntasks;
	uint32_t alphabet, z;
	/* counting: per task, main counts [alphabet + 96] then distance counts [48], and the
	 * matches taken (ntaken SIZE_MAX: too many, not kept) */
	uint32_t *counts;
	struct gpz_lzs_taken **taken;
	size_t *ntaken, *taken_cap;
	/* coding */
	const struct gpz_lzs_code *code;
	uint8_t **bufs;
	uint64_t *task_bits;
	uint32_t *chunk_bits;
	gpz_result *res;
};

static void task_chunks(const struct lzs_job *j, size_t t, size_t *c0, size_t *c1)
{
	*c0 = t * j->nchunks / j->ntasks;
	*c1 = (t + 1) * j->nchunks / j->ntasks;
}

static size_t chunk_end(const struct lzs_job *j, size_t c)
{
	size_t e = (c + 1) << j->chunk_log;
	return e < j->n ? e : j->n;
}

/* Match m onto task t's list, grown as it fills, while it stays within most entries (else, or
 * without memory, the list goes: the coding pass will hash again). */
static void keep_match(struct lzs_job *j, size_t t, size_t most, struct gpz_lzs_taken m)
{
	size_t n = j->ntaken[t];
	if (n == SIZE_MAX)
		return;
	if (n < most && n == j->taken_cap[t]) {
		size_t c = n ? 2 * n : 256;
		struct gpz_lzs_taken *g = realloc(j->taken[t], (c < most ? c : most) * sizeof(*g));
		if (g) {
			j->taken[t] = g;
			j->taken_cap[t] = c < most ? c : most;
		}
	}
	if (n == most || n == j->taken_cap[t]) {
		free(j->taken[t]);
		j->taken[t] = NULL;
		j->ntaken[t] = SIZE_MAX;
		return;
	}
	j->taken[t][j->ntaken[t]++] = m;
}

/* Tokens tok[0 .. nt), made from symbol `at` on, counted into mc and dc; their matches kept. */
static void count_tokens(struct lzs_job *j, size_t t, const struct gpz_lzs_token *tok, size_t nt,
                         uint64_t at, size_t most, uint32_t *mc, uint32_t *dc)
{
	for (size_t i = 0; i < nt; i++) {
		if (tok[i].len == 0) {
			mc[tok[i].sym]++;
			at++;
			continue;
		}
		if (tok[i].dist == 0) {
			mc[j->alphabet + gpz_lzs_bucket(tok[i].len - 1)]++;
			at += tok[i].len;
			continue;
		}
		mc[j->alphabet + NB + gpz_lzs_bucket(tok[i].len - GPZ_LZS_MIN_MATCH)]++;
		dc[gpz_lzs_bucket(tok[i].dist - 1)]++;
		keep_match(j, t, most, (struct gpz_lzs_taken){ at, tok[i].len, tok[i].dist });
		at += tok[i].len;
	}
}

/* Task t's chunks, counted: tokens a batch at a time (memory independent of the chunk size). */
static void count_task(void *v, size_t t)
{
	struct lzs_job *j = v;
	size_t c0, c1;
	uint32_t *head = calloc((size_t)1 << GPZ_LZS_HASH_LOG, sizeof(*head));
	struct gpz_lzs_token *tok = malloc(GPZ_LZS_BATCH * sizeof(*tok));
	uint32_t *mc = j->counts + t * ((size_t)j->alphabet + GPZ_LZS_EXTRA + NB);
	uint32_t *dc = mc + j->alphabet + GPZ_LZS_EXTRA;

	j->res[t] = head && tok ? GPZ_OK : GPZ_ERR_NOMEM;
	task_chunks(j, t, &c0, &c1);
	const size_t most = (((c1 - c0) << j->chunk_log) >> 4) + 1;
	for (size_t c = c0; j->res[t] == GPZ_OK && c < c1; c++) {
		size_t start = c << j->chunk_log, end = chunk_end(j, c), pos = start;
		while (pos < end) {
			size_t from = pos;
			size_t nt = gpz_lzs_tokens(j->src, j->w, start, end, &pos, j->z, head, tok,
			                           GPZ_LZS_BATCH);
			count_tokens(j, t, tok, nt, from, most, mc, dc);
		}
	}
	free(tok);
	free(head);
}

/* Task t's chunks, coded into a buffer of its own (grown as it fills, zeroed: the writer ORs). */
static void code_task(void *v, size_t t)
{
	struct lzs_job *j = v;
	size_t c0, c1, cap = 0, mi = 0;
	const int again = j->ntaken[t] != SIZE_MAX; /* from the matches kept, no table */
	uint32_t *head = again ? NULL : calloc((size_t)1 << GPZ_LZS_HASH_LOG, sizeof(*head));
	struct gpz_lzs_token *tok = malloc(GPZ_LZS_BATCH * sizeof(*tok));
	uint64_t bits = 0;
	uint8_t *buf = NULL;

	j->res[t] = (head || again) && tok ? GPZ_OK : GPZ_ERR_NOMEM;
	task_chunks(j, t, &c0, &c1);
	for (size_t c = c0; j->res[t] == GPZ_OK && c < c1; c++) {
		size_t start = c << j->chunk_log, end = chunk_end(j, c), pos = start;
		uint64_t first = bits;
		while (j->res[t] == GPZ_OK && pos < end) {
			size_t nt = again ? gpz_lzs_tokens_again(j->src, j->w, end, &pos, j->z,
			                                         j->taken[t], j->ntaken[t], &mi, tok,
			                                         GPZ_LZS_BATCH)
			                  : gpz_lzs_tokens(j->src, j->w, start, end, &pos, j->z, head,
			                                   tok, GPZ_LZS_BATCH);
			size_t need = (size_t)(bits / 8) + nt * GPZ_LZS_TOKEN_BITS / 8 + 16;
			if (need > cap) {
				size_t ncap = need > 2 * cap ? need : 2 * cap;
				uint8_t *nb = realloc(buf, ncap);
				if (!nb) {
					j->res[t] = GPZ_ERR_NOMEM;
					break;
				}
				memset(nb + cap, 0, ncap - cap);
				buf = nb;
				cap = ncap;
			}
			bits = gpz_lzs_put(j->code, tok, nt, buf, bits);
		}
		if (bits - first > UINT32_MAX)
			j->res[t] = GPZ_ERR_PARAM; /* cannot happen: the frame would not be chosen */
		j->chunk_bits[c] = (uint32_t)(bits - first);
	}
	j->bufs[t] = buf;
	j->task_bits[t] = bits;
	free(tok);
	free(head);
}

/* nbits bits of src at bit `at` of dst (zero from there on). */
static void append_bits(uint8_t *dst, uint64_t at, const uint8_t *src, uint64_t nbits)
{
	size_t nbytes = (size_t)((nbits + 7) / 8);
	unsigned s = (unsigned)(at % 8);
	uint8_t *d = dst + at / 8;
	if (!s) {
		memcpy(d, src, nbytes);
		return;
	}
	for (size_t k = 0; k < nbytes; k++) {
		d[k] |= (uint8_t)(src[k] >> s);
		if ((uint64_t)k * 8 + (8 - s) < nbits)
			d[k + 1] |= (uint8_t)(src[k] << (8 - s));
	}
}

/* Code lengths of one code into len (at most GPZ_MAX_CODE_LEN bits); a code of one used
 * symbol gets a second one (the format wants complete codes of two symbols at least).
 * Returns the longest length, 0 when no symbol is used, -1 when out of memory. */
static int lengths(const uint32_t *counts, uint32_t n, uint8_t *len)
{
	uint32_t used = 0, first = 0;
	for (uint32_t s = 0; s < n; s++)
		if (counts[s] && !used++)
			first = s;
	if (used == 0) {
		memset(len, 0, n);
		return 0;
	}
	if (used == 1) {
		memset(len, 0, n);
		len[first] = 1;
		len[first ? 0 : 1] = 1;
		return 1;
	}
	return gpz_code_lengths(counts, n, GPZ_MAX_CODE_LEN, len);
}

static uint64_t extra_bits(const uint32_t *counts)
{
	uint64_t b = 0;
	for (unsigned k = 0; k < NB; k++)
		b += (uint64_t)counts[k] * gpz_lzs_extra_bits(k);
	return b;
}

uint32_t gpz_lzs_run_symbol(const uint32_t *hist, uint32_t alphabet)
{
	uint32_t z = 0;
	for (uint32_t s = 1; s < alphabet; s++) /* the most frequent, ties to the smallest */
		z = hist[s] > hist[z] ? s : z;
	return z;
}

void gpz_lzs_plan_free(struct gpz_lzs_plan *pl)
{
	free(pl->mlen);
	free(pl->mtab);
	free(pl->head);
	memset(pl, 0, sizeof(*pl));
}

gpz_result gpz_lzs_plan_make(struct gpz_lzs_plan *pl, const gpz_params *p, size_t n,
                             uint32_t alphabet, uint32_t z, const uint32_t *counts)
{
	const uint32_t nm = alphabet + GPZ_LZS_EXTRA;
	const uint32_t *mc = counts, *dc = counts + nm;
	uint32_t *code = malloc(nm * sizeof(uint32_t)), dcode[NB];

	memset(pl, 0, sizeof(*pl));
	pl->alphabet = alphabet;
	pl->z = z;
	pl->nchunks = (size_t)gpz_frame_chunks(n, p->chunk_log);
	pl->mlen = malloc(nm);
	pl->mtab = malloc(nm * sizeof(uint32_t));
	if (!code || !pl->mlen || !pl->mtab)
		goto nomem;
	int ml = lengths(mc, nm, pl->mlen), dl = lengths(dc, NB, pl->dlen);
	if (ml < 0 || dl < 0)
		goto nomem;
	if (ml < 1) { /* one symbol value: a constant frame, written elsewhere */
		free(code);
		return GPZ_OK;
	}
	pl->has_dist = dl > 0;
	pl->bits = gpz_coded_bits(mc, pl->mlen, nm) + extra_bits(mc + alphabet) +
	           extra_bits(mc + alphabet + NB) + gpz_coded_bits(dc, pl->dlen, NB) +
	           extra_bits(dc);
	pl->head = malloc(GPZ_FRAME_HEADER_SIZE + CB_FIXED + gpz_lengths_bound(nm) +
	                  gpz_lengths_bound(NB));
	if (!pl->head)
		goto nomem;
	uint8_t *cb = pl->head + GPZ_FRAME_HEADER_SIZE;
	size_t k1 = gpz_lengths_write(pl->mlen, nm, cb + CB_FIXED);
	size_t k2 = pl->has_dist ? gpz_lengths_write(pl->dlen, NB, cb + CB_FIXED + k1) : 0;
	pl->cb = CB_FIXED + k1 + k2;
	pl->index_at = GPZ_FRAME_HEADER_SIZE + pl->cb;
	pl->check_at = pl->index_at + 4 * pl->nchunks;
	pl->pay_at = pl->check_at + GPZ_CHECK_SIZE;
	pl->payload = (size_t)((pl->bits + 7) / 8);
	pl->total = pl->pay_at + pl->payload + GPZ_CONTENT_SIZE;
	pl->max_len = ml > dl ? ml : dl;
	gpz_store_le32(cb, z);
	gpz_store_le32(cb + 4, (uint32_t)k1);
	uint8_t *h = pl->head;
	memset(h, 0, GPZ_FRAME_HEADER_SIZE);
	h[0] = GPZ_FRAME_LZSYM;
	h[1] = (uint8_t)p->symbol_bytes;
	h[2] = (uint8_t)p->chunk_log;
	h[3] = (uint8_t)pl->max_len;
	gpz_store_le32(h + 4, alphabet);
	gpz_store_le64(h + 8, n);
	gpz_store_le32(h + 16, (uint32_t)pl->cb);
	gpz_store_le64(h + 24, pl->payload);
	/* the encoder tables */
	gpz_canonical_codes(pl->mlen, nm, code);
	gpz_encoder_table(pl->mlen, code, nm, pl->mtab);
	if (pl->has_dist) {
		gpz_canonical_codes(pl->dlen, NB, dcode);
		gpz_encoder_table(pl->dlen, dcode, NB, pl->dtab);
	}
	free(code);
	return GPZ_OK;
nomem:
	free(code);
	gpz_lzs_plan_free(pl);
	return GPZ_ERR_NOMEM;
}

void gpz_lzs_plan_head(const struct gpz_lzs_plan *pl, const uint32_t *chunk_bits, uint8_t *dst)
{
	memcpy(dst, pl->head, pl->index_at);
	for (size_t c = 0; c < pl->nchunks; c++)
		gpz_store_le32(dst + pl->index_at + 4 * c, chunk_bits[c]);
	gpz_store_le32(dst + pl->check_at, gpz_header_check(dst, pl->check_at));
}

gpz_result gpz_lzs_frame_write(gpz_ctx *ctx, const gpz_params *p, const uint8_t *src, size_t n,
                               const uint32_t *hist, uint32_t alphabet, uint64_t sum, size_t beat,
                               uint8_t *dst, size_t cap, size_t *written)
{
	const uint32_t per = alphabet + GPZ_LZS_EXTRA + NB;
	struct lzs_job j = { src, p->symbol_bytes, p->chunk_log, n, gpz_frame_chunks(n, p->chunk_log),
		             0, alphabet, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	struct gpz_lzs_plan pl;
	gpz_result r = GPZ_OK;

	*written = 0;
	memset(&pl, 0, sizeof(pl));
	j.ntasks = ctx->nthreads > 1 ? (size_t)ctx->nthreads * 4 : 1;
	j.ntasks = j.ntasks < j.nchunks ? j.ntasks : j.nchunks;
	j.z = gpz_lzs_run_symbol(hist, alphabet);
	j.counts = calloc(j.ntasks * per, sizeof(uint32_t));
	j.res = calloc(j.ntasks, sizeof(*j.res));
	j.taken = calloc(j.ntasks, sizeof(*j.taken));
	j.ntaken = calloc(j.ntasks, sizeof(*j.ntaken));
	j.taken_cap = calloc(j.ntasks, sizeof(*j.taken_cap));
	if (!j.counts || !j.res || !j.taken || !j.ntaken || !j.taken_cap)
		r = GPZ_ERR_NOMEM;
	if (r == GPZ_OK)
		gpz_parallel_for(ctx->nthreads, j.ntasks, count_task, &j);
	for (size_t t = 0; r == GPZ_OK && t < j.ntasks; t++)
		r = j.res[t];
	for (size_t t = 1; r == GPZ_OK && t < j.ntasks; t++)
		for (uint32_t s = 0; s < per; s++)
			j.counts[s] += j.counts[t * per + s];
	if (r == GPZ_OK)
		r = gpz_lzs_plan_make(&pl, p, n, alphabet, j.z, j.counts);
	/* one value (a constant frame), or not smaller: the caller writes its own plan */
	if (r != GPZ_OK || pl.max_len < 1 || pl.total >= beat)
		goto done;
	if (pl.total > cap) {
		r = GPZ_ERR_DST_TOO_SMALL;
		goto done;
	}
	struct gpz_lzs_code code = { alphabet, j.z, pl.mtab, pl.dtab };
	j.code = &code;
	j.bufs = calloc(j.ntasks, sizeof(*j.bufs));
	j.task_bits = calloc(j.ntasks, sizeof(*j.task_bits));
	j.chunk_bits = malloc(j.nchunks * sizeof(*j.chunk_bits));
	if (!j.bufs || !j.task_bits || !j.chunk_bits)
		r = GPZ_ERR_NOMEM;
	if (r == GPZ_OK)
		gpz_parallel_for(ctx->nthreads, j.ntasks, code_task, &j);
	uint64_t at = 0;
	memset(dst + pl.pay_at, 0, pl.payload);
	for (size_t t = 0; r == GPZ_OK && t < j.ntasks; t++) {
		r = j.res[t];
		if (r == GPZ_OK && at + j.task_bits[t] > pl.bits)
			r = GPZ_ERR_PARAM; /* cannot happen: the counts and the coder disagree */
		if (r == GPZ_OK)
			append_bits(dst + pl.pay_at, at, j.bufs[t], j.task_bits[t]);
		at += j.task_bits[t];
	}
	if (r == GPZ_OK && at != pl.bits)
		r = GPZ_ERR_PARAM;
	if (r == GPZ_OK) {
		gpz_lzs_plan_head(&pl, j.chunk_bits, dst);
		gpz_store_le64(dst + pl.pay_at + pl.payload, sum);
		*written = pl.total;
	}
	for (size_t t = 0; j.bufs && t < j.ntasks; t++)
		free(j.bufs[t]);
	free(j.bufs);
	free(j.task_bits);
	free(j.chunk_bits);
done:
	for (size_t t = 0; j.taken && t < j.ntasks; t++)
		free(j.taken[t]);
	free(j.taken);
	free(j.ntaken);
	free(j.taken_cap);
	gpz_lzs_plan_free(&pl);
	free(j.counts);
	free(j.res);
	return r;
}

/* ---- reading ---- */

struct lzs_read {
	const struct gpz_lzs_decoders *dec;
	const uint8_t *payload;
	size_t payload_bytes, n;
	const uint64_t *starts;
	int w, chunk_log;
	uint8_t *dst;
	gpz_result *res;
};

static void decode_task(void *v, size_t c)
{
	const struct lzs_read *rd = v;
	size_t c0 = c << rd->chunk_log, m = ((size_t)1 << rd->chunk_log);
	m = rd->n - c0 < m ? rd->n - c0 : m;
	rd->res[c] = gpz_lzs_decode_chunk(rd->dec, rd->payload, rd->payload_bytes, rd->starts[c],
	                                  rd->starts[c + 1], m, rd->w,
	                                  rd->dst + c0 * (size_t)rd->w);
}

/* The codebook section: z, the main code (alphabet + 96 lengths in exactly k1 bytes) and the
 * distance code (48 lengths in the rest, or none), each complete; the longest length must be
 * max_len; without a distance code no match length may have a code. */
static gpz_result read_codes(const uint8_t *cb, size_t cb_bytes, const gpz_block_info *in,
                             uint8_t *mlen, uint8_t *dlen, uint32_t *z, int *has_dist)
{
	uint32_t nm = in->alphabet + GPZ_LZS_EXTRA, k1;
	size_t used = 0;
	int longest = 0;

	if (cb_bytes < CB_FIXED + 1)
		return GPZ_ERR_CORRUPT;
	*z = gpz_load_le32(cb);
	k1 = gpz_load_le32(cb + 4);
	if (*z >= in->alphabet || k1 == 0 || k1 > cb_bytes - CB_FIXED)
		return GPZ_ERR_CORRUPT;
	if (gpz_lengths_read(cb + CB_FIXED, k1, nm, mlen, &used) != GPZ_OK || used != k1 ||
	    gpz_lengths_check(mlen, nm) != GPZ_OK)
		return GPZ_ERR_CORRUPT;
	*has_dist = cb_bytes > CB_FIXED + k1;
	memset(dlen, 0, NB);
	if (*has_dist) {
		size_t k2 = cb_bytes - CB_FIXED - k1;
		if (gpz_lengths_read(cb + CB_FIXED + k1, k2, NB, dlen, &used) != GPZ_OK ||
		    used != k2 || gpz_lengths_check(dlen, NB) != GPZ_OK)
			return GPZ_ERR_CORRUPT;
	} else {
		for (uint32_t s = in->alphabet + NB; s < nm; s++)
			if (mlen[s])
				return GPZ_ERR_CORRUPT;
	}
	for (uint32_t s = 0; s < nm; s++)
		longest = mlen[s] > longest ? mlen[s] : longest;
	for (unsigned s = 0; s < NB; s++)
		longest = dlen[s] > longest ? dlen[s] : longest;
	return longest == in->max_code_len ? GPZ_OK : GPZ_ERR_CORRUPT;
}

void gpz_lzs_reader_close(struct gpz_lzs_reader *rd)
{
	if (rd->have_main)
		gpz_decoder_free(&rd->main);
	if (rd->have_dist)
		gpz_decoder_free(&rd->dist);
	free(rd->literals);
	free(rd->starts);
	memset(rd, 0, sizeof(*rd));
}

gpz_result gpz_lzs_reader_open(struct gpz_lzs_reader *rd, const uint8_t *s,
                               const gpz_block_info *in)
{
	size_t cb_bytes = gpz_load_le32(s + 16);
	size_t n = (size_t)(in->content_bytes / (uint64_t)in->symbol_bytes);
	size_t nchunks = (size_t)gpz_frame_chunks(n, in->chunk_log), m = (size_t)1 << in->chunk_log;
	const uint8_t *index = s + GPZ_FRAME_HEADER_SIZE + cb_bytes;
	uint8_t *mlen = malloc(in->alphabet + GPZ_LZS_EXTRA), dlen[NB];
	uint32_t z = 0;
	int has_dist = 0;

	memset(rd, 0, sizeof(*rd));
	rd->starts = malloc((nchunks + 1) * sizeof(*rd->starts));
	rd->nchunks = nchunks;
	rd->payload_bytes = (size_t)gpz_load_le64(s + 24);
	rd->payload_at = GPZ_FRAME_HEADER_SIZE + cb_bytes + 4 * nchunks + GPZ_CHECK_SIZE;
	gpz_result r = mlen && rd->starts ? GPZ_OK : GPZ_ERR_NOMEM;
	if (r == GPZ_OK)
		r = read_codes(s + GPZ_FRAME_HEADER_SIZE, cb_bytes, in, mlen, dlen, &z, &has_dist);
	/* chunk starts: each chunk at least a bit, at most its symbols' worst tokens */
	for (size_t c = 0; r == GPZ_OK && c < nchunks; c++) {
		uint64_t mc = n - c * m < m ? n - c * m : m, bits = gpz_load_le32(index + 4 * c);
		if (c == 0)
			rd->starts[0] = 0;
		if (bits < 1 || bits > mc * GPZ_LZS_TOKEN_BITS)
			r = GPZ_ERR_CORRUPT;
		rd->starts[c + 1] = rd->starts[c] + bits;
	}
	if (r == GPZ_OK && (rd->starts[nchunks] + 7) / 8 != rd->payload_bytes)
		r = GPZ_ERR_CORRUPT;
	if (r == GPZ_OK &&
	    (r = gpz_decoder_init(&rd->main, mlen, in->alphabet + GPZ_LZS_EXTRA, 4)) == GPZ_OK)
		rd->have_main = 1;
	if (r == GPZ_OK && has_dist && (r = gpz_decoder_init(&rd->dist, dlen, NB, 4)) == GPZ_OK)
		rd->have_dist = 1;
	free(mlen);
	if (r != GPZ_OK) {
		gpz_lzs_reader_close(rd);
		return r;
	}
	if (in->symbol_bytes <= 2) {
		rd->literals = malloc(((size_t)1 << GPZ_DECODE_TABLE_BITS) * sizeof(uint64_t));
		if (!rd->literals) {
			gpz_lzs_reader_close(rd);
			return GPZ_ERR_NOMEM;
		}
		/* runs of 1-4 symbols have no extra bits: the table takes them too */
		const struct gpz_multi_runs runs = { in->alphabet, 4, z };
		gpz_multi_table(&rd->main, in->alphabet, in->symbol_bytes, &runs, rd->literals);
	}
	rd->dec = (struct gpz_lzs_decoders){ in->alphabet, z, &rd->main,
		                             has_dist ? &rd->dist : NULL, rd->literals };
	return GPZ_OK;
}

gpz_result gpz_lzs_frame_decode(gpz_ctx *ctx, const uint8_t *s, const gpz_block_info *in,
                                uint8_t *dst)
{
	size_t n = (size_t)(in->content_bytes / (uint64_t)in->symbol_bytes);
	struct gpz_lzs_reader rd;
	gpz_result r = gpz_lzs_reader_open(&rd, s, in), *res = NULL;

	if (r != GPZ_OK)
		return r;
	const uint8_t *pay = s + rd.payload_at;
	if (!gpz_frame_padding_ok(pay[rd.payload_bytes - 1], rd.payload_bytes, rd.starts[rd.nchunks]))
		r = GPZ_ERR_CORRUPT;
	if (r == GPZ_OK && !(res = malloc(rd.nchunks * sizeof(*res))))
		r = GPZ_ERR_NOMEM;
	if (r == GPZ_OK) {
		struct lzs_read job = { &rd.dec, pay, rd.payload_bytes, n, rd.starts,
			                in->symbol_bytes, in->chunk_log, dst, res };
		gpz_parallel_for(ctx->nthreads, rd.nchunks, decode_task, &job);
		for (size_t c = 0; r == GPZ_OK && c < rd.nchunks; c++)
			r = res[c];
	}
	free(res);
	gpz_lzs_reader_close(&rd);
	return r;
}
