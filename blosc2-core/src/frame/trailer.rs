//! The frame trailer (spec: cframe-format.rst, "Trailer"): version, the
//! variable-length metalayers, the trailer length and a fingerprint slot.
//! Its length sits at a fixed distance from the frame's end, which is how a
//! reader finds where the trailer starts.

use crate::error::{ErrorKind, Result};
use crate::metalayers::{self, Metalayer};
use rmp::Marker;

/// Shortest possible trailer; also how far from the end its length field's
/// marker block starts.
pub const TRAILER_MINLEN: usize = 25;
/// Bytes after the vlmetalayers: uint32 length, fixext16 fingerprint.
const TAIL_LEN: usize = 23;
const VERSION: u8 = 1;
/// Position of the vlmetalayers section inside the trailer.
const VLMETA_AT: usize = 2;

/// Encode a trailer holding `vlmetas`, with no fingerprint (type 0 and a
/// zeroed slot, as the reference always writes).
pub fn encode(vlmetas: &[Metalayer]) -> Result<Vec<u8>> {
    encode_with_fingerprint(vlmetas, &Fingerprint::NONE)
}

/// The trailer's fingerprint: an ext type and a 16-byte slot. C-Blosc2
/// writes type 0 and zeros, and never reads it; the frame checksums
/// (`super::checksum`) keep their seal here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    pub kind: u8,
    pub bytes: [u8; 16],
}

impl Fingerprint {
    pub const NONE: Fingerprint = Fingerprint {
        kind: 0,
        bytes: [0; 16],
    };

    /// The fingerprint of a frame, from its last `TRAILER_MINLEN` bytes.
    pub fn read(last: &[u8]) -> Result<Fingerprint> {
        if last.len() != TRAILER_MINLEN {
            return Err(ErrorKind::ReadBuffer);
        }
        let at = TRAILER_MINLEN - 18;
        if last[at] != Marker::FixExt16.to_u8() {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "No fingerprint marker 18 bytes before the frame's end"
            ));
        }
        let mut bytes = [0; 16];
        bytes.copy_from_slice(&last[at + 2..]);
        Ok(Fingerprint {
            kind: last[at + 1],
            bytes,
        })
    }
}

/// The fingerprint slot's length at the end of a trailer: its type byte
/// and 16 bytes.
pub const FINGERPRINT_LEN: usize = 17;

/// A trailer up to its fingerprint slot: what a seal covers.
pub fn sealed_part(trailer: &[u8]) -> &[u8] {
    &trailer[..trailer.len().saturating_sub(FINGERPRINT_LEN)]
}

/// Put `fp` in the fingerprint slot of a complete trailer.
pub fn set_fingerprint(trailer: &mut [u8], fp: &Fingerprint) {
    let at = trailer.len() - FINGERPRINT_LEN;
    trailer[at] = fp.kind;
    trailer[at + 1..].copy_from_slice(&fp.bytes);
}

/// Encode a trailer holding `vlmetas` and the fingerprint `fp`.
pub fn encode_with_fingerprint(vlmetas: &[Metalayer], fp: &Fingerprint) -> Result<Vec<u8>> {
    let mut t = Vec::with_capacity(64);
    rmp::encode::write_array_len(&mut t, 4).map_err(|_| ErrorKind::Failure)?;
    t.push(VERSION);
    // Upstream measures the index size from after the 3-array marker here.
    metalayers::encode_section(&mut t, vlmetas, VLMETA_AT + 1)?;
    let len = u32::try_from(t.len() + TAIL_LEN).map_err(|_| ErrorKind::TwoGbLimit)?;
    t.push(Marker::U32.to_u8());
    t.extend_from_slice(&len.to_be_bytes());
    t.push(Marker::FixExt16.to_u8());
    t.push(fp.kind);
    t.extend_from_slice(&fp.bytes);
    Ok(t)
}

