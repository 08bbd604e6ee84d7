//! The shared and static C library: `libblosc2.so.9` and `libblosc2.a`.
//!
//! Every exported symbol is a `#[no_mangle] extern "C"` function of
//! `libblosc2-rs-sys`; linking that crate here is all it takes for the
//! cdylib and staticlib to carry them.

pub use libblosc2_rs_sys::*;
