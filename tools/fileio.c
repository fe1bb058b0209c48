/*
 * fileio.c - complete reads/writes, push-back input and the temp-file-and-rename output of the
 * gpz tool. See fileio.h.
 */
#define _GNU_SOURCE /* fallocate */
#define _FILE_OFFSET_BITS 64

#include "fileio.h"
#include "outmap.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* Largest single read/write request (Linux transfers at most about 2 GiB per call anyway). */
#define FIO_IO_MAX ((size_t)1 << 30)
#define TMPFS_MAGIC_NUMBER 0x01021994 /* statfs f_type of tmpfs (linux/magic.h) */
#define EXT4_MAGIC_NUMBER 0xEF53        /* ... of ext2/3/4 */
#define XFS_MAGIC_NUMBER 0x58465342     /* ... of XFS */

/* The temporary file to remove if a signal ends the program before the commit. */
static char *volatile g_pending_tmp;
static volatile sig_atomic_t g_pending;

static void set_pending(char *tmp)
{
	g_pending = 0;
	g_pending_tmp = tmp;
	g_pending = tmp != NULL;
}

/* Standard output under positional writes, which first extend the file to a bound: a signal
 * cuts it back to what was written, as an ordered writer would have left it. */
static volatile sig_atomic_t g_stdout_fd = -1;
static const uint64_t *volatile g_stdout_end;

static void set_pending_stdout(int fd, const uint64_t *end)
{
	g_stdout_fd = -1;
	g_stdout_end = end;
	g_stdout_fd = fd;
}

