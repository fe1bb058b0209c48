#!/bin/sh
# install_test.sh BUILD_DIR: install the build into a temporary prefix, then build and run a small
# program against the installed tree four ways: pkg-config (shared, and --static) and CMake's
# find_package(gpz) (gpz::gpz, and gpz::gpz_static). The program compresses and decompresses a
# buffer (.gpz and gzip) and checks the bytes.
set -eu
build=$(cd "$1" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL  $*"; exit 1; }
cmake --install "$build" --prefix "$T/prefix" >/dev/null || fail "cmake --install"
for f in bin/gpz include/gpz.h share/man/man1/gpz.1 share/doc/gpz/LICENSE; do
	[ -e "$T/prefix/$f" ] || fail "not installed: $f"
done
# the shared library stays mapped after dlclose (an AUTO context's GPU start runs on a thread of
# its own; HDF5 unloads plugins at exit): see CMakeLists.txt
so=$(find "$T/prefix" -name 'libgpz.so.*' | head -n 1)
if [ -n "$so" ] && command -v readelf >/dev/null 2>&1; then
	readelf -d "$so" | grep -q NODELETE || fail "libgpz.so is not linked -z nodelete"
fi
pc=$(find "$T/prefix" -name gpz.pc | head -n 1)
[ -n "$pc" ] || fail "no gpz.pc"
mkdir "$T/app"
cat >"$T/app/sample.c" <<'C'
#include <gpz.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	size_t n = 1 << 20, c_len = 0, back_len = 0;
	unsigned char *src = malloc(n), *back = malloc(n);
	gpz_params p;
	gpz_ctx *ctx = NULL;
	for (size_t i = 0; i < n; i++)
		src[i] = (unsigned char)("installed gpz works "[i % 20] + (i % 1000 == 0));
	gpz_params_default(&p);
	size_t cap = gpz_compress_bound(n, &p) + gpz_deflate_bound(n);
	unsigned char *c = malloc(cap);
	if (gpz_ctx_create(&ctx, GPZ_BACKEND_AUTO, 0) != GPZ_OK ||
	    gpz_compress(ctx, &p, src, n, c, cap, &c_len) != GPZ_OK ||
	    gpz_decompress(ctx, c, c_len, back, n, &back_len) != GPZ_OK || back_len != n ||
	    memcmp(back, src, n) ||
	    gpz_deflate_compress(ctx, 6, GPZ_FORMAT_GZIP, NULL, src, n, c, cap, &c_len) != GPZ_OK ||
	    gpz_inflate(ctx, GPZ_FORMAT_GZIP, c, c_len, back, n, &back_len) != GPZ_OK ||
	    back_len != n || memcmp(back, src, n)) {
		printf("sample: round trip failed\n");
		return 1;
	}
	printf("sample: gpz %s round trips\n", gpz_version());
	gpz_ctx_free(ctx);
	free(src);
	free(back);
	free(c);
	return 0;
}
C
export PKG_CONFIG_PATH="$(dirname "$pc")"
cc -o "$T/app/pc-shared" "$T/app/sample.c" $(pkg-config --cflags --libs gpz) || fail "pkg-config link"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir gpz)" "$T/app/pc-shared" || fail "pkg-config program"
# the static library by name (its dependencies from --static), as a shared one lies beside it
cc -o "$T/app/pc-static" "$T/app/sample.c" $(pkg-config --cflags gpz) \
	"$(pkg-config --variable=libdir gpz)/libgpz.a" $(pkg-config --static --libs gpz | sed 's/-lgpz//') ||
	fail "pkg-config --static link"
"$T/app/pc-static" || fail "pkg-config --static program"
cat >"$T/app/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.18)
project(sample C)
find_package(gpz 0.1 REQUIRED)
add_executable(sample-shared sample.c)
target_link_libraries(sample-shared PRIVATE gpz::gpz)
add_executable(sample-static sample.c)
target_link_libraries(sample-static PRIVATE gpz::gpz_static)
C
cmake -S "$T/app" -B "$T/app/build" -DCMAKE_PREFIX_PATH="$T/prefix" >"$T/cmake.log" 2>&1 ||
	{ cat "$T/cmake.log"; fail "find_package(gpz)"; }
cmake --build "$T/app/build" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "build against gpz::gpz"; }
"$T/app/build/sample-shared" || fail "gpz::gpz program"
"$T/app/build/sample-static" || fail "gpz::gpz_static program"
echo "install: pkg-config and find_package(gpz) build and run against the installed tree"
