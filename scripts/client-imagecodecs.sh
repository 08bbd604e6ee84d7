#!/bin/sh
# scripts/client-imagecodecs.sh PREFIX
#
# A client we did not write: imagecodecs, the codec collection tifffile and
# zarr users load, whose _blosc2 extension is a Cython wrapper of the C API
# (blosc2_create_cctx/dctx, blosc2_compress_ctx, blosc2_decompress_ctx,
# blosc2_cbuffer_sizes, ...). Built from its PyPI sdist against PREFIX's
# headers, only that extension and the two it needs, linked to PREFIX's
# libblosc2.so.9; then imagecodecs' own Blosc2 tests (its codec tests,
# which compare against python-blosc2's output, and the numcodecs and zarr
# ones) run on that library; python-blosc2's wheel carries upstream 3.3.5
# statically, so those comparisons cross the two implementations. The build
# takes about a minute and is cached per version and per hash of PREFIX's
# headers in ${BLOSC2_CLIENTS_CACHE:-~/.cache/blosc2-clients}.
#
# Prints "imagecodecs: ..." lines; exit 0 iff the tests pass and ran on
# PREFIX's library. Needs python3 (3.11 or later) with venv, a C compiler
# and network access to PyPI on the first run. Run by `make test-clients`.
set -eu
. "$(dirname "$0")/client-common.sh"
VER=2026.10.10
client_init imagecodecs $VER "$@"
# python-blosc2 for the tests that check imagecodecs against it: its wheel
# links a static copy of upstream C-Blosc2 3.3.5 into its extension, so those
# tests are round trips between upstream and PREFIX's library
"$py" -m pip install -q numpy==2.4.6 "cython>=3.1" "setuptools>=70" wheel pytest \
    blosc2==4.14.1 numcodecs==0.16.6 zarr==3.1.6
sdist=$CACHE/imagecodecs-$VER.tar.gz
if [ ! -f "$sdist" ]; then
    # it asks for Python 3.12 only for its limited-API wheels, which this
    # build does not make
    "$py" -m pip download -q --no-deps --no-binary :all: --no-build-isolation \
        --ignore-requires-python -d "$CACHE" "imagecodecs==$VER"
fi
key=$(headers_key)
src=$CACHE/src-$key
tree=$src/imagecodecs-$VER
if ! ls "$tree"/imagecodecs/_blosc2.*.so >/dev/null 2>&1; then
    rm -rf "$src" && mkdir -p "$src"
    tar xzf "$sdist" -C "$src"
    # imagecodecs' hook for distributors: build shared, imcd and blosc2,
    # against PREFIX
    cat >"$tree/imagecodecs_distributor_setup.py" <<'PY'
import os


def customize_build(extensions, options):
    del options["shared_utility_qualified_name"]
    prefix = os.environ["BLOSC2_PREFIX"]
    for name in tuple(extensions):
        if name not in ("shared", "imcd", "blosc2"):
            extensions.pop(name)
    for ext in extensions.values():
        ext["include_dirs"].append(prefix + "/include")
        ext["library_dirs"].append(prefix + "/lib")
        ext["extra_link_args"].append("-Wl,-rpath," + prefix + "/lib")
PY
    echo "imagecodecs: building $VER against $P (cached in $src)"
    (cd "$tree" && BLOSC2_PREFIX=$P CG_LIMITED_API=0 \
        "$py" setup.py build_ext --inplace) >"$CACHE/build-$key.log" 2>&1 || {
        tail -n 30 "$CACHE/build-$key.log"
        echo "imagecodecs: build failed (log: $CACHE/build-$key.log)"
        rm -rf "$src"
        exit 1
    }
fi
lib=$(readlink -f "$P/lib/libblosc2.so.9")
# Preloaded, PREFIX's library answers every request for libblosc2.so.9, so
# imagecodecs cannot bind to another copy whatever its rpath says.
run() {
    (cd "$tree" && LD_PRELOAD=$lib PYTHONPATH=$tree "$py" "$@")
}
run - "$lib" <<'PY'
import os, sys
import numpy, imagecodecs, blosc2
a = numpy.arange(100000, dtype="f8")
enc = imagecodecs.blosc2_encode(a, level=5, compressor="zstd", typesize=8, shuffle=2)
same = numpy.array_equal(numpy.frombuffer(imagecodecs.blosc2_decode(enc), "f8"), a)
same = same and numpy.array_equal(numpy.frombuffer(blosc2.decompress(enc), "f8"), a)
maps = {os.path.realpath(l.split()[-1]) for l in open("/proc/self/maps") if "libblosc2" in l}
print(f"imagecodecs: {imagecodecs.blosc2_version()} round trip {'ok' if same else 'WRONG'}; "
      f"libblosc2 mapped: {sorted(maps)}")
sys.exit(0 if same and maps == {sys.argv[1]} else 1)
PY
log=$CACHE/test-$key.log
if run -m pytest -q -p no:cacheprovider -k blosc2 tests/test_imagecodecs.py \
    tests/test_numcodecs.py tests/test_zarr.py >"$log" 2>&1; then
    echo "imagecodecs: $(tail -n 1 "$log")"
    # a skip would hide a test that did not run on the library
    if grep -q skipped "$log"; then
        echo "imagecodecs: tests were skipped"
        exit 1
    fi
else
    tail -n 40 "$log"
    echo "imagecodecs: tests FAILED"
    exit 1
fi
