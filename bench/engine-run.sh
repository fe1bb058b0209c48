#!/bin/sh
# On the GPU machine, after bench/gpu-run.sh has built build-gpu/ and unpacked the data: what
# users get from the frame engine. Host-buffer library calls (gpz-host-bench, 4 GiB, pageable and
# pinned, GPU and CPU, several depths) and the tool file to file (4 GiB inputs in /dev/shm, page
# cache warm, output to /dev/shm, next to `cat FILE > /dev/null`; compression writes to standard
# output, decompression to a file with -o, whose data the tool syncs before renaming it into
# place). Tables go to $OUT.
# Usage: sh bench/engine-run.sh [host|files|scale|gpus|all]
# gpus: host buffers (Huffman-only, .gpz DEFLATE level 1) on 1, 2 and every GPU, and the tool's
# bytes for each GPU count (a machine with several).
# scale: the tool on 0.25, 1, 2 and 4 GiB of Nyx codes, --gpu: the slope is the steady rate, the
# intercept what every run pays to start (CUDA context, lanes' buffers).
set -u
what=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpz-out}
B=$root/build-gpu
D=$root/corpora/data
W=/dev/shm/gpz-bench
mkdir -p "$out" "$W"
nyx=$D/nyx/baryon_density.dat.b16
txt=$D/debtext100m
nproc > "$out/host.txt"; nvidia-smi --query-gpu=name --format=csv,noheader >> "$out/host.txt"

if [ "$what" = host ] || [ "$what" = all ]; then
  {
    for be in --gpu --cpu; do
      "$B/gpz-host-bench" $be -b 2 -s 4 "$nyx"
      "$B/gpz-host-bench" $be -b 1 -s 4 "$txt"
    done
    "$B/gpz-host-bench" --gpu -b 2 -s 4 --pinned "$nyx"
    "$B/gpz-host-bench" --gpu -b 1 -s 4 --pinned "$txt"
    for d in 1 3 6 8 12; do "$B/gpz-host-bench" --gpu -b 2 -s 4 -d $d "$nyx"; done
  } 2>&1 | tee "$out/host-bench.md"
fi

tile() { python3 "$root/bench/tile.py" "$@"; } # tile SRC DST BYTES
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
if [ "$what" = gpus ]; then
  # host buffers on 1, 2 and every GPU: Huffman-only (Nyx u16, text u8) and .gpz DEFLATE level 1
  # frames (text); then the tool's output for each GPU count, compared byte for byte
  ngpu=$(nvidia-smi -L | wc -l)
  {
    nvidia-smi -L
    for g in 1 2 0; do
      [ "$g" -gt "$ngpu" ] && continue
      for m in "" --pinned; do
        "$B/gpz-host-bench" --gpu -b 2 -s 4 -g $g $m "$nyx"
        "$B/gpz-host-bench" --gpu -b 1 -s 4 -g $g $m "$txt"
        "$B/gpz-host-bench" --gpu -b 1 -l 1 -s 4 -g $g $m "$txt"
      done
    done
    # the most lanes (16; default 6 a GPU): where the lanes' host copies and latencies bound it
    [ "$ngpu" -ge 2 ] && "$B/gpz-host-bench" --gpu -b 2 -s 4 -g 2 -d 16 "$nyx"
    [ "$ngpu" -ge 2 ] && "$B/gpz-host-bench" --gpu -b 1 -l 1 -s 4 -g 2 -d 16 --pinned "$txt"
  } 2>&1 | tee "$out/gpus.md"
  tile "$nyx" "$W/nyx1m" $((1 << 20))
  tile "$nyx" "$W/nyx4g" $((4 << 30))
  tile "$txt" "$W/text4g" 4000000000
  {
    echo "| tool job | GPUs | seconds | output |"
    echo "|---|---:|---:|---|"
    # 1 MiB: the start-up (CUDA contexts and every lane's resources on every GPU used)
    for job in "nyx1m --huff -b 2" "nyx4g --huff -b 2" "text4g -1" "text4g --format=gzip -1"; do
      set -- $job; f=$1; shift
      for g in 1 2 0; do
        [ "$g" -gt "$ngpu" ] && continue
        s=$(date +%s.%N); "$B/gpz" --gpu --gpus=$g -q -c "$@" "$W/$f" > "$W/g$g.out"; e=$(date +%s.%N)
        if [ "$g" = 1 ]; then v="reference"
        else cmp -s "$W/g1.out" "$W/g$g.out" && v="== 1 GPU's bytes" || v="DIFFERS from 1 GPU's"; fi
        echo "| gpz $* $f | $g | $(calc "$e - $s") | $v |"
      done
      "$B/gpz" -q -t "$W/g0.out" && echo "| (the every-GPU output passes gpz -t) | | | |"
    done
    rm -f "$W"/g*.out
  } 2>&1 | tee "$out/gpus-tool.md"
  exit 0
