//! Zstandard codec (`BLOSC_ZSTD`): one zstd frame per block or split stream,
//! plus dictionary compression and training. Built on `zstd-sys` (zstd
//! 1.5.7, the version the reference bundles), so streams and trained
//! dictionaries are byte-identical to the reference's.
//!
//! All FFI lives in the private `ffi` module; the public API is safe:
//! [`ZstdCompressor`]/[`ZstdDecompressor`] own reusable contexts (keep one per
//! worker thread), [`ZstdCDict`]/[`ZstdDDict`] are prepared dictionaries that
//! can be shared between threads, and the free functions use per-thread
//! cached contexts.
//!
//! Return convention: compress gives `Ok(n > 0)`, or `Ok(0)` when the frame
//! does not fit in `output`; decompress gives the decoded length, or
//! `Err(ErrorKind::Data)` for anything zstd rejects (including a frame larger
//! than `output`).

// One of the places lib.rs allows `unsafe`: the C zstd library through zstd-sys.
#![allow(unsafe_code)]

// FFI is confined to the private `ffi` module; every unsafe block says why it holds.
#![deny(clippy::undocumented_unsafe_blocks)]

use crate::error::{ErrorKind, Result};
use std::cell::RefCell;

/// Library name reported by `blosc2_get_complib_info` for zstd.
pub const COMPLIB_NAME: &str = "Zstd";

/// zstd level used for dictionary compression, whatever the Blosc clevel:
/// the reference always digests its dictionaries at level 1.
pub const DICT_LEVEL: i32 = 1;

/// Version of the linked zstd library as `"major.minor.release"`.
pub fn complib_version() -> String {
    let v = ffi::version_number();
    format!("{}.{}.{}", v / 10_000, (v / 100) % 100, v % 100)
}

/// zstd level for a Blosc `clevel`: `2*clevel - 1` below 9 (1, 3, .., 15)
/// and the maximum level (22) from 9 on. (The reference also has a special
/// case meant for clevel 8, but it tests the already mapped level, which is
/// never 8, so it has no effect; neither does it here.)
pub fn zstd_level(clevel: u8) -> i32 {
    if clevel < 9 {
        2 * i32::from(clevel) - 1
    } else {
        ffi::max_level()
    }
}

/// Compresses `input` as one zstd frame at the level mapped from `clevel`.
pub fn compress(clevel: u8, input: &[u8], output: &mut [u8]) -> Result<usize> {
    with_cctx(|c| c.compress(clevel, input, output))
}

/// Compresses `input` as one zstd frame using `dict` (raw or trained).
///
/// `clevel` is accepted for symmetry with [`compress`] but, as in the
/// reference, the dictionary is digested at [`DICT_LEVEL`] and that level is
/// what compresses. The digested dictionary of the last call is cached per
/// thread; callers with many blocks should rather build one [`ZstdCDict`].
pub fn compress_with_dict(
    clevel: u8,
    dict: &[u8],
    input: &[u8],
    output: &mut [u8],
) -> Result<usize> {
    let _ = clevel;
    thread_local! {
        static LAST: RefCell<Option<(Vec<u8>, ZstdCDict)>> = const { RefCell::new(None) };
    }
    LAST.with(|cell| {
        let mut slot = cell.try_borrow_mut().map_err(|_| ErrorKind::Failure)?;
        if !matches!(&*slot, Some((bytes, _)) if bytes.as_slice() == dict) {
            *slot = None;
            *slot = Some((dict.to_vec(), ZstdCDict::new(dict)?));
        }
        match slot.as_ref() {
            Some((_, cdict)) => with_cctx(|c| c.compress_with_dict(cdict, input, output)),
            None => Err(ErrorKind::CodecDict),
        }
    })
}

/// Decodes one zstd frame into `output`, returning the decoded length.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize> {
    with_dctx(|d| d.decompress(input, output))
}

