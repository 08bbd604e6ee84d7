//! The b2nd API of `b2nd.h`: n-dimensional arrays over super-chunks.
//!
//! A `b2nd_array_t*` handed to C is the address of the first field of a
//! heap-allocated [`ArrayHandle`], which also holds the safe
//! [`Array`](blosc2_core::b2nd::Array). The array's super-chunk is an ordinary
//! schunk handle (`array->sc`, usable with every `blosc2_schunk_*` call);
//! the `Array` reaches its core through [`ScPtr`]. After every call the
//! public struct (and the schunk's) is refreshed from the core.
//!
//! For other C API files: [`with_array`] runs code on the `Array` behind a
//! `*mut b2nd_array_t` and refreshes both public structs afterwards;
//! [`new_c_array`] publishes an array built on a schunk handle;
//! [`ctx_ref`] reads a `b2nd_context_t*` and [`create_array`] makes a new
//! array from one.

use super::boundary::{code, err, ffi, or_return};
use super::consts::B2ND_MAX_DIM;
use super::handle::Handle;
use super::schunk::{
    blosc2_schunk_append_file, blosc2_schunk_copy, blosc2_schunk_free, blosc2_schunk_from_buffer,
    blosc2_schunk_new, blosc2_schunk_open_offset, blosc2_schunk_to_buffer,
};
use super::types::{
    b2nd_array_t, b2nd_context_t, blosc2_cparams, blosc2_dparams, blosc2_io, blosc2_metalayer,
    blosc2_schunk, blosc2_storage, chunk_cache_s,
};
use crate::ptr::c_string_lossy;
use crate::ptr::{bytes, bytes_mut, malloc_copy, malloc_cstr, optional, slice};
use blosc2_core::b2nd::array::{Array, Fill, Params};
use blosc2_core::b2nd::geometry::{self, Geometry};
use blosc2_core::b2nd::meta;
use blosc2_core::b2nd::slice::copy_buffer2;
use blosc2_core::error::{ErrorKind, Result};
use blosc2_core::metalayers::Metalayer;
use blosc2_core::schunk::SuperChunk;
use std::borrow::{Borrow, BorrowMut};
use std::ffi::{c_char, c_int, c_void, CString};
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
        unsafe { blosc2_schunk_free(sc) };
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
fn refresh_if_stale(h: &mut ArrayHandle) -> Result<i32> {
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
    let _reading = unsafe { super::reading::reading(sc) }?;
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

    /// A new schunk handle with the context's storage (NULL on failure).
    fn new_schunk(&self) -> *mut blosc2_schunk {
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
        // SAFETY: every pointer in `st` is NULL or points to a live local.
        unsafe { blosc2_schunk_new(&mut st) }
    }

    /// A storage for `blosc2_schunk_copy` into the context's place.
    fn with_storage<T>(&self, f: impl FnOnce(*mut blosc2_storage) -> T) -> T {
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

/// A new array as the context describes it, filled as `fill` says.
pub(crate) fn create_array(ctx: &Ctx, fill: Fill) -> Result<*mut b2nd_array_t> {
    let p = ctx.params();
    Geometry::new(&p.shape, &p.chunkshape, &p.blockshape)?;
    let sc = ctx.new_schunk();
    // SAFETY: a fresh schunk handle, owned by the array from here on.
    let Some(scp) = (unsafe { ScPtr::new(sc) }) else {
        return Err(ErrorKind::Failure);
    };
    match Array::init(scp, &p, fill) {
        Ok(a) => Ok(new_c_array(a)),
        Err(e) => {
            // SAFETY: not published, so ours to free.
            unsafe { blosc2_schunk_free(sc) };
            Err(e)
        }
    }
}

/// Create an array-creation context (NULL on invalid input).
///
/// # Safety
/// `b2_storage` is NULL or valid (its pointers NULL or valid); `shape`,
/// `chunkshape`, `blockshape` have `ndim` values; `dtype` is NULL or a C
/// string; `metalayers` has `nmetalayers` valid entries.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn b2nd_create_ctx(
    b2_storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> *mut b2nd_context_t {
    ffi!({
        if ndim < 0 || ndim as usize > B2ND_MAX_DIM {
            err(ErrorKind::InvalidParam);
            return ptr::null_mut();
        }
        let n = ndim as usize;
        // SAFETY: `ndim` values each, per the contract.
        let (s, c, b) = unsafe {
            (
                optional(shape, n),
                optional(chunkshape, n),
                optional(blockshape, n),
            )
        };
        let (s, c, b) = match (s, c, b) {
            (Some(s), Some(c), Some(b)) => (s, c, b),
            _ if n == 0 => (&[][..], &[][..], &[][..]),
            _ => {
                err(ErrorKind::NullPointer);
                return ptr::null_mut();
            }
        };
        if let Err(e) = geometry::validate(s, c, b) {
            err(e);
            return ptr::null_mut();
        }
        // SAFETY: NULL or valid per the contract.
        let st = unsafe { b2_storage.as_ref() }.copied().unwrap_or_default();
        // SAFETY: the storage's pointers are NULL or valid per the contract.
        let mut cp = unsafe { st.cparams.as_ref() }.copied().unwrap_or_default();
        // SAFETY: `st.dparams` is NULL or a valid `blosc2_dparams`, per this
        // function's contract on `b2_storage`.
        let dp = unsafe { st.dparams.as_ref() }.copied();
        // SAFETY: `st.io` is NULL or a valid `blosc2_io`, per this function's
        // contract on `b2_storage`.
        let io = unsafe { st.io.as_ref() }.copied();
        // SAFETY: NULL or a C string per the contract.
        let urlpath = unsafe { c_string_lossy(st.urlpath) }.and_then(|u| CString::new(u).ok());
        // SAFETY: NULL or a C string per the contract.
        let dtype =
            unsafe { c_string_lossy(dtype) }.unwrap_or_else(|| format!("|S{}", cp.typesize));
        let mut blocknitems: i32 = 1;
        for &x in b {
            match blocknitems.checked_mul(x) {
                Some(v) => blocknitems = v,
                None => {
                    err(ErrorKind::InvalidParam);
                    return ptr::null_mut();
                }
            }
        }
        match blocknitems.checked_mul(cp.typesize) {
            Some(v) => cp.blocksize = v,
            None => {
                err(ErrorKind::InvalidParam);
                return ptr::null_mut();
            }
        }
        let mut metas = Vec::new();
        if nmetalayers > 0 {
            // SAFETY: `nmetalayers` entries per the contract.
            let Some(ms) = (unsafe { optional(metalayers, nmetalayers as usize) }) else {
                err(ErrorKind::NullPointer);
                return ptr::null_mut();
            };
            for m in ms {
                // SAFETY: each entry's name is a C string and its content has
                // `content_len` bytes, per the contract.
                let name = unsafe { c_string_lossy(m.name) }.unwrap_or_default();
                // SAFETY: `m.content` is NULL or has `content_len` readable bytes,
                // per this function's contract on `metalayers`.
                let content = unsafe { optional(m.content, m.content_len.max(0) as usize) }
                    .unwrap_or(&[])
                    .to_vec();
                metas.push(Metalayer { name, content });
            }
        }
        let mut ctx = Box::new(Ctx {
            contiguous: st.contiguous,
            urlpath,
            cparams: cp,
            dparams: dp,
            io,
            ndim,
            shape: [0; B2ND_MAX_DIM],
            chunkshape: [0; B2ND_MAX_DIM],
            blockshape: [0; B2ND_MAX_DIM],
            dtype,
            dtype_format,
            metalayers: metas,
        });
        ctx.shape[..n].copy_from_slice(s);
        ctx.chunkshape[..n].copy_from_slice(c);
        ctx.blockshape[..n].copy_from_slice(b);
        Box::into_raw(ctx).cast()
    })
}

/// Free a context.
///
/// # Safety
/// `ctx` is NULL or a live context, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free_ctx(ctx: *mut b2nd_context_t) -> c_int {
    ffi!({
        if ctx.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: made by Box::into_raw in b2nd_create_ctx, given back once.
        drop(unsafe { Box::from_raw(ctx.cast::<Ctx>()) });
        0
    })
}

/// # Safety
/// `ctx` NULL or live; `array` NULL or writable.
unsafe fn create_with(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    fill: Fill,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context, per this function's contract.
    let Some(c) = (unsafe { ctx_ref(ctx) }) else {
        return err(ErrorKind::NullPointer);
    };
    if array.is_null() {
        return err(ErrorKind::NullPointer);
    }
    match create_array(c, fill) {
        Ok(a) => {
            // SAFETY: writable per the contract.
            unsafe { *array = a };
            0
        }
        Err(e) => err(e),
    }
}

/// New array of undefined content (special chunks).
///
/// # Safety
/// `ctx` is a live context; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_uninit(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context and `array` NULL or writable
    // (this function's contract), as create_with needs.
    ffi!({ unsafe { create_with(ctx, array, Fill::Uninit) } })
}

