//! NEON kernels (aarch64, 128-bit vectors), 16 elements per step.
//!
//! Byte shuffles of 2, 3 and 4-byte elements are one structure load each:
//! `vld2q`/`vld3q`/`vld4q` de-interleave 16 elements straight into their
//! byte planes, and the matching structure stores undo it. For 8 and
//! 16-byte elements `vld4q` leaves every vector holding 2 or 4 planes
//! interleaved byte by byte, which one or two rounds of `vuzp` separate
//! (`vzip` rounds before `vst4q` on the way back). Every other typesize
//! goes through 16x16 byte tiles transposed by four `vzip` rounds, the
//! unpack rounds of `avx2.rs` with NEON's names.
//!
//! The bit transposes reuse the 8-byte case: 16 consecutive 8-byte groups
//! of a plane split into 8 vectors, vector `p` holding byte `p` of every
//! group, so each byte lane across the 8 vectors is one group's 8x8 bit
//! matrix. Swapping bit blocks between vector pairs transposes all 16
//! matrices at once and leaves vector `b` holding 16 bytes of bit row `b`.
//!
//! Only 8-bit lanes are used (no reinterpreting casts between lane widths),
//! so no step depends on the byte order (untested on big-endian aarch64,
//! a tier-3 target).
//!
//! Loads and stores go through helpers that take a slice and an index and
//! check bounds, so the only unsafe code is the pointer access of the
//! intrinsic itself; an out-of-range index panics instead of touching
//! memory outside the slice.

// One of the places lib.rs allows `unsafe`: NEON intrinsics.
#![allow(unsafe_code)]

use std::arch::aarch64::*;

use super::scalar;
use super::tiles::{columns, tiled_groups};

#[inline]
#[target_feature(enable = "neon")]
fn load16(src: &[u8], at: usize) -> uint8x16_t {
    let s = &src[at..at + 16];
    // SAFETY: `s` has 16 readable bytes; vld1q_u8 needs only byte alignment.
    unsafe { vld1q_u8(s.as_ptr()) }
}

#[inline]
#[target_feature(enable = "neon")]
fn store16(dst: &mut [u8], at: usize, v: uint8x16_t) {
    let d = &mut dst[at..at + 16];
    // SAFETY: `d` has 16 writable bytes; vst1q_u8 needs only byte alignment.
    unsafe { vst1q_u8(d.as_mut_ptr(), v) }
}

/// 16 elements of 2 bytes, split into their two byte planes.
#[inline]
#[target_feature(enable = "neon")]
fn load_x2(src: &[u8], at: usize) -> [uint8x16_t; 2] {
    let s = &src[at..at + 32];
    // SAFETY: `s` has the 32 readable bytes vld2q_u8 reads, byte-aligned.
    let v = unsafe { vld2q_u8(s.as_ptr()) };
    [v.0, v.1]
}

#[inline]
#[target_feature(enable = "neon")]
fn load_x3(src: &[u8], at: usize) -> [uint8x16_t; 3] {
    let s = &src[at..at + 48];
    // SAFETY: `s` has the 48 readable bytes vld3q_u8 reads, byte-aligned.
    let v = unsafe { vld3q_u8(s.as_ptr()) };
    [v.0, v.1, v.2]
}

#[inline]
#[target_feature(enable = "neon")]
fn load_x4(src: &[u8], at: usize) -> [uint8x16_t; 4] {
    let s = &src[at..at + 64];
    // SAFETY: `s` has the 64 readable bytes vld4q_u8 reads, byte-aligned.
    let v = unsafe { vld4q_u8(s.as_ptr()) };
    [v.0, v.1, v.2, v.3]
}

/// Inverse of [`load_x2`]: interleaves two planes into 16 elements.
#[inline]
#[target_feature(enable = "neon")]
fn store_x2(dst: &mut [u8], at: usize, v: [uint8x16_t; 2]) {
    let d = &mut dst[at..at + 32];
    // SAFETY: `d` has the 32 writable bytes vst2q_u8 writes, byte-aligned.
    unsafe { vst2q_u8(d.as_mut_ptr(), uint8x16x2_t(v[0], v[1])) }
}

