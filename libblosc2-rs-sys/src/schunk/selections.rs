//! Reads of item selections: the items at given coordinates
//! (`blosc2_schunk_get_sparse_buffer`) and the chunks a slice touches
//! (`blosc2_get_slice_nchunks`, for plain super-chunks and b2nd arrays).
//!
//! Separate from `slices`, which reads and writes the items of one range.

use crate::boundary::{code, err, ffi};
use crate::reading::reading;
use crate::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use std::ffi::{c_int, c_void};
use std::ptr;

/// Items at `coords` (item indices) into `buffer`, one after the other.
///
/// # Safety
/// `schunk` is live; `coords` has `ncoords` values; `buffer` has room for
/// `ncoords` items.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    ffi!({
        // SAFETY: per the contract.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return ErrorKind::InvalidParam.code();
        };
        if ncoords < 0 {
            return ErrorKind::InvalidParam.code();
        }
        if ncoords == 0 {
            return 0;
        }
        if coords.is_null() || buffer.is_null() {
            return ErrorKind::InvalidParam.code();
        }
        let ts = h.core.typesize().max(1) as usize;
        let Some(len) = (ncoords as usize).checked_mul(ts) else {
            return ErrorKind::InvalidParam.code();
        };
        // SAFETY: `coords` has `ncoords` values and `buffer` room for as
        // many items, per the contract.
        let (c, out) = match unsafe {
            (
                crate::ptr::slice(coords, ncoords as usize),
                crate::ptr::bytes_mut(buffer, len),
            )
        } {
            (Ok(c), Ok(out)) => (c, out),
            (Err(e), _) | (_, Err(e)) => return err(e),
        };
        code(h.core.get_sparse(c, out))
    })
}

/// Chunks touched by the slice `*start..*stop` (a malloc()ed list in
/// `*chunks_idx`); returns how many. Arrays (a "b2nd" metalayer) are not
/// supported here yet.
///
/// # Safety
/// `schunk` is live; `start`/`stop` point to one value; `chunks_idx` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    ffi!({
        // SAFETY: per the contract.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return ErrorKind::NullPointer.code() as i64;
        };
        if start.is_null() || stop.is_null() || chunks_idx.is_null() {
            return ErrorKind::NullPointer.code() as i64;
        }
        let is_array = ["b2nd", "caterva"]
            .iter()
            .any(|n| blosc2_core::metalayers::find(&h.core.metalayers, n).is_some());
        let v = if is_array {
            // An array's start/stop hold one coordinate per dimension.
            let arr = match blosc2_core::b2nd::Array::from_schunk(&h.core) {
                Ok(a) => a,
                Err(e) => return err(e) as i64,
            };
            let nd = arr.ndim();
            // SAFETY: `ndim` readable values each, per the contract for
            // arrays (as upstream's b2nd_get_slice_nchunks reads them).
            let (a, b) =
                match unsafe { (crate::ptr::slice(start, nd), crate::ptr::slice(stop, nd)) } {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(e), _) | (_, Err(e)) => return err(e) as i64,
                };
            arr.slice_chunks(a, b)
        } else {
            // SAFETY: one readable value each per the contract.
            let (a, b) = unsafe { (*start, *stop) };
            h.core.slice_chunks(a, b)
        };
        let v = match v {
            Ok(v) => v,
            Err(e) => return err(e) as i64,
        };
        // No chunks: NULL, as upstream's blosc2_get_slice_nchunks hands out.
        let p = if v.is_empty() {
            ptr::null_mut()
        } else {
            match crate::ptr::malloc_copy(&v) {
                Ok(p) => p,
                Err(e) => return err(e) as i64,
            }
        };
        // SAFETY: writable per the contract.
        unsafe { *chunks_idx = p };
        v.len() as i64
    },)
}
