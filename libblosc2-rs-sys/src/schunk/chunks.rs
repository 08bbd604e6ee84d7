//! One chunk at a time: append, insert, update and delete compressed
//! chunks (taking ownership of the caller's chunk as upstream does), append
//! a buffer compressed through the super-chunk's context, decompress a
//! chunk, and hand out chunks (whole or lazy) as malloc()ed copies.
//!
//! Separate from slices and whole-list operations, which work on items or
//! on every chunk at once.

use super::call::{pull, with};
use crate::boundary::{code, err, ffi, or_return, CValue};
use crate::handle::{handle_ref, set_current_nchunk};
use crate::reading::reading;
use crate::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use blosc2_core::schunk::SuperChunk;
use std::ffi::{c_int, c_void};
use std::ptr;

/// A chunk given by C: its header's cbytes bytes.
///
/// # Safety
/// `chunk` is NULL or a valid chunk.
unsafe fn c_chunk<'a>(chunk: *const u8) -> Result<&'a [u8], ErrorKind> {
    if chunk.is_null() {
        return Err(ErrorKind::NullPointer);
    }
    // SAFETY: a valid chunk starts with its 32-byte header... at least the 16
    // leading bytes tell its length.
    unsafe { crate::ptr::chunk_slice(chunk.cast(), i32::MAX as usize) }
}

/// Take ownership of a chunk handed over with `copy = false` (upstream
/// keeps it; we store a copy, so the caller's malloc()ed buffer is freed).
///
/// # Safety
/// `chunk` came from malloc and is not used by the caller afterwards.
unsafe fn consume(chunk: *mut u8, copy: bool) {
    if !copy && !chunk.is_null() {
        // SAFETY: per the contract.
        unsafe { libc::free(chunk.cast()) };
    }
}

/// Shared body of append/insert/update: hand the chunk to `op`, and on
/// success take ownership of it when `copy` is false, as upstream does.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
unsafe fn store_chunk<T: CValue<i64>>(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
    op: impl FnOnce(&mut SuperChunk, &[u8]) -> Result<T, ErrorKind>,
) -> i64 {
    // SAFETY: forwarded contract.
    let r = unsafe { with(schunk, |core| op(core, c_chunk(chunk)?)) };
    if r >= 0 {
        // SAFETY: forwarded contract.
        unsafe { consume(chunk, copy) };
    }
    r
}

/// Append a compressed chunk; returns the number of chunks.
///
/// # Safety
/// `schunk` is live; `chunk` is a valid chunk (malloc()ed if `copy` is false).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi!({
        // SAFETY: forwarded contract.
        unsafe { store_chunk(schunk, chunk, copy, |core, c| core.append_chunk(c)) }
    })
}

/// Insert a compressed chunk at `nchunk`.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi!({
        // SAFETY: forwarded contract.
        unsafe { store_chunk(schunk, chunk, copy, |core, c| core.insert_chunk(nchunk, c)) }
    })
}

/// Replace chunk `nchunk`.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi!({
        // SAFETY: forwarded contract.
        unsafe { store_chunk(schunk, chunk, copy, |core, c| core.update_chunk(nchunk, c)) }
    })
}

/// Delete chunk `nchunk`.
///
/// # Safety
/// `schunk` is live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> i64 {
    ffi!({
        // SAFETY: forwarded contract.
        unsafe { with(schunk, |core| core.delete_chunk(nchunk)) }
    },)
}

/// Compress `nbytes` of `src` and append them.
///
/// # Safety
/// `schunk` is live; `src` has `nbytes` readable bytes.
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
        // SAFETY: per the contract.
        unsafe { pull(schunk) };
        // SAFETY: per the contract.
        let Some(h) = (unsafe { handle_ref(schunk) }) else {
            return err(ErrorKind::NullPointer) as i64;
        };
        let chunk = match h.core.compress_chunk(h.core.nchunks(), s) {
            Ok(c) => c,
            Err(e) => return err(e) as i64,
        };
        // SAFETY: forwarded contract.
        unsafe { with(schunk, |core| core.append_chunk(&chunk)) }
    },)
}

/// Decompress chunk `nchunk` into `dest` (`nbytes` writable bytes).
///
/// # Safety
/// `schunk` is live; `dest` has `nbytes` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    ffi!({
        // SAFETY: per the contract.
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
/// `schunk` is live; `chunk` and `needs_free` are writable.
unsafe fn get_chunk_impl(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
    lazy: bool,
) -> c_int {
    // SAFETY: per the contract.
    let Some(h) = (unsafe { reading(schunk) }).ok() else {
        return err(ErrorKind::NullPointer);
    };
    if chunk.is_null() || needs_free.is_null() {
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: writable per the contract; `schunk` is live.
    unsafe {
        *chunk = ptr::null_mut();
        *needs_free = false;
        // as upstream, so that a context of this super-chunk decoding the
        // chunk next tells postfilters its number
        if (0..h.core.nchunks()).contains(&nchunk) {
            set_current_nchunk(schunk, nchunk);
        }
    }
    let c = match if lazy {
        h.core.lazy_chunk(nchunk)
    } else {
        h.core.chunk(nchunk)
    } {
        Ok(c) => c,
        Err(e) => return err(e),
    };
    // Always a malloc()ed copy: the caller frees it, and it stays valid
    // whatever happens to the super-chunk afterwards.
    let p = or_return!(crate::ptr::malloc_copy(&c));
    // SAFETY: the out pointers are writable, per the contract.
    unsafe {
        *chunk = p;
        *needs_free = true;
    }
    c.len() as c_int
}

/// The compressed chunk `nchunk` (a malloc()ed copy: `*needs_free` is true).
///
/// # Safety
/// `schunk` is live; `chunk` and `needs_free` are writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: forwarded contract.
    ffi!({ unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, false) } })
}

/// Chunk `nchunk` as a lazy chunk when it is in a frame on disk (header,
/// block starts and a trailer locating the blocks, which decoding contexts
/// of this super-chunk read from the frame as needed), else the whole chunk.
/// Always a malloc()ed copy (`*needs_free` true).
///
/// # Safety
/// As `blosc2_schunk_get_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: forwarded contract.
    ffi!({ unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, true) } })
}
