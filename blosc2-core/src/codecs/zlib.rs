//! zlib codec (`BLOSC_ZLIB`): one zlib-format stream (2-byte header, raw
//! deflate, Adler-32 trailer) per block or split stream, exactly what zlib's
//! `compress2`/`uncompress` produce and accept, so streams interoperate with
//! the reference (which uses zlib-ng) in both directions.
//!
//! Implemented with `zlib-rs`, a pure-Rust zlib, so the library carries no C
//! zlib symbols that could clash with a zlib the host program links.
//! Compressed bytes can differ from zlib-ng's (different match finders), only
//! the format is shared.

#![forbid(unsafe_code)]

use crate::error::{ErrorKind, Result};
use std::cell::RefCell;
use zlib_rs::inflate::{uncompress_slice, InflateConfig};
use zlib_rs::{Deflate, DeflateError, DeflateFlush, ReturnCode, Status};

/// Library name reported by `blosc2_get_complib_info` for zlib.
pub const COMPLIB_NAME: &str = "Zlib";

/// The zlib API version `zlib-rs` implements. The reference reports its
/// zlib-ng version here instead ("2.3.3" for C-Blosc2 3.3.5).
pub const COMPLIB_VERSION: &str = "1.3.1";

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
    let level = i32::from(clevel);
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

/// One `Finish` call over the whole input, as `compress2` does, but judged by
/// the stream status: zlib-rs's `compress_slice` reports `Ok` for a stream
/// cut short when the output holds little more than the header.
fn deflate_all(d: &mut Deflate, input: &[u8], output: &mut [u8]) -> Result<usize> {
    // Inputs or outputs beyond 4 GiB would need several calls; Blosc blocks
    // are far below 2 GiB, and a truncated call reports "did not fit".
    match d.compress(input, output, DeflateFlush::Finish) {
        Ok(Status::StreamEnd) => usize::try_from(d.total_out()).map_err(|_| ErrorKind::Failure),
        Ok(Status::Ok | Status::BufError) => Ok(0),
        Err(DeflateError::MemError) => Err(ErrorKind::MemoryAlloc),
        Err(_) => Err(ErrorKind::Failure),
    }
}

/// Decodes one zlib stream into `output`, returning the decoded length.
/// Anything but a complete, checksum-valid stream that fits in `output` is
/// `Err(ErrorKind::Data)`.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize> {
    let (written, rc) = uncompress_slice(output, input, InflateConfig::default());
    match rc {
        ReturnCode::Ok => Ok(written.len()),
        ReturnCode::MemError => Err(ErrorKind::MemoryAlloc),
        _ => Err(ErrorKind::Data),
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
    /// are byte-identical to the reference's; this pins that down.
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
        let mut buf = vec![0u8; a.len()];
        let (fresh, rc) =
            zlib_rs::deflate::compress_slice(&mut buf, &a, zlib_rs::deflate::DeflateConfig::new(6));
        assert_eq!(rc, ReturnCode::Ok);
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
}