/// Decodes one zstd frame made with `dict`. Caches the digested dictionary
/// of the last call per thread, like [`compress_with_dict`].
pub fn decompress_with_dict(dict: &[u8], input: &[u8], output: &mut [u8]) -> Result<usize> {
    thread_local! {
        static LAST: RefCell<Option<(Vec<u8>, ZstdDDict)>> = const { RefCell::new(None) };
    }
    LAST.with(|cell| {
        let mut slot = cell.try_borrow_mut().map_err(|_| ErrorKind::Failure)?;
        if !matches!(&*slot, Some((bytes, _)) if bytes.as_slice() == dict) {
            *slot = None;
            *slot = Some((dict.to_vec(), ZstdDDict::new(dict)?));
        }
        match slot.as_ref() {
            Some((_, ddict)) => with_dctx(|d| d.decompress_with_dict(ddict, input, output)),
            None => Err(ErrorKind::CodecDict),
        }
    })
}

/// Trains a dictionary of at most `max_dict_size` bytes with zstd's
/// `ZDICT_trainFromBuffer` (default fastCover parameters, as the reference).
/// `samples` holds the samples back to back, `sample_sizes` their lengths.
///
/// `Err(ErrorKind::InvalidParam)` if the sizes overrun `samples`;
/// `Err(ErrorKind::CodecDict)` if zstd cannot train (e.g. too few or too small
/// samples: the reference then falls back to compressing without a dict).
pub fn train_dict(samples: &[u8], sample_sizes: &[usize], max_dict_size: usize) -> Result<Vec<u8>> {
    let total = sample_sizes
        .iter()
        .try_fold(0usize, |acc, &s| acc.checked_add(s))
        .ok_or(ErrorKind::InvalidParam)?;
    if total > samples.len() || u32::try_from(sample_sizes.len()).is_err() {
        return Err(ErrorKind::InvalidParam);
    }
    let mut dict = vec![0u8; max_dict_size];
    let n = ffi::train_from_buffer(&mut dict, &samples[..total], sample_sizes)
        .ok_or(ErrorKind::CodecDict)?;
    dict.truncate(n);
    Ok(dict)
}

fn with_cctx(f: impl FnOnce(&mut ZstdCompressor) -> Result<usize>) -> Result<usize> {
    thread_local! {
        static CTX: RefCell<Option<ZstdCompressor>> = const { RefCell::new(None) };
    }
    CTX.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.is_none() {
                *slot = Some(ZstdCompressor::new()?);
            }
            match slot.as_mut() {
                Some(ctx) => f(ctx),
                None => Err(ErrorKind::MemoryAlloc),
            }
        }
        Err(_) => f(&mut ZstdCompressor::new()?),
    })
}

fn with_dctx(f: impl FnOnce(&mut ZstdDecompressor) -> Result<usize>) -> Result<usize> {
    thread_local! {
        static CTX: RefCell<Option<ZstdDecompressor>> = const { RefCell::new(None) };
    }
    CTX.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.is_none() {
                *slot = Some(ZstdDecompressor::new()?);
            }
            match slot.as_mut() {
                Some(ctx) => f(ctx),
                None => Err(ErrorKind::MemoryAlloc),
            }
        }
        Err(_) => f(&mut ZstdDecompressor::new()?),
    })
}

/// How a zstd compression result maps onto the codec convention.
fn compress_result(code: usize) -> Result<usize> {
    match ffi::error_of(code) {
        None => Ok(code),
        Some(ffi::ZstdError::DstSizeTooSmall) => Ok(0),
        Some(ffi::ZstdError::MemoryAllocation) => Err(ErrorKind::MemoryAlloc),
        Some(_) => Err(ErrorKind::Failure),
    }
}

fn decompress_result(code: usize) -> Result<usize> {
    match ffi::error_of(code) {
        None => Ok(code),
        Some(ffi::ZstdError::MemoryAllocation) => Err(ErrorKind::MemoryAlloc),
        Some(_) => Err(ErrorKind::Data),
    }
}

/// A reusable zstd compression context (`ZSTD_CCtx`).
pub struct ZstdCompressor {
    cctx: ffi::CCtx,
}

impl ZstdCompressor {
    /// Allocates a context.
    pub fn new() -> Result<Self> {
        Ok(ZstdCompressor {
            cctx: ffi::CCtx::new().ok_or(ErrorKind::MemoryAlloc)?,
        })
    }

    /// Compresses `input` as one frame at the level mapped from `clevel`
    /// (see [`zstd_level`]).
    pub fn compress(&mut self, clevel: u8, input: &[u8], output: &mut [u8]) -> Result<usize> {
        compress_result(self.cctx.compress(output, input, zstd_level(clevel)))
    }

