//! The b2nd API of `b2nd.h`: n-dimensional arrays over super-chunks. This
//! file makes, opens, saves, copies and frees arrays and their creation
//! contexts; the objects behind the pointers are in `objects::array`.

pub(crate) mod metalayer;
pub(crate) mod shape;
pub(crate) mod slices;

pub use metalayer::*;
pub use shape::*;
pub use slices::*;

use crate::api::schunk::{
    blosc2_schunk_append_file, blosc2_schunk_copy, blosc2_schunk_free, blosc2_schunk_from_buffer,
    blosc2_schunk_new, blosc2_schunk_open_offset, blosc2_schunk_to_buffer,
};
use crate::boundary::{err, ffi, or_return};
use crate::consts::B2ND_MAX_DIM;
use crate::ptr::c_string_lossy;
use crate::ptr::{bytes, optional};
use crate::types::{b2nd_array_t, b2nd_context_t, blosc2_metalayer, blosc2_schunk, blosc2_storage};
use blosc2_core::b2nd::array::{Array, Fill};
use blosc2_core::b2nd::geometry::{self};
use blosc2_core::error::ErrorKind;
use blosc2_core::metalayers::Metalayer;
use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr::{self};

use crate::objects::array::*;
use slices::slice_into_new;
/// Create an array-creation context (NULL on invalid input).
///
/// # Safety
/// `b2_storage` is NULL or valid (its pointers NULL or valid); `shape`,
/// `chunkshape`, `blockshape` have `ndim` values; `dtype` is NULL or a C
/// string; `metalayers` has `nmetalayers` valid entries.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn b2nd_create_ctx(
    b2_storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> *mut b2nd_context_t {
    ffi!({
        if ndim < 0 || ndim as usize > B2ND_MAX_DIM {
            err(ErrorKind::InvalidParam);
            return ptr::null_mut();
        }
        let n = ndim as usize;
        // SAFETY: `ndim` values each, per the contract.
        let (s, c, b) = unsafe {
            (
                optional(shape, n),
                optional(chunkshape, n),
                optional(blockshape, n),
            )
        };
        let (s, c, b) = match (s, c, b) {
            (Some(s), Some(c), Some(b)) => (s, c, b),
            _ if n == 0 => (&[][..], &[][..], &[][..]),
            _ => {
                err(ErrorKind::NullPointer);
                return ptr::null_mut();
            }
        };
        if let Err(e) = geometry::validate(s, c, b) {
            err(e);
            return ptr::null_mut();
        }
        // SAFETY: NULL or valid per the contract.
        let st = unsafe { b2_storage.as_ref() }.copied().unwrap_or_default();
        // SAFETY: the storage's pointers are NULL or valid per the contract.
        let mut cp = unsafe { st.cparams.as_ref() }.copied().unwrap_or_default();
        // SAFETY: `st.dparams` is NULL or a valid `blosc2_dparams`, per this
        // function's contract on `b2_storage`.
        let dp = unsafe { st.dparams.as_ref() }.copied();
        // SAFETY: `st.io` is NULL or a valid `blosc2_io`, per this function's
        // contract on `b2_storage`.
        let io = unsafe { st.io.as_ref() }.copied();
        // SAFETY: NULL or a C string per the contract.
        let urlpath = unsafe { c_string_lossy(st.urlpath) }.and_then(|u| CString::new(u).ok());
        // SAFETY: NULL or a C string per the contract.
        let dtype =
            unsafe { c_string_lossy(dtype) }.unwrap_or_else(|| format!("|S{}", cp.typesize));
        let mut blocknitems: i32 = 1;
        for &x in b {
            match blocknitems.checked_mul(x) {
                Some(v) => blocknitems = v,
                None => {
                    err(ErrorKind::InvalidParam);
                    return ptr::null_mut();
                }
            }
        }
        match blocknitems.checked_mul(cp.typesize) {
            Some(v) => cp.blocksize = v,
            None => {
                err(ErrorKind::InvalidParam);
                return ptr::null_mut();
            }
        }
        let mut metas = Vec::new();
        if nmetalayers > 0 {
            // SAFETY: `nmetalayers` entries per the contract.
            let Some(ms) = (unsafe { optional(metalayers, nmetalayers as usize) }) else {
                err(ErrorKind::NullPointer);
                return ptr::null_mut();
            };
            for m in ms {
                // SAFETY: each entry's name is a C string and its content has
                // `content_len` bytes, per the contract.
                let name = unsafe { c_string_lossy(m.name) }.unwrap_or_default();
                // SAFETY: `m.content` is NULL or has `content_len` readable bytes,
                // per this function's contract on `metalayers`.
                let content = unsafe { optional(m.content, m.content_len.max(0) as usize) }
                    .unwrap_or(&[])
                    .to_vec();
                metas.push(Metalayer { name, content });
            }
        }
        let mut ctx = Box::new(Ctx {
            contiguous: st.contiguous,
            urlpath,
            cparams: cp,
            dparams: dp,
            io,
            ndim,
            shape: [0; B2ND_MAX_DIM],
            chunkshape: [0; B2ND_MAX_DIM],
            blockshape: [0; B2ND_MAX_DIM],
            dtype,
            dtype_format,
            metalayers: metas,
        });
        ctx.shape[..n].copy_from_slice(s);
        ctx.chunkshape[..n].copy_from_slice(c);
        ctx.blockshape[..n].copy_from_slice(b);
        Box::into_raw(ctx).cast()
    })
}

