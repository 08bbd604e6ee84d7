//! The "b2nd" metalayer (serialized and parsed), printing it, and
//! refreshing an array from its frame.

use crate::boundary::{err, ffi, or_return};
use crate::consts::B2ND_MAX_DIM;
use crate::objects::schunk::Handle;
use crate::ptr::c_string_lossy;
use crate::ptr::{malloc_copy, malloc_cstr, optional, slice};
use crate::types::b2nd_array_t;
use blosc2_core::b2nd::meta;
use blosc2_core::error::ErrorKind;
use std::ffi::{c_char, c_int, CString};
use std::ptr::{self};

use crate::objects::array::*;
/// Print the "b2nd" metalayer's parameters to stdout, as upstream does.
///
/// # Safety
/// `array` is live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    ffi!({
        // SAFETY: `array` is NULL or a live array, per this function's contract.
        let Some(h) = (unsafe { array_handle(array) }) else {
            return err(ErrorKind::NullPointer);
        };
        let m = or_return!(blosc2_core::b2nd::array::read_meta(h.arr.schunk()));
        let join = |v: Vec<String>| v.join(", ");
        let mut s = format!(
            "b2nd metalayer parameters:\n Ndim:       {}\n shape:      {}\n chunkshape: {}",
            m.ndim(),
            join(m.shape.iter().map(|x| x.to_string()).collect()),
            join(m.chunkshape.iter().map(|x| x.to_string()).collect()),
        );
        if let Some(d) = &m.dtype {
            s.push_str(&format!("\n dtype: {d}"));
        }
        s.push_str(&format!(
            "\n blockshape: {}\n",
            join(m.blockshape.iter().map(|x| x.to_string()).collect())
        ));
        // through C's stdio so the text interleaves with the caller's printf
        let cs = CString::new(s.replace('\0', "")).unwrap_or_default();
        // SAFETY: both are valid C strings.
        unsafe { libc::printf(c"%s".as_ptr(), cs.as_ptr()) };
        0
    })
}

/// Re-read the geometry from the metalayer when the schunk changed since
/// the array last looked: 1 when re-synced, 0 when already current.
///
/// # Safety
/// `array` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    ffi!({
        // SAFETY: `array` is NULL or a live array, per this function's contract.
        let Some(h) = (unsafe { array_handle(array) }) else {
            return err(ErrorKind::NullPointer);
        };
        // first what other handles did to the frame on disk (which moves
        // the schunk's change_tick), then the array's view of its schunk
        let sc = h.arr.holder().as_ptr();
        // SAFETY: the array handle owns this live schunk.
        if let Some(sh) = unsafe { sc.cast::<Handle>().as_mut() } {
            if let Err(e) = sh.refresh() {
                return err(e);
            }
        }
        match refresh_if_stale(h) {
            Ok(v) => v,
            Err(e) => err(e),
        }
    })
}

/// Encode the "b2nd" metalayer into a new malloc()ed `*smeta`; returns its
/// length.
///
/// # Safety
/// `shape`, `chunkshape`, `blockshape` have `ndim` values; `dtype` is NULL
/// or a C string; `smeta` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_serialize_meta(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    smeta: *mut *mut u8,
) -> c_int {
    ffi!({
        if smeta.is_null() {
            return err(ErrorKind::NullPointer);
        }
        if ndim < 0 || ndim as usize > B2ND_MAX_DIM {
            return err(ErrorKind::InvalidParam);
        }
        let n = ndim as usize;
        // SAFETY: `ndim` values each per the contract.
        let (s, c, b) = unsafe {
            (
                optional(shape, n),
                optional(chunkshape, n),
                optional(blockshape, n),
            )
        };
        let (Some(s), Some(c), Some(b)) = (s, c, b) else {
            return err(ErrorKind::NullPointer);
        };
        // SAFETY: NULL or a C string per the contract.
        let d = unsafe { c_string_lossy(dtype) };
        let m = or_return!(meta::serialize(s, c, b, d.as_deref(), dtype_format));
        // the core keeps the dtype's length within int32_t, not the whole
        let len = or_return!(c_int::try_from(m.len()).map_err(|_| ErrorKind::Failure));
        let p = or_return!(malloc_copy(&m));
        // SAFETY: `smeta` is writable, per the contract.
        unsafe { *smeta = p };
        len
    })
}

/// Decode a "b2nd" metalayer (see `b2nd_deserialize_meta_inline`): returns
/// the bytes read; `*dtype` is a new malloc()ed string (or NULL) when both
/// `dtype` and `dtype_format` are given.
///
/// # Safety
/// `smeta` has `smeta_len` readable bytes; `shape`, `chunkshape`,
/// `blockshape` have room for `B2ND_MAX_DIM` values; the other out
/// pointers are NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn b2nd_deserialize_meta(
    smeta: *const u8,
    smeta_len: i32,
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
) -> c_int {
    ffi!({
        if smeta.is_null()
            || ndim.is_null()
            || shape.is_null()
            || chunkshape.is_null()
            || blockshape.is_null()
        {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: writable per the contract.
        unsafe {
            if !dtype.is_null() {
                *dtype = ptr::null_mut();
            }
            if !dtype_format.is_null() {
                *dtype_format = 0;
            }
        }
        if smeta_len <= 0 {
            return err(ErrorKind::Failure);
        }
        // SAFETY: `smeta` has `smeta_len` (> 0) readable bytes, per the
        // contract.
        let buf = or_return!(unsafe { slice(smeta, smeta_len as usize) });
        // without the dtype outputs the reference stops after the shapes,
        // never looking at what follows
        let want_dtype = !dtype.is_null() && !dtype_format.is_null();
        let shapes_len = |n: usize| 3 + (1 + 9 * n) + 2 * (1 + 5 * n);
        let buf = match buf.get(2) {
            Some(&n) if !want_dtype && (n as usize) <= B2ND_MAX_DIM => {
                &buf[..buf.len().min(shapes_len(n as usize))]
            }
            _ => buf,
        };
        let (m, used) = or_return!(meta::deserialize(buf));
        // at most `smeta_len` bytes were read
        let used = or_return!(c_int::try_from(used).map_err(|_| ErrorKind::Failure));
        let n = m.ndim();
        // SAFETY: room for B2ND_MAX_DIM >= n values each per the contract.
        unsafe {
            *ndim = c_ndim(n);
            ptr::copy_nonoverlapping(m.shape.as_ptr(), shape, n);
            ptr::copy_nonoverlapping(m.chunkshape.as_ptr(), chunkshape, n);
            ptr::copy_nonoverlapping(m.blockshape.as_ptr(), blockshape, n);
        }
        if !want_dtype {
            return used;
        }
        // SAFETY: writable per the contract.
        unsafe {
            *dtype_format = m.dtype_format;
            if let Some(d) = &m.dtype {
                *dtype = or_return!(malloc_cstr(d));
            }
        }
        used
    })
}
