//! What a `b2nd_array_t*` and a `b2nd_context_t*` point to.
//!
//! A `b2nd_array_t*` handed to C is the address of the first field of a
//! heap-allocated [`ArrayHandle`], which also holds the safe
//! [`Array`]. The array's super-chunk is an ordinary
//! schunk handle (`array->sc`, usable with every `blosc2_schunk_*` call);
//! the `Array` reaches its core through [`ScPtr`]. After every call the
//! public struct (and the schunk's) is refreshed from the core.
//!
//! For the exported functions: [`with_array`] runs code on the `Array`
//! behind a `*mut b2nd_array_t` and refreshes both public structs
//! afterwards; [`new_c_array`] publishes an array built on a schunk handle;
//! [`ctx_ref`] reads a `b2nd_context_t*` and [`create_array`] makes a new
//! array from one.

use crate::consts::B2ND_MAX_DIM;
use crate::objects::schunk::Handle;
use crate::ptr::c_string_lossy;
use crate::ptr::malloc_cstr;
use crate::types::{
    b2nd_array_t, b2nd_context_t, blosc2_cparams, blosc2_dparams, blosc2_io, blosc2_schunk,
    blosc2_storage, chunk_cache_s,
};
use blosc2_core::b2nd::array::{Array, Params};
use blosc2_core::b2nd::geometry::Geometry;
use blosc2_core::error::{ErrorKind, Result};
use blosc2_core::metalayers::Metalayer;
use blosc2_core::schunk::SuperChunk;
use std::borrow::{Borrow, BorrowMut};
use std::ffi::{c_char, CString};
use std::ptr::{self, NonNull};

/// The super-chunk of a schunk handle, as the `Array` holds it.
pub(crate) struct ScPtr(NonNull<blosc2_schunk>);

impl ScPtr {
    /// # Safety
    /// `p` is a live schunk handle of this library that outlives the
    /// `ScPtr` and is reached only through it meanwhile (the array handle
    /// owns it and frees it after dropping the `ScPtr`).
    pub(crate) unsafe fn new(p: *mut blosc2_schunk) -> Option<ScPtr> {
        NonNull::new(p).map(ScPtr)
    }
    pub(crate) fn as_ptr(&self) -> *mut blosc2_schunk {
        self.0.as_ptr()
    }
}

impl Borrow<SuperChunk> for ScPtr {
    fn borrow(&self) -> &SuperChunk {
        // SAFETY: per `ScPtr::new`, a live Handle whose first field the
        // pointer addresses.
        unsafe { &(*self.0.as_ptr().cast::<Handle>()).core }
    }
}

impl BorrowMut<SuperChunk> for ScPtr {
    fn borrow_mut(&mut self) -> &mut SuperChunk {
        // SAFETY: as in `borrow`; `&mut self` makes this the only access.
        unsafe { &mut (*self.0.as_ptr().cast::<Handle>()).core }
    }
}

/// What a `b2nd_array_t*` really points to.
#[repr(C)]
pub(crate) struct ArrayHandle {
    /// Must stay first: C's pointer is this field's address.
    c: b2nd_array_t,
    pub(crate) arr: Array<ScPtr>,
}

impl ArrayHandle {
    /// Copy the geometry into the public struct and refresh the schunk's.
    pub(crate) fn sync(&mut self) {
        let sc = self.arr.holder().as_ptr();
        // SAFETY: the array handle owns this live schunk handle.
        let h = unsafe { &mut *sc.cast::<Handle>() };
        h.resync();
        let g: &Geometry = self.arr.geometry();
        let c = &mut self.c;
        c.sc = sc;
        c.ndim = c_ndim(g.ndim);
        c.shape = g.shape;
        c.chunkshape = g.chunkshape;
        c.blockshape = g.blockshape;
        c.extshape = g.extshape;
        c.extchunkshape = g.extchunkshape;
        c.nitems = g.nitems;
        c.chunknitems = g.chunknitems;
        c.extnitems = g.extnitems;
        c.blocknitems = g.blocknitems;
        c.extchunknitems = g.extchunknitems;
        c.item_array_strides = g.item_array_strides;
        c.item_chunk_strides = g.item_chunk_strides;
        c.item_extchunk_strides = g.item_extchunk_strides;
        c.item_block_strides = g.item_block_strides;
        c.block_chunk_strides = g.block_chunk_strides;
        c.chunk_array_strides = g.chunk_array_strides;
        c.dtype_format = self.arr.dtype_format();
        // SAFETY: `sc` is live (above).
        c.last_tick = unsafe { (*sc).change_tick };
        let want = self.arr.dtype();
        // SAFETY: `c.dtype` is NULL or a C string this library malloc()ed
        // (or one the user put there in its place, as upstream allows).
        let have = unsafe { c_string_lossy(c.dtype) };
        if have.as_deref() != want {
            // SAFETY: `c.dtype` is NULL or malloc()ed (above); it is
            // replaced right away.
            unsafe { libc::free(c.dtype.cast()) };
            // Out of memory leaves the dtype NULL, which readers take as
            // the default; nothing else can be reported from a refresh.
            c.dtype = want.map_or(ptr::null_mut(), |d| {
                malloc_cstr(d).unwrap_or(ptr::null_mut())
            });
        }
    }
}

