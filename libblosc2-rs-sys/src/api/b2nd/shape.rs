//! The shape-changing and selection functions of `b2nd.h`: resize, insert,
//! append, delete, concatenate, squeeze, expand_dims, orthogonal
//! selections and the sparse gather. The work is done by the safe
//! `b2nd::reshape` / `b2nd::orthogonal` code; this file converts pointers.

use crate::api::b2nd::b2nd_copy;
use crate::api::b2nd::create_array;
use crate::api::schunk::{blosc2_schunk_get_cparams, blosc2_schunk_get_dparams};
use crate::boundary::{code, err, ffi, or_return};
use crate::objects::array::{array_handle, with_array, Ctx};
use crate::ptr::{bytes, bytes_mut, slice};
use crate::types::{b2nd_array_t, b2nd_context_t, blosc2_cparams, blosc2_dparams};
use blosc2_core::b2nd::array::{Array, Fill, Params};
use blosc2_core::b2nd::reshape::check_concat;
use blosc2_core::error::{ErrorKind, Result};
use blosc2_core::schunk::{Storage, SuperChunk};
use std::ffi::{c_int, c_void};
use std::ptr;

/// Resize an array; `start` (NULL: the end of every axis) is where items
/// are added or removed.
///
/// # Safety
/// `array` is live; `new_shape` and `start` (if not NULL) have ndim values.
#[no_mangle]
pub unsafe extern "C" fn b2nd_resize(
    array: *mut b2nd_array_t,
    new_shape: *const i64,
    start: *const i64,
) -> c_int {
    ffi!({
        if array.is_null() || new_shape.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: live array; the shapes have ndim values per the contract.
        code(unsafe {
            with_array(array, |a| {
                let n = a.ndim();
                let new = slice(new_shape, n)?;
                let st = if start.is_null() {
                    None
                } else {
                    Some(slice(start, n)?)
                };
                a.resize(new, st)
            })
        })
    })
}

/// Insert `buffer` (whole slabs of the other dimensions, C order) at
/// `insert_start` along `axis`.
///
/// # Safety
/// `array` is live; `buffer` has `buffersize` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_insert(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
    insert_start: i64,
) -> c_int {
    ffi!({
        if array.is_null() || buffer.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: live array; `buffer` readable for `len` bytes.
        code(unsafe {
            with_array(array, |a| {
                a.insert(bytes(buffer, len)?, axis as i32, insert_start)
            })
        })
    })
}

/// Append `buffer` at the end of `axis`.
///
/// # Safety
/// `array` is live; `buffer` has `buffersize` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_append(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
) -> c_int {
    ffi!({
        if array.is_null() || buffer.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: live array; `buffer` readable for `len` bytes.
        code(unsafe { with_array(array, |a| a.append(bytes(buffer, len)?, axis as i32)) })
    })
}

/// Remove `delete_len` items at `delete_start` along `axis`.
///
/// # Safety
/// `array` is live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_delete(
    array: *mut b2nd_array_t,
    axis: i8,
    delete_start: i64,
    delete_len: i64,
) -> c_int {
    ffi!({
        if array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: live array.
        code(unsafe { with_array(array, |a| a.delete(axis as i32, delete_start, delete_len)) })
    })
}

