#!/bin/sh
# test.sh — run every test: the meson suites (Criterion, ABI, headers,
# examples) in the normal build and again in an ASan+UBSan build, then the
# installed-tree checks (example host, out-of-tree plugin, consumers of an
# installed usmp: moved prefix, CMake, Meson subproject), the Python
# binding, the ThreadSanitizer test and the CLI under valgrind. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
status=0
logs=build/test-logs
rm -rf "$logs"
mkdir -p "$logs"

# Every suite must run: the tests option is a feature whose default (auto)
# quietly builds no suite without Criterion; here its absence is a failure.
# A build directory set up before pkgconfig.relocatable became a default
# option keeps its old value: set it, so that firsthour5_install checks it.
meson configure build -Dtests=enabled -Dpkgconfig.relocatable=true >/dev/null || status=1
meson test -C build --print-errorlogs --num-processes 2 || status=1

# The same suites under AddressSanitizer and UndefinedBehaviorSanitizer;
# leaks fail the run (LeakSanitizer is part of ASan). Built at -O1, as ASan
# advises: it compiles in about half the time of -O2 and checks as much.
if [ "${USMP_SKIP_ASAN:-0}" != 1 ]; then
	[ -f build-asan/build.ninja ] ||
		meson setup build-asan -Db_sanitize=address,undefined \
			-Db_lundef=false -Dtests=enabled -Doptimization=1 >/dev/null
	meson compile -C build-asan >/dev/null || status=1
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C build-asan --print-errorlogs --num-processes 2 || status=1
fi

# Script checks: each writes TAP (or unittest's summary) to a log that
# tools/count_tests.py counts; the exit status is recorded in the log too.
# They run in two lanes at once (most of them keep one core busy): the
# first installs from ./build, one check after the other; the second builds
# usmp elsewhere (ThreadSanitizer, Meson subproject). Reported in order.
run() { # name, command...
	name=$1
	shift
	echo "$*" >"$logs/$name.cmd"
	"$@" >"$logs/$name.log" 2>&1
	echo "# exit $?" >>"$logs/$name.log"
}
report() { # name
	echo "== $1: $(cat "$logs/$1.cmd")"
	tail -n 3 "$logs/$1.log" | sed 's/^/   /'
	grep -qx '# exit 0' "$logs/$1.log" ||
		{ status=1; grep -E "^not ok|FAIL|Error" "$logs/$1.log" | head -20; }
}
# Interrupted, stop the second lane too (it ignores SIGINT, as any
# background job of a script does).
trap 'trap - INT TERM; kill -TERM 0' INT TERM
{
	run threads.tap sh tests/threads/run.sh build
	run meson-subproject.tap sh tests/consumers/meson.sh build
} &
lane=$!
run host.tap sh examples/host/test.sh build
run plugin.tap sh examples/plugin/test.sh build
run install.tap sh tests/consumers/install.sh build
run cmake.tap sh tests/consumers/cmake.sh build
run python.unittest sh python/run_tests.sh build
run valgrind.tap sh tests/valgrind.sh build
wait $lane
for name in host.tap plugin.tap install.tap cmake.tap meson-subproject.tap \
	python.unittest threads.tap valgrind.tap; do
	report $name
done

python3 tools/count_tests.py build/meson-logs/testlog.json \
	build-asan/meson-logs/testlog.json "$logs"/*.log || status=1
exit $status
