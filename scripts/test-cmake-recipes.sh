#!/bin/sh
# scripts/test-cmake-recipes.sh: build this source tree the way packagers and
# vendoring projects build C-Blosc2's, each in a temporary directory, and
# compile and run a consumer against each result.  `make test` runs it (part
# cmake-recipes).  One line per recipe: PASS name / FAIL name: why /
# SKIP name: why; then "cmake-recipes: N passed, M failed, K skipped".
#
#   conda-forge       recipe/build.sh of conda-forge's c-blosc2 feedstock:
#                     Unix Makefiles, Release, absolute CMAKE_INSTALL_LIBDIR,
#                     BUILD_TESTS=1 and `ctest` before installing
#   debian            dh_auto_configure's arguments (debhelper 13, CMake
#                     build type None, multiarch CMAKE_INSTALL_LIBDIR), the
#                     PREFER_EXTERNAL_* options distributions set, `make`,
#                     `make install DESTDIR=`; then find_package and
#                     pkg-config (dynamic and static) consumers of the staged
#                     multiarch tree, and the system codec libraries linked
#   vcpkg             ports/blosc2/portfile.cmake's options (Ninja, external
#                     lz4/zlib/zstd required, static triplet), then
#                     find_package + Blosc2::blosc2
#   add-subdirectory  a project that vendors the tree with add_subdirectory()
#                     and links blosc2_static, blosc2_shared, Blosc2::blosc2;
#                     installs nothing of ours (a subproject does not install)
#   fetchcontent-dir  FetchContent_Declare(SOURCE_DIR <tree>)
#   fetchcontent-git  FetchContent_Declare(GIT_REPOSITORY <local clone>)
#   same-install      `make install` and `cmake --install` of the same layout
#                     (multiarch LIBDIR) give the same files and the same
#                     blosc2.pc and CMake package
#   options           DEACTIVATE_ZSTD and BUILD_LITE builds leave the codecs
#                     out as upstream's do (checked through the C API);
#                     misuse of an option stops configure with its name
#
# The recipes share cargo's target directory (CARGO_TARGET_DIR, default the
# repository's target/), so a configuration cargo has already built (make
# install's) costs no new build.  Offline: the builds download nothing
# (CARGO_NET_OFFLINE=true); the crates of Cargo.lock are fetched first, once.
#
# Environment: RECIPES (the names to run; default all), RECIPES_TMP (where
# the temporary directories go), CMAKE (scripts/ensure-cmake.sh finds one),
# CC.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
RECIPES=${RECIPES:-conda-forge debian vcpkg add-subdirectory fetchcontent-dir fetchcontent-git same-install options}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
# The recipes' feature sets need crates no other build of the suite does
# (libz-sys for the system zlib): fetched here, once, from Cargo.lock, so
# that the builds below stay offline.
if ! ${CARGO:-cargo} fetch --locked >"${TMPDIR:-/tmp}/blosc2-recipes-fetch.log" 2>&1; then
    echo "cmake-recipes: cargo fetch --locked failed (offline?): recipes that need crates not in cargo's cache will fail"
    tail -n 3 "${TMPDIR:-/tmp}/blosc2-recipes-fetch.log" | sed 's/^/    | /'
fi
export CARGO_NET_OFFLINE=true
CC=${CC:-cc}
cmake=$(sh scripts/ensure-cmake.sh) || { echo "SKIP cmake-recipes: no cmake (scripts/ensure-cmake.sh failed)"; exit 0; }
export PATH="$(dirname "$cmake"):$PATH"
# The cmake zlib-ng's build uses, as `make build` gives it: the same
# environment keeps cargo's artifacts fresh across the recipes.
export CMAKE="$cmake"
ninja=$(command -v ninja 2>/dev/null || true)
if [ -z "$ninja" ] && [ -x "$(dirname "$cmake")/python" ]; then
    # The private venv of ensure-cmake.sh can take ninja from PyPI too.
    "$(dirname "$cmake")/python" -m pip install --quiet ninja >/dev/null 2>&1 || true
    ninja=$(command -v ninja 2>/dev/null || true)
