#!/bin/sh
# test.sh BUILDDIR — install usmp from a configured meson build dir into a
# temporary destdir, build the example plugin against that install with
# pkg-config alone, and load, list, run and verify it with the installed CLI.
# TAP output; exit status non-zero when any check fails.
set -u
build=${1:?usage: test.sh BUILDDIR}
here=$(cd "$(dirname "$0")" && pwd)
examples=$(cd "$here/.." && pwd)
what=plugin
. "$examples/test_install.sh"

install_by_pc "$build"
usmp="$prefix/bin/usmp"
[ -x "$usmp" ] || { fail "usmp CLI installed at $usmp"; finish; }
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# build.sh creates the output's directory ($tmp/plugins does not exist yet).
if PKG_CONFIG_SYSROOT_DIR="$tmp/root" "$here/build.sh" "$tmp/plugins/sweep.so" \
	>"$tmp/build.log" 2>&1 && ! grep -q warning "$tmp/build.log"
then pass "plugin builds warning-free with cc and pkg-config --cflags usmp"
else fail "plugin builds warning-free with cc and pkg-config --cflags usmp"; diag "$tmp/build.log"; finish
fi
if readelf -d "$tmp/plugins/sweep.so" | grep NEEDED | grep -q usmp
then fail "plugin does not link libusmp"
else pass "plugin does not link libusmp"
fi
exports=$(nm -D --defined-only "$tmp/plugins/sweep.so" | awk '{print $3}' | tr '\n' ' ')
if [ "$exports" = "usmp_plugin_v1 " ]
then pass "plugin exports only usmp_plugin_v1"
else fail "plugin exports only usmp_plugin_v1 (got: $exports)"
fi

# The knob list and the prototype come from one macro: a definition that
# disagrees with SWEEP_FIT_KNOBS (pad as uint64_t, the list says u32) does
# not compile.
sed 's/bool largest_first, uint32_t pad)/bool largest_first, uint64_t pad)/' \
	"$here/sweep.c" >"$tmp/mismatch.c"
if ! grep -q "uint64_t pad)" "$tmp/mismatch.c"
then fail "a sweep_fit with a mismatched knob type does not compile (sed found no definition)"
elif ${CC:-cc} -std=c11 -fsyntax-only \
	$(PKG_CONFIG_SYSROOT_DIR="$tmp/root" pkg-config --cflags usmp) \
	"$tmp/mismatch.c" >"$tmp/mismatch.log" 2>&1
then fail "a sweep_fit with a mismatched knob type does not compile (it compiled)"
elif grep -q "sweep_fit" "$tmp/mismatch.log"
then pass "a sweep_fit with a mismatched knob type does not compile"
else fail "a sweep_fit with a mismatched knob type does not compile, naming sweep_fit"; diag "$tmp/mismatch.log"
fi

# Without a usmp.pc on pkg-config's path, build.sh says where to point it.
if PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$tmp/none" "$here/build.sh" "$tmp/x.so" \
	>"$tmp/nopc.log" 2>&1
then fail "build.sh without usmp.pc fails"
elif grep -q "build.sh: pkg-config finds no usmp.pc: install usmp .* PKG_CONFIG_PATH=PREFIX/lib/" "$tmp/nopc.log"
then pass "build.sh without usmp.pc fails, naming PKG_CONFIG_PATH"
else fail "build.sh without usmp.pc fails, naming PKG_CONFIG_PATH"; diag "$tmp/nopc.log"
fi

# check-plugin runs both algorithms on its small problems: all pass.
if "$usmp" check-plugin "$tmp/plugins/sweep.so" >"$tmp/check" 2>&1 &&
   grep -q "^ok   algorithm sweep_fit: " "$tmp/check" &&
   grep -q "^ok   algorithm stack: " "$tmp/check" &&
   grep -q "sweep.so: all [0-9]* calls passed" "$tmp/check"
then pass "usmp check-plugin passes both algorithms"
else fail "usmp check-plugin passes both algorithms"; diag "$tmp/check"
fi

# Plugins of the install first, ours after them.
export USMP_PLUGIN_PATH="$tmp/plugins:$plugindir"
unset USMP_ALGORITHM
"$usmp" list -v >"$tmp/list" 2>&1
if grep -q "^sweep_fit  (sweep)" "$tmp/list" && grep -q "^stack  (sweep)" "$tmp/list" &&
   grep -q "sweep 1.0.0 (Apache-2.0), ABI 1.3, 2 algorithms: $tmp/plugins/sweep.so" "$tmp/list"
then pass "usmp list -v shows the plugin, its file and its algorithms"
else fail "usmp list -v shows the plugin, its file and its algorithms"; diag "$tmp/list"
fi
if grep -q -- "-p largest_first=false  (bool, default false)  place the largest" "$tmp/list" &&
   grep -q -- "-p pad=0  (u32, default 0)  guard bytes" "$tmp/list"
