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
meson configure build -Dtests=enabled >/dev/null || status=1
meson test -C build --print-errorlogs --num-processes 2 || status=1

# The same suites under AddressSanitizer and UndefinedBehaviorSanitizer;
# leaks fail the run (LeakSanitizer is part of ASan).
if [ "${USMP_SKIP_ASAN:-0}" != 1 ]; then
	[ -f build-asan/build.ninja ] ||
		meson setup build-asan -Db_sanitize=address,undefined \
			-Db_lundef=false -Dtests=enabled >/dev/null
	meson compile -C build-asan >/dev/null || status=1
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C build-asan --print-errorlogs --num-processes 2 || status=1
fi

# Script checks: each writes TAP (or unittest's summary) to a log that
# tools/count_tests.py counts; the exit status is recorded in the log too.
run() { # name, command...
	name=$1
	shift
	echo "== $name: $*"
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	echo "# exit $rc" >>"$logs/$name.log"
	tail -n 3 "$logs/$name.log" | sed 's/^/   /'
	[ $rc = 0 ] || { status=1; grep -E "^not ok|FAIL|Error" "$logs/$name.log" | head -20; }
}
run host.tap sh examples/host/test.sh build
run plugin.tap sh examples/plugin/test.sh build
run install.tap sh tests/consumers/install.sh build
run cmake.tap sh tests/consumers/cmake.sh build
run meson-subproject.tap sh tests/consumers/meson.sh build
run python.unittest sh python/run_tests.sh build
run threads.tap sh tests/threads/run.sh build
run valgrind.tap sh tests/valgrind.sh build

python3 tools/count_tests.py build/meson-logs/testlog.json \
	build-asan/meson-logs/testlog.json "$logs"/*.log || status=1
exit $status
