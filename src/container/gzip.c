/* gzip.c - gzip (RFC 1952), zlib (RFC 1950) and raw deflate (RFC 1951) streams around the
 * DEFLATE blocks of src/lz/. Checksums through zlib's crc32 and adler32. */
#include "lz/lz.h"
#include "common/bits.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

size_t gpz_deflate_bound(size_t n)
{
	/* stored blocks: 5 bytes per 65535, plus an empty block, plus the largest wrapper
	 * (gzip: 10 + name up to 4096 + 8; zlib: 6) */
	return n + 5 * (n / 65535 + 2) + 4200;
}

static size_t put_gzip_header(uint8_t *d, int level, const gpz_gzip_info *gz)
{
	size_t o = 10, name = gz && gz->name ? strlen(gz->name) : 0;
	if (name > 4095)
		name = 4095;
	d[0] = 0x1f;
	d[1] = 0x8b;
	d[2] = 8;                        /* CM: deflate */
	d[3] = name ? 0x08 : 0;          /* FLG: FNAME */
	gpz_store_le32(d + 4, gz ? gz->mtime : 0);
	d[8] = level >= 9 ? 2 : level == 1 ? 4 : 0; /* XFL */
	d[9] = 3;                        /* OS: Unix */
	if (name) {
		memcpy(d + o, gz->name, name);
		o += name;
		d[o++] = 0;
	}
	return o;
}

static size_t put_zlib_header(uint8_t *d, int level)
{
	unsigned flevel = level <= 1 ? 0 : level <= 5 ? 1 : level == 6 ? 2 : 3;
	unsigned cmf = 0x78, flg = flevel << 6;
	flg += 31 - (cmf * 256 + flg) % 31;
	d[0] = (uint8_t)cmf;
	d[1] = (uint8_t)flg;
	return 2;
}

gpz_result gpz_deflate_compress(gpz_ctx *ctx, int level, gpz_format format,
                                const gpz_gzip_info *gzip, const void *src, size_t src_size,
                                void *dst, size_t dst_cap, size_t *dst_size)
{
	const uint8_t *s = src;
	uint8_t *d = dst;
	uint32_t *tok;
	size_t head = 0, ntok, tail = format == GPZ_FORMAT_GZIP ? 8 : format == GPZ_FORMAT_ZLIB ? 4 : 0;
	struct gpz_bitw bw;
	gpz_result r;

	if (!ctx || !dst_size || (!src && src_size) || !dst || level < 1 || level > 9 ||
	    format < GPZ_FORMAT_GZIP || format > GPZ_FORMAT_DEFLATE)
		return GPZ_ERR_PARAM;
	*dst_size = 0;
	if (dst_cap < 4200 + tail)
		return GPZ_ERR_DST_TOO_SMALL;
	if (format == GPZ_FORMAT_GZIP)
		head = put_gzip_header(d, level, gzip);
	else if (format == GPZ_FORMAT_ZLIB)
		head = put_zlib_header(d, level);
	tok = malloc((src_size ? src_size : 1) * sizeof(*tok));
	if (!tok)
		return GPZ_ERR_NOMEM;
	ntok = gpz_lz_parse(s, 0, src_size, level, tok);
	if (src_size && !ntok) {
		free(tok);
		return GPZ_ERR_NOMEM;
	}
	gpz_bitw_init(&bw, d + head, dst_cap - head - tail);
	r = gpz_deflate_blocks(&bw, s, 0, src_size, tok, ntok, 1);
	gpz_bitw_finish(&bw);
	free(tok);
	if (r == GPZ_OK && bw.overflow)
		r = GPZ_ERR_DST_TOO_SMALL;
	if (r != GPZ_OK)
		return r;
	size_t o = (size_t)(bw.p - d);
	if (format == GPZ_FORMAT_GZIP) {
		uLong crc = crc32(0L, Z_NULL, 0);
		for (size_t off = 0; off < src_size; off += 1u << 30)
			crc = crc32(crc, s + off, (uInt)(src_size - off < (1u << 30) ? src_size - off
			                                                              : 1u << 30));
		gpz_store_le32(d + o, (uint32_t)crc);
		gpz_store_le32(d + o + 4, (uint32_t)src_size);
	} else if (format == GPZ_FORMAT_ZLIB) {
		uLong a = adler32(0L, Z_NULL, 0);
		for (size_t off = 0; off < src_size; off += 1u << 30)
			a = adler32(a, s + off, (uInt)(src_size - off < (1u << 30) ? src_size - off
			                                                           : 1u << 30));
		d[o] = (uint8_t)(a >> 24);
		d[o + 1] = (uint8_t)(a >> 16);
		d[o + 2] = (uint8_t)(a >> 8);
		d[o + 3] = (uint8_t)a;
	}
	*dst_size = o + tail;
	return GPZ_OK;
}
