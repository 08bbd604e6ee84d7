//! The chunk list as a whole: a new chunk order
//! (`blosc2_schunk_reorder_offsets`) and an empty super-chunk filled with
//! special values (`blosc2_schunk_fill_special`).
//!
//! Separate from the one-chunk functions: these change every chunk's place
//! or make all of them.

use super::call::with;
use crate::boundary::{err, ffi};
use crate::types::blosc2_schunk;
use blosc2_core::chunk::Special;
use blosc2_core::error::ErrorKind;
use std::ffi::c_int;

/// New chunk order: chunk `i` becomes the old `offsets_order[i]`.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library;
/// `offsets_order` is NULL or has `schunk->nchunks` readable values.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(
    schunk: *mut blosc2_schunk,
    offsets_order: *mut i64,
) -> c_int {
    ffi!({
        if offsets_order.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe {
            with(schunk, |core| {
                // more chunks than this address space can list cannot come
                // with their order in memory
                let n =
                    usize::try_from(core.nchunks()).map_err(|_| ErrorKind::MaxBufsizeExceeded)?;
                // SAFETY: `offsets_order` (non-NULL) has `nchunks` readable
                // values, per the contract.
                let order = crate::ptr::slice(offsets_order, n)?;
                core.reorder(order)
            })
        }
    })
}

/// Fill an empty super-chunk with special values.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    ffi!({
        let kind = match Special::from_bits(special_value.clamp(0, 7) as u8) {
            Some(k @ (Special::Zero | Special::Nan | Special::Uninit)) => k,
            _ => return err(ErrorKind::SchunkSpecial) as i64,
        };
        // SAFETY: `schunk` is NULL or live, per the contract, as `with`
        // needs.
        unsafe { with(schunk, |core| core.fill_special(nitems, kind, chunksize)) }
    },)
}
