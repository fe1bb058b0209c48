/* spec_sim.c - GPU inflate's speculative rounds (src/deflate/inflate.cu, codes_spec), replayed on
 * the CPU over gpz-written gzip, to count what the pieces kernel does with its tokens without
 * a GPU (issue 11): how rounds end, tokens decoded against tokens on the true path, the lockstep
 * share, lanes on the path. The rules are the kernel's: 32 lanes start SPEC_R bits apart, each
 * decodes its stretch (phase 1, up to CAP tokens; an invalid code takes 1 bit and restarts),
 * then on past it until a start that the lane of that stretch also decoded (phase 2); the true
 * path runs from lane 0 through the sync points; a lane keeps its first two end-of-block or
 * invalid codes (marks). Every round's kept tokens are checked against a plain decode of the
 * piece, so a rule replayed wrong shows as a mismatch, not as a quiet wrong count.
 * Not replayed: the lockstep decoder's own rounds (counted as tokens), the warp's timing; a
 * piece's "work" is a rough model in warp steps, read only as the slowest piece against the
 * mean (the kernel runs all pieces at once, so the slowest sets its time). SPEC_SIM_MIB=N tiles
 * the input to N MiB first, as gpz-bench does (its pieces then fall elsewhere in the data).
 * First run: twenty-seventh session (bench/NOTES.md).
 *
 * Built against the library:
 *   cc -O2 -Iinclude -Isrc bench/probe/spec_sim.c build-cpu/libgpz.a -lpthread -lz -lxxhash \
 *      -lm -o /tmp/spec_sim
 * Usage: spec_sim FILE LEVEL [SPEC_R CAP MARKS [ROOT]]   (defaults: main's 384 128 2 10) */
#include "gpz.h"
#include "common/bits.h"
#include "deflate/deflate.h"
#include "lz/dfl_symbols.h"
#include "probe_gzip.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TOKEN, EOB, BAD, LOST };
#define LANES 32
#define MAXB 15

static unsigned spec_r = 384, cap_tok = 128, keep_marks = 2;
static unsigned root_bits = 10; /* the kernel's root tables: longer codes take a canonical search */
static int long_code; /* the last token_at met a code longer than root_bits */

/* A code as a full 15-bit table: symbol << 4 | length, 0 where no code starts. */
struct code {
	uint16_t t[1u << MAXB];
};

static int build(struct code *c, const uint8_t *lens, unsigned n)
{
	unsigned cnt[MAXB + 1] = { 0 }, next[MAXB + 2], code = 0;
	memset(c->t, 0, sizeof(c->t));
	for (unsigned s = 0; s < n; s++)
		cnt[lens[s]]++;
	cnt[0] = 0;
	for (unsigned l = 1; l <= MAXB; l++) {
		code = (code + cnt[l - 1]) << 1;
		next[l] = code;
	}
	for (unsigned s = 0; s < n; s++) {
		unsigned l = lens[s], r = 0, v;
		if (!l)
			continue;
		v = next[l]++;
		for (unsigned i = 0; i < l; i++)
			r |= ((v >> i) & 1) << (l - 1 - i);
		for (unsigned i = r; i < (1u << MAXB); i += 1u << l)
			c->t[i] = (uint16_t)(s << 4 | l);
	}
	return 0;
}

/* The piece's bits: bit x of the piece, 32 bits from x (zeros past the end). */
struct bits {
	const uint8_t *p;
	uint64_t nbits;
};

static uint32_t peek(const struct bits *b, uint64_t x)
{
	uint64_t v = 0;
	for (unsigned k = 0; k < 6; k++) {
		uint64_t byte = (x >> 3) + k;
		if (byte * 8 < b->nbits)
			v |= (uint64_t)b->p[byte] << (8 * k);
	}
	return (uint32_t)(v >> (x & 7));
}

