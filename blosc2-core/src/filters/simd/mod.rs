//! Kernel selection for the byte and bit transposes behind SHUFFLE and
//! BITSHUFFLE.
//!
//! The public filter functions always use [`Kernel::best`]; the `*_with`
//! functions here take the kernel explicitly so tests and benchmarks can run
//! every implementation on the same machine. Asking for a kernel the CPU
//! lacks (or one of another architecture) silently downgrades to the best
//! one it has, which keeps these functions safe to call with any argument.
//!
//! All kernels produce byte-identical output: the scalar module is the
//! reference and the tests below compare every vector kernel against it.

// One of the places lib.rs allows `unsafe`: runtime CPU detection and the calls into `#[target_feature]` kernels.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::sync::atomic::{AtomicU8, Ordering};

pub(crate) mod scalar;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod avx2;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod sse2;
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
mod tiles;

/// An implementation of the transposition kernels.
///
/// The order is only meaningful among the kernels of one architecture
/// (there, later ones are faster and imply the earlier ones): Neon comes
/// last because it was added last, and comparing it with the x86 kernels
/// means nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kernel {
    /// Portable Rust, the reference implementation.
    Scalar,
    /// x86 SSE2 (128-bit vectors).
    Sse2,
    /// x86 AVX2 (256-bit vectors).
    Avx2,
    /// x86 AVX2 plus GFNI, whose affine instruction does an 8x8 bit
    /// transpose in one step (bit shuffles only; byte shuffles are AVX2's).
    Gfni,
    /// aarch64 NEON (128-bit vectors): byte and bit shuffles of every
    /// typesize, and the BYTEDELTA and DELTA decoders. The `no-neon`
    /// feature (CMake's `DEACTIVATE_NEON`) keeps it from being selected.
    Neon,
}

// 0 = not probed yet, otherwise 1 + the Kernel's position in `ALL`.
static BEST: AtomicU8 = AtomicU8::new(0);

const ALL: [Kernel; 5] = [
    Kernel::Scalar,
    Kernel::Sse2,
    Kernel::Avx2,
    Kernel::Gfni,
    Kernel::Neon,
];

/// The kernels this architecture has code for, slowest first. Each implies
/// the ones before it, so the usable ones are always a prefix, ending at
/// whatever `probe` found.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
const CHAIN: &[Kernel] = &[Kernel::Scalar, Kernel::Sse2, Kernel::Avx2, Kernel::Gfni];
#[cfg(target_arch = "aarch64")]
const CHAIN: &[Kernel] = &[Kernel::Scalar, Kernel::Neon];
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
const CHAIN: &[Kernel] = &[Kernel::Scalar];

/// Position of `k` in this architecture's [`CHAIN`], if it is there.
fn rank(k: Kernel) -> Option<usize> {
    CHAIN.iter().position(|&x| x == k)
}

impl Kernel {
    /// The fastest kernel this CPU supports, probed once and cached.
    pub fn best() -> Kernel {
        match BEST.load(Ordering::Relaxed) {
            0 => {
                let k = probe();
                // Racing threads all compute the same answer, so a plain
                // store is enough.
                BEST.store(
                    ALL.iter().position(|&x| x == k).unwrap_or(0) as u8 + 1,
                    Ordering::Relaxed,
                );
                k
            }
            v => ALL[(v - 1) as usize],
        }
    }

    /// Every kernel usable on this CPU, slowest first (always starts with
    /// [`Kernel::Scalar`]).
    pub fn available() -> Vec<Kernel> {
        // `probe` only answers kernels of CHAIN; 0 (scalar only) otherwise.
        let top = rank(Kernel::best()).unwrap_or(0);
        CHAIN[..=top].to_vec()
    }

    /// `self` if the CPU supports it, otherwise the best kernel it does.
    /// A kernel of another architecture (Neon on x86, Avx2 on Arm) is
    /// never supported, so it gets the best one too.
    fn usable(self) -> Kernel {
        let best = Kernel::best();
        match (rank(self), rank(best)) {
            (Some(k), Some(b)) if k <= b => self,
            _ => best,
        }
    }
}

