#!/bin/sh
# On the GPU machine's host (16 cores): issue 11's CPU goal, gzip written by gpz decoded on 16
# threads against one, in interleaved rounds (one thread's time moves by up to 25% between rounds
# on these hosts: take the median of the rounds' ratios). 1 GB of debtext100m at levels 6 (cuts)
# and 1 (pieces alone), coded on the GPU when there is one, in /dev/shm; `gpz --cpu -T T -t`,
# wall/user/system seconds; every level's output compared with the input once.
# Usage: sh bench/cpu-inflate-scale.sh [ROUNDS] [GPZ]   (after corpora/data holds debtext100m)
set -u
. "$(dirname "$0")/file-lib.sh"
R=${1:-5}
X=${2:-$G}
W=/dev/shm/gpz-iscale
mkdir -p "$W"
python3 "$root/bench/tile.py" "$D/debtext100m" "$W/t1g" 1000000000
for l in 6 1; do
	"$X" -q -c --format=gzip -$l "$W/t1g" > "$W/c$l.gz"
	"$X" --cpu -T 16 -d -c "$W/c$l.gz" | cmp -s - "$W/t1g" || echo "L$l: OUTPUT DIFFERS"
done
tm3() { /usr/bin/time -f "%e/%U/%S" "$@" 2>&1 >/dev/null | tail -1; }
echo "cpus: $(nproc)"
for r in $(seq "$R"); do
	for l in 6 1; do
		echo "L$l round $r: -T1 $(tm3 "$X" --cpu -T 1 -t "$W/c$l.gz")" \
		     "-T16 $(tm3 "$X" --cpu -T 16 -t "$W/c$l.gz") $(tm3 "$X" --cpu -T 16 -t "$W/c$l.gz")"
	done
done
rm -rf "$W"
