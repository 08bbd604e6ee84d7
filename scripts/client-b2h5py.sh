#!/bin/sh
# scripts/client-b2h5py.sh PREFIX
#
# A client we did not write: b2h5py, Blosc's "optimized slicing" for h5py.
# It finds a Blosc2-compressed chunk inside an HDF5 file and opens it in
# place with python-blosc2 (a super-chunk opened at an offset in a file it
# does not own, then a b2nd slice), bypassing the HDF5 filter. The HDF5
# files are written by hdf5plugin's Blosc2 filter, which carries its own
# upstream C-Blosc2, so every read checks our reader against chunks that
# upstream wrote, and the suite compares them with the filter's own reads.
#
# Its whole test suite (b2h5py/tests, from the PyPI sdist) runs twice, with
# PREFIX's libblosc2.so.9 and with reference 3.3.5, through the
# python-blosc2 that ../shared/clients/python-blosc2 builds against the
# shared library (`run.sh --setup`, cached in ~/.cache/pyclient; its venv
# has h5py and hdf5plugin pinned).
#
# Prints "b2h5py: ..." lines; exit 0 iff the suite passes on PREFIX's
# library. Without ../shared, says so and exits 0.
set -eu
export LC_ALL=C
[ $# -eq 1 ] || {
    echo "usage: $0 PREFIX" >&2
    exit 2
}
VER=0.5.1
here=$(cd "$(dirname "$0")/.." && pwd)
P=$(cd "$1" && pwd)
shared=${SHARED_DIR:-$here/../shared}
pyclient=$shared/clients/python-blosc2
if [ ! -f "$pyclient/run.sh" ]; then
    echo "b2h5py: SKIP: $pyclient is absent (python-blosc2 is built by it)"
    exit 0
fi
bash "$pyclient/run.sh" --setup >/dev/null
cache=${PYCLIENT_CACHE:-$HOME/.cache/pyclient}/blosc2-4.14.1
py=$cache/venv/bin/python
[ -x "$py" ] && [ -d "$cache/pkg/blosc2" ] || {
    echo "b2h5py: no python-blosc2 build in $cache" >&2
    exit 2
}
mine=${BLOSC2_CLIENTS_CACHE:-$HOME/.cache/blosc2-clients}/b2h5py-$VER
mkdir -p "$mine"
sdist=$mine/b2h5py-$VER.tar.gz
[ -f "$sdist" ] || "$py" -m pip download -q --no-deps --no-binary :all: -d "$mine" "b2h5py==$VER"
ref=$(sh "$here/scripts/fetch-reference.sh" 3.3.5)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xzf "$sdist" -C "$work"

status=0
for side in ours ref; do
    lib=$P/lib
    [ $side = ref ] && lib=$ref/lib
    site=$work/$side
    mkdir -p "$site"
    # the library goes where the extension's RUNPATH ($ORIGIN/lib) finds it
    cp -r "$cache/pkg/blosc2" "$site/"
    cp -L "$lib/libblosc2.so.9" "$site/blosc2/lib/libblosc2.so.9"
    cp -r "$work/b2h5py-$VER/b2h5py" "$site/"
    mapped=$(cd "$work" && PYTHONPATH=$site "$py" -c \
        "import b2h5py, blosc2; print(sum('$site/blosc2/lib/libblosc2.so.9' in l for l in open('/proc/self/maps')))")
    [ "$mapped" -gt 0 ] || {
        echo "b2h5py: the $side run would not load $lib/libblosc2.so.9" >&2
        exit 2
    }
    log=$work/$side.log
    if (cd "$site" && PYTHONPATH=$site "$py" -m pytest -q -p no:cacheprovider b2h5py/tests >"$log" 2>&1); then
        result="passes"
    else
        result="FAILS"
        [ $side = ours ] && {
            grep -E '^(FAILED|ERROR)' "$log" | head -n 20
            status=1
        }
    fi
    label="here"
    [ $side = ref ] && label="on 3.3.5"
    echo "b2h5py: $VER $result $label: $(tail -n 1 "$log")"
done
exit $status
