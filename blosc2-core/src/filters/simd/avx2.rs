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

// One of the places lib.rs allows `unsafe`: AVX2 intrinsics.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86")]
use std::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::scalar;
use super::tiles::{columns, tiled_groups};

#[inline]
#[target_feature(enable = "avx2")]
fn load32(src: &[u8], at: usize) -> __m256i {
    let s = &src[at..at + 32];
    // SAFETY: `s` has 32 readable bytes; loadu has no alignment requirement.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
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

/// Loads 32 elements of `E` bytes (`chunk.len() == 32 * E`) so that the low
/// lanes hold the first 16 elements and the high lanes the next 16. The
/// high halves are inserted straight from memory, which keeps the work off
/// the shuffle port.
#[inline]
#[target_feature(enable = "avx2")]
fn load_split<const E: usize>(chunk: &[u8]) -> [__m256i; E] {
    let mut v = [_mm256_setzero_si256(); E];
    if chunk.len() < 32 * E {
        return v;
    }
    let p = chunk.as_ptr();
    for (x, vx) in v.iter_mut().enumerate() {
        // SAFETY: 16 * E + 16 * x + 16 <= 32 * E <= chunk.len().
        *vx = unsafe {
            let lo = _mm_loadu_si128(p.add(16 * x).cast());
            let hi = _mm_loadu_si128(p.add(16 * E + 16 * x).cast());
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
        };
    }
    v
}

/// Shuffle for `E` in {2, 4, 8, 16}: 32 elements per iteration, 64 when
/// that fits in registers so each plane receives a whole cache line at
/// once. Returns how many elements were done; the caller finishes the rest.
#[target_feature(enable = "avx2")]
fn shuffle_pow2<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    if src.len() < E * n || dst.len() < E * n {
        return 0;
    }
    if E == 4 {
        return shuffle4(src, dst, n);
    }
    let dp = dst.as_mut_ptr();
    let pairs = if E <= 4 { n / 64 } else { 0 };
    for (g, chunk) in src.chunks_exact(64 * E).take(pairs).enumerate() {
        let mut a = load_split::<E>(&chunk[..32 * E]);
        let mut b = load_split::<E>(&chunk[32 * E..]);
        for _ in 0..4 {
            round(&mut a);
            round(&mut b);
        }
        for j in 0..E {
            // SAFETY: j < E and 64 * g + 64 <= n, so both stores end at or
            // before E * n <= dst.len().
            unsafe {
                let p = dp.add(j * n + 64 * g);
                _mm256_storeu_si256(p.cast(), a[j]);
                _mm256_storeu_si256(p.add(32).cast(), b[j]);
            }
        }
    }
    let start = pairs * 2;
    let groups = n / 32;
    for g in start..groups {
        let mut v = load_split::<E>(&src[32 * E * g..32 * E * (g + 1)]);
        for _ in 0..4 {
            round(&mut v);
        }
        for (j, vj) in v.iter().enumerate() {
            // SAFETY: j < E and 32 * g + 32 <= n, so the store ends at or
            // before E * n <= dst.len().
            unsafe { _mm256_storeu_si256(dp.add(j * n + 32 * g).cast(), *vj) };
        }
    }
    groups * 32
}

