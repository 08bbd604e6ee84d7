//! What a `blosc2_schunk*` points to: the [`Handle`] that owns a core
//! super-chunk and the public struct C reads (refreshed from the core
//! after every call, and read back where C code writes it), the contexts
//! its chunks go through, and what a context reaches through its
//! `schunk` pointer (the lazy chunks it completes).
//!
//! A `blosc2_schunk*` handed to C is the address of the first field of a
//! heap-allocated [`Handle`], so the pointer leads back to its owner. The
//! public struct is refreshed from the safe core after every call, because
//! C code (and upstream's `static inline blosc2_meta_get`) reads its fields.
//!
//! Separate from `schunk` (the C functions on super-chunks) because the
//! b2nd, context, reading and VL-block code use handles too: the context
//! functions reach through a context's `schunk` pointer without depending
//! on `schunk`, and `schunk` makes contexts without depending on them.
//!
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

use crate::objects::context::{new_cctx, new_dctx, Context, Kind};
use crate::types::{
    blosc2_cparams, blosc2_destroy_cb, blosc2_dparams, blosc2_frame, blosc2_io, blosc2_metalayer,
    blosc2_schunk, blosc2_storage,
};
use blosc2_core::chunk::{Compressor, Decompressor};
use blosc2_core::error::ErrorKind;
use blosc2_core::schunk::{ChunkContexts, HeldChunk, SuperChunk};
use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::sync::{Condvar, Mutex};
use std::thread::ThreadId;

/// A metalayer as C sees it, with the memory its pointers point into.
pub(crate) struct CMeta {
    pub(crate) name: CString,
    /// Owned here because `raw.content` points into it.
    _content: Vec<u8>,
    raw: Box<blosc2_metalayer>,
}

/// The fields of the public struct that C code may write and upstream
/// reads back (see [`Handle::pull`]).
struct CFields {
    chunksize: i32,
    compcode: u8,
    compcode_meta: u8,
    clevel: u8,
    splitmode: u8,
    typesize: i32,
    blocksize: i32,
    use_dict: u8,
    filters: [u8; 6],
    filters_meta: [u8; 6],
}

/// What a `blosc2_schunk*` really points to.
#[repr(C)]
pub(crate) struct Handle {
    /// Must stay first: C's pointer is this field's address. C writes its
    /// fields whenever it likes (`current_nchunk`, `cctx`, `dctx`), also
    /// from callbacks running while the library holds the handle.
    c: UnsafeCell<blosc2_schunk>,
    pub(crate) core: SuperChunk,
    storage: Box<blosc2_storage>,
    pub(crate) cparams: Box<blosc2_cparams>,
    pub(crate) dparams: Box<blosc2_dparams>,
    io: Box<blosc2_io>,
    urlpath: Option<CString>,
    metas: Vec<CMeta>,
    pub(crate) vlmetas: Vec<CMeta>,
    /// The caller's frame buffer adopted by `from_buffer(copy=false)`: it is
    /// freed with the super-chunk unless `avoid_cframe_free` says otherwise.
    pub(crate) cframe: *mut u8,
    pub(crate) avoid_cframe_free: bool,
    /// `c.data`: one pointer per chunk of a super-chunk without a frame,
    /// as upstream keeps them (C code reads `schunk->data[nchunk]`).
    data: Vec<*mut u8>,
    /// The chunks that stand for special values in `data`, one per kind and
    /// size (they are headers only and never written through).
    specials: Vec<(blosc2_core::chunk::Special, i32, Box<[u8]>)>,
    /// Orders the steps of reads that check the frame on disk (see
    /// `reading`), and the reads themselves under locking.
    pub(crate) gate: crate::objects::schunk::Gate,
    /// Reads of this handle under way.
    pub(crate) readers: std::sync::atomic::AtomicUsize,
    /// The backend's `destroy` (its registry entry's, found when the
    /// handle was made: ids are never re-registered with other functions),
    /// taken when it runs (see [`Handle::destroy_io`]).
    io_destroy: blosc2_destroy_cb,
}

