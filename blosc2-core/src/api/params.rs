//! Compression settings as Rust types: [`Codec`], [`Filter`], [`SplitMode`]
//! and the [`CParams`] builder that gathers them.

use crate::chunk::header::{filter_id, MAX_FILTERS};
use crate::chunk::params::{self as engine, codec};
use crate::error::{Error, ErrorKind};

/// The codec that compresses each block (after the filters).
///
/// The codecs that need an array's geometry (NDLZ and the three ZFP
/// modes) carry their parameter as the typed field of their variant. The
/// field holds exactly the one byte the chunk format stores for it (the
/// codec's "meta"), so the settings read back from a file compare equal
/// to the ones written, and `Codec` stays `Copy`, `Eq` and `Hash`. They
/// compress only the blocks of an [`NdArray`](crate::NdArray); elsewhere
/// they are refused with [`ErrorKind::InvalidParam`]. ZFP rounds the
/// values themselves, so it takes no filter that moves their bytes (the
/// default [`Filter::Shuffle`] included: give `with_filters(&[])`). In a
/// build without
/// the `plugins` feature (or `zfp` for ZFP) they fail with
/// [`ErrorKind::CodecSupport`].
///
/// ```
/// use blosc2_core::{CParams, Codec, NdArray};
///
/// let data: Vec<f64> = (0..64 * 64).map(|i| (i as f64 * 0.01).sin()).collect();
/// let a = NdArray::builder(&[64, 64])
///     .chunks(&[32, 32])
///     .blocks(&[16, 16])
///     .cparams(
///         CParams::new()
///             .with_codec(Codec::ZfpAccuracy { exponent: -4 })
///             .with_filters(&[]),
///     )
///     .from_slice(&data)?;
/// let back: Vec<f64> = a.to_vec()?;
/// assert!(back.iter().zip(&data).all(|(b, d)| (b - d).abs() <= 1e-4));
/// # Ok::<(), blosc2_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Codec {
    /// BloscLZ, Blosc's own LZ77 codec: fast, the default.
    BloscLz,
    /// LZ4: very fast.
    Lz4,
    /// LZ4 high compression: slower to compress, as fast to decompress.
    Lz4Hc,
    /// zlib (deflate).
    Zlib,
    /// Zstandard: the best ratios.
    Zstd,
    /// NDLZ (id 32) with 4x4 cells: an LZ codec for the blocks of 2-D
    /// arrays, which finds repeats among square cells.
    NdLz4,
    /// NDLZ (id 32) with 8x8 cells.
    NdLz8,
    /// ZFP in fixed-accuracy mode (id 33), lossy, for `f32`/`f64` arrays of
    /// 1 to 4 dimensions: every value within `10^exponent` of the original.
    ZfpAccuracy {
        /// The decimal exponent of the absolute error allowed.
        exponent: i8,
    },
    /// ZFP in fixed-precision mode (id 34): `bits` bit planes per value
    /// (zfp is given `bits + 3 + 2 * ndim`, at most 64).
    ZfpPrecision {
        /// The bit planes kept, before zfp's per-dimension addition.
        bits: u8,
    },
    /// ZFP in fixed-rate mode (id 35): each value in `percent`% of its
    /// size (50 on `f64`: 32 bits per value), so the compressed size is
    /// known in advance.
    ZfpRate {
        /// The compressed size as a percentage of the input's.
        percent: u8,
    },
}

/// NDLZ's id in the chunk format (`BLOSC_CODEC_NDLZ`).
const NDLZ: u8 = 32;
/// ZFP's ids (`BLOSC_CODEC_ZFP_FIXED_*`).
const ZFP_ACCURACY: u8 = 33;
const ZFP_PRECISION: u8 = 34;
const ZFP_RATE: u8 = 35;

impl Codec {
    /// The codec's id in the chunk format (upstream's `BLOSC_*` compcode).
    pub fn id(self) -> u8 {
        self.id_and_meta().0
    }

