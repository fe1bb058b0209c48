/*
 * gpz.h - the public interface of libgpz, a GPU-native DEFLATE-style compressor.
 *
 * What it compresses: 1-, 2- or 4-byte little-endian symbols with order-0 canonical Huffman codes
 * (quantization codes from lossy scientific compressors, or plain bytes), or bytes with LZ77 and
 * DEFLATE, into the framed .gpz container (docs/FORMAT.md); and standard gzip, zlib and raw
 * DEFLATE streams that every gzip tool reads. CPU and GPU backends write the same bytes.
 *
 * Two sections:
 *  - the stable API below: contexts, parameters, one-shot .gpz calls, DEFLATE streams;
 *  - the advanced API (define GPZ_ADVANCED before including this header): the framed calls for
 *    streaming .gpz with bounded memory, device-buffer calls, the frame checksum. It may change
 *    between minor versions, as zstd's static-linking-only section does.
 *
 * Conventions:
 *  - Every function that can fail returns a gpz_result; gpz_result_string() names it.
 *  - The library never prints and never exits.
 *  - Output bytes depend only on the input and the parameters, never on the backend, the thread
 *    count or the machine.
 *  - A gpz_ctx may be used by one thread at a time; use one context per calling thread.
 */
#ifndef GPZ_H
#define GPZ_H

#include <stddef.h>
#include <stdint.h>

/* GPZ_API marks the library's exported functions (everything else is hidden in a shared
 * build). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define GPZ_API __attribute__((visibility("default")))
#else
#define GPZ_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GPZ_VERSION_MAJOR 0
#define GPZ_VERSION_MINOR 1
#define GPZ_VERSION_PATCH 0
#define GPZ_VERSION_STRING "0.1.0"

typedef enum gpz_result {
	GPZ_OK = 0,
	GPZ_ERR_PARAM,        /* an argument or parameter is out of range */
	GPZ_ERR_NOMEM,        /* host memory allocation failed */
	GPZ_ERR_DST_TOO_SMALL,/* the destination buffer cannot hold the output */
	GPZ_ERR_SIZE_ALIGN,   /* input size is not a multiple of the symbol width */
	GPZ_ERR_ALPHABET,     /* a symbol value exceeds the largest supported alphabet */
	GPZ_ERR_FORMAT,       /* not a gpz stream (bad magic) or unsupported version/feature */
	GPZ_ERR_CORRUPT,      /* the stream is malformed: a length, count, table or code is invalid */
	GPZ_ERR_TRUNCATED,    /* the stream ends before it is complete */
	GPZ_ERR_CHECKSUM,     /* decoded data does not match the stored checksum */
	GPZ_ERR_NO_GPU,       /* the GPU backend was requested but no usable GPU is present */
	GPZ_ERR_GPU,          /* a CUDA call or kernel failed */
	GPZ_ERR_THREAD        /* a worker thread could not be started */
} gpz_result;

/* A static English description of a result code; never NULL. */
GPZ_API const char *gpz_result_string(gpz_result r);

/* The library's version string, e.g. "0.1.0". */
GPZ_API const char *gpz_version(void);

typedef enum gpz_backend {
	GPZ_BACKEND_AUTO = 0, /* the GPU when one is usable, else the CPU */
	GPZ_BACKEND_CPU = 1,
	GPZ_BACKEND_GPU = 2   /* fails with GPZ_ERR_NO_GPU when no GPU is usable */
} gpz_backend;

/* Is a usable GPU backend compiled in and a device present? */
GPZ_API int gpz_gpu_available(void);

typedef struct gpz_ctx gpz_ctx;

/*
 * Create a context. nthreads is the number of CPU worker threads (0 = one per online CPU).
 * An explicit GPZ_BACKEND_GPU fails with GPZ_ERR_NO_GPU when no GPU is usable; AUTO falls back
 * to the CPU.
 * An AUTO context asks the driver whether there is a GPU (about 0.1 s on a GPU machine, at once
 * without one), returns, and starts the GPU (the first visible device, for the device-buffer
 * calls) on a thread of its own: creating a CUDA context takes another 0.2-0.4 s, during which
 * the frame engine's first frames run on the CPU (same bytes); calls that need to know the
 * backend (gpz_ctx_backend, device buffers, DEFLATE) wait for the start. A process may exit
 * during the start: exit waits for it. GPZ_BACKEND_GPU starts on the calling thread's current
 * device before returning.
 */
