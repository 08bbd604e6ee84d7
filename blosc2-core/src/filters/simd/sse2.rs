//! SSE2 kernels (128-bit vectors). Same algorithms as `avx2.rs` (see its
//! module docs), one group of 16 elements per iteration.

// One of the places lib.rs allows `unsafe`: SSE2 intrinsics.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86")]
use std::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::scalar;
use super::tiles::{columns, tiled_groups};

#[inline]
#[target_feature(enable = "sse2")]
fn load16(src: &[u8], at: usize) -> __m128i {
    let s = &src[at..at + 16];
    // SAFETY: `s` has 16 readable bytes; loadu has no alignment requirement.
    unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn store16(dst: &mut [u8], at: usize, v: __m128i) {
    let d = &mut dst[at..at + 16];
    // SAFETY: `d` has 16 writable bytes; storeu has no alignment requirement.
    unsafe { _mm_storeu_si128(d.as_mut_ptr().cast(), v) }
}

/// One unpack round over `E` vectors: rotates byte addresses left by one bit.
#[inline]
#[target_feature(enable = "sse2")]
fn round<const E: usize>(v: &mut [__m128i; E]) {
    let mut w = [_mm_setzero_si128(); E];
    for x in 0..E / 2 {
        w[2 * x] = _mm_unpacklo_epi8(v[x], v[x + E / 2]);
        w[2 * x + 1] = _mm_unpackhi_epi8(v[x], v[x + E / 2]);
    }
    *v = w;
}

#[target_feature(enable = "sse2")]
fn shuffle_pow2<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 16;
    for g in 0..groups {
        let mut v = [_mm_setzero_si128(); E];
        for (x, vx) in v.iter_mut().enumerate() {
            *vx = load16(src, g * 16 * E + 16 * x);
        }
        for _ in 0..4 {
            round(&mut v);
        }
        for (j, vj) in v.iter().enumerate() {
            store16(dst, j * n + g * 16, *vj);
        }
    }
    groups * 16
}

#[target_feature(enable = "sse2")]
fn unshuffle_pow2<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 16;
    for g in 0..groups {
        let mut v = [_mm_setzero_si128(); E];
        for (j, vj) in v.iter_mut().enumerate() {
            *vj = load16(src, j * n + g * 16);
        }
        for _ in 0..E.trailing_zeros() {
            round(&mut v);
        }
        for (x, vx) in v.iter().enumerate() {
            store16(dst, g * 16 * E + 16 * x, *vx);
        }
    }
    groups * 16
}

#[target_feature(enable = "sse2")]
fn shuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = tiled_groups(ts, n, 16);
    let planes = ts.min(16);
    for g in 0..groups {
        for c in columns(ts) {
            let mut v = [_mm_setzero_si128(); 16];
            for (t, vt) in v.iter_mut().enumerate() {
                *vt = load16(src, (g * 16 + t) * ts + c);
            }
            for _ in 0..4 {
                round(&mut v);
            }
            for (jc, vj) in v.iter().enumerate().take(planes) {
                store16(dst, (c + jc) * n + g * 16, *vj);
            }
        }
    }
    groups * 16
}

#[target_feature(enable = "sse2")]
fn unshuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = tiled_groups(ts, n, 16);
    let planes = ts.min(16);
    for g in 0..groups {
        for c in columns(ts) {
            let mut v = [_mm_setzero_si128(); 16];
            for (jc, vj) in v.iter_mut().enumerate().take(planes) {
                *vj = load16(src, (c + jc) * n + g * 16);
            }
            for _ in 0..4 {
                round(&mut v);
            }
            // In element order, so junk spilled by a store (ts < 16) is
            // overwritten by the next element's own store.
            for (t, vt) in v.iter().enumerate() {
                store16(dst, (g * 16 + t) * ts + c, *vt);
            }
        }
    }
    groups * 16
}

/// Byte shuffle of whole elements.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
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
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
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

/// Bit rows of one plane via `movemask`, 32 plane bytes per iteration.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn bits_to_rows(plane: &[u8], rows: &mut [u8]) {
    let r = plane.len() / 8;
    let blocks = plane.len() / 32;
    for s in 0..blocks {
        let mut a = load16(plane, 32 * s);
        let mut b = load16(plane, 32 * s + 16);
        for bit in (0..8).rev() {
            let lo = _mm_movemask_epi8(a) as u32 & 0xFFFF;
            let hi = _mm_movemask_epi8(b) as u32 & 0xFFFF;
            let at = bit * r + 4 * s;
            rows[at..at + 4].copy_from_slice(&(lo | hi << 16).to_le_bytes());
            a = _mm_add_epi8(a, a);
            b = _mm_add_epi8(b, b);
        }
    }
    scalar::bits_to_rows_from(plane, rows, blocks * 4);
}

#[inline]
#[target_feature(enable = "sse2")]
fn transpose_bits_8x8(mut x: __m128i) -> __m128i {
    let m1 = _mm_set1_epi64x(0x00AA_00AA_00AA_00AA);
    let m2 = _mm_set1_epi64x(0x0000_CCCC_0000_CCCC);
    let m3 = _mm_set1_epi64x(0x0000_0000_F0F0_F0F0);
    let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<7>(x)), m1);
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64::<7>(t)));
    let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<14>(x)), m2);
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64::<14>(t)));
    let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<28>(x)), m3);
    _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64::<28>(t)))
}

