//! The exported functions, one module per part of upstream's headers. The
//! Rust objects behind the C pointers they take are in `objects`; the crate
//! root re-exports every function.
//!
//! The order of the `mod` lines is the order in which build.rs puts the
//! functions into the headers (see its `rust_files`).

pub(crate) mod b2nd;
pub(crate) mod blosc1;
pub(crate) mod chunk;
pub(crate) mod context;
pub(crate) mod io;
pub(crate) mod library;
pub(crate) mod plugins;
pub(crate) mod schunk;
pub(crate) mod utilities;
pub(crate) mod vlblocks;
