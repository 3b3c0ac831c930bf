#!/bin/sh
# cmake.sh BUILDDIR — install usmp (prefix moved, see common.sh), then build
# tests/consumers/cmake, a CMake project using pkg_check_modules(IMPORTED_TARGET
# usmp), against it; run the program and check its plan. TAP.
build=${1:?usage: cmake.sh BUILDDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/consumers/common.sh"
build=$(cd "$build" && pwd)
command -v cmake >/dev/null 2>&1 || { skip "CMake consumer" "no cmake"; finish; }

install_usmp "$build" "$tmp/prefix"
# usmp.pc names the configured prefix; point it at the moved one.
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
if cmake -S "$src/tests/consumers/cmake" -B "$tmp/cbuild" \
	-DPKG_CONFIG_ARGN="--define-variable=prefix=$PREFIX" \
	>"$tmp/cmake.log" 2>&1 &&
   cmake --build "$tmp/cbuild" >>"$tmp/cmake.log" 2>&1
then pass "CMake configures and builds the consumer with pkg_check_modules"
else fail "CMake configures and builds the consumer with pkg_check_modules"; diag "$tmp/cmake.log"; finish
fi
version=$(pkg-config --modversion usmp)
if grep -q "Found usmp, version $version" "$tmp/cmake.log" &&
   grep -qx "USMP_INCLUDE_DIRS:INTERNAL=$PREFIX/include" "$tmp/cbuild/CMakeCache.txt" &&
   readelf -d "$tmp/cbuild/consumer" | grep NEEDED | grep -q 'libusmp\.so\.1'
then pass "pkg_check_modules finds usmp $version in the prefix; the consumer links libusmp.so.1"
else fail "pkg_check_modules finds usmp $version in the prefix; the consumer links libusmp.so.1"
	diag "$tmp/cmake.log"; grep '^USMP_' "$tmp/cbuild/CMakeCache.txt" | diag
fi
# CMake's build rpath names the prefix's libdir; libusmp finds its plugins.
if "$tmp/cbuild/consumer" >"$tmp/out" 2>&1
then pass "the consumer runs"
else fail "the consumer runs"; diag "$tmp/out"; finish
fi
abi=$(sed -n 's/^#define USMP_ABI_\(MAJOR\|MINOR\) \([0-9]*\).*/\2/p' \
	"$src/include/usmp/common.h" | paste -sd.)
printf 'usmp %s, ABI %s\na 2000\nb 0\nc 2000\nsize 3000 verify ok\n' \
	"$version" "$abi" >"$tmp/want"
if diff "$tmp/want" "$tmp/out" >"$tmp/diff"
then pass "it plans with the installed best_fit plugin, at the bound (3000)"
else fail "it plans with the installed best_fit plugin, at the bound (3000)"; diag "$tmp/diff"
fi
finish
