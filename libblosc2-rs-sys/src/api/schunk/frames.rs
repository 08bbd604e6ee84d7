//! The super-chunk as a contiguous frame: serialized into a buffer (or the
//! caller's own frame handed back), written or appended to a file, its
//! length, and the chunk offsets of its frame.
//!
//! Separate because these export the super-chunk rather than change or
//! read its data.

use super::call::with;
use crate::boundary::{err, ffi};
use crate::objects::schunk::reading;
use crate::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use std::ffi::c_char;
use std::ptr;

/// Serialize into a contiguous frame: a new malloc()ed buffer, or the
/// caller's own frame while a super-chunk made from it is unchanged.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `cframe`
/// and `needs_free` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_buffer(
    schunk: *mut blosc2_schunk,
    cframe: *mut *mut u8,
    needs_free: *mut bool,
) -> i64 {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `reading` needs.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return err(ErrorKind::NullPointer) as i64;
        };
        if cframe.is_null() || needs_free.is_null() {
            return err(ErrorKind::NullPointer) as i64;
        }
        // an unchanged frame adopted from the caller is handed back as
        // it is, as upstream hands out its in-memory frame
        if let (false, Some(n)) = (h.cframe.is_null(), h.core.pristine_len()) {
            // SAFETY: the out pointers (non-NULL) are writable, per the
            // contract.
            unsafe {
                *cframe = h.cframe;
                *needs_free = false;
            }
            return n;
        }
        let f = match h.core.to_frame() {
            Ok(f) => f,
            Err(e) => return err(e) as i64,
        };
        let p = match crate::ptr::malloc_copy(&f) {
            Ok(p) => p,
            Err(e) => return err(e) as i64,
        };
        // SAFETY: the out pointers are writable, per the contract.
        unsafe {
            *cframe = p;
            *needs_free = true;
        }
        f.len() as i64
    },)
}

/// Write as a contiguous frame file; returns its length.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `urlpath`
/// is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    ffi!({
        // SAFETY: `urlpath` is NULL or NUL-terminated, per the contract, as
        // ptr::urlpath needs.
        let Some(path) = (unsafe { crate::ptr::urlpath(urlpath) }) else {
            return err(ErrorKind::NullPointer) as i64;
        };
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe { with(schunk, |core| core.to_file(&path)) }
    },)
}

/// Append as a contiguous frame to a file; returns where it starts.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `urlpath`
/// is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    ffi!({
        // SAFETY: `urlpath` is NULL or NUL-terminated, per the contract, as
        // ptr::urlpath needs.
        let Some(path) = (unsafe { crate::ptr::urlpath(urlpath) }) else {
            return err(ErrorKind::NullPointer) as i64;
        };
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe { with(schunk, |core| core.append_file(&path)) }
    },)
}

/// Length of the frame behind the super-chunk (an estimate without one).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    ffi!({
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe { with(schunk, |core| core.frame_len()) }
    },)
}

/// The chunk offsets of the frame (malloc()ed, `nchunks` values), or NULL.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `reading` needs.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return ptr::null_mut();
        };
        let Ok(offs) = h.core.offsets() else {
            return ptr::null_mut();
        };
        crate::ptr::malloc_copy(&offs).unwrap_or(ptr::null_mut())
    })
}
