#!/bin/sh
# bootstrap.sh — install what a fresh Debian 12 lacks, then configure and
# build usmp in ./build. Safe to run again: it only installs what is missing.
set -eu
cd "$(dirname "$0")/.."

# Why each package is here: docs/dependencies.md.
PACKAGES="gcc g++ libc6-dev pkg-config meson ninja-build libffi-dev libjansson-dev
libcriterion-dev abigail-tools librsvg2-bin python3 valgrind clang
libclang-rt-14-dev cmake groff-base"

missing=""
for pkg in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
		grep -q "install ok installed"; then
		missing="$missing $pkg"
	fi
done
if [ -n "$missing" ]; then
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	echo "bootstrap: installing$missing" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi

[ -f build/build.ninja ] || meson setup build >/dev/null
# A first build prints nothing for a few minutes on a small machine; say so.
echo "bootstrap: building usmp in ./build (a first build takes minutes)" >&2
meson compile -C build >/dev/null
echo "bootstrap: built usmp in ./build" >&2