/// The best kernel of the CPU, within what the build allows: `no-avx2`
/// (upstream's DEACTIVATE_AVX2) stops at SSE2 whatever the CPU has. The
/// AVX2 code stays compiled; `usable` never reaches it then.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn probe() -> Kernel {
    let avx2 = cfg!(not(feature = "no-avx2")) && is_x86_feature_detected!("avx2");
    if avx2 && is_x86_feature_detected!("gfni") {
        Kernel::Gfni
    } else if avx2 {
        Kernel::Avx2
    } else if is_x86_feature_detected!("sse2") {
        Kernel::Sse2
    } else {
        Kernel::Scalar
    }
}

/// NEON unless the build says `no-neon` (CMake's DEACTIVATE_NEON), as
/// `no-avx2` does for AVX2 above; the NEON code stays compiled either way.
/// NEON is part of the baseline of Rust's usual aarch64 targets, so the
/// run-time check practically always succeeds; it is what makes the
/// `unsafe` calls below sound on a target where it is not.
#[cfg(target_arch = "aarch64")]
fn probe() -> Kernel {
    if cfg!(not(feature = "no-neon")) && std::arch::is_aarch64_feature_detected!("neon") {
        Kernel::Neon
    } else {
        Kernel::Scalar
    }
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
fn probe() -> Kernel {
    Kernel::Scalar
}

thread_local! {
    // Bit (un)shuffle needs an intermediate buffer as large as the block;
    // reusing one per thread avoids an allocation (often an mmap plus page
    // faults for 256 KiB blocks) on every call.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Blocks larger than this get a temporary buffer instead of growing the
/// per-thread one, so a single huge block does not pin its size in every
/// thread for good.
const SCRATCH_KEEP: usize = 8 << 20;

fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    if len > SCRATCH_KEEP {
        return f(&mut vec![0u8; len]);
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < len {
                buf.resize(len, 0);
            }
            f(&mut buf[..len])
        }
        // Only reachable if `f` re-entered us; fall back to a fresh buffer.
        Err(_) => f(&mut vec![0u8; len]),
    })
}

/// Byte shuffle of whole elements: `src.len()` is a multiple of `ts >= 2`.
fn shuffle_exact(k: Kernel, ts: usize, src: &[u8], dst: &mut [u8]) {
    match k.usable() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Avx2 or Gfni (which implies AVX2)
        // when the CPU was detected to support it.
        Kernel::Avx2 | Kernel::Gfni => unsafe { avx2::shuffle_exact(ts, src, dst) },
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: as above, for SSE2.
        Kernel::Sse2 => unsafe { sse2::shuffle_exact(ts, src, dst) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable` only returns Neon when the CPU was detected to
        // support it.
        Kernel::Neon => unsafe { neon::shuffle_exact(ts, src, dst) },
        _ => scalar::shuffle_exact(ts, src, dst),
    }
}

/// Byte unshuffle of whole elements: `src.len()` is a multiple of `ts >= 2`.
fn unshuffle_exact(k: Kernel, ts: usize, src: &[u8], dst: &mut [u8]) {
    match k.usable() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Avx2 or Gfni (which implies AVX2)
        // when the CPU supports it.
        Kernel::Avx2 | Kernel::Gfni => unsafe { avx2::unshuffle_exact(ts, src, dst) },
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: as above, for SSE2.
        Kernel::Sse2 => unsafe { sse2::unshuffle_exact(ts, src, dst) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable` only returns Neon when the CPU supports it.
        Kernel::Neon => unsafe { neon::unshuffle_exact(ts, src, dst) },
        _ => scalar::unshuffle_exact(ts, src, dst),
    }
}