fi
tmp=$(mktemp -d "${RECIPES_TMP:-${TMPDIR:-/tmp}}/blosc2-recipes.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
logs=$root/build/logs/cmake-recipes
rm -rf "$logs"
mkdir -p "$logs"
multiarch=$($CC -print-multiarch 2>/dev/null)
[ -n "$multiarch" ] || multiarch=$(uname -m)-linux-gnu
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

passed=0
failed=0
skipped=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
fail() {
    echo "FAIL $1: $2"
    failed=$((failed + 1))
    if [ -s "$logs/$1.log" ]; then tail -n 25 "$logs/$1.log" | sed 's/^/    | /'; fi
}
wanted() { case " $RECIPES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# run NAME CMD...: appends the command and its output to the recipe's log.
run() {
    name=$1
    shift
    echo "+ $*" >>"$logs/$name.log"
    "$@" >>"$logs/$name.log" 2>&1
}
consumer=$root/c-tests/consumer/consumer.c
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
# The cargo features that upstream's codec options map to (docs/cmake.md);
# a tree without them cannot build those configurations.
has_features() { grep -q '^system-lz4 *=' "$root/libblosc2-rs-cdylib/Cargo.toml"; }
no_features="this tree's libblosc2-rs-cdylib has no codec features (system-lz4, zstd, ...) yet, so configure refuses these options"
have_externals() { have_pc liblz4 && have_pc libzstd && have_pc zlib; }

# A consumer project: find_package(Blosc2) and every target it gives.
write_find_package_project() {
    mkdir -p "$1"
    cat >"$1/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(recipe_consumer C)
find_package(Blosc2 3.3 CONFIG REQUIRED)
message(STATUS "Blosc2 \${Blosc2_VERSION} from \${Blosc2_DIR}")
foreach(t IN ITEMS $2)
    string(REPLACE "::" "_" exe "\${t}")
    add_executable(\${exe} "$consumer")
    target_link_libraries(\${exe} PRIVATE \${t})
endforeach()
EOF
}
# build_and_run NAME SRCDIR BUILDDIR PREFIX_PATH EXES...
build_and_run() {
    name=$1 src=$2 bld=$3 pp=$4
    shift 4
    run "$name" "$cmake" -S "$src" -B "$bld" -DCMAKE_PREFIX_PATH="$pp" -DCMAKE_C_COMPILER="$CC" || return 1
    run "$name" "$cmake" --build "$bld" || return 1
    for exe in "$@"; do
        run "$name" "$bld/$exe" || return 1
        grep -q "round trip ok" "$logs/$name.log" || return 1
    done
}
needed_libs() { readelf -d "$1" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' '; }

# --- conda-forge --------------------------------------------------------------------
if wanted conda-forge; then
    n=conda-forge
    PREFIX=$tmp/conda-prefix
    SRC_DIR=$root
    mkdir -p "$tmp/conda-build"
    if (cd "$tmp/conda-build" &&
        # recipe/build.sh, as conda-forge runs it:
        run $n "$cmake" -G "Unix Makefiles" \
            -DCMAKE_BUILD_TYPE="Release" \
            -DCMAKE_INSTALL_PREFIX="${PREFIX}" \
            -DCMAKE_INSTALL_LIBDIR="${PREFIX}/lib" \
            -DCMAKE_POSITION_INDEPENDENT_CODE=1 \
            -DBUILD_STATIC=1 \
            -DBUILD_SHARED=1 \
            -DBUILD_TESTS=1 \
            -DBUILD_BENCHMARKS=0 \
            "${SRC_DIR}" &&
        run $n "$cmake" --build . -- -j"$jobs" &&
        run $n ctest -j"$jobs" --output-on-failure &&
        run $n "$cmake" --build . --target install); then
        write_find_package_project "$tmp/conda-consumer" "Blosc2::blosc2_shared Blosc2::blosc2_static Blosc2::blosc2"
        if build_and_run $n "$tmp/conda-consumer" "$tmp/conda-consumer/build" "$PREFIX" \
            Blosc2_blosc2_shared Blosc2_blosc2_static Blosc2_blosc2; then
            pass "$n ($(grep -c 'Test #' "$logs/$n.log") ctest tests; $(grep '% tests passed' "$logs/$n.log" | tail -n 1))"
        else
            fail $n "consumer of the installed prefix"
        fi
    else
        fail $n "configure, build, ctest or install failed (log: build/logs/cmake-recipes/$n.log)"
    fi
fi

# --- make install and cmake --install agree ------------------------------------------
# Before the vendoring recipes: it builds what conda-forge built (the library
# and b2), which they do not (the library alone relinks cargo's one
# libblosc2.so).
if wanted same-install; then
    n=same-install
    a=$tmp/same-make b=$tmp/same-cmake
    if run $n make --no-print-directory install PREFIX="$a" LIBDIR="lib/$multiarch" CMAKE_FILES_DIR="$tmp/same-make-build" &&
        run $n "$cmake" -S "$root" -B "$tmp/same-cmake-build" -DCMAKE_BUILD_TYPE=Release \
            -DBUILD_TESTS=OFF -DBUILD_FUZZERS=OFF -DBUILD_BENCHMARKS=OFF -DBUILD_EXAMPLES=OFF \
            -DCMAKE_INSTALL_LIBDIR="lib/$multiarch" &&
        run $n "$cmake" --build "$tmp/same-cmake-build" &&
        run $n "$cmake" --install "$tmp/same-cmake-build" --prefix "$b"; then
        (cd "$a" && find . | sort) >"$tmp/files-make"
        (cd "$b" && find . | sort) >"$tmp/files-cmake"
        why=
        diff "$tmp/files-make" "$tmp/files-cmake" >>"$logs/$n.log" 2>&1 || why="different file lists;"
        for f in "lib/$multiarch/pkgconfig/blosc2.pc" "lib/$multiarch/pkgconfig/blosc2-static.pc" \
            "lib/$multiarch/cmake/Blosc2/Blosc2Config.cmake" "lib/$multiarch/cmake/Blosc2/Blosc2ConfigVersion.cmake" \
            "lib/$multiarch/cmake/Blosc2/Blosc2Targets.cmake"; do
            cmp -s "$a/$f" "$b/$f" || { why="$why $f differs;"; diff "$a/$f" "$b/$f" >>"$logs/$n.log" 2>&1; }
        done
        if [ -z "$why" ]; then pass "$n ($(wc -l <"$tmp/files-make") paths, pc and CMake package identical)"; else fail $n "$why"; fi
    else
        fail $n "an install failed (log: build/logs/cmake-recipes/$n.log)"
    fi
fi

# --- add_subdirectory and FetchContent -----------------------------------------------
# vendor_project DIR HOW: a project that takes the tree in, as HOW says.
vendor_project() {
    mkdir -p "$1"
    {
        echo 'cmake_minimum_required(VERSION 3.16)'
        echo 'project(vendoring C)'
        echo 'set(BUILD_TESTS OFF CACHE BOOL "")'
        echo 'set(BUILD_FUZZERS OFF CACHE BOOL "")'
        echo 'set(BUILD_BENCHMARKS OFF CACHE BOOL "")'
        echo 'set(BUILD_EXAMPLES OFF CACHE BOOL "")'
        echo "$2"
        for t in blosc2_static blosc2_shared Blosc2::blosc2; do
            exe=$(echo "$t" | tr ':' '_')
            echo "add_executable($exe \"$consumer\")"
            echo "target_link_libraries($exe PRIVATE $t)"
        done
        echo 'install(TARGETS blosc2_static_exe DESTINATION bin OPTIONAL)'
    } >"$1/CMakeLists.txt"
    # the executable named blosc2_static would clash with nothing, but keep
    # the names distinct from the library targets
    sed -i 's/add_executable(blosc2_static /add_executable(blosc2_static_exe /;
        s/target_link_libraries(blosc2_static PRIVATE/target_link_libraries(blosc2_static_exe PRIVATE/;
        s/add_executable(blosc2_shared /add_executable(blosc2_shared_exe /;
        s/target_link_libraries(blosc2_shared PRIVATE/target_link_libraries(blosc2_shared_exe PRIVATE/;
        s/add_executable(Blosc2__blosc2 /add_executable(unified_exe /;
        s/target_link_libraries(Blosc2__blosc2 PRIVATE/target_link_libraries(unified_exe PRIVATE/' "$1/CMakeLists.txt"
}
# vendored NAME DIR [BUILD_TYPE]
vendored() {
    n=$1 dir=$2 bt=${3:-Release}
    if run $n "$cmake" -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE="$bt" -DCMAKE_C_COMPILER="$CC" \
        -DCMAKE_INSTALL_PREFIX="$dir/installed" &&
        run $n "$cmake" --build "$dir/build" &&
        run $n "$dir/build/blosc2_static_exe" && run $n "$dir/build/blosc2_shared_exe" &&
        run $n "$dir/build/unified_exe" && run $n "$cmake" --install "$dir/build"; then
        if [ -n "$(find "$dir/installed" -name 'libblosc2*' -o -name 'blosc2.h' 2>/dev/null)" ]; then
            fail $n "a subproject installed our files (BLOSC_INSTALL should default to OFF)"
        elif [ "$(grep -c 'round trip ok' "$logs/$n.log")" -ne 3 ]; then
            fail $n "consumers did not all round-trip"
        else
            pass "$n (blosc2_static, blosc2_shared, Blosc2::blosc2; nothing of ours installed)"
        fi
    else
        fail $n "configure, build or run failed (log: build/logs/cmake-recipes/$n.log)"
    fi
}
if wanted add-subdirectory; then
    vendor_project "$tmp/subdir" "add_subdirectory(\"$root\" c-blosc2)"
    vendored add-subdirectory "$tmp/subdir"
fi
if wanted fetchcontent-dir; then
    vendor_project "$tmp/fc-dir" "include(FetchContent)
FetchContent_Declare(blosc2 SOURCE_DIR \"$root\")
FetchContent_MakeAvailable(blosc2)"
    vendored fetchcontent-dir "$tmp/fc-dir"
fi
# --- Debian --------------------------------------------------------------------------
# Debian and vcpkg come after the recipes that build the default
# configuration: theirs (the system codecs) makes cargo rebuild zstd-sys.
if wanted debian && ! has_features; then
    skip debian "$no_features"
elif wanted debian; then
    n=debian
    d=$tmp/debian
    mkdir -p "$d/obj-$multiarch"
    # dh_auto_configure --buildsystem=cmake (debhelper 13) passes these, then
    # debian/rules' own options; dh_auto_build runs make, dh_auto_install
    # make install DESTDIR=debian/tmp.
    if (cd "$d/obj-$multiarch" &&
        run $n "$cmake" -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_VERBOSE_MAKEFILE=ON -DCMAKE_BUILD_TYPE=None \
            -DCMAKE_INSTALL_SYSCONFDIR=/etc -DCMAKE_INSTALL_LOCALSTATEDIR=/var \
            -DCMAKE_EXPORT_NO_PACKAGE_REGISTRY=ON -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
            -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
            -DCMAKE_INSTALL_RUNSTATEDIR=/run -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON "-GUnix Makefiles" \
            -DCMAKE_INSTALL_LIBDIR="lib/$multiarch" \
            -DPREFER_EXTERNAL_LZ4=ON -DPREFER_EXTERNAL_ZLIB=ON -DPREFER_EXTERNAL_ZSTD=ON \
            -DBUILD_TESTS=OFF -DBUILD_BENCHMARKS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_FUZZERS=OFF \
            "$root" &&
        run $n make -j"$jobs" &&
        run $n make install DESTDIR="$d/debian/tmp"); then
        staged=$d/debian/tmp/usr
        lib=$staged/lib/$multiarch
        why=
        for f in "$lib/libblosc2.so.9" "$lib/libblosc2.so" "$lib/libblosc2.a" "$staged/include/blosc2.h" \
            "$lib/pkgconfig/blosc2.pc" "$lib/cmake/Blosc2/Blosc2Config.cmake" "$staged/bin/b2"; do
            [ -e "$f" ] || why="$why missing ${f#"$d"/};"
        done
        # The staged tree is used where it is, as a relocated prefix.
        write_find_package_project "$d/consumer" "Blosc2::blosc2_shared Blosc2::blosc2_static"
        build_and_run $n "$d/consumer" "$d/consumer/build" "$staged" Blosc2_blosc2_shared Blosc2_blosc2_static ||
            why="$why find_package consumer failed;"
        pc="env PKG_CONFIG_PATH=$lib/pkgconfig pkg-config"
        # shellcheck disable=SC2046
        if run $n $CC "$consumer" -o "$d/pc-shared" $($pc --cflags --libs blosc2) &&
            run $n env LD_LIBRARY_PATH="$lib" "$d/pc-shared"; then :; else why="$why pkg-config dynamic consumer failed;"; fi
        # shellcheck disable=SC2046
        if run $n $CC "$consumer" -o "$d/pc-static" $($pc --cflags --libs blosc2-static) &&
            run $n "$d/pc-static"; then :; else why="$why pkg-config static consumer failed;"; fi
        needed=$(needed_libs "$lib/libblosc2.so.9")
        ext=
        if have_externals; then
            for l in liblz4 libzstd libz; do
                case " $needed" in *" $l.so"*) ;; *) why="$why $l not linked (NEEDED: $needed);" ;; esac
            done
            ext="system lz4, zstd, zlib linked"
        else
            ext="no liblz4-dev/libzstd-dev/zlib1g-dev here: bundled codecs, external path not exercised"
        fi
        if [ -z "$why" ]; then pass "$n (lib/$multiarch; $ext)"; else fail $n "$why"; fi
    else
        fail $n "configure, make or make install failed (log: build/logs/cmake-recipes/$n.log)"
    fi
fi

# --- vcpkg ---------------------------------------------------------------------------
if wanted vcpkg; then
    n=vcpkg
    v=$tmp/vcpkg
    if [ -z "$ninja" ]; then
        skip $n "no ninja (vcpkg builds with Ninja)"
    elif ! has_features; then
        skip $n "$no_features"
    elif ! have_externals; then
        skip $n "vcpkg requires external lz4, zlib and zstd (CMAKE_REQUIRE_FIND_PACKAGE_*), and pkg-config finds no liblz4/libzstd/zlib here (apt-get install liblz4-dev libzstd-dev zlib1g-dev; .ci/run does)"
    elif
        # ports/blosc2/portfile.cmake's vcpkg_cmake_configure options, for a
        # static triplet (x64-linux), as vcpkg_cmake_configure runs them.
        run $n "$cmake" -S "$root" -B "$v/build" -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" \
            -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$v/installed" \
            -DPREFER_EXTERNAL_LZ4=ON -DPREFER_EXTERNAL_ZLIB=ON -DPREFER_EXTERNAL_ZSTD=ON \
            -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB_NG=ON -DCMAKE_REQUIRE_FIND_PACKAGE_LZ4=ON \
            -DCMAKE_REQUIRE_FIND_PACKAGE_ZLIB=ON -DCMAKE_REQUIRE_FIND_PACKAGE_ZSTD=ON \
            -DBUILD_TESTS=OFF -DBUILD_FUZZERS=OFF -DBUILD_BENCHMARKS=OFF -DBUILD_EXAMPLES=OFF \
            -DBUILD_STATIC=ON -DBUILD_SHARED=OFF &&
            run $n "$cmake" --build "$v/build" && run $n "$cmake" --install "$v/build"
    then
        write_find_package_project "$v/consumer" "Blosc2::blosc2"
        if [ -e "$v/installed/lib/libblosc2.so.9" ]; then
            fail $n "BUILD_SHARED=OFF installed a shared library"
        elif build_and_run $n "$v/consumer" "$v/consumer/build" "$v/installed" Blosc2_blosc2; then
            pass "$n (static, external lz4/zlib/zstd)"
        else
            fail $n "find_package consumer of the static install"
        fi
    else
        fail $n "configure, build or install failed (log: build/logs/cmake-recipes/$n.log)"
    fi
fi

if wanted fetchcontent-git; then
    if ! git -C "$root" rev-parse HEAD >/dev/null 2>&1; then
        skip fetchcontent-git "not a git checkout"
    else
        git clone -q "$root" "$tmp/clone" 2>>"$logs/fetchcontent-git.log"
        vendor_project "$tmp/fc-git" "include(FetchContent)
FetchContent_Declare(blosc2 GIT_REPOSITORY \"$tmp/clone\" GIT_TAG $(git -C "$root" rev-parse HEAD))
FetchContent_MakeAvailable(blosc2)"
        # A clone elsewhere is another package to cargo, so its crates are
        # built again: Debug keeps that to the dev profile, whose
        # dependencies `cargo test` already built.
        vendored fetchcontent-git "$tmp/fc-git" Debug
    fi
fi

# --- options that leave codecs out, and refused options -------------------------------
if wanted options && ! has_features; then
    skip options "$no_features"
elif wanted options; then
    n=options
    why=
    check=$root/c-tests/options/codecs_present.c
    # Debug (cargo's dev profile) for these extra configurations: no fat LTO,
    # and the dependencies are the ones `cargo test` already built in the
    # same target directory.
    for cfg in "no-zstd:-DDEACTIVATE_ZSTD=ON:blosclz,lz4,lz4hc,zlib" \
        "lite:-DBUILD_LITE=ON -DBUILD_PLUGINS=OFF -DDEACTIVATE_AVX2=ON:blosclz,lz4,lz4hc"; do
        name=${cfg%%:*}
        rest=${cfg#*:}
        opts=${rest%%:*}
        expect=${rest#*:}
        bld=$tmp/options-$name
        # shellcheck disable=SC2086
        if run $n "$cmake" -S "$root" -B "$bld" -DCMAKE_BUILD_TYPE=Debug -DBLOSC2_RS_BUILD_B2=OFF \
            -DBUILD_TESTS=OFF -DBUILD_FUZZERS=OFF -DBUILD_BENCHMARKS=OFF -DBUILD_EXAMPLES=OFF $opts &&
            run $n "$cmake" --build "$bld" &&
            run $n $CC -I"$root/include" "$check" -o "$bld/codecs_present" -L"$bld/blosc" -lblosc2 &&
            run $n env LD_LIBRARY_PATH="$bld/blosc" "$bld/codecs_present" "$expect" \
                "$root/c-tests/options/zstd_chunk.bin"; then :
        else
            why="$why $name ($opts) failed;"
        fi
    done
    # Misuse stops configure, naming the option.
    for bad in "-DBUILD_SHARED=OFF -DBUILD_STATIC=OFF:BUILD_STATIC" "-DBUILD_LITE=ON:lite" \
        "-DBLOSC_ZSTD_VERSION=1.5.6:BLOSC_ZSTD_VERSION" "-DBLOSC_DEPENDENCY_MODE=SOMETIMES:BLOSC_DEPENDENCY_MODE"; do
        opts=${bad%%:*}
        word=${bad#*:}
        rm -rf "$tmp/options-bad"
        # shellcheck disable=SC2086
        if "$cmake" -S "$root" -B "$tmp/options-bad" $opts >"$tmp/bad.log" 2>&1; then
            why="$why '$opts' configured;"
        elif ! grep -q "$word" "$tmp/bad.log"; then
            why="$why '$opts' failed without naming $word;"
        fi
        cat "$tmp/bad.log" >>"$logs/$n.log"
    done
    if [ -z "$why" ]; then pass "$n (DEACTIVATE_ZSTD, BUILD_LITE+DEACTIVATE_AVX2 checked through the C API; 4 misuses refused)"; else fail $n "$why"; fi
fi

echo "cmake-recipes: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
