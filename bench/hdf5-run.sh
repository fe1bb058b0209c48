#!/bin/sh
# On the GPU machine, after bench/gpu-run.sh has built build-gpu (with the HDF5 plugin) and
# unpacked Nyx-Quant: the HDF5 filter's write throughput, GPU vs CPU backend vs HDF5's deflate,
# on a GIB GiB (default 4) uint16 dataset in /dev/shm, and the Python package's CuPy path
# (bench/hdf5_bench.py). Usage: sh bench/hdf5-run.sh [GIB]   Table to $OUT/hdf5.md.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpz-out}
B=$root/build-gpu
mkdir -p "$out" /dev/shm/gpz-h5
codes=$(ls "$root"/corpora/data/nyx/*.b16 "$root"/corpora/data/nyx/*.dat 2>/dev/null | head -1)
[ -f "$B/hdf5-plugin/libgpz_h5filter.so" ] || { echo "no HDF5 plugin in $B"; exit 1; }
python3 -c "import h5py; print('h5py', h5py.__version__, 'HDF5', h5py.version.hdf5_version)" | tee "$out/hdf5.md"
echo "codes: $codes" | tee -a "$out/hdf5.md"
GPZ_LIBRARY=$B/libgpz.so PYTHONPATH=$root/python timeout 500 python3 "$root/bench/hdf5_bench.py" \
  "$B/hdf5-plugin" "$codes" /dev/shm/gpz-h5 "${1:-4}" 2>&1 | tee -a "$out/hdf5.md"
rm -rf /dev/shm/gpz-h5
