//! `blosc2_register_tuner`; the table it fills and what a context does
//! with a registered tuner are in `objects::tuner`.

use crate::boundary::{err, ffi};
use crate::objects::tuner::{Entry, TUNERS};
use crate::ptr::c_str_or_empty;
use crate::types::blosc2_tuner;
use blosc2_core::error::ErrorKind;
use std::ffi::c_int;

/// Register a tuner (ids from 160; the same id again is accepted only with
/// the same name, as upstream does).
///
/// # Safety
/// `tuner` is NULL or points to a valid `blosc2_tuner` with a NUL-terminated name.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_tuner(tuner: *mut blosc2_tuner) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref.
        let Some(t) = (unsafe { tuner.as_ref() }) else {
            return err(ErrorKind::InvalidParam);
        };
        if t.id < 160 {
            return err(ErrorKind::Failure);
        }
        let name = if t.name.is_null() {
            String::new()
        } else {
            // SAFETY: non-NULL, NUL-terminated per contract.
            unsafe { c_str_or_empty(t.name) }.to_string()
        };
        let mut tuners = TUNERS.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = tuners.iter().find(|e| e.id == t.id) {
            return if e.name == name {
                0
            } else {
                err(ErrorKind::Failure)
            };
        }
        tuners.push(Entry {
            id: t.id,
            name,
            init: t.init,
            next_blocksize: t.next_blocksize,
        });
        0
    })
}
