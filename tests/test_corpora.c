/* test_corpora.c - round trips of real data, and the size guarantee: each frame is at most its
 * unlimited-Huffman payload plus 0.5%, plus the stated header, codebook and chunk-index bytes.
 * Usage: test_corpora shared|expanded|nyx|quant  (exit 77 = skipped: data absent) */
#include "testutil.h"
#include "huffman/huffman.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct set {
	int w;
	const char *suffix; /* only files ending in this, or NULL */
	int files;
	uint64_t in_bytes, out_bytes;
};

/* Fixed bytes of a frame: header 32, header check 4, content checksum 8. */
#define FRAME_FIXED 44

/* The largest size the format allows this frame to take. */
static uint64_t frame_allowance(const uint8_t *src, size_t size, const gpz_params *p)
{
	int w = p->symbol_bytes;
	size_t n = size / (size_t)w;
	uint32_t limit = gpz_alphabet_limit(w), alphabet = 0, used = 0;
	uint32_t *counts = malloc(limit * sizeof(*counts));
	uint8_t *len = malloc(limit), *cb = malloc(limit);
	uint64_t stored = FRAME_FIXED + size, allow = stored;

	gpz_histogram(src, n, w, 2, counts, &alphabet);
	for (uint32_t s = 0; s < alphabet; s++)
		used += counts[s] != 0;
	if (used == 1) {
		allow = FRAME_FIXED;
	} else {
		gpz_code_lengths(counts, alphabet, GPZ_MAX_CODE_LEN, len);
		uint64_t cb_bytes = gpz_lengths_write(len, alphabet, cb);
		gpz_code_lengths(counts, alphabet, 0, len);
		uint64_t bits = gpz_coded_bits(counts, len, alphabet);
		uint64_t index = 4 * ((n + ((size_t)1 << p->chunk_log) - 1) >> p->chunk_log);
		uint64_t huff = FRAME_FIXED + cb_bytes + index + (uint64_t)((double)bits * 1.005 / 8) + 1;
		allow = huff < stored ? huff : stored;
	}
	free(counts);
	free(len);
	free(cb);
	return allow;
}

static void check_file(const char *path, void *vset)
{
	struct set *set = vset;
	size_t size, n = strlen(path), sl = set->suffix ? strlen(set->suffix) : 0;
	uint8_t *data;
	gpz_params p;
	uint64_t allow = GPZ_HEADER_SIZE + GPZ_TRAILER_SIZE;

	if (sl && (n < sl || strcmp(path + n - sl, set->suffix)))
		return;
	data = test_read_file(path, &size);
	CHECK(data != NULL, "cannot read %s", path);
	if (!data)
		return;
	gpz_params_default(&p);
	p.symbol_bytes = set->w;
	size -= size % (size_t)set->w;
	size_t got = test_roundtrip(data, size, &p, path, NULL);
	for (size_t off = 0; off < size; off += p.frame_bytes)
		allow += frame_allowance(data + off, size - off < p.frame_bytes ? size - off
		                                                                : p.frame_bytes, &p);
	CHECK(got <= allow, "%s: %zu bytes, allowed %llu", path, got, (unsigned long long)allow);
	printf("%-60s %11zu -> %11zu  (%.4f bits/symbol; allowance %llu)\n", path, size, got,
	       size ? 8.0 * (double)got / (double)(size / (size_t)set->w) : 0.0,
	       (unsigned long long)allow);
	if (set->w == 2 && strstr(path, "baryon_density"))
		CHECK(8.0 * (double)got / (double)(size / 2) <= 1.03, "Nyx-Quant over 1.03 bits/symbol");
	set->files++;
	set->in_bytes += size;
	set->out_bytes += got;
	free(data);
}

static int run(const char *dir, const char *sub, struct set *set)
{
	char path[4096];
	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	return test_for_each_file(path, check_file, set);
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "shared";
	const char *shared = test_corpora_dir(), *data = test_data_dir();
	struct set set = { 1, NULL, 0, 0, 0 };

	if (!strcmp(which, "shared")) {
		run(shared, ".", &set);
	} else if (!strcmp(which, "expanded")) {
		run(data, "silesia", &set);
		run(data, "dna", &set);
		set.suffix = "debtext100m";
		run(data, ".", &set);
	} else if (!strcmp(which, "nyx")) {
		set.w = 2;
		set.suffix = ".b16";
		run(data, "nyx", &set);
	} else if (!strcmp(which, "quant")) {
		set.w = 2;
		set.suffix = ".u16";
		run(data, "quant", &set);
	}
	if (set.files == 0) {
		printf("SKIP: no '%s' data (shared corpora: %s; prepared data: %s; run "
		       "corpora/prepare.sh)\n", which, shared ? shared : "absent",
		       data ? data : "absent");
		return TEST_SKIP;
	}
	printf("%s: %d files, %llu -> %llu bytes\n", which, set.files,
	       (unsigned long long)set.in_bytes, (unsigned long long)set.out_bytes);
	return test_failures != 0;
}
