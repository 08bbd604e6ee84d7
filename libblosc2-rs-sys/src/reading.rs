//! Reads through a super-chunk handle see the frame on disk as it is now,
//! as upstream's do: each read first checks whether another handle (or
//! process) changed or replaced the frame and reads its state back, and
//! with locking it holds the frame lock shared until it is done.
//!
//! Several threads may read one handle at once, so the state is only read
//! back when no other read of the handle is under way (a read that finds
//! another one reading keeps the view it has); the [`Gate`] orders those
//! steps. With locking, reads of one handle take turns, since the frame
//! lock is held for the whole read.

use super::handle::Handle;
use super::types::blosc2_schunk;
use blosc2_core::error::ErrorKind;
use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex};
use std::thread::ThreadId;

/// A lock one thread may take again while it holds it (a callback of a
/// read may read the same super-chunk).
#[derive(Default)]
pub(crate) struct Gate {
    owner: Mutex<(Option<ThreadId>, u32)>,
    free: Condvar,
}

impl Gate {
    fn enter(&self) {
        let me = std::thread::current().id();
        let mut g = self.owner.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match g.0 {
                None => {
                    *g = (Some(me), 1);
                    return;
                }
                Some(t) if t == me => {
                    g.1 += 1;
                    return;
                }
                Some(_) => g = self.free.wait(g).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    fn exit(&self) {
        let mut g = self.owner.lock().unwrap_or_else(|e| e.into_inner());
        g.1 = g.1.saturating_sub(1);
        if g.1 == 0 {
            g.0 = None;
            self.free.notify_one();
        }
    }
}

/// A read under way on a handle; ends the read when dropped.
pub(crate) struct Reading<'a> {
    h: &'a Handle,
    p: *mut Handle,
    /// The frame lock is held (locking on) and the gate with it.
    locked: bool,
}

impl std::ops::Deref for Reading<'_> {
    type Target = Handle;
    fn deref(&self) -> &Handle {
        self.h
    }
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        if self.locked {
            // SAFETY: the gate is held, so no other read or revalidation of
            // this handle runs; the handle is live for the read.
            let _ = unsafe { (*self.p).core.end_read() };
            self.h.gate.exit();
        }
        self.h.readers.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Begin a read of `schunk` (see the module docs).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk of this library that no other
/// thread mutates while the returned [`Reading`] lives (upstream's contract
/// for handles).
pub(crate) unsafe fn reading<'a>(schunk: *mut blosc2_schunk) -> Result<Reading<'a>, ErrorKind> {
    let p = schunk.cast::<Handle>();
    // SAFETY: `schunk` is NULL or the address of a live Handle (its first
    // field) that no other thread mutates for 'a, per the contract.
    let h: &'a Handle = unsafe { p.as_ref() }.ok_or(ErrorKind::NullPointer)?;
    h.readers.fetch_add(1, Ordering::AcqRel);
    let mut r = Reading {
        h,
        p,
        locked: false,
    };
    if !h.core.on_disk() {
        return Ok(r);
    }
    h.gate.enter();
    if h.core.locking() {
        // SAFETY: the gate is held: no other read or revalidation of this
        // handle runs, and the contract excludes concurrent mutations.
        let b = unsafe { (*p).begin_read() };
        match b {
            Ok(()) => r.locked = true,
            Err(e) => {
                h.gate.exit();
                return Err(e);
            }
        }
    } else {
        if h.readers.load(Ordering::Acquire) == 1 {
            // SAFETY: the gate is held and no other read of this handle is
            // under way (the count was taken before the gate), so nothing
            // else looks at the handle while its state is read back.
            let b = unsafe { (*p).begin_read() };
            if let Err(e) = b {
                h.gate.exit();
                return Err(e);
            }
            // SAFETY: the gate is still held and this is still the only
            // read; it ends the read begun just above (no frame lock taken).
            let _ = unsafe { (*p).core.end_read() };
        }
        h.gate.exit();
    }
    Ok(r)
}
