#!/bin/sh
# test.sh BUILDDIR — install usmp from a configured meson build dir into a
# temporary destdir, build the example hosts against that install with
# pkg-config alone (host.c dlopen()s libusmp, npu.c links it), run them, and
# check their output and host.c's ABI refusal. TAP.
set -u
build=${1:?usage: test.sh BUILDDIR}
here=$(cd "$(dirname "$0")" && pwd)
what=host
. "$here/../test_install.sh"

install_by_pc "$build"
pass "usmp.pc installed"
if [ -e "$libdir/libusmp.so.1" ] && [ -d "$plugindir" ]
then pass "libdir and plugindir from pkg-config exist ($plugindir)"
else fail "libdir and plugindir from pkg-config exist ($libdir, $plugindir)"
fi

# build.sh runs plain `pkg-config --cflags usmp`; the sysroot makes its -I
# point into the destdir.
if PKG_CONFIG_SYSROOT_DIR="$tmp/root" "$here/build.sh" "$tmp/host" \
	>"$tmp/build.log" 2>&1
then pass "host builds with cc and pkg-config --cflags usmp, warning-free"
	if grep -q 'warning' "$tmp/build.log"; then
		fail "no compiler warnings"; diag "$tmp/build.log"
	fi
else fail "host builds with cc and pkg-config --cflags usmp"; diag "$tmp/build.log"; finish
fi

if readelf -d "$tmp/host" 2>/dev/null | grep NEEDED | grep -q usmp
then fail "host has no link-time dependency on libusmp"
else pass "host has no link-time dependency on libusmp"
fi

run() {
	LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	USMP_PLUGIN_PATH="$plugindir" "$tmp/host" "$@" \
		>"$tmp/out" 2>"$tmp/err"
}

if run; then pass "host plans the graph with the installed library"
else fail "host plans the graph with the installed library (exit $?)"; diag "$tmp/err"
fi
if grep -q 'using .*libusmp.so.1: usmp .*, ABI 1\.' "$tmp/err"
then pass "host reports the library version and ABI"
else fail "host reports the library version and ABI"; diag "$tmp/err"
fi
if grep -q '^part [0-9]*: target ethos-u55, 6 buffers, algorithm ' "$tmp/err" &&
   grep -q '^part [0-9]*: target cortex-m55, 5 buffers, algorithm ' "$tmp/err"
then pass "both parts planned (ethos-u55 and cortex-m55)"
else fail "both parts planned (ethos-u55 and cortex-m55)"; diag "$tmp/err"
fi
if grep -q 'target ethos-u55 -> \(exact\|best_fit\) (rule "ethos-u\*=' "$tmp/err" &&
   grep -q 'target cortex-m55 -> first_fit (rule "\*=first_fit")' "$tmp/err"
then pass "per-target bindings select the algorithms"
else fail "per-target bindings select the algorithms"; diag "$tmp/err"
fi
# Every tensor appears once with an offset, in the array of its pool.
count() { awk -v a="$1" '$0 ~ "^static const uint32_t "a"_offsets" {on=1; next}
	on && /^};/ {on=0} on && /u, \/\* / {c++} END {print c+0}' "$tmp/out"; }
npu=$(count npu_sram); dtcm=$(count dtcm); dram=$(count dram)
if [ "$npu" -eq 6 ] && [ $((dtcm + dram)) -eq 5 ]
then pass "offset arrays list every tensor once (npu_sram $npu, dtcm $dtcm, dram $dram)"
else fail "offset arrays list every tensor once (npu_sram $npu, dtcm $dtcm, dram $dram)"; diag "$tmp/out"
fi
if grep -q '#define DTCM_SIZE' "$tmp/out" && [ "$dram" -ge 1 ]
then pass "tensors that do not fit dtcm spill to dram"
else fail "tensors that do not fit dtcm spill to dram"; diag "$tmp/out"
fi
# The emitted tables compile as C.
if cc -std=c11 -Wall -Werror -c -x c "$tmp/out" -o "$tmp/out.o" 2>"$tmp/cc.log" ||
   grep -q 'defined but not used' "$tmp/cc.log"
then pass "emitted offset tables are valid C"
else fail "emitted offset tables are valid C"; diag "$tmp/cc.log"
fi
if run --algorithm best_fit && grep -q 'algorithm best_fit' "$tmp/err"
then pass "--algorithm overrides the bindings for every part"
else fail "--algorithm overrides the bindings for every part"; diag "$tmp/err"
fi

if command -v valgrind >/dev/null 2>&1; then
	if LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	   USMP_PLUGIN_PATH="$plugindir" valgrind -q --error-exitcode=99 \
	   --leak-check=full --errors-for-leak-kinds=definite "$tmp/host" \
	   >/dev/null 2>"$tmp/vg.log"
	then pass "host runs clean under valgrind (no errors, no definite leaks)"
	else fail "host runs clean under valgrind"; diag "$tmp/vg.log"
	fi
else
	pass "host runs clean under valgrind # SKIP valgrind not installed"
fi

