//! Every conversion from a C pointer to a Rust reference, and every
//! `malloc` block handed back to C, in one place.
//!
//! The rules, one per kind of argument (the crate's pointer contract, see
//! `lib.rs`):
//! - a buffer or array argument is `(pointer, length)`: NULL is accepted
//!   only with length 0 (else `BLOSC2_ERROR_NULL_POINTER`: [`slice()`],
//!   [`bytes`]); each export checks a signed C length before it converts;
//! - an optional array (NULL meaning "left out", as `b2nd`'s shapes) is
//!   [`optional`];
//! - a C string is NULL or NUL-terminated ([`c_str`], [`c_string_lossy`]);
//!   a path follows upstream's rule for the call ([`urlpath`], [`plain_path`]);
//! - what we give C to `free` comes from [`malloc_copy`] (never NULL on
//!   success, even for no items: NULL only ever means out of memory) or
//!   [`calloc_bytes`].

use blosc2_core::chunk::header::MIN_HEADER_LENGTH;
use blosc2_core::error::ErrorKind;
use std::ffi::{c_char, CStr};
use std::os::raw::c_void;
use std::path::PathBuf;

/// No object is larger than `isize::MAX` bytes: a count that claims more
/// is refused before a slice is made of it.
fn fits<T>(n: usize) -> Result<(), ErrorKind> {
    match n.checked_mul(std::mem::size_of::<T>()) {
        Some(b) if isize::try_from(b).is_ok() => Ok(()),
        _ => Err(ErrorKind::InvalidParam),
    }
}

/// `n` values at `p`; NULL only with `n == 0`.
///
/// # Safety
/// When `p` is non-NULL and `n > 0`: `p` is aligned for `T` and points to
/// `n` initialized values that nothing writes for `'a`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, n: usize) -> Result<&'a [T], ErrorKind> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(ErrorKind::NullPointer);
    }
    fits::<T>(n)?;
    // SAFETY: non-NULL with n > 0, at most isize::MAX bytes; aligned,
    // initialized and unaliased by
    // writes for 'a per this function's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// `n` writable values at `p`; NULL only with `n == 0`.
///
/// # Safety
/// When `p` is non-NULL and `n > 0`: `p` is aligned for `T` and points to
/// `n` initialized values that nothing else reads or writes for `'a`.
pub(crate) unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> Result<&'a mut [T], ErrorKind> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(ErrorKind::NullPointer);
    }
    fits::<T>(n)?;
    // SAFETY: non-NULL with n > 0, at most isize::MAX bytes; aligned,
    // initialized and exclusive for
    // 'a per this function's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// An array argument that may be left out: `None` for NULL, else `n`
/// values (none when `n` is 0).
///
/// # Safety
/// As [`slice()`].
pub(crate) unsafe fn optional<'a, T>(p: *const T, n: usize) -> Option<&'a [T]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL; the rest is this function's contract, the same.
    unsafe { slice(p, n) }.ok()
}

/// `len` readable bytes at `p` (a C buffer: `void *` and its size).
///
/// # Safety
/// As [`slice()`] for `u8`.
pub(crate) unsafe fn bytes<'a>(p: *const c_void, len: usize) -> Result<&'a [u8], ErrorKind> {
    // SAFETY: `p` is NULL or has `len` readable bytes, unchanged for 'a,
    // per this function's contract, as slice needs for u8.
    unsafe { slice(p.cast::<u8>(), len) }
}

/// `len` writable bytes at `p`.
///
/// # Safety
/// As [`slice_mut()`] for `u8`.
pub(crate) unsafe fn bytes_mut<'a>(p: *mut c_void, len: usize) -> Result<&'a mut [u8], ErrorKind> {
    // SAFETY: `p` is NULL or has `len` writable bytes, exclusive for 'a,
    // per this function's contract, as slice_mut needs for u8.
    unsafe { slice_mut(p.cast::<u8>(), len) }
}

/// The chunk at `p`, at most `srcsize` bytes but never more than the chunk's
/// own `cbytes`: the Blosc1 calls pass INT32_MAX as size, trusting the header.
///
/// # Safety
/// `p` is NULL or readable for `min(srcsize, cbytes)` bytes, and for the
/// 16 leading bytes that hold `cbytes` when `srcsize >= 16`.
pub(crate) unsafe fn chunk_slice<'a>(
    p: *const c_void,
    srcsize: usize,
) -> Result<&'a [u8], ErrorKind> {
    if srcsize < MIN_HEADER_LENGTH {
        // SAFETY: `srcsize` readable bytes per the contract.
        return unsafe { bytes(p, srcsize) };
    }
    // SAFETY: at least 16 readable bytes when non-NULL, per the contract.
    let head = unsafe { bytes(p, MIN_HEADER_LENGTH) }?;
    let cbytes = i32::from_le_bytes([head[12], head[13], head[14], head[15]]);
    // a negative cbytes fails the conversion, a short one the test
    let cbytes = usize::try_from(cbytes).map_err(|_| ErrorKind::InvalidHeader)?;
    if cbytes < MIN_HEADER_LENGTH {
        return Err(ErrorKind::InvalidHeader);
    }
    let len = srcsize.min(cbytes);
    // SAFETY: len <= srcsize and <= cbytes readable bytes, per the contract.
    unsafe { bytes(p, len) }
}

