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
/// `schunk` is live; `offsets_order` has `nchunks` readable values.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(
    schunk: *mut blosc2_schunk,
    offsets_order: *mut i64,
) -> c_int {
    ffi!({
        if offsets_order.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = core.nchunks() as usize;
                // SAFETY: `offsets_order` (non-NULL) has `nchunks` readable
                // values, per the contract.
                let order = crate::ptr::slice(offsets_order, n)?;
                core.reorder(order).map(|()| 0i64)
            })
        };
        r as c_int
    })
}

/// Fill an empty super-chunk with special values.
///
/// # Safety
/// `schunk` is live.
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
        // SAFETY: forwarded contract.
        unsafe { with(schunk, |core| core.fill_special(nitems, kind, chunksize)) }
    },)
}