#[inline]
#[target_feature(enable = "neon")]
fn store_x3(dst: &mut [u8], at: usize, v: [uint8x16_t; 3]) {
    let d = &mut dst[at..at + 48];
    // SAFETY: `d` has the 48 writable bytes vst3q_u8 writes, byte-aligned.
    unsafe { vst3q_u8(d.as_mut_ptr(), uint8x16x3_t(v[0], v[1], v[2])) }
}

#[inline]
#[target_feature(enable = "neon")]
fn store_x4(dst: &mut [u8], at: usize, v: [uint8x16_t; 4]) {
    let d = &mut dst[at..at + 64];
    // SAFETY: `d` has the 64 writable bytes vst4q_u8 writes, byte-aligned.
    unsafe { vst4q_u8(d.as_mut_ptr(), uint8x16x4_t(v[0], v[1], v[2], v[3])) }
}

/// The 16 elements of 8 bytes at `src[at..at + 128]` as 8 vectors, vector
/// `p` holding byte `p` of each. `vld4q` of 8 elements gives vector `q`
/// bytes `q` and `q + 4` alternating, so even lanes of two such loads are
/// plane `q` and odd lanes plane `q + 4`.
#[inline]
#[target_feature(enable = "neon")]
fn split8(src: &[u8], at: usize) -> [uint8x16_t; 8] {
    let a = load_x4(src, at);
    let b = load_x4(src, at + 64);
    let mut x = [vdupq_n_u8(0); 8];
    for q in 0..4 {
        x[q] = vuzp1q_u8(a[q], b[q]);
        x[q + 4] = vuzp2q_u8(a[q], b[q]);
    }
    x
}

/// Inverse of [`split8`]: writes the 16 elements to `dst[at..at + 128]`.
#[inline]
#[target_feature(enable = "neon")]
fn join8(x: &[uint8x16_t; 8], dst: &mut [u8], at: usize) {
    let mut a = [vdupq_n_u8(0); 4];
    let mut b = [vdupq_n_u8(0); 4];
    for q in 0..4 {
        a[q] = vzip1q_u8(x[q], x[q + 4]);
        b[q] = vzip2q_u8(x[q], x[q + 4]);
    }
    store_x4(dst, at, a);
    store_x4(dst, at + 64, b);
}

/// The 16 elements of 16 bytes at `src[at..at + 256]` as their 16 byte
/// planes. `vld4q` of 4 elements gives vector `q` bytes `q`, `q + 4`,
/// `q + 8`, `q + 12` in turn; two `vuzp` rounds over the four loads sort
/// those four planes apart.
#[inline]
#[target_feature(enable = "neon")]
fn split16(src: &[u8], at: usize) -> [uint8x16_t; 16] {
    let a = load_x4(src, at);
    let b = load_x4(src, at + 64);
    let c = load_x4(src, at + 128);
    let d = load_x4(src, at + 192);
    let mut x = [vdupq_n_u8(0); 16];
    for q in 0..4 {
        // planes q and q + 8 in the even lanes, q + 4 and q + 12 in the odd
        let (ab_even, ab_odd) = (vuzp1q_u8(a[q], b[q]), vuzp2q_u8(a[q], b[q]));
        let (cd_even, cd_odd) = (vuzp1q_u8(c[q], d[q]), vuzp2q_u8(c[q], d[q]));
        x[q] = vuzp1q_u8(ab_even, cd_even);
        x[q + 8] = vuzp2q_u8(ab_even, cd_even);
        x[q + 4] = vuzp1q_u8(ab_odd, cd_odd);
        x[q + 12] = vuzp2q_u8(ab_odd, cd_odd);
    }
    x
}

/// Inverse of [`split16`]: writes the 16 elements to `dst[at..at + 256]`.
#[inline]
#[target_feature(enable = "neon")]
fn join16(x: &[uint8x16_t; 16], dst: &mut [u8], at: usize) {
    let mut v = [[vdupq_n_u8(0); 4]; 4];
    for q in 0..4 {
        let (lo, hi) = (vzip1q_u8(x[q], x[q + 8]), vzip2q_u8(x[q], x[q + 8]));
        let (lo2, hi2) = (
            vzip1q_u8(x[q + 4], x[q + 12]),
            vzip2q_u8(x[q + 4], x[q + 12]),
        );
        v[0][q] = vzip1q_u8(lo, lo2);
        v[1][q] = vzip2q_u8(lo, lo2);
        v[2][q] = vzip1q_u8(hi, hi2);
        v[3][q] = vzip2q_u8(hi, hi2);
    }
    for (k, vk) in v.iter().enumerate() {
        store_x4(dst, at + 64 * k, *vk);
    }
}