/* The token at bit x, as the kernel's spec_token decodes it: kind, *adv bits, *tok. */
static unsigned token_at(const struct bits *b, const struct code *lit, const struct code *dist,
                         uint64_t x, unsigned *adv, uint32_t *tok)
{
	uint32_t w = peek(b, x);
	unsigned e = lit->t[w & 0x7fff], l = e & 15, s = e >> 4;
	long_code = l > root_bits;
	*adv = e ? l : 1;
	if (!e || s > 285)
		return BAD;
	if (s <= 256) {
		*tok = s;
		return s == 256 ? EOB : TOKEN;
	}
	unsigned eb = gpz_dfl_len_extra(s - 257);
	unsigned len = gpz_dfl_len_base(s - 257) + ((w >> l) & ((1u << eb) - 1));
	uint32_t w2 = peek(b, x + l + eb);
	unsigned ed = dist->t[w2 & 0x7fff], dl = ed & 15, d = ed >> 4;
	long_code |= dl > root_bits;
	if (!ed || d > 29) {
		*adv = 1;
		return BAD;
	}
	unsigned db = gpz_dfl_dist_extra(d);
	*tok = len << 16 | (gpz_dfl_dist_base(d) + ((w2 >> dl) & ((1u << db) - 1)));
	*adv = l + eb + dl + db;
	return TOKEN;
}

static struct {
	uint64_t pieces, blocks, stored, rounds, decoded, kept, lock_tokens, lanes_on_path;
	uint64_t end[4], end_full, end_ended, end_unsynced, redo, mismatches, true_tokens;
	uint64_t steps, long_steps, long_tokens; /* phase 1 in lockstep: steps, those with a long code */
} st;
static uint8_t *long_at; /* phase 1's step t: some lane's token had a long code */
/* A piece's work in warp steps, a rough model of the kernel's: phase 1 and phase 2 in lockstep
 * (the longest lane sets the steps), a flush step a 32 output symbols, a batch a 32 kept
 * tokens, and a lockstep token each for blocks handed over. Only the ratio of the slowest piece
 * to the mean is read from it: the kernel runs every piece at once, and the slowest sets its
 * time. */
static double piece_work, piece_lock, piece_best; /* as run; all lockstep; the better a block */

static unsigned out_syms(uint32_t tok)
{
	return tok >> 16 ? tok >> 16 : 1;
}

struct lane {
	uint64_t s0, b, as;
	uint32_t cnt, a, at;
	uint32_t *tok;
	uint64_t *starts; /* bit o of the stretch: a token of this lane starts there */
	int full, synced, ended, on, tgt;
	unsigned nm, mk_kind[8];
	uint32_t mk_idx[8];
	uint64_t mk_at[8];
	unsigned mk_adv[8];
};

/* One Huffman block from bit *x: rounds until its end of block, checked against ref (the
 * block's true tokens, nref of them, ending with the end of block). */
