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
///
/// Kinds 0, 3, 5, 6 and 7 are reserved (spec: cframe-format.rst) and
/// refused. C-Blosc2 3.3.5 instead tests the kind bits one at a time
/// (zeros, then uninitialized, then NaN), so it reads a data chunk's offset
/// damaged into all ones as a run of zeros: wrong bytes without an error.
pub fn offset_special(off: i64) -> Result<Option<Special>> {
    if off >= 0 {
        return Ok(None);
    }
    let bits = ((off as u64) >> 56) as u8 & 0x07;
    match Special::from_bits(bits) {
        Some(k @ (Special::Zero | Special::Nan | Special::Uninit)) => Ok(Some(k)),
        _ => Err(crate::traced!(
            ErrorKind::FrameSpecial,
            "Index offset {off:#018x} is special (bit 63) with kind {bits}, which the format reserves"
        )),
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
                let in_order = starts.windows(2).all(|w| w[0] < w[1]);
                let sorted = if in_order {
                    Vec::new()
                } else {
                    let mut v = starts.clone();
                    v.sort_unstable();
                    v
                };
                let sorted = if in_order { &starts } else { &sorted };
                let mut extents = Vec::with_capacity(starts.len());
                for (j, &a) in starts.iter().enumerate() {
                    if a < ext + starts_len || a >= cbytes {
                        return Err(crate::traced!(
                            ErrorKind::InvalidHeader,
                            "Index chunk block starts at byte {a}, outside its {cbytes} bytes"
                        ));
                    }
                    let b = if in_order {
                        starts.get(j + 1).copied().unwrap_or(cbytes)
                    } else {
                        let k = sorted.partition_point(|&s| s <= a);
                        sorted.get(k).copied().unwrap_or(cbytes)
                    };
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

/// The index of a frame that grows by appends, encoded without compressing
/// its unchanged blocks again: what [`encode_with`] gives with
/// [`Style::Modified`] (16 KiB blocks of 2,048 offsets, each compressed on
/// its own), with the streams of the full blocks kept from one encoding to
/// the next, so an append compresses only the last block or two.
pub struct Appender {
    /// Header of the last encoding (its flags and codec fields stay).
    header: ChunkHeader,
    /// The compressed streams of the first `streams.len()` blocks (all
    /// full ones).
    streams: Vec<Vec<u8>>,
    /// The offsets of the last of them, for a block after it too short to
    /// compress alone (see `encode`).
    last_full: Vec<i64>,
    /// Kept from one encoding to the next.
    comp: Compressor,
    out: Vec<u8>,
}

/// Offsets in a block of a [`Style::Modified`] index.
pub const MODIFIED_BLOCK_OFFSETS: usize = MODIFIED_BLOCKSIZE / 8;
const MODIFIED_BLOCKSIZE: usize = 16 * 1024;

fn modified_params() -> CParams {
    CParams {
        typesize: 8,
        splitmode: SplitMode::Never,
        blocksize: MODIFIED_BLOCKSIZE as i32,
        compcode: 0,
        ..CParams::default()
    }
}

fn raw_of(offsets: &[i64]) -> Vec<u8> {
    offsets.iter().flat_map(|o| o.to_le_bytes()).collect()
}

/// The one stream of the only block of `chunk`, or of its second one when
/// `second`; None when the chunk has no such stream (stored whole, special).
fn stream_of(chunk: &[u8], second: bool) -> Option<Vec<u8>> {
    let h = ChunkHeader::read(chunk).ok()?;
    let (nblocks, _) = h.nblocks();
    if h.is_memcpyed() || h.special_bits() != 0 || !h.dont_split() || nblocks != 1 + second as usize
    {
        return None;
    }
    let ext = EXTENDED_HEADER_LENGTH;
    let at = |j: usize| -> Option<usize> {
        let b = chunk.get(ext + 4 * j..ext + 4 * j + 4)?;
        Some(u32::from_le_bytes(b.try_into().ok()?) as usize)
    };
    let a = at(usize::from(second))?;
    chunk.get(a..h.cbytes as usize).map(<[u8]>::to_vec)
}

impl Appender {
    /// Start from `encoded`, an index of `nchunks` offsets made with
    /// [`Style::Modified`]; None when that is not a chunk of compressed
    /// blocks with a full one (those are encoded whole every time).
    pub fn new(nchunks: usize, encoded: &[u8]) -> Option<Appender> {
        let h = ChunkHeader::read(encoded).ok()?;
        let (nblocks, _) = h.nblocks();
        let full = nchunks / MODIFIED_BLOCK_OFFSETS;
        let usable = !h.is_memcpyed()
            && h.special_bits() == 0
            && h.dont_split()
            && h.blocksize as usize == MODIFIED_BLOCKSIZE
            && h.nbytes as usize == nchunks * 8
            && full >= 1
            && nblocks == nchunks.div_ceil(MODIFIED_BLOCK_OFFSETS);
        if !usable || encoded.len() < EXTENDED_HEADER_LENGTH + 4 * nblocks {
            return None;
        }
        let ext = EXTENDED_HEADER_LENGTH;
        let starts: Vec<usize> = (0..nblocks)
            .map(|j| {
                let b = &encoded[ext + 4 * j..ext + 4 * j + 4];
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
            })
            .collect();
        let mut streams = Vec::with_capacity(full);
        for j in 0..full {
            let end = starts.get(j + 1).copied().unwrap_or(h.cbytes as usize);
            // blocks laid out in order, as one thread writes them
            if starts[j] >= end {
                return None;
            }
            streams.push(encoded.get(starts[j]..end)?.to_vec());
        }
        let last_full = Self::decode_full(&h, full - 1, &streams[full - 1])?;
        Some(Appender::with(h, streams, last_full))
    }

    fn with(header: ChunkHeader, streams: Vec<Vec<u8>>, last_full: Vec<i64>) -> Appender {
        Appender {
            header,
            streams,
            last_full,
            comp: Compressor::new(modified_params()),
            out: vec![0u8; 2 * MODIFIED_BLOCKSIZE + 2 * EXTENDED_HEADER_LENGTH],
        }
    }

    /// The offsets of full block `j`, from its stream.
    fn decode_full(h: &ChunkHeader, j: usize, stream: &[u8]) -> Option<Vec<i64>> {
        let mut raw = vec![0u8; MODIFIED_BLOCKSIZE];
        let n = crate::chunk::decompress::decode_block_alone(h, j, stream, &mut raw).ok()?;
        (n == MODIFIED_BLOCKSIZE).then(|| {
            raw.chunks_exact(8)
                .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                .collect()
        })
    }

    /// Start from the index chunk `lazy` reads (of `nchunks` offsets), as
    /// it is stored: its full blocks' streams read as they are, or made
    /// once for an index of one repeated value. None when the chunk is not
    /// laid out as a [`Style::Modified`] encoding is.
    pub fn from_lazy(lazy: &Lazy, src: &mut dyn super::Source) -> Result<Option<Appender>> {
        let n = lazy.len() as usize;
        let per = MODIFIED_BLOCK_OFFSETS;
        let full = n / per;
        if full == 0 {
            return Ok(None);
        }
        match &lazy.shape {
            Shape::Constant(v) => {
                let two = encode_with(&vec![*v; 2 * per], &Style::Modified)?;
                let Some(mut a) = Appender::new(2 * per, &two) else {
                    return Ok(None);
                };
                let Some(s) = a.streams.first().cloned() else {
                    return Ok(None);
                };
                a.streams = vec![s; full];
                a.header.nbytes = (n * 8) as i32;
                Ok(Some(a))
            }
            Shape::Blocks {
                header,
                per_block,
                extents,
            } => {
                let laid_out = *per_block == per as u64
                    && header.dont_split()
                    && header.blocksize as usize == MODIFIED_BLOCKSIZE
                    && header.nbytes as usize == n * 8
                    && extents.len() == n.div_ceil(per)
                    && extents.windows(2).take(full).all(|w| w[0].1 == w[1].0);
                if !laid_out {
                    return Ok(None);
                }
                let (lo, hi) = (extents[0].0, extents[full - 1].1);
                let bytes = src.read_vec_at(
                    lo,
                    usize::try_from(hi - lo).map_err(|_| ErrorKind::MemoryAlloc)?,
                )?;
                let streams: Vec<Vec<u8>> = extents[..full]
                    .iter()
                    .map(|&(a, b)| bytes[(a - lo) as usize..(b - lo) as usize].to_vec())
                    .collect();
                let Some(last) = Self::decode_full(header, full - 1, &streams[full - 1]) else {
                    return Ok(None);
                };
                Ok(Some(Appender::with(*header, streams, last)))
            }
            Shape::Plain { .. } => Ok(None),
        }
    }

    /// Offsets from this entry on are what [`Self::encode`] takes: those
    /// after the last full block kept.
    pub fn tail_from(&self) -> usize {
        self.streams.len() * MODIFIED_BLOCK_OFFSETS
    }

    /// The index of `nchunks` offsets, those from [`Self::tail_from`] on
    /// being `tail` (the earlier ones unchanged since the last call). None
    /// when it cannot be told apart from a whole encoding, which must then
    /// be made (and the appender made anew from it). On success the
    /// appender keeps the new full blocks.
    pub fn encode(&mut self, nchunks: usize, tail: &[i64]) -> Result<Option<Vec<u8>>> {
        let from = self.tail_from();
        if nchunks < from || tail.len() != nchunks - from {
            return Ok(None);
        }
        let per = MODIFIED_BLOCK_OFFSETS;
        let (c, out) = (&mut self.comp, &mut self.out);
        // the blocks after the full ones kept: each compressed alone (with
        // the one before it when it is too short for that)
        let mut new: Vec<Vec<u8>> = Vec::new();
        let pieces: Vec<&[i64]> = tail.chunks(per).collect();
        for (k, piece) in pieces.iter().enumerate() {
            let short = piece.len() * 8 < crate::chunk::header::MIN_BUFFERSIZE as usize;
            let stream = if short {
                // a chunk that short would be stored whole: compress it as
                // the second block of two, as it is in the index
                let before: &[i64] = if k == 0 {
                    &self.last_full
                } else {
                    pieces[k - 1]
                };
                let mut two = raw_of(before);
                two.extend_from_slice(&raw_of(piece));
                let n = c.compress(&two, out)?;
                stream_of(&out[..n], true)
            } else {
                let n = c.compress(&raw_of(piece), out)?;
                stream_of(&out[..n], false)
            };
            let Some(stream) = stream else {
                return Ok(None);
            };
            new.push(stream);
        }
        // lay the chunk out as a whole encoding does, and make sure it would
        // have: every block fits, with all the room its codec may need
        let nbytes = nchunks * 8;
        let nblocks = nchunks.div_ceil(per);
        let dest_len = nbytes + EXTENDED_HEADER_LENGTH;
        let data_start = EXTENDED_HEADER_LENGTH + 4 * nblocks;
        let all = || self.streams.iter().chain(new.iter());
        let mut pos = data_start;
        let mut zero_runs = true;
        for (j, st) in all().enumerate() {
            let bsize = if j + 1 == nblocks && !nbytes.is_multiple_of(MODIFIED_BLOCKSIZE) {
                nbytes % MODIFIED_BLOCKSIZE
            } else {
                MODIFIED_BLOCKSIZE
            };
            if dest_len.saturating_sub(pos) < bsize + 5 {
                return Ok(None);
            }
            zero_runs &= st.len() == 4;
            pos += st.len();
        }
        if zero_runs || all().count() != nblocks {
            return Ok(None);
        }
        let mut chunk = Vec::with_capacity(pos);
        let mut h = self.header;
        h.nbytes = nbytes as i32;
        h.cbytes = pos as i32;
        chunk.resize(data_start, 0);
        h.write(&mut chunk[..EXTENDED_HEADER_LENGTH]);
        let mut at = data_start;
        for (j, st) in all().enumerate() {
            chunk[EXTENDED_HEADER_LENGTH + 4 * j..EXTENDED_HEADER_LENGTH + 4 * j + 4]
                .copy_from_slice(&(at as i32).to_le_bytes());
            at += st.len();
        }
        for st in all() {
            chunk.extend_from_slice(st);
        }
        // keep the blocks that are full now
        let full = nchunks / per;
        let kept = self.streams.len();
        if full > kept {
            self.last_full = pieces[full - kept - 1].to_vec();
        }
        let mut new = new.into_iter();
        while self.streams.len() < full {
            match new.next() {
                Some(s) => self.streams.push(s),
                None => break,
            }
        }
        self.header = h;
        Ok(Some(chunk))
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

    /// Offsets as appends of chunks of `sizes(i)` bytes leave them.
    fn grown(n: usize, sizes: impl Fn(usize) -> i64) -> Vec<i64> {
        let mut at = 0;
        (0..n)
            .map(|i| {
                if i % 1000 == 999 {
                    return special_offset(Special::Zero);
                }
                let o = at;
                at += sizes(i);
                o
            })
            .collect()
    }

    #[test]
    fn appends_encode_the_index_as_a_whole_encoding_does() {
        let mut seed = 12345u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let noise: Vec<i64> = (0..20_000).map(|_| (rnd() % 100_000) as i64).collect();
        type Sizes = Box<dyn Fn(usize) -> i64>;
        let kinds: [(&str, Sizes); 3] = [
            ("same size", Box::new(|_| 4128)),
            ("varying", Box::new(|i| 3000 + (i as i64 * 7919) % 1500)),
            ("random", Box::new(move |i| 1 + noise[i])),
        ];
        // emulated runs compare every k-th encoding, of a k-th as many appends
        let k = crate::test_stride();
        for (name, sizes) in kinds {
            let all = grown(2048 + 6952 / k, sizes);
            let start = 2048;
            let full = encode_with(&all[..start], &Style::Modified).unwrap();
            let mut a = Appender::new(start, &full).unwrap();
            let (mut fast, mut whole) = (0, 0);
            for n in start..=all.len() {
                let want = || encode_with(&all[..n], &Style::Modified).unwrap();
                match a.encode(n, &all[a.tail_from()..n]).unwrap() {
                    Some(got) => {
                        if n % k == 0 || n == all.len() {
                            let want = want();
                            assert_eq!(got, want, "{name}, {n} offsets");
                            assert_eq!(decode(&want, n as i64).unwrap(), all[..n]);
                        }
                        fast += 1;
                    }
                    None => {
                        let want = want();
                        assert_eq!(decode(&want, n as i64).unwrap(), all[..n]);
                        a = Appender::new(n, &want).unwrap_or_else(|| panic!("{name} {n}"));
                        whole += 1;
                    }
                }
            }
            assert!(fast > 9 * whole, "{name}: {fast} appended, {whole} whole");
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
        for at in (EXTENDED_HEADER_LENGTH + 80..chunk.len()).step_by(97 * crate::test_stride()) {
            let mut bad = chunk.clone();
            bad[at] ^= 0xff;
            bad[at.saturating_sub(1)] ^= 0x5a;
            for j in 0..lazy.len().div_ceil(lazy.piece_len()) {
                let _ = lazy.piece(&mut SliceSource(&bad), j);
            }
        }
    }
}
