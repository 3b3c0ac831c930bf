#!/bin/sh
# test.sh — run every test suite: the Criterion suites in the normal build and
# in an ASan+UBSan build, plus the script checks; end with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
status=0

meson test -C build --print-errorlogs --num-processes 2 || status=1

# The same suites under AddressSanitizer and UndefinedBehaviorSanitizer;
# leaks fail the run (LeakSanitizer is part of ASan).
if [ "${USMP_SKIP_ASAN:-0}" != 1 ]; then
	[ -f build-asan/build.ninja ] ||
		meson setup build-asan -Db_sanitize=address,undefined \
			-Db_lundef=false >/dev/null
	meson compile -C build-asan >/dev/null || status=1
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C build-asan --print-errorlogs --num-processes 2 || status=1
fi

python3 tools/count_tests.py build/meson-logs/testlog.json \
	build-asan/meson-logs/testlog.json || status=1
exit $status
