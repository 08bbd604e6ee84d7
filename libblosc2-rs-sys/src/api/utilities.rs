//! Path helpers (`blosc2_remove_dir`, `blosc2_remove_urlpath`,
//! `blosc2_rename_urlpath`) and index arithmetic helpers of blosc2.h.

use crate::boundary::ffi;
use crate::consts::B2ND_MAX_DIM;

use crate::ptr::plain_path;
use blosc2_core::error::ErrorKind;
use std::ffi::{c_char, c_int};

/// Remove a directory and the files in it (a sparse frame).
///
/// # Safety
/// `dir_path` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_dir(dir_path: *const c_char) -> c_int {
    ffi!({
        // SAFETY: `dir_path` is NULL or a C string, per this function's
        // contract.
        let Some(p) = (unsafe { plain_path(dir_path) }) else {
            return ErrorKind::InvalidParam.code();
        };
        let Ok(rd) = std::fs::read_dir(&p) else {
            return ErrorKind::NotFound.code();
        };
        for e in rd.flatten() {
            if std::fs::remove_file(e.path()).is_err() {
                return ErrorKind::FileRemove.code();
            }
        }
        match std::fs::remove_dir(&p) {
            Ok(()) => 0,
            Err(_) => ErrorKind::FileRemove.code(),
        }
    })
}

/// Remove a frame file or sparse frame directory; a missing path is fine.
///
/// # Safety
/// `urlpath` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_urlpath(urlpath: *const c_char) -> c_int {
    ffi!({
        // SAFETY: `urlpath` is NULL or a C string, per this function's
        // contract.
        let Some(p) = (unsafe { plain_path(urlpath) }) else {
            return 0;
        };
        match std::fs::metadata(&p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(_) => ErrorKind::Failure.code(),
            // SAFETY: `urlpath` is a C string (non-NULL: it named `p`).
            Ok(m) if m.is_dir() => unsafe { blosc2_remove_dir(urlpath) },
            Ok(_) => match std::fs::remove_file(&p) {
                Ok(()) => {
                    let mut lock = p.into_os_string();
                    lock.push(".b2lock");
                    let _ = std::fs::remove_file(lock);
                    0
                }
                Err(_) => ErrorKind::FileRemove.code(),
            },
        }
    })
}

/// Rename a frame file or directory.
///
/// # Safety
/// `old_urlpath` and `new_path` are NULL or C strings.
#[no_mangle]
pub unsafe extern "C" fn blosc2_rename_urlpath(
    old_urlpath: *mut c_char,
    new_path: *mut c_char,
) -> c_int {
    ffi!({
        // SAFETY: `old_urlpath` and `new_path` are NULL or C strings, per
        // this function's contract.
        let (Some(a), Some(b)) = (unsafe { plain_path(old_urlpath) }, unsafe {
            plain_path(new_path)
        }) else {
            return 0;
        };
        match std::fs::rename(a, b) {
            Ok(()) => 0,
            Err(_) => ErrorKind::Failure.code(),
        }
    })
}

/// Row-major index of item `i` in an array of `shape`.
///
/// # Safety
/// `shape` and `index` have `ndim` values.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unidim_to_multidim(
    ndim: u8,
    shape: *mut i64,
    i: i64,
    index: *mut i64,
) {
    ffi!({
        let n = ndim as usize;
        if n == 0 || n > B2ND_MAX_DIM || shape.is_null() || index.is_null() {
            return;
        }
        // SAFETY: `ndim` values each per the contract.
        // (and `index` does not overlap `shape`).
        let (Ok(shape), Ok(index)) =
            (unsafe { (crate::ptr::slice(shape, n), crate::ptr::slice_mut(index, n)) })
        else {
            return;
        };
        let mut strides = vec![1i64; n];
        for j in (0..n - 1).rev() {
            strides[j] = shape[j + 1].wrapping_mul(strides[j + 1]);
        }
        let div = |a: i64, b: i64| if b == 0 { 0 } else { a / b };
        let rem = |a: i64, b: i64| if b == 0 { 0 } else { a % b };
        index[0] = div(i, strides[0]);
        for j in 1..n {
            index[j] = div(rem(i, strides[j - 1]), strides[j]);
        }
    })
}

/// Item number of a row-major `index` with `strides`.
///
/// # Safety
/// `index` and `strides` have `ndim` values; `i` is writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_multidim_to_unidim(
    index: *const i64,
    ndim: i8,
    strides: *const i64,
    i: *mut i64,
) {
    ffi!({
        if i.is_null() {
            return;
        }
        let n = ndim.max(0) as usize;
        let mut acc = 0i64;
        if n > 0 && !index.is_null() && !strides.is_null() {
            // SAFETY: `ndim` values each per the contract.
            let (Ok(idx), Ok(st)) =
                (unsafe { (crate::ptr::slice(index, n), crate::ptr::slice(strides, n)) })
            else {
                return;
            };
            for (a, b) in idx.iter().zip(st) {
                acc = acc.wrapping_add(a.wrapping_mul(*b));
            }
        }
        // SAFETY: writable per the contract.
        unsafe { *i = acc };
    })
}
