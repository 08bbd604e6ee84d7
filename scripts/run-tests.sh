#!/bin/sh
# scripts/run-tests.sh: the whole test suite (`make test` runs this).
#
# Parts, in the order they run: the ones that decide whether we are a drop-in
# first, so that a run cut short by a time budget (below) has done those.
# TEST_PARTS selects a subset (e.g. TEST_PARTS="install c-tests"); the order
# stays this one.
#   cargo-fmt     cargo fmt --check
#   install       make install PREFIX=build/test-prefix (release build + files)
#   c-tests       c-tests/run.sh on that prefix (C programs, pkg-config, CMake,
#                 reference roundtrips, drop-in, API coverage)
#   interop       scripts/interop.sh on that prefix (shared corpora); unexpected
#                 failures are fatal unless INTEROP_STRICT=0
#   conformance   upstream C-Blosc2's own tests and examples, unmodified, built
#                 against that prefix ($SHARED_DIR/conformance/score.sh): every
#                 program that passes on reference 3.3.5 must pass
#   cargo-test    cargo test of the libraries, binaries and test targets, with
#                 the zlib-ng feature the installed library ships when cmake
#                 can be had (scripts/ensure-cmake.sh); doc tests and examples
#                 are in cargo-doc and cargo-clippy
#   c-threads     the C programs that share a super-chunk or array between
#                 threads, under valgrind's helgrind and drd (c-tests/run.sh
#                 with C_TESTS_HELGRIND=only; C_TESTS_HELGRIND=0 skips it)
#   cargo-clippy  cargo clippy --all-targets -- -D warnings, same features
#                 (clippy's incompatible_msrv lint reads rust-version from
#                 Cargo.toml; --all-targets type-checks the examples)
#   cargo-doc     the Rust API's docs build with -D warnings -D missing_docs,
#                 and the doc tests run
#   fuzz-smoke    every fuzz target for 10 s on its committed corpus through
#                 the stable runner (fuzz/smoke.sh; no cargo-fuzz needed)
#   cmake-recipes scripts/test-cmake-recipes.sh: the tree built as conda-forge,
#                 Debian, vcpkg, add_subdirectory and FetchContent users build
#                 it, each with a consumer; make install = cmake --install;
#                 options that leave codecs out (shares cargo's target dir)
#   package       scripts/check-package.sh: cargo package of the publishable
#                 crates, built from their tarballs, with LICENSE, templates
#                 and the headers they generate checked
#   msrv          cargo check --workspace --all-targets with the toolchain of
#                 the workspace's rust-version (in target/msrv); SKIP when
#                 rustup has no such toolchain (.ci/run installs it)
#   python        scripts/python-blosc2.sh on that prefix (make python-blosc2):
#                 python-blosc2 4.14.1 built from its sdist against the prefix
#                 (wheel cached in ~/.cache/blosc2-python; venv in
#                 build/python-venv, kept between runs), its extension checked
#                 to load the prefix's libblosc2.so.9, and a smoke test; SKIP
#                 when python3 3.11+, pip or PyPI is not available
#   cross         scripts/test-cross.sh: the core's tests under qemu-user on
#                 s390x (big-endian), i686 (32-bit) and aarch64, and clippy
#                 for each; a target whose toolchain or emulator cannot be
#                 installed is a SKIP, saying what is missing
#   windows       scripts/test-windows.sh: the MinGW build (libblosc2.dll and
#                 its import library) under wine: the core's tests, c-tests,
#                 interop corpora across Linux and Windows; a SKIP, saying
#                 why, when MinGW or wine cannot be installed
#
# cross and windows run in the background, beside the parts from c-tests on,
# in target/emulated (see start_background below; TEST_SERIAL=1 runs them in
# line); their output and results are shown in their place in the order.
#
# Time budget: TEST_DEADLINE (seconds since the epoch; .ci/run sets it from
# CI's time limit) bounds the run.  A part still running at the deadline is
# stopped, and a part not yet started when too little time is left is not
# started; both are reported.  For the essential parts (install, c-tests,
# interop, conformance, cargo-test) that is a failure, since the run then has
# not shown what it exists to show; for the others it is a SKIP, listed in
# the summary with the command that runs them.  Without TEST_DEADLINE (a
# plain `make test`) nothing is cut.
#
# Each part prints "PASS part", "FAIL part" or "SKIP part: why"; the run ends
# with a summary block (also in build/test-summary.txt) and a last line
# "RESULT: PASS|FAIL ...".  Exit status 0 iff no fatal part failed.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
CARGO=${CARGO:-cargo}
MAKE=${MAKE:-make}
INTEROP_STRICT=${INTEROP_STRICT:-1}
SHARED_DIR=${SHARED_DIR:-../shared}
ALL_PARTS="cargo-fmt install c-tests interop conformance cargo-test c-threads cargo-clippy cargo-doc fuzz-smoke cmake-recipes package msrv python cross windows"
TEST_PARTS=${TEST_PARTS:-$ALL_PARTS}
ESSENTIAL_PARTS="install c-tests interop conformance cargo-test"
TEST_DEADLINE=${TEST_DEADLINE:-}
# A part is not started with less time left than this.
MIN_PART_SECONDS=${MIN_PART_SECONDS:-120}
build=$root/build
logs=$build/logs
prefix=$build/test-prefix
summary=$build/test-summary.txt
mkdir -p "$logs"
: >"$summary.tmp"
t_start=$(date +%s)
nfail=0
ncut=0
# Stopped from outside (a CI time limit): say which parts finished and how
# long each took before going.
bg_pid=""
stopped() {
    if [ -n "$bg_pid" ]; then
        pkill -TERM -P "$bg_pid" 2>/dev/null
        kill "$bg_pid" 2>/dev/null
    fi
    echo
    echo "================ make test stopped after $(elapsed "$t_start") ================"
    cat "$summary.tmp"
    [ -n "$bg_pid" ] && cat "$summary.bg" 2>/dev/null
    echo "RESULT: STOPPED"
    exit 143
}
trap stopped TERM INT HUP

