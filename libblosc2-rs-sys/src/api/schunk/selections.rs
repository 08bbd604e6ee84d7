//! Reads of item selections: the items at given coordinates
//! (`blosc2_schunk_get_sparse_buffer`) and the chunks a slice touches
//! (`blosc2_get_slice_nchunks`, for plain super-chunks and b2nd arrays).
//!
//! Separate from `slices`, which reads and writes the items of one range.

use crate::boundary::{code, err, ffi};
use crate::objects::schunk::reading;
use crate::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use std::ffi::{c_int, c_void};
use std::ptr;

/// Items at `coords` (item indices) into `buffer`, one after the other.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `coords`
/// is NULL or has `ncoords` readable values; `buffer` is NULL or has
/// `ncoords * typesize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `reading` needs.
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
        // More coordinates than a usize counts (on 32-bit targets) cannot
        // be in memory: refused rather than cut to a smaller count.
        let Ok(n) = usize::try_from(ncoords) else {
            return ErrorKind::InvalidParam.code();
        };
        let ts = h.core.typesize().max(1) as usize;
        let Some(len) = n.checked_mul(ts) else {
            return ErrorKind::InvalidParam.code();
        };
        // SAFETY: `coords` has `ncoords` (= `n`) values and `buffer` room
        // for as many items (`len` bytes), per the contract.
        let (c, out) = match unsafe {
            (
                crate::ptr::slice(coords, n),
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
/// `schunk` is NULL or a live super-chunk made by this library; `start` and
/// `stop` are NULL or have one readable value each (`ndim` for an array);
/// `chunks_idx` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `reading` needs.
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
            // SAFETY: `start` and `stop` (non-NULL) have one readable value
            // each, per the contract.
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
        // SAFETY: `chunks_idx` (non-NULL) is writable, per the contract.
        unsafe { *chunks_idx = p };
        v.len() as i64
    },)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::schunk::{blosc2_schunk_append_buffer, blosc2_schunk_free, blosc2_schunk_new};
    use crate::types::{blosc2_cparams, blosc2_storage};

    /// A super-chunk in memory holding the i32 values 0..100 in one chunk.
    fn numbers() -> *mut blosc2_schunk {
        let mut cparams = blosc2_cparams {
            typesize: 4,
            ..Default::default()
        };
        let mut storage = blosc2_storage {
            cparams: &mut cparams,
            ..Default::default()
        };
        // SAFETY: a storage whose pointers are NULL or the locals above.
        let sc = unsafe { blosc2_schunk_new(&mut storage) };
        assert!(!sc.is_null());
        let v: Vec<i32> = (0..100).collect();
        // SAFETY: `sc` is live; `v` has 400 readable bytes.
        let n = unsafe { blosc2_schunk_append_buffer(sc, v.as_ptr().cast(), 400) };
        assert_eq!(n, 1);
        sc
    }

    #[test]
    fn sparse_items_are_read_and_bad_counts_refused_before_any_read() {
        let sc = numbers();
        let coords = [5i64, 0, 99];
        let mut out = [-1i32; 3];
        let get = |n: i64, out: &mut [i32; 3]| {
            // SAFETY: `sc` is live; `coords` and `out` hold 3 values, and a
            // larger `n` is refused before either is read.
            unsafe {
                blosc2_schunk_get_sparse_buffer(sc, n, coords.as_ptr(), out.as_mut_ptr().cast())
            }
        };
        assert_eq!(get(3, &mut out), 0);
        assert_eq!(out, [5, 0, 99]);
        let mut untouched = [-1i32; 3];
        // negative, or too many 4-byte items for a usize byte count (on
        // 32-bit targets, 2^62 was cut to 0 coordinates and succeeded)
        for n in [-1, i64::MAX, 1 << 62] {
            assert_eq!(get(n, &mut untouched), ErrorKind::InvalidParam.code());
        }
        assert_eq!(untouched, [-1; 3]);
        // SAFETY: made above, freed once.
        unsafe { blosc2_schunk_free(sc) };
    }

    /// On 32-bit targets `ncoords as usize` kept the low 32 bits: 2^32 + 1
    /// coordinates were read as one, and the call succeeded.
    #[cfg(target_pointer_width = "32")]
    #[test]
    fn a_coordinate_count_beyond_usize_is_refused_not_cut() {
        let sc = numbers();
        let coords = [7i64];
        let mut out = [-1i32];
        // SAFETY: `sc` is live; the count is refused before `coords` or
        // `out` is read or written.
        let rc = unsafe {
            blosc2_schunk_get_sparse_buffer(
                sc,
                (1i64 << 32) + 1,
                coords.as_ptr(),
                out.as_mut_ptr().cast(),
            )
        };
        assert_eq!(rc, ErrorKind::InvalidParam.code());
        assert_eq!(out, [-1]);
        // SAFETY: made above, freed once.
        unsafe { blosc2_schunk_free(sc) };
    }
}