fn cmeta(m: &blosc2_core::metalayers::Metalayer) -> CMeta {
    let name = CString::new(m.name.replace('\0', "")).unwrap_or_default();
    let mut content = m.content.clone();
    // A content is a msgpack bin32 with an int32 length, so it always
    // fits; were it longer, C would see a prefix of it, never more.
    let content_len = i32::try_from(content.len()).unwrap_or(i32::MAX);
    let raw = Box::new(blosc2_metalayer {
        name: name.as_ptr() as *mut c_char,
        content: content.as_mut_ptr(),
        content_len,
    });
    CMeta {
        name,
        _content: content,
        raw,
    }
}

impl Handle {
    pub(crate) fn new(
        core: SuperChunk,
        cp: blosc2_cparams,
        dp: blosc2_dparams,
        io: blosc2_io,
        io_destroy: blosc2_destroy_cb,
    ) -> Box<Handle> {
        // SAFETY: blosc2_schunk is plain C data (integers and raw pointers)
        // for which all-zero bytes are a valid value, as upstream's calloc.
        let c = UnsafeCell::new(unsafe { std::mem::zeroed::<blosc2_schunk>() });
        let urlpath = core
            .urlpath()
            .and_then(|p| CString::new(p.to_string_lossy().into_owned()).ok());
        let mut h = Box::new(Handle {
            c,
            core,
            storage: Box::new(blosc2_storage::default()),
            cparams: Box::new(cp),
            dparams: Box::new(dp),
            io: Box::new(io),
            urlpath,
            metas: Vec::new(),
            vlmetas: Vec::new(),
            cframe: ptr::null_mut(),
            avoid_cframe_free: false,
            io_destroy,
            data: Vec::new(),
            specials: Vec::new(),
            gate: Default::default(),
            readers: Default::default(),
        });
        // the whole handle's address, as C will have it
        let me = (&mut *h as *mut Handle).cast::<blosc2_schunk>();
        // As upstream, the super-chunk's contexts know their super-chunk:
        // lazy chunks decode through dctx, plugins see it as
        // `cparams->schunk`, and prefilters and postfilters get its
        // `current_nchunk`.
        let mut cctx = new_cctx(*h.cparams);
        if let Some(cx) = cctx.as_mut() {
            cx.cparams.schunk = me.cast();
        }
        let mut dctx = new_dctx(*h.dparams);
        dctx.dparams.schunk = me.cast();
        let c = h.c.get_mut();
        c.cctx = cctx.map_or(ptr::null_mut(), |b| Box::into_raw(b).cast());
        c.dctx = Box::into_raw(dctx).cast();
        // the core compresses and decompresses through them (whichever
        // contexts C has put there by then)
        h.core.owner = me as usize;
        h.core.contexts = Some(Arc::new(HandleContexts(me as usize)));
        h.sync_metas();
        h.sync();
        h
    }

    /// Rebuild the C views of the metalayers.
    pub(crate) fn sync_metas(&mut self) {
        self.metas = self.core.metalayers.iter().map(cmeta).collect();
        self.vlmetas = self.core.vlmetalayers.iter().map(cmeta).collect();
        let c = self.c.get_mut();
        // The counts are those of the slots filled, so C never reads a NULL
        // slot below them: at most 16 and 8 * 1024 (the core holds no more),
        // which the u16 and i16 fields hold.
        c.metalayers = [ptr::null_mut(); crate::consts::BLOSC2_MAX_METALAYERS];
        let mut n = 0u16;
        for (slot, m) in c.metalayers.iter_mut().zip(self.metas.iter_mut()) {
            *slot = &mut *m.raw;
            n += 1;
        }
        c.nmetalayers = n;
        for p in c.vlmetalayers.iter_mut() {
            *p = ptr::null_mut();
        }
        let mut n = 0i16;
        for (slot, m) in c.vlmetalayers.iter_mut().zip(self.vlmetas.iter_mut()) {
            *slot = &mut *m.raw;
            n += 1;
        }
        c.nvlmetalayers = n;
    }

