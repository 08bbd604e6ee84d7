//! zlib codec (`BLOSC_ZLIB`): one zlib-format stream (2-byte header, raw
//! deflate, Adler-32 trailer) per block or split stream, exactly what zlib's
//! `compress2`/`uncompress` produce and accept, so streams interoperate with
//! the reference (which uses zlib-ng) in both directions.
//!
//! Three implementations of the same format:
//!
//! * `zlib-rs`, pure Rust, built with the `zlib` feature: the default, so
//!   that depending on this crate needs no C build tools beyond a C compiler.
//! * zlib-ng, the library the reference bundles, in the same version, with
//!   the `zlib-ng` feature (its build needs cmake). It inflates with a third
//!   fewer instructions than `zlib-rs` (64 M against 95 M for 256 chunks of
//!   32 KiB f64, the reference 64 M), so the C library that `make install`
//!   ships enables it. Its symbols carry the `zng_` prefix, so they cannot
//!   clash with a zlib the host program links.
//! * the host's zlib (through `libz-sys`) with `system-zlib`, as upstream
//!   links it with PREFER_EXTERNAL_ZLIB, for distributions that want one
//!   zlib on the system.
//!
//! When several are on, zlib-ng wins over the system zlib, which wins over
//! `zlib-rs`: the most specific request is the one that counts, and the
//! workspace's own builds (zlib-ng) must not change because a dependent
//! asked for the system zlib. `zlib-rs` stays built either way, for inputs
//! past the 4 GiB a single C call takes.
//!
//! zlib-rs and zlib-ng produce the same compressed bytes as the reference
//! (see the tests); a system zlib writes valid streams that may differ.

// One of the places lib.rs allows `unsafe`: zlib-ng or the system zlib through their C API (the zlib-rs backend is safe).
#![allow(unsafe_code)]

use crate::error::{ErrorKind, Result};

/// Library name reported by `blosc2_get_complib_info` for zlib.
pub const COMPLIB_NAME: &str = "Zlib";

/// The version of the zlib implementation in use: the zlib API version
/// `zlib-rs` implements, zlib-ng's own (the reference reports "2.3.3"), or
/// what the host's zlib says at run time.
pub fn complib_version() -> String {
    #[cfg(feature = "zlib-ng")]
    {
        "2.3.3".to_string()
    }
    #[cfg(all(feature = "system-zlib", not(feature = "zlib-ng")))]
    {
        sys::version()
    }
    #[cfg(not(any(feature = "zlib-ng", feature = "system-zlib")))]
    {
        "1.3.1".to_string()
    }
}

#[cfg(feature = "zlib-ng")]
use ng as backend;
#[cfg(not(any(feature = "zlib-ng", feature = "system-zlib")))]
use rs as backend;
#[cfg(all(feature = "system-zlib", not(feature = "zlib-ng")))]
use sys as backend;

/// Compresses `input` at zlib level `clevel` (Blosc passes its clevel 1..=9
/// through unchanged; 0 stores). `Ok(0)` when the stream does not fit in
/// `output`; `Err(ErrorKind::CodecParam)` for a level above 9, which zlib
/// rejects.
///
/// The deflate state (a few hundred KiB) is kept per thread and reset
/// between calls instead of being reallocated as `compress2` does.
pub fn compress(clevel: u8, input: &[u8], output: &mut [u8]) -> Result<usize> {
    if clevel > 9 {
        return Err(ErrorKind::CodecParam);
    }
    backend::compress(i32::from(clevel), input, output)
}

/// Decodes one zlib stream into `output`, returning the decoded length.
/// Anything but a complete, checksum-valid stream that fits in `output` is
/// `Err(ErrorKind::Data)`.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize> {
    backend::decompress(input, output)
}

/// The `zlib-rs` implementation.
#[cfg_attr(any(feature = "zlib-ng", feature = "system-zlib"), allow(dead_code))]
mod rs {
    #![forbid(unsafe_code)]

    use crate::error::{ErrorKind, Result};
    use std::cell::RefCell;
    use zlib_rs::inflate::{uncompress_slice, InflateConfig};
    use zlib_rs::{Deflate, DeflateError, DeflateFlush, ReturnCode, Status};