/// New array of zeros (the reference fills "empty" arrays with zeros too).
///
/// # Safety
/// `ctx` is a live context; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context and `array` NULL or writable
    // (this function's contract), as create_with needs.
    ffi!({ unsafe { create_with(ctx, array, Fill::Zeros) } })
}

/// New array of zeros (special chunks).
///
/// # Safety
/// `ctx` is a live context; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context and `array` NULL or writable
    // (this function's contract), as create_with needs.
    ffi!({ unsafe { create_with(ctx, array, Fill::Zeros) } })
}

/// New array of NaNs (typesize 4 or 8; special chunks).
///
/// # Safety
/// `ctx` is a live context; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_nans(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `ctx` is NULL or a live context and `array` NULL or writable
    // (this function's contract), as create_with needs.
    ffi!({ unsafe { create_with(ctx, array, Fill::Nans) } })
}

/// New array with every item equal to `fill_value` (typesize bytes).
///
/// # Safety
/// `ctx` is a live context; `array` is writable; `fill_value` has
/// typesize readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_full(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    fill_value: *const c_void,
) -> c_int {
    ffi!({
        // SAFETY: `ctx` is NULL or a live context, per this function's contract.
        let Some(c) = (unsafe { ctx_ref(ctx) }) else {
            return err(ErrorKind::NullPointer);
        };
        if fill_value.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let ts = c.cparams.typesize.max(0) as usize;
        // SAFETY: `fill_value` (non-NULL) has typesize readable bytes, per
        // the contract.
        let v = or_return!(unsafe { bytes(fill_value, ts) });
        // SAFETY: `ctx` is a live context (non-NULL above) and `array` NULL or
        // writable, per this function's contract, as create_with needs.
        unsafe { create_with(ctx, array, Fill::Value(v)) }
    })
}

