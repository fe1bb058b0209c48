#!/bin/sh
# Set up everything and run the main job: compress and decompress samples of the corpora with
# the gpz tool (Huffman-only .gpz, and gzip output checked by the system's gzip), printing ratio
# and throughput.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/deps.sh"
sh "$root/corpora/prepare.sh"
sh "$root/scripts/build.sh" "$root/build"
gpz="$root/build/gpz"
data="$root/corpora/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run FILE SYMBOL_BYTES
  [ -f "$1" ] || { echo "demo: $1 missing (skipped)"; return 0; }
  cp "$1" "$tmp/sample"
  bytes=$(wc -c < "$tmp/sample")
  t0=$(date +%s.%N); "$gpz" -q -b "$2" -k "$tmp/sample"; t1=$(date +%s.%N)
  "$gpz" -q -d -c "$tmp/sample.gpz" > "$tmp/back"; t2=$(date +%s.%N)
  cmp "$tmp/sample" "$tmp/back"
  cbytes=$(wc -c < "$tmp/sample.gpz")
  awk -v n="$(basename "$1")" -v w="$2" -v b="$bytes" -v c="$cbytes" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
    'BEGIN { printf "%-28s %d-byte symbols %11d -> %10d bytes  ratio %.4f  %.3f bits/symbol  compress %7.1f MB/s  decompress %7.1f MB/s  (round trip OK)\n",
             n, w, b, c, c / b, 8 * c / (b / w), b / (t1 - t0) / 1e6, b / (t2 - t1) / 1e6 }'
  rm -f "$tmp/sample.gpz"
}

run_gz() { # FILE LEVEL: gzip output, checked with the system's gzip
  [ -f "$1" ] || { echo "demo: $1 missing (skipped)"; return 0; }
  bytes=$(wc -c < "$1")
  t0=$(date +%s.%N); "$gpz" -q -c --format=gzip -"$2" < "$1" > "$tmp/s.gz"; t1=$(date +%s.%N)
  gzip -dc "$tmp/s.gz" | cmp - "$1"
  gz=$(gzip -"$2" -c < "$1" | wc -c)
  awk -v n="$(basename "$1")" -v l="$2" -v b="$bytes" -v c="$(wc -c < "$tmp/s.gz")" -v g="$gz" -v t0="$t0" -v t1="$t1" \
    'BEGIN { printf "%-28s gzip -%d  %11d -> %10d bytes (gzip -%d: %d)  compress %7.1f MB/s  (gzip -d OK)\n",
             n, l, b, c, l, g, b / (t1 - t0) / 1e6 }'
}

run "$data/nyx/baryon_density.dat.b16" 2
run "$data/quant/TREFHT-8members.eb1e-4.u16" 2
run "$data/silesia/dickens" 1
run "$data/silesia/x-ray" 1
run_gz "$data/silesia/dickens" 6
run_gz "$data/silesia/xml" 9
