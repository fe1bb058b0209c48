#!/bin/sh
# Everything a fresh machine needs to pass the tests: dependencies, test data, a release build
# and its tests, then the same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# what the tests skipped, and why (their SKIP lines), so that "all tests passed" hides nothing
skipped() {
  grep -hE "^SKIP" "$1/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u |
    sed "s|^|test.sh: $(basename "$1"): |" || true
}
sh "$root/scripts/deps.sh"
sh "$root/corpora/prepare.sh"
sh "$root/scripts/build.sh" "$root/build"
ctest --test-dir "$root/build" -j2 --output-on-failure
skipped "$root/build"
sh "$root/scripts/build.sh" "$root/build-asan" -DGPZ_SANITIZE=ON -DGPZ_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$root/build-asan" -j2 --output-on-failure
skipped "$root/build-asan"
# the libFuzzer targets (tests/fuzz), each for a short fixed budget, when clang is here
if command -v clang >/dev/null 2>&1; then
  cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_C_COMPILER=clang -DGPZ_FUZZ=ON -DGPZ_CUDA=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$root/build-fuzz" -j"$(nproc)" --target fuzz_decompress fuzz_inflate fuzz_stream \
    fuzz_tool gpz-tool >/dev/null
  ctest --test-dir "$root/build-fuzz" -L fuzz --output-on-failure
  fuzz="and fuzz targets"
else
  echo "test.sh: SKIP fuzz targets: clang absent (Debian: clang)"
  fuzz="fuzz targets skipped"
fi
echo "test.sh: all tests passed (release and ASan/UBSan builds; $fuzz)"