/// Free an array and its super-chunk.
///
/// # Safety
/// `array` is NULL or a live array, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    ffi!({
        if array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: made by Box::into_raw in new_c_array, given back once.
        drop(unsafe { Box::from_raw(array.cast::<ArrayHandle>()) });
        0
    })
}

/// View a super-chunk with a "b2nd" (or "caterva") metalayer as an array;
/// the array takes the super-chunk over (`b2nd_free` frees it).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk not owned by another array;
/// `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(
    schunk: *mut blosc2_schunk,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: `schunk` is NULL or a live super-chunk no array owns and
    // `array` NULL or writable (this function's contract), as adopt needs.
    ffi!({ unsafe { adopt(schunk, array, false) } })
}

/// Wrap `schunk` into a new array; with `owned`, free it on failure.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk no other array owns (ours to
/// free when `owned`); `array` is NULL or writable.
unsafe fn adopt(schunk: *mut blosc2_schunk, array: *mut *mut b2nd_array_t, owned: bool) -> c_int {
    if array.is_null() {
        if owned {
            // SAFETY: ours, not published.
            unsafe { blosc2_schunk_free(schunk) };
        }
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: a live schunk handle per the contract, owned by the array
    // from here on.
    let Some(scp) = (unsafe { ScPtr::new(schunk) }) else {
        return err(ErrorKind::NullPointer);
    };
    match Array::from_schunk(scp) {
        Ok(a) => {
            // SAFETY: writable per the contract.
            unsafe { *array = new_c_array(a) };
            0
        }
        Err(e) => {
            if owned {
                // SAFETY: ours, not published.
                unsafe { blosc2_schunk_free(schunk) };
            }
            err(e)
        }
    }
}

/// Serialize as a contiguous frame (a new malloc()ed buffer; `needs_free`
/// says whether the caller must free it).
///
/// # Safety
/// `array` is live; the out pointers are writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    ffi!({
        if array.is_null() || cframe.is_null() || cframe_len.is_null() || needs_free.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: live per the contract.
        let sc = unsafe { (*array).sc };
        // SAFETY: the array's live schunk; out pointers writable per the contract.
        let n = unsafe { blosc2_schunk_to_buffer(sc, cframe, needs_free) };
        // SAFETY: writable per the contract.
        unsafe { *cframe_len = n };
        if n <= 0 {
            return err(ErrorKind::Failure);
        }
        0
    })
}

