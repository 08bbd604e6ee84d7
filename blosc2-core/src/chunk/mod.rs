//! The Blosc2 chunk (spec: chunk-format.rst): header, blocks, streams, and the
//! compression/decompression contexts that produce and read them.

pub mod blocksize;
#[cfg(test)]
mod callback_tests;
pub(crate) mod codec;
pub mod compress;
pub mod decompress;
pub mod header;
pub mod params;
pub(crate) mod pipeline;
pub mod special;
pub mod vlblocks;

pub use compress::Compressor;
pub use decompress::{ChunkView, Decompressor};
pub use header::{ChunkHeader, Special};
pub use params::{CParams, DParams, SplitMode};

/// Grows a decoding scratch buffer to at least `n` bytes, dropping what it
/// held: a buffer another context gave back, or a fresh zeroed one from
/// the allocator's zeroed pages (calloc, mmap for large sizes), which are
/// touched only as blocks are decoded into them. `resize` would write
/// every byte first, so a malformed chunk of a few hundred bytes claiming
/// a 512 MiB block cost a second of zeroing before its first stream
/// failed (found by fuzzing `vlblocks`). See [`crate::spare`]. A size the
/// allocator cannot give is [`crate::ErrorKind::MemoryAlloc`].
pub(crate) fn grow_scratch(v: &mut Vec<u8>, n: usize) -> crate::error::Result<()> {
    crate::spare::grow(v, n)
}
