#!/bin/sh
# On the GPU machine's host (16 cores): issue 10's CPU scaling goal, 16 threads against one, same
# bytes. Huffman-only compression of host buffers (gpz-host-bench --cpu, 1 GiB, median of 3) and
# gzip -6 through the tool (200 MB of debtext100m tiled, /dev/shm), each thread count's output
# compared with one thread's.
# Usage: sh bench/cpu-scale16.sh   (after corpora/data holds debtext100m and Nyx)
set -u
. "$(dirname "$0")/file-lib.sh"
B=$root/build-gpu
W=/dev/shm/gpz-scale
mkdir -p "$W"
python3 "$root/bench/tile.py" "$D/debtext100m" "$W/t200" 200000000
echo "cpus: $(nproc)"
for t in 1 16; do
  "$B/gpz-host-bench" --cpu -T $t -s 1 -r 3 -b 2 "$D/nyx/baryon_density.dat.b16" 2>&1 | tail -1
  "$B/gpz-host-bench" --cpu -T $t -s 1 -r 3 -b 1 "$D/debtext100m" 2>&1 | tail -1
done
echo "| gzip -6, 200 MB, --cpu | seconds | GB/s |"
echo "|---|---:|---:|"
for t in 1 2 4 8 16; do
  row "-T $t" 200000000 "'$G' --cpu -T $t -q -k -f --format=gzip -6 -o '$W/o$t.gz' '$W/t200'"
  cmp -s "$W/o$t.gz" "$W/o1.gz" || echo "| -T $t OUTPUT DIFFERS | | |"
done
for t in 1 16; do
  row "--huff -b 1 -T $t (tool)" 200000000 "'$G' --cpu -T $t -q -k -f --huff-only -b 1 -o '$W/h$t.gpz' '$W/t200'"
done
cmp -s "$W/h1.gpz" "$W/h16.gpz" || echo "| huff -T 16 OUTPUT DIFFERS | | |"
rm -f "$W"/o*.gz "$W"/h*.gpz
