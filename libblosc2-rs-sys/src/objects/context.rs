//! What a `blosc2_context*` points to ([`Context`]) and how one is made
//! from C parameters: the environment overrides upstream's
//! `blosc2_create_cctx` honours, the Blosc1 filter switches, and the
//! conversion to the core's parameters.
//!
//! Separate from `context` (the C functions on contexts) so that the
//! super-chunk handle, which makes and owns its contexts, does not depend
//! on those functions, which in turn reach back into super-chunks to
//! complete lazy chunks: neither of `context` and `schunk` imports the other.

use crate::boundary::trace_error;
use crate::env::env;
use crate::objects::prefilter::{CPostfilter, CPrefilter};
use crate::types::{
    blosc2_context, blosc2_cparams, blosc2_dparams, blosc2_postfilter_params,
    blosc2_prefilter_params,
};
use blosc2_core::chunk::header::{filter_id, MAX_FILTERS};
use blosc2_core::chunk::params::{CParams, DParams, SplitMode};
use blosc2_core::chunk::{Compressor, Decompressor};
use std::sync::{Arc, Mutex, TryLockError};

/// Copies a context keeps for when it is busy (see `Context::spares`).
const MAX_SPARES: usize = 8;

pub(crate) enum Kind {
    Compress(Box<Compressor>),
    Decompress(Box<Decompressor>),
}

impl Kind {
    fn fork(&self) -> Kind {
        match self {
            Kind::Compress(c) => Kind::Compress(Box::new(c.fork())),
            Kind::Decompress(d) => Kind::Decompress(Box::new(d.fork())),
        }
    }
}

/// What a `blosc2_context*` handed to C really points to.
pub(crate) struct Context {
    kind: Mutex<Kind>,
    /// Never run: what a fresh copy of `kind` is made from (see `with_kind`).
    template: Kind,
    /// Copies lent before and given back, for the next time `kind` is busy:
    /// calls spanning many small chunks run one chunk per thread through
    /// one context, and a fresh copy per chunk (its scratch buffers, its
    /// codec states) cost as much as the chunk.
    spares: Mutex<Vec<Kind>>,
    /// What `blosc2_ctx_get_cparams` reports (effective values).
    pub(crate) cparams: blosc2_cparams,
    pub(crate) dparams: blosc2_dparams,
    /// The context's own copies of the prefilter and postfilter parameters
    /// (what `cparams.preparams` and `dparams.postparams` point to), as
    /// upstream keeps them: the caller's may be gone.
    own_pre: Option<Box<blosc2_prefilter_params>>,
    own_post: Option<Box<blosc2_postfilter_params>>,
}

impl Context {
    fn new(kind: Kind, cparams: blosc2_cparams, dparams: blosc2_dparams) -> Box<Context> {
        Box::new(Context {
            template: kind.fork(),
            spares: Mutex::new(Vec::new()),
            kind: Mutex::new(kind),
            cparams,
            dparams,
            own_pre: None,
            own_post: None,
        })
    }

    /// Run `f` on the context's compressor or decompressor. A context in
    /// use (by another thread, or by a plugin that calls back into the
    /// library from inside it) lends a fresh copy with the same settings and
    /// hooks instead: nobody ever waits for a context, so a callback cannot
    /// deadlock the library, and one that fails leaves nothing locked.
    pub(crate) fn with_kind<R>(&self, f: impl FnOnce(&mut Kind) -> R) -> R {
        match self.kind.try_lock() {
            Ok(mut k) => f(&mut k),
            Err(TryLockError::Poisoned(p)) => {
                // a caught panic: the scratch buffers are only ever
                // overwritten before use, so the context is still sound
                self.kind.clear_poison();
                f(&mut p.into_inner())
            }
            Err(TryLockError::WouldBlock) => {
                let spare = self.spares.lock().ok().and_then(|mut v| v.pop());
                let mut k = spare.unwrap_or_else(|| self.template.fork());
                let r = f(&mut k);
                // a copy's scratch is overwritten before each use, so it is
                // as good as new (kept: as many as were ever busy at once,
                // up to a few)
                if let Ok(mut v) = self.spares.lock() {
                    if v.len() < MAX_SPARES {
                        v.push(k);
                    }
                }
                r
            }
        }
    }
}

/// `build_filters` of upstream: the Blosc1 switches written into the
/// pipeline's last two slots.
pub(crate) fn build_filters(doshuffle: i32, delta: bool, typesize: i32, filters: &mut [u8; 6]) {
    if doshuffle == filter_id::SHUFFLE as i32 && typesize > 1 {
        filters[MAX_FILTERS - 1] = filter_id::SHUFFLE;
    }
    if doshuffle == filter_id::BITSHUFFLE as i32 {
        filters[MAX_FILTERS - 1] = filter_id::BITSHUFFLE;
    }
    if doshuffle == filter_id::NOFILTER as i32 {
        filters[MAX_FILTERS - 1] = filter_id::NOFILTER;
    }
    if delta {
        filters[MAX_FILTERS - 2] = filter_id::DELTA;
    }
}

