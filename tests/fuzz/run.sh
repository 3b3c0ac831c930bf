#!/bin/sh
# run.sh — run the libFuzzer harnesses of a clang build, two at a time.
#   tests/fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]
# Working corpora go to $FUZZ_WORK (default /tmp/usmp-fuzz/<harness>), seeded
# from tests/fuzz/corpus/<harness>; crashes land in $FUZZ_WORK/artifacts/.
set -eu
build=$1
secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=${FUZZ_WORK:-/tmp/usmp-fuzz}
[ $# -gt 0 ] || set -- problem_json problem_csv plan_json plan_csv params verify \
	solve solve_csv
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

run_one() {
	name=$1
	dict=
	case $name in
	*json | solve) dict=-dict=$here/json.dict ;;
	*csv) dict=-dict=$here/csv.dict ;;
	esac
	mkdir -p "$work/$name" "$work/artifacts/$name"
	cp -n "$here/corpus/$name/"* "$work/$name/" 2>/dev/null || true
	nice "$build/tests/fuzz/fuzz_$name" $dict -max_total_time="$secs" \
		-rss_limit_mb=2048 -max_len=8192 -timeout=20 \
		-artifact_prefix="$work/artifacts/$name/" \
		"$work/$name" >"$work/$name.log" 2>&1 || echo "$name: exit $?"
	tail -n 3 "$work/$name.log"
}

while [ $# -gt 0 ]; do
	run_one "$1" &
	if [ $# -gt 1 ]; then
		run_one "$2" &
		shift
	fi
	shift
	wait
done
