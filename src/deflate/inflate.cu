/* inflate.cu - gpz's DEFLATE decoder (inflate.c) on the GPU: a warp a piece, the same checks and
 * the same results.
 *
 * Decoding a DEFLATE stream is serial in its bits; the parallelism is the pieces' (256 KiB of
 * output each: a 1 GiB batch is 4096 warps) and, inside a block, speculation: the warp's lanes
 * start decoding at 32 bit offsets at once and keep what lies on the true path (codes_spec,
 * below). Headers, stored blocks and what speculation hands back are decoded in lockstep
 * (codes): every lane holds the same bit buffer, so the control flow never diverges and the
 * tables are read by broadcast. Either way the warp writes its tokens 64 output symbols a step
 * (flush). Tables live in shared memory: a 10-bit root table, and for the rare longer codes a
 * canonical decode from the codes sorted by length (first code and count per length), which
 * needs no second-level table.
 *
 * Output as on the CPU: bytes, or 16-bit symbols where 256 + w stands for byte w of the unknown
 * 32 KiB before the piece; chain_kernel, fix_kernel and bytes_kernel then turn symbols into
 * bytes: bytes of the pieces before, of the batch's window, or 0 in a list of positions that
 * the caller fills in once the window is known. */
#include "deflate/deflate_gpu.h"
#include "gpu/cuda_check.h"
#include "gpu/warp.cuh"

namespace {

constexpr unsigned ROOT = 10;
constexpr unsigned LINK = 15; /* a root entry whose code is longer than ROOT bits */
constexpr unsigned MAXB = 15;
constexpr unsigned WARPS = 2; /* warps (pieces) a block */
constexpr unsigned FULL = 0xffffffffu;
constexpr unsigned WIN = 32768;

__constant__ uint16_t c_len_base[29] = { 3,  4,  5,  6,  7,  8,  9,  10,  11,  13,
	                                 15, 17, 19, 23, 27, 31, 35, 43,  51,  59,
	                                 67, 83, 99, 115, 131, 163, 195, 227, 258 };
__constant__ uint8_t c_len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
	                                 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
__constant__ uint16_t c_dist_base[30] = { 1,    2,    3,    4,    5,    7,     9,     13,
	                                  17,   25,   33,   49,   65,   97,    129,   193,
	                                  257,  385,  513,  769,  1025, 1537,  2049,  3073,
	                                  4097, 6145, 8193, 12289, 16385, 24577 };
__constant__ uint8_t c_dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
	                                  6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };
__constant__ uint8_t c_cl_order[19] = { 16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
	                                11, 4,  12, 3, 13, 2, 14, 1, 15 };

enum { CODE_CL, CODE_LIT, CODE_DIST };

/* A code of up to NS symbols: root entries are symbol << 4 | length (0: no code, LINK: longer
 * than ROOT). */
template <unsigned NS>
struct code_tab {
	uint16_t root[1u << ROOT];
	uint16_t first[MAXB + 1]; /* the first canonical code of each length */
	uint16_t count[MAXB + 1];
	uint16_t offs[MAXB + 1];  /* where each length's symbols start in sorted */
	uint16_t sorted[NS];      /* symbols by code length, then value */
};

/* A warp's tables. Shared memory is what bounds the warps an SM (1 GiB is 4096 pieces, 31 an
 * SM of an H100 or H200), so the distance code's table holds 32 symbols, not 288 (the code-length
 * code's 19 fit too), and the code lengths share their room with the speculative decoder's
 * token starts (codes_spec): a header is never read during a round. */
constexpr unsigned SPEC_R = 384;         /* bits of the stream each lane starts in (codes_spec) */
constexpr unsigned SPEC_W = SPEC_R / 32; /* words of token starts a lane */

struct warp_mem {
	code_tab<288> lit;
	code_tab<32> dist; /* holds the code-length code while a header is read */
	uint32_t cnt[MAXB + 1];
	union {
		uint8_t lens[320];
		/* a round's token starts, lane-interleaved (word [k][lane]) for conflict-free banks:
		 * bit j of word k: a token of lane i starts at s_i + 32k + j */
		uint32_t starts[SPEC_W][32];
	};
};

/* The bit reader, the same in every lane: p is the next byte to load (relative to the piece,
 * past its end once zeros have been supplied there); the bits consumed are p * 8 - n. */
struct reader {
	const uint8_t *in;
	uint32_t len, p; /* 32 bits: a piece is below 2 GiB (checked) */
	uint64_t bits;
	unsigned n;
};

__device__ __forceinline__ void refill(reader &b)
{
	if (b.p + 12 <= b.len) {
		/* 8 bytes from three aligned words: the piece may start at any byte */
		uintptr_t a = (uintptr_t)(b.in + b.p);
		const uint32_t *w = (const uint32_t *)(a & ~(uintptr_t)3);
		unsigned sh = (unsigned)(a & 3) * 8;
		uint32_t w0 = __ldg(w), w1 = __ldg(w + 1), w2 = __ldg(w + 2);
		uint64_t v = (uint64_t)__funnelshift_r(w1, w2, sh) << 32 | __funnelshift_r(w0, w1, sh);
		b.bits |= v << b.n;
		b.p += (63 - b.n) >> 3;
		b.n |= 56;
		return;
	}
	while (b.n <= 56) { /* near the end: byte by byte, zeros past it */
		uint64_t c = b.p < b.len ? __ldg(b.in + b.p) : 0;
		b.bits |= c << b.n;
		b.p++;
		b.n += 8;
	}
}

__device__ __forceinline__ unsigned take(reader &b, unsigned k)
{
	unsigned v = (unsigned)(b.bits & ((1ull << k) - 1));
	b.bits >>= k;
	b.n -= k;
	return v;
}

__device__ __forceinline__ unsigned getbits(reader &b, unsigned k)
{
	if (b.n < k)
		refill(b);
	return take(b, k);
}

__device__ __forceinline__ bool overran(const reader &b)
{
	return (uint64_t)b.p * 8 - b.n > (uint64_t)b.len * 8;
}

/* All the input consumed but fewer than 8 bits, all zero. */
__device__ bool at_end(reader &b)
{
	refill(b);
	uint64_t used = (uint64_t)b.p * 8 - b.n, all = (uint64_t)b.len * 8;
	if (used > all || all - used >= 8)
		return false;
	unsigned rest = (unsigned)(all - used);
	return (b.bits & ((1ull << rest) - 1)) == 0;
}

/* Build t from n code lengths, with the whole warp. 0, or -1 for a code zlib would reject
 * (over-subscribed; incomplete but for a single 1-bit code of literals/lengths or distances,
 * and no distance code at all). */
template <unsigned NS>
__device__ int build(code_tab<NS> &t, const uint8_t *lens, unsigned n, int kind, uint32_t *cnt)
{
	const unsigned lane = threadIdx.x & 31;
	int ok = 1;

	if (lane <= MAXB)
		cnt[lane] = 0;
	for (unsigned i = lane; i < (1u << ROOT); i += 32)
		t.root[i] = 0;
	__syncwarp();
	for (unsigned c = 0; c < n; c += 32) { /* count the lengths, 32 symbols a step */
		unsigned s = c + lane, l = s < n ? lens[s] : 0;
		unsigned peers = __match_any_sync(FULL, l);
		if (l && __ffs(peers) - 1 == (int)lane)
			cnt[l] += __popc(peers);
		__syncwarp();
	}
	if (lane == 0) {
		int left = 1;
		unsigned maxlen = 0, ncodes = 0, code = 0, off = 0;
		for (unsigned l = 1; l <= MAXB; l++) {
			left = (left << 1) - (int)cnt[l];
			if (left < 0)
				ok = 0; /* over-subscribed */
			if (cnt[l])
				maxlen = l;
			ncodes += cnt[l];
		}
		if (ok && ncodes == 0)
			ok = kind == CODE_DIST ? 2 : 0;
		else if (ok && left > 0 && (kind == CODE_CL || !(ncodes == 1 && maxlen == 1)))
			ok = 0; /* incomplete */
		for (unsigned l = 1; l <= MAXB; l++) {
			t.first[l] = (uint16_t)code;
			t.count[l] = (uint16_t)cnt[l];
			t.offs[l] = (uint16_t)off;
			code = (code + cnt[l]) << 1;
			off += cnt[l];
			cnt[l] = 0; /* from here: symbols of each length placed so far */
		}
	}
	ok = __shfl_sync(FULL, ok, 0);
	__syncwarp(); /* lane 0's first, count and offs */
	if (ok != 1)
		return ok == 2 ? 0 : -1;
	for (unsigned c = 0; c < n; c += 32) { /* codes in symbol order within a length */
		unsigned s = c + lane, l = s < n ? lens[s] : 0;
		unsigned peers = __match_any_sync(FULL, l);
		if (l) {
			unsigned idx = cnt[l] + __popc(peers & ((1u << lane) - 1));
			unsigned rev = __brev(t.first[l] + idx) >> (32 - l);
			t.sorted[t.offs[l] + idx] = (uint16_t)s;
			if (l <= ROOT)
				for (unsigned i = rev; i < (1u << ROOT); i += 1u << l)
					t.root[i] = (uint16_t)(s << 4 | l);
			else
				t.root[rev & ((1u << ROOT) - 1)] = LINK;
		}
		__syncwarp();
		if (l && __ffs(peers) - 1 == (int)lane)
			cnt[l] += __popc(peers);
		__syncwarp();
	}
	return 0;
}

