//! INT_TRUNC (registered filter id 36): zeroes low bits of unsigned or
//! signed integers of 1, 2, 4 or 8 bytes. Lossy, so decoding is a copy.
//!
//! `meta` is the `filters_meta` byte read as `i8`: a positive value is the
//! number of bits to keep, a negative value the number to zero. As upstream
//! computes the count of zeroed bits in an unsigned byte, every request that
//! would zero the whole integer or asks for more bits than it has fails
//! (e.g. keeping 9 bits of a `u8`, or `meta == 0`). The element size is the
//! chunk's typesize, not `meta`.

use super::trunc_prec::apply_mask;
use crate::error::{ErrorKind, Result};

/// Truncates each element of `src` into `dst`, read in the host's byte
/// order as upstream does; the
/// `len % typesize` trailing bytes are copied (upstream leaves them
/// unwritten).
///
/// Errors with [`ErrorKind::FilterPipeline`] (upstream's compressor code for a
/// failing filter) for a typesize other than 1, 2, 4, 8 or a bad `meta`,
/// and with [`ErrorKind::InvalidParam`] when the lengths differ.
pub fn forward(meta: i8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    if src.len() != dst.len() {
        return Err(ErrorKind::InvalidParam);
    }
    if !matches!(typesize, 1 | 2 | 4 | 8) {
        return Err(ErrorKind::FilterPipeline);
    }
    let width = (8 * typesize) as u8;
    let zeroed: u8 = if meta >= 0 {
        width.wrapping_sub(meta as u8)
    } else {
        (-(meta as i16)) as u8
    };
    if zeroed >= width {
        return Err(ErrorKind::FilterPipeline);
    }
    let mask = !((1u64 << zeroed) - 1);
    match typesize {
        1 => apply_mask::<1>(src, dst, mask),
        2 => apply_mask::<2>(src, dst, mask),
        4 => apply_mask::<4>(src, dst, mask),
        _ => apply_mask::<8>(src, dst, mask),
    }
    Ok(())
}

/// The inverse direction: truncation cannot be undone, so `src` is copied.
/// `meta` and `typesize` are accepted for symmetry and ignored. Errors with
/// [`ErrorKind::InvalidParam`] only when the lengths differ.
pub fn backward(_meta: i8, _typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    if src.len() != dst.len() {
        return Err(ErrorKind::InvalidParam);
    }
    dst.copy_from_slice(src);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_and_zero_bits() {
        let src: Vec<u8> = [0xFFFF_FFFFu32, 0x1234_5678]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let mut dst = vec![0u8; 8];
        forward(20, 4, &src, &mut dst).unwrap();
        assert_eq!(
            u32::from_ne_bytes(dst[..4].try_into().unwrap()),
            0xFFFF_F000
        );
        assert_eq!(
            u32::from_ne_bytes(dst[4..].try_into().unwrap()),
            0x1234_5000
        );
        let mut neg = vec![0u8; 8];
        forward(-12, 4, &src, &mut neg).unwrap();
        assert_eq!(neg, dst);
        forward(32, 4, &src, &mut neg).unwrap();
        assert_eq!(neg, src);
        // 31 zeroed bits of a u32 is still allowed
        forward(-31, 4, &src, &mut neg).unwrap();
        assert_eq!(
            u32::from_ne_bytes(neg[..4].try_into().unwrap()),
            0x8000_0000
        );
        forward(-63, 8, &[0xFF; 8], &mut neg).unwrap();
        assert_eq!(neg, 0x8000_0000_0000_0000u64.to_ne_bytes());
        let mut b = [0u8; 3];
        forward(3, 1, &[0xFF, 0x1F, 0x0F], &mut b).unwrap();
        assert_eq!(b, [0xE0, 0x00, 0x00]);
        let src: Vec<u8> = [0xFFFFu16, 0x1234]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let mut b = [0u8; 4];
        forward(-4, 2, &src, &mut b).unwrap();
        let got = [
            u16::from_ne_bytes([b[0], b[1]]),
            u16::from_ne_bytes([b[2], b[3]]),
        ];
        assert_eq!(got, [0xFFF0, 0x1230]);
        // signed items keep their sign
        let src: Vec<u8> = [-3i64, 1 << 40]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let mut b = [0u8; 16];
        forward(-8, 8, &src, &mut b).unwrap();
        let got = i64::from_ne_bytes(b[..8].try_into().unwrap());
        assert_eq!(got, -256);
        assert_eq!(b[8..], (1i64 << 40).to_ne_bytes());
    }

    #[test]
    fn errors() {
        let src = [0u8; 8];
        let mut dst = [0u8; 8];
        for (meta, ts) in [
            (0, 4),
            (33, 4),
            (-32, 4),
            (9, 1),
            (-8, 1),
            (0, 1),
            (-128, 8),
            (65, 8),
            (1, 3),
            (1, 16),
            (1, 0),
        ] {
            assert_eq!(
                forward(meta, ts, &src, &mut dst),
                Err(ErrorKind::FilterPipeline),
                "meta {meta} ts {ts}"
            );
        }
        assert_eq!(
            forward(1, 4, &src, &mut dst[..7]),
            Err(ErrorKind::InvalidParam)
        );
        assert_eq!(forward(64, 8, &src, &mut dst), Ok(()));
        assert_eq!(
            forward(127, 8, &src, &mut dst),
            Err(ErrorKind::FilterPipeline)
        );
    }

    #[test]
    fn tail_and_backward() {
        let src: Vec<u8> = (0..7).map(|i| 0xF0 | i).collect();
        let mut dst = vec![0u8; 7];
        forward(-8, 2, &src, &mut dst).unwrap();
        for (i, d) in dst[..6].chunks_exact(2).enumerate() {
            let v = u16::from_ne_bytes([src[2 * i], src[2 * i + 1]]);
            assert_eq!(d, (v & 0xFF00).to_ne_bytes());
        }
        assert_eq!(dst[6], 0xF6);
        let mut back = vec![0u8; 7];
        backward(-8, 2, &dst, &mut back).unwrap();
        assert_eq!(back, dst);
    }
}
