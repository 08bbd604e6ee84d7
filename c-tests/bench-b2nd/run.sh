#!/bin/sh
# c-tests/bench-b2nd/run.sh OUR_PREFIX [REF_PREFIX]
#
# b2nd array benchmark, ours against reference C-Blosc2 3.3.5 in one run
# (not part of `make test`): bench_b2nd.c is built against each library
# and run on a contiguous frame file holding a 3-D float32 array (1 GiB by
# default: 512x512x1024 in 64x128x128 chunks of 16x32x32 blocks), written
# chunk by chunk with b2nd_set_slice_cbuffer, then read as 1,000 random
# 8x8x8 cubes and 100 full planes along each axis; then a second array of
# 1,000 chunks of 32 KiB written with b2nd_from_cbuffer and read with
# b2nd_to_cbuffer (its size must equal the reference's). Prints each run's
# phases, then a table of throughput ratios ours/ref (> 1: ours is faster).
#
# REF_PREFIX defaults to $BLOSC2_REF_3_3_5, then scripts/fetch-reference.sh.
# Environment: CC (cc), CFLAGS (-O2), BENCH_DIR (a fresh directory under
# /tmp; removed afterwards), BENCH_SHAPE ("512 512 1024"), BENCH_CHUNKS
# ("64 128 128"), BENCH_BLOCKS ("16 32 32"), BENCH_SLICES (1000),
# BENCH_EDGE (8), BENCH_PLANES (100), BENCH_NTHREADS (1), BENCH_ROUNDS (1:
# runs per library, alternating who goes first), BENCH_SMALL_REPS (5: the
# small-chunk phases keep their best of this many).
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 OUR_PREFIX [REF_PREFIX]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
P=$(cd "$1" 2>/dev/null && pwd) || { echo "bench-b2nd: no such prefix: $1" >&2; exit 2; }
if [ $# -eq 2 ]; then
    R=$2
elif [ -n "${BLOSC2_REF_3_3_5:-}" ]; then
    R=$BLOSC2_REF_3_3_5
else
    R=$(sh "$root/scripts/fetch-reference.sh" 3.3.5) || R=""
fi
if [ -z "$R" ] || [ ! -f "$R/include/b2nd.h" ]; then
    echo "bench-b2nd: no reference 3.3.5 prefix" >&2
    exit 2
fi
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2}
SHAPE=${BENCH_SHAPE:-512 512 1024}
CHUNKS=${BENCH_CHUNKS:-64 128 128}
BLOCKS=${BENCH_BLOCKS:-16 32 32}
SLICES=${BENCH_SLICES:-1000}
EDGE=${BENCH_EDGE:-8}
PLANES=${BENCH_PLANES:-100}
THREADS=${BENCH_NTHREADS:-1}
ROUNDS=${BENCH_ROUNDS:-1}
unset LD_LIBRARY_PATH LD_PRELOAD
for v in $(env | sed -n 's/^\(BLOSC_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
work=${BENCH_DIR:-$(mktemp -d /tmp/bench-b2nd.XXXXXX)}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT INT TERM

libdir_of() {
    if [ -e "$1/lib/libblosc2.so" ]; then echo "$1/lib"; else echo "$1/lib64"; fi
}
for pair in "ours:$P" "ref:$R"; do
    name=${pair%%:*}
    prefix=${pair#*:}
    lib=$(libdir_of "$prefix")
    # shellcheck disable=SC2086
    if ! $CC $CFLAGS -std=gnu11 -Wall -I"$prefix/include" "$here/bench_b2nd.c" \
        -o "$work/bench-$name" -L"$lib" -lblosc2 -lm -Wl,-rpath,"$lib"; then
        echo "bench-b2nd: cannot build against $prefix" >&2
        exit 1
    fi
done

echo "bench-b2nd: ours $P vs reference $R"
echo "bench-b2nd: $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
results=$work/results.txt
: >"$results"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    if [ $((r % 2)) -eq 1 ]; then order="ours ref"; else order="ref ours"; fi
    for name in $order; do
        out=$work/$name-$r.txt
        # shellcheck disable=SC2086
        if ! "$work/bench-$name" "$work/array-$name.b2nd" $SHAPE $CHUNKS $BLOCKS \
            "$SLICES" "$EDGE" "$PLANES" "$THREADS" >"$out" 2>&1; then
            echo "bench-b2nd: $name failed:" >&2
            cat "$out" >&2
            exit 1
        fi
        echo "== $name (round $r, load $(cut -d' ' -f1 /proc/loadavg))"
        cat "$out"
        sed -n "s/^phase \([a-z0-9]*\) seconds \([0-9.]*\).*/$name \1 \2/p" "$out" >>"$results"
        rm -f "$work/array-$name.b2nd"
    done
    r=$((r + 1))
done
echo "bench-b2nd: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# ratio ours/ref of throughput = ref seconds / ours seconds (best of rounds)
echo
echo "| phase | ours s | ref s | ours/ref throughput |"
echo "|---|---|---|---|"
awk '
{ key = $2; t = $3 + 0
  if ($1 == "ours") { if (!(key in o) || t < o[key]) o[key] = t }
  else { if (!(key in f) || t < f[key]) f[key] = t }
  if (!(key in seen)) { seen[key] = 1; keys[n++] = key } }
END { for (i = 0; i < n; i++) { k = keys[i]
        printf "| %s | %.4f | %.4f | %.2f |\n", k, o[k], f[k], (o[k] > 0 ? f[k] / o[k] : 0) } }
' "$results"

# the small-chunk array must take the same bytes as the reference's
o=$(sed -n 's/^result small_cbytes \([0-9]*\)/\1/p' "$work"/ours-1.txt | head -n 1)
f=$(sed -n 's/^result small_cbytes \([0-9]*\)/\1/p' "$work"/ref-1.txt | head -n 1)
if [ "$o" = "$f" ]; then
    echo "small-chunk array: $o bytes, the same as the reference"
else
    echo "small-chunk array: ours $o bytes, reference $f bytes: DIFFERENT"
fi
