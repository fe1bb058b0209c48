#!/bin/sh
# On the GPU machine after `sh bench/gpu-run.sh build`: where the tool's file-to-file time goes
# (issue 10). Writing patterns (write_probe), decode without output, the fixed cost of a run,
# and CPU thread scaling with a profile where perf is installed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
G=$root/build-gpu/gpz
D=$root/corpora/data
W=/dev/shm/gpz-diag
mkdir -p "$W"
cc -O2 -pthread -o /tmp/write_probe "$root/bench/probe/write_probe.c" || exit 1
for t in 6 16; do /tmp/write_probe /dev/shm 4 $t | grep -E "^(write|falloc|frames)"; done
python3 "$root/bench/tile.py" "$D/nyx/baryon_density.dat.b16" "$W/nyx" 4294967296
python3 "$root/bench/tile.py" "$D/debtext100m" "$W/text" 1000000000
head -c 1048576 "$W/text" > "$W/t1m"
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
t() { s=$(date +%s.%N); sh -c "$2"; e=$(date +%s.%N); echo "$(calc "$e - $s") s  $1"; }
"$G" -q -k -f --huff -b 2 -o "$W/n.gpz" "$W/nyx"
t "nyx -t (decode, no output), default" "'$G' -q -t '$W/n.gpz'"
t "nyx -t, --gpu" "'$G' --gpu -q -t '$W/n.gpz'"
t "nyx -t, --cpu" "'$G' --cpu -q -t '$W/n.gpz'"
t "nyx -dc > /dev/null, default" "'$G' -q -dc '$W/n.gpz' >/dev/null"
t "nyx -d -o file, default" "'$G' -q -d -k -f -o '$W/n.out' '$W/n.gpz'"
t "nyx --huff -b 2 -c > /dev/null, default" "'$G' -q -c --huff -b 2 '$W/nyx' >/dev/null"
for be in "" --gpu --cpu; do
  t "1 MiB --huff -c, ${be:-default}" "'$G' $be -q -c --huff '$W/t1m' >/dev/null"
  t "1 MiB -6 -c, ${be:-default}" "'$G' $be -q -c -6 '$W/t1m' >/dev/null"
done
"$G" -q -k -f -1 -o "$W/l.gpz" "$W/text"
for n in 1 16; do
  t "text 1 GB -1 .gpz -t, --cpu -T $n" "'$G' --cpu -T $n -q -t '$W/l.gpz'"
  t "text 1 GB --huff -b 1 -c, --cpu -T $n" "'$G' --cpu -T $n -q -c --huff '$W/text' >/dev/null"
  t "text 1 GB --format=gzip -6 -c, --cpu -T $n" "'$G' --cpu -T $n -q -c --format=gzip -6 '$W/text' >/dev/null"
done
if command -v perf >/dev/null 2>&1; then
  for job in "-q -t $W/l.gpz" "-q -c --huff $W/text"; do
    echo "== perf: gpz --cpu -T 16 $job"
    perf record -q -g -o "$W/perf.data" "$G" --cpu -T 16 $job >/dev/null 2>"$W/perf.err"
    perf report -i "$W/perf.data" --stdio --no-children --sort symbol 2>/dev/null | grep -E "^ +[0-9]" | head -25
  done
else
  echo "perf absent"
fi
rm -rf "$W"