/// Plane from its bit rows, 128 plane bytes per iteration.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn rows_to_bits(rows: &[u8], plane: &mut [u8]) {
    let r = rows.len() / 8;
    let blocks = r / 16;
    for s in 0..blocks {
        let mut v = [_mm_setzero_si128(); 8];
        for (b, vb) in v.iter_mut().enumerate() {
            *vb = load16(rows, b * r + 16 * s);
        }
        for _ in 0..3 {
            round(&mut v);
        }
        for (x, vx) in v.iter().enumerate() {
            store16(plane, 128 * s + 16 * x, transpose_bits_8x8(*vx));
        }
    }
    scalar::rows_to_bits_from(rows, plane, blocks * 16);
}

/// Running wrapping sum of bytes (`dst[i] = src[0] + ... + src[i]`), 16
/// bytes per step: four shift-and-add doublings give the sums inside the
/// vector, and the previous vector's last sum, broadcast, is added on top.
/// `dst.len() == src.len()`.
///
/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn prefix_sum(src: &[u8], dst: &mut [u8]) {
    let mut carry = _mm_setzero_si128();
    let mut done = 0;
    for (s, d) in src.chunks_exact(16).zip(dst.chunks_exact_mut(16)) {
        let mut x = load16(s, 0);
        x = _mm_add_epi8(x, _mm_slli_si128::<1>(x));
        x = _mm_add_epi8(x, _mm_slli_si128::<2>(x));
        x = _mm_add_epi8(x, _mm_slli_si128::<4>(x));
        x = _mm_add_epi8(x, _mm_slli_si128::<8>(x));
        x = _mm_add_epi8(x, carry);
        store16(d, 0, x);
        // byte 15 to every byte
        let t = _mm_shufflehi_epi16::<0xFF>(_mm_unpackhi_epi8(x, x));
        carry = _mm_shuffle_epi32::<0xFF>(t);
        done += 16;
    }
    let mut acc = if done > 0 { dst[done - 1] } else { 0 };
    for (o, v) in dst[done..].iter_mut().zip(&src[done..]) {
        acc = acc.wrapping_add(*v);
        *o = acc;
    }
}

/// The last `W`-byte unit of `x` repeated across the vector.
#[inline]
#[target_feature(enable = "sse2")]
fn broadcast_last<const W: usize>(x: __m128i) -> __m128i {
    match W {
        1 => {
            // bytes 8..16 doubled into words, word 7 (byte 15 twice) into
            // the high words, then the high dword everywhere
            let t = _mm_shufflehi_epi16::<0xff>(_mm_unpackhi_epi8(x, x));
            _mm_shuffle_epi32::<0xff>(t)
        }
        2 => _mm_shuffle_epi32::<0xff>(_mm_shufflehi_epi16::<0xff>(x)),
        4 => _mm_shuffle_epi32::<0xff>(x),
        _ => _mm_shuffle_epi32::<0xee>(x),
    }
}

/// Running XOR of `W`-byte units over the whole 16-byte vectors of `buf`.
/// Inside a vector, the prefix comes from XORing in copies shifted by 1, 2,
/// 4 and 8 units (`S1..S4` bytes; a shift of 16 or more gives zero, a
/// no-op); then the previous vector's last result unit, broadcast, is
/// XORed in. Returns the bytes done.
#[target_feature(enable = "sse2")]
fn prefix_xor_units<const W: usize, const S1: i32, const S2: i32, const S3: i32, const S4: i32>(
    buf: &mut [u8],
) -> usize {
    let n = buf.len() / 16 * 16;
    let mut carry = _mm_setzero_si128();
    let mut at = 0;
    while at < n {
        let mut x = load16(buf, at);
        x = _mm_xor_si128(x, _mm_slli_si128::<S1>(x));
        x = _mm_xor_si128(x, _mm_slli_si128::<S2>(x));
        x = _mm_xor_si128(x, _mm_slli_si128::<S3>(x));
        x = _mm_xor_si128(x, _mm_slli_si128::<S4>(x));
        x = _mm_xor_si128(x, carry);
        store16(buf, at, x);
        carry = broadcast_last::<W>(x);
        at += 16;
    }
    n
}

/// DELTA's first-block decode over whole vectors: a running XOR of `w`-byte
/// units (`w` is 1, 2, 4 or 8) from the start of `buf`. Returns the bytes
/// done, a multiple of 16; the caller finishes the rest.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn prefix_xor(buf: &mut [u8], w: usize) -> usize {
    match w {
        1 => prefix_xor_units::<1, 1, 2, 4, 8>(buf),
        2 => prefix_xor_units::<2, 2, 4, 8, 16>(buf),
        4 => prefix_xor_units::<4, 4, 8, 16, 16>(buf),
        _ => prefix_xor_units::<8, 8, 16, 16, 16>(buf),
    }
}
