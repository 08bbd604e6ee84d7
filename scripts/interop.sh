#!/bin/sh
# scripts/interop.sh PREFIX [REPORT_DIR]
#
# Run the shared interoperability tools (SHARED_DIR/interop/tools, default
# ../shared beside the repository) against the libblosc2 installed in PREFIX:
#
#   ours-reads-ref-3.3.5      b2check (built against ours) --lenient over the
#   ours-reads-ref-2.22.1     stored corpora written by the reference libraries
#   ours-reads-upstream-data  and over upstream's own test fixtures
#   ref-3.3.5-reads-ours      b2gen built against ours writes a corpus; b2check
#   ref-2.22.1-reads-ours     built against each reference reads it (--lenient)
#
# Each run's full output goes to REPORT_DIR/interop-<name>.txt (default
# build/); one line per run, "interop <name>: N passed, M failed", goes to
# stdout and to REPORT_DIR/interop-summary.txt.  When a run has failures, the
# reference 3.3.5 is put in the same role (reading the same corpus, or
# writing the same seed) and failures it shares are reported as expected
# (reference bugs, what 2.22.1 cannot read); the rest are "unexpected" and
# listed in REPORT_DIR/interop-<name>-unexpected.txt.
#
# Exit status: 0 when no run had unexpected failures, or when
# INTEROP_STRICT=0 (counts are reported, failures do not fail
# the run), 1 otherwise.
# A missing SHARED_DIR prints "SKIP: ../shared not found (...)" and exits 0.
#
# Environment: SHARED_DIR, INTEROP_STRICT (1), INTEROP_SEED (1),
# INTEROP_TIMEOUT (per-entry seconds, 20), BLOSC2_REF_3_3_5 /
# BLOSC2_REF_2_22_1 (reference prefixes; default scripts/fetch-reference.sh),
# INTEROP_KEEP_CORPUS (a directory: the corpus ours wrote is moved there
# instead of deleted).
#
# Ours on another CPU (scripts/test-cross.sh), the references staying on
# this host: INTEROP_CC builds our tools (a cross gcc), INTEROP_RUNNER runs
# them (e.g. "qemu-s390x -L /usr/s390x-linux-gnu"), and entries with one of
# the features in INTEROP_EXPECT_FEATURES (space-separated manifest
# features, e.g. special-nan on a big-endian host, where NaN special values
# are host-order floats by design) count as expected failures.
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 PREFIX [REPORT_DIR]" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
P=$(cd "$1" 2>/dev/null && pwd) || { echo "interop: no such prefix: $1" >&2; exit 2; }
report=${2:-$root/build}
mkdir -p "$report"
report=$(cd "$report" && pwd)
summary=$report/interop-summary.txt
: >"$summary"
strict=${INTEROP_STRICT:-1}
seed=${INTEROP_SEED:-1}
# per entry, in seconds; emulated (INTEROP_RUNNER), with the four runs side
# by side on a busy machine, an entry takes many times longer
if [ -n "${INTEROP_RUNNER:-}" ]; then entry_timeout=${INTEROP_TIMEOUT:-120}; else entry_timeout=${INTEROP_TIMEOUT:-20}; fi
unset LD_LIBRARY_PATH LD_PRELOAD