    pub(super) fn compress(level: i32, input: &[u8], output: &mut [u8]) -> Result<usize> {
        thread_local! {
            static STATE: RefCell<Option<(i32, Deflate)>> = const { RefCell::new(None) };
        }
        STATE.with(|cell| match cell.try_borrow_mut() {
            Ok(mut slot) => {
                match slot.as_mut() {
                    Some((l, d)) if *l == level => d.reset(),
                    _ => *slot = Some((level, Deflate::new(level, true, 15))),
                }
                match slot.as_mut() {
                    Some((_, d)) => deflate_all(d, input, output),
                    None => Err(ErrorKind::MemoryAlloc),
                }
            }
            Err(_) => deflate_all(&mut Deflate::new(level, true, 15), input, output),
        })
    }

    /// One `Finish` call over the whole input, as `compress2` does, but
    /// judged by the stream status: zlib-rs's `compress_slice` reports `Ok`
    /// for a stream cut short when the output holds little more than the
    /// header.
    fn deflate_all(d: &mut Deflate, input: &[u8], output: &mut [u8]) -> Result<usize> {
        // Inputs or outputs beyond 4 GiB would need several calls; Blosc
        // blocks are far below 2 GiB, and a truncated call reports "did not
        // fit".
        match d.compress(input, output, DeflateFlush::Finish) {
            Ok(Status::StreamEnd) => usize::try_from(d.total_out()).map_err(|_| ErrorKind::Failure),
            Ok(Status::Ok | Status::BufError) => Ok(0),
            Err(DeflateError::MemError) => Err(ErrorKind::MemoryAlloc),
            Err(_) => Err(ErrorKind::Failure),
        }
    }

    pub(super) fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize> {
        let (written, rc) = uncompress_slice(output, input, InflateConfig::default());
        match rc {
            ReturnCode::Ok => Ok(written.len()),
            ReturnCode::MemError => Err(ErrorKind::MemoryAlloc),
            _ => Err(ErrorKind::Data),
        }
    }
}

/// The zlib-ng implementation, through libz-ng-sys's `zng_` API.
#[cfg(feature = "zlib-ng")]
mod ng {
    #![deny(clippy::undocumented_unsafe_blocks)]

    use crate::error::{ErrorKind, Result};
    use libz_ng_sys as z;
    use std::cell::RefCell;
    use std::ffi::{c_int, c_uint, c_void};
    use std::ptr;

    // libz-ng-sys types `zalloc`/`zfree` as non-nullable function pointers,
    // so zlib-ng's "NULL means the default allocator" cannot be spelled;
    // these are that default (zlib-ng aligns inside the block it gets).
    unsafe extern "C" fn zalloc(_opaque: *mut c_void, items: c_uint, size: c_uint) -> *mut c_void {
        match (items as usize).checked_mul(size as usize) {
            // SAFETY: malloc takes any size and returns NULL on failure,
            // which zlib-ng turns into Z_MEM_ERROR.
            Some(n) => unsafe { libc::malloc(n) },
            None => ptr::null_mut(),
        }
    }

    unsafe extern "C" fn zfree(_opaque: *mut c_void, p: *mut c_void) {
        // SAFETY: zlib-ng passes back, once, a pointer `zalloc` returned.
        unsafe { libc::free(p) }
    }

    /// A deflate stream kept across calls (`deflateReset` between them).
    /// Boxed: zlib-ng's state points back at its `z_stream`, which must not
    /// move while the state lives.
    struct Deflater {
        strm: Box<z::z_stream>,
        level: c_int,
    }

    impl Deflater {
        fn new(level: c_int) -> Option<Self> {
            let mut strm = Box::new(z::z_stream {
                next_in: ptr::null_mut(),
                avail_in: 0,
                total_in: 0,
                next_out: ptr::null_mut(),
                avail_out: 0,
                total_out: 0,
                msg: ptr::null_mut(),
                state: ptr::null_mut(),
                zalloc,
                zfree,
                opaque: ptr::null_mut(),
                data_type: 0,
                adler: 0,
                reserved: 0,
            });
            // SAFETY: `strm` is a fully initialised z_stream at a heap
            // address that stays put for the life of the state.
            let rc = unsafe { z::zng_deflateInit(&mut *strm, level) };
            (rc == z::Z_OK).then_some(Self { strm, level })
        }

