//! DELTA (filter id 3): XOR against a reference, per block of a chunk.
//!
//! Upstream semantics, which the chunk pipeline has to reproduce:
//!
//! * Values are XORed, not subtracted, in units of `w` bytes where `w` is
//!   the typesize if it is 1, 2, 4 or 8, 8 for other multiples of 8, and 1
//!   for everything else. XOR works byte by byte, so `w` only decides which
//!   earlier bytes a byte is XORed with.
//! * The first block of the chunk (`offset == 0`) is coded against itself:
//!   its first unit is kept and every other unit is XORed with the unit
//!   before it. Decoding is then a running XOR.
//! * Every other block is XORed unit by unit with the chunk's first block
//!   (the "dref"), as original data when encoding and as already decoded
//!   data when decoding, so block 0 must be decoded first.
//! * Upstream leaves the `len % w` bytes after the last whole unit
//!   unwritten (whatever the destination held). Here they are copied
//!   unchanged, which round-trips.

use super::simd::{prefix_xor, Kernel};

/// The XOR unit for a typesize (see the module docs).
pub fn unit(typesize: usize) -> usize {
    match typesize {
        1 | 2 | 4 | 8 => typesize,
        t if t % 8 == 0 => 8,
        _ => 1,
    }
}

/// Delta-encodes one block `src` into `dst`.
///
/// `offset` is the block's byte offset in the chunk. For `offset == 0`,
/// `dref` should be the block itself (`src`, the data entering this filter);
/// for any other block it is the start of the chunk's original data (its
/// first block), at least `src.len()` bytes. If `dref` is shorter, units it
/// does not cover are copied unchanged. Processes
/// `min(src.len(), dst.len())` bytes; never fails.
pub fn delta_encode(dref: &[u8], offset: usize, src: &[u8], dst: &mut [u8], typesize: usize) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let w = unit(typesize);
    let body = len / w * w;
    let done = if offset == 0 {
        let lim = if dref.len() >= w {
            body.min((dref.len() + w) / w * w)
        } else {
            0
        };
        if lim >= w {
            dst[..w].copy_from_slice(&dref[..w]);
            for ((d, s), r) in dst[w..lim]
                .iter_mut()
                .zip(&src[w..lim])
                .zip(&dref[..lim - w])
            {
                *d = s ^ r;
            }
        }
        lim
    } else {
        let lim = body.min(dref.len() / w * w);
        for ((d, s), r) in dst[..lim].iter_mut().zip(&src[..lim]).zip(&dref[..lim]) {
            *d = s ^ r;
        }
        lim
    };
    dst[done..].copy_from_slice(&src[done..]);
}

/// Decodes the chunk's first block (`offset == 0`) in place: a running XOR
/// over units, since each unit was coded against its (original) predecessor.
pub fn delta_decode_first(buf: &mut [u8], typesize: usize) {
    delta_decode_first_with(Kernel::best(), buf, typesize);
}

