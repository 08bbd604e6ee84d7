//! Arrays to and from C buffers: the whole array, boxes (slices) of it,
//! and boxes copied between two plain buffers (`b2nd_copy_buffer*`).

use crate::boundary::{code, err, ffi, or_return};
use crate::consts::B2ND_MAX_DIM;
use crate::ptr::{bytes, bytes_mut, slice};
use crate::types::{b2nd_array_t, b2nd_context_t};
use blosc2_core::b2nd::array::Fill;
use blosc2_core::b2nd::geometry::{self};
use blosc2_core::b2nd::slice::copy_buffer2;
use blosc2_core::error::ErrorKind;
use std::ffi::{c_int, c_void};
use std::ptr::{self};

use super::{b2nd_free, create_array, create_with};
use crate::objects::array::*;
/// New array from the C-order items of `buffer`.
///
/// # Safety
/// `ctx` is live; `array` writable; `buffer` has `buffersize` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cbuffer(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
) -> c_int {
    ffi!({
        if ctx.is_null() || buffer.is_null() || array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // a negative size reads nothing; one past the address space is no
        // buffer's
        let Ok(len) = usize::try_from(buffersize.max(0)) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `ctx` is a live context and `array` writable (both non-NULL
        // above), per this function's contract.
        let rc = unsafe { create_with(ctx, array, Fill::Zeros) };
        if rc < 0 {
            return rc;
        }
        // SAFETY: just written.
        let a = unsafe { *array };
        // SAFETY: `buffer` (non-NULL) has `buffersize` (>= `len`) readable
        // bytes, per the contract.
        let buf = or_return!(unsafe { bytes(buffer, len) });
        // SAFETY: the fresh array.
        let r = unsafe { with_array(a, |arr| arr.fill_from_cbuffer(buf)) };
        if let Err(e) = r {
            // SAFETY: ours; the caller gets NULL back.
            unsafe {
                b2nd_free(a);
                *array = ptr::null_mut();
            }
            return err(e);
        }
        0
    })
}

/// Read the whole array into `buffer` in C order.
///
/// # Safety
/// `array` is live; `buffer` has `buffersize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(
    array: *const b2nd_array_t,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    ffi!({
        if array.is_null() || buffer.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `buffer` (non-NULL) has `buffersize` writable bytes, per
        // the contract.
        let out = or_return!(unsafe { bytes_mut(buffer, len) });
        // SAFETY: live per the contract.
        code(unsafe { read_array(array, |a| a.to_cbuffer(out)) })
    })
}

/// Read the box `start..stop` into `buffer`, shaped `buffershape`.
///
/// # Safety
/// `array` is live; `start`, `stop`, `buffershape` have ndim values;
/// `buffer` has `buffersize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    ffi!({
        if array.is_null()
            || start.is_null()
            || stop.is_null()
            || buffershape.is_null()
            || buffer.is_null()
        {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `array` is live; `start`, `stop`, `buffershape` have ndim
        // values and `buffer` `buffersize` writable bytes, per the contract.
        let r = unsafe {
            read_array(array, |a| {
                let n = a.ndim();
                let (s, e, bs) = (slice(start, n)?, slice(stop, n)?, slice(buffershape, n)?);
                let out = bytes_mut(buffer, len)?;
                a.get_slice_cbuffer(s, e, out, bs)
            })
        };
        code(r)
    })
}

/// Write `buffer`, shaped `buffershape`, into the box `start..stop`.
///
/// # Safety
/// `array` is live; `start`, `stop`, `buffershape` have ndim values;
/// `buffer` has `buffersize` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    ffi!({
        if array.is_null()
            || start.is_null()
            || stop.is_null()
            || buffershape.is_null()
            || buffer.is_null()
        {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `array` is live; `start`, `stop`, `buffershape` have ndim
        // values and `buffer` `buffersize` readable bytes, per the contract.
        let r = unsafe {
            with_array(array, |a| {
                let n = a.ndim();
                let (s, e, bs) = (slice(start, n)?, slice(stop, n)?, slice(buffershape, n)?);
                let src = bytes(buffer, len)?;
                a.set_slice_cbuffer(src, bs, s, e)
            })
        };
        code(r)
    })
}

