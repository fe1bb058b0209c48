/* deflate.cu - raw DEFLATE streams on the GPU, bit for bit those of the CPU's piece driver
 * (pieces.c) and block writer (block_core.h).
 *
 * The input is cut into pieces of GPZ_DEFLATE_PIECE bytes exactly as stream.c cuts a stream. The
 * LZ77 tokens come from match.cu's stages (every position's matches in parallel, then the CPU's
 * parse per piece, with the 32 KiB before the piece as history). The block writer runs in
 * parallel: unit_kernel counts the symbols of every 2048-token unit (blocks are whole units, so a
 * piece's units are counted independently); plan_kernel, a warp per piece, makes the CPU's block
 * decisions (gpz_dfl_next_block / put_block arithmetic) from the units' counts, writes block
 * headers, stored blocks and the piece's ending (BFINAL, or the sync marker that leaves the next
 * piece on a byte boundary); write_kernel, a warp per unit, writes the unit's codes at the bit
 * offset the plan gave it. Pieces are whole bytes, so scan_kernel lays their lengths end to end
 * and join_kernel copies them into place.
 *
 * Pieces go in batches of at most BATCH, so the workspace (chain links, matches, guessed and
 * final tokens and output slots: about 5 MiB a piece) stays bounded for large inputs.
 */
#include "deflate/block_core.h"
#include "deflate/code_warp.cuh"
#include "gpu/warp.cuh"
#include "deflate/deflate_gpu.h"
#include "gpu/cuda_check.h"
#include "lz/lz_gpu.h"

#include <cub/block/block_scan.cuh>

