/* replay.c - fuzz corpora (and crashers) replayed through two contexts that must agree: the CPU
 * backend against the GPU backend when a GPU is usable (the GPU decoders never see the fuzzers'
 * inputs otherwise; run it under compute-sanitizer on the GPU machine), else one CPU thread
 * against several. Each input goes where its fuzz target sends it: `decompress` inputs to
 * gpz_decompress (every .gpz frame type), `inflate` inputs to gpz_inflate with the format picked
 * by the first byte, as fuzz_inflate does. Same verdict means both fail, or both succeed with
 * the same bytes; a different error code for the same bad input is counted, not failed.
 * Usage: fuzz_replay decompress|inflate FILE|DIR...   Exit 1 on any disagreement. */
#define _DEFAULT_SOURCE /* d_type */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpz.h"

#define DECOMPRESS_CAP ((size_t)64 << 20) /* as fuzz_decompress.c */
#define INFLATE_CAP ((size_t)8 << 20)     /* as fuzz_inflate.c */

struct tally {
	int inputs, ok, failed, codes_differ, disagree;
};

static gpz_ctx *a_ctx, *b_ctx;
static int inflate_mode;
static struct tally t;

/* One input through one context: the result, the output in *out (*got bytes). */
static gpz_result run(gpz_ctx *ctx, const uint8_t *in, size_t n, uint8_t **out, size_t *got)
{
	static const gpz_format formats[4] = { GPZ_FORMAT_GZIP, GPZ_FORMAT_GZIP, GPZ_FORMAT_ZLIB,
	                                       GPZ_FORMAT_DEFLATE };
	uint64_t want = 0;
	size_t cap;

	*got = 0;
	if (inflate_mode) {
		if (n < 1)
			return GPZ_ERR_PARAM;
		*out = malloc(INFLATE_CAP);
		return *out ? gpz_inflate(ctx, formats[in[0] & 3], in + 1, n - 1, *out, INFLATE_CAP, got)
		            : GPZ_ERR_NOMEM;
	}
	if (gpz_decompressed_size(in, n, &want) != GPZ_OK || want > DECOMPRESS_CAP)
		want = DECOMPRESS_CAP / 64; /* decoded anyway, into a buffer that may be too small */
	cap = (size_t)want;
	*out = malloc(cap ? cap : 1);
	return *out ? gpz_decompress(ctx, in, n, *out, cap, got) : GPZ_ERR_NOMEM;
}

static void replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *in = NULL, *oa = NULL, *ob = NULL;
	size_t n = 0, ga = 0, gb = 0;
	long len;
	gpz_result ra, rb;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(in = malloc((size_t)len + 1)) || fread(in, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
		t.disagree++;
		goto out;
	}
	n = (size_t)len;
	ra = run(a_ctx, in, n, &oa, &ga);
	rb = run(b_ctx, in, n, &ob, &gb);
	t.inputs++;
	if ((ra == GPZ_OK) != (rb == GPZ_OK) ||
	    (ra == GPZ_OK && (ga != gb || (ga && memcmp(oa, ob, ga) != 0)))) {
		printf("DISAGREE %s: %s (%zu bytes) against %s (%zu bytes)\n", path,
		       gpz_result_string(ra), ga, gpz_result_string(rb), gb);
		t.disagree++;
	} else if (ra == GPZ_OK) {
		t.ok++;
	} else {
		t.failed++;
		t.codes_differ += ra != rb;
	}
out:
	if (f)
		fclose(f);
	free(in);
	free(oa);
	free(ob);
}

static void walk(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz_replay: no such input: %s\n", path);
		t.disagree++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		replay(path);
		return;
	}
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d)) != NULL) {
		size_t k = strlen(path) + strlen(e->d_name) + 2;
		char *p;
		if (e->d_name[0] == '.' || !(p = malloc(k)))
			continue;
		snprintf(p, k, "%s/%s", path, e->d_name);
		walk(p);
		free(p);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	int gpu;

	if (argc < 3 || (strcmp(argv[1], "decompress") && strcmp(argv[1], "inflate"))) {
		fprintf(stderr, "usage: fuzz_replay decompress|inflate FILE|DIR...\n");
		return 2;
	}
	inflate_mode = !strcmp(argv[1], "inflate");
	gpu = gpz_gpu_available();
	if (gpz_ctx_create(&a_ctx, GPZ_BACKEND_CPU, 1) != GPZ_OK ||
	    gpz_ctx_create(&b_ctx, gpu ? GPZ_BACKEND_GPU : GPZ_BACKEND_CPU, gpu ? 0 : 3) != GPZ_OK) {
		fprintf(stderr, "fuzz_replay: cannot create the contexts\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		walk(argv[i]);
	printf("fuzz_replay %s, CPU (1 thread) against %s: %d inputs, %d decoded alike, %d refused "
	       "by both (%d with different error codes), %d disagreements\n",
	       argv[1], gpu ? "the GPU" : "CPU (3 threads)", t.inputs, t.ok, t.failed,
	       t.codes_differ, t.disagree);
	gpz_ctx_free(a_ctx);
	gpz_ctx_free(b_ctx);
	return t.disagree != 0 || t.inputs == 0;
}
