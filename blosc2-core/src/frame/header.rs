//! The frame header (spec: cframe-format.rst, "Header"): a fixed 87-byte
//! msgpack prefix at known positions, then the fixed-size metalayers.

use crate::error::{ErrorKind, Result};
use crate::metalayers::{self, Metalayer};
use rmp::Marker;

/// Length of the fixed part; the metalayers section starts here.
pub const HEADER_MINLEN: usize = 87;
/// Positions of the values (after their msgpack markers).
pub mod pos {
    pub const HEADER_LEN: usize = 11;
    pub const FRAME_LEN: usize = 16;
    pub const FLAGS: usize = 25;
    pub const FRAME_TYPE: usize = 26;
    pub const CODECS: usize = 27;
    pub const OTHER_FLAGS: usize = 28;
    pub const NBYTES: usize = 30;
    pub const CBYTES: usize = 39;
    pub const TYPESIZE: usize = 48;
    pub const BLOCKSIZE: usize = 53;
    pub const CHUNKSIZE: usize = 58;
    pub const NTHREADS_C: usize = 63;
    pub const NTHREADS_D: usize = 66;
    pub const HAS_VLMETA: usize = 68;
    pub const FILTER_PIPELINE: usize = 70;
    pub const UDCODEC: usize = 77;
    pub const CODEC_META: usize = 78;
    pub const FILTERS_META: usize = 79;
    pub const OTHER_FLAGS2: usize = 85;
}

/// Frame format versions written in the low nibble of the general flags.
pub const VERSION_RC1: u8 = 2;
pub const VERSION_VL_BLOCKS: u8 = 3;
/// Highest version this library reads.
pub const VERSION_MAX: u8 = 3;
/// General-flags bits.
pub const OFFSETS_64BIT: u8 = 0x10;
pub const VARIABLE_CHUNKS: u8 = 0x40;
pub const VL_BLOCKS: u8 = 0x80;
/// Codec-flags nibble meaning "see the user-defined codec byte".
pub const UDCODEC_FORMAT: u8 = 6;
/// Upstream's `BLOSC_LAST_CODEC`: codec ids at or above it are plugins.
pub const LAST_CODEC: u8 = 6;

/// Frame types.
pub const CONTIGUOUS: u8 = 0;
pub const SPARSE: u8 = 1;

/// The decoded fixed part of a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    pub header_len: i32,
    pub frame_len: i64,
    pub general_flags: u8,
    pub frame_type: u8,
    pub compcode: u8,
    pub clevel: u8,
    /// 1-based, as `BLOSC_*_SPLIT`.
    pub splitmode: u8,
    pub nbytes: i64,
    /// Length of the chunks section (holes included) in contiguous frames.
    pub cbytes: i64,
    pub typesize: i32,
    pub blocksize: i32,
    /// -1 while empty, 0 for variable-size chunks.
    pub chunksize: i32,
    pub nthreads_c: i16,
    pub nthreads_d: i16,
    pub has_vlmetalayers: bool,
    pub filters: [u8; 6],
    pub filters_meta: [u8; 6],
    pub compcode_meta: u8,
    pub use_dict: bool,
}

fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(v)
}

fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}