namespace {

constexpr size_t PIECE = GPZ_DEFLATE_PIECE;
constexpr size_t BATCH = 1024; /* pieces per batch */

constexpr unsigned UNIT = GPZ_DFL_UNIT_TOKENS; /* blocks are whole units but the last */
constexpr size_t UMAX = PIECE / UNIT;          /* units a piece may have */
constexpr uint64_t NO_OFF = ~(uint64_t)0;      /* a unit of a stored block */

/* What a unit's writer needs of its block's code (bit-reversed codes, lengths). */
struct blk_code {
	uint32_t lcode[GPZ_DFL_NLIT], dcode[GPZ_DFL_NDIST];
	uint8_t llen[GPZ_DFL_NLIT], dlen[GPZ_DFL_NDIST];
};

/* The bit writer's capacity per piece (the CPU's) and the slot around it (the partial last byte
 * goes after the whole ones). */
size_t piece_cap()
{
	return gpz_dfl_piece_cap(PIECE);
}
size_t out_slot()
{
	return gpz_align256(piece_cap() + 16);
}

struct layout {
	size_t np, nb; /* pieces, pieces per batch */
	size_t tab, bits, off, res, ntok, links, pure, run, tok, slots, total;
	/* the block writer's per-unit data, inside pure (free once the parse has run) */
	size_t ufreq, unbytes, uoff, ucode, codes;
};

layout layout_for(size_t n)
{
	layout l;
	l.np = n ? (n - 1) / PIECE + 1 : 1;
	l.nb = l.np < BATCH ? l.np : BATCH;
	l.tab = 0;
	l.bits = l.tab + gpz_align256(GPZ_DFL_LOG_TAB * sizeof(uint32_t));
	l.off = l.bits + gpz_align256(l.np * sizeof(uint64_t));
	l.res = l.off + gpz_align256((l.np + 1) * sizeof(uint64_t));
	l.ntok = l.res + gpz_align256(l.np * sizeof(int));
	l.links = l.ntok + gpz_align256(l.nb * sizeof(uint32_t));
	l.pure = l.links + gpz_align256((l.nb * PIECE + GPZ_LZ_WINDOW) * sizeof(uint16_t));
	l.run = l.pure + gpz_align256(l.nb * PIECE * 2 * sizeof(uint32_t));
	l.tok = l.run + gpz_align256(gpz_lz_gpu_run_work(l.nb, PIECE));
	l.slots = l.tok + gpz_align256(l.nb * PIECE * sizeof(uint32_t));
	l.total = l.slots + l.nb * out_slot();
	l.ufreq = l.pure;
	l.unbytes = l.ufreq + gpz_align256(l.nb * UMAX * sizeof(gpz_dfl_freqs));
	l.uoff = l.unbytes + gpz_align256(l.nb * UMAX * sizeof(uint32_t));
	l.ucode = l.uoff + gpz_align256(l.nb * UMAX * sizeof(uint64_t));
	l.codes = l.ucode + gpz_align256(l.nb * UMAX * sizeof(uint32_t));
	static_assert(UMAX * (sizeof(gpz_dfl_freqs) + 16 + sizeof(blk_code)) + 1024 <
	                  PIECE * 2 * sizeof(uint32_t),
	              "the unit data fits where the matches were");
	return l;
}

__global__ void log_tab_kernel(uint32_t *tab)
{
	unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
	gpz_dfl_log_fill(tab, x, x + 1);
}

/*
 * The block writer, in three kernels that together write exactly gpz_dfl_blocks' bits. Blocks
 * are whole units of UNIT tokens (but a piece's last), so a piece's units can be counted in
 * parallel (unit_kernel), one warp per piece then makes the CPU's decisions from the units'
 * counts alone - where blocks end, their codes and kinds, every unit's bit offset - and writes
 * the block headers, end-of-block codes and stored blocks (plan_kernel), and one thread per unit
 * writes its tokens' codes at its offset (write_kernel). Slots start zeroed; writers only OR
 * bits into words others may share.
 */

/* Counts of unit u of piece q (blockIdx.x = q * UMAX + u): literal/lengths, distances, and the
 * input bytes the unit covers. */
__global__ void __launch_bounds__(128)
unit_kernel(uint8_t *work, layout l)
{
	__shared__ uint32_t f[GPZ_DFL_NLIT + GPZ_DFL_NDIST];
	__shared__ uint32_t nbytes;
	const size_t q = blockIdx.x / UMAX, u = blockIdx.x % UMAX;
	const uint32_t nt = reinterpret_cast<const uint32_t *>(work + l.ntok)[q];
	if (u * UNIT >= nt)
		return;
	const uint32_t *tok = reinterpret_cast<const uint32_t *>(work + l.tok) + q * PIECE + u * UNIT;
	const unsigned cnt = nt - u * UNIT < UNIT ? nt - (unsigned)(u * UNIT) : UNIT;
	for (unsigned i = threadIdx.x; i < GPZ_DFL_NLIT + GPZ_DFL_NDIST; i += blockDim.x)
		f[i] = 0;
	if (threadIdx.x == 0)
		nbytes = 0;
	__syncthreads();
	unsigned mine = 0;
	for (unsigned i = threadIdx.x; i < cnt; i += blockDim.x) {
		uint32_t t = tok[i];
		if (t & GPZ_TOK_MATCH) {
			unsigned len = gpz_dfl_tok_len(t);
			atomicAdd(&f[257 + gpz_dfl_len_code(len)], 1u);
			atomicAdd(&f[GPZ_DFL_NLIT + gpz_dfl_dist_code(gpz_dfl_tok_dist(t))], 1u);
			mine += len;
		} else {
			atomicAdd(&f[t], 1u);
			mine++;
		}
	}
	atomicAdd(&nbytes, mine);
	__syncthreads();
	uint32_t *out = reinterpret_cast<uint32_t *>(
		reinterpret_cast<gpz_dfl_freqs *>(work + l.ufreq) + blockIdx.x);
	for (unsigned i = threadIdx.x; i < GPZ_DFL_NLIT + GPZ_DFL_NDIST; i += blockDim.x)
		out[i] = f[i];
	if (threadIdx.x == 0)
		reinterpret_cast<uint32_t *>(work + l.unbytes)[blockIdx.x] = nbytes;
}

/* A bit writer picking up at bit pos of a slot whose bits from pos on are still zero. */
__device__ void bw_resume(gpz_bitw *bw, uint8_t *slot, size_t cap, uint64_t pos)
{
	bw->p = slot + pos / 8;
	bw->end = slot + cap;
	bw->nb = (unsigned)(pos % 8);
	/* from L2: the warp's atomics (put_rle_warp) may have written that byte */
	bw->acc = bw->nb ? __ldcg(slot + pos / 8) & ((1u << bw->nb) - 1) : 0;
	bw->overflow = 0;
}

/* Store its partial byte; returns the bit position it reached. */
__device__ uint64_t bw_suspend(gpz_bitw *bw, uint8_t *slot, int *overflow)
{
	if (bw->nb && bw->p <= bw->end)
		*bw->p = (uint8_t)bw->acc;
	*overflow |= bw->overflow;
	return (uint64_t)(bw->p - slot) * 8 + bw->nb;
}

/* ---- plan_kernel: one warp per piece; lanes share the per-symbol loops, lane 0 does the rest */

constexpr unsigned NSYM = GPZ_DFL_NLIT + GPZ_DFL_NDIST; /* a gpz_dfl_freqs as one array */

__device__ uint64_t warp_sum(uint64_t v)
{
	for (int k = 16; k; k >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, k);
	return v;
}

/* A lane's share of a warp's loop over the NSYM counts: symbols lane, lane + 32, ... */
constexpr unsigned PER_LANE = (NSYM + 31) / 32;

/* gpz_dfl_est of the counts f[0 .. NSYM) (literal/lengths, then distances): the same integer
 * sums, taken by 32 lanes. A lane loads all its counts, then all their logs, before it sums:
 * a loop that waited on each count and then on its log (f is often global memory, the table
 * always) was the plan's largest stall (ncu, level 1). */
__device__ uint64_t est_warp(const uint32_t *f, const uint32_t *tab)
{
	const unsigned lane = threadIdx.x % 32;
	uint32_t c[PER_LANE], lg[PER_LANE];
#pragma unroll
	for (unsigned k = 0; k < PER_LANE; k++) {
		const unsigned i = lane + 32 * k;
		c[k] = i < NSYM ? f[i] : 0;
	}
#pragma unroll
	for (unsigned k = 0; k < PER_LANE; k++)
		lg[k] = tab[c[k] < GPZ_DFL_LOG_TAB ? c[k] : 0];
	uint64_t tl = 0, sl = 0, td = 0, sd = 0, used = 0;
#pragma unroll
	for (unsigned k = 0; k < PER_LANE; k++) {
		const unsigned i = lane + 32 * k;
		if (!c[k])
			continue;
		const uint64_t l = c[k] < GPZ_DFL_LOG_TAB ? lg[k] : gpz_dfl_log2_calc(c[k]);
		used++;
		if (i < GPZ_DFL_NLIT) {
			tl += c[k];
			sl += (uint64_t)c[k] * l;
		} else {
			td += c[k];
			sd += (uint64_t)c[k] * l;
		}
	}
	tl = warp_sum(tl);
	sl = warp_sum(sl);
	td = warp_sum(td);
	sd = warp_sum(sd);
	used = warp_sum(used);
	uint64_t bits = (tl ? tl * gpz_dfl_log2((uint32_t)tl, tab) - sl : 0) +
	                (td ? td * gpz_dfl_log2((uint32_t)td, tab) - sd : 0);
	return bits + ((80 + (uint64_t)GPZ_DFL_HEADER_BITS_PER_SYMBOL * used) << GPZ_DFL_LOG_FRAC);
}

/* Bits of a unit's tokens under a block's code lengths (no end-of-block code), by 32 lanes
 * (the counts, in global memory, loaded first as in est_warp). */
__device__ uint64_t unit_bits_warp(const uint32_t *f, const uint8_t *llen, const uint8_t *dlen)
{
	const unsigned lane = threadIdx.x % 32;
	uint32_t c[PER_LANE];
#pragma unroll
	for (unsigned k = 0; k < PER_LANE; k++) {
		const unsigned i = lane + 32 * k;
		c[k] = i < NSYM ? f[i] : 0;
	}
	uint64_t bits = 0;
#pragma unroll
	for (unsigned k = 0; k < PER_LANE; k++) {
		const unsigned i = lane + 32 * k;
		if (!c[k])
			continue;
		if (i < GPZ_DFL_NLIT)
			bits += (uint64_t)c[k] * (llen[i] + (i >= 257 ? gpz_dfl_len_extra(i - 257) : 0));
		else
			bits += (uint64_t)c[k] * (dlen[i - GPZ_DFL_NLIT] +
			                          gpz_dfl_dist_extra(i - GPZ_DFL_NLIT));
	}
	return warp_sum(bits);
}

/* gpz_dfl_plan_dynamic by the warp (code_warp.cuh); then the bits of the block with the dynamic
 * and with the fixed code (gpz_dfl_dynamic_bits, gpz_dfl_fixed_bits), the sums taken by 32
 * lanes. lf[256] must be set. */
/* plan_kernel's shared memory: small enough for 8 warps an SM, one wave of a batch's pieces
 * (the fixed code, when chosen, takes the dynamic one's place; the block decisions' running
 * counts share the code builder's copies of the counts, which are made only afterwards). */
struct plan_scratch {
	gpz_dfl_freqs blk; /* the block's counts */
	union {
		uint32_t cur[NSYM];
		struct {
			uint32_t lfc[GPZ_DFL_NLIT], dfc[GPZ_DFL_NDIST], clfreq[GPZ_DFL_NCL];
		} f;
	} u;
	uint8_t all[GPZ_DFL_NLIT + GPZ_DFL_NDIST];
	gpz_dfl_codes dyn;
	gpz_dfl_huff huff;
	gpz_dfl_warp::small small;
	uint64_t pos;
};

__device__ void plan_dynamic_warp(plan_scratch *s, gpz_dfl_warp::small *sm, uint64_t *dyn,
                                  uint64_t *fix)
{
	const unsigned lane = threadIdx.x % 32;
	const uint32_t *lf = s->blk.lf, *df = s->blk.df;
	gpz_dfl_codes *b = &s->dyn;
	uint32_t *lfc = s->u.f.lfc, *dfc = s->u.f.dfc, *clfreq = s->u.f.clfreq;
	for (unsigned i = lane; i < GPZ_DFL_NLIT; i += 32)
		lfc[i] = lf[i];
	for (unsigned i = lane; i < GPZ_DFL_NDIST; i += 32)
		dfc[i] = df[i];
	for (unsigned i = lane; i < GPZ_DFL_NCL; i += 32)
		clfreq[i] = 0;
	__syncwarp();
	gpz_dfl_warp::build_code(lfc, GPZ_DFL_NLIT, 15, b->llen, b->lcode, &s->huff, sm);
	gpz_dfl_warp::build_code(dfc, GPZ_DFL_NDIST, 15, b->dlen, b->dcode, &s->huff, sm);
	if (lane == 0)
		gpz_dfl_trim_lengths(b);
	__syncwarp();
	/* the run starts in the builder's scratch, free between builds */
	gpz_dfl_warp::rle_lengths(b, clfreq, s->all, s->huff.parent);
	gpz_dfl_warp::build_code(clfreq, GPZ_DFL_NCL, 7, b->cllen, b->clcode, &s->huff, sm);
	if (lane == 0)
		gpz_dfl_trim_cl(b);
	__syncwarp();
	uint64_t d = 0, f = 0;
	for (unsigned i = lane; i < b->nrle; i += 32)
		d += b->cllen[b->rle[i]] + gpz_dfl_cl_extra(b->rle[i]);
	for (unsigned i = lane; i < GPZ_DFL_NLIT; i += 32) {
		unsigned x = i >= 257 ? gpz_dfl_len_extra(i - 257) : 0;
		d += (uint64_t)lf[i] * (b->llen[i] + x);
		f += (uint64_t)lf[i] * (gpz_dfl_fixed_llen(i) + x);
	}
	for (unsigned i = lane; i < GPZ_DFL_NDIST; i += 32) {
		d += (uint64_t)df[i] * (b->dlen[i] + gpz_dfl_dist_extra(i));
		f += (uint64_t)df[i] * (5 + gpz_dfl_dist_extra(i));
	}
	*dyn = warp_sum(d) + 3 + 5 + 5 + 4 + 3 * (uint64_t)b->hclen;
	*fix = warp_sum(f) + 3;
}

/* A dynamic header's run-length coded lengths (gpz_dfl_put_dynamic_header after its counts),
 * ORed into the slot from bit pos on by the warp: 32 items at a time, their bit offsets from a
 * scan of their lengths. The slot's bits from pos on are zero and its words 4-byte aligned (the
 * slots are 256-byte aligned); an item that would end past cap bytes is not written, and
 * *overflow is set as the serial writer would. Returns the bit position after the items (one lane
 * putting them was a tenth of plan_kernel's time). */
__device__ uint64_t put_rle_warp(const gpz_dfl_codes *c, uint8_t *slot, size_t cap, uint64_t pos,
                                 int *overflow)
{
	const unsigned lane = threadIdx.x % 32;
	uint32_t *w = reinterpret_cast<uint32_t *>(slot);
	for (unsigned i0 = 0; i0 < c->nrle; i0 += 32) {
		const unsigned i = i0 + lane;
		uint32_t v = 0;
		const unsigned nb = i < c->nrle ? gpz_dfl_rle_bits(c, i, &v) : 0;
		const unsigned x = gpz_warp_scan(nb);
		const uint64_t p = pos + x - nb;
		if (nb && p + nb <= 8 * (uint64_t)cap) {
			const unsigned sh = (unsigned)(p % 32);
			atomicOr(&w[p / 32], v << sh);
			if (sh + nb > 32)
				atomicOr(&w[p / 32 + 1], v >> (32 - sh));
		}
		pos += __shfl_sync(0xffffffffu, x, 31);
	}
	if (pos > 8 * (uint64_t)cap)
		*overflow = 1;
	__syncwarp();
	return pos;
}

/* Piece b0 + blockIdx.x: gpz_dfl_blocks' decisions from its units' counts (gpz_dfl_next_block,
 * gpz_dfl_put_block), everything but the tokens' codes written into its slot. */
__global__ void __launch_bounds__(32)
plan_kernel(const uint8_t *src, size_t n, size_t b0, int last_call, int group,
            uint8_t *work, layout l, size_t cap, size_t oslot)
{
	/* the plan's scratch lives on the SM: 27 KiB, 8 warps an SM */
	__shared__ plan_scratch scratch;
	uint32_t *cur = scratch.u.cur;
	uint64_t &sh_pos = scratch.pos;
	const unsigned lane = threadIdx.x;
	const size_t q = blockIdx.x, p = b0 + q;
	const size_t np = n ? (n - 1) / PIECE + 1 : 1;
	const size_t start = p * PIECE, len = n - start < PIECE ? n - start : PIECE;
	const int last_piece = (group > 0 && (p + 1) % (size_t)group == 0) ||
	                       ((last_call || group > 0) && p + 1 == np);
	const uint32_t nt = reinterpret_cast<const uint32_t *>(work + l.ntok)[q];
	const size_t nu = (nt + UNIT - 1) / UNIT;
	const uint32_t *uf = reinterpret_cast<const uint32_t *>(
		reinterpret_cast<const gpz_dfl_freqs *>(work + l.ufreq) + q * UMAX);
	const uint32_t *unb = reinterpret_cast<const uint32_t *>(work + l.unbytes) + q * UMAX;
	uint64_t *uoff = reinterpret_cast<uint64_t *>(work + l.uoff) + q * UMAX;
	uint32_t *ucode = reinterpret_cast<uint32_t *>(work + l.ucode) + q * UMAX;
	blk_code *codes = reinterpret_cast<blk_code *>(work + l.codes) + q * UMAX;
	plan_scratch *s = &scratch;
	uint32_t *blk = reinterpret_cast<uint32_t *>(&s->blk); /* lf then df: NSYM counts */
	const uint32_t *tab = reinterpret_cast<const uint32_t *>(work + l.tab);
	uint8_t *slot = work + l.slots + q * oslot;
	uint64_t pos = 0;
	size_t bytes = 0, nblk = 0;
	int overflow = 0, res = GPZ_OK;
	gpz_bitw bw;

	/* blocks of units [i, j); empty input: one empty block, as gpz_dfl_blocks writes it */
	size_t i = 0;
	do {
		/* gpz_dfl_next_block over whole units */
		size_t j = nt ? i + 1 : i;
		if (nt)
			for (unsigned t = lane; t < NSYM; t += 32)
				cur[t] = uf[i * NSYM + t];
		__syncwarp();
		uint64_t cur_est = nt ? est_warp(cur, tab) : 0;
		while (j < nu && (j - i) * UNIT < GPZ_DFL_MAX_BLOCK_TOKENS) {
			uint64_t unit_est = est_warp(uf + j * NSYM, tab);
			__syncwarp();
			for (unsigned t = lane; t < NSYM; t += 32)
				cur[t] += uf[j * NSYM + t];
			__syncwarp();
			uint64_t joined_est = est_warp(cur, tab);
			if (joined_est > cur_est + unit_est)
				break;
			cur_est = joined_est;
			j++;
		}
		/* gpz_dfl_put_block for units [i, j) */
		size_t nbytes = 0;
		for (unsigned t = lane; t < NSYM; t += 32) {
			uint32_t c = 0;
			for (size_t k = i; k < j; k++)
				c += uf[k * NSYM + t];
			blk[t] = c;
		}
		for (size_t k = i; k < j; k++)
			nbytes += unb[k];
		__syncwarp();
		const int last = last_piece && j == nu;
		int stored_block = 0, dynamic = 0;
		const gpz_dfl_codes *c = &s->dyn;
		if (lane == 0)
			s->blk.lf[256] = 1;
		__syncwarp();
		uint64_t dyn, fix;
		plan_dynamic_warp(s, &s->small, &dyn, &fix);
		if (lane == 0) {
			uint64_t stored = (nbytes / 65535 + 1) * 40 + 8 * (uint64_t)nbytes + 7;
			bw_resume(&bw, slot, cap, pos);
			if (stored < dyn && stored < fix) {
				gpz_dfl_put_stored(&bw, src + start + bytes, nbytes, last);
				pos = bw_suspend(&bw, slot, &overflow);
				stored_block = 1;
			} else {
				if (fix <= dyn) {
					gpz_dfl_fixed_code(&s->dyn); /* in the dynamic code's place */
					gpz_dfl_put(&bw, (uint32_t)last | (1u << 1), 3);
				} else { /* its lengths then go in by the warp */
					gpz_dfl_put(&bw, (uint32_t)last | (2u << 1), 3);
					gpz_dfl_put_dynamic_counts(&bw, c);
					dynamic = 1;
				}
				pos = bw_suspend(&bw, slot, &overflow);
			}
			sh_pos = pos | (uint64_t)stored_block << 63 | (uint64_t)dynamic << 62;
		}
		__syncwarp();
		const uint64_t got = sh_pos;
		pos = got & ~(3ull << 62);
		if (got >> 62 & 1)
			pos = put_rle_warp(c, slot, cap, pos, &overflow);
		if (got >> 63) {
			for (size_t k = i + lane; k < j; k += 32)
				uoff[k] = NO_OFF;
		} else {
			blk_code *bc = &codes[nblk];
			for (unsigned t = lane; t < GPZ_DFL_NLIT; t += 32) {
				bc->lcode[t] = c->lcode[t];
				bc->llen[t] = c->llen[t];
			}
			for (unsigned t = lane; t < GPZ_DFL_NDIST; t += 32) {
				bc->dcode[t] = c->dcode[t];
				bc->dlen[t] = c->dlen[t];
			}
			for (size_t k = i; k < j; k++) {
				uint64_t b = unit_bits_warp(uf + k * NSYM, c->llen, c->dlen);
				if (lane == 0) {
					uoff[k] = pos;
					ucode[k] = (uint32_t)nblk;
				}
				pos += b;
			}
			nblk++;
			if (lane == 0) {
				bw_resume(&bw, slot, cap, pos);
				gpz_dfl_put(&bw, c->lcode[256], c->llen[256]);
				pos = bw_suspend(&bw, slot, &overflow);
			}
			pos = __shfl_sync(0xffffffffu, pos, 0);
		}
		__syncwarp();
		bytes += nbytes;
		i = j;
	} while (i < nu);
	if (lane != 0)
		return;
	/* the piece's ending, as gpz_dfl_blocks: the sync marker unless it is the stream's last */
	bw_resume(&bw, slot, cap, pos);
	if (!last_piece)
		gpz_dfl_put_sync(&bw);
	gpz_dfl_bitw_finish(&bw);
	pos = bw_suspend(&bw, slot, &overflow);
	if (overflow || pos / 8 > cap)
		res = GPZ_ERR_DST_TOO_SMALL;
	else if (bytes != len && nt)
		res = GPZ_ERR_PARAM;
	if (res != GPZ_OK) /* nothing more goes into the slot */
		for (size_t k = 0; k < nu; k++)
			uoff[k] = NO_OFF;
	reinterpret_cast<uint64_t *>(work + l.bits)[p] = pos;
	reinterpret_cast<int *>(work + l.res)[p] = res;
}

/* One unit's tokens, coded as gpz_dfl_put_tokens does, at the offset plan_kernel gave it, by a
 * warp: 32 tokens at a time, each lane codes one (at most 48 bits), a scan of the lengths gives
 * the lanes' bit offsets, the lanes OR their bits into the chunk's words in shared memory and
 * the whole words go out; the partial last word is carried into the next chunk. The unit's first
 * and last words are ORed in (a neighbour's bits may share them). */
constexpr unsigned WR_WARPS = 4;      /* units a block */
constexpr unsigned WR_WORDS = 32 * 48 / 32 + 2; /* a chunk's words, the carried one included */

__global__ void __launch_bounds__(32 * WR_WARPS)
write_kernel(uint8_t *work, layout l, size_t nb, size_t oslot)
{
	__shared__ uint32_t buf[WR_WARPS][WR_WORDS];
	const unsigned wp = threadIdx.x / 32, lane = threadIdx.x % 32;
	const size_t idx = blockIdx.x * (size_t)WR_WARPS + wp;
	const size_t q = idx / UMAX, u = idx % UMAX;
	if (q >= nb)
		return;
	const uint32_t nt = reinterpret_cast<const uint32_t *>(work + l.ntok)[q];
	const uint64_t off = reinterpret_cast<const uint64_t *>(work + l.uoff)[idx];
	if (u * UNIT >= nt || off == NO_OFF)
		return;
	const blk_code *c = reinterpret_cast<const blk_code *>(work + l.codes) + q * UMAX +
	                    reinterpret_cast<const uint32_t *>(work + l.ucode)[idx];
	const uint32_t *tok = reinterpret_cast<const uint32_t *>(work + l.tok) + q * PIECE + u * UNIT;
	const unsigned cnt = nt - u * UNIT < UNIT ? nt - (unsigned)(u * UNIT) : UNIT;
	uint32_t *words = reinterpret_cast<uint32_t *>(work + l.slots + q * oslot);
	uint32_t *b = buf[wp];
	uint64_t pos = off;  /* bit position of the next chunk */
	uint32_t carry = 0;  /* bits of word pos / 32 before pos */
	bool first = true;   /* word off / 32 not yet written */

	for (unsigned i = lane; i < WR_WORDS; i += 32)
		b[i] = 0;
	for (unsigned c0 = 0; c0 < cnt; c0 += 32) {
		unsigned k = 0;
		uint64_t v = c0 + lane < cnt ? gpz_dfl_token_bits(tok[c0 + lane], c->lcode, c->llen,
		                                                  c->dcode, c->dlen, &k)
		                             : 0;
		const unsigned at = gpz_warp_scan(k); /* inclusive scan of the lengths */
		const unsigned total = __shfl_sync(0xffffffffu, at, 31);
		const unsigned x = (unsigned)(pos % 32) + at - k; /* this lane's bit in b */
		if (lane == 0)
			b[0] |= carry;
		__syncwarp();
		if (k) {
			const unsigned sh = x % 32;
			const uint64_t lo = v << sh;
			const uint32_t hi = sh ? (uint32_t)(v >> (64 - sh)) : 0;
			atomicOr(&b[x / 32], (uint32_t)lo);
			if (lo >> 32)
				atomicOr(&b[x / 32 + 1], (uint32_t)(lo >> 32));
			if (hi)
				atomicOr(&b[x / 32 + 2], hi);
		}
		__syncwarp();
		const unsigned endbit = (unsigned)(pos % 32) + total, full = endbit / 32;
		const uint64_t w0 = pos / 32;
		for (unsigned j = lane; j < full; j += 32) {
			if (j == 0 && first)
				atomicOr(&words[w0], b[0]);
			else
				words[w0 + j] = b[j];
		}
		first = first && full == 0;
		carry = b[full] & (endbit % 32 ? (1u << (endbit % 32)) - 1 : 0);
		__syncwarp();
		for (unsigned j = lane; j < WR_WORDS; j += 32)
			b[j] = 0;
		__syncwarp();
		pos += total;
	}
	if (lane == 0 && pos % 32)
		atomicOr(&words[pos / 32], carry);
}

/* Byte offsets of the batch's pieces (whole bytes each) after everything before: a block of
 * BATCH threads, a piece a thread, a block-wide scan of their byte lengths (one thread walking
 * 1024 pieces' two loads each was ~0.13 ms a batch). The status takes the first failed piece's
 * result, as a walk in order would. A batch's bytes fit the scan's 32 bits (static_assert
 * below). */
using scan_bytes = cub::BlockScan<uint32_t, BATCH>;

__global__ void __launch_bounds__(BATCH)
scan_kernel(uint8_t *work, layout l, size_t b0, size_t nb, size_t out_cap,
            gpz_gpu_deflate_status *st)
{
	__shared__ typename scan_bytes::TempStorage tmp;
	__shared__ unsigned first_bad;
	const uint64_t *bits = reinterpret_cast<const uint64_t *>(work + l.bits);
	const int *res = reinterpret_cast<const int *>(work + l.res);
	uint64_t *off = reinterpret_cast<uint64_t *>(work + l.off);
	const unsigned t = threadIdx.x;
	const size_t p = b0 + t;
	const uint64_t before = st->bits / 8; /* read by all before thread 0 writes it */
	if (t == 0)
		first_bad = ~0u;
	__syncthreads();
	const uint32_t mine = t < nb ? (uint32_t)(bits[p] / 8) : 0;
	if (t < nb && res[p] != GPZ_OK)
		atomicMin(&first_bad, t);
	uint32_t at, sum;
	scan_bytes(tmp).ExclusiveSum(mine, at, sum);
	if (t < nb)
		off[p] = before + at;
	__syncthreads(); /* first_bad is final */
	if (t != 0)
		return;
	const uint64_t total = before + sum;
	off[b0 + nb] = total;
	if (first_bad != ~0u && st->result == GPZ_OK)
		st->result = res[b0 + first_bad];
	if (total > out_cap && st->result == GPZ_OK)
		st->result = GPZ_ERR_DST_TOO_SMALL;
	st->bits = 8 * total;
}

static_assert((uint64_t)BATCH * (GPZ_DEFLATE_PIECE + 5 * (GPZ_DEFLATE_PIECE / 65535 +
              GPZ_DEFLATE_PIECE / GPZ_DFL_UNIT_TOKENS + 4) + 24) < (1ull << 32),
              "a batch's bytes fit scan_kernel's 32-bit sums");

/* Piece b0 + blockIdx.y copied from its slot to its place in the output. */
__global__ void join_kernel(const uint8_t *work, layout l, size_t b0, size_t oslot, uint8_t *out,
                            const gpz_gpu_deflate_status *st)
{
	if (st->result != GPZ_OK)
		return;
	const size_t p = b0 + blockIdx.y;
	const uint64_t *off = reinterpret_cast<const uint64_t *>(work + l.off);
	const uint8_t *slot = work + l.slots + blockIdx.y * oslot;
	uint8_t *to = out + off[p];
	const uint64_t len = off[p + 1] - off[p];
	for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < len;
	     j += (uint64_t)gridDim.x * blockDim.x)
		to[j] = slot[j];
}

} // namespace

