#!/bin/sh
# Build the fuzz targets and run each briefly, printing exec counts.
#
#   fuzz/smoke.sh [SECONDS]        (default 30 per target)
#
# Uses cargo-fuzz (libFuzzer + AddressSanitizer) when `cargo fuzz` is
# installed; cargo-fuzz needs nightly features, which RUSTC_BOOTSTRAP=1
# unlocks on a stable toolchain. Without cargo-fuzz it falls back to the
# stable replay/mutation runner (src/bin/replay.rs), which has no coverage
# feedback and no sanitizer but still catches panics and failed checks.
# Exits non-zero if a target finds a crash.
set -eu
cd "$(dirname "$0")"
SECS=${1:-30}
TARGETS="decompress_chunk roundtrip open_frame open_frame_at vlblocks b2nd_open schunk_ops sframe capi lazy_udio"
if [ -n "${CARGO_TARGET_DIR:-}" ]; then FUZZ_TARGET_DIR_GIVEN=1; fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
status=0

if [ -z "${FUZZ_NO_LIBFUZZER:-}" ] && cargo fuzz --version >/dev/null 2>&1; then
    export RUSTC_BOOTSTRAP=1
    # cc >= 1.2 instruments C dependencies (zstd, lz4) with -fsanitize=address
    # when the Rust code is; GCC-instrumented zstd under rustc's ASan runtime
    # reports a bogus stack-use-after-scope on a static table, so keep ASan to
    # the Rust code.
    export CFLAGS="${CFLAGS:+$CFLAGS }-fno-sanitize=address"
    cargo fuzz build -O
    for t in $TARGETS; do
        # Run on a scratch copy so a smoke run does not grow the committed seeds.
        # No leak detection: a dropped context's rayon pool lets its threads
        # exit asynchronously, which LeakSanitizer reports as a leak.
        work=$(mktemp -d)
        cp corpus/"$t"/* "$work"/ 2>/dev/null || true
        log=$(mktemp)
        if cargo fuzz run -O "$t" "$work" -- -max_total_time="$SECS" \
            -rss_limit_mb=2048 -timeout=20 -detect_leaks=0 \
            -print_final_stats=1 >"$log" 2>&1; then
            :
        else
            status=1
            tail -n 40 "$log"
        fi
        execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
        echo "$t: ${execs:-?} execs in ${SECS}s (libFuzzer)"
        rm -rf "$work" "$log"
    done
else
    # Cargo's dev profile (opt-level 1 and overflow checks, as the main
    # workspace's) in the main workspace's target directory, unless one was
    # given: the dependencies `cargo test` built there are reused, where a
    # release build of its own would compile them all again.
    if [ -z "${FUZZ_TARGET_DIR_GIVEN:-}" ]; then export CARGO_TARGET_DIR="$PWD/../target"; fi
    cargo build --no-default-features --bin replay
    for t in $TARGETS; do
        "$CARGO_TARGET_DIR"/debug/replay "$t" --seconds "$SECS" corpus/"$t" || status=1
    done
fi
exit $status