if run --require-abi 1.9; then rc=0; else rc=$?; fi
if [ "$rc" -eq 1 ] && grep -q 'needs 1.9.*refusing' "$tmp/err"
then pass "--require-abi 1.9 refuses the library (exit 1, message)"
else fail "--require-abi 1.9 refuses the library (exit $rc)"; diag "$tmp/err"
fi
if run --require-abi 2.0; then rc=0; else rc=$?; fi
if [ "$rc" -eq 1 ] && grep -q 'needs 2.0.*refusing' "$tmp/err"
then pass "--require-abi 2.0 refuses a library of another major"
else fail "--require-abi 2.0 refuses a library of another major (exit $rc)"; diag "$tmp/err"
fi
if run --require-abi 1.0
then pass "--require-abi 1.0 accepts the library"
else fail "--require-abi 1.0 accepts the library"; diag "$tmp/err"
fi
if "$tmp/host" --lib "$tmp/nonexistent/libusmp.so.1" >/dev/null 2>"$tmp/err"
then fail "a missing library is an error"
else pass "a missing library is an error with a message"
fi

# npu.c links libusmp as docs/hosts.md says: pkg-config --cflags --libs and
# an rpath to the libdir, then runs with no LD_LIBRARY_PATH or USMP_* help.
ccnpu() { # output [extra flags...]
	o=$1; shift
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
		-Wmissing-prototypes -O2 $($PKG_CONFIG --cflags usmp) -o "$o" \
		"$here/npu.c" $($PKG_CONFIG --libs usmp) -pthread "$@"
}
bare() { env -u LD_LIBRARY_PATH -u USMP_PLUGIN_PATH -u USMP_ALGORITHM \
	-u USMP_LOG "$@"; }
if ccnpu "$tmp/npu" -Wl,-rpath,"$libdir" >"$tmp/npu.log" 2>&1 &&
   ! grep -q warning "$tmp/npu.log"
then pass "npu.c builds warning-free with pkg-config --cflags --libs and an rpath"
else fail "npu.c builds with pkg-config --cflags --libs and an rpath"; diag "$tmp/npu.log"; finish
fi
if bare "$tmp/npu" >"$tmp/out" 2>"$tmp/err"
then pass "npu runs with no LD_LIBRARY_PATH and finds the plugins by itself"
else fail "npu runs with no LD_LIBRARY_PATH (exit $?)"; diag "$tmp/out" "$tmp/err"
fi
if grep -q '^auto: auto/[a-z_:=]*, 250528 bytes, lower bound 250528, optimal$' "$tmp/out" &&
   grep -q '^exact: exact, 250528 bytes, lower bound 250528, optimal$' "$tmp/out"
then pass "auto and exact plan the SRAM+DRAM graph at its lower bound"
else fail "auto and exact plan the SRAM+DRAM graph at its lower bound"; diag "$tmp/out"
fi
if grep -q '^200 KiB SRAM, no DRAM: infeasible$' "$tmp/out" &&
   grep -q '^  pool sram needs 250528 bytes at step 0, limit 204800$' "$tmp/out" &&
   grep -q '^  live there: input$' "$tmp/out"
then pass "the infeasible SRAM gets a step certificate through usmp_plan_infeasibility"
else fail "the infeasible SRAM gets a step certificate"; diag "$tmp/out"
fi
if grep -q '^log messages: [1-9]' "$tmp/out" &&
   grep -q '^2 threads, one registry: 20 plans, each the same$' "$tmp/out"
then pass "the log function gets the messages; two threads share the registry"
else fail "the log function gets the messages; two threads share the registry"; diag "$tmp/out"
fi
# Without the rpath the loader stops it, as docs/errors.md ("First hour") says.
if /sbin/ldconfig -p 2>/dev/null | grep -q 'libusmp\.so\.1 '; then
	pass "without the rpath the loader cannot find libusmp.so.1 # SKIP a libusmp.so.1 is installed system-wide"
elif ccnpu "$tmp/npu-norpath" >"$tmp/npu.log" 2>&1; then
	if bare "$tmp/npu-norpath" >/dev/null 2>"$tmp/err"; then rc=0; else rc=$?; fi
	if [ "$rc" -eq 127 ] && grep -q 'libusmp.so.1: cannot open shared object file' "$tmp/err"
	then pass "without the rpath the loader cannot find libusmp.so.1 (exit 127)"
	else fail "without the rpath the loader cannot find libusmp.so.1 (exit $rc)"; diag "$tmp/err"
	fi
else
	fail "npu.c builds without the rpath"; diag "$tmp/npu.log"
fi
if command -v valgrind >/dev/null 2>&1; then
	if bare valgrind -q --error-exitcode=99 --leak-check=full \
	   --errors-for-leak-kinds=definite "$tmp/npu" >/dev/null 2>"$tmp/vg.log"
	then pass "npu runs clean under valgrind"
	else fail "npu runs clean under valgrind"; diag "$tmp/vg.log"
	fi
else
	pass "npu runs clean under valgrind # SKIP valgrind not installed"
fi
finish