/// Join `src2` to `src1` along `axis`: into a copy of `src1` made with
/// `ctx` (`copy`), or into `src1` itself, which `*array` then points to.
///
/// # Safety
/// `ctx` live (when `copy`); `src1`, `src2` live; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_concatenate(
    ctx: *mut b2nd_context_t,
    src1: *const b2nd_array_t,
    src2: *const b2nd_array_t,
    axis: i8,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    ffi!({
        if src1.is_null() || src2.is_null() || array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // Check first, so a failed call leaves no copy behind.
        // SAFETY: live arrays per the contract; one at a time.
        let checked = unsafe { with_array(src2, |b| Ok((b.shape().to_vec(), b.typesize()))) }
            .and_then(|(shape2, ts2)| {
                // SAFETY: `src1` is a live array (non-NULL above), per the
                // contract; the borrow of `src2` has ended.
                unsafe {
                    with_array(src1, |a| {
                        check_concat(a.shape(), a.typesize(), &shape2, ts2, axis as i32)
                    })
                }
            });
        if let Err(e) = checked {
            return err(e);
        }
        let dst = if copy {
            let mut out = ptr::null_mut();
            // SAFETY: `ctx` is NULL or live (b2nd_copy refuses NULL) and
            // `src1` live, per the contract; `out` is a local.
            let rc = unsafe { b2nd_copy(ctx, src1, &mut out) };
            if rc < 0 {
                return rc;
            }
            out
        } else {
            src1 as *mut b2nd_array_t
        };
        let r = if ptr::eq(dst, src2) {
            // joining an array to itself in place: read from a copy
            // SAFETY: live array.
            unsafe {
                with_array(dst, |a| {
                    let b = a.copy(private_storage(a.schunk()), a.chunkshape(), a.blockshape())?;
                    a.concatenate_in_place(&b, axis as i32)
                })
            }
        } else {
            // SAFETY: two distinct live arrays.
            unsafe {
                with_array(src2, |b| {
                    with_array(dst, |a| a.concatenate_in_place(&*b, axis as i32))
                })
            }
        };
        if let Err(e) = r {
            if copy {
                // SAFETY: the copy is ours and not handed out.
                unsafe { crate::api::b2nd::b2nd_free(dst) };
            }
            return err(e);
        }
        // SAFETY: writable per the contract.
        unsafe { *array = dst };
        0
    })
}

/// In-memory storage with the parameters of `sc`.
fn private_storage(sc: &SuperChunk) -> Storage {
    Storage {
        contiguous: false,
        urlpath: None,
        cparams: sc.cparams().clone(),
        dparams: sc.dparams().clone(),
        io: sc.io(),
    }
}

/// A creation context for a new in-memory array shaped as `p`, with the
/// compression parameters of `src`'s super-chunk (as upstream's views).
///
/// # Safety
/// `src` is a live array.
unsafe fn view_ctx(src: *const b2nd_array_t, p: &Params) -> Result<Ctx> {
    // SAFETY: `src` is NULL or a live array, per this function's contract.
    let h = unsafe { array_handle(src) }.ok_or(ErrorKind::NullPointer)?;
    let sc = h.arr.holder().as_ptr();
    let mut cpp: *mut blosc2_cparams = ptr::null_mut();
    let mut dpp: *mut blosc2_dparams = ptr::null_mut();
    // SAFETY: the array's live schunk; the outputs are malloc()ed copies.
    let (rc1, rc2) = unsafe {
        (
            blosc2_schunk_get_cparams(sc, &mut cpp),
            blosc2_schunk_get_dparams(sc, &mut dpp),
        )
    };
    if rc1 < 0 || rc2 < 0 || cpp.is_null() || dpp.is_null() {
        // SAFETY: NULL or malloc()ed just above.
        unsafe {
            libc::free(cpp.cast());
            libc::free(dpp.cast());
        }
        return Err(ErrorKind::Failure);
    }
    // SAFETY: both point to values written by the calls above; freed after.
    let (mut cp, mut dp) = unsafe { (*cpp, *dpp) };
    // SAFETY: malloc()ed by the calls above, not used afterwards.
    unsafe {
        libc::free(cpp.cast());
        libc::free(dpp.cast());
    }
    cp.schunk = ptr::null_mut();
    dp.schunk = ptr::null_mut();
    let n = p.shape.len();
    let mut ctx = Ctx {
        contiguous: false,
        urlpath: None,
        cparams: cp,
        dparams: Some(dp),
        io: None,
        ndim: crate::api::b2nd::c_ndim(n),
        shape: [0; crate::consts::B2ND_MAX_DIM],
        chunkshape: [0; crate::consts::B2ND_MAX_DIM],
        blockshape: [0; crate::consts::B2ND_MAX_DIM],
        dtype: p
            .dtype
            .clone()
            .unwrap_or_else(|| blosc2_core::b2nd::meta::DEFAULT_DTYPE.to_string()),
        dtype_format: p.dtype_format,
        metalayers: Vec::new(),
    };
    ctx.shape[..n].copy_from_slice(&p.shape);
    ctx.chunkshape[..n].copy_from_slice(&p.chunkshape);
    ctx.blockshape[..n].copy_from_slice(&p.blockshape);
    Ok(ctx)
}

