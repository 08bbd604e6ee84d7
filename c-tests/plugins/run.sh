#!/bin/sh
# c-tests/plugins/run.sh PREFIX OUTDIR: build the stand-in plugin libraries
# and run dynamic_plugins.c's four modes against the libblosc2 in PREFIX.
# Exit 0 when all pass; the log is on stdout.
set -u
P=$1
OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
rm -rf "$OUT" && mkdir -p "$OUT/lib" "$OUT/py/blosc2_tpy"
build_plugin() { # KIND NAME FILE
    $CC -O1 -fPIC -shared -D"$1" -DNAME="$2" -I"$P/include" "$here/plugin.c" -o "$3" || exit 1
}
build_plugin CODEC tcodec "$OUT/lib/libblosc2_tcodec.so"
build_plugin FILTER tfilter "$OUT/lib/libblosc2_tfilter.so"
# stands in for the Python package's grok codec, which upstream registers
# at start-up as id 37
build_plugin CODEC grok "$OUT/lib/libblosc2_grok.so"
# found through Python only: its file name is not libblosc2_tpy.so
build_plugin CODEC tpy "$OUT/py/blosc2_tpy/tpy-plugin.so"
cat >"$OUT/py/blosc2_tpy/__init__.py" <<PY
import os
def print_libpath():
    print(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tpy-plugin.so"), end="")
PY
$CC -std=gnu11 -Wall -I"$P/include" "$here/dynamic_plugins.c" -o "$OUT/dynamic_plugins" \
    -L"$P/lib" -lblosc2 -ldl || exit 1
# python, not only python3, must find the package: put both on PATH
mkdir -p "$OUT/bin"
py=$(command -v python3 || command -v python)
[ -n "$py" ] || { echo "no python"; exit 1; }
ln -sf "$py" "$OUT/bin/python"
ln -sf "$py" "$OUT/bin/python3"
status=0
LD_LIBRARY_PATH=$P/lib:$OUT/lib "$OUT/dynamic_plugins" roundtrip "$OUT/chunk.b2" || status=1
LD_LIBRARY_PATH=$P/lib:$OUT/lib "$OUT/dynamic_plugins" decode "$OUT/chunk.b2" || status=1
LD_LIBRARY_PATH=$P/lib "$OUT/dynamic_plugins" missing "$OUT/chunk.b2" 2>/dev/null || status=1
PATH=$OUT/bin:$PATH PYTHONPATH=$OUT/py TPY_LIB=$OUT/py/blosc2_tpy/tpy-plugin.so \
    LD_LIBRARY_PATH=$P/lib "$OUT/dynamic_plugins" python || status=1
exit $status
