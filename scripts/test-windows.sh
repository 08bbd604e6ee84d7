#!/bin/sh
# scripts/test-windows.sh: the Windows build (x86_64-pc-windows-gnu, MinGW)
# run under wine (`make test-windows`, part `windows` of `make test`).
#
#   clippy   cargo clippy --target x86_64-pc-windows-gnu -p blosc2-core
#            -p libblosc2-rs-sys -p libblosc2-rs-cdylib --all-targets -D warnings
#   test     cargo test -p blosc2-core --target x86_64-pc-windows-gnu, run
#            under wine
#   clib     libblosc2.dll (zlib-ng when cmake can be had),
#            installed with `make install-files TARGET=...` into
#            build/windows/prefix: bin/libblosc2.dll, lib/libblosc2.dll.a,
#            lib/libblosc2.a, include/, blosc2.pc, lib/cmake/Blosc2/
#   layout   those files are there, the DLL calls itself libblosc2.dll and
#            the import library and blosc2.pc and the CMake package name it
#   c-tests  c-tests/*.c built with MinGW's gcc against that prefix, run
#            under wine (c-tests/run.sh, C_TESTS_PROGRAMS_ONLY): the smoke
#            set WINDOWS_C_TESTS (default below), all of them with
#            WINDOWS_C_TESTS=all
#   interop  scripts/interop.sh with our tools built with MinGW and run under
#            wine: ours on Windows reads every corpus 3.3.5 and 2.22.1 wrote
#            on Linux, and writes one that 3.3.5 and 2.22.1 read on Linux
# The cargo parts build in the `emulated` profile of Cargo.toml, as
# scripts/test-cross.sh does: one build of the dependencies and C codecs for
# all of them, optimized, with overflow checks and debug assertions.
#
# What it needs: rustup's x86_64-pc-windows-gnu target, Debian's
# gcc-mingw-w64-x86-64 and wine (installed when missing, as root with
# apt-get; WINDOWS_INSTALL=0 never tries). Without them every part is
# SKIPped, saying why. Debian 12's wine 8 has no bcryptprimitives.dll,
# whose ProcessPrng Rust's standard library calls: the stub in
# scripts/windows/bcryptprimitives.c is built here and put on wine's PATH.
# The wine prefix is build/windows/wineprefix (WINEPREFIX overrides it).
#
# Each part prints "PASS windows part", "FAIL ..." or "SKIP ...: why", with
# its time; logs go to build/logs/windows-*.log. Exit status 0 iff nothing
# failed (SKIPs do not fail), 77 when nothing could run.
# WINDOWS_PARTS="clippy" (default) also runs clippy for the target;
# WINDOWS_PARTS="clippy test" adds the core's tests under wine, left out of
# make test for now (issue #31): they take over 17 minutes under wine here
# (their two failures, a Lock and a FileWrite through a second handle, were
# fixed in session 26). The C library's parts always run. Left out
# ones are SKIPs, said so.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
CARGO=${CARGO:-cargo}
WINDOWS_INSTALL=${WINDOWS_INSTALL:-1}
WINDOWS_PARTS=${WINDOWS_PARTS-clippy}
WINDOWS_C_TESTS=${WINDOWS_C_TESTS:-api_basics shuffle_api compress_blosc1 context_api null_args schunk_frame schunk_varchunks b2nd_basic b2nd_shape b2nd_plugins b2nd_zfp vlblocks schunk_lazy}
SHARED_DIR=${SHARED_DIR:-../shared}
triple=x86_64-pc-windows-gnu
gccp=x86_64-w64-mingw32
logs=$root/build/logs
wdir=$root/build/windows
mkdir -p "$logs" "$wdir"
summary=""
nfail=0
t_all=$(date +%s)

elapsed() {
    s=$(($(date +%s) - $1))
    if [ $s -ge 60 ]; then echo "$((s / 60))m$((s % 60))s"; else echo "${s}s"; fi
}
record() {
    echo "$1"
    summary="$summary
$1"
}
finish() {
    echo
    echo "== windows summary ($(elapsed "$t_all")) =="
    echo "$summary" | sed '/^$/d'
    if [ $nfail -eq 0 ]; then
        echo "RESULT: PASS"
        exit 0
    fi
    echo "RESULT: FAIL ($nfail failed)"
    exit 1
}
# Nothing could run: exit 77, which run-tests.sh reports as a SKIP.
skip_all() {
    for p in clippy test clib layout b2 c-tests interop; do
        record "SKIP windows $p: $1"
    done
    echo "RESULT: SKIP"
    exit 77
}

