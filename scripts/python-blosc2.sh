#!/bin/sh
# scripts/python-blosc2.sh PREFIX [VENV]     (make python-blosc2 PREFIX=DIR [VENV=DIR])
#
# python-blosc2 on this library: a venv (VENV, default PREFIX/venv) whose
# `import blosc2` runs on PREFIX/lib/libblosc2.so.9.  The PyPI wheel cannot
# be used for that: it links C-Blosc2 3.3.5 statically into its extension
# (no NEEDED libblosc2.so.9, no blosc2 symbol resolved at run time), so
# replacing a file in it or LD_PRELOAD changes nothing.  So python-blosc2
# 4.14.1 (the release that bundles C-Blosc2 3.3.5; its sdist's sha256 is
# pinned below) is built from its sdist with python-blosc2's own switch
# USE_SYSTEM_BLOSC2=1, which takes blosc2 from pkg-config
# (PREFIX/lib/pkgconfig/blosc2.pc), and linked with a RUNPATH to
# PREFIX/lib, so that no LD_LIBRARY_PATH is needed.
#
# Then it checks that the extension needs libblosc2.so.9, that the dynamic
# loader resolves it to PREFIX's file, that the extension carries no
# blosc2 of its own, and runs scripts/python-blosc2-smoke.py in the venv
# (chunks, a super-chunk in a file, a b2nd array saved and reopened, and
# /proc/self/maps showing PREFIX's library as the only libblosc2 mapped).
#
# The sdist and the built wheel are cached in
# ${BLOSC2_PYTHON_CACHE:-~/.cache/blosc2-python}/4.14.1, the wheel per
# hash of PREFIX's headers and PREFIX's path (what the build depends on:
# the wheel holds no copy of the library, so a new build of the library
# under the same headers reuses it).  Cold: 3 minutes on 2 idle cores, 7
# on a loaded one; warm: 5 to 15 seconds, under a minute with a new venv
# (its dependencies from pip's cache).
#
# The build (pip, with build isolation) fetches scikit-build-core, Cython,
# numpy, cmake and ninja from PyPI, and python-blosc2's CMake fetches
# miniexpr (with sleef and minicc) from GitHub at pinned commits.
# PYTHON_BLOSC2_DEPS=DIR gives those three as source trees or .tar.gz
# files instead (miniexpr*/, sleef*/, minicc*/), for hosts without GitHub;
# by default $SHARED_DIR/clients/python-blosc2/vendor is used when present.
#
# PYTHON (default python3, 3.11 or newer) makes the venv.  Prints
# "python-blosc2: ..." lines; exit 0 when everything holds, 77 with a
# "SKIP: why" line when this host cannot do it (no python3 3.11+, venv,
# pip, C compiler or pkg-config; PyPI or GitHub unreachable), other
# non-zero on a failure.
set -eu

VERSION=4.14.1
SDIST_SHA256=b5adb408854260acf64aca5c351ab1307bcb7c71d112e3049d8541c1e2f9b222
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

say() { echo "python-blosc2: $*"; }
die() {
    echo "python-blosc2: FAIL: $*" >&2
    exit 1
}
skip() {
    echo "SKIP: $*"
    exit 77
}

[ $# -ge 1 ] && [ $# -le 2 ] || {
    echo "usage: $0 PREFIX [VENV]" >&2
    exit 2
}
[ -d "$1" ] || die "no prefix $1 (make install PREFIX=$1 first)"
P=$(cd "$1" && pwd)
lib=$P/lib/libblosc2.so.9
[ -f "$lib" ] && [ -f "$P/include/blosc2.h" ] && [ -f "$P/lib/pkgconfig/blosc2.pc" ] ||
    die "$P has no lib/libblosc2.so.9, include/blosc2.h or lib/pkgconfig/blosc2.pc (make install PREFIX=$P first)"
lib=$(readlink -f "$lib")
VENV=${2:-$P/venv}
PYTHON=${PYTHON:-python3}

