//! Struct declared by `blosc2/tuners-registry.h`.

use core::ffi::c_char;

/// Symbol names a dynamically loaded tuner plugin exports.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct tuner_info {
    /// Name of the init function.
    pub init: *mut c_char,
    /// Name of the next-blocksize function.
    pub next_blocksize: *mut c_char,
    /// Name of the next-cparams function.
    pub next_cparams: *mut c_char,
    /// Name of the update function.
    pub update: *mut c_char,
    /// Name of the free function.
    pub free: *mut c_char,
}
