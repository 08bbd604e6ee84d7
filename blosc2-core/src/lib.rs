//! # blosc2-core: C-Blosc2 in safe Rust
//!
//! Blosc2 compresses binary data, typed arrays above all, by cutting it
//! into blocks, rearranging the bytes of each block with filters (byte and
//! bit shuffle, delta, ...) and compressing it with a fast codec (BloscLZ,
//! LZ4, LZ4HC, zlib, Zstd), on several threads. This crate reads and writes
//! exactly the formats of C-Blosc2 2.x and 3.x: chunks, super-chunks in
//! contiguous frames (`.b2frame`) and sparse frames (directories), and b2nd
//! n-dimensional arrays, so files move freely between Rust, C and
//! python-blosc2. It holds no C symbols: it can live in one process with a
//! C `libblosc2`.
//!
//! ## Quick start
//!
//! ```
//! use blosc2_core::{CParams, Codec, Filter, NdArray, Schunk};
//!
//! // One chunk: compress a slice, get it back.
//! let data: Vec<f64> = (0..100_000).map(|i| (i as f64).sin()).collect();
//! let chunk = blosc2_core::compress(&data)?;
//! let back: Vec<f64> = blosc2_core::decompress(&chunk)?;
//! assert_eq!(back, data);
//!
//! // Settings: codec, level, filters, threads.
//! let params = CParams::new()
//!     .with_codec(Codec::Zstd)
//!     .with_clevel(9)
//!     .with_filters(&[Filter::BitShuffle])
//!     .with_nthreads(2);
//! let smaller = blosc2_core::compress_with(&data, &params)?;
//! assert!(smaller.len() < chunk.len());
//!
//! // Many chunks: a super-chunk (here in memory; `Schunk::create(path, ..)`
//! // writes a frame file). The item size comes from the first append (f64:
//! // 8 bytes) unless the settings give one.
//! let mut sc = Schunk::new(&params)?;
//! for piece in data.chunks(10_000) {
//!     sc.append(piece)?;
//! }
//! assert_eq!(sc.slice::<f64>(9_999..10_001)?, data[9_999..10_001]);
//!
//! // An n-dimensional array, read by boxes.
//! let a = NdArray::builder(&[100, 1000]).chunks(&[10, 1000]).blocks(&[5, 200]).from_slice(&data)?;
//! let row: Vec<f64> = a.slice(&[42..43, 0..1000])?;
//! assert_eq!(row, data[42_000..43_000]);
//! # Ok::<(), blosc2_core::Error>(())
//! ```
//!
//! ## What is where
//!
//! - [`compress`], [`decompress`] and their variants ([`compress_into`],
//!   [`decompress_into`] for the caller's buffers): one chunk.
//! - [`CParams`], with [`Codec`], [`Filter`] and [`SplitMode`]: settings;
//!   every built-in codec and filter, with its parameter as a typed field.
//! - [`Schunk`]: super-chunks in memory, frame files and sparse frames,
//!   with metalayers, [`Chunks`] iterators and `std::io` [`Reader`]
//!   (`Read + Seek`) and [`Writer`] adapters.
//! - [`Encoder`] and [`Decoder`]: a whole frame to any `Write`, from any
//!   `Read`.
//! - [`NdArray`]: b2nd arrays.
//! - [`Error`]: what failed ([`ErrorKind`], the C-Blosc2 error code), what
//!   was being done, why ([`Reason`]: chunk index and count, range and
//!   length, truncation, ...) and about what (file, parameter, offset, I/O
//!   error).
//!
//! ## Conventions
//!
//! - `u64` for what counts chunks, items and bytes of stored data, which
//!   can exceed this host's memory: chunk numbers and
//!   [`Schunk::nchunks`], item positions, [`Schunk::nbytes`], array shapes
//!   (`&[u64]`, for the builder and the getters alike).
//! - `usize` for lengths of buffers in memory: item sizes, a chunk's
//!   bytes, thread counts, block sizes.
//! - Item ranges are any [`RangeBounds<u64>`](std::ops::RangeBounds):
//!   `sc.slice::<f64>(10..20)`, `(..5)`, `(100..)`, `(..)`; array boxes
//!   take one per dimension.
//! - Settings are built with `with_*` calls and read back with getters of
//!   the bare name: `CParams::new().with_clevel(9).clevel() == 9`.
//!
//! Item types are [`bytemuck::Pod`] types (the primitives, or your own
//! `#[repr(C)]` structs); arrays also record a NumPy dtype ([`Element`]).
//!
//! ## The engine
//!
//! The modules below the typed API (`chunk`, `codecs`, `filters`, `frame`,
//! `schunk`, `b2nd`, `io`, ...) are public for `libblosc2-rs-sys`, the
//! crate that builds the C library on this one, and for the fuzzers. They
//! are hidden from these docs and follow the C API's shapes; their
//! interfaces may change in any release.
//!
//! ## Safety
//!
//! The core has no `unsafe` outside its SIMD kernels (runtime-detected,
//! each tested against a scalar fallback) and the thin wrappers of the C
//! codecs (lz4, zstd, and zlib-ng or the system zlib when chosen), which
//! keep their FFI private behind safe functions. `#![deny(unsafe_code)]`
//! holds it there: only those modules allow it. Every parser checks
//! lengths and offsets; damaged input gives an [`Error`], never a panic.