/// [`delta_decode_first`] with a given vector kernel (the tests run each).
fn delta_decode_first_with(kernel: Kernel, buf: &mut [u8], typesize: usize) {
    let w = unit(typesize);
    let body = buf.len() / w * w;
    let buf = &mut buf[..body];
    let done = prefix_xor(kernel, buf, w);
    // Eight bytes at a time from there: a prefix XOR of the units inside
    // the word by shift-and-XOR doubling, then the last decoded unit before
    // the word, repeated across it, XORed in.
    let repeat: u64 = match w {
        1 => 0x0101_0101_0101_0101,
        2 => 0x0001_0001_0001_0001,
        4 => 0x0000_0001_0000_0001,
        _ => 1,
    };
    let last_unit = |word: u64| (word >> (64 - 8 * w)).wrapping_mul(repeat);
    let mut carry = match done.checked_sub(8).and_then(|at| buf.get(at..done)) {
        Some(b) => last_unit(u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
        None => 0,
    };
    let words_end = done + (body - done) / 8 * 8;
    for word in buf[done..words_end].chunks_exact_mut(8) {
        let mut b8 = [0u8; 8];
        b8.copy_from_slice(word);
        let mut x = u64::from_le_bytes(b8);
        let mut s = 8 * w;
        while s < 64 {
            x ^= x << s;
            s *= 2;
        }
        x ^= carry;
        word.copy_from_slice(&x.to_le_bytes());
        carry = last_unit(x);
    }
    for k in words_end.max(w)..body {
        buf[k] ^= buf[k - w];
    }
}

/// Decodes a block in place.
///
/// For `offset != 0`, `dref` is the chunk's first block, already decoded,
/// at least `buf.len()` bytes (units it does not cover are left as they
/// are). For `offset == 0` the block is its own reference, so `dref` is
/// ignored and this is [`delta_decode_first`]. Never fails.
pub fn delta_decode(dref: &[u8], offset: usize, buf: &mut [u8], typesize: usize) {
    if offset == 0 {
        delta_decode_first(buf, typesize);
        return;
    }
    let w = unit(typesize);
    let lim = (buf.len() / w * w).min(dref.len() / w * w);
    for (d, r) in buf[..lim].iter_mut().zip(&dref[..lim]) {
        *d ^= r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize, seed: u32) -> Vec<u8> {
        let mut x = seed.wrapping_mul(2654435761) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x >> 8) as u8
            })
            .collect()
    }

    /// Upstream's element-wise definition for the first block.
    fn naive_first(src: &[u8], w: usize) -> Vec<u8> {
        let mut out = src.to_vec();
        let n = src.len() / w;
        for i in 1..n {
            for b in 0..w {
                out[i * w + b] = src[i * w + b] ^ src[(i - 1) * w + b];
            }
        }
        out
    }

    #[test]
    fn units() {
        assert_eq!(unit(1), 1);
        assert_eq!(unit(2), 2);
        assert_eq!(unit(4), 4);
        assert_eq!(unit(8), 8);
        assert_eq!(unit(16), 8);
        assert_eq!(unit(24), 8);
        assert_eq!(unit(3), 1);
        assert_eq!(unit(12), 1);
        assert_eq!(unit(0), 8);
    }

    #[test]
    fn first_block_round_trip() {
        for ts in [1, 2, 3, 4, 6, 8, 12, 16, 32] {
            for len in (0..70).chain([255, 1000, 4099]) {
                let src = data(len, (ts * 100 + len) as u32);
                let mut enc = vec![0u8; len];
                delta_encode(&src, 0, &src, &mut enc, ts);
                assert_eq!(enc, naive_first(&src, unit(ts)), "ts {ts} len {len}");
                delta_decode_first(&mut enc, ts);
                assert_eq!(enc, src, "ts {ts} len {len}");
            }
        }
    }

    /// Every vector kernel decodes the first block as the word-wise code
    /// does alone (the scalar kernel), at every length around the vector
    /// and word boundaries.
    #[test]
    fn first_block_kernels_agree() {
        for ts in [1, 2, 3, 4, 8, 16, 24] {
            for len in (0..100).chain([255, 256, 257, 1000, 4099, 32768]) {
                let src = data(len, (ts * 7 + len) as u32);
                let mut enc = vec![0u8; len];
                delta_encode(&src, 0, &src, &mut enc, ts);
                for k in Kernel::available() {
                    let mut dec = enc.clone();
                    delta_decode_first_with(k, &mut dec, ts);
                    assert_eq!(dec, src, "{k:?} ts {ts} len {len}");
                }
            }
        }
    }

    #[test]
    fn other_blocks_round_trip() {
        for ts in [1, 2, 4, 5, 8, 16] {
            let chunk = data(3000, ts as u32);
            let bsize = 1024;
            let (first, rest) = chunk.split_at(bsize);
            let mut dec0 = vec![0u8; bsize];
            delta_encode(first, 0, first, &mut dec0, ts);
            delta_decode(&[], 0, &mut dec0, ts);
            assert_eq!(dec0, first);
            for (nb, block) in rest.chunks(bsize).enumerate() {
                let mut enc = vec![0u8; block.len()];
                delta_encode(&chunk, (nb + 1) * bsize, block, &mut enc, ts);
                let w = unit(ts);
                let body = block.len() / w * w;
                for k in 0..body {
                    assert_eq!(enc[k], block[k] ^ chunk[k]);
                }
                assert_eq!(enc[body..], block[body..]);
                delta_decode(&dec0, (nb + 1) * bsize, &mut enc, ts);
                assert_eq!(enc, block);
            }
        }
    }

    #[test]
    fn short_reference_does_not_panic() {
        let src = data(100, 9);
        for ts in [1, 2, 8] {
            for rlen in [0, 1, 7, 8, 50] {
                let mut enc = vec![0u8; 100];
                delta_encode(&src[..rlen], 0, &src, &mut enc, ts);
                delta_encode(&src[..rlen], 64, &src, &mut enc, ts);
                delta_decode(&src[..rlen], 64, &mut enc, ts);
                delta_encode(&src, 0, &src, &mut enc[..3], ts);
            }
        }
        delta_decode_first(&mut [], 4);
        delta_decode_first(&mut [1], 4);
    }
}
