#!/bin/sh
# On the GPU machine, after bench/gpu-run.sh build and bench/engine-run.sh files (build-gpu/,
# /dev/shm/gpz-bench/text4g): where the tool's gzip time goes. Output to /dev/null vs a file,
# 1 GiB vs 4 GB (start-up vs steady rate), GPU batch of 64 vs 128 pieces (a second build with
# -DGPZ_DFL_GPU_BATCH=128), and the CPU backend on 1 and 16 threads (scaling). Tables to $OUT.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpz-out}
W=/dev/shm/gpz-bench
mkdir -p "$out" "$W"
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
lscpu | grep -E "^CPU\(s\)|Thread|Core|Socket|Model name" > "$out/lscpu.txt"
cat "$out/lscpu.txt"
python3 "$root/bench/tile.py" "$root/corpora/data/debtext100m" "$W/text4g" 4000000000
head -c 1073741824 "$W/text4g" > "$W/text1g"
head -c 268435456 "$W/text4g" > "$W/text256m"
if [ ! -x "$root/build-b128/gpz" ]; then
  cmake -S "$root" -B "$root/build-b128" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_C_FLAGS=-DGPZ_DFL_GPU_BATCH=128 > /dev/null 2>&1
  cmake --build "$root/build-b128" -j16 --target gpz-tool > "$out/build-b128.log" 2>&1 || tail -5 "$out/build-b128.log"
fi
t() { # t LABEL DEST CMD...: one timed run
  label=$1; dest=$2; shift 2
  s=$(date +%s.%N); "$@" > "$dest"; e=$(date +%s.%N)
  echo "$(calc "$e - $s")"
}
{
  echo "| gzip job | input | build | output | seconds | GB/s |"
  echo "|---|---|---|---|---:|---:|"
  for f in text1g text4g; do
    sz=$(stat -c %s "$W/$f"); cat "$W/$f" > /dev/null
    for lv in 1 6; do
      for b in build-gpu build-b128; do
        for dst in /dev/null "$W/o.gz"; do
          s=$(t x "$dst" "$root/$b/gpz" --gpu -q -c --format=gzip -$lv "$W/$f")
          echo "| --gpu -$lv | $f | $b | $dst | $s | $(calc "$sz / $s / 1e9") |"
        done
      done
    done
  done
  sz=$(stat -c %s "$W/text256m")
  for lv in 1 6; do
    for th in 1 8 16; do
      s=$(t x /dev/null "$root/build-gpu/gpz" --cpu -T $th -q -c --format=gzip -$lv "$W/text256m")
      echo "| --cpu -T $th -$lv | text256m | build-gpu | /dev/null | $s | $(calc "$sz / $s / 1e9") |"
    done
  done
  # .gz decompression: the piece index lets the pieces inflate in parallel (gpz_inflate_member_at)
  "$root/build-gpu/gpz" --gpu -q -k -f --format=gzip -6 "$W/text4g"
  "$root/build-gpu/gpz" --gpu -q -k -f --format=gzip -6 "$W/text1g"
  sz=$(stat -c %s "$W/text4g")
  for be in --cpu --gpu; do
    for dst in /dev/null "$W/back"; do
      s=$(t x "$dst" "$root/build-gpu/gpz" $be -q -d -c "$W/text4g.gz")
      echo "| $be -d .gz (indexed) | text4g | build-gpu | $dst | $s | $(calc "$sz / $s / 1e9") |"
    done
  done
  sz=$(stat -c %s "$W/text1g")
  for T in 1 16; do
    s=$(t x /dev/null "$root/build-gpu/gpz" --cpu -T $T -q -d -c "$W/text1g.gz")
    echo "| --cpu -T $T -d .gz (indexed) | text1g | build-gpu | /dev/null | $s | $(calc "$sz / $s / 1e9") |"
  done
  s=$(t x "$W/back" "$root/build-gpu/gpz" --cpu -q -d -c "$W/text1g.gz")
  echo "| --cpu -d .gz (indexed) | text1g | build-gpu | $W/back | $s | $(calc "$sz / $s / 1e9") |"
  cmp -s "$W/back" "$W/text1g" && echo "| indexed .gz round trip: same bytes | | | | | |"
  s=$(t x /dev/null gzip -dc "$W/text1g.gz")
  echo "| gzip -dc | text1g | - | /dev/null | $s | $(calc "$sz / $s / 1e9") |"
  # decompression: is the single writer the limit? (.gpz Huffman frames of the 1 GiB text)
  "$root/build-gpu/gpz" --gpu -q -c --huff -b 1 "$W/text1g" > "$W/t1g.gpz"
  sz=$(stat -c %s "$W/text1g")
  for dst in /dev/null "$W/back"; do
    s=$(t x "$dst" "$root/build-gpu/gpz" --gpu -q -d -c "$W/t1g.gpz")
    echo "| --gpu -d (huff) | text1g | build-gpu | $dst | $s | $(calc "$sz / $s / 1e9") |"
  done
  s=$(date +%s.%N); cat "$W/text1g" > "$W/back"; e=$(date +%s.%N)
  echo "| cat text1g > file (one writer) | text1g | - | $W/back | $(calc "$e - $s") | $(calc "$sz / ($e - $s) / 1e9") |"
  rm -f "$W/back"
} 2>&1 | tee "$out/gzip-run.md"
