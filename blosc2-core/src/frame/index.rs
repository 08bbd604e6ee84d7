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