/// One zip round over 16 vectors: like the unpack round of `avx2.rs`, it
/// rotates the 8 address bits (vector, lane) of every byte left by one, so
/// four rounds transpose a 16x16 byte matrix.
#[inline]
#[target_feature(enable = "neon")]
fn round(v: &mut [uint8x16_t; 16]) {
    let mut w = [vdupq_n_u8(0); 16];
    for x in 0..8 {
        w[2 * x] = vzip1q_u8(v[x], v[x + 8]);
        w[2 * x + 1] = vzip2q_u8(v[x], v[x + 8]);
    }
    *v = w;
}

#[inline]
#[target_feature(enable = "neon")]
fn transpose16(v: &mut [uint8x16_t; 16]) {
    for _ in 0..4 {
        round(v);
    }
}

/// Shuffle of 2, 3 or 4-byte elements by structure loads (`E` is the
/// typesize). Returns the elements done, a multiple of 16.
#[target_feature(enable = "neon")]
fn shuffle_struct<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 16;
    for g in 0..groups {
        let at = 16 * E * g;
        match E {
            2 => {
                for (j, v) in load_x2(src, at).iter().enumerate() {
                    store16(dst, j * n + 16 * g, *v);
                }
            }
            3 => {
                for (j, v) in load_x3(src, at).iter().enumerate() {
                    store16(dst, j * n + 16 * g, *v);
                }
            }
            _ => {
                for (j, v) in load_x4(src, at).iter().enumerate() {
                    store16(dst, j * n + 16 * g, *v);
                }
            }
        }
    }
    groups * 16
}

/// Inverse of [`shuffle_struct`].
#[target_feature(enable = "neon")]
fn unshuffle_struct<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 16;
    for g in 0..groups {
        let mut v = [vdupq_n_u8(0); 4];
        for (j, vj) in v.iter_mut().enumerate().take(E) {
            *vj = load16(src, j * n + 16 * g);
        }
        let at = 16 * E * g;
        match E {
            2 => store_x2(dst, at, [v[0], v[1]]),
            3 => store_x3(dst, at, [v[0], v[1], v[2]]),
            _ => store_x4(dst, at, v),
        }
    }
    groups * 16
}

#[target_feature(enable = "neon")]
fn shuffle8(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 16;
    for g in 0..groups {
        for (j, v) in split8(src, 128 * g).iter().enumerate() {
            store16(dst, j * n + 16 * g, *v);
        }
    }
    groups * 16
}

#[target_feature(enable = "neon")]
fn unshuffle8(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 16;
    for g in 0..groups {
        let mut x = [vdupq_n_u8(0); 8];
        for (j, v) in x.iter_mut().enumerate() {
            *v = load16(src, j * n + 16 * g);
        }
        join8(&x, dst, 128 * g);
    }
    groups * 16
}

#[target_feature(enable = "neon")]
fn shuffle16(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 16;
    for g in 0..groups {
        for (j, v) in split16(src, 256 * g).iter().enumerate() {
            store16(dst, j * n + 16 * g, *v);
        }
    }
    groups * 16
}

#[target_feature(enable = "neon")]
fn unshuffle16(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 16;
    for g in 0..groups {
        let mut x = [vdupq_n_u8(0); 16];
        for (j, v) in x.iter_mut().enumerate() {
            *v = load16(src, j * n + 16 * g);
        }
        join16(&x, dst, 256 * g);
    }
    groups * 16
}

/// Shuffle for any typesize, as 16x16 byte tiles. Column by column over
/// the block, so only 16 planes are being written at a time.
#[target_feature(enable = "neon")]
fn shuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = tiled_groups(ts, n, 16);
    let planes = ts.min(16);
    for c in columns(ts) {
        for g in 0..groups {
            let mut v = [vdupq_n_u8(0); 16];
            for (t, vt) in v.iter_mut().enumerate() {
                *vt = load16(src, (16 * g + t) * ts + c);
            }
            transpose16(&mut v);
            for (jc, vj) in v.iter().enumerate().take(planes) {
                store16(dst, (c + jc) * n + 16 * g, *vj);
            }
        }
    }
    groups * 16
}