static int block(const struct bits *b, const struct code *lit, const struct code *dist,
                 uint64_t *x, const uint32_t *ref, uint64_t nref, uint64_t *pos_tok,
                 struct lane *ln)
{
	uint64_t P = *x, done = 0; /* true tokens of the block taken so far */
	for (;;) {
		st.rounds++;
		unsigned steps = 0;
		memset(long_at, 0, cap_tok);
		for (int i = 0; i < LANES; i++) { /* phase 1 */
			struct lane *L = &ln[i];
			L->s0 = P + (uint64_t)i * spec_r;
			L->b = L->s0;
			L->cnt = 0;
			L->nm = 0;
			L->synced = L->on = 0;
			memset(L->starts, 0, (spec_r + 63) / 64 * 8);
			while (L->b < L->s0 + spec_r && L->cnt < cap_tok) {
				unsigned adv, kind;
				uint32_t tok = 0;
				uint64_t o = L->b - L->s0;
				L->starts[o >> 6] |= 1ull << (o & 63);
				kind = token_at(b, lit, dist, L->b, &adv, &tok);
				long_at[L->cnt] |= (uint8_t)long_code;
				st.long_tokens += long_code;
				L->tok[L->cnt] = tok;
				if (kind != TOKEN && L->nm < keep_marks) {
					L->mk_idx[L->nm] = L->cnt;
					L->mk_kind[L->nm] = kind;
					L->mk_at[L->nm] = L->b;
					L->mk_adv[L->nm] = adv;
				}
				L->nm += kind != TOKEN;
				L->cnt++;
				L->b += adv;
			}
			L->full = L->b < L->s0 + spec_r;
			steps = L->cnt > steps ? L->cnt : steps;
			L->ended = i == LANES - 1 && !L->full;
		}
		st.steps += steps;
		piece_work += steps;
		for (unsigned t = 0; t < steps; t++)
			st.long_steps += long_at[t];
		unsigned p2 = 0;
		for (int i = 0; i < LANES - 1; i++) { /* phase 2 */
			struct lane *L = &ln[i];
			const uint32_t c1 = L->cnt;
			if (L->full)
				continue;
			while (L->cnt < cap_tok) {
				uint64_t rel = L->b - P, j = rel / spec_r, o = rel - j * spec_r;
				unsigned adv, kind;
				uint32_t tok = 0;
				if (j >= LANES) {
					L->ended = 1;
					break;
				}
				if (ln[j].starts[o >> 6] >> (o & 63) & 1) {
					L->synced = 1;
					L->tgt = (int)j;
					break;
				}
				p2 = L->cnt + 1 - c1 > p2 ? L->cnt + 1 - c1 : p2;
				kind = token_at(b, lit, dist, L->b, &adv, &tok);
				L->tok[L->cnt++] = tok;
				if (kind != TOKEN) {
					if (L->nm < keep_marks) {
						L->mk_idx[L->nm] = L->cnt - 1;
						L->mk_kind[L->nm] = kind;
						L->mk_at[L->nm] = L->b;
						L->mk_adv[L->nm] = adv;
					}
					L->nm++;
					break;
				}
				L->b += adv;
			}
		}
		piece_work += p2;
		for (int i = 0; i < LANES; i++) { /* the index of the sync point in tgt's tokens */
			struct lane *L = &ln[i];
			L->at = 0;
			if (L->synced) {
				uint64_t o = L->b - P - (uint64_t)L->tgt * spec_r;
				for (uint64_t q = 0; q < o; q++)
					L->at += (uint32_t)(ln[L->tgt].starts[q >> 6] >> (q & 63) & 1);
			}
		}
		/* the true path: lane 0, then the lane it synced into, and so on */
		ln[0].on = 1;
		ln[0].a = 0;
		ln[0].as = P;
		for (int cur = 0; ln[cur].synced;) {
			int nx = ln[cur].tgt;
			ln[nx].on = 1;
			ln[nx].a = ln[cur].at;
			ln[nx].as = ln[cur].b;
			cur = nx;
		}
		/* the first lane on the path that ends the round, and what it writes */
		int Lc = -1;
		unsigned kind = TOKEN;
		int marked = 0;
		uint32_t midx = 0;
		for (int i = 0; i < LANES && Lc < 0; i++) {
			struct lane *L = &ln[i];
			if (!L->on)
				continue;
			st.lanes_on_path++;
			unsigned k = TOKEN;
			int m = 0;
			for (unsigned q = 0; q < L->nm && q < keep_marks && !m; q++)
				if (L->mk_idx[q] >= L->a) {
					m = 1;
					k = L->mk_kind[q];
					midx = L->mk_idx[q];
				}
			if (!m && L->nm > keep_marks)
				k = LOST;
			if (k != TOKEN || !L->synced) {
				Lc = i;
				kind = k;
				marked = m;
			}
		}
		uint64_t next;
		struct lane *E = &ln[Lc];
		if (kind == TOKEN) {
			next = E->b;
			if (E->full)
				st.end_full++;
			else if (E->ended)
				st.end_ended++;
			else
				st.end_unsynced++;
		} else if (kind == EOB) {
			uint64_t at = 0;
			unsigned adv = 0;
			for (unsigned q = 0; q < E->nm && q < keep_marks; q++)
				if (E->mk_idx[q] == midx) {
					at = E->mk_at[q];
					adv = E->mk_adv[q];
				}
			next = at + adv;
		} else {
			next = E->as;
			if (marked)
				for (unsigned q = 0; q < E->nm && q < keep_marks; q++)
					if (E->mk_idx[q] == midx)
						next = E->mk_at[q];
		}
		st.end[kind]++;
		const uint64_t done0 = done;
		/* the kept tokens, lane by lane along the path, against the true ones */
		for (int i = 0; i <= Lc; i++) {
			struct lane *L = &ln[i];
			uint32_t c = 0;
			st.decoded += L->cnt;
			if (!L->on)
				continue;
			if (i < Lc)
				c = L->cnt - L->a;
			else
				c = marked ? midx - L->a : kind != TOKEN ? 0 : L->cnt - L->a;
			for (uint32_t q = 0; q < c; q++, done++) {
				if (done >= nref || ref[done] != L->tok[L->a + q])
					st.mismatches++;
				piece_work += out_syms(L->tok[L->a + q]) / 32.0 + 1 / 32.0;
			}
			st.kept += c;
		}
		for (int i = Lc + 1; i < LANES; i++)
			st.decoded += ln[i].cnt;
		if (kind == EOB) {
			if (done + 1 != nref)
				st.mismatches++;
			*x = next;
			*pos_tok += nref;
			return 0;
		}
		if (next > b->nbits) { /* the round again in lockstep, and the rest of the block */
			st.kept -= done - done0;
			done = done0;
			st.redo++;
		}
		if (kind == BAD || next == P || next > b->nbits) { /* lockstep to the block's end */
			st.lock_tokens += nref - done;
			for (uint64_t q = done; q < nref; q++)
				piece_work += 1 + out_syms(ref[q]) / 32.0;
			*pos_tok += nref;
			return 1; /* the caller moves past the block with its plain decode */
		}
		P = next;
	}
}

