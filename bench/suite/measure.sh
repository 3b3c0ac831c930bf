#!/bin/sh
# measure.sh — time the README's test command phase by phase in a fresh
# clone: wall and CPU (user, sys) of every phase, into OUTDIR/times.
#
# Usage: bench/suite/measure.sh [REV] [OUTDIR]   (REV: default HEAD)
# Clones this repository at REV into a temporary directory, makes copies of
# tools/bootstrap.sh and tools/test.sh that wrap each phase in
# /usr/bin/time (package `time`), and runs `./tools/bootstrap.sh &&
# ./tools/test.sh` there. OUTDIR (default /tmp/usmp-suite-times) receives
# `times` (one line per phase: name, wall s, user s, sys s; `total` last),
# the command's output and both meson testlog.json files. The clone is left
# for inspection; its path is in OUTDIR/clone. bench/suite/RESULTS.md
# explains the phases.
set -eu
rev=${1:-HEAD}
out=${2:-/tmp/usmp-suite-times}
src=$(cd "$(dirname "$0")/../.." && pwd)
[ -x /usr/bin/time ] || { echo "measure.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/usmp-suite.XXXXXX")
git clone -q "$src" "$dir/usmp"
git -C "$dir/usmp" checkout -q "$(git -C "$src" rev-parse "$rev")"
echo "$dir/usmp" >"$out/clone"
cd "$dir/usmp"
TIMELOG=$out/times
export TIMELOG
T='/usr/bin/time -a -o "$TIMELOG" -f'
sed -i \
	-e "s|^\[ -f build/build.ninja \] \|\| meson setup build|[ -f build/build.ninja ] \|\| $T \"setup %e %U %S\" meson setup build|" \
	-e "s|^meson compile -C build |$T \"build %e %U %S\" meson compile -C build |" \
	tools/bootstrap.sh
sed -i \
	-e "s|^meson test -C build |$T \"test %e %U %S\" meson test -C build |" \
	-e "s|^\([[:space:]]*\)meson setup build-asan|\1$T \"asan-setup %e %U %S\" meson setup build-asan|" \
	-e "s|^\([[:space:]]*\)meson compile -C build-asan|\1$T \"asan-compile %e %U %S\" meson compile -C build-asan|" \
	-e "s|^\([[:space:]]*\)meson test -C build-asan|\1$T \"asan-test %e %U %S\" meson test -C build-asan|" \
	-e "s|^\([[:space:]]*\)\"\$@\" >\"\$logs/\$name.log\" 2>&1|\1$T \"\$name %e %U %S\" \"\$@\" >\"\$logs/\$name.log\" 2>\&1|" \
	tools/bootstrap.sh tools/test.sh
# Every phase must be wrapped, or the table would silently miss one.
[ "$(grep -c '/usr/bin/time' tools/bootstrap.sh tools/test.sh |
	awk -F: '{s += $2} END {print s}')" -ge 7 ] ||
	{ echo "measure.sh: the scripts changed; update the patterns" >&2; exit 1; }
rc=0
/usr/bin/time -o "$out/total" -f "total %e %U %S" \
	sh -c './tools/bootstrap.sh && ./tools/test.sh' >"$out/output" 2>&1 || rc=$?
cat "$out/total" >>"$TIMELOG"
cp build/meson-logs/testlog.json "$out/testlog.json" 2>/dev/null || :
cp build-asan/meson-logs/testlog.json "$out/testlog-asan.json" 2>/dev/null || :
awk '{printf "%-22s %8.1f %8.1f %8.1f %8.1f\n", $1, $2, $3, $4, $3 + $4}
     BEGIN {printf "%-22s %8s %8s %8s %8s\n", "phase", "wall", "user", "sys", "cpu"}' \
	"$TIMELOG"
tail -n 1 "$out/output"
exit $rc
