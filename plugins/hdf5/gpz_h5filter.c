/* gpz_h5filter.c - an HDF5 filter plugin that compresses each chunk into a .gpz stream.
 *
 * Load it through HDF5_PLUGIN_PATH (the directory holding libgpz_h5filter.so); datasets use it
 * with filter id GPZ_H5_FILTER_ID and up to two cd_values, both optional:
 *   cd_values[0]  mode: 0 automatic (the default), 1 Huffman-only, 2 LZ mode (bytes)
 *   cd_values[1]  LZ level 1..9 (default 1)
 * The automatic mode codes integer elements of 1, 2 or 4 bytes as symbols of that width,
 * Huffman-only or LZ over symbols, whichever is smaller for each chunk (quantization codes),
 * and everything else in LZ mode. When the dataset is created, set_local records the element
 * width, so the stored cd_values are (version 1, mode, level, symbol width: 1, 2 or 4 for
 * integers, 0 for other types). Chunks run on the
 * GPU when one is usable, on the CPU otherwise: the bytes are the same.
 *
 * The id: 310 lies in the range HDF5 sets aside for filters not (yet) registered with The HDF
 * Group (256-511). Files written with it are read by anyone who loads this plugin, but the id
 * is not reserved for gpz; it is to be replaced by a registered one before such files are meant
 * to be archived. */
#include <hdf5.h>
#include <H5PLextern.h>
#include <pthread.h>
#include <stdlib.h>

#include "gpz.h"

#define GPZ_H5_FILTER_ID 310
#define CD_VERSION 1
#define CD_COUNT 4 /* version, mode, level, symbol width */
#define MODE_AUTO 0
#define MODE_HUFFMAN 1
#define MODE_LZ 2

static gpz_ctx *g_ctx;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void make_ctx(void)
{
	if (gpz_ctx_create(&g_ctx, GPZ_BACKEND_AUTO, 0) != GPZ_OK)
		g_ctx = NULL;
}

/* The process's context (GPU when usable), made on first use; NULL when it cannot be. */
static gpz_ctx *ctx_get(void)
{
	pthread_once(&g_once, make_ctx);
	return g_ctx;
}

/* Record the element width (symbols of 1, 2 or 4 bytes for integers; 0 for other types) next to
 * the caller's mode and level. */
static herr_t set_local(hid_t dcpl, hid_t type, hid_t space)
{
	unsigned flags = 0, cd[CD_COUNT] = { CD_VERSION, MODE_AUTO, 1, 0 };
	size_t n = CD_COUNT;
	unsigned user[CD_COUNT] = { 0 };
	size_t width = H5Tget_size(type);
	(void)space;

	if (H5Pget_filter_by_id2(dcpl, GPZ_H5_FILTER_ID, &flags, &n, user, 0, NULL, NULL) < 0)
		return -1;
	if (n == CD_COUNT && user[0] == CD_VERSION) /* already ours (a copied dataset) */
		return 0;
	if (n >= 1)
		cd[1] = user[0];
	if (n >= 2)
		cd[2] = user[1];
	if (cd[1] > MODE_LZ || cd[2] < 1 || cd[2] > 9)
		return -1;
	if (H5Tget_class(type) == H5T_INTEGER && (width == 1 || width == 2 || width == 4))
		cd[3] = (unsigned)width;
	return H5Pmodify_filter(dcpl, GPZ_H5_FILTER_ID, flags, CD_COUNT, cd);
}

/* The parameters a chunk is coded with: integers as symbols of their width (Huffman-only or
 * LZ over symbols, whichever is smaller, in the automatic mode), other data in LZ mode. */
static void chunk_params(const unsigned cd[CD_COUNT], size_t nbytes, gpz_params *p)
{
	int w = (int)cd[3];

	gpz_params_default(p);
	if (cd[1] == MODE_LZ || (cd[1] == MODE_AUTO && w == 0)) {
		p->lz_level = (int)cd[2];
		return;
	}
	p->symbol_bytes = w >= 1 && nbytes % (size_t)w == 0 ? w : 1;
	p->lz_symbols = cd[1] == MODE_AUTO ? GPZ_LZS_AUTO : 0;
}

static size_t compress_chunk(const unsigned cd[CD_COUNT], size_t nbytes, size_t *buf_size,
                             void **buf)
{
	gpz_ctx *ctx = ctx_get();
	gpz_params p;
	size_t cap, len = 0;
	void *out;
	gpz_result r;

	if (!ctx)
		return 0;
	chunk_params(cd, nbytes, &p);
	cap = gpz_compress_bound(nbytes, &p);
	if (!(out = malloc(cap ? cap : 1)))
		return 0;
	r = gpz_compress(ctx, &p, *buf, nbytes, out, cap, &len);
	if (r == GPZ_ERR_ALPHABET) { /* 4-byte values past the symbol alphabet: LZ mode */
		gpz_params_default(&p);
		p.lz_level = (int)cd[2];
		r = gpz_compress(ctx, &p, *buf, nbytes, out, cap, &len);
	}
	if (r != GPZ_OK) {
		free(out);
		return 0;
	}
	free(*buf);
	*buf = out;
	*buf_size = cap;
	return len;
}

static size_t decompress_chunk(size_t nbytes, size_t *buf_size, void **buf)
{
	gpz_ctx *ctx = ctx_get();
	uint64_t size = 0;
	size_t len = 0;
	void *out;

	/* the size the stream records, checked against its frames; a corrupt chunk fails here or
	 * in the decoder, and HDF5 reports the filter's failure */
	if (!ctx || gpz_decompressed_size(*buf, nbytes, &size) != GPZ_OK || size > SIZE_MAX / 2)
		return 0;
	if (!(out = malloc(size ? (size_t)size : 1)))
		return 0;
	if (gpz_decompress(ctx, *buf, nbytes, out, (size_t)size, &len) != GPZ_OK || len != size) {
		free(out);
		return 0;
	}
	free(*buf);
	*buf = out;
	*buf_size = size ? (size_t)size : 1;
	return len;
}

/* HDF5's filter callback: 0 means failure. */
static size_t gpz_h5_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
                            size_t nbytes, size_t *buf_size, void **buf)
{
	if (flags & H5Z_FLAG_REVERSE)
		return decompress_chunk(nbytes, buf_size, buf);
	if (cd_nelmts != CD_COUNT || cd_values[0] != CD_VERSION)
		return 0;
	return compress_chunk(cd_values, nbytes, buf_size, buf);
}

static const H5Z_class2_t gpz_h5_class = {
	H5Z_CLASS_T_VERS,
	(H5Z_filter_t)GPZ_H5_FILTER_ID,
	1, /* encoder present */
	1, /* decoder present */
	"gpz (Huffman-only and LZ, GPU or CPU)",
	NULL, /* can_apply: every datatype */
	set_local,
	gpz_h5_filter,
};

H5PL_type_t H5PLget_plugin_type(void)
{
	return H5PL_TYPE_FILTER;
}

const void *H5PLget_plugin_info(void)
{
	return &gpz_h5_class;
}