/// The trailer length stored at the end of a frame, given the frame's last
/// `TRAILER_MINLEN` bytes and its total length.
pub fn trailer_len(last: &[u8], frame_len: i64) -> Result<i64> {
    if last.len() != TRAILER_MINLEN {
        return Err(ErrorKind::ReadBuffer);
    }
    let at = TRAILER_MINLEN - 22;
    if last[at - 1] != Marker::U32.to_u8() {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "No trailer length marker {} bytes before the frame's end",
            TRAILER_MINLEN - at + 1
        ));
    }
    let len = u32::from_be_bytes([last[at], last[at + 1], last[at + 2], last[at + 3]]) as i64;
    if len < TRAILER_MINLEN as i64
        || len > i32::MAX as i64
        || len > frame_len - super::header::HEADER_MINLEN as i64
    {
        return Err(crate::traced!(
            ErrorKind::InvalidHeader,
            "Trailer length {len} does not fit a frame of {frame_len} bytes"
        ));
    }
    Ok(len)
}

/// Where the contents of the vlmetalayers of a complete trailer lie in it.
pub fn vlmetalayer_spans(trailer: &[u8]) -> Result<Vec<(String, std::ops::Range<usize>)>> {
    metalayers::section_spans(trailer, VLMETA_AT, metalayers::MAX_VLMETALAYERS)
}

/// A vlmetalayer's content decompressed: its stored bytes are a chunk
/// whose own header must say their length.
pub fn vlmetalayer_content(stored: &[u8], dparams: &crate::chunk::DParams) -> Result<Vec<u8>> {
    let h = crate::chunk::ChunkHeader::read(stored)?;
    if h.cbytes as usize != stored.len() || h.nbytes < 0 {
        return Err(ErrorKind::Data);
    }
    // the size is the header's claim, up to 2 GiB: more than a 32-bit
    // host may have to give
    let mut out = crate::spare::zeroed(h.nbytes as usize)?;
    let mut d = crate::chunk::Decompressor::new(dparams.clone());
    if d.decompress(stored, &mut out)? != out.len() {
        return Err(ErrorKind::ReadBuffer);
    }
    Ok(out)
}

/// The vlmetalayers of a complete trailer.
pub fn parse_vlmetalayers(trailer: &[u8]) -> Result<Vec<Metalayer>> {
    metalayers::parse_section(trailer, VLMETA_AT, metalayers::MAX_VLMETALAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_round_trip() {
        let metas = vec![Metalayer {
            name: "_b2sum".into(),
            content: vec![7; 40],
        }];
        let plain = encode(&metas).unwrap();
        let last = &plain[plain.len() - TRAILER_MINLEN..];
        assert_eq!(Fingerprint::read(last).unwrap(), Fingerprint::NONE);
        let fp = Fingerprint {
            kind: 0x43,
            bytes: core::array::from_fn(|i| i as u8 + 1),
        };
        let sealed = encode_with_fingerprint(&metas, &fp).unwrap();
        assert_eq!(sealed.len(), plain.len());
        // only the fingerprint differs: the length and the vlmetalayers stay
        assert_eq!(sealed[..sealed.len() - 17], plain[..plain.len() - 17]);
        let last = &sealed[sealed.len() - TRAILER_MINLEN..];
        assert_eq!(Fingerprint::read(last).unwrap(), fp);
        assert_eq!(trailer_len(last, 1 << 20).unwrap(), sealed.len() as i64);
        assert_eq!(parse_vlmetalayers(&sealed).unwrap(), metas);
        let mut bad = last.to_vec();
        bad[TRAILER_MINLEN - 18] = 0xc0;
        assert_eq!(
            Fingerprint::read(&bad).unwrap_err(),
            ErrorKind::InvalidHeader
        );
        assert_eq!(
            Fingerprint::read(&last[1..]).unwrap_err(),
            ErrorKind::ReadBuffer
        );
    }
}
