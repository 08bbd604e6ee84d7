#!/bin/sh
# scripts/test-cross.sh: the core's tests on other CPUs, under emulation
# (`make test-cross` runs this).
#
# For each target (CROSS_TARGETS, default "s390x i686 aarch64"):
#   clippy   cargo clippy --target T -p blosc2-core -p libblosc2-rs-sys
#            --all-targets -- -D warnings (needs only the rustup target)
#   test     cargo test -p blosc2-core --target T, run under qemu-user
#            (s390x is big-endian, i686 is 32-bit, aarch64 has no SIMD
#            kernel of ours yet and runs the scalar ones)
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
    up=$(echo "$triple" | tr 'a-z-' 'A-Z_')
    low=$(echo "$triple" | tr '-' '_')
    t0=$(date +%s)
    if env "CC_$low=$gccp-gcc" "AR_$low=$gccp-ar" \
        $CARGO clippy --target "$triple" -p blosc2-core -p libblosc2-rs-sys --all-targets \
        -- -D warnings >"$logs/cross-$t-clippy.log" 2>&1; then
        record "PASS $t clippy ($(elapsed "$t0"))"
    else
        record "FAIL $t clippy ($(elapsed "$t0"); build/logs/cross-$t-clippy.log)"
        nfail=$((nfail + 1))
    fi

    t0=$(date +%s)
    if env "CARGO_TARGET_${up}_LINKER=$gccp-gcc" \
        "CARGO_TARGET_${up}_RUNNER=$qemu -L /usr/$gccp" \
        "CC_$low=$gccp-gcc" "AR_$low=$gccp-ar" \
        $CARGO test --no-fail-fast -p blosc2-core --target "$triple" >"$logs/cross-$t-test.log" 2>&1; then
        n=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$logs/cross-$t-test.log" |
            awk '{s += $1} END {print s + 0}')
        record "PASS $t test: $n passed ($(elapsed "$t0"))"
    else
        record "FAIL $t test ($(elapsed "$t0"); build/logs/cross-$t-test.log)"
        nfail=$((nfail + 1))
    fi
done

echo
echo "== cross summary ($(elapsed "$t_all")) =="
echo "$summary" | sed '/^$/d'
if [ $nfail -eq 0 ]; then
    echo "RESULT: PASS"
    exit 0
fi
echo "RESULT: FAIL ($nfail failed)"
exit 1