GPZ_API gpz_result gpz_ctx_create(gpz_ctx **out, gpz_backend backend, int nthreads);
GPZ_API void gpz_ctx_free(gpz_ctx *ctx);
/* The backend the context actually uses (never AUTO; waits for an AUTO context's start). */
GPZ_API gpz_backend gpz_ctx_backend(const gpz_ctx *ctx);
GPZ_API int gpz_ctx_threads(const gpz_ctx *ctx);

/* Limits of the Huffman-only mode. */
#define GPZ_MAX_CODE_LEN 24          /* longest codeword, bits */
#define GPZ_MAX_ALPHABET (1u << 20)  /* symbol values must be below this (4-byte symbols) */
#define GPZ_MIN_CHUNK_LOG 8
#define GPZ_MAX_CHUNK_LOG 24
#define GPZ_DEFAULT_CHUNK_LOG 14
#define GPZ_MAX_FRAME_BYTES (1u << 30)
#define GPZ_DEFAULT_FRAME_BYTES (1u << 26)

typedef struct gpz_params {
	int symbol_bytes;    /* 1, 2 or 4 (little-endian unsigned symbols) */
	int chunk_log;       /* chunks of 2^chunk_log symbols decode independently */
	size_t frame_bytes;  /* input bytes per frame, a multiple of symbol_bytes, <= 1 GiB */
	/* 0: Huffman-only frames (type 1). 1..9: LZ mode at this DEFLATE level (gzip's meaning):
	 * each frame is cut into independent 1 MiB raw DEFLATE streams of four 256 KiB pieces
	 * (type-4 frames, docs/FORMAT.md), compressed in parallel (on the GPU on a GPU context, on
	 * the context's threads otherwise: the same bytes); a frame of one repeated byte is written
	 * as constant, one that DEFLATE does not shrink as stored. LZ mode codes bytes: symbol_bytes
	 * must be 1 (chunk_log is checked but unused). Type-4 frames decode on the context's threads
	 * (on its GPU from device buffers, or from host buffers when the context asked for the GPU
	 * backend). */
	int lz_level;
	/* Huffman-only mode (lz_level 0): 1 writes LZ-symbol frames (type 5, docs/FORMAT.md):
	 * literals, runs of the most frequent symbol and matches, measured in symbols of any
	 * width, coded by one large-alphabet Huffman code (literals and lengths) and one for
	 * distances, in independent chunks of 2^chunk_log symbols; for quantization codes with
	 * long runs of the zero-error code, far smaller than Huffman-only (each symbol of which
	 * takes a bit at least). A frame with one symbol value is constant, one that does not
	 * shrink below stored is written as Huffman-only would be. Coded and decoded on the GPU
	 * on GPU contexts, the CPU's bytes exactly.
	 * GPZ_LZS_AUTO (2): each frame the smaller of the two (both sizes are known exactly before
	 * either is coded). 0: Huffman-only frames. */
	int lz_symbols;
	/* Huffman frames' payload layout (docs/FORMAT.md, "Lanes layout"). 0: a bitstream a chunk.
	 * 1: each chunk's symbols dealt to 32 interleaved lanes whose words are stored in the order
	 * a decoder's lanes take them, so that a GPU warp decodes a chunk in lockstep: about twice
	 * the GPU decode speed (bench/results), 0.05-0.7% larger, slower to encode and to decode on
	 * the CPU. Huffman-only mode (lz_level 0) only. */
	int huff_lanes;
} gpz_params;

#define GPZ_LZS_AUTO 2

/* Fill *p with the defaults: Huffman-only, 1-byte symbols, chunk_log 14, 64 MiB frames,
 * lz_level 0 (Huffman-only). */
GPZ_API void gpz_params_default(gpz_params *p);
/* GPZ_OK when *p is a valid parameter set. */
GPZ_API gpz_result gpz_params_check(const gpz_params *p);

/* The largest compressed size of src_size input bytes; 0 when p is invalid. */
GPZ_API size_t gpz_compress_bound(size_t src_size, const gpz_params *p);

