//! A frame on disk shared with other handles and processes: the frame lock
//! held across several calls (`blosc2_schunk_lock`, `_unlock`) and reading
//! back what others changed (`blosc2_schunk_refresh`).
//!
//! Separate because only these calls are about other handles rather than
//! this one's data.

use super::call::with;
use crate::boundary::ffi;
use crate::types::blosc2_schunk;
use std::ffi::c_int;

/// Take the frame lock exclusively across several calls (re-entrant; a
/// no-op returning 0 unless locking is on for this handle).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe { with(schunk, |core| core.lock()) }
    })
}

/// Release the lock taken by `blosc2_schunk_lock`.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe { with(schunk, |core| core.unlock()) }
    })
}

/// Re-read counters, chunk index and metalayers of a frame on disk that
/// another handle (or process) changed: 1 when something changed, 0 when
/// already current (and for super-chunks in memory), negative on errors.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe { with(schunk, |core| core.refresh().map(c_int::from)) }
    })
}
