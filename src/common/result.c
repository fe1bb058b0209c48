/* result.c - result codes and version. */
#include "gpz.h"

const char *gpz_result_string(gpz_result r)
{
	switch (r) {
	case GPZ_OK: return "success";
	case GPZ_ERR_PARAM: return "invalid argument or parameter";
	case GPZ_ERR_NOMEM: return "out of memory";
	case GPZ_ERR_DST_TOO_SMALL: return "destination buffer too small";
	case GPZ_ERR_SIZE_ALIGN: return "input size is not a multiple of the symbol width";
	case GPZ_ERR_ALPHABET: return "symbol value exceeds the largest supported alphabet (2^20)";
	case GPZ_ERR_FORMAT: return "not in gpz format, or an unsupported version";
	case GPZ_ERR_CORRUPT: return "corrupt compressed data";
	case GPZ_ERR_TRUNCATED: return "compressed data is truncated";
	case GPZ_ERR_CHECKSUM: return "checksum mismatch: decoded data is not what was compressed";
	case GPZ_ERR_NO_GPU: return "no usable GPU (GPU backend requested)";
	case GPZ_ERR_GPU: return "GPU error";
	case GPZ_ERR_THREAD: return "cannot start worker thread";
	}
	return "unknown error";
}

const char *gpz_version(void)
{
	return GPZ_VERSION_STRING;
}
