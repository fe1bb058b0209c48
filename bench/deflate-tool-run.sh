#!/bin/sh
# On the GPU machine, after `sh bench/gpu-run.sh build` (build-gpu/; or NEW=path to a gpz): what
# users get of the DEFLATE writer, the tool file to file: 4 GB of text (debtext100m tiled) in
# /dev/shm, page cache warm, gzip -1 / -6 and .gpz LZ -1 written to a file in /dev/shm by this
# tree's gpz and by a baseline's (BASE=path to its gpz, optional), runs alternating, with --gpu
# and (first run only) --cpu on every core, `cat` to /dev/null and to a file beside. Table to $OUT.
# Usage: sh bench/deflate-tool-run.sh [RUNS]   (default 3)
set -u
. "$(dirname "$0")/file-lib.sh"
G=${NEW:-$G}
runs=${1:-3}
W=/dev/shm/gpz-dtool
mkdir -p "$out" "$W"
python3 "$root/bench/tile.py" "$D/debtext100m" "$W/text" 4000000000
n=$(stat -c %s "$W/text")
{
  nvidia-smi --query-gpu=name --format=csv,noheader | sed 's/^/device: /'
  echo "cpus: $(nproc)"
  echo
  echo "| job | tool | seconds | GB/s | output bytes |"
  echo "|---|---|---:|---:|---:|"
  cat "$W/text" > /dev/null
  for i in $(seq "$runs"); do
    s=$(t "cat '$W/text' > /dev/null"); echo "| cat > /dev/null | - | $s | $(calc "$n / $s / 1e9") | |"
    s=$(t "cat '$W/text' > '$W/o'"); echo "| cat > file | - | $s | $(calc "$n / $s / 1e9") | |"
    for job in "--format=gzip -1" "--format=gzip -6" "-1"; do
      for be in --gpu --cpu; do
      [ "$be" = --cpu ] && [ "$i" != 1 ] && continue
      for tool in "$G" ${BASE:-}; do
        name=new; [ "$tool" = "$G" ] || name=base
        s=$(t "'$tool' $be -q -c $job '$W/text' > '$W/o'")
        echo "| $job $be | $name | $s | $(calc "$n / $s / 1e9") | $(stat -c %s "$W/o") |"
        if [ "$i" = 1 ] && [ "$name" = new ] && [ "$be" = --gpu ]; then
          "$G" -q -dc "$W/o" | cmp -s - "$W/text" || echo "| MISMATCH $job | | | | |"
          [ "$job" = "-1" ] || gzip -dc "$W/o" | cmp -s - "$W/text" || echo "| gzip -d MISMATCH $job | | | | |"
        fi
      done
      done
    done
  done
} 2>&1 | tee "$out/deflate-tool.md"
rm -f "$W/o"
