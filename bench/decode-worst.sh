#!/bin/sh
# On the GPU machine, after a GPU build (bench/gpu-run.sh build, or $GPZ_BUILD): the GPU Huffman
# decoder's worst case beside ordinary codes (test_gpu_decode's bench_worst): codes that never
# resynchronise (lengths all multiples of 3, 5, 9 or 11) and crafted all-ones streams of 12- and
# 24-bit codewords, against skewed and uniform data, 2^26 2-byte symbols each, at chunk_log 14,
# 18 and 24; the whole call's time, median of 5. Output to stdout.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
B=${GPZ_BUILD:-$root/build-gpu}
nvidia-smi --query-gpu=name --format=csv,noheader
GPZ_DECODE_WORST=1 "$B/tests/test_gpu_decode"
