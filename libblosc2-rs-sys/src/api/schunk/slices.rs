//! Item ranges: `blosc2_schunk_get_slice_buffer` and
//! `blosc2_schunk_set_slice_buffer` (a slice written as one change under
//! the frame lock, its chunks compressed with the super-chunk shared).
//!
//! Separate from the chunk functions because they work on items, across
//! chunk boundaries.

use super::call::{pull, with};
use crate::boundary::{code, err, ffi, or_return};
use crate::objects::schunk::reading;
use crate::objects::schunk::{handle, handle_ref};
use crate::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use std::ffi::{c_int, c_void};

/// Items `start..stop` into `buffer`.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `buffer` is
/// NULL or has `(stop - start) * typesize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `reading` needs.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return err(ErrorKind::NullPointer);
        };
        let ts = i64::from(h.core.typesize());
        let Some(len) = stop
            .checked_sub(start)
            .and_then(|n| n.checked_mul(ts))
            .filter(|&n| n >= 0)
        else {
            return err(ErrorKind::InvalidParam);
        };
        if buffer.is_null() && len > 0 {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(len) else {
            return err(ErrorKind::MaxBufsizeExceeded);
        };
        // SAFETY: `buffer` has `(stop - start) * typesize` = `len` writable
        // bytes, per the contract.
        let out = or_return!(unsafe { crate::ptr::bytes_mut(buffer, len) });
        code(h.core.get_slice(start, stop, out))
    })
}

/// Overwrite items `start..stop` from `buffer`.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `buffer` is
/// NULL or has `(stop - start) * typesize` readable bytes, outside the
/// super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk this thread alone
        // uses, per the contract, as `handle` needs.
        let ts = match unsafe { handle(schunk) } {
            Some(h) => i64::from(h.core.typesize()),
            None => return err(ErrorKind::NullPointer),
        };
        let Some(len) = stop
            .checked_sub(start)
            .and_then(|n| n.checked_mul(ts))
            .filter(|&n| n >= 0)
        else {
            return err(ErrorKind::InvalidParam);
        };
        if buffer.is_null() && len > 0 {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(len) else {
            return err(ErrorKind::MaxBufsizeExceeded);
        };
        // SAFETY: `buffer` has `(stop - start) * typesize` = `len` readable
        // bytes, per the contract.
        let src = or_return!(unsafe { crate::ptr::bytes(buffer, len) });
        // SAFETY: `schunk` is a live super-chunk this thread alone uses (it
        // was not NULL above), per the contract, as `pull` needs.
        unsafe { pull(schunk) };
        // With locking, the whole slice is one change: the frame lock is
        // held across the chunk updates, so a locked reader never sees half
        // of them (and the updates are made from the frame as it is now).
        // SAFETY: the same live super-chunk; the handle is dropped at once.
        if let Err(e) = unsafe { handle(schunk) }.map_or(Ok(()), |h| h.core.lock()) {
            return err(e);
        }
        // The new chunks are made with the super-chunk shared (plugins may
        // read it), then stored.
        // SAFETY: the same live super-chunk, which nothing mutates while the
        // updates are made (plugins only read it).
        let updates =
            match unsafe { handle_ref(schunk) }.map(|h| h.core.slice_updates(start, stop, src)) {
                Some(Ok(u)) => Ok(u),
                Some(Err(e)) => Err(e),
                None => Err(ErrorKind::NullPointer),
            };
        let r = match updates {
            // SAFETY: the same live super-chunk, as `with` needs.
            Ok(updates) => unsafe { with(schunk, |core| core.store_slice_updates(updates)) },
            Err(e) => err(e),
        };
        // SAFETY: the same live super-chunk; no other reference to it is
        // left.
        if let Some(h) = unsafe { handle(schunk) } {
            let _ = h.core.unlock();
        }
        r
    })
}