/// Shuffle for 4-byte elements with fewer shuffle-port operations than the
/// generic rounds: `pshufb` groups each lane's bytes by position, `vpermd`
/// pairs the lanes into 8-byte runs of one plane, and a 4x4 transpose of
/// those runs finishes the job.
#[target_feature(enable = "avx2")]
fn shuffle4(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    if src.len() < 4 * n || dst.len() < 4 * n {
        return 0;
    }
    let group = _mm256_setr_epi8(
        0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10,
        14, 3, 7, 11, 15,
    );
    let pair = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let transpose = |chunk: &[u8]| {
        let mut w = [_mm256_setzero_si256(); 4];
        for (k, wk) in w.iter_mut().enumerate() {
            let v = load32(chunk, 32 * k);
            *wk = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, group), pair);
        }
        let a = _mm256_unpacklo_epi64(w[0], w[1]);
        let b = _mm256_unpackhi_epi64(w[0], w[1]);
        let c = _mm256_unpacklo_epi64(w[2], w[3]);
        let d = _mm256_unpackhi_epi64(w[2], w[3]);
        [
            _mm256_permute2x128_si256::<0x20>(a, c),
            _mm256_permute2x128_si256::<0x20>(b, d),
            _mm256_permute2x128_si256::<0x31>(a, c),
            _mm256_permute2x128_si256::<0x31>(b, d),
        ]
    };
    // Two groups per step, so each plane gets a whole 64-byte line at once.
    let pairs = n / 64;
    let dp = dst.as_mut_ptr();
    for (g, chunk) in src.chunks_exact(256).take(pairs).enumerate() {
        let x = transpose(&chunk[..128]);
        let y = transpose(&chunk[128..]);
        for j in 0..4 {
            // SAFETY: j < 4 and 64 * g + 64 <= n, so both stores end at or
            // before 4 * n <= dst.len().
            unsafe {
                let p = dp.add(j * n + 64 * g);
                _mm256_storeu_si256(p.cast(), x[j]);
                _mm256_storeu_si256(p.add(32).cast(), y[j]);
            }
        }
    }
    let groups = n / 32;
    for g in 2 * pairs..groups {
        let x = transpose(&src[128 * g..128 * (g + 1)]);
        for (j, xj) in x.iter().enumerate() {
            // SAFETY: j < 4 and 32 * g + 32 <= n, so the store ends at or
            // before 4 * n <= dst.len().
            unsafe { _mm256_storeu_si256(dp.add(j * n + 32 * g).cast(), *xj) };
        }
    }
    groups * 32
}

/// Unshuffle for `E` in {2, 4, 8, 16}, 32 elements per iteration.
#[target_feature(enable = "avx2")]
fn unshuffle_pow2<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
    if src.len() < E * n || dst.len() < E * n {
        return 0;
    }
    let groups = n / 32;
    let (sp, dp) = (src.as_ptr(), dst.as_mut_ptr());
    for g in 0..groups {
        let mut v = [_mm256_setzero_si256(); E];
        for (j, vj) in v.iter_mut().enumerate() {
            // SAFETY: j < E and 32 * g + 32 <= n, so the 32 bytes read end
            // at or before E * n <= src.len().
            *vj = unsafe { _mm256_loadu_si256(sp.add(j * n + 32 * g).cast()) };
        }
        for _ in 0..E.trailing_zeros() {
            round(&mut v);
        }
        // Low lanes first, in address order, then the high lanes.
        let mut out = [_mm256_setzero_si256(); E];
        for y in 0..E / 2 {
            let (a, b) = (v[2 * y], v[2 * y + 1]);
            out[y] = _mm256_permute2x128_si256::<0x20>(a, b);
            out[E / 2 + y] = _mm256_permute2x128_si256::<0x31>(a, b);
        }
        for (y, o) in out.iter().enumerate() {
            // SAFETY: the stores cover this group's 32 * E bytes, which end
            // at 32 * E * (g + 1) <= E * n <= dst.len().
            unsafe { _mm256_storeu_si256(dp.add(32 * E * g + 32 * y).cast(), *o) };
        }
    }
    groups * 32
}

