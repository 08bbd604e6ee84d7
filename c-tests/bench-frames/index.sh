#!/bin/sh
# c-tests/bench-frames/index.sh OUR_PREFIX [REF_PREFIX]
#
# What the chunk count of a frame costs, ours against reference C-Blosc2
# 3.3.5 in one run (not part of `make test`): for each count in
# BENCH_COUNTS (default "1000 1000000 10000000"), bench_index.c makes a
# frame of that many zero chunks of 4 KiB with each library, then, in
# fresh processes, times an open followed by BENCH_READS (1000) chunk
# reads, with the process's peak RSS, and BENCH_APPENDS (200) appends of
# 4 KiB chunks to it. Each library works on its own file. Prints one line
# per measurement and a table of ratios ref/ours (> 1: ours is faster or
# smaller).
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 OUR_PREFIX [REF_PREFIX]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
P=$(cd "$1" 2>/dev/null && pwd) || { echo "bench-index: no such prefix: $1" >&2; exit 2; }
if [ $# -eq 2 ]; then
    R=$2
else
    R=${BLOSC2_REF_3_3_5:-$(sh "$root/scripts/fetch-reference.sh" 3.3.5)} || R=""
fi
[ -f "$R/include/blosc2.h" ] || { echo "bench-index: no reference 3.3.5 prefix" >&2; exit 2; }
COUNTS=${BENCH_COUNTS:-"1000 1000000 10000000"}
READS=${BENCH_READS:-1000}
APPENDS=${BENCH_APPENDS:-200}
unset LD_LIBRARY_PATH LD_PRELOAD
for v in $(env | sed -n 's/^\(BLOSC_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
work=$(mktemp -d /tmp/bench-index.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
libdir_of() {
    if [ -e "$1/lib/libblosc2.so" ]; then echo "$1/lib"; else echo "$1/lib64"; fi
}
for pair in "ours:$P" "ref:$R"; do
    name=${pair%%:*}
    lib=$(libdir_of "${pair#*:}")
    ${CC:-cc} -O2 -std=gnu11 -Wall -I"${pair#*:}/include" "$here/bench_index.c" \
        -o "$work/bench-$name" -L"$lib" -lblosc2 -Wl,-rpath,"$lib" || exit 1
done
field() { sed -n "s/.* $1 \([0-9.]*\).*/\1/p"; }
fail=0
for n in $COUNTS; do
    for name in ours ref; do
        f="$work/$name-$n.b2frame"
        "$work/bench-$name" make "$f" "$n" || { fail=1; continue; }
        o=$("$work/bench-$name" open "$f" "$READS") || { echo "$name open $n failed"; fail=1; continue; }
        a=$("$work/bench-$name" append "$f" "$APPENDS") || { echo "$name append $n failed"; fail=1; continue; }
        echo "$name nchunks $n size $(wc -c < "$f") $o"
        echo "$name nchunks $n $a"
        echo "$n $name $(echo "$o" | field seconds) $(echo "$o" | field rss_kib) $(echo "$a" | field per_append_us)" >> "$work/table"
        rm -f "$f"
    done
done
echo
echo "| chunks | open+reads ours s | ref s | ref/ours | peak RSS ours KiB | ref KiB | ref/ours | append ours us | ref us | ref/ours |"
echo "|---|---|---|---|---|---|---|---|---|---|"
awk '{k=$1; if ($2=="ours") {o[k]=$3; r[k]=$4; a[k]=$5; order[++m]=k} else {O[k]=$3; R[k]=$4; A[k]=$5}}
     END {for (i=1;i<=m;i++) {k=order[i];
       printf "| %s | %.4f | %.4f | %.2f | %d | %d | %.2f | %.1f | %.1f | %.2f |\n", k, o[k], O[k], O[k]/o[k], r[k], R[k], R[k]/r[k], a[k], A[k], A[k]/a[k]}}' "$work/table"
exit $fail
