//! Structs declared by `blosc2/blosc2-stdio.h`. Layout is ABI: see types/blosc2.rs.

use core::ffi::{c_char, c_int};
use core::ptr;

/// Stream handle of the default filesystem backend.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_stdio_file {
    /// Underlying C stream.
    pub file: *mut libc::FILE,
}

/// Parameters of the default filesystem backend (`blosc2_io.params`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct blosc2_stdio_params {
    /// Take advisory locks on a sidecar lock file around frame accesses.
    pub locking: bool,
}

/// State and parameters of the memory-mapped backend (`BLOSC2_IO_FILESYSTEM_MMAP`).
///
/// On Windows the struct ends with the mapping object's handle, as
/// upstream's does (its layout is ABI there too).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_stdio_mmap {
    /// Open mode: "r", "r+", "w+" or "c" (copy-on-write, like NumPy's memmap).
    pub mode: *const c_char,
    /// Initial size of the mapping for the writable modes.
    pub initial_mapping_size: usize,
    /// Whether the destroy callback must free this struct.
    pub needs_free: bool,
    /// Start of the mapping.
    pub addr: *mut c_char,
    /// Path of the mapped file.
    pub urlpath: *mut c_char,
    /// Size of the file.
    pub file_size: usize,
    /// Size of the mapping (at least `file_size`).
    pub mapping_size: usize,
    /// True in "c" mode: changes stay in memory.
    pub is_memory_only: bool,
    /// Underlying C stream.
    pub file: *mut libc::FILE,
    /// Underlying file descriptor.
    pub fd: c_int,
    /// Page protection flags.
    pub access_flags: i64,
    /// Mapping flags.
    pub map_flags: i64,
    /// The file-mapping object of the mapping (INVALID_HANDLE_VALUE when none).
    #[cfg(windows)]
    pub mmap_handle: windows_sys::Win32::Foundation::HANDLE,
}

impl Default for blosc2_stdio_mmap {
    /// Same values as the C `BLOSC2_STDIO_MMAP_DEFAULTS`.
    fn default() -> Self {
        blosc2_stdio_mmap {
            mode: c"r".as_ptr(),
            initial_mapping_size: 1 << 30,
            needs_free: false,
            addr: ptr::null_mut(),
            urlpath: ptr::null_mut(),
            file_size: 0,
            mapping_size: 0,
            is_memory_only: false,
            file: ptr::null_mut(),
            fd: -1,
            access_flags: -1,
            map_flags: -1,
            #[cfg(windows)]
            mmap_handle: windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE,
        }
    }
}
