#!/bin/sh
# run.sh — build the load programs against a build tree and run them.
#   tests/load/run.sh BUILD_DIR [plans|big|hostile|all]
# Results are written up by hand in tests/load/RESULTS.md.
set -eu
build=$(cd "$1" && pwd)
what=${2:-all}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${LOAD_OUT:-/tmp/usmp-load}
mkdir -p "$out"
for prog in plans_10k big hostile; do
	cc -std=c11 -O2 -Wall -Wextra -D_GNU_SOURCE -I "$src/include" \
		-o "$out/$prog" "$here/$prog.c" \
		-L "$build/src" -Wl,-rpath,"$build/src" -lusmp
done
plugins=$build/plugins
export USMP_PLUGIN_PATH= USMP_ALGORITHM=
case $what in plans|all)
	echo "== 10,000 plans, plugins isolated as by default (build-tree plugins are untrusted)"
	/usr/bin/time -v "$out/plans_10k" "$plugins" 10000 default 2>"$out/plans.time"
	grep -E "Maximum resident|Elapsed" "$out/plans.time"
	echo "== 10,000 plans in process"
	/usr/bin/time -v "$out/plans_10k" "$plugins" 10000 no_isolate 2>"$out/plans2.time"
	grep -E "Maximum resident|Elapsed" "$out/plans2.time"
esac
case $what in big|all)
	for algo in first_fit best_fit; do
		for n in 1000000 2000000 5000000 10000000; do
			echo "== $n buffers, $algo"
			/usr/bin/time -v "$out/big" "$plugins" $n $algo 2>"$out/big.time"
			grep -E "Maximum resident|Elapsed" "$out/big.time"
		done
	done
esac
case $what in hostile|all)
	echo "== hostile inputs and plugins"
	"$out/hostile" "$plugins" "$build/tests/plugins" "$src/tests/fuzz/corpus" \
		"$src/examples/board_m55_u55.json" 20000
	echo "exit status $?"
esac
