//! The global (non-contextual) API: `blosc1_*` and `blosc2_compress` /
//! `blosc2_decompress` / `blosc2_getitem`. Each calling thread gets its own
//! cached contexts, so concurrent callers never serialize on a global lock.

use crate::api::context::{decompress_with, getitem_with, io_slices};
use crate::api::library::{
    blosc2_set_nthreads, G_BLOCKSIZE, G_COMPRESSOR, G_DELTA, G_NTHREADS, G_SPLITMODE,
};
use crate::boundary::{code, err, ffi, or_return};
use crate::env::env;
use crate::names::compname_to_code;
use crate::objects::context::{build_filters, Kind};
use crate::ptr::c_str_or_empty;
use blosc2_core::chunk::params::{CParams, DParams, SplitMode};
use blosc2_core::chunk::{Compressor, Decompressor};
use blosc2_core::error::ErrorKind;
use std::cell::RefCell;
use std::ffi::{c_char, c_int};
use std::os::raw::c_void;
use std::sync::atomic::Ordering;

thread_local! {
    static CCTX: RefCell<Option<Compressor>> = const { RefCell::new(None) };
    static DCTX: RefCell<Option<Decompressor>> = const { RefCell::new(None) };
}

/// Apply the env overrides upstream applies on every global call; the ones
/// that set global state do so, as upstream's do.
fn apply_env_globals(e: &crate::env::Env) {
    if let Some(d) = e.delta {
        G_DELTA.store(d, Ordering::Relaxed);
    }
    if let Some(name) = &e.compressor {
        if let Ok(code @ 0..6) = u8::try_from(compname_to_code(name)) {
            G_COMPRESSOR.store(code, Ordering::Relaxed);
        }
    }
    if let Some(b) = e.blocksize {
        G_BLOCKSIZE.store(b, Ordering::Relaxed);
    }
    if let Some(n) = e.nthreads {
        G_NTHREADS.store(n, Ordering::Relaxed);
    }
    if let Some(s) = e.splitmode {
        G_SPLITMODE.store(s as i32, Ordering::Relaxed);
    }
}

/// Compress with the global settings.
///
/// # Safety
/// `src` has `srcsize` readable bytes, `dest` `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // upstream initializes the library here when nobody did
        crate::api::plugins::register_global_plugins();
        let e = env();
        apply_env_globals(&e);
        let clevel = e.clevel.map(i32::from).unwrap_or(clevel);
        let doshuffle = e.shuffle.unwrap_or(doshuffle);
        let typesize = e.typesize.unwrap_or(typesize);
        let Ok(clevel @ 0..=9) = u8::try_from(clevel) else {
            return err(ErrorKind::CodecParam);
        };
        let mut filters = [0u8; 6];
        build_filters(
            doshuffle,
            G_DELTA.load(Ordering::Relaxed),
            typesize,
            &mut filters,
        );
        let params = CParams {
            compcode: G_COMPRESSOR.load(Ordering::Relaxed),
            clevel,
            typesize,
            nthreads: G_NTHREADS.load(Ordering::Relaxed),
            blocksize: G_BLOCKSIZE.load(Ordering::Relaxed),
            splitmode: SplitMode::from_i32(G_SPLITMODE.load(Ordering::Relaxed)),
            filters,
            ..CParams::default()
        };
        // SAFETY: `src` has `srcsize` readable and `dest` `destsize` writable
        // bytes, per this function's contract.
        let (s, d) = or_return!(unsafe { io_slices(src, srcsize, dest, destsize) });
        CCTX.with(|cell| {
            let mut slot = cell.borrow_mut();
            let comp = match slot.as_mut() {
                Some(c) if c.params() == &params => c,
                _ => slot.insert(Compressor::new(params)),
            };
            comp.blosc1_header = e.blosc1_compat;
            code(comp.compress(s, d))
        })
    })
}

/// Blosc1 spelling of `blosc2_compress`.
///
/// # Safety
/// `src` has `nbytes` readable bytes, `dest` `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc1_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    ffi!({
        let ts = i32::try_from(typesize).unwrap_or(i32::MAX);
        let Ok(nb) = i32::try_from(nbytes) else {
            return err(ErrorKind::MaxBufsizeExceeded);
        };
        // a larger destination than an int32_t can say is used in part
        let ds = i32::try_from(destsize).unwrap_or(i32::MAX);
        // SAFETY: `src` has `nbytes` readable and `dest` `destsize` (>= `ds`)
        // writable bytes, per this function's contract.
        unsafe { blosc2_compress(clevel, doshuffle, ts, src, nb, dest, ds) }
    })
}