/// Shuffle for any other `ts >= 3`, as 16x16 byte tiles.
#[target_feature(enable = "avx2")]
fn shuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    if src.len() < ts * n || dst.len() < ts * n {
        return 0;
    }
    let groups = tiled_groups(ts, n, 32);
    let planes = ts.min(16);
    let (sp, dp) = (src.as_ptr(), dst.as_mut_ptr());
    // Column by column over the whole block, so that only 16 planes are
    // written at a time (see `unshuffle_tiled`).
    for c in columns(ts) {
        for g in 0..groups {
            let mut v = [_mm256_setzero_si256(); 16];
            for (t, vt) in v.iter_mut().enumerate() {
                // SAFETY: `tiled_groups` guarantees that the 16 bytes at
                // column c of every element of this group end within
                // ts * n <= src.len().
                *vt = unsafe {
                    let lo = _mm_loadu_si128(sp.add((g * 32 + t) * ts + c).cast());
                    let hi = _mm_loadu_si128(sp.add((g * 32 + 16 + t) * ts + c).cast());
                    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
                };
            }
            for _ in 0..4 {
                round(&mut v);
            }
            for (jc, vj) in v.iter().enumerate().take(planes) {
                // SAFETY: c + jc < ts and 32 * g + 32 <= n, so the store ends
                // at or before ts * n <= dst.len().
                unsafe { _mm256_storeu_si256(dp.add((c + jc) * n + g * 32).cast(), *vj) };
            }
        }
    }
    groups * 32
}

/// Unshuffle for any other `ts >= 3`, as 16x16 byte tiles.
#[target_feature(enable = "avx2")]
fn unshuffle_tiled(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    if src.len() < ts * n || dst.len() < ts * n || ts > 256 {
        return 0;
    }
    if ts < 16 {
        return unshuffle_narrow(ts, src, dst, n);
    }
    let groups = n / 32;
    let (sp, dp) = (src.as_ptr(), dst.as_mut_ptr());
    // One column across the whole block at a time: 16 planes are read
    // together instead of all of them, which the L1 sets cannot hold when
    // the planes are a multiple of 4 KiB apart.
    for c in columns(ts) {
        for g in 0..groups {
            let mut v = [_mm256_setzero_si256(); 16];
            for (jc, vj) in v.iter_mut().enumerate() {
                // SAFETY: c + jc < ts and 32 * g + 32 <= n, so the load ends
                // at or before ts * n <= src.len().
                *vj = unsafe { _mm256_loadu_si256(sp.add((c + jc) * n + g * 32).cast()) };
            }
            for _ in 0..4 {
                round(&mut v);
            }
            // In address order: the low lanes hold elements 0..16.
            for (t, vt) in v.iter().enumerate() {
                // SAFETY: c + 16 <= ts, so the store stays inside element
                // 32 * g + t < n.
                unsafe {
                    _mm_storeu_si128(
                        dp.add((g * 32 + t) * ts + c).cast(),
                        _mm256_castsi256_si128(*vt),
                    )
                };
            }
            for (t, vt) in v.iter().enumerate() {
                // SAFETY: as above, for element 32 * g + 16 + t < n.
                unsafe {
                    _mm_storeu_si128(
                        dp.add((g * 32 + 16 + t) * ts + c).cast(),
                        _mm256_extracti128_si256::<1>(*vt),
                    )
                };
            }
        }
    }
    groups * 32
}

