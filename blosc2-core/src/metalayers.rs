//! Metalayers (spec: cframe-format.rst, "metalayers"): named byte strings kept
//! in the frame header (fixed size) or in the trailer (variable length).
//!
//! Both places use the same msgpack section: a 3-array holding the size of the
//! name index, a map16 of `name -> int32 offset`, and an array16 of bin32
//! values. Offsets count from the start of the enclosing header or trailer,
//! which is why encoding and parsing take the section's position in it.

use crate::error::{ErrorKind, Result};
use rmp::Marker;

/// Upstream's `BLOSC2_MAX_METALAYERS`: also the most vlmetalayers it writes.
pub const MAX_METALAYERS: usize = 16;
/// Upstream's `BLOSC2_MAX_VLMETALAYERS`: the most vlmetalayers it reads.
pub const MAX_VLMETALAYERS: usize = 8 * 1024;
/// Upstream's `BLOSC2_METALAYER_NAME_MAXLEN`: names are msgpack fixstr.
pub const NAME_MAXLEN: usize = 31;

/// One metalayer: its name and its stored bytes (for vlmetalayers, the
/// compressed chunk holding the user's content).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metalayer {
    pub name: String,
    pub content: Vec<u8>,
}

/// Check a metalayer name the way upstream does before storing it.
pub fn check_name(name: &str) -> Result<()> {
    if name.len() > NAME_MAXLEN || name.contains('\0') {
        return Err(ErrorKind::InvalidParam);
    }
    Ok(())
}

/// Index of `name` in `list`.
pub fn find(list: &[Metalayer], name: &str) -> Option<usize> {
    list.iter().position(|m| m.name == name)
}

fn be_u16(n: usize) -> Result<[u8; 2]> {
    u16::try_from(n)
        .map(|v| v.to_be_bytes())
        .map_err(|_| ErrorKind::InvalidParam)
}

fn be_i32(n: usize) -> Result<[u8; 4]> {
    i32::try_from(n)
        .map(|v| v.to_be_bytes())
        .map_err(|_| ErrorKind::TwoGbLimit)
}

/// Append the section for `metas` to `out`, which already holds the bytes of
/// the enclosing header/trailer before it. `size_base` is the position the
/// index size is measured from (upstream measures it from before the 3-array
/// marker in headers and after it in trailers).
pub fn encode_section(out: &mut Vec<u8>, metas: &[Metalayer], size_base: usize) -> Result<()> {
    if metas.len() > MAX_METALAYERS {
        return Err(ErrorKind::InvalidParam);
    }
    rmp::encode::write_array_len(out, 3).map_err(|_| ErrorKind::Failure)?;
    let size_at = out.len() + 1;
    out.push(Marker::U16.to_u8());
    out.extend_from_slice(&[0, 0]);
    out.push(Marker::Map16.to_u8());
    out.extend_from_slice(&be_u16(metas.len())?);
    let mut offset_slots = Vec::with_capacity(metas.len());
    for m in metas {
        check_name(&m.name)?;
        rmp::encode::write_str(out, &m.name).map_err(|_| ErrorKind::Failure)?;
        out.push(Marker::I32.to_u8());
        offset_slots.push(out.len());
        out.extend_from_slice(&[0; 4]);
    }
    let idx_size = out.len().checked_sub(size_base).ok_or(ErrorKind::Failure)?;
    out[size_at..size_at + 2].copy_from_slice(&be_u16(idx_size)?);
    out.push(Marker::Array16.to_u8());
    out.extend_from_slice(&be_u16(metas.len())?);
    for (m, slot) in metas.iter().zip(offset_slots) {
        let here = be_i32(out.len())?;
        out[slot..slot + 4].copy_from_slice(&here);
        out.push(Marker::Bin32.to_u8());
        out.extend_from_slice(&be_i32(m.content.len())?);
        out.extend_from_slice(&m.content);
    }
    Ok(())
}

