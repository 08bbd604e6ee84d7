//! The way every C function of the super-chunk API reaches the core: run
//! an operation on the handle's core and publish the result in the public
//! struct (after taking what C code wrote into it), and the C strings they
//! take as paths and names.
//!
//! Separate so that each concept's file holds only its C functions.

use crate::boundary::{code, err, CValue};
use crate::handle::{handle, Handle};
use crate::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use blosc2_core::schunk::SuperChunk;

/// Take what C wrote into the public struct (see [`Handle::pull`]) before
/// an operation that depends on it.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk.
pub(super) unsafe fn pull(schunk: *mut blosc2_schunk) {
    // SAFETY: per the contract.
    if let Some(h) = unsafe { handle(schunk) } {
        h.pull();
    }
}

/// Run `f` on the core and sync the public struct afterwards.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk.
pub(super) unsafe fn with<T: CValue<i64>>(
    schunk: *mut blosc2_schunk,
    f: impl FnOnce(&mut SuperChunk) -> Result<T, ErrorKind>,
) -> i64 {
    if schunk.is_null() {
        return err(ErrorKind::NullPointer) as i64;
    }
    // SAFETY: per the contract.
    unsafe { pull(schunk) };
    // Only the core is borrowed while `f` runs: plugins it calls read the
    // public struct (and C may write it) meanwhile.
    // SAFETY: per the contract, a live Handle whose first field `schunk`
    // addresses.
    let core = unsafe { &mut (*schunk.cast::<Handle>()).core };
    let r = f(core);
    // SAFETY: as above; `f` is done with the core.
    if let Some(h) = unsafe { handle(schunk) } {
        h.sync_metas();
        h.sync();
    }
    code(r)
}
