#!/bin/sh
# hdf5_test.sh PLUGIN_DIR SCRATCH_DIR: run hdf5_test.py with a Python that has h5py (the system's
# python3-h5py may live beside another python3 on PATH); exit 77 (skipped) when none has it.
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c "import h5py" 2>/dev/null; then
    exec "$py" "$(dirname "$0")/hdf5_test.py" "$1" "$2"
  fi
done
echo "SKIP: no python3 with h5py (Debian: python3-h5py)"
exit 77