        /// One `Z_FINISH` call over the whole input, as `compress2` does.
        /// Sizes must fit in 32 bits (the caller checks).
        fn compress(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
            let (Ok(avail_in), Ok(avail_out)) = (
                c_uint::try_from(input.len()),
                c_uint::try_from(output.len()),
            ) else {
                return Err(ErrorKind::Failure);
            };
            // SAFETY: the state was set up by deflateInit and is borrowed
            // exclusively.
            if unsafe { z::deflateReset(&mut *self.strm) } != z::Z_OK {
                return Err(ErrorKind::Failure);
            }
            let s = &mut *self.strm;
            // zlib-ng only reads through next_in; the field is `*mut` for
            // historical reasons.
            s.next_in = input.as_ptr().cast_mut();
            s.avail_in = avail_in;
            s.next_out = output.as_mut_ptr();
            s.avail_out = avail_out;
            // SAFETY: next_in/next_out address avail_in readable and
            // avail_out writable bytes, borrowed for the whole call.
            let rc = unsafe { z::deflate(s, z::Z_FINISH) };
            let written = avail_out - s.avail_out;
            // The kept stream must not hold pointers into the caller's
            // buffers once they are gone.
            s.next_in = ptr::null_mut();
            s.next_out = ptr::null_mut();
            s.avail_in = 0;
            s.avail_out = 0;
            match rc {
                z::Z_STREAM_END => Ok(written as usize),
                z::Z_OK | z::Z_BUF_ERROR => Ok(0),
                z::Z_MEM_ERROR => Err(ErrorKind::MemoryAlloc),
                _ => Err(ErrorKind::Failure),
            }
        }
    }

    impl Drop for Deflater {
        fn drop(&mut self) {
            // SAFETY: the state came from deflateInit (a Deflater exists only
            // if that succeeded) and is ended exactly once, here.
            unsafe { z::deflateEnd(&mut *self.strm) };
        }
    }

    pub(super) fn compress(level: i32, input: &[u8], output: &mut [u8]) -> Result<usize> {
        if u32::try_from(input.len()).is_err() || u32::try_from(output.len()).is_err() {
            // One deflate call takes 32-bit counts; Blosc blocks never get
            // here, but a Rust caller's buffer might.
            return super::rs::compress(level, input, output);
        }
        thread_local! {
            static STATE: RefCell<Option<Deflater>> = const { RefCell::new(None) };
        }
        STATE.with(|cell| match cell.try_borrow_mut() {
            Ok(mut slot) => {
                if slot.as_ref().is_none_or(|d| d.level != level) {
                    *slot = None;
                    *slot = Deflater::new(level);
                }
                match slot.as_mut() {
                    Some(d) => d.compress(input, output),
                    None => Err(ErrorKind::MemoryAlloc),
                }
            }
            Err(_) => match Deflater::new(level) {
                Some(mut d) => d.compress(input, output),
                None => Err(ErrorKind::MemoryAlloc),
            },
        })
    }

    pub(super) fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize> {
        let mut n = output.len();
        // SAFETY: `output` is writable for `n` bytes and `input` readable for
        // its length; zng_uncompress takes size_t counts, writes at most `n`
        // bytes and stores the decoded length in `n`.
        let rc = unsafe { z::uncompress(output.as_mut_ptr(), &mut n, input.as_ptr(), input.len()) };
        match rc {
            z::Z_OK => Ok(n),
            z::Z_MEM_ERROR => Err(ErrorKind::MemoryAlloc),
            _ => Err(ErrorKind::Data),
        }
    }

    /// zlib-ng's version string, to check [`super::complib_version`].
    #[cfg(test)]
    pub(super) fn version() -> String {
        // SAFETY: returns a pointer to a static NUL-terminated string.
        let p = unsafe { z::zlibVersion() };
        // SAFETY: as above; never NULL.
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned()
    }
}

/// The host's zlib, through libz-sys (`system-zlib`).
#[cfg(feature = "system-zlib")]
#[cfg_attr(feature = "zlib-ng", allow(dead_code))]
mod sys {
    #![deny(clippy::undocumented_unsafe_blocks)]

    use crate::error::{ErrorKind, Result};
    use libz_sys as z;
    use std::cell::RefCell;
    use std::ffi::{c_int, c_uint, c_void};
    use std::ptr;

    // libz-sys types `zalloc`/`zfree` as non-nullable function pointers, so
    // zlib's "NULL means the default allocator" cannot be spelled; these
    // are that default.
    unsafe extern "C" fn zalloc(_opaque: *mut c_void, items: c_uint, size: c_uint) -> *mut c_void {
        match (items as usize).checked_mul(size as usize) {
            // SAFETY: malloc takes any size and returns NULL on failure,
            // which zlib turns into Z_MEM_ERROR.
            Some(n) => unsafe { libc::malloc(n) },
            None => ptr::null_mut(),
        }
    }

