# Build, install and test the Rust libblosc2 like upstream's C library.
#
#   make                      cargo build --release (with zlib-ng when cmake can be had)
#   make install PREFIX=DIR   lib/libblosc2.so.9 (+ .so link, .a), include/,
#                             lib/pkgconfig/blosc2.pc and blosc2-static.pc,
#                             lib/cmake/Blosc2/, bin/b2 (the command-line tool)
#   make test                 everything CI runs (scripts/run-tests.sh), with a summary
#   make test-conformance     upstream's own tests and examples on our library
#   make test-clients         client suites on our library (python-blosc2 and its examples, hdf5plugin, imagecodecs, OpenZL, PyTables, b2h5py; long)
#   make headers              regenerate include/ from the Rust sources (cbindgen)
#   make clean
#
# Only POSIX make features are used in the rules below, plus `?=`.

PREFIX ?= /usr/local
DESTDIR ?=
CARGO ?= cargo
SHELL = /bin/sh

VERSION = 3.3.5
VERSION_MAJOR = 3
SOVERSION = 9

# Where cargo puts its output (honours CARGO_TARGET_DIR like cargo does).
TARGET_DIR ?= $${CARGO_TARGET_DIR:-target}

# What `make install` copies; overridable so that the install layout (and the
# whole test suite) can be exercised with another build of libblosc2, e.g. the
# reference C library: see `make test-c-ref`.
SRC_SO ?= $(TARGET_DIR)/release/libblosc2.so
SRC_A ?= $(TARGET_DIR)/release/libblosc2.a
# The `b2` command-line tool; installed into bin/ when it was built (a
# prefix made from another libblosc2, as `make test-c-ref` does, has none).
SRC_BIN ?= $(TARGET_DIR)/release/b2
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

.PHONY: all build install install-files uninstall headers test test-cargo \
	test-c test-c-ref interop test-conformance test-clients native-static-libs clean

all: build

# The shipped library inflates and deflates with zlib-ng, as the reference
# does (a third fewer instructions than zlib-rs inflating), which needs cmake
# at build time: scripts/ensure-cmake.sh finds one or installs one from PyPI.
# Without cmake the build still succeeds, on zlib-rs, and says so.
build:
	@if cmake=$$(sh scripts/ensure-cmake.sh); then \
		echo "make: zlib-ng built with $$cmake"; \
		echo "$(CARGO) build --release --features libblosc2-rs-cdylib/zlib-ng"; \
		CMAKE="$$cmake" $(CARGO) build --release --features libblosc2-rs-cdylib/zlib-ng; \
	else \
		echo "make: WARNING: no cmake, so no zlib-ng: the library uses zlib-rs for zlib (slower inflate)" >&2; \
		echo "$(CARGO) build --release"; \
		$(CARGO) build --release; \
	fi

headers:
	BLOSC2_UPDATE_HEADERS=1 $(CARGO) build

install: build install-files

