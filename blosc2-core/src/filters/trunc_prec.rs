//! TRUNC_PREC (filter id 4): zeroes low mantissa bits of float32/float64
//! values so the block compresses better. Lossy, so decoding does nothing.
//!
//! `meta` (the signed `filters_meta` byte) counts mantissa bits: a positive
//! value is how many to keep, a negative value how many to zero. As in
//! upstream the request fails when `|meta|` exceeds the mantissa width (23
//! or 52 bits) or when it would zero the whole mantissa (which could turn
//! NaNs into infinities), so `meta == 0` is an error too. Only typesizes 4
//! and 8 are accepted.

use crate::error::{ErrorKind, Result};

/// Masks `src` into `dst` keeping sign, exponent and the requested mantissa
/// bits of each element, read in the host's byte order as upstream does
/// (the filter runs on the caller's native floats, before any shuffle). The `len % typesize` trailing bytes
/// are copied (upstream leaves them unwritten).
///
/// Errors with [`ErrorKind::FilterPipeline`] (what upstream's compressor reports
/// for a failing filter) for a bad `meta` or typesize, and with
/// [`ErrorKind::InvalidParam`] when the lengths differ.
pub fn trunc_prec(meta: i8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    if src.len() != dst.len() {
        return Err(ErrorKind::InvalidParam);
    }
    let mantissa = match typesize {
        4 => 23,
        8 => 52,
        _ => return Err(ErrorKind::FilterPipeline),
    };
    let bits = meta as i32;
    if bits.abs() > mantissa {
        return Err(ErrorKind::FilterPipeline);
    }
    let zeroed = if bits >= 0 { mantissa - bits } else { -bits };
    if zeroed >= mantissa {
        return Err(ErrorKind::FilterPipeline);
    }
    let mask = !((1u64 << zeroed) - 1);
    if typesize == 4 {
        apply_mask::<4>(src, dst, mask);
    } else {
        apply_mask::<8>(src, dst, mask);
    }
    Ok(())
}

