#!/bin/sh
# run.sh FUZZER TARGET GPZ WORK [RUNS]: make the seeds (seeds.sh), then run one libFuzzer target
# for RUNS executions (default 20000: the short fixed budget CI gives each target) over them,
# new inputs kept in WORK/corpus-TARGET. A crash, leak, timeout or OOM fails the run.
set -eu
f=$1 t=$2 g=$3 w=$4 runs=${5:-20000}
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/seeds.sh" "$g" "$w/seeds"
mkdir -p "$w/corpus-$t"
seeds=$w/seeds/$t
[ -d "$seeds" ] || seeds=$w/seeds/stream
quiet=0
[ "$t" = tool ] && quiet=3 # the tool prints on every input; libFuzzer's reports still come
exec "$f" -runs="$runs" -max_len=65536 -timeout=20 -rss_limit_mb=3072 -dict="$here/gpz.dict" \
  -close_fd_mask=$quiet -print_final_stats=1 "$w/corpus-$t" "$seeds"
