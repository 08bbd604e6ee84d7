//! Turning C pointers into slices, strings and paths, in one place.

use blosc2_core::chunk::header::MIN_HEADER_LENGTH;
use blosc2_core::error::ErrorKind;
use std::ffi::{c_char, CStr};
use std::os::raw::c_void;
use std::path::PathBuf;

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

/// A C string's text: `None` for NULL or for bytes that are not UTF-8.
///
/// # Safety
/// `p` is NULL or NUL-terminated, readable up to its NUL, and unchanged
/// for `'a`.
pub unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL, NUL-terminated and live for 'a per the contract.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// A C string's text with bytes that are not UTF-8 replaced; `None` for
/// NULL.
///
/// # Safety
/// `p` is NULL or NUL-terminated and readable up to its NUL.
pub unsafe fn c_string_lossy(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated per the contract.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// A frame's `urlpath` as upstream's calls that create or open a frame
/// read it (`normalize_urlpath` in its frame.c): a leading `file:///`
/// dropped whole, so `file:///x.b2frame` names `x.b2frame` in the working
/// directory (its examples rely on that), and trailing slashes of a
/// directory trimmed. `None` for NULL.
///
/// # Safety
/// As [`c_string_lossy`].
pub unsafe fn urlpath(p: *const c_char) -> Option<PathBuf> {
    // SAFETY: forwarded contract.
    let s = unsafe { c_string_lossy(p) }?;
    Some(PathBuf::from(normalize_urlpath(&s)))
}

fn normalize_urlpath(s: &str) -> &str {
    let s = s.strip_prefix("file:///").unwrap_or(s);
    let t = s.trim_end_matches('/');
    if t.is_empty() {
        s
    } else {
        t
    }
}

/// A path taken as it is: upstream's `blosc2_remove_dir`,
/// `blosc2_remove_urlpath` and `blosc2_rename_urlpath` do not drop a
/// `file:///` prefix. `None` for NULL.
///
/// # Safety
/// As [`c_string_lossy`].
pub unsafe fn plain_path(p: *const c_char) -> Option<PathBuf> {
    // SAFETY: forwarded contract.
    unsafe { c_string_lossy(p) }.map(PathBuf::from)
}

#[cfg(test)]
mod path_tests {
    use super::*;

    #[test]
    fn urlpaths_follow_upstreams_normalization() {
        assert_eq!(normalize_urlpath("file:///x.b2frame"), "x.b2frame");
        assert_eq!(normalize_urlpath("file:///dir/"), "dir");
        assert_eq!(normalize_urlpath("dir.b2frame//"), "dir.b2frame");
        assert_eq!(normalize_urlpath("/"), "/");
        assert_eq!(normalize_urlpath("a/file:///b"), "a/file:///b");
        let p = c"file:///x.b2frame".as_ptr();
        // SAFETY: a C string literal.
        unsafe {
            assert_eq!(urlpath(p), Some(PathBuf::from("x.b2frame")));
            assert_eq!(plain_path(p), Some(PathBuf::from("file:///x.b2frame")));
            assert_eq!(urlpath(std::ptr::null()), None);
            assert_eq!(c_str(c"\xff".as_ptr()), None);
            assert_eq!(
                c_string_lossy(c"\xff".as_ptr()).as_deref(),
                Some("\u{fffd}")
            );
        }
    }
}