# Copies an already built library; `make install` = build + this.
install-files:
	@test -f "$(SRC_INCLUDE)/blosc2.h" || { echo "install: $(SRC_INCLUDE)/blosc2.h missing (run 'make headers')" >&2; exit 1; }
	@test -f "$(SRC_SO)" || { echo "install: $(SRC_SO) missing (run 'make build')" >&2; exit 1; }
	@test -f "$(SRC_A)" || { echo "install: $(SRC_A) missing (run 'make build')" >&2; exit 1; }
	mkdir -p "$(DESTDIR)$(PREFIX)/lib/pkgconfig" "$(DESTDIR)$(PREFIX)/lib/cmake/Blosc2" \
		"$(DESTDIR)$(PREFIX)/include/blosc2"
	install -m 755 "$(SRC_SO)" "$(DESTDIR)$(PREFIX)/lib/libblosc2.so.$(SOVERSION)"
	ln -sf "libblosc2.so.$(SOVERSION)" "$(DESTDIR)$(PREFIX)/lib/libblosc2.so"
	install -m 644 "$(SRC_A)" "$(DESTDIR)$(PREFIX)/lib/libblosc2.a"
	# the build keeps debug info for profiling; an installed library need not
	if [ -f "$(SRC_BIN)" ]; then \
		mkdir -p "$(DESTDIR)$(PREFIX)/bin" && install -m 755 "$(SRC_BIN)" "$(DESTDIR)$(PREFIX)/bin/b2" && \
		{ ! command -v strip >/dev/null 2>&1 || strip --strip-debug "$(DESTDIR)$(PREFIX)/bin/b2"; }; \
	else echo "install: $(SRC_BIN) not built, no bin/b2"; fi
	if command -v strip >/dev/null 2>&1; then \
		strip --strip-debug "$(DESTDIR)$(PREFIX)/lib/libblosc2.so.$(SOVERSION)" "$(DESTDIR)$(PREFIX)/lib/libblosc2.a"; \
	fi
	install -m 644 "$(SRC_INCLUDE)/blosc2.h" "$(DESTDIR)$(PREFIX)/include/blosc2.h"
	if [ -f "$(SRC_INCLUDE)/b2nd.h" ]; then install -m 644 "$(SRC_INCLUDE)/b2nd.h" "$(DESTDIR)$(PREFIX)/include/b2nd.h"; fi
	for h in "$(SRC_INCLUDE)"/blosc2/*.h; do \
		if [ -f "$$h" ]; then install -m 644 "$$h" "$(DESTDIR)$(PREFIX)/include/blosc2/" || exit 1; fi; \
	done
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@LIBS_PRIVATE@|$(LIBS_PRIVATE)|g' \
		cmake/blosc2.pc.in > "$(DESTDIR)$(PREFIX)/lib/pkgconfig/blosc2.pc"
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@LIBS_PRIVATE@|$(LIBS_PRIVATE)|g' \
		cmake/blosc2-static.pc.in > "$(DESTDIR)$(PREFIX)/lib/pkgconfig/blosc2-static.pc"
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOVERSION@|$(SOVERSION)|g' \
		cmake/Blosc2Config.cmake.in > "$(DESTDIR)$(PREFIX)/lib/cmake/Blosc2/Blosc2Config.cmake"
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' -e 's|@SIZEOF_VOID_P@|8|g' \
		cmake/Blosc2ConfigVersion.cmake.in > "$(DESTDIR)$(PREFIX)/lib/cmake/Blosc2/Blosc2ConfigVersion.cmake"
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOVERSION@|$(SOVERSION)|g' \
		-e 's|@CMAKE_LIBS_PRIVATE@|$(CMAKE_LIBS_PRIVATE)|g' \
		cmake/Blosc2Targets.cmake.in > "$(DESTDIR)$(PREFIX)/lib/cmake/Blosc2/Blosc2Targets.cmake"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/b2"
	rm -f "$(DESTDIR)$(PREFIX)/lib/libblosc2.so.$(SOVERSION)" "$(DESTDIR)$(PREFIX)/lib/libblosc2.so" \
		"$(DESTDIR)$(PREFIX)/lib/libblosc2.a" "$(DESTDIR)$(PREFIX)/lib/pkgconfig/blosc2.pc" \
		"$(DESTDIR)$(PREFIX)/lib/pkgconfig/blosc2-static.pc" \
		"$(DESTDIR)$(PREFIX)/include/blosc2.h" "$(DESTDIR)$(PREFIX)/include/b2nd.h"
	rm -rf "$(DESTDIR)$(PREFIX)/lib/cmake/Blosc2"
	for h in "$(SRC_INCLUDE)"/blosc2/*.h; do rm -f "$(DESTDIR)$(PREFIX)/include/blosc2/$${h##*/}"; done
	rmdir "$(DESTDIR)$(PREFIX)/include/blosc2" 2>/dev/null || true

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

# Re-derive LIBS_PRIVATE (rebuilds the staticlib once with the flag); leave
# -lgcc_s out of what it prints (see LIBS_PRIVATE).
native-static-libs:
	$(CARGO) rustc -p libblosc2-rs-cdylib --release --lib --crate-type staticlib -- --print native-static-libs 2>&1 | \
		sed -n 's/.*native-static-libs: //p'

clean:
	$(CARGO) clean
	rm -rf build