    /// Refresh the public struct from the core.
    pub(crate) fn sync(&mut self) {
        let cp = self.core.cparams().clone();
        let c = self.c.get_mut();
        c.version = 0;
        c.compcode = cp.compcode;
        c.compcode_meta = cp.compcode_meta;
        c.clevel = cp.clevel;
        c.splitmode = cp.splitmode as u8;
        c.typesize = cp.typesize;
        c.blocksize = self.core.blocksize;
        c.chunksize = self.core.chunksize();
        c.flags2 = self.core.flags2();
        c.use_dict = u8::from(cp.use_dict);
        c.filters = cp.filters;
        c.filters_meta = cp.filters_meta;
        c.nchunks = self.core.nchunks();
        c.nbytes = self.core.nbytes();
        c.cbytes = self.core.cbytes();
        self.sync_data();
        let c = self.c.get_mut();
        // As upstream, the storage's parameters name their super-chunk, so
        // contexts made from them (blosc2_create_dctx(*sc->storage->dparams))
        // decode its lazy chunks and give plugins its metalayers.
        let me: *mut blosc2_schunk = &mut *c;
        self.cparams.schunk = me.cast();
        self.dparams.schunk = me.cast();
        *self.storage = blosc2_storage {
            contiguous: matches!(
                self.core.kind(),
                blosc2_core::schunk::Kind::MemFrame | blosc2_core::schunk::Kind::File
            ),
            urlpath: self
                .urlpath
                .as_ref()
                .map_or(ptr::null_mut(), |u| u.as_ptr() as *mut c_char),
            cparams: &mut *self.cparams,
            dparams: &mut *self.dparams,
            io: &mut *self.io,
        };
        c.storage = &mut *self.storage;
        // Opaque to C; only its NULL-ness tells "backed by a frame".
        c.frame = if self.core.is_frame() {
            (c as *mut blosc2_schunk).cast::<blosc2_frame>()
        } else {
            ptr::null_mut()
        };
        c.change_tick = c.change_tick.wrapping_add(1);
    }

    /// Take what C code wrote into the public struct where upstream reads
    /// it back: python-blosc2 sets `chunksize` after creating a super-chunk.
    pub(crate) fn pull(&mut self) {
        let c = self.c.get_mut();
        let c = CFields {
            chunksize: c.chunksize,
            compcode: c.compcode,
            compcode_meta: c.compcode_meta,
            clevel: c.clevel,
            splitmode: c.splitmode,
            typesize: c.typesize,
            blocksize: c.blocksize,
            use_dict: c.use_dict,
            filters: c.filters,
            filters_meta: c.filters_meta,
        };
        if c.chunksize != self.core.chunksize() {
            self.core.set_chunksize(c.chunksize);
        }
        // python-blosc2's update_cparams writes these after replacing cctx
        let cp = self.core.cparams();
        let changed = c.compcode != cp.compcode
            || c.compcode_meta != cp.compcode_meta
            || c.clevel != cp.clevel
            || c.splitmode != cp.splitmode as u8
            || c.typesize != cp.typesize
            || c.use_dict != u8::from(cp.use_dict)
            || c.filters != cp.filters
            || c.filters_meta != cp.filters_meta;
        if changed && c.typesize > 0 {
            let new = blosc2_core::chunk::CParams {
                compcode: c.compcode,
                compcode_meta: c.compcode_meta,
                clevel: c.clevel,
                splitmode: blosc2_core::chunk::SplitMode::from_i32(i32::from(c.splitmode)),
                typesize: c.typesize,
                use_dict: c.use_dict != 0,
                filters: c.filters,
                filters_meta: c.filters_meta,
                blocksize: c.blocksize,
                ..cp.clone()
            };
            self.core.set_cparams(new);
        }
        if c.blocksize != self.core.blocksize && c.blocksize >= 0 {
            self.core.blocksize = c.blocksize;
        }
    }