/// Decompress with the global settings.
///
/// # Safety
/// `src` has `srcsize` readable bytes, `dest` `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        crate::api::plugins::register_global_plugins();
        if let Some(n) = env().nthreads_raw {
            let Some(n) = i16::try_from(n).ok().filter(|&n| n > 0) else {
                return err(ErrorKind::InvalidParam);
            };
            blosc2_set_nthreads(n);
        }
        let nthreads = G_NTHREADS.load(Ordering::Relaxed);
        DCTX.with(|cell| {
            let mut slot = cell.borrow_mut();
            let d = slot.get_or_insert_with(|| Decompressor::new(DParams::default()));
            if d.params().nthreads != nthreads && d.set_nthreads(nthreads).is_err() {
                return err(ErrorKind::InvalidParam);
            }
            // SAFETY: `src` has `srcsize` readable and `dest` `destsize`
            // writable bytes, per this function's contract.
            unsafe { decompress_with(d, src, srcsize, dest, destsize) }
        })
    })
}

/// # Safety
/// `src` is a chunk; `dest` has `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc1_decompress(
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    ffi!({
        let ds = i32::try_from(destsize).unwrap_or(i32::MAX);
        // SAFETY: `src` is a chunk, readable for its header's cbytes, which
        // bound the read; `dest` has `destsize` (>= `ds`) writable bytes.
        unsafe { blosc2_decompress(src, i32::MAX, dest, ds) }
    })
}

/// # Safety
/// `src` has `srcsize` readable bytes, `dest` `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem(
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        let mut kind = Kind::Decompress(Box::new(Decompressor::new(DParams::default())));
        // SAFETY: `src` has `srcsize` readable and `dest` `destsize` writable
        // bytes, per this function's contract.
        unsafe {
            getitem_with(
                &mut kind, src, srcsize, start, nitems, dest, destsize, false,
            )
        }
    })
}

/// # Safety
/// `src` is a chunk; `dest` holds `nitems` items.
#[no_mangle]
pub unsafe extern "C" fn blosc1_getitem(
    src: *const c_void,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
) -> c_int {
    ffi!({
        // SAFETY: `src` is a chunk, readable for its header's cbytes, and
        // `dest` holds `nitems` items: the header and nitems bound the access.
        unsafe { blosc2_getitem(src, i32::MAX, start, nitems, dest, i32::MAX) }
    })
}

/// The compressor the Blosc1 calls use, by name.
#[no_mangle]
pub extern "C" fn blosc1_get_compressor() -> *const c_char {
    ffi!({
        let code = G_COMPRESSOR.load(Ordering::Relaxed);
        let mut name: *const c_char = std::ptr::null();
        // SAFETY: `name` is a valid out pointer.
        unsafe { crate::api::library::blosc2_compcode_to_compname(code as c_int, &mut name) };
        name
    })
}

/// # Safety
/// `compname` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc1_set_compressor(compname: *const c_char) -> c_int {
    ffi!({
        if compname.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: non-NULL, NUL-terminated per contract.
        let code = compname_to_code(unsafe { c_str_or_empty(compname) });
        if code >= 6 {
            return err(ErrorKind::CodecSupport);
        }
        if let Ok(c) = u8::try_from(code) {
            G_COMPRESSOR.store(c, Ordering::Relaxed);
        }
        code
    })
}

/// The forced block size of the Blosc1 calls (0: automatic).
#[no_mangle]
pub extern "C" fn blosc1_get_blocksize() -> c_int {
    ffi!({ G_BLOCKSIZE.load(Ordering::Relaxed) })
}

/// Force the block size of the Blosc1 calls (0: automatic).
#[no_mangle]
pub extern "C" fn blosc1_set_blocksize(blocksize: usize) {
    ffi!({
        G_BLOCKSIZE.store(
            i32::try_from(blocksize).unwrap_or(i32::MAX),
            Ordering::Relaxed,
        );
    })
}

/// Set the split mode of the Blosc1 calls (`BLOSC_*_SPLIT`).
#[no_mangle]
pub extern "C" fn blosc1_set_splitmode(splitmode: c_int) {
    ffi!({
        G_SPLITMODE.store(splitmode, Ordering::Relaxed);
    })
}
