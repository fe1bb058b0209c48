#!/bin/sh
# On the GPU machine, after bench/warm-run.sh (its inputs in /dev/shm/gpz-warm): where the tool's
# fixed costs are. For each job: the process's start to the output's appearance under its final
# name (the tool renames or links its finished temporary file), and from there to the process's
# exit (freeing the context: pinned buffers, device memory, the CUDA context). Also the tool's
# start alone (gpz -V, no CUDA) and a 1 MiB job on the GPU, all fixed cost.
# Usage: sh bench/probe/tool-timeline.sh [GPZ]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
G=${1:-$root/build-gpu/gpz}
W=/dev/shm/gpz-warm
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
head -c 1048576 "$W/text" > "$W/t1m"
timeline() { # NAME OUT ARGS...: start -> OUT visible -> exit
  name=$1 o=$2; shift 2
  rm -f "$o"
  s=$(date +%s.%N)
  "$G" "$@" &
  pid=$!
  while [ ! -e "$o" ] && kill -0 "$pid" 2>/dev/null; do :; done
  v=$(date +%s.%N)
  wait "$pid"; rc=$?
  e=$(date +%s.%N)
  echo "| $name | $(calc "$v - $s") | $(calc "$e - $v") | $(calc "$e - $s") | $rc |"
}
echo "| job | start to output | output to exit | total | rc |"
echo "|---|---:|---:|---:|---:|"
for i in 1 2 3; do
  s=$(date +%s.%N); "$G" -V > /dev/null; e=$(date +%s.%N)
  echo "| gpz -V | | | $(calc "$e - $s") | |"
done
for be in --gpu ""; do
  for i in 1 2; do
    timeline "1 MiB gzip -1 ${be:-default}" "$W/o1.gz" $be -q -k -f --format=gzip -1 -o "$W/o1.gz" "$W/t1m"
    timeline "4 GB gzip -1 ${be:-default}" "$W/o.gz" $be -q -k -f --format=gzip -1 -o "$W/o.gz" "$W/text"
    timeline "4 GB .gpz -1 ${be:-default}" "$W/o.gpz" $be -q -k -f -1 -o "$W/o.gpz" "$W/text"
    timeline "4 GiB nyx --huff -b 2 ${be:-default}" "$W/n.gpz" $be -q -k -f --huff -b 2 -o "$W/n.gpz" "$W/nyx"
    timeline "4 GiB nyx -d ${be:-default}" "$W/n.out" $be -q -d -k -f -o "$W/n.out" "$W/n.gpz"
  done
done
cmp -s "$W/n.out" "$W/nyx" || echo "NYX ROUND TRIP DIFFERS"
rm -f "$W/o1.gz" "$W/o.gz" "$W/o.gpz" "$W/n.gpz" "$W/n.out"