/// An array from a contiguous frame in memory (`copy` false: the frame
/// buffer is used in place, and stays the caller's to free after the array).
///
/// # Safety
/// `cframe` has `cframe_len` readable bytes, which stay valid while the
/// array lives when `copy` is false; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(
    cframe: *mut u8,
    cframe_len: i64,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    ffi!({
        if cframe.is_null() || array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: `cframe` has `cframe_len` readable bytes that outlive the
        // array when `copy` is false, per this function's contract.
        let sc = unsafe { blosc2_schunk_from_buffer(cframe, cframe_len, copy) };
        if sc.is_null() {
            return err(ErrorKind::Failure);
        }
        // the caller keeps its buffer (with copy false it is used in place
        // and stays the caller's to free, as in the reference)
        // SAFETY: a fresh schunk handle.
        unsafe { adopt(sc, array, true) }
    })
}

/// Open an array stored in a file or directory.
///
/// # Safety
/// `urlpath` is a C string; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: `urlpath` is NULL or a C string and `array` NULL or writable
    // (this function's contract), as open_offset needs.
    ffi!({ unsafe { open_offset(urlpath, array, 0) } })
}

/// Open an array whose frame starts `offset` bytes into a file.
///
/// # Safety
/// `urlpath` is a C string; `array` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(
    urlpath: *const c_char,
    array: *mut *mut b2nd_array_t,
    offset: i64,
) -> c_int {
    // SAFETY: `urlpath` is NULL or a C string and `array` NULL or writable
    // (this function's contract), as open_offset needs.
    ffi!({ unsafe { open_offset(urlpath, array, offset) } })
}

/// # Safety
/// `urlpath` is NULL or a C string; `array` is NULL or writable.
unsafe fn open_offset(urlpath: *const c_char, array: *mut *mut b2nd_array_t, offset: i64) -> c_int {
    if urlpath.is_null() || array.is_null() {
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: `urlpath` is a C string (non-NULL above), per this function's
    // contract.
    let sc = unsafe { blosc2_schunk_open_offset(urlpath, offset) };
    if sc.is_null() {
        return err(ErrorKind::NullPointer);
    }
    // SAFETY: a fresh schunk handle.
    unsafe { adopt(sc, array, true) }
}

/// Save a copy as a frame file (contiguous arrays) or directory (sparse).
///
/// # Safety
/// `array` is live; `urlpath` is a C string.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    ffi!({
        if array.is_null() || urlpath.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: live per the contract.
        let Some(h) = (unsafe { array_handle(array) }) else {
            return err(ErrorKind::NullPointer);
        };
        if let Err(e) = refresh_if_stale(h) {
            return err(e);
        }
        let sc = h.arr.holder().as_ptr();
        // SAFETY: the array's live schunk; its storage is valid.
        let contiguous = unsafe { (*(*sc).storage).contiguous };
        let mut st = blosc2_storage {
            contiguous,
            urlpath,
            ..blosc2_storage::default()
        };
        // SAFETY: live schunk; `st` valid.
        let copy = unsafe { blosc2_schunk_copy(sc, &mut st) };
        if copy.is_null() {
            return err(ErrorKind::Failure);
        }
        // SAFETY: ours.
        unsafe { blosc2_schunk_free(copy) };
        0
    })
}

/// Append as a contiguous frame to `urlpath`; returns the offset where it
/// starts.
///
/// # Safety
/// `array` is live; `urlpath` is a C string.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(
    array: *const b2nd_array_t,
    urlpath: *const c_char,
) -> i64 {
    ffi!({
        if array.is_null() {
            return err(ErrorKind::NullPointer) as i64;
        }
        // SAFETY: live per the contract; urlpath forwarded.
        unsafe { blosc2_schunk_append_file((*array).sc, urlpath) }
    })
}

/// New array from the C-order items of `buffer`.
///
/// # Safety
/// `ctx` is live; `array` writable; `buffer` has `buffersize` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cbuffer(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
) -> c_int {
    ffi!({
        if ctx.is_null() || buffer.is_null() || array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // a negative size reads nothing; one past the address space is no
        // buffer's
        let Ok(len) = usize::try_from(buffersize.max(0)) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `ctx` is a live context and `array` writable (both non-NULL
        // above), per this function's contract.
        let rc = unsafe { create_with(ctx, array, Fill::Zeros) };
        if rc < 0 {
            return rc;
        }
        // SAFETY: just written.
        let a = unsafe { *array };
        // SAFETY: `buffer` (non-NULL) has `buffersize` (>= `len`) readable
        // bytes, per the contract.
        let buf = or_return!(unsafe { bytes(buffer, len) });
        // SAFETY: the fresh array.
        let r = unsafe { with_array(a, |arr| arr.fill_from_cbuffer(buf)) };
        if let Err(e) = r {
            // SAFETY: ours; the caller gets NULL back.
            unsafe {
                b2nd_free(a);
                *array = ptr::null_mut();
            }
            return err(e);
        }
        0
    })
}

/// Read the whole array into `buffer` in C order.
///
/// # Safety
/// `array` is live; `buffer` has `buffersize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(
    array: *const b2nd_array_t,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    ffi!({
        if array.is_null() || buffer.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `buffer` (non-NULL) has `buffersize` writable bytes, per
        // the contract.
        let out = or_return!(unsafe { bytes_mut(buffer, len) });
        // SAFETY: live per the contract.
        code(unsafe { read_array(array, |a| a.to_cbuffer(out)) })
    })
}

