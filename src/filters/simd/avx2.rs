//! AVX2 kernels (256-bit vectors).
//!
//! All transposes here rest on one observation: with `E` (a power of two)
//! vectors of 16 bytes, the round "`w[2x] = unpacklo(v[x], v[x + E/2])`,
//! `w[2x+1] = unpackhi(..)`" rotates the bits of every byte's address
//! (vector index, then position) left by one. A 16-element by `E`-byte
//! matrix stored row-major has address `element:byte`; four rounds turn it
//! into `byte:element` (the shuffle), `log2 E` rounds undo that.
//!
//! AVX2 unpacks work inside each 128-bit lane, so each lane runs that
//! algorithm on its own group of 16 elements: the low lane of every vector
//! is loaded from one group and the high lane from the next.
//!
//! Loads and stores go through `load*`/`store*` helpers that take a slice and
//! an index and check bounds, so the only unsafe code is the pointer access
//! of the intrinsic itself.

#[cfg(target_arch = "x86")]
use std::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::scalar;

#[inline]
#[target_feature(enable = "avx2")]
fn load16(src: &[u8], at: usize) -> __m128i {
    let s = &src[at..at + 16];
    // SAFETY: `s` has 16 readable bytes; loadu has no alignment requirement.
    unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn load32(src: &[u8], at: usize) -> __m256i {
    let s = &src[at..at + 32];
    // SAFETY: `s` has 32 readable bytes; loadu has no alignment requirement.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
}

/// One vector whose low lane comes from `src[lo..]` and high lane from `src[hi..]`.
#[inline]
#[target_feature(enable = "avx2")]
fn load_lanes(src: &[u8], lo: usize, hi: usize) -> __m256i {
    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(load16(src, lo)), load16(src, hi))
}

#[inline]
#[target_feature(enable = "avx2")]
fn store16(dst: &mut [u8], at: usize, v: __m128i) {
    let d = &mut dst[at..at + 16];
    // SAFETY: `d` has 16 writable bytes; storeu has no alignment requirement.
    unsafe { _mm_storeu_si128(d.as_mut_ptr().cast(), v) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn store32(dst: &mut [u8], at: usize, v: __m256i) {
    let d = &mut dst[at..at + 32];
    // SAFETY: `d` has 32 writable bytes; storeu has no alignment requirement.
    unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), v) }
}

/// One unpack round over `E` vectors (see the module docs).
#[inline]
#[target_feature(enable = "avx2")]
fn round<const E: usize>(v: &mut [__m256i; E]) {
    let mut w = [_mm256_setzero_si256(); E];
    for x in 0..E / 2 {
        w[2 * x] = _mm256_unpacklo_epi8(v[x], v[x + E / 2]);
        w[2 * x + 1] = _mm256_unpackhi_epi8(v[x], v[x + E / 2]);
    }
    *v = w;
}

/// Shuffle for `E` in {2, 4, 8, 16}: 32 elements per iteration. Returns how
/// many elements were done; the caller finishes the rest.
#[target_feature(enable = "avx2")]
fn shuffle_pow2<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 32;
    for g in 0..groups {
        let base = g * 32 * E;
        let mut v = [_mm256_setzero_si256(); E];
        for (x, vx) in v.iter_mut().enumerate() {
            *vx = load_lanes(src, base + 16 * x, base + 16 * E + 16 * x);
        }
        for _ in 0..4 {
            round(&mut v);
        }
        for (j, vj) in v.iter().enumerate() {
            store32(dst, j * n + g * 32, *vj);
        }
    }
    groups * 32
}

/// Unshuffle for `E` in {2, 4, 8, 16}, 32 elements per iteration.
#[target_feature(enable = "avx2")]
fn unshuffle_pow2<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 32;
    for g in 0..groups {
        let mut v = [_mm256_setzero_si256(); E];
        for (j, vj) in v.iter_mut().enumerate() {
            *vj = load32(src, j * n + g * 32);
        }
        for _ in 0..E.trailing_zeros() {
            round(&mut v);
        }
        let base = g * 32 * E;
        for (x, vx) in v.iter().enumerate() {
            store16(dst, base + 16 * x, _mm256_castsi256_si128(*vx));
            store16(
                dst,
                base + 16 * E + 16 * x,
                _mm256_extracti128_si256::<1>(*vx),
            );
        }
    }
    groups * 32
}

/// Column offsets for the tiled kernels: 16-byte columns covering the
/// element, the last one overlapping its neighbour when `ts % 16 != 0`.
/// Types narrower than 16 bytes use a single column that reads (shuffle) or
/// writes (unshuffle) past the element into the following ones.
fn columns(ts: usize) -> impl Iterator<Item = usize> {
    let full = ts / 16;
    let extra = (ts >= 16 && ts % 16 != 0).then(|| ts - 16);
    (0..full.max(1)).map(|q| 16 * q).chain(extra)
}

/// Groups of 32 elements the tiled kernels may touch without reaching past
/// `n * ts` with the 16-byte access of the last element.
fn tiled_groups(ts: usize, n: usize) -> usize {
    if ts >= 16 {
        n / 32
    } else {
        let len = n * ts;
        let need = 31 * ts + 16;
        if len < need {
            0
        } else {
            ((len - need) / (32 * ts) + 1).min(n / 32)
        }
    }
}

