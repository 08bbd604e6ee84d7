#!/bin/sh
# scripts/client-pytables.sh PREFIX
#
# A client we did not write: PyTables, whose extensions call libblosc2
# directly (super-chunks opened at an offset inside HDF5 files, lazy chunks,
# getitem, b2nd metalayers, the HDF5 Blosc2 filter) besides its HDF5
# filter. Built from its PyPI sdist against PREFIX's headers and
# libblosc2.so.9, then its whole test suite (tables.tests.test_all) run on
# that library.
#
# PyTables 3.11.1 uses BLOSC2_MAX_DIM, which C-Blosc2 3.x removed (upstream
# C-Blosc2 issue #769); it is defined as 8 on the command line, the
# workaround PyTables itself took until it moved to B2ND_MAX_DIM. The build
# (about 8 minutes) is cached per version and per hash of PREFIX's headers
# in ${BLOSC2_CLIENTS_CACHE:-~/.cache/blosc2-clients}.
#
# Needs python3 with venv, a C compiler, HDF5's development files
# (libhdf5-dev; HDF5_DIR if they are not where Debian puts them) and
# network access to PyPI on the first run. Prints "pytables: ..." lines;
# exit 0 iff the suite passes on PREFIX's library. Run by
# `make test-clients`.
set -eu
. "$(dirname "$0")/client-common.sh"
VER=3.11.1
client_init pytables $VER "$@"
HDF5_DIR=${HDF5_DIR:-/usr/lib/x86_64-linux-gnu/hdf5/serial}
if [ ! -f "$HDF5_DIR/include/hdf5.h" ]; then
    echo "pytables: no HDF5 development files in $HDF5_DIR (apt-get update && apt-get install libhdf5-dev, or set HDF5_DIR)"
    exit 1
fi
export HDF5_DIR
"$py" -m pip install -q numpy numexpr "cython>=3" packaging py-cpuinfo \
    "setuptools>=70" wheel typing-extensions
sdist=$CACHE/tables-$VER.tar.gz
if [ ! -f "$sdist" ]; then
    # preparing its metadata already looks for Blosc2
    BLOSC2_DIR=$P "$py" -m pip download -q --no-deps --no-binary :all: \
        --no-build-isolation -d "$CACHE" "tables==$VER"
fi
key=$(headers_key)
src=$CACHE/src-$key
tree=$src/tables-$VER
if ! ls "$tree"/tables/hdf5extension*.so >/dev/null 2>&1; then
    rm -rf "$src" && mkdir -p "$src"
    tar xzf "$sdist" -C "$src"
    echo "pytables: building $VER against $P (cached in $src)"
    (cd "$tree" && BLOSC2_DIR=$P CFLAGS="-DBLOSC2_MAX_DIM=8" \
        "$py" setup.py build_ext --inplace) >"$CACHE/build-$key.log" 2>&1 || {
        tail -n 30 "$CACHE/build-$key.log"
        echo "pytables: build failed (log: $CACHE/build-$key.log)"
        rm -rf "$src"
        exit 1
    }
fi
lib=$(readlink -f "$P/lib/libblosc2.so.9")
run() {
    (cd "$tree" && LD_LIBRARY_PATH=$P/lib PYTHONPATH=$tree "$py" "$@")
}
run - "$lib" <<'PY'
import os, sys
import tables
maps = {os.path.realpath(l.split()[-1]) for l in open("/proc/self/maps") if "libblosc2" in l}
print(f"pytables: {tables.__version__} on Blosc2 {tables.which_lib_version('blosc2')[1]}; "
      f"libblosc2 mapped: {sorted(maps)}")
sys.exit(0 if maps == {sys.argv[1]} else 1)
PY
log=$CACHE/test-$key.log
if run -m tables.tests.test_all >"$log" 2>&1; then
    echo "pytables: $(grep -E '^Ran ' "$log") $(tail -n 1 "$log")"
else
    grep -E '^(FAIL|ERROR):' "$log" | head -n 20
    tail -n 5 "$log"
    echo "pytables: test suite FAILED (log: $log)"
    exit 1
fi
