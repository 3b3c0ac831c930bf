#!/bin/sh
# install.sh BUILDDIR — install usmp from a configured meson build dir, move
# the prefix elsewhere, and use it with no USMP_*/LD_LIBRARY_PATH help: the
# `usmp` command, its shipped plugins, pkg-config, the Python package, the
# trust rule for the shipped plugin directory. TAP.
build=${1:?usage: install.sh BUILDDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/consumers/common.sh"
build=$(cd "$build" && pwd)
ulimit -c 0 # the in-process crash below leaves no core file

install_usmp "$build" "$tmp/moved"
usmp=$PREFIX/bin/usmp
version=$(meson introspect --projectinfo "$build" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
abi=$(sed -n 's/^#define USMP_ABI_\(MAJOR\|MINOR\) \([0-9]*\).*/\2/p' \
	"$src/include/usmp/common.h" | paste -sd.)

# The command and its library, found through the $ORIGIN rpath.
if "$usmp" --version >"$tmp/out" 2>&1 &&
   [ "$(cat "$tmp/out")" = "usmp $version (plugin ABI $abi)" ]
then pass "usmp --version prints usmp $version (plugin ABI $abi)"
else fail "usmp --version prints usmp $version (plugin ABI $abi)"; diag "$tmp/out"
fi
# The library's file carries the ABI, the soname its major (what a host
# dlopen()s): libusmp.so.1 -> libusmp.so.1.3.0.
major=${abi%%.*}
if [ "$(readlink "$LIBDIR/libusmp.so.$major")" = "libusmp.so.$abi.0" ] &&
   readelf -d "$LIBDIR/libusmp.so.$abi.0" | grep -q "SONAME.*\[libusmp\.so\.$major\]"
then pass "libusmp.so.$major (the soname) links to libusmp.so.$abi.0"
else fail "libusmp.so.$major (the soname) links to libusmp.so.$abi.0"; ls -l "$LIBDIR" | sed 's/^/# /'
fi
runpath=$(readelf -d "$usmp" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p')
case $runpath in
'$ORIGIN/'*) pass "bin/usmp finds libusmp through \$ORIGIN ($runpath)" ;;
*) fail "bin/usmp finds libusmp through \$ORIGIN (runpath: $runpath)" ;;
esac

# The shipped plugins (plugins/meson.build), found next to the moved library.
nshipped=4 # fit, tvm, exact, sweep
if "$usmp" list -v >"$tmp/list" 2>&1; then
	missing=""
	for a in first_fit best_fit first_fit_sweep exact exact_window \
		greedy_by_size greedy_by_conflicts hill_climb; do
		grep -q "^$a  " "$tmp/list" || missing="$missing $a"
	done
	if [ -z "$missing" ]; then pass "usmp list shows every shipped algorithm"
	else fail "usmp list shows every shipped algorithm (missing:$missing)"; diag "$tmp/list"
	fi
	if [ "$(grep -c "ABI .*: $LIBDIR/usmp-1/[a-z]*\.so$" "$tmp/list")" -eq "$nshipped" ]
	then pass "the $nshipped shipped plugins load from the moved prefix's usmp-1"
	else fail "the $nshipped shipped plugins load from the moved prefix's usmp-1"; diag "$tmp/list"
	fi
else
	fail "usmp list runs"; diag "$tmp/list"
fi

if "$usmp" plan "$src/examples/mobilenet_v2.json" -a best_fit -o "$tmp/x.json" \
	>"$tmp/plan.log" 2>&1 && [ -s "$tmp/x.json" ]
then pass "usmp plan writes a plan"
else fail "usmp plan writes a plan"; diag "$tmp/plan.log"
fi
if "$usmp" verify "$src/examples/mobilenet_v2.json" "$tmp/x.json" \
	>"$tmp/verify.log" 2>&1
then pass "usmp verify accepts it"
else fail "usmp verify accepts it"; diag "$tmp/verify.log"
fi

# No absolute path of the build or source tree in the installed library
# (debug sections aside: they name the compilation directory).
objcopy --strip-debug "$LIBDIR/libusmp.so.1" "$tmp/stripped.so"
if strings "$tmp/stripped.so" | grep -F -e "$build" -e "$src" >"$tmp/hits"
then fail "no build- or source-tree path in the installed libusmp"; diag "$tmp/hits"
else pass "no build- or source-tree path in the installed libusmp"
fi

# pkg-config, with the prefix redefined to where it now lies.
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
pc="pkg-config --define-variable=prefix=$PREFIX"
if [ "$($pc --modversion usmp 2>&1)" = "$version" ]
then pass "pkg-config finds usmp.pc ($version)"
else fail "pkg-config finds usmp.pc"
fi
plugindir=$($pc --variable=plugindir usmp)
if [ "$plugindir" = "$LIBDIR/usmp-1" ] && [ -f "$plugindir/fit.so" ]
then pass "pkg-config's plugindir holds the plugins ($plugindir)"
else fail "pkg-config's plugindir holds the plugins ($plugindir)"
fi

# The Python package, installed by meson, finds the moved library itself.
pyinit=$(find "$PREFIX" -path '*/usmp/__init__.py' | head -n 1)
if [ -n "$pyinit" ] && [ -f "$(dirname "$pyinit")/_paths.py" ]
then pass "meson install puts the Python package (with _paths.py) in the prefix"
else fail "meson install puts the Python package (with _paths.py) in the prefix"; finish
fi
cat >"$tmp/use.py" <<'PY'
import sys
import usmp
p = usmp.Problem()
p.add_pool("sram", size_limit=1 << 20, alignment=16)
p.add_buffer("a", 1000, alignment=16, live=(0, 2))
p.add_buffer("b", 2000, alignment=16, live=(1, 3))
p.add_buffer("c", 1000, alignment=16, live=(2, 4))
plan = usmp.plan(p, algorithm="best_fit")
plan.verify()
a, b, c = (plan.placements[n].offset for n in "abc")
assert b >= a + 1000 or a >= b + 2000, (a, b)   # a and b live together
assert c >= b + 2000 or b >= c + 1000, (b, c)
print("library", usmp._lib.lib().usmp_library_path)
print("version", usmp.version())
print("size", plan.size)
for info in usmp.Registry().plugins:
    print("plugin", info.path)
PY
if PYTHONPATH=$(dirname "$(dirname "$pyinit")") PYTHONDONTWRITEBYTECODE=1 \
	python3 "$tmp/use.py" >"$tmp/py.out" 2>&1
then pass "python3 imports the installed usmp, plans and verifies a problem"
else fail "python3 imports the installed usmp, plans and verifies a problem"; diag "$tmp/py.out"
fi
if grep -q "^library $LIBDIR/libusmp.so.1$" "$tmp/py.out" &&
   grep -q "^version $version$" "$tmp/py.out" &&
   [ "$(grep -c "^plugin $LIBDIR/usmp-1/" "$tmp/py.out")" -eq "$nshipped" ]
then pass "the package uses the moved prefix's library and plugins"
else fail "the package uses the moved prefix's library and plugins"; diag "$tmp/py.out"
fi
if grep -q '^size 3000$' "$tmp/py.out"
then pass "the plan reaches the bound (3000)"
else fail "the plan reaches the bound (3000)"; diag "$tmp/py.out"
fi

# Trust: a plugin in the shipped directory runs in-process (a crash takes the
# command down), reached directly or through a symlinked directory; the same
# file anywhere else runs isolated (exit 4, message).
crash=$build/tests/plugins/crash.so
if [ -f "$crash" ]; then
	mkdir "$tmp/other"
	cp "$crash" "$tmp/other/"
	USMP_PLUGIN_PATH=$tmp/other "$usmp" plan "$src/examples/mobilenet_v2.json" \
		-a fx_crash -o /dev/null >"$tmp/crash.log" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && grep -q 'fx_crash' "$tmp/crash.log"
	then pass "a plugin outside the shipped directory runs isolated (exit 4)"
	else fail "a plugin outside the shipped directory runs isolated (exit $rc)"; diag "$tmp/crash.log"
	fi
	mv "$tmp/other/crash.so" "$LIBDIR/usmp-1/"
	"$usmp" plan "$src/examples/mobilenet_v2.json" -a fx_crash -o /dev/null \
		>"$tmp/crash.log" 2>&1
	rc=$?
	if [ $rc -gt 128 ]
	then pass "a plugin in the moved shipped directory runs in-process (signal $((rc - 128)))"
	else fail "a plugin in the moved shipped directory runs in-process (exit $rc)"; diag "$tmp/crash.log"
	fi
	ln -s "$LIBDIR/usmp-1" "$tmp/linked"
	USMP_PLUGIN_PATH=$tmp/linked "$usmp" plan "$src/examples/mobilenet_v2.json" \
		-a fx_crash -o /dev/null >"$tmp/crash.log" 2>&1
	rc=$?
	if [ $rc -gt 128 ]
	then pass "the shipped directory reached through a symlink is trusted too"
	else fail "the shipped directory reached through a symlink is trusted too (exit $rc)"; diag "$tmp/crash.log"
	fi
else
	skip "trust rule checks" "no $crash (configure with -Dtests=enabled)"
fi
finish