impl FrameHeader {
    /// Decode the fixed part (`b` holds at least its 87 bytes) and check
    /// what later arithmetic relies on.
    pub fn parse(b: &[u8]) -> Result<FrameHeader> {
        if b.len() < HEADER_MINLEN {
            return Err(crate::traced!(
                ErrorKind::ReadBuffer,
                "Frame header needs {HEADER_MINLEN} bytes, got {}",
                b.len()
            ));
        }
        // The magic is the msgpack str "b2frame\0": its NUL is part of it,
        // as C-Blosc2 compares it.
        if &b[2..10] != b"b2frame\0" {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "No 'b2frame\\0' magic at offset 2 (found {:02x?}): not a Blosc2 frame",
                &b[2..10]
            ));
        }
        let general_flags = b[pos::FLAGS];
        if general_flags & 0x0f > VERSION_MAX {
            return Err(crate::traced!(
                ErrorKind::VersionSupport,
                "Frame format version {} is newer than the {VERSION_MAX} supported",
                general_flags & 0x0f
            ));
        }
        let codecs = b[pos::CODECS];
        let mut compcode = codecs & 0x0f;
        if compcode == UDCODEC_FORMAT {
            compcode = b[pos::UDCODEC];
        }
        let nfilters = b[pos::FILTER_PIPELINE] as usize;
        if nfilters > 6 {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Frame header lists {nfilters} filters (offset {}), at most 6",
                pos::FILTER_PIPELINE
            ));
        }
        let mut filters = [0u8; 6];
        let mut filters_meta = [0u8; 6];
        filters[..nfilters].copy_from_slice(&b[71..71 + nfilters]);
        // An id the format leaves undefined cannot be the frame's pipeline
        // (C-Blosc2 refuses it when it makes the frame's contexts); user ids
        // may be registered later and are checked when a chunk needs them.
        if let Some(i) = filters
            .iter()
            .position(|&f| crate::chunk::pipeline::check_filters(&[f, 0, 0, 0, 0, 0]).is_err())
        {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Frame header names filter {} (offset {}), an id no filter has",
                filters[i],
                71 + i
            ));
        }
        filters_meta[..nfilters]
            .copy_from_slice(&b[pos::FILTERS_META..pos::FILTERS_META + nfilters]);
        let h = FrameHeader {
            header_len: be_i32(b, pos::HEADER_LEN),
            frame_len: be_i64(b, pos::FRAME_LEN),
            general_flags,
            frame_type: b[pos::FRAME_TYPE],
            compcode,
            clevel: codecs >> 4,
            splitmode: (b[pos::OTHER_FLAGS] & 0x03) + 1,
            nbytes: be_i64(b, pos::NBYTES),
            cbytes: be_i64(b, pos::CBYTES),
            typesize: be_i32(b, pos::TYPESIZE),
            blocksize: be_i32(b, pos::BLOCKSIZE),
            chunksize: be_i32(b, pos::CHUNKSIZE),
            nthreads_c: be_i16(b, pos::NTHREADS_C),
            nthreads_d: be_i16(b, pos::NTHREADS_D),
            has_vlmetalayers: b[pos::HAS_VLMETA] == Marker::True.to_u8(),
            filters,
            filters_meta,
            compcode_meta: b[pos::CODEC_META],
            use_dict: b[pos::OTHER_FLAGS2] & 1 != 0,
        };
        if (h.header_len as i64) < HEADER_MINLEN as i64 || h.header_len as i64 > h.frame_len {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Frame header length {} is outside {HEADER_MINLEN}..={} (the frame length)",
                h.header_len,
                h.frame_len
            ));
        }
        if h.typesize <= 0 || h.nbytes < 0 || h.cbytes < 0 {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Frame header has typesize {}, nbytes {}, cbytes {}: none may be negative (nor typesize 0)",
                h.typesize,
                h.nbytes,
                h.cbytes
            ));
        }
        Ok(h)
    }

    /// Number of chunks the header implies, or None for variable-size
    /// chunks (`chunksize` 0), whose count only the index chunk tells.
    pub fn nchunks(&self) -> Result<Option<i64>> {
        if self.nbytes == 0 {
            return Ok(Some(0));
        }
        if self.chunksize == 0 {
            return Ok(None);
        }
        if self.chunksize < 0 {
            return Err(ErrorKind::InvalidHeader);
        }
        let cs = self.chunksize as i64;
        let n = self.nbytes / cs + i64::from(self.nbytes % cs != 0);
        check_nchunks(n)?;
        Ok(Some(n))
    }

    /// Whether chunks may differ in size (`chunksize` 0).
    pub fn variable_chunks(&self) -> bool {
        self.chunksize == 0
    }

    /// Encode the header with its metalayers; `header_len` is computed, the
    /// other fields are written as they are.
    pub fn encode(&self, metas: &[Metalayer]) -> Result<Vec<u8>> {
        let mut h: Vec<u8> = Vec::with_capacity(HEADER_MINLEN + 64);
        let e = |_| ErrorKind::Failure;
        rmp::encode::write_array_len(&mut h, 14).map_err(e)?;
        rmp::encode::write_str(&mut h, "b2frame\0").map_err(e)?;
        rmp::encode::write_i32(&mut h, 0).map_err(e)?;
        rmp::encode::write_u64(&mut h, self.frame_len as u64).map_err(e)?;
        rmp::encode::write_str_len(&mut h, 4).map_err(e)?;
        let codec_nibble = if self.compcode >= LAST_CODEC {
            UDCODEC_FORMAT
        } else {
            self.compcode
        };
        h.extend_from_slice(&[
            self.general_flags,
            self.frame_type,
            codec_nibble.wrapping_add(self.clevel << 4),
            self.splitmode.wrapping_sub(1),
        ]);
        rmp::encode::write_i64(&mut h, self.nbytes).map_err(e)?;
        rmp::encode::write_i64(&mut h, self.cbytes).map_err(e)?;
        rmp::encode::write_i32(&mut h, self.typesize).map_err(e)?;
        rmp::encode::write_i32(&mut h, self.blocksize).map_err(e)?;
        rmp::encode::write_i32(&mut h, self.chunksize).map_err(e)?;
        rmp::encode::write_i16(&mut h, self.nthreads_c).map_err(e)?;
        rmp::encode::write_i16(&mut h, self.nthreads_d).map_err(e)?;
        rmp::encode::write_bool(&mut h, self.has_vlmetalayers).map_err(|_| ErrorKind::Failure)?;
        h.push(Marker::FixExt16.to_u8());
        h.push(6);
        let mut ext = [0u8; 16];
        ext[..6].copy_from_slice(&self.filters);
        ext[6] = self.compcode;
        ext[7] = self.compcode_meta;
        ext[8..14].copy_from_slice(&self.filters_meta);
        ext[14] = u8::from(self.use_dict);
        h.extend_from_slice(&ext);
        debug_assert_eq!(h.len(), HEADER_MINLEN);
        metalayers::encode_section(&mut h, metas, HEADER_MINLEN)?;
        let len = i32::try_from(h.len()).map_err(|_| ErrorKind::TwoGbLimit)?;
        h[pos::HEADER_LEN..pos::HEADER_LEN + 4].copy_from_slice(&len.to_be_bytes());
        Ok(h)
    }
}