/* The entry of the code at the bottom of bits (at least 15 valid), 0 for none. */
template <unsigned NS>
__device__ __forceinline__ unsigned lookup(const code_tab<NS> &t, uint64_t bits)
{
	unsigned e = t.root[bits & ((1u << ROOT) - 1)];
	if (e != LINK)
		return e;
	unsigned rev = __brev((unsigned)bits) >> (32 - MAXB); /* the next 15 bits, first bit high */
	for (unsigned l = ROOT + 1; l <= MAXB; l++) {
		unsigned d = (rev >> (MAXB - l)) - t.first[l];
		if (d < t.count[l])
			return (unsigned)t.sorted[t.offs[l] + d] << 4 | l;
	}
	return 0;
}

struct piece_state {
	reader b;
	uint32_t pos, cap;
	bool markers; /* references before the piece become window symbols */
	bool strict;  /* the padding before a stored block's length must be zero */
	int fixed;    /* the tables hold the fixed codes */
	uint32_t *tok; /* the speculative decoder's tokens, in the piece's room (NULL: lockstep) */
	uint32_t tcap; /* tokens a lane keeps in a round: SPEC_CAP or SPEC_CAP_DENSE */
};

__device__ gpz_result dynamic_codes(piece_state &f, warp_mem &w)
{
	const unsigned lane = threadIdx.x & 31;
	reader &b = f.b;
	refill(b);
	unsigned nlit = take(b, 5) + 257, ndist = take(b, 5) + 1, ncl = take(b, 4) + 4;
	unsigned i = 0, prev = 0;

	if (nlit > 286 || ndist > 30)
		return GPZ_ERR_CORRUPT;
	if (lane < 19)
		w.lens[lane] = 0;
	__syncwarp();
	for (unsigned k = 0; k < ncl; k++) {
		unsigned v = getbits(b, 3);
		if (lane == 0)
			w.lens[c_cl_order[k]] = (uint8_t)v;
	}
	__syncwarp();
	f.fixed = 0;
	if (build(w.dist, w.lens, 19, CODE_CL, w.cnt) != 0)
		return GPZ_ERR_CORRUPT;
	while (i < nlit + ndist) {
		if (b.n < 32)
			refill(b);
		unsigned e = w.dist.root[b.bits & ((1u << ROOT) - 1)], s = e >> 4, rep, v = 0;
		if (!e)
			return GPZ_ERR_CORRUPT;
		take(b, e & 15);
		if (s < 16) {
			if (lane == 0)
				w.lens[i] = (uint8_t)s;
			i++;
			prev = s;
			continue;
		}
		if (s == 16) {
			if (i == 0)
				return GPZ_ERR_CORRUPT; /* nothing to repeat */
			v = prev;
			rep = 3 + take(b, 2);
		} else {
			rep = s == 17 ? 3 + take(b, 3) : 11 + take(b, 7);
		}
		if (rep > nlit + ndist - i)
			return GPZ_ERR_CORRUPT;
		for (unsigned j = lane; j < rep; j += 32)
			w.lens[i + j] = (uint8_t)v;
		i += rep;
		prev = v;
	}
	__syncwarp();
	if (w.lens[256] == 0 || build(w.lit, w.lens, nlit, CODE_LIT, w.cnt) != 0 ||
	    build(w.dist, w.lens + nlit, ndist, CODE_DIST, w.cnt) != 0)
		return GPZ_ERR_CORRUPT;
	return overran(b) ? GPZ_ERR_TRUNCATED : GPZ_OK;
}

