#!/bin/sh
# fetch-reference.sh VERSION
#
# Make a prefix (include/ + lib/) holding the reference C-Blosc2 VERSION, taken
# from the python-blosc2 wheel on PyPI that bundles it, and print its path.
# The tests compare our library against these builds; no root, no compiler.
#
#   3.3.5  -> blosc2==4.14.1 (wheel layout: blosc2/include, blosc2/lib)
#   2.22.1 -> blosc2==3.12.2 (wheel layout: include, lib64)
#
# Everything is cached in ${BLOSC2_REF_CACHE:-$HOME/.cache/blosc2-ref}; a second
# run does no network access and prints the same path.  Diagnostics go to
# stderr so that `P=$(scripts/fetch-reference.sh 3.3.5)` works.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 3.3.5|2.22.1" >&2
    exit 2
fi
version=$1
case "$version" in
    3.3.5) wheel=4.14.1 ;;
    2.22.1) wheel=3.12.2 ;;
    *)
        echo "fetch-reference: unknown C-Blosc2 version '$version' (known: 3.3.5, 2.22.1)" >&2
        exit 2
        ;;
esac

cache=${BLOSC2_REF_CACHE:-${HOME:-/tmp}/.cache/blosc2-ref}
py=${PYTHON:-python3}
wheeldir=$cache/wheels/$wheel
unpacked=$cache/unpacked/blosc2-$wheel
prefix=$cache/prefix-$version

if [ -f "$prefix/include/blosc2.h" ] && [ -f "$prefix/lib/libblosc2.so" ]; then
    echo "$prefix"
    exit 0
fi

mkdir -p "$wheeldir"
whl=$(ls "$wheeldir"/blosc2-"$wheel"-*.whl 2>/dev/null | head -n 1 || true)
if [ -z "$whl" ]; then
    echo "fetch-reference: downloading python-blosc2 $wheel (C-Blosc2 $version)" >&2
    if ! "$py" -m pip download --quiet --no-deps --only-binary=:all: \
        -d "$wheeldir" "blosc2==$wheel" >&2; then
        # No wheel for this interpreter (too new, or not CPython): the C library
        # inside is the same for every Python, so any manylinux wheel will do.
        echo "fetch-reference: retrying for CPython 3.11 manylinux_2_28_$(uname -m)" >&2
        "$py" -m pip download --quiet --no-deps --only-binary=:all: \
            --python-version 3.11 --platform "manylinux_2_28_$(uname -m)" \
            --implementation cp -d "$wheeldir" "blosc2==$wheel" >&2
    fi
    whl=$(ls "$wheeldir"/blosc2-"$wheel"-*.whl 2>/dev/null | head -n 1 || true)
    if [ -z "$whl" ]; then
        echo "fetch-reference: pip download produced no wheel in $wheeldir" >&2
        exit 1
    fi
fi

if [ ! -d "$unpacked" ]; then
    # Unpack under a temporary name so an interrupted run is never mistaken for
    # a complete one.
    rm -rf "$unpacked.tmp.$$"
    mkdir -p "$unpacked.tmp.$$"
    "$py" -m zipfile -e "$whl" "$unpacked.tmp.$$"
    mv "$unpacked.tmp.$$" "$unpacked" 2>/dev/null || rm -rf "$unpacked.tmp.$$"
fi

# Locate the headers and library instead of hard-coding the two wheel layouts,
# so that a repackaged wheel still works.
hdr=$(find "$unpacked" -path '*include/blosc2.h' | head -n 1)
lib=$(find "$unpacked" -name libblosc2.so | head -n 1)
if [ -z "$hdr" ] || [ -z "$lib" ]; then
    echo "fetch-reference: $whl has no include/blosc2.h or libblosc2.so" >&2
    exit 1
fi
incdir=$(cd "$(dirname "$hdr")" && pwd)
libdir=$(cd "$(dirname "$lib")" && pwd)
got=$(sed -n 's/^#define BLOSC2_VERSION_STRING *"\([^"]*\)".*/\1/p' "$hdr")
case "$got" in
    "$version"*) ;;
    *) echo "fetch-reference: warning: wheel blosc2==$wheel ships C-Blosc2 '$got', not $version" >&2 ;;
esac

mkdir -p "$prefix"
ln -sfn "$incdir" "$prefix/include"
ln -sfn "$libdir" "$prefix/lib"
echo "$prefix"
