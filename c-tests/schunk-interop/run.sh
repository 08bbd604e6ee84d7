#!/bin/sh
# c-tests/schunk-interop/run.sh OUR_PREFIX [REF_3_3_5_PREFIX [REF_2_22_1_PREFIX]]
#
# Super-chunk frames exchanged with the reference libraries after every
# mutation: schunk_interop.c is built against each library; each writes its
# frames step by step (phase A), each mutates the others' frames (phase B),
# and every snapshot is read back by the libraries on the other side.
#
#   ours writes      -> ours, 3.3.5, 2.22.1 read
#   3.3.5 / 2.22.1   -> ours reads; ours mutates them -> all three read
#   ours writes      -> 3.3.5 / 2.22.1 mutate -> ours reads
#
# Known bugs of our library (ids of /tmp/bugs-found.md) go in XI_KNOWN_OURS
# (checks of ours reading) and XI_KNOWN_REF (references reading our frames);
# their failures print KNOWN-FAIL lines instead of failing.  The last line is
# `schunk-interop: N passed, M failed`; exit 1 on failure, 77 with no
# reference at all.
#
# Environment: CC (cc), CFLAGS (-O2 -g), XI_OUT (build/schunk-interop),
# BLOSC2_REF_3_3_5 / BLOSC2_REF_2_22_1, XI_KNOWN_OURS / XI_KNOWN_REF.
set -u

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
    echo "usage: $0 OUR_PREFIX [REF_3_3_5_PREFIX [REF_2_22_1_PREFIX]]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
P=$(cd "$1" 2>/dev/null && pwd) || { echo "schunk-interop: no such prefix: $1" >&2; exit 2; }
ref() {
    # $1 = version, $2 = argument, $3 = environment override
    if [ -n "$2" ]; then echo "$2"
    elif [ -n "$3" ]; then echo "$3"
    elif [ "${BLOSC2_NO_FETCH:-0}" = 1 ]; then echo ""
    else sh "$root/scripts/fetch-reference.sh" "$1" 2>/dev/null || echo ""
    fi
}
R3=$(ref 3.3.5 "${2:-}" "${BLOSC2_REF_3_3_5:-}")
R2=$(ref 2.22.1 "${3:-}" "${BLOSC2_REF_2_22_1:-}")
[ -n "$R3" ] && [ -f "$R3/include/blosc2.h" ] || R3=""
[ -n "$R2" ] && [ -f "$R2/include/blosc2.h" ] || R2=""
if [ -z "$R3" ] && [ -z "$R2" ]; then
    echo "schunk-interop: SKIP, no reference prefix"
    exit 77
fi
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2 -g}
OUT=${XI_OUT:-$root/build/schunk-interop}
# No known bugs of ours (B4, special chunks of plain super-chunks
# serialized as data: fa23970; B5, frame_len after
# from_buffer(copy=false) of a frame with holes: the caller's frame).
KNOWN_OURS=${XI_KNOWN_OURS-}
KNOWN_REF=${XI_KNOWN_REF-}
unset LD_LIBRARY_PATH LD_PRELOAD
rm -rf "$OUT"
mkdir -p "$OUT"

libdir_of() {
    if [ -e "$1/lib/libblosc2.so" ]; then echo "$1/lib"; else echo "$1/lib64"; fi
}
build() {
    # $1 = name, $2 = prefix; rpath so each binary keeps its own library
    lib=$(libdir_of "$2")
    # shellcheck disable=SC2086
    $CC $CFLAGS -std=gnu11 -Wall -I"$2/include" "$here/schunk_interop.c" -o "$OUT/xi-$1" \
        -L"$lib" -lblosc2 -Wl,-rpath,"$lib" >>"$OUT/build.log" 2>&1
}
if ! build ours "$P"; then
    echo "schunk-interop: FAIL, does not build against $P"
    tail -n 15 "$OUT/build.log"
    exit 1
fi
libs=ours
if [ -n "$R3" ]; then
    if build ref3 "$R3"; then libs="$libs ref3"; else echo "FAIL build against $R3"; exit 1; fi
fi
if [ -n "$R2" ]; then
    if build ref2 "$R2"; then libs="$libs ref2"; else echo "FAIL build against $R2"; exit 1; fi
fi
refs=${libs#ours}

passed=0
failed=0
# run NAME LIB ARGS...: one program run, one PASS/FAIL line
run() {
    name=$1
    lib=$2
    shift 2
    if [ "$lib" = ours ]; then k=$KNOWN_OURS; else k=$KNOWN_REF; fi
    log=$OUT/$name.log
    XI_KNOWN=$k timeout 600 "$OUT/xi-$lib" "$@" >"$log" 2>&1
    rc=$?
    grep '^KNOWN-FAIL' "$log" | sed "s/^/$name: /"
    summary=$(tail -n 1 "$log")
    if [ $rc -eq 0 ]; then
        echo "PASS $name ($summary)"
        passed=$((passed + 1))
    else
        echo "FAIL $name: exit $rc ($summary)"
        grep -v '^KNOWN-FAIL' "$log" | head -n 12 | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}

# phase A: every library writes
for w in $libs; do run "write-$w" "$w" write "$OUT/A-$w"; done
# phase A read: ours reads everything, the references read ours
for w in $libs; do run "read-A-$w-by-ours" ours read "$OUT/A-$w" A; done
for r in $refs; do run "read-A-ours-by-$r" "$r" read "$OUT/A-ours" A; done
# phase B: ours mutates every library's frames, the references mutate ours
for w in $libs; do run "mutate-$w-by-ours" ours mutate "$OUT/A-$w" "$OUT/B-$w-ours"; done
for m in $refs; do run "mutate-ours-by-$m" "$m" mutate "$OUT/A-ours" "$OUT/B-ours-$m"; done
# phase B read: frames ours mutated are read by all; frames the references
# mutated (ours originally) are read by ours
for w in $libs; do
    for r in $libs; do run "read-B-$w-ours-by-$r" "$r" read "$OUT/B-$w-ours" B; done
done
for m in $refs; do run "read-B-ours-$m-by-ours" ours read "$OUT/B-ours-$m" B; done

[ "${XI_KEEP:-0}" = 1 ] || rm -rf "$OUT"/A-* "$OUT"/B-*
echo "schunk-interop: $passed passed, $failed failed (libraries: $libs)"
[ "$failed" -eq 0 ]