/// Read the box `start..stop` into `buffer`, shaped `buffershape`.
///
/// # Safety
/// `array` is live; `start`, `stop`, `buffershape` have ndim values;
/// `buffer` has `buffersize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    ffi!({
        if array.is_null()
            || start.is_null()
            || stop.is_null()
            || buffershape.is_null()
            || buffer.is_null()
        {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `array` is live; `start`, `stop`, `buffershape` have ndim
        // values and `buffer` `buffersize` writable bytes, per the contract.
        let r = unsafe {
            read_array(array, |a| {
                let n = a.ndim();
                let (s, e, bs) = (slice(start, n)?, slice(stop, n)?, slice(buffershape, n)?);
                let out = bytes_mut(buffer, len)?;
                a.get_slice_cbuffer(s, e, out, bs)
            })
        };
        code(r)
    })
}

/// Write `buffer`, shaped `buffershape`, into the box `start..stop`.
///
/// # Safety
/// `array` is live; `start`, `stop`, `buffershape` have ndim values;
/// `buffer` has `buffersize` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    ffi!({
        if array.is_null()
            || start.is_null()
            || stop.is_null()
            || buffershape.is_null()
            || buffer.is_null()
        {
            return err(ErrorKind::NullPointer);
        }
        let Ok(len) = usize::try_from(buffersize) else {
            return err(ErrorKind::InvalidParam);
        };
        // SAFETY: `array` is live; `start`, `stop`, `buffershape` have ndim
        // values and `buffer` `buffersize` readable bytes, per the contract.
        let r = unsafe {
            with_array(array, |a| {
                let n = a.ndim();
                let (s, e, bs) = (slice(start, n)?, slice(stop, n)?, slice(buffershape, n)?);
                let src = bytes(buffer, len)?;
                a.set_slice_cbuffer(src, bs, s, e)
            })
        };
        code(r)
    })
}

/// Copy the items of `src` in `start..stop` into a new array made from
/// `ctx` (whose ndim and shape are set to the slice's, as upstream does).
///
/// # Safety
/// `ctx`, `src` live; `start`, `stop` have ndim values; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    src: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
) -> c_int {
    ffi!({
        // SAFETY: `ctx` and `src` are NULL or live handles of this library, per
        // this function's contract.
        let (Some(c), Some(h)) = (unsafe { ctx_ref(ctx) }, unsafe { array_handle(src) }) else {
            return err(ErrorKind::NullPointer);
        };
        if start.is_null() || stop.is_null() || array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        if let Err(e) = refresh_if_stale(h) {
            return err(e);
        }
        let n = h.arr.ndim();
        // SAFETY: ndim values each per the contract.
        let (s, e) = match unsafe { (slice(start, n), slice(stop, n)) } {
            (Ok(s), Ok(e)) => (s, e),
            _ => return err(ErrorKind::NullPointer),
        };
        if let Err(x) = h.arr.check_range(s, e) {
            return err(x);
        }
        c.ndim = c_ndim(n);
        for i in 0..n {
            c.shape[i] = e[i] - s[i];
        }
        // SAFETY: `array` is writable (non-NULL above), per this function's
        // contract, as slice_into_new needs.
        unsafe { slice_into_new(c, array, h, s) }
    })
}

/// Make an array of zeros from `c` and copy `h`'s box at `start` into it.
///
/// # Safety
/// `array` writable.
unsafe fn slice_into_new(
    c: &Ctx,
    array: *mut *mut b2nd_array_t,
    h: &mut ArrayHandle,
    start: &[i64],
) -> c_int {
    if c.cparams.typesize != h.arr.typesize() {
        return err(ErrorKind::InvalidParam);
    }
    let a = match create_array(c, Fill::Zeros) {
        Ok(a) => a,
        Err(e) => return err(e),
    };
    // SAFETY: the fresh array.
    let r = unsafe { with_array(a, |dst| h.arr.copy_into(dst, start)) };
    h.sync();
    if let Err(e) = r {
        // SAFETY: ours.
        unsafe { b2nd_free(a) };
        return err(e);
    }
    // SAFETY: writable per the contract.
    unsafe { *array = a };
    0
}

