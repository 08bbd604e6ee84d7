//! Constants of `b2nd.h` (all `#define`s upstream). See consts/blosc2.rs for the conventions.

use core::ffi::{c_int, CStr};

use super::blosc2::BLOSC2_MAX_METALAYERS;

/// Version of the "b2nd" metalayer format (0..=127).
pub const B2ND_METALAYER_VERSION: c_int = 0;
// `usize` because it is an array length.
/// Maximum number of dimensions of an array.
pub const B2ND_MAX_DIM: usize = 16;
/// Maximum number of user metalayers of an array (one is taken by "b2nd").
pub const B2ND_MAX_METALAYERS: usize = BLOSC2_MAX_METALAYERS - 1;
/// `dtype_format` value for NumPy dtype strings.
pub const DTYPE_NUMPY_FORMAT: c_int = 0;
/// Default dtype: unsigned bytes.
pub const B2ND_DEFAULT_DTYPE: &CStr = c"|u1";
/// Default `dtype_format`.
pub const B2ND_DEFAULT_DTYPE_FORMAT: c_int = DTYPE_NUMPY_FORMAT;