/// Free a context.
///
/// # Safety
/// `ctx` is NULL or a live context, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free_ctx(ctx: *mut b2nd_context_t) -> c_int {
    ffi!({
        if ctx.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: made by Box::into_raw in b2nd_create_ctx, given back once.
        drop(unsafe { Box::from_raw(ctx.cast::<Ctx>()) });
        0
    })
}

/// # Safety
/// `ctx` NULL or live; `array` NULL or writable.
pub(crate) unsafe fn create_with(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    fill: Fill,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context, per this function's contract.
    let Some(c) = (unsafe { ctx_ref(ctx) }) else {
        return err(ErrorKind::NullPointer);
    };
    if array.is_null() {
        return err(ErrorKind::NullPointer);
    }
    match create_array(c, fill) {
        Ok(a) => {
            // SAFETY: writable per the contract.
            unsafe { *array = a };
            0
        }
        Err(e) => err(e),
    }
}

/// New array of undefined content (special chunks).
///
/// # Safety
/// `ctx` is a live context; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_uninit(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context and `array` NULL or writable
    // (this function's contract), as create_with needs.
    ffi!({ unsafe { create_with(ctx, array, Fill::Uninit) } })
}

/// New array of zeros (the reference fills "empty" arrays with zeros too).
///
/// # Safety
/// `ctx` is a live context; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context and `array` NULL or writable
    // (this function's contract), as create_with needs.
    ffi!({ unsafe { create_with(ctx, array, Fill::Zeros) } })
}

/// New array of zeros (special chunks).
///
/// # Safety
/// `ctx` is a live context; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context and `array` NULL or writable
    // (this function's contract), as create_with needs.
    ffi!({ unsafe { create_with(ctx, array, Fill::Zeros) } })
}

/// New array of NaNs (typesize 4 or 8; special chunks).
///
/// # Safety
/// `ctx` is a live context; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_nans(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context and `array` NULL or writable
    // (this function's contract), as create_with needs.
    ffi!({ unsafe { create_with(ctx, array, Fill::Nans) } })
}

/// New array with every item equal to `fill_value` (typesize bytes).
///
/// # Safety
/// `ctx` is a live context; `array` is writable; `fill_value` has
/// typesize readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_full(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    fill_value: *const c_void,
) -> c_int {
    ffi!({
        // SAFETY: `ctx` is NULL or a live context, per this function's contract.
        let Some(c) = (unsafe { ctx_ref(ctx) }) else {
            return err(ErrorKind::NullPointer);
        };
        if fill_value.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let ts = c.cparams.typesize.max(0) as usize;
        // SAFETY: `fill_value` (non-NULL) has typesize readable bytes, per
        // the contract.
        let v = or_return!(unsafe { bytes(fill_value, ts) });
        // SAFETY: `ctx` is a live context (non-NULL above) and `array` NULL or
        // writable, per this function's contract, as create_with needs.
        unsafe { create_with(ctx, array, Fill::Value(v)) }
    })
}

/// Free an array and its super-chunk.
///
/// # Safety
/// `array` is NULL or a live array, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    ffi!({
        if array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: made by Box::into_raw in new_c_array, given back once.
        drop(unsafe { Box::from_raw(array.cast::<ArrayHandle>()) });
        0
    })
}

/// View a super-chunk with a "b2nd" (or "caterva") metalayer as an array;
/// the array takes the super-chunk over (`b2nd_free` frees it).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk not owned by another array;
/// `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(
    schunk: *mut blosc2_schunk,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `schunk` is NULL or a live super-chunk no array owns and
    // `array` NULL or writable (this function's contract), as adopt needs.
    ffi!({ unsafe { adopt(schunk, array, false) } })
}

