//! Creating, opening, copying and freeing super-chunks: `blosc2_schunk_new`,
//! `_from_buffer`, the `_open` family (with the I/O backend and locking
//! they ask for), `_copy` and `_free`.
//!
//! Separate because these are the only functions that make or end a
//! [`Handle`]; all others work on a live one.

use crate::boundary::{err, ffi, trace_error};
use crate::objects::context::{cctx_refused, core_cparams, effective_cparams};
use crate::objects::schunk::{handle, Handle};
use crate::types::{blosc2_cparams, blosc2_dparams, blosc2_io, blosc2_schunk, blosc2_storage};
use blosc2_core::chunk::DParams;
use blosc2_core::error::ErrorKind;
use blosc2_core::schunk::{Storage, SuperChunk};
use std::ffi::{c_char, c_int};
use std::ptr;

/// Whether frames opened or created with `io` lock their file: asked for
/// in the filesystem backend's parameters, or for every such frame by a
/// non-empty `BLOSC_LOCKING` other than "0", as the reference does.
///
/// # Safety
/// For the filesystem backend, `io.params` is NULL or points to a readable
/// `blosc2_stdio_params`.
unsafe fn locking_requested(io: &blosc2_io) -> bool {
    if io.id as c_int != crate::consts::BLOSC2_IO_FILESYSTEM {
        return false;
    }
    // SAFETY: the filesystem backend's `params` is NULL or a readable
    // `blosc2_stdio_params`, per the contract.
    let asked = unsafe {
        io.params
            .cast::<crate::types::blosc2_stdio_params>()
            .as_ref()
    }
    .is_some_and(|p| p.locking);
    asked || std::env::var_os("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Resolve a `blosc2_io` to a backend.
fn backend(io: &blosc2_io) -> Result<std::sync::Arc<dyn blosc2_core::io::Backend>, ErrorKind> {
    crate::api::io::backend_for(io)
}

fn finish(r: Result<Box<Handle>, ErrorKind>) -> *mut blosc2_schunk {
    match r {
        Ok(h) => h.into_c(),
        Err(e) => {
            err(e);
            ptr::null_mut()
        }
    }
}

/// Create a super-chunk (`storage` NULL = in-memory defaults).
///
/// # Safety
/// `storage` is NULL or a readable `blosc2_storage` whose `cparams`,
/// `dparams` and `io` are NULL or readable, whose `urlpath` is NULL or
/// NUL-terminated, and whose `io->params` is NULL or a readable
/// `blosc2_stdio_params` for the filesystem backend.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    ffi!({
        // SAFETY: `storage` is NULL or a readable blosc2_storage, per the
        // contract.
        let st = unsafe { storage.as_ref() }.copied().unwrap_or_default();
        // SAFETY: `st.cparams` is NULL or a readable blosc2_cparams, per the
        // contract.
        let cp = unsafe { st.cparams.as_ref() }.copied().unwrap_or_default();
        // SAFETY: `st.dparams` is NULL or a readable blosc2_dparams, per the
        // contract.
        let dp = unsafe { st.dparams.as_ref() }.copied().unwrap_or_default();
        // SAFETY: `st.io` is NULL or a readable blosc2_io, per the contract.
        let io = unsafe { st.io.as_ref() }.copied().unwrap_or_default();
        // SAFETY: `st.urlpath` is NULL or NUL-terminated, per the contract.
        let urlpath = unsafe { crate::ptr::urlpath(st.urlpath) };
        finish((|| {
            let eff = effective_cparams(cp).ok_or(ErrorKind::InvalidParam)?;
            // upstream makes the compression context before the frame
            if cctx_refused(&cp) {
                trace_error!("Could not create compression ctx");
                return Err(ErrorKind::NullPointer);
            }
            let mut core = SuperChunk::new(Storage {
                contiguous: st.contiguous,
                urlpath,
                cparams: core_cparams(&eff),
                dparams: DParams {
                    nthreads: dp.nthreads,
                    typesize: dp.typesize,
                },
                io: backend(&io)?,
            })?;
            // SAFETY: the storage's `io->params` is NULL or a readable
            // blosc2_stdio_params for the filesystem backend, per the
            // contract (the default io has NULL params).
            if unsafe { locking_requested(&io) } {
                core.enable_locking();
            }
            let h = Handle::new(core, cp, dp, io, crate::api::io::destroy_cb(&io));
            // a tuner's init may still refuse the context
            if !h.has_cctx() {
                trace_error!("Could not create compression ctx");
                return Err(ErrorKind::NullPointer);
            }
            Ok(h)
        })())
    })
}

