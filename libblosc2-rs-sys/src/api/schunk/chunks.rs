//! One chunk at a time: append, insert, update and delete compressed
//! chunks (taking ownership of the caller's chunk as upstream does), append
//! a buffer compressed through the super-chunk's context, decompress a
//! chunk, and hand out chunks (whole or lazy) as malloc()ed copies.
//!
//! Separate from slices and whole-list operations, which work on items or
//! on every chunk at once.

use super::call::{pull, with};
use crate::boundary::{code, err, ffi, or_return, CValue};
use crate::objects::schunk::reading;
use crate::objects::schunk::{handle_ref, set_current_nchunk};
use crate::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use blosc2_core::schunk::SuperChunk;
use std::ffi::{c_int, c_void};
use std::ptr;

/// A chunk given by C: its header's cbytes bytes.
///
/// # Safety
/// `chunk` is NULL or readable for the 16 leading bytes of a chunk header
/// and for the `cbytes` bytes they give, unchanged for `'a`.
unsafe fn c_chunk<'a>(chunk: *const u8) -> Result<&'a [u8], ErrorKind> {
    if chunk.is_null() {
        return Err(ErrorKind::NullPointer);
    }
    // SAFETY: `chunk` (non-NULL) is readable for its 16 leading bytes and
    // the `cbytes` they give, what chunk_slice reads, per the contract.
    unsafe { crate::ptr::chunk_slice(chunk.cast(), i32::MAX as usize) }
}

/// Take ownership of a chunk handed over with `copy = false` (upstream
/// keeps it; we store a copy, so the caller's malloc()ed buffer is freed).
///
/// # Safety
/// With `copy` false, `chunk` is NULL or a block from malloc that nothing
/// uses afterwards.
unsafe fn consume(chunk: *mut u8, copy: bool) {
    if !copy && !chunk.is_null() {
        // SAFETY: a malloc()ed block given up to us (`copy` false), per the
        // contract, freed once here.
        unsafe { libc::free(chunk.cast()) };
    }
}

/// Shared body of append/insert/update: hand the chunk to `op`, and on
/// success take ownership of it when `copy` is false, as upstream does.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `chunk` is
/// NULL or a whole chunk (the `cbytes` its header gives), malloc()ed and
/// given up by the caller when `copy` is false.
unsafe fn store_chunk<T: CValue<i64>>(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
    op: impl FnOnce(&mut SuperChunk, &[u8]) -> Result<T, ErrorKind>,
) -> i64 {
    // SAFETY: `schunk` is NULL or live, as `with` needs; `chunk` is NULL or
    // a whole chunk, as c_chunk needs, per the contract.
    let r = unsafe { with(schunk, |core| op(core, c_chunk(chunk)?)) };
    if r >= 0 {
        // SAFETY: with `copy` false, `chunk` is a malloc()ed block the caller
        // gave up, per the contract; the core kept a copy of it.
        unsafe { consume(chunk, copy) };
    }
    r
}

/// Append a compressed chunk; returns the number of chunks.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `chunk` is
/// NULL or a whole chunk (the `cbytes` its header gives), malloc()ed and
/// not used by the caller after a success when `copy` is false.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi!({
        // SAFETY: `schunk` and `chunk` are as store_chunk needs, per this
        // function's contract (the same).
        unsafe { store_chunk(schunk, chunk, copy, |core, c| core.append_chunk(c)) }
    })
}

/// Insert a compressed chunk at `nchunk`.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `chunk` is
/// NULL or a whole chunk (the `cbytes` its header gives), malloc()ed and
/// not used by the caller after a success when `copy` is false.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi!({
        // SAFETY: `schunk` and `chunk` are as store_chunk needs, per this
        // function's contract (the same).
        unsafe { store_chunk(schunk, chunk, copy, |core, c| core.insert_chunk(nchunk, c)) }
    })
}

/// Replace chunk `nchunk`.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `chunk` is
/// NULL or a whole chunk (the `cbytes` its header gives), malloc()ed and
/// not used by the caller after a success when `copy` is false.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi!({
        // SAFETY: `schunk` and `chunk` are as store_chunk needs, per this
        // function's contract (the same).
        unsafe { store_chunk(schunk, chunk, copy, |core, c| core.update_chunk(nchunk, c)) }
    })
}