    /// Compresses `input` as one frame with a prepared dictionary; the level
    /// is the one the dictionary was digested at.
    pub fn compress_with_dict(
        &mut self,
        dict: &ZstdCDict,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize> {
        compress_result(self.cctx.compress_using_cdict(output, input, &dict.cdict))
    }
}

/// A reusable zstd decompression context (`ZSTD_DCtx`).
pub struct ZstdDecompressor {
    dctx: ffi::DCtx,
}

impl ZstdDecompressor {
    /// Allocates a context.
    pub fn new() -> Result<Self> {
        Ok(ZstdDecompressor {
            dctx: ffi::DCtx::new().ok_or(ErrorKind::MemoryAlloc)?,
        })
    }

    /// Decodes one frame (or several concatenated ones) into `output`.
    /// Empty input is an error: zstd would accept it as zero frames.
    pub fn decompress(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        if input.is_empty() {
            return Err(ErrorKind::Data);
        }
        decompress_result(self.dctx.decompress(output, input))
    }

    /// Decodes frames made with the dictionary `dict` was prepared from.
    pub fn decompress_with_dict(
        &mut self,
        dict: &ZstdDDict,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize> {
        if input.is_empty() {
            return Err(ErrorKind::Data);
        }
        decompress_result(self.dctx.decompress_using_ddict(output, input, &dict.ddict))
    }
}

/// A dictionary digested for compression (`ZSTD_CDict`). Immutable once
/// built, so one can serve all worker threads of a chunk.
pub struct ZstdCDict {
    cdict: ffi::CDict,
}

impl ZstdCDict {
    /// Digests `dict` at [`DICT_LEVEL`], as the reference does. The bytes
    /// are copied; `dict` need not outlive the result.
    pub fn new(dict: &[u8]) -> Result<Self> {
        Self::with_level(dict, DICT_LEVEL)
    }

    /// Digests `dict` for compressing at zstd level `level`.
    pub fn with_level(dict: &[u8], level: i32) -> Result<Self> {
        Ok(ZstdCDict {
            cdict: ffi::CDict::new(dict, level).ok_or(ErrorKind::CodecDict)?,
        })
    }
}

/// A dictionary digested for decompression (`ZSTD_DDict`); shareable
/// between threads.
pub struct ZstdDDict {
    ddict: ffi::DDict,
}

impl ZstdDDict {
    /// Digests `dict` (copied). Raw-content dictionaries are accepted too.
    pub fn new(dict: &[u8]) -> Result<Self> {
        Ok(ZstdDDict {
            ddict: ffi::DDict::new(dict).ok_or(ErrorKind::CodecDict)?,
        })
    }
}

/// Thin owners of zstd objects and the calls on them. Every function takes
/// slices, so each pointer/length pair handed to zstd describes a live buffer
/// of exactly that size; zstd never reads or writes beyond the sizes it is
/// given and reports every failure through its return value.
mod ffi {
    use std::ptr::NonNull;
    use zstd_sys as z;

    /// The zstd errors the wrappers tell apart.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum ZstdError {
        DstSizeTooSmall,
        MemoryAllocation,
        Other,
    }

    pub(super) fn version_number() -> u32 {
        // SAFETY: no arguments, returns a constant.
        unsafe { z::ZSTD_versionNumber() }
    }

    pub(super) fn max_level() -> i32 {
        // SAFETY: no arguments, returns a constant.
        unsafe { z::ZSTD_maxCLevel() }
    }

    /// Decodes a zstd `size_t` result. zstd encodes errors as `-(code)`; we
    /// compare the numbers rather than reading them back as the bindgen
    /// enum, which would be undefined for a value the enum lacks.
    pub(super) fn error_of(code: usize) -> Option<ZstdError> {
        // SAFETY: pure function of its integer argument.
        if unsafe { z::ZSTD_isError(code) } == 0 {
            return None;
        }
        let raw = code.wrapping_neg();
        Some(
            if raw == z::ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall as usize {
                ZstdError::DstSizeTooSmall
            } else if raw == z::ZSTD_ErrorCode::ZSTD_error_memory_allocation as usize {
                ZstdError::MemoryAllocation
            } else {
                ZstdError::Other
            },
        )
    }