/// A bounds-checked cursor over the enclosing buffer.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or(ErrorKind::ReadBuffer)?;
        let s = self.buf.get(self.pos..end).ok_or(ErrorKind::ReadBuffer)?;
        self.pos = end;
        Ok(s)
    }
    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn i32(&mut self) -> Result<i32> {
        let b = self.take(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Parse the section starting at `start` in `buf` (the whole header or
/// trailer): names from the index, each value where its offset points.
/// More than `max` entries is an error.
pub fn parse_section(buf: &[u8], start: usize, max: usize) -> Result<Vec<Metalayer>> {
    Ok(section_spans(buf, start, max)?
        .into_iter()
        .map(|(name, at)| Metalayer {
            name,
            content: buf[at].to_vec(),
        })
        .collect())
}

/// Like [`parse_section`], but each value as where its bytes lie in `buf`
/// (every range is inside `buf`): the frame checksums digest a header with
/// its metalayers' contents left out.
pub fn section_spans(
    buf: &[u8],
    start: usize,
    max: usize,
) -> Result<Vec<(String, std::ops::Range<usize>)>> {
    let mut c = Cursor { buf, pos: start };
    // The 3-array marker, the index size and its uint16 marker are not
    // needed to find anything, and C-Blosc2 reads sections whose copies of
    // them are damaged: skip all four bytes unchecked.
    c.take(4)?;
    let at = c.pos;
    let m = c.byte()?;
    if m != Marker::Map16.to_u8() {
        return Err(crate::traced!(
            ErrorKind::Data,
            "Metalayer section at offset {start}: byte {m:#04x} at offset {at} is not the map16 marker 0xde of its name index"
        ));
    }
    let n = c.u16()? as usize;
    if n > max {
        return Err(crate::traced!(
            ErrorKind::Data,
            "Metalayer section at offset {start} lists {n} metalayers (offset {}), at most {max}",
            at + 1
        ));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let at = c.pos;
        let m = c.byte()?;
        if m & 0xe0 != 0xa0 {
            return Err(crate::traced!(
                ErrorKind::Data,
                "Metalayer name at offset {at}: byte {m:#04x} is not a fixstr marker"
            ));
        }
        let name = c.take((m & 0x1f) as usize)?;
        // C-Blosc2 keeps a name as a C string: a NUL ends it (damage, or a
        // writer that allowed one), and lookups see only what comes before.
        let name = name.split(|&b| b == 0).next().unwrap_or_default();
        let name = String::from_utf8_lossy(name).into_owned();
        let at = c.pos;
        if c.byte()? != Marker::I32.to_u8() {
            return Err(crate::traced!(
                ErrorKind::Data,
                "Metalayer \"{name}\": no int32 marker 0xd2 for its offset at offset {at}"
            ));
        }
        let off = c.i32()?;
        if off < 0 || off as usize >= buf.len() {
            return Err(crate::traced!(
                ErrorKind::Data,
                "Metalayer \"{name}\" content offset {off} (at offset {}) is outside the {} bytes of its section's header or trailer",
                at + 1,
                buf.len()
            ));
        }
        let mut v = Cursor {
            buf,
            pos: off as usize,
        };
        if v.byte()? != Marker::Bin32.to_u8() {
            return Err(crate::traced!(
                ErrorKind::Data,
                "Metalayer \"{name}\" content at offset {off} does not start with the bin32 marker 0xc6"
            ));
        }
        let len = v.i32()?;
        if len < 0 {
            return Err(crate::traced!(
                ErrorKind::Data,
                "Metalayer \"{name}\" content at offset {off} has negative length {len}"
            ));
        }
        let at = v.pos;
        v.take(len as usize).map_err(|e| {
            crate::traced!(
                e,
                "Metalayer \"{name}\" content of {len} bytes at offset {at} runs past the {} bytes of its section's header or trailer",
                buf.len()
            )
        })?;
        out.push((name, at..v.pos));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_round_trip() {
        let metas = vec![
            Metalayer {
                name: "b2nd".into(),
                content: vec![1, 2, 3],
            },
            Metalayer {
                name: "x".into(),
                content: vec![],
            },
        ];
        let mut buf = vec![0xaa; 10];
        encode_section(&mut buf, &metas, 10).unwrap();
        assert_eq!(parse_section(&buf, 10, MAX_METALAYERS).unwrap(), metas);
        // truncations never panic
        for cut in 10..buf.len() {
            let _ = parse_section(&buf[..cut], 10, MAX_METALAYERS);
        }
    }
}
