#!/bin/sh
# On the GPU machine (16 cores), after `sh bench/gpu-run.sh build`: the CPU backend, 1 thread
# against 16, through the tool (file to /dev/null, same bytes checked) and through the library's
# host-buffer calls (gpz-host-bench: no file I/O) at several depths. Issue 10's goal: 16 threads
# >= 12x one thread for gzip -6 and for Huffman-only compression.
set -u
B=build-gpu; W=/dev/shm/gpz-cpu; mkdir -p $W
python3 bench/tile.py corpora/data/debtext100m $W/t1g 1000000000
python3 bench/tile.py corpora/data/nyx/baryon_density.dat.b16 $W/n1g 1073741824
for job in "t1g --format=gzip -6" "t1g --huff -b 1" "n1g --huff -b 2" "t1g -1"; do
  set -- $job; f=$1; shift
  for T in 1 16; do
    s=$(date +%s.%N); $B/gpz --cpu -T $T -q -c "$@" $W/$f > $W/o.$T; e=$(date +%s.%N)
    echo "tool cpu -T $T $* $f: $(awk "BEGIN{printf \"%.2f s %.3f GB/s\", $e-$s, $(stat -c %s $W/$f)/($e-$s)/1e9}")"
  done
  cmp -s $W/o.1 $W/o.16 && echo "  same bytes at 1 and 16 threads" || echo "  BYTES DIFFER"
done
"$B/gpz" -q -k -f -1 -o $W/l.gpz $W/t1g
for T in 1 16; do
  s=$(date +%s.%N); $B/gpz --cpu -T $T -q -t $W/l.gpz; e=$(date +%s.%N)
  echo "tool cpu -T $T -t of the -1 .gpz (LZ decode): $(awk "BEGIN{printf \"%.2f s %.3f GB/s\", $e-$s, 1e9/($e-$s)/1e9}")"
done
for f in "t1g -b 1" "n1g -b 2"; do
  set -- $f
  $B/gpz-host-bench --cpu -s 1 -r 3 -T 1 -d 1 $2 $3 $W/$1
  for d in 2 4 8; do $B/gpz-host-bench --cpu -s 1 -r 3 -T 16 -d $d $2 $3 $W/$1; done
done
rm -rf $W
