//! Lazy chunks (spec: chunk-format, "Trailer"): what
//! `blosc2_schunk_get_lazychunk` hands out for a chunk of a frame on disk.
//! It holds the chunk's header (with the lazy bit set in `blosc2_flags`)
//! and block starts, then a trailer: the chunk's number (a chunk file
//! number in sparse frames), its offset from the start of the frame (the
//! file number again in sparse frames) and the compressed size of every
//! block. A decoder reads the blocks it needs from the frame.

use crate::chunk::header::{blosc2_flags, ChunkHeader, EXTENDED_HEADER_LENGTH};
use crate::error::{ErrorKind, Result};

/// Byte of the header holding `blosc2_flags`.
const BLOSC2_FLAGS_AT: usize = 31;
/// Fixed part of the trailer: int32 chunk number, int64 offset.
const TRAILER_FIXED: usize = 12;

/// Where the pieces of a chunk are, from its header alone.
pub(super) struct Layout {
    nblocks: usize,
    memcpyed: bool,
    /// Uncompressed block size (the block count for VL-block chunks).
    blocksize: usize,
    leftover: usize,
    vlblocks: bool,
}

impl Layout {
    /// The layout of a chunk that can be lazy; None for the chunks the
    /// reference hands out whole (special values, no blocks).
    pub(super) fn of(h: &ChunkHeader) -> Result<Option<Layout>> {
        if !h.is_extended() || h.special_bits() != 0 {
            return Ok(None);
        }
        let vlblocks = h.is_vlblocks();
        let (nblocks, leftover) = if vlblocks {
            (h.blocksize.max(0) as usize, 0)
        } else {
            h.nblocks()
        };
        if nblocks == 0 {
            return Ok(None);
        }
        let memcpyed = h.is_memcpyed();
        let cb = h.cbytes.max(0) as usize;
        // as the decoder: a chunk stored whole is its header and its data
        if memcpyed && (h.nbytes.max(0) as usize).checked_add(EXTENDED_HEADER_LENGTH) != Some(cb) {
            return Err(ErrorKind::InvalidHeader);
        }
        let starts = nblocks.checked_mul(4).ok_or(ErrorKind::InvalidHeader)?;
        if !memcpyed && starts > cb.saturating_sub(EXTENDED_HEADER_LENGTH) {
            return Err(ErrorKind::InvalidHeader);
        }
        if 2 * starts + EXTENDED_HEADER_LENGTH + TRAILER_FIXED > i32::MAX as usize {
            return Err(ErrorKind::InvalidHeader);
        }
        Ok(Some(Layout {
            nblocks,
            memcpyed,
            blocksize: h.blocksize.max(0) as usize,
            leftover,
            vlblocks,
        }))
    }

    /// Bytes of the chunk a lazy chunk copies: the header and, unless
    /// the blocks are stored plainly, the block starts.
    pub(super) fn meta_len(&self) -> usize {
        if self.memcpyed {
            EXTENDED_HEADER_LENGTH
        } else {
            self.trailer_at()
        }
    }

    /// Whether building this lazy chunk should first make sure the chunk's
    /// bytes exist: one stored whole has no block starts to read, so
    /// nothing else bounds its block count (and the lazy chunk's size, 8
    /// bytes a block) by what is really stored.
    pub(super) fn needs_presence_check(&self) -> bool {
        self.memcpyed && self.nblocks > 1 << 16
    }

    fn trailer_at(&self) -> usize {
        EXTENDED_HEADER_LENGTH + 4 * self.nblocks
    }