    /// Rebuild `c.data` from the chunks held in memory (NULL for frames,
    /// as upstream).
    fn sync_data(&mut self) {
        self.data.clear();
        if let Some(chunks) = self.core.held_chunks() {
            self.data.reserve(chunks.len());
            for ch in chunks {
                let p = match ch {
                    HeldChunk::Data(d) => d.as_ptr() as *mut u8,
                    HeldChunk::Special { kind, nbytes } => {
                        let at = self
                            .specials
                            .iter()
                            .position(|(k, n, _)| *k == kind && *n == nbytes);
                        let at = match at {
                            Some(i) => i,
                            None => match self.core.special_bytes(kind, nbytes) {
                                Ok(b) => {
                                    self.specials.push((kind, nbytes, b.into_boxed_slice()));
                                    self.specials.len() - 1
                                }
                                Err(_) => {
                                    self.data.push(ptr::null_mut());
                                    continue;
                                }
                            },
                        };
                        self.specials[at].2.as_ptr() as *mut u8
                    }
                };
                self.data.push(p);
            }
        }
        let c = self.c.get_mut();
        if self.data.is_empty() {
            c.data = ptr::null_mut();
            c.data_len = 0;
        } else {
            c.data = self.data.as_mut_ptr();
            c.data_len = self.data.len() * std::mem::size_of::<*mut u8>();
        }
    }

    /// Begin a read: read back what other handles changed, and publish it
    /// (see `reading`).
    pub(crate) fn begin_read(&mut self) -> Result<(), ErrorKind> {
        if self.core.begin_read()? {
            self.sync_metas();
            self.sync();
        }
        Ok(())
    }

    /// `blosc2_schunk_refresh`: read back what other handles changed;
    /// whether anything did.
    pub(crate) fn refresh(&mut self) -> Result<bool, ErrorKind> {
        let changed = self.core.refresh()?;
        if changed {
            self.sync_metas();
            self.sync();
        }
        Ok(changed)
    }

    /// Refresh the public struct after the core was changed directly (the
    /// b2nd API runs its array code on `core`).
    pub(crate) fn resync(&mut self) {
        self.sync_metas();
        self.sync();
    }

    /// Release the backend's params (`io_cb->destroy`) once; its code, so
    /// `blosc2_schunk_free` can report a failure as upstream does.
    pub(crate) fn destroy_io(&mut self) -> c_int {
        match self.io_destroy.take() {
            // SAFETY: a registered backend's destroy, given the params the
            // user handed over with that backend, once.
            Some(d) => unsafe { d(self.io.params) },
            None => 0,
        }
    }

    /// Whether the compression context could be made (a tuner's init may
    /// refuse it).
    pub(crate) fn has_cctx(&self) -> bool {
        // SAFETY: reads one pointer field of the handle's own C struct,
        // which nothing writes while `&self` is borrowed here.
        !unsafe { ptr::addr_of!((*self.c.get()).cctx).read() }.is_null()
    }

    pub(crate) fn into_c(self: Box<Handle>) -> *mut blosc2_schunk {
        Box::into_raw(self).cast()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        let c = self.c.get_mut();
        for ctx in [c.cctx, c.dctx] {
            if !ctx.is_null() {
                // SAFETY: both came from Box::into_raw in Handle::new and are
                // freed only here.
                drop(unsafe { Box::from_raw(ctx.cast::<Context>()) });
            }
        }
        // the backend's resources (a memory mapping) go with the super-chunk
        self.destroy_io();
        if !self.cframe.is_null() && !self.avoid_cframe_free {
            // SAFETY: the caller gave up this malloc()ed buffer to us in
            // `blosc2_schunk_from_buffer(copy=false)`, as upstream documents.
            unsafe { libc::free(self.cframe.cast()) };
        }
    }
}

