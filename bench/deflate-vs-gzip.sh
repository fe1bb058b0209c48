#!/bin/sh
# Compare gpz's gzip output with gzip at every level on Silesia (total) and debtext100m:
# compressed bytes and compression time, both on one thread. Writes bench/results/.
# Usage: bench/deflate-vs-gzip.sh [build-dir]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
gpz=${1:-"$root/build"}/gpz
d="$root/corpora/data"
out="$root/bench/results/$(date +%Y-%m-%d)-cpu-deflate-vs-gzip.md"
sizes() { # command... : total compressed bytes over the set, and seconds
  t0=$(date +%s.%N); total=0
  for f in $set; do n=$("$@" < "$f" | wc -c); total=$((total + n)); done
  t1=$(date +%s.%N); echo "$total $(echo "$t1 - $t0" | bc)"
}
{
  echo "# gpz --format=gzip against gzip, $(date +%Y-%m-%d)"
  echo
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), one thread each."
  echo "gzip: $(gzip --version | head -1). Command: \`bench/deflate-vs-gzip.sh\`."
  echo "Sizes are compressed bytes (gzip format, both with the file name omitted: stdin);"
  echo "MB/s is input bytes per second of wall time, including process start-up."
  for name in silesia debtext100m; do
    if [ $name = silesia ]; then set=$(ls "$d"/silesia/*); else set="$d/debtext100m"; fi
    [ -n "$set" ] && [ -e "$(echo "$set" | head -1)" ] || continue
    in=0; for f in $set; do in=$((in + $(wc -c < "$f"))); done
    echo; echo "## $name ($in bytes)"; echo
    echo "| level | gpz bytes | gzip bytes | gpz/gzip | gpz MB/s | gzip MB/s |"
    echo "|---:|---:|---:|---:|---:|---:|"
    for l in 1 2 3 4 5 6 7 8 9; do
      g=$(sizes "$gpz" -c -T 1 --format=gzip -$l); z=$(sizes gzip -c -$l)
      set -- $g $z
      echo "| $l | $1 | $3 | $(echo "scale=4; $1 / $3" | bc) | $(echo "scale=1; $in / $2 / 1000000" | bc) | $(echo "scale=1; $in / $4 / 1000000" | bc) |"
    done
  done
} > "$out"
echo "wrote $out"