/// Wrap a core super-chunk opened from a frame, with parameters derived
/// from it as upstream does: those of its header, but the library's
/// current thread count (`blosc2_set_nthreads`) rather
/// than the one the writer recorded.
fn adopt(core: SuperChunk, io: blosc2_io) -> Box<Handle> {
    let nthreads = crate::api::library::blosc2_get_nthreads();
    let p = core.cparams();
    let cp = blosc2_cparams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: p.clevel,
        use_dict: c_int::from(p.use_dict),
        typesize: p.typesize,
        nthreads,
        blocksize: p.blocksize,
        splitmode: p.splitmode as i32,
        filters: p.filters,
        filters_meta: p.filters_meta,
        ..blosc2_cparams::default()
    };
    let dp = blosc2_dparams {
        nthreads,
        ..blosc2_dparams::default()
    };
    Handle::new(core, cp, dp, io, crate::api::io::destroy_cb(&io))
}

/// Open a super-chunk from a contiguous frame in memory.
///
/// # Safety
/// `cframe` has `len` readable bytes; with `copy` false it must stay valid
/// while the super-chunk lives, and it is freed with the super-chunk (so it
/// must come from malloc) only after `blosc2_schunk_avoid_cframe_free(sc,
/// false)`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_from_buffer(
    cframe: *mut u8,
    len: i64,
    copy: bool,
) -> *mut blosc2_schunk {
    ffi!({
        if cframe.is_null() || len <= 0 {
            return ptr::null_mut();
        }
        let Ok(n) = usize::try_from(len) else {
            return ptr::null_mut();
        };
        // SAFETY: `cframe` (non-NULL) has `len` readable bytes, per the
        // contract.
        let Ok(buf) = (unsafe { crate::ptr::slice(cframe, n) }) else {
            return ptr::null_mut();
        };
        finish(SuperChunk::from_buffer(buf, copy).map(|core| {
            let mut h = adopt(core, blosc2_io::default());
            if !copy {
                // Like the reference, the caller keeps ownership of the
                // buffer unless it hands it over with
                // blosc2_schunk_avoid_cframe_free(sc, false).
                h.cframe = cframe;
                h.avoid_cframe_free = true;
            }
            h
        }))
    })
}

/// Whether freeing the super-chunk frees the adopted frame buffer.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(
    schunk: *mut blosc2_schunk,
    avoid_cframe_free: bool,
) {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk this thread alone
        // uses, per the contract, as `handle` needs.
        if let Some(h) = unsafe { handle(schunk) } {
            h.avoid_cframe_free = avoid_cframe_free;
        }
    })
}

/// # Safety
/// `urlpath` is NULL or NUL-terminated; `udio` is NULL or a readable
/// `blosc2_io` whose `params` is NULL or a readable `blosc2_stdio_params`
/// for the filesystem backend.
unsafe fn open_with(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: `urlpath` is NULL or NUL-terminated, per the contract.
    let Some(path) = (unsafe { crate::ptr::urlpath(urlpath) }) else {
        err(ErrorKind::NullPointer);
        return ptr::null_mut();
    };
    // SAFETY: `udio` is NULL or a readable blosc2_io, per the contract.
    let io = unsafe { udio.as_ref() }.copied().unwrap_or_default();
    let Ok(offset) = u64::try_from(offset) else {
        return ptr::null_mut();
    };
    let r = (|| {
        // SAFETY: `io.params` is NULL or a readable blosc2_stdio_params for
        // the filesystem backend, per the contract (NULL in the default).
        let core = if unsafe { locking_requested(&io) } {
            SuperChunk::open_locking(&path, offset, backend(&io)?)?
        } else {
            SuperChunk::open(&path, offset, backend(&io)?)?
        };
        Ok(adopt(core, io))
    })();
    if r.is_err() {
        let _ = crate::api::io::destroy_params(&io);
    }
    finish(r)
}

