#!/bin/sh
# run.sh BUILDDIR — the shared-registry thread test: tests/threads/threads.c
# built against BUILDDIR's libusmp, then again with the library, its plugins
# and the program all under ThreadSanitizer (a meson build dir BUILDDIR-tsan,
# configured here when missing; USMP_TSAN_BUILD overrides the name). TAP.
set -u
build=$(cd "${1:?usage: run.sh BUILDDIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tsan=${USMP_TSAN_BUILD:-$build-tsan}
threads=${USMP_THREADS:-8}
rounds=${USMP_ROUNDS:-10}
# A problem exact does not finish in a moment, for the cancel check.
hard=$root/tests/data/minimalloc/D.1048576.csv
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usmp-threads.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
start=$(date +%s)
failed=0
: >"$tmp/tap"
note() { echo "$1" >>"$tmp/tap"; }
cflags="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -g -O1 -I$root/include"

# 1. Plain build against BUILDDIR.
# shellcheck disable=SC2086
if cc $cflags "$here/threads.c" -o "$tmp/threads" -L"$build/src" -lusmp \
	-pthread -Wl,-rpath,"$build/src" 2>"$tmp/cc.log"
then
	note "ok - threads.c builds against $build"
	"$tmp/threads" "$build/plugins" "$threads" "$rounds" "$hard" >"$tmp/plain.out" 2>&1 || failed=1
	sed 's/^\(ok\|not ok\) - /\1 - plain: /' "$tmp/plain.out" >>"$tmp/tap"
else
	note "not ok - threads.c builds against $build"; failed=1
	sed 's/^/# /' "$tmp/cc.log" >>"$tmp/tap"
fi

# 2. Everything under ThreadSanitizer.
if [ ! -f "$tsan/build.ninja" ]; then
	meson setup "$tsan" "$root" -Db_sanitize=thread -Db_lundef=false \
		-Dtests=disabled -Dbuildtype=debugoptimized >"$tmp/setup.log" 2>&1 ||
		{ note "not ok - configure $tsan with -Db_sanitize=thread"; failed=1
		  sed 's/^/# /' "$tmp/setup.log" >>"$tmp/tap"; }
fi
# Only what the test loads: libusmp and the plugins (shared libraries and
# modules), not the usmp command or the benchmarks.
targets=""
[ -f "$tsan/build.ninja" ] &&
	targets=$(meson introspect --targets "$tsan" | python3 -c '
import json, os, sys
build = sys.argv[1]
print(" ".join(os.path.relpath(f, build) for t in json.load(sys.stdin)
               if t["type"] in ("shared library", "shared module")
               for f in t["filename"]))' "$tsan" 2>"$tmp/ninja.log")
if [ -n "$targets" ] &&
	# shellcheck disable=SC2086
	ninja -C "$tsan" $targets >>"$tmp/ninja.log" 2>&1
then
	note "ok - libusmp and plugins build with -fsanitize=thread ($tsan)"
	# shellcheck disable=SC2086
	if cc $cflags -fsanitize=thread "$here/threads.c" -o "$tmp/threads-tsan" \
		-L"$tsan/src" -lusmp -pthread -Wl,-rpath,"$tsan/src" 2>"$tmp/cc.log"
	then
		TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
			"$tmp/threads-tsan" "$tsan/plugins" "$threads" "$rounds" "$hard" \
			>"$tmp/tsan.out" 2>"$tmp/tsan.err"
		rc=$?
		sed 's/^\(ok\|not ok\) - /\1 - tsan: /' "$tmp/tsan.out" >>"$tmp/tap"
		races=$(grep -c 'WARNING: ThreadSanitizer' "$tmp/tsan.err")
		if [ "$rc" -eq 0 ] && [ "$races" -eq 0 ]; then
			note "ok - ThreadSanitizer reports no data race ($threads threads)"
		else
			note "not ok - ThreadSanitizer reports no data race (exit $rc, $races reports)"
			failed=1
			head -n 80 "$tmp/tsan.err" | sed 's/^/# /' >>"$tmp/tap"
		fi
	else
		note "not ok - threads.c builds with -fsanitize=thread"; failed=1
		sed 's/^/# /' "$tmp/cc.log" >>"$tmp/tap"
	fi
else
	note "not ok - libusmp and plugins build with -fsanitize=thread ($tsan)"
	failed=1
	tail -n 30 "$tmp/ninja.log" 2>/dev/null | sed 's/^/# /' >>"$tmp/tap"
fi

# Number the lines as TAP.
awk '/^(ok|not ok) - / { n++; sub(/ - /, " " n " - "); print; next }
     { print } END { print "1.." n }' "$tmp/tap"
grep -q '^not ok' "$tmp/tap" && failed=1
echo "# threads: $(($(date +%s) - start)) s"
exit $failed