/// A super-chunk's data chunks go through its public struct's `cctx` and
/// `dctx`, read at each use because C may replace them (python-blosc2 puts
/// contexts carrying its prefilters and postfilters there).
struct HandleContexts(usize);

impl HandleContexts {
    fn context(&self, nchunk: i64, compress: bool) -> Option<&Context> {
        let sc = self.0 as *mut blosc2_schunk;
        // SAFETY: the Handle at `sc` owns the core that calls this, so it is
        // live; its public struct is an UnsafeCell C may write meanwhile.
        unsafe {
            set_current_nchunk(sc, nchunk);
            let cx = if compress {
                ptr::addr_of!((*sc).cctx).read()
            } else {
                ptr::addr_of!((*sc).dctx).read()
            };
            // a context stays alive while it is the super-chunk's
            cx.cast::<Context>().as_ref()
        }
    }
}

impl ChunkContexts for HandleContexts {
    fn compressor(
        &self,
        nchunk: i64,
        f: &mut dyn FnMut(&mut Compressor) -> Result<usize, ErrorKind>,
    ) -> Option<Result<usize, ErrorKind>> {
        let cx = self.context(nchunk, true)?;
        Some(cx.with_kind(|k| match k {
            Kind::Compress(c) => f(c),
            Kind::Decompress(_) => Err(ErrorKind::InvalidParam),
        }))
    }

    fn decompressor(
        &self,
        nchunk: i64,
        f: &mut dyn FnMut(&mut Decompressor) -> Result<usize, ErrorKind>,
    ) -> Option<Result<usize, ErrorKind>> {
        let cx = self.context(nchunk, false)?;
        Some(cx.with_kind(|k| match k {
            Kind::Decompress(d) => f(d),
            Kind::Compress(_) => Err(ErrorKind::InvalidParam),
        }))
    }

    fn chunk_threads(&self, compress: bool) -> usize {
        let sc = self.0 as *mut blosc2_schunk;
        // SAFETY: as in `context`; only the pointer is read here.
        let cx = unsafe {
            if compress {
                ptr::addr_of!((*sc).cctx).read()
            } else {
                ptr::addr_of!((*sc).dctx).read()
            }
        };
        // SAFETY: a context stays alive while it is the super-chunk's.
        let Some(c) = (unsafe { cx.cast::<Context>().as_ref() }) else {
            return 1;
        };
        // a prefilter or postfilter is told the chunk it works on through
        // the super-chunk (`current_nchunk`): one chunk at a time then
        if compress && c.cparams.prefilter.is_none() {
            c.cparams.nthreads.max(1) as usize
        } else if !compress && c.dparams.postfilter.is_none() {
            c.dparams.nthreads.max(1) as usize
        } else {
            1
        }
    }
}

/// Record which chunk the super-chunk works on, as upstream does before
/// it compresses or decompresses one: prefilters and postfilters get it as
/// `nchunk`.
///
/// # Safety
/// `sc` is a live super-chunk of this library.
pub(crate) unsafe fn set_current_nchunk(sc: *mut blosc2_schunk, nchunk: i64) {
    // SAFETY: `sc` is a live Handle per the contract, so `current_nchunk` is
    // an aligned i64 in its UnsafeCell; stored atomically as threads sharing
    // the super-chunk may race on it.
    unsafe { AtomicI64::from_ptr(ptr::addr_of_mut!((*sc).current_nchunk)) }
        .store(nchunk, Ordering::Relaxed);
}

/// The handle behind a C pointer.
///
/// # Safety
/// `s` is NULL or a pointer returned by this library's schunk constructors
/// and not yet freed, used by one thread at a time and through no other
/// reference while the one returned lives.
pub(crate) unsafe fn handle<'a>(s: *mut blosc2_schunk) -> Option<&'a mut Handle> {
    // SAFETY: `s` is NULL or the address of a live Handle (of its first
    // field), not reached another way for 'a, per the contract.
    unsafe { s.cast::<Handle>().as_mut() }
}

