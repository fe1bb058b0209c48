#!/bin/sh
# On the GPU machine after a GPU build (build-gpu) with the data of bench/gpu-run.sh: one-shot
# host-buffer calls on 16 GiB (bench/probe/big_oneshot.c) with the device's memory sampled every
# 100 ms by nvidia-smi: the peak used while each runs, against the idle figure before.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$root/build-gpu
D=$root/corpora/data
gib=${1:-16}
cc -O2 -I"$root/include" -o /tmp/big_oneshot "$root/bench/probe/big_oneshot.c" -L"$B" -lgpz \
  -Wl,-rpath,"$B" || exit 1
for job in "huff $D/nyx/baryon_density.dat.b16" "gzip $D/debtext100m"; do
  set -- $job
  idle=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits)
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > /tmp/mem.log &
  smi=$!
  /tmp/big_oneshot "$2" "$gib" "$1"
  echo "rc=$?"
  kill $smi
  echo "device memory used: idle $idle MiB, peak $(sort -n /tmp/mem.log | tail -1) MiB"
done
