#!/bin/sh
# On the GPU machine, from the repository root, after a GPU build in build-gpu (or $GPZ_BUILD):
# the fuzz seeds and the corpora of a long fuzzing run (directories named corpus-decompress,
# corpus-inflate, corpus-stream, carried in CORPORA_DIR) through fuzz_replay, CPU against GPU,
# first plainly, then under compute-sanitizer memcheck. Logs to $OUT.
# Usage: sh tests/fuzz/gpu-replay.sh [CORPORA_DIR]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${GPZ_BUILD:-$root/build-gpu}
out=${OUT:-/tmp/gpz-out}
c=${1:-}
mkdir -p "$out"
set --
for t in decompress inflate stream; do
  [ -n "$c" ] && [ -d "$c/corpus-$t" ] && set -- "$@" "$c/corpus-$t"
done
sh "$root/tests/fuzz/replay.sh" "$B/tests/fuzz_replay" "$B/gpz" /tmp/gpz-replay "$@" \
  > "$out/replay.log" 2>&1
echo "replay rc=$?"; tail -2 "$out/replay.log"
# the same inputs again, each GPU decoder's memory accesses checked
R=$B/tests/fuzz_replay
dec=/tmp/gpz-replay/seeds/decompress inf=/tmp/gpz-replay/seeds/inflate
for d in "$@"; do case $d in *inflate*) inf="$inf $d" ;; *) dec="$dec $d" ;; esac; done
for m in decompress inflate; do
  if [ $m = decompress ]; then dirs=$dec; else dirs=$inf; fi
  # shellcheck disable=SC2086
  timeout 500 compute-sanitizer --tool memcheck --error-exitcode 9 "$R" $m $dirs \
    > "$out/memcheck-$m.log" 2>&1
  echo "memcheck $m rc=$?"; tail -2 "$out/memcheck-$m.log"
done