/// A new `malloc` block holding `items`, for C to `free`. Never NULL on
/// success: no items still allocate one item's room, so a C caller's
/// `NULL` test only ever means out of memory.
pub(crate) fn malloc_copy<T: Copy>(items: &[T]) -> Result<*mut T, ErrorKind> {
    let size = std::mem::size_of_val(items)
        .max(std::mem::size_of::<T>())
        .max(1);
    // SAFETY: a plain allocation; malloc's result is aligned for any object
    // type (C11 7.22.3), so for T.
    let p = unsafe { libc::malloc(size) }.cast::<T>();
    if p.is_null() {
        return Err(ErrorKind::MemoryAlloc);
    }
    // SAFETY: `p` has room for items.len() values and is a fresh block,
    // disjoint from `items`.
    unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), p, items.len()) };
    Ok(p)
}

/// A new `malloc` block holding one value.
pub(crate) fn malloc_value<T: Copy>(v: T) -> Result<*mut T, ErrorKind> {
    malloc_copy(std::slice::from_ref(&v))
}

/// A new `malloc`ed C string holding `s` up to its first NUL.
pub(crate) fn malloc_cstr(s: &str) -> Result<*mut c_char, ErrorKind> {
    let b = s.as_bytes();
    let n = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    let mut v = Vec::with_capacity(n + 1);
    v.extend_from_slice(&b[..n]);
    v.push(0u8);
    Ok(malloc_copy(&v)?.cast())
}

/// A new zeroed block of `n` bytes (at least one) for C to `free`, to be
/// filled in place: zeroed so that it may be viewed as `&mut [u8]` at once.
pub(crate) fn calloc_bytes(n: usize) -> Result<*mut u8, ErrorKind> {
    // SAFETY: a plain allocation.
    let p = unsafe { libc::calloc(n.max(1), 1) }.cast::<u8>();
    if p.is_null() {
        Err(ErrorKind::MemoryAlloc)
    } else {
        Ok(p)
    }
}

/// A C string's text: `None` for NULL or for bytes that are not UTF-8.
///
/// # Safety
/// `p` is NULL or NUL-terminated, readable up to its NUL, and unchanged
/// for `'a`.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL, NUL-terminated and live for 'a per the contract.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// A string argument's text, "" for NULL or bytes that are not UTF-8 (a
/// codec or filter name that then matches nothing).
///
/// # Safety
/// As [`c_str`].
pub(crate) unsafe fn c_str_or_empty<'a>(p: *const c_char) -> &'a str {
    // SAFETY: `p` is NULL or NUL-terminated and unchanged for 'a, as c_str
    // needs.
    unsafe { c_str(p) }.unwrap_or("")
}

/// A C string's text with bytes that are not UTF-8 replaced; `None` for
/// NULL.
///
/// # Safety
/// `p` is NULL or NUL-terminated and readable up to its NUL.
pub(crate) unsafe fn c_string_lossy(p: *const c_char) -> Option<String> {
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
pub(crate) unsafe fn urlpath(p: *const c_char) -> Option<PathBuf> {
    // SAFETY: `p` is NULL or NUL-terminated, as c_string_lossy needs.
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
pub(crate) unsafe fn plain_path(p: *const c_char) -> Option<PathBuf> {
    // SAFETY: `p` is NULL or NUL-terminated, as c_string_lossy needs.
    unsafe { c_string_lossy(p) }.map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_is_accepted_only_without_a_length() {
        // SAFETY: NULL pointers and a live local array.
        unsafe {
            assert_eq!(slice::<i64>(std::ptr::null(), 0), Ok(&[][..]));
            assert_eq!(
                slice::<i64>(std::ptr::null(), 3),
                Err(ErrorKind::NullPointer)
            );
            assert!(bytes_mut(std::ptr::null_mut(), 1).is_err());
            assert_eq!(optional::<i64>(std::ptr::null(), 0), None);
            let v = [1i64, 2, 3];
            assert_eq!(optional(v.as_ptr(), 2), Some(&v[..2]));
            assert_eq!(
                chunk_slice(std::ptr::null(), 32),
                Err(ErrorKind::NullPointer)
            );
        }
    }

    #[test]
    fn a_chunk_is_cut_to_its_cbytes_and_a_bad_cbytes_refused() {
        let mut c = [0u8; 64];
        c[12..16].copy_from_slice(&40i32.to_le_bytes());
        // SAFETY: a live local array of 64 bytes.
        unsafe {
            assert_eq!(chunk_slice(c.as_ptr().cast(), 64).map(<[u8]>::len), Ok(40));
            assert_eq!(chunk_slice(c.as_ptr().cast(), 20).map(<[u8]>::len), Ok(20));
        }
        for bad in [-1i32, 15, i32::MIN] {
            c[12..16].copy_from_slice(&bad.to_le_bytes());
            // SAFETY: `c` is still a live local array of 64 bytes.
            let r = unsafe { chunk_slice(c.as_ptr().cast(), 64) };
            assert_eq!(r, Err(ErrorKind::InvalidHeader));
        }
    }

    #[test]
    fn malloc_copies_are_never_null_and_hold_the_items() {
        let none: [u64; 0] = [];
        for p in [
            malloc_copy(&none).unwrap(),
            malloc_copy(&[7u64, 9]).unwrap(),
        ] {
            assert!(!p.is_null());
            // SAFETY: a block malloc_copy made, freed once.
            unsafe { libc::free(p.cast()) };
        }
        let s = malloc_cstr("ab\0cd").unwrap();
        // SAFETY: a NUL-terminated block malloc_cstr made, freed once.
        unsafe {
            assert_eq!(CStr::from_ptr(s).to_bytes(), b"ab");
            libc::free(s.cast());
        }
        let z = calloc_bytes(0).unwrap();
        // SAFETY: a one-byte zeroed block, freed once.
        unsafe {
            assert_eq!(*z, 0);
            libc::free(z.cast());
        }
    }

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
