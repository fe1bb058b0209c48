/* checksum_gpu_none.c - checksum.cu and crc_gpu.cu in a build without CUDA: no context has the
 * GPU backend, so nothing calls these. */
#include "common/checksum_gpu.h"

gpz_result gpz_gpu_checksum(const uint8_t *d_data, size_t size, uint64_t *d_sum,
                            gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_crc32(const uint8_t *d_data, size_t n, uint32_t *d_out, gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_crc32_upto(const uint8_t *d_data, size_t cap, const uint64_t *d_n,
                              uint32_t *d_out, gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}

gpz_result gpz_gpu_adler32(const uint8_t *d_data, size_t n, uint32_t *d_out,
                           gpz_stream_t stream)
{
	return GPZ_ERR_NO_GPU;
}