for p in $TEST_PARTS; do
    case " $ALL_PARTS " in
        *" $p "*) ;;
        *) echo "run-tests: unknown part '$p' (parts: $ALL_PARTS)" >&2; exit 2 ;;
    esac
done
if [ -n "$TEST_DEADLINE" ]; then
    echo "run-tests: time budget: parts end by $(date -u -d "@$TEST_DEADLINE" +%H:%M:%S 2>/dev/null || echo "$TEST_DEADLINE") UTC ($(( (TEST_DEADLINE - t_start) / 60 )) min from now)"
fi

wanted() {
    case " $TEST_PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}
essential() {
    case " $ESSENTIAL_PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}
elapsed() {
    s=$(($(date +%s) - $1))
    if [ $s -ge 60 ]; then echo "$((s / 60))m$((s % 60))s"; else echo "${s}s"; fi
}
# (the background parts, below, record into a file of their own)
rec_file=$summary.tmp
record() {
    echo "$1"
    echo "$1" >>"$rec_file"
}
# The budget ran out for part $1 ($2: what happened): fatal for an
# essential part, a SKIP otherwise.
budget_cut() {
    ncut=$((ncut + 1))
    if essential "$1"; then
        record "FAIL $1: $2 (time budget; an essential part; TEST_PARTS=$1 make test runs it)"
        nfail=$((nfail + 1))
    else
        record "SKIP $1: $2 (time budget; TEST_PARTS=$1 make test runs it)"
    fi
}
# Whether part $1 is wanted and has the time to start; records a cut.
may_start() {
    wanted "$1" && time_to_start "$1"
}
time_to_start() {
    [ -n "$TEST_DEADLINE" ] || return 0
    left=$((TEST_DEADLINE - $(date +%s)))
    if [ "$left" -lt "$MIN_PART_SECONDS" ]; then
        budget_cut "$1" "not started, ${left}s left"
        return 1
    fi
    return 0
}
# Run "$@" with output shown live and kept in $logs/$part.log; sets rc, and
# cut=1 when the deadline stopped it.
run_logged() {
    part=$1
    shift
    echo
    # the clock and the time so far, so that a run cut off by a time limit
    # still tells where its minutes went
    echo "==> [$part] $(date -u +%H:%M:%S) (+$(elapsed "$t_start")) $*"
    rcfile=$logs/$part.rc
    cut=0
    if [ -n "$TEST_DEADLINE" ]; then
        left=$((TEST_DEADLINE - $(date +%s)))
        # timeout signals the part's whole process group (cargo's rustc
        # children, a C test's threads); KILL 30 s later if TERM is ignored
        { timeout -k 30 "$left" "$@"; echo $? >"$rcfile"; } 2>&1 | tee "$logs/$part.log"
        rc=$(cat "$rcfile" 2>/dev/null || echo 1)
        if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ "$(date +%s)" -ge "$TEST_DEADLINE" ]; }; then
            cut=1
        fi
    else
        { "$@"; echo $? >"$rcfile"; } 2>&1 | tee "$logs/$part.log"
        rc=$(cat "$rcfile" 2>/dev/null || echo 1)
    fi
}
# A part whose outcome is its command's exit status.
simple_part() {
    part=$1
    shift
    may_start "$part" || return 0
    t=$(date +%s)
    run_logged "$part" "$@"
    if [ "$cut" -eq 1 ]; then
        budget_cut "$part" "stopped after $(elapsed "$t")"
    elif [ "$rc" -eq 0 ]; then
        record "PASS $part ($(elapsed "$t"))"
    else
        record "FAIL $part ($(elapsed "$t"), exit $rc; log: build/logs/$part.log)"
        nfail=$((nfail + 1))
    fi
}

