//! Turning C pointers into slices, in one place.

use blosc2_core::chunk::header::MIN_HEADER_LENGTH;
use blosc2_core::error::ErrorKind;
use std::os::raw::c_void;

/// A writable slice of `len` bytes at `p` (empty when `len` is 0).
///
/// # Safety
/// `p` is non-NULL and valid for `len` writable bytes when `len > 0`.
pub unsafe fn out_slice<'a>(p: *mut c_void, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts_mut(p as *mut u8, len) }
}

/// A readable slice of `len` bytes at `p` (empty when `len` is 0).
///
/// # Safety
/// `p` is non-NULL and valid for `len` readable bytes when `len > 0`.
pub unsafe fn in_slice<'a>(p: *const c_void, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts(p as *const u8, len) }
}

/// The chunk at `p`, at most `srcsize` bytes but never more than the chunk's
/// own `cbytes`: the Blosc1 calls pass INT32_MAX as size, trusting the header.
///
/// # Safety
/// `p` is non-NULL and valid for `min(srcsize, cbytes)` readable bytes (and
/// for 16 bytes when `srcsize >= 16`).
pub unsafe fn chunk_slice<'a>(p: *const c_void, srcsize: usize) -> Result<&'a [u8], ErrorKind> {
    if srcsize < MIN_HEADER_LENGTH {
        // SAFETY: the caller promises `srcsize` readable bytes.
        return Ok(unsafe { in_slice(p, srcsize) });
    }
    // SAFETY: at least 16 readable bytes, per the caller.
    let head = unsafe { in_slice(p, MIN_HEADER_LENGTH) };
    let cbytes = i32::from_le_bytes([head[12], head[13], head[14], head[15]]);
    if cbytes < MIN_HEADER_LENGTH as i32 {
        return Err(ErrorKind::InvalidHeader);
    }
    let len = srcsize.min(cbytes as usize);
    // SAFETY: len <= srcsize readable bytes, per the caller.
    Ok(unsafe { in_slice(p, len) })
}
