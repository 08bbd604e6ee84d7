# Build, install and test the Rust libblosc2 like upstream's C library.
#
#   make                      cargo build --release (with zlib-ng when cmake can be had)
#   make install PREFIX=DIR TARGET=x86_64-pc-windows-gnu
#                             the same for Windows with MinGW: bin/libblosc2.dll,
#                             lib/libblosc2.dll.a (import library), lib/libblosc2.a, ...
#   make test-windows         the MinGW build under wine (scripts/test-windows.sh)
#   make install PREFIX=DIR   lib/libblosc2.so.9 (+ .so link, .a), include/,
#                             lib/pkgconfig/blosc2.pc and blosc2-static.pc,
#                             lib/cmake/Blosc2/, bin/b2 (the command-line tool);
#                             LIBDIR=, INCLUDEDIR=, BINDIR= (relative to PREFIX, or
#                             absolute) as GNUInstallDirs' CMAKE_INSTALL_*DIR, DESTDIR=
#                             for staging, CMAKE_ARGS= for any other CMake option
#                             (e.g. CMAKE_ARGS=-DDEACTIVATE_ZSTD=ON)
#   make test                 everything CI runs (scripts/run-tests.sh), with a summary
#   make test-conformance     upstream's own tests and examples on our library
#   make test-cross           on s390x, i686 and aarch64 under qemu: clippy, the core's tests, the C library with its C tests and the interop corpora, byte identity across CPUs (scripts/test-cross.sh)
#   make test-clients         client suites on our library (python-blosc2 and its examples, hdf5plugin, imagecodecs, OpenZL, PyTables, b2h5py; long)
#   make python-blosc2 PREFIX=DIR [VENV=DIR]
#                             python-blosc2 4.14.1 built from its sdist on DIR's
#                             libblosc2.so.9 into a venv (default DIR/venv), checked
#                             and smoke-tested (scripts/python-blosc2.sh)
#   make headers              regenerate include/ from the Rust sources (cbindgen)
#   make clean
#
# `make install` builds with cargo, then installs through CMakeLists.txt
# (`cmake --install` of the built library, no second build), so the install
# layout is defined once, in cmake/Blosc2Install.cmake, for both routes.
# cmake comes from scripts/ensure-cmake.sh (the system's, or one installed
# from PyPI).
#
# Only POSIX make features are used in the rules below, plus `?=`.

PREFIX ?= /usr/local
LIBDIR ?= lib
INCLUDEDIR ?= include
BINDIR ?= bin
DESTDIR ?=
CARGO ?= cargo
CMAKE_ARGS ?=
# `make python-blosc2`'s venv; empty: PREFIX/venv.
VENV ?=
# A Rust target triple to cross-build for (cargo --target); empty: the host.
# x86_64-pc-windows-gnu builds upstream's MinGW files (needs MinGW's gcc).
TARGET ?=
SHELL = /bin/sh

VERSION = 3.3.5
VERSION_MAJOR = 3
SOVERSION = 9

# Where cargo puts its output (honours CARGO_TARGET_DIR like cargo does).
TARGET_DIR ?= $${CARGO_TARGET_DIR:-$$PWD/target}
# The CMake build directory `make install` installs from.
CMAKE_FILES_DIR ?= build/cmake-files

# What `make install-files` copies; overridable so that the install layout
# (and the whole test suite) can be exercised with another build of
# libblosc2, e.g. the reference C library: see `make test-c-ref`.
# (For a Windows TARGET, cargo's blosc2.dll and b2.exe stand for these.)
SRC_SO ?= $(TARGET_DIR)/$(TARGET)/release/libblosc2.so
SRC_A ?= $(TARGET_DIR)/$(TARGET)/release/libblosc2.a
# The `b2` command-line tool; installed into bin/ when it was built (a
# prefix made from another libblosc2, as `make test-c-ref` does, has none).
SRC_BIN ?= $(TARGET_DIR)/$(TARGET)/release/b2
SRC_INCLUDE ?= include