/* One-shot compression of a host buffer into a complete .gpz stream. */
GPZ_API gpz_result gpz_compress(gpz_ctx *ctx, const gpz_params *p, const void *src, size_t src_size,
                                void *dst, size_t dst_cap, size_t *dst_size);

/*
 * One-shot decompression of a complete .gpz stream (or several concatenated ones).
 * *dst_size receives the number of bytes written.
 */
GPZ_API gpz_result gpz_decompress(gpz_ctx *ctx, const void *src, size_t src_size, void *dst,
                                  size_t dst_cap, size_t *dst_size);

/*
 * The total uncompressed size recorded in a complete .gpz stream (read from its trailer and
 * validated against the frame headers; no data is decoded).
 */
GPZ_API gpz_result gpz_decompressed_size(const void *src, size_t src_size, uint64_t *size);

/* ---- DEFLATE streams (gzip, zlib, raw deflate) ----
 *
 * Standard streams that every gzip/zlib tool decodes: LZ77 over a 32 KiB window at level 1..9
 * (gzip's meaning: 1 fastest, 9 smallest, 6 default), DEFLATE blocks with length-limited
 * Huffman codes from the project's codebook stage. The input is cut into pieces of
 * 256 KiB, each parsed with the 32 KiB before it as history and coded as its own
 * blocks, so pieces compress in parallel on the context's threads and the output depends only on
 * the input, the level and the format: never on threads or on how a stream is fed, nor on the
 * backend. Each piece ends on a byte boundary (an empty stored block follows all but the last),
 * which the gzip piece index (docs/FORMAT.md) locates. The one-shot gpz_deflate_compress runs
 * its input through the frame engine (below, GPZ_ADVANCED) in batches of pieces: on the lanes'
 * GPUs on a context created with GPZ_BACKEND_GPU, and on GPZ_BACKEND_AUTO ones for inputs of
 * 64 MiB or more (a batch the GPU fails on, out of memory say, is redone on the CPU); else on
 * the CPU's threads. gpz_deflate_update runs on the CPU.
 */
typedef enum gpz_format {
	GPZ_FORMAT_GPZ = 0,     /* the .gpz container (gpz_compress) */
	GPZ_FORMAT_GZIP = 1,    /* RFC 1952 */
	GPZ_FORMAT_ZLIB = 2,    /* RFC 1950 */
	GPZ_FORMAT_DEFLATE = 3  /* RFC 1951, raw */
} gpz_format;

/* gzip header fields (NULL name = none); mtime in seconds since the epoch, 0 = unknown.
 * index_size: when not 0, a streaming gzip stream reserves room in its header for the piece index
 * of an input of this many bytes (an empty input is one piece: pass 1 for it) (docs/FORMAT.md,
 * "gzip piece index": every piece's length in bytes, so a reader can start decoding at any piece)
 * and gpz_deflate_stream_header gives the filled header at the end, for a caller that can rewrite
 * the start of its output; left unfilled, the reserved field is marked so and readers ignore it.
 * Past GPZ_GZIP_INDEX_MAX_PIECES pieces (4.29 GB) an entry covers 2, 4, ... pieces. The one-shot
 * gpz_deflate_compress always writes the index for gzip (its index_size is ignored).
 * tail_index: for a stream without index_size (output that cannot be rewritten: a pipe), the
 * piece index goes after the stream instead, as an empty gzip member of its own (FORMAT.md,
 * "trailing piece index"; up to GPZ_GZIP_TAIL_INDEX_MAX_PIECES entries, neighbours merged as the
 * input grows): gzip and zlib readers decode it to nothing, gpz's readers find it at the end of a
 * file or buffer. At levels 1-3 a gzip stream with an index (either kind; gpz_deflate_compress's
 * always) codes each piece without the bytes before it and says so in the index (version 6 / 7):
 * 0.5-0.9% larger on text, and gpz's readers decode every piece straight to bytes. */
typedef struct gpz_gzip_info {
	const char *name;
	uint32_t mtime;
	uint64_t index_size;
	int tail_index;
} gpz_gzip_info;

#define GPZ_GZIP_PIECE_BYTES 262144 /* the output bytes of a piece (all but a stream's last) */
#define GPZ_GZIP_INDEX_MAX_PIECES 16379 /* the subfield must fit the 65535-byte extra field */
#define GPZ_GZIP_TAIL_INDEX_MAX_PIECES 16376