# test-windows.sh exits 77 when it could run nothing (no MinGW or wine):
# a SKIP with its reason, not a PASS.
part_windows() {
    t=$(date +%s)
    run_logged windows env SHARED_DIR="$SHARED_DIR" CARGO="$CARGO" sh scripts/test-windows.sh
    if [ "$cut" -eq 1 ]; then
        budget_cut windows "stopped after $(elapsed "$t")"
    elif [ "$rc" -eq 77 ]; then
        record "SKIP windows: $(sed -n 's/^SKIP windows clippy: //p' "$logs/windows.log" | head -n 1)"
    elif [ "$rc" -eq 0 ]; then
        record "PASS windows ($(elapsed "$t"))"
    else
        record "FAIL windows ($(elapsed "$t"), exit $rc; log: build/logs/windows.log)"
        nfail=$((nfail + 1))
    fi
}

# The Rust tests and clippy see the zlib-ng backend the installed library
# ships (its test checks it against zlib-rs, which is always built).
zng_features=
if wanted cargo-test || wanted cargo-clippy || wanted cargo-doc; then
    if cmake=$(sh scripts/ensure-cmake.sh); then
        export CMAKE="$cmake"
        zng_features="--features libblosc2-rs-cdylib/zlib-ng"
    else
        record "NOTE cargo-test/cargo-clippy/cargo-doc: no cmake, so zlib-ng (what make install ships) is not built here"
    fi
fi

part_install() {
    rm -rf "$prefix"
    t=$(date +%s)
    run_logged install "$MAKE" --no-print-directory install PREFIX="$prefix"
    if [ "$cut" -eq 1 ]; then
        budget_cut install "stopped after $(elapsed "$t")"
    elif [ "$rc" -eq 0 ]; then
        installed=1
        record "PASS install ($(elapsed "$t"), prefix build/test-prefix)"
    else
        record "FAIL install ($(elapsed "$t"), exit $rc; log: build/logs/install.log)"
        nfail=$((nfail + 1))
    fi
}

