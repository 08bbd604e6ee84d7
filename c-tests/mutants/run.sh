#!/bin/sh
# c-tests/mutants/run.sh OUR_PREFIX [REF_PREFIX]
#
# Mutation sweep of small frames, b2nd arrays and chunks (written by the
# reference 3.3.5) read by ours and by the reference; prints the classes of
# classify.py per source and access path. A manual tool, not part of
# c-tests/run.sh: the reference reads some mutants wrongly or crashes on
# them, so the counts are for a person to judge (see issue #29, item 5).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
P=$1
R=${2:-$(sh "$root/scripts/fetch-reference.sh" 3.3.5)}
OUT=${MUTANTS_OUT:-$root/build/mutants}
mkdir -p "$OUT/src" "$OUT/out"
for t in ours:$P ref:$R; do
    name=${t%%:*}; pfx=${t#*:}
    cc -O1 -g -w -I"$pfx/include" "$here/mutants.c" -o "$OUT/mutants-$name" \
        -L"$pfx/lib" -lblosc2 -Wl,-rpath,"$pfx/lib"
done
"$OUT/mutants-ref" gen "$OUT/src"
export TMPDIR="$OUT"
for b in ref ours; do
    for f in frameA frameB; do for k in frame ffile; do
        "$OUT/mutants-$b" run $k "$OUT/src/$f.b2frame" >"$OUT/out/$b-$f-$k.txt"; done; done
    for f in arrayA arrayB; do for k in b2nd bfile; do
        "$OUT/mutants-$b" run $k "$OUT/src/$f.b2nd" >"$OUT/out/$b-$f-$k.txt"; done; done
    for f in chunkA chunkB chunkC; do
        "$OUT/mutants-$b" run chunk "$OUT/src/$f.cdata" 40 >"$OUT/out/$b-$f-chunk.txt"; done
done
for f in "$OUT"/out/ref-*; do
    n=${f#"$OUT"/out/ref-}
    echo "== ${n%.txt}"
    python3 "$here/classify.py" "$f" "$OUT/out/ours-$n"
done