__device__ void fixed_codes(piece_state &f, warp_mem &w)
{
	const unsigned lane = threadIdx.x & 31;
	if (f.fixed)
		return;
	for (unsigned s = lane; s < 288; s += 32)
		w.lens[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
	__syncwarp();
	build(w.lit, w.lens, 288, CODE_LIT, w.cnt);
	for (unsigned s = lane; s < 32; s += 32)
		w.lens[s] = 5;
	__syncwarp();
	build(w.dist, w.lens, 32, CODE_DIST, w.cnt);
	f.fixed = 1;
}

/* Lane-owned token of a batch: a literal or a copy, at its output position; dl is the copy's
 * distance, or 0 and the literal << 16 (one word, so that flush finds it with one shuffle). */
struct token {
	uint32_t pos, len, dl;
};

/* The symbol at p of a step that starts at q, from its token's word dl (*d: the distance): a
 * literal, a window symbol (a copy from before the piece), or a load of a source written before
 * q; the caller settles the rest (sources in the step). In unsigned arithmetic src = p - d is
 * below q exactly when the source was written before the step. */
template <typename T>
__device__ __forceinline__ uint32_t symbol_at(const T *out, uint32_t dl, uint32_t p, uint32_t q,
                                              uint32_t *d)
{
	*d = dl & 0xffffu;
	const uint32_t src = p - *d;
	uint32_t v = *d ? 256u + WIN + src : dl >> 16;
	if (src < q)
		v = out[src];
	return v;
}

/* v of the lanes whose source is a lower lane of the same 32 symbols (d - 1 < lane), by
 * pointer jumping: chains of any length settle in 5 rounds. A lane's word is v (below 2^16
 * once known), or the lane it waits for << 16 | 1 << 21; a round takes that lane's word. */
__device__ __forceinline__ uint32_t settle(uint32_t v, uint32_t d, unsigned lane)
{
	if (__ballot_sync(FULL, d - 1u < lane)) {
		uint32_t w = d - 1u < lane ? (lane - d) << 16 | 1u << 21 : v;
		do
			w = __shfl_sync(FULL, w, w >> 21 ? (w >> 16) & 31 : lane);
		while (__ballot_sync(FULL, w >> 21));
		v = w & 0xffffu;
	}
	return v;
}

/* Write a batch of tokens, one a lane (token i in lane i, nt of them, output [pos of token 0,
 * end)), 64 output symbols a step, two a lane: lane j of the step at q writes q + j and
 * q + 32 + j. A symbol's token is found from the starts that fall in the step (one bit each,
 * OR-reduced over the warp); a literal is its value, a copy reads its source (symbol_at, then
 * settle; the second half's sources in the first half by one shuffle). Every output symbol costs
 * about the same, whatever the tokens' lengths, and consecutive lanes store consecutive symbols.
 * The step is most of the decoder's time, and its loads' latency more than its instructions:
 * both halves' loads are issued before either waits. */
template <typename T>
__device__ void flush(T *out, const token &t, unsigned nt, uint32_t end)
{
	const unsigned lane = threadIdx.x & 31, le = (2u << lane) - 1u;
	if (nt == 0)
		return;
	const uint32_t start = __shfl_sync(FULL, t.pos, 0);
	const uint32_t tp = lane < nt ? t.pos : 0xffffffffu; /* never in a step: positions < 2^31 */
	unsigned before = 0; /* tokens that start before the step */
	__syncwarp();
	for (uint32_t q = start; q < end; q += 64) {
		const uint32_t p = q + lane, o = tp - q;
		const unsigned s0 = gpz_warp_or(o < 32 ? 1u << o : 0u);
		const unsigned s1 = gpz_warp_or(o - 32u < 32 ? 1u << (o - 32u) : 0u);
		/* a symbol's token: one starts at or before it (token 0 at start), and there are at
		 * most 32, so the index is a lane */
		const unsigned b1 = before + __popc(s0);
		const bool two = q + 32 < end; /* the same in every lane */
		uint32_t d0, d1 = 0, v1 = 0;
		const unsigned k0 = before + __popc(s0 & le) - 1u, k1 = b1 + __popc(s1 & le) - 1u;
		uint32_t v0 = symbol_at(out, __shfl_sync(FULL, t.dl, k0), p, q, &d0);
		if (two)
			v1 = symbol_at(out, __shfl_sync(FULL, t.dl, k1), p + 32, q, &d1);
		before = b1 + __popc(s1);
		v0 = settle(v0, d0, lane);
		if (p < end)
			out[p] = (T)v0;
		if (two) {
			const uint32_t x = lane + 32 - d1; /* below 32: the source is in the first half */
			if (__ballot_sync(FULL, x < 32)) {
				const uint32_t u = __shfl_sync(FULL, v0, x & 31);
				v1 = x < 32 ? u : v1;
			}
			v1 = settle(v1, d1, lane);
			if (p + 32 < end)
				out[p + 32] = (T)v1;
		}
		__syncwarp();
	}
}

/* A block's codes: the warp decodes up to 32 tokens in step (lane i keeping the i-th), then
 * writes them together, so that the copies' reads of recent output overlap instead of each
 * waiting for memory in turn. */
template <typename T>
__device__ gpz_result codes(piece_state &f, warp_mem &w, T *out)
{
	const unsigned lane = threadIdx.x & 31;
	reader &b = f.b;
	for (;;) {
		token t = { 0, 0, 0 };
		unsigned nt = 0;
		int end = 0; /* 1: end of block, 2: an error (r) */
		gpz_result r = GPZ_OK;
		while (nt < 32) {
			/* a length, its extra bits, a distance and its extra bits: at most 48 bits */
			if (b.n < 48)
				refill(b);
			unsigned e = lookup(w.lit, b.bits), s = e >> 4;
			if (!e) {
				r = overran(b) ? GPZ_ERR_TRUNCATED : GPZ_ERR_CORRUPT;
				end = 2;
				break;
			}
			take(b, e & 15);
			if (s < 256) {
				if (f.pos == f.cap) {
					r = GPZ_ERR_CORRUPT;
					end = 2;
					break;
				}
				if (lane == nt)
					t = token{ (uint32_t)f.pos, 1, s << 16 };
				f.pos++;
				nt++;
				continue;
			}
			if (s == 256) {
				end = 1;
				break;
			}
			if (s > 285) {
				r = GPZ_ERR_CORRUPT;
				end = 2;
				break;
			}
			s -= 257;
			unsigned len = c_len_base[s] + take(b, c_len_extra[s]);
			e = lookup(w.dist, b.bits);
			unsigned d = e >> 4;
			if (!e || d > 29) {
				r = overran(b) ? GPZ_ERR_TRUNCATED : GPZ_ERR_CORRUPT;
				end = 2;
				break;
			}
			take(b, e & 15);
			unsigned dist = c_dist_base[d] + take(b, c_dist_extra[d]);
			if (len > f.cap - f.pos || (dist > f.pos && !f.markers)) {
				r = GPZ_ERR_CORRUPT;
				end = 2;
				break;
			}
			if (lane == nt)
				t = token{ (uint32_t)f.pos, len, dist };
			f.pos += len;
			nt++;
		}
		flush(out, t, nt, f.pos);
		if (end == 2)
			return r;
		if (end == 1)
			return overran(b) ? GPZ_ERR_TRUNCATED : GPZ_OK;
	}
}

/* Speculative decoding of a block's codes, 32 stretches at once: each lane decodes its own
 * tokens instead of all lanes the same ones, many times fewer instructions a token.
 *
 * A round splits the next 32 x SPEC_R bits of the block among the lanes. Lane i starts at bit
 * s_i = P + i SPEC_R, most likely inside a token, and decodes on regardless (phase 1, to the
 * first token that starts at or past s_i + SPEC_R), marking where its tokens start. Huffman
 * codes tend to resynchronise: a decode started at a wrong bit often lands on a true token start,
 * and from there it follows the true tokens. Lane 0 starts at a true start, P. Phase 2: lane i
 * decodes on past its stretch until it reaches a start that the lane of the stretch it is in also
 * decoded (its sync point): from there that lane's tokens are the true ones, since two decodes
 * that meet at a start go on together. The true path of the round is then lane 0's tokens up to
 * its sync point, the tokens of the lane it synced into from there up to that lane's own sync
 * point, and so on; lanes it jumps over (they never resynchronised: periodic data can keep a
 * decode a few bits off for long) are dropped. A lane on the path that runs out of room for
 * tokens, or past the round's last stretch, ends the round; the next starts there. So does one
 * that lost a mark (SPEC_LOST, below): the next round starts where the path entered its stretch.
 *
 * End-of-block and invalid codes are kept aside (a lane decoding at a wrong bit meets them too,
 * and decodes on); the first one on the true path ends the round: an end of block ends the
 * block, anything invalid hands the block to the lockstep decoder (codes) at that token, which
 * gives the very error it always gave. So does any round whose tokens would break a rule the
 * lockstep decoder checks (output past the piece, a distance before the start, input overrun):
 * the round is decoded again from its start by codes, and what it writes is the same.
 *
 * Measured on an H100 (bench/results/2026-11-26-h100-gpu-inflate-spec.md): the pieces kernel
 * 1.6-2.1x the lockstep one on text (debtext100m, xml), 1.3-1.6x on x-ray, 0.8x on samba, where
 * lanes seldom resynchronise. */
constexpr unsigned SPEC_CAP = 128; /* tokens a lane keeps in a round (96: samba 18%, x-ray 15% slower;
                                    * 192: samba 16% faster, text 1-2% slower; H100) */
/* ... and in a piece whose input is at least 3/4 of its output (nearly all literals, where lanes
 * seldom resynchronise and rounds end short): samba's slowest pieces (230 KB for 256 KiB) are 7x
 * the mean work at 128, and the kernel waits for them; 256 tokens cut them by a third (spec_sim).
 * Such pieces are few, so the rounds' tokens in flight (L2) hardly grow, as 192 everywhere did. */
constexpr unsigned SPEC_CAP_DENSE = 256;
/* SPEC_LOST: a lane on the path met more marks than it keeps, all before the path reached it,
 * so one it did not keep may lie on the path: the round ends where the path enters its stretch,
 * and the next starts there (so that it is that round's lane 0, whose marks are all on the
 * path). Handing such a block to codes instead cost binary data (x-ray) a third of its speed
 * once rounds took 192 tokens a lane. */
enum { SPEC_TOKEN, SPEC_EOB, SPEC_BAD, SPEC_LOST };

/* The tokens of a round (a literal below 256, or len << 16 | dist; token t of lane i at
 * tok[32 t + i]) go to the piece's room in global memory, mostly in L2 while the round lasts:
 * shared memory for them would leave room for half the warps (a warp waits on its lanes'
 * dependent loads, so warps are what hide it). The room was once the end of the piece's own
 * output, not yet written; the lockstep decoder then took the piece's last 12 KiB and the round
 * that reached them twice: text 5% slower (bench/NOTES.md, twenty-seventh session). */
constexpr unsigned SPEC_TOK_BYTES = SPEC_CAP_DENSE * 32 * 4;
/* Pieces of fewer symbols than this decode in lockstep and have no room: the room is then at
 * most half the output (pieces of 256 bytes, which a .gpz LZ frame may have, would
 * otherwise ask 64 bytes of workspace an output byte). */
constexpr size_t SPEC_MIN_CAP = (size_t)1 << 16;

/* Length and distance codes' base (low 16 bits) and extra bits (high), in shared memory so that
 * lanes reading different entries are not serialised as they would be in constant memory. */
struct spec_tabs {
	uint32_t len[29], dist[30];
};

/* A lane's own bit reader for codes_spec: 33 to 64 bits at hand, refilled 32 at a time from a
 * word loaded one refill ahead, so that a load's latency stays off the chain of table lookups
 * that decodes a token (the warp waits for its slowest lane every step). Words are aligned: the
 * first may hold bytes before the piece, of the same buffer; past the piece's end, zeros. */
struct lane_bits {
	const uint8_t *in;
	const uint32_t *w;
	uint32_t len, lead, wend; /* the piece's bytes; in - w in bytes; whole words from w */
	uint32_t wi, nw;          /* the next word to load, and the one loaded before it */
	uint64_t bits;
	unsigned n;

	__device__ void init(const uint8_t *p, uint32_t l)
	{
		in = p;
		len = l;
		lead = (uint32_t)((uintptr_t)p & 3);
		w = (const uint32_t *)(p - lead);
		wend = (lead + l) / 4;
	}
	__device__ uint32_t word(uint32_t q) const
	{
		if (q < wend)
			return __ldg(w + q);
		uint32_t v = 0;
		for (unsigned k = 0; k < 4; k++) {
			int64_t at = (int64_t)q * 4 + k - lead;
			if (at >= 0 && at < (int64_t)len)
				v |= (uint32_t)__ldg(in + at) << (8 * k);
		}
		return v;
	}
	/* bit s of the piece at the bottom of bits */
	__device__ void start(uint32_t s)
	{
		const uint32_t a = s + lead * 8, q = a >> 5, off = a & 31;
		bits = ((uint64_t)word(q + 1) << 32 | word(q)) >> off;
		n = 64 - off;
		nw = word(q + 2);
		wi = q + 3;
	}
	/* at least 33 bits at hand */
	__device__ __forceinline__ void need()
	{
		if (n <= 32) {
			bits |= (uint64_t)nw << n;
			n += 32;
			nw = word(wi++);
		}
	}
	__device__ __forceinline__ void skip(unsigned k)
	{
		bits >>= k;
		n -= k;
	}
};

/* The token at the reader: its kind, *tok and the bits it takes (*adv). An invalid code takes
 * 1 bit, so that a lane at a wrong bit moves on; the caller then restarts the reader (it may
 * have read further). */
__device__ __forceinline__ unsigned spec_token(const warp_mem &w, const spec_tabs &tb,
                                               lane_bits &r, uint32_t *tok, unsigned *adv)
{
	r.need();
	const unsigned e = lookup(w.lit, r.bits), l = e & 15, s = e >> 4;
	*adv = e ? l : 1;
	if (e == 0 || s > 285)
		return SPEC_BAD;
	if (s == 256 || s < 256) {
		r.skip(l);
		*tok = s;
		return s == 256 ? SPEC_EOB : SPEC_TOKEN;
	}
	const uint32_t lx = tb.len[s - 257];
	const unsigned eb = lx >> 16;
	const unsigned len = (lx & 0xffff) + ((unsigned)(r.bits >> l) & ((1u << eb) - 1));
	r.skip(l + eb);
	r.need();
	const unsigned ed = lookup(w.dist, r.bits), dl = ed & 15, d = ed >> 4;
	if (ed == 0 || d > 29) {
		*adv = 1;
		return SPEC_BAD;
	}
	const uint32_t dx = tb.dist[d];
	const unsigned db = dx >> 16;
	*tok = len << 16 | ((dx & 0xffff) + ((unsigned)(r.bits >> dl) & ((1u << db) - 1)));
	r.skip(dl + db);
	*adv = l + eb + dl + db;
	return SPEC_TOKEN;
}

/* The first two end-of-block or invalid tokens a lane met (index, kind, start, bits; scalars,
 * so that they stay in registers), and how many it met. */
struct spec_marks {
	uint32_t idx0, idx1, at0, at1;
	unsigned kind0, kind1, adv0, adv1, n;
	__device__ void add(uint32_t i, unsigned k, uint32_t b, unsigned a)
	{
		if (n == 0) {
			idx0 = i;
			kind0 = k;
			at0 = b;
			adv0 = a;
		} else if (n == 1) {
			idx1 = i;
			kind1 = k;
			at1 = b;
			adv1 = a;
		}
		n++;
	}
};

/* Put the reader at bit x of the piece. */
__device__ __forceinline__ void seek(reader &b, uint32_t x)
{
	b.p = x >> 3;
	b.bits = 0;
	b.n = 0;
	refill(b);
	take(b, x & 7);
}

/* Write the round's true tokens (lane i's from index a, c of them) at f.pos, 32 a batch. False
 * when one breaks a rule the lockstep decoder checks, or the output would pass the piece's end
 * (what was written is then taken again by codes). */
/* Token x of the round's true path (x below total; e: exclusive scan of the lanes' counts, a:
 * each lane's first true token): found in the lane whose tokens start at or before x. */
__device__ __forceinline__ uint32_t path_token(const piece_state &f, uint32_t e, uint32_t a,
                                               uint32_t x, uint32_t total)
{
	unsigned from = 0; /* the last lane whose tokens start at or before x */
	for (unsigned st = 16; st; st >>= 1) {
		uint32_t ec = __shfl_sync(FULL, e, from + st);
		if (ec <= x)
			from += st;
	}
	const uint32_t ef = __shfl_sync(FULL, e, from), af = __shfl_sync(FULL, a, from);
	return x < total ? f.tok[(af + x - ef) * 32 + from] : 0;
}

template <typename T>
__device__ bool spec_write(piece_state &f, T *out, uint32_t a, uint32_t c)
{
	const unsigned lane = threadIdx.x & 31;
	uint32_t e = gpz_warp_scan(c); /* inclusive, then exclusive */
	const uint32_t total = __shfl_sync(FULL, e, 31);
	e -= c;
	uint32_t base = f.pos;
	uint32_t v = path_token(f, e, a, lane, total);
	for (uint32_t g = 0; g < total; g += 32) {
		const bool live = g + lane < total;
		token t;
		const uint32_t dist = v >> 16 ? v & 0xffff : 0;
		t.dl = v >> 16 ? dist : v << 16;
		t.len = !live ? 0 : v >> 16 ? v >> 16 : 1;
		const uint32_t sc = gpz_warp_scan(t.len);
		t.pos = base + sc - t.len;
		const uint32_t end = base + __shfl_sync(FULL, sc, 31);
		const bool bad = end > f.cap || (live && dist > t.pos && !f.markers);
		if (__any_sync(FULL, bad))
			return false;
		/* The copies' sources into L2 while flush writes the batch's first steps: recent
		 * output of 4096 pieces at once outgrows L2, and a source load's wait was most of
		 * flush's time (ncu). The first and the last line of each. */
		if (live && dist != 0 && dist <= t.pos) {
			const T *sp = out + (t.pos - dist);
			asm volatile("prefetch.global.L2 [%0];" ::"l"(sp));
			if (t.len * sizeof(T) > 64)
				asm volatile("prefetch.global.L2 [%0];" ::"l"(sp + t.len - 1));
		}
		/* the next batch's tokens, loaded before flush: the compiler cannot move the load past
		 * flush's stores (it cannot tell the room from the output), so its wait would follow
		 * the flush's */
		const uint32_t vn = g + 32 < total ? path_token(f, e, a, g + 32 + lane, total) : 0;
		flush(out, t, total - g < 32 ? total - g : 32, end);
		base = end;
		v = vn;
	}
	f.pos = base;
	return true;
}

template <typename T>
__device__ gpz_result codes_spec(piece_state &f, warp_mem &w, const spec_tabs &tb,
                                 T *out)
{
	const unsigned lane = threadIdx.x & 31;
	const uint32_t nbits = f.b.len * 8; /* below 2^31: checked by the caller */
	uint32_t P = f.b.p * 8 - f.b.n;
	for (;;) {
		if (f.pos >= f.cap) { /* the piece is full: what follows can only be its end */
			seek(f.b, P);
			return codes(f, w, out);
		}
		const uint32_t s0 = P + lane * SPEC_R, pos0 = f.pos;
		spec_marks mk;
		mk.n = 0;
		uint32_t b = s0, cnt = 0, word = 0;
		unsigned wi = 0;
		lane_bits rd;
		rd.init(f.b.in, f.b.len);
		rd.start(s0);
		for (unsigned k = 0; k < SPEC_W; k++)
			w.starts[k][lane] = 0;
		while (b < s0 + SPEC_R && cnt < f.tcap) { /* phase 1 */
			const unsigned o = b - s0;
			if (o >> 5 != wi) {
				w.starts[wi][lane] = word;
				word = 0;
				wi = o >> 5;
			}
			word |= 1u << (o & 31);
			uint32_t tok = 0;
			unsigned adv;
			unsigned kind = spec_token(w, tb, rd, &tok, &adv);
			f.tok[cnt * 32 + lane] = tok;
			if (kind != SPEC_TOKEN)
				mk.add(cnt, kind, b, adv);
			cnt++;
			b += adv;
			if (kind == SPEC_BAD)
				rd.start(b);
		}
		w.starts[wi][lane] = word;
		const bool full = b < s0 + SPEC_R;
		/* phase 2: on into the stretches after this lane's, until a start that the lane of
		 * that stretch also decoded (sync, into stretch tgt), past the round's last stretch
		 * (ended), or out of room */
		bool synced = false, ended = lane == 31 && !full;
		unsigned tgt = 0;
		__syncwarp();
		if (lane < 31 && !full) {
			while (cnt < f.tcap) {
				const uint32_t rel = b - P;
				const unsigned j = rel / SPEC_R, o = rel - j * SPEC_R;
				if (j >= 32) {
					ended = true;
					break;
				}
				if (w.starts[o >> 5][j] >> (o & 31) & 1) {
					synced = true;
					tgt = j;
					break;
				}
				uint32_t tok = 0;
				unsigned adv;
				unsigned kind = spec_token(w, tb, rd, &tok, &adv);
				f.tok[cnt * 32 + lane] = tok;
				cnt++;
				if (kind != SPEC_TOKEN) {
					mk.add(cnt - 1, kind, b, adv);
					break; /* past an end of block or a bad code nothing is this lane's */
				}
				b += adv;
			}
		}
		__syncwarp(); /* every lane's tokens, for spec_write */
		/* the index in tgt's tokens of the one at the sync point */
		uint32_t at = 0;
		if (synced) {
			const unsigned o = b - P - tgt * SPEC_R;
			for (unsigned k = 0; k < (o >> 5); k++)
				at += __popc(w.starts[k][tgt]);
			at += __popc(w.starts[o >> 5][tgt] & ((1u << (o & 31)) - 1));
		}
		/* The true path: lane 0, then the lane it synced into, and so on. Where every lane
		 * syncs into the next one it is every lane (taken at once); past the first that does
		 * not, it is followed lane by lane. On it, a lane's true tokens start at index a, at
		 * bit as. */
		uint32_t a = 0, as = P;
		const unsigned simple = __ballot_sync(FULL, synced && tgt == lane + 1);
		const unsigned first = __ffs(~simple) - 1; /* lanes 0 .. first are on the path */
		const uint32_t pa = __shfl_up_sync(FULL, at, 1), pb = __shfl_up_sync(FULL, b, 1);
		bool on = lane <= first;
		if (lane > 0 && on) {
			a = pa;
			as = pb;
		}
		for (unsigned cur = first;;) {
			if (!__shfl_sync(FULL, synced, cur))
				break;
			const unsigned nx = __shfl_sync(FULL, tgt, cur);
			const uint32_t na = __shfl_sync(FULL, at, cur), nb = __shfl_sync(FULL, b, cur);
			if (lane == nx) {
				on = true;
				a = na;
				as = nb;
			}
			cur = nx;
		}
		/* the first mark on the true path, if the lane kept it */
		const bool m0 = mk.n > 0 && mk.idx0 >= a, m1 = !m0 && mk.n > 1 && mk.idx1 >= a;
		const bool marked = m0 || m1;
		const uint32_t midx = m0 ? mk.idx0 : mk.idx1, mat = m0 ? mk.at0 : mk.at1;
		const unsigned madv = m0 ? mk.adv0 : mk.adv1;
		unsigned kind = marked ? (m0 ? mk.kind0 : mk.kind1) : SPEC_TOKEN;
		if (!marked && mk.n > 2)
			kind = SPEC_LOST;
		/* the round ends at the first lane on the path that does not sync */
		const unsigned cuts = __ballot_sync(FULL, on && (kind != SPEC_TOKEN || !synced));
		const unsigned L = __ffs(cuts) - 1; /* cuts is never 0: the path ends somewhere */
		/* tokens of the true path this lane writes */
		uint32_t c = on && lane < L ? cnt - a : 0;
		if (lane == L)
			c = marked ? midx - a : kind != SPEC_TOKEN ? 0 : cnt - a; /* SPEC_LOST: none */
		const unsigned lkind = __shfl_sync(FULL, kind, L);
		const uint32_t lb = __shfl_sync(FULL, b, L), lpb = __shfl_sync(FULL, as, L);
		const uint32_t lat = __shfl_sync(FULL, marked ? mat : 0, L);
		const uint32_t ladv = __shfl_sync(FULL, marked ? madv : 0, L);
		const bool lmarked = __shfl_sync(FULL, marked, L);
		uint32_t next; /* where the round ends */
		if (lkind == SPEC_TOKEN)
			next = lb; /* ended, full, or out of room in phase 2 */
		else if (lkind == SPEC_EOB)
			next = lat + ladv;
		else
			next = lmarked ? lat : lpb; /* a bad code (codes takes it from here), or lost */
		if (next > nbits || !spec_write(f, out, a, c)) {
			f.pos = pos0; /* the lockstep decoder takes the round again */
			seek(f.b, P);
			return codes(f, w, out);
		}
		__syncwarp(); /* the next round reuses w.starts */
		if (lkind == SPEC_EOB) {
			seek(f.b, next);
			return GPZ_OK;
		}
		if (lkind == SPEC_BAD || next == P) { /* no progress: never for SPEC_LOST (lane 0
		                                       * keeps every mark on the path), but cheap */
			seek(f.b, next);
			return codes(f, w, out);
		}
		P = next;
	}
}

template <typename T>
__device__ gpz_result stored(piece_state &f, T *out)
{
	const unsigned lane = threadIdx.x & 31;
	reader &b = f.b;
	unsigned pad = b.n & 7;
	if (take(b, pad) != 0 && f.strict)
		return GPZ_ERR_CORRUPT;
	uint32_t q = b.p - b.n / 8; /* the next byte of the stream */
	uint8_t h[4];
	for (unsigned k = 0; k < 4; k++)
		h[k] = q + k < b.len ? __ldg(b.in + q + k) : 0;
	unsigned len = h[0] | h[1] << 8, nlen = h[2] | h[3] << 8;
	if (len != (~nlen & 0xffff) || len > f.cap - f.pos)
		return GPZ_ERR_CORRUPT;
	q += 4;
	__syncwarp();
	for (unsigned i = lane; i < len; i += 32)
		out[f.pos + i] = (T)(q + i < b.len ? __ldg(b.in + q + i) : 0);
	f.pos += len;
	b.p = q + len;
	b.bits = 0;
	b.n = 0;
	return q + len > b.len ? GPZ_ERR_TRUNCATED : GPZ_OK;
}

/* The blocks of a piece: Huffman blocks through codes_spec when the piece has room for its
 * tokens (f.tok), else through codes. */
template <typename T>
__device__ gpz_result piece(piece_state &f, warp_mem &w, const spec_tabs &tb, T *out,
                           int *final)
{
	gpz_result r = GPZ_OK;
	unsigned last = 0;
	while (r == GPZ_OK && !last) {
		refill(f.b);
		last = take(f.b, 1);
		unsigned type = take(f.b, 2);
		if (type == 0)
			r = stored(f, out);
		else if (type == 1) {
			fixed_codes(f, w);
			r = f.tok ? codes_spec(f, w, tb, out) : codes(f, w, out);
		} else if (type == 2) {
			r = dynamic_codes(f, w);
			if (r == GPZ_OK)
				r = f.tok ? codes_spec(f, w, tb, out) : codes(f, w, out);
		} else
			r = GPZ_ERR_CORRUPT;
		if (r == GPZ_OK && overran(f.b))
			r = GPZ_ERR_TRUNCATED;
		if (r == GPZ_OK && !last && at_end(f.b))
			break; /* the piece ends here, after a block */
	}
	if (r == GPZ_OK && last && !at_end(f.b))
		r = GPZ_ERR_CORRUPT; /* bytes after the final block, inside the piece */
	*final = (int)last;
	return r;
}

/* A warp a piece. 16 blocks an SM (64 registers a thread, a few spilled): the warps hide each
 * other's dependent loads, and more of them measured faster than no spills. */
template <typename T>
__global__ void __launch_bounds__(WARPS * 32, 16)
inflate_kernel(const uint8_t *in, const uint64_t *off, size_t np, size_t cap, size_t total,
               T *out, int first_markers, int chained, int group_log, int strict,
               uint32_t *room, gpz_gpu_infl_res *res)
{
	__shared__ warp_mem mem[WARPS];
	__shared__ spec_tabs tabs;
	const unsigned wid = threadIdx.x / 32;
	const size_t k = (size_t)blockIdx.x * WARPS + wid;
	for (unsigned i = threadIdx.x; i < 29 + 30; i += blockDim.x) {
		if (i < 29)
			tabs.len[i] = c_len_base[i] | (uint32_t)c_len_extra[i] << 16;
		else
			tabs.dist[i - 29] = c_dist_base[i - 29] | (uint32_t)c_dist_extra[i - 29] << 16;
	}
	__syncthreads();
	if (k >= np)
		return;
	piece_state f;
	uint64_t o0 = off[k], o1 = off[k + 1];
	int final = 0;
	f.b.in = in + o0;
	bool ok = o1 >= o0 && o1 - o0 < ((uint64_t)1 << 31);
	f.b.len = ok ? (uint32_t)(o1 - o0) : 0;
	f.b.p = 0;
	f.b.bits = 0;
	f.b.n = 0;
	f.pos = 0;
	f.cap = (uint32_t)(total - k * cap < cap ? total - k * cap : cap); /* > 0: checked */
	if (group_log) /* chained within groups: a group's first piece has no window */
		f.markers = sizeof(T) > 1 && (k & (((size_t)1 << group_log) - 1)) != 0;
	else
		f.markers = sizeof(T) > 1 && (k == 0 ? first_markers : chained);
	f.strict = strict != 0;
	f.fixed = 0;
	/* the speculative decoder's bit positions are 32-bit, hence the bound on the input */
	f.tok = cap >= SPEC_MIN_CAP && f.b.len < (1u << 28) ? room + k * (SPEC_TOK_BYTES / 4) : NULL;
	f.tcap = (uint64_t)f.b.len * 4 >= (uint64_t)f.cap * 3 ? SPEC_CAP_DENSE : SPEC_CAP;
	/* the piece's base as an opaque pointer: folded into every access, it cost each of flush's
	 * loads and stores four 64-bit instructions (PTX); said to be global so that they stay
	 * global accesses, not generic ones */
	T *po = out + k * cap;
	asm("" : "+l"(po));
	__builtin_assume(__isGlobal(po));
	gpz_result r = ok ? piece(f, mem[wid], tabs, po, &final) : GPZ_ERR_CORRUPT;
	/* Symbols past those the piece wrote are zeroed: the window pass may run before the results
	 * are checked, and it indexes 32 KiB by every symbol it reads, so what a corrupt or short
	 * piece leaves behind must be symbols too. The first f.pos are the piece's own, valid after
	 * an error as well (the CPU's, to the symbol); a whole piece fills its cap. */
	if (sizeof(T) > 1 && f.pos < f.cap) {
		for (size_t i = f.pos + (threadIdx.x & 31); i < f.cap; i += 32)
			po[i] = 0;
	}
	if ((threadIdx.x & 31) == 0)
		res[k] = gpz_gpu_infl_res{ (int32_t)r, (uint32_t)f.pos, (uint32_t)final, 0 };
}

/* The window symbols of a batch of pieces. A window symbol 256 + w of piece k stands for byte w
 * of the 32 KiB before the piece: the last 32 KiB (the tail) of piece k - 1, whose own symbols
 * may be window symbols again (text copies a phrase forward piece after piece). Walking such
 * chains back symbol by symbol costs a dependent load a piece crossed; with thousands of pieces
 * a batch that dominated the decode. Instead every tail is made final first: each of its
 * symbols a byte or a window symbol of the *batch* (byte w of the 32 KiB before the first
 * piece), so that bytes_kernel needs one hop at most. A tail depends on the one before, a
 * chain through all pieces; it is cut into segments of SEG pieces, and the segments' last tails
 * into groups of GROUP segments:
 *  1. chain_kernel, a block a segment: its tails in order, each against the one before, so
 *     that they refer to the last tail of the segment before only;
 *  2. chain_kernel, a block a group: the group's segment-last tails in order, so that they
 *     refer to the last tail of the group before only;
 *  3. chain_kernel, one block: the groups' last tails in order: final;
 *  4. fix_kernel over the segment-last tails of every group but the first: one hop into the
 *     last tail of the group before.
 * The other tails of every segment but the first still refer to the last tail of the segment
 * before: bytes_kernel takes that hop as it reads them (a pass of its own cost 0.42 ms a GiB).
 * About SEG + GROUP + np / (SEG x GROUP) dependent steps of a few microseconds (32 + 16 + 8
 * for 4096 pieces; two levels, segments of 64, were 128 steps and ~0.75 ms on an H100), instead
 * of np. 32 pieces a segment: 128 segments of 4096 pieces run in one wave of one block an SM.
 * Where the stream says each segment's first piece needs no window (gzip's cuts every 32
 * pieces, the groups of .gpz LZ frames), steps 2-4 have nothing to do: step 1's blocks look at
 * those pieces' symbols first (scan_first), and steps 2-4 run only if one of them has a window
 * symbol after all (on an H100 they were 83 + 46 + 14 us of a GiB's 11.5 ms). */
constexpr size_t SEG = 32;
constexpr size_t GROUP = 16;

/* The symbols of a resolve: n, or *d_n when the stream learnt a smaller count on the device. */
__device__ __forceinline__ size_t live_n(size_t n, const uint64_t *d_n)
{
	return d_n && *d_n < n ? (size_t)*d_n : n;
}

/* First position of piece k's tail (its last WIN symbols; all of a shorter last piece). */
__device__ __forceinline__ size_t tail_start(size_t k, size_t piece, size_t n)
{
	size_t end = (k + 1) * piece < n ? (k + 1) * piece : n;
	return end - k * piece > WIN ? end - WIN : k * piece;
}

constexpr unsigned TAIL_THREADS = 1024;
constexpr unsigned TAIL_PER = WIN / TAIL_THREADS; /* 32 symbols a thread: 4 x 16 bytes */
constexpr size_t TAIL_SMEM = 2 * WIN * sizeof(uint16_t);

__device__ __forceinline__ void load_tail(const uint16_t *p, uint4 r[4])
{
#pragma unroll
	for (int q = 0; q < 4; q++)
		r[q] = reinterpret_cast<const uint4 *>(p)[q];
}

/* *joins = 1 if piece k (the first of a segment but the first) has a window symbol; *joins was
 * 0 before the launch. Step 1's blocks do this before their walk (the walk does not write piece
 * k), where it was a kernel of its own: one launch and memset fewer, the whole call level within
 * noise (H200, 2026-11-28). */
__device__ void scan_first(const uint16_t *sym, size_t n, size_t piece, size_t k, uint32_t *joins)
{
	const size_t b = k * piece, e = b + piece < n ? b + piece : n;
	unsigned any = 0;
	if (b < e) {
		constexpr size_t STRIDE = 8 * TAIL_THREADS;
		size_t i = b + 8 * threadIdx.x;
		for (; i + 3 * STRIDE + 8 <= e; i += 4 * STRIDE) { /* four loads in flight */
			uint4 q[4];
#pragma unroll
			for (int u = 0; u < 4; u++)
				q[u] = *reinterpret_cast<const uint4 *>(sym + i + u * STRIDE);
#pragma unroll
			for (int u = 0; u < 4; u++)
				any |= (q[u].x | q[u].y | q[u].z | q[u].w) & 0xff00ff00u;
		}
		for (; i + 8 <= e; i += STRIDE) {
			const uint4 q = *reinterpret_cast<const uint4 *>(sym + i);
			any |= (q.x | q.y | q.z | q.w) & 0xff00ff00u;
		}
		for (size_t j = b + (e - b) / 8 * 8 + threadIdx.x; j < e; j += TAIL_THREADS)
			any |= sym[j] & 0xff00u;
	}
	if (__syncthreads_or(any != 0) && threadIdx.x == 0)
		*joins = 1;
}

/* A chain of pieces p_0 = first + blockIdx.x * block_stride, p_i = p_(i-1) + step (the last
 * clamped to np - 1), len of them: the tail of each p_i (i >= 1) rewritten in place against
 * the tail of p_(i-1), which stays in shared memory (two buffers: before and being made); a
 * step is a coalesced load of the next raw tail (issued a step ahead), 32 lookups a thread and
 * a store. Pieces before np - 1 are full. */
__global__ void __launch_bounds__(TAIL_THREADS)
chain_kernel(uint16_t *sym, size_t n, const uint64_t *d_n, size_t piece, size_t first,
             size_t block_stride, size_t step, size_t len, const uint32_t *joins, uint32_t *scan)
{
	extern __shared__ __align__(16) uint16_t tb[];
	uint16_t *prev = tb, *cur = tb + WIN;
	if (joins && !*joins)
		return; /* no segment refers to the one before */
	n = live_n(n, d_n);
	const size_t np = (n + piece - 1) / piece;
	if (scan && blockIdx.x > 0)
		scan_first(sym, n, piece, first + blockIdx.x * block_stride, scan);
	const unsigned j = threadIdx.x * TAIL_PER;
	size_t p = first + blockIdx.x * block_stride;
	uint4 raw[4], next[4];

	if (p + 1 >= np || len < 2)
		return; /* no tail after p's in this chain */
	load_tail(sym + (p + 1) * piece - WIN + j, raw);
#pragma unroll
	for (int q = 0; q < 4; q++)
		reinterpret_cast<uint4 *>(prev + j)[q] = raw[q];
	size_t q0 = p + step < np - 1 ? p + step : np - 1;
	if (q0 < np - 1)
		load_tail(sym + (q0 + 1) * piece - WIN + j, raw);
	__syncthreads();
	for (size_t i = 1; i < len; i++) {
		const size_t q = p + step < np - 1 ? p + step : np - 1;
		if (q == np - 1) { /* the last piece: any length, nothing after it */
			for (size_t x = tail_start(q, piece, n) + threadIdx.x; x < n; x += TAIL_THREADS) {
				unsigned v = sym[x];
				if (v >= 256)
					sym[x] = prev[v - 256];
			}
			return;
		}
		const size_t r = q + step < np - 1 ? q + step : np - 1;
		if (i + 1 < len && r < np - 1)
			load_tail(sym + (r + 1) * piece - WIN + j, next);
		uint16_t *v = reinterpret_cast<uint16_t *>(raw);
#pragma unroll
		for (unsigned x = 0; x < TAIL_PER; x++)
			v[x] = v[x] < 256 ? v[x] : prev[v[x] - 256];
#pragma unroll
		for (int x = 0; x < 4; x++) {
			reinterpret_cast<uint4 *>(sym + (q + 1) * piece - WIN + j)[x] = raw[x];
			reinterpret_cast<uint4 *>(cur + j)[x] = raw[x];
			raw[x] = next[x];
		}
		uint16_t *t = prev;
		prev = cur;
		cur = t;
		p = q;
		__syncthreads(); /* the next step reads this tail */
	}
}

/* Step 4: the last tails of the segments (segment u: pieces u x SEG .. , its last clamped to
 * np - 1) that are not the last of their group, in groups 1 ..: one hop into the last tail of
 * the group before (final by then). Thread t: symbol t % WIN of segment t / WIN's last tail. */
__global__ void fix_kernel(uint16_t *sym, size_t n, const uint64_t *d_n, size_t piece,
                           const uint32_t *joins)
{
	if (joins && !*joins)
		return;
	n = live_n(n, d_n);
	const size_t np = (n + piece - 1) / piece, nseg = (np + SEG - 1) / SEG;
	const size_t total = nseg * WIN, stride = (size_t)gridDim.x * blockDim.x;
	for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
		const size_t u = t / WIN, g = u / GROUP;
		const size_t last = (g + 1) * GROUP < nseg ? (g + 1) * GROUP - 1 : nseg - 1;
		if (g == 0 || u == last)
			continue;
		const size_t k = u * SEG + SEG - 1; /* below np - 1 (u is not the last segment): full */
		const size_t x = (k + 1) * piece - WIN + t % WIN;
		const unsigned v = sym[x];
		if (v >= 256)
			sym[x] = sym[g * GROUP * SEG * piece - WIN + (v - 256)];
	}
}