/// Unshuffle for `ts` in 3..16 (not 4 or 8). A 16-byte store per element
/// would spill into the next elements, so the 32 elements of a group are
/// assembled in a stack buffer (each store's junk overwritten by the next
/// element's) and copied out in one sequential run.
#[target_feature(enable = "avx2")]
fn unshuffle_narrow(ts: usize, src: &[u8], dst: &mut [u8], n: usize) -> usize {
    let groups = n / 32;
    let sp = src.as_ptr();
    let mut tile = [0u8; 32 * 16 + 16];
    let tp = tile.as_mut_ptr();
    for (g, out) in dst.chunks_exact_mut(32 * ts).take(groups).enumerate() {
        let mut v = [_mm256_setzero_si256(); 16];
        for (j, vj) in v.iter_mut().enumerate().take(ts) {
            // SAFETY: j < ts and 32 * g + 32 <= n, so the load ends at or
            // before ts * n <= src.len().
            *vj = unsafe { _mm256_loadu_si256(sp.add(j * n + g * 32).cast()) };
        }
        for _ in 0..4 {
            round(&mut v);
        }
        for (t, vt) in v.iter().enumerate() {
            // SAFETY: t * ts + 16 <= 15 * 15 + 16, inside the tile.
            unsafe { _mm_storeu_si128(tp.add(t * ts).cast(), _mm256_castsi256_si128(*vt)) };
        }
        for (t, vt) in v.iter().enumerate() {
            // SAFETY: (16 + t) * ts + 16 <= 31 * 15 + 16, inside the tile.
            unsafe {
                _mm_storeu_si128(
                    tp.add((16 + t) * ts).cast(),
                    _mm256_extracti128_si256::<1>(*vt),
                )
            };
        }
        // 32 * ts bytes is a whole number of vectors; an inline copy beats a
        // call to memcpy at this size.
        for (k, o) in out.chunks_exact_mut(32).enumerate() {
            store32(o, 0, load32(&tile, 32 * k));
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
    let main = plane.len() / 32 * 32;
    planes_to_rows(&plane[..main], rows, 0, r);
    scalar::bits_to_rows_from(plane, rows, main / 8);
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

/// Plane from its eight bit rows, 256 plane bytes per iteration (see
/// [`rows_block_to_plane`]).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn rows_to_bits(rows: &[u8], plane: &mut [u8]) {
    let r = rows.len() / 8;
    let blocks = r / 32;
    for (s, out) in plane.chunks_exact_mut(256).take(blocks).enumerate() {
        let mut v = [_mm256_setzero_si256(); 8];
        for (b, vb) in v.iter_mut().enumerate() {
            *vb = load32(rows, b * r + 32 * s);
        }
        rows_block_to_plane(&mut v, out);
    }
    scalar::rows_to_bits_from(rows, plane, blocks * 32);
}

/// Bitshuffle of whole 8-element groups (`src.len() == dst.len() == n * ts`
/// with `n % 8 == 0`), fused for `ts` in {2, 4, 8, 16}: tiles of 512
/// elements are byte-shuffled into a stack buffer that stays in L1, and each
/// of its planes goes through `movemask` straight to the output rows. (Doing
/// whole 32-element groups in registers instead would write 8 * ts rows at
/// once, all a multiple of 4 KiB apart, which thrashes the L1 sets.)
/// Returns false (doing nothing) for other typesizes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn bitshuffle_fused(ts: usize, src: &[u8], dst: &mut [u8]) -> bool {
    let done = match ts {
        2 => bitshuffle_pow2::<2>(src, dst),
        4 => bitshuffle_pow2::<4>(src, dst),
        8 => bitshuffle_pow2::<8>(src, dst),
        16 => bitshuffle_pow2::<16>(src, dst),
        _ => return false,
    };
    scalar::bitshuffle_groups_from(ts, src, dst, done / 8);
    true
}

const BIT_TILE: usize = 512;

#[target_feature(enable = "avx2")]
fn bitshuffle_pow2<const E: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len() / E;
    let r = n / 8;
    let mut tile = [0u8; 16 * BIT_TILE];
    let tile = &mut tile[..E * BIT_TILE];
    let mut done = 0;
    // Full tiles, then one of whatever multiple of 32 elements is left.
    while done + 32 <= n {
        let t = if done + BIT_TILE <= n {
            BIT_TILE
        } else {
            (n - done) / 32 * 32
        };
        let tile = &mut tile[..E * t];
        shuffle_pow2::<E>(&src[E * done..E * (done + t)], tile, t);
        for (j, plane) in tile.chunks_exact(t).enumerate() {
            planes_to_rows(plane, dst, (8 * j) * r + done / 8, r);
        }
        done += t;
    }
    done
}

