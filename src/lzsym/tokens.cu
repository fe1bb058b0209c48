/*
 * tokens.cu - the LZ-symbol tokenizer on the GPU (lzsym_gpu.h): the tokens of gpz_lzs_tokens
 * (match.c), a warp per chunk, in three passes: count, size, write. The count pass keeps each
 * chunk's tokens (8 bytes each) in a slot as large as the chunk's input (a token for every 8
 * bytes: 1/8 of 1-byte symbols, 1/4 of 2-byte, 1/2 of 4-byte), and the two later passes replay
 * them from there; a chunk with more tokens than its slot holds (dense, literal-heavy data) is
 * tokenized again by each pass instead.
 *
 * ---- Why a warp can do what the CPU does one position at a time ----
 * match.c defines a position's candidate without the parse (every position not of the run
 * symbol z with 4 symbols left enters the table), and whether a match at i qualifies (at least
 * GPZ_LZS_MATCH_MIN symbols, replacing at least GPZ_LZS_MATCH_TOKENS literals and runs) depends
 * on i alone. So a warp takes a tile of 32 positions at a time:
 *   1. candidates for all of them at once: __match_any_sync finds the last earlier lane of the
 *      same hash bucket, the warp's table (shared memory) the last position of earlier tiles;
 *      then the tile's positions enter the table (the last lane of each bucket writes);
 *   2. the parse's only sequential part: which matches are taken, in lane order, skipping
 *      positions a taken match covers (the warp measures each candidate together, 32 symbols a
 *      step; there are few);
 *   3. the tokens: a literal at each free position not of z, a match where one was taken, a run
 *      where a run of z begins (after a symbol not z, where a taken match ends, at the chunk's
 *      start), ending at the next symbol not z; a run still open at the end of a tile is carried
 *      into the next, and closed first there.
 * Stretches with no symbol other than z (nearly all of Nyx-Quant) take a fast path, 512 bytes
 * a step when the input is 16-byte aligned (then the next 512 bytes go tile by tile whenever
 * the test fails, so dense data reads little twice), else a tile: at most a run opens.
 * Tokens are then counted (warp-aggregated atomics), summed into the chunk's bit length, or
 * written at their bit offsets (a warp scan) with atomicOr into big-endian words.
 */
#include "lzsym/lzsym_gpu.h"
#include "gpu/cuda_check.h"
#include "gpu/warp.cuh"

#include <string.h>

#define WARPS 4                        /* warps a block, each with a table of its own */
#define HSIZE (1u << GPZ_LZS_HASH_LOG) /* a warp's table: 8 KiB of shared memory (16 KiB when
                                          chunks are longer than 2^15 symbols) */
#define FULL 0xffffffffu
#define NB GPZ_LZS_BUCKETS

enum { PASS_COUNT, PASS_SIZE, PASS_WRITE };
enum { TOK_NONE, TOK_LIT, TOK_RUN, TOK_MATCH };

struct tparams {
	const uint8_t *src;
	uint64_t n, nchunks;
	int w, chunk_log;
	uint32_t alphabet, z;
	uint32_t *counts;                        /* PASS_COUNT */
	const uint8_t *main_len, *dist_len;      /* PASS_SIZE */
	uint32_t *chunk_bits;                    /* PASS_SIZE */
	const uint32_t *main_table, *dist_table; /* PASS_WRITE */
	const uint64_t *chunk_start;             /* PASS_WRITE */
	uint32_t *words;                         /* PASS_WRITE */
	uint2 *tok;      /* chunk c's tokens at tok + c * tok_cap: {value, kind << 30 | distance} */
	uint32_t *ntok;  /* chunk c's token count (more than tok_cap: not kept, made again) */
	uint32_t tok_cap;
	bool aligned;    /* src is aligned to the symbol width: one load a symbol */
};

/* Symbol i, little-endian: one load when the input is aligned to the width, else a byte at a
 * time (device buffers of the API need no alignment). */
