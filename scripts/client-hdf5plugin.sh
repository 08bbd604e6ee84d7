#!/bin/sh
# scripts/client-hdf5plugin.sh PREFIX
#
# A client we did not write: hdf5plugin, the HDF5 compression filters h5py
# users load (its Blosc2 filter is upstream's hdf5-blosc2), built from its
# PyPI sdist against PREFIX's headers and linked to PREFIX's
# libblosc2.so.9 through pkg-config (hdf5plugin's own switch
# HDF5PLUGIN_SYSTEM_LIBRARIES=blosc2), then its own test suite run with that
# library. The build (about 15 minutes on 2 cores: every filter of the
# package is compiled) is cached per version and per hash of PREFIX's
# headers in ${BLOSC2_CLIENTS_CACHE:-~/.cache/blosc2-clients}.
#
# Prints "hdf5plugin: ..." lines; exit 0 iff the suite passes and the
# filter ran on PREFIX's library. Needs python3 with venv and network access
# to PyPI on the first run. Run by `make test-clients`.
set -eu
. "$(dirname "$0")/client-common.sh"
VER=7.1.0
client_init hdf5plugin $VER "$@"
[ -f "$P/lib/pkgconfig/blosc2.pc" ] || {
    echo "hdf5plugin: $P has no lib/pkgconfig/blosc2.pc" >&2
    exit 2
}
"$py" -m pip install -q numpy h5py pkgconfig py-cpuinfo "setuptools>=70" wheel
sdist=$CACHE/hdf5plugin-$VER.tar.gz
if [ ! -f "$sdist" ]; then
    "$py" -m pip download -q --no-deps --no-binary :all: --no-build-isolation \
        -d "$CACHE" "hdf5plugin==$VER"
fi
# the wheel depends on the headers it was compiled with, not on the library
key=$(headers_key)
wheel_dir=$CACHE/wheel-$key
if ! ls "$wheel_dir"/hdf5plugin-*.whl >/dev/null 2>&1; then
    src=$CACHE/src-$key
    rm -rf "$src" && mkdir -p "$src"
    tar xzf "$sdist" -C "$src"
    echo "hdf5plugin: building $VER against $P (cached in $wheel_dir)"
    (cd "$src/hdf5plugin-$VER" &&
        PKG_CONFIG_PATH=$P/lib/pkgconfig HDF5PLUGIN_SYSTEM_LIBRARIES=blosc2 \
            "$py" -m pip wheel -q --no-build-isolation --no-deps -w "$wheel_dir" .) \
        >"$CACHE/build-$key.log" 2>&1 || {
        tail -n 30 "$CACHE/build-$key.log"
        echo "hdf5plugin: build failed (log: $CACHE/build-$key.log)"
        rm -rf "$wheel_dir"
        exit 1
    }
    rm -rf "$src"
fi
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
(cd "$site" && "$py" -m zipfile -e "$wheel_dir"/hdf5plugin-*.whl .)
lib=$(readlink -f "$P/lib/libblosc2.so.9")
# the Blosc2 filter must run on PREFIX's library, not on a copy of its own
LD_LIBRARY_PATH=$P/lib PYTHONPATH=$site "$py" - "$lib" "$site" <<'PY'
import sys, os
import numpy, h5py, hdf5plugin
want, tmp = sys.argv[1], sys.argv[2]
a = numpy.arange(200000, dtype="f8").reshape(200, 1000)
path = os.path.join(tmp, "probe.h5")
with h5py.File(path, "w") as f:
    f.create_dataset("d", data=a, chunks=(50, 500),
                     **hdf5plugin.Blosc2(cname="zstd", clevel=5, filters=hdf5plugin.Blosc2.BITSHUFFLE))
with h5py.File(path, "r") as f:
    same = numpy.array_equal(f["d"][...], a)
maps = {l.split()[-1] for l in open("/proc/self/maps") if "libblosc2" in l}
mapped = {os.path.realpath(m) for m in maps}
print(f"hdf5plugin: Blosc2 filter round trip {'ok' if same else 'WRONG'}; libblosc2 mapped: {sorted(mapped)}")
sys.exit(0 if same and mapped == {want} else 1)
PY
log=$site/test.log
if LD_LIBRARY_PATH=$P/lib PYTHONPATH=$site "$py" -m hdf5plugin.test >"$log" 2>&1; then
    echo "hdf5plugin: $(grep -E '^(Ran|OK)' "$log" | tr '\n' ' ')"
else
    tail -n 40 "$log"
    echo "hdf5plugin: test suite FAILED"
    exit 1
fi
