#!/bin/sh
# firsthour5.sh BUILDDIR RELOCATABLE CC... — an NPU toolchain engineer's first
# hour against an installed usmp whose prefix was moved: pkg-config alone
# builds a host (firsthour5/npu_host.c) and a plugin (firsthour5/acme.c), the
# plugin is checked, found on USMP_PLUGIN_PATH and in the plugin directory,
# volunteers for auto, and a broken one is refused. RELOCATABLE is the build's
# pkgconfig.relocatable option (true: usmp.pc follows the moved prefix). TAP.
build=${1:?usage: firsthour5.sh BUILDDIR RELOCATABLE CC...}
relocatable=${2:?usage: firsthour5.sh BUILDDIR RELOCATABLE CC...}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "$build" && pwd)
TMPDIR=$build # the temporary install lies under the build directory
. "$here/common.sh"
unset TMPDIR
pc=$(command -v pkg-config || command -v pkgconf || true)
[ -n "$pc" ] || { skip "an installed usmp through pkg-config" "no pkg-config"; finish; }

# Install through a stage (--no-rebuild: meson test built it), then move the
# prefix: nothing may point at the build tree or the configured prefix.
if meson install -C "$build" --no-rebuild --destdir "$tmp/stage" \
	>"$tmp/install.log" 2>&1
then :
else fail "meson install --destdir"; diag "$tmp/install.log"; finish
fi
exe=$(find "$tmp/stage" -path '*/bin/usmp' -type f | head -n 1)
[ -n "$exe" ] || { fail "meson install puts bin/usmp"; finish; }
mv "$(dirname "$(dirname "$exe")")" "$tmp/moved"
PREFIX=$tmp/moved
LIBDIR=$(dirname "$(find "$PREFIX" -name libusmp.so.1 | head -n 1)")
usmp=$PREFIX/bin/usmp
pass "meson install --destdir, prefix moved to $PREFIX"