/// Wrap `schunk` into a new array; with `owned`, free it on failure.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk no other array owns (ours to
/// free when `owned`); `array` is NULL or writable.
unsafe fn adopt(schunk: *mut blosc2_schunk, array: *mut *mut b2nd_array_t, owned: bool) -> c_int {
    if array.is_null() {
        if owned {
            // SAFETY: ours, not published.
            unsafe { blosc2_schunk_free(schunk) };
        }
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: a live schunk handle per the contract, owned by the array
    // from here on.
    let Some(scp) = (unsafe { ScPtr::new(schunk) }) else {
        return err(ErrorKind::NullPointer);
    };
    match Array::from_schunk(scp) {
        Ok(a) => {
            // SAFETY: writable per the contract.
            unsafe { *array = new_c_array(a) };
            0
        }
        Err(e) => {
            if owned {
                // SAFETY: ours, not published.
                unsafe { blosc2_schunk_free(schunk) };
            }
            err(e)
        }
    }
}

/// Serialize as a contiguous frame (a new malloc()ed buffer; `needs_free`
/// says whether the caller must free it).
///
/// # Safety
/// `array` is live; the out pointers are writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    ffi!({
        if array.is_null() || cframe.is_null() || cframe_len.is_null() || needs_free.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: live per the contract.
        let sc = unsafe { (*array).sc };
        // SAFETY: the array's live schunk; out pointers writable per the contract.
        let n = unsafe { blosc2_schunk_to_buffer(sc, cframe, needs_free) };
        // SAFETY: writable per the contract.
        unsafe { *cframe_len = n };
        if n <= 0 {
            return err(ErrorKind::Failure);
        }
        0
    })
}

/// An array from a contiguous frame in memory (`copy` false: the frame
/// buffer is used in place, and stays the caller's to free after the array).
///
/// # Safety
/// `cframe` has `cframe_len` readable bytes, which stay valid while the
/// array lives when `copy` is false; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(
    cframe: *mut u8,
    cframe_len: i64,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    ffi!({
        if cframe.is_null() || array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: `cframe` has `cframe_len` readable bytes that outlive the
        // array when `copy` is false, per this function's contract.
        let sc = unsafe { blosc2_schunk_from_buffer(cframe, cframe_len, copy) };
        if sc.is_null() {
            return err(ErrorKind::Failure);
        }
        // the caller keeps its buffer (with copy false it is used in place
        // and stays the caller's to free, as in the reference)
        // SAFETY: a fresh schunk handle.
        unsafe { adopt(sc, array, true) }
    })
}

/// Open an array stored in a file or directory.
///
/// # Safety
/// `urlpath` is a C string; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: `urlpath` is NULL or a C string and `array` NULL or writable
    // (this function's contract), as open_offset needs.
    ffi!({ unsafe { open_offset(urlpath, array, 0) } })
}

/// Open an array whose frame starts `offset` bytes into a file.
///
/// # Safety
/// `urlpath` is a C string; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(
    urlpath: *const c_char,
    array: *mut *mut b2nd_array_t,
    offset: i64,
) -> c_int {
    // SAFETY: `urlpath` is NULL or a C string and `array` NULL or writable
    // (this function's contract), as open_offset needs.
    ffi!({ unsafe { open_offset(urlpath, array, offset) } })
}

/// # Safety
/// `urlpath` is NULL or a C string; `array` is NULL or writable.
unsafe fn open_offset(urlpath: *const c_char, array: *mut *mut b2nd_array_t, offset: i64) -> c_int {
    if urlpath.is_null() || array.is_null() {
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: `urlpath` is a C string (non-NULL above), per this function's
    // contract.
    let sc = unsafe { blosc2_schunk_open_offset(urlpath, offset) };
    if sc.is_null() {
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: a fresh schunk handle.
    unsafe { adopt(sc, array, true) }
}

/// Save a copy as a frame file (contiguous arrays) or directory (sparse).
///
/// # Safety
/// `array` is live; `urlpath` is a C string.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    ffi!({
        if array.is_null() || urlpath.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: live per the contract.
        let Some(h) = (unsafe { array_handle(array) }) else {
            return err(ErrorKind::NullPointer);
        };
        if let Err(e) = refresh_if_stale(h) {
            return err(e);
        }
        let sc = h.arr.holder().as_ptr();
        // SAFETY: the array's live schunk; its storage is valid.
        let contiguous = unsafe { (*(*sc).storage).contiguous };
        let mut st = blosc2_storage {
            contiguous,
            urlpath,
            ..blosc2_storage::default()
        };
        // SAFETY: live schunk; `st` valid.
        let copy = unsafe { blosc2_schunk_copy(sc, &mut st) };
        if copy.is_null() {
            return err(ErrorKind::Failure);
        }
        // SAFETY: ours.
        unsafe { blosc2_schunk_free(copy) };
        0
    })
}

