//! Compression codecs behind the blosc2 block pipeline.
//!
//! Which ones are there depends on the crate's features, as upstream's
//! depend on its CMake options: BloscLZ, LZ4 and LZ4HC always; zlib and zstd
//! unless left out (DEACTIVATE_ZLIB/ZSTD, BUILD_LITE); the plugin codecs
//! (NDLZ, and ZFP when it is also built) only with `plugins`. A codec left
//! out is absent from the names the C layer reports, and compressing with it
//! or decompressing a chunk that uses it is `ErrorKind::CodecSupport`.

pub mod blosclz;
pub mod lz4;
pub mod lz4hc;
pub mod ndlz;
#[cfg(feature = "zfp")]
pub mod zfp;
#[cfg(feature = "zlib")]
pub mod zlib;
#[cfg(feature = "zstd")]
pub mod zstd;

/// Whether the zlib codec (`BLOSC_ZLIB`) is compiled in.
pub const HAVE_ZLIB: bool = cfg!(feature = "zlib");
/// Whether the zstd codec (`BLOSC_ZSTD`) and dictionary training are
/// compiled in.
pub const HAVE_ZSTD: bool = cfg!(feature = "zstd");
/// Whether the built-in plugins (codecs NDLZ and ZFP, filters NDCELL,
/// NDMEAN, BYTEDELTA, BYTEDELTA_BUGGY, INT_TRUNC) are registered, as
/// upstream's are only when it is built with BUILD_PLUGINS.
pub const HAVE_PLUGINS: bool = cfg!(feature = "plugins");
/// Whether the ZFP codecs (ids 33-35) are there: upstream builds them only
/// as plugins, so this needs both `zfp` and `plugins`.
pub const HAVE_ZFP: bool = cfg!(all(feature = "zfp", feature = "plugins"));

/// Whether a compcode below 160 names a codec this build has: the five
/// built-in ones minus those left out, and the built-in plugin codecs when
/// they are registered. User ids (160 and up) are the registry's business.
pub fn is_builtin_available(compcode: u8) -> bool {
    use crate::chunk::params::codec;
    match compcode {
        codec::BLOSCLZ | codec::LZ4 | codec::LZ4HC => true,
        codec::ZLIB => HAVE_ZLIB,
        codec::ZSTD => HAVE_ZSTD,
        ndlz::ID => HAVE_PLUGINS,
        33..=35 => HAVE_ZFP,
        _ => false,
    }
}

/// zstd's dictionary trainer (see `zstd::train_dict`). Without zstd there is
/// none: `Err(ErrorKind::CodecSupport)`, and the chunk code then compresses
/// without a dictionary, as upstream built without zstd does (for zstd
/// itself that compression fails with `CodecSupport`).
pub(crate) fn train_dict(
    samples: &[u8],
    sample_sizes: &[usize],
    max_dict_size: usize,
) -> crate::error::Result<Vec<u8>> {
    #[cfg(feature = "zstd")]
    {
        zstd::train_dict(samples, sample_sizes, max_dict_size)
    }
    #[cfg(not(feature = "zstd"))]
    {
        let _ = (samples, sample_sizes, max_dict_size);
        Err(crate::error::ErrorKind::CodecSupport)
    }
}
