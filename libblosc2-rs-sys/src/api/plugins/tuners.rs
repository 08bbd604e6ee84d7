//! `blosc2_register_tuner` and what a context does with a user tuner: call
//! its `init` when the context is made and its `next_blocksize` before each
//! chunk, as upstream does for a tuner that keeps no state in the context.
//!
//! Upstream's other steps (`next_cparams`, `update`, `free`) only run once
//! a tuner has stored state in the context's private struct, which a tuner
//! built on the public API cannot reach; they never run here. Btune
//! (`BLOSC_BTUNE`) is such a plugin, compiled against upstream's private
//! context layout: running it on this library's contexts would corrupt
//! them, so that id keeps the built-in tuner.

use crate::boundary::{err, ffi, trace_error};
use crate::consts::BLOSC_BTUNE;
use crate::ptr::c_str_or_empty;
use crate::types::{blosc2_context, blosc2_tuner};
use blosc2_core::error::ErrorKind;
use blosc2_core::registry::Tuner;
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex};

type InitFn = unsafe extern "C" fn(*mut c_void, *mut blosc2_context, *mut blosc2_context) -> c_int;
type StepFn = unsafe extern "C" fn(*mut blosc2_context) -> c_int;

/// A registered tuner: the parts a context uses.
struct Entry {
    id: c_int,
    name: String,
    init: Option<InitFn>,
    next_blocksize: Option<StepFn>,
}

static TUNERS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Empty the table (`blosc2_init` after the last `blosc2_destroy`).
pub(crate) fn forget() {
    TUNERS.lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// A tuner's `next_blocksize` bound to the context it was made for.
struct CTuner {
    f: StepFn,
    ctx: usize,
}

impl Tuner for CTuner {
    fn next_blocksize(&self) -> i32 {
        // SAFETY: `f` was registered as a tuner callback taking a context;
        // `ctx` is the context that owns the compressor holding this hook,
        // so it is alive whenever the compressor runs.
        unsafe { (self.f)(self.ctx as *mut blosc2_context) }
    }
}

/// The functions of the tuner a context for `tuner_id` runs: `None` for
/// the built-in one, `Err` (traced) when upstream refuses the id: it names
/// no registered tuner, or a tuner registered without functions (a plugin
/// to be loaded by name; see the module note on why none is).
fn lookup(tuner_id: c_int) -> Result<Option<(InitFn, Option<StepFn>)>, ()> {
    if tuner_id <= 0 || tuner_id == BLOSC_BTUNE {
        return Ok(None);
    }
    let tuners = TUNERS.lock().unwrap_or_else(|p| p.into_inner());
    match tuners.iter().find(|t| t.id == tuner_id) {
        None => trace_error!("User-defined tuner {tuner_id} not found"),
        Some(Entry { init: None, .. }) => trace_error!("Could not load tuner {tuner_id}."),
        Some(Entry {
            init: Some(init),
            next_blocksize,
            ..
        }) => return Ok(Some((*init, *next_blocksize))),
    }
    Err(())
}

/// Whether a context for `tuner_id` can be made (before running anything
/// of the tuner's).
pub(crate) fn known(tuner_id: c_int) -> bool {
    lookup(tuner_id).is_ok()
}

/// Upstream's tuner step of `blosc2_create_cctx` for the context at `ctx`:
/// the hook to run before each chunk, or `Err` when the context must not be
/// made.
pub(crate) fn attach(
    tuner_id: c_int,
    tuner_params: *mut c_void,
    ctx: *mut blosc2_context,
) -> Result<Option<Arc<dyn Tuner>>, ()> {
    // the lock is released before init: the tuner may call the library
    let Some((init, next)) = lookup(tuner_id)? else {
        return Ok(None);
    };
    // SAFETY: a registered tuner callback; `tuner_params` is the caller's,
    // passed through as upstream does; `ctx` is the context being made.
    if unsafe { init(tuner_params, ctx, std::ptr::null_mut()) } < 0 {
        trace_error!("Error in user-defined tuner {tuner_id} init function");
        return Err(());
    }
    Ok(next.map(|f| {
        Arc::new(CTuner {
            f,
            ctx: ctx as usize,
        }) as Arc<dyn Tuner>
    }))
}

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