# c-tests/run.sh on the prefix as part $1, with the environment
# assignments that follow; records the outcome.
run_c_tests() {
    part=$1
    shift
    t=$(date +%s)
    run_logged "$part" env "$@" sh c-tests/run.sh "$prefix"
    line=$(grep '^c-tests: [0-9]' "$logs/$part.log" | tail -n 1)
    if [ "$cut" -eq 1 ]; then
        budget_cut "$part" "stopped after $(elapsed "$t")"
    elif [ "$rc" -eq 0 ]; then
        record "PASS $part ($(elapsed "$t")): ${line#c-tests: }"
    else
        record "FAIL $part ($(elapsed "$t")): ${line#c-tests: } (log: build/logs/$part.log)"
        grep '^FAIL ' "$logs/$part.log" | sed 's/^/       /' >>"$summary.tmp"
        nfail=$((nfail + 1))
    fi
}

part_c_tests() {
    # the valgrind runs of the threaded programs are a part of their own
    # (c-threads), after the essential ones
    run_c_tests c-tests C_TESTS_HELGRIND=0
    grep '^INFO api-coverage: ' "$logs/c-tests.log" | sed 's/^INFO api-coverage: /       /' >>"$summary.tmp"
}

# The threaded C programs under helgrind and drd (a few minutes): a new lock
# the tools cannot see shows up here, not in a later session.
part_c_threads() {
    if [ "${C_TESTS_HELGRIND:-1}" = 0 ]; then
        record "SKIP c-threads: C_TESTS_HELGRIND=0"
        return
    fi
    run_c_tests c-threads C_TESTS_HELGRIND=only C_TESTS_OUT="$build/c-threads"
}

part_interop() {
    t=$(date +%s)
    run_logged interop env INTEROP_STRICT="$INTEROP_STRICT" SHARED_DIR="$SHARED_DIR" \
        sh scripts/interop.sh "$prefix" "$build"
    if [ "$cut" -eq 1 ]; then
        budget_cut interop "stopped after $(elapsed "$t")"
    elif grep -q '^SKIP: ' "$logs/interop.log"; then
        record "SKIP interop: $(sed -n 's/^SKIP: //p' "$logs/interop.log" | head -n 1)"
    elif [ "$rc" -ne 0 ]; then
        record "FAIL interop ($(elapsed "$t"), INTEROP_STRICT=1): unexpected failures"
        nfail=$((nfail + 1))
    elif grep -q 'no unexpected failures' "$logs/interop.log"; then
        record "PASS interop ($(elapsed "$t"))"
    else
        record "FAIL interop ($(elapsed "$t")), not fatal (INTEROP_STRICT=0): runs with unexpected failures"
    fi
    grep '^interop' "$build/interop-summary.txt" 2>/dev/null | grep -v '^interop: SKIP' |
        sed 's/^/       /' >>"$summary.tmp"
}

part_conformance() {
    t=$(date +%s)
    conf=$SHARED_DIR/conformance
    if [ ! -f "$conf/score.sh" ]; then
        record "SKIP conformance: $conf/score.sh not found (upstream's tests live in ../shared)"
        return
    fi
    rm -rf "$build/conformance"
    run_logged conformance bash "$conf/score.sh" "$prefix" "$build/conformance"
    line=$(grep '^passed [0-9]* of' "$logs/conformance.log" | tail -n 1)
    if [ "$cut" -eq 1 ]; then
        budget_cut conformance "stopped after $(elapsed "$t")"
    elif [ "$rc" -eq 0 ]; then
        record "PASS conformance ($(elapsed "$t")): $line"
    else
        record "FAIL conformance ($(elapsed "$t")): ${line:-no score} (log: build/logs/conformance.log)"
        sed -n 's/^  FAIL /       FAIL /p' "$logs/conformance.log" >>"$summary.tmp"
        nfail=$((nfail + 1))
    fi
}

