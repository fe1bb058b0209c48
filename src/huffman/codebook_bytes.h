/* codebook_bytes.h - the codebook's serialised lengths (docs/FORMAT.md, "Codebook"), written by
 * the host (codebook.c) and by the device when it plans many frames at once (frames_gpu.cu).
 *
 * One byte per item:
 *   0 .. 24     one length
 *   31, varint  a run of (98 + varint) zero lengths; the varint is LEB128 (7 bits per byte, low
 *               group first, high bit set on all but the last byte, at most 3 bytes)
 *   32 .. 127   a run of (v - 30) zero lengths (2 .. 97)
 *   128 .. 255  (v - 126) more copies of the previous length (2 .. 129)
 * Values 25 .. 30 are invalid. Long zero runs make sparse alphabets of 4-byte symbols cheap. */
#ifndef GPZ_HUFFMAN_CODEBOOK_BYTES_H
#define GPZ_HUFFMAN_CODEBOOK_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "common/hd.h"

#define GPZ_CB_LONG_ZRUN 31
#define GPZ_CB_ZRUN_BASE 32
#define GPZ_CB_ZRUN_MAX 97
#define GPZ_CB_REP_BASE 128
#define GPZ_CB_REP_MAX 129

GPZ_HD_INLINE size_t gpz_cb_zero_run(uint32_t run, uint8_t *dst)
{
	size_t o = 0;
	if (run > GPZ_CB_ZRUN_MAX) {
		uint32_t k = run - GPZ_CB_ZRUN_MAX - 1;
		dst[o++] = GPZ_CB_LONG_ZRUN;
		for (; k >= 128; k >>= 7)
			dst[o++] = (uint8_t)(0x80 | (k & 127));
		dst[o++] = (uint8_t)k;
		return o;
	}
	if (run >= 2)
		dst[o++] = (uint8_t)(GPZ_CB_ZRUN_BASE + run - 2);
	else
		dst[o++] = 0;
	return o;
}

/* The items of len[0 .. alphabet) at dst (at most alphabet bytes); returns their size. */
GPZ_HD_INLINE size_t gpz_cb_write(const uint8_t *len, uint32_t alphabet, uint8_t *dst)
{
	size_t o = 0;
	uint32_t s = 0;

	while (s < alphabet) {
		uint32_t run = 1;
		while (s + run < alphabet && len[s + run] == len[s])
			run++;
		s += run;
		if (len[s - run] == 0) {
			o += gpz_cb_zero_run(run, dst + o);
			continue;
		}
		dst[o++] = len[s - run];
		for (run--; run >= 2; run -= run < GPZ_CB_REP_MAX ? run : GPZ_CB_REP_MAX)
			dst[o++] = (uint8_t)(GPZ_CB_REP_BASE +
			                     (run < GPZ_CB_REP_MAX ? run : GPZ_CB_REP_MAX) - 2);
		if (run)
			dst[o++] = len[s - 1];
	}
	return o;
}

#endif
