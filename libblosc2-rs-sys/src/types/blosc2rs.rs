//! Structs declared by `blosc2/blosc2-rs.h`, this library's own additions
//! (docs/checksums.md). Not upstream's: the `blosc2rs_` prefix keeps them
//! from ever clashing with an upstream name.

/// What `blosc2rs_schunk_verify` and `blosc2rs_verify_frame` found.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct blosc2rs_verify_report {
    /// The frame's state: one of the `BLOSC2RS_FRAME_*` values.
    pub frame_state: i32,
    /// Chunks in the super-chunk.
    pub nchunks: i64,
    /// Chunks whose stored bytes match their sealed digest.
    pub verified: i64,
    /// Chunks whose stored bytes do not match it, or cannot be read.
    pub corrupt: i64,
    /// Chunks of a stale frame (changed by a writer without checksums).
    pub stale: i64,
    /// Chunks of a frame without checksums, or whose seal is damaged.
    pub unverified: i64,
    /// The first corrupt chunk's number, or -1.
    pub first_corrupt: i64,
}
