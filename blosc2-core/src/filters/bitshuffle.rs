//! BITSHUFFLE (filter id 2): bit transposition.
//!
//! With `n` the number of whole elements rounded down to a multiple of 8,
//! the first `n * typesize` bytes become `8 * typesize` rows of `n / 8`
//! bytes: row `8 * j + b` holds bit `b` of byte `j` of every element, element
//! `i` at bit `i % 8` of byte `i / 8`. Everything after those bytes (the last
//! `< 8` elements and any partial element) is copied unchanged. This is the
//! layout of upstream `blosc2_bitshuffle` (chunk format version 3 onwards).

use super::simd::{self, Kernel};
use crate::error::{ErrorKind, Result};

/// Largest typesize upstream's bitshuffle accepts.
const MAX_TYPESIZE: usize = 256;

fn check(typesize: usize, src: &[u8], dst: &[u8]) -> Result<()> {
    if typesize == 0 || typesize > MAX_TYPESIZE || src.len() != dst.len() {
        return Err(ErrorKind::InvalidParam);
    }
    Ok(())
}

/// Bit-shuffles `src` into `dst` (same length) as `typesize`-byte elements.
///
/// Errors with [`ErrorKind::InvalidParam`] (upstream's code) when `typesize` is
/// 0 or above 256, and when the lengths differ. A block with fewer than 8
/// elements is copied.
pub fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    check(typesize, src, dst)?;
    simd::bitshuffle_with(Kernel::best(), typesize, src, dst);
    Ok(())
}

/// Inverse of [`bitshuffle`] (chunk format version 3 and later).
pub fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    check(typesize, src, dst)?;
    simd::bitunshuffle_with(Kernel::best(), typesize, src, dst);
    Ok(())
}

/// [`bitunshuffle`] for a chunk of the given header `version`. Version 2
/// (Blosc 1.x) only bit-shuffled blocks whose element count was a multiple
/// of 8, and stored the others as they were, so those are copied.
pub fn bitunshuffle_version(
    typesize: usize,
    src: &[u8],
    dst: &mut [u8],
    version: u8,
) -> Result<()> {
    check(typesize, src, dst)?;
    if version == 2 && !(src.len() / typesize).is_multiple_of(8) {
        dst.copy_from_slice(src);
        return Ok(());
    }
    bitunshuffle(typesize, src, dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        // 8 one-byte elements: row b gets bit b of each, element i at bit i
        let src = [0x01u8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80];
        let mut dst = [0u8; 8];
        bitshuffle(1, &src, &mut dst).unwrap();
        assert_eq!(dst, [0x01, 0, 0, 0, 0, 0, 0, 0x80]);
        let src = [0xFFu8, 0, 0, 0, 0, 0, 0, 0];
        bitshuffle(1, &src, &mut dst).unwrap();
        assert_eq!(dst, [1; 8]);
    }

    #[test]
    fn round_trip_and_tail() {
        let src: Vec<u8> = (0..203u32).map(|i| (i * 37 % 251) as u8).collect();
        for ts in [1, 2, 3, 4, 8, 12, 16, 25] {
            let mut out = vec![0u8; src.len()];
            bitshuffle(ts, &src, &mut out).unwrap();
            let main = src.len() / ts / 8 * 8 * ts;
            assert_eq!(out[main..], src[main..], "tail copied, ts {ts}");
            let mut back = vec![0u8; src.len()];
            bitunshuffle(ts, &out, &mut back).unwrap();
            assert_eq!(back, src);
        }
    }

    #[test]
    fn errors_and_degenerate() {
        let src = [7u8; 20];
        let mut dst = [0u8; 20];
        assert_eq!(bitshuffle(0, &src, &mut dst), Err(ErrorKind::InvalidParam));
        assert_eq!(
            bitunshuffle(257, &src, &mut dst),
            Err(ErrorKind::InvalidParam)
        );
        assert_eq!(
            bitshuffle(4, &src, &mut dst[..19]),
            Err(ErrorKind::InvalidParam)
        );
        // fewer than 8 elements: copy
        bitshuffle(4, &src, &mut dst).unwrap();
        assert_eq!(dst, src);
        bitshuffle(256, &src, &mut dst).unwrap();
        assert_eq!(dst, src);
    }

    #[test]
    fn version_2_rule() {
        let src: Vec<u8> = (0..40).collect();
        let mut out = vec![0u8; 40];
        // 10 elements of 4 bytes: not a multiple of 8, so v2 copies
        bitunshuffle_version(4, &src, &mut out, 2).unwrap();
        assert_eq!(out, src);
        let mut v3 = vec![0u8; 40];
        bitunshuffle_version(4, &src, &mut v3, 3).unwrap();
        let mut plain = vec![0u8; 40];
        bitunshuffle(4, &src, &mut plain).unwrap();
        assert_eq!(v3, plain);
        // 8 elements: v2 unshuffles like the others
        bitunshuffle_version(4, &src[..32], &mut out[..32], 2).unwrap();
        bitunshuffle(4, &src[..32], &mut plain[..32]).unwrap();
        assert_eq!(out[..32], plain[..32]);
    }
}
