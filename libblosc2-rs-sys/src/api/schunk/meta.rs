//! Metalayers (`blosc2_meta_add`, `_update`) and vlmetalayers
//! (`blosc2_vlmeta_*`): adding, updating, reading, deleting and listing
//! them.
//!
//! Separate from the chunk functions: they change the frame's header or
//! trailer, never the chunk data.

use super::call::with;
use crate::boundary::{err, ffi, or_return};
use crate::objects::context::{core_cparams, effective_cparams};
use crate::objects::schunk::reading;
use crate::ptr::c_str;
use crate::types::{blosc2_cparams, blosc2_schunk};
use blosc2_core::error::ErrorKind;
use std::ffi::{c_char, c_int};
use std::ptr;

/// A metalayer index or count as C's `int`: never above the 8 * 1024
/// vlmetalayers a frame holds, so the clamp never bites.
fn c_count(n: usize) -> c_int {
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

/// A metalayer's content: upstream answers a missing one with
/// `BLOSC2_ERROR_INVALID_PARAM`, not `NULL_POINTER`.
///
/// # Safety
/// `content` is NULL or has `len` readable bytes.
unsafe fn content<'a>(content: *const u8, len: i32) -> Result<&'a [u8], ErrorKind> {
    let n = usize::try_from(len).map_err(|_| ErrorKind::InvalidParam)?;
    // SAFETY: `content` is NULL or has `len` (= `n`) readable bytes, per the
    // contract.
    unsafe { crate::ptr::slice(content, n) }.map_err(|_| ErrorKind::InvalidParam)
}

/// Add a fixed-size metalayer; returns its index.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `name` is
/// NULL or NUL-terminated; `content` is NULL or has `content_len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or live, as `with` needs; `name` is NULL
        // or NUL-terminated and `content_` NULL or `content_len` readable
        // bytes, per the contract.
        unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                core.meta_add(n, content(content_, content_len)?)
                    .map(c_count)
            })
        }
    })
}

/// Overwrite a metalayer's content (never growing it).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `name` is
/// NULL or NUL-terminated; `content` is NULL or has `content_len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or live, as `with` needs; `name` is NULL
        // or NUL-terminated and `content_` NULL or `content_len` readable
        // bytes, per the contract.
        unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                core.meta_update(n, content(content_, content_len)?)
                    .map(c_count)
            })
        }
    })
}

/// Index of a vlmetalayer, or BLOSC2_ERROR_NOT_FOUND.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `name` is
/// NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, as `reading` needs; `name` is NULL or
        // NUL-terminated, per the contract.
        let (Some(h), Some(n)) = (unsafe { reading(schunk) }.ok(), unsafe { c_str(name) }) else {
            return ErrorKind::InvalidParam.code();
        };
        if n.len() > blosc2_core::metalayers::NAME_MAXLEN {
            return ErrorKind::InvalidParam.code();
        }
        match blosc2_core::metalayers::find(&h.core.vlmetalayers, n) {
            Some(i) => c_count(i),
            None => ErrorKind::NotFound.code(),
        }
    })
}

/// # Safety
/// `cparams` is NULL or a readable `blosc2_cparams`.
unsafe fn vl_cparams(cparams: *mut blosc2_cparams) -> Option<blosc2_core::chunk::CParams> {
    // SAFETY: `cparams` is NULL or a readable blosc2_cparams, per the
    // contract.
    unsafe { cparams.as_ref() }.map(|c| core_cparams(&effective_cparams(*c).unwrap_or(*c)))
}

/// Add a vlmetalayer, compressed with `cparams` (NULL = defaults).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `name` is
/// NULL or NUL-terminated; `content` is NULL or has `content_len` readable
/// bytes; `cparams` is NULL or a readable `blosc2_cparams`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or live, as `with` needs; `name` is NULL
        // or NUL-terminated, `content_` NULL or `content_len` readable bytes
        // and `cparams` NULL or readable, per the contract.
        unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                let cp = vl_cparams(cparams);
                core.vlmeta_add(n, content(content_, content_len)?, cp.as_ref())
                    .map(c_count)
            })
        }
    })
}

/// Replace a vlmetalayer's content.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `name` is
/// NULL or NUL-terminated; `content` is NULL or has `content_len` readable
/// bytes; `cparams` is NULL or a readable `blosc2_cparams`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or live, as `with` needs; `name` is NULL
        // or NUL-terminated, `content_` NULL or `content_len` readable bytes
        // and `cparams` NULL or readable, per the contract.
        unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                let cp = vl_cparams(cparams);
                core.vlmeta_update(n, content(content_, content_len)?, cp.as_ref())
                    .map(c_count)
            })
        }
    })
}

/// A malloc()ed copy of a vlmetalayer's (decompressed) content.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `name` is
/// NULL or NUL-terminated; `content` and `content_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, as `reading` needs; `name` is NULL or
        // NUL-terminated, per the contract.
        let (Some(h), Some(n)) = (unsafe { reading(schunk) }.ok(), unsafe { c_str(name) }) else {
            return err(ErrorKind::InvalidParam);
        };
        if content_.is_null() || content_len.is_null() {
            return err(ErrorKind::InvalidParam);
        }
        let Some(i) = blosc2_core::metalayers::find(&h.core.vlmetalayers, n) else {
            return ErrorKind::NotFound.code();
        };
        let v = or_return!(h.core.vlmeta_get(n));
        // the content is one chunk's data, whose nbytes is an int32_t
        let Ok(len) = i32::try_from(v.len()) else {
            return err(ErrorKind::MaxBufsizeExceeded);
        };
        // Empty content: NULL, as upstream's malloc(0) may give.
        let p = if v.is_empty() {
            ptr::null_mut()
        } else {
            or_return!(crate::ptr::malloc_copy(&v))
        };
        // SAFETY: the out pointers (non-NULL) are writable, per the contract.
        unsafe {
            *content_ = p;
            *content_len = len;
        }
        c_count(i)
    })
}

/// Delete a vlmetalayer; returns how many are left.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `name` is
/// NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or live, as `with` needs; `name` is NULL
        // or NUL-terminated, per the contract.
        unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                core.vlmeta_delete(n).map(c_count)
            })
        }
    })
}

/// Fill `names` with the vlmetalayer names (owned by the super-chunk).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `names` is
/// NULL or has room for `schunk->nvlmetalayers` pointers.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(
    schunk: *mut blosc2_schunk,
    names: *mut *mut c_char,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `reading` needs.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return err(ErrorKind::NullPointer);
        };
        if names.is_null() {
            return err(ErrorKind::NullPointer);
        }
        for (i, m) in h.vlmetas.iter().enumerate() {
            // SAFETY: `names` (non-NULL) has room for `nvlmetalayers` (the
            // count of `h.vlmetas`) pointers, per the contract.
            unsafe { *names.add(i) = m.name.as_ptr() as *mut c_char };
        }
        c_count(h.vlmetas.len())
    })
}
