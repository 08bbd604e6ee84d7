#!/usr/bin/env bash
# Checks our public headers against the reference C-Blosc2 headers.
#
#   c-tests/layout/check.sh REF_INCLUDE OUR_INCLUDE
#
# 1. layout.py: struct sizes/alignments, field offsets/sizes (numbers taken
#    from the reference in this same run), integer and string constants,
#    remaining macro expansions (BLOSC1_COMPAT aliases, guards), prototypes
#    of the functions we declare (redeclared as upstream has them), and
#    coexistence with a Blosc1 blosc.h included first.
# 2. inline_probe.c, built against both header sets, must print the same:
#    the static const *_DEFAULTS and the static inline helpers.
# 3. A file including all our headers builds warning-free (-Wall -Wextra
#    -Werror) as C99, C11 (with and without BLOSC1_COMPAT) and C++11/17.
#
# Needs gcc, g++ and python3; no library. Exits non-zero on any difference.
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 REF_INCLUDE OUR_INCLUDE" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
ref=$(cd "$1" && pwd) || exit 2
ours=$(cd "$2" && pwd) || exit 2
CC=${CC:-gcc}
CXX=${CXX:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); }

# 1. layout and constants
if python3 "$here/layout.py" "$ref" "$ours" "$work"; then pass; else fail; fi

# 2. defaults and inline helpers
ok=1
for side in ref ours; do
  inc=$ref
  [ "$side" = ours ] && inc=$ours
  if ! "$CC" -std=c99 -O1 -I "$inc" "$here/inline_probe.c" -o "$work/inline_$side" 2>"$work/inline_$side.err" ||
     ! "$work/inline_$side" >"$work/inline_$side.out" 2>&1; then
    echo "inline helpers: probe failed against the $side headers:"
    cat "$work/inline_$side.err"
    ok=0
  fi
done
if [ $ok = 1 ] && diff "$work/inline_ref.out" "$work/inline_ours.out" >"$work/inline.diff"; then
  echo "inline helpers and defaults: $(wc -l <"$work/inline_ref.out") result lines identical"
  pass
else
  echo "inline helpers and defaults: results differ (< reference, > ours):"
  cat "$work/inline.diff" 2>/dev/null
  fail
fi

# 3. strict compilation of our headers
cat >"$work/all.c" <<'EOF'
#include "blosc2.h"
#include "b2nd.h"
#include "blosc2/blosc2-stdio.h"
#include "blosc2/codecs-registry.h"
#include "blosc2/filters-registry.h"
#include "blosc2/tuners-registry.h"
int main(void) { return 0; }
EOF
cp "$work/all.c" "$work/all.cc"
cp "$here/inline_probe.c" "$work/inline_probe.cc"
builds=(
  "$CC -std=c99 -c $work/all.c"
  "$CC -std=c11 -c $work/all.c"
  "$CC -std=c11 -DBLOSC1_COMPAT -c $work/all.c"
  "$CC -std=c11 -c $here/inline_probe.c"
  "$CXX -std=c++11 -c $work/all.cc"
  "$CXX -std=c++17 -DBLOSC1_COMPAT -c $work/all.cc"
  "$CXX -std=c++11 -c $work/inline_probe.cc"
)
bad=0
for b in "${builds[@]}"; do
  # shellcheck disable=SC2086
  if ! $b -Wall -Wextra -Werror -I "$ours" -o "$work/obj.o" 2>"$work/build.err"; then
    echo "strict build failed: $b"
    cat "$work/build.err"
    bad=$((bad + 1))
  fi
done
echo "strict builds (-Wall -Wextra -Werror, C99/C11/C++11/C++17): $((${#builds[@]} - bad))/${#builds[@]} OK"
if [ $bad = 0 ]; then pass; else fail; fi

echo "header checks: $passed passed, $failed failed"
[ $failed = 0 ]
