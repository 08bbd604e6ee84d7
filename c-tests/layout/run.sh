#!/bin/sh
# c-tests/layout/run.sh PREFIX
#
# Entry point used by c-tests/run.sh: checks the headers installed in
# PREFIX/include against the reference C-Blosc2 3.3.5 headers with check.sh.
# The reference prefix comes from $BLOSC2_REF_3_3_5, else from
# scripts/fetch-reference.sh (unless BLOSC2_NO_FETCH=1, which skips the check).
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 PREFIX" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

ref=${BLOSC2_REF_3_3_5:-}
if [ -z "$ref" ]; then
    if [ "${BLOSC2_NO_FETCH:-0}" = 1 ]; then
        echo "layout: skipped (no reference headers: BLOSC2_NO_FETCH=1 and BLOSC2_REF_3_3_5 unset)"
        exit 0
    fi
    ref=$(sh "$root/scripts/fetch-reference.sh" 3.3.5) || {
        echo "layout: cannot get the reference 3.3.5 headers (scripts/fetch-reference.sh failed)" >&2
        exit 1
    }
fi
if [ ! -f "$ref/include/blosc2.h" ]; then
    echo "layout: $ref/include/blosc2.h not found" >&2
    exit 1
fi
exec bash "$here/check.sh" "$ref/include" "$1/include"
