#!/bin/sh
# The lanes layout on the GPU machine (bench/results/2026-11-26-h100-huffman-lanes.md):
#   sh bench/lanes-run.sh DATA_DIR [BUILD]
# DATA_DIR holds debtext100m, nyx/baryon_density.dat.b16, quant/TREFHT-8members.eb1e-3.u16
# (corpora/prepare.sh --debtext makes them); BUILD a GPU build (default build-gpu). Runs the
# GPU checks of the layout against the CPU, the stage bench (the whole gpz_gpu_encode_lanes /
# gpz_gpu_decode_lanes calls beside the one-bitstream coder), the device pipeline in both
# layouts (gpz-bench --gpu), and nvCOMP's ANS on the same bytes when .nvc is there
# (../shared/tools/nvcomp-bench/fetch.sh).
set -u
D=${1:?data directory}
B=${2:-build-gpu}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
GPZ_DATA=$D "$B/tests/test_gpu_lanes" | tail -1
for f in "nyx/baryon_density.dat.b16 2" "quant/TREFHT-8members.eb1e-3.u16 2" "debtext100m 1"; do
  set -- $f
  "$B/tests/test_gpu_lanes" bench "$D/$1" "$2" 14 16 18 | grep -E "^\||tiled"
done
for c in 14 16; do
  "$B/gpz-bench" --gpu -b 2 -c $c -r 5 "$D/nyx/baryon_density.dat.b16" \
    "$D/quant/TREFHT-8members.eb1e-3.u16"
  "$B/gpz-bench" --gpu -b 1 -c $c -r 5 "$D/debtext100m"
done
if [ -x .nvc/bench_nvcomp ] || sh .nvc/build.sh >/dev/null 2>&1; then
  for f in debtext100m nyx/baryon_density.dat.b16 quant/TREFHT-8members.eb1e-3.u16; do
    .nvc/bench_nvcomp "$D/$f" 65536 3 ans8 | grep -E "^\| ans|tiled"
  done
fi
