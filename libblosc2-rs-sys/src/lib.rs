//! The C ABI: `extern "C"` functions and `#[repr(C)]` types of upstream's headers.
//!
//! # The pointer contract
//!
//! Every export takes C's word for what its pointers point to, as upstream
//! does, and checks everything else. What a caller promises, stated once
//! here and named per function in its `# Safety`:
//! - a buffer or array comes as (pointer, length): the pointer is valid for
//!   that many bytes or items, aligned, and not changed by another thread
//!   during the call; NULL is refused (`BLOSC2_ERROR_NULL_POINTER` or what
//!   upstream returns) unless the length is 0;
//! - an output buffer does not overlap the call's inputs;
//! - a string is NULL or NUL-terminated; a path is UTF-8 (other bytes are
//!   replaced) and read as upstream reads that call's path;
//! - a handle (`blosc2_context *`, `blosc2_schunk *`, `b2nd_array_t *`, ...)
//!   is NULL or one this library made and has not freed, used by one thread
//!   at a time;
//! - what a call hands back with `malloc` (chunks, frames, shapes, strings)
//!   is the caller's to `free`, and is never NULL on success unless upstream
//!   gives NULL for an empty result there.
//!
//! All conversions from pointers to Rust references are in `ptr`; every
//! export's body runs inside the panic boundary in `boundary`.

// Every narrowing of a C value is checked: a size or count that does not fit
// is an error code, never a wrapped value.
#![warn(clippy::cast_possible_truncation)]
pub mod consts;
pub mod types;

mod api;
mod boundary;
mod env;
mod names;
mod objects;
mod ptr;

// Every export at the crate root, as C sees them: one flat namespace.
pub use api::b2nd::*;
pub use api::blosc1::*;
pub use api::chunk::*;
pub use api::context::*;
pub use api::io::*;
pub use api::library::*;
pub use api::plugins::*;
pub use api::schunk::*;
pub use api::utilities::*;
pub use api::vlblocks::*;
