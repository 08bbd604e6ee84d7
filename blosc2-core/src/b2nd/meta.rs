//! The `b2nd` metalayer (spec: b2nd-metalayer-format.md): a msgpack array of
//! version, ndim, shape, chunkshape, blockshape, dtype_format and dtype.
//!
//! Writing always uses the fixed-width markers the reference writes (int64
//! shape items, int32 chunk/block items, str32 dtype), so our metalayers are
//! byte-identical to its. Reading is as lenient as the reference's reader
//! (it skips the markers of the fixed-width fields) but never reads past the
//! buffer.

use crate::error::{ErrorKind, Result};

/// Upstream's `B2ND_MAX_DIM`.
pub const MAX_DIM: usize = 16;
/// Version written into new metalayers (`B2ND_METALAYER_VERSION`).
pub const METALAYER_VERSION: u8 = 0;
/// Default dtype when a metalayer is written without one (`B2ND_DEFAULT_DTYPE`).
pub const DEFAULT_DTYPE: &str = "|u1";
/// `dtype_format` meaning "NumPy dtype string".
pub const DTYPE_NUMPY_FORMAT: i8 = 0;

/// Decoded content of a `b2nd` (or legacy `caterva`) metalayer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub version: u8,
    pub shape: Vec<i64>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
    /// None when the metalayer ends before the dtype (old caterva files).
    pub dtype: Option<String>,
    pub dtype_format: i8,
}

impl Meta {
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Encode as the reference does (`b2nd_serialize_meta`).
    pub fn serialize(&self) -> Result<Vec<u8>> {
        serialize(
            &self.shape,
            &self.chunkshape,
            &self.blockshape,
            self.dtype.as_deref(),
            self.dtype_format,
        )
    }

    /// Decode a metalayer (`b2nd_deserialize_meta`), then check the values
    /// make a usable geometry.
    pub fn deserialize(buf: &[u8]) -> Result<Meta> {
        let (m, _) = deserialize(buf)?;
        Ok(m)
    }
}

/// Encode the metalayer; `dtype` None stands for [`DEFAULT_DTYPE`].
pub fn serialize(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: Option<&str>,
    dtype_format: i8,
) -> Result<Vec<u8>> {
    let ndim = shape.len();
    if ndim > MAX_DIM || chunkshape.len() != ndim || blockshape.len() != ndim {
        return Err(ErrorKind::InvalidParam);
    }
    if dtype_format < 0 {
        return Err(ErrorKind::Failure);
    }
    let dtype = dtype.unwrap_or(DEFAULT_DTYPE).as_bytes();
    let dlen = i32::try_from(dtype.len()).map_err(|_| ErrorKind::Failure)?;
    let mut out = Vec::with_capacity(3 + 3 * (1 + ndim * 9) + 6 + dtype.len());
    // Writing into a Vec cannot fail; map the error type anyway.
    let w = |r: std::result::Result<(), rmp::encode::ValueWriteError>| {
        r.map_err(|_| ErrorKind::Failure)
    };
    rmp::encode::write_array_len(&mut out, 7).map_err(|_| ErrorKind::Failure)?;
    rmp::encode::write_pfix(&mut out, METALAYER_VERSION).map_err(|_| ErrorKind::Failure)?;
    rmp::encode::write_pfix(&mut out, ndim as u8).map_err(|_| ErrorKind::Failure)?;
    // The three arrays always take a one-byte fixarray marker, 0x90 + ndim,
    // as the reference writes and reads them: for 16 dimensions that byte
    // is 0xa0 (not a valid fixarray), where rmp would write a 3-byte
    // array16 marker that neither library then reads.
    let marker = 0x90 + ndim as u8;
    out.push(marker);
    for &s in shape {
        w(rmp::encode::write_i64(&mut out, s))?;
    }
    out.push(marker);
    for &c in chunkshape {
        w(rmp::encode::write_i32(&mut out, c))?;
    }
    out.push(marker);
    for &b in blockshape {
        w(rmp::encode::write_i32(&mut out, b))?;
    }
    rmp::encode::write_pfix(&mut out, dtype_format as u8).map_err(|_| ErrorKind::Failure)?;
    // The reference always uses str32, whatever the length: rmp would pick
    // the shortest marker, so this one is written by hand.
    out.push(rmp::Marker::Str32.to_u8());
    out.extend_from_slice(&dlen.to_be_bytes());
    out.extend_from_slice(dtype);
    Ok(out)
}

/// A bounds-checked reader over the metalayer bytes.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or(ErrorKind::Failure)?;
        let s = self.buf.get(self.pos..end).ok_or(ErrorKind::Failure)?;
        self.pos = end;
        Ok(s)
    }
    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn be<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
}

