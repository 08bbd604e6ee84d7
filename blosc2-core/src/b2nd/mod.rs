//! B2ND: n-dimensional arrays stored in super-chunks, interchangeable with
//! the reference's `b2nd.h` arrays (spec: b2nd-metalayer-format.md).
//!
//! # API for the rest of the crate
//!
//! - [`Array<S>`](array::Array): the array. `S` is how it holds its
//!   [`SuperChunk`](crate::schunk::SuperChunk): owned (`Array` =
//!   `Array<SuperChunk>`, the Rust API) or anything implementing
//!   `Borrow<SuperChunk>` / `BorrowMut<SuperChunk>` (the C API uses a pointer
//!   to the super-chunk its handle owns). Read-only operations live in
//!   `impl<S: Borrow<SuperChunk>> Array<S>`, mutating ones in
//!   `impl<S: BorrowMut<SuperChunk>> Array<S>`; new operations (shape
//!   changes, selections) should follow that split, in their own files.
//! - Accessors: `shape()`, `chunkshape()`, `blockshape()`, `ndim()`,
//!   `nitems()`, `typesize()`, `dtype()`, `dtype_format()`, `geometry()`
//!   (every derived field of `b2nd_array_t`), `schunk()`, `schunk_mut()`.
//! - After a shape change: `update_shape(shape, chunkshape, blockshape)`
//!   (pub(crate)) recomputes the geometry and rewrites the `b2nd`
//!   metalayer; `update_geometry(..)` recomputes without touching the
//!   metalayer; `publish_meta()` writes the metalayer from the geometry.
//! - Data: `get_slice_cbuffer`, `set_slice_cbuffer`, `to_cbuffer`,
//!   `fill_from_cbuffer`, `copy_into` (a box of one array into another),
//!   [`slice::copy_buffer2`] (strided N-d copy between C buffers).
//! - Layout facts: chunk `n` (C order over the chunk grid) is super-chunk
//!   chunk `n`; every chunk decompresses to `extchunknitems * typesize`
//!   bytes; block `j` (C order over `blocks_in_chunk()`) is bytes
//!   `j * blocknitems * typesize ..` of it, items in C order over
//!   `blockshape`. See [`geometry`].
//!
//! In the C API (`libblosc2-rs-sys/src/objects/array.rs`), an array is an `Array<ScPtr>` whose
//! `ScPtr` points to an ordinary schunk handle (`array->sc`):
//! - `libblosc2_rs_sys`'s `objects::array::create_array(ctx, Fill)` makes a new array from a
//!   `b2nd_context_t` (`ctx_ref(ptr)` gives the context's fields);
//! - `libblosc2_rs_sys`'s `objects::array::new_c_array(Array<ScPtr>)` publishes an array built on a
//!   schunk handle (`ScPtr::new(schunk_ptr)` + `Array::init` /
//!   `Array::from_schunk`) as a `*mut b2nd_array_t`;
//! - `libblosc2_rs_sys`'s `objects::array::with_array(ptr, |a| ...)` runs code on the `Array` behind
//!   a `*mut b2nd_array_t` and then refreshes the public struct and the
//!   schunk's; `read_array(ptr, |a| ...)` is the shared-reference variant
//!   for reads.

pub mod array;
pub mod geometry;
pub mod meta;
pub mod orthogonal;
pub mod reshape;
pub mod slice;

pub use array::{Array, Fill, Params};
pub use geometry::Geometry;
pub use meta::{Meta, MAX_DIM};

#[cfg(test)]
mod tests;