/// Bit rows of a plane of `plane.len()` (a multiple of 32) bytes, written
/// to `dst` at `base + b * r` for row `b`.
#[inline]
#[target_feature(enable = "avx2")]
fn planes_to_rows(plane: &[u8], dst: &mut [u8], base: usize, r: usize) {
    if base + 7 * r + plane.len() / 8 > dst.len() {
        return;
    }
    let dp = dst.as_mut_ptr();
    let pairs = plane.chunks_exact(64);
    let rest = pairs.remainder();
    let done = plane.len() / 64 * 8;
    for (s, chunk) in pairs.enumerate() {
        let mut x = load32(chunk, 0);
        let mut y = load32(chunk, 32);
        for b in (0..8).rev() {
            let lo = _mm256_movemask_epi8(x) as u32 as u64;
            let hi = _mm256_movemask_epi8(y) as u32 as u64;
            // SAFETY: s < plane.len() / 64, so the 8 bytes written end at or
            // before base + b * r + plane.len() / 8 <= dst.len() (checked).
            unsafe {
                dp.add(base + b * r + 8 * s)
                    .cast::<u64>()
                    .write_unaligned((lo | hi << 32).to_le())
            };
            x = _mm256_add_epi8(x, x);
            y = _mm256_add_epi8(y, y);
        }
    }
    if rest.len() == 32 {
        let mut x = load32(rest, 0);
        for b in (0..8).rev() {
            let m = _mm256_movemask_epi8(x) as u32;
            // SAFETY: as above, these 4 bytes are the last of the row's span.
            unsafe {
                dp.add(base + b * r + done)
                    .cast::<u32>()
                    .write_unaligned(m.to_le())
            };
            x = _mm256_add_epi8(x, x);
        }
    }
}

/// Inverse of [`bitshuffle_fused`]: 256 elements at a time, each plane is
/// rebuilt from its rows into a small stack tile (kept in L1), and the tile
/// is then unshuffled into place.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn bitunshuffle_fused(ts: usize, src: &[u8], dst: &mut [u8]) -> bool {
    let done = match ts {
        2 => bitunshuffle_pow2::<2>(src, dst),
        4 => bitunshuffle_pow2::<4>(src, dst),
        8 => bitunshuffle_pow2::<8>(src, dst),
        16 => bitunshuffle_pow2::<16>(src, dst),
        _ => return false,
    };
    scalar::bitunshuffle_groups_from(ts, src, dst, done / 8);
    true
}

#[target_feature(enable = "avx2")]
fn bitunshuffle_pow2<const E: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len() / E;
    let r = n / 8;
    let blocks = n / 256;
    let mut tile = [0u8; 16 * 256];
    let tile = &mut tile[..E * 256];
    for (s, chunk) in dst.chunks_exact_mut(256 * E).take(blocks).enumerate() {
        for (j, plane) in tile.chunks_exact_mut(256).enumerate() {
            let mut v = [_mm256_setzero_si256(); 8];
            for (b, vb) in v.iter_mut().enumerate() {
                *vb = load32(src, (8 * j + b) * r + 32 * s);
            }
            rows_block_to_plane(&mut v, plane);
        }
        unshuffle_pow2::<E>(tile, chunk, 256);
    }
    blocks * 256
}

/// Eight row vectors (32 bytes of each of the 8 bit rows) to the 256 plane
/// bytes they describe: three unpack rounds gather byte `k` of all eight rows
/// into one 64-bit lane, whose 8x8 bit transpose is plane bytes `8k..8k+8`.
#[inline]
#[target_feature(enable = "avx2")]
fn rows_block_to_plane(v: &mut [__m256i; 8], plane: &mut [u8]) {
    for _ in 0..3 {
        round(v);
    }
    for x in (0..8).step_by(2) {
        let a = transpose_bits_8x8(v[x]);
        let b = transpose_bits_8x8(v[x + 1]);
        store32(plane, 16 * x, _mm256_permute2x128_si256::<0x20>(a, b));
        store32(plane, 128 + 16 * x, _mm256_permute2x128_si256::<0x31>(a, b));
    }
}

