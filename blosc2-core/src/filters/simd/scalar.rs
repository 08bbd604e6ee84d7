//! Portable reference kernels.
//!
//! Every SIMD kernel must produce exactly what these produce; the tests in
//! `simd/mod.rs` hold them to it. They are also the fallback on CPUs (or
//! architectures) without a vector kernel, so they are written to be simple
//! first and reasonably quick second.

/// Byte-transpose `n = src.len() / ts` whole elements into `ts` planes of `n`
/// bytes each, for the elements `start..n` only (the vector kernels do the
/// elements before `start`). Both slices hold exactly `n * ts` bytes.
///
/// Eight elements at a time, so each plane gets whole 8-byte writes.
pub(crate) fn shuffle_range(ts: usize, src: &[u8], dst: &mut [u8], start: usize) {
    // Constant typesizes let the compiler unroll the byte loops.
    match ts {
        2 => shuffle_range_ts::<2>(src, dst, start),
        4 => shuffle_range_ts::<4>(src, dst, start),
        8 => shuffle_range_ts::<8>(src, dst, start),
        16 => shuffle_range_ts::<16>(src, dst, start),
        _ => shuffle_range_any(ts, src, dst, start),
    }
}

fn shuffle_range_ts<const T: usize>(src: &[u8], dst: &mut [u8], start: usize) {
    shuffle_range_any(T, src, dst, start);
}

/// Inverse of [`shuffle_range`], for the elements `start..n`.
pub(crate) fn unshuffle_range(ts: usize, src: &[u8], dst: &mut [u8], start: usize) {
    match ts {
        2 => unshuffle_range_ts::<2>(src, dst, start),
        4 => unshuffle_range_ts::<4>(src, dst, start),
        8 => unshuffle_range_ts::<8>(src, dst, start),
        16 => unshuffle_range_ts::<16>(src, dst, start),
        _ => unshuffle_range_any(ts, src, dst, start),
    }
}

fn unshuffle_range_ts<const T: usize>(src: &[u8], dst: &mut [u8], start: usize) {
    unshuffle_range_any(T, src, dst, start);
}

#[inline(always)]
fn shuffle_range_any(ts: usize, src: &[u8], dst: &mut [u8], start: usize) {
    let n = src.len() / ts;
    if start >= n {
        return;
    }
    let mut i = start;
    while i + 8 <= n {
        let block = &src[i * ts..(i + 8) * ts];
        for j in 0..ts {
            let mut w = [0u8; 8];
            for (p, b) in w.iter_mut().enumerate() {
                *b = block[p * ts + j];
            }
            dst[j * n + i..j * n + i + 8].copy_from_slice(&w);
        }
        i += 8;
    }
    for j in 0..ts {
        for k in i..n {
            dst[j * n + k] = src[k * ts + j];
        }
    }
}

#[inline(always)]
fn unshuffle_range_any(ts: usize, src: &[u8], dst: &mut [u8], start: usize) {
    let n = src.len() / ts;
    if start >= n {
        return;
    }
    let mut i = start;
    while i + 8 <= n {
        let block = &mut dst[i * ts..(i + 8) * ts];
        for j in 0..ts {
            let mut w = [0u8; 8];
            w.copy_from_slice(&src[j * n + i..j * n + i + 8]);
            for (p, b) in w.iter().enumerate() {
                block[p * ts + j] = *b;
            }
        }
        i += 8;
    }
    for j in 0..ts {
        for k in i..n {
            dst[k * ts + j] = src[j * n + k];
        }
    }
}

/// Byte shuffle of whole elements (`src.len()` is a multiple of `ts`).
pub(crate) fn shuffle_exact(ts: usize, src: &[u8], dst: &mut [u8]) {
    shuffle_range(ts, src, dst, 0);
}

/// Byte unshuffle of whole elements (`src.len()` is a multiple of `ts`).
pub(crate) fn unshuffle_exact(ts: usize, src: &[u8], dst: &mut [u8]) {
    unshuffle_range(ts, src, dst, 0);
}

/// Transposes the 8x8 bit matrix held in `x`, where row `r` is byte `r`
/// (little-endian) and column `c` is bit `c`: afterwards byte `c` bit `r`
/// holds what byte `r` bit `c` held. Three rounds of swapping off-diagonal
/// blocks (1x1, 2x2, 4x4 bits), each a masked exchange.
#[inline(always)]
pub(crate) fn transpose_bits_8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

