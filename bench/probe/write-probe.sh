#!/bin/sh
# On the GPU machine: ways of writing a new 4 GiB file (bench/probe/write_probe.c), in /dev/shm
# and on the disk the checkout lives on.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cc -O2 -pthread -o /tmp/write_probe "$root/bench/probe/write_probe.c" || exit 1
df -T /dev/shm "$root" | sed 's/^/# /'
nproc | sed 's/^/# cpus /'
uname -r | sed 's/^/# kernel /'
for f in enabled shmem_enabled; do
  echo "# $f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>/dev/null)"
done
grep ' /dev/shm ' /proc/mounts | sed 's/^/# /'
for t in 4 8 16; do /tmp/write_probe /dev/shm 4 $t; done
/tmp/write_probe "$root" 2 8
