#!/bin/sh
# uninstalled.sh BUILDDIR CC... — a host building against the build tree alone:
# `pkg-config usmp-uninstalled` (build/meson-uninstalled) gives the flags
# that compile and link consumer.c, and the program plans from the build tree.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
build=$1
shift
pc=$(command -v pkg-config || command -v pkgconf || true)
if [ -z "$pc" ]; then
	skip "pkg-config usmp-uninstalled" "no pkg-config"
	finish
fi
export PKG_CONFIG_PATH="$build/meson-uninstalled"
if flags=$("$pc" --cflags --libs usmp-uninstalled 2>"$tmp/pc.log"); then
	pass "pkg-config --cflags --libs usmp-uninstalled"
else
	fail "pkg-config --cflags --libs usmp-uninstalled"; diag "$tmp/pc.log"; finish
fi
case " $("$pc" --cflags usmp-uninstalled) " in
*/include\ *) pass "its Cflags name an include directory" ;;
*) fail "its Cflags name an include directory: $flags" ;;
esac
# shellcheck disable=SC2086 # the flags are words
if "$@" -Wall -Werror -o "$tmp/consumer" "$here/consumer.c" $flags \
	>"$tmp/cc.log" 2>&1
then pass "consumer.c compiles and links with those flags alone"
else fail "consumer.c compiles and links with those flags alone"
	diag "$tmp/cc.log"; finish
fi
if LD_LIBRARY_PATH="$build/src" "$tmp/consumer" >"$tmp/out" 2>&1 &&
	grep -q "^size 3000 verify ok$" "$tmp/out"
then pass "the program plans with the build tree's library and plugins"
else fail "the program plans with the build tree's library and plugins"
	diag "$tmp/out"
fi
finish
