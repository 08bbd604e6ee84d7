//! The geometry the tiled byte-shuffle kernels of every architecture share
//! (SSE2 and NEON work on 16 elements per tile, AVX2 on 32): which 16-byte
//! columns cover an element, and how many whole tiles a block holds.

/// Byte offsets of the 16-byte columns that cover an element: whole
/// columns, plus one ending at the element's end (overlapping the one
/// before it) when `ts % 16 != 0`. Elements narrower than 16 bytes get one
/// column that reaches (shuffle) or spills (unshuffle) into the elements
/// after them.
pub(super) fn columns(ts: usize) -> impl Iterator<Item = usize> {
    let full = ts / 16;
    let extra = (ts >= 16 && !ts.is_multiple_of(16)).then(|| ts - 16);
    (0..full.max(1)).map(|q| 16 * q).chain(extra)
}

/// Tiles of `per` elements whose 16-byte column accesses all end within
/// the `n * ts` bytes: for `ts < 16` the last element's access reaches
/// `16 - ts` bytes past it, which must still be inside the block.
pub(super) fn tiled_groups(ts: usize, n: usize, per: usize) -> usize {
    if ts >= 16 {
        n / per
    } else {
        let len = n * ts;
        let need = (per - 1) * ts + 16;
        if len < need {
            0
        } else {
            ((len - need) / (per * ts) + 1).min(n / per)
        }
    }
}
