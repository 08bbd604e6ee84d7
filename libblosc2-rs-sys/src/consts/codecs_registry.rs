//! Codec ids of `blosc2/codecs-registry.h` (an anonymous enum upstream).

use core::ffi::c_int;

/// NDLZ: Lempel-Ziv for n-dimensional data (experimental).
pub const BLOSC_CODEC_NDLZ: c_int = 32;
/// ZFP, fixed-accuracy mode.
pub const BLOSC_CODEC_ZFP_FIXED_ACCURACY: c_int = 33;
/// ZFP, fixed-precision mode.
pub const BLOSC_CODEC_ZFP_FIXED_PRECISION: c_int = 34;
/// ZFP, fixed-rate mode.
pub const BLOSC_CODEC_ZFP_FIXED_RATE: c_int = 35;
/// OpenHTJ2K (JPEG 2000 HT) plugin.
pub const BLOSC_CODEC_OPENHTJ2K: c_int = 36;
/// Grok (JPEG 2000) plugin.
pub const BLOSC_CODEC_GROK: c_int = 37;
/// OpenZL plugin.
pub const BLOSC_CODEC_OPENZL: c_int = 38;
/// JPEG 2000 plugin.
pub const BLOSC_CODEC_J2K: c_int = 39;
/// High-throughput JPEG 2000 plugin.
pub const BLOSC_CODEC_HTJ2K: c_int = 40;
