//! The shared and static C library: `libblosc2.so.9` and `libblosc2.a`.
//!
//! Every exported symbol is a `#[no_mangle] extern "C"` function of
//! `libblosc2-rs-sys`; linking that crate here is all it takes for the
//! cdylib and staticlib to carry them.

// Every export catches panics (libblosc2-rs-sys's `ffi!`) and returns an
// error to its C caller; with panic = "abort" each catch would be a no-op
// and a panic would end the host program instead.
#[cfg(panic = "abort")]
compile_error!(
    "libblosc2 must be built with panic = \"unwind\": its exports turn a panic into an error code for the C caller, which panic = \"abort\" would make impossible"
);

pub use libblosc2_rs_sys::*;
