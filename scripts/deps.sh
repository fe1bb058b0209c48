#!/bin/sh
# Install what gpz needs to build and test (Debian/Ubuntu). Idempotent: installs only what is
# missing, and only when run as root (and GPZ_NO_INSTALL is not set, as on an offline machine);
# otherwise it names the missing packages. What the build needs is required; what only the
# optional parts need (the HDF5 plugin, the Python package, their tests) is installed when it can
# be, and without it those tests are skipped, each with a SKIP line saying why. --core: only what
# the build needs (the demo).
set -eu
need="" want=""
core=0
[ "${1:-}" = --core ] && core=1
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config" # the install test
[ -f /usr/include/xxhash.h ] || need="$need libxxhash-dev"
[ -f /usr/include/zlib.h ] || need="$need zlib1g-dev"
command -v bzip2 >/dev/null 2>&1 || need="$need bzip2"
command -v xz >/dev/null 2>&1 || need="$need xz-utils"
command -v libdeflate-gunzip >/dev/null 2>&1 || need="$need libdeflate-tools" # a third inflater for the tests
# the HDF5 filter plugin and its test (h5py, h5dump)
[ -f /usr/include/hdf5/serial/hdf5.h ] || [ -f /usr/include/hdf5.h ] || want="$want libhdf5-dev"
/usr/bin/python3 -c "import h5py" >/dev/null 2>&1 || want="$want python3-h5py"
command -v h5dump >/dev/null 2>&1 || want="$want hdf5-tools"
# the plugin for parallel HDF5 and its MPI test
[ -f /usr/include/hdf5/openmpi/hdf5.h ] || want="$want libhdf5-openmpi-dev"
command -v mpirun >/dev/null 2>&1 || want="$want openmpi-bin"
# the Python package's tests (numpy comes with h5py)
/usr/bin/python3 -c "import pytest" >/dev/null 2>&1 || want="$want python3-pytest"
/usr/bin/python3 -m venv --help >/dev/null 2>&1 || want="$want python3-venv"
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || want="$want python3-pip"
command -v clang >/dev/null 2>&1 || want="$want clang" # the fuzz targets (libFuzzer)
[ "$core" = 1 ] && want=""
[ -z "$need$want" ] && exit 0
if [ "$(id -u)" != 0 ] || [ -n "${GPZ_NO_INSTALL:-}" ]; then
  [ -n "$want" ] && echo "deps: optional packages missing (their tests are skipped):$want" >&2
  [ -z "$need" ] && exit 0
  echo "deps: missing$need; run: sudo apt-get install$need" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || [ -z "$need" ]
if [ -n "$need" ]; then
  echo "deps: installing$need"
  # shellcheck disable=SC2086
  apt-get install -y -qq $need >/dev/null
fi
if [ -n "$want" ]; then
  echo "deps: installing$want"
  # shellcheck disable=SC2086
  apt-get install -y -qq $want >/dev/null ||
    echo "deps: could not install$want; their tests will be skipped" >&2
fi
