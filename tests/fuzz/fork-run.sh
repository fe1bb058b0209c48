#!/bin/sh
# fork-run.sh FUZZER TARGET WORK RUNS JOBS [SECONDS]: one long libFuzzer campaign of a target in
# fork mode: JOBS worker processes share one corpus (WORK/corpus-TARGET, which it starts from
# together with the seeds in WORK/seeds), until RUNS executions in all or SECONDS have passed.
# libFuzzer's log, whose last "#N" line counts every worker's executions and its
# oom/timeout/crash findings, goes to WORK/TARGET-fork.log. For the recorded runs of README.md
# on a machine with many cores; same limits as run.sh.
set -eu
f=$1 t=$2 w=$3 runs=$4 jobs=$5 secs=${6:-0}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$w/corpus-$t"
seeds=$w/seeds/$t
[ -d "$seeds" ] || seeds=$w/seeds/stream
quiet=0
[ "$t" = tool ] && quiet=3
exec "$f" -fork="$jobs" -runs="$runs" -max_total_time="$secs" -max_len=65536 -timeout=20 \
  -rss_limit_mb=3072 -dict="$here/gpz.dict" -close_fd_mask=$quiet -print_final_stats=1 \
  "$w/corpus-$t" "$seeds" > "$w/$t-fork.log" 2>&1
