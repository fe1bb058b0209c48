#!/bin/sh
# LZ-symbol frames on the GPU (issue 12), on the GPU machine from the repository root, with
# .devdata (`sh bench/gpu-data.sh lzsym`: Nyx-Quant and every quantization file) and .nvc
# (`sh ../shared/tools/nvcomp-bench/fetch.sh .nvc`) carried, 57 MB together:
#   1. build for sm_90 into build-gpu (as bench/gpu-run.sh);
#   2. test_gpu_lzsym (kernels and whole frames against the CPU, bit for bit), then the whole
#      ctest of that build (test_gpu's LZ-symbol sets go through the GPU path there), memcheck,
#      and the fuzz seeds through the GPU decoders (tests/fuzz/gpu-replay.sh);
#   3. the kernels on Nyx-Quant tiled to 1 GiB, and nvCOMP 6 ANS and deflate 1/2 on the same
#      file in the same run.
# Usage: sh bench/lzsym-gpu.sh [test|bench|all|trefht]   (logs in $OUT; trefht: a literal-heavy
# file through the LZ-symbol and the Huffman-only GPU paths)
set -u
what=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpz-out}
mkdir -p "$out"
sh "$root/bench/gpu-run.sh" data > "$out/data.log" 2>&1 || { tail -20 "$out/data.log"; exit 1; }
export GPZ_DATA=$root/corpora/data GPZ_CORPORA=$root/.gpurun/shared
B=$root/build-gpu
cmake -S "$root" -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  > "$out/lzs-cmake.log" 2>&1 || { tail -20 "$out/lzs-cmake.log"; exit 1; }
cmake --build "$B" -j16 > "$out/lzs-build.log" 2>&1 ||
  { grep error "$out/lzs-build.log" | head -30; exit 1; }
echo "built"
NYX=$GPZ_DATA/nyx/baryon_density.dat.b16
if [ "$what" = test ] || [ "$what" = all ]; then
  timeout 400 "$B/tests/test_gpu_lzsym" > "$out/lzs-test.log" 2>&1
  echo "test_gpu_lzsym rc=$?"; grep -E "FAIL|differ|verdict|ok$" "$out/lzs-test.log" | head -20
  ctest --test-dir "$B" -j8 --output-on-failure > "$out/lzs-ctest.log" 2>&1
  echo "ctest (all, GPU included) rc=$?"
  grep -E "tests passed|Failed|\*\*\*" "$out/lzs-ctest.log" | tail -15
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/test_gpu" quick \
    > "$out/lzs-memcheck.log" 2>&1
  echo "memcheck (test_gpu quick) rc=$?"
  # the fuzz seeds (LZ-symbol frames among them) through the GPU decoders, and memcheck
  GPZ_BUILD=$B sh "$root/tests/fuzz/gpu-replay.sh"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  timeout 300 "$B/tests/test_gpu_lzsym" bench "$NYX" | tee "$out/lzs-bench.log"
  if [ -f "$root/.nvc/build.sh" ]; then
    sh "$root/.nvc/build.sh" > "$out/nvc-build.log" 2>&1
    timeout 300 "$root/.nvc/bench_nvcomp" "$NYX" 65536 5 ans16 ans8 deflate1 deflate2 \
      | tee "$out/lzs-nvcomp.log"
  else
    echo "nvCOMP not carried (.nvc): no side-by-side figures"
  fi
fi
if [ "$what" = trefht ]; then
  # a literal-heavy file (LZ-symbol 2.6% smaller than Huffman-only): both codecs' GPU speeds,
  # for the automatic choice's margin (the ninth session's note)
  T=$GPZ_DATA/quant/cesm-ccsm-TREFHT-B06.57.eb1e-2.u16
  timeout 300 "$B/tests/test_gpu_lzsym" bench "$T" | tee "$out/lzs-trefht.log"
  timeout 300 "$B/gpz-bench" --gpu -b 2 -r 5 "$T" | tee "$out/huff-trefht.log"
fi
