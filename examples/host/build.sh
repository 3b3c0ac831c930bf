#!/bin/sh
# build.sh — build the example host with nothing but `cc` and the include
# flags from `pkg-config --cflags usmp`. It links libdl, never libusmp: the
# library is dlopen()ed at run time. Usage: build.sh [OUTPUT] (default ./host).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/host}
if ! cflags=$(pkg-config --cflags usmp); then
	echo "build.sh: pkg-config finds no usmp.pc: install usmp (README.md," \
		"Install) and set PKG_CONFIG_PATH=PREFIX/lib/x86_64-linux-gnu/pkgconfig" >&2
	exit 1
fi
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -O2 $cflags -o "$out" "$here/host.c" -ldl
echo "built $out"