    /// The codec's id and the meta byte it carries (upstream's
    /// `compcode_meta`: 0 for the codecs without a parameter).
    pub fn id_and_meta(self) -> (u8, u8) {
        match self {
            Codec::BloscLz => (codec::BLOSCLZ, 0),
            Codec::Lz4 => (codec::LZ4, 0),
            Codec::Lz4Hc => (codec::LZ4HC, 0),
            Codec::Zlib => (codec::ZLIB, 0),
            Codec::Zstd => (codec::ZSTD, 0),
            Codec::NdLz4 => (NDLZ, 4),
            Codec::NdLz8 => (NDLZ, 8),
            Codec::ZfpAccuracy { exponent } => (ZFP_ACCURACY, exponent as u8),
            Codec::ZfpPrecision { bits } => (ZFP_PRECISION, bits),
            Codec::ZfpRate { percent } => (ZFP_RATE, percent),
        }
    }

    /// The codec with this compcode and meta byte, if it is a built-in one
    /// (NDLZ only with a cell of 4 or 8).
    pub fn from_id(id: u8, meta: u8) -> Option<Codec> {
        Some(match (id, meta) {
            (codec::BLOSCLZ, _) => Codec::BloscLz,
            (codec::LZ4, _) => Codec::Lz4,
            (codec::LZ4HC, _) => Codec::Lz4Hc,
            (codec::ZLIB, _) => Codec::Zlib,
            (codec::ZSTD, _) => Codec::Zstd,
            (NDLZ, 4) => Codec::NdLz4,
            (NDLZ, 8) => Codec::NdLz8,
            (ZFP_ACCURACY, m) => Codec::ZfpAccuracy { exponent: m as i8 },
            (ZFP_PRECISION, bits) => Codec::ZfpPrecision { bits },
            (ZFP_RATE, percent) => Codec::ZfpRate { percent },
            _ => return None,
        })
    }

    /// Upstream's name (`blosc2_compcode_to_compname`): `"blosclz"`,
    /// `"lz4"`, ..., `"ndlz"`, `"zfp_acc"`, `"zfp_prec"`, `"zfp_rate"`.
    pub fn name(self) -> &'static str {
        match self {
            Codec::BloscLz => "blosclz",
            Codec::Lz4 => "lz4",
            Codec::Lz4Hc => "lz4hc",
            Codec::Zlib => "zlib",
            Codec::Zstd => "zstd",
            Codec::NdLz4 | Codec::NdLz8 => "ndlz",
            Codec::ZfpAccuracy { .. } => "zfp_acc",
            Codec::ZfpPrecision { .. } => "zfp_prec",
            Codec::ZfpRate { .. } => "zfp_rate",
        }
    }

    /// Whether the codec works on an array's blocks only (it reads their
    /// shape from the `b2nd` metalayer).
    pub fn needs_array(self) -> bool {
        self.id() >= NDLZ
    }
}

/// A filter that rearranges the bytes of a block before the codec.
///
/// Filters with a parameter carry it as a typed field holding the meta
/// byte the chunk stores (see [`Codec`] for why). NDCELL and NDMEAN work
/// on the blocks of an [`NdArray`](crate::NdArray) only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Filter {
    /// Groups the n-th byte of every item together (byte shuffle).
    Shuffle,
    /// Groups the n-th bit of every item together.
    BitShuffle,
    /// Stores each byte as its XOR with the block's first item.
    Delta,
    /// Zeroes low mantissa bits of floats, keeping `bits` significant bits
    /// (lossy; negative values remove that many bits instead).
    TruncPrec {
        /// Mantissa bits to keep (positive) or to remove (negative).
        bits: i8,
    },
    /// Stores each byte stream as differences of consecutive bytes (use
    /// after [`Filter::Shuffle`]).
    ByteDelta,
    /// The first version of BYTEDELTA (id 34, C-Blosc2 2.7), whose output
    /// differs on some item sizes: for data written that way; new data
    /// should use [`Filter::ByteDelta`].
    ByteDeltaBuggy,
    /// Zeroes low bits of integers (lossy), like `TruncPrec` for integers.
    IntTrunc {
        /// Bits to keep (positive) or to remove (negative).
        bits: i8,
    },
    /// Lays each block of an array out cell by cell (cubes of side `cell`
    /// items), so that codecs see neighbours together.
    NdCell {
        /// The side of a cell, in items.
        cell: u8,
    },
    /// Replaces each cell (side `cell`) of an `f32`/`f64` array's block by
    /// its mean, laid out as NDCELL does (lossy).
    NdMean {
        /// The side of a cell, in items.
        cell: u8,
    },
}