/// Bit-transposes one byte plane into its eight bit rows, for the 8-byte
/// groups `start_group..`: with `r = plane.len() / 8`,
/// `rows[b * r + k]` bit `p` = `plane[8 * k + p]` bit `b`.
/// `plane.len()` is a multiple of 8 and equals `rows.len()`.
pub(crate) fn bits_to_rows_from(plane: &[u8], rows: &mut [u8], start_group: usize) {
    let r = plane.len() / 8;
    for k in start_group..r {
        let mut b8 = [0u8; 8];
        b8.copy_from_slice(&plane[8 * k..8 * k + 8]);
        let y = transpose_bits_8x8(u64::from_le_bytes(b8)).to_le_bytes();
        for (b, byte) in y.iter().enumerate() {
            rows[b * r + k] = *byte;
        }
    }
}

/// Inverse of [`bits_to_rows_from`]: rebuilds the byte plane from its eight
/// bit rows, for the 8-byte groups `start_group..`.
pub(crate) fn rows_to_bits_from(rows: &[u8], plane: &mut [u8], start_group: usize) {
    let r = rows.len() / 8;
    for k in start_group..r {
        let mut b8 = [0u8; 8];
        for (b, byte) in b8.iter_mut().enumerate() {
            *byte = rows[b * r + k];
        }
        let y = transpose_bits_8x8(u64::from_le_bytes(b8));
        plane[8 * k..8 * k + 8].copy_from_slice(&y.to_le_bytes());
    }
}

/// Bitshuffle straight from elements to rows, for the 8-element groups
/// `start_group..n / 8` (`n` whole elements, a multiple of 8; both slices
/// hold `n * ts` bytes). Lets vector kernels that work on larger groups
/// finish a block without a second pass (only the x86 ones have any yet).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) fn bitshuffle_groups_from(ts: usize, src: &[u8], dst: &mut [u8], start_group: usize) {
    let n = src.len() / ts;
    let r = n / 8;
    for k in start_group..r {
        let elems = &src[8 * k * ts..8 * (k + 1) * ts];
        for j in 0..ts {
            let mut b8 = [0u8; 8];
            for (p, byte) in b8.iter_mut().enumerate() {
                *byte = elems[p * ts + j];
            }
            let y = transpose_bits_8x8(u64::from_le_bytes(b8)).to_le_bytes();
            for (b, byte) in y.iter().enumerate() {
                dst[(8 * j + b) * r + k] = *byte;
            }
        }
    }
}

/// Inverse of [`bitshuffle_groups_from`].
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) fn bitunshuffle_groups_from(ts: usize, src: &[u8], dst: &mut [u8], start_group: usize) {
    let n = src.len() / ts;
    let r = n / 8;
    for k in start_group..r {
        let elems = &mut dst[8 * k * ts..8 * (k + 1) * ts];
        for j in 0..ts {
            let mut b8 = [0u8; 8];
            for (b, byte) in b8.iter_mut().enumerate() {
                *byte = src[(8 * j + b) * r + k];
            }
            let y = transpose_bits_8x8(u64::from_le_bytes(b8)).to_le_bytes();
            for (p, byte) in y.iter().enumerate() {
                elems[p * ts + j] = *byte;
            }
        }
    }
}

/// Running wrapping sum of bytes: `dst[i] = src[0] + ... + src[i]`.
pub(crate) fn prefix_sum(src: &[u8], dst: &mut [u8]) {
    let mut acc = 0u8;
    for (o, v) in dst.iter_mut().zip(src) {
        acc = acc.wrapping_add(*v);
        *o = acc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_matches_bit_definition() {
        let mut x: u64 = 0x0123_4567_89AB_CDEF;
        for _ in 0..200 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let y = transpose_bits_8x8(x);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!((x >> (8 * r + c)) & 1, (y >> (8 * c + r)) & 1);
                }
            }
            assert_eq!(transpose_bits_8x8(y), x);
        }
    }

    #[test]
    fn ranges_compose() {
        let src: Vec<u8> = (0..60u8).collect();
        let mut a = vec![0u8; 60];
        let mut b = vec![0u8; 60];
        shuffle_exact(3, &src, &mut a);
        shuffle_range(3, &src, &mut b, 0);
        assert_eq!(a, b);
        assert_eq!(&a[..4], &[0, 3, 6, 9]);
        assert_eq!(&a[20..23], &[1, 4, 7]);
        let mut back = vec![0u8; 60];
        unshuffle_exact(3, &a, &mut back);
        assert_eq!(back, src);
    }
}
