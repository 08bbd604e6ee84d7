//! The way every C function of the super-chunk API reaches the core: run
//! an operation on the handle's core and publish the result in the public
//! struct (after taking what C code wrote into it), and the C strings they
//! take as paths and names.
//!
//! Separate so that each concept's file holds only its C functions.

use crate::boundary::{code, err, CValue};
use crate::objects::schunk::{handle, Handle};
use crate::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use blosc2_core::schunk::SuperChunk;

/// Take what C wrote into the public struct (see [`Handle::pull`]) before
/// an operation that depends on it.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk of this library, used by no other
/// thread during the call.
pub(super) unsafe fn pull(schunk: *mut blosc2_schunk) {
    // SAFETY: `schunk` is NULL or a live handle this thread alone uses, per
    // the contract.
    if let Some(h) = unsafe { handle(schunk) } {
        h.pull();
    }
}

/// Run `f` on the core and sync the public struct afterwards; its result
/// as upstream's convention has it ([`code`]), in the export's return type
/// (`int` or `int64_t`), so a value is never cut to fit.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk of this library, used by no other
/// thread during the call.
pub(super) unsafe fn with<R: From<i32>, T: CValue<R>>(
    schunk: *mut blosc2_schunk,
    f: impl FnOnce(&mut SuperChunk) -> Result<T, ErrorKind>,
) -> R {
    if schunk.is_null() {
        return R::from(err(ErrorKind::NullPointer));
    }
    // SAFETY: `schunk` is a live super-chunk this thread alone uses, per
    // the contract.
    unsafe { pull(schunk) };
    // Only the core is borrowed while `f` runs: plugins it calls read the
    // public struct (and C may write it) meanwhile.
    // SAFETY: `schunk` is the address of a live Handle (of its first field)
    // no other thread uses, per the contract.
    let core = unsafe { &mut (*schunk.cast::<Handle>()).core };
    let r = f(core);
    // SAFETY: the same live Handle; `f` is done with the core.
    if let Some(h) = unsafe { handle(schunk) } {
        h.sync_metas();
        h.sync();
    }
    code(r)
}