    /// Returns the dictionary size, or `None` if training failed.
    /// `samples.len()` equals the sum of `sizes` (checked by the caller),
    /// which is what zstd assumes, and `sizes.len()` fits in a `u32`.
    pub(super) fn train_from_buffer(
        dict: &mut [u8],
        samples: &[u8],
        sizes: &[usize],
    ) -> Option<usize> {
        // SAFETY: dict is writable for dict.len() bytes; samples readable for
        // the sum of `sizes` bytes; sizes readable for nb_samples entries.
        let n = unsafe {
            z::ZDICT_trainFromBuffer(
                dict.as_mut_ptr().cast(),
                dict.len(),
                samples.as_ptr().cast(),
                sizes.as_ptr(),
                sizes.len() as u32,
            )
        };
        // SAFETY: pure function of its integer argument.
        if unsafe { z::ZDICT_isError(n) } != 0 || n > dict.len() {
            None
        } else {
            Some(n)
        }
    }

    /// Owned `ZSTD_CCtx`.
    pub(super) struct CCtx(NonNull<z::ZSTD_CCtx>);

    // SAFETY: a context is heap state used by one thread at a time (enforced
    // by `&mut self`); zstd allows moving it between threads.
    unsafe impl Send for CCtx {}

    impl CCtx {
        pub(super) fn new() -> Option<Self> {
            // SAFETY: allocates a context or returns NULL.
            NonNull::new(unsafe { z::ZSTD_createCCtx() }).map(CCtx)
        }

        pub(super) fn compress(&mut self, dst: &mut [u8], src: &[u8], level: i32) -> usize {
            // SAFETY: live, exclusively borrowed context; buffers valid for
            // the given lengths.
            unsafe {
                z::ZSTD_compressCCtx(
                    self.0.as_ptr(),
                    dst.as_mut_ptr().cast(),
                    dst.len(),
                    src.as_ptr().cast(),
                    src.len(),
                    level,
                )
            }
        }

        pub(super) fn compress_using_cdict(
            &mut self,
            dst: &mut [u8],
            src: &[u8],
            cdict: &CDict,
        ) -> usize {
            // SAFETY: as `compress`; the CDict is live for the call and only
            // read.
            unsafe {
                z::ZSTD_compress_usingCDict(
                    self.0.as_ptr(),
                    dst.as_mut_ptr().cast(),
                    dst.len(),
                    src.as_ptr().cast(),
                    src.len(),
                    cdict.0.as_ptr(),
                )
            }
        }
    }

    impl Drop for CCtx {
        fn drop(&mut self) {
            // SAFETY: pointer from ZSTD_createCCtx, freed exactly once.
            unsafe { z::ZSTD_freeCCtx(self.0.as_ptr()) };
        }
    }

    /// Owned `ZSTD_DCtx`.
    pub(super) struct DCtx(NonNull<z::ZSTD_DCtx>);

    // SAFETY: as for CCtx.
    unsafe impl Send for DCtx {}

    impl DCtx {
        pub(super) fn new() -> Option<Self> {
            // SAFETY: allocates a context or returns NULL.
            NonNull::new(unsafe { z::ZSTD_createDCtx() }).map(DCtx)
        }

        pub(super) fn decompress(&mut self, dst: &mut [u8], src: &[u8]) -> usize {
            // SAFETY: live, exclusively borrowed context; buffers valid for
            // the given lengths; zstd validates the (untrusted) input.
            unsafe {
                z::ZSTD_decompressDCtx(
                    self.0.as_ptr(),
                    dst.as_mut_ptr().cast(),
                    dst.len(),
                    src.as_ptr().cast(),
                    src.len(),
                )
            }
        }

        pub(super) fn decompress_using_ddict(
            &mut self,
            dst: &mut [u8],
            src: &[u8],
            ddict: &DDict,
        ) -> usize {
            // SAFETY: as `decompress`; the DDict is live and only read.
            unsafe {
                z::ZSTD_decompress_usingDDict(
                    self.0.as_ptr(),
                    dst.as_mut_ptr().cast(),
                    dst.len(),
                    src.as_ptr().cast(),
                    src.len(),
                    ddict.0.as_ptr(),
                )
            }
        }
    }