# --- what it needs -----------------------------------------------------------
if ! rustup target list --installed 2>/dev/null | grep -qx $triple; then
    if [ "$WINDOWS_INSTALL" != 1 ] || ! command -v rustup >/dev/null 2>&1; then
        skip_all "rustup target $triple missing"
    fi
    rustup target add $triple >>"$logs/windows-install.log" 2>&1 ||
        skip_all "rustup target add $triple failed (build/logs/windows-install.log)"
fi
missing=""
command -v $gccp-gcc >/dev/null 2>&1 || missing="$missing gcc-mingw-w64-x86-64"
command -v wine >/dev/null 2>&1 || missing="$missing wine"
if [ -n "$missing" ]; then
    if [ "$WINDOWS_INSTALL" != 1 ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        skip_all "missing:$missing (install them as root with apt-get)"
    fi
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $missing; } \
        >>"$logs/windows-install.log" 2>&1 ||
        skip_all "apt-get install$missing failed (build/logs/windows-install.log)"
fi
# wine64 alone names its loader wine64 on some releases
wine=wine
command -v wine >/dev/null 2>&1 || wine=wine64
command -v $wine >/dev/null 2>&1 || skip_all "no wine on PATH after installing it"

export WINEDEBUG=-all
export WINEPREFIX=${WINEPREFIX:-$wdir/wineprefix}
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=$gccp-gcc
export CC_x86_64_pc_windows_gnu=$gccp-gcc CXX_x86_64_pc_windows_gnu=$gccp-g++
export AR_x86_64_pc_windows_gnu=$gccp-ar
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=$wine

stub=$wdir/stub
mkdir -p "$stub"
if ! $gccp-gcc -O2 -shared -o "$stub/bcryptprimitives.dll" scripts/windows/bcryptprimitives.c \
    -ladvapi32 >"$logs/windows-stub.log" 2>&1; then
    skip_all "the bcryptprimitives stub does not build (build/logs/windows-stub.log)"
fi
# the first run creates the wine prefix (about 20 s)
$wine cmd /c exit >>"$logs/windows-install.log" 2>&1 || true

# wine's PATH, the DLL search path: "Z:" is the Unix root
winpath() {
    echo "Z:$1" | sed 's|/|\\|g'
}

wanted() {
    case " $WINDOWS_PARTS " in *" $1 "*) return 0 ;; esac
    case $1 in
        test) record "SKIP windows test: the core's tests under wine are not in WINDOWS_PARTS (over 17 min under wine: issue #31; WINDOWS_PARTS=\"clippy test\" runs them)" ;;
        *) record "SKIP windows $1: not in WINDOWS_PARTS" ;;
    esac
    return 1
}

# --- clippy ------------------------------------------------------------------
t0=$(date +%s)
if ! wanted clippy; then
    :
elif $CARGO clippy --profile emulated --target $triple -p blosc2-core -p libblosc2-rs-sys -p libblosc2-rs-cdylib \
    --all-targets -- -D warnings >"$logs/windows-clippy.log" 2>&1; then
    record "PASS windows clippy ($(elapsed "$t0"))"
else
    record "FAIL windows clippy ($(elapsed "$t0"); build/logs/windows-clippy.log)"
    nfail=$((nfail + 1))
fi

# --- the core's tests under wine --------------------------------------------
t0=$(date +%s)
if ! wanted test; then
    :
elif WINEPATH=$(winpath "$stub") $CARGO test --profile emulated --no-fail-fast -p blosc2-core --target $triple \
    >"$logs/windows-test.log" 2>&1; then
    n=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$logs/windows-test.log" |
        awk '{s += $1} END {print s + 0}')
    record "PASS windows test: $n passed ($(elapsed "$t0"))"
