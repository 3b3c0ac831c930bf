#!/bin/sh
# valgrind.sh BUILDDIR — the usmp command under valgrind (memcheck) over the
# examples: plan (each algorithm family), verify, simulate, bound, list and
# check-plugin. Any memory error or definite leak fails the case. TAP.
set -u
build=$(cd "${1:?usage: valgrind.sh BUILDDIR}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cli="$build/src/cli/usmp"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usmp-vg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fail=0
vg() { # expected exit status, description, usmp arguments...
	n=$((n + 1))
	want=$1
	desc=$2
	shift 2
	USMP_PLUGIN_PATH= USMP_ALGORITHM= valgrind -q --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite \
		"$cli" "$@" >"$tmp/out" 2>"$tmp/vg.log"
	rc=$?
	if [ $rc = "$want" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (exit $rc, expected $want; 99 = memcheck)"
		sed 's/^/# /' "$tmp/vg.log" | head -40
		fail=1
	fi
}
if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind is not installed"
	exit 0
fi
mnv2="$root/examples/mobilenet_v2.json"
board="$root/examples/board_m55_u55.json"
small="$root/tests/data/minimalloc/input.12.csv"
vg 0 "plan mobilenet_v2 with auto, plan and SVG" plan "$mnv2" --no-isolate -o "$tmp/m.json" --svg "$tmp/m.svg"
vg 0 "verify the mobilenet_v2 plan" verify "$mnv2" "$tmp/m.json"
vg 0 "simulate the mobilenet_v2 plan" simulate "$mnv2" "$tmp/m.json"
vg 0 "plan the M55+U55 board (two parts)" plan "$board" --no-isolate -o "$tmp/b.json"
vg 3 "TVM's greedy_by_size finds no fit on the board (it fills no gaps): exit 3, cleanly" plan "$board" -a greedy_by_size --no-isolate -o "$tmp/g.json"
vg 0 "plan the board with hill_climb" plan "$board" -a hill_climb -p attempts=20 --no-isolate -o /dev/null
vg 0 "bound of the board" bound "$board"
vg 0 "list -v" list -v
vg 0 "select with a rule" select npu0 -a best_fit:order=area
vg 0 "plan MiniMalloc input.12.csv with exact, CSV out" plan "$small" -a exact --capacity 12 --no-isolate --format csv -o "$tmp/s.csv"
vg 0 "plan input.12.csv isolated (the parent)" plan "$small" --isolate -o /dev/null
vg 2 "a malformed problem is refused cleanly" plan "$root/README.md"
vg 0 "check-plugin passes the fit plugin (the parent)" check-plugin "$build/plugins/fit.so"
vg 4 "check-plugin fails a plugin with bugs, cleanly" check-plugin "$build/tests/plugins/check/bugs.so"
vg 2 "check-plugin refuses a file that is not a plugin" check-plugin "$build/tests/plugins/not_a_plugin.so"
echo "1..$n"
exit $fail
