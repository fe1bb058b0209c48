#!/bin/sh
# Issue 13's trail on the GPU machine: GPU DEFLATE speed per level, this tree against a baseline
# tree, in one call (same card). Carry .devdata (bench/gpu-data.sh). Binaries built here for
# sm_90 travel in .devdata/bin/new and .devdata/bin/base (gpz-bench; test_gpu_lz and
# test_gpu_deflate in new/); without them the script builds this tree (and the baseline from
# .devdata/base.tgz, made by `git archive BASE | gzip > .devdata/base.tgz`).
# Usage: sh bench/matcher-run.sh [tests] [prof] [LEVEL...]   (default levels: 1 6)
# tests: first the GPU tests that hold the matcher to the CPU (test_gpu_lz at every level on
# the corpora, test_gpu_deflate); prof: ncu's time of every kernel of one level-1 call on
# debtext100m (per GiB: the stage kernels ran 4 GiB, the block writer's 2), and ncu's details of
# the kernels named in DETAILS, for this tree and the baseline (another level and file:
# PLEVEL=9 PFILE=silesia/x-ray). Tables go to $OUT.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpz-out}
mkdir -p "$out"
tests=0 prof=0
[ "${1:-}" = tests ] && { tests=1; shift; }
[ "${1:-}" = prof ] && { prof=1; shift; }
levels=${*:-1 6}
sh "$root/bench/gpu-run.sh" data > "$out/data.log" 2>&1 || { tail "$out/data.log"; exit 1; }
D=$root/corpora/data
export GPZ_DATA=$D GPZ_CORPORA=$root/.gpurun/shared
build() { # build SRC DIR TARGET...
  s=$1 d=$2; shift 2
  cmake -S "$s" -B "$d" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    > "$d.cmake.log" 2>&1 && cmake --build "$d" -j16 --target "$@" > "$d.build.log" 2>&1 ||
    { grep -E "error" "$d.build.log" | head -20; return 1; }
}
new=$root/.devdata/bin/new base=$root/.devdata/bin/base
tests_dir=$new
if [ ! -x "$new/gpz-bench" ]; then
  build "$root" "$root/build-gpu" gpz-bench test_gpu_lz test_gpu_deflate || exit 1
  new=$root/build-gpu tests_dir=$root/build-gpu/tests
fi
if [ ! -x "$base/gpz-bench" ] && [ -f "$root/.devdata/base.tgz" ]; then
  rm -rf /tmp/gpz-base && mkdir -p /tmp/gpz-base && tar xzf "$root/.devdata/base.tgz" -C /tmp/gpz-base
  build /tmp/gpz-base /tmp/gpz-base/build gpz-bench && base=/tmp/gpz-base/build
fi
if [ $tests = 1 ]; then
  timeout 300 "$tests_dir/test_gpu_lz" > "$out/gpu-lz.log" 2>&1
  echo "test_gpu_lz (levels 1-9) rc=$?"; tail -2 "$out/gpu-lz.log"
  timeout 300 "$tests_dir/test_gpu_deflate" > "$out/gpu-deflate.log" 2>&1
  echo "test_gpu_deflate rc=$?"; tail -2 "$out/gpu-deflate.log"
fi
if [ $prof = 1 ]; then
  pl=${PLEVEL:-1} pf=$D/${PFILE:-debtext100m}
  ncu --clock-control none --metrics gpu__time_duration.sum --csv "$new/gpz-bench" --gpu \
    --deflate -l "$pl" -r 1 -T 16 "$pf" > "$out/ncu.csv" 2> "$out/ncu.err"
  python3 "$root/bench/probe/ncu_kernel_times.py" "$out/ncu.csv"
  # the details of some kernels (one launch each, from the whole call): DETAILS="k1 k2 ..."
  for k in ${DETAILS:-}; do
    for t in new base; do
      b=$new; [ $t = base ] && b=$base
      [ -x "$b/gpz-bench" ] || continue
      ncu --clock-control none --set full -k "regex:^$k" --launch-skip 2 -c 1 "$b/gpz-bench" \
        --gpu --deflate -l "$pl" -r 1 -T 16 "$pf" > "$out/ncu-$k-$t.txt" 2>&1
      grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issued Warp|Warp Cycles Per Issued|No Eligible|Executed Ipc A|Block Limit Shared|Stall|stalled" \
        "$out/ncu-$k-$t.txt" | head -14 | sed "s/^/$k $t: /"
    done
  done
fi
files="$D/debtext100m $D/silesia/samba $D/silesia/mr $D/silesia/x-ray $D/silesia/xml"
for l in $levels; do
  for t in new base; do
    b=$new; [ $t = base ] && b=$base
    [ -x "$b/gpz-bench" ] || continue
    echo "## $t, level $l"
    "$b/gpz-bench" --gpu --deflate -l "$l" -r 3 -T 16 $files 2>&1 | grep -E "^\|"
  done
done 2>&1 | tee "$out/matcher.md"
