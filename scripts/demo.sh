#!/bin/sh
# Set up everything and run the main job: compress and decompress samples of the corpora with
# the gpz tool next to gzip and zstd on the same files, and print one table: mode, backend,
# ratio (original / compressed), compress and decompress MB/s (median of 3 runs, tool start
# included), round trip checked. Without a usable GPU it builds the CPU backend alone (no CUDA
# compile: about a minute on 2 cores); with one, the CUDA build (several minutes) and GPU rows.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
say() { printf 'demo: %s\n' "$*"; }
start=$(date +%s)
sh "$root/scripts/deps.sh" --core
say "preparing the corpora (corpora/prepare.sh; checked, then skipped once done)"
sh "$root/corpora/prepare.sh" >/dev/null
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  build="$root/build" gpu=1
  say "a GPU is here: building with CUDA into build/ (several minutes on few cores)"
  sh "$root/scripts/build.sh" "$build" >/dev/null
else
  build="$root/build-cpu" gpu=0
  say "no usable GPU: building the CPU backend alone into build-cpu/ (no CUDA compile)"
  sh "$root/scripts/build.sh" "$build" -DGPZ_CUDA=OFF >/dev/null
fi
say "built in $(($(date +%s) - start)) s; measuring"
gpz="$build/gpz"
data="$root/corpora/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median3 CMD...: the median wall time of three runs of CMD (output to $tmp/o), in seconds
median3() {
  for k in 1 2 3; do
    s=$(date +%s.%N); "$@" >"$tmp/o"; e=$(date +%s.%N)
    awk "BEGIN { print $e - $s }"
  done | sort -n | sed -n 2p
}

# row FILE NAME MODE BACKEND COMPRESS... -- DECOMPRESS...: time both (input on stdin), check
row() {
  f=$1 name=$2 mode=$3 backend=$4
  shift 4
  c="" d=""
  while [ "$1" != "--" ]; do c="$c '$1'"; shift; done
  shift
  for a in "$@"; do d="$d '$a'"; done
  n=$(wc -c <"$f")
  tc=$(median3 sh -c "$c <'$f'")
  cp "$tmp/o" "$tmp/packed"
  td=$(median3 sh -c "$d <'$tmp/packed'")
  cmp -s "$tmp/o" "$f" || { echo "demo: $name $mode: round trip FAILED"; exit 1; }
  awk -v name="$name" -v mode="$mode" -v be="$backend" -v n="$n" -v c="$(wc -c <"$tmp/packed")" \
      -v tc="$tc" -v td="$td" 'BEGIN {
        printf "| %-28s | %-26s | %-7s | %9.2f | %9.1f | %9.1f |\n", name, mode, be, n / c,
               n / tc / 1e6, n / td / 1e6 }'
}

printf '\n| %-28s | %-26s | %-7s | %9s | %9s | %9s |\n' file mode backend ratio \
  "comp MB/s" "dec MB/s"
echo "|------------------------------|----------------------------|---------|-----------|-----------|-----------|"
backends="cpu"
[ "$gpu" = 1 ] && backends="cpu gpu"
sample() { # FILE NAME WIDTH: gpz's modes for this kind of data, then gzip and zstd
  f=$1 name=$2 w=$3
  [ -f "$f" ] || { echo "| $name: missing (corpora/prepare.sh) |"; return 0; }
  for be in $backends; do
    if [ "$w" = 1 ]; then
      row "$f" "$name" "gpz LZ -6 (.gpz default)" "$be" "$gpz" --"$be" -c -- "$gpz" --"$be" -dc
      row "$f" "$name" "gpz --format=gzip -6" "$be" "$gpz" --"$be" -c --format=gzip -- \
        "$gpz" --"$be" -dc
    else
      row "$f" "$name" "gpz --huff -b $w" "$be" "$gpz" --"$be" -c --huff -b "$w" -- \
        "$gpz" --"$be" -dc
      row "$f" "$name" "gpz --lz-auto -b $w" "$be" "$gpz" --"$be" -c --lz-auto -b "$w" -- \
        "$gpz" --"$be" -dc
    fi
  done
  row "$f" "$name" "gzip -6" "-" gzip -6 -c -- gzip -dc
  if command -v zstd >/dev/null 2>&1; then
    row "$f" "$name" "zstd -3" "-" zstd -q -3 -c -- zstd -q -dc
    [ "$w" = 1 ] || row "$f" "$name" "zstd -19" "-" zstd -q -19 -c -- zstd -q -dc
  fi
}
sample "$data/quant/TREFHT-8members.eb1e-3.u16" "TREFHT eb1e-3 (u16 codes)" 2
sample "$data/silesia/dickens" "dickens (English text)" 1
sample "$data/silesia/xml" "xml (Silesia)" 1
echo
say "ratio = original / compressed bytes; MB/s of original bytes, median of 3 runs, the"
say "tool's start-up and a file through a pipe included; every round trip checked."
say "done in $(($(date +%s) - start)) s. More: bench/ (GPU benchmarks, nvCOMP side by side)."