# usmp.pc with PKG_CONFIG_PATH alone: its paths follow the moved prefix.
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
real() { (cd "$1" 2>/dev/null && pwd -P); }
if [ "$relocatable" = true ]; then
	# The -I holding usmp/usmp.h and the -L holding libusmp.so (libffi's
	# and jansson's may come too, where they are not in /usr).
	inc=; lib=
	for f in $("$pc" --cflags-only-I --libs-only-L usmp); do
		case $f in
		-I*) [ -f "${f#-I}/usmp/usmp.h" ] && [ -z "$inc" ] && inc=${f#-I} ;;
		-L*) [ -e "${f#-L}/libusmp.so" ] && [ -z "$lib" ] && lib=${f#-L} ;;
		esac
	done
	pdir=$("$pc" --variable=plugindir usmp)
	if [ -f "$inc/usmp/usmp.h" ] && [ "$(real "$inc")" = "$(real "$PREFIX/include")" ] &&
	   [ "$(real "$lib")" = "$(real "$LIBDIR")" ] &&
	   [ "$(real "$pdir")" = "$(real "$LIBDIR/usmp-1")" ] && [ -f "$pdir/fit.so" ]
	then pass "pkg-config --cflags, --libs and plugindir name the moved prefix"
	else fail "pkg-config --cflags, --libs and plugindir name the moved prefix"
		echo "# -I $inc -L $lib plugindir $pdir"; echo "# moved to $PREFIX"
	fi
	PC=$pc
else
	skip "pkg-config names the moved prefix" "built with -Dpkgconfig.relocatable=false"
	PC="$pc --define-variable=prefix=$PREFIX"
fi

# usmp.pc requires nothing else: a machine with the prefix copied in but
# without libffi's and jansson's .pc files (no -dev packages) builds too.
mkdir -p "$tmp/no-pc"
if PKG_CONFIG_LIBDIR="$tmp/no-pc" $PC --cflags --libs usmp >"$tmp/alone.out" 2>&1
then pass "pkg-config --cflags --libs usmp needs no other package's .pc file"
else fail "pkg-config --cflags --libs usmp needs no other package's .pc file"; diag "$tmp/alone.out"
fi

# The host: compiled and linked with pkg-config's flags and an rpath.
# shellcheck disable=SC2046,SC2086 # the flags are words
if "$@" -std=c11 -Wall -Wextra -Werror -o "$tmp/npu_host" "$here/firsthour5/npu_host.c" \
	$($PC --cflags --libs usmp) -Wl,-rpath,"$($PC --variable=libdir usmp)" \
	>"$tmp/cc.log" 2>&1
then pass "npu_host.c builds with pkg-config --cflags --libs usmp and an rpath"
else fail "npu_host.c builds with pkg-config --cflags --libs usmp and an rpath"
	diag "$tmp/cc.log"; finish
fi
"$tmp/npu_host" auto >"$tmp/auto.out" 2>&1
if grep -q '^part ethos-u55 auto/[a-z_]*.* rule=\*=auto size=57344 bound=57344 spill=0$' "$tmp/auto.out" &&
   grep -q '^part cortex-m55 auto/' "$tmp/auto.out" &&
   grep -qx 'pool sram 57344' "$tmp/auto.out" && grep -qx 'verify ok' "$tmp/auto.out"
then pass "the host plans SRAM+DRAM with auto at the bound (57344 bytes: 65536 without the rules), no spill"
else fail "the host plans SRAM+DRAM with auto at the bound"; diag "$tmp/auto.out"
fi
"$tmp/npu_host" rules 'ethos-u*=exact;cortex-m*=best_fit' >"$tmp/rules.out" 2>&1
if grep -q '^part ethos-u55 exact rule=ethos-u\*=exact size=57344 ' "$tmp/rules.out" &&
   grep -q '^part cortex-m55 best_fit rule=cortex-m\*=best_fit size=4000 ' "$tmp/rules.out" &&
   grep -qx 'verify ok' "$tmp/rules.out"
then pass "one algorithm per target: exact for ethos-u55, best_fit for cortex-m55"
else fail "one algorithm per target"; diag "$tmp/rules.out"
fi

# The plugin: the installed headers alone, no -lusmp.
plugins=$tmp/plugins
mkdir -p "$plugins" "$tmp/liar"
cflags=$($PC --cflags usmp)
# shellcheck disable=SC2086
if cc -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared -fvisibility=hidden $cflags \
	-o "$plugins/acme.so" "$here/firsthour5/acme.c" >"$tmp/pcc.log" 2>&1 &&
   cc -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared -fvisibility=hidden $cflags \
	-DACME_LIAR -o "$tmp/liar/liar.so" "$here/firsthour5/acme.c" >>"$tmp/pcc.log" 2>&1 &&
   [ "$(nm -D --defined-only "$plugins/acme.so" | awk '{print $3}')" = usmp_plugin_v1 ]
then pass "acme.c builds with pkg-config --cflags usmp alone, exporting usmp_plugin_v1 only"
else fail "acme.c builds with pkg-config --cflags usmp alone"; diag "$tmp/pcc.log"; finish
fi
if "$usmp" check-plugin "$plugins/acme.so" >"$tmp/check.out" 2>&1 &&
   grep -q '^ok   algorithm acme_spill: ' "$tmp/check.out"
then pass "usmp check-plugin passes acme_spill"
else fail "usmp check-plugin passes acme_spill"; diag "$tmp/check.out"
fi
"$usmp" check-plugin "$tmp/liar/liar.so" >"$tmp/check2.out" 2>&1
st=$?
if [ "$st" -eq 4 ] &&
   grep -q '^FAIL algorithm acme_liar with its default knobs, .*: returned a plan the verifier rejects: buffers ' "$tmp/check2.out"
then pass "usmp check-plugin fails acme_liar (exit 4), naming the verifier's finding"
else fail "usmp check-plugin fails acme_liar (exit $st)"; diag "$tmp/check2.out"
fi

# On USMP_PLUGIN_PATH: listed, planned with, a volunteer of auto.
cp "$tmp/liar/liar.so" "$plugins/"
export USMP_PLUGIN_PATH="$plugins"
"$usmp" list -v >"$tmp/list.out" 2>&1
if grep -qx 'acme_spill  (acme)' "$tmp/list.out" &&
   grep -q '^  capabilities: multi-pool, conflict-edges, deterministic, volunteers for auto$' "$tmp/list.out" &&
   grep -q "^  volunteer   acme_spill .* from $plugins/acme.so$" "$tmp/list.out"
then pass "usmp list -v shows acme_spill from USMP_PLUGIN_PATH, a volunteer of auto"
else fail "usmp list -v shows acme_spill from USMP_PLUGIN_PATH"; diag "$tmp/list.out"
fi
cat >"$tmp/npu.json" <<'EOF'
{"usmp": 1, "pools": [{"name": "sram", "size_limit": 65536, "targets": ["npu"]},
                      {"name": "dram", "targets": ["npu"]}],
 "buffers": [{"name": "a", "size": 20000, "live": [0, 2], "pools": ["sram", "dram"]},
             {"name": "b", "size": 20000, "live": [1, 3], "pools": ["sram", "dram"]},
             {"name": "c", "size": 20000, "live": [2, 4], "pools": ["sram", "dram"]}],
 "overlaps": [{"src": "b", "dst": "c", "max_lead": 0}]}
EOF
if "$usmp" plan "$tmp/npu.json" -a acme_spill -p gap=64 -o "$tmp/plan.json" >"$tmp/plan.log" 2>&1 &&
   "$usmp" verify "$tmp/npu.json" "$tmp/plan.json" >>"$tmp/plan.log" 2>&1 &&
   grep -q 'algorithm acme_spill (gap=64)' "$tmp/plan.log"
then pass "usmp plan -a acme_spill -p gap=64 plans, usmp verify accepts it"
else fail "usmp plan -a acme_spill -p gap=64"; diag "$tmp/plan.log"
fi
"$usmp" plan "$tmp/npu.json" -a acme_liar -o "$tmp/liar.json" >"$tmp/liar.log" 2>&1
st=$?
if [ "$st" -eq 4 ] && [ ! -e "$tmp/liar.json" ] &&
   grep -q 'algorithm "acme_liar" returned an invalid plan: buffers "a" and "b" overlap in pool "sram"' "$tmp/liar.log"
then pass "usmp plan -a acme_liar: exit 4, the verifier's finding, no plan written"
else fail "usmp plan -a acme_liar (exit $st)"; diag "$tmp/liar.log"
fi
"$tmp/npu_host" spec acme_spill >"$tmp/host_spec.out" 2>&1
"$tmp/npu_host" spec acme_liar >"$tmp/host_liar.out" 2>&1
if grep -q '^part ethos-u55 acme_spill rule=acme_spill ' "$tmp/host_spec.out" &&
   grep -qx 'verify ok' "$tmp/host_spec.out" &&
   grep -q '^error plugin failure: algorithm "acme_liar" returned an invalid plan: ' "$tmp/host_liar.out"
then pass "the host plans with acme_spill and gets USMP_ERR_PLUGIN from acme_liar"
else fail "the host with the plugin"; diag "$tmp/host_spec.out" "$tmp/host_liar.out"
fi
# A problem no shipped heuristic plans at its bound, auto without its
# search: both volunteers run; the liar's plan is dropped with a warning
# that usmp plan prints unasked; USMP_LOG=info says what each run took.
d=$src/tests/data/minimalloc/D.1048576.csv
"$usmp" plan "$d" -a auto -p improve=false --time-limit 60 -o "$tmp/auto.json" \
	>"$tmp/vol.log" 2>&1
st=$?
if [ "$st" -eq 0 ] && [ -s "$tmp/auto.json" ] &&
   grep -q '^usmp: auto: volunteer acme_liar returned an invalid plan (dropped): buffers ' "$tmp/vol.log" &&
   ! grep -q 'volunteer acme_spill' "$tmp/vol.log"
then pass "auto drops the liar's plan and usmp plan says so without USMP_LOG"
else fail "auto drops the liar's plan, said without USMP_LOG (exit $st)"; diag "$tmp/vol.log"
fi
USMP_LOG=info "$usmp" plan "$d" -a auto -p improve=false --time-limit 60 \
	-o /dev/null >"$tmp/vol2.log" 2>&1
st=$?
if [ "$st" -eq 0 ] && grep -q '^usmp: auto: volunteer acme_spill took ' "$tmp/vol2.log"
then pass "USMP_LOG=info: auto ran the volunteer acme_spill and says what it took"
else fail "USMP_LOG=info: auto ran acme_spill (exit $st)"; diag "$tmp/vol2.log"
fi

# A misspelt USMP_PLUGIN_PATH: the error names the entry.
USMP_PLUGIN_PATH="$tmp/plugin" "$usmp" plan "$tmp/npu.json" -a acme_spill -q \
	-o "$tmp/typo.json" >"$tmp/typo.log" 2>&1
st=$?
if [ "$st" -eq 2 ] &&
   grep -q "entries of USMP_PLUGIN_PATH that gave no plugin: $tmp/plugin: plugin directory not found" "$tmp/typo.log"
then pass "a misspelt USMP_PLUGIN_PATH entry is named when acme_spill is not found (exit 2)"
else fail "a misspelt USMP_PLUGIN_PATH entry is named (exit $st)"; diag "$tmp/typo.log"
fi

# For everyone: copied into the moved prefix's plugin directory (pkg-config's
# plugindir, checked above), found without USMP_PLUGIN_PATH.
unset USMP_PLUGIN_PATH
cp "$plugins/acme.so" "$LIBDIR/usmp-1/"
if "$usmp" list -v >"$tmp/list2.out" 2>&1 &&
   grep -q '^  acme 0.1 (MIT), ABI [0-9.]*, 1 algorithm: .*/usmp-1/acme.so$' "$tmp/list2.out" &&
   "$usmp" plan "$tmp/npu.json" -a acme_spill -q -o "$tmp/plan2.json" >"$tmp/plan2.log" 2>&1
then pass "in pkg-config's plugindir acme_spill is found with no USMP_PLUGIN_PATH"
else fail "in pkg-config's plugindir acme_spill is found"; diag "$tmp/list2.out" "$tmp/plan2.log"
fi
finish
