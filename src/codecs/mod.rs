//! Compression codecs behind the blosc2 block pipeline.

pub mod blosclz;