extern "C" size_t gpz_gpu_deflate_work(size_t n)
{
	return layout_for(n).total;
}

extern "C" size_t gpz_gpu_deflate_raw_bound(size_t n)
{
	return layout_for(n).np * piece_cap();
}

extern "C" gpz_result gpz_gpu_deflate_part(const uint8_t *d_src, size_t n, size_t first,
                                           size_t k0, int last, int group, int level,
                                           uint8_t *d_out, size_t out_cap,
                                           gpz_gpu_deflate_status *d_status, void *d_work,
                                           size_t work_bytes, gpz_stream_t stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	layout l = layout_for(n);
	uint8_t *work = static_cast<uint8_t *>(d_work);
	size_t cap = piece_cap(), oslot = out_slot();
	/* the matcher sees history from the start of the piece's group, or from the last cut (a
	 * piece alone: its own); piece `first` here is piece k0 of the stream's cut grid */
	const int hist_group = group < 0 ? -group : group;
	const unsigned shift = group < 0 ? (unsigned)((k0 % (size_t)-group + (size_t)-group -
	                                               first % (size_t)-group) % (size_t)-group)
	                                 : 0;

	if (level < 1 || level > 9 || (!d_src && n) || !d_out || !d_status || !d_work ||
	    work_bytes < l.total || (reinterpret_cast<uintptr_t>(d_work) & 255) ||
	    first >= l.np || first * PIECE > n)
		return GPZ_ERR_PARAM;
	GPZ_CUDA_TRY(cudaMemsetAsync(d_status, 0, sizeof(*d_status), s));
	log_tab_kernel<<<GPZ_DFL_LOG_TAB / 256, 256, 0, s>>>(reinterpret_cast<uint32_t *>(work + l.tab));
	GPZ_LAUNCH_TRY();
	for (size_t b0 = first; b0 < l.np; b0 += l.nb) {
		size_t nb = l.np - b0 < l.nb ? l.np - b0 : l.nb;
		size_t a = b0 * PIECE, b = n - a < nb * PIECE ? n : a + nb * PIECE;
		size_t lo = a < GPZ_LZ_WINDOW ? 0 : a - GPZ_LZ_WINDOW;
		uint16_t *links = reinterpret_cast<uint16_t *>(work + l.links);
		uint32_t *pure = reinterpret_cast<uint32_t *>(work + l.pure);
		GPZ_CUDA_TRY(gpz_lz_gpu_links(d_src, n, lo, b, level, links,
		                              reinterpret_cast<uint16_t *>(pure), s));
		GPZ_CUDA_TRY(gpz_lz_gpu_find(d_src, n, PIECE, level, a, b, links, lo, hist_group,
		                             shift, pure, s));
		GPZ_CUDA_TRY(gpz_lz_gpu_run(d_src, n, PIECE, level, b0, b0 + nb, pure, a,
		                            reinterpret_cast<uint32_t *>(work + l.tok), PIECE,
		                            reinterpret_cast<uint32_t *>(work + l.ntok), work + l.run, s));
		GPZ_CUDA_TRY(cudaMemsetAsync(work + l.slots, 0, nb * oslot, s));
		unit_kernel<<<(unsigned)(nb * UMAX), 128, 0, s>>>(work, l);
		GPZ_LAUNCH_TRY();
		plan_kernel<<<(unsigned)nb, 32, 0, s>>>(d_src, n, b0, last, group, work, l, cap,
		                                        oslot);
		GPZ_LAUNCH_TRY();
		write_kernel<<<(unsigned)((nb * UMAX + WR_WARPS - 1) / WR_WARPS), 32 * WR_WARPS, 0, s>>>(
			work, l, nb, oslot);
		GPZ_LAUNCH_TRY();
		scan_kernel<<<1, BATCH, 0, s>>>(work, l, b0, nb, out_cap, d_status);
		GPZ_LAUNCH_TRY();
		join_kernel<<<dim3(32, (unsigned)nb), 256, 0, s>>>(work, l, b0, oslot, d_out, d_status);
		GPZ_LAUNCH_TRY();
	}
	return GPZ_OK;
}

extern "C" gpz_result gpz_gpu_deflate_raw(const uint8_t *d_src, size_t n, int level,
                                          uint8_t *d_out, size_t out_cap,
                                          gpz_gpu_deflate_status *d_status, void *d_work,
                                          size_t work_bytes, gpz_stream_t stream)
{
	return gpz_gpu_deflate_part(d_src, n, 0, 0, 1, 0, level, d_out, out_cap, d_status, d_work,
	                            work_bytes, stream);
}

extern "C" const uint64_t *gpz_gpu_deflate_piece_offsets(const void *d_work, size_t n)
{
	return reinterpret_cast<const uint64_t *>(static_cast<const uint8_t *>(d_work) +
	                                          layout_for(n).off);
}
