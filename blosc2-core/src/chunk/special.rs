//! Special-value chunks: a header (plus, for repeated values, the value) that
//! stands for a whole chunk of zeros, NaNs, uninitialized bytes or one
//! repeated value (`blosc2_chunk_zeros/nans/uninit/repeatval`).

use super::compress::Compressor;
use super::header::{version, ChunkHeader, Special, EXTENDED_HEADER_LENGTH};
use super::params::CParams;
use crate::error::{ErrorKind, Result};

/// Write a special chunk of `nbytes` described by `kind` into `dest`.
/// `value` is the repeated item for `Special::Value` (its length is the typesize).
pub fn make_special(
    params: &CParams,
    kind: Special,
    nbytes: i32,
    value: Option<&[u8]>,
    dest: &mut [u8],
) -> Result<usize> {
    let typesize = params.typesize;
    let extra = match kind {
        Special::Value => typesize.max(0) as usize,
        _ => 0,
    };
    if dest.len() < EXTENDED_HEADER_LENGTH + extra {
        return Err(ErrorKind::Data);
    }
    if typesize <= 0 {
        return Err(ErrorKind::InvalidParam);
    }
    if nbytes < 0 {
        return Err(ErrorKind::InvalidParam);
    }
    let misaligned = nbytes % typesize != 0;
    match kind {
        Special::Zero | Special::Uninit if nbytes > 0 && misaligned => return Err(ErrorKind::Data),
        Special::Nan | Special::Value if misaligned => return Err(ErrorKind::Data),
        _ => {}
    }
    // The header's blocksize is the one a regular chunk would get.
    let ctx = Compressor::new(params.clone());
    let blocksize = ctx.blocksize_for(nbytes as usize)? as i32;
    let stored_ts = if typesize > 255 { 1 } else { typesize as u8 };
    let cbytes = EXTENDED_HEADER_LENGTH + extra;
    let header = ChunkHeader {
        version: version::STABLE,
        versionlz: 1,
        flags: 0x01 | 0x04,
        typesize: stored_ts,
        nbytes,
        blocksize,
        cbytes: cbytes as i32,
        blosc2_flags: (kind as u8) << 4,
        ..Default::default()
    };
    header.write(&mut dest[..EXTENDED_HEADER_LENGTH]);
    if kind == Special::Value {
        let v = value.ok_or(ErrorKind::NullPointer)?;
        if v.len() < extra {
            return Err(ErrorKind::InvalidParam);
        }
        dest[EXTENDED_HEADER_LENGTH..cbytes].copy_from_slice(&v[..extra]);
    }
    Ok(cbytes)
}
