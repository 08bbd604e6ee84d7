//! Frames (spec: cframe-format.rst, sframe-format.rst): the serialized form
//! of a super-chunk, contiguous (one buffer or file) or sparse (a directory).
//!
//! Reading goes through [`Source`], so the same checks run on a buffer and
//! on a file: every length and offset read from the frame is validated with
//! checked arithmetic before it is used.

pub mod cframe;
pub mod checksum;
pub mod header;
pub mod index;
pub mod sframe;
pub mod trailer;

use crate::error::{ErrorKind, Result};
use crate::io::Stream;
use crate::metalayers::Metalayer;
use header::{FrameHeader, HEADER_MINLEN};
use trailer::TRAILER_MINLEN;

/// Random access to the bytes of one frame; position 0 is its first byte.
pub trait Source {
    /// Bytes available from position 0 (the frame may be shorter).
    fn available(&mut self) -> Result<u64>;
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()>;
    /// `len` bytes at `pos` in a new buffer.
    fn read_vec_at(&mut self, pos: u64, len: usize) -> Result<Vec<u8>> {
        let mut v = crate::spare::zeroed(len)?;
        self.read_at(pos, &mut v)?;
        Ok(v)
    }
}

/// A frame in memory.
pub struct SliceSource<'a>(pub &'a [u8]);

impl Source for SliceSource<'_> {
    fn available(&mut self) -> Result<u64> {
        Ok(self.0.len() as u64)
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let start = usize::try_from(pos).map_err(|_| ErrorKind::ReadBuffer)?;
        let end = start.checked_add(buf.len()).ok_or(ErrorKind::ReadBuffer)?;
        buf.copy_from_slice(self.0.get(start..end).ok_or(ErrorKind::ReadBuffer)?);
        Ok(())
    }
}

/// Bytes of a frame held in memory, `at` bytes into it (a part just
/// written, read without reading it back).
pub struct PartSource<'a> {
    pub at: u64,
    pub bytes: &'a [u8],
}

impl Source for PartSource<'_> {
    fn available(&mut self) -> Result<u64> {
        Ok(self.at + self.bytes.len() as u64)
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let rel = pos.checked_sub(self.at).ok_or(ErrorKind::ReadBuffer)?;
        SliceSource(self.bytes).read_at(rel, buf)
    }
}

/// A frame stored in a file from byte `base` on.
pub struct StreamSource<'a> {
    pub stream: &'a mut dyn Stream,
    pub base: u64,
}

impl Source for StreamSource<'_> {
    fn available(&mut self) -> Result<u64> {
        let size = self.stream.size()?;
        size.checked_sub(self.base).ok_or(ErrorKind::FileRead)
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let p = self.base.checked_add(pos).ok_or(ErrorKind::FileRead)?;
        self.stream.read_exact_at(p, buf)
    }
    fn read_vec_at(&mut self, pos: u64, len: usize) -> Result<Vec<u8>> {
        let p = self.base.checked_add(pos).ok_or(ErrorKind::FileRead)?;
        self.stream.read_vec_at(p, len)
    }
}

fn read_vec(src: &mut dyn Source, pos: i64, len: i64) -> Result<Vec<u8>> {
    if pos < 0 || len < 0 {
        return Err(ErrorKind::ReadBuffer);
    }
    src.read_vec_at(
        pos as u64,
        usize::try_from(len).map_err(|_| ErrorKind::ReadBuffer)?,
    )
}

/// What a reader learns from a frame besides the chunk data.
#[derive(Clone, Debug)]
pub struct FrameInfo {
    pub header: FrameHeader,
    pub nchunks: i64,
    pub metalayers: Vec<Metalayer>,
    pub vlmetalayers: Vec<Metalayer>,
    /// One per chunk: relative to the end of the header (contiguous), a
    /// chunk file number (sparse), or a special value (negative).
    pub offsets: Vec<i64>,
    pub trailer_len: i64,
    /// The index read a piece at a time instead of `offsets` (see
    /// [`read_info_lazy`]).
    pub lazy: Option<index::Lazy>,
    /// What the frame's checksums say (docs/checksums.md); `Unverified`
    /// for a frame without them, at no cost.
    pub checksums: checksum::Verdict,
}

/// Read and validate everything but the chunks. `exact` demands the frame
/// fill the source (a buffer), otherwise it may be followed by more bytes.
pub fn read_info(src: &mut dyn Source, sparse: bool, exact: bool) -> Result<FrameInfo> {
    read_info_lazy(src, sparse, exact, u64::MAX)
}