impl Filter {
    /// The filter's id in the chunk format and the meta byte it carries.
    pub fn id_and_meta(self) -> (u8, u8) {
        match self {
            Filter::Shuffle => (filter_id::SHUFFLE, 0),
            Filter::BitShuffle => (filter_id::BITSHUFFLE, 0),
            Filter::Delta => (filter_id::DELTA, 0),
            Filter::TruncPrec { bits } => (filter_id::TRUNC_PREC, bits as u8),
            Filter::ByteDelta => (filter_id::BYTEDELTA, 0),
            Filter::ByteDeltaBuggy => (filter_id::BYTEDELTA_BUGGY, 0),
            Filter::IntTrunc { bits } => (filter_id::INT_TRUNC, bits as u8),
            Filter::NdCell { cell } => (NDCELL, cell),
            Filter::NdMean { cell } => (NDMEAN, cell),
        }
    }

    /// The filter with this id and meta byte, if it is a built-in one.
    pub fn from_id(id: u8, meta: u8) -> Option<Filter> {
        Some(match id {
            filter_id::SHUFFLE => Filter::Shuffle,
            filter_id::BITSHUFFLE => Filter::BitShuffle,
            filter_id::DELTA => Filter::Delta,
            filter_id::TRUNC_PREC => Filter::TruncPrec { bits: meta as i8 },
            filter_id::BYTEDELTA => Filter::ByteDelta,
            filter_id::BYTEDELTA_BUGGY => Filter::ByteDeltaBuggy,
            filter_id::INT_TRUNC => Filter::IntTrunc { bits: meta as i8 },
            NDCELL => Filter::NdCell { cell: meta },
            NDMEAN => Filter::NdMean { cell: meta },
            _ => return None,
        })
    }

    /// Whether the filter rearranges the bytes of items (not the items).
    fn moves_bytes(self) -> bool {
        matches!(
            self,
            Filter::Shuffle
                | Filter::BitShuffle
                | Filter::Delta
                | Filter::ByteDelta
                | Filter::ByteDeltaBuggy
        )
    }

    /// Whether the filter works on an array's blocks only.
    pub fn needs_array(self) -> bool {
        matches!(self, Filter::NdCell { .. } | Filter::NdMean { .. })
    }
}

/// NDCELL's and NDMEAN's ids (`BLOSC_FILTER_NDCELL`, `_NDMEAN`).
const NDCELL: u8 = 32;
const NDMEAN: u8 = 33;

/// How each block is cut into byte streams (one per byte of the item) before
/// the codec runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SplitMode {
    /// Always split.
    Always,
    /// Never split.
    Never,
    /// Let the library decide per block.
    Auto,
    /// Split where C-Blosc2 before 2.0 did (the default, for files every
    /// version reads).
    #[default]
    ForwardCompat,
}

impl From<SplitMode> for engine::SplitMode {
    fn from(m: SplitMode) -> engine::SplitMode {
        match m {
            SplitMode::Always => engine::SplitMode::Always,
            SplitMode::Never => engine::SplitMode::Never,
            SplitMode::Auto => engine::SplitMode::Auto,
            SplitMode::ForwardCompat => engine::SplitMode::ForwardCompat,
        }
    }
}