/* Whether piece k's tail still refers to the last tail of the segment before (step 4 leaves
 * those for bytes_kernel), and where that tail is. */
__device__ __forceinline__ const uint16_t *unfixed(const uint16_t *sym, size_t k, size_t piece,
                                                   size_t np)
{
	const size_t s = k / SEG, last = (s + 1) * SEG < np ? (s + 1) * SEG - 1 : np - 1;
	return s > 0 && k != last ? sym + s * SEG * piece - WIN : NULL;
}

/* Symbols to bytes, a block a part of a piece: the final tail of the piece before (bytes, or
 * window symbols of the batch) is staged in shared memory first, so that a window symbol costs
 * a shared load instead of a gather from global memory (each a 32-byte sector for 2 bytes: the
 * gathers and a 64-bit division per window symbol made this kernel 3.7 ms a GiB of text on an
 * H100, a quarter of the whole decode). A window symbol of the batch takes its byte from win, or
 * 0 and a place in list for the caller, once the window is known. */
constexpr unsigned BYTES_THREADS = 512;
constexpr size_t BYTES_PART = (size_t)1 << 18; /* symbols a block */

__device__ __forceinline__ uint8_t batch_byte(unsigned v, size_t i, const uint8_t *win,
                                              uint64_t *list, uint32_t list_cap, uint32_t *count)
{
	if (v < 256)
		return (uint8_t)v;
	if (win)
		return win[v - 256];
	uint32_t at = atomicAdd(count, 1u);
	if (at < list_cap)
		list[at] = (uint64_t)i << 15 | (uint64_t)(v - 256);
	return 0;
}

