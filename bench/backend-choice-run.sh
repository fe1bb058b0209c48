#!/bin/sh
# On the GPU machine, after `sh bench/gpu-run.sh build` (build-gpu/) unpacked corpora/data/: the
# tool's jobs with --cpu (all threads) and --gpu at three sizes, file to file in /dev/shm, page
# cache warm; outputs compared between the backends and every decode with its input. Where the
# two meet is what the automatic backend's sizes in tools/gpz.c (AT16_*) come from
# (bench/results/2026-11-26-h100-backend-choice.md). Usage: sh bench/backend-choice-run.sh
set -u
. "$(dirname "$0")/file-lib.sh"
W=/dev/shm/gpz-backend
mkdir -p "$out" "$W"
{
  nvidia-smi --query-gpu=name --format=csv,noheader | sed 's/^/device: /'
  echo "cpus: $(nproc)"
  echo "| job | size | cpu s | gpu s | cpu GB/s | gpu GB/s |"
  echo "|---|---:|---:|---:|---:|---:|"
  for size in 256000000 1000000000 4000000000; do
    rm -f "$W/text" "$W/nyx"
    python3 "$root/bench/tile.py" "$D/debtext100m" "$W/text" $size
    python3 "$root/bench/tile.py" "$D/nyx/baryon_density.dat.b16" "$W/nyx" $size
    cat "$W/text" "$W/nyx" > /dev/null
    for job in "text --huff -b 1" "nyx --huff -b 2" "text --format=gzip -1" \
               "text --format=gzip -6" "text -1" "text -6"; do
      set -- $job; f=$1; shift; a="$*"
      ext=gpz; case "$a" in *gzip*) ext=gz;; esac
      c=$(t "'$G' --cpu -q -f $a -o '$W/c.$ext' '$W/$f'")
      g=$(t "'$G' --gpu -q -f $a -o '$W/g.$ext' '$W/$f'")
      check "$W/c.$ext" "$W/g.$ext"
      echo "| $job | $size | $c | $g | $(calc "$size / $c / 1e9") | $(calc "$size / $g / 1e9") |"
      c=$(t "'$G' --cpu -q -f -d -o '$W/c.out' '$W/c.$ext'")
      g=$(t "'$G' --gpu -q -f -d -o '$W/g.out' '$W/c.$ext'")
      check "$W/c.out" "$W/$f"
      check "$W/g.out" "$W/$f"
      echo "| -d of $job | $size | $c | $g | $(calc "$size / $c / 1e9") | $(calc "$size / $g / 1e9") |"
      rm -f "$W"/c.* "$W"/g.*
    done
  done
} 2>&1 | tee "$out/backend-choice.md"
rm -rf "$W"