/// Copy an array into the storage of `ctx`: chunks as they are when the
/// chunk and block shapes match, re-chunked otherwise (metalayers and
/// vlmetalayers come along).
///
/// # Safety
/// `ctx`, `src` live; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy(
    ctx: *mut b2nd_context_t,
    src: *const b2nd_array_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    ffi!({
        // SAFETY: `ctx` and `src` are NULL or live handles of this library, per
        // this function's contract.
        let (Some(c), Some(h)) = (unsafe { ctx_ref(ctx) }, unsafe { array_handle(src) }) else {
            return err(ErrorKind::NullPointer);
        };
        if array.is_null() {
            return err(ErrorKind::NullPointer);
        }
        if let Err(e) = refresh_if_stale(h) {
            return err(e);
        }
        let n = h.arr.ndim();
        c.ndim = c_ndim(n);
        c.shape[..n].copy_from_slice(h.arr.shape());
        let same =
            c.chunkshape[..n] == *h.arr.chunkshape() && c.blockshape[..n] == *h.arr.blockshape();
        if same {
            let sc = h.arr.holder().as_ptr();
            // SAFETY: the array's live schunk; the storage is valid for the call.
            let new = c.with_storage(|st| unsafe { blosc2_schunk_copy(sc, st) });
            // SAFETY: a fresh handle, owned by the new array.
            let Some(scp) = (unsafe { ScPtr::new(new) }) else {
                return err(ErrorKind::Failure);
            };
            let a = Array::assemble(
                scp,
                h.arr.geometry().clone(),
                Some(c.dtype.clone()),
                c.dtype_format,
            );
            // SAFETY: writable per the contract.
            unsafe { *array = new_c_array(a) };
            return 0;
        }
        let mut c2 = Ctx {
            urlpath: c.urlpath.clone(),
            metalayers: h
                .arr
                .schunk()
                .metalayers
                .iter()
                .filter(|m| m.name != blosc2_core::b2nd::array::META_NAME)
                .cloned()
                .collect(),
            dtype: c.dtype.clone(),
            ..*c
        };
        c2.metalayers.truncate(super::consts::B2ND_MAX_METALAYERS);
        let start = vec![0i64; n];
        // SAFETY: `array` is writable (non-NULL above), per this function's
        // contract, as slice_into_new needs.
        let rc = unsafe { slice_into_new(&c2, array, h, &start) };
        if rc < 0 {
            return rc;
        }
        // SAFETY: just written.
        let a = unsafe { *array };
        let names: Vec<String> = h
            .arr
            .schunk()
            .vlmetalayers
            .iter()
            .map(|m| m.name.clone())
            .collect();
        // SAFETY: the fresh array.
        let r = unsafe {
            with_array(a, |dst| {
                for name in names {
                    let content = h.arr.schunk().vlmeta_get(&name)?;
                    let cp = dst.schunk().cparams().clone();
                    dst.schunk_mut().vlmeta_add(&name, &content, Some(&cp))?;
                }
                Ok(())
            })
        };
        if let Err(e) = r {
            // SAFETY: ours; the caller gets NULL back.
            unsafe {
                b2nd_free(a);
                *array = ptr::null_mut();
            }
            return err(e);
        }
        0
    })
}

/// Print the "b2nd" metalayer's parameters to stdout, as upstream does.
///
/// # Safety
/// `array` is live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    ffi!({
        // SAFETY: `array` is NULL or a live array, per this function's contract.
        let Some(h) = (unsafe { array_handle(array) }) else {
            return err(ErrorKind::NullPointer);
        };
        let m = match blosc2_core::b2nd::array::read_meta(h.arr.schunk()) {
            Ok(m) => m,
            Err(e) => return err(e),
        };
        let join = |v: Vec<String>| v.join(", ");
        let mut s = format!(
            "b2nd metalayer parameters:\n Ndim:       {}\n shape:      {}\n chunkshape: {}",
            m.ndim(),
            join(m.shape.iter().map(|x| x.to_string()).collect()),
            join(m.chunkshape.iter().map(|x| x.to_string()).collect()),
        );
        if let Some(d) = &m.dtype {
            s.push_str(&format!("\n dtype: {d}"));
        }
        s.push_str(&format!(
            "\n blockshape: {}\n",
            join(m.blockshape.iter().map(|x| x.to_string()).collect())
        ));
        // through C's stdio so the text interleaves with the caller's printf
        let cs = CString::new(s.replace('\0', "")).unwrap_or_default();
        // SAFETY: both are valid C strings.
        unsafe { libc::printf(c"%s".as_ptr(), cs.as_ptr()) };
        0
    })
}

