#!/bin/sh
# On the GPU machine after `sh bench/gpu-run.sh build`: what a tool run costs before any work
# (bench/results/2026-11-23-h200-gzip-engine.md), CUDA build vs a CPU-only build.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
W=/dev/shm/gpz-bench
mkdir -p "$W"
head -c 1048576 "$root/corpora/data/debtext100m" > "$W/t1m"
cmake -S "$root" -B "$root/build-cpu" -DGPZ_CUDA=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null 2>&1
cmake --build "$root/build-cpu" -j16 --target gpz-tool > /dev/null 2>&1
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
for b in build-cpu build-gpu; do
  for i in 1 2 3; do
    s=$(date +%s.%N); "$root/$b/gpz" --cpu -q -c --format=gzip -1 "$W/t1m" > /dev/null; e=$(date +%s.%N)
    echo "$b gpz --cpu gzip -1 1 MiB: $(calc "$e - $s") s"
  done
  s=$(date +%s.%N); "$root/$b/gpz" -V > /dev/null; e=$(date +%s.%N)
  echo "$b gpz -V: $(calc "$e - $s") s"
done
s=$(date +%s.%N); CUDA_MODULE_LOADING=LAZY "$root/build-gpu/gpz" --cpu -q -c --format=gzip -1 "$W/t1m" > /dev/null; e=$(date +%s.%N)
echo "build-gpu, CUDA_MODULE_LOADING=LAZY: $(calc "$e - $s") s"
ldd "$root/build-gpu/gpz" | grep -iE "cuda|stdc"
ls -la "$root/build-gpu/gpz" "$root/build-cpu/gpz"
if command -v strace > /dev/null; then
  strace -f -c -o "$W/strace.txt" "$root/build-gpu/gpz" --cpu -q -c --format=gzip -1 "$W/t1m" > /dev/null
  head -25 "$W/strace.txt"
  strace -f -r -e trace=openat,mmap,ioctl "$root/build-gpu/gpz" --cpu -q -c --format=gzip -1 "$W/t1m" 2>&1 >/dev/null | sort -k2 -n -r | head -8
else
  echo "strace absent"
fi