__device__ __forceinline__ uint32_t sym_at(const tparams &p, uint64_t i)
{
	const uint8_t *q = p.src + i * (uint64_t)p.w;
	if (p.w == 1)
		return __ldg(q);
	if (p.aligned)
		return p.w == 2 ? (uint32_t)__ldg((const uint16_t *)q) : __ldg((const uint32_t *)q);
	if (p.w == 2)
		return (uint32_t)__ldg(q) | (uint32_t)__ldg(q + 1) << 8;
	return (uint32_t)__ldg(q) | (uint32_t)__ldg(q + 1) << 8 | (uint32_t)__ldg(q + 2) << 16 |
	       (uint32_t)__ldg(q + 3) << 24;
}

/* match.c's hash4 of the symbols at lane.. lane + 3 of a tile (s the lane's symbol, nx the
 * lane's symbol of the next tile, needed in lanes 0-2): from the warp's registers */
__device__ __forceinline__ uint32_t hash4(uint32_t s, uint32_t nx, unsigned lane, int w)
{
	uint32_t t[3];
	for (unsigned k = 1; k <= 3; k++) {
		const uint32_t a = __shfl_sync(FULL, s, (lane + k) & 31);
		const uint32_t b = __shfl_sync(FULL, nx, (lane + k) & 31);
		t[k - 1] = lane + k < 32 ? a : b;
	}
	return gpz_lzs_hash_syms(s, t[0], t[1], t[2], w);
}

/* A token as coded: main symbol, its extra bits, and for a match the distance symbol and its. */
struct fields {
	uint32_t ms, xv, ds, dv;
	unsigned xn, dn;
	bool match;
};

__device__ __forceinline__ fields split(const tparams &p, uint32_t kind, uint32_t v, uint32_t d)
{
	fields f = { 0, 0, 0, 0, 0, 0, false };
	if (kind == TOK_LIT) {
		f.ms = v;
	} else if (kind == TOK_RUN) {
		unsigned b = gpz_lzs_bucket(v - 1);
		f.ms = p.alphabet + b;
		f.xn = gpz_lzs_extra_bits(b);
		f.xv = v - 1 - gpz_lzs_base(b);
	} else if (kind == TOK_MATCH) {
		unsigned b = gpz_lzs_bucket(v - GPZ_LZS_MIN_MATCH), e = gpz_lzs_bucket(d - 1);
		f.ms = p.alphabet + NB + b;
		f.xn = gpz_lzs_extra_bits(b);
		f.xv = v - GPZ_LZS_MIN_MATCH - gpz_lzs_base(b);
		f.ds = e;
		f.dn = gpz_lzs_extra_bits(e);
		f.dv = d - 1 - gpz_lzs_base(e);
		f.match = true;
	}
	return f;
}

/* OR the low nb (<= 32) bits of v into the MSB-first stream at bit `at`; the stream is kept as
 * big-endian words, so the bytes in memory are the stream's. */
__device__ __forceinline__ void put_bits(uint32_t *words, uint64_t at, uint32_t v, unsigned nb)
{
	if (!nb)
		return;
	uint64_t x = ((uint64_t)v << (64 - nb)) >> (at & 31);
	uint32_t hi = (uint32_t)(x >> 32), lo = (uint32_t)x;
	atomicOr(words + (at >> 5), __byte_perm(hi, 0, 0x0123));
	if (lo)
		atomicOr(words + (at >> 5) + 1, __byte_perm(lo, 0, 0x0123));
}

/*
 * One token from each lane (kind TOK_NONE: none), in lane order after everything before: counted
 * into the histogram (and kept at keep[at..], at counting them), or its bits added to at
 * (uniform across the warp), or written there.
 */
