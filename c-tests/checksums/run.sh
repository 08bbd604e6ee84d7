#!/bin/sh
# c-tests/checksums/run.sh OUR_PREFIX [REF_3_3_5_PREFIX [REF_2_22_1_PREFIX]]
#
# Frame checksums (docs/checksums.md) against the reference libraries, for
# a contiguous frame, a sparse frame and a b2nd array, each written by ours
# with checksums (checksums.c):
#   - ours verifies it sealed and reads it back;
#   - 3.3.5 and 2.22.1 read every chunk, a slice across chunks (lazily,
#     from the file) and a b2nd box: the checksums change nothing they read;
#   - after 3.3.5 or 2.22.1 appends or replaces a chunk, adds a vlmetalayer
#     or copies
#     the frame (blosc2_schunk_copy), ours reports it stale, never corrupt;
#     after blosc2_meta_update in place, "metalayers changed";
#   - a flipped byte in a chunk is reported corrupt (naming the chunk where
#     the file says which), and ours then fails to read it.
# One PASS/FAIL line per check; the last line is
# `checksums: N passed, M failed`; exit 1 on a failure.
#
# Environment: CC (cc), CFLAGS (-O2 -g), CS_OUT (build/checksums).
set -u

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
    echo "usage: $0 OUR_PREFIX [REF_3_3_5_PREFIX [REF_2_22_1_PREFIX]]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
P=$(cd "$1" 2>/dev/null && pwd) || { echo "checksums: no such prefix: $1" >&2; exit 2; }
R3=${2:-}
R2=${3:-}
[ -n "$R3" ] && [ -f "$R3/include/blosc2.h" ] || R3=""
[ -n "$R2" ] && [ -f "$R2/include/blosc2.h" ] || R2=""
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2 -g}
OUT=${CS_OUT:-$root/build/checksums}
unset LD_LIBRARY_PATH LD_PRELOAD
rm -rf "$OUT"
mkdir -p "$OUT"

libdir_of() {
    if [ -e "$1/lib/libblosc2.so" ]; then echo "$1/lib"; else echo "$1/lib64"; fi
}
build() {
    # $1 = name, $2 = prefix, $3 = extra flags; rpath so each binary keeps
    # its own library
    lib=$(libdir_of "$2")
    # shellcheck disable=SC2086
    $CC $CFLAGS $3 -std=gnu11 -Wall -I"$2/include" "$here/checksums.c" -o "$OUT/cs-$1" \
        -L"$lib" -lblosc2 -Wl,-rpath,"$lib" >>"$OUT/build.log" 2>&1
}
if ! build ours "$P" -DWITH_RS; then
    echo "FAIL build: checksums.c does not build against $P"
    tail -n 15 "$OUT/build.log"
    echo "checksums: 0 passed, 1 failed"
    exit 1
fi
# the cost measurement (cost.c, run by hand) is only built here, so that it
# keeps building
lib=$(libdir_of "$P")
# shellcheck disable=SC2086
if ! $CC $CFLAGS -std=gnu11 -Wall -I"$P/include" "$here/cost.c" -o "$OUT/cost" -L"$lib" -lblosc2 \
    -Wl,-rpath,"$lib" >>"$OUT/build.log" 2>&1; then
    echo "FAIL build: cost.c does not build against $P"
    echo "checksums: 0 passed, 1 failed"
    exit 1
fi
refs=""
if [ -n "$R3" ]; then build ref3 "$R3" "" && refs="$refs ref3" || echo "FAIL build against $R3"; fi
if [ -n "$R2" ]; then build ref2 "$R2" "" && refs="$refs ref2" || echo "FAIL build against $R2"; fi
[ -n "$refs" ] || echo "SKIP references: none given (only our own checks run)"

passed=0
failed=0
# check NAME WANT_STATUS PROGRAM ARGS...
check() {
    name=$1
    want=$2
    shift 2
    "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    if [ "$rc" -eq "$want" ]; then
        echo "PASS $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name (exit $rc, expected $want): $(tail -n 2 "$OUT/$name.log" | tr '\n' ' ')"
        failed=$((failed + 1))
    fi
}
# flip FILE: invert one byte in the middle of FILE
flip() {
    python3 -c '
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0xff
open(p, "wb").write(b)
' "$1"
}
copy() { rm -rf "$2"; cp -r "$1" "$2"; }
ours=$OUT/cs-ours

for kind in cframe sframe b2nd; do
    f=$OUT/$kind.b2
    check "$kind-write" 0 "$ours" write "$kind" "$f"
    check "$kind-sealed" 0 "$ours" verify "$f" sealed
    check "$kind-ours-reads" 0 "$ours" read "$kind" "$f"
    for lib in $refs; do
        check "$kind-$lib-reads" 0 "$OUT/cs-$lib" read "$kind" "$f"
        # changes by a writer without checksums: stale, never corrupt
        if [ "$kind" != b2nd ]; then
            copy "$f" "$f.$lib-append"
            check "$kind-$lib-append-stale" 0 sh -c '"$1" append "$2" && "$3" verify "$2" stale && "$3" read "$4" "$2"' \
                _ "$OUT/cs-$lib" "$f.$lib-append" "$ours" "$kind"
            copy "$f" "$f.$lib-update"
            check "$kind-$lib-update-stale" 0 sh -c '"$1" update "$2" && "$3" verify "$2" stale && "$3" read "$4" "$2"' \
                _ "$OUT/cs-$lib" "$f.$lib-update" "$ours" "$kind"
            copy "$f" "$f.$lib-meta"
            check "$kind-$lib-metaupdate" 0 sh -c '"$1" metaupdate "$2" && "$3" verify "$2" metalayers_changed' \
                _ "$OUT/cs-$lib" "$f.$lib-meta" "$ours"
        fi
        copy "$f" "$f.$lib-vlmeta"
        check "$kind-$lib-vlmeta-stale" 0 sh -c '"$1" vlmeta "$2" && "$3" verify "$2" stale' \
            _ "$OUT/cs-$lib" "$f.$lib-vlmeta" "$ours"
        rm -rf "$f.$lib-copy"
        check "$kind-$lib-copy-stale" 0 sh -c '"$1" copy "$2" "$3" && "$4" verify "$3" stale' \
            _ "$OUT/cs-$lib" "$f" "$f.$lib-copy" "$ours"
    done
    # damage
    copy "$f" "$f.flipped"
    if [ "$kind" = sframe ]; then
        flip "$f.flipped/00000002.chunk"
        check "$kind-flip-detected" 0 "$ours" verify "$f.flipped" corrupt 2
    else
        flip "$f.flipped"
        check "$kind-flip-detected" 0 "$ours" verify "$f.flipped" corrupt
    fi
    check "$kind-flip-read-fails" 3 "$ours" read "$kind" "$f.flipped"
done

echo "checksums: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
