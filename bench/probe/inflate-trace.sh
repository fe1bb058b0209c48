#!/bin/sh
# On the GPU machine, after bench/inflate-run.sh tool (its 4 GB t1.gz in /dev/shm): the library's
# gzip inflate alone (bench/probe/inflate_trace.c) on the GPU with 2-4 lanes (members use at most
# 4: GPU_LANES in inflate_io.c) and on 16 threads.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$root/build-gpu
cc -O2 -I"$root/include" -o /tmp/inflate_trace "$root/bench/probe/inflate_trace.c" -L"$B" -lgpz \
  -Wl,-rpath,"$B" || exit 1
f=${1:-/dev/shm/gpz-inf/t1.gz}
/tmp/inflate_trace "$f" gpu 3
for n in 2 3 4; do /tmp/inflate_trace "$f" gpu 3 $n; done
/tmp/inflate_trace "$f" cpu 2