/// Decode a metalayer; returns it and the number of bytes it used. Errors
/// are `Failure`, as the reference returns for malformed metalayers.
pub fn deserialize(buf: &[u8]) -> Result<(Meta, usize)> {
    if buf.is_empty() {
        return Err(ErrorKind::Failure);
    }
    let mut r = Reader { buf, pos: 0 };
    r.byte()?; // the outer array marker
    let version = r.byte()?;
    let ndim = r.byte()? as i8;
    if ndim < 0 || ndim as usize > MAX_DIM {
        return Err(crate::traced!(
            ErrorKind::Failure,
            "b2nd metalayer has ndim {ndim} (byte 2), not in 0..={MAX_DIM}"
        ));
    }
    let ndim = ndim as usize;
    r.byte()?; // shape array marker
    let mut shape = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        r.byte()?;
        shape.push(i64::from_be_bytes(r.be::<8>()?));
    }
    r.byte()?;
    let mut chunkshape = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        r.byte()?;
        chunkshape.push(i32::from_be_bytes(r.be::<4>()?));
    }
    r.byte()?;
    let mut blockshape = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        r.byte()?;
        blockshape.push(i32::from_be_bytes(r.be::<4>()?));
    }
    let (dtype, dtype_format) = if r.pos < buf.len() {
        if buf.len() - r.pos < 6 {
            return Err(ErrorKind::Failure);
        }
        let fmt = r.byte()? as i8;
        if r.byte()? != rmp::Marker::Str32.to_u8() {
            return Err(ErrorKind::Failure);
        }
        let len = i32::from_be_bytes(r.be::<4>()?);
        if len < 0 {
            return Err(ErrorKind::Failure);
        }
        let s = r.take(len as usize)?;
        // The reference keeps the bytes as a C string: it stops at a NUL.
        let s = s.split(|&b| b == 0).next().unwrap_or(&[]);
        (Some(String::from_utf8_lossy(s).into_owned()), fmt)
    } else {
        (None, 0)
    };
    Ok((
        Meta {
            version,
            shape,
            chunkshape,
            blockshape,
            dtype,
            dtype_format,
        },
        r.pos,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Meta {
        Meta {
            version: 0,
            shape: vec![10, 0, 7],
            chunkshape: vec![4, 1, 7],
            blockshape: vec![2, 1, 3],
            dtype: Some("<f8".into()),
            dtype_format: 0,
        }
    }

    #[test]
    fn sixteen_dimensions_round_trip_with_one_byte_array_markers() {
        // found by the b2nd_open fuzzer: ndim 16 used to get 3-byte array16
        // markers, which the reader (ours and the reference's) misreads
        let m = Meta {
            version: 0,
            shape: (1..=16).collect(),
            chunkshape: vec![1; 16],
            blockshape: vec![1; 16],
            dtype: None,
            dtype_format: 0,
        };
        let b = m.serialize().unwrap();
        assert_eq!(b[3], 0xa0, "the reference writes 0x90 + ndim");
        assert_eq!(b.len(), 3 + (1 + 16 * 9) + 2 * (1 + 16 * 5) + 1 + 5 + 3);
        let (back, used) = deserialize(&b).unwrap();
        assert_eq!(used, b.len());
        assert_eq!(back.shape, m.shape);
        assert_eq!(back.blockshape, m.blockshape);
    }

    #[test]
    fn round_trip() {
        let m = sample();
        let b = m.serialize().unwrap();
        // array(7), version, ndim, 3 arrays of ndim items, fmt, str32 header, dtype
        assert_eq!(b.len(), 3 + (1 + 3 * 9) + 2 * (1 + 3 * 5) + 1 + 5 + 3);
        assert_eq!(&b[..4], &[0x97, 0, 3, 0x93]);
        assert_eq!(b[4], 0xd3);
        assert_eq!(&b[b.len() - 8..], &[0xdb, 0, 0, 0, 3, b'<', b'f', b'8']);
        let (back, used) = deserialize(&b).unwrap();
        assert_eq!(back, m);
        assert_eq!(used, b.len());
    }

    #[test]
    fn zero_dims_and_default_dtype() {
        let b = serialize(&[], &[], &[], None, 0).unwrap();
        let m = Meta::deserialize(&b).unwrap();
        assert_eq!(m.ndim(), 0);
        assert_eq!(m.dtype.as_deref(), Some(DEFAULT_DTYPE));
    }

    #[test]
    fn caterva_without_dtype() {
        let mut b = sample().serialize().unwrap();
        b.truncate(b.len() - 9);
        let m = Meta::deserialize(&b).unwrap();
        assert_eq!(m.dtype, None);
        assert_eq!(m.shape, vec![10, 0, 7]);
    }

    #[test]
    fn malformed_is_an_error_never_a_panic() {
        let good = sample().serialize().unwrap();
        // every truncation either decodes (only at the dtype boundary) or fails
        for n in 0..good.len() {
            let r = deserialize(&good[..n]);
            if let Ok((m, _)) = r {
                assert_eq!(n, good.len() - 9);
                assert_eq!(m.dtype, None);
            }
        }
        // ndim > 16 and "negative" ndim
        for nd in [17u8, 0x80, 0xff] {
            let mut b = good.clone();
            b[2] = nd;
            assert_eq!(deserialize(&b).unwrap_err(), ErrorKind::Failure);
        }
        // dtype length past the buffer, negative, and a wrong marker
        let mut b = good.clone();
        let at = b.len() - 7;
        b[at..at + 4].copy_from_slice(&100i32.to_be_bytes());
        assert!(deserialize(&b).is_err());
        b[at..at + 4].copy_from_slice(&(-1i32).to_be_bytes());
        assert!(deserialize(&b).is_err());
        let mut b = good.clone();
        let at = b.len() - 8;
        b[at] = 0xd9;
        assert!(deserialize(&b).is_err());
        // random bytes never panic
        let mut x = 0x2545F4914F6CDD1Du64;
        for _ in 0..2000 {
            let mut b = good.clone();
            for _ in 0..3 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let i = (x as usize) % b.len();
                b[i] = (x >> 32) as u8;
            }
            let _ = deserialize(&b);
        }
    }

    #[test]
    fn serialize_refuses_bad_input() {
        assert!(serialize(&[1; 17], &[1; 17], &[1; 17], None, 0).is_err());
        assert!(serialize(&[1, 2], &[1], &[1, 1], None, 0).is_err());
        assert!(serialize(&[1], &[1], &[1], None, -1).is_err());
    }
}
