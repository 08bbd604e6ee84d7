//! Parameters: malloc()ed copies of a super-chunk's cparams and dparams,
//! and upstream's storage and I/O defaults.
//!
//! Separate because they describe a super-chunk (or a future one) rather
//! than act on it.

use crate::boundary::{err, ffi, or_return};
use crate::objects::schunk::handle_ref;
use crate::types::{blosc2_cparams, blosc2_dparams, blosc2_io, blosc2_schunk, blosc2_storage};
use blosc2_core::error::ErrorKind;
use std::ffi::c_int;

/// A malloc()ed copy of the super-chunk's cparams.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `cparams`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `handle_ref` needs.
        let Some(h) = (unsafe { handle_ref(schunk) }) else {
            return err(ErrorKind::NullPointer);
        };
        if cparams.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let mut cp = *h.cparams;
        let core = h.core.cparams();
        cp.compcode = core.compcode;
        cp.compcode_meta = core.compcode_meta;
        cp.clevel = core.clevel;
        cp.typesize = core.typesize;
        cp.blocksize = h.core.blocksize;
        cp.splitmode = core.splitmode as i32;
        cp.use_dict = c_int::from(core.use_dict);
        cp.filters = core.filters;
        cp.filters_meta = core.filters_meta;
        cp.schunk = schunk.cast();
        let p = or_return!(crate::ptr::malloc_value(cp));
        // SAFETY: `cparams` (non-NULL) is writable, per the contract.
        unsafe { *cparams = p };
        0
    })
}

/// A malloc()ed copy of the super-chunk's dparams.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `dparams`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk no other thread
        // mutates meanwhile, per the contract, as `handle_ref` needs.
        let Some(h) = (unsafe { handle_ref(schunk) }) else {
            return err(ErrorKind::NullPointer);
        };
        if dparams.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let mut dp = *h.dparams;
        dp.schunk = schunk.cast();
        let p = or_return!(crate::ptr::malloc_value(dp));
        // SAFETY: `dparams` (non-NULL) is writable, per the contract.
        unsafe { *dparams = p };
        0
    })
}

/// Upstream's `BLOSC2_STORAGE_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_storage_defaults() -> blosc2_storage {
    ffi!({ blosc2_storage::default() })
}

/// Upstream's `BLOSC2_IO_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_io_defaults() -> blosc2_io {
    ffi!({ blosc2_io::default() })
}
