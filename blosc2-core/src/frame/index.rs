//! The index chunk (spec: cframe-format.rst, "Chunks"): a regular Blosc2
//! chunk of little-endian int64 offsets, one per chunk. Negative values are
//! special chunks: bit 63 set, the special kind in bits 56..59.

use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::special::make_special;
use crate::chunk::{CParams, ChunkHeader, Compressor, DParams, Decompressor, Special, SplitMode};
use crate::error::{ErrorKind, Result};

/// The offset stored for a whole-chunk special value.
pub fn special_offset(kind: Special) -> i64 {
    (((kind as u64) << 56) | (1u64 << 63)) as i64
}

/// The special kind an offset stands for (None for a regular offset).
pub fn offset_special(off: i64) -> Result<Option<Special>> {
    if off >= 0 {
        return Ok(None);
    }
    let bits = ((off as u64) >> 56) as u8 & 0x07;
    match Special::from_bits(bits) {
        Some(k @ (Special::Zero | Special::Nan | Special::Uninit)) => Ok(Some(k)),
        _ => Err(ErrorKind::FrameSpecial),
    }
}

/// How the reference compresses the index, which depends on what wrote it
/// last; following it keeps our frames byte-identical to its frames.
#[derive(Clone, Debug)]
pub enum Style {
    /// A frame serialized from a plain super-chunk: default parameters.
    Fresh,
    /// After chunk operations on a frame: no split, 16 KiB blocks.
    Modified,
    /// Right after a special fill: one repeated offset, as a run-length
    /// chunk made with these parameters (the super-chunk's).
    Repeat(CParams),
}

/// Compress the offsets the way the reference does in situation `style`.
pub fn encode_with(offsets: &[i64], style: &Style) -> Result<Vec<u8>> {
    let raw: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    let params = match style {
        Style::Fresh => CParams {
            typesize: 8,
            ..CParams::default()
        },
        Style::Modified => CParams {
            typesize: 8,
            splitmode: SplitMode::Never,
            blocksize: 16 * 1024,
            compcode: 0,
            ..CParams::default()
        },
        Style::Repeat(p) => {
            if let Some(&first) = offsets.first() {
                if offsets.iter().all(|&o| o == first) {
                    let p = CParams {
                        typesize: 8,
                        blocksize: 16 * 1024,
                        clevel: 5,
                        compcode: 0,
                        ..p.clone()
                    };
                    let mut out = vec![0u8; EXTENDED_HEADER_LENGTH + 8];
                    let n = make_special(
                        &p,
                        Special::Value,
                        raw.len() as i32,
                        Some(&first.to_le_bytes()),
                        &mut out,
                    )?;
                    out.truncate(n);
                    return Ok(out);
                }
            }
            return encode_with(offsets, &Style::Modified);
        }
    };
    let mut c = Compressor::new(params);
    let mut out = vec![0u8; raw.len() + EXTENDED_HEADER_LENGTH];
    let n = c.compress(&raw, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Compress the offsets with default parameters (`Style::Fresh`).
pub fn encode(offsets: &[i64]) -> Result<Vec<u8>> {
    encode_with(offsets, &Style::Fresh)
}

/// Decode an index chunk that must hold exactly `nchunks` offsets.
pub fn decode(chunk: &[u8], nchunks: i64) -> Result<Vec<i64>> {
    let h = ChunkHeader::read(chunk)?;
    let want = nchunks.checked_mul(8).ok_or(ErrorKind::InvalidHeader)?;
    if h.nbytes as i64 != want {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Index chunk holds {} bytes, not the {want} of {nchunks} offsets",
            h.nbytes
        ));
    }
    let want = usize::try_from(want).map_err(|_| ErrorKind::MemoryAlloc)?;
    let mut raw = crate::spare::zeroed(want)?;
    let mut d = Decompressor::new(DParams::default());
    let n = d.decompress(chunk, &mut raw)?;
    if n != raw.len() {
        return Err(ErrorKind::InvalidHeader);
    }
    Ok(raw
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        .collect())
}

/// Offsets in one piece of an index stored whole or made of one repeated
/// value (a block of a reference index holds 2,048 with 16 KiB blocks).
const PLAIN_PIECE: u64 = 2048;

/// An index chunk read a piece at a time, for frames whose index is too
/// large to decode whole at open (millions of chunks): only its header and
/// block starts are read up front, and [`Lazy::piece`] decodes the piece
/// holding a given offset.
#[derive(Clone, Debug)]
pub struct Lazy {
    nchunks: u64,
    shape: Shape,
}

#[derive(Clone, Debug)]
enum Shape {
    /// Every offset the same: a run-length index chunk (what a special
    /// fill writes).
    Constant(i64),
    /// Stored whole: offset `i` is at byte `at + 8 i` of the frame.
    Plain { at: u64 },
    /// Compressed blocks of `per_block` offsets, each decodable alone:
    /// block `j` is stored at bytes `extents[j]` of the frame.
    Blocks {
        header: ChunkHeader,
        per_block: u64,
        extents: Vec<(u64, u64)>,
    },
}