/* One-shot: the largest output for src_size bytes, and the call. */
GPZ_API size_t gpz_deflate_bound(size_t src_size);
GPZ_API gpz_result gpz_deflate_compress(gpz_ctx *ctx, int level, gpz_format format,
                                        const gpz_gzip_info *gzip, const void *src, size_t src_size,
                                        void *dst, size_t dst_cap, size_t *dst_size);

/* Streaming, with bounded memory (about 2 pieces per thread). gpz_deflate_update consumes all
 * src_size bytes and writes what is complete; `last` finishes the stream (trailer included).
 * dst must hold gpz_deflate_update_bound(src_size) bytes. */
typedef struct gpz_deflate_stream gpz_deflate_stream;
GPZ_API gpz_result gpz_deflate_stream_create(gpz_ctx *ctx, int level, gpz_format format,
                                             const gpz_gzip_info *gzip, gpz_deflate_stream **out);
GPZ_API size_t gpz_deflate_update_bound(size_t src_size);
GPZ_API gpz_result gpz_deflate_update(gpz_deflate_stream *st, const void *src, size_t src_size,
                                      int last, void *dst, size_t dst_cap, size_t *written);
GPZ_API void gpz_deflate_stream_free(gpz_deflate_stream *st);
/* After the last update of a gzip stream created with an index_size: the final header (the same
 * length as the one the stream began with, now with the piece index filled in) into dst (*len
 * bytes). GPZ_ERR_PARAM when the stream has no index, is not finished, or had another number of
 * pieces than index_size promised (its reserved index then stays marked unfilled). */
GPZ_API gpz_result gpz_deflate_stream_header(const gpz_deflate_stream *st, void *dst,
                                             size_t dst_cap, size_t *len);

/* Decompression of a whole gzip (any number of members; zero bytes after the last are
 * accepted as padding), zlib or raw DEFLATE stream in a host buffer into dst (dst_cap bytes):
 * *dst_size bytes. CRC-32 / Adler-32 and sizes are checked: GPZ_ERR_CORRUPT, GPZ_ERR_TRUNCATED
 * or GPZ_ERR_FORMAT for bad input, GPZ_ERR_DST_TOO_SMALL when dst is too small (a gzip
 * trailer's ISIZE tells the size of a member below 4 GiB). gzip members that gpz wrote with the
 * piece index are inflated piece by piece on the context's threads; others, and zlib and raw
 * streams, on one thread through zlib. */
GPZ_API gpz_result gpz_inflate(gpz_ctx *ctx, gpz_format format, const void *src, size_t src_size,
                               void *dst, size_t dst_cap, size_t *dst_size);

#ifdef GPZ_ADVANCED
/* ================= advanced API (define GPZ_ADVANCED to use it) ================= */

/* ---- Framed streaming interface (what the gpz tool uses to keep memory bounded) ----
 *
 * A stream is: header, frames, trailer (docs/FORMAT.md). To write one: gpz_write_header, then
 * gpz_compress_frame for each piece of input (at most frame_bytes each), then gpz_write_trailer
 * with the totals. To read one: gpz_read_header, then gpz_parse_block on the bytes that follow to
 * learn the next block's kind and size, then gpz_decompress_frame or gpz_read_trailer.
 */
#define GPZ_HEADER_SIZE 8
#define GPZ_TRAILER_SIZE 20
/* gpz_parse_block needs this many bytes (or the rest of the stream, if shorter). */
#define GPZ_BLOCK_PEEK_SIZE 32
/* The largest block gpz_parse_block accepts (a 1 GiB frame of 1-byte symbols with 24-bit codes,
 * index and a full codebook), so readers can bound allocations before reading a block. */
#define GPZ_MAX_BLOCK_BYTES ((uint64_t)GPZ_MAX_FRAME_BYTES * 3 + ((uint64_t)1 << 24) + 4096)

GPZ_API gpz_result gpz_write_header(void *dst, size_t dst_cap, size_t *written);
GPZ_API gpz_result gpz_read_header(const void *src, size_t src_size);