command -v "$PYTHON" >/dev/null 2>&1 || skip "no $PYTHON (python-blosc2 $VERSION needs Python 3.11 or newer)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    skip "$PYTHON is $("$PYTHON" -c 'import sys; print(sys.version.split()[0])'); python-blosc2 $VERSION needs 3.11 or newer"
command -v "${CC:-cc}" >/dev/null 2>&1 || skip "no C compiler (${CC:-cc})"
command -v pkg-config >/dev/null 2>&1 || skip "no pkg-config (python-blosc2's CMake finds blosc2 with it)"
for tool in readelf nm ldd; do
    command -v $tool >/dev/null 2>&1 || die "no $tool to check what the extension links"
done

cache=${BLOSC2_PYTHON_CACHE:-$HOME/.cache/blosc2-python}/$VERSION
mkdir -p "$cache"
sdist=$cache/blosc2-$VERSION.tar.gz
pyver=$("$PYTHON" -c 'import sys, platform; print(f"{sys.implementation.name}{sys.version_info[0]}{sys.version_info[1]}-{platform.machine()}")')
key=$( {
    cat "$P"/include/blosc2.h "$P"/include/b2nd.h "$P"/include/blosc2/*.h
    echo "$P $pyver $SDIST_SHA256"
} | sha256sum | cut -c1-16)
wheels=$cache/wheel-$key
wheel=$(ls "$wheels"/blosc2-$VERSION-*.whl 2>/dev/null | head -n 1 || true)

# What this run needs from the network, checked first so that a host
# without it says so instead of failing half-way: PyPI for a build or a
# new venv's dependencies, GitHub for a build without PYTHON_BLOSC2_DEPS.
reachable() {
    "$PYTHON" - "$1" <<'PY' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=15).read(1)
PY
}
if [ -z "$wheel" ] || [ ! -d "$VENV" ]; then
    index=${PIP_INDEX_URL:-https://pypi.org/simple}
    reachable "${index%/}/blosc2/" ||
        skip "cannot reach $index (pip fetches python-blosc2's dependencies and build tools there)"
fi
deps=
if [ -z "$wheel" ]; then
    deps=${PYTHON_BLOSC2_DEPS:-}
    shared_vendor=${SHARED_DIR:-$root/../shared}/clients/python-blosc2/vendor
    if [ -z "$deps" ] && [ -d "$shared_vendor" ]; then deps=$shared_vendor; fi
    if [ -z "$deps" ]; then
        reachable https://github.com/Blosc/miniexpr ||
            skip "cannot reach github.com, where python-blosc2's CMake fetches miniexpr, sleef and minicc (PYTHON_BLOSC2_DEPS=DIR gives them)"
    fi
fi

if [ ! -d "$VENV" ]; then
    "$PYTHON" -m venv "$VENV" >/dev/null 2>&1 || {
        rm -rf "$VENV"
        skip "$PYTHON -m venv failed (Debian: apt-get install python3-venv)"
    }
fi
VENV=$(cd "$VENV" && pwd)
py=$VENV/bin/python
"$py" -m pip --version >/dev/null 2>&1 || skip "the venv $VENV has no pip (Debian: apt-get install python3-venv)"
pip() { "$py" -m pip --disable-pip-version-check "$@"; }

if [ -z "$wheel" ] && [ ! -f "$sdist" ]; then
    # pip prepares its metadata on the way (in a build environment of
    # wheels, some seconds); --no-deps: the wheel's dependencies come later.
    tmp=$cache/download.$$
    rm -rf "$tmp"
    pip download -q --no-deps --no-binary blosc2 "blosc2==$VERSION" -d "$tmp" \
        >"$cache/download.log" 2>&1 && [ -f "$tmp/blosc2-$VERSION.tar.gz" ] ||
        die "pip could not download blosc2-$VERSION.tar.gz (log: $cache/download.log)"
    mv "$tmp/blosc2-$VERSION.tar.gz" "$sdist"
    rm -rf "$tmp"
fi
if [ -z "$wheel" ]; then
    echo "$SDIST_SHA256  $sdist" | sha256sum -c --quiet - 2>/dev/null || {
        rm -f "$sdist"
        die "blosc2-$VERSION.tar.gz does not have the pinned sha256 $SDIST_SHA256 (removed; rerun to fetch it again)"
    }
fi

if [ -z "$wheel" ]; then
    say "building $VERSION from its sdist against $P (cached in $wheels)"
    build=$cache/build-$key
    rm -rf "$build" "$wheels"
    mkdir -p "$build/deps"
    cmake_args=
    if [ -n "$deps" ]; then
        # the FetchContent names python-blosc2 and miniexpr declare
        for d in miniexpr:MINIEXPR sleef:SLEEF minicc:TINYCC; do
            name=${d%%:*}
            src=$(ls -d "$deps/$name"* 2>/dev/null | head -n 1 || true)
            [ -n "$src" ] || die "no $name* in PYTHON_BLOSC2_DEPS=$deps"
            case $src in
                *.tar.gz | *.tgz)
                    mkdir -p "$build/deps/$name"
                    tar -xzf "$src" -C "$build/deps/$name" --strip-components=1 ||
                        die "cannot unpack $src"
                    src=$build/deps/$name
                    ;;
            esac
            cmake_args="$cmake_args${cmake_args:+;}-DFETCHCONTENT_SOURCE_DIR_${d#*:}=$src"
        done
        cmake_args="$cmake_args;-DFETCHCONTENT_FULLY_DISCONNECTED=ON"
    fi
    # A local sdist: pip does not keep the built wheel in its own cache,
    # where a later build against other headers would find it.
    env USE_SYSTEM_BLOSC2=1 \
        PKG_CONFIG_PATH="$P/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
        LDFLAGS="-Wl,-rpath,$P/lib${LDFLAGS:+ $LDFLAGS}" \
        SKBUILD_CMAKE_ARGS="$cmake_args" \
        CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}" \
        "$py" -m pip --disable-pip-version-check wheel -v --no-deps "$sdist" -w "$build/out" \
        >"$build.log" 2>&1 || {
        tail -n 30 "$build.log" >&2
        die "the build failed (log: $build.log)"
    }
    mkdir -p "$wheels"
    mv "$build"/out/blosc2-$VERSION-*.whl "$wheels"/
    rm -rf "$build"
    wheel=$(ls "$wheels"/blosc2-$VERSION-*.whl | head -n 1)
    say "built $(basename "$wheel")"
else
    say "using the cached $wheels/$(basename "$wheel")"
fi

# The wheel's dependencies first, then the wheel itself over whatever
# blosc2 the venv had (an earlier build, or the PyPI wheel).
pip install -q "$wheel" >"$cache/install.log" 2>&1 &&
    pip install -q --force-reinstall --no-deps "$wheel" >>"$cache/install.log" 2>&1 || {
    tail -n 20 "$cache/install.log" >&2
    die "pip install of $wheel into $VENV failed (log: $cache/install.log)"
}

site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
ext=$(ls "$site"/blosc2/blosc2_ext*.so 2>/dev/null | head -n 1 || true)
[ -n "$ext" ] || die "no blosc2/blosc2_ext*.so in $site"
readelf -d "$ext" | grep -q 'NEEDED.*\[libblosc2\.so\.9\]' ||
    die "$ext does not need libblosc2.so.9: it was built with a bundled C-Blosc2"
if nm -D --defined-only "$ext" | grep -Eq ' (blosc1?|blosc2|b2nd)_'; then
    die "$ext defines blosc2 functions itself: a bundled copy"
fi
resolved=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$ext" | sed -n 's/^[[:space:]]*libblosc2\.so\.9 => \([^ ]*\).*/\1/p')
[ -n "$resolved" ] && [ "$(readlink -f "$resolved")" = "$lib" ] ||
    die "the dynamic loader resolves $ext's libblosc2.so.9 to '${resolved:-nothing}', not $lib"
runpath=$(readelf -d "$ext" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
say "$(basename "$ext"): NEEDED libblosc2.so.9, RUNPATH $runpath, resolved to $lib"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && env -u LD_LIBRARY_PATH -u LD_PRELOAD "$py" "$here/python-blosc2-smoke.py" "$lib") ||
    die "the smoke test failed"
say "OK: $VENV runs python-blosc2 $VERSION on $lib"
