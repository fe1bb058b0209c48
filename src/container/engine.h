/* engine.h - the pipelined frame engine: frames of one call go through `depth` lanes at once, so
 * that the caller's reading, the copies to and from the device, the kernels, and the writing of
 * consecutive frames overlap; output keeps the input's order.
 *
 * A lane is a thread with its own buffers (pinned host memory on the GPU backend) and, on the
 * GPU backend, its own GPU resources (streams, device buffers: struct gpz_gpu). Lanes are made
 * on first use and kept in the context. Frame i goes to lane i % depth; the caller fills or
 * names frame i's input while the lanes work on frames i - depth + 1 .. i - 1, and each lane
 * hands its output over when every earlier frame's has been. The bytes are those of
 * gpz_compress_frame / gpz_decompress_frame, whatever the depth. */
#ifndef GPZ_CONTAINER_ENGINE_H
#define GPZ_CONTAINER_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "gpz.h"

struct gpz_engine;
struct gpz_gpu;

/* Output of one frame, in frame order. */
typedef gpz_result (*gpz_engine_out_fn)(void *user, const void *buf, size_t n);

/* Start the engine on ctx: compression with params p, or decompression (p == NULL). out may be
 * NULL (decompression: verify only, or every frame given a dst). */
gpz_result gpz_engine_open(gpz_ctx *ctx, const gpz_params *p, gpz_engine_out_fn out, void *user,
                           struct gpz_engine **e);

/* Send the output to memory instead of `out`: appended at dst + pos, at most cap bytes in all
 * (GPZ_ERR_DST_TOO_SMALL beyond); each lane copies its own frame's output, in parallel, once
 * the frames before it have taken their places. */
void gpz_engine_sink(struct gpz_engine *e, void *dst, size_t cap, size_t pos);

/* Positional input (regular files, compression): a lane reads its own frame's input with
 * read_at (exactly n bytes at `off`, or an error), beside the other lanes; frames for it are
 * submitted with gpz_engine_submit_at. */
void gpz_engine_positional(struct gpz_engine *e, gpz_read_at_fn read_at, void *user);

/* Positional output (decompression): a lane gives its frame's content to write_at at the
 * offset its submission named (gpz_engine_submit_to) as soon as it is decoded, beside the other
 * lanes, instead of waiting for its turn: calls come from several threads at once and in any
 * order. Errors still count in frame order. A job's frame (gpz_engine_submit_job's out_off) is
 * written once its put has returned, which then must not write it itself. */
void gpz_engine_positional_out(struct gpz_engine *e, gpz_write_at_fn write_at, void *user);

/* Positional output appended in frame order (compression into a file that takes parallel
 * writes): a frame's output goes to write_at at `base` plus the lengths of the frames before it,
 * an offset learnt at the frame's turn; the lane writes it after the turn, beside the other
 * lanes, instead of `out` writing it in the turn. A job's put still runs in order, for what it
 * keeps about the frame, and must not write the frame itself. */
void gpz_engine_append_at(struct gpz_engine *e, gpz_write_at_fn write_at, void *user,
                          uint64_t base);

/* Wait until the next frame's lane is free; *buf (may be NULL when the caller names its input
 * with gpz_engine_submit's src) receives a buffer of at least `need` bytes to fill with it.
 * Returns the first error of an earlier frame, if any, so the caller can stop early. */
gpz_result gpz_engine_next(struct gpz_engine *e, size_t need, uint8_t **buf);

/* Grow the buffer gpz_engine_next gave to at least need bytes, keeping its first `keep`; *buf
 * receives its new address. Readers of untrusted sizes grow it as data arrives. */
gpz_result gpz_engine_grow(struct gpz_engine *e, size_t need, size_t keep, uint8_t **buf);

/* Submit the next frame: n input bytes, at src (left unchanged until gpz_engine_close), or in
 * the buffer gpz_engine_next gave when src is NULL. Decompression: a frame's content goes to dst
 * (dst_cap bytes) when dst is not NULL, instead of to `out`. */
void gpz_engine_submit(struct gpz_engine *e, const void *src, size_t n, void *dst,
                       size_t dst_cap);

/* Submit the next frame (in the buffer gpz_engine_next gave) for positional output at out_off. */
void gpz_engine_submit_to(struct gpz_engine *e, size_t n, uint64_t out_off);

/* Submit the next frame for positional input: its n input bytes are read at in_off. */
void gpz_engine_submit_at(struct gpz_engine *e, size_t n, uint64_t in_off);

/*
 * A job other than .gpz frames (gpz_engine_open_job): run codes frame `index` (counted from 0
 * in this call) on a lane (g: the lane's GPU resources, NULL on the CPU backend) from n bytes at
 * src, the `pre` bytes before src readable as history, into out (cap = bound(n) bytes, pinned on
 * the GPU): *len bytes, and meta_bytes of anything else about the frame into meta. put receives
 * each frame's output, meta and input size in frame order; the frame's input stays readable
 * until put returns. last: the frame the caller submitted as the job's last.
 */
struct gpz_engine_job {
	void *user;
	size_t pre;        /* history bytes positional frames are read with (fewer at the start) */
	size_t meta_bytes;
	size_t (*bound)(void *user, size_t n);
	gpz_result (*run)(void *user, struct gpz_gpu *g, uint64_t index, const uint8_t *src,
	                  size_t pre, size_t n, int last, uint8_t *out, size_t cap, size_t *len,
	                  void *meta);
	gpz_result (*put)(void *user, const uint8_t *buf, size_t len, const void *meta,
	                  size_t in_bytes);
	int gpu_lanes; /* on a GPU context, use at most this many lanes a GPU (0: all of them) */
};

gpz_result gpz_engine_open_job(gpz_ctx *ctx, const struct gpz_engine_job *job,
                               struct gpz_engine **e);

/* The lanes an open engine runs frames on at once. */
int gpz_engine_lanes(const struct gpz_engine *e);

/* Submit the next frame of a job: n bytes at src with the pre bytes before it (left unchanged
 * until gpz_engine_close); or, with src NULL, the pre + n bytes in the buffer gpz_engine_next
 * gave, or, for positional input, read by the lane at in_off (with min(job pre, in_off) bytes of
 * history before it). out_off: where its output goes under positional output (else unused). */
void gpz_engine_submit_job(struct gpz_engine *e, const void *src, size_t n, size_t pre,
                           uint64_t in_off, int last, uint64_t out_off);

/* Wait for every submitted frame, stop the lanes' threads, and return the first error in frame
 * order (GPZ_OK when there was none). *sink_end (may be NULL): where the memory sink's output,
 * or the output appended with gpz_engine_append_at, ends. */
gpz_result gpz_engine_close(struct gpz_engine *e, size_t *sink_end);

#endif