/// [`read_info`] that leaves the index of a frame of at least `lazy_from`
/// fixed-size chunks undecoded ([`FrameInfo::lazy`], `offsets` empty), so
/// that opening a frame of millions of chunks costs what a small one does;
/// frames whose checksums need the whole index are decoded as usual.
pub fn read_info_lazy(
    src: &mut dyn Source,
    sparse: bool,
    exact: bool,
    lazy_from: u64,
) -> Result<FrameInfo> {
    let avail = src.available()?;
    if avail < (HEADER_MINLEN + TRAILER_MINLEN) as u64 {
        return Err(crate::traced!(
            ErrorKind::ReadBuffer,
            "Frame of {avail} bytes is shorter than a header and a trailer ({} bytes)",
            HEADER_MINLEN + TRAILER_MINLEN
        ));
    }
    let fixed = read_vec(src, 0, HEADER_MINLEN as i64)?;
    let h = FrameHeader::parse(&fixed)?;
    let want_type = if sparse {
        header::SPARSE
    } else {
        header::CONTIGUOUS
    };
    // The high nibble is for user-defined frame types, which this library
    // has none of: the whole byte must be the expected type.
    if h.frame_type != want_type {
        return Err(crate::traced!(
            ErrorKind::FrameType,
            "Frame type {} (offset {}) is not the {} frame expected",
            h.frame_type,
            header::pos::FRAME_TYPE,
            if sparse { "sparse" } else { "contiguous" }
        ));
    }
    let flen = h.frame_len;
    if flen < (HEADER_MINLEN + TRAILER_MINLEN) as i64
        || flen as u64 > avail
        || (exact && flen as u64 != avail)
    {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Frame length {flen} (header offset {}) does not match the {avail} bytes available{}",
            header::pos::FRAME_LEN,
            if flen as u64 > avail {
                ": it exceeds the file or buffer"
            } else {
                ""
            }
        ));
    }
    let header_len = h.header_len as i64;
    let hdr = read_vec(src, 0, header_len)?;
    let metalayers = header::parse_metalayers(&hdr)?;

    let last = read_vec(src, flen - TRAILER_MINLEN as i64, TRAILER_MINLEN as i64)?;
    let trailer_len = trailer::trailer_len(&last, flen)?;
    let trailer_off = flen - trailer_len;
    if trailer_off < header_len {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Trailer of {trailer_len} bytes at offset {trailer_off} overlaps the {header_len}-byte header"
        ));
    }
    // A frame without data (nbytes 0) has no index: C-Blosc2 looks for its
    // trailer right after the chunks section, so a frame whose nbytes is
    // damaged to 0 does not read there. Reading it as empty would lose
    // every chunk the index still lists without saying so.
    let data_end = if sparse {
        header_len
    } else {
        header_len.saturating_add(h.cbytes)
    };
    if h.nbytes == 0 && trailer_off != data_end {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Frame header gives 0 bytes of data (offset {}), yet {} bytes of chunks and index lie between its header and its trailer at offset {trailer_off}",
            header::pos::NBYTES,
            trailer_off - header_len
        ));
    }
    let tr = read_vec(src, trailer_off, trailer_len)?;
    let vlmetalayers = trailer::parse_vlmetalayers(&tr)?;

    let fixed = h.nchunks()?;
    let mut nchunks = fixed.unwrap_or(0);
    let mut offsets = Vec::new();
    let mut ichunk = Vec::new();
    let mut lazy = None;
    if fixed != Some(0) {
        let idx_pos = if sparse {
            header_len
        } else {
            header_len
                .checked_add(h.cbytes)
                .ok_or(ErrorKind::InvalidHeader)?
        };
        let ext = crate::chunk::header::EXTENDED_HEADER_LENGTH as i64;
        if idx_pos.checked_add(ext).ok_or(ErrorKind::InvalidHeader)? > trailer_off {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Index chunk at offset {idx_pos} runs into the trailer at offset {trailer_off}"
            ));
        }
        let ih = read_vec(src, idx_pos, ext)?;
        let ihdr = crate::chunk::ChunkHeader::read(&ih)?;
        // The index is an array of int64 offsets: C-Blosc2 reads them as
        // items of the index chunk's typesize and refuses any other width.
        if ihdr.typesize != 8 {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Index chunk at offset {idx_pos} has typesize {} (chunk offset 3), not the 8 of its int64 offsets",
                ihdr.typesize
            ));
        }
        let icb = ihdr.cbytes as i64;
        if icb < ext || idx_pos + icb > trailer_off {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Index chunk of {icb} bytes at offset {idx_pos} does not fit before the trailer at offset {trailer_off}"
            ));
        }
        if fixed.is_none() {
            // variable-size chunks: the index alone says how many there are
            let inb = ihdr.nbytes as i64;
            if inb <= 0 || inb % 8 != 0 {
                return Err(crate::traced!(
                    ErrorKind::InvalidHeader,
                    "Index chunk at offset {idx_pos} holds {inb} bytes, not a whole number of offsets"
                ));
            }
            nchunks = inb / 8;
            header::check_nchunks(nchunks)?;
        }
        if fixed.is_some()
            && nchunks as u64 >= lazy_from
            && !checksums_need_index(&last, &vlmetalayers)
        {
            lazy = index::Lazy::open(src, idx_pos as u64, icb as u64, nchunks as u64)?;
        }
        if lazy.is_none() {
            ichunk = read_vec(src, idx_pos, icb)?;
            offsets = index::decode(&ichunk, nchunks)?;
            for &o in &offsets {
                check_offset(o, sparse, h.cbytes)?;
            }
        }
    }
    let checksums = judge_checksums(&last, &ichunk, &tr, &vlmetalayers, &hdr, nchunks as usize);
    Ok(FrameInfo {
        header: h,
        nchunks,
        metalayers,
        vlmetalayers,
        offsets,
        trailer_len,
        lazy,
        checksums,
    })
}

