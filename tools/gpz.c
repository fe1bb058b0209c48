/*
 * gpz.c - the gpz file tool: gzip-style command line around libgpz's streaming API.
 *
 * .gpz data goes through the library's frame engine (gpz_compress_stream[_at],
 * gpz_decompress_stream): a few frames in flight, read, coded and written in order, so memory
 * stays bounded by the engine's depth times two frames whatever the file size. Output goes through fileio.c's temporary-file-and-rename, so a failed or
 * interrupted run never leaves a partial output file and never touches an existing one.
 */
#define _FILE_OFFSET_BITS 64

#include "fileio.h"
#include "gpz.h"
#include <zlib.h>

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 65536
#define MAX_TRAILER_BYTES 4096

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

enum op { OP_COMPRESS, OP_DECOMPRESS, OP_TEST, OP_LIST };

struct opts {
	enum op op;
	int to_stdout, keep, force, verbose, quiet;
	gpz_format format; /* output format when compressing */
	int level;         /* DEFLATE level 1..9 */
	int level_set;     /* -1..-9 given (after any --huff): .gpz output uses LZ mode */
	const char *output;
	int threads;
	int gpus;          /* GPUs the work spreads over, 0 = all, -1 = not given (run_gpus) */
	int no_index;      /* gzip without gpz's piece index */
	int huff_set;      /* an option of Huffman-only .gpz frames was given (--huff, -b, ...) */
	int lzs_set;       /* --huff-only, --lz-symbols or --lz-auto chose the frames' kind */
	int chunk_set;     /* --chunk-log was given */
	int frame_set;     /* --frame-size was given */
	const char *suffix;/* -S: the compressed file suffix */
	int no_name;       /* -n: gzip without the name and time */
	int name_flag;     /* -N given */
	int rm;            /* --rm: remove the input after success, -o too */
	int recursive;     /* -r: into directories */
	gpz_backend backend;
	gpz_params params;
};

/* One input file being processed. */
struct job {
	const char *path;  /* the operand ("-" for standard input) */
	const char *name;  /* for messages: path, or "stdin" */
	int is_stdin;
	int fd;
	struct stat st;
	int use_stdout;    /* output to standard output */
	int remove_input;  /* delete the input after success */
	int in_walk;       /* found by -r: files that would be skipped are skipped quietly */
	char *oname;       /* output file name, NULL for standard output */
	uint32_t gz_mtime; /* -dN: the time the gzip header records (0: none) */
};

/* Byte and frame counts of a run (in = bytes read, out = bytes produced). */
struct counts {
	uint64_t in, out;
	uint64_t frames;
};

/* Totals of one gpz stream, checked against its trailer. */
struct stream_counts {
	uint64_t bytes;
	uint32_t frames;
};

static int g_status;       /* exit status: 0, 1 (error) or 2 (warning) */
static gpz_ctx *g_ctx;     /* created on first use */
static int g_ctx_failed;
static gpz_ctx *g_cpu_ctx; /* CPU only: .gz inflation without --gpu, small inputs (job_ctx) */
static unsigned char *g_in, *g_out; /* reused frame buffers */
static size_t g_in_cap, g_out_cap;
/* progress display state (see progress_add) */
static struct {
	int on, shown;
	int busy;          /* a thread is printing (atomic) */
	const char *name;
	double t0, last;
	uint64_t in, out;  /* atomic */
} g_prog;

/* ---- Messages ---- */

