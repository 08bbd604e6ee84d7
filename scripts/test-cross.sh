#!/bin/sh
# scripts/test-cross.sh: the core's tests on other CPUs, under emulation
# (`make test-cross` runs this).
#
# For each target (CROSS_TARGETS, default "s390x i686 aarch64"):
#   clippy   cargo clippy --target T -p blosc2-core -p libblosc2-rs-sys
#            --all-targets -- -D warnings (needs only the rustup target)
#            (all three cargo parts in the `emulated` profile of Cargo.toml:
#            optimized, with overflow checks and debug assertions, so they
#            share one build of the dependencies and C codecs, and the
#            emulated tests run some three times faster than at opt-level 1)
#   test     cargo test -p blosc2-core --target T, run under qemu-user, the
#            largest sweeps sampled (BLOSC2RS_TEST_STRIDE, CROSS_TEST_STRIDE=3)
#            (s390x is big-endian, i686 is 32-bit, aarch64 runs the NEON
#            kernels against the scalar ones)
#   clib     libblosc2.so.9 for T (emulated profile, zlib-ng when cmake can be
#            had), in a prefix build/cross/T/prefix (include/, lib/)
#   c-tests  c-tests/*.c built with T's gcc against that prefix, run under
#            qemu (c-tests/run.sh, C_TESTS_PROGRAMS_ONLY): all of them on
#            CROSS_C_TESTS_FULL (s390x), CROSS_C_TESTS_SMOKE elsewhere
#   interop  scripts/interop.sh with our tools on T: ours on T reads the
#            corpora 3.3.5 and 2.22.1 wrote on x86-64 and writes one that
#            3.3.5 and 2.22.1 read on this host (SKIP without ../shared)
# and then, over every target:
#   identity the corpora each CPU wrote compared byte for byte with ours on
#            x86-64 (CROSS_HOST_PREFIX, default build/test-prefix, which
#            `make test` installs; SKIP without it) and with 3.3.5's
#            (scripts/corpus-identity.py prints the table), and ours on
#            x86-64 reading each CPU's corpus
#
# What it needs: the rustup targets, Debian's cross gcc and libc
# (gcc-s390x-linux-gnu libc6-dev-s390x-cross, gcc-i686-linux-gnu
# libc6-dev-i386-cross, gcc-aarch64-linux-gnu libc6-dev-arm64-cross; not
# gcc-multilib, which conflicts with them) and qemu-user. Missing pieces are
# installed when that is possible (rustup on PATH; root and apt-get for the
# packages, CROSS_INSTALL=0 to never try); otherwise the target's parts are
# SKIPped, saying what is missing. cargo is configured through environment
# variables only, so nothing is written to .cargo/.
#
# Each part prints "PASS target part", "FAIL target part" or "SKIP target
# part: why", with its time; logs go to build/logs/cross-*.log; a summary
# ends the run. Exit status 0 iff nothing failed (SKIPs do not fail).
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
CARGO=${CARGO:-cargo}
CROSS_TARGETS=${CROSS_TARGETS:-s390x i686 aarch64}
CROSS_INSTALL=${CROSS_INSTALL:-1}
CROSS_C_TESTS_FULL=${CROSS_C_TESTS_FULL:-s390x}
CROSS_C_TESTS_SMOKE=${CROSS_C_TESTS_SMOKE:-api_basics shuffle_api compress_blosc1 context_api null_args schunk_frame schunk_ops schunk_malformed schunk_varchunks b2nd_basic b2nd_shape b2nd_plugins b2nd_zfp vlblocks trace_env}
SHARED_DIR=${SHARED_DIR:-../shared}
logs=$root/build/logs
mkdir -p "$logs"
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

# triple, gcc prefix, qemu binary, sysroot, Debian packages
describe() {
    case $1 in
    s390x) set -- s390x-unknown-linux-gnu s390x-linux-gnu qemu-s390x \
        "gcc-s390x-linux-gnu libc6-dev-s390x-cross" ;;
    i686) set -- i686-unknown-linux-gnu i686-linux-gnu qemu-i386 \
        "gcc-i686-linux-gnu libc6-dev-i386-cross" ;;
    aarch64) set -- aarch64-unknown-linux-gnu aarch64-linux-gnu qemu-aarch64 \
        "gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
    *) return 1 ;;
    esac
    triple=$1 gccp=$2 qemu=$3 pkgs=$4
}

have_target() {
    rustup target list --installed 2>/dev/null | grep -qx "$1"
}