    impl Drop for DCtx {
        fn drop(&mut self) {
            // SAFETY: pointer from ZSTD_createDCtx, freed exactly once.
            unsafe { z::ZSTD_freeDCtx(self.0.as_ptr()) };
        }
    }

    /// Owned `ZSTD_CDict`.
    pub(super) struct CDict(NonNull<z::ZSTD_CDict>);

    // SAFETY: zstd documents digested dictionaries as read-only after
    // creation, usable by several threads at once.
    unsafe impl Send for CDict {}
    // SAFETY: as above.
    unsafe impl Sync for CDict {}

    impl CDict {
        pub(super) fn new(dict: &[u8], level: i32) -> Option<Self> {
            // SAFETY: dict readable for its length; zstd copies it.
            NonNull::new(unsafe { z::ZSTD_createCDict(dict.as_ptr().cast(), dict.len(), level) })
                .map(CDict)
        }
    }

    impl Drop for CDict {
        fn drop(&mut self) {
            // SAFETY: pointer from ZSTD_createCDict, freed exactly once.
            unsafe { z::ZSTD_freeCDict(self.0.as_ptr()) };
        }
    }

    /// Owned `ZSTD_DDict`.
    pub(super) struct DDict(NonNull<z::ZSTD_DDict>);

    // SAFETY: as for CDict.
    unsafe impl Send for DDict {}
    // SAFETY: as for CDict.
    unsafe impl Sync for DDict {}

    impl DDict {
        pub(super) fn new(dict: &[u8]) -> Option<Self> {
            // SAFETY: dict readable for its length; zstd copies it.
            NonNull::new(unsafe { z::ZSTD_createDDict(dict.as_ptr().cast(), dict.len()) })
                .map(DDict)
        }
    }

