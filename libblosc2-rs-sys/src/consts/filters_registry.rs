//! Filter ids of `blosc2/filters-registry.h` (an anonymous enum upstream).

use core::ffi::c_int;

/// NDCELL: groups n-dimensional cells together.
pub const BLOSC_FILTER_NDCELL: c_int = 32;
/// NDMEAN: replaces each n-dimensional cell by its mean.
pub const BLOSC_FILTER_NDMEAN: c_int = 33;
/// Byte-wise delta, old buggy variant kept for reading old data.
pub const BLOSC_FILTER_BYTEDELTA_BUGGY: c_int = 34;
/// Byte-wise delta across the byte streams of each item.
pub const BLOSC_FILTER_BYTEDELTA: c_int = 35;
/// Integer precision truncation.
pub const BLOSC_FILTER_INT_TRUNC: c_int = 36;