/* The tokens of one Huffman block by a plain decode from *x (to just past its end of block). */
static uint64_t plain(const struct bits *b, const struct code *lit, const struct code *dist,
                      uint64_t *x, uint32_t **ref, uint64_t *cap)
{
	uint64_t n = 0;
	for (;;) {
		unsigned adv, kind;
		uint32_t tok = 0;
		kind = token_at(b, lit, dist, *x, &adv, &tok);
		if (kind == BAD)
			return (uint64_t)-1;
		if (n == *cap) {
			*cap = *cap ? 2 * *cap : 4096;
			*ref = realloc(*ref, *cap * sizeof(**ref));
		}
		(*ref)[n++] = kind == EOB ? 256 : tok;
		*x += adv;
		if (kind == EOB)
			return n;
	}
}

static uint32_t getbits(const struct bits *b, uint64_t *x, unsigned n)
{
	uint32_t v = peek(b, *x) & ((1u << n) - 1);
	*x += n;
	return v;
}

/* A piece: its blocks, each Huffman block through the rounds. */
static int piece(const struct bits *b, struct lane *ln)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
	static struct code lit, dist, clc;
	static uint32_t *ref;
	static uint64_t refcap;
	uint64_t x = 0, pos_tok = 0;
	for (;;) {
		if (x + 3 > b->nbits)
			return 0;
		unsigned last = getbits(b, &x, 1), type = getbits(b, &x, 2);
		uint8_t lens[320];
		st.blocks++;
		if (type == 0) {
			x = (x + 7) & ~(uint64_t)7;
			unsigned len = getbits(b, &x, 16);
			getbits(b, &x, 16);
			x += (uint64_t)len * 8;
			st.stored++;
		} else if (type == 1) {
			for (unsigned s = 0; s < 288; s++)
				lens[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
			build(&lit, lens, 288);
			memset(lens, 5, 32);
			build(&dist, lens, 32);
		} else if (type == 2) {
			unsigned nlit = getbits(b, &x, 5) + 257, ndist = getbits(b, &x, 5) + 1;
			unsigned ncl = getbits(b, &x, 4) + 4, i = 0;
			uint8_t cl[19] = { 0 };
			for (unsigned k = 0; k < ncl; k++)
				cl[order[k]] = (uint8_t)getbits(b, &x, 3);
			build(&clc, cl, 19);
			while (i < nlit + ndist) {
				unsigned e = clc.t[peek(b, x) & 0x7fff], s = e >> 4, rep, v = 0;
				if (!e)
					return -1;
				x += e & 15;
				if (s < 16) {
					lens[i++] = (uint8_t)s;
					continue;
				}
				if (s == 16) {
					v = lens[i - 1];
					rep = 3 + getbits(b, &x, 2);
				} else {
					rep = s == 17 ? 3 + getbits(b, &x, 3) : 11 + getbits(b, &x, 7);
				}
				while (rep-- && i < nlit + ndist)
					lens[i++] = (uint8_t)v;
			}
			build(&lit, lens, nlit);
			build(&dist, lens + nlit, ndist);
		} else {
			return -1;
		}
		if (type != 0) {
			uint64_t y = x, n = plain(b, &lit, &dist, &y, &ref, &refcap);
			if (n == (uint64_t)-1)
				return -1;
			st.true_tokens += n;
			double w0 = piece_work, lock = 0;
			for (uint64_t q = 0; q < n; q++)
				lock += 1 + out_syms(ref[q]) / 32.0;
			if (block(b, &lit, &dist, &x, ref, n, &pos_tok, ln) || x != y)
				x = y; /* handed to lockstep: the block's end from the plain decode */
			piece_lock += lock;
			piece_best += piece_work - w0 < lock ? piece_work - w0 : lock;
		}
		if (last)
			return 0;
	}
}

