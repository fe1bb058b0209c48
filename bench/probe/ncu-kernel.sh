#!/bin/sh
# ncu-kernel.sh - one launch of one kernel under ncu, read two ways: the headline metrics (time,
# issue slots busy, occupancy, DRAM, stall share) and the SASS page through ncu_sass_top.py
# (instructions by opcode, the hottest by stall samples, and with FLOOR the hot code in address
# order). The thirty-first session read the lanes and one-bitstream decoders with these same
# commands, inline in its device scripts (bench/NOTES.md); this script was written from them
# after that session's device time was spent; its first run (session 32, call 1, H100) read the
# one-bitstream decoder on Nyx-Quant as before (27% issue slots busy, 43.5% occupancy). On the GPU machine:
#   sh bench/probe/ncu-kernel.sh KERNEL [FLOOR] -- PROGRAM [ARG...]
# KERNEL is ncu's -k: a function name (exact) or regex:EXPR; FLOOR (default 0: no listing) the
# least executions an instruction needs to be listed. Reports go to $OUT (default /tmp/gpz-out).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/gpz-out}
kernel=$1
shift
floor=0
if [ "${1:-}" != "--" ]; then
	floor=$1
	shift
fi
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
rep=$out/ncu-kernel
ncu --set full -k "$kernel" -c 1 -f -o "$rep" "$@" > "$out/ncu-kernel.log" 2>&1 ||
	{ tail -5 "$out/ncu-kernel.log"; exit 1; }
ncu --import "$rep.ncu-rep" --page details --csv > "$out/ncu-details.csv" 2>/dev/null
python3 - "$out/ncu-details.csv" <<'PY'
import csv, sys
want = ("Duration", "Issue Slots Busy", "Executed Ipc Active", "No Eligible",
        "Warp Cycles Per Issued Instruction", "Achieved Occupancy", "Theoretical Occupancy",
        "Registers Per Thread", "Block Limit Registers", "Block Limit Shared Mem",
        "DRAM Throughput", "L2 Hit Rate", "Waves Per SM")
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
n, u, v = h.index("Metric Name"), h.index("Metric Unit"), h.index("Metric Value")
for r in rows[1:]:
    if len(r) > v and r[n] in want:
        print(f"{r[n]}: {r[v]} {r[u]}")
PY
ncu --import "$rep.ncu-rep" --page source --csv --print-source sass > "$out/ncu-sass.csv" 2>/dev/null
if [ "$floor" -gt 0 ]; then
	python3 "$here/ncu_sass_top.py" "$out/ncu-sass.csv" 25 "$floor"
else
	python3 "$here/ncu_sass_top.py" "$out/ncu-sass.csv" 25
fi