/// Plane (length a multiple of 8) to its eight bit rows.
fn bits_to_rows(k: Kernel, plane: &[u8], rows: &mut [u8]) {
    match k.usable() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Gfni when the CPU supports AVX2
        // and GFNI.
        Kernel::Gfni => unsafe { avx2::bits_to_rows_gfni(plane, rows) },
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Avx2 when the CPU supports it.
        Kernel::Avx2 => unsafe { avx2::bits_to_rows(plane, rows) },
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: as above, for SSE2.
        Kernel::Sse2 => unsafe { sse2::bits_to_rows(plane, rows) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable` only returns Neon when the CPU supports it.
        Kernel::Neon => unsafe { neon::bits_to_rows(plane, rows) },
        _ => scalar::bits_to_rows_from(plane, rows, 0),
    }
}

/// Eight bit rows back to their plane (length a multiple of 8).
fn rows_to_bits(k: Kernel, rows: &[u8], plane: &mut [u8]) {
    match k.usable() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Gfni when the CPU supports AVX2
        // and GFNI.
        Kernel::Gfni => unsafe { avx2::rows_to_bits_gfni(rows, plane) },
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Avx2 when the CPU supports it.
        Kernel::Avx2 => unsafe { avx2::rows_to_bits(rows, plane) },
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: as above, for SSE2.
        Kernel::Sse2 => unsafe { sse2::rows_to_bits(rows, plane) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable` only returns Neon when the CPU supports it.
        Kernel::Neon => unsafe { neon::rows_to_bits(rows, plane) },
        _ => scalar::rows_to_bits_from(rows, plane, 0),
    }
}

/// DELTA's first-block decode, a running XOR of `w`-byte units (`w` is 1,
/// 2, 4 or 8), over as many whole 16-byte vectors of `buf` as the kernel
/// does; returns how many bytes that is (0 for the scalar kernel), and the
/// caller finishes the rest from there.
pub(crate) fn prefix_xor(k: Kernel, buf: &mut [u8], w: usize) -> usize {
    debug_assert!(matches!(w, 1 | 2 | 4 | 8));
    // only x86 and aarch64 have vector kernels for this
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = buf;
    match k.usable() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` returns Sse2 or better only when the CPU has
        // SSE2 (every later kernel implies it).
        Kernel::Sse2 | Kernel::Avx2 | Kernel::Gfni => unsafe { sse2::prefix_xor(buf, w) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable` only returns Neon when the CPU supports it.
        Kernel::Neon => unsafe { neon::prefix_xor(buf, w) },
        _ => 0,
    }
}

/// One-pass bitshuffle of whole 8-element groups where the kernel has one
/// for `ts`; false if not (nothing written).
fn fused_bitshuffle(k: Kernel, ts: usize, src: &[u8], dst: &mut [u8]) -> bool {
    // Only x86 has fused kernels. (On aarch64 the two passes of
    // `bitshuffle_with` both run NEON already.)
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    let _ = (ts, src, dst);
    match k.usable() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Gfni when the CPU supports AVX2
        // and GFNI.
        Kernel::Gfni => unsafe { avx2::bitshuffle_fused_gfni(ts, src, dst) },
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Avx2 when the CPU supports it.
        Kernel::Avx2 => unsafe { avx2::bitshuffle_fused(ts, src, dst) },
        _ => false,
    }
}

/// Inverse of [`fused_bitshuffle`].
fn fused_bitunshuffle(k: Kernel, ts: usize, src: &[u8], dst: &mut [u8]) -> bool {
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    let _ = (ts, src, dst);
    match k.usable() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Gfni when the CPU supports AVX2
        // and GFNI.
        Kernel::Gfni => unsafe { avx2::bitunshuffle_fused_gfni(ts, src, dst) },
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Avx2 when the CPU supports it.
        Kernel::Avx2 => unsafe { avx2::bitunshuffle_fused(ts, src, dst) },
        _ => false,
    }
}

