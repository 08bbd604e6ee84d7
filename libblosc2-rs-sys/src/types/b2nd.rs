//! Structs declared by `b2nd.h`. Layout is ABI: see types/blosc2.rs.

use core::ffi::c_char;
use core::marker::{PhantomData, PhantomPinned};

use super::blosc2::blosc2_schunk;
use crate::consts::B2ND_MAX_DIM;

/// Opaque array-creation context (`struct b2nd_context_s`), see [`super::blosc2_context`].
#[repr(C)]
pub struct b2nd_context_t {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// One-chunk cache of an array (upstream declares only the tag `struct chunk_cache_s`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct chunk_cache_s {
    /// Decompressed chunk.
    pub data: *mut u8,
    /// Which chunk `data` holds, -1 when empty.
    pub nchunk: i64,
}

/// An n-dimensional array stored in a super-chunk.
#[repr(C)]
#[derive(Debug)]
pub struct b2nd_array_t {
    /// Super-chunk holding the data.
    pub sc: *mut blosc2_schunk,
    /// Shape.
    pub shape: [i64; B2ND_MAX_DIM],
    /// Chunk shape.
    pub chunkshape: [i32; B2ND_MAX_DIM],
    /// Shape padded to whole chunks.
    pub extshape: [i64; B2ND_MAX_DIM],
    /// Block shape.
    pub blockshape: [i32; B2ND_MAX_DIM],
    /// Chunk shape padded to whole blocks.
    pub extchunkshape: [i64; B2ND_MAX_DIM],
    /// Number of items.
    pub nitems: i64,
    /// Items per chunk.
    pub chunknitems: i32,
    /// Items in the padded shape.
    pub extnitems: i64,
    /// Items per block.
    pub blocknitems: i32,
    /// Items in a padded chunk.
    pub extchunknitems: i64,
    /// Number of dimensions.
    pub ndim: i8,
    /// Cache of the last chunk read.
    pub chunk_cache: chunk_cache_s,
    /// Item strides of the array.
    pub item_array_strides: [i64; B2ND_MAX_DIM],
    /// Item strides within a chunk.
    pub item_chunk_strides: [i64; B2ND_MAX_DIM],
    /// Item strides within a padded chunk.
    pub item_extchunk_strides: [i64; B2ND_MAX_DIM],
    /// Item strides within a block.
    pub item_block_strides: [i64; B2ND_MAX_DIM],
    /// Block strides within a chunk.
    pub block_chunk_strides: [i64; B2ND_MAX_DIM],
    /// Chunk strides within the array.
    pub chunk_array_strides: [i64; B2ND_MAX_DIM],
    /// Data type description (format given by `dtype_format`).
    pub dtype: *mut c_char,
    /// Format of `dtype` (`DTYPE_NUMPY_FORMAT`).
    pub dtype_format: i8,
    /// `sc->change_tick` when this struct was last synchronised.
    pub last_tick: i64,
}
