//! Metalayers (`blosc2_meta_add`, `_update`) and vlmetalayers
//! (`blosc2_vlmeta_*`): adding, updating, reading, deleting and listing
//! them.
//!
//! Separate from the chunk functions: they change the frame's header or
//! trailer, never the chunk data.

use super::call::with;
use crate::boundary::{err, ffi, or_return};
use crate::context_object::{core_cparams, effective_cparams};
use crate::ptr::c_str;
use crate::reading::reading;
use crate::types::{blosc2_cparams, blosc2_schunk};
use blosc2_core::error::ErrorKind;
use std::ffi::{c_char, c_int};
use std::ptr;

/// A metalayer's content: upstream answers a missing one with
/// `BLOSC2_ERROR_INVALID_PARAM`, not `NULL_POINTER`.
///
/// # Safety
/// `content` is NULL or has `len` readable bytes.
unsafe fn content<'a>(content: *const u8, len: i32) -> Result<&'a [u8], ErrorKind> {
    let n = usize::try_from(len).map_err(|_| ErrorKind::InvalidParam)?;
    // SAFETY: NULL or `len` readable bytes, per the contract.
    unsafe { crate::ptr::slice(content, n) }.map_err(|_| ErrorKind::InvalidParam)
}

/// Add a fixed-size metalayer; returns its index.
///
/// # Safety
/// `schunk` is live; `name` a C string; `content` has `content_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
) -> c_int {
    ffi!({
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                core.meta_add(n, content(content_, content_len)?)
                    .map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// Overwrite a metalayer's content (never growing it).
///
/// # Safety
/// As `blosc2_meta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
) -> c_int {
    ffi!({
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                core.meta_update(n, content(content_, content_len)?)
                    .map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// Index of a vlmetalayer, or BLOSC2_ERROR_NOT_FOUND.
///
/// # Safety
/// `schunk` is live; `name` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    ffi!({
        // SAFETY: per the contract.
        let (Some(h), Some(n)) = (unsafe { reading(schunk) }.ok(), unsafe { c_str(name) }) else {
            return ErrorKind::InvalidParam.code();
        };
        if n.len() > blosc2_core::metalayers::NAME_MAXLEN {
            return ErrorKind::InvalidParam.code();
        }
        match blosc2_core::metalayers::find(&h.core.vlmetalayers, n) {
            Some(i) => i as c_int,
            None => ErrorKind::NotFound.code(),
        }
    })
}

/// # Safety
/// `cparams` is NULL or valid.
unsafe fn vl_cparams(cparams: *mut blosc2_cparams) -> Option<blosc2_core::chunk::CParams> {
    // SAFETY: per the contract.
    unsafe { cparams.as_ref() }.map(|c| core_cparams(&effective_cparams(*c).unwrap_or(*c)))
}

/// Add a vlmetalayer, compressed with `cparams` (NULL = defaults).
///
/// # Safety
/// As `blosc2_meta_add`; `cparams` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi!({
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                let cp = vl_cparams(cparams);
                core.vlmeta_add(n, content(content_, content_len)?, cp.as_ref())
                    .map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// Replace a vlmetalayer's content.
///
/// # Safety
/// As `blosc2_vlmeta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi!({
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                let cp = vl_cparams(cparams);
                core.vlmeta_update(n, content(content_, content_len)?, cp.as_ref())
                    .map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// A malloc()ed copy of a vlmetalayer's (decompressed) content.
///
/// # Safety
/// `schunk` is live; `name` a C string; `content` and `content_len` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    ffi!({
        // SAFETY: per the contract.
        let (Some(h), Some(n)) = (unsafe { reading(schunk) }.ok(), unsafe { c_str(name) }) else {
            return err(ErrorKind::InvalidParam);
        };
        if content_.is_null() || content_len.is_null() {
            return err(ErrorKind::InvalidParam);
        }
        let Some(i) = blosc2_core::metalayers::find(&h.core.vlmetalayers, n) else {
            return ErrorKind::NotFound.code();
        };
        let v = match h.core.vlmeta_get(n) {
            Ok(v) => v,
            Err(e) => return err(e),
        };
        // Empty content: NULL, as upstream's malloc(0) may give.
        let p = if v.is_empty() {
            ptr::null_mut()
        } else {
            or_return!(crate::ptr::malloc_copy(&v))
        };
        // SAFETY: writable per the contract.
        unsafe {
            *content_ = p;
            *content_len = v.len() as i32;
        }
        i as c_int
    })
}

/// Delete a vlmetalayer; returns how many are left.
///
/// # Safety
/// `schunk` is live; `name` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    ffi!({
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_str(name).ok_or(ErrorKind::InvalidParam)?;
                core.vlmeta_delete(n).map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// Fill `names` with the vlmetalayer names (owned by the super-chunk).
///
/// # Safety
/// `schunk` is live; `names` has room for `nvlmetalayers` pointers.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(
    schunk: *mut blosc2_schunk,
    names: *mut *mut c_char,
) -> c_int {
    ffi!({
        // SAFETY: per the contract.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return err(ErrorKind::NullPointer);
        };
        if names.is_null() {
            return err(ErrorKind::NullPointer);
        }
        for (i, m) in h.vlmetas.iter().enumerate() {
            // SAFETY: room for nvlmetalayers pointers per the contract.
            unsafe { *names.add(i) = m.name.as_ptr() as *mut c_char };
        }
        h.vlmetas.len() as c_int
    })
}