/// Delete chunk `nchunk`.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> i64 {
    ffi!({
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe { with(schunk, |core| core.delete_chunk(nchunk)) }
    },)
}

/// Compress `nbytes` of `src` and append them.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `src` is
/// NULL or has `nbytes` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    ffi!({
        if nbytes < 0 || (src.is_null() && nbytes > 0) {
            return err(ErrorKind::InvalidParam) as i64;
        }
        // SAFETY: `src` has `nbytes` (>= 0) readable bytes, per the contract.
        let s = or_return!(unsafe { crate::ptr::bytes(src, nbytes as usize) });
        // As upstream: compress through the super-chunk's context, then
        // append. Only the first step runs prefilters and plugins, and
        // it shares the super-chunk with them.
        // SAFETY: `schunk` is NULL or a live super-chunk this thread alone
        // uses, per the contract, as `pull` needs.
        unsafe { pull(schunk) };
        // SAFETY: the same; nothing mutates it while `h` is used, only
        // plugins and prefilters read it.
        let Some(h) = (unsafe { handle_ref(schunk) }) else {
            return err(ErrorKind::NullPointer) as i64;
        };
        let chunk = match h.core.compress_chunk(h.core.nchunks(), s) {
            Ok(c) => c,
            Err(e) => return err(e) as i64,
        };
        // SAFETY: `schunk` is live, per the contract, as `with` needs; `h`
        // is no longer used.
        unsafe { with(schunk, |core| core.append_chunk(&chunk)) }
    },)
}

/// Decompress chunk `nchunk` into `dest` (`nbytes` writable bytes).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `dest` is
/// NULL or has `nbytes` writable bytes, outside the super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `reading` needs.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return err(ErrorKind::NullPointer);
        };
        if dest.is_null() || nbytes < 0 {
            return err(ErrorKind::InvalidParam);
        }
        // SAFETY: `dest` (non-NULL) has `nbytes` (>= 0) writable bytes, per
        // the contract.
        let out = or_return!(unsafe { crate::ptr::bytes_mut(dest, nbytes as usize) });
        code(h.core.decompress_chunk(nchunk, out))
    })
}

/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `chunk` and
/// `needs_free` are NULL or writable.
unsafe fn get_chunk_impl(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
    lazy: bool,
) -> c_int {
    // SAFETY: `schunk` is NULL or a live super-chunk no other thread mutates
    // meanwhile, per the contract, as `reading` needs.
    let Some(h) = (unsafe { reading(schunk) }).ok() else {
        return err(ErrorKind::NullPointer);
    };
    if chunk.is_null() || needs_free.is_null() {
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: the out pointers (non-NULL) are writable and `schunk` is live,
    // per the contract.
    unsafe {
        *chunk = ptr::null_mut();
        *needs_free = false;
        // as upstream, so that a context of this super-chunk decoding the
        // chunk next tells postfilters its number
        if (0..h.core.nchunks()).contains(&nchunk) {
            set_current_nchunk(schunk, nchunk);
        }
    }
    let c = or_return!(if lazy {
        h.core.lazy_chunk(nchunk)
    } else {
        h.core.chunk(nchunk)
    });
    // a chunk's cbytes is an int32_t, so this only refuses a damaged one
    let Ok(len) = c_int::try_from(c.len()) else {
        return err(ErrorKind::MaxBufsizeExceeded);
    };
    // Always a malloc()ed copy: the caller frees it, and it stays valid
    // whatever happens to the super-chunk afterwards.
    let p = or_return!(crate::ptr::malloc_copy(&c));
    // SAFETY: the out pointers (non-NULL) are writable, per the contract.
    unsafe {
        *chunk = p;
        *needs_free = true;
    }
    len
}

/// The compressed chunk `nchunk` (a malloc()ed copy: `*needs_free` is true).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `chunk` and
/// `needs_free` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: the pointers are as get_chunk_impl needs, per this
    // function's contract (the same).
    ffi!({ unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, false) } })
}

/// Chunk `nchunk` as a lazy chunk when it is in a frame on disk (header,
/// block starts and a trailer locating the blocks, which decoding contexts
/// of this super-chunk read from the frame as needed), else the whole chunk.
/// Always a malloc()ed copy (`*needs_free` true).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `chunk` and
/// `needs_free` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: the pointers are as get_chunk_impl needs, per this
    // function's contract (the same).
    ffi!({ unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, true) } })
}
