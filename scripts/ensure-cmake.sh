#!/bin/sh
# ensure-cmake.sh: print the path of a usable cmake (>= 3.16), installing one
# from PyPI into a private venv when the machine has none.  No root needed;
# the venv lives in ${BLOSC2_TOOLS_CACHE:-$HOME/.cache/blosc2-tools}.
set -eu

ok() {
    # cmake 3.16 is the oldest with everything the consumer test uses.
    v=$("$1" --version 2>/dev/null | sed -n '1s/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
    [ -n "$v" ] || return 1
    set -- $v
    [ "$1" -gt 3 ] || { [ "$1" -eq 3 ] && [ "$2" -ge 16 ]; }
}

if [ -n "${CMAKE:-}" ] && ok "$CMAKE"; then
    echo "$CMAKE"
    exit 0
fi
if command -v cmake >/dev/null 2>&1 && ok "$(command -v cmake)"; then
    command -v cmake
    exit 0
fi

cache=${BLOSC2_TOOLS_CACHE:-${HOME:-/tmp}/.cache/blosc2-tools}
venv=$cache/venv
if [ -x "$venv/bin/cmake" ] && ok "$venv/bin/cmake"; then
    echo "$venv/bin/cmake"
    exit 0
fi
py=${PYTHON:-python3}
echo "ensure-cmake: installing cmake from PyPI into $venv" >&2
mkdir -p "$cache"
"$py" -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet cmake >&2
if ok "$venv/bin/cmake"; then
    echo "$venv/bin/cmake"
    exit 0
fi
echo "ensure-cmake: no working cmake after pip install" >&2
exit 1