/* Compress one frame of input (src_size <= p->frame_bytes). dst's bytes past *written may be
 * overwritten (the encoder's threads work in the room gpz_frame_bound leaves). */
GPZ_API size_t gpz_frame_bound(size_t src_size, const gpz_params *p);
GPZ_API gpz_result gpz_compress_frame(gpz_ctx *ctx, const gpz_params *p, const void *src,
                                      size_t src_size, void *dst, size_t dst_cap, size_t *written);

typedef enum gpz_block_kind {
	GPZ_BLOCK_FRAME = 1,
	GPZ_BLOCK_TRAILER = 2
} gpz_block_kind;

typedef enum gpz_frame_type {
	GPZ_FRAME_HUFFMAN = 1,  /* canonical Huffman codes, chunked */
	GPZ_FRAME_STORED = 2,   /* raw symbols (Huffman would not shrink them) */
	GPZ_FRAME_CONSTANT = 3, /* every symbol has the same value */
	GPZ_FRAME_DEFLATE = 4,  /* LZ mode: bytes in independent raw DEFLATE pieces */
	GPZ_FRAME_LZSYM = 5     /* LZ over symbols: literals, runs and matches, chunked */
} gpz_frame_type;

typedef struct gpz_block_info {
	gpz_block_kind kind;
	uint64_t block_bytes;       /* compressed size of the whole frame or trailer */
	/* frames: */
	gpz_frame_type frame_type;
	int symbol_bytes;
	int chunk_log;              /* Huffman and LZ-symbol: log2 symbols per chunk; deflate:
	                             * log2 bytes per piece; 0 for stored and constant frames */
	int max_code_len;           /* Huffman and LZ-symbol frames; deflate frames: log2 of the
	                             * pieces chained a group (0: independent pieces); else 0 */
	uint32_t alphabet;          /* Huffman: code lengths stored; constant: the symbol;
	                             * LZ-symbol: literal values (main code: alphabet + 96) */
	uint64_t content_bytes;     /* uncompressed bytes of the frame */
	/* trailer: */
	uint64_t total_bytes;       /* uncompressed bytes of the whole stream */
	uint32_t frame_count;
} gpz_block_info;

/* Parse the header of the next frame or trailer at src (src_size bytes available). A frame that
 * parses has block_bytes <= GPZ_MAX_BLOCK_BYTES, and its content checksum (little-endian u64) is
 * its last 8 bytes. */
GPZ_API gpz_result gpz_parse_block(const void *src, size_t src_size, gpz_block_info *info);

/*
 * Decompress one whole frame (src_size >= its block_bytes) into dst, verifying its checksum.
 * If checksum is not NULL it receives the frame's stored content checksum.
 */
GPZ_API gpz_result gpz_decompress_frame(gpz_ctx *ctx, const void *src, size_t src_size, void *dst,
                                        size_t dst_cap, size_t *written, uint64_t *checksum);

GPZ_API gpz_result gpz_write_trailer(uint64_t total_bytes, uint32_t frame_count, void *dst,
                                     size_t dst_cap, size_t *written);
/* Validate the trailer at src against the totals the reader counted. */
GPZ_API gpz_result gpz_read_trailer(const void *src, size_t src_size, uint64_t total_bytes,
                                    uint32_t frame_count);

