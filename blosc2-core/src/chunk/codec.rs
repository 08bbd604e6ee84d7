//! Dispatch of one data stream to its codec, built-in or registered.

use super::header::compformat;
use super::params::codec;
#[cfg(feature = "plugins")]
use crate::codecs::ndlz;
#[cfg(all(feature = "zfp", feature = "plugins"))]
use crate::codecs::zfp;
#[cfg(feature = "zlib")]
use crate::codecs::zlib;
#[cfg(feature = "zstd")]
use crate::codecs::zstd;
use crate::codecs::{blosclz, lz4, lz4hc};
use crate::error::{ErrorKind, Result};
use crate::registry::{self, PluginContext};

/// Compressing with a built-in codec this build left out: upstream's error
/// and trace line when built with DEACTIVATE_ZLIB/ZSTD (or BUILD_LITE).
#[cfg(any(not(feature = "zlib"), not(feature = "zstd")))]
fn not_compiled_in(compname: &str) -> ErrorKind {
    crate::traced!(
        ErrorKind::CodecSupport,
        "Blosc has not been compiled with '{compname}' compression support. \
         Please use one having it."
    )
}

/// Decompressing a stream of a built-in format this build left out.
#[cfg(any(not(feature = "zlib"), not(feature = "zstd")))]
fn no_decompression_support(libname: &str) -> ErrorKind {
    crate::traced!(
        ErrorKind::CodecSupport,
        "Blosc has not been compiled with decompression support for '{libname}' \
         format. Please recompile for adding this support."
    )
}

/// Compress one stream. Ok(0) means "did not fit in `output`".
pub(crate) fn compress_stream(
    compcode: u8,
    clevel: u8,
    meta: u8,
    dict: Option<&[u8]>,
    input: &[u8],
    output: &mut [u8],
    plugin_ctx: &PluginContext,
) -> Result<usize> {
    match (compcode, dict) {
        (codec::BLOSCLZ, _) => Ok(blosclz::compress(clevel, input, output)),
        (codec::LZ4, None) => lz4::compress(clevel, input, output),
        (codec::LZ4, Some(d)) => lz4::compress_with_dict(clevel, d, input, output),
        (codec::LZ4HC, None) => lz4hc::compress(clevel, input, output),
        (codec::LZ4HC, Some(d)) => lz4hc::compress_with_dict(clevel, d, input, output),
        #[cfg(feature = "zlib")]
        (codec::ZLIB, _) => zlib::compress(clevel, input, output),
        #[cfg(not(feature = "zlib"))]
        (codec::ZLIB, _) => Err(not_compiled_in("zlib")),
        #[cfg(feature = "zstd")]
        (codec::ZSTD, None) => zstd::compress(clevel, input, output),
        // Upstream digests the dictionary at zstd level 1 whatever the clevel,
        // and blosc clevel 1 maps to zstd level 1.
        #[cfg(feature = "zstd")]
        (codec::ZSTD, Some(d)) => zstd::compress_with_dict(1, d, input, output),
        #[cfg(not(feature = "zstd"))]
        (codec::ZSTD, _) => Err(not_compiled_in("zstd")),
        // built-in plugins: upstream registers them at start-up when built
        // with them; without, their ids are unknown like any unregistered one
        #[cfg(feature = "plugins")]
        (ndlz::ID, _) => ndlz::encode(meta, input, output, plugin_ctx),
        #[cfg(all(feature = "zfp", feature = "plugins"))]
        (zfp::FIRST_ID..=zfp::LAST_ID, _) => zfp::encode(compcode, meta, input, output, plugin_ctx),
        (id, _) => {
            let entry = registry::find_codec(id).ok_or_else(|| {
                crate::traced!(
                    ErrorKind::CodecSupport,
                    "User-defined compressor codec {id} not found during compression"
                )
            })?;
            if !entry.imp.ready() {
                return Err(ErrorKind::CodecSupport);
            }
            let rc = entry.imp.encode(input, output, meta, plugin_ctx);
            // upstream's order of checks: an overrun first, then any
            // negative size is a data error whatever code the plugin gave
            if rc > 0 && rc as usize > output.len() {
                return Err(ErrorKind::WriteBuffer);
            }
            if rc < 0 {
                return Err(ErrorKind::Data);
            }
            Ok(rc as usize)
        }
    }
}

/// Decompress one stream into exactly `output.len()` bytes.
pub(crate) fn decompress_stream(
    format: u8,
    compcode: u8,
    meta: u8,
    dict: Option<&[u8]>,
    input: &[u8],
    output: &mut [u8],
    plugin_ctx: &PluginContext,
) -> Result<usize> {
    let n = match (format, dict) {
        (compformat::BLOSCLZ, _) => blosclz::decompress(input, output)?,
        (compformat::LZ4, None) => lz4::decompress(input, output)?,
        (compformat::LZ4, Some(d)) => lz4::decompress_with_dict(d, input, output)?,
        #[cfg(feature = "zlib")]
        (compformat::ZLIB, _) => zlib::decompress(input, output)?,
        #[cfg(not(feature = "zlib"))]
        (compformat::ZLIB, _) => return Err(no_decompression_support("Zlib")),
        #[cfg(feature = "zstd")]
        (compformat::ZSTD, None) => zstd::decompress(input, output)?,
        #[cfg(feature = "zstd")]
        (compformat::ZSTD, Some(d)) => zstd::decompress_with_dict(d, input, output)?,
        #[cfg(not(feature = "zstd"))]
        (compformat::ZSTD, _) => return Err(no_decompression_support("Zstd")),
        #[cfg(feature = "plugins")]
        (compformat::UDCODEC, _) if compcode == ndlz::ID => ndlz::decompress(meta, input, output)?,
        #[cfg(all(feature = "zfp", feature = "plugins"))]
        (compformat::UDCODEC, _) if (zfp::FIRST_ID..=zfp::LAST_ID).contains(&compcode) => {
            zfp::decode(compcode, meta, input, output, plugin_ctx)?
        }
        (compformat::UDCODEC, _) => {
            let entry = registry::find_codec(compcode).ok_or_else(|| {
                crate::traced!(
                    ErrorKind::CodecSupport,
                    "User-defined compressor codec {compcode} not found during decompression"
                )
            })?;
            if !entry.imp.ready() {
                return Err(ErrorKind::CodecSupport);
            }
            let rc = entry.imp.decode(input, output, meta, plugin_ctx);
            // upstream only checks that the block came out whole: a failing
            // decoder is a data error, whatever code it gave
            if rc < 0 {
                return Err(ErrorKind::Data);
            }
            rc as usize
        }
        _ => return Err(ErrorKind::CodecSupport),
    };
    if n != output.len() {
        return Err(ErrorKind::Data);
    }
    Ok(n)
}

/// The format number stored in the flags for a codec id.
pub(crate) fn compformat_of(compcode: u8) -> u8 {
    match compcode {
        codec::BLOSCLZ => compformat::BLOSCLZ,
        codec::LZ4 | codec::LZ4HC => compformat::LZ4,
        codec::ZLIB => compformat::ZLIB,
        codec::ZSTD => compformat::ZSTD,
        _ => compformat::UDCODEC,
    }
}

/// The `versionlz` byte for a codec id.
pub(crate) fn compversion_of(compcode: u8) -> u8 {
    match compcode {
        codec::BLOSCLZ | codec::LZ4 | codec::LZ4HC | codec::ZLIB | codec::ZSTD => 1,
        id => registry::find_codec(id).map(|c| c.version).unwrap_or(1),
    }
}