then pass "usmp list -v documents both knobs from the signature and param_help"
else fail "usmp list -v documents both knobs"; diag "$tmp/list"
fi
if grep -q "^skipped:" "$tmp/list" && grep -A20 "^skipped:" "$tmp/list" | grep -q sweep
then fail "the plugin is not among the skipped"; diag "$tmp/list"
else pass "the plugin is not among the skipped"
fi

# A problem using what the plugin claims: two pools, a fixed buffer,
# an explicit conflict between buffers whose live ranges are disjoint.
cat >"$tmp/small.json" <<'JSON'
{"usmp": 1,
 "pools": [{"name": "sram", "size_limit": 4096, "alignment": 16},
           {"name": "dram"}],
 "buffers": [
   {"name": "in",   "size": 1024, "live": [0, 2], "pools": ["sram", "dram"],
    "fixed": {"pool": "sram", "offset": 0}},
   {"name": "a",    "size": 2048, "live": [1, 3], "pools": ["sram", "dram"]},
   {"name": "b",    "size": 2048, "live": [2, 4], "pools": ["sram", "dram"]},
   {"name": "c",    "size": 512,  "alignment": 64, "live": [3, 5]},
   {"name": "lut",  "size": 256},
   {"name": "out",  "size": 1000, "live": [4, 6], "pools": ["sram"]}],
 "conflicts": [["lut", "out"], ["a", "out"]]}
JSON

expect_exit() { # code desc pattern args...
	code=$1 desc=$2 pat=$3; shift 3
	"$usmp" "$@" >"$tmp/out.log" 2>&1
	rc=$?
	if [ "$rc" -eq "$code" ] && grep -q -- "$pat" "$tmp/out.log"
	then pass "$desc"
	else fail "$desc (exit $rc)"; diag "$tmp/out.log"
	fi
}
plan_verify() { # name problem algo [plan args...]
	desc=$1 prob=$2; shift 2
	if "$usmp" plan "$prob" -o "$tmp/plan.json" "$@" >"$tmp/plan.log" 2>&1 &&
	   "$usmp" verify "$prob" "$tmp/plan.json" >>"$tmp/plan.log" 2>&1
	then pass "$desc"
	else fail "$desc"; diag "$tmp/plan.log"
	fi
}
plan_verify "sweep_fit plans the small problem and usmp verify accepts it" \
	"$tmp/small.json" -a sweep_fit
if grep -q '"name": *"in", *"pool": *"sram", *"offset": *0' "$tmp/plan.json" ||
   python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); b={x["name"]:x for x in p["buffers"]}; sys.exit(0 if b["in"]["pool"]=="sram" and b["in"]["offset"]==0 else 1)' "$tmp/plan.json"
then pass "the fixed buffer keeps its place"
else fail "the fixed buffer keeps its place"; diag "$tmp/plan.json"
fi
# stack never reuses memory: it needs a roomier SRAM.
sed 's/"size_limit": 4096/"size_limit": 16384/' "$tmp/small.json" >"$tmp/roomy.json"
plan_verify "stack plans the problem and usmp verify accepts it" \
	"$tmp/roomy.json" -a stack
expect_exit 3 "stack is infeasible where reuse is needed, naming the buffer" \
	'buffer "out" fits none of its pools' plan "$tmp/small.json" -a stack \
	-o "$tmp/x.json"
plan_verify "sweep_fit with -p pad=48 -p largest_first=true is valid" \
	"$tmp/small.json" -a sweep_fit -p pad=48 -p largest_first=true
plan_verify "sweep_fit runs isolated (--isolate) and the plan is valid" \
	"$tmp/small.json" -a sweep_fit --isolate
mobilenet="$examples/mobilenet_v2.json"
if [ -f "$mobilenet" ]; then
	plan_verify "sweep_fit plans mobilenet_v2.json and usmp verify accepts it" \
		"$mobilenet" -a sweep_fit
	plan_verify "sweep_fit:largest_first=true plans mobilenet_v2.json validly" \
		"$mobilenet" -a sweep_fit:largest_first=true
fi

if command -v valgrind >/dev/null 2>&1 && [ -f "$mobilenet" ]; then
	if valgrind -q --error-exitcode=99 --leak-check=full \
	   --errors-for-leak-kinds=definite "$usmp" plan "$mobilenet" \
	   -a sweep_fit -p pad=16 -o "$tmp/vg.json" >"$tmp/vg.log" 2>&1
	then pass "sweep_fit runs clean under valgrind on mobilenet_v2.json"
	else fail "sweep_fit runs clean under valgrind on mobilenet_v2.json"; diag "$tmp/vg.log"
	fi
