"""ncu_sass_top.py - where a kernel's instructions and stalls go, from ncu's SASS source page:
instructions executed per warp-step class and the hottest instructions by stall samples.
Usage: ncu --set full -k KERNEL -c 1 -o REP PROGRAM ...;
ncu --import REP.ncu-rep --page source --csv --print-source sass > FILE.csv;
python3 bench/probe/ncu_sass_top.py FILE.csv [TOP]   (the lanes runs of bench/NOTES.md)."""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
hdr, body = None, []
for r in rows:
    if r and r[0] == "Kernel Name":
        print("kernel:", r[1])
    elif r and r[0] == "Address":
        hdr = r
    elif hdr and len(r) == len(hdr):
        body.append(r)
ie, isamp = hdr.index("Instructions Executed"), hdr.index("Warp Stall Sampling (All Samples)")
def num(x):
    try:
        return int(x.replace(",", ""))
    except ValueError:
        return 0
total = sum(num(r[ie]) for r in body)
samples = sum(num(r[isamp]) for r in body)
print(f"instructions executed {total:,}, stall samples {samples:,}")
ops = {}
for r in body:
    op = r[1].split()[0] if not r[1].strip().startswith("@") else r[1].split()[1]
    op = op.split(".")[0]
    ops[op] = ops.get(op, 0) + num(r[ie])
print("by opcode:", ", ".join(f"{k} {v / total:.1%}" for k, v in
                             sorted(ops.items(), key=lambda kv: -kv[1])[:14]))
print("hottest by stall samples (executed, samples, instruction):")
for r in sorted(body, key=lambda r: -num(r[isamp]))[:top]:
    print(f"  {num(r[ie]):>12,} {num(r[isamp]):>7,}  {r[1].strip()}")
if len(sys.argv) > 3:  # and the hot code in address order: instructions run at least this often
    floor = int(sys.argv[3])
    print(f"instructions executed at least {floor:,} times, in address order:")
    for r in body:
        if num(r[ie]) >= floor:
            print(f"  {num(r[ie]):>12,} {num(r[isamp]):>7,}  {r[1].strip()}")
