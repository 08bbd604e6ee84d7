//! Struct declared by `blosc2/codecs-registry.h`.

use core::ffi::c_char;

/// Symbol names a dynamically loaded codec plugin exports.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct codec_info {
    /// Name of the encoder function.
    pub encoder: *mut c_char,
    /// Name of the decoder function.
    pub decoder: *mut c_char,
}
