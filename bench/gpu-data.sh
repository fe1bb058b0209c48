#!/bin/sh
# Pack the data a GPU run needs into .devdata/ (git-ignored; at most ~60 MB so that it travels to
# the device machine with the working tree): Nyx-Quant, some quantization codes, debtext100m,
# Silesia and the small corpora, all compressed. bench/gpu-run.sh unpacks them there.
# `sh bench/gpu-data.sh lzsym`: Nyx-Quant and every quantization file alone (23 MB), so that
# .nvc (34 MB) travels beside it for bench/lzsym-gpu.sh.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
s=${GPZ_CORPORA:-$root/../shared/corpora}
d=$root/corpora/data
o=$root/.devdata/run
rm -rf "$o"
mkdir -p "$o"
cp "$s/nyx/baryon_density.dat.b16.tgz" "$o/"
if [ "${1:-}" = lzsym ]; then
  (cd "$d/quant" && tar cf - ./*.u16 | xz -T2 -6 > "$o/quant.tar.xz")
  du -sh "$o"
  exit 0
fi
for f in dickens.bz2 mr.bz2 ooffice.bz2 x-ray.bz2 xml.bz2 samba.xz reymont.bz2; do
  cp "$s/silesia/$f" "$o/"
done
(cd "$d/quant" && tar cf - TREFHT-8members.eb1e-3.u16 TREFHT-8members.eb1e-4.u16 \
   cesm-ccsm-TREFHT-B06.57.eb1e-2.u16 cesm-ccsm-TREFHT-B06.57.eb1e-3.u16 \
   cesm-ccsm-TREFHT-B06.57.eb1e-4.u16 | xz -T2 -6 > "$o/quant.tar.xz")
[ -f "$o/debtext100m.xz" ] || xz -T2 -3 -c "$d/debtext100m" > "$o/debtext100m.xz"
(cd "$s" && tar cf - canterbury calgary canterbury-artificial canterbury-misc | xz -T2 -6 > "$o/small.tar.xz")
du -sh "$o"
