//! Compression codecs behind the blosc2 block pipeline.

pub mod blosclz;
pub mod lz4;
pub mod lz4hc;
pub mod ndlz;
pub mod zfp;
pub mod zlib;
pub mod zstd;