shared=${SHARED_DIR:-../shared}
case "$shared" in
    /*) ;;
    *) shared=$root/$shared ;;
esac
if [ ! -d "$shared/interop/tools" ]; then
    echo "SKIP: ../shared not found ($shared/interop/tools does not exist): interop corpora not run"
    echo "interop: SKIP (../shared not found: $shared)" >>"$summary"
    exit 0
fi
shared=$(cd "$shared" && pwd)
tools=$shared/interop/tools
work=$report/interop
rm -rf "$work"
mkdir -p "$work"

limit() {
    t=$1
    shift
    if command -v timeout >/dev/null 2>&1; then timeout "$t" "$@"; else "$@"; fi
}
note() { echo "$1"; echo "$1" >>"$summary"; }
nfailed=0
nskipped=0

# Build b2gen/b2check against a prefix into $2.  While our library still lacks
# functions, a normal link fails; then every missing function gets a stub (in
# a separate libb2missing.so, scripts/missing-stubs.py) that prints its name
# and returns upstream's failure value (or aborts), so only the entries that
# need a missing function fail and the counts track progress as functions land.
build_tools() {
    # $1 prefix, $2 outdir, $3 what (gen|check|all), $4 label, $5 compiler
    # (default: CC)
    log=$2.build.log
    if env ${5:+CC=$5} bash "$tools/build.sh" "$1" "$2" "$3" >"$log" 2>&1; then
        return 0
    fi
    [ -z "${5:-}" ] || { note "interop: $4 tools do not build with $5 (see $log)"; return 1; }
    stubdir=$2.stubs
    mkdir -p "$stubdir"
    : >"$stubdir/missing.txt"
    # build.sh stops at the first tool that fails to link, so collect the
    # missing names over a few rounds.
    round=0
    while [ $round -lt 4 ]; do
        round=$((round + 1))
        grep -o "undefined reference to \`[A-Za-z0-9_]*'" "$log" | sed "s/.*\`\(.*\)'/\1/" |
            cat - "$stubdir/missing.txt" | sort -u >"$stubdir/missing.new"
        if cmp -s "$stubdir/missing.new" "$stubdir/missing.txt"; then
            break
        fi
        mv "$stubdir/missing.new" "$stubdir/missing.txt"
        n=$(wc -l <"$stubdir/missing.txt" | tr -d ' ')
        if ! python3 "$root/scripts/missing-stubs.py" "$stubdir/missing.txt" "$stubdir/missing.c" \
            ${ref_include:+"$ref_include"} >>"$log" 2>&1; then
            note "interop: $4 tools do not build (stub generation failed, see $log)"
            return 1
        fi
        if ! ${CC:-cc} -shared -fPIC -O1 "$stubdir/missing.c" -o "$stubdir/libb2missing.so" >>"$log" 2>&1; then
            note "interop: $4 tools do not build (stub library failed, see $log)"
            return 1
        fi
        if CFLAGS="-O2 -g -Wl,--no-as-needed $stubdir/libb2missing.so -Wl,-rpath,$stubdir" \
            bash "$tools/build.sh" "$1" "$2" "$3" >"$log" 2>&1; then
            note "interop: NOTE $4 lacks $n functions the tools call; they are stubbed (fail when called), see $stubdir/missing.txt"
            return 0
        fi
    done
    note "interop: $4 tools do not build (see $log)"
    return 1
}

entries_of() {
    python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["entries"]))' "$1/manifest.json" 2>/dev/null || echo "?"
}

failing_ids() {
    sed -n 's/^FAIL \([^:]*\):.*/\1/p' "$1" | sort -u
}

# $1 name, $2 b2check binary, $3 corpus dir, $4 (optional) b2check binary of
# the reference in the same role, run on the same corpus (or on $5 if given,
# strictly if $6 = strict):
# its failures are "expected" (reference bugs, cross-version limits) and only
# the other failures count as unexpected.
check_corpus() {
    out=$report/interop-$1.txt
    if [ ! -f "$3/manifest.json" ]; then
        note "interop $1: SKIP ($3/manifest.json not found)"
        nskipped=$((nskipped + 1))
        return
    fi
    if [ -f "$out.rc" ]; then
        # run already, beside the others (read_all)
        rc=$(cat "$out.rc")
        rm -f "$out.rc"
    else
        limit 1800 "$2" --lenient --timeout "$entry_timeout" "$3" >"$out" 2>&1
        rc=$?
    fi
    counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    if [ -z "$counts" ]; then
        # The checker itself died (e.g. a missing function called before the
        # first forked entry): every entry counts as failed.
        n=$(entries_of "$3")
        passes=$(grep -c '^PASS' "$out")
        why=$(grep 'not implemented by the library under test' "$out" | head -n 1)
        [ -n "$why" ] || why=$(grep -v -E '^(PASS|FAIL)' "$out" | tail -n 1)
        counts="$passes passed, $((${n:-0} - passes)) failed (b2check stopped early, exit $rc: $why)"
        rc=1
    fi
    extra=""
    unexpected=-1
    if [ $rc -eq 0 ]; then
        unexpected=0
    elif [ -n "${4:-}" ]; then
        base=$work/baseline-$1.txt
        # $6 = strict: the baseline corpus records the reference's own
        # failures as writer_failures, which --lenient would skip, while our
        # corpus (written correctly) does not: compare with a strict run.
        if [ "${6:-}" = strict ]; then bmode=""; else bmode=--lenient; fi
        limit 1800 "$4" $bmode --timeout "$entry_timeout" "${5:-$3}" >"$base" 2>&1
        failing_ids "$out" >"$work/fail-$1.ids"
        failing_ids "$base" >"$work/basefail-$1.ids"
        if [ -n "${5:-}" ]; then
            # Entries the reference writer could not round-trip itself are not
            # in its corpus at all; the reference reader failing on our copy
            # of them is the same reference bug, not ours.
            python3 -c 'import json,sys
for s in json.load(open(sys.argv[1])).get("skipped", []): print(s["id"])' "$5/manifest.json" \
                >>"$work/basefail-$1.ids" 2>/dev/null
            sort -u -o "$work/basefail-$1.ids" "$work/basefail-$1.ids"
        fi
        if [ -n "${INTEROP_EXPECT_FEATURES:-}" ]; then
            python3 -c 'import json,sys
want = set(sys.argv[2].split())
for e in json.load(open(sys.argv[1]))["entries"]:
    if want & set(e.get("features", [])): print(e["id"])' "$3/manifest.json" "$INTEROP_EXPECT_FEATURES" \
                >>"$work/basefail-$1.ids"
            sort -u -o "$work/basefail-$1.ids" "$work/basefail-$1.ids"
        fi
        if grep -q -E '^[0-9]+ passed' "$base" && grep -q '^PASS' "$out"; then
            unexpected=$(comm -23 "$work/fail-$1.ids" "$work/basefail-$1.ids" | wc -l | tr -d ' ')
            expected=$(comm -12 "$work/fail-$1.ids" "$work/basefail-$1.ids" | wc -l | tr -d ' ')
            extra=" ($expected also fail with reference 3.3.5 in this role${5:+ or were refused by its writer}${INTEROP_EXPECT_FEATURES:+ or have a feature of: $INTEROP_EXPECT_FEATURES}, $unexpected unexpected)"
            comm -23 "$work/fail-$1.ids" "$work/basefail-$1.ids" >"$report/interop-$1-unexpected.txt"
        fi
    fi
    [ "$unexpected" -eq 0 ] || nfailed=$((nfailed + 1))
    note "interop $1: $counts$extra"
}