/// Re-read the geometry from the metalayer when the schunk changed since
/// the array last looked: 1 when re-synced, 0 when already current.
///
/// # Safety
/// `array` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    ffi!({
        // SAFETY: `array` is NULL or a live array, per this function's contract.
        let Some(h) = (unsafe { array_handle(array) }) else {
            return err(ErrorKind::NullPointer);
        };
        // first what other handles did to the frame on disk (which moves
        // the schunk's change_tick), then the array's view of its schunk
        let sc = h.arr.holder().as_ptr();
        // SAFETY: the array handle owns this live schunk.
        if let Some(sh) = unsafe { sc.cast::<Handle>().as_mut() } {
            if let Err(e) = sh.refresh() {
                return err(e);
            }
        }
        match refresh_if_stale(h) {
            Ok(v) => v,
            Err(e) => err(e),
        }
    })
}

/// Encode the "b2nd" metalayer into a new malloc()ed `*smeta`; returns its
/// length.
///
/// # Safety
/// `shape`, `chunkshape`, `blockshape` have `ndim` values; `dtype` is NULL
/// or a C string; `smeta` is writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_serialize_meta(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    smeta: *mut *mut u8,
) -> c_int {
    ffi!({
        if smeta.is_null() {
            return err(ErrorKind::NullPointer);
        }
        if ndim < 0 || ndim as usize > B2ND_MAX_DIM {
            return err(ErrorKind::InvalidParam);
        }
        let n = ndim as usize;
        // SAFETY: `ndim` values each per the contract.
        let (s, c, b) = unsafe {
            (
                optional(shape, n),
                optional(chunkshape, n),
                optional(blockshape, n),
            )
        };
        let (Some(s), Some(c), Some(b)) = (s, c, b) else {
            return err(ErrorKind::NullPointer);
        };
        // SAFETY: NULL or a C string per the contract.
        let d = unsafe { c_string_lossy(dtype) };
        let m = match meta::serialize(s, c, b, d.as_deref(), dtype_format) {
            Ok(m) => m,
            Err(e) => return err(e),
        };
        // the core keeps the dtype's length within int32_t, not the whole
        let len = or_return!(c_int::try_from(m.len()).map_err(|_| ErrorKind::Failure));
        let p = or_return!(malloc_copy(&m));
        // SAFETY: `smeta` is writable, per the contract.
        unsafe { *smeta = p };
        len
    })
}