/// Make the new array of a squeeze or expand_dims.
///
/// # Safety
/// `array` is live; `view` writable.
unsafe fn new_view(
    array: *const b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    geometry: impl FnOnce(&Array<crate::api::b2nd::ScPtr>) -> Result<(Params, bool)>,
) -> c_int {
    if array.is_null() || view.is_null() {
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: live array.
    let plan = unsafe { with_array(array, |a| geometry(a)) };
    let (params, same_layout) = or_return!(plan);
    // SAFETY: live array.
    let ctx = or_return!(unsafe { view_ctx(array, &params) });
    let out = or_return!(create_array(&ctx, Fill::Zeros));
    // SAFETY: two distinct live arrays (`out` is brand new).
    let r = unsafe {
        with_array(array, |a| {
            with_array(out, |d| a.copy_reshaped_into(d, same_layout))
        })
    };
    if let Err(e) = r {
        // SAFETY: ours, not handed out.
        unsafe { crate::api::b2nd::b2nd_free(out) };
        return err(e);
    }
    // SAFETY: writable per the contract.
    unsafe { *view = out };
    0
}

/// A new array without the size-1 dimensions flagged in `index`.
///
/// # Safety
/// `array` is live; `index` has ndim values; `view` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze_index(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    index: *const bool,
) -> c_int {
    ffi!({
        // SAFETY: `array` is NULL or live, `view` NULL or writable (as
        // new_view needs) and `index` has ndim values, per the contract.
        unsafe {
            new_view(array, view, |a| {
                let idx = slice(index, a.ndim())?;
                a.squeeze_params(idx)
            })
        }
    })
}

/// A new array without the size-1 dimensions.
///
/// # Safety
/// `array` is live; `view` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
) -> c_int {
    ffi!({
        // SAFETY: `array` is NULL or live and `view` NULL or writable, per
        // the contract, as new_view needs.
        unsafe { new_view(array, view, |a| a.squeeze_params(&a.squeeze_all())) }
    })
}

/// A new array with size-1 dimensions added where `axis` is true
/// (`final_dims` flags, one per dimension of the result).
///
/// # Safety
/// `array` is live; `axis` has `final_dims` values; `view` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_expand_dims(
    array: *const b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    axis: *const bool,
    final_dims: u8,
) -> c_int {
    ffi!({
        // SAFETY: `array` is NULL or live, `view` NULL or writable (as
        // new_view needs) and `axis` has `final_dims` values, per the contract.
        unsafe {
            new_view(array, view, |a| {
                let ax = slice(axis, final_dims as usize)?;
                a.expand_params(ax)
            })
        }
    })
}

/// The per-dimension selections of an orthogonal selection, checked the
/// way the reference does before it starts.
///
/// # Safety
/// `selection` and `selection_size` have `ndim` entries; `selection[i]`
/// has `selection_size[i]` values.
unsafe fn selections<'a>(
    ndim: usize,
    selection: *const *mut i64,
    selection_size: *const i64,
) -> Result<Vec<&'a [i64]>> {
    // SAFETY: `selection` and `selection_size` have `ndim` entries, per
    // this function's contract.
    let (ptrs, sizes) = unsafe { (slice(selection, ndim)?, slice(selection_size, ndim)?) };
    let mut out = Vec::with_capacity(ndim);
    for d in 0..ndim {
        let n = usize::try_from(sizes[d]).map_err(|_| ErrorKind::InvalidParam)?;
        if ptrs[d].is_null() {
            return Err(ErrorKind::NullPointer);
        }
        // SAFETY: `selection[d]` (non-NULL) has `selection_size[d]` values,
        // per this function's contract.
        out.push(unsafe { slice(ptrs[d].cast_const(), n)? });
    }
    Ok(out)
}