int main(int argc, char **argv)
{
	size_t clen = 0;
	struct gpz_gzip_member m;
	if (argc < 3) {
		fprintf(stderr, "usage: spec_sim FILE LEVEL [SPEC_R CAP MARKS]\n");
		return 2;
	}
	if (argc > 5) {
		spec_r = (unsigned)atoi(argv[3]);
		cap_tok = (unsigned)atoi(argv[4]);
		keep_marks = (unsigned)atoi(argv[5]);
		if (keep_marks > 7 || !spec_r || !cap_tok)
			return 2;
	}
	if (argc > 6)
		root_bits = (unsigned)atoi(argv[6]);
	long_at = malloc(cap_tok);
	uint8_t *c = probe_gzip("spec_sim", argv[1], atoi(argv[2]), "SPEC_SIM_MIB", &m, &clen);
	if (!c)
		return 1;
	struct lane ln[LANES];
	for (int i = 0; i < LANES; i++) {
		ln[i].tok = malloc(cap_tok * sizeof(uint32_t));
		ln[i].starts = malloc((spec_r + 63) / 64 * 8);
	}
	uint64_t off = m.data;
	double *work = malloc(m.np * sizeof(double)), sum = 0, max = 0, max_lock = 0, max_best = 0;
	for (uint32_t k = 0; k < m.np; k++) {
		uint32_t len = gpz_load_le32(m.lens + 4 * k);
		struct bits b = { c + off, (uint64_t)len * 8 };
		st.pieces++;
		piece_work = piece_lock = piece_best = 0;
		if (piece(&b, ln) != 0) {
			fprintf(stderr, "spec_sim: piece %u: bad stream\n", k);
			return 1;
		}
		work[k] = piece_work;
		sum += piece_work;
		max = piece_work > max ? piece_work : max;
		max_lock = piece_lock > max_lock ? piece_lock : max_lock;
		max_best = piece_best > max_best ? piece_best : max_best;
		off += len;
	}
	printf("file %s level %s SPEC_R %u CAP %u marks %u: %llu pieces, %llu blocks (%llu stored)\n",
	       argv[1], argv[2], spec_r, cap_tok, keep_marks, (unsigned long long)st.pieces,
	       (unsigned long long)st.blocks, (unsigned long long)st.stored);
	printf("rounds %llu (%.1f a piece): ends token %llu (full %llu, past the round %llu, "
	       "unsynced %llu), eob %llu, bad %llu, lost %llu\n",
	       (unsigned long long)st.rounds, (double)st.rounds / st.pieces,
	       (unsigned long long)st.end[TOKEN], (unsigned long long)st.end_full,
	       (unsigned long long)st.end_ended, (unsigned long long)st.end_unsynced,
	       (unsigned long long)st.end[EOB], (unsigned long long)st.end[BAD],
	       (unsigned long long)st.end[LOST]);
	printf("tokens: true %llu, decoded %llu (%.2f a true one), kept %llu (%.1f a round), "
	       "lockstep %llu (%.2f%%); lanes on the path up to the round's end %.1f a round; "
	       "mismatches %llu\n",
	       (unsigned long long)st.true_tokens, (unsigned long long)st.decoded,
	       (double)st.decoded / st.true_tokens, (unsigned long long)st.kept,
	       (double)st.kept / st.rounds, (unsigned long long)st.lock_tokens,
	       100.0 * st.lock_tokens / st.true_tokens, (double)st.lanes_on_path / st.rounds,
	       (unsigned long long)st.mismatches);
	printf("phase 1 in lockstep: %llu steps, %.1f%% with a code longer than %u bits in some lane "
	       "(%.2f%% of the tokens decoded in phase 1 have one)\n",
	       (unsigned long long)st.steps, 100.0 * st.long_steps / st.steps, root_bits,
	       100.0 * st.long_tokens / (st.decoded ? st.decoded : 1));
	printf("modelled work a piece (warp steps, all but the last piece): mean %.0f, slowest %.0f "
	       "(%.2fx the mean)\n", m.np > 1 ? (sum - work[m.np - 1]) / (m.np - 1) : sum, max,
	       m.np > 1 ? max / ((sum - work[m.np - 1]) / (m.np - 1)) : 1.0);
	printf("slowest piece, modelled: as run %.0f, every block in lockstep %.0f, each block the "
	       "cheaper of the two %.0f\n", max, max_lock, max_best);
	return st.mismatches != 0;
}
