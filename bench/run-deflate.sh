#!/bin/sh
# Record gpz's gzip output against zlib, libdeflate and zstd on Silesia and debtext100m
# (gpz-bench --deflate, one thread, one run each: the largest inputs take minutes).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-"$root/build"}/gpz-bench
d="$root/corpora/data"
out="$root/bench/results/$(date +%Y-%m-%d)-cpu-deflate-codecs.md"
{
  echo "# DEFLATE against zlib, libdeflate and zstd, $(date +%Y-%m-%d)"
  echo
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), one thread."
  echo "Command: \`bench/run-deflate.sh\` (\`gpz-bench --deflate -T 1 -r 1\`)."
  echo
  "$b" --deflate -T 1 -r 1 "$d"/silesia/* "$d"/debtext100m
} > "$out"
echo "wrote $out"