/// Apply the environment overrides upstream's `blosc2_create_cctx` honours.
pub(crate) fn effective_cparams(mut cp: blosc2_cparams) -> Option<blosc2_cparams> {
    let e = env();
    if let Some(t) = e.typesize {
        cp.typesize = t;
    }
    build_filters(
        e.shuffle.unwrap_or(-1),
        e.delta.unwrap_or(false),
        cp.typesize,
        &mut cp.filters,
    );
    if let Some(c) = e.clevel {
        cp.clevel = c;
    }
    if let Some(name) = &e.compressor {
        let Ok(code @ 0..6) = u8::try_from(crate::names::compname_to_code(name)) else {
            trace_error!("User defined codecs cannot be set here. Use Blosc2 mechanism instead.");
            return None;
        };
        cp.compcode = code;
    }
    if let Some(b) = e.blocksize {
        cp.blocksize = b;
    }
    if let Some(n) = e.nthreads {
        cp.nthreads = n;
    }
    if let Some(s) = e.splitmode {
        cp.splitmode = s as i32;
    }
    Some(cp)
}

pub(crate) fn core_cparams(cp: &blosc2_cparams) -> CParams {
    CParams {
        compcode: cp.compcode,
        compcode_meta: cp.compcode_meta,
        clevel: cp.clevel,
        use_dict: cp.use_dict != 0,
        typesize: cp.typesize,
        nthreads: cp.nthreads,
        blocksize: cp.blocksize,
        splitmode: SplitMode::from_i32(cp.splitmode),
        filters: cp.filters,
        filters_meta: cp.filters_meta,
        instr_codec: cp.instr_codec,
    }
}

/// Upstream refuses undefined built-in filter ids when the context is made.
fn filters_defined(filters: &[u8; 6]) -> bool {
    filters
        .iter()
        .all(|&f| !(5..=31).contains(&f) && !(37..=159).contains(&f))
}

/// Whether [`new_cctx`] refuses `cparams` before it runs anything of the
/// user's (undefined filters, unknown tuners): callers that make files
/// check first, as upstream makes the context before the frame.
pub(crate) fn cctx_refused(cparams: &blosc2_cparams) -> bool {
    !filters_accepted(&cparams.filters) || !crate::objects::tuner::known(cparams.tuner_id)
}

fn filters_accepted(filters: &[u8; 6]) -> bool {
    let ok = filters_defined(filters);
    if !ok {
        trace_error!("filter is not yet defined");
    }
    ok
}

pub(crate) fn new_cctx(cparams: blosc2_cparams) -> Option<Box<Context>> {
    if !filters_accepted(&cparams.filters) {
        return None;
    }
    let cp = effective_cparams(cparams)?;
    let core = core_cparams(&cp);
    let mut comp = Compressor::new(core);
    // The prefilter is told which context runs it: the address the Box
    // will have, which the allocation below fixes.
    let mut ctx = Context::new(
        Kind::Compress(Box::new(Compressor::new(CParams::default()))),
        cp,
        blosc2_dparams::default(),
    );
    let handle = (&mut *ctx as *mut Context).cast::<blosc2_context>();
    // SAFETY: `preparams` is NULL or valid, per the blosc2_cparams contract.
    if let Some(pre) = unsafe { CPrefilter::new(cp.prefilter, cp.preparams, handle) } {
        let own = Box::new(pre.params);
        ctx.cparams.preparams = (&*own as *const blosc2_prefilter_params).cast_mut();
        ctx.own_pre = Some(own);
        comp.prefilter = Some(Arc::new(pre));
    } else {
        ctx.cparams.preparams = std::ptr::null_mut();
    }
    // last, as upstream: the tuner's init sees the finished context
    comp.tuner = crate::objects::tuner::attach(cp.tuner_id, cp.tuner_params, handle).ok()?;
    ctx.template = Kind::Compress(Box::new(comp.fork()));
    *ctx.kind.get_mut().unwrap_or_else(|p| p.into_inner()) = Kind::Compress(Box::new(comp));
    Some(ctx)
}

pub(crate) fn new_dctx(dparams: blosc2_dparams) -> Box<Context> {
    let mut dp = dparams;
    if let Some(n) = env().nthreads {
        dp.nthreads = n;
    }
    let core = DParams {
        nthreads: dp.nthreads,
        typesize: dp.typesize,
    };
    let mut d = Decompressor::new(core);
    let mut ctx = Context::new(
        Kind::Decompress(Box::new(Decompressor::new(DParams::default()))),
        blosc2_cparams::default(),
        dp,
    );
    let handle = (&mut *ctx as *mut Context).cast::<blosc2_context>();
    // SAFETY: `postparams` is NULL or valid, per the blosc2_dparams contract.
    if let Some(post) = unsafe { CPostfilter::new(dp.postfilter, dp.postparams, handle) } {
        let own = Box::new(post.params);
        ctx.dparams.postparams = (&*own as *const blosc2_postfilter_params).cast_mut();
        ctx.own_post = Some(own);
        d.postfilter = Some(Arc::new(post));
    } else {
        ctx.dparams.postparams = std::ptr::null_mut();
    }
    ctx.template = Kind::Decompress(Box::new(d.fork()));
    *ctx.kind.get_mut().unwrap_or_else(|p| p.into_inner()) = Kind::Decompress(Box::new(d));
    ctx
}
