"""ncu_kernel_times.py - the GPU time of each kernel in ncu's CSV output, summed over its launches,
longest first. Usage: ncu --metrics gpu__time_duration.sum --csv PROGRAM ... > FILE;
python3 bench/probe/ncu_kernel_times.py FILE   (bench/matcher-run.sh prof uses it)."""
import csv
import sys

rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]
ki, vi = h.index("Kernel Name"), h.index("Metric Value")
t, c = {}, {}
for r in rows[1:]:
    k = r[ki].split("(")[0].replace("<unnamed>::", "")
    t[k] = t.get(k, 0) + float(r[vi].replace(",", "")) / 1e6
    c[k] = c.get(k, 0) + 1
for k in sorted(t, key=lambda k: -t[k]):
    print(f"{k:32s} {c[k]:3d} launches {t[k]:9.2f} ms")