/// Inverse of [`shuffle_tiled`].
#[target_feature(enable = "neon")]
fn unshuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = tiled_groups(ts, n, 16);
    let planes = ts.min(16);
    for c in columns(ts) {
        for g in 0..groups {
            let mut v = [vdupq_n_u8(0); 16];
            for (jc, vj) in v.iter_mut().enumerate().take(planes) {
                *vj = load16(src, (c + jc) * n + 16 * g);
            }
            transpose16(&mut v);
            // In element order: for ts < 16 each store spills junk into the
            // next element, which that element's own store then overwrites
            // (and the scalar tail does, after the last group).
            for (t, vt) in v.iter().enumerate() {
                store16(dst, (16 * g + t) * ts + c, *vt);
            }
        }
    }
    groups * 16
}

/// Byte shuffle of whole elements (`src.len() == dst.len()`, a multiple of
/// `ts >= 2`).
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn shuffle_exact(ts: usize, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / ts;
    let done = match ts {
        2 => shuffle_struct::<2>(src, dst, n),
        3 => shuffle_struct::<3>(src, dst, n),
        4 => shuffle_struct::<4>(src, dst, n),
        8 => shuffle8(src, dst, n),
        16 => shuffle16(src, dst, n),
        _ => shuffle_tiled(ts, src, dst, n),
    };
    scalar::shuffle_range(ts, src, dst, done);
}

/// Byte unshuffle of whole elements.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn unshuffle_exact(ts: usize, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / ts;
    let done = match ts {
        2 => unshuffle_struct::<2>(src, dst, n),
        3 => unshuffle_struct::<3>(src, dst, n),
        4 => unshuffle_struct::<4>(src, dst, n),
        8 => unshuffle8(src, dst, n),
        16 => unshuffle16(src, dst, n),
        _ => unshuffle_tiled(ts, src, dst, n),
    };
    scalar::unshuffle_range(ts, src, dst, done);
}

/// Exchanges the bit blocks that a transpose moves across distance `S`:
/// for each vector pair `(i, i + S)` with bit `S` of `i` clear, bit
/// `j + S` of `x[i]` trades places with bit `j` of `x[i + S]` (for the `j`
/// in `keep`, those with bit `S` clear).
#[inline]
#[target_feature(enable = "neon")]
fn swap_bits<const S: i32>(x: &mut [uint8x16_t; 8], keep: uint8x16_t) {
    let s = S as usize;
    for i in (0..8).filter(|i| i & s == 0) {
        let (lo, hi) = (x[i], x[i + s]);
        x[i] = vbslq_u8(keep, lo, vshlq_n_u8::<S>(hi));
        x[i + s] = vbslq_u8(keep, vshrq_n_u8::<S>(lo), hi);
    }
}

/// In every byte lane, transposes the 8x8 bit matrix whose row `p` is that
/// lane of `x[p]`: afterwards bit `b` of `x[p]` is what bit `p` of `x[b]`
/// was. Same three block swaps as `scalar::transpose_bits_8x8`, with
/// vectors in place of the bytes of a word.
#[inline]
#[target_feature(enable = "neon")]
fn transpose_bits(x: &mut [uint8x16_t; 8]) {
    swap_bits::<1>(x, vdupq_n_u8(0x55));
    swap_bits::<2>(x, vdupq_n_u8(0x33));
    swap_bits::<4>(x, vdupq_n_u8(0x0F));
}

/// Bit rows of one plane (see `scalar::bits_to_rows_from`), 16 groups of
/// 8 bytes per step.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn bits_to_rows(plane: &[u8], rows: &mut [u8]) {
    let r = plane.len() / 8;
    let blocks = r / 16;
    for s in 0..blocks {
        let mut x = split8(plane, 128 * s);
        transpose_bits(&mut x);
        for (b, xb) in x.iter().enumerate() {
            store16(rows, b * r + 16 * s, *xb);
        }
    }
    scalar::bits_to_rows_from(plane, rows, blocks * 16);
}