/// Shared access for the calls that only read, so several threads may read
/// one super-chunk at once.
///
/// # Safety
/// `s` is NULL or a pointer returned by this library's schunk constructors
/// and not yet freed, which nothing mutates while the reference lives.
pub(crate) unsafe fn handle_ref<'a>(s: *mut blosc2_schunk) -> Option<&'a Handle> {
    // SAFETY: `s` is NULL or the address of a live Handle (its first field)
    // that nothing mutates for 'a, per the contract.
    unsafe { s.cast::<Handle>().as_ref() }
}

/// A lazy chunk handed to a decoding context, completed from the frame of
/// the context's super-chunk: None when `src` is not a lazy chunk. `items`
/// is the getitem request (start, count, whether in bytes rather than
/// items); only the blocks it touches are read.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk that nothing mutates during the
/// call; `src` is NULL or has `srcsize` readable bytes.
pub(crate) unsafe fn resolve_lazy(
    schunk: *mut c_void,
    src: *const c_void,
    srcsize: i32,
    items: Option<(i32, i32, bool)>,
) -> Result<Option<Vec<u8>>, ErrorKind> {
    // a negative size is no chunk at all
    let Ok(n) = usize::try_from(srcsize) else {
        return Ok(None);
    };
    if src.is_null() || n < blosc2_core::chunk::header::EXTENDED_HEADER_LENGTH {
        return Ok(None);
    }
    // SAFETY: `src` (non-NULL) has `srcsize` (>= 32) readable bytes, per
    // the contract.
    let s = unsafe { crate::ptr::bytes(src, n) }?;
    // Nearly every chunk is not lazy: two flag bytes decide it without a
    // full header parse on every decompression.
    if !blosc2_core::chunk::header::may_be_lazy(s) {
        return Ok(None);
    }
    let Ok(h) = blosc2_core::chunk::ChunkHeader::read(s) else {
        return Ok(None);
    };
    if !h.is_extended() || !h.is_lazy() || h.special_bits() != 0 {
        return Ok(None);
    }
    // SAFETY: `schunk` is NULL or a live super-chunk nothing mutates during
    // the call, per the contract.
    let Some(owner) = (unsafe { handle_ref(schunk.cast()) }) else {
        // the reference's answer: a lazy chunk needs its super-chunk
        return Err(ErrorKind::InvalidParam);
    };
    let range = items.map(|(start, count, bytes)| {
        let ts = if bytes { 1 } else { i64::from(h.typesize) };
        // (i32 + i32) * 255 cannot overflow i64; an offset usize cannot
        // hold is past any chunk, so usize::MAX stands for it
        let at = |items: i64| usize::try_from((items * ts).max(0)).unwrap_or(usize::MAX);
        let start = i64::from(start);
        (at(start), at(start + i64::from(count.max(0))))
    });
    owner.core.complete_lazy(s, range).map(Some)
}

// ----- reads that see the frame as it is now -----
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

/// Free a handle and what it owns (`blosc2_schunk_free`, and an array's
/// own schunk): 0, or an error code when the I/O backend could not release
/// its resources (everything is freed either way).
///
/// # Safety
/// `schunk` is NULL or a live handle of this library (from
/// `Handle::into_c`), not used afterwards.
pub(crate) unsafe fn free_handle(schunk: *mut blosc2_schunk) -> c_int {
    if schunk.is_null() {
        return 0;
    }
    // SAFETY: the pointer came from Handle::into_c and is given back once.
    let mut h = unsafe { Box::from_raw(schunk.cast::<Handle>()) };
    // everything is freed either way; a backend that could not release
    // its resources is reported (upstream returns 1 there, we an error
    // code like every other failure)
    let rc = h.destroy_io();
    drop(h);
    if rc < 0 {
        blosc2_core::trace_error!("Could not free the I/O resources.");
        ErrorKind::Failure.code()
    } else {
        0
    }
}
