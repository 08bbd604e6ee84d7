//! The Rust objects behind the C pointers: what a `blosc2_context*`, a
//! `blosc2_schunk*`, a `b2nd_array_t*` and a `b2nd_context_t*` point to,
//! and the C callbacks a context holds. The exported functions that take
//! them are in `api`.

pub(crate) mod array;
pub(crate) mod context;
pub(crate) mod prefilter;
pub(crate) mod schunk;
pub(crate) mod tuner;