/// Compression settings, built with chained `with_*` calls from C-Blosc2's
/// defaults (BloscLZ, level 5, byte shuffle, one thread); the getters have
/// the bare names (`codec()`, `clevel()`, ...).
///
/// ```
/// use blosc2_core::{CParams, Codec, Filter};
///
/// let params = CParams::new()
///     .with_codec(Codec::Zstd)
///     .with_clevel(7)
///     .with_filters(&[Filter::BitShuffle])
///     .with_nthreads(2);
/// assert_eq!(params.codec(), Codec::Zstd);
/// assert_eq!(params.clevel(), 7);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub struct CParams {
    codec: Codec,
    clevel: u8,
    typesize: Option<usize>,
    filters: Vec<Filter>,
    splitmode: SplitMode,
    nthreads: usize,
    blocksize: usize,
    use_dict: bool,
}

impl Default for CParams {
    fn default() -> Self {
        CParams::new()
    }
}

impl CParams {
    /// C-Blosc2's defaults: BloscLZ at level 5 with byte shuffle, one thread,
    /// automatic block size, item size taken from the data.
    pub fn new() -> CParams {
        CParams {
            codec: Codec::BloscLz,
            clevel: 5,
            typesize: None,
            filters: vec![Filter::Shuffle],
            splitmode: SplitMode::ForwardCompat,
            nthreads: 1,
            blocksize: 0,
            use_dict: false,
        }
    }

    /// The codec.
    pub fn with_codec(mut self, codec: Codec) -> CParams {
        self.codec = codec;
        self
    }

    /// The compression level, 0 (store) to 9 (best); checked when used.
    pub fn with_clevel(mut self, clevel: u8) -> CParams {
        self.clevel = clevel;
        self
    }

    /// The item size in bytes (1 to 255), which the shuffle filters group
    /// by. The typed functions take it from the element type; set it for
    /// byte data that holds larger items.
    pub fn with_typesize(mut self, typesize: usize) -> CParams {
        self.typesize = Some(typesize);
        self
    }

    /// The filters, applied in this order (at most 6; none is allowed).
    pub fn with_filters(mut self, filters: &[Filter]) -> CParams {
        self.filters = filters.to_vec();
        self
    }

    /// The split mode.
    pub fn with_splitmode(mut self, mode: SplitMode) -> CParams {
        self.splitmode = mode;
        self
    }

    /// Threads to compress and decompress with (1 or more).
    pub fn with_nthreads(mut self, nthreads: usize) -> CParams {
        self.nthreads = nthreads;
        self
    }

    /// The block size in bytes (0, the default, lets the library choose).
    pub fn with_blocksize(mut self, blocksize: usize) -> CParams {
        self.blocksize = blocksize;
        self
    }

    /// Whether Zstd, LZ4 and LZ4HC train a dictionary per chunk.
    pub fn with_use_dict(mut self, use_dict: bool) -> CParams {
        self.use_dict = use_dict;
        self
    }

    /// The codec.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// The compression level.
    pub fn clevel(&self) -> u8 {
        self.clevel
    }

    /// The item size in bytes, if set.
    pub fn typesize(&self) -> Option<usize> {
        self.typesize
    }

    /// The filters, in the order they run.
    pub fn filters(&self) -> &[Filter] {
        &self.filters
    }

    /// The split mode.
    pub fn splitmode(&self) -> SplitMode {
        self.splitmode
    }

    /// The thread count.
    pub fn nthreads(&self) -> usize {
        self.nthreads
    }

    /// The block size in bytes (0: the library chooses).
    pub fn blocksize(&self) -> usize {
        self.blocksize
    }

    /// Whether a dictionary is trained per chunk.
    pub fn use_dict(&self) -> bool {
        self.use_dict
    }

