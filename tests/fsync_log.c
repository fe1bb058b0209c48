/* fsync_log.c - an LD_PRELOAD module for tool_sync_test.sh: every fsync() the process makes
 * appends a line to the file named by GPZ_TEST_FSYNC_LOG, then goes to the C library's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int fsync(int fd)
{
	static int (*real)(int);
	const char *log = getenv("GPZ_TEST_FSYNC_LOG");

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fsync");
	if (log) {
		int f = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		if (f >= 0) {
			ssize_t w = write(f, "fsync\n", 6);
			(void)w;
			close(f);
		}
	}
	return real ? real(fd) : -1;
}
