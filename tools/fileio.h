/*
 * fileio.h - file helpers for the gpz tool: complete reads and writes that survive short
 * transfers and EINTR, an input reader with a small push-back buffer, and a "safe output" that
 * writes to a temporary file in the destination directory and renames it into place only when
 * everything has been written, synced and given the input's metadata.
 *
 * Every function that can fail returns -1 with errno set (0 on success), so the caller can name
 * the file and strerror(errno) in its message.
 */
#ifndef GPZ_TOOLS_FILEIO_H
#define GPZ_TOOLS_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Read until n bytes have arrived or end of file; *got receives the count. */
int fio_read_full(int fd, void *buf, size_t n, size_t *got);
/* Write all n bytes. */
int fio_write_full(int fd, const void *buf, size_t n);
/* Read up to n bytes at offset off (fewer only at the end of the file) into buf; *got receives
 * the count. Returns 0, or -1 with errno set. */
int fio_pread_full(int fd, void *buf, size_t n, uint64_t off, size_t *got);

/* ---- Input with push-back ---- */

#define FIO_BACK_MAX 64

typedef struct fio_in {
	int fd;
	unsigned char back[FIO_BACK_MAX]; /* bytes pushed back, read again before fd */
	size_t back_len;
	uint64_t pos;                     /* bytes consumed so far */
} fio_in;

void fio_in_init(fio_in *in, int fd);
/* Like fio_read_full, draining pushed-back bytes first. */
int fio_in_read(fio_in *in, void *buf, size_t n, size_t *got);
/* Push n bytes back in front of the input (at most FIO_BACK_MAX in all). */
int fio_in_unread(fio_in *in, const void *buf, size_t n);
/* Skip n bytes (seeking where possible); *skipped is less than n only at end of file. */
int fio_in_skip(fio_in *in, uint64_t n, uint64_t *skipped);

/* ---- Safe output ---- */

typedef struct fio_out {
	int fd;
	char *tmp;  /* the temporary file; NULL when writing to standard output */
	char *path; /* the final name */
	int force;  /* replace an existing file of that name */
	int positional; /* parallel fio_out_write_at is the faster way to fill it */
	int map_fd;     /* the descriptor positional writes and the mapping use (-1: none) */
	uint64_t base;  /* where this output starts in the file (standard output: its offset) */
	struct out_map *map; /* positional output's one mapping (fio_out_expect), or NULL */
	uint64_t end;        /* the furthest end written, as an offset in the file (atomic) */
	int rewritable;      /* bytes written can be written again (fio_out_rewrite) */
	int durable;         /* synced before it takes its name (fio_out_commit says when else) */
} fio_out;

/* Use standard output. Commit and abort leave it open and what was written in place; when it is
 * a regular file that takes positional writes (see fio_out_write_at) they also cut it to what
 * was written and move its offset past that. */
void fio_out_stdout(fio_out *o);
/*
 * Create a temporary file next to path. Fails with EEXIST when path exists and !force.
 * The temporary file is removed again by fio_out_abort or if a SIGINT, SIGTERM or SIGHUP
 * arrives before the commit (see fio_install_signal_cleanup).
 */
int fio_out_open(fio_out *o, const char *path, int force);
/* Remove, in path's directory, the temporary files that gpz runs of this host left behind when
 * they were killed before they could (their names carry host and PID; a file whose PID no
 * longer runs here is stale). Files of live processes and of other hosts are left alone. */
void fio_clean_stale(const char *path);
int fio_out_write(fio_out *o, const void *buf, size_t n);
/*
 * Positional output at offset off of this output (off + base in the file), callable from
 * several threads at once for disjoint ranges: the range's space is reserved first (fallocate;
 * so a full disk is an error, ENOSPC, and never a SIGBUS), then the bytes are copied through a
 * shared mapping of it, on a few threads. o->positional says whether that is the way on this
 * file system: on tmpfs one write() thread copies about 3 GB/s and writes to one file
 * serialise, while threads copying into the mapping reach 6.4 GB/s. On an H200 host's ext4
 * root the tool decoded 4 GB of gzip -6 on the GPU in 1.22-1.25 s through the mapping against
 * 1.68-1.78 written in order (one build, an environment switch); with the mapping's large
 * folios and its fillers (outmap.h) 0.71-0.76 s, where cat took 1.36-1.54
 * (bench/results/2026-11-28-h200-tool-ext4-folios.md). GPZ_TEST_POSITIONAL_OUT=1 sets it on
 * any file system.
 */
int fio_out_write_at(fio_out *o, const void *buf, size_t n, uint64_t off);
/* Write n bytes again at offset off of this output (a header filled in once what follows it is
 * known): a file, or standard output where o->rewritable says it can be (a regular file, not in
 * append mode); else -1 with errno ESPIPE. */
int fio_out_rewrite(fio_out *o, const void *buf, size_t n, uint64_t off);
/* Go on writing in order (fio_out_write) at `off` of this output, after positional writes. */
int fio_out_seek(fio_out *o, uint64_t off);
/*
 * Positional output of about `size` bytes is coming (a hint read from the input, such as a .gpz
 * trailer's total): on a file system where o->positional is set, fio_out_write_at then fills
 * one mapping of that size whose space a thread reserves ahead of the writers (tools/outmap.h);
 * writes past it go the usual way, and the commit cuts the file to the end of what was written.
 */
void fio_out_expect(fio_out *o, uint64_t size);
/* The same for output of at most `bound` bytes (compression's bound): space is reserved a
 * shorter way ahead of the writers. */
void fio_out_expect_at_most(fio_out *o, uint64_t bound);
/*
 * Give the file the permission bits, owner (where allowed) and access/modification times of
 * *meta (or mode 0666 less the umask when meta is NULL), close it, and move it to its final
 * name (never replacing an existing file unless force). It is synced (with its directory) first
 * where a crash could otherwise lose data: when the caller set `durable` (the input is removed
 * after the commit) or when it replaces an existing file. A new file beside a kept input is not
 * (as gzip -k and zstd do): after a crash the input is still there. On failure the temporary
 * file is removed. *meta_failed is set (with meta_errno) when the metadata could not all be
 * copied; that alone does not fail the commit.
 */
int fio_out_commit(fio_out *o, const struct stat *meta, int *meta_failed, int *meta_errno);
/* Discard the output: close and remove the temporary file. Keeps errno. */
void fio_out_abort(fio_out *o);

/* Install handlers that remove the pending temporary file on SIGINT, SIGTERM and SIGHUP. */
void fio_install_signal_cleanup(void);

#endif /* GPZ_TOOLS_FILEIO_H */
