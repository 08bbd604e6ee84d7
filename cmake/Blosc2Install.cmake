# The install layout, defined once: `cmake --install` and `make install`
# (a wrapper over this project) both come here.  Directories follow
# GNUInstallDirs (CMAKE_INSTALL_LIBDIR, _INCLUDEDIR, _BINDIR; relative or
# absolute), and the pkg-config and CMake package files locate the prefix
# from their own place, so an installed tree can be moved or staged with
# DESTDIR.

if(NOT Blosc2_INSTALL_CMAKEDIR)
    set(Blosc2_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Blosc2")
endif()
option(BLOSC2_RS_INSTALL_STRIP_DEBUG
    "Strip debug information from the installed library and tool (the build keeps it for profiling)" ON)

# Absolute forms, for the relative paths the generated files carry.
foreach(_d LIBDIR INCLUDEDIR)
    set(_blosc2_full_${_d} "${CMAKE_INSTALL_FULL_${_d}}")
endforeach()
if(IS_ABSOLUTE "${Blosc2_INSTALL_CMAKEDIR}")
    set(_blosc2_full_CMAKEDIR "${Blosc2_INSTALL_CMAKEDIR}")
else()
    set(_blosc2_full_CMAKEDIR "${CMAKE_INSTALL_PREFIX}/${Blosc2_INSTALL_CMAKEDIR}")
endif()
# Relative paths between the installed directories; `.` when equal.
function(_blosc2_rel out from to)
    file(RELATIVE_PATH _r "${from}" "${to}")
    string(REGEX REPLACE "/+$" "" _r "${_r}")
    if(_r STREQUAL "")
        set(_r ".")
    endif()
    set(${out} "${_r}" PARENT_SCOPE)
endfunction()
_blosc2_rel(BLOSC2_PC_TO_PREFIX "${_blosc2_full_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
_blosc2_rel(BLOSC2_PREFIX_TO_LIBDIR "${CMAKE_INSTALL_PREFIX}" "${_blosc2_full_LIBDIR}")
_blosc2_rel(BLOSC2_PREFIX_TO_INCLUDEDIR "${CMAKE_INSTALL_PREFIX}" "${_blosc2_full_INCLUDEDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
    set(_blosc2_full_BINDIR "${CMAKE_INSTALL_BINDIR}")
else()
    set(_blosc2_full_BINDIR "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}")
endif()
_blosc2_rel(BLOSC2_PREFIX_TO_BINDIR "${CMAKE_INSTALL_PREFIX}" "${_blosc2_full_BINDIR}")
# Where Blosc2Targets.cmake finds the shared library, relative to the prefix.
if(_blosc2_windows)
    set(BLOSC2_PREFIX_TO_SHARED "${BLOSC2_PREFIX_TO_BINDIR}/libblosc2.dll")
    set(BLOSC2_SHARED_LINK_PROPERTY "IMPORTED_IMPLIB \"\${_blosc2_libdir}/libblosc2.dll.a\"")
else()
    set(BLOSC2_PREFIX_TO_SHARED "${BLOSC2_PREFIX_TO_LIBDIR}/libblosc2.so.${BLOSC2_SOVERSION}")
    set(BLOSC2_SHARED_LINK_PROPERTY "IMPORTED_SONAME \"libblosc2.so.${BLOSC2_SOVERSION}\"")
endif()
_blosc2_rel(BLOSC2_CMAKEDIR_TO_PREFIX "${_blosc2_full_CMAKEDIR}" "${CMAKE_INSTALL_PREFIX}")

# Values the templates share with the Makefile's historical names.
set(VERSION "${BLOSC2_VERSION_STRING}")
set(VERSION_MAJOR "${BLOSC2_VERSION_MAJOR}")
set(SOVERSION "${BLOSC2_SOVERSION}")
set(LIBS_PRIVATE "${BLOSC2_PC_LIBS_PRIVATE}")
set(CMAKE_LIBS_PRIVATE "${BLOSC2_CMAKE_LIBS_PRIVATE}")
set(SIZEOF_VOID_P "${BLOSC2_SIZEOF_VOID_P}")
foreach(_t shared static)
    string(TOUPPER "${_t}" _T)
    if(BUILD_${_T})
        set(BLOSC2_HAVE_${_T} TRUE)
    else()
        set(BLOSC2_HAVE_${_T} FALSE)
    endif()
endforeach()
set(BLOSC2_HAVE_ZLIB TRUE)
set(BLOSC2_HAVE_ZSTD TRUE)
if(DEACTIVATE_ZLIB)
    set(BLOSC2_HAVE_ZLIB FALSE)
endif()
if(DEACTIVATE_ZSTD)
    set(BLOSC2_HAVE_ZSTD FALSE)
endif()
set(BLOSC2_HAVE_ZFP FALSE)
if(BUILD_PLUGINS AND NOT BLOSC_ENABLE_ZFP STREQUAL "OFF")
    set(BLOSC2_HAVE_ZFP TRUE)
endif()

set(_blosc2_gen "${CMAKE_CURRENT_BINARY_DIR}/install-files")
configure_file(cmake/blosc2.pc.in "${_blosc2_gen}/blosc2.pc" @ONLY)
configure_file(cmake/blosc2-static.pc.in "${_blosc2_gen}/blosc2-static.pc" @ONLY)
configure_file(cmake/Blosc2Config.cmake.in "${_blosc2_gen}/Blosc2Config.cmake" @ONLY)
configure_file(cmake/Blosc2ConfigVersion.cmake.in "${_blosc2_gen}/Blosc2ConfigVersion.cmake" @ONLY)
configure_file(cmake/Blosc2Targets.cmake.in "${_blosc2_gen}/Blosc2Targets.cmake" @ONLY)

# Headers: the committed ones (or a prebuilt library's).
install(FILES "${BLOSC2_INCLUDE_DIR}/blosc2.h" "${BLOSC2_INCLUDE_DIR}/b2nd.h"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT DEV)
# blosc2-rs.h: this library's own additions (docs/checksums.md), which no
# upstream header declares.
set(_blosc2_subheaders blosc2-export.h blosc2-common.h blosc2-stdio.h blosc2-rs.h)
if(BUILD_PLUGINS)
    # As upstream: the registries are installed with the plugins.
    list(APPEND _blosc2_subheaders filters-registry.h codecs-registry.h tuners-registry.h)
endif()
foreach(_h IN LISTS _blosc2_subheaders)
    install(FILES "${BLOSC2_INCLUDE_DIR}/blosc2/${_h}"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/blosc2" COMPONENT DEV)
endforeach()

# Installed binaries, as destination/name (the destination may be relative
# to the prefix, which `cmake --install --prefix` can still change).
set(_blosc2_installed "")
if(_blosc2_windows)
    # the DLL beside the programs, as upstream's RUNTIME DESTINATION bin
    set(_blosc2_shared_dest "${CMAKE_INSTALL_BINDIR}")
else()
    set(_blosc2_shared_dest "${CMAKE_INSTALL_LIBDIR}")
endif()
if(BUILD_SHARED)
    install(FILES "${_blosc2_staged_shared}" DESTINATION "${_blosc2_shared_dest}" COMPONENT LIB
        PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    # A symlink is installed as a symlink (the import library on Windows).
    install(FILES "${_blosc2_staged_link}" DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT DEV)
    list(APPEND _blosc2_installed "${_blosc2_shared_dest}/${_blosc2_so_name}")
endif()
if(BUILD_STATIC)
    install(FILES "${_blosc2_staged_static}" DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT DEV)
    list(APPEND _blosc2_installed "${CMAKE_INSTALL_LIBDIR}/libblosc2.a")
endif()
if(BLOSC2_RS_BUILD_B2)
    install(PROGRAMS "${_blosc2_staged_b2}" DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT LIB)
    list(APPEND _blosc2_installed "${CMAKE_INSTALL_BINDIR}/${_blosc2_b2_name}")
endif()
# The host's strip may not know PE files: MinGW's own, when there is one.
set(_blosc2_strip "${CMAKE_STRIP}")
if(_blosc2_windows AND NOT WIN32)
    find_program(BLOSC2_RS_MINGW_STRIP x86_64-w64-mingw32-strip)
    set(_blosc2_strip "${BLOSC2_RS_MINGW_STRIP}")
endif()
if(BLOSC2_RS_INSTALL_STRIP_DEBUG AND _blosc2_strip)
    # The installed copies only; the staged ones keep their symbols.
    install(CODE "
        foreach(_f ${_blosc2_installed})
            if(NOT IS_ABSOLUTE \"\${_f}\")
                set(_f \"\${CMAKE_INSTALL_PREFIX}/\${_f}\")
            endif()
            execute_process(COMMAND \"${_blosc2_strip}\" --strip-debug \"\$ENV{DESTDIR}\${_f}\")
        endforeach()" COMPONENT LIB)
endif()

install(FILES "${_blosc2_gen}/blosc2.pc" "${_blosc2_gen}/blosc2-static.pc"
    DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT DEV)
install(FILES
    "${_blosc2_gen}/Blosc2Config.cmake"
    "${_blosc2_gen}/Blosc2ConfigVersion.cmake"
    "${_blosc2_gen}/Blosc2Targets.cmake"
    DESTINATION "${Blosc2_INSTALL_CMAKEDIR}" COMPONENT DEV)

# Upstream's uninstall target: removes what the last install wrote.
if(NOT TARGET uninstall)
    add_custom_target(uninstall
        COMMAND ${CMAKE_COMMAND} "-DMANIFEST=${CMAKE_CURRENT_BINARY_DIR}/install_manifest.txt"
            -P "${CMAKE_CURRENT_SOURCE_DIR}/cmake/Blosc2Uninstall.cmake"
        VERBATIM)
endif()
