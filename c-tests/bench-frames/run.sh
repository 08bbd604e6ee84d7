#!/bin/sh
# c-tests/bench-frames/run.sh OUR_PREFIX [REF_PREFIX]
#
# Super-chunk frame benchmark, ours against reference C-Blosc2 3.3.5 in one
# run (not part of `make test`): bench_frames.c is built against each
# library and run on a contiguous frame file and on a sparse frame directory
# (append 1 GiB of float64 in 4 MiB chunks, reopen, 10,000 random slices of
# 100 items with get_slice_buffer, read everything back). Prints each run's
# phases, then a table of throughput ratios ours/ref (> 1: ours is faster).
#
# REF_PREFIX defaults to $BLOSC2_REF_3_3_5, then scripts/fetch-reference.sh.
# Environment: CC (cc), CFLAGS (-O2), BENCH_DIR (a fresh directory under
# /tmp; removed afterwards), BENCH_MIB (1024), BENCH_CHUNK_MIB (4),
# BENCH_SLICES (10000), BENCH_SLICE_ITEMS (100), BENCH_NTHREADS (1),
# BENCH_ROUNDS (1: runs per library and storage, alternating ours/ref),
# BENCH_SMALL_REPS (5: the small-chunk phases keep their best of this many).
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 OUR_PREFIX [REF_PREFIX]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
P=$(cd "$1" 2>/dev/null && pwd) || { echo "bench-frames: no such prefix: $1" >&2; exit 2; }
if [ $# -eq 2 ]; then
    R=$2
elif [ -n "${BLOSC2_REF_3_3_5:-}" ]; then
    R=$BLOSC2_REF_3_3_5
else
    R=$(sh "$root/scripts/fetch-reference.sh" 3.3.5) || R=""
fi
if [ -z "$R" ] || [ ! -f "$R/include/blosc2.h" ]; then
    echo "bench-frames: no reference 3.3.5 prefix" >&2
    exit 2
fi
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2}
MIB=${BENCH_MIB:-1024}
CHUNK=${BENCH_CHUNK_MIB:-4}
SLICES=${BENCH_SLICES:-10000}
ITEMS=${BENCH_SLICE_ITEMS:-100}
THREADS=${BENCH_NTHREADS:-1}
ROUNDS=${BENCH_ROUNDS:-1}
unset LD_LIBRARY_PATH LD_PRELOAD
for v in $(env | sed -n 's/^\(BLOSC_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
work=${BENCH_DIR:-$(mktemp -d /tmp/bench-frames.XXXXXX)}
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
    if ! $CC $CFLAGS -std=gnu11 -Wall -I"$prefix/include" "$here/bench_frames.c" \
        -o "$work/bench-$name" -L"$lib" -lblosc2 -lm -Wl,-rpath,"$lib"; then
        echo "bench-frames: cannot build against $prefix" >&2
        exit 1
    fi
done

echo "bench-frames: ours $P vs reference $R"
echo "bench-frames: $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-frames: ${MIB} MiB of float64 in ${CHUNK} MiB chunks, ${SLICES} slices of ${ITEMS} items, nthreads ${THREADS}"
results=$work/results.txt
: >"$results"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for storage in contiguous sparse; do
        # alternate who goes first from round to round
        if [ $((r % 2)) -eq 1 ]; then order="ours ref"; else order="ref ours"; fi
        for name in $order; do
            out=$work/$name-$storage-$r.txt
            if ! "$work/bench-$name" "$storage" "$work/frame-$name.b2frame" "$MIB" "$CHUNK" \
                "$SLICES" "$ITEMS" "$THREADS" >"$out" 2>&1; then
                echo "bench-frames: $name $storage failed:" >&2
                cat "$out" >&2
                exit 1
            fi
            echo "== $name $storage (round $r, load $(cut -d' ' -f1 /proc/loadavg))"
            cat "$out"
            sed -n "s/^phase \([a-z]*\) seconds \([0-9.]*\).*/$name $storage \1 \2/p" "$out" >>"$results"
            rm -rf "$work/frame-$name.b2frame"
        done
    done
    r=$((r + 1))
done
echo "bench-frames: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# ratio ours/ref of throughput = ref seconds / ours seconds (best of rounds)
echo
echo "| storage | phase | ours s | ref s | ours/ref throughput |"
echo "|---|---|---|---|---|"
awk '
{ key = $2 " " $3; t = $4 + 0
  if ($1 == "ours") { if (!(key in o) || t < o[key]) o[key] = t }
  else { if (!(key in f) || t < f[key]) f[key] = t }
  if (!(key in seen)) { seen[key] = 1; keys[n++] = key } }
END { for (i = 0; i < n; i++) { k = keys[i]; split(k, p, " ")
        printf "| %s | %s | %.4f | %.4f | %.2f |\n", p[1], p[2], o[k], f[k], (o[k] > 0 ? f[k] / o[k] : 0) } }
' "$results"
