//! # blosc2: C-Blosc2 in Rust
//!
//! A safe Rust core implementing the Blosc2 chunk format (and, later, super-chunks,
//! frames and b2nd arrays), plus a thin C-ABI layer in [`capi`] that makes the
//! crate a drop-in replacement for upstream `libblosc2.so.9`.
//!
//! The core never touches raw pointers: it takes slices and plain config
//! structs and returns [`Result`]. Only `capi` and the SIMD kernels use `unsafe`.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod error;
pub use error::{Error, Result};

pub mod chunk;
pub mod codecs;
pub mod filters;
pub mod pool;
pub mod registry;

pub mod b2nd;
pub mod frame;
pub mod io;
pub mod metalayers;
pub mod schunk;
pub mod trace;
