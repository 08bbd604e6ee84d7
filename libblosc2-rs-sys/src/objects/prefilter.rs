//! C prefilters and postfilters (`cparams.prefilter`, `dparams.postfilter`)
//! wrapped as core hooks. The params struct given at context creation is
//! copied, as upstream does, and completed per block.

use crate::types::{
    blosc2_context, blosc2_postfilter_fn, blosc2_postfilter_params, blosc2_prefilter_fn,
    blosc2_prefilter_params,
};
use blosc2_core::error::ErrorKind;
use blosc2_core::registry::{Postfilter, PostfilterCall, Prefilter, PrefilterCall};

/// A block's size, offset and index and the thread's id, as the `int32_t`s
/// of the params structs: a chunk's sizes are `int32_t` and the thread count
/// an `int16_t`, so all fit; None otherwise.
fn block_ints(len: usize, offset: usize, nblock: usize, tid: usize) -> Option<[i32; 4]> {
    Some([
        i32::try_from(len).ok()?,
        i32::try_from(offset).ok()?,
        i32::try_from(nblock).ok()?,
        i32::try_from(tid).ok()?,
    ])
}

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
// SAFETY: as for Send: the same callback and user_data reach upstream's
// worker threads concurrently too, and the struct is never mutated.
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
        let Some([size, offset, nblock, tid]) =
            block_ints(c.output.len(), c.offset, c.nblock, c.tid)
        else {
            // fails the block as a failing callback would
            return ErrorKind::Failure.code();
        };
        let mut p = self.params;
        p.input = c.input.as_ptr();
        p.output = c.output.as_mut_ptr();
        p.output_size = size;
        p.output_typesize = c.output_typesize;
        p.output_offset = offset;
        p.nchunk = c.nchunk;
        p.nblock = nblock;
        p.tid = tid;
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
        let Some([size, offset, nblock, tid]) =
            block_ints(c.output.len(), c.offset, c.nblock, c.tid)
        else {
            // fails the block as a failing callback would
            return ErrorKind::Failure.code();
        };
        let mut p = self.params;
        p.input = c.input.as_ptr();
        p.output = c.output.as_mut_ptr();
        p.size = size;
        p.typesize = c.typesize;
        p.offset = offset;
        p.nchunk = c.nchunk;
        p.nblock = nblock;
        p.tid = tid;
        p.ttmp = c.ttmp.as_mut_ptr();
        p.ttmp_nbytes = c.ttmp.len();
        p.ctx = self.ctx as *mut blosc2_context;
        // SAFETY: every pointer in `p` is valid for the sizes it announces for
        // the duration of the call, as upstream's contract requires.
        unsafe { (self.f)(&mut p) }
    }
}

#[cfg(test)]
mod tests {
    use super::block_ints;

    #[test]
    fn block_ints_refuse_what_an_int32_cannot_hold() {
        assert_eq!(block_ints(4096, 8192, 2, 1), Some([4096, 8192, 2, 1]));
        let big = usize::try_from(i32::MAX).unwrap() + 1;
        assert_eq!(block_ints(big, 0, 0, 0), None);
        assert_eq!(block_ints(0, big, 0, 0), None);
    }
}