static void vreport(const char *name, const char *fmt, va_list ap)
{
	if (__atomic_exchange_n(&g_prog.shown, 0, __ATOMIC_RELAXED)) /* start on a clean line */
		fputs("\r\033[K", stderr);
	fputs("gpz: ", stderr);
	if (name != NULL)
		fprintf(stderr, "%s: ", name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void report_error(const char *name, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void report_error(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(name, fmt, ap);
	va_end(ap);
	g_status = 1;
}

static void report_warning(const struct opts *o, const char *name, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
static void report_warning(const struct opts *o, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (g_status == 0)
		g_status = 2;
	if (o->quiet)
		return;
	va_start(ap, fmt);
	vreport(name, fmt, ap);
	va_end(ap);
}

static int lib_error(const char *name, gpz_result r)
{
	report_error(name, "%s", gpz_result_string(r));
	return -1;
}

static int io_error(const char *name)
{
	report_error(name, "%s", strerror(errno));
	return -1;
}

/* ---- Help and version ---- */

static void usage(void)
{
	fputs(
"Usage: gpz [OPTION]... [FILE]...\n"
"Compress or decompress FILEs with gpz, a GPU-native compressor (default: compress).\n"
"\n"
"With no FILE, or when FILE is -, read standard input and write standard output.\n"
"Like gzip, FILE is replaced by FILE.gpz when compressing, and FILE.gpz by FILE when\n"
"decompressing: the input file is removed once the output has been completely written,\n"
"synced and renamed into place, unless -k, -c or -t is given (or -l, which writes nothing).\n"
"The output gets the input's permission bits and access/modification times. An existing\n"
"file is never replaced without -f; on any error the input stays and no output is left.\n"
"\n"
"Operation:\n"
"  -z, --compress          compress (the default)\n"
"  -d, --decompress        decompress FILE.gpz into FILE (concatenated streams are joined)\n"
"  -t, --test              decode and verify every checksum; write nothing\n"
"  -l, --list              list compressed and uncompressed size, space saved, frame count,\n"
"                          symbol width, chunk size (symbols; LZ frames: piece bytes), frame\n"
"                          types (huffman, deflate, stored, constant) and the stored\n"
"                          content checksum (for several frames the first, then +N more;\n"
"                          -v lists every frame); nothing is decoded. gzip, zlib and\n"
"                          raw deflate input is decoded to count its bytes exactly (all\n"
"                          gzip members; frames = members)\n"
"Output:\n"
"  -c, --stdout            write to standard output; keep the input files\n"
"  -o, --output=FILE       write to FILE (a single input only); the input is kept (as zstd)\n"
"                          unless --rm is given\n"
"      --rm                remove the input once the output is complete, -o too\n"
"  -S, --suffix=SUF        use suffix SUF for compressed files (decompressing: strip it)\n"
"  -r, --recursive         operate on every file under the directories named (files of the\n"
"                          other kind, compressed or not, are passed over quietly)\n"
"  -k, --keep              keep (don't delete) the input files\n"
"  -f, --force             replace existing output files, write compressed data to a\n"
"                          terminal, follow symbolic links, compress hard-linked files and\n"
"                          read non-regular files with -l, and on decompression copy what\n"
"                          is not compressed to standard output unchanged (-dcf, as zcat -f)\n"
"  (fifos, /dev/fd links and other non-regular inputs are read with -c or -t; decompressing,\n"
"   .tgz gives .tar)\n"
"Compression:\n"
"      --format=FMT        gpz (the default: .gpz), or gzip (.gz), zlib (.zz) or deflate\n"
"                          (.deflate): standard DEFLATE streams any gzip/zlib tool reads\n"
"                          (decompression detects gzip and zlib; raw deflate by its suffix\n"
"                          or --format=deflate)\n"
"  -n, --no-name           gzip without the original name and time in the header\n"
"  -N, --name              gzip with them (the default when compressing a named file);\n"
"                          with -d, name the output and set its time as the gzip header\n"
"                          says (its last path component, in the input's directory)\n"
"      --no-index          gzip without gpz's piece index (by default it is in the header of\n"
"                          files written in place, and after the stream, as an empty member,\n"
"                          on standard output; gpz -d uses it to decode in parallel, other\n"
"                          readers ignore it, though gzip -l then reports 0 bytes)\n"
"  -1 .. -9                DEFLATE level: -1 (--fast) fastest, -9 (--best) smallest; for\n"
"                          gzip, zlib and deflate the default is 6. With --format=gpz a level\n"
"                          selects LZ mode: .gpz frames of independent raw DEFLATE streams\n"
"                          (1 MiB; 256 KiB at -1..-3), compressed and decoded in parallel\n"
"                          (bytes only); LZ mode at -6 is also the default for .gpz unless\n"
"                          --huff, -b, --chunk-log or --lz-symbols/--lz-auto/--huff-only ask\n"
"                          for the Huffman codecs\n"
"      --lz-symbols        LZ over symbols of any width (-b): literals, runs of the most\n"
"                          frequent symbol and matches in one large-alphabet Huffman code;\n"
"                          for quantization codes with long runs of the zero-error code (a\n"
"                          .gpz frame of its own type)\n"
"      --lz-auto           each frame Huffman-only or LZ over symbols, whichever is smaller\n"
"                          (the default for 2- and 4-byte symbols)\n"
"      --huff              Huffman coding of fixed-width symbols (--format=gpz; cancels an\n"
"                          earlier -1 .. -9): Huffman-only frames for bytes, --lz-auto's\n"
"                          choice for 2- and 4-byte symbols\n"
"      --huff-only         Huffman-only frames whatever the symbol width\n"
"  -b, --symbol-bytes=N    symbol width in bytes: 1, 2 or 4 (default 1) of Huffman-only and\n"
"                          LZ-symbol frames; the input size must be a multiple of N. (-b is\n"
"                          not zstd's benchmark: gpz-bench is the benchmark program)\n"
"      --chunk-log=M       independently decodable chunks of 2^M symbols (8..24, default 14)\n"
"      --lanes             Huffman frames laid out for GPU decoding: each chunk's symbols in\n"
"                          32 interleaved lanes, about twice the GPU's decode speed for a\n"
"                          0.05-0.5% larger file (chunks of 2^16 unless --chunk-log says);\n"
"                          slower to write, and to read on the CPU\n"
"      --frame-size=SIZE   input bytes per frame, optional K, M or G suffix (default 64M;\n"
"                          1M for Huffman-only bytes without --lanes: a code per\n"
"                          MiB fits text better; at most 1G); memory use is about\n"
"                          twice the larger of SIZE and 64M per lane (6 lanes on\n"
"                          the GPU, 2-4 on the CPU)\n"
"Execution:\n"
"  -T, --threads=N         CPU worker threads (0 = one per core, the default)\n"
"      --cpu               use the CPU backend\n"
"      --gpu               use the GPU backend (error if no usable GPU)\n"
"                          (default: the GPU when one is usable, else the CPU)\n"
"      --gpus=N            spread the work over N GPUs (0 = every visible one; default:\n"
"                          every one at levels 7-9, else one); the same output for any N\n"
"  -v, --verbose           report ratio and throughput per file (-vv: also the backend)\n"
"  -q, --quiet             suppress warnings\n"
"  -h, --help              display this help and exit\n"
"  -V, --version           display version information and exit\n"
"\n"
"Exit status: 0 on success, 1 if an error occurred, 2 if there were only warnings\n"
"(for instance a file skipped because it is not a regular file or already ends in .gpz).\n",
		stdout);
}

static void version(void)
{
	printf("gpz %s (libgpz %s)\n", GPZ_VERSION_STRING, gpz_version());
}

/* ---- Option parsing ---- */

enum {
	K_HUFF = 256, K_CHUNK_LOG, K_FRAME_SIZE, K_CPU, K_GPU, K_FORMAT, K_GPUS,
	K_NO_INDEX, K_LZ_SYMBOLS, K_LZ_AUTO, K_RM, K_HUFF_ONLY, K_LANES
};

struct longopt {
	const char *name;
	int key;
	int has_arg;
};

static const struct longopt longopts[] = {
	{ "huff", K_HUFF, 0 },        { "symbol-bytes", 'b', 1 },   { "chunk-log", K_CHUNK_LOG, 1 },
	{ "frame-size", K_FRAME_SIZE, 1 }, { "stdout", 'c', 0 },  { "to-stdout", 'c', 0 },
	{ "output", 'o', 1 },         { "keep", 'k', 0 },           { "force", 'f', 0 },
	{ "decompress", 'd', 0 },     { "uncompress", 'd', 0 },     { "compress", 'z', 0 },
	{ "test", 't', 0 },           { "list", 'l', 0 },           { "verbose", 'v', 0 },
	{ "quiet", 'q', 0 },          { "threads", 'T', 1 },        { "cpu", K_CPU, 0 },
	{ "gpu", K_GPU, 0 },          { "help", 'h', 0 },           { "version", 'V', 0 },
	{ "format", K_FORMAT, 1 },    { "fast", '1', 0 },           { "best", '9', 0 },
	{ "gpus", K_GPUS, 1 },        { "no-index", K_NO_INDEX, 0 },
	{ "lz-symbols", K_LZ_SYMBOLS, 0 }, { "lz-auto", K_LZ_AUTO, 0 }, { "lanes", K_LANES, 0 },
	{ "suffix", 'S', 1 },         { "no-name", 'n', 0 },        { "name", 'N', 0 },
	{ "rm", K_RM, 0 },            { "recursive", 'r', 0 },     { "huff-only", K_HUFF_ONLY, 0 },
};

#define SHORT_FLAGS "cdfhklnNqrtvVz123456789"
#define SHORT_WITH_ARG "boST"

/* Parse a decimal number no larger than max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (n > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = n;
	return 0;
}

/* A byte count with an optional K, M or G (binary) suffix, optionally followed by "iB" or "B". */
static int parse_size(const char *s, uint64_t *v)
{
	char digits[32];
	size_t n = strspn(s, "0123456789");
	const char *suf = s + n;
	int shift = 0;

	if (n == 0 || n >= sizeof digits)
		return -1;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (*suf == 'k' || *suf == 'K')
		shift = 10;
	else if (*suf == 'm' || *suf == 'M')
		shift = 20;
	else if (*suf == 'g' || *suf == 'G')
		shift = 30;
	if (shift != 0 && *++suf == 'i')
		suf++;
	if (*suf == 'B' || (shift != 0 && *suf == 'b'))
		suf++;
	if (*suf != '\0' || parse_uint(digits, UINT64_MAX >> shift, v) != 0)
		return -1;
	*v <<= shift;
	return 0;
}

/* The default frame of Huffman-only bytes (main). */
#define SMALL_FRAME_BYTES ((size_t)1 << 20)

/* Format names (--format) and file suffixes, indexed by gpz_format. */
static const char *const format_names[] = { "gpz", "gzip", "zlib", "deflate" };
static const char *const format_suffix[] = { ".gpz", ".gz", ".zz", ".deflate" };

static int bad_value(const char *what, const char *arg, const char *hint)
{
	report_error(NULL, "invalid %s '%s' (%s)", what, arg, hint);
	return -1;
}

static int apply_value(struct opts *o, int key, const char *arg)
{
	uint64_t v;

	switch (key) {
	case 'b':
		if (parse_uint(arg, 4, &v) != 0 || (v != 1 && v != 2 && v != 4))
			return bad_value("symbol width", arg, "use 1, 2 or 4");
		o->params.symbol_bytes = (int)v;
		o->huff_set = 1;
		return 0;
	case K_CHUNK_LOG:
		if (parse_uint(arg, GPZ_MAX_CHUNK_LOG, &v) != 0 || v < GPZ_MIN_CHUNK_LOG)
			return bad_value("chunk log", arg, "use 8 to 24");
		o->params.chunk_log = (int)v;
		o->huff_set = 1;
		o->chunk_set = 1;
		return 0;
	case K_FRAME_SIZE:
		if (parse_size(arg, &v) != 0 || v == 0 || v > GPZ_MAX_FRAME_BYTES)
			return bad_value("frame size", arg, "use 1 byte to 1G, e.g. 64M");
		o->params.frame_bytes = (size_t)v;
		o->frame_set = 1;
		return 0;
	case 'T':
		if (parse_uint(arg, MAX_THREADS, &v) != 0)
			return bad_value("thread count", arg, "use 0 for all cores, or 1 to 65536");
		o->threads = (int)v;
		return 0;
	case K_GPUS:
		if (parse_uint(arg, 1024, &v) != 0)
			return bad_value("GPU count", arg, "use 0 for all GPUs, or 1 to 1024");
		o->gpus = (int)v;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'S':
		if (*arg == '\0' || strchr(arg, '/') != NULL)
			return bad_value("suffix", arg, "a non-empty name part, e.g. .gz");
		o->suffix = arg;
		return 0;
	case K_FORMAT:
		for (int f = GPZ_FORMAT_GPZ; f <= GPZ_FORMAT_DEFLATE; f++)
			if (strcmp(arg, format_names[f]) == 0) {
				o->format = (gpz_format)f;
				return 0;
			}
		return bad_value("format", arg, "use gpz, gzip, zlib or deflate");
	}
	return -1;
}

/* Apply an option without a value; returns 1 when the program should exit successfully. */
static int apply_flag(struct opts *o, int key)
{
	switch (key) {
	case 'c': o->to_stdout = 1; break;
	case 'd': o->op = OP_DECOMPRESS; break;
	case 'z': o->op = OP_COMPRESS; break;
	case 't': o->op = OP_TEST; break;
	case 'l': o->op = OP_LIST; break;
	case 'f': o->force = 1; break;
	case 'k': o->keep = 1; break;
	case 'q': o->quiet = 1; o->verbose = 0; break;
	case 'v': o->verbose++; o->quiet = 0; break;
	case K_HUFF:
	case K_HUFF_ONLY:
		o->format = GPZ_FORMAT_GPZ;
		o->level_set = 0;
		o->params.lz_symbols = 0;
		o->huff_set = 1;
		o->lzs_set = key == K_HUFF_ONLY;
		break;
	case 'n': o->no_name = 1; break;
	case 'N': o->name_flag = 1; o->no_name = 0; break;
	case K_RM: o->rm = 1; break;
	case 'r': o->recursive = 1; break;
	case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
		o->level = key - '0';
		o->level_set = 1;
		break;
	case K_CPU: o->backend = GPZ_BACKEND_CPU; break;
	case K_NO_INDEX: o->no_index = 1; break;
	case K_LZ_SYMBOLS:
	case K_LZ_AUTO:
		o->format = GPZ_FORMAT_GPZ;
		o->level_set = 0;
		o->params.lz_symbols = key == K_LZ_AUTO ? GPZ_LZS_AUTO : 1;
		o->huff_set = 1;
		o->lzs_set = 1;
		break;
	case K_LANES:
		o->params.huff_lanes = 1;
		o->huff_set = 1;
		break;
	case K_GPU: o->backend = GPZ_BACKEND_GPU; break;
	case 'h': usage(); return 1;
	case 'V': version(); return 1;
	default: return -1;
	}
	return 0;
}

/* Find a long option by its full name or an unambiguous prefix. */
static const struct longopt *find_long(const char *name, size_t len)
{
	const struct longopt *hit = NULL;
	size_t i, n = sizeof longopts / sizeof longopts[0];

	for (i = 0; i < n; i++) {
		if (strncmp(longopts[i].name, name, len) != 0)
			continue;
		if (longopts[i].name[len] == '\0')
			return &longopts[i];
		if (hit != NULL && hit->key != longopts[i].key)
			return NULL;
		hit = &longopts[i];
	}
	return hit;
}

/* Parse "--name[=value]" (arg points after the dashes); *i advances past a separate value. */
static int parse_long(struct opts *o, const char *arg, int argc, char **argv, int *i)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	const struct longopt *lo = find_long(arg, len);

	if (lo == NULL) {
		report_error(NULL, "unrecognized or ambiguous option '--%.*s'", (int)len, arg);
		return -1;
	}
	if (!lo->has_arg) {
		if (eq == NULL)
			return apply_flag(o, lo->key);
		report_error(NULL, "option '--%s' doesn't take a value", lo->name);
		return -1;
	}
	if (eq != NULL)
		return apply_value(o, lo->key, eq + 1);
	if (*i + 1 >= argc) {
		report_error(NULL, "option '--%s' requires a value", lo->name);
		return -1;
	}
	return apply_value(o, lo->key, argv[++*i]);
}

/* Parse a cluster of short options such as "-kv", "-b2" or "-b 2" (arg points after '-'). */
static int parse_short(struct opts *o, const char *arg, int argc, char **argv, int *i)
{
	for (; *arg != '\0'; arg++) {
		int rc;

		if (strchr(SHORT_WITH_ARG, *arg) != NULL) {
			if (arg[1] != '\0')
				return apply_value(o, *arg, arg + 1);
			if (*i + 1 >= argc) {
				report_error(NULL, "option '-%c' requires a value", *arg);
				return -1;
			}
			return apply_value(o, *arg, argv[++*i]);
		}
		if (strchr(SHORT_FLAGS, *arg) == NULL) {
			report_error(NULL, "invalid option -- '%c'", *arg);
			return -1;
		}
		rc = apply_flag(o, *arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Parse the command line (options may follow operands; "--" ends the options). The operands are
 * collected in files. Returns 0, 1 to exit successfully (--help, --version) or -1 on error.
 */
static int parse_args(struct opts *o, int argc, char **argv, const char **files, int *nfiles)
{
	int i, only_files = 0, rc = 0;

	*nfiles = 0;
	for (i = 1; i < argc && rc == 0; i++) {
		const char *a = argv[i];

		if (only_files || a[0] != '-' || a[1] == '\0')
			files[(*nfiles)++] = a;
		else if (strcmp(a, "--") == 0)
			only_files = 1;
		else if (a[1] == '-')
			rc = parse_long(o, a + 2, argc, argv, &i);
		else
			rc = parse_short(o, a + 1, argc, argv, &i);
	}
	return rc;
}

static int check_opts(const struct opts *o, int nfiles)
{
	gpz_result r;

	if (o->output != NULL && o->to_stdout) {
		report_error(NULL, "options -c and -o can't be combined");
		return -1;
	}
	if (o->output != NULL && nfiles > 1 && (o->op == OP_COMPRESS || o->op == OP_DECOMPRESS)) {
		report_error(NULL, "-o needs a single input file");
		return -1;
	}
	if (o->op == OP_COMPRESS && o->format != GPZ_FORMAT_GPZ && o->huff_set) {
		report_error(NULL, "--huff, --symbol-bytes, --chunk-log, --lanes, --lz-symbols and "
		             "--lz-auto are for .gpz output, not --format=%s", format_names[o->format]);
		return -1;
	}
	if (o->recursive && o->output != NULL) {
		report_error(NULL, "-o and -r can't be combined");
		return -1;
	}
	if (o->name_flag && o->op == OP_LIST) {
		report_error(NULL, "-N with -l is not supported (-l shows the compressed file's name)");
		return -1;
	}
	if (o->rm && o->to_stdout) {
		report_error(NULL, "--rm and -c can't be combined (the input is kept with -c)");
		return -1;
	}
	if (o->params.lz_symbols && o->params.lz_level > 0) {
		report_error(NULL, "--lz-symbols / --lz-auto are kinds of Huffman-only .gpz frames: "
		             "drop the level -1 .. -9");
		return -1;
	}
	if (o->params.lz_level > 0 && o->params.symbol_bytes != 1) {
		report_error(NULL, "LZ mode (a level -1 .. -9 with --format=gpz) codes bytes: "
		             "--symbol-bytes must be 1 (use --huff for wider symbols)");
		return -1;
	}
	if (o->params.frame_bytes % (size_t)o->params.symbol_bytes != 0) {
		report_error(NULL, "the frame size (%zu) must be a multiple of the symbol width (%d)",
		             o->params.frame_bytes, o->params.symbol_bytes);
		return -1;
	}
	r = gpz_params_check(&o->params);
	if (r != GPZ_OK) {
		report_error(NULL, "invalid parameters: %s", gpz_result_string(r));
		return -1;
	}
	return 0;
}

/* ---- Buffers, context, small helpers ---- */

/* Grow *buf to at least n bytes, keeping its contents. */
static int reserve(unsigned char **buf, size_t *cap, size_t n)
{
	unsigned char *p;

	if (n <= *cap)
		return 0;
	p = realloc(*buf, n);
	if (p == NULL) {
		errno = ENOMEM;
		return -1;
	}
	*buf = p;
	*cap = n;
	return 0;
}

static const char *backend_name(gpz_backend b)
{
	return b == GPZ_BACKEND_GPU ? "GPU" : b == GPZ_BACKEND_CPU ? "CPU" : "automatic";
}

/* The GPUs a run uses when --gpus is not given: a GPU past the first costs a one-file process
 * its start (a CUDA context and its lanes' buffers, 0.2-0.4 s) and pays only where the GPU's
 * work per byte is large. Two H100s, 4 GB of text: gzip -9 9.8 -> 5.9 s with both, but -6, -4,
 * -1 and Huffman-only frames 0.05-0.4 s slower (bench/results/2026-11-26-h100x2-multi-gpu-
 * copies.md). Measured when levels 7-9 ran gzip's chains (level 9 0.4 GB/s on text, one H100);
 * since 2026-11-27 they run 2.7-6.2 GB/s, nearer level 6, where the second GPU did not pay:
 * this rule waits to be measured again on two GPUs. */
static int run_gpus(const struct opts *o)
{
	int level = o->format != GPZ_FORMAT_GPZ ? o->level : o->params.lz_level;

	if (o->gpus >= 0)
		return o->gpus;
	return o->op == OP_COMPRESS && level >= 7 ? 0 : 1;
}

static gpz_ctx *get_ctx(const struct opts *o)
{
	gpz_result r;

	if (g_ctx != NULL || g_ctx_failed)
		return g_ctx;
	r = gpz_ctx_create(&g_ctx, o->backend, o->threads);
	if (r == GPZ_OK)
		r = gpz_ctx_set_gpus(g_ctx, run_gpus(o));
	if (r != GPZ_OK) {
		report_error(NULL, "can't start the %s backend: %s", backend_name(o->backend),
		             gpz_result_string(r));
		g_ctx = NULL;
		g_ctx_failed = 1;
		return NULL;
	}
	/* an automatic context starts its GPU beside the first frames: asking which backend it
	 * found would wait for that start */
	if (o->verbose >= 2 && o->backend == GPZ_BACKEND_AUTO)
		fprintf(stderr, "gpz: using the automatic backend (the GPU, if any, starts while the "
		        "first frames run on the CPU), %d CPU threads\n", gpz_ctx_threads(g_ctx));
	else if (o->verbose >= 2)
		fprintf(stderr, "gpz: using the %s backend, %d CPU threads\n",
		        backend_name(gpz_ctx_backend(g_ctx)), gpz_ctx_threads(g_ctx));
	return g_ctx;
}

/* The CPU-only context (created on first use); NULL after reporting an error. */
static gpz_ctx *cpu_ctx(const struct opts *o)
{
	gpz_result r;

	if (g_cpu_ctx == NULL &&
	    (r = gpz_ctx_create(&g_cpu_ctx, GPZ_BACKEND_CPU, o->threads)) != GPZ_OK) {
		report_error(NULL, "can't start the CPU backend: %s", gpz_result_string(r));
		return NULL;
	}
	return g_cpu_ctx;
}

/* ---- The automatic backend's choice ---- */

/* A GPU costs a run about 0.4 s whatever the size (the CUDA start, the lanes' first pinned
 * buffers, the driver's teardown at exit); below some size the CPU's threads finish first. The
 * sizes where the two met with 16 threads, file to file in /dev/shm on a 16-core H100 host
 * (--cpu against --gpu at 0.256, 1 and 4 GB; bench/results/2026-11-26-h100-backend-choice.md),
 * in bytes of the original data. The CPU's side scales with its threads, so the sizes do too. */
#define AT16_HUFF_BYTES ((uint64_t)2400 << 20) /* Huffman-only frames of 1-byte symbols */
#define AT16_HUFF_WIDE ((uint64_t)5800 << 20)  /* ... of 2- and 4-byte symbols */
#define AT16_DEFLATE_FAST ((uint64_t)896 << 20) /* DEFLATE levels 1-3, gzip or .gpz frames */
#define AT16_DEFLATE ((uint64_t)256 << 20)      /* levels 4-9 */
#define AT16_DECODE ((uint64_t)2400 << 20)      /* .gpz frames of any kind, bytes out */
/* ... and bytes in: the CPU's decoding time follows the coded bits as much as the bytes they
 * give (4 GiB of Nyx codes, 7 MB of .gpz, decoded in 0.16-0.18 s on 16 threads) */
#define AT16_DECODE_IN ((uint64_t)768 << 20)
#define AT16_INFLATE ((uint64_t)1472 << 20)     /* gzip members gpz wrote */
/* LZ-symbol frames were not measured so: a frame's worth at 16 threads, as every job was. */
#define AT16_LZ_SYMBOLS ((uint64_t)64 << 20)

/* Is the GPU worth starting for a job of `bytes` that it wins from at16 on at 16 threads? */
static int gpu_worth(const struct opts *o, uint64_t bytes, uint64_t at16)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t threads = (uint64_t)(o->threads > 0 && o->threads < cpus ? o->threads : cpus);

	return bytes >= at16 / 16 * (threads > 0 ? threads : 1);
}

/* The context for a job: the automatic backend keeps a regular file (one whose size is known)
 * on the CPU alone where the GPU is not worth its start (the bytes are the same either way). */
static gpz_ctx *job_ctx(const struct opts *o, const struct job *j, int gpu_pays)
{
	if (o->backend == GPZ_BACKEND_AUTO && S_ISREG(j->st.st_mode) && !gpu_pays)
		return cpu_ctx(o);
	return get_ctx(o);
}

/* Does the GPU pay for compressing `bytes` to the options' format and level? */
static int compress_pays(const struct opts *o, uint64_t bytes)
{
	int level = o->format != GPZ_FORMAT_GPZ ? o->level : o->params.lz_level;
	uint64_t at16 = level > 0 ? (level <= 3 ? AT16_DEFLATE_FAST : AT16_DEFLATE)
	              : o->params.lz_symbols ? AT16_LZ_SYMBOLS
	              : o->params.symbol_bytes == 1 ? AT16_HUFF_BYTES : AT16_HUFF_WIDE;

	return gpu_worth(o, bytes, at16);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t load_le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Space saved, in percent, as gzip reports it. */
static double saved_percent(uint64_t compressed, uint64_t uncompressed)
{
	if (uncompressed == 0)
		return 0.0;
	return 100.0 * (1.0 - (double)compressed / (double)uncompressed);
}

/* The format whose suffix path ends in, or -1. */
static int suffix_format(const char *path)
{
	size_t n = strlen(path);

	for (int f = GPZ_FORMAT_GPZ; f <= GPZ_FORMAT_DEFLATE; f++) {
		size_t k = strlen(format_suffix[f]);
		if (n >= k && strcmp(path + n - k, format_suffix[f]) == 0)
			return f;
	}
	return -1;
}


/* ---- Progress: bytes in and out, ratio and speed on stderr while a job runs (as zstd), only
 * when stderr is a terminal and not under -q. Counts arrive from the frame engine's lanes too. */

static void progress_start(const struct opts *o, const struct job *j)
{
	g_prog.on = !o->quiet && isatty(STDERR_FILENO);
	g_prog.shown = 0;
	g_prog.busy = 0;
	g_prog.name = j->name;
	g_prog.t0 = g_prog.last = now_seconds();
	g_prog.in = g_prog.out = 0;
}

static void progress_add(uint64_t in, uint64_t out)
{
	double t;

	if (!g_prog.on)
		return;
	__atomic_add_fetch(&g_prog.in, in, __ATOMIC_RELAXED);
	__atomic_add_fetch(&g_prog.out, out, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&g_prog.busy, 1, __ATOMIC_ACQUIRE))
		return;
	t = now_seconds();
	if (t - g_prog.last >= 0.25 && t - g_prog.t0 >= 0.5) { /* quick jobs print nothing */
		uint64_t i = __atomic_load_n(&g_prog.in, __ATOMIC_RELAXED);
		uint64_t w = __atomic_load_n(&g_prog.out, __ATOMIC_RELAXED);
		fprintf(stderr, "\r%s: %.1f MiB -> %.1f MiB (%.2f%%) %.0f MB/s  ", g_prog.name,
		        i / 1048576.0, w / 1048576.0, i ? 100.0 * (double)w / (double)i : 0.0,
		        i / 1e6 / (t - g_prog.t0));
		__atomic_store_n(&g_prog.shown, 1, __ATOMIC_RELAXED);
		g_prog.last = t;
	}
	__atomic_store_n(&g_prog.busy, 0, __ATOMIC_RELEASE);
}

static void progress_end(void)
{
	if (__atomic_exchange_n(&g_prog.shown, 0, __ATOMIC_RELAXED))
		fputs("\r\033[K", stderr); /* clear the line */
	g_prog.on = 0;
}

static int write_out(fio_out *out, const struct job *j, const void *buf, size_t n)
{
	if (fio_out_write(out, buf, n) != 0)
		return io_error(j->oname != NULL ? j->oname : "stdout");
	progress_add(0, n);
	return 0;
}

/* ---- Compression ---- */

static int size_error(const struct job *j, uint64_t size, int symbol_bytes)
{
	report_error(j->name, "input size (%" PRIu64 " bytes) is not a multiple of the symbol "
	             "width (%d bytes)", size, symbol_bytes);
	return -1;
}

/* The library's frame engine reads and writes through these; an I/O failure is kept here so
 * the message names the file and the system's reason. */
struct engine_io {
	const struct job *j;
	fio_in *in;        /* decompression reads through the push-back reader */
	fio_out *out;      /* NULL: test only */
	int failed;        /* 1: reading failed, 2: writing failed */
	int err;           /* errno of that failure */
	uint64_t base;     /* positional output: where this stream's output starts */
	uint64_t in_base;  /* positional input: where this stream's input starts in the file */
};

static gpz_result engine_read(void *user, void *buf, size_t cap, size_t *got)
{
	struct engine_io *io = user;
	int rc = io->in ? fio_in_read(io->in, buf, cap, got) : fio_read_full(io->j->fd, buf, cap, got);

	if (rc == 0) {
		progress_add(*got, 0);
		return GPZ_OK;
	}
	io->failed = 1;
	io->err = errno;
	return GPZ_ERR_TRUNCATED;
}

static gpz_result engine_write(void *user, const void *buf, size_t n)
{
	struct engine_io *io = user;

	if (io->out == NULL || fio_out_write(io->out, buf, n) == 0) {
		progress_add(0, n);
		return GPZ_OK;
	}
	io->failed = 2;
	io->err = errno;
	return GPZ_ERR_TRUNCATED;
}

/* Positional output (fileio.h): the lanes write their frames' content in parallel. */
static gpz_result engine_write_at(void *user, const void *buf, size_t n, uint64_t off)
{
	struct engine_io *io = user;

	if (fio_out_write_at(io->out, buf, n, io->base + off) == 0) {
		progress_add(0, n);
		return GPZ_OK;
	}
	__atomic_store_n(&io->err, errno, __ATOMIC_RELAXED);
	__atomic_store_n(&io->failed, 2, __ATOMIC_RELAXED);
	return GPZ_ERR_TRUNCATED;
}

/* Positional input for regular files: the engine's lanes read their frames in parallel. A short
 * read means the file shrank under us. */
static gpz_result engine_read_at(void *user, void *buf, size_t n, uint64_t off)
{
	struct engine_io *io = user;
	size_t got = 0;
	int rc = fio_pread_full(io->j->fd, buf, n, io->in_base + off, &got);

	if (rc != 0 || got < n) { /* an error, or the file shrank under us */
		__atomic_store_n(&io->err, rc != 0 ? errno : EIO, __ATOMIC_RELAXED);
		__atomic_store_n(&io->failed, 1, __ATOMIC_RELAXED);
		return GPZ_ERR_TRUNCATED;
	}
	progress_add(n, 0);
	return GPZ_OK;
}

/* Report a failed engine call: the I/O error behind it, or the library's. */
static int engine_error(const struct engine_io *io, gpz_result r)
{
	if (io->failed) {
		errno = io->err;
		return io_error(io->failed == 1 ? io->j->name
		                : io->j->oname != NULL ? io->j->oname : "stdout");
	}
	return lib_error(io->j->name, r);
}

/* A note under -v when frames went to the CPU because the GPU failed. */
static void note_fallbacks(const struct opts *o, const struct job *j, gpz_ctx *ctx, uint64_t before)
{
	uint64_t n = gpz_ctx_gpu_fallbacks(ctx) - before;

	if (n && o->verbose)
		fprintf(stderr, "gpz: %s: the GPU failed on %" PRIu64 " frame%s; done on the CPU "
		        "(same output)\n", j->name, n, n == 1 ? "" : "s");
}

/* ---- gzip, zlib and raw deflate ---- */

/* Input bytes a gzip member holds at most when its index goes in its header: an entry a piece
 * (GPZ_GZIP_INDEX_MAX_PIECES of them, 4.29 GB), which every reader, the GPU's too, can start at;
 * a larger input gets more members rather than entries for runs of pieces, which only the CPU
 * reads. GPZ_TEST_INDEX_ENTRIES lowers it, as it lowers the library's index, for the tests. */
static uint64_t member_bytes(void)
{
	const char *e = getenv("GPZ_TEST_INDEX_ENTRIES");
	long t = e ? atol(e) : 0;
	uint64_t np = t > 0 && t < GPZ_GZIP_INDEX_MAX_PIECES ? (uint64_t)t : GPZ_GZIP_INDEX_MAX_PIECES;

	return np * GPZ_GZIP_PIECE_BYTES;
}

/* A gzip header with its index filled in: up to 65535 bytes of FEXTRA, a name, the fixed part */
static unsigned char g_hdr[4200 + 8 + 4 * GPZ_GZIP_INDEX_MAX_PIECES];

/* Compressed output that the lanes write at its offsets, in parallel, instead of one ordered
 * writer: where the file system takes parallel writes faster (fileio.h: tmpfs) and the output
 * comes fast enough for one writer to hold the lanes up. On an H100 host, 4 GB of text into
 * /dev/shm: Huffman-only 1.48-1.71 -> 1.12-1.33 s, gzip -1 and .gpz -1 ~10% faster, but gzip -6
 * (GPU-bound, 1.1 GB of output) ~8% slower (bench/results/2026-11-26-h100-parallel-output.md).
 * Levels 2 and 3 go with level 1 unmeasured. */
static int parallel_out(const fio_out *out, int level)
{
	return out->positional && level <= 3;
}

/* One stream (a gzip member) of n bytes of the regular input at in_off, its header rewritten
 * with the index filled in at out_off, where its output begins, when gi asks for the index. */
static int deflate_part(const struct opts *o, const struct job *j, gpz_ctx *ctx, fio_out *out,
                        const gpz_gzip_info *gi, uint64_t in_off, uint64_t n, uint64_t out_off,
                        struct counts *c)
{
	struct engine_io io = { j, NULL, out, 0, 0, out_off, in_off };
	uint64_t used = 0, made = 0, before = gpz_ctx_gpu_fallbacks(ctx);
	gpz_deflate_stream *ds;
	size_t hn;
	int rc = 0;
	gpz_result r = gpz_deflate_stream_create(ctx, o->level, o->format, gi, &ds);

	if (r != GPZ_OK)
		return lib_error(j->name, r);
	r = parallel_out(out, o->level)
	    ? gpz_deflate_stream_from_at_to(ds, engine_read_at, n, engine_write_at, &io, &used, &made)
	    : gpz_deflate_stream_from_at(ds, engine_read_at, n, engine_write, &io, &used, &made);
	note_fallbacks(o, j, ctx, before);
	c->in += used;
	c->out += made;
	if (r != GPZ_OK)
		rc = engine_error(&io, r);
	/* the header again, with the index filled in (an input that changed size while it was read
	 * keeps the reserved, unfilled one: still valid gzip) */
	if (rc == 0 && gi->index_size &&
	    gpz_deflate_stream_header(ds, g_hdr, sizeof g_hdr, &hn) == GPZ_OK &&
	    fio_out_rewrite(out, g_hdr, hn, out_off) != 0)
		rc = io_error(j->oname != NULL ? j->oname : j->name);
	gpz_deflate_stream_free(ds);
	return rc;
}

/* gzip, zlib or raw deflate through the library's frame engine: regular files are read by its
 * lanes in parallel (past member_bytes() in several gzip members when the index goes in the
 * headers), other input through the push reader. */
static int compress_deflate(const struct opts *o, const struct job *j, fio_out *out,
                            struct counts *c)
{
	gpz_ctx *ctx = job_ctx(o, j, compress_pays(o, (uint64_t)j->st.st_size));
	struct engine_io io = { j, NULL, out, 0, 0, 0, 0 };
	gpz_deflate_stream *ds;
	gpz_gzip_info gi = { NULL, 0, 0, 0 };
	uint64_t size = (uint64_t)j->st.st_size, before, part;
	size_t hn;
	gpz_result r;
	int rc = 0, in_header;

	if (ctx == NULL)
		return -1;
	if (!j->is_stdin && !o->no_name) { /* gzip records the original name and mtime */
		const char *base = strrchr(j->path, '/');
		gi.name = base != NULL ? base + 1 : j->path;
		gi.mtime = j->st.st_mtime > 0 ? (uint32_t)j->st.st_mtime : 0;
	}
	/* the piece index goes in the header once the stream is done: only where the output can
	 * be rewritten (a file, or standard output that is one, not in append mode) and the
	 * input's size is known; else after the stream, as an empty member of its own (a pipe's
	 * reader then meets it only at the end, and inflates on one thread) */
	in_header = !o->no_index && out->rewritable && !j->is_stdin && S_ISREG(j->st.st_mode);
	gi.tail_index = !o->no_index && !in_header;
	/* not /proc files, whose size says 0 */
	if (S_ISREG(j->st.st_mode) && size > 0) {
		part = in_header && o->format == GPZ_FORMAT_GZIP ? member_bytes() : size;
		if (parallel_out(out, o->level))
			fio_out_expect_at_most(out, gpz_deflate_bound((size_t)size) +
			                            (size / part + 1) * sizeof g_hdr);
		for (uint64_t at = 0; rc == 0 && at < size; at += part) {
			uint64_t n = size - at < part ? size - at : part;
			gi.index_size = in_header ? n : 0;
			rc = deflate_part(o, j, ctx, out, &gi, at, n, c->out, c);
			gi.name = NULL; /* the name in the first member only: one file */
		}
		return rc;
	}
	gi.index_size = in_header; /* an empty file: one piece */
	r = gpz_deflate_stream_create(ctx, o->level, o->format, &gi, &ds);
	if (r != GPZ_OK)
		return lib_error(j->name, r);
	before = gpz_ctx_gpu_fallbacks(ctx);
	r = gpz_deflate_stream_from(ds, engine_read, engine_write, &io, &c->in, &c->out);
	note_fallbacks(o, j, ctx, before);
	if (r != GPZ_OK)
		rc = engine_error(&io, r);
	if (rc == 0 && in_header && gpz_deflate_stream_header(ds, g_hdr, sizeof g_hdr, &hn) == GPZ_OK &&
	    fio_out_rewrite(out, g_hdr, hn, 0) != 0)
		rc = io_error(j->oname != NULL ? j->oname : j->name);
	gpz_deflate_stream_free(ds);
	return rc;
}

#define DEFLATE_IO ((size_t)8 << 20) /* bytes inflated per step */

/* The zlib window-bits that decode the stream starting with b[0..n): 31 gzip, 15 zlib, -15 raw
 * deflate (by suffix or --format), 0 for gpz or unknown. */
static int deflate_kind(const struct opts *o, const struct job *j, const unsigned char *b,
                        size_t n)
{
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return 31;
	if (n >= 2 && (b[0] & 0x0f) == 8 && (b[0] >> 4) <= 7 && (b[0] * 256 + b[1]) % 31 == 0)
		return 15;
	if (n >= 1 && b[0] == 0x89)
		return 0;
	if (suffix_format(j->path) == GPZ_FORMAT_DEFLATE || o->format == GPZ_FORMAT_DEFLATE)
		return -15;
	return 0;
}

/* Make at least `want` input bytes available to z (fewer only at end of input): the unread
 * bytes move to the front of g_in and more are read after them. */
static int refill(const struct job *j, fio_in *in, z_stream *z, size_t want, int *eof)
{
	size_t got;

	if (z->avail_in >= want || *eof)
		return 0;
	memmove(g_in, z->next_in, z->avail_in);
	if (fio_in_read(in, g_in + z->avail_in, DEFLATE_IO - z->avail_in, &got) != 0)
		return io_error(j->name);
	*eof = got < DEFLATE_IO - z->avail_in;
	progress_add(got, 0);
	z->next_in = g_in;
	z->avail_in += (uInt)got;
	return 0;
}

/* Decode gzip (every member), zlib or raw deflate through zlib. out == NULL: test only. */
/* After a gzip member: is the rest of the input zero bytes (tape or block padding)? 0 when it
 * is (all of it consumed), 1 when something else follows, -1 on a read error. */
static int zeros_to_end(const struct job *j, fio_in *in, z_stream *z, int *eof)
{
	for (;;) {
		for (; z->avail_in; z->avail_in--, z->next_in++)
			if (*z->next_in)
				return 1;
		if (*eof)
			return 0;
		if (refill(j, in, z, 1, eof) != 0)
			return -1;
		if (z->avail_in == 0 && *eof)
			return 0;
	}
}

/* Is the gzip member starting at b[0 .. n) a trailing piece index (docs/FORMAT.md: empty, its
 * extra field subfield 'G','P' version 5 or 7, or 3 as written before 2026-11-23 evening)? Such
 * a member is not counted as one. */
static int index_member(const unsigned char *b, size_t n)
{
	return n >= 17 && b[0] == 0x1f && b[1] == 0x8b && b[3] == 0x04 && b[12] == 'G' &&
	       b[13] == 'P' && (b[16] == 5 || b[16] == 7 || b[16] == 3);
}

static int decode_deflate(const struct job *j, fio_in *in, int wbits, fio_out *out,
                          struct counts *c)
{
	z_stream z;
	int zr = Z_OK, rc = 0, eof = 0;

	if (reserve(&g_in, &g_in_cap, DEFLATE_IO) != 0 ||
	    reserve(&g_out, &g_out_cap, DEFLATE_IO) != 0)
		return io_error(j->name);
	memset(&z, 0, sizeof z);
	z.next_in = g_in;
	if (inflateInit2(&z, wbits) != Z_OK)
		return lib_error(j->name, GPZ_ERR_NOMEM);
	for (;;) {
		if ((rc = refill(j, in, &z, 1, &eof)) != 0)
			break;
		z.next_out = g_out;
		z.avail_out = (uInt)DEFLATE_IO;
		zr = inflate(&z, Z_NO_FLUSH);
		size_t produced = DEFLATE_IO - z.avail_out;
		if (produced && out != NULL && write_out(out, j, g_out, produced) != 0) {
			rc = -1;
			break;
		}
		c->out += produced;
		if (zr == Z_STREAM_END) {
			/* another gzip member may follow; its magic may straddle a read */
			if ((rc = refill(j, in, &z, 2, &eof)) != 0 || z.avail_in == 0)
				break;
			if (wbits == 31 && z.avail_in >= 2 && z.next_in[0] == 0x1f &&
			    z.next_in[1] == 0x8b) {
				inflateReset(&z);
				if ((rc = refill(j, in, &z, 17, &eof)) != 0)
					break;
				/* gzip members after the first */
				c->frames += !index_member(z.next_in, z.avail_in);
				continue;
			}
			if (wbits == 31 && (rc = zeros_to_end(j, in, &z, &eof)) <= 0)
				break; /* zero padding after gzip members, as gzip accepts it (or an error) */
			report_error(j->name, "trailing garbage after the compressed data");
			rc = -1;
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			report_error(j->name, "corrupt compressed data (%s)", z.msg ? z.msg : "zlib error");
			rc = -1;
			break;
		}
		if (zr == Z_BUF_ERROR && z.avail_in == 0 && eof) {
			report_error(j->name, "compressed data is truncated");
			rc = -1;
			break;
		}
	}
	c->in = in->pos - z.avail_in;
	inflateEnd(&z);
	return rc;
}

static int compress_stream(const struct opts *o, const struct job *j, fio_out *out,
                           struct counts *c)
{
	uint64_t size = (uint64_t)j->st.st_size, before;
	struct engine_io io = { j, NULL, out, 0, 0, 0, 0 };
	gpz_ctx *ctx;
	gpz_result r;

	if (o->format != GPZ_FORMAT_GPZ)
		return compress_deflate(o, j, out, c);

	/* Fail early when the size is known; pipes are caught at their end. */
	if (S_ISREG(j->st.st_mode) && size % (uint64_t)o->params.symbol_bytes != 0)
		return size_error(j, size, o->params.symbol_bytes);
	ctx = job_ctx(o, j, compress_pays(o, size));
	if (ctx == NULL)
		return -1;
	before = gpz_ctx_gpu_fallbacks(ctx);
	/* the lanes read their frames themselves (not for small files, nor /proc ones, whose size
	 * says 0), and write them too where that is faster */
	if (S_ISREG(j->st.st_mode) && size >= ((uint64_t)1 << 20)) {
		if (parallel_out(out, o->params.lz_level))
			fio_out_expect_at_most(out, gpz_compress_bound((size_t)size, &o->params));
		r = parallel_out(out, o->params.lz_level)
		    ? gpz_compress_stream_at_to(ctx, &o->params, engine_read_at, size,
		                                engine_write_at, &io, &c->in, &c->out)
		    : gpz_compress_stream_at(ctx, &o->params, engine_read_at, size, engine_write,
		                             &io, &c->in, &c->out);
	} else
		r = gpz_compress_stream(ctx, &o->params, engine_read, engine_write, &io, &c->in,
		                        &c->out);
	note_fallbacks(o, j, ctx, before);
	if (r == GPZ_ERR_SIZE_ALIGN && !io.failed)
		return size_error(j, c->in, o->params.symbol_bytes);
	if (r != GPZ_OK)
		return engine_error(&io, r);
	return 0;
}

/* ---- Reading gpz streams ---- */

/*
 * Read and check a stream header. Returns 1 when one was read, 0 at a clean end of input after
 * an earlier stream (first == 0), -1 on error.
 */
static int read_stream_header(const struct job *j, fio_in *in, int first, int push_back)
{
	unsigned char h[GPZ_HEADER_SIZE];
	size_t got;
	gpz_result r;

	if (fio_in_read(in, h, sizeof h, &got) != 0)
		return io_error(j->name);
	if (!first && got == 0)
		return 0;
	r = gpz_read_header(h, got);
	if (r == GPZ_OK && push_back) /* for gpz_decompress_stream, which reads it again */
		return fio_in_unread(in, h, got) == 0 ? 1 : io_error(j->name);
	if (r == GPZ_OK)
		return 1;
	if (first)
		return lib_error(j->name, r);
	report_error(j->name, "trailing garbage after the gpz data (at byte %" PRIu64 ")",
	             in->pos - got);
	return -1;
}

/* The largest frame block any valid parameters can produce (0 if the library won't say). */
static size_t max_frame_block(void)
{
	static size_t limit;
	static const int widths[] = { 1, 2, 4 };
	gpz_params p;
	size_t i, b;

	if (limit != 0)
		return limit;
	for (i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		gpz_params_default(&p);
		p.symbol_bytes = widths[i];
		p.chunk_log = GPZ_MIN_CHUNK_LOG;
		p.frame_bytes = GPZ_MAX_FRAME_BYTES;
		b = gpz_frame_bound(GPZ_MAX_FRAME_BYTES, &p);
		limit = b > limit ? b : limit;
	}
	return limit;
}

/* A block size the reader can safely allocate; guards against absurd sizes in corrupt input. */
static int plausible_block(const gpz_block_info *info)
{
	if (info->kind == GPZ_BLOCK_TRAILER)
		return info->block_bytes >= 1 && info->block_bytes <= MAX_TRAILER_BYTES;
	if (info->kind != GPZ_BLOCK_FRAME || info->content_bytes > GPZ_MAX_FRAME_BYTES)
		return 0;
	return info->block_bytes >= 8 && info->block_bytes <= max_frame_block();
}

/* Read the start of the next block into g_in and parse it; *got receives the bytes read. */
static int peek_block(const struct job *j, fio_in *in, gpz_block_info *info, size_t *got)
{
	gpz_result r;

	if (reserve(&g_in, &g_in_cap, GPZ_BLOCK_PEEK_SIZE) != 0)
		return io_error(j->name);
	if (fio_in_read(in, g_in, GPZ_BLOCK_PEEK_SIZE, got) != 0)
		return io_error(j->name);
	if (*got == 0)
		return lib_error(j->name, GPZ_ERR_TRUNCATED);
	r = gpz_parse_block(g_in, *got, info);
	if (r != GPZ_OK)
		return lib_error(j->name, r);
	if (!plausible_block(info))
		return lib_error(j->name, GPZ_ERR_CORRUPT);
	if (info->block_bytes < *got) {
		if (fio_in_unread(in, g_in + info->block_bytes, *got - info->block_bytes) != 0)
			return io_error(j->name);
		*got = (size_t)info->block_bytes;
	}
	return 0;
}

/* Read the rest of the block whose first got bytes peek_block left in g_in. */
static int load_block(const struct job *j, fio_in *in, const gpz_block_info *info, size_t got)
{
	size_t need = (size_t)info->block_bytes, more;

	if (reserve(&g_in, &g_in_cap, need) != 0)
		return io_error(j->name);
	if (need > got && fio_in_read(in, g_in + got, need - got, &more) != 0)
		return io_error(j->name);
	if (need > got && more < need - got)
		return lib_error(j->name, GPZ_ERR_TRUNCATED);
	return 0;
}

/* Check a loaded trailer against the stream's counts. */
static int end_stream(const struct job *j, const gpz_block_info *info,
                      const struct stream_counts *sc)
{
	gpz_result r = gpz_read_trailer(g_in, (size_t)info->block_bytes, sc->bytes, sc->frames);

	if (r != GPZ_OK)
		return lib_error(j->name, r);
	return 0;
}

static int count_frame(const struct job *j, struct stream_counts *sc, uint64_t bytes)
{
	if (sc->frames == UINT32_MAX)
		return lib_error(j->name, GPZ_ERR_CORRUPT);
	sc->frames++;
	sc->bytes += bytes;
	return 0;
}

/* ---- Decompression and test ---- */

/* Are the bytes of the file from `at` to `size` all zero? 0 yes, 1 no, -1 on a read error. */
static int zeros_from(const struct job *j, uint64_t at, uint64_t size)
{
	if (reserve(&g_in, &g_in_cap, DEFLATE_IO) != 0)
		return io_error(j->name);
	while (at < size) {
		size_t n = size - at < DEFLATE_IO ? (size_t)(size - at) : DEFLATE_IO;
		ssize_t k = pread(j->fd, g_in, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? io_error(j->name) : 1;
		for (ssize_t i = 0; i < k; i++)
			if (g_in[i])
				return 1;
		at += (uint64_t)k;
	}
	return 0;
}

static uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What a regular gzip file will decode to: its last member's ISIZE (the size mod 2^32; a lower
 * bound when the members are several or the size wraps), 0 when unknown; where the last member
 * is a trailing piece index (docs/FORMAT.md: a stream gpz wrote to standard output), whose ISIZE
 * is 0, the ISIZE of the member before it. A hint only, for positional output and the backend's
 * choice, as gpz_output_size for .gpz. */
static uint64_t gzip_output_size(const struct job *j)
{
	static const unsigned char empty_end[10] = { 0x03, 0x00 }; /* empty block, CRC-32 0, size 0 */
	unsigned char t[18], h[18];
	uint64_t size = (uint64_t)j->st.st_size, np, im;
	size_t got = 0;

	if (size < 18 || fio_pread_full(j->fd, t, sizeof t, size - sizeof t, &got) != 0 ||
	    got != sizeof t)
		return 0;
	np = le32_at(t + 4);
	im = 50 + 4 * np; /* the index member's bytes, np read 14 bytes from the end */
	if (!memcmp(t + 8, empty_end, sizeof empty_end) && np >= 1 &&
	    np <= GPZ_GZIP_TAIL_INDEX_MAX_PIECES && im + 18 <= size &&
	    fio_pread_full(j->fd, h, sizeof h, size - im, &got) == 0 && got == sizeof h &&
	    index_member(h, sizeof h) &&
	    fio_pread_full(j->fd, t, 4, size - im - 4, &got) == 0 && got == 4)
		return le32_at(t);
	return le32_at(t + 14);
}

/* A regular .gz file: members gpz wrote with the piece index are inflated in parallel by the
 * library (positional reads, bounded memory); from the first member without one, zlib goes on
 * from there. */
static int decode_gzip_file(const struct opts *o, const struct job *j, fio_in *in, fio_out *out,
                            struct counts *c)
{
	struct engine_io io = { j, NULL, out, 0, 0, 0, 0 };
	uint64_t size = (uint64_t)j->st.st_size, at = 0;
	gpz_result r = GPZ_OK;
	int rc;

	/* the output's size (at least the file's, should ISIZE have wrapped) chooses the backend */
	uint64_t made_size = gzip_output_size(j);
	gpz_ctx *ctx;

	if (out && out->positional && made_size) /* its space reserved while the GPU starts */
		fio_out_expect(out, c->out + made_size);
	ctx = job_ctx(o, j, gpu_worth(o, made_size > size ? made_size : size, AT16_INFLATE));
	if (ctx == NULL)
		return -1;
	while (r == GPZ_OK && at < size) {
		uint64_t used = 0, made = 0;
		io.base = c->out;
		if (out && out->positional) /* the lanes write their batches in parallel */
			r = gpz_inflate_member_at_to(ctx, engine_read_at, size, at, engine_write_at, &io,
			                             &used, &made);
		else
			r = gpz_inflate_member_at(ctx, engine_read_at, size, at, engine_write, &io, &used,
			                          &made);
		if (r == GPZ_OK) {
			c->frames += at > 0; /* gzip members after the first */
			at += used;
			c->out += made;
		}
	}
	c->in = at;
	if (r == GPZ_OK)
		return 0;
	if (r != GPZ_ERR_FORMAT) /* bad data or I/O: nothing more to try */
		return engine_error(&io, r);
	if (at > 0) { /* zero padding after the members is accepted, as gzip does */
		unsigned char m[2] = { 0, 0 };
		int z = zeros_from(j, at, size);
		if (z <= 0) {
			c->in = z == 0 ? size : at;
			return z;
		}
		if (pread(j->fd, m, 2, (off_t)at) != 2 || m[0] != 0x1f || m[1] != 0x8b) {
			report_error(j->name, "trailing garbage after the compressed data");
			return -1;
		}
	}
	if (at > 0 && lseek(j->fd, (off_t)at, SEEK_SET) != (off_t)at)
		return io_error(j->name);
	/* zlib goes on writing in order, after what the members before wrote at their offsets */
	if (out && out->positional && fio_out_seek(out, c->out) != 0)
		return io_error(j->oname != NULL ? j->oname : "stdout");
	if (at > 0)
		fio_in_init(in, j->fd);
	unsigned char head[17];
	int counted = at > 0 && !(pread(j->fd, head, sizeof head, (off_t)at) == (ssize_t)sizeof head &&
	                          index_member(head, sizeof head));
	struct counts rest = { 0, 0, 0 };
	rc = decode_deflate(j, in, 31, out, &rest);
	c->in += rest.in;
	c->out += rest.out;
	c->frames += rest.frames + counted;
	return rc;
}

/* The memory the kernel says can be had without swapping (MemAvailable), or 0 where it does not
 * say. */
static uint64_t mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long long kib = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return (uint64_t)kib << 10;
}

/* How much of a pipe's input may be held looking for a trailing piece index: an eighth of the
 * machine's memory, and no more than a quarter of what is available now (a busy machine's
 * pages are not taken from under it), but at least 256 MiB. */
static size_t pipe_ahead(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t a = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 8 : 0;
	uint64_t avail = mem_available();
	if (avail && avail / 4 < a)
		a = avail / 4;
	if (a < ((uint64_t)256 << 20))
		a = (uint64_t)256 << 20;
	return a < (uint64_t)SIZE_MAX / 2 ? (size_t)a : SIZE_MAX / 2;
}

/* gzip from a pipe: members gpz wrote with the piece index in their header are inflated in
 * batches of pieces on the CPU threads as they arrive, and so is a member whose header notes
 * that its index trails the stream (gpz wrote it to a pipe) when the input ends within
 * pipe_ahead() bytes (gpz_inflate_stream_ahead); others by zlib. */
static int decode_gzip_pipe(const struct opts *o, const struct job *j, fio_in *in, fio_out *out,
                            struct counts *c)
{
	struct engine_io io = { j, in, out, 0, 0, 0, 0 };
	/* the CPU's threads even with --gpu: a member held whole (read ahead to its trailing index)
	 * took longer on the GPU context (1 GB of gzip -6 on a 16-core H200 host: 0.78-0.83 s to
	 * /dev/null against 0.54-0.58; bench/results/2026-11-28-h200-tool-ext4-folios.md), probably
	 * as the GPU's start (0.2 s) comes before the pipe is read, not beside it */
	gpz_result r;

	if (cpu_ctx(o) == NULL)
		return -1;
	r = gpz_inflate_stream_ahead(g_cpu_ctx, GPZ_FORMAT_GZIP, engine_read, engine_write, &io,
	                             pipe_ahead(), &c->in, &c->out);
	if (r == GPZ_OK)
		return 0;
	if (r == GPZ_ERR_FORMAT && c->in > 0) { /* after the members: neither zeros nor a member */
		report_error(j->name, "trailing garbage after the compressed data");
		return -1;
	}
	return engine_error(&io, r);
}

/* The input copied to the output as it is. */
static int pass_through(const struct job *j, fio_in *in, fio_out *out, struct counts *c)
{
	size_t got = 0;

	if (reserve(&g_in, &g_in_cap, DEFLATE_IO) != 0)
		return io_error(j->name);
	do {
		if (fio_in_read(in, g_in, DEFLATE_IO, &got) != 0)
			return io_error(j->name);
		if (got && write_out(out, j, g_in, got) != 0)
			return -1;
		c->in += got;
		c->out += got;
	} while (got == DEFLATE_IO);
	return 0;
}

/* What a regular .gpz file will decode to (from its last trailer: the whole file for one
 * stream, a lower bound for several), 0 when unknown: positional output reserves and maps the
 * output once from it instead of frame by frame, and the backend is chosen by it. A hint only:
 * nothing is trusted beyond the space. */
static uint64_t gpz_output_size(const struct job *j)
{
	unsigned char t[GPZ_TRAILER_SIZE];
	gpz_block_info info;
	size_t got = 0;

	if (!S_ISREG(j->st.st_mode) || j->st.st_size < GPZ_TRAILER_SIZE ||
	    fio_pread_full(j->fd, t, sizeof t, (uint64_t)j->st.st_size - sizeof t, &got) != 0 ||
	    got != sizeof t)
		return 0;
	if (gpz_parse_block(t, sizeof t, &info) == GPZ_OK && info.kind == GPZ_BLOCK_TRAILER)
		return info.total_bytes;
	return 0;
}

/* Is the stream's first frame Huffman-only (or stored, or constant)? Peeked in a regular file.
 * Such frames decode faster on 16 CPU threads than through the GPU at the sizes measured, the
 * file's writing bounding both (4 GB of text: 0.96-1.22 s against 1.25-1.38 s;
 * bench/results/2026-11-27-h100-cpu-decode-rounds.md); LZ frames do not. */
static int huffman_frames(const struct job *j)
{
	unsigned char h[GPZ_BLOCK_PEEK_SIZE];
	gpz_block_info info;
	size_t got = 0;

	return S_ISREG(j->st.st_mode) &&
	       fio_pread_full(j->fd, h, sizeof h, GPZ_HEADER_SIZE, &got) == 0 && got == sizeof h &&
	       gpz_parse_block(h, sizeof h, &info) == GPZ_OK && info.kind == GPZ_BLOCK_FRAME &&
	       info.frame_type <= GPZ_FRAME_CONSTANT;
}

/* Decode every block of the input; out == NULL only tests. */
static int decode_stream(const struct opts *o, const struct job *j, fio_out *out,
                         struct counts *c)
{
	struct engine_io io = { j, NULL, NULL, 0, 0, 0, 0 };
	gpz_ctx *ctx;
	fio_in in;
	size_t got;
	uint64_t made_size;
	int more;

	fio_in_init(&in, j->fd);
	{ /* gzip, zlib and raw deflate: the library's inflate (gzip), or zlib */
		unsigned char b[4];
		int wbits;
		if (fio_in_read(&in, b, sizeof b, &got) != 0 || fio_in_unread(&in, b, got) != 0)
			return io_error(j->name);
		wbits = deflate_kind(o, j, b, got);
		/* -dcf: what is not compressed goes through unchanged, as zcat -f does */
		if (wbits == 0 && o->force && j->use_stdout && o->op == OP_DECOMPRESS &&
		    (got < 4 || memcmp(b, "\x89GPZ", 4) != 0))
			return pass_through(j, &in, out, c);
		if (wbits == 31 && S_ISREG(j->st.st_mode))
			return decode_gzip_file(o, j, &in, out, c);
		if (wbits == 31)
			return decode_gzip_pipe(o, j, &in, out, c);
		if (wbits != 0)
			return decode_deflate(j, &in, wbits, out, c);
	}
	made_size = gpz_output_size(j);
	if (out && out->positional && made_size) /* its space reserved while the GPU starts */
		fio_out_expect(out, c->out + made_size);
	/* the GPU where both what is decoded and what it decodes to are large, and the frames are
	 * LZ ones */
	ctx = job_ctx(o, j, gpu_worth(o, (uint64_t)j->st.st_size, AT16_DECODE_IN) &&
	                    gpu_worth(o, made_size ? made_size : (uint64_t)j->st.st_size,
	                              AT16_DECODE) &&
	                    !huffman_frames(j));
	if (ctx == NULL)
		return -1;
	io.in = &in;
	io.out = out;
	more = read_stream_header(j, &in, 1, 1);
	while (more > 0) { /* each stream (concatenated ones too) through the frame engine */
		uint64_t used = 0, made = 0, before = gpz_ctx_gpu_fallbacks(ctx);
		gpz_result r;
		io.base = c->out;
		if (out && out->positional)
			r = gpz_decompress_stream_at(ctx, engine_read, engine_write_at, &io, &used, &made);
		else
			r = gpz_decompress_stream(ctx, engine_read, engine_write, &io, &used, &made);
		note_fallbacks(o, j, ctx, before);
		if (r != GPZ_OK)
			return engine_error(&io, r);
		c->out += made;
		more = read_stream_header(j, &in, 0, 1);
	}
	c->in = in.pos;
	return more;
}

/* ---- Listing ---- */

struct frame_note {
	gpz_frame_type type;
	int lanes; /* a Huffman frame in the lanes layout (docs/FORMAT.md, header byte 20) */
	uint64_t content, block, checksum;
};

struct listing {
	const char *kind;     /* "gzip", "zlib", "raw-deflate" for DEFLATE streams, else NULL */
	uint64_t comp, uncomp, frames;
	unsigned types;       /* bit (1 << gpz_frame_type) for each type seen */
	int sym, chunk_log;   /* -1: no frame yet, -2: frames differ */
	uint64_t first_sum;
	struct frame_note *notes; /* every frame, kept for -v */
	size_t notes_cap;
};

static int g_list_files;
static struct listing g_list_total;

/* Consume the rest of a frame block without decoding it; tail receives its last 8 bytes. */
static int skip_frame(const struct job *j, fio_in *in, uint64_t block_bytes, size_t got,
                      unsigned char tail[8])
{
	uint64_t rest = block_bytes - got, skipped;
	size_t keep = rest >= 8 ? 0 : 8 - (size_t)rest, n;

	memcpy(tail, g_in + got - keep, keep);
	if (rest > 8 && fio_in_skip(in, rest - 8, &skipped) != 0)
		return io_error(j->name);
	if (rest > 8 && skipped < rest - 8)
		return lib_error(j->name, GPZ_ERR_TRUNCATED);
	if (fio_in_read(in, tail + keep, 8 - keep, &n) != 0)
		return io_error(j->name);
	if (n < 8 - keep)
		return lib_error(j->name, GPZ_ERR_TRUNCATED);
	return 0;
}

static void merge_param(int *slot, int v)
{
	if (*slot == -1)
		*slot = v;
	else if (*slot != v)
		*slot = -2;
}

static int note_frame(struct listing *L, const gpz_block_info *info, int lanes, uint64_t sum)
{
	struct frame_note *fn;

	if (L->frames == 0)
		L->first_sum = sum;
	L->frames++;
	if ((unsigned)info->frame_type < 32)
		L->types |= 1u << (unsigned)info->frame_type;
	merge_param(&L->sym, info->symbol_bytes);
	/* Huffman and LZ-symbol chunks, deflate pieces; stored and constant frames have neither */
	if (info->frame_type == GPZ_FRAME_HUFFMAN || info->frame_type == GPZ_FRAME_DEFLATE ||
	    info->frame_type == GPZ_FRAME_LZSYM)
		merge_param(&L->chunk_log, info->chunk_log);
	if (L->frames > L->notes_cap) {
		size_t cap = L->notes_cap ? L->notes_cap * 2 : 16;

		fn = realloc(L->notes, cap * sizeof *fn);
		if (fn == NULL)
			return -1;
		L->notes = fn;
		L->notes_cap = cap;
	}
	fn = &L->notes[L->frames - 1];
	fn->type = info->frame_type;
	fn->lanes = lanes;
	fn->content = info->content_bytes;
	fn->block = info->block_bytes;
	fn->checksum = sum;
	return 0;
}

static int list_frame(const struct job *j, fio_in *in, const gpz_block_info *info, size_t got,
                      struct listing *L, struct stream_counts *sc)
{
	unsigned char tail[8];
	int lanes = info->frame_type == GPZ_FRAME_HUFFMAN && got > 20 && g_in[20] == 1;

	if (skip_frame(j, in, info->block_bytes, got, tail) != 0)
		return -1;
	if (note_frame(L, info, lanes, load_le64(tail)) != 0) {
		errno = ENOMEM;
		return io_error(j->name);
	}
	return count_frame(j, sc, info->content_bytes);
}

/* Walk the blocks of the input, reading frame headers and checksums only. */
static int scan_stream(const struct job *j, fio_in *inp, struct listing *L)
{
	struct stream_counts sc = { 0, 0 };
	gpz_block_info info;
	fio_in in = *inp;
	size_t got;
	int more;

	more = read_stream_header(j, &in, 1, 0);
	while (more > 0) {
		if (peek_block(j, &in, &info, &got) != 0)
			return -1;
		if (info.kind == GPZ_BLOCK_FRAME) {
			if (list_frame(j, &in, &info, got, L, &sc) != 0)
				return -1;
			continue;
		}
		if (load_block(j, &in, &info, got) != 0 || end_stream(j, &info, &sc) != 0)
			return -1;
		L->uncomp += sc.bytes;
		sc.bytes = 0;
		sc.frames = 0;
		more = read_stream_header(j, &in, 0, 0);
	}
	L->comp = in.pos;
	return more;
}

static const char *frame_type_name(gpz_frame_type t)
{
	switch (t) {
	case GPZ_FRAME_HUFFMAN: return "huffman";
	case GPZ_FRAME_STORED: return "stored";
	case GPZ_FRAME_CONSTANT: return "constant";
	case GPZ_FRAME_DEFLATE: return "deflate";
	case GPZ_FRAME_LZSYM: return "lzsym";
	}
	return "unknown";
}

static void types_string(unsigned types, char *buf, size_t cap)
{
	static const gpz_frame_type all[] = { GPZ_FRAME_HUFFMAN, GPZ_FRAME_LZSYM, GPZ_FRAME_DEFLATE,
	                                      GPZ_FRAME_STORED, GPZ_FRAME_CONSTANT };
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof all / sizeof all[0]; i++) {
		if (types & (1u << (unsigned)all[i]))
			len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "+" : "",
			                        frame_type_name(all[i]));
	}
	if (len == 0)
		snprintf(buf, cap, "-");
}

static void param_string(int v, int is_chunk, char *buf, size_t cap)
{
	if (v == -1)
		snprintf(buf, cap, "-");
	else if (v == -2)
		snprintf(buf, cap, "mixed");
	else if (is_chunk)
		snprintf(buf, cap, "%lu", 1ul << v);
	else
		snprintf(buf, cap, "%d", v);
}

static void list_header(void)
{
	printf("%12s %13s %7s %7s %4s %8s %-16s %-26s %s\n", "compressed", "uncompressed", "saved",
	       "frames", "sym", "chunk", "types", "checksum", "name");
}

static void list_row(const struct listing *L, const char *name)
{
	char ratio[16], sym[16], chunk[24], types[48], sum[64];

	snprintf(ratio, sizeof ratio, L->uncomp ? "%.1f%%" : "-", saved_percent(L->comp, L->uncomp));
	param_string(L->sym, 0, sym, sizeof sym);
	param_string(L->chunk_log, 1, chunk, sizeof chunk);
	if (L->kind)
		snprintf(types, sizeof types, "%s", L->kind);
	else
		types_string(L->types, types, sizeof types);
	if (L->frames == 0 || name == NULL || L->kind)
		snprintf(sum, sizeof sum, "-"); /* DEFLATE streams carry CRC-32/Adler-32, not XXH64 */
	else if (L->frames == 1)
		snprintf(sum, sizeof sum, "%016" PRIx64, L->first_sum);
	else
		snprintf(sum, sizeof sum, "%016" PRIx64 "+%" PRIu64 " more", L->first_sum,
		         L->frames - 1);
	printf("%12" PRIu64 " %13" PRIu64 " %7s %7" PRIu64 " %4s %8s %-16s %-26s %s\n", L->comp,
	       L->uncomp, ratio, L->frames, sym, chunk, types, sum, name ? name : "(totals)");
}

static void list_frames(const struct listing *L)
{
	uint64_t i;

	for (i = 0; i < L->frames; i++) {
		const struct frame_note *fn = &L->notes[i];

		printf("    frame %-6" PRIu64 " %-9s %13" PRIu64 " -> %12" PRIu64 "  checksum %016" PRIx64
		       "%s\n", i + 1, frame_type_name(fn->type), fn->content, fn->block, fn->checksum,
		       fn->lanes ? "  lanes layout" : "");
	}
}

static void add_to_total(const struct listing *L)
{
	struct listing *T = &g_list_total;

	if (g_list_files++ == 0) {
		T->sym = -1;
		T->chunk_log = -1;
	}
	T->comp += L->comp;
	T->uncomp += L->uncomp;
	T->frames += L->frames;
	T->types |= L->types;
	if (L->sym != -1)
		merge_param(&T->sym, L->sym);
	if (L->chunk_log != -1)
		merge_param(&T->chunk_log, L->chunk_log);
}

/* A gzip (every member), zlib or raw DEFLATE stream: decoded through zlib to count its bytes
 * exactly (gzip -l reads only the last member's size field, modulo 4 GiB); frames = members.
 * Returns 1 when the input is not one of them. */
static int scan_deflate(const struct opts *o, const struct job *j, fio_in *in,
                        struct listing *L)
{
	struct counts c = { 0, 0, 0 };
	unsigned char b[2];
	size_t got;
	int wbits;

	if (fio_in_read(in, b, sizeof b, &got) != 0 || fio_in_unread(in, b, got) != 0)
		return io_error(j->name);
	wbits = deflate_kind(o, j, b, got);
	if (wbits == 0)
		return 1;
	if (wbits == 31 && S_ISREG(j->st.st_mode) ? decode_gzip_file(o, j, in, NULL, &c) != 0
	                                          : decode_deflate(j, in, wbits, NULL, &c) != 0)
		return -1;
	L->kind = wbits == 31 ? "gzip" : wbits == 15 ? "zlib" : "raw-deflate";
	L->comp = c.in;
	L->uncomp = c.out;
	L->frames = c.frames + 1;
	L->sym = 1;
	return 0;
}

static void run_list(const struct opts *o, const struct job *j)
{
	struct listing L;
	fio_in in;
	int r;

	memset(&L, 0, sizeof L);
	L.sym = -1;
	L.chunk_log = -1;
	fio_in_init(&in, j->fd);
	r = scan_deflate(o, j, &in, &L);
	if (r == 1)
		r = scan_stream(j, &in, &L);
	if (r == 0) {
		if (g_list_files == 0)
			list_header();
		list_row(&L, j->name);
		if (o->verbose && L.notes) /* DEFLATE streams have members, not frames to list */
			list_frames(&L);
		add_to_total(&L);
	}
	free(L.notes);
}

/* ---- Per-file driver ---- */

static int open_named_input(const struct opts *o, struct job *j)
{
	/* where the input is only read (to standard output, -t, -l), links and pipes are followed
	 * as zstd does: `gpz -c <(cmd)`, a fifo; a file that would be replaced must be a regular
	 * one (as gzip wants), links followed only with -f */
	int lenient = o->force || j->use_stdout || o->op == OP_TEST;

	if (lstat(j->path, &j->st) != 0)
		return io_error(j->name);
	if (S_ISLNK(j->st.st_mode) && !lenient) {
		report_warning(o, j->name, "is a symbolic link -- ignored (use -f to follow it)");
		return -1;
	}
	/* a fifo is opened (which waits for a writer, as cat does) only where it may be read:
	 * its type is looked at first, so that `gpz FIFO` says so instead of hanging */
	struct stat target;
	if (!lenient && stat(j->path, &target) == 0 && S_ISFIFO(target.st_mode)) {
		report_warning(o, j->name, "is not a regular file -- ignored (use -c to read it)");
		return -1;
	}
	j->fd = open(j->path, O_RDONLY);
	if (j->fd < 0)
		return io_error(j->name);
	if (fstat(j->fd, &j->st) != 0)
		return io_error(j->name);
	if (S_ISDIR(j->st.st_mode))
		report_warning(o, j->name, "is a directory -- ignored");
	else if (!S_ISREG(j->st.st_mode) && !lenient)
		report_warning(o, j->name, "is not a regular file -- ignored (use -c to read it)");
	else if (j->remove_input && j->st.st_nlink > 1 && !o->force)
		report_warning(o, j->name, "has %lu other links -- unchanged (use -f to force)",
		               (unsigned long)j->st.st_nlink - 1);
	else
		return 0;
	return -1;
}

static int open_input(const struct opts *o, struct job *j)
{
	if (!j->is_stdin)
		return open_named_input(o, j);
	j->fd = STDIN_FILENO;
	if (fstat(j->fd, &j->st) != 0)
		return io_error(j->name);
	if (o->op != OP_COMPRESS && !o->force && isatty(j->fd)) {
		report_error(NULL, "compressed data not read from a terminal. "
		             "Use -f to force decompression.");
		return -1;
	}
	return 0;
}

/* Pass an allocation through, reporting when it failed. */
static char *no_null(char *p, const struct job *j)
{
	if (p == NULL) {
		errno = ENOMEM;
		io_error(j->name);
	}
	return p;
}

/* -dN: the name and time the first gzip member's header records, as gzip restores them: the
 * stored name's last path component (never a path: "../x" is "x"), NULL when there is none or
 * it is unusable ("", ".", "..", control characters); *mtime 0 when none is recorded. */
static char *gzip_stored_name(int fd, uint32_t *mtime)
{
	unsigned char h[12], name[4096];
	uint64_t at = 10;
	size_t got = 0, n;
	char *base;

	*mtime = 0;
	if (fio_pread_full(fd, h, 12, 0, &got) != 0 || got < 10 || h[0] != 0x1f || h[1] != 0x8b ||
	    h[2] != 8 || (h[3] & 0xe0))
		return NULL;
	*mtime = (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
	if (h[3] & 4) { /* FEXTRA: skip it */
		if (got < 12)
			return NULL;
		at = 12 + (uint64_t)(h[10] | h[11] << 8);
	}
	if (!(h[3] & 8) || fio_pread_full(fd, name, sizeof name, at, &got) != 0) /* no FNAME */
		return NULL;
	n = strnlen((const char *)name, got);
	if (n == got) /* no terminating zero within reach */
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (name[i] < 0x20 || name[i] == 0x7f)
			return NULL;
	base = strrchr((char *)name, '/');
	base = base != NULL ? base + 1 : (char *)name;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return NULL;
	return strdup(base);
}

/* -dN: the output goes by the stored name, in the input's directory. */
static char *stored_output_name(struct job *j, char *name)
{
	char *stored = gzip_stored_name(j->fd, &j->gz_mtime), *full;
	const char *slash = strrchr(j->path, '/');
	size_t dl = slash != NULL ? (size_t)(slash - j->path) + 1 : 0;

	if (stored == NULL)
		return name;
	full = no_null(malloc(dl + strlen(stored) + 1), j);
	if (full != NULL) {
		memcpy(full, j->path, dl);
		strcpy(full + dl, stored);
	}
	free(stored);
	free(name);
	return full;
}

/* The output file name for a named input, or NULL (reported) when the file is skipped. */
static char *output_name(const struct opts *o, const struct job *j)
{
	size_t n = strlen(j->path);
	const char *base = strrchr(j->path, '/');
	char *name;

	if (o->output != NULL)
		return no_null(strdup(o->output), j);
	base = base != NULL ? base + 1 : j->path;
	/* the suffix: -S's, else the format's; decompressing, any known one (.tgz: .tar) */
	const char *suffix = o->suffix != NULL ? o->suffix : format_suffix[o->format], *cut = NULL;
	size_t sl = strlen(suffix);
	int sf = suffix_format(j->path);
	if (n > sl && strcmp(j->path + n - sl, suffix) == 0)
		cut = suffix;
	else if (o->suffix == NULL && sf >= 0)
		cut = format_suffix[sf];
	else if (o->suffix == NULL && n > 4 && strcmp(j->path + n - 4, ".tgz") == 0)
		cut = ".tgz";
	/* under -r, as gzip: files of the other kind are passed over without a word */
	if (j->in_walk && ((o->op == OP_COMPRESS) == (cut != NULL) ||
	                   (cut != NULL && strlen(base) == strlen(cut))))
		return NULL;
	if (o->op == OP_COMPRESS && cut != NULL) {
		report_warning(o, j->name, "already has %s suffix -- unchanged", cut);
		return NULL;
	}
	if (o->op == OP_DECOMPRESS && (cut == NULL || strlen(base) == strlen(cut))) {
		report_error(j->name, "unknown suffix -- ignored (expected %s; use -c or -o)",
		             o->suffix != NULL ? o->suffix : ".gpz, .gz, .tgz, .zz or .deflate");
		return NULL;
	}
	name = no_null(malloc(n + sl + 1), j);
	if (name == NULL)
		return NULL;
	memcpy(name, j->path, n + 1);
	if (o->op == OP_COMPRESS)
		memcpy(name + n, suffix, sl + 1);
	else if (strcmp(cut, ".tgz") == 0)
		memcpy(name + n - 4, ".tar", 5);
	else
		name[n - strlen(cut)] = '\0';
	return name;
}

/* Refuse an output that is the input itself (only reachable with -f). */
static int same_file(const struct job *j)
{
	struct stat st;

	return !j->is_stdin && stat(j->oname, &st) == 0 && st.st_dev == j->st.st_dev &&
	       st.st_ino == j->st.st_ino;
}

static int open_output(const struct opts *o, struct job *j, fio_out *out)
{
	if (j->use_stdout) {
		if (o->op == OP_COMPRESS && !o->force && isatty(STDOUT_FILENO)) {
			report_error(NULL, "compressed data not written to a terminal. "
			             "Use -f to force compression.");
			return -1;
		}
		fio_out_stdout(out);
		return 0;
	}
	j->oname = output_name(o, j);
	if (j->oname != NULL && o->op == OP_DECOMPRESS && o->name_flag && o->output == NULL &&
	    S_ISREG(j->st.st_mode))
		j->oname = stored_output_name(j, j->oname);
	if (j->oname == NULL)
		return -1;
	if (same_file(j)) {
		report_error(j->name, "input and output are the same file");
		return -1;
	}
	fio_clean_stale(j->oname);
	if (fio_out_open(out, j->oname, o->force) == 0) {
		out->durable = j->remove_input;
		return 0;
	}
	if (errno == EEXIST)
		report_error(j->oname, "already exists; not overwritten (use -f to overwrite)");
	else
		io_error(j->oname);
	return -1;
}

static int close_output(const struct opts *o, const struct job *j, fio_out *out)
{
	int meta_failed, meta_errno;
	struct stat meta = j->st;

	if (j->gz_mtime) { /* -dN: the time the gzip header records */
		meta.st_mtim.tv_sec = (time_t)j->gz_mtime;
		meta.st_mtim.tv_nsec = 0;
	}
	if (fio_out_commit(out, j->is_stdin ? NULL : &meta, &meta_failed, &meta_errno) != 0)
		return io_error(j->oname);
	if (meta_failed)
		report_warning(o, j->oname, "couldn't copy owner, permissions or times: %s",
		               strerror(meta_errno));
	if (j->remove_input && unlink(j->path) != 0)
		report_warning(o, j->name, "couldn't remove the input: %s", strerror(errno));
	return 0;
}

static void report_done(const struct opts *o, const struct job *j, const struct counts *c,
                        double seconds)
{
	uint64_t raw = o->op == OP_COMPRESS ? c->in : c->out;
	uint64_t packed = o->op == OP_COMPRESS ? c->out : c->in;
	double mbs = seconds > 0 ? (double)raw / 1e6 / seconds : 0.0;

	fprintf(stderr, "%s: ", j->name);
	if (o->op == OP_TEST)
		fprintf(stderr, "OK");
	else
		fprintf(stderr, "%.1f%%", saved_percent(packed, raw));
	if (j->oname != NULL)
		fprintf(stderr, " -- %s %s", j->remove_input ? "replaced with" : "created", j->oname);
	if (o->op == OP_COMPRESS && o->format != GPZ_FORMAT_GPZ)
		fprintf(stderr, " (%s -%d", format_names[o->format], o->level);
	else if (o->op == OP_COMPRESS && o->params.lz_level)
		fprintf(stderr, " (LZ mode -%d", o->params.lz_level);
	else if (o->op == OP_COMPRESS)
		fprintf(stderr, " (%s, %d-byte symbols",
		        o->params.lz_symbols == GPZ_LZS_AUTO ? "Huffman-only or LZ-symbol"
		        : o->params.lz_symbols ? "LZ-symbol" : "Huffman-only", o->params.symbol_bytes);
	fprintf(stderr, "%s%.1f MB/s)\n", o->op == OP_COMPRESS ? ", " : " (", mbs);
}

/* Compress, decompress or test one opened input. */
static void run_transform(const struct opts *o, struct job *j)
{
	struct counts c = { 0, 0, 0 };
	fio_out out;
	double t0 = now_seconds();
	int rc;

	if (o->op != OP_TEST && open_output(o, j, &out) != 0)
		return;
	progress_start(o, j);
	if (o->op == OP_COMPRESS)
		rc = compress_stream(o, j, &out, &c);
	else
		rc = decode_stream(o, j, o->op == OP_TEST ? NULL : &out, &c);
	progress_end();
	if (o->op != OP_TEST && rc != 0)
		fio_out_abort(&out);
	else if (o->op != OP_TEST)
		rc = close_output(o, j, &out);
	if (rc == 0 && o->verbose)
		report_done(o, j, &c, now_seconds() - t0);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

static int known_suffix(const struct opts *o, const char *path)
{
	return o->suffix != NULL ? ends_with(path, o->suffix)
	                         : suffix_format(path) >= 0 || ends_with(path, ".tgz");
}

/* Between files: a block buffer grown past the usual reads goes back (a frame of 1 GiB read in
 * one file is not kept for the files after it). */
static void release_buffers(void)
{
	if (g_in_cap > DEFLATE_IO) {
		free(g_in);
		g_in = NULL;
		g_in_cap = 0;
	}
	if (g_out_cap > DEFLATE_IO) {
		free(g_out);
		g_out = NULL;
		g_out_cap = 0;
	}
}

static void process(const struct opts *o, const char *path, int in_walk)
{
	struct job j;

	if (in_walk && (o->op == OP_TEST || o->op == OP_LIST) && !known_suffix(o, path))
		return; /* -r -t / -r -l: the compressed files alone */
	memset(&j, 0, sizeof j);
	j.path = path;
	j.in_walk = in_walk;
	j.is_stdin = strcmp(path, "-") == 0;
	j.name = j.is_stdin ? "stdin" : path;
	j.fd = -1;
	j.use_stdout = o->to_stdout || (j.is_stdin && o->output == NULL);
	/* as gzip, the input goes once the output is complete; with -o it stays (as zstd keeps
	 * it) unless --rm */
	j.remove_input = !o->keep && !j.use_stdout && !j.is_stdin &&
	                 (o->op == OP_COMPRESS || o->op == OP_DECOMPRESS) &&
	                 (o->output == NULL || o->rm);
	if (open_input(o, &j) == 0) {
		if (o->op == OP_LIST)
			run_list(o, &j);
		else
			run_transform(o, &j);
	}
	if (!j.is_stdin && j.fd >= 0)
		close(j.fd);
	free(j.oname);
	release_buffers();
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -r: every file under dir, in name order; directories (not symbolic links to them) descended. */
static void walk(const struct opts *o, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (d == NULL) {
		io_error(dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
			if (nn == NULL)
				break;
			names = nn;
		}
		if ((names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2)) == NULL)
			break;
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (lstat(names[i], &st) == 0 && S_ISDIR(st.st_mode))
			walk(o, names[i]);
		else
			process(o, names[i], 1);
		free(names[i]);
	}
	free(names);
}

static void init_opts(struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->op = OP_COMPRESS;
	o->format = GPZ_FORMAT_GPZ;
	o->level = 6;
	o->gpus = -1;
	o->backend = GPZ_BACKEND_AUTO;
	gpz_params_default(&o->params);
}

/* The fuzz target of the tool's decode and list paths (tests/fuzz/fuzz_tool.c) builds this file
 * with another name for main and calls it once an input: main leaves no state behind. */
#ifndef GPZ_TOOL_MAIN
#define GPZ_TOOL_MAIN main
#endif
int GPZ_TOOL_MAIN(int argc, char **argv);

int GPZ_TOOL_MAIN(int argc, char **argv)
{
	const char **files = calloc((size_t)argc + 1, sizeof *files);
	struct opts o;
	int nfiles, rc, i;

	if (files == NULL) {
		report_error(NULL, "%s", strerror(ENOMEM));
		return 1;
	}
	init_opts(&o);
	rc = parse_args(&o, argc, argv, files, &nfiles);
	/* .gpz: LZ mode for a level, and by default (bytes, as gzip users expect); Huffman-only
	 * when asked for or when a symbol width or chunk size says so */
	if (rc == 0 && o.op == OP_COMPRESS && o.format == GPZ_FORMAT_GPZ &&
	    (o.level_set || !o.huff_set))
		o.params.lz_level = o.level;
	/* wider symbols (quantization codes) get each frame's smaller kind unless one was named:
	 * a stretch of runs codes far smaller as LZ-symbol frames, and the GPU finds out at a few
	 * hundred GB/s; bytes keep Huffman-only (on the CPU the tokens cost text 4-5x the time) */
	if (rc == 0 && o.op == OP_COMPRESS && o.format == GPZ_FORMAT_GPZ && !o.params.lz_level &&
	    !o.lzs_set && o.params.symbol_bytes > 1)
		o.params.lz_symbols = GPZ_LZS_AUTO;
	/* the lanes layout pads each lane's bits to a word: chunks of 2^16 keep that under 0.5% */
	if (rc == 0 && o.params.huff_lanes && !o.chunk_set)
		o.params.chunk_log = 16;
	/* Huffman-only bytes: a code per MiB follows text's local statistics (1 GiB of text 1.555
	 * -> 1.657, as small as nvCOMP's ANS leaves it: 1.606), and the lanes take such frames in
	 * jobs of 64, as fast as 64 MiB frames file to file on a 16-core host
	 * (bench/results/2026-11-27-h100-small-frame-jobs.md) */
	if (rc == 0 && o.op == OP_COMPRESS && o.format == GPZ_FORMAT_GPZ && !o.params.lz_level &&
	    !o.params.lz_symbols && !o.frame_set && o.params.symbol_bytes == 1 &&
	    !o.params.huff_lanes)
		o.params.frame_bytes = SMALL_FRAME_BYTES;
	if (rc == 0)
		rc = check_opts(&o, nfiles);
	if (rc != 0) {
		if (rc < 0)
			fputs("Try 'gpz --help' for more information.\n", stderr);
		free(files);
		return rc < 0 ? 1 : 0;
	}
	fio_install_signal_cleanup();
	if (nfiles == 0)
		files[nfiles++] = "-";
	for (i = 0; i < nfiles; i++) {
		struct stat st;
		if (o.recursive && strcmp(files[i], "-") != 0 && stat(files[i], &st) == 0 &&
		    S_ISDIR(st.st_mode))
			walk(&o, files[i]);
		else
			process(&o, files[i], 0);
	}
	if (o.op == OP_LIST && g_list_files > 1)
		list_row(&g_list_total, NULL);
	if (fflush(stdout) != 0)
		io_error("stdout");
	gpz_ctx_free(g_ctx);
	gpz_ctx_free(g_cpu_ctx);
	free(g_in);
	free(g_out);
	free(files);
	rc = g_status;
	g_ctx = g_cpu_ctx = NULL;
	g_in = g_out = NULL;
	g_in_cap = g_out_cap = 0;
	g_ctx_failed = g_status = g_list_files = 0;
	memset(&g_list_total, 0, sizeof g_list_total);
	return rc;
}
