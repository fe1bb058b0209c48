#!/bin/sh
# On the GPU machine: this tree's gpz and gpz-host-bench (build-gpu/) beside a baseline build's
# (BASE: a folder holding gpz and gpz-host-bench built from an earlier commit), same card, same
# call, interleaved. Issue 10's host side:
#   - host-buffer calls on 4 GiB, pageable and pinned (Huffman-only, Nyx-Quant and text), where
#     each lane stages its frame through pinned memory;
#   - the tool file to file on 4 GB of text in /dev/shm: --format=gzip -1 and .gpz -1, the
#     automatic backend (the GPU starting beside the first batches) and --gpu; outputs of both
#     builds and backends compared byte for byte;
#   - where a cold call's time goes (bench/probe/deflate_trace.c, this tree's library).
# Usage: sh bench/warm-run.sh BASE [RUNS]   Tables to $OUT (or /tmp/gpz-out).
set -u
. "$(dirname "$0")/file-lib.sh"
base=$1 runs=${2:-2}
N=$root/build-gpu
W=/dev/shm/gpz-warm
mkdir -p "$out" "$W"
python3 "$root/bench/tile.py" "$D/nyx/baryon_density.dat.b16" "$W/nyx" 4294967296
python3 "$root/bench/tile.py" "$D/debtext100m" "$W/text" 4000000000
ts=$(stat -c %s "$W/text")
cc -O2 -I"$root/include" -o "$W/deflate_trace" "$root/bench/probe/deflate_trace.c" \
  "$N/libgpz.a" -L/usr/local/cuda/lib64 -lcudart_static -lz -lpthread -lm -ldl -lrt -lstdc++ \
  || echo "deflate_trace: build failed"
{
  nvidia-smi --query-gpu=name --format=csv,noheader | sed 's/^/device: /'
  echo "cpus: $(nproc)"
  echo
  echo "## Host buffers, 4 GiB (gpz-host-bench, median of 3 after a warm-up)"
  for b in "$base" "$N"; do
    for m in "" "--pinned"; do
      echo "### $b ${m:-pageable}"
      "$b/gpz-host-bench" --gpu -b 2 -s 4 $m "$W/nyx" 2>&1 | tail -3
      "$b/gpz-host-bench" --gpu -b 1 -s 4 $m "$W/text" 2>&1 | tail -3
    done
  done
  echo
  echo "## The tool, 4 GB of text, /dev/shm"
  echo "| job | build | seconds | GB/s | output bytes |"
  echo "|---|---|---:|---:|---:|"
  cat "$W/text" > /dev/null
  row "cat > /dev/null" "$ts" "cat '$W/text' > /dev/null"
  for i in $(seq "$runs"); do
    for job in "--format=gzip -1" "-1"; do
      ref=$W/ref$(echo "$job" | tr -dc 'a-z0-9')
      for be in "" "--gpu"; do
        for b in "$base" "$N"; do
          tag=$(basename "$b")
          s=$(date +%s.%N)
          "$b/gpz" $be -q -k -f $job -o "$W/t.out" "$W/text" || echo "| FAILED $job $be $tag |"
          e=$(date +%s.%N)
          echo "| $job ${be:-default} | $tag | $(calc "$e - $s") | $(calc "$ts / ($e - $s) / 1e9") | $(stat -c %s "$W/t.out") |"
          [ -f "$ref" ] || cp "$W/t.out" "$ref"
          cmp -s "$W/t.out" "$ref" || echo "| OUTPUT DIFFERS: $job ${be:-default} $tag |"
        done
      done
    done
  done
  "$N/gpz" --cpu -q -k -f --format=gzip -1 -o "$W/t.out" "$W/text"
  cmp -s "$W/t.out" "$W/refformatgzip1" && echo "(gzip -1: --cpu output equals every GPU run's)" \
    || echo "GZIP -1 --cpu OUTPUT DIFFERS"
  gzip -t < "$W/refformatgzip1" && echo "(gzip -t accepts it)"
  "$N/gpz" -t "$W/ref1" && echo "(gpz -t accepts the .gpz -1)"
  rm -f "$W/t.out" "$W/ref"*
  echo
  echo "## Where a call's time goes (deflate_trace, this tree; 3 calls: cold, warm, warm)"
  for be in auto gpu; do
    "$W/deflate_trace" "$W/text" "$W/t.trace" $be gzip 1 3
    "$W/deflate_trace" "$W/text" "$W/t.trace" $be gpz 1 2
  done
  rm -f "$W/t.trace"
} 2>&1 | tee "$out/warm-run.md"
