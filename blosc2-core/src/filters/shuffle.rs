//! SHUFFLE (filter id 1): byte transposition.
//!
//! A block of `n = len / typesize` elements becomes `typesize` byte streams
//! of `n` bytes, stream `j` holding byte `j` of every element. The
//! `len % typesize` trailing bytes that do not make a whole element are
//! copied unchanged to the end. This is upstream `blosc2_shuffle`, and every
//! kernel (scalar, SSE2, AVX2) gives the same bytes.

use super::simd::{self, Kernel};

/// Shuffles `src` into `dst` as `typesize`-byte elements.
///
/// `src` and `dst` should have the same length; only the first
/// `min(src.len(), dst.len())` bytes are processed. A `typesize` of 0 or 1
/// (or larger than the block) makes this a plain copy. Never fails.
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    simd::shuffle_with(Kernel::best(), typesize, src, dst);
}

/// Inverse of [`shuffle`] with the same `typesize`.
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    simd::unshuffle_with(Kernel::best(), typesize, src, dst);
}

/// The element size SHUFFLE uses for a given `filters_meta`: since 3.3
/// a non-zero meta is the number of byte streams (the block is shuffled as
/// `nstreams`-byte elements), and 0 means the chunk's typesize.
pub fn bytestreams(typesize: usize, nstreams: u8) -> usize {
    if nstreams == 0 {
        typesize
    } else {
        nstreams as usize
    }
}

/// SHUFFLE as the pipeline applies it: `nstreams` is the filter's
/// `filters_meta` (see [`bytestreams`]).
pub fn shuffle_bytestreams(typesize: usize, nstreams: u8, src: &[u8], dst: &mut [u8]) {
    shuffle(bytestreams(typesize, nstreams), src, dst);
}

/// Inverse of [`shuffle_bytestreams`] with the same arguments.
pub fn unshuffle_bytestreams(typesize: usize, nstreams: u8, src: &[u8], dst: &mut [u8]) {
    unshuffle(bytestreams(typesize, nstreams), src, dst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_tail() {
        // 3 elements of 4 bytes plus 2 stray bytes
        let src: Vec<u8> = (0..14).collect();
        let mut dst = vec![0u8; 14];
        shuffle(4, &src, &mut dst);
        assert_eq!(dst, [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 13]);
        let mut back = vec![0u8; 14];
        unshuffle(4, &dst, &mut back);
        assert_eq!(back, src);
    }

    #[test]
    fn bytestreams_meta() {
        let src: Vec<u8> = (0..64).collect();
        let (mut a, mut b) = (vec![0u8; 64], vec![0u8; 64]);
        shuffle_bytestreams(8, 0, &src, &mut a);
        shuffle(8, &src, &mut b);
        assert_eq!(a, b);
        shuffle_bytestreams(8, 2, &src, &mut a);
        shuffle(2, &src, &mut b);
        assert_eq!(a, b);
        let mut back = vec![0u8; 64];
        unshuffle_bytestreams(8, 2, &a, &mut back);
        assert_eq!(back, src);
    }

    #[test]
    fn degenerate() {
        let src = [1u8, 2, 3];
        for ts in [0, 1, 3, 4, 1000] {
            let mut dst = [0u8; 3];
            shuffle(ts, &src, &mut dst);
            assert_eq!(dst, src, "ts {ts}");
            unshuffle(ts, &src, &mut dst);
            assert_eq!(dst, src);
        }
        shuffle(4, &[], &mut []);
    }
}