/// Plane from its eight bit rows, 16 groups of 8 bytes per step: the bit
/// transpose is its own inverse, so this is [`bits_to_rows`] run backwards.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn rows_to_bits(rows: &[u8], plane: &mut [u8]) {
    let r = rows.len() / 8;
    let blocks = r / 16;
    for s in 0..blocks {
        let mut x = [vdupq_n_u8(0); 8];
        for (b, xb) in x.iter_mut().enumerate() {
            *xb = load16(rows, b * r + 16 * s);
        }
        transpose_bits(&mut x);
        join8(&x, plane, 128 * s);
    }
    scalar::rows_to_bits_from(rows, plane, blocks * 16);
}

/// Running wrapping sum of bytes (`dst[i] = src[0] + ... + src[i]`), 16
/// bytes per step: adding copies of the vector moved up by 1, 2, 4 and 8
/// lanes (`vext` against zero) gives the sums inside it, and the previous
/// vector's last sum, broadcast, is added on top. `dst.len() == src.len()`.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn prefix_sum(src: &[u8], dst: &mut [u8]) {
    let zero = vdupq_n_u8(0);
    let mut carry = zero;
    let mut done = 0;
    for (s, d) in src.chunks_exact(16).zip(dst.chunks_exact_mut(16)) {
        let mut x = load16(s, 0);
        x = vaddq_u8(x, vextq_u8::<15>(zero, x));
        x = vaddq_u8(x, vextq_u8::<14>(zero, x));
        x = vaddq_u8(x, vextq_u8::<12>(zero, x));
        x = vaddq_u8(x, vextq_u8::<8>(zero, x));
        x = vaddq_u8(x, carry);
        store16(d, 0, x);
        carry = vdupq_laneq_u8::<15>(x);
        done += 16;
    }
    let mut acc = if done > 0 { dst[done - 1] } else { 0 };
    for (o, v) in dst[done..].iter_mut().zip(&src[done..]) {
        acc = acc.wrapping_add(*v);
        *o = acc;
    }
}

/// Running XOR of `w`-byte units over the whole 16-byte vectors of `buf`.
/// Inside a vector the prefix comes from XORing in copies moved up by 1, 2,
/// 4 and 8 units; `K1..K4` are the `vext` offsets for those moves, 16 minus
/// the move in bytes, where 0 stands for a move of 16 bytes or more (`vext`
/// then returns the zero vector: a no-op). The previous vector's last
/// result unit, repeated across the vector by a table lookup, is XORed in
/// last. Returns the bytes done.
#[target_feature(enable = "neon")]
fn prefix_xor_units<const K1: i32, const K2: i32, const K3: i32, const K4: i32>(
    buf: &mut [u8],
    w: usize,
) -> usize {
    let n = buf.len() / 16 * 16;
    let zero = vdupq_n_u8(0);
    let last: [u8; 16] = std::array::from_fn(|i| (16 - w + i % w) as u8);
    let last = load16(&last, 0);
    let mut carry = zero;
    let mut at = 0;
    while at < n {
        let mut x = load16(buf, at);
        x = veorq_u8(x, vextq_u8::<K1>(zero, x));
        x = veorq_u8(x, vextq_u8::<K2>(zero, x));
        x = veorq_u8(x, vextq_u8::<K3>(zero, x));
        x = veorq_u8(x, vextq_u8::<K4>(zero, x));
        x = veorq_u8(x, carry);
        store16(buf, at, x);
        carry = vqtbl1q_u8(x, last);
        at += 16;
    }
    n
}

/// DELTA's first-block decode over whole vectors: a running XOR of `w`-byte
/// units (`w` is 1, 2, 4 or 8) from the start of `buf`. Returns the bytes
/// done, a multiple of 16; the caller finishes the rest.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn prefix_xor(buf: &mut [u8], w: usize) -> usize {
    match w {
        1 => prefix_xor_units::<15, 14, 12, 8>(buf, 1),
        2 => prefix_xor_units::<14, 12, 8, 0>(buf, 2),
        4 => prefix_xor_units::<12, 8, 0, 0>(buf, 4),
        _ => prefix_xor_units::<8, 0, 0, 0>(buf, 8),
    }
}