/// Open a frame file or sparse frame directory.
///
/// # Safety
/// `urlpath` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open(urlpath: *const c_char) -> *mut blosc2_schunk {
    // SAFETY: `urlpath` is NULL or NUL-terminated, per the contract, and
    // `udio` NULL, as open_with needs.
    ffi!(unsafe { open_with(urlpath, 0, ptr::null()) })
}

/// Open a frame that starts `offset` bytes into a file.
///
/// # Safety
/// `urlpath` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset(
    urlpath: *const c_char,
    offset: i64,
) -> *mut blosc2_schunk {
    // SAFETY: `urlpath` is NULL or NUL-terminated, per the contract, and
    // `udio` NULL, as open_with needs.
    ffi!(unsafe { open_with(urlpath, offset, ptr::null()) })
}

/// Open with an I/O backend.
///
/// # Safety
/// `urlpath` is NULL or a NUL-terminated string; `udio` is NULL or a
/// readable `blosc2_io` (its `params` NULL or a readable
/// `blosc2_stdio_params` for the filesystem backend).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_udio(
    urlpath: *const c_char,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: `urlpath` and `udio` are as open_with needs, per this
    // function's contract (the same).
    ffi!(unsafe { open_with(urlpath, 0, udio) })
}

/// Open at an offset with an I/O backend.
///
/// # Safety
/// `urlpath` is NULL or a NUL-terminated string; `udio` is NULL or a
/// readable `blosc2_io` (its `params` NULL or a readable
/// `blosc2_stdio_params` for the filesystem backend).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset_udio(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: `urlpath` and `udio` are as open_with needs, per this
    // function's contract (the same).
    ffi!(unsafe { open_with(urlpath, offset, udio) },)
}

/// Copy a super-chunk into new storage.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `storage`
/// is NULL or a readable `blosc2_storage` whose `cparams`, `dparams` and
/// `io` are NULL or readable and whose `urlpath` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk this thread alone
        // uses, per the contract, as `handle` needs.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return ptr::null_mut();
        };
        // SAFETY: `storage` is NULL or a readable blosc2_storage, per the
        // contract.
        let st = unsafe { storage.as_ref() }.copied().unwrap_or_default();
        // SAFETY: `st.dparams` is NULL or a readable blosc2_dparams, per the
        // contract.
        let dp = unsafe { st.dparams.as_ref() }
            .copied()
            .unwrap_or(*h.dparams);
        // SAFETY: `st.cparams` is NULL or a readable blosc2_cparams, per the
        // contract.
        let given = unsafe { st.cparams.as_ref() }.copied();
        // SAFETY: `st.io` is NULL or a readable blosc2_io, per the contract.
        let io = unsafe { st.io.as_ref() }.copied().unwrap_or_default();
        // SAFETY: `st.urlpath` is NULL or NUL-terminated, per the contract.
        let urlpath = unsafe { crate::ptr::urlpath(st.urlpath) };
        finish((|| {
            // Without cparams the copy compresses as the source does (and
            // keeps its chunks); with them, as they say, which makes the
            // core compress the chunks again when they differ.
            let (c, cp) = match given {
                Some(g) => {
                    let eff = effective_cparams(g).ok_or(ErrorKind::InvalidParam)?;
                    (g, core_cparams(&eff))
                }
                None => (*h.cparams, h.core.cparams().clone()),
            };
            let core = h.core.copy_to(Storage {
                contiguous: st.contiguous,
                urlpath,
                cparams: cp,
                dparams: DParams {
                    nthreads: dp.nthreads,
                    typesize: dp.typesize,
                },
                io: backend(&io)?,
            })?;
            Ok(Handle::new(
                core,
                c,
                dp,
                io,
                crate::api::io::destroy_cb(&io),
            ))
        })())
    })
}

/// Free a super-chunk (NULL is ignored).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library, not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live handle of this library, given
        // back once, per the contract.
        unsafe { crate::objects::schunk::free_handle(schunk) }
    })
}