else
	pass "sweep_fit runs clean under valgrind # SKIP no valgrind or no example"
fi

expect_exit 2 "a negative u32 knob is refused before the plugin runs" "pad" \
	plan "$tmp/small.json" -a sweep_fit -p pad=-1 -o "$tmp/x.json"
expect_exit 2 "a non-boolean bool knob is refused" "largest_first" \
	plan "$tmp/small.json" -a sweep_fit -p largest_first=maybe -o "$tmp/x.json"
expect_exit 2 "an unknown knob is refused, naming it" "nosuch" \
	plan "$tmp/small.json" -a sweep_fit -p nosuch=1 -o "$tmp/x.json"
sed 's/"size_limit": 4096/"size_limit": 1024/' "$tmp/small.json" >"$tmp/tight.json"
expect_exit 3 "an infeasible problem exits 3 with the plugin's message" \
	'fits none of its pools' plan "$tmp/tight.json" -a sweep_fit -o "$tmp/x.json"
USMP_ALGORITHM='*=sweep_fit:pad=16' expect_exit 0 \
	"USMP_ALGORITHM selects the plugin's algorithm with a knob" "sweep_fit" \
	select cortex-m55

# lowest.c: a volunteer for auto (USMP_CAP_PORTFOLIO, cost 2), built the
# same way, in a directory of its own so that it joins auto only here.
cflags=$(PKG_CONFIG_SYSROOT_DIR="$tmp/root" pkg-config --cflags usmp)
mkdir -p "$tmp/acme"
# shellcheck disable=SC2086
if ${CC:-cc} -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -O2 -fPIC -shared -fvisibility=hidden $cflags \
	-o "$tmp/acme/lowest.so" "$here/lowest.c" >"$tmp/build.log" 2>&1 &&
   ! grep -q warning "$tmp/build.log"
then pass "lowest.c builds warning-free"
else fail "lowest.c builds warning-free"; diag "$tmp/build.log"; finish
fi
if "$usmp" check-plugin "$tmp/acme/lowest.so" >"$tmp/check" 2>&1 &&
   grep -q "^ok   algorithm acme_lowest: " "$tmp/check"
then pass "usmp check-plugin passes acme_lowest"
else fail "usmp check-plugin passes acme_lowest"; diag "$tmp/check"
fi
export USMP_PLUGIN_PATH="$tmp/acme:$plugindir"
"$usmp" list -v >"$tmp/list" 2>&1
if grep -q "^  volunteer   acme_lowest  *cost 2 .* from $tmp/acme/lowest.so" "$tmp/list" &&
   grep -q "capabilities: .*volunteers for auto" "$tmp/list"
then pass "usmp list -v lists acme_lowest among auto's volunteers"
else fail "usmp list -v lists acme_lowest among auto's volunteers"; diag "$tmp/list"
fi
plan_verify "acme_lowest plans mobilenet_v2.json by -a with knobs" \
	"$mobilenet" -a acme_lowest:order=start -p gap=32
expect_exit 2 "a bad str knob value is the plugin's logged reason" \
	'knob order: expected size or start' \
	plan "$tmp/small.json" -a acme_lowest -p order=area -o "$tmp/x.json"
# A target rule: the board's ethos-u55 part is shared with cortex-m55, so
# the rule names both targets' pattern, or the part's pool.
USMP_ALGORITHM='@sram_npu=acme_lowest;*=first_fit' expect_exit 0 \
	"a pool rule selects acme_lowest for the NPU's part" \
	'algorithm acme_lowest (gap=0 order=size)' \
	plan "$examples/board_m55_u55.json" -o "$tmp/x.json"
# The small problem with both pools reached by ethos-u55 alone.
sed 's/"alignment": 16}/"alignment": 16, "targets": ["ethos-u55"]}/; s/{"name": "dram"}/{"name": "dram", "targets": ["ethos-u55"]}/' \
	"$tmp/small.json" >"$tmp/npu.json"
USMP_ALGORITHM='ethos-u*=acme_lowest:gap=16;*=first_fit' expect_exit 0 \
	"a target rule selects acme_lowest with a knob" \
	'chosen by USMP_ALGORITHM rule "ethos-u\*=acme_lowest:gap=16"' \
	plan "$tmp/npu.json" -o "$tmp/x.json"
# auto runs the volunteer where no heuristic reached the bound (the board's
# CPU part); its run is logged at info.
USMP_LOG=info expect_exit 0 "auto runs the volunteer and logs what it took" \
	'auto: volunteer acme_lowest took .* times the first plan (declared cost 2)' \
	plan "$examples/board_m55_u55.json" --time-limit 30 -o "$tmp/x.json"
finish
