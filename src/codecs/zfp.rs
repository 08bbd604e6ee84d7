//! ZFP (codec ids 33-35: fixed accuracy, precision and rate), which
//! C-Blosc2 builds from the bundled LLNL zfp library.
//!
//! Not available here: the maintained Rust binding (`zfp-sys`) builds zfp
//! with CMake and generates its bindings with bindgen, which needs libclang;
//! neither is part of this project's toolchain, and the codec would need
//! unsafe FFI outside `capi`. Chunks using these ids fail with
//! `BLOSC2_ERROR_CODEC_SUPPORT` (and a trace line), as they do in an upstream
//! build without zfp.

use crate::error::Error;

/// `BLOSC_CODEC_ZFP_FIXED_ACCURACY`.
pub const FIRST_ID: u8 = 33;
/// `BLOSC_CODEC_ZFP_FIXED_RATE`.
pub const LAST_ID: u8 = 35;

/// The error for any use of a ZFP codec, traced with its name.
pub fn unsupported(id: u8) -> Error {
    let name = match id {
        33 => "zfp_acc",
        34 => "zfp_prec",
        _ => "zfp_rate",
    };
    crate::capi::boundary::trace(
        "error",
        &format!("codec {name} ({id}) is not supported by this build of blosc2 (no ZFP library)"),
        file!(),
        line!(),
    );
    Error::CodecSupport
}