/* Wait until fd is ready when it was opened non-blocking (an inherited stdin/stdout may be). */
static int wait_ready(int fd, short events)
{
	struct pollfd p;

	p.fd = fd;
	p.events = events;
	p.revents = 0;
	while (poll(&p, 1, -1) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return 0;
}

static int retryable(int fd, short events)
{
	if (errno == EINTR)
		return 1;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return wait_ready(fd, events) == 0;
	return 0;
}

int fio_read_full(int fd, void *buf, size_t n, size_t *got)
{
	unsigned char *p = buf;
	size_t done = 0;

	while (done < n) {
		size_t want = n - done < FIO_IO_MAX ? n - done : FIO_IO_MAX;
		ssize_t r = read(fd, p + done, want);

		if (r < 0) {
			if (retryable(fd, POLLIN))
				continue;
			*got = done;
			return -1;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	return 0;
}

int fio_write_full(int fd, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	size_t done = 0;

	while (done < n) {
		size_t want = n - done < FIO_IO_MAX ? n - done : FIO_IO_MAX;
		ssize_t w = write(fd, p + done, want);

		if (w < 0) {
			if (retryable(fd, POLLOUT))
				continue;
			return -1;
		}
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

/* ---- Input with push-back ---- */

void fio_in_init(fio_in *in, int fd)
{
	memset(in, 0, sizeof *in);
	in->fd = fd;
}

/* Move up to n pushed-back bytes to dst (NULL: drop them); returns how many. */
static size_t take_back(fio_in *in, void *dst, size_t n)
{
	size_t k = n < in->back_len ? n : in->back_len;

	if (dst != NULL)
		memcpy(dst, in->back, k);
	memmove(in->back, in->back + k, in->back_len - k);
	in->back_len -= k;
	in->pos += k;
	return k;
}

int fio_in_read(fio_in *in, void *buf, size_t n, size_t *got)
{
	size_t k = take_back(in, buf, n), more = 0;
	int rc = 0;

	if (k < n)
		rc = fio_read_full(in->fd, (unsigned char *)buf + k, n - k, &more);
	in->pos += more;
	*got = k + more;
	return rc;
}

int fio_in_unread(fio_in *in, const void *buf, size_t n)
{
	if (n > FIO_BACK_MAX - in->back_len || n > in->pos) {
		errno = EINVAL;
		return -1;
	}
	memmove(in->back + n, in->back, in->back_len);
	memcpy(in->back, buf, n);
	in->back_len += n;
	in->pos -= n;
	return 0;
}

/* Skip by seeking within a regular file, never past its end. Returns -1 when fd can't seek. */
static int skip_seek(int fd, uint64_t n, uint64_t *skipped)
{
	struct stat st;
	off_t cur;
	uint64_t avail, step;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	cur = lseek(fd, 0, SEEK_CUR);
	if (cur < 0)
		return -1;
	avail = st.st_size > cur ? (uint64_t)(st.st_size - cur) : 0;
	step = n < avail ? n : avail;
	if (lseek(fd, (off_t)step, SEEK_CUR) < 0)
		return -1;
	*skipped = step;
	return 0;
}

static int skip_read(int fd, uint64_t n, uint64_t *skipped)
{
	unsigned char sink[65536];
	uint64_t done = 0;

	while (done < n) {
		size_t want = n - done < sizeof sink ? (size_t)(n - done) : sizeof sink;
		size_t got;

		if (fio_read_full(fd, sink, want, &got) != 0)
			return -1;
		done += got;
		if (got < want)
			break;
	}
	*skipped = done;
	return 0;
}

int fio_in_skip(fio_in *in, uint64_t n, uint64_t *skipped)
{
	uint64_t done = take_back(in, NULL, n < FIO_BACK_MAX ? (size_t)n : FIO_BACK_MAX);
	uint64_t more = 0;

	*skipped = done;
	if (done == n)
		return 0;
	if (skip_seek(in->fd, n - done, &more) != 0 && skip_read(in->fd, n - done, &more) != 0)
		return -1;
	in->pos += more;
	*skipped = done + more;
	return 0;
}

/* ---- Safe output ---- */

/* File systems whose output goes through one mapping of fallocate'd space, filled by the lanes
 * in parallel (fileio.h, fio_out_write_at, says what was measured): tmpfs (one writer 2-3 GB/s
 * on the GPU hosts) and the local disk ones, whose fallocate is free. Network and FUSE file
 * systems, and any other, are written in order. */
static unsigned long fs_type(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 ? (unsigned long)sf.f_type : 0;
}

static int disk_type(unsigned long t)
{
	return t == EXT4_MAGIC_NUMBER || t == XFS_MAGIC_NUMBER;
}

static int mapped_fs(int fd)
{
	unsigned long t = fs_type(fd);

	return t == TMPFS_MAGIC_NUMBER || disk_type(t);
}

static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

/* Length of the directory part of path, including its final '/' (0 for a bare name). */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? (size_t)(slash - path) + 1 : 0;
}

/* This host's name as it goes into temporary file names: letters, digits, '.', '-' only. */
static const char *host_tag(void)
{
	static char tag[65];

	if (!tag[0]) {
		char h[256] = "";
		size_t k = 0;
		gethostname(h, sizeof h - 1);
		for (const char *p = h; *p && k < sizeof tag - 1; p++)
			if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || *p == '.' || *p == '-')
				tag[k++] = *p;
		if (!k)
			tag[k++] = 'h';
		tag[k] = '\0';
	}
	return tag;
}

/* Temporary files are named .gpz-tmp-HOST-PID-XXXXXX: a run that was killed (SIGKILL, a
 * power cut) leaves one behind, and a later run on the same host can tell from its PID that
 * its writer is gone (fio_clean_stale). */
static char *temp_template(const char *path)
{
	size_t dlen = dir_len(path);
	char *t = malloc(dlen + 100);

	if (t == NULL)
		return NULL;
	memcpy(t, path, dlen);
	snprintf(t + dlen, 100, ".gpz-tmp-%s-%ld-XXXXXX", host_tag(), (long)getpid());
	return t;
}

/* Is name a temporary file of a gpz process of this host that no longer runs? */
static int stale_temp(const char *name)
{
	static const char prefix[] = ".gpz-tmp-";
	const char *host = host_tag(), *p;
	size_t hl = strlen(host);
	long pid = 0;

	if (strncmp(name, prefix, sizeof prefix - 1) != 0)
		return 0;
	p = name + sizeof prefix - 1;
	if (strncmp(p, host, hl) != 0 || p[hl] != '-')
		return 0;
	for (p += hl + 1; *p >= '0' && *p <= '9' && pid < 1L << 40; p++)
		pid = pid * 10 + (*p - '0');
	if (pid <= 0 || *p != '-' || strlen(p + 1) != 6)
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

void fio_clean_stale(const char *path)
{
	static char *last; /* each directory once a run (-r writes many files into one) */
	size_t dlen = dir_len(path);
	char *dir = malloc(dlen + 2), *file;
	DIR *d;
	struct dirent *e;
	struct stat st;

	if (dir == NULL)
		return;
	memcpy(dir, path, dlen);
	strcpy(dir + dlen, dlen ? "" : ".");
	if (last != NULL && strcmp(last, dir) == 0) {
		free(dir);
		return;
	}
	free(last);
	last = strdup(dir);
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (!stale_temp(e->d_name) || !(file = malloc(dlen + strlen(e->d_name) + 1)))
				continue;
			memcpy(file, path, dlen);
			strcpy(file + dlen, e->d_name);
			if (lstat(file, &st) == 0 && S_ISREG(st.st_mode))
				unlink(file);
			free(file);
		}
		closedir(d);
	}
	free(dir);
}

static int positional_fs(int fd)
{
	return mapped_fs(fd) || getenv("GPZ_TEST_POSITIONAL_OUT") != NULL;
}

/* Standard output takes positional writes when it is a regular file (on a file system where
 * they are faster) at its end, not in append mode: they go from its offset on, through a
 * descriptor of our own that can also read (a mapping needs both; the shell's `>` gives
 * write-only), and the offset is moved past them at the commit, so whatever is written next
 * follows. A pipe, a terminal or anything else is written in order. */
static void stdout_positional(fio_out *o)
{
	struct stat st;
	int fl = fcntl(STDOUT_FILENO, F_GETFL);
	off_t at = lseek(STDOUT_FILENO, 0, SEEK_CUR);

	if (fl < 0 || (fl & O_APPEND) || at < 0 || fstat(STDOUT_FILENO, &st) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_size != at || !positional_fs(STDOUT_FILENO))
		return;
	o->map_fd = (fl & O_ACCMODE) == O_RDWR ? dup(STDOUT_FILENO)
	                                        : open("/proc/self/fd/1", O_RDWR | O_CLOEXEC);
	if (o->map_fd < 0)
		return; /* pwrite would do, but writes to one file serialise: in order is as fast */
	o->base = (uint64_t)at;
	o->end = o->base;
	o->positional = 1;
	set_pending_stdout(o->map_fd, &o->end);
}

/* Standard output can be written again where it is a regular file, not in append mode (where
 * pwrite would append), at an offset we can read: what this output writes goes from there on. */
static void stdout_rewritable(fio_out *o)
{
	struct stat st;
	int fl = fcntl(STDOUT_FILENO, F_GETFL);
	off_t at = lseek(STDOUT_FILENO, 0, SEEK_CUR);

	o->rewritable = fl >= 0 && !(fl & O_APPEND) && at >= 0 &&
	                fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode);
	o->base = o->rewritable ? (uint64_t)at : 0;
}

void fio_out_stdout(fio_out *o)
{
	o->fd = STDOUT_FILENO;
	o->tmp = NULL;
	o->path = NULL;
	o->force = 1;
	o->positional = 0;
	o->map = NULL;
	o->map_fd = -1;
	o->end = 0;
	stdout_rewritable(o); /* sets base */
	stdout_positional(o);
}

int fio_out_open(fio_out *o, const char *path, int force)
{
	struct stat st;

	memset(o, 0, sizeof *o);
	o->fd = -1;
	o->map_fd = -1;
	o->force = force;
	if (!force && lstat(path, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	o->path = strdup(path);
	o->tmp = temp_template(path);
	if (o->path == NULL || o->tmp == NULL) {
		fio_out_abort(o);
		errno = ENOMEM;
		return -1;
	}
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		fio_out_abort(o);
		errno = e;
		return -1;
	}
	set_pending(o->tmp);
	o->map_fd = o->fd;
	o->positional = positional_fs(o->fd);
	o->rewritable = 1;
	return 0;
}

/* Note that the output reaches `end` (the commit cuts a mapped file there). */
static void reach(fio_out *o, uint64_t end)
{
	uint64_t seen = __atomic_load_n(&o->end, __ATOMIC_RELAXED);

	while (seen < end &&
	       !__atomic_compare_exchange_n(&o->end, &seen, end, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

int fio_out_write(fio_out *o, const void *buf, size_t n)
{
	off_t at;

	if (fio_write_full(o->fd, buf, n) != 0)
		return -1;
	/* a mapped file is cut to the furthest byte written, by this way too (a gzip member that
	 * zlib decodes between ones the lanes write) */
	if (o->positional && (at = lseek(o->fd, 0, SEEK_CUR)) > 0)
		reach(o, (uint64_t)at);
	return 0;
}

int fio_out_seek(fio_out *o, uint64_t off)
{
	off_t at = (off_t)(o->base + off);

	return lseek(o->fd, at, SEEK_SET) == at ? 0 : -1;
}

int fio_pread_full(int fd, void *buf, size_t n, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < n) {
		size_t want = n - *got < FIO_IO_MAX ? n - *got : FIO_IO_MAX;
		ssize_t k = pread(fd, (char *)buf + *got, want, (off_t)(off + *got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		*got += (size_t)k;
	}
	return 0;
}

static int pwrite_full(int fd, const char *buf, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t k = pwrite(fd, buf, n < FIO_IO_MAX ? n : FIO_IO_MAX, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		buf += k;
		off += (uint64_t)k;
		n -= (size_t)k;
	}
	return 0;
}

int fio_out_rewrite(fio_out *o, const void *buf, size_t n, uint64_t off)
{
	if (!o->rewritable) {
		errno = ESPIPE;
		return -1;
	}
	return pwrite_full(o->fd, buf, n, o->base + off);
}

static int reserve(int fd, uint64_t off, size_t n)
{
	int rc;

	while ((rc = fallocate(fd, 0, (off_t)off, (off_t)n)) != 0 && errno == EINTR)
		;
	return rc;
}

/* How far the reservation runs ahead of the writers. For a decoded size, 4 GiB: on tmpfs the
 * reservation is the output's slowest step (one thread allocating and clearing pages: 4 GiB in
 * 0.39-0.48 s alone on an H200 host, 0.9-1.2 s beside writers faulting pages of the same file),
 * so it had best be done while the GPU starts (~0.45 s to the first batch), and a lying size
 * still costs at most 4 GiB of space until the file is closed. For a bound on compressed
 * output, which lanes write a frame of a few to 64 MiB at a time, less, as the bound may be
 * far above what comes. */
#define AHEAD_SIZE ((uint64_t)4 << 30)
#define AHEAD_BOUND ((uint64_t)256 << 20)

static void expect(fio_out *o, uint64_t size, uint64_t ahead, int fillers)
{
	if (o->positional && o->map == NULL)
		o->map = out_map_open(o->map_fd, o->base, size, ahead, fillers);
}

/* Threads that fault a disk file's reserved space in ahead of the writers (outmap.h): half the
 * cores, at most 8. On an H200 host's ext4 root, 4 GB of gzip -6 decoded on the GPU took
 * 0.77-0.83 s with 8 of them against 0.86-0.91 without (they ran mostly while the GPU started),
 * 0.84-0.90 with 16 (they delay the CUDA start). tmpfs's fallocate puts the pages in already:
 * there 16 of them made it slower (1.2 -> 1.75 s). */
static int fill_threads(int fd)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const char *test = getenv("GPZ_TEST_FILLERS"); /* the tests': this many, on any system */

	if (test != NULL)
		return atoi(test);
	if (!disk_type(fs_type(fd)) || cpus < 4)
		return 0;
	return cpus / 2 < 8 ? (int)(cpus / 2) : 8;
}

void fio_out_expect(fio_out *o, uint64_t size)
{
	expect(o, size, AHEAD_SIZE, fill_threads(o->map_fd));
}

/* a bound may be far above what is written: nothing is faulted in ahead */
void fio_out_expect_at_most(fio_out *o, uint64_t bound)
{
	expect(o, bound, AHEAD_BOUND, 0);
}

int fio_out_write_at(fio_out *o, const void *buf, size_t n, uint64_t off)
{
	static size_t page;
	uint64_t start;
	size_t len;
	char *m;

	if (n == 0)
		return 0;
	off += o->base;
	reach(o, off + n);
	if (out_map_covers(o->map, off, n) && out_map_write(o->map, buf, n, off) == 0)
		return 0;
	/* the space first: a write into a mapping of space that is not there would be a SIGBUS */
	if (reserve(o->map_fd, off, n) != 0) /* a file system without fallocate still takes pwrite */
		return errno == EOPNOTSUPP ? pwrite_full(o->map_fd, buf, n, off) : -1;
	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	start = off - off % page;
	len = n + (size_t)(off - start);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, o->map_fd, (off_t)start);
	if (m == MAP_FAILED)
		return pwrite_full(o->map_fd, buf, n, off);
	out_copy_parallel(m + (off - start), buf, n);
	return munmap(m, len);
}

/* Copy owner, permission bits and times; returns -1 (errno set) if any of it failed. */
static int copy_meta(int fd, const struct stat *meta)
{
	struct timespec ts[2];
	struct stat cur;
	mode_t mode;
	int rc = 0, e = 0;

	if (meta == NULL)
		return fchmod(fd, 0666 & ~current_umask());
	mode = meta->st_mode & 0777;
	if (fchown(fd, meta->st_uid, meta->st_gid) != 0 && fchown(fd, (uid_t)-1, meta->st_gid) != 0) {
		/* Not the input's group: don't hand its group rights to another group. */
		if (fstat(fd, &cur) != 0 || cur.st_gid != meta->st_gid)
			mode &= ~(mode_t)070;
	}
	if (fchmod(fd, mode) != 0) {
		rc = -1;
		e = errno;
	}
	ts[0] = meta->st_atim;
	ts[1] = meta->st_mtim;
	if (futimens(fd, ts) != 0) {
		rc = -1;
		e = errno;
	}
	errno = e;
	return rc;
}

/* Move the finished temporary file to its name, refusing to replace a file unless force. */
static int move_into_place(fio_out *o)
{
	struct stat st;

	if (o->force)
		return rename(o->tmp, o->path);
	if (link(o->tmp, o->path) == 0) {
		unlink(o->tmp);
		return 0;
	}
	if (errno == EEXIST)
		return -1;
	/* No hard links on this file system: check, then rename. */
	if (lstat(o->path, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(o->tmp, o->path);
}

/* Make the new directory entry durable; failures here are not reported. */
static void sync_dir(const char *path)
{
	size_t dlen = dir_len(path);
	char *dir = malloc(dlen + 2);
	int fd;

	if (dir == NULL)
		return;
	if (dlen == 0)
		strcpy(dir, ".");
	else {
		memcpy(dir, path, dlen);
		dir[dlen] = '\0';
	}
	fd = open(dir, O_RDONLY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* The mapping's reservation stopped and the file cut to the end of what was written. */
static int close_map(fio_out *o)
{
	int rc = 0;

	if (o->map != NULL)
		rc = out_map_close(o->map, o->end);
	o->map = NULL;
	return rc;
}

static int finish_file(fio_out *o, const struct stat *meta, int *meta_failed, int *meta_errno,
                       int *synced)
{
	int fd = o->fd;
	struct stat st;

	if (close_map(o) != 0)
		return -1;

	if (copy_meta(fd, meta) != 0) {
		*meta_failed = 1;
		*meta_errno = errno;
	}
	/* on the ext4 root of a GPU host the sync of 4 GB took 2 s, longer than decoding it */
	*synced = o->durable || lstat(o->path, &st) == 0;
	if (*synced && fsync(fd) != 0 && errno != EINVAL)
		return -1;
	o->fd = -1;
	if (close(fd) != 0)
		return -1;
	if (move_into_place(o) != 0)
		return -1;
	return 0;
}

/* Standard output after positional writes: the file cut to what was written, the offset past
 * it. */
static int finish_stdout(fio_out *o)
{
	int rc = close_map(o);
	off_t end = (off_t)o->end;

	set_pending_stdout(-1, NULL);
	if (o->map_fd >= 0 && close(o->map_fd) != 0)
		rc = -1;
	o->map_fd = -1;
	if (o->positional && rc == 0 && lseek(o->fd, 0, SEEK_CUR) < end &&
	    lseek(o->fd, end, SEEK_SET) != end)
		rc = -1;
	o->positional = 0;
	return rc;
}

int fio_out_commit(fio_out *o, const struct stat *meta, int *meta_failed, int *meta_errno)
{
	*meta_failed = 0;
	*meta_errno = 0;
	int synced = 0;

	if (o->tmp == NULL)
		return finish_stdout(o);
	if (finish_file(o, meta, meta_failed, meta_errno, &synced) != 0) {
		fio_out_abort(o);
		return -1;
	}
	set_pending(NULL);
	if (synced)
		sync_dir(o->path);
	free(o->tmp);
	free(o->path);
	o->tmp = NULL;
	o->path = NULL;
	return 0;
}

void fio_out_abort(fio_out *o)
{
	int e = errno;

	if (o->tmp == NULL) {
		finish_stdout(o); /* what was written stays, as in order */
	} else {
		close_map(o);
		if (o->fd >= 0)
			close(o->fd);
		unlink(o->tmp);
		set_pending(NULL);
		free(o->tmp);
	}
	free(o->path);
	o->fd = -1;
	o->tmp = NULL;
	o->path = NULL;
	errno = e;
}

static void on_signal(int sig)
{
	if (g_pending && g_pending_tmp != NULL)
		unlink(g_pending_tmp);
	if (g_stdout_fd >= 0 && g_stdout_end != NULL &&
	    ftruncate(g_stdout_fd, (off_t)__atomic_load_n(g_stdout_end, __ATOMIC_RELAXED)) != 0)
		g_stdout_fd = -1; /* nothing more to be done in a handler */
	/* The handler was reset to the default: re-raise to die of the same signal. */
	raise(sig);
}

void fio_install_signal_cleanup(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		if (sigaction(sigs[i], &sa, &old) == 0 && old.sa_handler == SIG_IGN)
			sigaction(sigs[i], &old, NULL);
	}
}
