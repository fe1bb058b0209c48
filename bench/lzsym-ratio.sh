#!/bin/sh
# Ratios of LZ-symbol frames (issue 12) on the quantization codes of the prepared data
# (corpora/prepare.sh: corpora/data/quant/*.u16 and the Nyx-Quant codes), next to Huffman-only
# and LZ mode (DEFLATE level 1 over the bytes), through the tool on the CPU backend, with the
# round trip checked. Usage: sh bench/lzsym-ratio.sh [BUILD_DIR]   (default: build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
G=${1:-$root/build}/gpz
D=${GPZ_DATA:-$root/corpora/data}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
r() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
echo "| file | Huffman-only | DEFLATE -1 | LZ-symbol | automatic | auto / best | LZ-symbol compress s | decompress s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for f in "$D"/quant/*.u16 "$D"/nyx/*.b16; do
  [ -f "$f" ] || continue
  n=$(stat -c %s "$f")
  "$G" --cpu -q -c -b 2 --huff-only "$f" >"$T/h"
  "$G" --cpu -q -c -1 "$f" >"$T/d"
  s=$(date +%s.%N); "$G" --cpu -q -c -b 2 --lz-symbols "$f" >"$T/l"; e=$(date +%s.%N)
  ct=$(awk "BEGIN { printf \"%.3f\", $e - $s }")
  s=$(date +%s.%N); "$G" --cpu -q -dc "$T/l" >"$T/o"; e=$(date +%s.%N)
  dt=$(awk "BEGIN { printf \"%.3f\", $e - $s }")
  cmp -s "$T/o" "$f" || echo "MISMATCH $f" >&2
  "$G" --cpu -q -c -b 2 --lz-auto "$f" >"$T/a"
  "$G" --cpu -q -dc "$T/a" | cmp -s - "$f" || echo "MISMATCH (auto) $f" >&2
  h=$(stat -c %s "$T/h"); d=$(stat -c %s "$T/d"); l=$(stat -c %s "$T/l"); a=$(stat -c %s "$T/a")
  best=$((h < d ? h : d))
  echo "| $(basename "$f") | $(r "$n" "$h") | $(r "$n" "$d") | $(r "$n" "$l") | $(r "$n" "$a") | $(awk "BEGIN { printf \"%.3f\", $best / $a }") | $ct | $dt |"
done
