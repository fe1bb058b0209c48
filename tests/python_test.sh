#!/bin/sh
# python_test.sh SRC_DIR LIBGPZ [SCRATCH]: the Python package's tests (tests/python, pytest)
# against the build tree's libgpz.so; with SCRATCH, instead `pip install .` (scikit-build-core,
# CPU-only build) into a fresh virtual environment and the same tests against what it installed.
# Exits 77 (skipped) without a python3 that has numpy and pytest, or (install) without PyPI.
set -u
src=$1 lib=$2 scratch=${3:-}
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy, pytest" 2>/dev/null; then
    py=$p; break
  fi
done
if [ -z "$py" ]; then
  echo "SKIP: no python3 with numpy and pytest (Debian: python3-numpy python3-pytest)"
  exit 77
fi
if [ -z "$scratch" ]; then
  cd "$src" && GPZ_LIBRARY=$lib PYTHONPATH=$src/python exec "$py" -m pytest -q tests/python
fi
rm -rf "$scratch" && mkdir -p "$scratch"
if ! "$py" -m pip download --no-deps -q -d "$scratch/probe" scikit-build-core >/dev/null 2>&1; then
  echo "SKIP: PyPI not reachable (pip install . fetches scikit-build-core)"
  exit 77
fi
"$py" -m venv --system-site-packages "$scratch/venv" || exit 1
"$scratch/venv/bin/python" -m pip install -q "$src" --config-settings=cmake.define.GPZ_CUDA=OFF \
  --config-settings=build-dir="$scratch/build" || exit 1
cd "$scratch" && env -u GPZ_LIBRARY "$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$src/tests/python"
