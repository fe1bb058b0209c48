/* deflate_gpu_none.c - deflate.cu in a build without CUDA: no context has the GPU backend, so
 * the GPU paths are never taken and these are never reached. */
#include "deflate/deflate_gpu.h"

size_t gpz_gpu_deflate_work(size_t n)
{
	return 0;
}

size_t gpz_gpu_deflate_raw_bound(size_t n)
{
	return 0;
}

gpz_result gpz_gpu_deflate_raw(const uint8_t *d_src, size_t n, int level, uint8_t *d_out,
                               size_t out_cap, gpz_gpu_deflate_status *d_status, void *d_work,
                               size_t work_bytes, gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_deflate_part(const uint8_t *d_src, size_t n, size_t first, size_t k0,
                                int last, int group, int level, uint8_t *d_out, size_t out_cap,
                                gpz_gpu_deflate_status *d_status, void *d_work,
                                size_t work_bytes, gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

const uint64_t *gpz_gpu_deflate_piece_offsets(const void *d_work, size_t n)
{
	return NULL;
}

size_t gpz_gpu_inflate_room(size_t np, size_t cap)
{
	return 0;
}

gpz_result gpz_gpu_inflate_pieces(const uint8_t *d_in, const uint64_t *d_off, size_t np,
                                  size_t cap, size_t total, int flags, void *d_out, void *d_room,
                                  gpz_gpu_infl_res *d_res, gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_inflate_resolve(uint16_t *d_sym, size_t n, const uint64_t *d_n, size_t piece,
                                   const uint8_t *d_win, uint8_t *d_out, uint64_t *d_list,
                                   uint32_t list_cap, uint32_t *d_count, uint32_t *d_joins,
                                   gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_inflate_batch_n(const gpz_gpu_infl_res *d_res, size_t nk, size_t piece,
                                   size_t bound, uint64_t base, uint64_t *d_n,
                                   gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_inflate_indexed(struct gpz_gpu *g, const uint8_t *d_data, const uint64_t *off,
                                   uint32_t np, int alone, uint8_t *d_dst, size_t cap,
                                   size_t *out_n, uint32_t *crc, uint8_t *trailer,
                                   gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_inflate_host(struct gpz_gpu *g, const uint8_t *data, uint32_t np, int alone,
                                const uint8_t *lens, uint8_t *dst, size_t cap, size_t *out_n,
                                uint32_t *crc)
{
	return GPZ_ERR_NO_GPU;
}

size_t gpz_gpu_infl_batch_list(size_t nk)
{
	return 0;
}

gpz_result gpz_gpu_infl_batch(struct gpz_gpu *g, struct gpz_infl_batch *b, uint64_t *list,
                              size_t *nlist, size_t *out_n)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_inflate_device(gpz_ctx *ctx, gpz_format format, const void *d_src,
                              size_t src_size, void *d_dst, size_t dst_cap, size_t *dst_size,
                              void *cuda_stream)
{
	return GPZ_ERR_NO_GPU;
}
