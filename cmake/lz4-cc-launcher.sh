#!/bin/sh
# C compiler wrapper for the lz4 that the lz4-sys crate builds with the cc
# crate.  Usage: lz4-cc-launcher.sh CC ARGS...  cc-rs runs it as a wrapper
# when its compiler variable is "path/lz4-cc-launcher.sh CC" and
# CC_KNOWN_WRAPPER_CUSTOM=lz4-cc-launcher: HOST_CC in native builds (the
# Makefile, CMakeLists.txt), TARGET_CC in CMake cross builds, CC_<target>
# in scripts/test-cross.sh (cc-rs prefers CC_<target> over both).
#
# Why: C lz4 1.10.0 (the version C-Blosc2 3.3.5 bundles) finds matches
# through hash tables whose hashes are taken over words read in the host's
# byte order and word size:
#   - LZ4_hashPosition reads a native 8-byte word for LZ4_hash5, and
#     LZ4_hash5 has a second formula for big-endian hosts;
#   - 32-bit hosts hash 4 bytes instead of 5, index the table by
#     pointer (byPtr) instead of by offset (byU32), and LZ4_loadDict hashes
#     positions up to 4 bytes (not 8) before the dictionary's end;
#   - LZ4HC_hashPtr and LZ4MID_hash4Ptr (lz4hc.c) hash a native 4-byte word.
# The streams stay valid everywhere, but a frame written on s390x or i686 is
# not byte for byte the one written on x86-64 (docs: README, "Other CPUs").
# The hashes only choose which earlier positions are tried as matches, so
# taking them the little-endian, 64-bit way on every host gives every host
# the x86-64 streams.  lz4's own LZ4_STATIC_LINKING_ONLY_ENDIANNESS_INDEPENDENT_OUTPUT
# covers only the 4-byte hash of lz4.c; it is defined, and the rest is
# patched in a copy of each file in the build tree:
#   lz4.c:   a little-endian 8-byte read (b2rs_readLE64) for LZ4_hash5 on
#            every word size, LZ4_hash5's little-endian formula, byU32
#            tables on 32-bit hosts, and HASH_UNIT 8 (LZ4_loadDict's last
#            hashed position; the 8-byte read there must not pass the
#            dictionary's end either);
#   lz4hc.c: LZ4_readLE32 in LZ4HC_hashPtr and LZ4MID_hash4Ptr.
# On a little-endian 64-bit host each change computes what the original
# computes (the same reads, formula and table type), so x86-64 and aarch64
# streams, and identity with the reference there, are unchanged.
#
# Every other compile runs unchanged.  When lz4's source no longer has the
# lines patched here (another lz4 release), the build fails and says so:
# compiling it unpatched would silently give up the identity that
# blosc2-core's codec tests and `make test-cross` check.

fail() {
    echo "lz4-cc-launcher: $*" >&2
    exit 1
}

src=
obj=
prev=
for a in "$@"; do
    case "$a" in
        liblz4/lib/lz4.c | liblz4/lib/lz4hc.c | */liblz4/lib/lz4.c | */liblz4/lib/lz4hc.c) src=$a ;;
    esac
    if [ "$prev" = "-o" ]; then
        obj=$a
    fi
    prev=$a
done

if [ -z "$src" ] || [ -z "$obj" ]; then
    exec "$@"
fi

# Each patch: the line it must find (fixed string) and its sed command.
case "$src" in
    *lz4hc.c)
        checks='static U32 LZ4HC_hashPtr(const void* ptr) { return HASH_FUNCTION(LZ4_read32(ptr)); }
static U32 LZ4MID_hash4Ptr(const void* ptr) { return LZ4MID_hash4(LZ4_read32(ptr)); }'
        script='
s/^static U32 LZ4HC_hashPtr(const void\* ptr) { return HASH_FUNCTION(LZ4_read32(ptr)); }$/static U32 LZ4HC_hashPtr(const void* ptr) { return HASH_FUNCTION(LZ4_readLE32(ptr)); }/
s/^static U32 LZ4MID_hash4Ptr(const void\* ptr) { return LZ4MID_hash4(LZ4_read32(ptr)); }$/static U32 LZ4MID_hash4Ptr(const void* ptr) { return LZ4MID_hash4(LZ4_readLE32(ptr)); }/'
        ;;
    *)
        checks='LZ4_FORCE_INLINE U32 LZ4_hash4(U32 sequence, tableType_t const tableType)
LZ4_FORCE_INLINE U32 LZ4_hash5(U64 sequence, tableType_t const tableType)
    if ((sizeof(reg_t)==8) && (tableType != byU16)) return LZ4_hash5(LZ4_read_ARCH(p), tableType);
(sizeof(void*)==4) && ((uptrval)source > LZ4_DISTANCE_MAX)
(sizeof(void*)==4) && ((uptrval)src > LZ4_DISTANCE_MAX)
#define HASH_UNIT sizeof(reg_t)'
        script='
/^LZ4_FORCE_INLINE U32 LZ4_hash4(U32 sequence, tableType_t const tableType)$/i\
/* blosc2-rs: the 8 bytes at p as a little-endian number, on any host */\
static U64 b2rs_readLE64(const void* p)\
{\
    const BYTE* b = (const BYTE*)p;\
    if (LZ4_isLittleEndian()) { U64 v; LZ4_memcpy(&v, p, sizeof(v)); return v; }\
    return (U64)b[0] | ((U64)b[1]<<8) | ((U64)b[2]<<16) | ((U64)b[3]<<24)\
        | ((U64)b[4]<<32) | ((U64)b[5]<<40) | ((U64)b[6]<<48) | ((U64)b[7]<<56);\
}\

/^LZ4_FORCE_INLINE U32 LZ4_hash5(U64 sequence, tableType_t const tableType)$/,/^}/s/if (LZ4_isLittleEndian())/if (1)/
s/^    if ((sizeof(reg_t)==8) \&\& (tableType != byU16)) return LZ4_hash5(LZ4_read_ARCH(p), tableType);$/    if (tableType != byU16) return LZ4_hash5(b2rs_readLE64(p), tableType);/
s/(sizeof(void\*)==4) \&\& ((uptrval)source > LZ4_DISTANCE_MAX)/0/
s/(sizeof(void\*)==4) \&\& ((uptrval)src > LZ4_DISTANCE_MAX)/0/
s/^#define HASH_UNIT sizeof(reg_t)$/#define HASH_UNIT 8/'
        ;;
esac

printf '%s\n' "$checks" | while IFS= read -r line; do
    grep -qF "$line" "$src" || {
        echo "lz4-cc-launcher: $src has no line '$line': this lz4 is not the 1.10.0 the patches are for; update cmake/lz4-cc-launcher.sh" >&2
        exit 1
    }
done || exit 1

patched="${obj%.o}.blosc2.c"
{
    # diagnostics and debug info name the original file
    printf '#line 1 "%s"\n' "$src"
    sed -e "$script" "$src"
} >"$patched" || fail "cannot write $patched"
grep -q 'if (1)' "$patched" || case "$src" in *lz4hc.c) ;; *) fail "LZ4_hash5 was not patched in $patched" ;; esac

# The copy's "..." includes (lz4hc.c includes lz4.c and both include their
# headers) must still find lz4's files beside the original.
srcdir=$(dirname "$src")
for a in "$@"; do
    shift
    if [ "$a" = "$src" ]; then
        set -- "$@" "-I$srcdir" -DLZ4_STATIC_LINKING_ONLY_ENDIANNESS_INDEPENDENT_OUTPUT "$patched"
    else
        set -- "$@" "$a"
    fi
done
exec "$@"