/// Append as a contiguous frame to `urlpath`; returns the offset where it
/// starts.
///
/// # Safety
/// `array` is live; `urlpath` is a C string.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(
    array: *const b2nd_array_t,
    urlpath: *const c_char,
) -> i64 {
    ffi!({
        if array.is_null() {
            return err(ErrorKind::NullPointer) as i64;
        }
        // SAFETY: live per the contract; urlpath forwarded.
        unsafe { blosc2_schunk_append_file((*array).sc, urlpath) }
    })
}

/// Copy an array into the storage of `ctx`: chunks as they are when the
/// chunk and block shapes match, re-chunked otherwise (metalayers and
/// vlmetalayers come along).
///
/// # Safety
/// `ctx`, `src` live; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy(
    ctx: *mut b2nd_context_t,
    src: *const b2nd_array_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    ffi!({
        // SAFETY: `ctx` and `src` are NULL or live handles of this library, per
        // this function's contract.
        let (Some(c), Some(h)) = (unsafe { ctx_ref(ctx) }, unsafe { array_handle(src) }) else {
            return err(ErrorKind::NullPointer);
        };
        if array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        if let Err(e) = refresh_if_stale(h) {
            return err(e);
        }
        let n = h.arr.ndim();
        c.ndim = c_ndim(n);
        c.shape[..n].copy_from_slice(h.arr.shape());
        let same =
            c.chunkshape[..n] == *h.arr.chunkshape() && c.blockshape[..n] == *h.arr.blockshape();
        if same {
            let sc = h.arr.holder().as_ptr();
            // SAFETY: the array's live schunk; the storage is valid for the call.
            let new = c.with_storage(|st| unsafe { blosc2_schunk_copy(sc, st) });
            // SAFETY: a fresh handle, owned by the new array.
            let Some(scp) = (unsafe { ScPtr::new(new) }) else {
                return err(ErrorKind::Failure);
            };
            let a = Array::assemble(
                scp,
                h.arr.geometry().clone(),
                Some(c.dtype.clone()),
                c.dtype_format,
            );
            // SAFETY: writable per the contract.
            unsafe { *array = new_c_array(a) };
            return 0;
        }
        let mut c2 = Ctx {
            urlpath: c.urlpath.clone(),
            metalayers: h
                .arr
                .schunk()
                .metalayers
                .iter()
                .filter(|m| m.name != blosc2_core::b2nd::array::META_NAME)
                .cloned()
                .collect(),
            dtype: c.dtype.clone(),
            ..*c
        };
        c2.metalayers.truncate(crate::consts::B2ND_MAX_METALAYERS);
        let start = vec![0i64; n];
        // SAFETY: `array` is writable (non-NULL above), per this function's
        // contract, as slice_into_new needs.
        let rc = unsafe { slice_into_new(&c2, array, h, &start) };
        if rc < 0 {
            return rc;
        }
        // SAFETY: just written.
        let a = unsafe { *array };
        let names: Vec<String> = h
            .arr
            .schunk()
            .vlmetalayers
            .iter()
            .map(|m| m.name.clone())
            .collect();
        // SAFETY: the fresh array.
        let r = unsafe {
            with_array(a, |dst| {
                for name in names {
                    let content = h.arr.schunk().vlmeta_get(&name)?;
                    let cp = dst.schunk().cparams().clone();
                    dst.schunk_mut().vlmeta_add(&name, &content, Some(&cp))?;
                }
                Ok(())
            })
        };
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

/// A new array as the context describes it, filled as `fill` says.
pub(crate) fn create_array(ctx: &Ctx, fill: Fill) -> blosc2_core::error::Result<*mut b2nd_array_t> {
    let p = ctx.params();
    geometry::Geometry::new(&p.shape, &p.chunkshape, &p.blockshape)?;
    // SAFETY: the storage's pointers are NULL or point to live locals.
    let sc = ctx.with_storage(|st| unsafe { blosc2_schunk_new(st) });
    // SAFETY: a fresh schunk handle, owned by the array from here on.
    let Some(scp) = (unsafe { ScPtr::new(sc) }) else {
        return Err(ErrorKind::Failure);
    };
    match Array::init(scp, &p, fill) {
        Ok(a) => Ok(new_c_array(a)),
        Err(e) => {
            // SAFETY: not published, so ours to free.
            unsafe { blosc2_schunk_free(sc) };
            Err(e)
        }
    }
}