/// Check an index entry of a frame whose chunks section is `cbytes` long:
/// a special value, or where a chunk can be.
pub fn check_offset(o: i64, sparse: bool, cbytes: i64) -> Result<()> {
    let ext = crate::chunk::header::EXTENDED_HEADER_LENGTH as i64;
    index::offset_special(o)?;
    if o >= 0 && !sparse && o > cbytes - ext {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Chunk offset {o} is past the {cbytes}-byte chunks section"
        ));
    }
    // sparse chunk files are numbered in 32 bits
    if sparse && o > u32::MAX as i64 {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Chunk file number {o} does not fit in 32 bits"
        ));
    }
    Ok(())
}

/// Whether judging the frame's checksums needs its whole index chunk: it
/// has a table or a seal.
fn checksums_need_index(last: &[u8], vlmetalayers: &[Metalayer]) -> bool {
    vlmetalayers.iter().any(|m| m.name == checksum::VLMETA_NAME)
        || trailer::Fingerprint::read(last).is_ok_and(|fp| fp.kind == checksum::SEAL_KIND)
}

/// The checksum verdict of a frame, from its last bytes, stored index
/// chunk, vlmetalayers and header; only a frame with a seal or a table
/// costs more than a look at the fingerprint's type.
fn judge_checksums(
    last: &[u8],
    index_chunk: &[u8],
    trailer: &[u8],
    vlmetalayers: &[Metalayer],
    header: &[u8],
    nchunks: usize,
) -> checksum::Verdict {
    let table = vlmetalayers
        .iter()
        .find(|m| m.name == checksum::VLMETA_NAME);
    // C-Blosc2 never reads the fingerprint, so a frame without one still
    // opens: it is one without checksums, unless it has a table, which
    // only a trailer with a fingerprint slot gets
    let Ok(fp) = trailer::Fingerprint::read(last) else {
        return match table {
            Some(_) => checksum::Verdict::Corrupt(checksum::Damage::Seal),
            None => checksum::Verdict::Unverified,
        };
    };
    if table.is_none() && fp.kind != checksum::SEAL_KIND {
        return checksum::Verdict::Unverified;
    }
    let table = table.map(|m| trailer::vlmetalayer_content(&m.content, &Default::default()));
    let head = trailer::sealed_part(trailer);
    checksum::verdict(&fp, index_chunk, head, table, header, nchunks)
}

/// Read and validate the regular chunk at `offset` of a contiguous frame
/// whose chunks section (`data_len` bytes) starts at `data_start`.
pub fn read_chunk(
    src: &mut dyn Source,
    data_start: i64,
    data_len: i64,
    offset: i64,
) -> Result<Vec<u8>> {
    let ext = crate::chunk::header::EXTENDED_HEADER_LENGTH as i64;
    if offset < 0 || offset > data_len - ext {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Chunk offset {offset} is outside the {data_len}-byte chunks section"
        ));
    }
    let pos = data_start
        .checked_add(offset)
        .ok_or(ErrorKind::InvalidHeader)?;
    let h = read_vec(src, pos, ext)?;
    let cb = crate::chunk::ChunkHeader::read(&h)?.cbytes as i64;
    if cb < ext || offset + cb > data_len {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Chunk of {cb} bytes at offset {offset} runs past the {data_len}-byte chunks section"
        ));
    }
    read_vec(src, pos, cb)
}