/* The tail before the piece staged in shared memory. With no list to fill (BYTE_TAIL), as the
 * bytes it stands for (32 KiB: four blocks an SM, where 64 KiB of symbols allowed three): a
 * window symbol of the batch takes its byte from win, or 0 where there is none (only a corrupt
 * first piece has one, and the caller rejects it); else as symbols, so that such a symbol is
 * listed at the place it lands. */
template <bool BYTE_TAIL>
__device__ __forceinline__ void stage_tail(const uint16_t *t, const uint16_t *before,
                                           const uint8_t *win, void *tail)
{
	if (BYTE_TAIL) {
		uint8_t *tb = static_cast<uint8_t *>(tail);
		for (unsigned i = threadIdx.x; i < WIN / 8; i += BYTES_THREADS) {
			uint4 q = reinterpret_cast<const uint4 *>(t)[i];
			uint16_t v[8];
			uint8_t o[8];
			memcpy(v, &q, sizeof(q));
#pragma unroll
			for (int j = 0; j < 8; j++) {
				unsigned c = v[j];
				if (c >= 256 && before)
					c = before[c - 256];
				o[j] = c < 256 ? (uint8_t)c : win ? win[c - 256] : 0;
			}
			memcpy(tb + 8 * i, o, sizeof(o));
		}
		__syncthreads();
		return;
	}
	uint16_t *ts = static_cast<uint16_t *>(tail);
	for (unsigned i = threadIdx.x; i < WIN / 8; i += BYTES_THREADS)
		reinterpret_cast<uint4 *>(ts)[i] = reinterpret_cast<const uint4 *>(t)[i];
	__syncthreads();
	if (before) { /* the same for every thread */
		for (unsigned i = threadIdx.x; i < WIN; i += BYTES_THREADS)
			if (ts[i] >= 256)
				ts[i] = before[ts[i] - 256];
		__syncthreads();
	}
}