template <int PASS>
__device__ __forceinline__ void emit(const tparams &p, uint32_t kind, uint32_t v, uint32_t d,
                                     unsigned lane, uint64_t &at, uint2 *keep)
{
	const fields f = split(p, kind, v, d);
	if (PASS == PASS_COUNT) {
		const uint32_t g = __match_any_sync(FULL, kind ? f.ms : 0xffffffffu);
		if (kind && lane == (unsigned)__ffs(g) - 1)
			atomicAdd(p.counts + f.ms, (uint32_t)__popc(g));
		if (f.match)
			atomicAdd(p.counts + p.alphabet + GPZ_LZS_EXTRA + f.ds, 1u);
		const uint32_t km = __ballot_sync(FULL, kind != TOK_NONE);
		const uint64_t k = at + (uint64_t)__popc(km & ((1u << lane) - 1));
		if (keep && kind && k < p.tok_cap)
			keep[k] = make_uint2(v, kind << 30 | d);
		at += (uint64_t)__popc(km);
		return;
	}
	uint32_t nb = 0, mc = 0, dc = 0;
	if (kind && PASS == PASS_SIZE) {
		nb = p.main_len[f.ms] + f.xn + (f.match ? p.dist_len[f.ds] + f.dn : 0);
	} else if (kind) {
		mc = p.main_table[f.ms];
		dc = f.match ? p.dist_table[f.ds] : 0;
		nb = (mc & 0xff) + f.xn + (dc & 0xff) + f.dn;
	}
	const uint32_t x = gpz_warp_scan(nb);
	if (PASS == PASS_WRITE && kind) {
		uint64_t b = at + x - nb;
		put_bits(p.words, b, mc >> 8, mc & 0xff);
		b += mc & 0xff;
		put_bits(p.words, b, f.xv, f.xn);
		b += f.xn;
		if (f.match) {
			put_bits(p.words, b, dc >> 8, dc & 0xff);
			b += dc & 0xff;
			put_bits(p.words, b, f.dv, f.dn);
		}
	}
	at += __shfl_sync(FULL, x, 31);
}

/*
 * The match of symbols b.. against a.. (a < b), at most maxlen symbols, measured by the warp 32
 * symbols a step: *len the symbols equal (match.c's match_len), *alt the literals and runs they
 * would take without the match (alt_tokens: a symbol counts when it or the one before it in
 * the match is not z; the first always counts).
 */
__device__ void measure(const tparams &p, uint64_t a, uint64_t b, uint64_t maxlen, unsigned lane,
                        uint32_t *len, uint32_t *alt)
{
	uint32_t l = 0, t = 0;
	bool prev_nz = true;
	for (uint64_t off = 0; off < maxlen; off += 32) {
		const uint64_t k = off + lane;
		const bool in = k < maxlen;
		const uint32_t x = in ? sym_at(p, a + k) : 0;
		const uint32_t y = in ? sym_at(p, b + k) : 0;
		const uint32_t ne = __ballot_sync(FULL, !in || x != y);
		const unsigned eq = ne ? (unsigned)__ffs(ne) - 1 : 32;
		const uint32_t ynz = __ballot_sync(FULL, y != p.z);
		const bool pn = lane ? (ynz >> (lane - 1)) & 1u : prev_nz;
		t += (uint32_t)__popc(__ballot_sync(FULL, lane < eq && (((ynz >> lane) & 1u) || pn)));
		l += eq;
		if (eq < 32)
			break;
		prev_nz = ynz >> 31;
	}
	*len = l;
	*alt = t;
}

/* A chunk's tokens as the count pass kept them, coded again (sizes or bits). */
template <int PASS>
__device__ void replay(const tparams &p, const uint2 *tk, uint32_t nt, unsigned lane,
                       uint64_t &at)
{
	for (uint32_t k0 = 0; k0 < nt; k0 += 32) {
		uint32_t kind = TOK_NONE, v = 0, d = 0;
		if (k0 + lane < nt) {
			const uint2 t = tk[k0 + lane];
			v = t.x;
			kind = t.y >> 30;
			d = t.y & 0x3fffffffu;
		}
		emit<PASS>(p, kind, v, d, lane, at, nullptr);
	}
}

