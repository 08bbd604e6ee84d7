//! What a build without some codecs or without the plugins does: what
//! upstream's C library built with DEACTIVATE_ZLIB, DEACTIVATE_ZSTD,
//! BUILD_LITE or BUILD_PLUGINS=OFF does. Compressing with a codec left out,
//! or decompressing a chunk that uses one, is `CodecSupport`; a plugin
//! filter left out is `FilterPipeline`. Each test runs only in the builds
//! where its case arises (`cargo test --no-default-features --features
//! bundled-lz4` runs them all).

// With every feature on, only the availability test runs, and the helpers
// of the left-out cases have no caller.
#![cfg_attr(
    all(
        feature = "zlib",
        feature = "zstd",
        feature = "plugins",
        feature = "zfp"
    ),
    allow(dead_code, unused_imports)
)]

use blosc2_core::chunk::header::{compformat, filter_id};
use blosc2_core::chunk::params::codec;
use blosc2_core::chunk::{CParams, Compressor, DParams, Decompressor};
use blosc2_core::codecs;
use blosc2_core::error::ErrorKind;

/// A noisy ramp: compressible, so every block goes through the codec.
fn data(n: usize) -> Vec<u8> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((i / 16) as u8).wrapping_add((x % 3) as u8)
        })
        .collect()
}

fn params(compcode: u8) -> CParams {
    CParams {
        compcode,
        typesize: 4,
        ..CParams::default()
    }
}

fn compress(cp: CParams, src: &[u8]) -> Result<Vec<u8>, ErrorKind> {
    let mut dest = vec![0u8; src.len() + 64];
    let n = Compressor::new(cp).compress(src, &mut dest)?;
    dest.truncate(n);
    Ok(dest)
}

fn decompress(chunk: &[u8], len: usize) -> Result<Vec<u8>, ErrorKind> {
    let mut out = vec![0u8; len];
    Decompressor::new(DParams::default()).decompress(chunk, &mut out)?;
    Ok(out)
}

/// A BloscLZ chunk whose header is made to say another format (and, for a
/// plugin codec, its id), as a chunk written by a full build would: the
/// decoder picks the codec from the header before reading any stream.
fn relabelled(format: u8, udcompcode: u8) -> (Vec<u8>, usize) {
    let src = data(64 * 1024);
    let mut chunk = compress(params(codec::BLOSCLZ), &src).unwrap();
    assert!(chunk.len() < src.len() / 2, "the codec ran");
    chunk[2] = (chunk[2] & 0x1f) | (format << 5);
    chunk[22] = udcompcode;
    (chunk, src.len())
}

#[test]
fn availability_follows_the_features() {
    assert!(codecs::is_builtin_available(codec::BLOSCLZ));
    assert!(codecs::is_builtin_available(codec::LZ4));
    assert!(codecs::is_builtin_available(codec::LZ4HC));
    assert_eq!(
        codecs::is_builtin_available(codec::ZLIB),
        cfg!(feature = "zlib")
    );
    assert_eq!(
        codecs::is_builtin_available(codec::ZSTD),
        cfg!(feature = "zstd")
    );
    assert_eq!(codecs::is_builtin_available(32), cfg!(feature = "plugins"));
    for id in 33..=35 {
        assert_eq!(
            codecs::is_builtin_available(id),
            cfg!(all(feature = "zfp", feature = "plugins"))
        );
    }
    // loadable by name, never built in
    assert!(!codecs::is_builtin_available(36));
    // the codecs that are there work
    let src = data(100_000);
    for id in (0..=255).filter(|&id| id < 32 && codecs::is_builtin_available(id)) {
        let chunk = compress(params(id), &src).unwrap();
        assert_eq!(decompress(&chunk, src.len()).unwrap(), src, "codec {id}");
    }
}

#[cfg(not(feature = "zstd"))]
#[test]
fn zstd_left_out() {
    let src = data(100_000);
    assert_eq!(
        compress(params(codec::ZSTD), &src),
        Err(ErrorKind::CodecSupport)
    );
    // the dictionary is trained by zstd: no trainer, no chunk either
    let with_dict = CParams {
        use_dict: true,
        ..params(codec::ZSTD)
    };
    assert_eq!(compress(with_dict, &src), Err(ErrorKind::CodecSupport));
    // LZ4 dictionaries need no training and still work
    let lz4_dict = CParams {
        use_dict: true,
        ..params(codec::LZ4)
    };
    let chunk = compress(lz4_dict, &src).unwrap();
    assert_eq!(decompress(&chunk, src.len()).unwrap(), src);
    let (chunk, len) = relabelled(compformat::ZSTD, 0);
    assert_eq!(decompress(&chunk, len), Err(ErrorKind::CodecSupport));
}

#[cfg(not(feature = "zlib"))]
#[test]
fn zlib_left_out() {
    let src = data(100_000);
    assert_eq!(
        compress(params(codec::ZLIB), &src),
        Err(ErrorKind::CodecSupport)
    );
    let (chunk, len) = relabelled(compformat::ZLIB, 0);
    assert_eq!(decompress(&chunk, len), Err(ErrorKind::CodecSupport));
}

/// Upstream copies buffers below its minimum size without running the
/// codec, so they compress whatever it is; so do they here.
#[cfg(any(not(feature = "zlib"), not(feature = "zstd")))]
#[test]
fn tiny_buffers_never_reach_the_codec() {
    let src = data(100);
    for id in [codec::ZLIB, codec::ZSTD] {
        let chunk = compress(params(id), &src).unwrap();
        assert_eq!(decompress(&chunk, src.len()).unwrap(), src, "codec {id}");
    }
}

#[cfg(not(feature = "plugins"))]
#[test]
fn plugins_left_out() {
    let src = data(100_000);
    for id in 32..=35 {
        assert_eq!(
            compress(params(id), &src),
            Err(ErrorKind::CodecSupport),
            "codec {id}"
        );
        let (chunk, len) = relabelled(compformat::UDCODEC, id);
        assert_eq!(
            decompress(&chunk, len),
            Err(ErrorKind::CodecSupport),
            "codec {id}"
        );
    }
    let plugin_filters = [
        32, // NDCELL
        33, // NDMEAN
        filter_id::BYTEDELTA_BUGGY,
        filter_id::BYTEDELTA,
        filter_id::INT_TRUNC,
    ];
    for f in plugin_filters {
        let cp = CParams {
            filters: [0, 0, 0, 0, filter_id::SHUFFLE, f],
            ..params(codec::LZ4)
        };
        assert_eq!(
            compress(cp, &src),
            Err(ErrorKind::FilterPipeline),
            "filter {f}"
        );
        // a chunk made with the filter by a full build
        let mut chunk = compress(params(codec::LZ4), &src).unwrap();
        chunk[16 + 4] = f;
        assert_eq!(
            decompress(&chunk, src.len()),
            Err(ErrorKind::FilterPipeline),
            "filter {f}"
        );
    }
}

#[cfg(all(feature = "plugins", not(feature = "zfp")))]
#[test]
fn zfp_left_out() {
    let src = data(100_000);
    for id in 33..=35 {
        assert_eq!(
            compress(params(id), &src),
            Err(ErrorKind::CodecSupport),
            "codec {id}"
        );
    }
}
