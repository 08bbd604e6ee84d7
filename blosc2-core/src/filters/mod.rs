//! Filters of the blosc2 pipeline (applied to each block before the codec).
//!
//! Each module implements one filter as safe functions over slices, with
//! the exact per-block semantics of upstream's pipeline. The byte and bit
//! transposes have SIMD kernels in [`simd`], selected at run time.
//!
//! What the chunk pipeline has to know (all checked against C-Blosc2 3.3.5
//! in `compat_tests.rs`):
//!
//! * Bytes that do not make a whole element (SHUFFLE, BYTEDELTA), or a
//!   whole group of 8 elements (BITSHUFFLE), are copied unchanged. Where
//!   upstream leaves such bytes unwritten (DELTA, TRUNC_PREC, INT_TRUNC)
//!   they are copied here too, so every filter round-trips them.
//! * SHUFFLE's `filters_meta` is the number of byte streams (the element
//!   size it shuffles with); 0 means the typesize.
//! * DELTA: block 0 is coded against itself, other blocks against the
//!   chunk's first block (original data when encoding, decoded data when
//!   decoding), see [`delta`].
//! * Upstream cuts blocks at the blocksize rounded down to a multiple of
//!   the typesize, while the header keeps the requested blocksize.
//! * Upstream's `pipeline_forward` rotates the caller's input through its
//!   three buffers, so the 3rd (and 6th) active filter writes over the input
//!   block. With DELTA in such a pipeline, later blocks are coded against
//!   block 0's final output and the chunk does not round-trip in C.

pub mod bitshuffle;
pub mod bytedelta;
#[cfg(test)]
mod compat_tests;
pub mod delta;
pub mod int_trunc;
pub mod ndcell;
pub mod ndmean;
pub mod shuffle;
pub mod simd;
pub mod trunc_prec;
