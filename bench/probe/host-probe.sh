#!/bin/sh
# On the GPU machine after `sh bench/gpu-run.sh build`: probes behind the engine's numbers
# (bench/results/2026-11-23-h200-gzip-engine.md): fixed cost of a tool run, CPU thread scaling of
# gzip with and without glibc's malloc returning memory, writing speed to /dev/shm.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$root/build-gpu/gpz
W=/dev/shm/gpz-bench
mkdir -p "$W"
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
tm() { s=$(date +%s.%N); "$@"; e=$(date +%s.%N); calc "$e - $s"; }
python3 "$root/bench/tile.py" "$root/corpora/data/debtext100m" "$W/t256m" 268435456
head -c 1048576 "$W/t256m" > "$W/t1m"
echo "gpz -V: $(tm "$B" -V >/dev/null) s"
echo "gpz --cpu -1 --format=gzip 1 MiB: $(tm sh -c "$B --cpu -q -c --format=gzip -1 $W/t1m >/dev/null") s"
echo "gzip -1 1 MiB: $(tm sh -c "gzip -1 -c $W/t1m >/dev/null") s"
for lv in 1 6; do
  for T in 1 4 8 16; do
    echo "gpz --cpu -T $T gzip -$lv 256 MiB: $(tm sh -c "$B --cpu -T $T -q -c --format=gzip -$lv $W/t256m >/dev/null") s"
  done
  echo "same, -T 16, malloc never returning memory: $(tm sh -c "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=17179869184 $B --cpu -T 16 -q -c --format=gzip -$lv $W/t256m >/dev/null") s"
  echo "gpz --cpu -T 16 --huff -b 1: $(tm sh -c "$B --cpu -T 16 -q -c --huff -b 1 $W/t256m >/dev/null") s"
done
echo "gpz --cpu -T 1 --huff -b 1: $(tm sh -c "$B --cpu -T 1 -q -c --huff -b 1 $W/t256m >/dev/null") s"
if command -v perf >/dev/null; then
  perf stat -e task-clock,context-switches,page-faults,cpu-migrations "$B" --cpu -T 16 -q -c --format=gzip -1 "$W/t256m" 2>&1 >/dev/null | tail -12
else
  echo "perf absent"
fi
/usr/bin/time -v "$B" --cpu -T 16 -q -c --format=gzip -1 "$W/t256m" 2>&1 >/dev/null | grep -E "Elapsed|Percent|faults|context switches|Maximum resident"
