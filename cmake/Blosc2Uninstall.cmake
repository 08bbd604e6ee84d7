# `cmake --build <dir> --target uninstall`: removes every file the last
# `cmake --install` of that build directory wrote (its install_manifest.txt).
if(NOT EXISTS "${MANIFEST}")
    message(FATAL_ERROR "No ${MANIFEST}: nothing was installed from this build directory.")
endif()
file(STRINGS "${MANIFEST}" _files)
foreach(_f IN LISTS _files)
    set(_f "$ENV{DESTDIR}${_f}")
    if(EXISTS "${_f}" OR IS_SYMLINK "${_f}")
        message(STATUS "Uninstalling ${_f}")
        file(REMOVE "${_f}")
    endif()
endforeach()