/// Copy the items of `src` in `start..stop` into a new array made from
/// `ctx` (whose ndim and shape are set to the slice's, as upstream does).
///
/// # Safety
/// `ctx`, `src` live; `start`, `stop` have ndim values; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    src: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
) -> c_int {
    ffi!({
        // SAFETY: `ctx` and `src` are NULL or live handles of this library, per
        // this function's contract.
        let (Some(c), Some(h)) = (unsafe { ctx_ref(ctx) }, unsafe { array_handle(src) }) else {
            return err(ErrorKind::NullPointer);
        };
        if start.is_null() || stop.is_null() || array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        if let Err(e) = refresh_if_stale(h) {
            return err(e);
        }
        let n = h.arr.ndim();
        // SAFETY: ndim values each per the contract.
        let (s, e) = match unsafe { (slice(start, n), slice(stop, n)) } {
            (Ok(s), Ok(e)) => (s, e),
            _ => return err(ErrorKind::NullPointer),
        };
        if let Err(x) = h.arr.check_range(s, e) {
            return err(x);
        }
        c.ndim = c_ndim(n);
        for i in 0..n {
            c.shape[i] = e[i] - s[i];
        }
        // SAFETY: `array` is writable (non-NULL above), per this function's
        // contract, as slice_into_new needs.
        unsafe { slice_into_new(c, array, h, s) }
    })
}

/// Make an array of zeros from `c` and copy `h`'s box at `start` into it.
///
/// # Safety
/// `array` writable.
pub(crate) unsafe fn slice_into_new(
    c: &Ctx,
    array: *mut *mut b2nd_array_t,
    h: &mut ArrayHandle,
    start: &[i64],
) -> c_int {
    if c.cparams.typesize != h.arr.typesize() {
        return err(ErrorKind::InvalidParam);
    }
    let a = or_return!(create_array(c, Fill::Zeros));
    // SAFETY: the fresh array.
    let r = unsafe { with_array(a, |dst| h.arr.copy_into(dst, start)) };
    h.sync();
    if let Err(e) = r {
        // SAFETY: ours.
        unsafe { b2nd_free(a) };
        return err(e);
    }
    // SAFETY: writable per the contract.
    unsafe { *array = a };
    0
}

/// Byte length of the part of a C buffer a box reaches, or None when it is
/// empty or out of range.
fn reach(pad: &[i64], start: &[i64], len: &[i64], itemsize: usize) -> Option<usize> {
    if len.contains(&0) {
        return Some(0);
    }
    let st = geometry::strides(pad);
    let mut end = 1i64;
    for i in 0..pad.len() {
        if start[i] < 0 || len[i] < 0 {
            return None;
        }
        end = end.checked_add((start[i] + len[i] - 1).checked_mul(st[i])?)?;
    }
    usize::try_from(end.checked_mul(itemsize as i64)?).ok()
}

/// Strided N-d copy between C buffers (`itemsize` up to 255).
///
/// # Safety
/// The shape and position arrays have `ndim` values; `src` and `dst` hold
/// every item the box reaches in them.
#[no_mangle]
#[deprecated(note = "Use b2nd_copy_buffer2 instead.")]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn b2nd_copy_buffer(
    ndim: i8,
    itemsize: u8,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    ffi!({
        // SAFETY: the shape and position arrays have `ndim` values and `src`
        // and `dst` hold every item the box reaches, per this function's
        // contract, as b2nd_copy_buffer2 needs.
        unsafe {
            b2nd_copy_buffer2(
                ndim,
                itemsize as i32,
                src,
                src_pad_shape,
                src_start,
                src_stop,
                dst,
                dst_pad_shape,
                dst_start,
            )
        }
    })
}

/// Copy the box `src_start..src_stop` of `src` (a C buffer shaped
/// `src_pad_shape`) into `dst` (shaped `dst_pad_shape`) at `dst_start`.
///
/// # Safety
/// The shape and position arrays have `ndim` values; `src` and `dst` hold
/// every item the box reaches in them.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn b2nd_copy_buffer2(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    ffi!({
        if ndim < 0 || ndim as usize > B2ND_MAX_DIM || itemsize <= 0 {
            return err(ErrorKind::InvalidParam);
        }
        if src.is_null() || dst.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let n = ndim as usize;
        let is = itemsize as usize;
        // SAFETY: `ndim` values each per the contract.
        let r = unsafe {
            (
                slice(src_pad_shape, n),
                slice(src_start, n),
                slice(src_stop, n),
                slice(dst_pad_shape, n),
                slice(dst_start, n),
            )
        };
        let (Ok(sp), Ok(ss), Ok(se), Ok(dp), Ok(ds)) = r else {
            return err(ErrorKind::NullPointer);
        };
        let len: Vec<i64> = ss.iter().zip(se).map(|(a, b)| b - a).collect();
        let (Some(sl), Some(dl)) = (reach(sp, ss, &len, is), reach(dp, ds, &len, is)) else {
            return err(ErrorKind::InvalidParam);
        };
        if n > 0 && sl == 0 {
            return 0;
        }
        let (sl, dl) = if n == 0 { (is, is) } else { (sl, dl) };
        // SAFETY: the buffers hold every byte the box reaches, per the contract.
        let (s, d) = match unsafe { (bytes(src, sl), bytes_mut(dst, dl)) } {
            (Ok(s), Ok(d)) => (s, d),
            (Err(e), _) | (_, Err(e)) => return err(e),
        };
        code(copy_buffer2(is, s, sp, ss, se, d, dp, ds))
    })
}