/* ---- Device buffers (GPU backend) ----
 *
 * Compress or decompress buffers in device memory on the caller's CUDA stream (a cudaStream_t
 * passed as void *; NULL = the default stream). d_src and d_dst are device pointers; the output
 * is the same .gpz stream the host calls write. The context must use the GPU backend
 * (GPZ_ERR_NO_GPU otherwise). Host synchronisation: compression of several Huffman-only frames
 * of 1-byte symbols (one bitstream a chunk, frame_bytes a multiple of 32 and of at most 4096
 * chunks, d_src 16-byte aligned, at most 65535 frames) plans and codes them all on the device
 * and synchronises once in all; other compression synchronises once per frame after the
 * histogram (the codebook is decided on the host from the counts) and once per frame at its
 * end. Decompression of a stream of many Huffman-only (one bitstream a chunk), stored or
 * constant frames of up to 16 MiB walks their headers on the device, checks them all on the
 * host from one copy and decodes every frame in one launch, synchronising three times in all
 * (about 8 bytes of workspace a chunk and ~18 KiB a frame for 1-byte symbols' tables);
 * other decompression copies each frame's header, codebook and chunk index to the host and
 * synchronises once per frame. A call of several frames works on several at once (up
 * to 4 compressing, 8 decoding), each on a host thread and CUDA streams of its own (the
 * caller's stream is waited for first); when a call returns, its output is complete, the bytes
 * those of one frame at a time.
 * Device memory: the context keeps workspaces, grown on first use, and reuses them until
 * gpz_ctx_free: compression at most gpz_device_workspace_size() bytes in all, decompression a
 * frame's chunk index (8 bytes a chunk) for each of up to 8 frames at once, or for a stream of
 * many small frames decoded together 2 MiB, every frame's chunk index and header and ~18 KiB a
 * frame of tables (pinned host memory about as much).
 * LZ mode (lz_level > 0) frames are staged through host memory and coded by the context's GPU
 * as the host calls do; type-4 frames decode on the GPU, a warp a piece (one synchronisation
 * per frame); the output is the same.
 */
GPZ_API size_t gpz_device_workspace_size(const gpz_params *p, size_t src_size);
GPZ_API gpz_result gpz_compress_device(gpz_ctx *ctx, const gpz_params *p, const void *d_src,
                                       size_t src_size, void *d_dst, size_t dst_cap,
                                       size_t *dst_size, void *cuda_stream);
GPZ_API gpz_result gpz_decompress_device(gpz_ctx *ctx, const void *d_src, size_t src_size,
                                         void *d_dst, size_t dst_cap, size_t *dst_size,
                                         void *cuda_stream);
/* gzip / zlib / raw DEFLATE from device memory into device memory, as gpz_inflate does from
 * host memory (same checks, errors and output). gzip members that gpz wrote with the piece
 * index are inflated on the GPU, a warp a 256 KiB piece, with about 2 bytes of workspace an
 * output byte (up to 2 GiB, kept in the context); zlib and raw streams and other gzip members
 * are copied to the host and inflated there. Synchronises the stream; when the call returns,
 * the output is complete. */
GPZ_API gpz_result gpz_inflate_device(gpz_ctx *ctx, gpz_format format, const void *d_src,
                                      size_t src_size, void *d_dst, size_t dst_cap,
                                      size_t *dst_size, void *cuda_stream);

/* ---- The frame engine ----
 *
 * Host-buffer calls (gpz_compress, gpz_decompress, gpz_compress_stream, ...) run frames through a
 * pipeline: up to `depth` frames in flight, each on its own lane (a CPU thread; on the GPU
 * backend also its own CUDA streams, device buffers and pinned staging buffers, made on first use
 * and kept until gpz_ctx_free), so that reading, copies to and from the device, kernels and
 * writing of consecutive frames overlap; output keeps the input's order. Memory: about
 * depth * (2 * frame_bytes) of host memory (pinned on the GPU backend) and depth * (3 *
 * frame_bytes) of device memory. 0 = the default: 6 per GPU on the GPU backend; on the CPU half
 * the threads, from 2 to 4 (1 with one thread). An AUTO context's first call, made while its
 * GPU is still starting, runs 6 lanes that begin on the CPU.
 * Output never depends on the depth. */
#define GPZ_MAX_DEPTH 16
GPZ_API gpz_result gpz_ctx_set_depth(gpz_ctx *ctx, int frames);
/* GPUs the engine spreads its lanes over (lane i on GPU i % gpus; 0 = every visible GPU, the
 * default; the default depth is then 6 per GPU, at most GPZ_MAX_DEPTH). Output never depends on
 * it. The device-buffer calls use the context's first GPU. */
GPZ_API gpz_result gpz_ctx_set_gpus(gpz_ctx *ctx, int gpus);
/* GPU failures (out of device memory, a failed kernel) that an AUTO context redid on the CPU,
 * with the same output. A context created with GPZ_BACKEND_GPU fails instead. */
GPZ_API uint64_t gpz_ctx_gpu_fallbacks(const gpz_ctx *ctx);

