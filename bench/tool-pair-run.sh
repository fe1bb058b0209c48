#!/bin/sh
# On the GPU machine, after `sh bench/gpu-run.sh build` (build-gpu/) unpacked corpora/data/: the
# tool's own jobs on the GPU host, file to file in /dev/shm (tmpfs), page cache warm, this
# tree's gpz (or NEW=path) against a baseline's (BASE=path, optional), alternating, RUNS rounds:
# compression of 4 GB of text (gzip -1/-6, .gpz LZ -1/-6, Huffman-only) and of 4 GiB of Nyx-Quant
# codes (--huff -b 2) with -o and with -c into a file; decompression of what BASE (else NEW)
# wrote with -d -o, -dc into a file and -t. Every output is compared between the two tools, and
# NEW's last decodes with the input. `cat` into a new file beside: what tmpfs takes.
# It reproduces the tables of bench/results/2026-11-26-h100-parallel-output.md (which ran the
# same commands from throwaway scripts, a few rows a call).
# Usage: [BASE=gpz] sh bench/tool-pair-run.sh [RUNS]   (default 3). Table to $OUT/tool-pair.md.
set -u
. "$(dirname "$0")/file-lib.sh"
N=${NEW:-$G}
B=${BASE:-}
runs=${1:-3}
W=/dev/shm/gpz-pair
mkdir -p "$out" "$W"
python3 "$root/bench/tile.py" "$D/debtext100m" "$W/text" 4000000000
python3 "$root/bench/tile.py" "$D/nyx/baryon_density.dat.b16" "$W/nyx" 4294967296
tn=$(stat -c %s "$W/text") nn=$(stat -c %s "$W/nyx")
ref=${B:-$N}
"$ref" -q -f --format=gzip -1 -o "$W/t1.gz" "$W/text"
"$ref" -q -f -6 -o "$W/t6.gpz" "$W/text"
"$ref" -q -f --huff -b 2 -o "$W/n.gpz" "$W/nyx"
# one job by each tool: NAME BYTES ARGS (INPUT and OUT substituted), outputs compared
pair() {
  for tool in new ${B:+base}; do
    g=$N; [ "$tool" = base ] && g=$B
    rm -f "$W/$tool.out"
    cmd=$(printf '%s' "$3" | sed "s|OUT|$W/$tool.out|")
    s=$(t "'$g' -q $cmd")
    echo "| $1 | $tool | $s | $(calc "$2 / $s / 1e9") |"
  done
  [ -z "$B" ] || [ ! -e "$W/new.out" ] || cmp -s "$W/new.out" "$W/base.out" || echo "| MISMATCH $1 | | | |"
}
{
  nvidia-smi --query-gpu=name --format=csv,noheader | sed 's/^/device: /'
  echo "cpus: $(nproc)"
  echo
  echo "| job | tool | seconds | GB/s of original bytes |"
  echo "|---|---|---:|---:|"
  cat "$W/text" "$W/nyx" >/dev/null
  for i in $(seq "$runs"); do
    rm -f "$W/cat.out"
    s=$(t "cat '$W/text' > '$W/cat.out'"); echo "| cat text > new file | - | $s | $(calc "$tn / $s / 1e9") |"
    for job in "--format=gzip -1" "--format=gzip -6" "-1" "-6" "--huff"; do
      pair "text $job -o" "$tn" "-f $job -o OUT '$W/text'"
      pair "text -c $job > file" "$tn" "-c $job '$W/text' > OUT"
    done
    pair "nyx --huff -b 2 -o" "$nn" "-f --huff -b 2 -o OUT '$W/nyx'"
    for f in t1.gz t6.gpz n.gpz; do
      size=$tn; [ "$f" = n.gpz ] && size=$nn
      pair "-d -o $f" "$size" "-f -d -o OUT '$W/$f'"
      pair "-dc $f > file" "$size" "-dc '$W/$f' > OUT"
      pair "-t $f" "$size" "-t '$W/$f'"
    done
  done
  "$N" -q -dc "$W/t6.gpz" | cmp -s - "$W/text" || echo "| MISMATCH: .gpz -6 round trip | | | |"
  "$N" -q -dc "$W/n.gpz" | cmp -s - "$W/nyx" || echo "| MISMATCH: Nyx round trip | | | |"
  gzip -dc "$W/t1.gz" | cmp -s - "$W/text" || echo "| MISMATCH: gzip -d | | | |"
} 2>&1 | tee "$out/tool-pair.md"
rm -f "$W"/*.out