/// Decode a "b2nd" metalayer (see `b2nd_deserialize_meta_inline`): returns
/// the bytes read; `*dtype` is a new malloc()ed string (or NULL) when both
/// `dtype` and `dtype_format` are given.
///
/// # Safety
/// `smeta` has `smeta_len` readable bytes; `shape`, `chunkshape`,
/// `blockshape` have room for `B2ND_MAX_DIM` values; the other out
/// pointers are NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn b2nd_deserialize_meta(
    smeta: *const u8,
    smeta_len: i32,
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
) -> c_int {
    ffi!({
        if smeta.is_null()
            || ndim.is_null()
            || shape.is_null()
            || chunkshape.is_null()
            || blockshape.is_null()
        {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: writable per the contract.
        unsafe {
            if !dtype.is_null() {
                *dtype = ptr::null_mut();
            }
            if !dtype_format.is_null() {
                *dtype_format = 0;
            }
        }
        if smeta_len <= 0 {
            return err(ErrorKind::Failure);
        }
        // SAFETY: `smeta` has `smeta_len` (> 0) readable bytes, per the
        // contract.
        let buf = or_return!(unsafe { slice(smeta, smeta_len as usize) });
        // without the dtype outputs the reference stops after the shapes,
        // never looking at what follows
        let want_dtype = !dtype.is_null() && !dtype_format.is_null();
        let shapes_len = |n: usize| 3 + (1 + 9 * n) + 2 * (1 + 5 * n);
        let buf = match buf.get(2) {
            Some(&n) if !want_dtype && (n as usize) <= B2ND_MAX_DIM => {
                &buf[..buf.len().min(shapes_len(n as usize))]
            }
            _ => buf,
        };
        let (m, used) = match meta::deserialize(buf) {
            Ok(x) => x,
            Err(e) => return err(e),
        };
        // at most `smeta_len` bytes were read
        let used = or_return!(c_int::try_from(used).map_err(|_| ErrorKind::Failure));
        let n = m.ndim();
        // SAFETY: room for B2ND_MAX_DIM >= n values each per the contract.
        unsafe {
            *ndim = c_ndim(n);
            ptr::copy_nonoverlapping(m.shape.as_ptr(), shape, n);
            ptr::copy_nonoverlapping(m.chunkshape.as_ptr(), chunkshape, n);
            ptr::copy_nonoverlapping(m.blockshape.as_ptr(), blockshape, n);
        }
        if !want_dtype {
            return used;
        }
        // SAFETY: writable per the contract.
        unsafe {
            *dtype_format = m.dtype_format;
            if let Some(d) = &m.dtype {
                *dtype = or_return!(malloc_cstr(d));
            }
        }
        used
    })
}

/// Byte length of the part of a C buffer a box reaches, or None when it is
/// empty or out of range.
fn reach(pad: &[i64], start: &[i64], len: &[i64], itemsize: usize) -> Option<usize> {
    if len.contains(&0) {
        return Some(0);
    }
    let st = geometry::strides(pad);
    let mut end = 1i64;
    for i in 0..pad.len() {
        if start[i] < 0 || len[i] < 0 {
            return None;
        }
        end = end.checked_add((start[i] + len[i] - 1).checked_mul(st[i])?)?;
    }
    usize::try_from(end.checked_mul(itemsize as i64)?).ok()
}

/// Strided N-d copy between C buffers (`itemsize` up to 255).
///
/// # Safety
/// The shape and position arrays have `ndim` values; `src` and `dst` hold
/// every item the box reaches in them.
#[no_mangle]
#[deprecated(note = "Use b2nd_copy_buffer2 instead.")]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn b2nd_copy_buffer(
    ndim: i8,
    itemsize: u8,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    ffi!({
        // SAFETY: the shape and position arrays have `ndim` values and `src`
        // and `dst` hold every item the box reaches, per this function's
        // contract, as b2nd_copy_buffer2 needs.
        unsafe {
            b2nd_copy_buffer2(
                ndim,
                itemsize as i32,
                src,
                src_pad_shape,
                src_start,
                src_stop,
                dst,
                dst_pad_shape,
                dst_start,
            )
        }
    })
}

/// Copy the box `src_start..src_stop` of `src` (a C buffer shaped
/// `src_pad_shape`) into `dst` (shaped `dst_pad_shape`) at `dst_start`.
///
/// # Safety
/// The shape and position arrays have `ndim` values; `src` and `dst` hold
/// every item the box reaches in them.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn b2nd_copy_buffer2(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    ffi!({
        if ndim < 0 || ndim as usize > B2ND_MAX_DIM || itemsize <= 0 {
            return err(ErrorKind::InvalidParam);
        }
        if src.is_null() || dst.is_null() {
            return err(ErrorKind::NullPointer);
        }
        let n = ndim as usize;
        let is = itemsize as usize;
        // SAFETY: `ndim` values each per the contract.
        let r = unsafe {
            (
                slice(src_pad_shape, n),
                slice(src_start, n),
                slice(src_stop, n),
                slice(dst_pad_shape, n),
                slice(dst_start, n),
            )
        };
        let (Ok(sp), Ok(ss), Ok(se), Ok(dp), Ok(ds)) = r else {
            return err(ErrorKind::NullPointer);
        };
        let len: Vec<i64> = ss.iter().zip(se).map(|(a, b)| b - a).collect();
        let (Some(sl), Some(dl)) = (reach(sp, ss, &len, is), reach(dp, ds, &len, is)) else {
            return err(ErrorKind::InvalidParam);
        };
        if n > 0 && sl == 0 {
            return 0;
        }
        let (sl, dl) = if n == 0 { (is, is) } else { (sl, dl) };
        // SAFETY: the buffers hold every byte the box reaches, per the contract.
        let (s, d) = match unsafe { (bytes(src, sl), bytes_mut(dst, dl)) } {
            (Ok(s), Ok(d)) => (s, d),
            (Err(e), _) | (_, Err(e)) => return err(e),
        };
        code(copy_buffer2(is, s, sp, ss, se, d, dp, ds))
    })
}