    unsafe extern "C" fn zfree(_opaque: *mut c_void, p: *mut c_void) {
        // SAFETY: zlib passes back, once, a pointer `zalloc` returned.
        unsafe { libc::free(p) }
    }

    /// A deflate stream kept across calls (`deflateReset` between them).
    /// Boxed: zlib's state points back at its `z_stream`, which must not
    /// move while the state lives.
    struct Deflater {
        strm: Box<z::z_stream>,
        level: c_int,
    }

    impl Deflater {
        fn new(level: c_int) -> Option<Self> {
            let mut strm = Box::new(z::z_stream {
                next_in: ptr::null_mut(),
                avail_in: 0,
                total_in: 0,
                next_out: ptr::null_mut(),
                avail_out: 0,
                total_out: 0,
                msg: ptr::null_mut(),
                state: ptr::null_mut(),
                zalloc,
                zfree,
                opaque: ptr::null_mut(),
                data_type: 0,
                adler: 0,
                reserved: 0,
            });
            // SAFETY: zlibVersion returns a static string; `strm` is a fully
            // initialised z_stream of the size passed, at a heap address that
            // stays put for the life of the state (deflateInit's macro form).
            let rc = unsafe {
                z::deflateInit_(
                    &mut *strm,
                    level,
                    z::zlibVersion(),
                    std::mem::size_of::<z::z_stream>() as c_int,
                )
            };
            (rc == z::Z_OK).then_some(Self { strm, level })
        }

        /// One `Z_FINISH` call over the whole input, as `compress2` does.
        /// Sizes must fit in 32 bits (the caller checks).
        fn compress(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
            let (Ok(avail_in), Ok(avail_out)) = (
                c_uint::try_from(input.len()),
                c_uint::try_from(output.len()),
            ) else {
                return Err(ErrorKind::Failure);
            };
            // SAFETY: the state was set up by deflateInit and is borrowed
            // exclusively.
            if unsafe { z::deflateReset(&mut *self.strm) } != z::Z_OK {
                return Err(ErrorKind::Failure);
            }
            let s = &mut *self.strm;
            // zlib only reads through next_in; the field is `*mut` for
            // historical reasons.
            s.next_in = input.as_ptr().cast_mut();
            s.avail_in = avail_in;
            s.next_out = output.as_mut_ptr();
            s.avail_out = avail_out;
            // SAFETY: next_in/next_out address avail_in readable and
            // avail_out writable bytes, borrowed for the whole call.
            let rc = unsafe { z::deflate(s, z::Z_FINISH) };
            let written = avail_out - s.avail_out;
            // The kept stream must not hold pointers into the caller's
            // buffers once they are gone.
            s.next_in = ptr::null_mut();
            s.next_out = ptr::null_mut();
            s.avail_in = 0;
            s.avail_out = 0;
            match rc {
                z::Z_STREAM_END => Ok(written as usize),
                z::Z_OK | z::Z_BUF_ERROR => Ok(0),
                z::Z_MEM_ERROR => Err(ErrorKind::MemoryAlloc),
                _ => Err(ErrorKind::Failure),
            }
        }
    }

    impl Drop for Deflater {
        fn drop(&mut self) {
            // SAFETY: the state came from deflateInit (a Deflater exists only
            // if that succeeded) and is ended exactly once, here.
            unsafe { z::deflateEnd(&mut *self.strm) };
        }
    }

    pub(super) fn compress(level: i32, input: &[u8], output: &mut [u8]) -> Result<usize> {
        if u32::try_from(input.len()).is_err() || u32::try_from(output.len()).is_err() {
            // One deflate call takes 32-bit counts; Blosc blocks never get
            // here, but a Rust caller's buffer might.
            return super::rs::compress(level, input, output);
        }
        thread_local! {
            static STATE: RefCell<Option<Deflater>> = const { RefCell::new(None) };
        }
        STATE.with(|cell| match cell.try_borrow_mut() {
            Ok(mut slot) => {
                if slot.as_ref().is_none_or(|d| d.level != level) {
                    *slot = None;
                    *slot = Deflater::new(level);
                }
                match slot.as_mut() {
                    Some(d) => d.compress(input, output),
                    None => Err(ErrorKind::MemoryAlloc),
                }
            }
            Err(_) => match Deflater::new(level) {
                Some(mut d) => d.compress(input, output),
                None => Err(ErrorKind::MemoryAlloc),
            },
        })
    }

