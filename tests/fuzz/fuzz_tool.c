/* fuzz_tool.c - libFuzzer target: the gpz tool's own reading of untrusted files, in process
 * (tools/gpz.c built with main renamed): `gpz -t FILE` (.gpz streams, gzip members with and
 * without gpz's index, zlib, zero padding and trailing bytes: the paths the tool picks by
 * magic) and `gpz -lv FILE` (the listing, which walks frames and gzip members itself). Each
 * input is written to a file of its own. The tool prints on every input: run it with
 * -close_fd_mask=3 (run.sh does), which keeps libFuzzer's and the sanitizers' reports. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int gpz_tool_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer's entry */

static char path[] = "/tmp/gpz-fuzz-tool-XXXXXX";

static void remove_input(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	/* Two threads, as on the 2-core machine of the first runs: one per core would start as many
	 * threads per input as the machine has cores, in every worker of a many-core run. */
	char *test[] = { "gpz", "-t", "-q", "-T2", path, NULL };
	char *list[] = { "gpz", "-lv", "-T2", path, NULL };

	if (fd < 0) {
		if ((fd = mkstemp(path)) < 0)
			abort();
		atexit(remove_input);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	gpz_tool_main(5, test);
	gpz_tool_main(4, list);
	return 0;
}
