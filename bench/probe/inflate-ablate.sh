#!/bin/sh
# inflate-ablate.sh - issue 11's pieces kernel (src/deflate/inflate.cu) taken apart on the GPU
# machine, for the next try at it: where its time goes, measured by running it without a part
# (the twenty-fifth session found levels 7-9's walk so, after readings of stalls had misled)
# and by ncu's stall samples per SASS instruction (a -lineinfo build). First run: twenty-sixth
# session (bench/results/2026-11-27-h100-h200-anchors-and-ablation.md).
#
# From the repository root on the GPU machine, .devdata carried (bench/gpu-data.sh). Each
# variant is a copy of this tree with one sed applied to inflate.cu, built for sm_90 (about a
# minute each on 16 cores); its output is wrong by design (the bench's own check fails and it
# exits), so only ncu's time of the first inflate_kernel launch counts (1 GiB, tiled, gzip
# written by the GPU at the level given). Usage: sh bench/probe/inflate-ablate.sh [LEVEL...]
# (default 6); tables to $OUT.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/gpz-out}
mkdir -p "$out"
levels=${*:-6}
sh "$root/bench/gpu-run.sh" data > "$out/ablate-data.log" 2>&1 || { tail -3 "$out/ablate-data.log"; exit 1; }
D=$root/corpora/data

abl_build() { # NAME SED-EXPRESSION CUDA-FLAGS
  t=/tmp/abl-$1
  rm -rf "$t" && mkdir -p "$t"
  (cd "$root" && tar cf - --exclude=./build-gpu --exclude=./build-cpu --exclude=./.devdata \
    --exclude=./corpora/data --exclude=./.gpurun --exclude=./.git .) | tar xf - -C "$t"
  if [ -n "$2" ]; then
    cp "$t/src/deflate/inflate.cu" "$t/inflate.orig"
    sed -i "$2" "$t/src/deflate/inflate.cu"
    cmp -s "$t/src/deflate/inflate.cu" "$t/inflate.orig" && { echo "$1: the sed changed nothing"; return 1; }
  fi
  cmake -S "$t" -B "$t/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_FLAGS="$3" > "$t.cmake.log" 2>&1 &&
    cmake --build "$t/build" -j16 --target gpz-bench > "$t.build.log" 2>&1 ||
    { grep -E "error" "$t.build.log" | head -5; return 1; }
}

abl_time() { # NAME LEVEL FILE: ms of the first inflate_kernel launch
  ncu --clock-control none --metrics gpu__time_duration.sum --csv -k regex:inflate_kernel -c 1 \
    "/tmp/abl-$1/build/gpz-bench" --gpu --inflate -l "$2" -r 1 -T 16 "$3" > "/tmp/abl-$1.csv" 2>/dev/null
  python3 "$root/bench/probe/ncu_kernel_times.py" "/tmp/abl-$1.csv" | head -1 | awk '{print $(NF-1)}'
}

# base: as it is (with line info for the source page); noflush: spec_write decodes and places the
# tokens but never writes them out; noprefetch: no L2 prefetch of the copies' sources
abl_build base "" "-lineinfo" || exit 1
abl_build noflush 's/^\t\tflush(out, t, total - g < 32 ? total - g : 32, end);$/\t\t(void)end;/' "" || exit 1
abl_build noprefetch 's/asm volatile("prefetch.global.L2 \[%0\];" ::"l"(sp[^;]*;/;/' "" || exit 1
{
  echo "| file | level | base ms | no flush ms | no prefetch ms |"
  echo "|---|---:|---:|---:|---:|"
  for f in debtext100m silesia/samba silesia/xml; do
    for l in $levels; do
      echo "| $(basename $f) | $l | $(abl_time base $l $D/$f) | $(abl_time noflush $l $D/$f) | $(abl_time noprefetch $l $D/$f) |"
    done
  done
} | tee "$out/ablate.md"

# the hottest SASS instructions by stall samples, base, first level, debtext100m (the CSV of the
# CUDA source page lists the source without metric columns: twenty-sixth session)
l=$(echo $levels | cut -d' ' -f1)
ncu --clock-control none --set full -k regex:inflate_kernel -c 1 -o /tmp/abl-rep \
  /tmp/abl-base/build/gpz-bench --gpu --inflate -l "$l" -r 1 -T 16 "$D/debtext100m" > /tmp/abl-rep.log 2>&1
ncu --import /tmp/abl-rep.ncu-rep --page source --csv --print-source sass > /tmp/abl-sass.csv 2>&1
python3 "$root/bench/probe/ncu_sass_top.py" /tmp/abl-sass.csv 30 | tee "$out/ablate-sass.txt"
