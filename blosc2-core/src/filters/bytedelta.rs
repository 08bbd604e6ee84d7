//! BYTEDELTA (registered filter ids 35, and 34 for the old "buggy" one).
//!
//! Meant to follow SHUFFLE: the block is viewed as `ts` byte streams of
//! `len / ts` bytes and each stream is replaced by the wrapping difference of
//! consecutive bytes (the first byte of a stream is kept). `ts` is the
//! filter's `meta` or, when `meta == 0`, the super-chunk's typesize. The
//! `len % ts` trailing bytes belong to no stream and are copied unchanged in
//! both directions (the 3.3.2 fix; before it they were left unwritten).
//!
//! Id 34 keeps the pre-fix encoder for old data. Upstream's x86/ARM build
//! (what wrote that data) processes each stream in 16-byte vectors and then
//! restarts the delta from 0 for the `stream_len % 16` bytes after the last
//! whole vector; the `*_buggy` functions reproduce that.

use super::simd::{self, Kernel};
use crate::error::{ErrorKind, Result};

/// Stream count for a block: `meta`, or `typesize` when `meta` is 0.
/// A zero result is upstream's "meta is 0 and no super-chunk" failure.
fn streams(meta: u8, typesize: usize) -> Result<usize> {
    match (meta, typesize) {
        (0, 0) => Err(ErrorKind::Failure),
        (0, t) => Ok(t),
        (m, _) => Ok(m as usize),
    }
}

fn check_len(src: &[u8], dst: &[u8]) -> Result<()> {
    if src.len() == dst.len() {
        Ok(())
    } else {
        Err(ErrorKind::InvalidParam)
    }
}

/// Delta of one stream, restarting from 0 at byte `restart` (and at 0).
fn encode_stream(src: &[u8], dst: &mut [u8], restart: usize) {
    let restart = restart.min(src.len());
    for (part, out) in [
        (&src[..restart], 0..restart),
        (&src[restart..], restart..src.len()),
    ] {
        let out = &mut dst[out];
        if let (Some(&first), Some(o)) = (part.first(), out.first_mut()) {
            *o = first;
            for ((o, cur), prev) in out[1..].iter_mut().zip(&part[1..]).zip(part) {
                *o = cur.wrapping_sub(*prev);
            }
        }
    }
}

/// Running sum of one stream, restarting from 0 at byte `restart`.
fn decode_stream(src: &[u8], dst: &mut [u8], restart: usize) {
    let restart = restart.min(src.len());
    let k = Kernel::best();
    simd::prefix_sum_with(k, &src[..restart], &mut dst[..restart]);
    simd::prefix_sum_with(k, &src[restart..], &mut dst[restart..]);
}

fn run(
    meta: u8,
    typesize: usize,
    src: &[u8],
    dst: &mut [u8],
    encode: bool,
    buggy: bool,
) -> Result<()> {
    let ts = streams(meta, typesize)?;
    check_len(src, dst)?;
    let sl = src.len() / ts;
    let body = sl * ts;
    if sl > 0 {
        let restart = if buggy { sl / 16 * 16 } else { sl };
        for (s, d) in src[..body]
            .chunks_exact(sl)
            .zip(dst[..body].chunks_exact_mut(sl))
        {
            if encode {
                encode_stream(s, d, restart);
            } else {
                decode_stream(s, d, restart);
            }
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
    Ok(())
}

/// Encodes a block (filter id 35).
///
/// `meta` is the filter's `filters_meta` (stream count), `typesize` the
/// super-chunk's typesize, used when `meta == 0`; pass 0 when there is no
/// super-chunk, which makes `meta == 0` fail with [`ErrorKind::Failure`] as
/// upstream does. Errors with [`ErrorKind::InvalidParam`] if the lengths differ.
pub fn forward(meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    run(meta, typesize, src, dst, true, false)
}

/// Decodes a block (filter id 35); arguments as for [`forward`].
pub fn backward(meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    run(meta, typesize, src, dst, false, false)
}

/// Encodes like upstream's pre-fix filter (id 34). Only needed to write data
/// compatible with old readers; trailing bytes are copied.
pub fn forward_buggy(meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    run(meta, typesize, src, dst, true, true)
}

/// Decodes data written by the pre-fix filter (id 34).
pub fn backward_buggy(meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    run(meta, typesize, src, dst, false, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_and_tail() {
        // 2 streams of 3 bytes + 1 stray byte
        let src = [10u8, 12, 9, 200, 100, 0, 77];
        let mut enc = [0u8; 7];
        forward(2, 0, &src, &mut enc).unwrap();
        assert_eq!(enc, [10, 2, 253, 200, 156, 156, 77]);
        let mut dec = [0u8; 7];
        backward(2, 0, &enc, &mut dec).unwrap();
        assert_eq!(dec, src);
        // meta 0 takes the typesize
        let mut enc2 = [0u8; 7];
        forward(0, 2, &src, &mut enc2).unwrap();
        assert_eq!(enc2, enc);
    }

    #[test]
    fn round_trips() {
        let src: Vec<u8> = (0..1001u32).map(|i| (i * i % 253) as u8).collect();
        for meta in [1u8, 2, 3, 4, 7, 8, 16, 255] {
            for len in [0, 1, 15, 16, 17, 100, 1001] {
                let s = &src[..len];
                let mut enc = vec![0u8; len];
                let mut dec = vec![0u8; len];
                forward(meta, 0, s, &mut enc).unwrap();
                backward(meta, 0, &enc, &mut dec).unwrap();
                assert_eq!(dec, s);
                forward_buggy(meta, 0, s, &mut enc).unwrap();
                backward_buggy(meta, 0, &enc, &mut dec).unwrap();
                assert_eq!(dec, s);
            }
        }
    }

    #[test]
    fn buggy_restarts_after_last_vector() {
        let src: Vec<u8> = (1..=20).collect();
        let mut enc = vec![0u8; 20];
        forward_buggy(1, 0, &src, &mut enc).unwrap();
        let mut expect = vec![1u8; 20];
        expect[16] = 17; // the scalar remainder starts again from 0
        assert_eq!(enc, expect);
        forward(1, 0, &src, &mut enc).unwrap();
        assert_eq!(enc, vec![1u8; 20]);
        // streams shorter than one vector: both versions agree
        let (mut a, mut b) = (vec![0u8; 15], vec![0u8; 15]);
        forward(1, 0, &src[..15], &mut a).unwrap();
        forward_buggy(1, 0, &src[..15], &mut b).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn errors() {
        let mut dst = [0u8; 4];
        assert_eq!(
            forward(0, 0, &[1, 2, 3, 4], &mut dst),
            Err(ErrorKind::Failure)
        );
        assert_eq!(
            backward(0, 0, &[1, 2, 3, 4], &mut dst),
            Err(ErrorKind::Failure)
        );
        assert_eq!(
            forward(1, 0, &[1, 2, 3], &mut dst),
            Err(ErrorKind::InvalidParam)
        );
    }
}