/// Running wrapping sum of bytes, `dst[i] = src[0] + ... + src[i]` (mod
/// 256), over `min(src.len(), dst.len())` bytes: BYTEDELTA's decoder.
pub fn prefix_sum_with(k: Kernel, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    match k.usable() {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        // SAFETY: `usable` only returns Sse2 or a later kernel (all of which
        // imply SSE2) when the CPU supports it.
        Kernel::Sse2 | Kernel::Avx2 | Kernel::Gfni => unsafe { sse2::prefix_sum(src, dst) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `usable` only returns Neon when the CPU supports it.
        Kernel::Neon => unsafe { neon::prefix_sum(src, dst) },
        _ => scalar::prefix_sum(src, dst),
    }
}

/// [`crate::filters::shuffle::shuffle`] with an explicit kernel. Processes
/// `min(src.len(), dst.len())` bytes; `ts` of 0 or 1 is a copy.
pub fn shuffle_with(k: Kernel, ts: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let main = if ts > 1 { len / ts * ts } else { 0 };
    if main > 0 {
        shuffle_exact(k, ts, &src[..main], &mut dst[..main]);
    }
    // Bytes that do not make a whole element stay where they are.
    dst[main..].copy_from_slice(&src[main..]);
}

/// [`crate::filters::shuffle::unshuffle`] with an explicit kernel.
pub fn unshuffle_with(k: Kernel, ts: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let main = if ts > 1 { len / ts * ts } else { 0 };
    if main > 0 {
        unshuffle_exact(k, ts, &src[..main], &mut dst[..main]);
    }
    dst[main..].copy_from_slice(&src[main..]);
}

/// Bitshuffle with an explicit kernel: the first `8 * floor(n / 8)` of the
/// `n = len / ts` elements are bit-transposed, the remaining bytes copied.
/// Processes `min(src.len(), dst.len())` bytes; `ts == 0` is a copy.
pub fn bitshuffle_with(k: Kernel, ts: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let n = len.checked_div(ts).unwrap_or(0) / 8 * 8;
    let main = n * ts;
    if n > 0 {
        if ts == 1 {
            bits_to_rows(k, &src[..main], &mut dst[..main]);
        } else if fused_bitshuffle(k, ts, &src[..main], &mut dst[..main]) {
            // done in one pass
        } else {
            // Byte planes first; each plane then becomes the 8 bit rows that
            // occupy the same byte range of the output.
            with_scratch(main, |tmp| {
                shuffle_exact(k, ts, &src[..main], tmp);
                for (plane, rows) in tmp.chunks_exact(n).zip(dst[..main].chunks_exact_mut(n)) {
                    bits_to_rows(k, plane, rows);
                }
            });
        }
    }
    dst[main..].copy_from_slice(&src[main..]);
}

/// Inverse of [`bitshuffle_with`].
pub fn bitunshuffle_with(k: Kernel, ts: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let n = len.checked_div(ts).unwrap_or(0) / 8 * 8;
    let main = n * ts;
    if n > 0 {
        if ts == 1 {
            rows_to_bits(k, &src[..main], &mut dst[..main]);
        } else if fused_bitunshuffle(k, ts, &src[..main], &mut dst[..main]) {
            // done in one pass
        } else {
            with_scratch(main, |tmp| {
                for (rows, plane) in src[..main].chunks_exact(n).zip(tmp.chunks_exact_mut(n)) {
                    rows_to_bits(k, rows, plane);
                }
                unshuffle_exact(k, ts, tmp, &mut dst[..main]);
            });
        }
    }
    dst[main..].copy_from_slice(&src[main..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    fn typesizes() -> Vec<usize> {
        let mut v: Vec<usize> = (1..=33).collect();
        v.extend([48, 64, 128, 255]);
        v
    }

    fn lengths() -> Vec<usize> {
        let mut v: Vec<usize> = (0..=300).collect();
        v.extend([1023, 4097, 8191, 65537, 100_003]);
        v
    }

    /// Bitshuffle straight from its definition, one bit at a time.
    fn naive_bitshuffle(ts: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / ts / 8 * 8;
        let mut out = src.to_vec();
        out[..n * ts].iter_mut().for_each(|b| *b = 0);
        for i in 0..n {
            for j in 0..ts {
                for b in 0..8 {
                    let bit = (src[i * ts + j] >> b) & 1;
                    let row = j * 8 + b;
                    let pos = row * n + i;
                    out[pos / 8] |= bit << (pos % 8);
                }
            }
        }
        out
    }

    #[test]
    fn scalar_bitshuffle_matches_definition() {
        for ts in [1, 2, 3, 4, 7, 8, 16] {
            for len in [0, 7, 8, 63, 64, 65, 200, 257] {
                let src = data(len, (ts * 1000 + len) as u64);
                let mut dst = vec![0u8; len];
                bitshuffle_with(Kernel::Scalar, ts, &src, &mut dst);
                assert_eq!(dst, naive_bitshuffle(ts, &src), "ts {ts} len {len}");
            }
        }
    }

    #[test]
    fn every_kernel_matches_scalar() {
        let kernels = Kernel::available();
        eprintln!("kernels tested: {kernels:?}");
        for ts in typesizes() {
            for len in lengths() {
                // the big lengths only for a subset, to keep the test quick
                if len > 300 && ts > 33 && len > 70_000 {
                    continue;
                }
                let src = data(len, (ts * 7919 + len) as u64);
                let mut ref_s = vec![0u8; len];
                let mut ref_b = vec![0u8; len];
                shuffle_with(Kernel::Scalar, ts, &src, &mut ref_s);
                bitshuffle_with(Kernel::Scalar, ts, &src, &mut ref_b);
                for &k in &kernels {
                    let mut out = vec![0xA5u8; len];
                    shuffle_with(k, ts, &src, &mut out);
                    assert_eq!(out, ref_s, "shuffle {k:?} ts {ts} len {len}");
                    let mut back = vec![0x5Au8; len];
                    unshuffle_with(k, ts, &out, &mut back);
                    assert_eq!(back, src, "unshuffle {k:?} ts {ts} len {len}");

                    let mut out = vec![0xA5u8; len];
                    bitshuffle_with(k, ts, &src, &mut out);
                    assert_eq!(out, ref_b, "bitshuffle {k:?} ts {ts} len {len}");
                    let mut back = vec![0x5Au8; len];
                    bitunshuffle_with(k, ts, &out, &mut back);
                    assert_eq!(back, src, "bitunshuffle {k:?} ts {ts} len {len}");
                }
            }
        }
    }

    #[test]
    fn prefix_sums_match_scalar() {
        for len in (0..=300).chain([1023, 4097]) {
            let src = data(len, len as u64 + 17);
            let mut want = vec![0u8; len];
            prefix_sum_with(Kernel::Scalar, &src, &mut want);
            let mut acc = 0u8;
            for (i, v) in src.iter().enumerate() {
                acc = acc.wrapping_add(*v);
                assert_eq!(want[i], acc);
            }
            for k in Kernel::available() {
                let mut out = vec![0u8; len];
                prefix_sum_with(k, &src, &mut out);
                assert_eq!(out, want, "{k:?} len {len}");
            }
        }
    }

    #[test]
    fn typesizes_beyond_a_byte() {
        // Not reachable from a chunk header, but the functions are public.
        for ts in [256, 257, 300, 1000] {
            for len in [0, 255, 256, 2048, 2047, 8 * ts, 8 * ts + 5, 40 * ts + 3] {
                let src = data(len, ts as u64 ^ len as u64);
                let mut want = vec![0u8; len];
                shuffle_with(Kernel::Scalar, ts, &src, &mut want);
                let mut want_b = vec![0u8; len];
                bitshuffle_with(Kernel::Scalar, ts, &src, &mut want_b);
                for k in Kernel::available() {
                    let mut out = vec![0u8; len];
                    shuffle_with(k, ts, &src, &mut out);
                    assert_eq!(out, want, "{k:?} ts {ts} len {len}");
                    let mut back = vec![0u8; len];
                    unshuffle_with(k, ts, &out, &mut back);
                    assert_eq!(back, src, "{k:?} ts {ts} len {len}");
                    bitshuffle_with(k, ts, &src, &mut out);
                    assert_eq!(out, want_b, "{k:?} ts {ts} len {len}");
                    bitunshuffle_with(k, ts, &out, &mut back);
                    assert_eq!(back, src, "{k:?} ts {ts} len {len}");
                }
            }
        }
    }

    #[test]
    fn degenerate_arguments_do_not_panic() {
        let src = data(50, 3);
        for &k in &Kernel::available() {
            for ts in [0, 1, 49, 50, 51, 300, usize::MAX] {
                let mut out = vec![0u8; 50];
                shuffle_with(k, ts, &src, &mut out);
                unshuffle_with(k, ts, &src, &mut out);
                bitshuffle_with(k, ts, &src, &mut out);
                bitunshuffle_with(k, ts, &src, &mut out);
                // mismatched lengths: only the common prefix is touched
                let mut short = vec![0u8; 10];
                shuffle_with(k, ts, &src, &mut short);
                bitshuffle_with(k, ts, &src[..5], &mut out);
            }
        }
    }

    #[test]
    #[cfg(all(feature = "no-avx2", any(target_arch = "x86", target_arch = "x86_64")))]
    fn no_avx2_stops_at_sse2() {
        assert!(Kernel::best() <= Kernel::Sse2);
        assert!(!Kernel::available().contains(&Kernel::Avx2));
        assert!(!Kernel::available().contains(&Kernel::Gfni));
    }

    #[test]
    #[cfg(all(feature = "no-neon", target_arch = "aarch64"))]
    fn no_neon_stays_scalar() {
        assert_eq!(Kernel::best(), Kernel::Scalar);
        assert_eq!(Kernel::available(), [Kernel::Scalar]);
        assert_eq!(Kernel::Neon.usable(), Kernel::Scalar);
    }

    #[test]
    #[cfg(all(not(feature = "no-neon"), target_arch = "aarch64"))]
    fn neon_is_selected_on_aarch64() {
        // Linux requires NEON (ASIMD) on aarch64, and qemu-user has it.
        assert_eq!(Kernel::best(), Kernel::Neon);
        assert_eq!(Kernel::available(), [Kernel::Scalar, Kernel::Neon]);
        assert_eq!(Kernel::Neon.usable(), Kernel::Neon);
    }

    #[test]
    fn best_is_cached_and_available() {
        assert_eq!(Kernel::best(), Kernel::best());
        let avail = Kernel::available();
        assert_eq!(avail[0], Kernel::Scalar);
        assert_eq!(*avail.last().unwrap(), Kernel::best());
        for k in ALL {
            let want = if avail.contains(&k) {
                k
            } else {
                Kernel::best()
            };
            assert_eq!(k.usable(), want, "{k:?}");
        }
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        assert_eq!(Kernel::Avx2.usable(), Kernel::best().min(Kernel::Avx2));
    }

    /// Naive running XOR of `w`-byte units, DELTA's first-block decode.
    fn naive_prefix_xor(buf: &[u8], w: usize) -> Vec<u8> {
        let mut out = buf.to_vec();
        for i in w..out.len() {
            out[i] ^= out[i - w];
        }
        out
    }

    /// `prefix_xor` with `k` on `src`: the bytes it claims are the running
    /// XOR, the rest are untouched.
    fn check_prefix_xor(k: Kernel, src: &[u8], w: usize) {
        let mut buf = src.to_vec();
        let done = prefix_xor(k, &mut buf, w);
        assert!(
            done.is_multiple_of(16) && done <= src.len(),
            "{k:?} w {w} done {done}"
        );
        let want = naive_prefix_xor(src, w);
        assert_eq!(buf[..done], want[..done], "{k:?} w {w} len {}", src.len());
        assert_eq!(buf[done..], src[done..], "{k:?} w {w} len {}", src.len());
    }

    #[test]
    fn foreign_kernels_fall_back() {
        // Kernels this architecture has no code for.
        let foreign: Vec<Kernel> = ALL.iter().copied().filter(|&k| rank(k).is_none()).collect();
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        assert_eq!(foreign, [Kernel::Neon]);
        #[cfg(target_arch = "aarch64")]
        assert_eq!(foreign, [Kernel::Sse2, Kernel::Avx2, Kernel::Gfni]);
        for k in foreign {
            assert_eq!(k.usable(), Kernel::best(), "{k:?}");
            assert!(!Kernel::available().contains(&k), "{k:?}");
            for ts in [1, 2, 3, 4, 7, 8, 16, 40] {
                let len = 300 * ts + 5;
                let src = data(len, ts as u64);
                for (name, transform) in TRANSFORMS {
                    let mut want = vec![0u8; len];
                    let mut out = vec![0xA5u8; len];
                    transform(Kernel::Scalar, ts, &src, &mut want);
                    transform(k, ts, &src, &mut out);
                    assert_eq!(out, want, "{name} {k:?} ts {ts}");
                }
                let mut want = vec![0u8; len];
                let mut out = vec![0xA5u8; len];
                prefix_sum_with(Kernel::Scalar, &src, &mut want);
                prefix_sum_with(k, &src, &mut out);
                assert_eq!(out, want, "prefix_sum {k:?} ts {ts}");
            }
            for w in [1, 2, 4, 8] {
                check_prefix_xor(k, &data(1000 + w, w as u64), w);
            }
        }
    }

    type Transform = fn(Kernel, usize, &[u8], &mut [u8]);

    const TRANSFORMS: [(&str, Transform); 4] = [
        ("shuffle", shuffle_with),
        ("unshuffle", unshuffle_with),
        ("bitshuffle", bitshuffle_with),
        ("bitunshuffle", bitunshuffle_with),
    ];

    /// Every available kernel against scalar on seeded random shapes:
    /// typesizes 1..=64 and some odd larger ones, lengths from empty to
    /// tens of KiB, some with a partial element or group at the end and
    /// some whole multiples of 16 elements (no scalar tail at all). Also
    /// the inverses on arbitrary input, not just on their forward output.
    #[test]
    fn random_shapes_match_scalar() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 16) as usize % bound.max(1)
        };
        let odd = [65, 96, 100, 127, 128, 129, 200, 255, 256, 257, 333, 1000];
        let kernels = Kernel::available();
        for case in 0..500 {
            let ts = if case % 5 == 4 {
                odd[next(odd.len())]
            } else {
                1 + next(64)
            };
            let mut len = match next(4) {
                0 => next(40 * ts),
                1 | 2 => next(4096),
                _ => next(70_000),
            };
            if next(3) == 0 {
                len = len / (16 * ts) * (16 * ts);
            }
            let src = data(len, case);
            for (name, transform) in TRANSFORMS {
                let mut want = vec![0u8; len];
                transform(Kernel::Scalar, ts, &src, &mut want);
                for &k in &kernels {
                    let mut out = vec![0xA5u8; len];
                    transform(k, ts, &src, &mut out);
                    assert!(out == want, "{name} {k:?} ts {ts} len {len}");
                }
            }
            let mut want_sum = vec![0u8; len];
            prefix_sum_with(Kernel::Scalar, &src, &mut want_sum);
            let w = [1, 2, 4, 8][case as usize % 4];
            for &k in &kernels {
                let mut out = vec![0x5Au8; len];
                prefix_sum_with(k, &src, &mut out);
                assert!(out == want_sum, "prefix_sum {k:?} len {len}");
                check_prefix_xor(k, &src, w);
            }
        }
    }
}
