//! The index chunk (spec: cframe-format.rst, "Chunks"): a regular Blosc2
//! chunk of little-endian int64 offsets, one per chunk. Negative values are
//! special chunks: bit 63 set, the special kind in bits 56..59.

use crate::chunk::{CParams, ChunkHeader, Compressor, DParams, Decompressor, Special};
use crate::error::{Error, Result};

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
        _ => Err(Error::FrameSpecial),
    }
}

/// Compress the offsets the way the reference does (default parameters,
/// typesize 8), so frames are byte-identical.
pub fn encode(offsets: &[i64]) -> Result<Vec<u8>> {
    let raw: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    let mut c = Compressor::new(CParams {
        typesize: 8,
        ..CParams::default()
    });
    let mut out = vec![0u8; raw.len() + crate::chunk::header::EXTENDED_HEADER_LENGTH];
    let n = c.compress(&raw, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Decode an index chunk that must hold exactly `nchunks` offsets.
pub fn decode(chunk: &[u8], nchunks: i64) -> Result<Vec<i64>> {
    let h = ChunkHeader::read(chunk)?;
    let want = nchunks.checked_mul(8).ok_or(Error::InvalidHeader)?;
    if h.nbytes as i64 != want {
        return Err(Error::InvalidHeader);
    }
    let mut raw = vec![0u8; want as usize];
    let mut d = Decompressor::new(DParams::default());
    let n = d.decompress(chunk, &mut raw)?;
    if n != raw.len() {
        return Err(Error::InvalidHeader);
    }
    Ok(raw
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        .collect())
}