# Install what is missing when we can; says why not on stdout otherwise.
ensure_target() {
    if ! command -v rustup >/dev/null 2>&1; then
        have_target "$1" || { echo "no rustup to add $1"; return 1; }
    fi
    have_target "$1" && return 0
    [ "$CROSS_INSTALL" = 1 ] || { echo "rustup target $1 missing (CROSS_INSTALL=0)"; return 1; }
    rustup target add "$1" >>"$logs/cross-install.log" 2>&1 ||
        { echo "rustup target add $1 failed (see build/logs/cross-install.log)"; return 1; }
}
apt_updated=0
ensure_packages() {
    missing=""
    for p in $1; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    command -v qemu-s390x >/dev/null 2>&1 || missing="$missing qemu-user"
    [ -z "$missing" ] && return 0
    if [ "$CROSS_INSTALL" != 1 ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "missing:$missing (install them as root with apt-get)"
        return 1
    fi
    if [ $apt_updated = 0 ]; then
        apt-get update >>"$logs/cross-install.log" 2>&1
        apt_updated=1
    fi
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing \
        >>"$logs/cross-install.log" 2>&1 ||
        { echo "apt-get install$missing failed (see build/logs/cross-install.log)"; return 1; }
}

for t in $CROSS_TARGETS; do
    if ! describe "$t"; then
        record "FAIL $t: unknown target (s390x, i686 or aarch64)"
        nfail=$((nfail + 1))
        continue
    fi
    if ! why=$(ensure_target "$triple"); then
        record "SKIP $t clippy: $why"
        record "SKIP $t test: $why"
        continue
    fi

    # clippy too runs the build scripts, which compile the C codecs with
    # the cross gcc: both parts need the packages
    if ! why=$(ensure_packages "$pkgs"); then
        record "SKIP $t clippy: $why"
        record "SKIP $t test: $why"
        continue
    fi
    if ! command -v "$qemu" >/dev/null 2>&1 || ! command -v "$gccp-gcc" >/dev/null 2>&1; then
        record "SKIP $t clippy: $qemu or $gccp-gcc not on PATH"
        record "SKIP $t test: $qemu or $gccp-gcc not on PATH"
        continue
    fi
    # lz4 through its build-time patch (cmake/lz4-cc-launcher.sh), as `make`
    # builds it, so that this CPU writes x86-64's lz4 streams; the codec
    # test same_streams_on_every_host checks them (BLOSC2RS_LZ4_PORTABLE).
    lz4cc="$root/cmake/lz4-cc-launcher.sh $gccp-gcc"
    export CC_KNOWN_WRAPPER_CUSTOM=lz4-cc-launcher BLOSC2RS_LZ4_PORTABLE=1
    up=$(echo "$triple" | tr 'a-z-' 'A-Z_')
    low=$(echo "$triple" | tr '-' '_')
    t0=$(date +%s)
    if env "CC_$low=$lz4cc" "AR_$low=$gccp-ar" \
        $CARGO clippy --profile emulated --target "$triple" -p blosc2-core -p libblosc2-rs-sys --all-targets \
        -- -D warnings >"$logs/cross-$t-clippy.log" 2>&1; then
        record "PASS $t clippy ($(elapsed "$t0"))"
    else
        record "FAIL $t clippy ($(elapsed "$t0"); build/logs/cross-$t-clippy.log)"
        nfail=$((nfail + 1))
    fi

    # The largest sweeps take every third case under emulation (some ten
    # times slower than x86-64 here; the same cases on every CPU).
    t0=$(date +%s)
    if env "CARGO_TARGET_${up}_LINKER=$gccp-gcc" \
        "CARGO_TARGET_${up}_RUNNER=$qemu -L /usr/$gccp" \
        "CC_$low=$lz4cc" "AR_$low=$gccp-ar" BLOSC2RS_TEST_STRIDE=${CROSS_TEST_STRIDE:-3} \
        $CARGO test --profile emulated --no-fail-fast -p blosc2-core --target "$triple" >"$logs/cross-$t-test.log" 2>&1; then
        n=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$logs/cross-$t-test.log" |
            awk '{s += $1} END {print s + 0}')
        record "PASS $t test: $n passed ($(elapsed "$t0"))"
    else
        record "FAIL $t test ($(elapsed "$t0"); build/logs/cross-$t-test.log)"
        nfail=$((nfail + 1))
    fi

    # --- the C library on this CPU ---------------------------------------------
    # Built as `make` builds it (zlib-ng when cmake can be had), in the
    # emulated profile (optimized code without fat LTO, with overflow checks:
    # the same bytes, from the dependencies the tests already built).
    t0=$(date +%s)
    xdir=$root/build/cross/$t
    xprefix=$xdir/prefix
    features=""
    cmake_env=""
    if cmake=$(sh scripts/ensure-cmake.sh 2>/dev/null); then
        features="--features libblosc2-rs-cdylib/zlib-ng"
        cmake_env="CMAKE=$cmake"
    fi
    # shellcheck disable=SC2086
    if env "CARGO_TARGET_${up}_LINKER=$gccp-gcc" "CC_$low=$lz4cc" "CXX_$low=$gccp-g++" \
        "AR_$low=$gccp-ar" $cmake_env \
        $CARGO build --profile emulated -p libblosc2-rs-cdylib --target "$triple" $features \
        >"$logs/cross-$t-clib.log" 2>&1; then
        rm -rf "$xprefix"
        mkdir -p "$xprefix/lib"
        cp -R include "$xprefix/include"
        cp "${CARGO_TARGET_DIR:-$root/target}/$triple/emulated/libblosc2.so" "$xprefix/lib/libblosc2.so.9"
        ln -s libblosc2.so.9 "$xprefix/lib/libblosc2.so"
        record "PASS $t clib: libblosc2.so.9${features:+ with zlib-ng} ($(elapsed "$t0"))"
    else
        record "FAIL $t clib ($(elapsed "$t0"); build/logs/cross-$t-clib.log)"
        record "SKIP $t c-tests: no C library"
        record "SKIP $t interop: no C library"
        nfail=$((nfail + 1))
        continue
    fi
    runner="$qemu -L /usr/$gccp"

    # --- c-tests/*.c, compiled with the cross gcc, run under qemu -----------
    # All of them where CROSS_C_TESTS_FULL says so (s390x, the big-endian
    # one, by default), a smoke set elsewhere to keep CI's time. The tests'
    # data generators must compute the values x86-64 computed for the
    # reference hashes: no fused multiply-adds (aarch64 and s390x have them).
    # i686's gcc computes doubles on the x87 stack (80-bit intermediates)
    # unless told to use SSE2, which x86-64 and Rust's i686 target use.
    fpflags="-ffp-contract=off"
    [ "$t" = i686 ] && fpflags="$fpflags -msse2 -mfpmath=sse"
    only=""
    case " $CROSS_C_TESTS_FULL " in *" $t "*) ;; *) only=$CROSS_C_TESTS_SMOKE ;; esac
    t0=$(date +%s)
    if env C_TESTS_PROGRAMS_ONLY=1 CC="$gccp-gcc" CFLAGS="-O2 -g $fpflags" \
        C_TESTS_RUNNER="$runner" C_TESTS_ONLY="$only" C_TESTS_OUT="$xdir/c-tests" \
        sh c-tests/run.sh "$xprefix" >"$logs/cross-$t-c-tests.log" 2>&1; then
        res="PASS"
    else
        res="FAIL"
        nfail=$((nfail + 1))
    fi
    counts=$(sed -n 's/^c-tests: \([0-9]* passed.*\)/\1/p' "$logs/cross-$t-c-tests.log" | tail -n 1)
    record "$res $t c-tests: ${counts:-no summary}${only:+ (smoke set)} ($(elapsed "$t0"); build/logs/cross-$t-c-tests.log)"

    # --- interop corpora: ours on this CPU reads what 3.3.5 and 2.22.1 wrote
    # on x86-64 and writes a corpus they read there (scripts/interop.sh) ----
    # Expected besides the reference's own failures, on big-endian only:
    # NaN special values are host-order floats (as upstream makes them), and
    # b2gen's own INT_TRUNC expectation copies an item into the low-addressed
    # bytes of a uint64_t, its high bytes there, so it refuses a correct chunk.
    expect=""
    [ "$t" = s390x ] && expect="special-nan b2nd_nans int_trunc"
    t0=$(date +%s)
    if [ ! -d "$root/$SHARED_DIR/interop/tools" ] && [ ! -d "$SHARED_DIR/interop/tools" ]; then
        record "SKIP $t interop: ../shared not found ($SHARED_DIR/interop/tools)"
        continue
    fi
    if env INTEROP_CC="$gccp-gcc" INTEROP_RUNNER="$runner" INTEROP_EXPECT_FEATURES="$expect" \
        INTEROP_KEEP_CORPUS="$xdir/corpus" SHARED_DIR="$SHARED_DIR" \
        sh scripts/interop.sh "$xprefix" "$xdir/interop" >"$logs/cross-$t-interop.log" 2>&1; then
        record "PASS $t interop ($(elapsed "$t0"); build/logs/cross-$t-interop.log)"
    else
        record "FAIL $t interop ($(elapsed "$t0"); build/logs/cross-$t-interop.log)"
        nfail=$((nfail + 1))
    fi
    sed -n 's/^interop \([a-z0-9.-]*\): /  \1: /p' "$logs/cross-$t-interop.log"
    summary="$summary