// ---- AVX2 + GFNI --------------------------------------------------------
//
// `gf2p8affine(x, a)` computes, for every byte `x_i` of a 64-bit lane, bit
// `k` of the result as the parity of `a.byte[7 - k] & x_i`. With
// `x_i = 1 << i` that is bit `i` of `a.byte[7 - k]`: an 8x8 bit transpose
// of `a` with its bytes taken in reverse order, in one instruction instead
// of the eighteen of `transpose_bits_8x8`. The callers feed the bytes
// reversed so the result is the plain transpose.

/// Per 64-bit lane: result byte `i` bit `k` = `a.byte[7 - k]` bit `i`.
#[inline]
#[target_feature(enable = "avx2,gfni")]
fn transpose_bits_reversed(a: __m256i) -> __m256i {
    let unit = _mm256_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
    _mm256_gf2p8affine_epi64_epi8::<0>(unit, a)
}

/// Like [`rows_block_to_plane`], for rows loaded in reverse order
/// (`v[b]` = row `7 - b`).
#[inline]
#[target_feature(enable = "avx2,gfni")]
fn reversed_rows_block_to_plane(v: &mut [__m256i; 8], plane: &mut [u8]) {
    for _ in 0..3 {
        round(v);
    }
    for x in (0..8).step_by(2) {
        let a = transpose_bits_reversed(v[x]);
        let b = transpose_bits_reversed(v[x + 1]);
        store32(plane, 16 * x, _mm256_permute2x128_si256::<0x20>(a, b));
        store32(plane, 128 + 16 * x, _mm256_permute2x128_si256::<0x31>(a, b));
    }
}

/// [`rows_to_bits`] with GFNI.
///
/// # Safety
/// The CPU must support AVX2 and GFNI.
#[target_feature(enable = "avx2,gfni")]
pub(super) unsafe fn rows_to_bits_gfni(rows: &[u8], plane: &mut [u8]) {
    let r = rows.len() / 8;
    let blocks = r / 32;
    for (s, out) in plane.chunks_exact_mut(256).take(blocks).enumerate() {
        let mut v = [_mm256_setzero_si256(); 8];
        for (b, vb) in v.iter_mut().enumerate() {
            *vb = load32(rows, (7 - b) * r + 32 * s);
        }
        reversed_rows_block_to_plane(&mut v, out);
    }
    scalar::rows_to_bits_from(rows, plane, blocks * 32);
}

/// [`bitunshuffle_fused`] with GFNI.
///
/// # Safety
/// The CPU must support AVX2 and GFNI.
#[target_feature(enable = "avx2,gfni")]
pub(super) unsafe fn bitunshuffle_fused_gfni(ts: usize, src: &[u8], dst: &mut [u8]) -> bool {
    let done = match ts {
        2 => bitunshuffle_pow2_gfni::<2>(src, dst),
        4 => bitunshuffle_pow2_gfni::<4>(src, dst),
        8 => bitunshuffle_pow2_gfni::<8>(src, dst),
        16 => bitunshuffle_pow2_gfni::<16>(src, dst),
        _ => return false,
    };
    scalar::bitunshuffle_groups_from(ts, src, dst, done / 8);
    true
}

#[target_feature(enable = "avx2,gfni")]
fn bitunshuffle_pow2_gfni<const E: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len() / E;
    let r = n / 8;
    let blocks = n / 256;
    let mut tile = [0u8; 16 * 256];
    let tile = &mut tile[..E * 256];
    for (s, chunk) in dst.chunks_exact_mut(256 * E).take(blocks).enumerate() {
        for (j, plane) in tile.chunks_exact_mut(256).enumerate() {
            let mut v = [_mm256_setzero_si256(); 8];
            for (b, vb) in v.iter_mut().enumerate() {
                *vb = load32(src, (8 * j + 7 - b) * r + 32 * s);
            }
            reversed_rows_block_to_plane(&mut v, plane);
        }
        unshuffle_pow2::<E>(tile, chunk, 256);
    }
    blocks * 256
}