/// Shuffle for any other `ts >= 3`, as 16x16 byte tiles.
#[target_feature(enable = "avx2")]
fn shuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = tiled_groups(ts, n);
    let planes = ts.min(16);
    for g in 0..groups {
        for c in columns(ts) {
            let mut v = [_mm256_setzero_si256(); 16];
            for (t, vt) in v.iter_mut().enumerate() {
                *vt = load_lanes(src, (g * 32 + t) * ts + c, (g * 32 + 16 + t) * ts + c);
            }
            for _ in 0..4 {
                round(&mut v);
            }
            for (jc, vj) in v.iter().enumerate().take(planes) {
                store32(dst, (c + jc) * n + g * 32, *vj);
            }
        }
    }
    groups * 32
}

/// Unshuffle for any other `ts >= 3`, as 16x16 byte tiles.
#[target_feature(enable = "avx2")]
fn unshuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = tiled_groups(ts, n);
    let planes = ts.min(16);
    for g in 0..groups {
        for c in columns(ts) {
            let mut v = [_mm256_setzero_si256(); 16];
            for (jc, vj) in v.iter_mut().enumerate().take(planes) {
                *vj = load32(src, (c + jc) * n + g * 32);
            }
            for _ in 0..4 {
                round(&mut v);
            }
            // For ts < 16 each store spills junk into the next elements,
            // which their own (later) stores overwrite; so all low-lane
            // elements go first, and the last group's spill is repaired by
            // the scalar tail or the next group.
            for (t, vt) in v.iter().enumerate() {
                store16(dst, (g * 32 + t) * ts + c, _mm256_castsi256_si128(*vt));
            }
            for (t, vt) in v.iter().enumerate() {
                store16(
                    dst,
                    (g * 32 + 16 + t) * ts + c,
                    _mm256_extracti128_si256::<1>(*vt),
                );
            }
        }
    }
    groups * 32
}

/// Byte shuffle of whole elements (`src.len() == dst.len()`, a multiple of
/// `ts >= 2`).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn shuffle_exact(ts: usize, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / ts;
    let done = match ts {
        2 => shuffle_pow2::<2>(src, dst, n),
        4 => shuffle_pow2::<4>(src, dst, n),
        8 => shuffle_pow2::<8>(src, dst, n),
        16 => shuffle_pow2::<16>(src, dst, n),
        _ => shuffle_tiled(ts, src, dst, n),
    };
    scalar::shuffle_range(ts, src, dst, done);
}

/// Byte unshuffle of whole elements.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn unshuffle_exact(ts: usize, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / ts;
    let done = match ts {
        2 => unshuffle_pow2::<2>(src, dst, n),
        4 => unshuffle_pow2::<4>(src, dst, n),
        8 => unshuffle_pow2::<8>(src, dst, n),
        16 => unshuffle_pow2::<16>(src, dst, n),
        _ => unshuffle_tiled(ts, src, dst, n),
    };
    scalar::unshuffle_range(ts, src, dst, done);
}

/// Bit rows of one plane (see `scalar::bits_to_rows_from`): `movemask`
/// gathers the top bit of 32 bytes at once, and adding a vector to itself
/// moves the next bit up.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn bits_to_rows(plane: &[u8], rows: &mut [u8]) {
    let r = plane.len() / 8;
    let blocks = plane.len() / 64;
    for s in 0..blocks {
        let mut a = load32(plane, 64 * s);
        let mut b = load32(plane, 64 * s + 32);
        for bit in (0..8).rev() {
            let lo = _mm256_movemask_epi8(a) as u32 as u64;
            let hi = _mm256_movemask_epi8(b) as u32 as u64;
            let at = bit * r + 8 * s;
            rows[at..at + 8].copy_from_slice(&(lo | hi << 32).to_le_bytes());
            a = _mm256_add_epi8(a, a);
            b = _mm256_add_epi8(b, b);
        }
    }
    scalar::bits_to_rows_from(plane, rows, blocks * 8);
}

/// `scalar::transpose_bits_8x8` on each 64-bit lane.
#[inline]
#[target_feature(enable = "avx2")]
fn transpose_bits_8x8(mut x: __m256i) -> __m256i {
    let m1 = _mm256_set1_epi64x(0x00AA_00AA_00AA_00AA);
    let m2 = _mm256_set1_epi64x(0x0000_CCCC_0000_CCCC);
    let m3 = _mm256_set1_epi64x(0x0000_0000_F0F0_F0F0);
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<7>(x)), m1);
    x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64::<7>(t)));
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<14>(x)), m2);
    x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64::<14>(t)));
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<28>(x)), m3);
    _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64::<28>(t)))
}

/// Plane from its eight bit rows, 256 plane bytes per iteration: three
/// unpack rounds gather byte `k` of all eight rows into one 64-bit lane,
/// whose 8x8 bit transpose is plane bytes `8k..8k+8`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn rows_to_bits(rows: &[u8], plane: &mut [u8]) {
    let r = rows.len() / 8;
    let blocks = r / 32;
    for s in 0..blocks {
        let mut v = [_mm256_setzero_si256(); 8];
        for (b, vb) in v.iter_mut().enumerate() {
            *vb = load32(rows, b * r + 32 * s);
        }
        for _ in 0..3 {
            round(&mut v);
        }
        for x in (0..8).step_by(2) {
            let a = transpose_bits_8x8(v[x]);
            let b = transpose_bits_8x8(v[x + 1]);
            store32(
                plane,
                256 * s + 16 * x,
                _mm256_permute2x128_si256::<0x20>(a, b),
            );
            store32(
                plane,
                256 * s + 128 + 16 * x,
                _mm256_permute2x128_si256::<0x31>(a, b),
            );
        }
    }
    scalar::rows_to_bits_from(rows, plane, blocks * 32);
}