template <bool BYTE_TAIL>
__global__ void __launch_bounds__(BYTES_THREADS)
bytes_kernel(const uint16_t *sym, size_t n, const uint64_t *d_n, size_t piece, size_t parts,
             const uint8_t *win, uint8_t *out, uint64_t *list, uint32_t list_cap, uint32_t *count)
{
	extern __shared__ __align__(16) uint8_t smem[];
	n = live_n(n, d_n);
	const size_t k = blockIdx.x / parts, b = k * piece + (blockIdx.x % parts) * BYTES_PART;
	const size_t pe = (k + 1) * piece < n ? (k + 1) * piece : n;
	const size_t e = b + BYTES_PART < pe ? b + BYTES_PART : pe, ts = tail_start(k, piece, n);
	const bool hop = k > 0 && b < ts; /* window symbols here stand for the tail before */
	const size_t np = (n + piece - 1) / piece;
	const uint16_t *own = unfixed(sym, k, piece, np); /* for this piece's own tail */
	if (b >= e)
		return;
	/* each thread's symbols are loaded one round ahead (the first before the tail is staged), so
	 * that a load is in flight while the round before it is looked up and stored */
	constexpr size_t STRIDE = BYTES_THREADS * 16;
	size_t i0 = b + threadIdx.x * 16;
	uint4 n0 = make_uint4(0, 0, 0, 0), n1 = n0;
	if (i0 + 16 <= e) {
		n0 = reinterpret_cast<const uint4 *>(sym + i0)[0];
		n1 = reinterpret_cast<const uint4 *>(sym + i0)[1];
	}
	if (hop)
		stage_tail<BYTE_TAIL>(sym + k * piece - WIN, unfixed(sym, k - 1, piece, np), win, smem);
	for (; i0 < e; i0 += STRIDE) {
		uint16_t v[16];
		if (i0 + 16 <= e) {
			memcpy(v, &n0, sizeof(n0));
			memcpy(v + 8, &n1, sizeof(n1));
			if (i0 + STRIDE + 16 <= e) {
				n0 = reinterpret_cast<const uint4 *>(sym + i0 + STRIDE)[0];
				n1 = reinterpret_cast<const uint4 *>(sym + i0 + STRIDE)[1];
			}
		} else {
			for (size_t j = 0; j < 16; j++)
				v[j] = i0 + j < e ? sym[i0 + j] : 0;
		}
		uint8_t o[16];
		if (BYTE_TAIL && hop && i0 + 16 <= ts) {
			/* all 16 before the piece's own tail, the window staged as bytes: a window
			 * symbol is one shared load, nothing else to decide (the general loop below
			 * spent ~15 instructions a symbol on its cases, and text's pieces decoded
			 * without their window are half window symbols) */
#pragma unroll
			for (unsigned j = 0; j < 16; j++)
				o[j] = v[j] < 256 ? (uint8_t)v[j] : smem[v[j] - 256];
		} else {
#pragma unroll
			for (unsigned j = 0; j < 16; j++) {
				unsigned c = v[j];
				if (c >= 256 && i0 + j < ts && hop)
					c = BYTE_TAIL ? smem[c - 256]
					              : reinterpret_cast<const uint16_t *>(smem)[c - 256];
				else if (c >= 256 && i0 + j >= ts && own)
					c = own[c - 256];
				o[j] = batch_byte(c, i0 + j, win, list, list_cap, count);
			}
		}
		if (i0 + 16 <= e && ((uintptr_t)(out + i0) & 15) == 0) {
			uint4 q;
			memcpy(&q, o, sizeof(q));
			*reinterpret_cast<uint4 *>(out + i0) = q;
		} else {
			for (size_t j = 0; j < 16 && i0 + j < e; j++)
				out[i0 + j] = o[j];
		}
	}
}