$(sed -n 's/^interop \([a-z0-9.-]*\): \(.*\)/  \1: \2/p' "$logs/cross-$t-interop.log")"
done

# --- byte identity across CPUs, and ours on x86-64 reading each one ---------
hostp=${CROSS_HOST_PREFIX:-$root/build/test-prefix}
tools=$SHARED_DIR/interop/tools
case "$tools" in /*) ;; *) tools=$root/$tools ;; esac
corpora=""
for t in $CROSS_TARGETS; do
    [ -f "$root/build/cross/$t/corpus/manifest.json" ] && corpora="$corpora $t=$root/build/cross/$t/corpus"
done
hdir=$root/build/cross/host
if [ -z "$corpora" ]; then
    record "SKIP identity: no corpus was written on another CPU"
elif [ ! -f "$hostp/include/blosc2.h" ] || [ ! -d "$tools" ]; then
    record "SKIP identity: needs our x86-64 prefix ($hostp: make test installs it) and ../shared ($tools)"
else
    t0=$(date +%s)
    rm -rf "$hdir"
    mkdir -p "$hdir"
    ok=1
    bash "$tools/build.sh" "$hostp" "$hdir/ours" all >"$logs/cross-identity.log" 2>&1 &&
        "$hdir/ours/b2gen" --seed 1 --quiet "$hdir/corpus-x86-64" >>"$logs/cross-identity.log" 2>&1 || ok=0
    ref=""
    if R3=$(sh scripts/fetch-reference.sh 3.3.5 2>>"$logs/cross-identity.log") &&
        bash "$tools/build.sh" "$R3" "$hdir/ref-3.3.5" gen >>"$logs/cross-identity.log" 2>&1 &&
        "$hdir/ref-3.3.5/b2gen" --seed 1 --quiet "$hdir/corpus-ref-3.3.5" >>"$logs/cross-identity.log" 2>&1; then
        ref="3.3.5-x86-64=$hdir/corpus-ref-3.3.5"
    fi
    if [ $ok = 1 ]; then
        # shellcheck disable=SC2086
        # Every CPU writes x86-64's bytes, except zstd on i686: zstd 1.5.7
        # tunes its match finders to the word size (2 entries of the corpus).
        if python3 scripts/corpus-identity.py --strict s390x --strict aarch64 --strict i686:zstd \
            "x86-64=$hdir/corpus-x86-64" $ref $corpora >"$hdir/identity.md"; then
            record "PASS identity ($(elapsed "$t0")): build/cross/host/identity.md"
        else
            record "FAIL identity ($(elapsed "$t0")): files differ from x86-64's, build/cross/host/identity.md"
            nfail=$((nfail + 1))
        fi
        cat "$hdir/identity.md"
        summary="$summary
$(sed -n 's/^identity: /  /p' "$hdir/identity.md")"
        # Ours on x86-64 reads what each CPU wrote: every failure must be
        # one 3.3.5 has on the same corpus (its interop run above).
        for c in $corpora; do
            t=${c%%=*}
            dir=${c#*=}
            out=$hdir/x86-64-reads-$t.txt
            "$hdir/ours/b2check" --lenient "$dir" >"$out" 2>&1
            sed -n 's/^FAIL \([^:]*\):.*/\1/p' "$out" | sort -u >"$hdir/fail-$t.ids"
            sed -n 's/^FAIL \([^:]*\):.*/\1/p' "$root/build/cross/$t/interop/interop-ref-3.3.5-reads-ours.txt" 2>/dev/null |
                sort -u >"$hdir/basefail-$t.ids"
            n=$(comm -23 "$hdir/fail-$t.ids" "$hdir/basefail-$t.ids" | wc -l | tr -d ' ')
            counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
            if [ -n "$counts" ] && [ "$n" = 0 ]; then
                record "PASS x86-64-reads-$t: ${counts} (every failure also fails with 3.3.5 reading it)"
            else
                record "FAIL x86-64-reads-$t: ${counts:-b2check stopped}, $n failures 3.3.5 does not have (build/cross/host/x86-64-reads-$t.txt)"
                nfail=$((nfail + 1))
            fi
        done
    else
        record "FAIL identity: our x86-64 corpus could not be written (build/logs/cross-identity.log)"
        nfail=$((nfail + 1))
    fi
fi

echo
echo "== cross summary ($(elapsed "$t_all")) =="
echo "$summary" | sed '/^$/d'
if [ $nfail -eq 0 ]; then
    echo "RESULT: PASS"
    exit 0
fi
echo "RESULT: FAIL ($nfail failed)"
exit 1
