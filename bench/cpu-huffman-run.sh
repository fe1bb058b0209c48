#!/bin/sh
# CPU Huffman-only coding of text, an old build against a new one on the same host (the
# twenty-first session's decoder rounds and two-chunk encoder; bench/results/2026-11-27-h100-cpu-
# decode-rounds.md). On the GPU machine with corpora/data unpacked (sh bench/gpu-run.sh data):
#   OLD=dir NEW=dir sh bench/cpu-huffman-run.sh
# where each dir holds a gpz and a gpz-host-bench. Library calls on 1 GiB in memory (1 and 16
# threads, two rounds: one-thread rates on these hosts move a lot within a call), then the tool
# file to file in /dev/shm on 1 and 4 GB: --cpu, --gpu and the automatic backend, every output
# compared with the others and every decode with its input.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
D=$root/corpora/data
W=/dev/shm/gpz-cpu-huffman
: "${OLD:?OLD=dir with the old gpz and gpz-host-bench}" "${NEW:?NEW=dir with the new ones}"
mkdir -p "$W"
secs() { s=$(date +%s.%N); sh -c "$1"; e=$(date +%s.%N); awk "BEGIN { printf \"%.2f\", $e - $s }"; }
echo "## gpz-host-bench --cpu -s 1 -r 3 -b 1 debtext100m: compress / decompress"
for round in 1 2; do
  for t in 1 16; do
    for v in old new; do
      dir=$OLD; [ $v = new ] && dir=$NEW
      echo "$v T$t: $("$dir/gpz-host-bench" --cpu -T $t -s 1 -r 3 -b 1 "$D/debtext100m" 2>&1 |
        tail -1 | cut -d'|' -f9-10)"
    done
  done
done
echo "## the tool, --huff -b 1, seconds: compress --cpu / --gpu / default, old --cpu; decompress"
for size in 1000000000 4000000000; do
  rm -f "$W/in" && python3 "$root/bench/tile.py" "$D/debtext100m" "$W/in" $size > /dev/null
  for round in 1 2; do
    rm -f "$W/c" "$W/g" "$W/a" "$W/o" "$W/dc" "$W/dg" "$W/da"
    c=$(secs "$NEW/gpz --cpu -q -f --huff -b 1 -o $W/c $W/in")
    g=$(secs "$NEW/gpz --gpu -q -f --huff -b 1 -o $W/g $W/in")
    a=$(secs "$NEW/gpz -q -f --huff -b 1 -o $W/a $W/in")
    o=$(secs "$OLD/gpz --cpu -q -f --huff -b 1 -o $W/o $W/in")
    cmp -s "$W/c" "$W/g" && cmp -s "$W/c" "$W/a" && cmp -s "$W/c" "$W/o" || echo "OUTPUTS DIFFER"
    dc=$(secs "$NEW/gpz --cpu -q -f -d -o $W/dc $W/c")
    dg=$(secs "$NEW/gpz --gpu -q -f -d -o $W/dg $W/c")
    da=$(secs "$NEW/gpz -q -f -d -o $W/da $W/c")
    cmp -s "$W/dc" "$W/in" && cmp -s "$W/dg" "$W/in" && cmp -s "$W/da" "$W/in" ||
      echo "DECODES DIFFER"
    echo "$size: compress $c / $g / $a, old --cpu $o; decompress $dc / $dg / $da"
  done
done
rm -rf "$W"
