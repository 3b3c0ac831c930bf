#!/bin/sh
# build.sh — build the example plugin with nothing but `cc` and the include
# flags from `pkg-config --cflags usmp`. A plugin never links libusmp: all it
# calls arrives in the usmp_host table. Usage: build.sh [OUTPUT] (default
# ./sweep.so; its directory is created when missing). Install by copying OUTPUT into a directory of USMP_PLUGIN_PATH
# or into `pkg-config --variable=plugindir usmp`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/sweep.so}
mkdir -p "$(dirname "$out")"
if ! cflags=$(pkg-config --cflags usmp); then
	echo "build.sh: pkg-config finds no usmp.pc: install usmp (README.md," \
		"Install) and set PKG_CONFIG_PATH=PREFIX/lib/x86_64-linux-gnu/pkgconfig" >&2
	exit 1
fi
# -fvisibility=hidden: the descriptor usmp_plugin_v1 is the only export.
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -O2 -fPIC -shared -fvisibility=hidden $cflags \
	-o "$out" "$here/sweep.c"
echo "built $out"