part_cmake_recipes() {
    t=$(date +%s)
    run_logged cmake-recipes sh scripts/test-cmake-recipes.sh
    line=$(grep '^cmake-recipes: [0-9]' "$logs/cmake-recipes.log" | tail -n 1)
    if [ "$cut" -eq 1 ]; then
        budget_cut cmake-recipes "stopped after $(elapsed "$t")"
    elif [ "$rc" -eq 0 ]; then
        record "PASS cmake-recipes ($(elapsed "$t")): ${line#cmake-recipes: }"
    elif [ "${RECIPES_STRICT:-1}" = 1 ]; then
        record "FAIL cmake-recipes ($(elapsed "$t")): ${line#cmake-recipes: } (log: build/logs/cmake-recipes.log)"
        nfail=$((nfail + 1))
    else
        # RECIPES_STRICT=0: reported only (every recipe passed on a fresh
        # clone in session 21, so a failure is fatal by default).
        record "FAIL cmake-recipes ($(elapsed "$t")), not fatal (RECIPES_STRICT=0): ${line#cmake-recipes: } (log: build/logs/cmake-recipes.log)"
    fi
    grep -E '^(FAIL|SKIP) ' "$logs/cmake-recipes.log" | sed 's/^/       /' >>"$summary.tmp"
}

# python-blosc2 built on the installed prefix: what a Python user of this
# library runs.  The venv lives outside the prefix (which install removes)
# so that a warm run only reinstalls the cached wheel.
part_python() {
    t=$(date +%s)
    run_logged python env SHARED_DIR="$SHARED_DIR" sh scripts/python-blosc2.sh "$prefix" "$build/python-venv"
    if [ "$cut" -eq 1 ]; then
        budget_cut python "stopped after $(elapsed "$t")"
    elif [ "$rc" -eq 77 ]; then
        record "SKIP python: $(sed -n 's/^SKIP: //p' "$logs/python.log" | head -n 1)"
    elif [ "$rc" -eq 0 ]; then
        record "PASS python ($(elapsed "$t")): $(sed -n 's/^python-blosc2: OK: //p' "$logs/python.log" | tail -n 1)"
    else
        record "FAIL python ($(elapsed "$t"), exit $rc; log: build/logs/python.log)"
        grep 'FAIL: ' "$logs/python.log" | sed 's/^/       /' >>"$summary.tmp"
        nfail=$((nfail + 1))
    fi
}

part_msrv() {
    msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
    # rustup names toolchains by full version: 1.89 would be another channel.
    case $msrv in *.*.*) msrv_tc=$msrv ;; *) msrv_tc=$msrv.0 ;; esac
    if [ -z "$msrv" ]; then
        record "FAIL msrv: no rust-version in Cargo.toml"
        nfail=$((nfail + 1))
    elif ! command -v rustup >/dev/null 2>&1; then
        record "SKIP msrv: no rustup to run Rust $msrv_tc (clippy's incompatible_msrv lint still ran)"
    elif ! rustup run "$msrv_tc" cargo --version >/dev/null 2>&1; then
        record "SKIP msrv: Rust $msrv_tc not installed (rustup toolchain install $msrv_tc --profile minimal; .ci/run does)"
    else
        # Its own target directory: artifacts of another rustc are never reused.
        simple_part msrv env CARGO_TARGET_DIR="$root/target/msrv" \
            rustup run "$msrv_tc" cargo check --workspace --all-targets --locked
    fi
}

# --- cross and windows, beside the others ------------------------------------
# Most of their time is qemu and wine running one program at a time, one core
# each, and cargo builds for their own targets; the parts before them leave a
# core idle for long stretches (C programs, upstream's tests, valgrind, fuzz
# targets, one at a time). So they run in the background from just after
# install (cross's identity check reads that prefix), one after the other, in
# a target directory of their own (cargo locks a target directory while it
# builds), and what they print is shown where they stand in the order, with
# their lines of the summary. TEST_SERIAL=1 runs them in line instead.
bg_parts=""
for p in cross windows; do
    wanted $p && bg_parts="$bg_parts $p"