impl Lazy {
    /// Prepare reading the `nchunks` offsets of the index chunk of
    /// `cbytes` bytes at `pos` of `src`. None when the chunk cannot be read
    /// a piece at a time (blocks that depend on each other, dictionaries,
    /// VL blocks): it is then decoded whole.
    pub fn open(
        src: &mut dyn super::Source,
        pos: u64,
        cbytes: u64,
        nchunks: u64,
    ) -> Result<Option<Lazy>> {
        let ext = EXTENDED_HEADER_LENGTH as u64;
        let hb = src.read_vec_at(pos, EXTENDED_HEADER_LENGTH)?;
        let h = ChunkHeader::read(&hb)?;
        let want = nchunks.checked_mul(8).ok_or(ErrorKind::InvalidHeader)?;
        if h.nbytes as u64 != want || h.cbytes as u64 != cbytes {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Index chunk holds {} bytes, not the {want} of {nchunks} offsets",
                h.nbytes
            ));
        }
        let shape = match Special::from_bits(h.special_bits()) {
            Some(Special::Zero) => Shape::Constant(0),
            Some(Special::Value) => {
                if h.typesize != 8 || cbytes < ext + 8 {
                    return Ok(None);
                }
                let v = src.read_vec_at(pos + ext, 8)?;
                Shape::Constant(i64::from_le_bytes(v[..8].try_into().unwrap_or([0; 8])))
            }
            Some(Special::None) if h.is_memcpyed() => {
                if cbytes != want + ext {
                    return Err(ErrorKind::InvalidHeader);
                }
                Shape::Plain { at: pos + ext }
            }
            Some(Special::None) => {
                let refused = !h.is_extended()
                    || h.is_vlblocks()
                    || h.is_lazy()
                    || h.uses_dict()
                    || h.blocks_need_the_first()
                    || h.blocksize <= 0
                    || h.blocksize % 8 != 0;
                if refused {
                    return Ok(None);
                }
                let (nblocks, _) = h.nblocks();
                let starts_len = (nblocks as u64)
                    .checked_mul(4)
                    .filter(|&n| n + ext <= cbytes)
                    .ok_or(ErrorKind::InvalidHeader)?;
                let raw = src.read_vec_at(pos + ext, starts_len as usize)?;
                let starts: Vec<u64> = raw
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
                    .collect();
                // each block ends where the next stored one starts (blocks
                // may be stored out of order), the last at the chunk's end
                let mut sorted = starts.clone();
                sorted.sort_unstable();
                let mut extents = Vec::with_capacity(starts.len());
                for &a in &starts {
                    if a < ext + starts_len || a >= cbytes {
                        return Err(crate::traced!(
                            ErrorKind::InvalidHeader,
                            "Index chunk block starts at byte {a}, outside its {cbytes} bytes"
                        ));
                    }
                    let k = sorted.partition_point(|&s| s <= a);
                    let b = sorted.get(k).copied().unwrap_or(cbytes);
                    extents.push((pos + a, pos + b));
                }
                Shape::Blocks {
                    header: h,
                    per_block: h.blocksize as u64 / 8,
                    extents,
                }
            }
            // no other special value makes sense as offsets
            _ => return Err(ErrorKind::InvalidHeader),
        };
        Ok(Some(Lazy { nchunks, shape }))
    }

    pub fn len(&self) -> u64 {
        self.nchunks
    }

    pub fn is_empty(&self) -> bool {
        self.nchunks == 0
    }

    /// The offset every entry has, for an index of one repeated value.
    pub fn constant(&self) -> Option<i64> {
        match self.shape {
            Shape::Constant(v) => Some(v),
            _ => None,
        }
    }

    /// How many offsets a piece holds (the last one may hold fewer).
    pub fn piece_len(&self) -> u64 {
        match &self.shape {
            Shape::Constant(_) | Shape::Plain { .. } => PLAIN_PIECE,
            Shape::Blocks { per_block, .. } => *per_block,
        }
    }

    fn piece_count(&self, j: u64) -> u64 {
        let first = j.saturating_mul(self.piece_len());
        self.nchunks.saturating_sub(first).min(self.piece_len())
    }

    /// The offsets of piece `j`: those from `j * piece_len()` on.
    pub fn piece(&self, src: &mut dyn super::Source, j: u64) -> Result<Vec<i64>> {
        let n = self.piece_count(j);
        if n == 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let raw = match &self.shape {
            Shape::Constant(v) => return Ok(vec![*v; n as usize]),
            Shape::Plain { at } => src.read_vec_at(at + j * PLAIN_PIECE * 8, n as usize * 8)?,
            Shape::Blocks {
                header, extents, ..
            } => {
                let (a, b) = extents[j as usize];
                let streams = src.read_vec_at(a, (b - a) as usize)?;
                let mut out = vec![0u8; n as usize * 8];
                let got = crate::chunk::decompress::decode_block_alone(
                    header, j as usize, &streams, &mut out,
                )?;
                if got != out.len() {
                    return Err(ErrorKind::InvalidHeader);
                }
                out
            }
        };
        Ok(raw
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::SliceSource;

    /// Offsets of `n` chunks of varying sizes, with some special ones.
    fn offsets(n: usize) -> Vec<i64> {
        let mut at = 0i64;
        (0..n)
            .map(|i| {
                if i % 97 == 5 {
                    return special_offset(Special::Zero);
                }
                let o = at;
                at += 100 + (i as i64 * 7919) % 4093;
                o
            })
            .collect()
    }

    fn read_all(lazy: &Lazy, src: &mut dyn crate::frame::Source) -> Vec<i64> {
        let mut all = Vec::new();
        let mut j = 0;
        while (all.len() as u64) < lazy.len() {
            all.extend(lazy.piece(src, j).unwrap());
            j += 1;
        }
        assert!(lazy.piece(src, j).is_err(), "a piece past the end");
        all
    }

    #[test]
    fn pieces_of_every_index_style_are_the_whole_decode() {
        let cp = CParams {
            typesize: 4,
            ..CParams::default()
        };
        for n in [1, 2047, 2048, 2049, 40_000] {
            let offs = offsets(n);
            let same = vec![special_offset(Special::Zero); n];
            for (style, o) in [
                (Style::Fresh, &offs),
                (Style::Modified, &offs),
                (Style::Repeat(cp.clone()), &same),
                (Style::Repeat(cp.clone()), &offs),
            ] {
                // the chunk sits in a frame: at some offset of the source
                let chunk = encode_with(o, &style).unwrap();
                let mut frame = vec![0xa5u8; 100];
                frame.extend_from_slice(&chunk);
                frame.extend_from_slice(&[0x5a; 50]);
                let mut src = SliceSource(&frame);
                let lazy = Lazy::open(&mut src, 100, chunk.len() as u64, n as u64)
                    .unwrap()
                    .unwrap_or_else(|| panic!("{n} offsets, {style:?}: not read lazily"));
                assert_eq!(read_all(&lazy, &mut src), *o, "{n} offsets, {style:?}");
                assert_eq!(decode(&chunk, n as i64).unwrap(), *o);
            }
        }
    }

    #[test]
    fn an_index_stored_whole_is_read_in_place() {
        let offs = offsets(5000);
        let raw: Vec<u8> = offs.iter().flat_map(|o| o.to_le_bytes()).collect();
        let p = CParams {
            typesize: 8,
            clevel: 0,
            ..CParams::default()
        };
        let mut chunk = vec![0u8; raw.len() + EXTENDED_HEADER_LENGTH];
        let n = Compressor::new(p).compress(&raw, &mut chunk).unwrap();
        chunk.truncate(n);
        assert!(ChunkHeader::read(&chunk).unwrap().is_memcpyed());
        let mut src = SliceSource(&chunk);
        let lazy = Lazy::open(&mut src, 0, chunk.len() as u64, 5000)
            .unwrap()
            .unwrap();
        assert_eq!(read_all(&lazy, &mut src), offs);
    }

    #[test]
    fn damaged_index_chunks_are_errors() {
        let offs = offsets(40_000);
        let chunk = encode_with(&offs, &Style::Modified).unwrap();
        let n = offs.len() as u64;
        let cb = chunk.len() as u64;
        // a count that does not match, a size that does not match
        assert!(Lazy::open(&mut SliceSource(&chunk), 0, cb, n + 1).is_err());
        assert!(Lazy::open(&mut SliceSource(&chunk), 0, cb + 1, n).is_err());
        // a block start outside the chunk
        let mut bad = chunk.clone();
        bad[EXTENDED_HEADER_LENGTH + 4..EXTENDED_HEADER_LENGTH + 8]
            .copy_from_slice(&(cb as u32 + 10).to_le_bytes());
        assert!(Lazy::open(&mut SliceSource(&bad), 0, cb, n).is_err());
        // a truncated source
        assert!(Lazy::open(&mut SliceSource(&chunk[..40]), 0, cb, n).is_err());
        // garbled block bytes: an error or other offsets, never a panic
        let lazy = Lazy::open(&mut SliceSource(&chunk), 0, cb, n)
            .unwrap()
            .unwrap();
        for at in (EXTENDED_HEADER_LENGTH + 80..chunk.len()).step_by(97) {
            let mut bad = chunk.clone();
            bad[at] ^= 0xff;
            bad[at.saturating_sub(1)] ^= 0x5a;
            for j in 0..lazy.len().div_ceil(lazy.piece_len()) {
                let _ = lazy.piece(&mut SliceSource(&bad), j);
            }
        }
    }
}