    pub(super) fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize> {
        // uLong is 32 bits on some targets (Windows)
        let (Ok(mut n), Ok(in_len)) = (
            z::uLong::try_from(output.len()),
            z::uLong::try_from(input.len()),
        ) else {
            return super::rs::decompress(input, output);
        };
        // SAFETY: `output` is writable for `n` bytes and `input` readable for
        // `in_len`; uncompress writes at most `n` bytes and stores the
        // decoded length in `n`.
        let rc = unsafe { z::uncompress(output.as_mut_ptr(), &mut n, input.as_ptr(), in_len) };
        match rc {
            z::Z_OK => usize::try_from(n).map_err(|_| ErrorKind::Data),
            z::Z_MEM_ERROR => Err(ErrorKind::MemoryAlloc),
            _ => Err(ErrorKind::Data),
        }
    }

    /// The host zlib's version string, for `complib_version`.
    pub(super) fn version() -> String {
        // SAFETY: returns a pointer to a static NUL-terminated string.
        let p = unsafe { z::zlibVersion() };
        if p.is_null() {
            return "unknown".to_string();
        }
        // SAFETY: as above, and not NULL.
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Vec<u8> {
        let words: [&[u8]; 6] = [
            b"blosc ",
            b"chunk ",
            b"zlib ",
            b"block ",
            b"shuffle ",
            b"\n",
        ];
        let mut state = 99u32;
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            v.extend_from_slice(words[(state >> 16) as usize % words.len()]);
        }
        v.truncate(n);
        v
    }

    #[test]
    fn round_trip_all_levels() {
        let input = sample(50_000);
        for clevel in 1..=9 {
            let mut c = vec![0u8; input.len()];
            let n = compress(clevel, &input, &mut c).unwrap();
            assert!(n > 0 && n < input.len());
            assert_eq!(c[0] & 0x0f, 8, "zlib header: deflate method");
            let mut d = vec![0u8; input.len()];
            assert_eq!(decompress(&c[..n], &mut d).unwrap(), input.len());
            assert_eq!(d, input);
        }
    }

