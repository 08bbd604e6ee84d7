//! Tuner ids of `blosc2/tuners-registry.h` (an anonymous enum upstream).

use core::ffi::c_int;

/// BTune plugin.
pub const BLOSC_BTUNE: c_int = 32;