    fn len(&self) -> usize {
        self.trailer_at() + TRAILER_FIXED + 4 * self.nblocks
    }
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Build a lazy chunk from a chunk's first `meta_len` bytes.
pub(super) fn build(
    h: &ChunkHeader,
    layout: &Layout,
    meta: &[u8],
    nchunk: i32,
    offset: i64,
) -> Result<Vec<u8>> {
    let cb = h.cbytes.max(0) as usize;
    let n = layout.nblocks;
    let csizes: Vec<i32> = if layout.memcpyed {
        (0..n)
            .map(|j| {
                if j + 1 == n && layout.leftover > 0 {
                    layout.leftover as i32
                } else {
                    layout.blocksize as i32
                }
            })
            .collect()
    } else {
        // blocks may be stored out of order (parallel compression): each
        // one ends where the next stored one starts
        let starts: Vec<usize> = (0..n)
            .map(|j| le_i32(meta, EXTENDED_HEADER_LENGTH + 4 * j).max(0) as usize)
            .collect();
        let mut sorted = starts.clone();
        sorted.sort_unstable();
        starts
            .iter()
            .map(|&a| {
                let next = sorted.partition_point(|&x| x <= a);
                let end = sorted.get(next).copied().unwrap_or(cb);
                end.saturating_sub(a).min(i32::MAX as usize) as i32
            })
            .collect()
    };
    let mut out = crate::spare::zeroed(layout.len())?;
    out[..meta.len()].copy_from_slice(meta);
    out[BLOSC2_FLAGS_AT] |= blosc2_flags::LAZY;
    let t = layout.trailer_at();
    out[t..t + 4].copy_from_slice(&nchunk.to_le_bytes());
    out[t + 4..t + 12].copy_from_slice(&offset.to_le_bytes());
    for (j, c) in csizes.iter().enumerate() {
        let at = t + TRAILER_FIXED + 4 * j;
        out[at..at + 4].copy_from_slice(&c.to_le_bytes());
    }
    Ok(out)
}

/// What completing a lazy chunk takes.
pub(super) struct Plan {
    pub cbytes: usize,
    /// Bytes copied from the lazy chunk itself.
    pub meta_len: usize,
    pub nchunk: i32,
    /// Offset of the chunk from the start of the frame (contiguous).
    pub offset: i64,
    /// Byte ranges of the chunk to read.
    extents: Vec<(usize, usize)>,
    /// For a range of a chunk cut into streams: each block read, where its
    /// extent starts and ends, and its stream count.
    blocks: Vec<(usize, usize, usize)>,
}

impl Plan {
    /// Check a lazy chunk and work out the byte ranges of the real chunk
    /// needed to decode bytes `range` of its data (all when None).
    pub(super) fn parse(lazy: &[u8], range: Option<(usize, usize)>) -> Result<Plan> {
        let h = ChunkHeader::read(lazy)?;
        if !h.is_lazy() {
            return Err(ErrorKind::InvalidParam);
        }
        let layout = Layout::of(&h)?.ok_or(ErrorKind::InvalidHeader)?;
        if lazy.len() < layout.len() {
            return Err(ErrorKind::ReadBuffer);
        }
        let cbytes = h.cbytes.max(0) as usize;
        let meta_len = layout.meta_len();
        if cbytes < meta_len {
            return Err(ErrorKind::InvalidHeader);
        }
        let t = layout.trailer_at();
        let nchunk = le_i32(lazy, t);
        let mut o = [0u8; 8];
        o.copy_from_slice(&lazy[t + 4..t + 12]);
        let offset = i64::from_le_bytes(o);
        if offset < 0 || nchunk < 0 {
            return Err(ErrorKind::InvalidHeader);
        }
        let n = layout.nblocks;
        let csize = |j: usize| le_i32(lazy, t + TRAILER_FIXED + 4 * j);
        let start = |j: usize| -> usize {
            if layout.memcpyed {
                EXTENDED_HEADER_LENGTH + j * layout.blocksize
            } else {
                le_i32(lazy, EXTENDED_HEADER_LENGTH + 4 * j).max(0) as usize
            }
        };
        let mut extents = Vec::new();
        let mut checked = Vec::new();
        let streams = range.is_some() && !layout.memcpyed && !layout.vlblocks;
        if !layout.memcpyed {
            // the dictionary (if any) sits between the starts and the blocks
            let first = (0..n).map(start).min().unwrap_or(cbytes);
            if first < meta_len || first > cbytes {
                return Err(ErrorKind::InvalidHeader);
            }
            if first > meta_len {
                extents.push((meta_len, first));
            }
        }
        let blocks = match range {
            Some((a, b)) if !layout.vlblocks && layout.blocksize > 0 => {
                if b <= a {
                    0..0
                } else {
                    (a / layout.blocksize).min(n)..((b - 1) / layout.blocksize + 1).min(n)
                }
            }
            _ => 0..n,
        };
        // DELTA decodes every block against the first
        let first = (blocks.start > 0 && h.blocks_need_the_first()).then_some(0);
        for j in first.into_iter().chain(blocks) {
            let a = start(j);
            let c = csize(j);
            if c <= 0 {
                return Err(ErrorKind::InvalidHeader);
            }
            let b = a.checked_add(c as usize).ok_or(ErrorKind::InvalidHeader)?;
            if a < meta_len || b > cbytes {
                return Err(ErrorKind::InvalidHeader);
            }
            extents.push((a, b));
            if streams {
                checked.push((a, b, crate::chunk::decompress::block_nstreams(&h, j)));
            }
        }
        Ok(Plan {
            cbytes,
            meta_len,
            nchunk,
            offset,
            extents,
            blocks: checked,
        })
    }

    /// Whether every block read for a range ends within its own extent in
    /// `out` (the chunk completed from the extents); see
    /// [`crate::chunk::decompress::streams_fit`].
    pub(super) fn blocks_fit(&self, out: &[u8]) -> bool {
        self.blocks.iter().all(|&(a, b, nstreams)| {
            out.get(..b)
                .is_some_and(|c| crate::chunk::decompress::streams_fit(c, a, nstreams))
        })
    }

    pub(super) fn extents(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.extents.iter().copied()
    }
}

/// Make a completed lazy chunk an ordinary one again.
pub(super) fn clear_flag(chunk: &mut [u8]) {
    if chunk.len() > BLOSC2_FLAGS_AT {
        chunk[BLOSC2_FLAGS_AT] &= !blosc2_flags::LAZY;
    }
}