#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

// The LZ4 codecs are always there (as in upstream), so the C library comes
// from exactly one place.
#[cfg(all(feature = "bundled-lz4", feature = "system-lz4"))]
compile_error!(
    "features `bundled-lz4` and `system-lz4` are both on: choose one (with \
     `--no-default-features` to drop the default `bundled-lz4`)"
);
#[cfg(not(any(feature = "bundled-lz4", feature = "system-lz4")))]
compile_error!(
    "no lz4: enable feature `bundled-lz4` (the lz4 that lz4-sys builds) or \
     `system-lz4` (the host's liblz4)"
);

mod api;
pub mod error;

pub use api::bulk::{
    chunk_nbytes, compress, compress_bytes, compress_into, compress_with, decompress,
    decompress_bytes, decompress_into, max_compressed_len,
};
pub use api::element::Element;
pub use api::ndarray::{NdArray, NdArrayBuilder};
pub use api::params::{CParams, Codec, Filter, SplitMode};
pub use api::schunk::{Chunks, Reader, Schunk, Writer};
pub use api::stream::{Decoder, Encoder};
pub use bytemuck;
pub use error::{Error, ErrorKind, Reason};
pub use frame::checksum::Damage;
pub use schunk::{FrameCheck, VerifyReport};

/// The result of the typed API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

// The engine: what the typed API above, the C library (libblosc2-rs-sys),
// the `b2` tool and the fuzz targets are built on. It is public only with
// the `unstable` feature, which carries no semver promise: its items follow
// the C library's needs. Without it the modules are private, and the parts
// of them only those crates call have no caller here.
macro_rules! engine {
    ($($(#[$m:meta])* $name:ident),* $(,)?) => {$(
        $(#[$m])*
        #[cfg(feature = "unstable")]
        #[allow(missing_docs)]
        pub mod $name;
        $(#[$m])*
        #[cfg(not(feature = "unstable"))]
        #[allow(dead_code, unused_imports)]
        mod $name;
    )*};
}
engine!(chunk, codecs, filters, pool, registry, b2nd, frame, io, metalayers, schunk);
// (by hand: the crate names its `#[macro_export]` macros by path, which a
// module declared by a macro does not allow; without `unstable` they name
// `$crate::trace`, which is private, so nothing outside can use them)
mod spare;
#[cfg(feature = "unstable")]
#[allow(missing_docs)]
pub mod trace;
#[cfg(not(feature = "unstable"))]
#[allow(dead_code)]
mod trace;

/// Emulated test runs (`make test-cross`: qemu-user, some ten times slower)
/// set `BLOSC2RS_TEST_STRIDE=k`; the longest tests then take every k-th case
/// of their sweeps (the same cases on every CPU), or a k-th as many steps.
#[cfg(test)]
pub(crate) fn test_stride() -> usize {
    std::env::var("BLOSC2RS_TEST_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&k| k > 0)
        .unwrap_or(1)
}

// tests/*.rs are the engine's tests: built as unit tests of the crate
// (`autotests = false`) so that they reach the engine without `unstable`,
// and name it by the crate's name as the other crates do.
#[cfg(test)]
extern crate self as blosc2_core;
#[cfg(test)]
#[path = "../tests"]
mod engine_tests {
    mod blosclz_ref;
    mod chunk_roundtrip;
    mod cross_host;
    mod features;
    mod frame_like_reference;
    mod frame_malformed;
    mod fuzz_regressions;
}
