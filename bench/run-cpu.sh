#!/bin/sh
# Record a CPU benchmark run over the prepared corpora into bench/results/.
# Usage: bench/run-cpu.sh [build-dir]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-"$root/build"}/gpz-bench
d="$root/corpora/data"
s="${GPZ_CORPORA:-$root/../shared/corpora}"
out="$root/bench/results/$(date +%Y-%m-%d)-cpu-huffman.md"
{
  echo "# CPU Huffman-only benchmark, $(date +%Y-%m-%d)"
  echo
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores."
  echo "Command: \`bench/run-cpu.sh\` (gpz-bench, median of 5 runs; GB/s of input bytes)."
  echo
  echo "## Nyx-Quant (uint16), 1 and 2 threads"
  echo
  "$b" -b 2 -T 1 -r 5 "$d"/nyx/*.b16
  echo
  "$b" -b 2 -T 2 -r 5 "$d"/nyx/*.b16
  echo
  echo "## Quantization codes of the scientific fields (uint16), 1 thread"
  echo
  "$b" -b 2 -T 1 -r 3 "$d"/quant/*.u16
  echo
  echo "## Text and binaries as bytes, 1 thread"
  echo
  "$b" -b 1 -T 1 -r 3 "$d"/silesia/* "$d"/dna/* "$d"/debtext100m \
     "$s"/canterbury/* "$s"/calgary/* "$s"/canterbury-large/* "$s"/canterbury-misc/* \
     "$s"/canterbury-artificial/* "$s"/snappy-testdata/*
} > "$out"
echo "wrote $out"
