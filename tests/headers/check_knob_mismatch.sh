#!/bin/sh
# check_knob_mismatch.sh INCLUDE_DIR SOURCE LANG COMPILER... — compile
# SOURCE (knob_mismatch.c) as LANG (c or c++) once as written, which must
# succeed, and once per -DMISMATCH_<KIND>, each of which must fail with a
# diagnostic about the function's type or a parameter (checked loosely:
# compilers word it differently). TAP output.
set -u
inc=$1 src=$2 lang=$3
shift 3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usmp-knobs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0
compile() { # compile [-DFLAG]: status of the compiler, its output in $tmp/log
	"$@" -x "$lang" -fsyntax-only -Wall -Werror -I "$inc" $flag "$src" \
		>"$tmp/log" 2>&1
}
flag=""
n=$((n + 1))
if compile "$@"; then
	echo "ok $n - $lang: parameters that match the knob list compile"
else
	echo "not ok $n - $lang: parameters that match the knob list compile"
	sed 's/^/# /' "$tmp/log"
	failed=$((failed + 1))
fi
for kind in TYPE BOOL_AS_INT ORDER MISSING DUPLICATE; do
	flag=-DMISMATCH_$kind
	n=$((n + 1))
	what="$lang: a definition with $kind mismatch does not compile"
	if compile "$@"; then
		echo "not ok $n - $what (it compiled)"
		failed=$((failed + 1))
	elif grep -Eqi "conflicting|redefinition|redeclaration|duplicate|overload|never defined|previous declaration|no matches|does not match" "$tmp/log"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what (failed, but not about the prototype:)"
		sed 's/^/# /' "$tmp/log"
		failed=$((failed + 1))
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