else
    n=$(sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' \
        "$logs/windows-test.log" | awk '{p += $1; f += $2} END {print p + 0 " passed, " f + 0 " failed"}')
    record "FAIL windows test: $n ($(elapsed "$t0"); build/logs/windows-test.log)"
    nfail=$((nfail + 1))
fi

# --- the DLL, installed as `make install` installs it -------------------------
t0=$(date +%s)
prefix=$wdir/prefix
out=${CARGO_TARGET_DIR:-$root/target}/$triple/emulated
features=""
cmake_env=""
if cmake=$(sh scripts/ensure-cmake.sh 2>/dev/null); then
    features="--features libblosc2-rs-cdylib/zlib-ng"
    cmake_env="CMAKE=$cmake"
fi
# shellcheck disable=SC2086
if env $cmake_env $CARGO build --profile emulated -p libblosc2-rs-cdylib -p blosc2-cli --target $triple $features \
    >"$logs/windows-clib.log" 2>&1 &&
    rm -rf "$prefix" &&
    make install-files PREFIX="$prefix" TARGET=$triple SRC_SO="$out/libblosc2.so" \
        SRC_A="$out/libblosc2.a" SRC_BIN="$out/b2" CMAKE_FILES_DIR=build/windows/cmake-files \
        >>"$logs/windows-clib.log" 2>&1; then
    record "PASS windows clib: bin/libblosc2.dll${features:+ with zlib-ng} ($(elapsed "$t0"))"
else
    record "FAIL windows clib ($(elapsed "$t0"); build/logs/windows-clib.log)"
    record "SKIP windows layout: no C library"
    record "SKIP windows b2: no C library"
    record "SKIP windows c-tests: no C library"
    record "SKIP windows interop: no C library"
    nfail=$((nfail + 1))
    finish
fi

# --- the installed files name each other as upstream's MinGW build does ------
t0=$(date +%s)
bad=""
for f in bin/libblosc2.dll lib/libblosc2.dll.a lib/libblosc2.a include/blosc2.h include/b2nd.h \
    include/blosc2/blosc2-export.h include/blosc2/blosc2-stdio.h lib/pkgconfig/blosc2.pc \
    lib/cmake/Blosc2/Blosc2Config.cmake lib/cmake/Blosc2/Blosc2Targets.cmake; do
    [ -f "$prefix/$f" ] || bad="$bad missing:$f"
done
$gccp-objdump -p "$prefix/bin/libblosc2.dll" 2>/dev/null | grep -q '^Name[[:space:]].*[[:space:]]libblosc2\.dll$' ||
    bad="$bad dll-export-name"
strings "$prefix/lib/libblosc2.dll.a" | grep -qx 'libblosc2\.dll' || bad="$bad implib-names-other-dll"
grep -q 'bin/libblosc2.dll' "$prefix/lib/cmake/Blosc2/Blosc2Targets.cmake" &&
    grep -q 'IMPORTED_IMPLIB.*libblosc2.dll.a' "$prefix/lib/cmake/Blosc2/Blosc2Targets.cmake" ||
    bad="$bad cmake-package"
# every export is a blosc*/b2nd* function (no Rust std or codec internals)
$gccp-objdump -p "$prefix/bin/libblosc2.dll" | sed -n '/Ordinal\/Name Pointer/,/^$/p' |
    sed -n 's/^[[:space:]]*\[ *[0-9]*\] //p' | grep -v -E '^(blosc|b2nd)' \
    >"$wdir/foreign-exports.txt" || true
[ -s "$wdir/foreign-exports.txt" ] && bad="$bad foreign-exports($(wc -l <"$wdir/foreign-exports.txt" | tr -d ' '))"
nexp=$($gccp-objdump -p "$prefix/bin/libblosc2.dll" | sed -n '/Ordinal\/Name Pointer/,/^$/p' | grep -c '^\s*\[')
if [ -z "$bad" ]; then
    record "PASS windows layout: $nexp exports, libblosc2.dll named by its import library ($(elapsed "$t0"))"
else
    record "FAIL windows layout:$bad (build/windows/foreign-exports.txt)"
    nfail=$((nfail + 1))
fi

# --- b2.exe, as installed ----------------------------------------------------
# A user's first minutes on Windows: compress a file, look at it, verify
# it, get it back byte for byte, and an array with a dtype.
t0=$(date +%s)
bw=$wdir/b2
rm -rf "$bw"
mkdir -p "$bw"
seq 1 200000 >"$bw/numbers.txt"
b2w() { (cd "$bw" && WINEPATH="$(winpath "$stub")" $wine "$prefix/bin/b2.exe" "$@"); }
bad=""
if [ ! -f "$prefix/bin/b2.exe" ]; then
    bad=" bin/b2.exe not installed"
else
    b2w compress numbers.txt numbers.b2frame >"$logs/windows-b2.log" 2>&1 || bad="$bad compress"
    b2w info numbers.b2frame >>"$logs/windows-b2.log" 2>&1 || bad="$bad info"
    b2w verify numbers.b2frame >>"$logs/windows-b2.log" 2>&1 || bad="$bad verify"
    b2w decompress numbers.b2frame numbers.out >>"$logs/windows-b2.log" 2>&1 || bad="$bad decompress"
    cmp -s "$bw/numbers.txt" "$bw/numbers.out" || bad="$bad round-trip-differs"
    head -c 80000 "$bw/numbers.txt" >"$bw/a.bin"
    b2w compress --dtype '<f8' --shape 100,100 a.bin a.b2nd >>"$logs/windows-b2.log" 2>&1 || bad="$bad compress-array"
    b2w decompress a.b2nd a.out >>"$logs/windows-b2.log" 2>&1 || bad="$bad decompress-array"
    cmp -s "$bw/a.bin" "$bw/a.out" || bad="$bad array-round-trip-differs"
fi
if [ -z "$bad" ]; then
    record "PASS windows b2: compress, info, verify, decompress of a frame and an array ($(elapsed "$t0"))"
else
    record "FAIL windows b2:$bad ($(elapsed "$t0"); build/logs/windows-b2.log)"
    nfail=$((nfail + 1))
fi

# --- c-tests under wine --------------------------------------------------------
t0=$(date +%s)
only=$WINDOWS_C_TESTS
[ "$only" = all ] && only=""
if env C_TESTS_PROGRAMS_ONLY=1 CC=$gccp-gcc CFLAGS="-O2 -g" C_TESTS_RUNNER=$wine \
    WINEPATH="$(winpath "$prefix/bin");$(winpath "$stub")" C_TESTS_ONLY="$only" \
    C_TESTS_OUT="$wdir/c-tests" sh c-tests/run.sh "$prefix" >"$logs/windows-c-tests.log" 2>&1; then
    res=PASS
else
    res=FAIL
    nfail=$((nfail + 1))
fi
counts=$(sed -n 's/^c-tests: \([0-9]* passed.*\)/\1/p' "$logs/windows-c-tests.log" | tail -n 1)
record "$res windows c-tests: ${counts:-no summary}${only:+ (smoke set)} ($(elapsed "$t0"); build/logs/windows-c-tests.log)"

# --- interop corpora ----------------------------------------------------------
t0=$(date +%s)
tools=$SHARED_DIR/interop/tools
case "$tools" in /*) ;; *) tools=$root/$tools ;; esac
if [ ! -d "$tools" ]; then
    record "SKIP windows interop: ../shared not found ($tools)"
    finish
fi
# The shared tools' build.sh takes a prefix with lib/libblosc2.so* (else it
# makes one from a wheel): a view of ours whose libblosc2.so points at the
# import library, which MinGW's ld takes for -lblosc2 anyway.
view=$wdir/tools-prefix
rm -rf "$view"
mkdir -p "$view/lib"
ln -s "$prefix/include" "$view/include"
ln -s "$prefix/lib/libblosc2.dll.a" "$view/lib/libblosc2.dll.a"
ln -s libblosc2.dll.a "$view/lib/libblosc2.so"
# The tools use a few POSIX calls MinGW lacks (fork, mkdir's mode, lstat):
# scripts/windows/posix fills them in (no fork: b2check runs --no-fork).
# CFLAGS reach the reference tools' Linux build too, where the shim is
# empty and its headers forward to the system's.
shim=$root/scripts/windows/posix
if env INTEROP_CC=$gccp-gcc INTEROP_RUNNER="sh $root/scripts/windows/run-tool.sh" WINE=$wine \
    CFLAGS="-O2 -g -I$shim -include $shim/posix-shim.h" \
    WINEPATH="$(winpath "$prefix/bin");$(winpath "$stub")" \
    INTEROP_KEEP_CORPUS="$wdir/corpus" SHARED_DIR="$SHARED_DIR" \
    sh scripts/interop.sh "$view" "$wdir/interop" >"$logs/windows-interop.log" 2>&1; then
    record "PASS windows interop ($(elapsed "$t0"); build/logs/windows-interop.log)"
else
    record "FAIL windows interop ($(elapsed "$t0"); build/logs/windows-interop.log)"
    nfail=$((nfail + 1))
fi
summary="$summary
$(sed -n 's/^interop \([a-z0-9.-]*\): \(.*\)/  \1: \2/p' "$logs/windows-interop.log")"
finish