impl Drop for ArrayHandle {
    fn drop(&mut self) {
        // SAFETY: malloc()ed by this library (or by the user in its place).
        unsafe { libc::free(self.c.dtype.cast()) };
        let sc = self.arr.holder().as_ptr();
        // SAFETY: the array owns its schunk handle, as upstream's b2nd_free
        // frees `sc`; nothing uses it afterwards (the ScPtr goes with self).
        unsafe { crate::objects::schunk::free_handle(sc) };
    }
}

/// Publish an array as a `b2nd_array_t*` (the caller frees it with
/// `b2nd_free`, which frees the schunk too).
pub(crate) fn new_c_array(arr: Array<ScPtr>) -> *mut b2nd_array_t {
    // SAFETY: b2nd_array_t is plain C data for which all-zero bytes are a
    // valid value (NULL pointers, zero counts).
    let c: b2nd_array_t = unsafe { std::mem::zeroed() };
    let mut h = Box::new(ArrayHandle { c, arr });
    h.c.chunk_cache = chunk_cache_s {
        data: ptr::null_mut(),
        nchunk: -1,
    };
    h.sync();
    Box::into_raw(h).cast()
}

/// An `ndim` as C's `int8_t`: the core keeps it within `B2ND_MAX_DIM`.
pub(crate) fn c_ndim(n: usize) -> i8 {
    i8::try_from(n.min(B2ND_MAX_DIM)).unwrap_or(i8::MAX)
}

/// The handle behind a C pointer.
///
/// # Safety
/// `p` is NULL or a live array of this library.
pub(crate) unsafe fn array_handle<'a>(p: *const b2nd_array_t) -> Option<&'a mut ArrayHandle> {
    // SAFETY: per the contract, a live ArrayHandle whose first field `p` points to.
    unsafe { (p as *mut b2nd_array_t).cast::<ArrayHandle>().as_mut() }
}

/// Follow shape changes made to the schunk behind the array's back (the
/// reference's `refresh_if_stale`): 1 when re-synced, 0 when current.
pub(crate) fn refresh_if_stale(h: &mut ArrayHandle) -> Result<i32> {
    let sc = h.arr.holder().as_ptr();
    // SAFETY: the array handle owns this live schunk.
    let (frame, tick) = unsafe { ((*sc).frame, (*sc).change_tick) };
    if frame.is_null() || tick == h.c.last_tick {
        return Ok(0);
    }
    h.arr.refresh()?;
    h.sync();
    Ok(1)
}

/// Run `f` on the array behind `p` (re-synced first if the schunk changed
/// meanwhile), then refresh the public structs.
///
/// # Safety
/// `p` is NULL or a live array of this library.
pub(crate) unsafe fn with_array<T>(
    p: *const b2nd_array_t,
    f: impl FnOnce(&mut Array<ScPtr>) -> Result<T>,
) -> Result<T> {
    // SAFETY: `p` is NULL or a live array of this library, per this
    // function's contract, as array_handle needs.
    let h = unsafe { array_handle(p) }.ok_or(ErrorKind::NullPointer)?;
    let sc = h.arr.holder().as_ptr();
    // SAFETY: the array handle owns this live schunk, reached only through
    // it meanwhile.
    let Some(sh) = (unsafe { sc.cast::<Handle>().as_mut() }) else {
        return Err(ErrorKind::NullPointer);
    };
    // As upstream: first follow what other handles did to the frame, then
    // change it under the frame lock held across the whole operation (a
    // slice spans several chunks; a locked reader must not see half of it).
    sh.begin_read()?;
    sh.core.end_read()?;
    sh.core.lock()?;
    // chunks an operation replaces are given back to a frame file once, at
    // its end (see `SuperChunk::begin_batch`)
    sh.core.begin_batch();
    let r = refresh_if_stale(h).and_then(|_| f(&mut h.arr));
    // SAFETY: `sc` is still the array's live schunk handle; `sh` above is
    // no longer used, so this is the only reference to it.
    if let Some(sh) = unsafe { sc.cast::<Handle>().as_mut() } {
        sh.core.end_batch();
    }
    h.sync();
    // SAFETY: `sc` is still the array's live schunk handle; the previous
    // reference to it ended with `end_batch`.
    if let Some(sh) = unsafe { sc.cast::<Handle>().as_mut() } {
        let u = sh.core.unlock();
        if r.is_ok() {
            u?;
        }
    }
    r
}

