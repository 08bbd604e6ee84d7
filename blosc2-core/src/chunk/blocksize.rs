//! The automatic block size and the stream-split rule. Compression ratios only
//! match upstream's when the blocks do, so these follow upstream's tuner
//! (`stune`) decisions exactly.

use super::header::{flags, MIN_BUFFERSIZE};
use super::params::{codec, SplitMode};

const L1: i32 = 32 * 1024;
/// Above this typesize a block is never split into per-byte streams.
const MAX_STREAMS: i32 = 16;

/// Codecs tuned for ratio get larger blocks.
fn is_high_ratio(compcode: u8) -> bool {
    matches!(compcode, codec::LZ4HC | codec::ZLIB | codec::ZSTD)
}

/// Whether blocks are split into `typesize` streams.
pub fn split_block(
    splitmode: SplitMode,
    compcode: u8,
    clevel: u8,
    filter_flags: u8,
    typesize: i32,
    blocksize: i32,
) -> bool {
    match splitmode {
        SplitMode::Always => return true,
        SplitMode::Never => return false,
        SplitMode::Auto | SplitMode::ForwardCompat => {}
    }
    let fast_codec = compcode == codec::BLOSCLZ
        || compcode == codec::LZ4
        || (compcode == codec::ZSTD && clevel <= 5);
    fast_codec
        && filter_flags & flags::DOSHUFFLE != 0
        && typesize <= MAX_STREAMS
        && typesize > 0
        && blocksize / typesize >= MIN_BUFFERSIZE
}

/// Inputs of the block-size choice.
pub struct BlocksizeInput {
    pub clevel: u8,
    pub typesize: i32,
    pub nbytes: i32,
    /// The user's forced block size, 0 for automatic.
    pub forced: i32,
    pub compcode: u8,
    pub splitmode: SplitMode,
    pub filter_flags: u8,
}

/// Upstream's automatic block size (or the forced one, clamped and aligned).
pub fn compute_blocksize(p: &BlocksizeInput) -> i32 {
    let typesize = p.typesize.max(1);
    let nbytes = p.nbytes;
    if nbytes < typesize {
        return 1;
    }
    let mut blocksize = nbytes;
    let split = split_block(
        p.splitmode,
        p.compcode,
        p.clevel,
        p.filter_flags,
        typesize,
        blocksize,
    );
    if p.forced != 0 {
        blocksize = p.forced;
    } else {
        if nbytes >= L1 {
            blocksize = L1;
            let hcr = is_high_ratio(p.compcode);
            if hcr {
                blocksize *= 2;
            }
            match p.clevel {
                0 => blocksize /= 4,
                1 => blocksize /= 2,
                2 => {}
                3 => blocksize *= 2,
                4 | 5 => blocksize *= 4,
                6..=8 => blocksize *= 8,
                9 => {
                    blocksize *= 8;
                    if hcr {
                        blocksize *= 2;
                    }
                }
                _ => {}
            }
        }
        if p.clevel > 0 && split {
            blocksize = match p.clevel {
                1..=3 => 32 * 1024,
                4..=6 => 64 * 1024,
                7 => 128 * 1024,
                8 => 256 * 1024,
                _ => 512 * 1024,
            };
            blocksize = blocksize.saturating_mul(typesize).min(4 * 1024 * 1024);
            blocksize = blocksize.max(32 * 1024);
        }
    }
    if blocksize > nbytes {
        blocksize = nbytes;
    }
    if blocksize > typesize {
        blocksize = blocksize / typesize * typesize;
    }
    blocksize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bs(clevel: u8, typesize: i32, nbytes: i32, compcode: u8, filter_flags: u8) -> i32 {
        compute_blocksize(&BlocksizeInput {
            clevel,
            typesize,
            nbytes,
            forced: 0,
            compcode,
            splitmode: SplitMode::ForwardCompat,
            filter_flags,
        })
    }

    #[test]
    fn known_choices() {
        // shuffled blosclz at clevel 5: 64 KiB per stream times typesize
        assert_eq!(
            bs(5, 4, 4_000_000, codec::BLOSCLZ, flags::DOSHUFFLE),
            256 * 1024
        );
        // zstd clevel 9 does not split: HCR doubling twice
        assert_eq!(
            bs(9, 4, 4_000_000, codec::ZSTD, flags::DOSHUFFLE),
            1024 * 1024
        );
        // tiny buffers
        assert_eq!(bs(5, 8, 4, codec::BLOSCLZ, 0), 1);
        assert_eq!(bs(5, 4, 1000, codec::BLOSCLZ, flags::DOSHUFFLE), 1000);
        // blocksize is aligned to typesize
        assert_eq!(bs(5, 3, 100_001, codec::LZ4HC, 0) % 3, 0);
    }
}
