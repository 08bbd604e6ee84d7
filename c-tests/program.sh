#!/bin/sh
# c-tests/program.sh NAME: build and run one c-tests/NAME.c for c-tests/run.sh,
# which runs several of these at once (C_TESTS_JOBS).  Writes the outcome to
# $OUT/results/NAME: a first line "PASS NAME", "SKIP NAME: why" or
# "FAIL NAME: why", then the lines of the log run.sh shows under a failure.
# Everything else comes from run.sh's environment: P, OUT, CC, CFLAGS,
# RUNNER, C_MEMCHECK, C_PLIMIT, C_EXE, C_ONLY_THREADS.
set -u
name=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$here/$name.c
log=$OUT/logs/$name.log
res=$OUT/results/$name
limit() {
    t=$1
    shift
    if command -v timeout >/dev/null 2>&1; then timeout "$t" "$@"; else "$@"; fi
}
# written whole at the end: run.sh reads only finished files
outcome() {
    { echo "$1"; [ -n "${2:-}" ] && [ -s "$2" ] && tail -n 15 "$2" | sed 's/^/    | /'; } >"$res.tmp"
    mv "$res.tmp" "$res"
    exit 0
}
# shellcheck disable=SC2086
if ! $CC $CFLAGS -std=gnu11 -Wall -I"$P/include" "$src" -o "$OUT/bin/$name" \
    -L"$P/lib" -lblosc2 -lm >"$log" 2>&1; then
    # A test of API functions the library does not provide yet is
    # reported as skipped, by name, not failed: the coverage report
    # counts what is missing. Any compile error still fails.
    missing=$(sed -n "s/.*undefined reference to \`\([A-Za-z0-9_]*\)'.*/\1/p" "$log" | sort -u | tr '\n' ' ')
    if [ -n "$missing" ] && ! grep -v 'collect2: error: ld returned' "$log" | grep -q ' error: '; then
        case $missing in
        blosc* | b2nd* | *" blosc"* | *" b2nd"*)
            outcome "SKIP $name: needs API functions not implemented yet: $missing" ;;
        # POSIX calls the test itself uses (memmem, mkdtemp), which
        # MinGW's C runtime lacks
        *) outcome "SKIP $name: the C runtime lacks what the test uses: $missing" ;;
        esac
    fi
    outcome "FAIL $name: does not compile/link against $P" "$log"
fi
# (=only: built for the valgrind tools run.sh runs next, already run natively)
[ "$C_ONLY_THREADS" = 1 ] && outcome "BUILT $name"
if [ -n "$RUNNER" ] && [ "$name" = fork_threads ]; then
    # qemu-user itself aborts in the child (an assertion in its plugin
    # code) when a process with threads forks
    outcome "SKIP $name: not under emulation: qemu-user aborts in a forked child of a threaded process"
fi
# Each program in a directory of its own: the files it makes by relative
# name never meet another's that runs at the same time.
work=$OUT/work/$name
rm -rf "$work" && mkdir -p "$work" && cd "$work" || outcome "FAIL $name: cannot make $work"
# shellcheck disable=SC2086
LD_LIBRARY_PATH=$P/lib C_TESTS_TIME_SCALE=${RUNNER:+10} limit $C_PLIMIT $C_MEMCHECK $RUNNER "$OUT/bin/$name$C_EXE" >>"$log" 2>&1
rc=$?
case $rc in
    0) outcome "PASS $name" ;;
    77) outcome "SKIP $name: $(tail -n 1 "$log")" ;;
    124) outcome "FAIL $name: timed out" "$log" ;;
    99) [ -n "$C_MEMCHECK" ] && outcome "FAIL $name: valgrind memcheck errors" "$log" ;;
esac
outcome "FAIL $name: exit status $rc" "$log"
