#!/bin/sh
# On the GPU machine, from the repository root, with .devdata/run carried (bench/gpu-data.sh):
# unpack the data, build for sm_90, run every test (GPU tests included) and compute-sanitizer,
# then the GPU benchmark. Logs go to $OUT (the device tool brings them back).
# Usage: sh bench/gpu-run.sh [data|build|tests|bench|lz|all]   (data: unpack only)
set -u
what=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpz-out}
mkdir -p "$out"
D=$root/corpora/data
S=$root/.gpurun/shared
export GPZ_DATA=$D GPZ_CORPORA=$S
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"

python3 - "$root/.devdata/run" "$D" "$S" <<'PY'
import bz2, lzma, os, sys, tarfile
src, d, s = sys.argv[1:4]
for sub in ("nyx", "silesia", "quant"):
    os.makedirs(os.path.join(d, sub), exist_ok=True)
os.makedirs(s, exist_ok=True)
def put(path, data):
    if not os.path.exists(path):
        open(path, "wb").write(data)
with tarfile.open(os.path.join(src, "baryon_density.dat.b16.tgz")) as t:
    t.extractall(os.path.join(d, "nyx"))
for f in os.listdir(src):
    p = os.path.join(src, f)
    if f.endswith(".bz2"):
        put(os.path.join(d, "silesia", f[:-4]), bz2.open(p).read())
    elif f == "samba.xz":
        put(os.path.join(d, "silesia", "samba"), lzma.open(p).read())
    elif f == "debtext100m.xz":
        put(os.path.join(d, "debtext100m"), lzma.open(p).read())
for f, to in (("quant.tar.xz", os.path.join(d, "quant")), ("small.tar.xz", s)):
    if os.path.exists(os.path.join(src, f)):  # a run may carry less (the 64 MiB limit)
        with tarfile.open(os.path.join(src, f)) as t:
            t.extractall(to)
print("data unpacked")
PY
[ "$what" = data ] && exit 0

cmake -S "$root" -B "$root/build-gpu" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build "$root/build-gpu" -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "built"
[ "$what" = build ] && exit 0
B=$root/build-gpu
if [ "$what" != bench ]; then
  ctest --test-dir "$B" -j8 --output-on-failure > "$out/ctest.log" 2>&1
  echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Skipped|Passed" "$out/ctest.log" | tail -30
  for t in memcheck racecheck; do
    timeout 80 compute-sanitizer --tool $t --error-exitcode 9 "$B/tests/test_gpu" quick \
      > "$out/sanitizer-$t.log" 2>&1
    echo "compute-sanitizer $t rc=$?"; tail -3 "$out/sanitizer-$t.log"
  done
fi
if [ "$what" = all ] || [ "$what" = lz ]; then
  timeout 240 "$B/tests/test_gpu_lz" > "$out/gpu-lz.log" 2>&1; echo "gpu lz (all levels) rc=$?"
  tail -5 "$out/gpu-lz.log"
fi
if [ "$what" != tests ] && [ "$what" != lz ]; then
  {
    "$B/gpz-bench" --gpu -b 2 -r 5 "$D"/nyx/*.b16 "$D"/quant/TREFHT-8members.eb1e-3.u16 \
      "$D"/quant/TREFHT-8members.eb1e-4.u16
    echo
    "$B/gpz-bench" --gpu -b 1 -r 5 "$D"/debtext100m "$D"/silesia/*
  } > "$out/bench-gpu.md" 2>&1
  cat "$out/bench-gpu.md"
  for c in 10 12 16; do  # chunk size M: speed and index overhead
    "$B/gpz-bench" --gpu -b 2 -r 5 -c $c "$D"/nyx/*.b16
    "$B/gpz-bench" --gpu -b 1 -r 5 -c $c "$D"/debtext100m
  done > "$out/bench-gpu-chunks.md" 2>&1
  grep -E "^\| [a-z]|chunk 2" "$out/bench-gpu-chunks.md"
  "$B/tests/test_gpu_codebook" > "$out/gpu-codebook.log" 2>&1; echo "gpu codebook rc=$?"
  grep -iE "us|median" "$out/gpu-codebook.log" | tail -12
  "$B/tests/test_gpu_decode" "$D"/nyx/baryon_density.dat.b16 "$D"/debtext100m \
    > "$out/gpu-decode.log" 2>&1; echo "gpu decode rc=$?"
  grep -iE "GB/s" "$out/gpu-decode.log" | tail -6
  "$B/tests/test_gpu_crc" > "$out/gpu-crc.log" 2>&1; echo "gpu crc rc=$?"
  grep -iE "GB/s|fail" "$out/gpu-crc.log" | tail -6
fi
