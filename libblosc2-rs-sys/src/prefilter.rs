//! C prefilters and postfilters (`cparams.prefilter`, `dparams.postfilter`)
//! wrapped as core hooks. The params struct given at context creation is
//! copied, as upstream does, and completed per block.

use super::types::{
    blosc2_context, blosc2_postfilter_fn, blosc2_postfilter_params, blosc2_prefilter_fn,
    blosc2_prefilter_params,
};
use blosc2_core::registry::{Postfilter, PostfilterCall, Prefilter, PrefilterCall};

pub(crate) struct CPrefilter {
    f: unsafe extern "C" fn(*mut blosc2_prefilter_params) -> i32,
    pub(crate) params: blosc2_prefilter_params,
    /// The owning context, reported back to the callback.
    ctx: usize,
}

// SAFETY: upstream calls the same function pointer with the same user_data
// from its worker threads; the callback's thread-safety is the caller's
// promise in both libraries. The struct itself is never mutated.
unsafe impl Send for CPrefilter {}
// SAFETY: as above.
unsafe impl Sync for CPrefilter {}

impl CPrefilter {
    /// # Safety
    /// `params` is NULL or points to a valid `blosc2_prefilter_params`.
    pub(crate) unsafe fn new(
        f: blosc2_prefilter_fn,
        params: *const blosc2_prefilter_params,
        ctx: *mut blosc2_context,
    ) -> Option<CPrefilter> {
        let f = f?;
        // SAFETY: NULL checked by as_ref; valid per contract otherwise.
        let params = match unsafe { params.as_ref() } {
            Some(p) => *p,
            None => blosc2_prefilter_params {
                user_data: std::ptr::null_mut(),
                input: std::ptr::null(),
                output: std::ptr::null_mut(),
                output_size: 0,
                output_typesize: 0,
                output_offset: 0,
                nchunk: -1,
                nblock: 0,
                tid: 0,
                ttmp: std::ptr::null_mut(),
                ttmp_nbytes: 0,
                ctx: std::ptr::null_mut(),
                output_is_disposable: false,
            },
        };
        Some(CPrefilter {
            f,
            params,
            ctx: ctx as usize,
        })
    }
}

impl Prefilter for CPrefilter {
    fn call(&self, c: PrefilterCall) -> i32 {
        let mut p = self.params;
        p.input = c.input.as_ptr();
        p.output = c.output.as_mut_ptr();
        p.output_size = c.output.len() as i32;
        p.output_typesize = c.output_typesize;
        p.output_offset = c.offset as i32;
        p.nchunk = c.nchunk;
        p.nblock = c.nblock as i32;
        p.tid = c.tid as i32;
        p.ttmp = c.ttmp.as_mut_ptr();
        p.ttmp_nbytes = c.ttmp.len();
        p.ctx = self.ctx as *mut blosc2_context;
        // SAFETY: every pointer in `p` is valid for the sizes it announces for
        // the duration of the call, as upstream's contract requires.
        unsafe { (self.f)(&mut p) }
    }

    fn output_is_disposable(&self) -> bool {
        self.params.output_is_disposable
    }

    fn output_typesize(&self) -> i32 {
        self.params.output_typesize
    }
}

pub(crate) struct CPostfilter {
    f: unsafe extern "C" fn(*mut blosc2_postfilter_params) -> i32,
    pub(crate) params: blosc2_postfilter_params,
    ctx: usize,
}

// SAFETY: as for CPrefilter.
unsafe impl Send for CPostfilter {}
// SAFETY: as for CPrefilter.
unsafe impl Sync for CPostfilter {}

impl CPostfilter {
    /// # Safety
    /// `params` is NULL or points to a valid `blosc2_postfilter_params`.
    pub(crate) unsafe fn new(
        f: blosc2_postfilter_fn,
        params: *const blosc2_postfilter_params,
        ctx: *mut blosc2_context,
    ) -> Option<CPostfilter> {
        let f = f?;
        // SAFETY: NULL checked by as_ref; valid per contract otherwise.
        let params = match unsafe { params.as_ref() } {
            Some(p) => *p,
            None => blosc2_postfilter_params {
                user_data: std::ptr::null_mut(),
                input: std::ptr::null(),
                output: std::ptr::null_mut(),
                size: 0,
                typesize: 0,
                offset: 0,
                nchunk: -1,
                nblock: 0,
                tid: 0,
                ttmp: std::ptr::null_mut(),
                ttmp_nbytes: 0,
                ctx: std::ptr::null_mut(),
            },
        };
        Some(CPostfilter {
            f,
            params,
            ctx: ctx as usize,
        })
    }
}

impl Postfilter for CPostfilter {
    fn call(&self, c: PostfilterCall) -> i32 {
        let mut p = self.params;
        p.input = c.input.as_ptr();
        p.output = c.output.as_mut_ptr();
        p.size = c.output.len() as i32;
        p.typesize = c.typesize;
        p.offset = c.offset as i32;
        p.nchunk = c.nchunk;
        p.nblock = c.nblock as i32;
        p.tid = c.tid as i32;
        p.ttmp = c.ttmp.as_mut_ptr();
        p.ttmp_nbytes = c.ttmp.len();
        p.ctx = self.ctx as *mut blosc2_context;
        // SAFETY: every pointer in `p` is valid for the sizes it announces for
        // the duration of the call, as upstream's contract requires.
        unsafe { (self.f)(&mut p) }
    }
}
