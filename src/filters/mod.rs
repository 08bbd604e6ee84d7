//! Filters of the blosc2 pipeline (applied to each block before the codec).
//!
//! Each module implements one filter as safe functions over slices, with
//! the exact per-block semantics of upstream's pipeline. The byte and bit
//! transposes have SIMD kernels in [`simd`], selected at run time.

pub mod bitshuffle;
pub mod bytedelta;
#[cfg(test)]
mod compat_tests;
pub mod delta;
pub mod int_trunc;
pub mod shuffle;
pub mod simd;
pub mod trunc_prec;