done
[ "${TEST_SERIAL:-0}" = 1 ] && bg_parts=""
bg_started=0
start_background() {
    [ -n "$bg_parts" ] && [ "$bg_started" = 0 ] || return 0
    bg_started=1
    rm -f "$logs/background.counts"
    # the references fetched now, not by two parts at the same moment later
    for v in 3.3.5 2.22.1; do sh scripts/fetch-reference.sh "$v" >/dev/null 2>&1; done
    : >"$summary.bg"
    echo
    echo "==> [background] $(date -u +%H:%M:%S) (+$(elapsed "$t_start")):$bg_parts (output: build/logs/background.log, shown after the other parts)"
    (
        trap - TERM INT HUP
        rec_file=$summary.bg
        nfail=0
        ncut=0
        export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}/emulated"
        for p in $bg_parts; do
            case $p in
                cross) simple_part cross sh scripts/test-cross.sh ;;
                windows) if may_start windows; then part_windows; fi ;;
            esac
        done
        echo "$nfail $ncut" >"$logs/background.counts"
    ) >"$logs/background.log" 2>&1 &
    bg_pid=$!
}
join_background() {
    [ -n "$bg_pid" ] || return 0
    echo
    echo "==> [background] $(date -u +%H:%M:%S) (+$(elapsed "$t_start")) waiting for:$bg_parts"
    wait "$bg_pid"
    bg_pid=""
    cat "$logs/background.log"
    cat "$summary.bg" >>"$summary.tmp"
    rm -f "$summary.bg"
    if read -r bf bc <"$logs/background.counts" 2>/dev/null; then
        nfail=$((nfail + bf))
        ncut=$((ncut + bc))
    else
        record "FAIL background:$bg_parts left no result (build/logs/background.log)"
        nfail=$((nfail + 1))
    fi
}

installed=0
for part in $ALL_PARTS; do
    case $part in
        cargo-fmt) simple_part cargo-fmt "$CARGO" fmt --check ;;
        cargo-test) simple_part cargo-test "$CARGO" test --workspace --lib --bins --tests $zng_features ;;
        install)
            # the C-side parts need a prefix, so install runs when any of them does
            if wanted install || wanted c-tests || wanted interop || wanted conformance || wanted c-threads || wanted python; then
                if time_to_start install; then part_install; fi
            fi
            start_background
            ;;
        c-tests | interop | conformance | c-threads | python)
            if ! wanted "$part"; then
                :
            elif [ $installed -eq 0 ]; then
                record "SKIP $part: nothing installed (install failed or was not run)"
            elif may_start "$part"; then
                case $part in
                    c-tests) part_c_tests ;;
                    interop) part_interop ;;
                    conformance) part_conformance ;;
                    c-threads) part_c_threads ;;
                    python) part_python ;;
                esac
            fi
            ;;
        cargo-clippy) simple_part cargo-clippy "$CARGO" clippy --workspace --all-targets $zng_features -- -D warnings ;;
        cargo-doc) simple_part cargo-doc sh -c 'RUSTDOCFLAGS="-D warnings -D missing_docs" "$1" doc --no-deps -p blosc2-core &&
            shift && "$@"' sh "$CARGO" "$CARGO" test --workspace --doc $zng_features ;;
        fuzz-smoke) simple_part fuzz-smoke env FUZZ_NO_LIBFUZZER=1 sh fuzz/smoke.sh "${FUZZ_SMOKE_SECONDS:-10}" ;;
        cmake-recipes) if may_start cmake-recipes; then part_cmake_recipes; fi ;;
        package) simple_part package sh scripts/check-package.sh ;;
        msrv) if may_start msrv; then part_msrv; fi ;;
        cross | windows)
            case "$bg_started $bg_parts " in
                "1 "*" $part "*) join_background ;;
                *)
                    if [ $part = cross ]; then
                        simple_part cross sh scripts/test-cross.sh
                    elif may_start windows; then
                        part_windows
                    fi
                    ;;
            esac
            ;;
    esac
done
join_background

if [ $nfail -eq 0 ]; then result=PASS; else result=FAIL; fi
cutnote=
if [ $ncut -gt 0 ]; then cutnote=", $ncut part(s) cut by the time budget"; fi
{
    echo
    echo "================ make test summary ================"
    cat "$summary.tmp"
    echo "RESULT: $result ($nfail fatal part(s) failed$cutnote) in $(elapsed "$t_start")"
} | tee "$summary"
rm -f "$summary.tmp"
[ $nfail -eq 0 ]
