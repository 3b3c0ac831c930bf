#!/bin/sh
# test.sh BUILDDIR — install usmp from a configured meson build dir into a
# temporary destdir, build the example host against that install with
# pkg-config alone, run it, and check its output and its ABI refusal. TAP.
set -u
build=${1:?usage: test.sh BUILDDIR}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usmp-host.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; failed=$((failed + 1)); }
diag() { sed 's/^/# /' "$@"; }
finish() { echo "1..$n"; [ "$failed" -eq 0 ]; exit $?; }

if meson install -C "$build" --destdir "$tmp/root" >"$tmp/install.log" 2>&1
then pass "meson install into a temporary destdir"
else fail "meson install into a temporary destdir"; diag "$tmp/install.log"; finish
fi

pc=$(find "$tmp/root" -name usmp.pc | head -n 1)
if [ -n "$pc" ]; then pass "usmp.pc installed"
else fail "usmp.pc installed"; finish
fi
# Relocate the installed tree: every path in usmp.pc derives from ${prefix}.
export PKG_CONFIG_PATH="$(dirname "$pc")"
prefix=$(pkg-config --variable=prefix usmp)
PKG_CONFIG="pkg-config --define-variable=prefix=$tmp/root$prefix"
libdir=$($PKG_CONFIG --variable=libdir usmp)
plugindir=$($PKG_CONFIG --variable=plugindir usmp)
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
finish