    /// zlib-rs follows zlib-ng's algorithms closely enough that the streams
    /// are byte-identical to the reference's; this pins that down. (A system
    /// zlib writes its own.)
    #[cfg(any(feature = "zlib-ng", not(feature = "system-zlib")))]
    #[test]
    fn same_streams_as_reference() {
        let input = super::super::lz4::golden_input();
        let expected: [(usize, u32); 9] = [
            (4744, 0x24ec_f42f),
            (4501, 0x8ed5_a5b7),
            (4476, 0x3ab5_fdf7),
            (4476, 0x05bf_81b0),
            (4477, 0xd0bc_f161),
            (4473, 0x7e5e_6e7f),
            (4473, 0x25d6_5215),
            (4469, 0xd5e5_bf36),
            (4452, 0x624f_bc00),
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
    }

    #[test]
    fn empty_input() {
        let mut c = [0u8; 64];
        let n = compress(5, &[], &mut c).unwrap();
        assert!(n > 0);
        assert_eq!(decompress(&c[..n], &mut []).unwrap(), 0);
    }

    #[test]
    fn output_too_small_is_zero() {
        let input = sample(10_000);
        for cap in [0, 1, 2, 10, 100] {
            assert_eq!(
                compress(6, &input, &mut vec![0u8; cap]).unwrap(),
                0,
                "cap {cap}"
            );
        }
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
    fn bad_level_is_error() {
        assert_eq!(
            compress(10, b"abc", &mut [0u8; 64]),
            Err(ErrorKind::CodecParam)
        );
    }

    #[test]
    fn state_reuse_gives_same_bytes() {
        let a = sample(30_000);
        let b = sample(7_000);
        let mut first = vec![0u8; a.len()];
        let n = compress(6, &a, &mut first).unwrap();
        compress(6, &b, &mut vec![0u8; b.len()]).unwrap();
        compress(2, &b, &mut vec![0u8; b.len()]).unwrap();
        compress(6, &b, &mut [0u8; 10]).unwrap();
        let mut again = vec![0u8; a.len()];
        assert_eq!(compress(6, &a, &mut again).unwrap(), n);
        assert_eq!(first[..n], again[..n]);
        // the kept state writes what a fresh zlib-rs would (the system
        // zlib's bytes are its own)
        if cfg!(all(feature = "system-zlib", not(feature = "zlib-ng"))) {
            return;
        }
        let mut buf = vec![0u8; a.len()];
        let (fresh, rc) =
            zlib_rs::deflate::compress_slice(&mut buf, &a, zlib_rs::deflate::DeflateConfig::new(6));
        assert_eq!(rc, zlib_rs::ReturnCode::Ok);
        assert_eq!(fresh, &first[..n]);
    }

    #[test]
    fn malformed_input_is_error() {
        let input = sample(5_000);
        let mut c = vec![0u8; input.len()];
        let n = compress(5, &input, &mut c).unwrap();
        let mut d = vec![0u8; input.len()];
        for cut in [0, 1, 2, n / 2, n - 1] {
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
        let mut flipped = c[..n].to_vec();
        flipped[n - 1] ^= 1; // Adler-32 mismatch
        assert_eq!(decompress(&flipped, &mut d), Err(ErrorKind::Data));
        let mut state = 3u32;
        for len in 0..300 {
            let junk: Vec<u8> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (state >> 24) as u8
                })
                .collect();
            if let Ok(k) = decompress(&junk, &mut d) {
                assert!(k <= d.len());
            }
        }
    }

    /// With zlib-ng built in, both implementations stay usable and agree:
    /// the same bytes at every level (both match the reference's), and
    /// each decodes the other's streams, whole or cut.
    #[cfg(feature = "zlib-ng")]
    #[test]
    fn zlib_ng_and_zlib_rs_agree() {
        assert_eq!(ng::version(), complib_version());
        for (len, seed) in [(0, 1), (1, 2), (100, 3), (30_000, 4), (70_000, 5)] {
            let mut input = sample(len + seed);
            input.drain(..seed);
            for level in 0..=9 {
                let mut a = vec![0u8; len + 64];
                let mut b = vec![0u8; len + 64];
                let na = rs::compress(level, &input, &mut a).unwrap();
                let nb = ng::compress(level, &input, &mut b).unwrap();
                assert_eq!(a[..na], b[..nb], "len {len} level {level}");
                let mut d = vec![0u8; len];
                assert_eq!(ng::decompress(&a[..na], &mut d), Ok(len));
                assert_eq!(d, input);
                assert_eq!(rs::decompress(&b[..nb], &mut d), Ok(len));
                assert_eq!(d, input);
                for cut in [0, na / 3, na.saturating_sub(1)] {
                    if cut < na {
                        assert_eq!(
                            ng::decompress(&a[..cut], &mut d),
                            rs::decompress(&a[..cut], &mut d),
                            "len {len} level {level} cut {cut}"
                        );
                    }
                }
            }
        }
    }

    /// The system zlib's streams are valid zlib: zlib-rs decodes them, it
    /// decodes zlib-rs's, and both judge cut streams alike.
    #[cfg(feature = "system-zlib")]
    #[test]
    fn system_zlib_and_zlib_rs_interoperate() {
        let v = sys::version();
        assert!(v.starts_with("1."), "zlib API version {v}");
        for (len, seed) in [(0, 1), (1, 2), (100, 3), (30_000, 4), (70_000, 5)] {
            let mut input = sample(len + seed);
            input.drain(..seed);
            for level in 0..=9 {
                let mut a = vec![0u8; len + 64];
                let mut b = vec![0u8; len + 64];
                let na = rs::compress(level, &input, &mut a).unwrap();
                let nb = sys::compress(level, &input, &mut b).unwrap();
                assert!(nb > 0, "len {len} level {level}");
                let mut d = vec![0u8; len];
                assert_eq!(sys::decompress(&a[..na], &mut d), Ok(len));
                assert_eq!(d, input);
                assert_eq!(rs::decompress(&b[..nb], &mut d), Ok(len));
                assert_eq!(d, input);
                for cut in [0, nb / 3, nb.saturating_sub(1)] {
                    if cut < nb {
                        assert_eq!(
                            sys::decompress(&b[..cut], &mut d),
                            Err(ErrorKind::Data),
                            "len {len} level {level} cut {cut}"
                        );
                    }
                }
            }
        }
    }
}