/// The buffer of a selection holds at most the selected items (the
/// reference refuses a larger `buffersize`).
fn check_selection_buffer(sel: &[&[i64]], typesize: i32, buffersize: i64) -> Result<()> {
    let mut n = typesize as i64;
    for s in sel {
        n = n.saturating_mul(s.len() as i64);
    }
    if n < buffersize {
        return Err(ErrorKind::InvalidParam);
    }
    Ok(())
}

/// Read the items at the Cartesian product of the per-dimension
/// `selection` lists into `buffer`, shaped `buffershape`.
///
/// # Safety
/// `array` live; `selection`/`selection_size`/`buffershape` have ndim
/// entries, `selection[i]` has `selection_size[i]` values; `buffer` has
/// `buffersize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_orthogonal_selection(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    ffi!({
        if array.is_null() || selection.is_null() || selection_size.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `array` is live; the selection arrays are as `selections`
        // needs, `buffershape` has ndim values and `buffer` `buffersize`
        // writable bytes, per the contract.
        code(unsafe {
            with_array(array, |a| {
                let n = a.ndim();
                let sel = selections(n, selection, selection_size)?;
                let bshape = slice(buffershape, n)?;
                check_selection_buffer(&sel, a.typesize(), buffersize)?;
                if len > 0 && buffer.is_null() {
                    return Err(ErrorKind::NullPointer);
                }
                a.get_orthogonal_selection(&sel, bytes_mut(buffer, len)?, bshape)
            })
        })
    })
}

/// Write `buffer` (shaped `buffershape`) at the Cartesian product of the
/// per-dimension `selection` lists.
///
/// # Safety
/// `array` live; `selection`/`selection_size`/`buffershape` have ndim
/// entries, `selection[i]` has `selection_size[i]` values; `buffer` has
/// `buffersize` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_orthogonal_selection(
    array: *mut b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *const c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    ffi!({
        if array.is_null() || selection.is_null() || selection_size.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `array` is live; the selection arrays are as `selections`
        // needs, `buffershape` has ndim values and `buffer` `buffersize`
        // readable bytes, per the contract.
        code(unsafe {
            with_array(array, |a| {
                let n = a.ndim();
                let sel = selections(n, selection, selection_size)?;
                let bshape = slice(buffershape, n)?;
                check_selection_buffer(&sel, a.typesize(), buffersize)?;
                if len > 0 && buffer.is_null() {
                    return Err(ErrorKind::NullPointer);
                }
                a.set_orthogonal_selection(&sel, bytes(buffer, len)?, bshape)
            })
        })
    })
}

/// Gather items by flat C-order indices into `buffer`, in the order given.
///
/// # Safety
/// `array` live; `coords` has `ncoords` values; `buffer` has `buffersize`
/// writable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_sparse_cbuffer(
    array: *const b2nd_array_t,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    ffi!({
        if array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let Ok(n) = usize::try_from(ncoords) else {
            return err(ErrorKind::InvalidParam);
        };
        if n == 0 {
            return 0;
        }
        if coords.is_null() || buffer.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `array` is live, `coords` has `ncoords` values and `buffer`
        // `buffersize` writable bytes, per the contract.
        code(unsafe {
            with_array(array, |a| {
                let c = slice(coords, n)?;
                a.get_sparse_cbuffer(c, bytes_mut(buffer, len)?)
            })
        })
    })
}