/* Streaming through the engine with callbacks: `read` fills buf with up to cap bytes (*got < cap
 * only at the end of the input); `write` takes output in order. A callback's error (any
 * gpz_result but GPZ_OK) stops the call and is returned. gpz_compress_stream writes one whole
 * .gpz stream; gpz_decompress_stream decodes one .gpz stream, reading exactly its bytes (so the
 * caller can go on with what follows, a concatenated stream say; write may be NULL: decode and
 * verify only). *in_bytes and *out_bytes (may be NULL) receive what was read and written. */
typedef gpz_result (*gpz_read_fn)(void *user, void *buf, size_t cap, size_t *got);
typedef gpz_result (*gpz_write_fn)(void *user, const void *buf, size_t size);
GPZ_API gpz_result gpz_compress_stream(gpz_ctx *ctx, const gpz_params *p, gpz_read_fn read,
                                       gpz_write_fn write, void *user, uint64_t *in_bytes,
                                       uint64_t *out_bytes);
GPZ_API gpz_result gpz_decompress_stream(gpz_ctx *ctx, gpz_read_fn read, gpz_write_fn write,
                                         void *user, uint64_t *in_bytes, uint64_t *out_bytes);

/* The same with positional input for regular files: the engine's lanes call read_at (exactly n
 * input bytes at `offset`, or an error) from several threads at once, each for its own frame,
 * so the input is read in parallel; output still goes through `write`, in order. */
typedef gpz_result (*gpz_read_at_fn)(void *user, void *buf, size_t n, uint64_t offset);
GPZ_API gpz_result gpz_compress_stream_at(gpz_ctx *ctx, const gpz_params *p,
                                          gpz_read_at_fn read_at, uint64_t src_size,
                                          gpz_write_fn write, void *user, uint64_t *in_bytes,
                                          uint64_t *out_bytes);

/* gpz_compress_stream_at with positional output: header, frames and trailer go to write_at at
 * their offsets in the stream (from 0). A frame's offset is known once the frames before it
 * have their sizes; its lane then writes it while later frames are still being coded or
 * placed, so calls come from several threads at once and in any order (after an error some
 * frames may have been written: discard the output). The bytes are those of
 * gpz_compress_stream_at. For destinations that take parallel writes faster than one ordered
 * writer (below). */
typedef gpz_result (*gpz_write_at_fn)(void *user, const void *buf, size_t n, uint64_t offset);
GPZ_API gpz_result gpz_compress_stream_at_to(gpz_ctx *ctx, const gpz_params *p,
                                             gpz_read_at_fn read_at, uint64_t src_size,
                                             gpz_write_at_fn write_at, void *user,
                                             uint64_t *in_bytes, uint64_t *out_bytes);

/* gpz_decompress_stream with positional output: each frame's content goes to write_at at its
 * offset in the stream's output (from 0) as soon as its lane has decoded it, so outputs are
 * written in parallel: calls come from several threads at once and in any order, and after an
 * error some later frames may have been written too (discard the output). For destinations
 * that take parallel writes faster than one ordered writer: the gpz tool uses it for files on
 * tmpfs, copying into a shared mapping of space reserved with fallocate (one write() thread:
 * about 3 GB/s there; bench/results/2026-11-23-h200-file-engine.md). */
GPZ_API gpz_result gpz_decompress_stream_at(gpz_ctx *ctx, gpz_read_fn read,
                                            gpz_write_at_fn write_at, void *user,
                                            uint64_t *in_bytes, uint64_t *out_bytes);

/* gzip / zlib / raw deflate streams through the engine: a stream made by
 * gpz_deflate_stream_create (and not yet updated) takes its whole input from read (or read_at,
 * src_size bytes, positional as above), coded in batches of pieces on the lanes (on their GPUs
 * on a GPU context, and on an AUTO one for inputs of 64 MiB or more or of unknown size; an AUTO
 * context redoes a failed batch on the CPU), and writes header, stream and trailer through
 * write. The bytes are those of gpz_deflate_update; gpz_deflate_stream_header gives the filled
 * header afterwards as there. Memory: each lane holds a batch (64 MiB on the GPU, 4 pieces a
 * thread on the CPU) and its output, and on the GPU about 1.4 GiB of device workspace. */
GPZ_API gpz_result gpz_deflate_stream_from(gpz_deflate_stream *st, gpz_read_fn read,
                                           gpz_write_fn write, void *user, uint64_t *in_bytes,
                                           uint64_t *out_bytes);
