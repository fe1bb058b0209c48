/* outmap.h - a new file filled through one shared mapping of its expected size, its space
 * reserved (fallocate) by a thread of its own ahead of the writers (how far: tools/fileio.c).
 *
 * Why: on tmpfs, reserving, mapping, filling and unmapping each 64 MiB frame on its own reached
 * 3.5 GB/s for a 4 GiB file, one reservation and one mapping for the whole file 6.3 GB/s
 * (bench/probe/write_probe.c, H200 host): every map and unmap stops the other writers' page
 * faults, and a reservation holds the file's lock. Here the reservation runs beside the writers
 * (and before the first frame is decoded), and there is one mapping. Writers only touch
 * reserved space, so a full file system is an error (ENOSPC), never a SIGBUS. */
#ifndef GPZ_TOOLS_OUTMAP_H
#define GPZ_TOOLS_OUTMAP_H

#include <stddef.h>
#include <stdint.h>

struct out_map;

/* Map `size` bytes of fd (opened for reading and writing) from offset `base`, where the file
 * ends, and start reserving their space. NULL when it cannot (the file is left as it was; the
 * caller writes some other way). size is a hint read from the input, or a bound: the
 * reservation runs at most `ahead` bytes past the furthest write asked for, so a wrong hint or
 * a loose bound costs at most that much space until out_map_close. `fillers` threads (at most
 * 8; 0 for none) fault the reserved space in ahead of the writers: worth it where fallocate
 * reserves blocks but no pages (disk file systems) and the writers would otherwise clear each
 * page at their first touch. Offsets below are the file's. */
struct out_map *out_map_open(int fd, uint64_t base, uint64_t size, uint64_t ahead, int fillers);

/* Does [off, off + n) lie in the mapping? */
int out_map_covers(const struct out_map *m, uint64_t off, size_t n);

/* Copy n bytes to offset off once their space is reserved (several threads at once, disjoint
 * ranges the mapping covers): 0. A large range's pages are then unmapped (they stay in the
 * page cache, written), so that the close does not unmap the whole file on one thread.
 * Returns 1, having written nothing, when the reservation stopped before the range (a full
 * file system, for a step of 64 MiB that the range alone may not need): the caller then writes
 * it its own way, which gives the final answer. */
int out_map_write(struct out_map *m, const void *buf, size_t n, uint64_t off);

/* Stop the reservation, unmap, and cut the file to `end` bytes (the end of what was written,
 * at least base).
 * Returns -1 (errno set) when the cut failed. */
int out_map_close(struct out_map *m, uint64_t end);

/* Copy a frame into mapped page-cache pages on a few threads: one thread's copy into fresh
 * pages (about 1.4 GB/s with its page faults) would leave the lanes waiting on it. */
void out_copy_parallel(void *dst, const void *src, size_t n);

#endif