unsigned grid_for(size_t n)
{
	size_t g = (n / 8 + 255) / 256;
	return (unsigned)(g < 1 ? 1 : g > 4096 ? 4096 : g);
}

} /* namespace */

extern "C" size_t gpz_gpu_inflate_room(size_t np, size_t cap)
{
	return cap >= SPEC_MIN_CAP ? np * SPEC_TOK_BYTES : 0;
}

extern "C" gpz_result gpz_gpu_inflate_pieces(const uint8_t *d_in, const uint64_t *d_off,
                                             size_t np, size_t cap, size_t total, int flags,
                                             void *d_out, void *d_room, gpz_gpu_infl_res *d_res,
                                             gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	unsigned blocks = (unsigned)((np + WARPS - 1) / WARPS);
	int first = (flags & GPZ_GPU_INFL_FIRST_WINDOW) != 0, chained = (flags & GPZ_GPU_INFL_CHAINED) != 0;
	int strict = (flags & GPZ_GPU_INFL_STRICT) != 0, group_log = (flags >> 4) & 15;

	if (np == 0)
		return GPZ_OK;
	const bool room_ok = cap < SPEC_MIN_CAP || (d_room && ((uintptr_t)d_room & 15) == 0);
	if (!d_in || !d_off || !d_out || !room_ok || !d_res || cap == 0 || cap > ((size_t)1 << 31) ||
	    total <= (np - 1) * cap)
		return GPZ_ERR_PARAM;
	if (flags & GPZ_GPU_INFL_SYMBOLS)
		inflate_kernel<uint16_t><<<blocks, WARPS * 32, 0, st>>>(
			d_in, d_off, np, cap, total, (uint16_t *)d_out, first, chained, group_log, strict,
			(uint32_t *)d_room, d_res);
	else
		inflate_kernel<uint8_t><<<blocks, WARPS * 32, 0, st>>>(
			d_in, d_off, np, cap, total, (uint8_t *)d_out, 0, 0, 0, strict,
			(uint32_t *)d_room, d_res);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_inflate_resolve(uint16_t *d_sym, size_t n, const uint64_t *d_n,
                                              size_t piece, const uint8_t *d_win, uint8_t *d_out,
                                              uint64_t *d_list, uint32_t list_cap,
                                              uint32_t *d_count, uint32_t *d_joins,
                                              gpz_stream_t stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (n == 0)
		return GPZ_OK;
	if (!d_sym || !d_out || piece < WIN || piece % 8 || ((uintptr_t)d_sym & 15) ||
	    (!d_win && !d_count))
		return GPZ_ERR_PARAM;
	if (n > piece) {
		const size_t np = (n + piece - 1) / piece, nseg = (np + SEG - 1) / SEG;
		const size_t ngroup = (nseg + GROUP - 1) / GROUP;
		/* one value for every call, so that concurrent lanes never lower it under each other */
		GPZ_CUDA_TRY(cudaFuncSetAttribute(chain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                  (int)TAIL_SMEM));
		uint32_t *scan = nseg > 1 ? d_joins : NULL;
		if (scan)
			GPZ_CUDA_TRY(cudaMemsetAsync(scan, 0, sizeof(*scan), st));
		chain_kernel<<<(unsigned)nseg, TAIL_THREADS, TAIL_SMEM, st>>>(d_sym, n, d_n, piece, 0,
		                                                              SEG, 1, SEG, NULL, scan);
		GPZ_LAUNCH_TRY();
		if (nseg > 1) {
			chain_kernel<<<(unsigned)ngroup, TAIL_THREADS, TAIL_SMEM, st>>>(
				d_sym, n, d_n, piece, SEG - 1, GROUP * SEG, SEG, GROUP, d_joins, NULL);
			GPZ_LAUNCH_TRY();
		}
		if (ngroup > 1) {
			chain_kernel<<<1, TAIL_THREADS, TAIL_SMEM, st>>>(d_sym, n, d_n, piece, GROUP * SEG - 1,
			                                                 0, GROUP * SEG, ngroup, d_joins, NULL);
			GPZ_LAUNCH_TRY();
			fix_kernel<<<grid_for(nseg * WIN), 256, 0, st>>>(d_sym, n, d_n, piece, d_joins);
			GPZ_LAUNCH_TRY();
		}
	}
	const size_t parts = (piece + BYTES_PART - 1) / BYTES_PART, np = (n + piece - 1) / piece;
	const unsigned blocks = (unsigned)(np * parts);
	if (!d_list) { /* nothing to list: the tails staged as bytes */
		bytes_kernel<true><<<blocks, BYTES_THREADS, WIN, st>>>(d_sym, n, d_n, piece, parts, d_win,
		                                                       d_out, NULL, 0, d_count);
	} else {
		GPZ_CUDA_TRY(cudaFuncSetAttribute(bytes_kernel<false>,
		                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                  (int)(WIN * sizeof(uint16_t))));
		bytes_kernel<false><<<blocks, BYTES_THREADS, WIN * sizeof(uint16_t), st>>>(
			d_sym, n, d_n, piece, parts, d_win, d_out, d_list, list_cap, d_count);
	}
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

namespace {

/* One thread: d_n[0] = the bytes of a batch of nk pieces (all full but the last, which says
 * its own), at most bound; d_n[1] = base + d_n[0]. A corrupt batch gets a wrong size here, but
 * one within the bound; the caller's check of the results finds it. */
__global__ void batch_n_kernel(const gpz_gpu_infl_res *res, size_t nk, size_t piece, size_t bound,
                               uint64_t base, uint64_t *d_n)
{
	uint64_t n = (uint64_t)(nk - 1) * piece + res[nk - 1].n;
	n = n < bound ? n : bound;
	d_n[0] = n;
	d_n[1] = base + n;
}

} /* namespace */

extern "C" gpz_result gpz_gpu_inflate_batch_n(const gpz_gpu_infl_res *d_res, size_t nk,
                                              size_t piece, size_t bound, uint64_t base,
                                              uint64_t *d_n, gpz_stream_t stream)
{
	if (!d_res || !d_n || nk == 0)
		return GPZ_ERR_PARAM;
	batch_n_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(d_res, nk, piece, bound, base, d_n);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}
