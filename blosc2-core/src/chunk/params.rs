//! Compression and decompression parameters of the safe core (the Rust face of
//! `blosc2_cparams` / `blosc2_dparams`).

use super::header::{filter_id, MAX_FILTERS};

/// Codec ids as the API names them (`compcode`).
pub mod codec {
    pub const BLOSCLZ: u8 = 0;
    pub const LZ4: u8 = 1;
    pub const LZ4HC: u8 = 2;
    pub const ZLIB: u8 = 4;
    pub const ZSTD: u8 = 5;
    /// First id of the globally registered plugin codecs.
    pub const GLOBAL_REGISTERED_START: u8 = 32;
    /// First id users may register.
    pub const USER_REGISTERED_START: u8 = 160;
}

/// How a block is cut into byte streams before the codec runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitMode {
    Always = 1,
    Never = 2,
    Auto = 3,
    ForwardCompat = 4,
}

impl SplitMode {
    /// Unknown values behave like FORWARD_COMPAT, as upstream does.
    pub fn from_i32(v: i32) -> SplitMode {
        match v {
            1 => SplitMode::Always,
            2 => SplitMode::Never,
            3 => SplitMode::Auto,
            _ => SplitMode::ForwardCompat,
        }
    }
}

/// Parameters for compressing chunks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CParams {
    pub compcode: u8,
    pub compcode_meta: u8,
    pub clevel: u8,
    pub use_dict: bool,
    pub typesize: i32,
    pub nthreads: i16,
    /// 0 = automatic.
    pub blocksize: i32,
    pub splitmode: SplitMode,
    pub filters: [u8; MAX_FILTERS],
    pub filters_meta: [u8; MAX_FILTERS],
    pub instr_codec: bool,
}

impl Default for CParams {
    /// Upstream's `BLOSC2_CPARAMS_DEFAULTS`.
    fn default() -> Self {
        CParams {
            compcode: codec::BLOSCLZ,
            compcode_meta: 0,
            clevel: 5,
            use_dict: false,
            typesize: 8,
            nthreads: 1,
            blocksize: 0,
            splitmode: SplitMode::ForwardCompat,
            filters: [0, 0, 0, 0, 0, filter_id::SHUFFLE],
            filters_meta: [0; MAX_FILTERS],
            instr_codec: false,
        }
    }
}

/// Parameters for decompressing chunks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DParams {
    pub nthreads: i16,
    pub typesize: i32,
}

impl Default for DParams {
    fn default() -> Self {
        DParams {
            nthreads: 1,
            typesize: 8,
        }
    }
}
