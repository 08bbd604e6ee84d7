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
