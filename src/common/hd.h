/* hd.h - qualifiers for code compiled for both the host and the device.
 *
 * The stages that must write the same bits on both backends (match finding, the DEFLATE block
 * writer, the code-length builder, XXH64) keep their logic in headers that nvcc compiles for the
 * device and the C compiler for the host. GPZ_HD marks such a function (it is combined with
 * `static inline` by the caller); GPZ_HD_INLINE is the whole qualifier for small helpers that
 * must always be inlined on the device (the checksum's inner loop); GPZ_HD_NOINLINE (with
 * `static inline`) for large ones that a kernel calls from several places and that are not hot:
 * one copy keeps the device compile short. */
#ifndef GPZ_COMMON_HD_H
#define GPZ_COMMON_HD_H

#ifdef __CUDACC__
#define GPZ_HD __host__ __device__
#define GPZ_HD_INLINE static __host__ __device__ __forceinline__
#define GPZ_HD_NOINLINE __host__ __device__ __noinline__
#else
#define GPZ_HD
#define GPZ_HD_INLINE static inline
#define GPZ_HD_NOINLINE
#endif

#endif