    /// The engine's parameters, for items of `default_typesize` bytes unless
    /// a typesize was set; every value is checked here so that errors name
    /// the parameter.
    pub(crate) fn to_engine(&self, default_typesize: usize) -> Result<engine::CParams, Error> {
        if self.codec.needs_array() {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("codec")
                .with_detail(format!(
                    "{} compresses the blocks of a b2nd array: use it with an NdArray",
                    self.codec.name()
                )));
        }
        if let Some(f) = self.filters.iter().find(|f| f.needs_array()) {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("filters")
                .with_detail(format!(
                    "{f:?} works on the blocks of a b2nd array: use it with an NdArray"
                )));
        }
        self.to_engine_any(default_typesize)
    }

    /// [`Self::to_engine`] for an array, where every codec and filter works.
    pub(crate) fn to_engine_any(&self, default_typesize: usize) -> Result<engine::CParams, Error> {
        let zfp = matches!(
            self.codec,
            Codec::ZfpAccuracy { .. } | Codec::ZfpPrecision { .. } | Codec::ZfpRate { .. }
        );
        if let Some(f) = self.filters.iter().find(|f| zfp && f.moves_bytes()) {
            // upstream runs the pipeline anyway and ZFP then rounds
            // shuffled bytes as if they were numbers: garbage comes back
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("filters")
                .with_detail(format!(
                    "{} compresses the values themselves, but {f:?} rearranges their bytes \
                     first: give no such filter (`with_filters(&[])`; the default is Shuffle)",
                    self.codec.name()
                )));
        }
        let typesize = self.typesize.unwrap_or(default_typesize);
        if !(1..=255).contains(&typesize) {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("typesize")
                .with_detail(format!("{typesize} is not between 1 and 255")));
        }
        if self.clevel > 9 {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("clevel")
                .with_detail(format!("{} is not between 0 and 9", self.clevel)));
        }
        if self.filters.len() > MAX_FILTERS {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("filters")
                .with_detail(format!(
                    "{} filters, at most {MAX_FILTERS}",
                    self.filters.len()
                )));
        }
        let nthreads = i16::try_from(self.nthreads)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| {
                Error::new(ErrorKind::InvalidParam)
                    .with_parameter("nthreads")
                    .with_detail(format!(
                        "{} is not between 1 and {}",
                        self.nthreads,
                        i16::MAX
                    ))
            })?;
        let blocksize = i32::try_from(self.blocksize).map_err(|_| {
            Error::new(ErrorKind::InvalidParam)
                .with_parameter("blocksize")
                .with_detail(format!("{} does not fit in 31 bits", self.blocksize))
        })?;
        let mut filters = [filter_id::NOFILTER; MAX_FILTERS];
        let mut filters_meta = [0u8; MAX_FILTERS];
        // Upstream's pipeline runs the slots in order; filters set here fill
        // the last slots, so one filter lands where C-Blosc2's default puts
        // its shuffle.
        let first = MAX_FILTERS - self.filters.len();
        for (i, f) in self.filters.iter().enumerate() {
            let (id, meta) = f.id_and_meta();
            filters[first + i] = id;
            filters_meta[first + i] = meta;
        }
        let (compcode, compcode_meta) = self.codec.id_and_meta();
        Ok(engine::CParams {
            compcode,
            compcode_meta,
            clevel: self.clevel,
            use_dict: self.use_dict,
            typesize: typesize as i32,
            nthreads,
            blocksize,
            splitmode: self.splitmode.into(),
            filters,
            filters_meta,
            instr_codec: false,
        })
    }

    /// The settings a chunk or frame was written with, where the engine's
    /// values have a Rust name (unknown codecs and filters are left out).
    pub(crate) fn from_engine(p: &engine::CParams) -> CParams {
        CParams {
            codec: Codec::from_id(p.compcode, p.compcode_meta).unwrap_or(Codec::BloscLz),
            clevel: p.clevel,
            typesize: usize::try_from(p.typesize).ok(),
            filters: p
                .filters
                .iter()
                .zip(p.filters_meta)
                .filter(|(&id, _)| id != filter_id::NOFILTER)
                .filter_map(|(&id, meta)| Filter::from_id(id, meta))
                .collect(),
            splitmode: match p.splitmode {
                engine::SplitMode::Always => SplitMode::Always,
                engine::SplitMode::Never => SplitMode::Never,
                engine::SplitMode::Auto => SplitMode::Auto,
                engine::SplitMode::ForwardCompat => SplitMode::ForwardCompat,
            },
            nthreads: p.nthreads.max(1) as usize,
            blocksize: p.blocksize.max(0) as usize,
            use_dict: p.use_dict,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_upstreams() {
        let e = CParams::new().to_engine(8).unwrap();
        assert_eq!(e, engine::CParams::default());
    }

    #[test]
    fn bad_values_name_the_parameter() {
        let e = CParams::new().with_clevel(10).to_engine(4).unwrap_err();
        assert_eq!(e.parameter(), Some("clevel"));
        assert_eq!(e.kind(), ErrorKind::InvalidParam);
        let e = CParams::new().to_engine(256).unwrap_err();
        assert_eq!(e.parameter(), Some("typesize"));
        let e = CParams::new().with_nthreads(0).to_engine(4).unwrap_err();
        assert_eq!(e.parameter(), Some("nthreads"));
    }

    #[test]
    fn array_codecs_and_filters_are_refused_outside_arrays() {
        let e = CParams::new()
            .with_codec(Codec::ZfpRate { percent: 50 })
            .to_engine(8)
            .unwrap_err();
        assert_eq!(e.parameter(), Some("codec"));
        assert!(e
            .to_string()
            .contains("zfp_rate compresses the blocks of a b2nd array"));
        let e = CParams::new()
            .with_filters(&[Filter::NdCell { cell: 4 }])
            .to_engine(8)
            .unwrap_err();
        assert_eq!(e.parameter(), Some("filters"));
    }

    #[test]
    fn zfp_refuses_filters_that_move_bytes() {
        let zfp = CParams::new().with_codec(Codec::ZfpPrecision { bits: 20 });
        let e = zfp.to_engine_any(8).unwrap_err();
        assert!(
            e.to_string().contains("Shuffle rearranges their bytes"),
            "{e}"
        );
        zfp.clone().with_filters(&[]).to_engine_any(8).unwrap();
        zfp.with_filters(&[Filter::NdCell { cell: 4 }])
            .to_engine_any(8)
            .unwrap();
    }

    #[test]
    fn ids_round_trip() {
        for c in [
            Codec::BloscLz,
            Codec::Lz4,
            Codec::Lz4Hc,
            Codec::Zlib,
            Codec::Zstd,
            Codec::NdLz4,
            Codec::NdLz8,
            Codec::ZfpAccuracy { exponent: -3 },
            Codec::ZfpPrecision { bits: 20 },
            Codec::ZfpRate { percent: 50 },
        ] {
            let (id, meta) = c.id_and_meta();
            assert_eq!(Codec::from_id(id, meta), Some(c));
            let p = CParams::new().with_codec(c).with_filters(&[]);
            assert_eq!(
                CParams::from_engine(&p.to_engine_any(4).unwrap()).codec(),
                c
            );
        }
        assert_eq!(Codec::ZfpAccuracy { exponent: -3 }.id_and_meta(), (33, 253));
        assert_eq!(Codec::NdLz8.id_and_meta(), (32, 8));
        assert_eq!(Codec::from_id(32, 5), None);
        for f in [
            Filter::ByteDelta,
            Filter::ByteDeltaBuggy,
            Filter::IntTrunc { bits: -4 },
            Filter::NdCell { cell: 4 },
            Filter::NdMean { cell: 2 },
        ] {
            let (id, meta) = f.id_and_meta();
            assert_eq!(Filter::from_id(id, meta), Some(f));
        }
        assert_eq!(Filter::NdMean { cell: 2 }.id_and_meta(), (33, 2));
        let p = CParams::new()
            .with_codec(Codec::Lz4)
            .with_filters(&[Filter::Delta, Filter::TruncPrec { bits: 10 }]);
        assert_eq!(
            CParams::from_engine(&p.to_engine(4).unwrap()).filters(),
            p.filters()
        );
    }
}
