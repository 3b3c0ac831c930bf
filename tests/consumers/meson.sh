#!/bin/sh
# meson.sh BUILDDIR — build tests/consumers/meson, a Meson project whose
# dependency('usmp') falls back to usmp as a subproject (this source tree,
# linked into a copy of the project), run it from its build tree and check
# its plan; check that the subproject builds no tests. TAP. BUILDDIR is unused
# (the consumer builds usmp itself); it is taken for symmetry with the others.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/consumers/common.sh"

cp -R "$src/tests/consumers" "$tmp/consumers"
proj=$tmp/consumers/meson
mkdir "$proj/subprojects"
ln -s "$src" "$proj/subprojects/usmp"
# Even where a usmp.pc is installed, take the subproject.
if meson setup "$tmp/mbuild" "$proj" --force-fallback-for=usmp \
	>"$tmp/setup.log" 2>&1
then pass "meson setup resolves dependency('usmp') to the subproject"
else fail "meson setup resolves dependency('usmp') to the subproject"; diag "$tmp/setup.log"; finish
fi
if grep -q "^Executing subproject usmp" "$tmp/setup.log" &&
   grep -q "^Dependency usmp found: YES .*(overridden)" "$tmp/setup.log"
then pass "the dependency comes from meson.override_dependency in the subproject"
else fail "the dependency comes from meson.override_dependency in the subproject"; diag "$tmp/setup.log"
fi
meson introspect --tests "$tmp/mbuild" >"$tmp/tests.json" 2>&1
if [ "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' \
	"$tmp/tests.json")" = 0 ] && [ ! -d "$tmp/mbuild/subprojects/usmp/tests" ]
then pass "usmp as a subproject registers no tests and builds no test suites"
else fail "usmp as a subproject registers no tests and builds no test suites"; diag "$tmp/tests.json"
fi
if meson compile -C "$tmp/mbuild" >"$tmp/compile.log" 2>&1
then pass "the consumer and usmp compile"
else fail "the consumer and usmp compile"; diag "$tmp/compile.log"; finish
fi
sub=$tmp/mbuild/subprojects/usmp
if [ -e "$sub/src/libusmp.so.1" ] && [ ! -e "$sub/src/libusmp_internal.a" ] &&
   [ ! -e "$sub/bench" ] && [ ! -e "$sub/abi" ]
then pass "the subproject builds libusmp, not the tests' static copy, benchmarks or ABI check"
else fail "the subproject builds libusmp, not the tests' static copy, benchmarks or ABI check"
	ls -R "$sub" | diag
fi
if "$tmp/mbuild/consumer" >"$tmp/out" 2>&1
then pass "the consumer runs from its build tree"
else fail "the consumer runs from its build tree"; diag "$tmp/out"; finish
fi
version=$(meson introspect --projectinfo "$tmp/mbuild" | python3 -c '
import json, sys
print([s["version"] for s in json.load(sys.stdin)["subprojects"]
       if s["name"] == "usmp"][0])')
abi=$(sed -n 's/^#define USMP_ABI_\(MAJOR\|MINOR\) \([0-9]*\).*/\2/p' \
	"$src/include/usmp/common.h" | paste -sd.)
printf 'usmp %s, ABI %s\na 2000\nb 0\nc 2000\nsize 3000 verify ok\n' \
	"$version" "$abi" >"$tmp/want"
if diff "$tmp/want" "$tmp/out" >"$tmp/diff"
then pass "it plans with the subproject's best_fit plugin, at the bound (3000)"
else fail "it plans with the subproject's best_fit plugin, at the bound (3000)"; diag "$tmp/diff"
fi
finish
