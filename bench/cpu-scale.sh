#!/bin/sh
# On the GPU machine (16 cores), after bench/gpu-run.sh: CPU backend, 1 thread against 16, same bytes.
B=build-gpu; W=/dev/shm/gpz-cpu; mkdir -p $W
python3 bench/tile.py corpora/data/debtext100m $W/t400 400000000
python3 bench/tile.py corpora/data/nyx/baryon_density.dat.b16 $W/n1g $((4 * $(stat -c %s corpora/data/nyx/baryon_density.dat.b16)))
for job in "t400 --format=gzip -6" "t400 --format=gzip -1" "t400 -6" "n1g --huff -b 2" "t400 --huff -b 1"; do
  set -- $job; f=$1; shift
  for T in 1 16; do
    s=$(date +%s.%N); $B/gpz --cpu -T $T -q -c "$@" $W/$f > $W/o.$T; e=$(date +%s.%N)
    echo "cpu -T $T $* $f: $(awk "BEGIN{printf \"%.2f s %.3f GB/s\", $e-$s, $(stat -c %s $W/$f)/($e-$s)/1e9}")"
  done
  cmp -s $W/o.1 $W/o.16 && echo "  same bytes at 1 and 16 threads" || echo "  BYTES DIFFER"
done