/// `dst = src & mask` per `W`-byte native-endian element (`W` in 1, 2, 4,
/// 8; only the low `8 * W` bits of `mask` count); trailing bytes that do
/// not make an element are copied. Shared with INT_TRUNC.
pub(crate) fn apply_mask<const W: usize>(src: &[u8], dst: &mut [u8], mask: u64) {
    let elem = elem_mask::<W>(mask);
    // W divides 8, so 8-byte words start on element boundaries and one
    // repeated mask covers whole words; the AND is bytewise, so the word's
    // byte order does not matter. The compiler vectorizes this.
    let mut m = [0u8; 8];
    for (i, b) in m.iter_mut().enumerate() {
        *b = elem[i % W];
    }
    let m64 = u64::from_le_bytes(m);
    let body = src.len() / W * W;
    let words = body / 8 * 8;
    for (d, s) in dst[..words]
        .chunks_exact_mut(8)
        .zip(src[..words].chunks_exact(8))
    {
        let mut b8 = [0u8; 8];
        b8.copy_from_slice(s);
        d.copy_from_slice(&(u64::from_le_bytes(b8) & m64).to_le_bytes());
    }
    for (k, (d, s)) in dst[words..body]
        .iter_mut()
        .zip(&src[words..body])
        .enumerate()
    {
        *d = s & m[k % W];
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// The bytes of `mask` truncated to a `W`-byte integer, as that integer
/// sits in memory on this host: upstream ANDs native integers, so on a
/// big-endian host the high (sign and exponent) bits come first.
pub(crate) fn elem_mask<const W: usize>(mask: u64) -> [u8; W] {
    let mut e = [0u8; W];
    if cfg!(target_endian = "little") {
        e.copy_from_slice(&mask.to_le_bytes()[..W]);
    } else {
        e.copy_from_slice(&mask.to_be_bytes()[8 - W..]);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float32_keep_and_zero() {
        let vals = [1.0f32 / 3.0, -2.5e-3, 1e30, f32::NAN, f32::INFINITY];
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut dst = vec![0u8; src.len()];
        trunc_prec(10, 4, &src, &mut dst).unwrap();
        for (i, c) in dst.chunks(4).enumerate() {
            let got = u32::from_ne_bytes(c.try_into().unwrap());
            assert_eq!(got, vals[i].to_bits() & !((1 << 13) - 1));
        }
        assert!(f32::from_ne_bytes(dst[12..16].try_into().unwrap()).is_nan());
        let mut neg = vec![0u8; src.len()];
        trunc_prec(-13, 4, &src, &mut neg).unwrap();
        assert_eq!(neg, dst);
        trunc_prec(23, 4, &src, &mut neg).unwrap();
        assert_eq!(neg, src);
    }

    #[test]
    fn float64() {
        let src: Vec<u8> = [std::f64::consts::PI, -1e-300]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let mut dst = vec![0u8; 16];
        trunc_prec(-50, 8, &src, &mut dst).unwrap();
        let got = u64::from_ne_bytes(dst[..8].try_into().unwrap());
        assert_eq!(got, std::f64::consts::PI.to_bits() & !((1u64 << 50) - 1));
        trunc_prec(1, 8, &src, &mut dst).unwrap();
        trunc_prec(52, 8, &src, &mut dst).unwrap();
        assert_eq!(dst, src);
    }

    #[test]
    fn errors() {
        let src = [0u8; 16];
        let mut dst = [0u8; 16];
        for (meta, ts) in [
            (0, 4),
            (24, 4),
            (-23, 4),
            (-128, 4),
            (127, 8),
            (53, 8),
            (-52, 8),
            (0, 8),
            (5, 2),
            (5, 16),
            (5, 0),
        ] {
            assert_eq!(
                trunc_prec(meta, ts, &src, &mut dst),
                Err(ErrorKind::FilterPipeline),
                "meta {meta} ts {ts}"
            );
        }
        assert_eq!(trunc_prec(-22, 4, &src, &mut dst), Ok(()));
        assert_eq!(trunc_prec(-51, 8, &src, &mut dst), Ok(()));
        assert_eq!(
            trunc_prec(5, 4, &src, &mut dst[..15]),
            Err(ErrorKind::InvalidParam)
        );
    }

    #[test]
    fn mask_matches_per_element_definition() {
        let src: Vec<u8> = (0..100u32).map(|i| (i * 151 % 256) as u8).collect();
        let mask = 0xF0E1_D2C3_B4A5_9687u64;
        for len in 0..100 {
            let s = &src[..len];
            let mut got = vec![0u8; len];
            let mut want = s.to_vec();
            apply_mask::<2>(s, &mut got, mask);
            for w in want[..len / 2 * 2].chunks_exact_mut(2) {
                let v = u16::from_ne_bytes([w[0], w[1]]) & mask as u16;
                w.copy_from_slice(&v.to_ne_bytes());
            }
            assert_eq!(got, want, "W 2 len {len}");
            apply_mask::<8>(s, &mut got, mask);
            let mut want = s.to_vec();
            for w in want[..len / 8 * 8].chunks_exact_mut(8) {
                let v = u64::from_ne_bytes(w.try_into().unwrap()) & mask;
                w.copy_from_slice(&v.to_ne_bytes());
            }
            assert_eq!(got, want, "W 8 len {len}");
        }
    }

    #[test]
    fn tail_copied() {
        let src: Vec<u8> = (0..11).map(|i| 0xF0 | i).collect();
        let mut dst = vec![0u8; 11];
        trunc_prec(-20, 4, &src, &mut dst).unwrap();
        assert_eq!(dst[8..], src[8..]);
        let first = u32::from_ne_bytes(src[..4].try_into().unwrap());
        assert_eq!(dst[..4], (first & !0xF_FFFF).to_ne_bytes());
    }

    /// The mask must hit the low mantissa bits of the value, wherever the
    /// host keeps them: 1.0 with mantissa bits set keeps its sign and
    /// exponent (the big-endian bug zeroed them and gave 1.2e-38).
    #[test]
    fn values_keep_sign_and_exponent() {
        let vals = [1.0f32 + f32::EPSILON * 3.0, -1.5 - f32::EPSILON];
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut dst = vec![0u8; src.len()];
        trunc_prec(-2, 4, &src, &mut dst).unwrap();
        let got: Vec<f32> = dst
            .chunks_exact(4)
            .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [1.0, -1.5]);
        let vals = [2.0f64 + f64::EPSILON * 6.0, -1e300];
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut dst = vec![0u8; src.len()];
        trunc_prec(-3, 8, &src, &mut dst).unwrap();
        let got = f64::from_ne_bytes(dst[..8].try_into().unwrap());
        assert_eq!(got, 2.0);
        let got = f64::from_ne_bytes(dst[8..].try_into().unwrap());
        assert!((got - -1e300).abs() < 1e285, "{got}");
    }
}
