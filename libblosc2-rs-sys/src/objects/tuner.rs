//! The registered tuners and what a context does with a user tuner: call
//! its `init` when the context is made and its `next_blocksize` before each
//! chunk, as upstream does for a tuner that keeps no state in the context.
//!
//! Upstream's other steps (`next_cparams`, `update`, `free`) only run once
//! a tuner has stored state in the context's private struct, which a tuner
//! built on the public API cannot reach; they never run here. Btune
//! (`BLOSC_BTUNE`) is such a plugin, compiled against upstream's private
//! context layout: running it on this library's contexts would corrupt
//! them, so that id keeps the built-in tuner.

use crate::boundary::trace_error;
use crate::consts::BLOSC_BTUNE;
use crate::types::blosc2_context;
use blosc2_core::registry::Tuner;
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex};

pub(crate) type InitFn =
    unsafe extern "C" fn(*mut c_void, *mut blosc2_context, *mut blosc2_context) -> c_int;
pub(crate) type StepFn = unsafe extern "C" fn(*mut blosc2_context) -> c_int;

/// A registered tuner: the parts a context uses.
pub(crate) struct Entry {
    pub(crate) id: c_int,
    pub(crate) name: String,
    pub(crate) init: Option<InitFn>,
    pub(crate) next_blocksize: Option<StepFn>,
}

pub(crate) static TUNERS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

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