# System libraries a Rust staticlib needs when linked into a C program, from
# `make native-static-libs` on x86_64 Linux (rustc prints
# -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc), minus -lgcc_s: the C compiler
# driver already links the unwinder Rust's std needs (libgcc_s, as needed, in
# a dynamic program; libgcc_eh with -static), and there is no libgcc_s.a, so
# naming it made every `cc -static` link fail.  Used for blosc2.pc's
# Libs.private, blosc2-static.pc's Libs and the CMake static target.
LIBS_PRIVATE ?= -lutil -lrt -lpthread -lm -ldl -lc
# Same list for CMake (Threads::Threads stands for -lpthread; libc is implicit).
CMAKE_LIBS_PRIVATE ?= util;rt;m;dl

# 1 = unexpected interop failures (ones the reference 3.3.5 does not share)
# fail `make test`; 0 = only reported.
INTEROP_STRICT ?= 1
# The shared corpora and tools live beside the repository.
SHARED_DIR ?= ../shared

.PHONY: all build install install-files uninstall headers test test-cargo test-cross test-windows \
	test-c test-c-ref interop test-conformance test-clients python-blosc2 native-static-libs clean

all: build

# The shipped library inflates and deflates with zlib-ng, as the reference
# does (a third fewer instructions than zlib-rs inflating), which needs cmake
# at build time: scripts/ensure-cmake.sh finds one or installs one from PyPI.
# Without cmake the build still succeeds, on zlib-rs, and says so (but
# `make install` needs cmake: the install rules are the CMake project's).
# zlib-ng's C compiles go through cmake/zlib-ng-cc-launcher.sh (unless
# CMAKE_C_COMPILER_LAUNCHER is set already), which works around a GCC < 13
# code generation problem that made zlib compression up to 1.8x slower than
# the reference's; see the script.
# lz4's compiles (the cc crate, through lz4-sys) go through
# cmake/lz4-cc-launcher.sh as a compiler wrapper (HOST_CC, unless HOST_CC or
# CC_<target> is set already), which makes lz4 hash the little-endian,
# 64-bit way on every CPU, so that big-endian and 32-bit hosts write the
# bytes x86-64 writes; see the script.  It runs from a copy in cargo's target
# directory, as with CMake: cargo rebuilds lz4 and everything above it when
# HOST_CC changes, so every checkout sharing a target directory names the
# same path.
# The library and b2, asked for as CMakeLists.txt asks (not the whole
# workspace): the same crates with the same features, so that cargo's
# libblosc2.so, which one path holds whatever features built it, serves both
# routes instead of being relinked by each in turn.
BUILD_PACKAGES = -p libblosc2-rs-cdylib -p blosc2-cli

build:
	@tflag=; [ -z "$(TARGET)" ] || tflag="--target $(TARGET)"; \
	mkdir -p "$(TARGET_DIR)"; tdir=$$(cd "$(TARGET_DIR)" && pwd); \
	if [ -z "$(TARGET)" ] && [ -z "$${HOST_CC:-}" ] && ! echo "$$tdir" | grep -q '[[:space:]]'; then \
		cmp -s cmake/lz4-cc-launcher.sh "$$tdir/lz4-cc-launcher.sh" || \
			cp cmake/lz4-cc-launcher.sh "$$tdir/lz4-cc-launcher.sh"; \
		HOST_CC="$$tdir/lz4-cc-launcher.sh $${CC:-cc}"; \
		CC_KNOWN_WRAPPER_CUSTOM=lz4-cc-launcher; \
		export HOST_CC CC_KNOWN_WRAPPER_CUSTOM; \
	fi; \
	if cmake=$$(sh scripts/ensure-cmake.sh); then \
		echo "make: zlib-ng built with $$cmake"; \
		echo "$(CARGO) build --release $$tflag $(BUILD_PACKAGES) --features libblosc2-rs-cdylib/zlib-ng"; \
		CMAKE_C_COMPILER_LAUNCHER="$${CMAKE_C_COMPILER_LAUNCHER:-$$PWD/cmake/zlib-ng-cc-launcher.sh}" \
		CMAKE="$$cmake" $(CARGO) build --release $$tflag $(BUILD_PACKAGES) --features libblosc2-rs-cdylib/zlib-ng; \
	else \
		echo "make: WARNING: no cmake, so no zlib-ng: the library uses zlib-rs for zlib (slower inflate)" >&2; \
		echo "$(CARGO) build --release $$tflag $(BUILD_PACKAGES)"; \
		$(CARGO) build --release $$tflag $(BUILD_PACKAGES); \
	fi

