//! Struct declared by `blosc2/filters-registry.h`.

use core::ffi::c_char;

/// Symbol names a dynamically loaded filter plugin exports.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct filter_info {
    /// Name of the forward function.
    pub forward: *mut c_char,
    /// Name of the backward function.
    pub backward: *mut c_char,
}
