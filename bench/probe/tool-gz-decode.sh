#!/bin/sh
# tool-gz-decode.sh - the tool file to file on the GPU machine (issue 11): 2 GB of text written as
# gzip -6 by the GPU backend, decoded by --gpu and --cpu into /dev/shm, beside cat. From the
# repository root there, with .devdata carried (pack.tar.xz holding build-gpu/gpz, run/ the data).
# Not yet run (twenty-seventh session: the device budget ran out first).
set -u
root=$(pwd)
xz -dc .devdata/pack.tar.xz | tar xf - build-gpu/gpz
nvidia-smi --query-gpu=name --format=csv,noheader
xz -dc .devdata/run/debtext100m.xz > /dev/shm/t100
for i in $(seq 20); do cat /dev/shm/t100; done > /dev/shm/t2g; rm /dev/shm/t100
G=build-gpu/gpz
$G --gpu --format=gzip -6 -c /dev/shm/t2g > /dev/shm/t2g.gz; ls -l /dev/shm/t2g /dev/shm/t2g.gz | awk '{print $5}'
for r in 1 2; do
  for m in gpu cpu; do
    rm -f /dev/shm/o; s=$(date +%s%N); $G --$m -d -c /dev/shm/t2g.gz > /dev/shm/o; e=$(date +%s%N)
    echo "$m -d run $r: $(( (e - s) / 1000000 )) ms"; done
  rm -f /dev/shm/o; s=$(date +%s%N); cat /dev/shm/t2g > /dev/shm/o; e=$(date +%s%N); echo "cat run $r: $(( (e - s) / 1000000 )) ms"
done
$G --gpu -d -c /dev/shm/t2g.gz | cmp - /dev/shm/t2g && echo "same bytes"
gzip -dc /dev/shm/t2g.gz | cmp - /dev/shm/t2g && echo "gzip reads it"