    impl Drop for DDict {
        fn drop(&mut self) {
            // SAFETY: pointer from ZSTD_createDDict, freed exactly once.
            unsafe { z::ZSTD_freeDDict(self.0.as_ptr()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize, seed: u32) -> Vec<u8> {
        let mut state = seed;
        (0..n)
            .map(|i| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                if (state >> 28) == 0 {
                    (state >> 20) as u8
                } else {
                    (i as u32 / 64 + (i as u32 % 16)) as u8
                }
            })
            .collect()
    }

    #[test]
    fn level_mapping() {
        let got: Vec<i32> = (0..=10).map(zstd_level).collect();
        assert_eq!(got, [-1, 1, 3, 5, 7, 9, 11, 13, 15, 22, 22]);
    }

    #[test]
    fn version() {
        assert_eq!(complib_version(), "1.5.7");
    }

    #[test]
    fn same_streams_and_dict_as_reference() {
        let input = super::super::lz4::golden_input();
        let expected: [(usize, u32); 9] = [
            (4459, 0xa224_3be8),
            (4415, 0x23c0_1f69),
            (4383, 0xbba2_33f8),
            (4386, 0xfcc4_23af),
            (4376, 0x829e_78bd),
            (4378, 0x27af_a6fb),
            (4359, 0xd579_4c79),
            (4348, 0x6b52_c43e),
            (4344, 0x44a1_f5af),
        ];
        for (clevel, &(size, crc)) in (1..=9).zip(expected.iter()) {
            let mut c = vec![0u8; input.len()];
            let n = compress(clevel, &input, &mut c).unwrap();
            assert_eq!(
                (n, zlib_rs::crc32(0, &c[..n])),
                (size, crc),
                "clevel {clevel}"
            );
        }
        let dict = train_dict(&input, &[1024; 16], 2048).unwrap();
        assert_eq!((dict.len(), zlib_rs::crc32(0, &dict)), (2048, 0xc61d_6560));
    }

    #[test]
    fn round_trip_all_levels() {
        let input = sample(40_000, 1);
        for clevel in 1..=9 {
            let mut c = vec![0u8; input.len()];
            let n = compress(clevel, &input, &mut c).unwrap();
            assert!(n > 0 && n < input.len());
            let mut d = vec![0u8; input.len()];
            assert_eq!(decompress(&c[..n], &mut d).unwrap(), input.len());
            assert_eq!(d, input);
        }
    }

    #[test]
    fn round_trip_dict_and_training() {
        let samples: Vec<u8> = (0..64).flat_map(|s| sample(1_000, s)).collect();
        let sizes = vec![1_000usize; 64];
        let dict = train_dict(&samples, &sizes, 4_096).unwrap();
        assert!(!dict.is_empty() && dict.len() <= 4_096);
        let input = sample(1_000, 77);
        let mut c = vec![0u8; input.len()];
        let n = compress_with_dict(5, &dict, &input, &mut c).unwrap();
        assert!(n > 0);
        let mut d = vec![0u8; input.len()];
        assert_eq!(
            decompress_with_dict(&dict, &c[..n], &mut d).unwrap(),
            input.len()
        );
        assert_eq!(d, input);
        // Without the dictionary the frame cannot be decoded.
        assert!(decompress(&c[..n], &mut d).is_err());
        // Prepared objects give the same bytes as the cached free functions.
        let cdict = ZstdCDict::new(&dict).unwrap();
        let ddict = ZstdDDict::new(&dict).unwrap();
        let mut cx = ZstdCompressor::new().unwrap();
        let mut dx = ZstdDecompressor::new().unwrap();
        let mut c2 = vec![0u8; input.len()];
        assert_eq!(cx.compress_with_dict(&cdict, &input, &mut c2).unwrap(), n);
        assert_eq!(c2[..n], c[..n]);
        assert_eq!(
            dx.decompress_with_dict(&ddict, &c2[..n], &mut d).unwrap(),
            input.len()
        );
        // A raw-content dictionary works as well.
        let raw_dict = sample(2_000, 5);
        let n = compress_with_dict(3, &raw_dict, &input, &mut c).unwrap();
        assert_eq!(
            decompress_with_dict(&raw_dict, &c[..n], &mut d).unwrap(),
            input.len()
        );
        assert_eq!(d, input);
    }

    #[test]
    fn train_dict_errors() {
        assert_eq!(
            train_dict(&[0u8; 10], &[6, 6], 1024),
            Err(ErrorKind::InvalidParam)
        );
        assert_eq!(
            train_dict(&[0u8; 10], &[usize::MAX, 2], 1024),
            Err(ErrorKind::InvalidParam)
        );
        assert_eq!(
            train_dict(&[1u8; 16], &[8, 8], 1024),
            Err(ErrorKind::CodecDict)
        );
    }

    #[test]
    fn output_too_small_is_zero() {
        let input = sample(10_000, 2);
        for cap in [0, 1, 8, 100] {
            assert_eq!(
                compress(5, &input, &mut vec![0u8; cap]).unwrap(),
                0,
                "cap {cap}"
            );
        }
        let dict = sample(1_000, 3);
        assert_eq!(
            compress_with_dict(5, &dict, &input, &mut [0u8; 8]).unwrap(),
            0
        );
        let noise: Vec<u8> = (0..4096u32)
            .scan(0x9e37_79b9u32, |x, _| {
                *x ^= *x << 13;
                *x ^= *x >> 17;
                *x ^= *x << 5;
                Some((*x >> 11) as u8)
            })
            .collect();
        assert_eq!(compress(9, &noise, &mut vec![0u8; noise.len()]).unwrap(), 0);
    }

    #[test]
    fn malformed_input_is_error() {
        let input = sample(5_000, 4);
        let mut c = vec![0u8; input.len()];
        let n = compress(5, &input, &mut c).unwrap();
        let mut d = vec![0u8; input.len()];
        for cut in [0, 1, 4, n / 2, n - 1] {
            assert_eq!(
                decompress(&c[..cut], &mut d),
                Err(ErrorKind::Data),
                "cut {cut}"
            );
        }
        assert_eq!(
            decompress(&c[..n], &mut d[..input.len() - 1]),
            Err(ErrorKind::Data)
        );
        let dict = sample(500, 9);
        let mut state = 11u32;
        for len in 0..300 {
            let mut junk: Vec<u8> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (state >> 24) as u8
                })
                .collect();
            // Half of them start with a valid frame magic to get past it.
            if len >= 4 && len % 2 == 0 {
                junk[..4].copy_from_slice(&[0x28, 0xb5, 0x2f, 0xfd]);
            }
            if let Ok(k) = decompress(&junk, &mut d) {
                assert!(k <= d.len());
            }
            if let Ok(k) = decompress_with_dict(&dict, &junk, &mut d) {
                assert!(k <= d.len());
            }
        }
    }
}