/* H: a table entry, uint16_t when chunk-relative positions + 1 fit (chunks up to 2^15) */
template <int PASS, typename H>
__global__ void __launch_bounds__(WARPS * 32) tokens_kernel(const tparams p)
{
	extern __shared__ uint32_t s_heads[];
	const unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
	const uint32_t lt = (1u << lane) - 1, gt = ~lt & ~(1u << lane);
	H *head = (H *)s_heads + wib * HSIZE;
	const uint64_t warps = (uint64_t)gridDim.x * WARPS;
	/* the wide test: 16 bytes a lane against z repeated (tiles start at multiples of 32
	 * symbols, so their bytes are 16-byte aligned when the input is) */
	const bool wide_ok = ((uintptr_t)p.src & 15) == 0;
	const uint64_t wide = 512 / (unsigned)p.w;
	const uint32_t zpat = p.w == 1 ? p.z * 0x01010101u : p.w == 2 ? p.z | p.z << 16 : p.z;

	for (uint64_t c = (uint64_t)blockIdx.x * WARPS + wib; c < p.nchunks; c += warps) {
		const uint64_t c0 = c << p.chunk_log;
		const uint64_t c1 = p.n - c0 < (1ull << p.chunk_log) ? p.n : c0 + (1ull << p.chunk_log);
		uint64_t cov = c0; /* positions before cov are covered by a taken match */
		uint64_t run_from = 0, at = PASS == PASS_WRITE ? p.chunk_start[c] : 0;
		bool run_open = false;
		bool last_free = false, last_nz = true; /* position t0 - 1: the chunk's start begins a run */
		uint2 *keep = PASS == PASS_COUNT && p.tok ? p.tok + c * p.tok_cap : nullptr;

		if (PASS != PASS_COUNT && p.tok && p.ntok[c] <= p.tok_cap) { /* kept: replayed */
			replay<PASS>(p, p.tok + c * p.tok_cap, p.ntok[c], lane, at);
			if (PASS == PASS_SIZE && lane == 0)
				p.chunk_bits[c] = (uint32_t)at;
			continue;
		}

		for (unsigned k = lane; k < HSIZE * sizeof(H) / 16; k += 32)
			((uint4 *)head)[k] = make_uint4(0, 0, 0, 0); /* positions + 1 in the chunk; 0: none */
		__syncwarp();
		uint64_t step = 32, next_wide = c0;
		uint32_t s_next = 0;  /* the lane's symbol of the next tile, loaded ahead */
		bool have_next = false;
		for (uint64_t t0 = c0; t0 < c1; t0 += step) {
			step = 32;
			if (wide_ok && t0 >= next_wide && c1 - t0 >= wide) { /* 512 bytes of z only? */
				/* two blocks' loads in flight when there are two */
				const uint4 *b = (const uint4 *)(p.src + t0 * (uint64_t)p.w) + lane;
				const bool two = c1 - t0 >= 2 * wide;
				const uint4 q = __ldg(b), r = two ? __ldg(b + 32) : q;
				const bool zq = !__ballot_sync(FULL, q.x != zpat || q.y != zpat ||
				                                         q.z != zpat || q.w != zpat);
				const bool zr = two && !__ballot_sync(FULL, r.x != zpat || r.y != zpat ||
				                                                r.z != zpat || r.w != zpat);
				if (zq) {
					step = zr ? 2 * wide : wide;
					if (!run_open && cov < t0 + step) {
						run_open = true;
						run_from = cov > t0 ? cov : t0;
					}
					last_free = cov < t0 + step;
					last_nz = false;
					have_next = false;
					continue;
				}
				next_wide = t0 + wide; /* not before these positions went tile by tile */
			}
			const uint64_t i = t0 + lane, tend = c1 - t0 < 32 ? c1 : t0 + 32;
			const bool valid = i < c1;
			const uint32_t s = !valid ? p.z : have_next ? s_next : sym_at(p, i);
			/* the next tile's symbol now, so its load overlaps this tile's work (lanes 0-2
			 * need it for their hashes too) */
			s_next = i + 32 < c1 ? sym_at(p, i + 32) : p.z;
			have_next = true;
			const bool nz = valid && s != p.z;
			const uint32_t nzm = __ballot_sync(FULL, nz);

			if (nzm == 0) { /* all z: an open run goes on, else one begins at the first free */
				if (!run_open && cov < tend) {
					run_open = true;
					run_from = cov > t0 ? cov : t0;
				}
				last_free = cov < tend;
				last_nz = false;
				continue;
			}
			/* 1. candidates, then the tile enters the table */
			const bool hl = nz && c1 - i >= GPZ_LZS_MATCH_MIN;
			const uint32_t h4 = hash4(s, s_next, lane, p.w), h = hl ? h4 : 0;
			const uint32_t grp = __match_any_sync(FULL, hl ? h : 0x80000000u | lane);
			uint32_t cand = 0;
			if (hl) {
				const uint32_t pred = grp & lt;
				cand = pred ? (uint32_t)(t0 - c0) + (31u - (unsigned)__clz(pred)) + 1 : head[h];
			}
			__syncwarp();
			if (hl && !(grp & gt))
				head[h] = (H)(i - c0 + 1);
			__syncwarp();

			/* 2. the matches taken, in order */
			const uint64_t cov_in = cov;
			uint32_t m = __ballot_sync(FULL, cand != 0), taken = 0, my_len = 0, my_dist = 0;
			while (m) {
				const unsigned l = (unsigned)__ffs(m) - 1;
				m &= m - 1;
				if (t0 + l < cov)
					continue;
				const uint64_t il = t0 + l, pl = c0 + __shfl_sync(FULL, cand, l) - 1;
				uint32_t len, alt;
				measure(p, pl, il, c1 - il, lane, &len, &alt);
				if (len >= GPZ_LZS_MATCH_MIN && alt >= GPZ_LZS_MATCH_TOKENS) {
					taken |= 1u << l;
					cov = il + len;
					if (lane == l) {
						my_len = len;
						my_dist = (uint32_t)(il - pl);
					}
				}
			}

			/* 3. free positions (no taken match covers them), run starts, tokens */
			const uint32_t tb = taken & lt;
			const unsigned sl = tb ? 31u - (unsigned)__clz(tb) : 0;
			const uint32_t sl_len = __shfl_sync(FULL, my_len, sl);
			const bool fr = valid && (tb ? i >= t0 + sl + sl_len : i >= cov_in);
			const uint32_t frm = __ballot_sync(FULL, fr);
			const bool pfree = lane ? (frm >> (lane - 1)) & 1u : last_free;
			const bool pnz = lane ? (nzm >> (lane - 1)) & 1u : last_nz;
			const bool rs = fr && !nz && (!pfree || pnz);
			const uint32_t rsm = __ballot_sync(FULL, rs);

			if (run_open) { /* closed by the tile's first symbol not z */
				const uint64_t len = t0 + (unsigned)__ffs(nzm) - 1 - run_from;
				emit<PASS>(p, lane == 0 ? TOK_RUN : TOK_NONE, (uint32_t)len, 0, lane, at, keep);
				run_open = false;
			}
			uint32_t kind = TOK_NONE, v = 0, d = 0;
			if (fr && nz) {
				kind = (taken >> lane) & 1u ? TOK_MATCH : TOK_LIT;
				v = kind == TOK_MATCH ? my_len : s;
				d = my_dist;
			} else if (rs) {
				const uint32_t after = nzm & ~((2u << lane) - 1);
				if (after) {
					kind = TOK_RUN;
					v = (uint32_t)__ffs(after) - 1 - lane;
				}
			}
			emit<PASS>(p, kind, v, d, lane, at, keep);
			if (rsm) { /* the tile's last run start with no symbol not z after it stays open */
				const unsigned lr = 31u - (unsigned)__clz(rsm);
				if (!(nzm & ~((2u << lr) - 1))) {
					run_open = true;
					run_from = t0 + lr;
				}
			}
			last_free = frm >> 31;
			last_nz = nzm >> 31;
		}
		if (run_open)
			emit<PASS>(p, lane == 0 ? TOK_RUN : TOK_NONE, (uint32_t)(c1 - run_from), 0, lane,
			           at, keep);
		if (PASS == PASS_SIZE && lane == 0)
			p.chunk_bits[c] = (uint32_t)at;
		if (keep && lane == 0)
			p.ntok[c] = (uint32_t)at;
		__syncwarp();
	}
}

