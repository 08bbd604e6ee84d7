//! Writing contiguous frames (and the index file of sparse ones).

use super::header::{self, FrameHeader};
use super::{index, trailer};
use crate::error::{ErrorKind, Result};
use crate::metalayers::Metalayer;

/// The encoded pieces of a frame around its chunks section.
pub struct Parts {
    /// Header with the final frame length filled in.
    pub header: Vec<u8>,
    /// Index chunk (empty when there are no chunks).
    pub index: Vec<u8>,
    pub trailer: Vec<u8>,
}

impl Parts {
    pub fn frame_len(&self, data_len: i64) -> i64 {
        self.header.len() as i64 + data_len + self.index.len() as i64 + self.trailer.len() as i64
    }
}

/// Encode header, index and trailer for a chunks section of `data_len`
/// bytes (0 for sparse frames, whose chunks live in files).
pub fn encode_parts(
    h: &FrameHeader,
    metas: &[Metalayer],
    vlmetas: &[Metalayer],
    offsets: &[i64],
    data_len: i64,
    style: &index::Style,
) -> Result<Parts> {
    let mut h = h.clone();
    h.has_vlmetalayers = !vlmetas.is_empty();
    let mut hdr = h.encode(metas)?;
    let idx = if offsets.is_empty() {
        Vec::new()
    } else {
        index::encode_with(offsets, style)?
    };
    let tr = trailer::encode(vlmetas)?;
    let mut p = Parts {
        header: Vec::new(),
        index: idx,
        trailer: tr,
    };
    let flen = (hdr.len() as i64)
        .checked_add(data_len)
        .and_then(|v| v.checked_add(p.index.len() as i64 + p.trailer.len() as i64))
        .ok_or(ErrorKind::TwoGbLimit)?;
    header::set_frame_len(&mut hdr, flen);
    p.header = hdr;
    Ok(p)
}

/// A whole contiguous frame in memory.
pub fn encode_frame(
    h: &FrameHeader,
    metas: &[Metalayer],
    vlmetas: &[Metalayer],
    offsets: &[i64],
    data: &[u8],
    style: &index::Style,
) -> Result<Vec<u8>> {
    let p = encode_parts(h, metas, vlmetas, offsets, data.len() as i64, style)?;
    let mut out = Vec::with_capacity(p.frame_len(data.len() as i64) as usize);
    out.extend_from_slice(&p.header);
    out.extend_from_slice(data);
    out.extend_from_slice(&p.index);
    out.extend_from_slice(&p.trailer);
    Ok(out)
}
