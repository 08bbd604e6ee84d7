#!/bin/sh
# scripts/client-openzl.sh PREFIX
#
# A plugin we did not write: blosc2-openzl, the OpenZL codec (id 38) as its
# authors ship it, a Python package holding libblosc2_openzl.so. Neither
# program names it: the library finds it by the codec's name, through
# `python -c "import blosc2_openzl; blosc2_openzl.print_libpath()"`, as
# upstream does. c-tests/plugins/openzl.c, built against PREFIX and against
# the reference C-Blosc2 3.3.5, compresses with it (1 and 4 threads); the
# chunks must be byte-identical and each library must decode the other's.
# The venv is cached in ${BLOSC2_CLIENTS_CACHE:-~/.cache/blosc2-clients}.
#
# Prints "openzl: ..." lines; exit 0 iff every check passes. Needs python3
# with venv, a C compiler and network access to PyPI on the first run. Run
# by `make test-clients`.
set -eu
. "$(dirname "$0")/client-common.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
VER=0.0.1
client_init openzl $VER "$@"
"$py" -m pip install -q "blosc2-openzl==$VER"
ref=$(sh "$here/scripts/fetch-reference.sh" 3.3.5)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in ours ref; do
    pre=$P
    [ $side = ref ] && pre=$ref
    ${CC:-cc} -std=gnu11 -Wall -I"$pre/include" "$here/c-tests/plugins/openzl.c" \
        -o "$work/$side" -L"$pre/lib" -lblosc2 -Wl,-rpath,"$pre/lib"
done
# `python` on PATH is the venv's, where blosc2_openzl is installed
export PATH="$CACHE/venv/bin:$PATH"
status=0
check() {
    "$@" || {
        echo "openzl: FAILED: $*"
        status=1
    }
}
check "$work/ours" enc "$work/ours.b2"
check "$work/ref" enc "$work/ref.b2"
check cmp "$work/ours.b2" "$work/ref.b2"
check cmp "$work/ours.b2" "$work/ours.b2.4"
check "$work/ours" dec "$work/ref.b2"
check "$work/ref" dec "$work/ours.b2"
check "$work/ours" dec "$work/ours.b2.4"
[ $status = 0 ] && echo "openzl: ours and 3.3.5 write the same chunks and read each other's"
exit $status