template <int PASS, typename H>
static gpz_result launch_as(const tparams &kp, gpz_stream_t stream)
{
	const size_t smem = WARPS * HSIZE * sizeof(H);
	int dev = 0, sms = 0, per = 0;
	GPZ_CUDA_TRY(cudaFuncSetAttribute(tokens_kernel<PASS, H>,
	                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	GPZ_CUDA_TRY(cudaGetDevice(&dev));
	GPZ_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	GPZ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, tokens_kernel<PASS, H>,
	                                                           WARPS * 32, smem));
	uint64_t want = (kp.nchunks + WARPS - 1) / WARPS, most = (uint64_t)sms * (per > 0 ? per : 1);
	tokens_kernel<PASS, H><<<(unsigned)(want < most ? want : most), WARPS * 32, smem,
	                         (cudaStream_t)stream>>>(kp);
	GPZ_LAUNCH_TRY();
	return GPZ_OK;
}

template <int PASS>
static gpz_result launch(const tparams &kp, gpz_stream_t stream)
{
	if (kp.nchunks == 0)
		return GPZ_OK;
	if (kp.chunk_log <= 15)
		return launch_as<PASS, uint16_t>(kp, stream);
	return launch_as<PASS, uint32_t>(kp, stream);
}

static tparams params_of(const struct gpz_lzs_gpu_src *s)
{
	tparams kp;
	memset(&kp, 0, sizeof(kp));
	kp.src = s->d_src;
	kp.n = s->n;
	kp.nchunks = s->n ? ((s->n - 1) >> s->chunk_log) + 1 : 0;
	kp.w = s->w;
	kp.chunk_log = s->chunk_log;
	kp.alphabet = s->alphabet;
	kp.z = s->z;
	kp.aligned = ((uintptr_t)s->d_src & (uintptr_t)(s->w - 1)) == 0;
	kp.tok = (uint2 *)s->d_tokens;
	kp.ntok = s->d_ntok;
	kp.tok_cap = GPZ_LZS_GPU_KEEP(s->chunk_log, s->w);
	return kp;
}