/// Bit rows of 256-byte blocks of a plane with GFNI: each 8-byte group is
/// bit-transposed into one byte of each row, then four unpack rounds (with
/// the lanes split as in [`load_split`]) gather 32 bytes per row. Rows go to
/// `dst[base + b * r..]`; the part of `plane` after the last whole block is
/// left to [`planes_to_rows`].
#[target_feature(enable = "avx2,gfni")]
fn planes_to_rows_gfni(plane: &[u8], dst: &mut [u8], base: usize, r: usize) {
    if base + 7 * r + plane.len() / 8 > dst.len() {
        return;
    }
    let reverse = _mm256_setr_epi8(
        7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13,
        12, 11, 10, 9, 8,
    );
    let dp = dst.as_mut_ptr();
    let blocks = plane.chunks_exact(256);
    let rest = blocks.remainder().len();
    let full = plane.len() - rest;
    for (s, block) in blocks.enumerate() {
        let mut v = load_split::<8>(block);
        for vx in v.iter_mut() {
            *vx = transpose_bits_reversed(_mm256_shuffle_epi8(*vx, reverse));
        }
        for _ in 0..4 {
            round(&mut v);
        }
        for (b, vb) in v.iter().enumerate() {
            // SAFETY: s < plane.len() / 256, so the 32 bytes written end at
            // or before base + b * r + plane.len() / 8 <= dst.len() (checked).
            unsafe { _mm256_storeu_si256(dp.add(base + b * r + 32 * s).cast(), *vb) };
        }
    }
    planes_to_rows(&plane[full..], dst, base + full / 8, r);
}

/// [`bits_to_rows`] with GFNI.
///
/// # Safety
/// The CPU must support AVX2 and GFNI.
#[target_feature(enable = "avx2,gfni")]
pub(super) unsafe fn bits_to_rows_gfni(plane: &[u8], rows: &mut [u8]) {
    let r = plane.len() / 8;
    let main = plane.len() / 32 * 32;
    planes_to_rows_gfni(&plane[..main], rows, 0, r);
    scalar::bits_to_rows_from(plane, rows, main / 8);
}

/// [`bitshuffle_fused`] with GFNI.
///
/// # Safety
/// The CPU must support AVX2 and GFNI.
#[target_feature(enable = "avx2,gfni")]
pub(super) unsafe fn bitshuffle_fused_gfni(ts: usize, src: &[u8], dst: &mut [u8]) -> bool {
    let done = match ts {
        2 => bitshuffle_pow2_gfni::<2>(src, dst),
        4 => bitshuffle_pow2_gfni::<4>(src, dst),
        8 => bitshuffle_pow2_gfni::<8>(src, dst),
        16 => bitshuffle_pow2_gfni::<16>(src, dst),
        _ => return false,
    };
    scalar::bitshuffle_groups_from(ts, src, dst, done / 8);
    true
}

#[target_feature(enable = "avx2,gfni")]
fn bitshuffle_pow2_gfni<const E: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len() / E;
    let r = n / 8;
    let mut tile = [0u8; 16 * BIT_TILE];
    let tile = &mut tile[..E * BIT_TILE];
    let mut done = 0;
    while done + 32 <= n {
        let t = if done + BIT_TILE <= n {
            BIT_TILE
        } else {
            (n - done) / 32 * 32
        };
        let tile = &mut tile[..E * t];
        shuffle_pow2::<E>(&src[E * done..E * (done + t)], tile, t);
        for (j, plane) in tile.chunks_exact(t).enumerate() {
            planes_to_rows_gfni(plane, dst, (8 * j) * r + done / 8, r);
        }
        done += t;
    }
    done
}
