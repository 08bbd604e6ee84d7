# BUILD_TESTS, BUILD_FUZZERS, BUILD_BENCHMARKS and BUILD_EXAMPLES: C programs
# built against the library targets of this build tree (not an installed
# copy), as upstream's are, and run by `ctest`.

set(_blosc2_c_flags "")
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    set(_blosc2_c_flags -Wall)
endif()

function(_blosc2_program name src lib)
    add_executable(${name} "${src}")
    set_target_properties(${name} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
    target_compile_options(${name} PRIVATE ${_blosc2_c_flags})
    target_link_libraries(${name} PRIVATE ${lib} Threads::Threads)
    if(UNIX)
        target_link_libraries(${name} PRIVATE m)
    endif()
endfunction()

if(BUILD_TESTS OR BUILD_FUZZERS)
    enable_testing()
endif()

# One program per DIR/*.c, named PREFIX_<file>; with RUN, also a ctest
# test, each in a directory of its own (several write files by fixed names,
# and `ctest -j` runs them side by side).  Exit status 77 is the program's
# own "not applicable here" (e.g. a codec the build left out), as in
# c-tests/run.sh.
function(_blosc2_programs_of dir prefix run)
    file(GLOB _srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.c")
    foreach(_src IN LISTS _srcs)
        get_filename_component(_name "${_src}" NAME_WE)
        set(_exe ${prefix}_${_name})
        _blosc2_program(${_exe} "${_src}" ${BLOSC2_TEST_TARGET})
        if(run)
            file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/ctest/${_exe}")
            add_test(NAME ${_exe} COMMAND ${_exe}
                WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/ctest/${_exe}")
            set_tests_properties(${_exe} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
        endif()
    endforeach()
endfunction()

# --- BUILD_TESTS: every c-tests/*.c program -----------------------------------------
if(BUILD_TESTS)
    _blosc2_programs_of(c-tests test ON)
endif()

# --- BUILD_FUZZERS: the C-API fuzz drivers, run over the committed corpora ---------
if(BUILD_FUZZERS)
    set(_fz "${CMAKE_CURRENT_SOURCE_DIR}/c-tests/fuzz")
    foreach(_pair "fuzz_decompress_chunk;decompress_chunk" "fuzz_decompress_frame;open_frame")
        list(GET _pair 0 _name)
        list(GET _pair 1 _corpus)
        add_executable(${_name} "${_fz}/${_name}.c")
        target_link_libraries(${_name} PRIVATE blosc2_static)
        if(CMAKE_C_COMPILER_ID MATCHES "Clang" AND BLOSC2_RS_LIBFUZZER)
            # A real fuzzer (clang -fsanitize=fuzzer) instead of the replay main.
            target_compile_options(${_name} PRIVATE -fsanitize=fuzzer)
            target_link_options(${_name} PRIVATE -fsanitize=fuzzer)
        else()
            target_sources(${_name} PRIVATE "${_fz}/standalone.c")
        endif()
        add_test(NAME ${_name} COMMAND ${_name} "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${_corpus}")
        set_tests_properties(${_name} PROPERTIES TIMEOUT 600)
    endforeach()
endif()

# --- BUILD_BENCHMARKS ---------------------------------------------------------------
if(BUILD_BENCHMARKS)
    _blosc2_program(b2bench "${CMAKE_CURRENT_SOURCE_DIR}/c-tests/bench/b2bench.c" ${BLOSC2_TEST_TARGET})
    _blosc2_program(bench_frames "${CMAKE_CURRENT_SOURCE_DIR}/c-tests/bench-frames/bench_frames.c" ${BLOSC2_TEST_TARGET})
    _blosc2_program(bench_b2nd "${CMAKE_CURRENT_SOURCE_DIR}/c-tests/bench-b2nd/bench_b2nd.c" ${BLOSC2_TEST_TARGET})
    if(BUILD_TESTS)
        # Upstream's benchmark tests, same names and defaults; each runs
        # b2bench (which checks every round trip) in the matching mode.
        option(TEST_INCLUDE_BENCH_SHUFFLE_1 "Include b2bench shuffle (1 thread) in the tests" ON)
        option(TEST_INCLUDE_BENCH_SHUFFLE_N "Include b2bench shuffle (multithread) in the tests" ON)
        option(TEST_INCLUDE_BENCH_BITSHUFFLE_1 "Include b2bench bitshuffle (1 thread) in the tests" ON)
        option(TEST_INCLUDE_BENCH_BITSHUFFLE_N "Include b2bench bitshuffle (multithread) in the tests" ON)
        option(TEST_INCLUDE_BENCH_SUITE "Include b2bench suite in the tests" OFF)
        option(TEST_INCLUDE_BENCH_HARDSUITE "Include b2bench hardsuite in the tests" OFF)
        option(TEST_INCLUDE_BENCH_EXTREMESUITE "Include b2bench extremesuite in the tests" OFF)
        option(TEST_INCLUDE_BENCH_DEBUGSUITE "Include b2bench debugsuite in the tests" OFF)
        option(TEST_INCLUDE_BENCH_DELTA "Include delta bench in the tests" ON)
        option(TEST_INCLUDE_BENCH_TRUNC_PREC "Include trunc bench in the tests" ON)
        option(TEST_INCLUDE_BENCH_SUM_OPENMP "Include sum_openmp in the tests" OFF)
        option(TEST_INCLUDE_BENCH_ZERO_RUNLEN "Include zero_runlen in the tests" ON)
        if(TEST_INCLUDE_BENCH_SUM_OPENMP)
            message(FATAL_ERROR "TEST_INCLUDE_BENCH_SUM_OPENMP: there is no OpenMP benchmark in this implementation; leave it OFF.")
        endif()
        cmake_host_system_information(RESULT _ncores QUERY NUMBER_OF_LOGICAL_CORES)
        set(_bench_tests
            "SHUFFLE_1|b2bench_shuffle_1|blosclz|shuffle|single|1"
            "SHUFFLE_N|b2bench_shuffle_n|blosclz|shuffle|single|${_ncores}"
            "BITSHUFFLE_1|b2bench_bitshuffle_1|blosclz|bitshuffle|single|1"
            "BITSHUFFLE_N|b2bench_bitshuffle_n|blosclz|bitshuffle|single|${_ncores}"
            "SUITE|b2bench_suite|all|all|suite|1"
            "HARDSUITE|b2bench_hardsuite|all|all|hardsuite|1"
            "EXTREMESUITE|b2bench_extremesuite|all|all|extremesuite|1"
            "DEBUGSUITE|b2bench_debugsuite|all|all|debugsuite|1"
            "DELTA|b2bench_delta|blosclz|delta|single|1"
            "TRUNC_PREC|b2bench_trunc_prec|blosclz|trunc_prec|single|1"
            "ZERO_RUNLEN|b2bench_zero_runlen|blosclz|shuffle|zeros|1")
        foreach(_t IN LISTS _bench_tests)
            string(REPLACE "|" ";" _t "${_t}")
            list(GET _t 0 _opt)
            list(GET _t 1 _name)
            list(SUBLIST _t 2 -1 _args)
            if(TEST_INCLUDE_BENCH_${_opt})
                add_test(NAME ${_name} COMMAND b2bench ${_args})
                set_tests_properties(${_name} PROPERTIES TIMEOUT 1200)
            endif()
        endforeach()
    endif()
endif()

# --- BUILD_EXAMPLES -----------------------------------------------------------------
if(BUILD_EXAMPLES)
    _blosc2_programs_of(examples example ${BUILD_TESTS})
endif()
