/* lzsym_tiles.c - the GPU tokenizer's algorithm (src/lzsym/tokens.cu) run on the CPU, one
 * warp's 32 lanes as arrays, so that CI holds it to the CPU tokenizer (gpz_lzs_tokens) token for
 * token without a GPU, as lz_edge does for the DEFLATE parse. The steps and names follow
 * tokens_kernel: the 512-byte all-z test, then per tile of 32 positions: 1. candidates (the last
 * earlier lane of the same bucket, else the table) and the tile entering the table, 2. the
 * matches taken in lane order, 3. free positions, run starts and the tokens, a run still open at
 * the tile's end carried into the next. A change to either side that the other does not follow
 * fails here. */
#include "lzsym_tiles.h"
#include "common/bits.h"

#include <stdlib.h>
#include <string.h>

#define LANES 32

static uint32_t hash4(const uint8_t *src, size_t i, int w)
{
	return gpz_lzs_hash_syms(gpz_load_symbol(src, i, w), gpz_load_symbol(src, i + 1, w),
	                         gpz_load_symbol(src, i + 2, w), gpz_load_symbol(src, i + 3, w), w);
}

static unsigned top_bit(uint32_t x) /* x != 0 */
{
	return 31u - (unsigned)__builtin_clz(x);
}

static unsigned low_bit(uint32_t x) /* x != 0 */
{
	return (unsigned)__builtin_ctz(x);
}

/* measure(): the warp compares 32 symbols a step. */
static void measure(const uint8_t *src, int w, uint32_t z, size_t a, size_t b, size_t maxlen,
                    uint32_t *len, uint32_t *alt)
{
	uint32_t l = 0, t = 0;
	int prev_nz = 1;
	for (size_t off = 0; off < maxlen; off += LANES) {
		uint32_t ne = 0, ynz = 0, tm = 0;
		for (unsigned ln = 0; ln < LANES; ln++) {
			size_t k = off + ln;
			int in = k < maxlen;
			uint32_t x = in ? gpz_load_symbol(src, a + k, w) : 0;
			uint32_t y = in ? gpz_load_symbol(src, b + k, w) : 0;
			ne |= (uint32_t)(!in || x != y) << ln;
			ynz |= (uint32_t)(y != z) << ln;
		}
		unsigned eq = ne ? low_bit(ne) : LANES;
		for (unsigned ln = 0; ln < LANES; ln++) {
			int pn = ln ? (int)(ynz >> (ln - 1)) & 1 : prev_nz;
			tm |= (uint32_t)(ln < eq && (((ynz >> ln) & 1u) || pn)) << ln;
		}
		t += (uint32_t)__builtin_popcount(tm);
		l += eq;
		if (eq < LANES)
			break;
		prev_nz = (int)(ynz >> 31);
	}
	*len = l;
	*alt = t;
}

static void put(struct gpz_lzs_token *out, size_t *n, uint32_t sym, uint32_t len, uint32_t dist)
{
	out[(*n)++] = (struct gpz_lzs_token){ sym, len, dist };
}

size_t lzsym_tile_tokens(const uint8_t *src, int w, size_t c0, size_t c1, uint32_t z,
                         struct gpz_lzs_token *out)
{
	uint32_t *head = calloc((size_t)1 << GPZ_LZS_HASH_LOG, sizeof(*head));
	const size_t wide = 512 / (size_t)w;
	size_t n = 0, cov = c0, run_from = 0, step = LANES, next_wide = c0;
	int run_open = 0, last_free = 0, last_nz = 1;

