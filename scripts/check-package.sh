#!/bin/sh
# scripts/check-package.sh: the publishable crates package and build as
# crates.io would get them (the `package` part of make test).
#
#   1. `cargo package` of blosc2-core and libblosc2-rs-sys together (cargo
#      puts the not yet published blosc2-core in a local overlay registry),
#      which builds each crate from its own tarball;
#   2. each tarball holds its LICENSE and README.md and every tracked file
#      under src/ and cbindgen/ (plus build.rs and cbindgen.toml), since
#      libblosc2-rs-sys's build.rs only warns when it cannot generate the
#      headers, so a missing template would not fail step 1;
#   3. the headers the packaged libblosc2-rs-sys generated are the committed
#      include/, byte for byte;
#   4. cargo warns about no missing manifest field.
#
# Its own target directory (target/package-check) keeps the OUT_DIR of the
# packaged build apart from the workspace's; later runs reuse the built
# dependencies (about 100 s the first time on 2 cores, less after).
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
CARGO=${CARGO:-cargo}
CRATES="blosc2-core libblosc2-rs-sys"
tdir=$root/target/package-check
log=$tdir/package.log
mkdir -p "$tdir"
status=0
bad() {
    echo "check-package: $*"
    status=1
}

# So that the OUT_DIR found below can only be this run's.
rm -rf "$tdir"/debug/build/libblosc2-rs-sys-*
# The packaged libblosc2-rs-sys gets blosc2-core through cargo's overlay
# registry, and cargo treats a registry crate as immutable: it neither
# re-extracts a version it has unpacked before (under CARGO_HOME, in a
# directory named for the overlay's path, the same from run to run in one
# checkout) nor rebuilds one it has built. Without these removals a second
# run verifies the new libblosc2-rs-sys against the first run's blosc2-core
# and fails on any function added to the core since. The overlay's
# directories start with '-'; crates.io's are left alone.
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for c in $CRATES; do
    rm -rf "$cargo_home"/registry/src/-*/"$c"-* "$cargo_home"/registry/cache/-*/"$c"-*
done
rm -rf "$tdir"/debug/.fingerprint/blosc2-core-* "$tdir"/debug/deps/*blosc2_core-* \
    "$tdir"/debug/libblosc2_core.* "$tdir"/debug/incremental/blosc2_core-*

# --allow-dirty: the check is about what would be published from the tree as
# it is, uncommitted edits included.
set --
for c in $CRATES; do set -- "$@" -p "$c"; done
echo "check-package: $CARGO package $* --allow-dirty (target $tdir)"
if ! CARGO_TARGET_DIR=$tdir "$CARGO" package "$@" --allow-dirty >"$log" 2>&1; then
    tail -n 30 "$log"
    bad "cargo package failed (log: $log)"
    exit 1
fi
grep -E '^ *(Packaged|Verifying|Finished)' "$log"
if grep -q 'warning: manifest has no' "$log"; then
    grep 'warning: manifest has no' "$log"
    bad "manifest fields missing"
fi

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
for c in $CRATES; do
    crate=$tdir/package/$c-$version.crate
    if [ ! -f "$crate" ]; then
        bad "$crate not written"
        continue
    fi
    listed=$tdir/$c.files
    tar -tzf "$crate" | sed "s|^$c-$version/||" | sort >"$listed"
    need="LICENSE README.md Cargo.toml"
    for f in build.rs cbindgen.toml; do
        if [ -f "$c/$f" ]; then need="$need $f"; fi
    done
    need="$need $(git ls-files -- "$c/src" "$c/cbindgen" | sed "s|^$c/||")"
    missing=""
    for f in $need; do
        grep -qxF "$f" "$listed" || missing="$missing $f"
    done
    if [ -n "$missing" ]; then
        bad "$c: the package lacks$missing"
    else
        echo "check-package: $c: $(wc -l <"$listed") files, $(wc -c <"$crate") bytes, LICENSE, README.md and all sources in"
    fi
    # A symlinked LICENSE must be packaged as the text, not a dangling link.
    if ! tar -xzOf "$crate" "$c-$version/LICENSE" | grep -q 'BSD 3-Clause License'; then
        bad "$c: packaged LICENSE is not the BSD-3-Clause text"
    fi
done

# The packaged libblosc2-rs-sys's build script writes its headers into its
# OUT_DIR, the only one under $tdir (removed above).
gen=$(ls -d "$tdir"/debug/build/libblosc2-rs-sys-*/out/include 2>/dev/null | head -n 1)
if [ -z "$gen" ]; then
    bad "the packaged libblosc2-rs-sys generated no headers (see the warnings in $log)"
elif ! diff -r "$gen" include >"$tdir/headers.diff" 2>&1; then
    bad "headers generated from the package differ from include/ ($tdir/headers.diff)"
else
    echo "check-package: the packaged libblosc2-rs-sys generates include/ unchanged"
fi

if [ $status -eq 0 ]; then echo "check-package: ok"; fi
exit $status
