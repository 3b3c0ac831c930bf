#!/bin/sh
# run_tests.sh BUILDDIR — run the Python binding's tests against the library
# and plugins of a meson build dir. Ends with unittest's summary
# ("Ran N tests", then "OK" or "FAILED (failures=N, errors=N)"); exit status
# non-zero on failure.
set -u
build=${1:?usage: run_tests.sh BUILDDIR}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
lib="$build/src/libusmp.so.1"
[ -e "$lib" ] || { echo "run_tests.sh: no $lib (build first)" >&2; exit 2; }
USMP_LIBRARY="$lib" USMP_PLUGIN_PATH="$build/plugins" \
PYTHONDONTWRITEBYTECODE=1 \
	exec python3 -m unittest discover -s "$here/tests" -t "$here/tests" -v