headers:
	BLOSC2_UPDATE_HEADERS=1 $(CARGO) build

install: build install-files

# Installs an already built library (SRC_SO, SRC_A, SRC_BIN, SRC_INCLUDE)
# through the same CMake install rules, without cargo.
install-files:
	@test -f "$(SRC_INCLUDE)/blosc2.h" || { echo "install: $(SRC_INCLUDE)/blosc2.h missing (run 'make headers')" >&2; exit 1; }
	@src_so="$(SRC_SO)"; src_bin="$(SRC_BIN)"; lp="$(LIBS_PRIVATE)"; clp="$(CMAKE_LIBS_PRIVATE)"; \
	case "$(TARGET)" in *-windows-*) \
		src_so=$$(dirname "$$src_so")/blosc2.dll; src_bin=$$src_bin.exe; lp=; clp= ;; esac; \
	test -f "$$src_so" || { echo "install: $$src_so missing (run 'make build')" >&2; exit 1; }; \
	test -f "$(SRC_A)" || { echo "install: $(SRC_A) missing (run 'make build')" >&2; exit 1; }; \
	mkdir -p build; cmake=$$(sh scripts/ensure-cmake.sh) || exit 1; \
	inc=$$(cd "$(SRC_INCLUDE)" && pwd); so=$$(cd "$$(dirname "$$src_so")" && pwd)/$$(basename "$$src_so"); \
	a=$$(cd "$$(dirname "$(SRC_A)")" && pwd)/$$(basename "$(SRC_A)"); \
	bin=; if [ -f "$$src_bin" ]; then bin=$$(cd "$$(dirname "$$src_bin")" && pwd)/$$(basename "$$src_bin"); \
		else echo "install: $$src_bin not built, no bin/b2"; fi; \
	case "$(PREFIX)" in /*) prefix="$(PREFIX)" ;; *) prefix="$$PWD/$(PREFIX)" ;; esac; \
	rm -rf "$(CMAKE_FILES_DIR)"; \
	"$$cmake" -S . -B "$(CMAKE_FILES_DIR)" -DBUILD_TESTS=OFF -DBUILD_FUZZERS=OFF \
		-DBUILD_BENCHMARKS=OFF -DBUILD_EXAMPLES=OFF \
		-DBLOSC2_RS_PREBUILT_SHARED="$$so" -DBLOSC2_RS_PREBUILT_STATIC="$$a" \
		-DBLOSC2_RS_PREBUILT_B2="$$bin" -DBLOSC2_RS_BUILD_B2=ON \
		-DBLOSC2_RS_PREBUILT_INCLUDEDIR="$$inc" \
		-DBLOSC2_RS_LIBS_PRIVATE="$$lp" -DBLOSC2_RS_CMAKE_LIBS_PRIVATE="$$clp" \
		-DBLOSC2_RS_RUST_TARGET="$(TARGET)" \
		-DCMAKE_INSTALL_PREFIX="$$prefix" -DCMAKE_INSTALL_LIBDIR="$(LIBDIR)" \
		-DCMAKE_INSTALL_INCLUDEDIR="$(INCLUDEDIR)" -DCMAKE_INSTALL_BINDIR="$(BINDIR)" \
		$(CMAKE_ARGS) >"$(CMAKE_FILES_DIR).configure.log" 2>&1 || \
		{ cat "$(CMAKE_FILES_DIR).configure.log" >&2; exit 1; }; \
	"$$cmake" --build "$(CMAKE_FILES_DIR)" >/dev/null && \
	DESTDIR="$(DESTDIR)" "$$cmake" --install "$(CMAKE_FILES_DIR)"

# Removes what the last `make install` installed (CMake's install manifest).
uninstall:
	@cmake=$$(sh scripts/ensure-cmake.sh) || exit 1; \
		DESTDIR="$(DESTDIR)" "$$cmake" --build "$(CMAKE_FILES_DIR)" --target uninstall

# Full suite: cargo test/fmt/clippy, install into a temp prefix, C tests
# against it, interop corpora.  Ends with a summary; exit status 0 = green.
test:
	INTEROP_STRICT=$(INTEROP_STRICT) SHARED_DIR=$(SHARED_DIR) CARGO="$(CARGO)" \
		MAKE="$(MAKE)" sh scripts/run-tests.sh

# Just the cargo part.
test-cargo:
	$(CARGO) test --workspace
	$(CARGO) fmt --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

# The core's tests on big-endian (s390x), 32-bit (i686) and aarch64 under
# qemu-user, and clippy -D warnings for each; installs the rustup targets,
# cross gcc and qemu when it can (scripts/test-cross.sh says what it needs).
test-cross:
	CARGO="$(CARGO)" sh scripts/test-cross.sh

# The Windows (MinGW) build under wine: the core's tests, the DLL installed
# with its import library, the C tests and the interop corpora; installs
# MinGW and wine when it can (scripts/test-windows.sh says what it needs).
test-windows:
	CARGO="$(CARGO)" SHARED_DIR=$(SHARED_DIR) sh scripts/test-windows.sh

# Install into build/prefix and run only the C tests against it.
test-c: build
	$(MAKE) install-files PREFIX="$$PWD/build/prefix"
	sh c-tests/run.sh "$$PWD/build/prefix"

# The C tests with the reference C-Blosc2 3.3.5 installed through our install
# rules: checks the test suite itself (everything should pass).
test-c-ref:
	ref=$$(sh scripts/fetch-reference.sh 3.3.5) && \
	$(MAKE) install-files PREFIX="$$PWD/build/ref-prefix" SRC_SO="$$ref/lib/libblosc2.so.9" \
		SRC_A="$$ref/lib/libblosc2.a" SRC_INCLUDE="$$ref/include" \
		CMAKE_LIBS_PRIVATE="m;dl;rt" LIBS_PRIVATE="-lpthread -lm -ldl -lrt" && \
	sh c-tests/run.sh "$$PWD/build/ref-prefix"

# Interop corpora only, against a fresh install in build/prefix.
interop: build
	$(MAKE) install-files PREFIX="$$PWD/build/prefix"
	SHARED_DIR=$(SHARED_DIR) sh scripts/interop.sh "$$PWD/build/prefix" build

# Upstream C-Blosc2's own tests and examples against our installed library
# (also a part of `make test`).
test-conformance: build
	$(MAKE) install-files PREFIX="$$PWD/build/prefix"
	bash $(SHARED_DIR)/conformance/score.sh "$$PWD/build/prefix"

# python-blosc2's test suite with our libblosc2.so.9 swapped in (about 10
# minutes, plus a first setup of about 10 minutes; too long for make test).
test-clients: build
	$(MAKE) install-files PREFIX="$$PWD/build/prefix"
	bash $(SHARED_DIR)/clients/python-blosc2/score.sh "$$PWD/build/prefix"
	sh scripts/client-hdf5plugin.sh "$$PWD/build/prefix"
	sh scripts/client-imagecodecs.sh "$$PWD/build/prefix"
	sh scripts/client-openzl.sh "$$PWD/build/prefix"
	sh scripts/client-pytables.sh "$$PWD/build/prefix"
	sh scripts/client-pyexamples.sh "$$PWD/build/prefix"
	sh scripts/client-b2h5py.sh "$$PWD/build/prefix"

# python-blosc2 on an installed prefix (`make install PREFIX=DIR` first):
# the PyPI wheel carries its own C-Blosc2, so it is built from its sdist.
python-blosc2:
	v='$(VENV)'; sh scripts/python-blosc2.sh "$(PREFIX)" $${v:+"$$v"}

# Re-derive LIBS_PRIVATE (rebuilds the staticlib once with the flag); leave
# -lgcc_s out of what it prints (see LIBS_PRIVATE).
native-static-libs:
	$(CARGO) rustc -p libblosc2-rs-cdylib --release --lib --crate-type staticlib -- --print native-static-libs 2>&1 | \
		sed -n 's/.*native-static-libs: //p'

clean:
	$(CARGO) clean
	rm -rf build
