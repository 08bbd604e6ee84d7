#!/bin/sh
# C compiler launcher for the zlib-ng that libz-ng-sys builds with CMake
# (CMAKE_C_COMPILER_LAUNCHER, set by the Makefile and CMakeLists.txt for
# cargo).  Usage, as CMake calls it: zlib-ng-cc-launcher.sh CC ARGS...
#
# Every compile runs unchanged except zlib-ng's deflate_medium.c (the
# deflate strategy of zlib levels 3-6, Blosc's default clevel 5 included).
# That file zeroes its two `struct match` locals with memset(&x, ...).
# GCC before 13 does not fold such a memset of a struct, so both structs stay
# addressable in memory, and the copy `current_match = next_match` that runs
# for every literal and match becomes one 8-byte load of bytes just written
# by 2- and 4-byte stores: a failed store-to-load forwarding, some 15 cycles,
# per input position.  That made compression with zlib-ng built by GCC 12
# 0.55-0.9x the speed of the reference C-Blosc2 (whose zlib-ng is built with
# GCC 14), at the same instruction count.  Compiled instead is a copy in the
# build tree where the two memsets are the equivalent `x = (struct match){0};`
# (the same zero bytes, so the same compressed output), which any GCC keeps
# in registers.  If zlib-ng's source no longer has those two lines, the file
# is compiled as it is.

cc_launcher_fail() {
    echo "zlib-ng-cc-launcher: $*" >&2
    exit 1
}

src=
obj=
prev=
for a in "$@"; do
    case "$a" in
        */zlib-ng/deflate_medium.c) src=$a ;;
    esac
    if [ "$prev" = "-o" ]; then
        obj=$a
    fi
    prev=$a
done

if [ -z "$src" ] || [ -z "$obj" ]; then
    exec "$@"
fi

old_cur='memset(&current_match, 0, sizeof(struct match));'
old_next='memset(&next_match, 0, sizeof(struct match));'
if ! grep -qF "$old_cur" "$src" || ! grep -qF "$old_next" "$src"; then
    exec "$@"
fi

patched="${obj%.o}.blosc2.c"
{
    # diagnostics and debug info name the original file
    printf '#line 1 "%s"\n' "$src"
    sed -e 's/memset(&current_match, 0, sizeof(struct match));/current_match = (struct match){0};/' \
        -e 's/memset(&next_match, 0, sizeof(struct match));/next_match = (struct match){0};/' "$src"
} >"$patched" || cc_launcher_fail "cannot write $patched"

# The copy's "..." includes must still find zlib-ng's headers beside the
# original: CMake passes zlib-ng's source directory with -I, and it is added
# again here in case a build does not.
srcdir=$(dirname "$src")
for a in "$@"; do
    shift
    if [ "$a" = "$src" ]; then
        set -- "$@" "-I$srcdir" "$patched"
    else
        set -- "$@" "$a"
    fi
done
exec "$@"
