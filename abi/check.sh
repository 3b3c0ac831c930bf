#!/bin/sh
# check.sh BUILDDIR — compare the built ABI with the recorded baseline.
# Only types defined in the public headers count (--headers-dir): the
# private layout behind the opaque handles is free to change.
# Fails on ANY abidiff report (abidiff flags a field inserted mid-struct only
# as "change", exit 4, not "incompatible change", exit 12: both fail here),
# and when the exported symbols differ from abi/symbols.txt. Prints TAP.
#   abi/check.sh BUILDDIR --update   rewrites the baseline (see docs/abi.md)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: abi/check.sh BUILDDIR [--update]}
lib="$build/src/libusmp.so.1"
types="$build/abi/libusmp-abi-types.so"
supp="$here/suppressions.abignore"

if [ "${2:-}" = --update ]; then
	abidw --no-corpus-path --out-file "$here/libusmp.abi" "$lib" &&
	abidw --no-corpus-path --out-file "$here/plugin-types.abi" "$types" &&
	nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "D" || $2 == "R" {print $3}' |
		sort > "$here/symbols.txt" &&
	echo "baseline updated: abi/libusmp.abi abi/plugin-types.abi abi/symbols.txt"
	exit $?
fi

fail=0
n=0
check() { # description, command...
	n=$((n + 1))
	desc=$1
	shift
	if out=$("$@" 2>&1); then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		printf '%s\n' "$out" | sed 's/^/# /'
		fail=1
	fi
}
symbols() {
	nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "D" || $2 == "R" {print $3}' |
		sort | diff -u "$here/symbols.txt" -
}
echo "1..3"
check "libusmp ABI matches abi/libusmp.abi" \
	abidiff --suppressions "$supp" --headers-dir1 "$here/../include/usmp" --headers-dir2 "$here/../include/usmp" --no-added-syms "$here/libusmp.abi" "$lib"
check "plugin-side types match abi/plugin-types.abi" \
	abidiff --suppressions "$supp" --headers-dir1 "$here/../include/usmp" --headers-dir2 "$here/../include/usmp" "$here/plugin-types.abi" "$types"
check "exported symbols equal abi/symbols.txt" symbols
exit $fail