ref_prefix() {
    if [ -n "$2" ]; then echo "$2"; else sh "$root/scripts/fetch-reference.sh" "$1" 2>>"$work/fetch-reference.log"; fi
}

echo "interop: prefix $P, shared $shared, seed $seed, strict=$strict"

# The reference 3.3.5 tools give the baseline each run is compared with.
R3=$(ref_prefix 3.3.5 "${BLOSC2_REF_3_3_5:-}") || R3=""
ref3_check=""
ref3_gen=""
ref_include=""
[ -n "$R3" ] && [ -f "$R3/include/blosc2.h" ] && ref_include=$R3/include
if [ -n "$R3" ] && [ -f "$R3/include/blosc2.h" ] && build_tools "$R3" "$work/ref-3.3.5" all "reference 3.3.5"; then
    ref3_check=$work/ref-3.3.5/b2check
    ref3_gen=$work/ref-3.3.5/b2gen
else
    note "interop: reference 3.3.5 unavailable: no baseline, every failure counts as unexpected"
fi

# Our tools, through the emulator when there is one: each becomes a script
# that runs the real binary (NAME.bin) under INTEROP_RUNNER.
ours_tools() {
    build_tools "$P" "$work/ours" all ours "${INTEROP_CC:-}" || return 1
    [ -n "${INTEROP_RUNNER:-}" ] || return 0
    for t in b2gen b2check b2describe; do
        if [ -f "$work/ours/$t.exe" ]; then
            # MinGW's gcc wrote NAME.exe, the only name wine runs it by
            bin=$work/ours/$t.exe
        elif [ -f "$work/ours/$t" ]; then
            bin=$work/ours/$t.bin
            mv "$work/ours/$t" "$bin"
        else
            continue
        fi
        printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$INTEROP_RUNNER" "$bin" >"$work/ours/$t"
        chmod +x "$work/ours/$t"
    done
    echo "interop: our tools built with ${INTEROP_CC:-cc}, run through $INTEROP_RUNNER"
}

# run_bg OUT CMD...: CMD's output in OUT and its exit status in OUT.rc, in
# the background.
run_bg() {
    o=$1
    shift
    (
        "$@" >"$o" 2>&1
        echo $? >"$o.rc"
    ) &
}

