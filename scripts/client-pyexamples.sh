#!/bin/sh
# scripts/client-pyexamples.sh PREFIX
#
# Programs we did not write: the examples/ of python-blosc2 4.14.1 (116
# scripts: arrays, lazy expressions, stores, tables, filters and codecs
# written in Python, prefilters and postfilters). Each runs once on
# PREFIX's libblosc2.so.9 and once on the reference 3.3.5, in a scratch
# directory of its own with a 180 s limit, through the python-blosc2 that
# ../shared/clients/python-blosc2 builds against the shared library (its
# `run.sh --setup` makes that build, cached in ~/.cache/pyclient).
#
# Some examples cannot pass here on either library: they need the network,
# a package the client's venv lacks (matplotlib, numba, xarray, btune), or
# arguments. So what counts is the comparison: an example that the
# reference runs to the end must run to the end on PREFIX too.
#
# Prints "pyexamples: ..." lines; exit 0 iff no example passes on the
# reference and fails on PREFIX. Without ../shared, says so and exits 0.
set -eu
export LC_ALL=C
[ $# -eq 1 ] || {
    echo "usage: $0 PREFIX" >&2
    exit 2
}
here=$(cd "$(dirname "$0")/.." && pwd)
P=$(cd "$1" && pwd)
shared=${SHARED_DIR:-$here/../shared}
pyclient=$shared/clients/python-blosc2
if [ ! -f "$pyclient/run.sh" ]; then
    echo "pyexamples: SKIP: $pyclient is absent (python-blosc2 is built by it)"
    exit 0
fi
bash "$pyclient/run.sh" --setup >/dev/null
cache=${PYCLIENT_CACHE:-$HOME/.cache/pyclient}/blosc2-4.14.1
py=$cache/venv/bin/python
examples=$cache/src/blosc2-4.14.1/examples
[ -x "$py" ] && [ -d "$cache/pkg/blosc2" ] && [ -d "$examples" ] || {
    echo "pyexamples: no python-blosc2 build in $cache" >&2
    exit 2
}
ref=$(sh "$here/scripts/fetch-reference.sh" 3.3.5)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# a private copy of the package per library, the library where the
# extension's RUNPATH ($ORIGIN/lib) finds it
for side in ours ref; do
    lib=$P/lib
    [ $side = ref ] && lib=$ref/lib
    mkdir -p "$work/$side"
    cp -r "$cache/pkg/blosc2" "$work/$side/"
    cp -L "$lib/libblosc2.so.9" "$work/$side/blosc2/lib/libblosc2.so.9"
    mapped=$(cd "$work" && PYTHONPATH=$work/$side "$py" -c \
        "import blosc2; print(sum('$work/$side/blosc2/lib/libblosc2.so.9' in l for l in open('/proc/self/maps')))")
    [ "$mapped" -gt 0 ] || {
        echo "pyexamples: the $side run would not load $lib/libblosc2.so.9" >&2
        exit 2
    }
done

run_side() { # SIDE: one "STATUS NAME" line per example, in $work/SIDE.txt
    (cd "$examples" && find . -name '*.py' | sort) | while read -r f; do
        name=${f#./}
        dir=$(mktemp -d "$work/run.XXXXXX")
        # examples read data files kept beside them
        cp -r "$examples/$(dirname "$name")"/. "$dir/"
        status=0
        (cd "$dir" && MPLBACKEND=Agg PYTHONPATH=$work/$1 timeout 180 "$py" "$examples/$name" \
            >"$work/$1-$(echo "$name" | tr / _).log" 2>&1) || status=$?
        echo "$status $name" >>"$work/$1.txt"
        rm -rf "$dir"
    done
}
: >"$work/ours.txt"
: >"$work/ref.txt"
run_side ours
run_side ref
n=$(wc -l <"$work/ref.txt")
both=$(join -j 2 "$work/ours.txt" "$work/ref.txt" | awk '$2 == 0 && $3 == 0' | wc -l)
neither=$(join -j 2 "$work/ours.txt" "$work/ref.txt" | awk '$2 != 0 && $3 != 0' | wc -l)
status=0
join -j 2 "$work/ours.txt" "$work/ref.txt" | awk '$2 != 0 && $3 == 0 {print $1, $2}' >"$work/worse"
join -j 2 "$work/ours.txt" "$work/ref.txt" | awk '$2 == 0 && $3 != 0 {print $1}' >"$work/better"
while read -r name code; do
    echo "pyexamples: FAILED: $name exits $code here and 0 on 3.3.5; its last lines:"
    tail -5 "$work/ours-$(echo "$name" | tr / _).log" | sed 's/^/    /'
    status=1
done <"$work/worse"
while read -r name; do
    echo "pyexamples: $name passes here and fails on 3.3.5"
done <"$work/better"
echo "pyexamples: $n examples: $both run to the end on both libraries, $neither on neither," \
    "$(wc -l <"$work/worse") only on 3.3.5, $(wc -l <"$work/better") only here"
exit $status