GPZ_API gpz_result gpz_deflate_stream_from_at(gpz_deflate_stream *st, gpz_read_at_fn read_at,
                                              uint64_t src_size, gpz_write_fn write, void *user,
                                              uint64_t *in_bytes, uint64_t *out_bytes);
/* gpz_deflate_stream_from_at with positional output, as gpz_compress_stream_at_to: header,
 * batches and trailer go to write_at at their offsets from the stream's first byte, batches
 * from the lanes' threads at once and in any order. The same bytes. */
GPZ_API gpz_result gpz_deflate_stream_from_at_to(gpz_deflate_stream *st,
                                                 gpz_read_at_fn read_at, uint64_t src_size,
                                                 gpz_write_at_fn write_at, void *user,
                                                 uint64_t *in_bytes, uint64_t *out_bytes);

/* Decompression of a gzip (every member; zero padding after the last accepted), zlib or raw
 * DEFLATE stream read in order through read (a pipe will do), output through write in order,
 * with bounded memory; sizes and checksums checked as gpz_inflate checks them. gzip members with
 * gpz's piece index in their header are inflated in batches of pieces on the context's threads
 * (memory: a batch's input and output, 4 pieces a thread up to 64, and 2 bytes an output byte
 * of scratch); others, and zlib and raw streams, through zlib. *in_bytes / *out_bytes: bytes
 * read and written. */
GPZ_API gpz_result gpz_inflate_stream(gpz_ctx *ctx, gpz_format format, gpz_read_fn read,
                                      gpz_write_fn write, void *user, uint64_t *in_bytes,
                                      uint64_t *out_bytes);
/* The same, also finding the index that a pipe's writer puts after the stream (a trailing index
 * member): for a gzip member whose header says its index trails (gpz writes that note where the
 * header cannot take the index), up to `ahead` bytes of input are read ahead; when the input
 * ends within them with a trailing index that names the member, the member is inflated in
 * batches on the threads as if its header held the index. Its output then starts only once the
 * input has ended; memory: up to `ahead` bytes more. Larger input, and every other stream, goes
 * through zlib as in gpz_inflate_stream (ahead 0), as it arrives. */
GPZ_API gpz_result gpz_inflate_stream_ahead(gpz_ctx *ctx, gpz_format format, gpz_read_fn read,
                                            gpz_write_fn write, void *user, size_t ahead,
                                            uint64_t *in_bytes, uint64_t *out_bytes);

/* A gzip member that gpz wrote with the piece index, at `offset` of src_size bytes of
 * positional input (read_at as above): its pieces inflated in parallel on the context's threads
 * through the engine (memory: a batch of 4 pieces a thread per lane), output through write in
 * order, CRC-32 and size checked. *in_bytes: the member's length, header to trailer.
 * GPZ_ERR_FORMAT when the member has no usable index (a caller inflates it another way); any
 * other error means bad input or a failing callback. */
GPZ_API gpz_result gpz_inflate_member_at(gpz_ctx *ctx, gpz_read_at_fn read_at, uint64_t src_size,
                                         uint64_t offset, gpz_write_fn write, void *user,
                                         uint64_t *in_bytes, uint64_t *out_bytes);

/* gpz_inflate_member_at with positional output: each batch of pieces, once complete and in its
 * turn for the CRC-32, goes to write_at at its offset from the member's first output byte,
 * from the lanes' threads, several at once and in any order (a file written with pwrite or
 * through a mapping fills faster so). On an error some of the output may have been written
 * already (a CRC-32 is checked at the end): the result says the member is bad. */
GPZ_API gpz_result gpz_inflate_member_at_to(gpz_ctx *ctx, gpz_read_at_fn read_at,
                                            uint64_t src_size, uint64_t offset,
                                            gpz_write_at_fn write_at, void *user,
                                            uint64_t *in_bytes, uint64_t *out_bytes);

/* The frame content checksum of docs/FORMAT.md (xxHash64 over 64 KiB blocks, summed). */
GPZ_API uint64_t gpz_content_checksum(const void *data, size_t size);

#endif /* GPZ_ADVANCED */

#ifdef __cplusplus
}
#endif
#endif /* GPZ_H */
