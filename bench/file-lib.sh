# file-lib.sh - sourced by the tool's file-to-file benchmarks (tool-run.sh, file-run.sh) on the
# GPU machine: paths, and the timing of one shell command as a table row.
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpz-out}
G=$root/build-gpu/gpz
D=$root/corpora/data
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
t() { s=$(date +%s.%N); sh -c "$1"; e=$(date +%s.%N); calc "$e - $s"; }
row() { # NAME BYTES CMD: seconds and GB/s of BYTES
  s=$(t "$3"); echo "| $1 | $s | $(calc "$2 / $s / 1e9") |"
}
check() { cmp -s "$1" "$2" || echo "| MISMATCH $1 $2 | | |"; }