/// Run a read-only `f` on the array behind `p` by shared reference (so
/// threads may read one array at once, as with super-chunks); the array is
/// re-synced first only if its schunk changed meanwhile.
///
/// # Safety
/// `p` is NULL or a live array of this library, not being changed by
/// another thread meanwhile.
pub(crate) unsafe fn read_array<T>(
    p: *const b2nd_array_t,
    f: impl FnOnce(&Array<ScPtr>) -> Result<T>,
) -> Result<T> {
    // SAFETY: per the contract, a live ArrayHandle.
    let h = unsafe { (p as *const ArrayHandle).as_ref() }.ok_or(ErrorKind::NullPointer)?;
    let sc = h.arr.holder().as_ptr();
    // the frame as it is now (which bumps change_tick when it changed), and
    // with locking the frame lock held for the read
    // SAFETY: the array handle owns this live schunk.
    let _reading = unsafe { crate::objects::schunk::reading(sc) }?;
    // SAFETY: the array handle owns this live schunk.
    let (frame, tick) = unsafe { ((*sc).frame, (*sc).change_tick) };
    if !frame.is_null() && tick != h.c.last_tick {
        // SAFETY: a stale array was changed through its schunk, which
        // readers running meanwhile would race with anyway.
        return unsafe { with_array(p, |a| f(a)) };
    }
    f(&h.arr)
}

// ----- contexts -----

/// What a `b2nd_context_t*` points to: deep copies of everything the
/// caller gave, so the caller's memory may go away after `b2nd_create_ctx`.
pub(crate) struct Ctx {
    pub(crate) contiguous: bool,
    pub(crate) urlpath: Option<CString>,
    pub(crate) cparams: blosc2_cparams,
    pub(crate) dparams: Option<blosc2_dparams>,
    pub(crate) io: Option<blosc2_io>,
    pub(crate) ndim: i8,
    pub(crate) shape: [i64; B2ND_MAX_DIM],
    pub(crate) chunkshape: [i32; B2ND_MAX_DIM],
    pub(crate) blockshape: [i32; B2ND_MAX_DIM],
    pub(crate) dtype: String,
    pub(crate) dtype_format: i8,
    pub(crate) metalayers: Vec<Metalayer>,
}

impl Ctx {
    pub(crate) fn params(&self) -> Params {
        let n = self.ndim.max(0) as usize;
        Params {
            shape: self.shape[..n].to_vec(),
            chunkshape: self.chunkshape[..n].to_vec(),
            blockshape: self.blockshape[..n].to_vec(),
            dtype: Some(self.dtype.clone()),
            dtype_format: self.dtype_format,
            metalayers: self.metalayers.clone(),
        }
    }

    /// A storage for `blosc2_schunk_copy` into the context's place.
    pub(crate) fn with_storage<T>(&self, f: impl FnOnce(*mut blosc2_storage) -> T) -> T {
        let mut cp = self.cparams;
        let mut dp = self.dparams;
        let mut io = self.io;
        let mut st = blosc2_storage {
            contiguous: self.contiguous,
            urlpath: self
                .urlpath
                .as_ref()
                .map_or(ptr::null_mut(), |u| u.as_ptr() as *mut c_char),
            cparams: &mut cp,
            dparams: dp.as_mut().map_or(ptr::null_mut(), |d| d as *mut _),
            io: io.as_mut().map_or(ptr::null_mut(), |d| d as *mut _),
        };
        f(&mut st)
    }
}

/// The context behind a C pointer.
///
/// # Safety
/// `p` is NULL or a live context of this library.
pub(crate) unsafe fn ctx_ref<'a>(p: *mut b2nd_context_t) -> Option<&'a mut Ctx> {
    // SAFETY: `p` is NULL or a `Ctx` boxed by b2nd_create_ctx and not yet
    // freed, per this function's contract.
    unsafe { p.cast::<Ctx>().as_mut() }
}