fi
if [ "$what" = scale ]; then
  {
    echo "| GiB | compress s | decompress s |"
    echo "|---:|---:|---:|"
    for g in 256 1024 2048 4096; do
      tile "$nyx" "$W/nyx$g" $((g << 20))
      cat "$W/nyx$g" > /dev/null
      s=$(date +%s.%N); "$B/gpz" --gpu -q -c -b 2 "$W/nyx$g" > "$W/o.gpz"; m=$(date +%s.%N)
      rm -f "$W/o.back"; "$B/gpz" --gpu -q -d -k -o "$W/o.back" "$W/o.gpz"; e=$(date +%s.%N)
      cmp -s "$W/o.back" "$W/nyx$g" || echo "MISMATCH nyx$g"
      echo "| $(calc "$g / 1024") | $(calc "$m - $s") | $(calc "$e - $m") |"
    done
  } 2>&1 | tee "$out/scale.md"
  exit 0
fi
if [ "$what" != host ]; then
  tile "$nyx" "$W/nyx4g" $((4 << 30))
  tile "$txt" "$W/text4g" 4000000000
  {
    echo "| job | backend | seconds (compress / decompress) | GB/s (compress / decompress) |"
    echo "|---|---|---:|---:|"
    for f in nyx4g text4g; do
      cat "$W/$f" > /dev/null
      s=$(date +%s.%N); cat "$W/$f" > /dev/null; e=$(date +%s.%N)
      sz=$(stat -c %s "$W/$f")
      echo "| cat $f > /dev/null | - | $(calc "$e - $s") | $(calc "$sz / ($e - $s) / 1e9") |"
    done
    for be in --gpu --cpu; do
      for job in "nyx4g --huff -b 2" "text4g --huff -b 1" "text4g -1" "text4g -6"; do
        set -- $job; f=$1; shift
        rm -f "$W/o.gpz" "$W/o.back"
        s=$(date +%s.%N); "$B/gpz" $be -q -c "$@" "$W/$f" > "$W/o.gpz"; m=$(date +%s.%N)
        "$B/gpz" $be -q -d -k -o "$W/o.back" "$W/o.gpz"; e=$(date +%s.%N)
        cmp -s "$W/o.back" "$W/$f" && ok=ok || ok=MISMATCH
        sz=$(stat -c %s "$W/$f")
        echo "| gpz $* $f (ratio $(calc "$sz / $(stat -c %s "$W/o.gpz")")) | $be | c $(calc "$m - $s") / d $(calc "$e - $m") | c $(calc "$sz / ($m - $s) / 1e9") / d $(calc "$sz / ($e - $m) / 1e9") $ok |"
      done
    done
    # gzip: compression only (inflating 4 GB takes zlib ~15 s; the library's inflate is issue
    # 11's), the GPU's bytes checked against the CPU's; gzip -t checks the CPU's once
    for lv in 1 6; do
      for be in --gpu --cpu; do
        s=$(date +%s.%N); "$B/gpz" $be -q -c --format=gzip -$lv "$W/text4g" > "$W/o$be.gz"; e=$(date +%s.%N)
        sz=$(stat -c %s "$W/text4g")
        echo "| gpz --format=gzip -$lv text4g (ratio $(calc "$sz / $(stat -c %s "$W/o$be.gz")")) | $be | c $(calc "$e - $s") | c $(calc "$sz / ($e - $s) / 1e9") |"
      done
      cmp -s "$W/o--gpu.gz" "$W/o--cpu.gz" && echo "| gzip -$lv: GPU bytes == CPU bytes | | | |" || echo "| gzip -$lv: GPU and CPU bytes DIFFER | | | |"
    done
    gzip -t "$W/o--cpu.gz" && echo "| gzip -t of the -6 output: ok | | | |"
  } 2>&1 | tee "$out/files.md"
fi