gpz_result gpz_gpu_lzs_count(const struct gpz_lzs_gpu_src *s, uint32_t *d_counts,
                             gpz_stream_t stream)
{
	tparams kp = params_of(s);
	kp.counts = d_counts;
	GPZ_CUDA_TRY(cudaMemsetAsync(d_counts, 0,
	                             ((size_t)s->alphabet + GPZ_LZS_EXTRA + NB) * sizeof(uint32_t),
	                             (cudaStream_t)stream));
	return launch<PASS_COUNT>(kp, stream);
}

gpz_result gpz_gpu_lzs_sizes(const struct gpz_lzs_gpu_src *s, const uint8_t *d_main_len,
                             const uint8_t *d_dist_len, uint32_t *d_chunk_bits,
                             gpz_stream_t stream)
{
	tparams kp = params_of(s);
	kp.main_len = d_main_len;
	kp.dist_len = d_dist_len;
	kp.chunk_bits = d_chunk_bits;
	return launch<PASS_SIZE>(kp, stream);
}

gpz_result gpz_gpu_lzs_write(const struct gpz_lzs_gpu_src *s, const uint32_t *d_main_table,
                             const uint32_t *d_dist_table, const uint64_t *d_chunk_start,
                             uint32_t *d_words, size_t nwords, gpz_stream_t stream)
{
	tparams kp = params_of(s);
	kp.main_table = d_main_table;
	kp.dist_table = d_dist_table;
	kp.chunk_start = d_chunk_start;
	kp.words = d_words;
	GPZ_CUDA_TRY(cudaMemsetAsync(d_words, 0, nwords * sizeof(uint32_t), (cudaStream_t)stream));
	return launch<PASS_WRITE>(kp, stream);
}
