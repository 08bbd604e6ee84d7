//! Writing contiguous frames (and the index file of sparse ones).

use super::header::{self, FrameHeader};
use super::{checksum, index, trailer};
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
/// bytes (0 for sparse frames, whose chunks live in files). With `sums`
/// (one chunk digest per index entry, see `checksum`), the trailer gets
/// the `_b2sum` table and the seal; `vlmetas` must not hold a `_b2sum`
/// then.
pub fn encode_parts(
    h: &FrameHeader,
    metas: &[Metalayer],
    vlmetas: &[Metalayer],
    offsets: &[i64],
    data_len: i64,
    style: &index::Style,
    sums: Option<&[u64]>,
) -> Result<Parts> {
    let mut h = h.clone();
    let mut vl = std::borrow::Cow::Borrowed(vlmetas);
    let mut table = checksum::Table::default();
    if let Some(d) = sums {
        if d.len() != offsets.len() {
            return Err(ErrorKind::Failure);
        }
        table.digests = d.to_vec();
        // a stand-in of the same length until the header is final
        vl.to_mut().push(Metalayer {
            name: checksum::VLMETA_NAME.into(),
            content: checksum::table_chunk(&table.encode()?)?,
        });
    }
    h.has_vlmetalayers = !vl.is_empty();
    let mut hdr = h.encode(metas)?;
    let idx = if offsets.is_empty() {
        Vec::new()
    } else {
        index::encode_with(offsets, style)?
    };
    let mut tr = trailer::encode(&vl)?;
    let flen = (hdr.len() as i64)
        .checked_add(data_len)
        .and_then(|v| v.checked_add(idx.len() as i64 + tr.len() as i64))
        .ok_or(ErrorKind::TwoGbLimit)?;
    header::set_frame_len(&mut hdr, flen);
    if sums.is_some() {
        table.header = checksum::frame_header_digests(&hdr)?;
        let stored = checksum::table_chunk(&table.encode()?)?;
        let vl = vl.to_mut();
        let last = vl.len() - 1;
        if vl[last].content.len() != stored.len() {
            return Err(ErrorKind::Failure);
        }
        vl[last].content = stored;
        let mut sealed = trailer::encode(vl)?;
        if sealed.len() != tr.len() {
            return Err(ErrorKind::Failure);
        }
        let fp = checksum::seal(&idx, trailer::sealed_part(&sealed));
        trailer::set_fingerprint(&mut sealed, &fp);
        tr = sealed;
    }
    Ok(Parts {
        header: hdr,
        index: idx,
        trailer: tr,
    })
}

/// A whole contiguous frame in memory.
pub fn encode_frame(
    h: &FrameHeader,
    metas: &[Metalayer],
    vlmetas: &[Metalayer],
    offsets: &[i64],
    data: &[u8],
    style: &index::Style,
    sums: Option<&[u64]>,
) -> Result<Vec<u8>> {
    let p = encode_parts(h, metas, vlmetas, offsets, data.len() as i64, style, sums)?;
    let mut out = Vec::with_capacity(p.frame_len(data.len() as i64) as usize);
    out.extend_from_slice(&p.header);
    out.extend_from_slice(data);
    out.extend_from_slice(&p.index);
    out.extend_from_slice(&p.trailer);
    Ok(out)
}
