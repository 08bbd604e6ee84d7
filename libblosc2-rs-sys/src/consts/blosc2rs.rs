//! Constants of `blosc2/blosc2-rs.h`, this library's own additions
//! (docs/checksums.md): the frame states a verification reports.

use core::ffi::c_int;

/// No checksums: a frame written without them (every upstream frame).
pub const BLOSC2RS_FRAME_UNVERIFIED: c_int = 0;
/// Checksums left behind by a writer without them (a change or a copy by
/// C-Blosc2): nothing can be checked, and nothing is wrong.
pub const BLOSC2RS_FRAME_STALE: c_int = 1;
/// The seal matches: every chunk is checked against its digest.
pub const BLOSC2RS_FRAME_SEALED: c_int = 2;
/// Sealed, and a metalayer's content was changed in place since
/// (`blosc2_meta_update` by a writer without checksums).
pub const BLOSC2RS_FRAME_METALAYERS_CHANGED: c_int = 3;
/// The seal does not match: the index, a vlmetalayer or the trailer is
/// damaged (or a write was torn).
pub const BLOSC2RS_FRAME_CORRUPT_SEAL: c_int = 4;
/// The fixed fields of the header are damaged.
pub const BLOSC2RS_FRAME_CORRUPT_HEADER: c_int = 5;
/// The table describes another number of chunks than the index holds.
pub const BLOSC2RS_FRAME_CORRUPT_CHUNK_COUNT: c_int = 6;