/// The offsets of `n` chunks must fit one index chunk.
pub fn check_nchunks(n: i64) -> Result<()> {
    if n < 0 || n > (i32::MAX as i64 - 64) / 8 {
        return Err(ErrorKind::InvalidHeader);
    }
    Ok(())
}

/// General flags as the reference writes them: format version 3 when chunks
/// vary in size or use variable-length blocks, each with its own bit.
pub fn general_flags(variable_chunks: bool, vl_blocks: bool) -> u8 {
    let mut f = OFFSETS_64BIT;
    if variable_chunks || vl_blocks {
        f |= VERSION_VL_BLOCKS;
    } else {
        f |= VERSION_RC1;
    }
    if variable_chunks {
        f |= VARIABLE_CHUNKS;
    }
    if vl_blocks {
        f |= VL_BLOCKS;
    }
    f
}

/// Overwrite the frame length field of an encoded header.
pub fn set_frame_len(h: &mut [u8], len: i64) {
    h[pos::FRAME_LEN..pos::FRAME_LEN + 8].copy_from_slice(&len.to_be_bytes());
}

/// The fixed-size metalayers of a complete header.
pub fn parse_metalayers(header: &[u8]) -> Result<Vec<Metalayer>> {
    metalayers::parse_section(header, HEADER_MINLEN, metalayers::MAX_METALAYERS)
}
