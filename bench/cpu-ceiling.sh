#!/bin/sh
# On the GPU machine's host, after build-gpu/ and corpora/data/: how far its cores go. The same
# one-thread job alone, then 16 copies at once (Huffman-only compression of host buffers; the
# tool's gzip -6 and inflate of 100 MB), beside one process with 16 threads: the ceiling that
# issue 10's "16 threads >= 12x one" meets on this host
# (bench/results/2026-11-26-h100-backend-choice.md). Usage: sh bench/cpu-ceiling.sh
set -u
. "$(dirname "$0")/file-lib.sh"
H=$root/build-gpu/gpz-host-bench
W=/dev/shm/gpz-ceiling
mkdir -p "$W"
lscpu | grep -E "Model name|Socket|Core|Thread|NUMA node\(|L3"
for f in "debtext100m -b 1" "nyx/baryon_density.dat.b16 -b 2"; do
  set -- $f
  echo "$1 alone: $("$H" --cpu -T 1 -s 0.25 -r 5 $2 $3 "$D/$1" 2>&1 | tail -1 | cut -d'|' -f9)"
  for i in $(seq 16); do "$H" --cpu -T 1 -s 0.25 -r 5 $2 $3 "$D/$1" > "$W/p$i.txt" 2>&1 & done
  wait
  echo "$1 16 at once: $(for i in $(seq 16); do tail -1 "$W/p$i.txt" | cut -d'|' -f9; done | tr '\n' ';')"
  echo "$1 one process, -T 16: $("$H" --cpu -T 16 -s 0.25 -r 5 $2 $3 "$D/$1" 2>&1 | tail -1 | cut -d'|' -f9)"
done
python3 "$root/bench/tile.py" "$D/debtext100m" "$W/t100" 100000000
echo "gzip -6 of 100 MB, -T 1 alone: $(t "'$G' --cpu -T 1 -q -f --format=gzip -6 -o '$W/g0.gz' '$W/t100'") s"
s=$(date +%s.%N)
for i in $(seq 16); do "$G" --cpu -T 1 -q -f --format=gzip -6 -o "$W/g$i.gz" "$W/t100" & done
wait
echo "16 at once: $(calc "$(date +%s.%N) - $s") s"
echo "inflate (-t) of it, -T 1 alone: $(t "'$G' --cpu -T 1 -t '$W/g0.gz'") s"
s=$(date +%s.%N)
for i in $(seq 16); do "$G" --cpu -T 1 -t "$W/g$i.gz" & done
wait
echo "16 at once: $(calc "$(date +%s.%N) - $s") s"
rm -rf "$W"