# --- ours reads the stored corpora -------------------------------------------
if ours_tools; then
    # Our four runs (three corpora read, one written) go side by side: each
    # is one process (under qemu, one emulated CPU), and check_corpus then
    # takes the outputs as they are.
    for c in ref-3.3.5:interop/ref-3.3.5 ref-2.22.1:interop/ref-2.22.1 upstream-data:upstream-data; do
        [ -f "$shared/${c#*:}/manifest.json" ] || continue
        run_bg "$report/interop-ours-reads-${c%%:*}.txt" \
            limit 1800 "$work/ours/b2check" --lenient --timeout "$entry_timeout" "$shared/${c#*:}"
    done
    corpus=$work/corpus-ours
    genlog=$report/interop-ours-writes.txt
    run_bg "$genlog" limit 1800 "$work/ours/b2gen" --seed "$seed" --quiet "$corpus"
    wait
    check_corpus ours-reads-ref-3.3.5 "$work/ours/b2check" "$shared/interop/ref-3.3.5" "$ref3_check"
    check_corpus ours-reads-ref-2.22.1 "$work/ours/b2check" "$shared/interop/ref-2.22.1" "$ref3_check"
    check_corpus ours-reads-upstream-data "$work/ours/b2check" "$shared/upstream-data" "$ref3_check"

    # --- ours writes, the references read -------------------------------------
    rc=$(cat "$genlog.rc")
    rm -f "$genlog.rc"
    written=$(grep '^b2gen: library' "$genlog" | tail -n 1)
    if [ ! -f "$corpus/manifest.json" ]; then
        why=$(grep 'not implemented by the library under test' "$genlog" | head -n 1)
        note "interop ours-writes: b2gen failed (exit $rc${why:+: $why}, see $genlog)"
        nfailed=$((nfailed + 1))
    else
        # Same seed written by reference 3.3.5: what each reader makes of a
        # faithful 3.3.5 writer's output, and how many entries it writes.
        basecorpus=""
        refwritten=""
        if [ -n "$ref3_gen" ] && limit 1800 "$ref3_gen" --seed "$seed" --quiet "$work/corpus-ref-3.3.5" \
            >"$work/ref-3.3.5-gen.log" 2>&1; then
            basecorpus=$work/corpus-ref-3.3.5
            refwritten=$(sed -n 's/^b2gen: library [^:]*: \([0-9]* entries\).*, \([0-9]* skipped\).*/\1, \2/p' \
                "$work/ref-3.3.5-gen.log" | tail -n 1)
        fi
        refused=""
        if [ -n "$basecorpus" ]; then
            # Entries the reference writes but ours refuses are failures of
            # ours (unless they have an expected feature).
            python3 -c 'import json,sys
ents = lambda p: {e["id"]: e for e in json.load(open(p + "/manifest.json"))["entries"]}
ours, ref = ents(sys.argv[1]), ents(sys.argv[2])
want = set(sys.argv[3].split())
print("\n".join(sorted(i for i in ref if i not in ours and not want & set(ref[i].get("features", [])))))' \
                "$corpus" "$basecorpus" "${INTEROP_EXPECT_FEATURES:-}" \
                >"$report/interop-ours-writes-refused.txt" 2>/dev/null
            refused=$(grep -c . "$report/interop-ours-writes-refused.txt")
            [ "${refused:-0}" = 0 ] || nfailed=$((nfailed + 1))
        fi
        note "interop ours-writes: ${written:-b2gen exit $rc} (seed $seed${refwritten:+; reference 3.3.5: $refwritten}${refused:+; $refused entries the reference writes are refused by ours})"
        for v in 3.3.5 2.22.1; do
            if [ "$v" = 3.3.5 ]; then o=${BLOSC2_REF_3_3_5:-}; else o=${BLOSC2_REF_2_22_1:-}; fi
            R=$(ref_prefix "$v" "$o") || R=""
            if [ -z "$R" ] || [ ! -f "$R/include/blosc2.h" ]; then
                note "interop ref-$v-reads-ours: SKIP (reference $v not available)"
                nskipped=$((nskipped + 1))
                continue
            fi
            if [ "$v" = 3.3.5 ] && [ -n "$ref3_check" ]; then
                bin=$ref3_check
            elif build_tools "$R" "$work/ref-$v" check "reference $v"; then
                bin=$work/ref-$v/b2check
            else
                nfailed=$((nfailed + 1))
                continue
            fi
            if [ -n "$basecorpus" ]; then
                check_corpus "ref-$v-reads-ours" "$bin" "$corpus" "$bin" "$basecorpus" strict
            else
                check_corpus "ref-$v-reads-ours" "$bin" "$corpus"
            fi
        done
        rm -rf "$work/corpus-ref-3.3.5"
    fi
    if [ -n "${INTEROP_KEEP_CORPUS:-}" ]; then
        rm -rf "$INTEROP_KEEP_CORPUS"
        mv "$corpus" "$INTEROP_KEEP_CORPUS"
    fi
    rm -rf "$corpus"
else
    nfailed=$((nfailed + 1))
fi

if [ "$nfailed" -eq 0 ]; then
    echo "interop: no unexpected failures"
    exit 0
fi
if [ "$strict" = 1 ]; then
    echo "interop: $nfailed run(s) with unexpected failures (INTEROP_STRICT=1: failing)"
    exit 1
fi
echo "interop: $nfailed run(s) with unexpected failures (reported only; INTEROP_STRICT=0)"
exit 0
