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
    if sums.is_some_and(|d| d.len() != offsets.len()) {
        return Err(ErrorKind::Failure);
    }
    let idx = if offsets.is_empty() {
        Vec::new()
    } else {
        index::encode_with(offsets, style)?
    };
    encode_parts_with_index(h, metas, vlmetas, idx, data_len, sums)
}

/// [`encode_parts`] with the index chunk encoded already (empty when there
/// are no chunks).
pub fn encode_parts_with_index(
    h: &FrameHeader,
    metas: &[Metalayer],
    vlmetas: &[Metalayer],
    idx: Vec<u8>,
    data_len: i64,
    sums: Option<&[u64]>,
) -> Result<Parts> {
    let mut h = h.clone();
    let mut vl = std::borrow::Cow::Borrowed(vlmetas);
    if let Some(d) = sums {
        // with the header digests zero until the header is final: they are
        // the last 16 bytes of the (memcpyed) chunk, patched in place below
        vl.to_mut().push(Metalayer {
            name: checksum::VLMETA_NAME.into(),
            content: checksum::table_chunk(&checksum::encode_table(d, &[0, 0])?)?,
        });
    }
    h.has_vlmetalayers = !vl.is_empty();
    let mut hdr = h.encode(metas)?;
    let mut tr = trailer::encode(&vl)?;
    let flen = (hdr.len() as i64)
        .checked_add(data_len)
        .and_then(|v| v.checked_add(idx.len() as i64 + tr.len() as i64))
        .ok_or(ErrorKind::TwoGbLimit)?;
    header::set_frame_len(&mut hdr, flen);
    if sums.is_some() {
        // (encoding the table and the trailer once: an append re-encodes
        // the whole table, 8 bytes a chunk, so this is what it costs)
        let [fixed, metas] = checksum::frame_header_digests(&hdr)?;
        let span = trailer::vlmetalayer_spans(&tr)?
            .into_iter()
            .rfind(|(n, _)| n == checksum::VLMETA_NAME)
            .map(|(_, r)| r)
            .filter(|r| r.len() >= 16)
            .ok_or(ErrorKind::Failure)?;
        tr[span.end - 16..span.end - 8].copy_from_slice(&fixed.to_le_bytes());
        tr[span.end - 8..span.end].copy_from_slice(&metas.to_le_bytes());
        let fp = checksum::seal(&idx, trailer::sealed_part(&tr));
        trailer::set_fingerprint(&mut tr, &fp);
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
