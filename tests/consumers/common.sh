# common.sh — sourced by the consumer checks: TAP helpers, a temporary
# directory removed on exit, and `install_usmp BUILDDIR DIR`, which installs
# a configured meson build dir through a destdir and moves the prefix to DIR
# (so nothing may depend on the configured prefix). Sets PREFIX and LIBDIR.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usmp-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; failed=$((failed + 1)); }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { sed 's/^/# /' "$@"; }
finish() { echo "1..$n"; [ "$failed" -eq 0 ]; exit $?; }
# Nothing from a developer's environment may help the installed tree.
unset LD_LIBRARY_PATH USMP_PLUGIN_PATH USMP_LIBRARY USMP_ALGORITHM PYTHONPATH

install_usmp() { # BUILDDIR DIR
	if ! meson install -C "$1" --destdir "$tmp/destdir" >"$tmp/install.log" 2>&1
	then fail "meson install"; diag "$tmp/install.log"; finish
	fi
	exe=$(find "$tmp/destdir" -path '*/bin/usmp' -type f | head -n 1)
	[ -n "$exe" ] || { fail "meson install puts bin/usmp"; finish; }
	mv "$(dirname "$(dirname "$exe")")" "$2"
	rm -rf "$tmp/destdir"
	PREFIX=$2
	LIBDIR=$(dirname "$(find "$PREFIX" -name libusmp.so.1 | head -n 1)")
	pass "meson install, prefix moved to $PREFIX"
}
