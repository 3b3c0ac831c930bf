# test_install.sh — sourced by host/test.sh and plugin/test.sh (after they set
# `what`): TAP helpers, a temporary $tmp removed on exit, and the install.
#
# `install_by_pc BUILDDIR` installs a configured meson build dir into
# $tmp/root (a TAP check), finds usmp.pc there (none: a failed check, and
# the test ends) and sets what pkg-config alone tells a consumer:
# PKG_CONFIG_PATH, prefix, PKG_CONFIG, libdir and plugindir.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usmp-$what.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; failed=$((failed + 1)); }
diag() { sed 's/^/# /' "$@"; }
finish() { echo "1..$n"; [ "$failed" -eq 0 ]; exit $?; }

install_by_pc() { # BUILDDIR
	if meson install -C "$1" --destdir "$tmp/root" >"$tmp/install.log" 2>&1
	then pass "meson install into a temporary destdir"
	else fail "meson install into a temporary destdir"; diag "$tmp/install.log"; finish
	fi
	pc=$(find "$tmp/root" -name usmp.pc | head -n 1)
	[ -n "$pc" ] || { fail "usmp.pc installed"; finish; }
	# Relocate the installed tree: every path in usmp.pc derives from ${prefix}.
	export PKG_CONFIG_PATH="$(dirname "$pc")"
	# usmp.pc's prefix is its own directory's (${pcfiledir}/../../.., already
	# in the destdir) unless built with -Dpkgconfig.relocatable=false: then the
	# configured prefix, to put under the destdir.
	prefix=$(pkg-config --variable=prefix usmp)
	case $prefix in
	"$tmp/root"/*) ;;
	*) prefix=$tmp/root$prefix ;;
	esac
	PKG_CONFIG="pkg-config --define-variable=prefix=$prefix"
	libdir=$($PKG_CONFIG --variable=libdir usmp)
	plugindir=$($PKG_CONFIG --variable=plugindir usmp)
}