	if (!head)
		return (size_t)-1;
	for (size_t t0 = c0; t0 < c1; t0 += step) {
		step = LANES;
		if (t0 >= next_wide && c1 - t0 >= wide) { /* 512 bytes of z only? */
			int other = 0;
			for (size_t k = t0; k < t0 + wide && !other; k++)
				other = gpz_load_symbol(src, k, w) != z;
			if (!other) {
				if (!run_open && cov < t0 + wide) {
					run_open = 1;
					run_from = cov > t0 ? cov : t0;
				}
				last_free = cov < t0 + wide;
				last_nz = 0;
				step = wide;
				continue;
			}
			next_wide = t0 + wide;
		}
		const size_t tend = c1 - t0 < LANES ? c1 : t0 + LANES;
		uint32_t s[LANES], h[LANES], cand[LANES] = { 0 }, key[LANES], nzm = 0;
		int valid[LANES], nz[LANES], hl[LANES];
		for (unsigned ln = 0; ln < LANES; ln++) {
			size_t i = t0 + ln;
			valid[ln] = i < c1;
			s[ln] = valid[ln] ? gpz_load_symbol(src, i, w) : z;
			nz[ln] = valid[ln] && s[ln] != z;
			nzm |= (uint32_t)nz[ln] << ln;
		}
		if (nzm == 0) { /* all z: an open run goes on, else one begins at the first free */
			if (!run_open && cov < tend) {
				run_open = 1;
				run_from = cov > t0 ? cov : t0;
			}
			last_free = cov < tend;
			last_nz = 0;
			continue;
		}
		/* 1. candidates, then the tile enters the table (the last lane of a bucket writes) */
		for (unsigned ln = 0; ln < LANES; ln++) {
			size_t i = t0 + ln;
			hl[ln] = nz[ln] && c1 - i >= GPZ_LZS_MATCH_MIN;
			h[ln] = hl[ln] ? hash4(src, i, w) : 0;
			key[ln] = hl[ln] ? h[ln] : 0x80000000u | ln;
		}
		uint32_t grp[LANES];
		for (unsigned ln = 0; ln < LANES; ln++) {
			grp[ln] = 0;
			for (unsigned k = 0; k < LANES; k++)
				grp[ln] |= (uint32_t)(key[k] == key[ln]) << k;
		}
		for (unsigned ln = 0; ln < LANES; ln++) {
			uint32_t pred = grp[ln] & ((1u << ln) - 1);
			if (hl[ln])
				cand[ln] = pred ? (uint32_t)(t0 - c0) + top_bit(pred) + 1 : head[h[ln]];
		}
		for (unsigned ln = 0; ln < LANES; ln++)
			if (hl[ln] && !(grp[ln] >> ln >> 1))
				head[h[ln]] = (uint32_t)(t0 + ln - c0) + 1;
		/* 2. the matches taken, in order */
		const size_t cov_in = cov;
		uint32_t m = 0, taken = 0, my_len[LANES] = { 0 }, my_dist[LANES] = { 0 };
		for (unsigned ln = 0; ln < LANES; ln++)
			m |= (uint32_t)(cand[ln] != 0) << ln;
		for (; m; m &= m - 1) {
			unsigned l = low_bit(m);
			size_t il = t0 + l, pl = c0 + cand[l] - 1;
			uint32_t len, alt;
			if (il < cov)
				continue;
			measure(src, w, z, pl, il, c1 - il, &len, &alt);
			if (len >= GPZ_LZS_MATCH_MIN && alt >= GPZ_LZS_MATCH_TOKENS) {
				taken |= 1u << l;
				cov = il + len;
				my_len[l] = len;
				my_dist[l] = (uint32_t)(il - pl);
			}
		}
		/* 3. free positions, run starts, tokens */
		uint32_t frm = 0, rsm = 0;
		for (unsigned ln = 0; ln < LANES; ln++) {
			uint32_t tb = taken & ((1u << ln) - 1);
			size_t i = t0 + ln;
			int fr = valid[ln] && (tb ? i >= t0 + top_bit(tb) + my_len[top_bit(tb)] : i >= cov_in);
			frm |= (uint32_t)fr << ln;
		}
		for (unsigned ln = 0; ln < LANES; ln++) {
			int pfree = ln ? (int)(frm >> (ln - 1)) & 1 : last_free;
			int pnz = ln ? (int)(nzm >> (ln - 1)) & 1 : last_nz;
			rsm |= (uint32_t)(((frm >> ln) & 1u) && !nz[ln] && (!pfree || pnz)) << ln;
		}
		if (run_open) { /* closed by the tile's first symbol not z */
			put(out, &n, z, (uint32_t)(t0 + low_bit(nzm) - run_from), 0);
			run_open = 0;
		}
		for (unsigned ln = 0; ln < LANES; ln++) {
			uint32_t after = nzm & ~(uint32_t)((2ull << ln) - 1);
			if (((frm >> ln) & 1u) && nz[ln])
				put(out, &n, (taken >> ln) & 1u ? 0 : s[ln], (taken >> ln) & 1u ? my_len[ln] : 0,
				    my_dist[ln]);
			else if (((rsm >> ln) & 1u) && after)
				put(out, &n, z, low_bit(after) - ln, 0);
		}
		if (rsm) { /* the tile's last run start with no symbol not z after it stays open */
			unsigned lr = top_bit(rsm);
			if (!(nzm & ~(uint32_t)((2ull << lr) - 1))) {
				run_open = 1;
				run_from = t0 + lr;
			}
		}
		last_free = (int)(frm >> 31);
		last_nz = (int)(nzm >> 31);
	}
	if (run_open)
		put(out, &n, z, (uint32_t)(c1 - run_from), 0);
	free(head);
	return n;
}
