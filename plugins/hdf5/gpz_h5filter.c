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
 * to be archived.
 *
 * The plugin does not link HDF5: the few HDF5 calls it makes (in set_local) go to the HDF5
 * library that loaded it, found among the process's loaded objects. A plugin linked to the
 * system's HDF5 and loaded by another (h5py's wheels bring their own) would hand one library's
 * object ids to the other; so one plugin serves serial HDF5, parallel HDF5 and h5py alike. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <hdf5.h>
#include <H5PLextern.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpz.h"

#define GPZ_H5_FILTER_ID 310
#define CD_VERSION 1
#define CD_COUNT 4 /* version, mode, level, symbol width */
#define MODE_AUTO 0
#define MODE_HUFFMAN 1
#define MODE_LZ 2

static gpz_ctx *g_ctx;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* GPZ_BACKEND=cpu or gpu picks the backend (HDF5 gives a filter no other way to be told);
 * anything else, or nothing, is automatic: the GPU when usable. The bytes are the same. */
static void make_ctx(void)
{
	const char *e = getenv("GPZ_BACKEND");
	gpz_backend b = GPZ_BACKEND_AUTO;
	if (e && !strcmp(e, "cpu"))
		b = GPZ_BACKEND_CPU;
	else if (e && !strcmp(e, "gpu"))
		b = GPZ_BACKEND_GPU;
	if (gpz_ctx_create(&g_ctx, b, 0) != GPZ_OK)
		g_ctx = NULL;
}

/* The process's context, made on first use; NULL when it cannot be. */
static gpz_ctx *ctx_get(void)
{
	pthread_once(&g_once, make_ctx);
	return g_ctx;
}

/* The HDF5 functions set_local needs, from the HDF5 library in the process. */
static struct {
	size_t (*tget_size)(hid_t);
	H5T_class_t (*tget_class)(hid_t);
	herr_t (*pget_filter)(hid_t, H5Z_filter_t, unsigned *, size_t *, unsigned[], size_t, char[],
	                      unsigned *);
	herr_t (*pmodify_filter)(hid_t, H5Z_filter_t, unsigned, size_t, const unsigned[]);
} h5;
static pthread_once_t h5_once = PTHREAD_ONCE_INIT;

/* A loaded object named like an HDF5 library (libhdf5.so, libhdf5_serial.so, h5py's
 * libhdf5-<hash>.so, ...) that has the functions: take them. */
static int find_hdf5(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	void *lib;
	(void)size;
	(void)data;

	base = base ? base + 1 : info->dlpi_name;
	if (!base || strncmp(base, "libhdf5", 7) != 0 || strncmp(base, "libhdf5_hl", 10) == 0)
		return 0;
	if (!(lib = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD)))
		return 0;
	*(void **)&h5.tget_size = dlsym(lib, "H5Tget_size");
	*(void **)&h5.tget_class = dlsym(lib, "H5Tget_class");
	*(void **)&h5.pget_filter = dlsym(lib, "H5Pget_filter_by_id2");
	*(void **)&h5.pmodify_filter = dlsym(lib, "H5Pmodify_filter");
	dlclose(lib); /* RTLD_NOLOAD: only a reference was added; the library stays loaded */
	return h5.tget_size && h5.tget_class && h5.pget_filter && h5.pmodify_filter;
}

static void resolve_hdf5(void)
{
	if (!dl_iterate_phdr(find_hdf5, NULL))
		memset(&h5, 0, sizeof h5);
}

/* Record the element width (symbols of 1, 2 or 4 bytes for integers; 0 for other types) next to
 * the caller's mode and level. */
static herr_t set_local(hid_t dcpl, hid_t type, hid_t space)
{
	unsigned flags = 0, cd[CD_COUNT] = { CD_VERSION, MODE_AUTO, 1, 0 };
	size_t n = CD_COUNT;
	unsigned user[CD_COUNT] = { 0 };
	size_t width;
	(void)space;

	pthread_once(&h5_once, resolve_hdf5);
	if (!h5.tget_size)
		return -1; /* no HDF5 library found in the process: cannot happen when HDF5 loads us */
	width = h5.tget_size(type);
	if (h5.pget_filter(dcpl, GPZ_H5_FILTER_ID, &flags, &n, user, 0, NULL, NULL) < 0)
		return -1;
	if (n == CD_COUNT && user[0] == CD_VERSION) /* already ours (a copied dataset) */
		return 0;
	if (n >= 1)
		cd[1] = user[0];
	if (n >= 2)
		cd[2] = user[1];
	if (cd[1] > MODE_LZ || cd[2] < 1 || cd[2] > 9)
		return -1;
	if (h5.tget_class(type) == H5T_INTEGER && (width == 1 || width == 2 || width == 4))
		cd[3] = (unsigned)width;
	return h5.pmodify_filter(dcpl, GPZ_H5_FILTER_ID, flags, CD_COUNT, cd);
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
