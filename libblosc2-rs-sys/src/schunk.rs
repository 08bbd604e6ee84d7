//! The super-chunk API of blosc2.h (`blosc2_schunk_*`, metalayers,
//! vlmetalayers, storage defaults).
//!
//! What a `blosc2_schunk*` points to, the [`Handle`], is in `handle`.

use super::boundary::{err, ffi_int, guard};
use super::context_object::{core_cparams, effective_cparams};
use super::handle::{handle, handle_ref, set_current_nchunk, Handle};
use super::reading::reading;
use super::types::{blosc2_cparams, blosc2_dparams, blosc2_io, blosc2_schunk, blosc2_storage};
use blosc2_core::chunk::{DParams, Special};
use blosc2_core::error::Error;
use blosc2_core::schunk::{Storage, SuperChunk};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;
use std::ptr;

/// A NUL-terminated C string as a path.
///
/// # Safety
/// `p` is NULL or a valid C string.
unsafe fn c_path(p: *const c_char) -> Option<PathBuf> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL C string per the contract.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    // Upstream drops a leading "file:///" whole, so "file:///x.b2frame"
    // names x.b2frame in the working directory (its examples rely on
    // that), and accepts trailing slashes on directories.
    let s = s.strip_prefix("file:///").map_or(s.clone(), str::to_owned);
    let t = s.trim_end_matches('/');
    Some(PathBuf::from(if t.is_empty() { s.as_str() } else { t }))
}

/// # Safety
/// `p` is NULL or a valid C string.
unsafe fn c_name<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL C string per the contract.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// Whether frames opened or created with `io` lock their file: asked for
/// in the filesystem backend's parameters, or for every such frame by a
/// non-empty `BLOSC_LOCKING` other than "0", as the reference does.
///
/// # Safety
/// `io.params` is NULL or, for the filesystem backend, a valid
/// `blosc2_stdio_params`.
unsafe fn locking_requested(io: &blosc2_io) -> bool {
    if io.id as c_int != super::consts::BLOSC2_IO_FILESYSTEM {
        return false;
    }
    // SAFETY: NULL or valid per the contract.
    let asked = unsafe {
        io.params
            .cast::<super::types::blosc2_stdio_params>()
            .as_ref()
    }
    .is_some_and(|p| p.locking);
    asked || std::env::var_os("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Resolve a `blosc2_io` to a backend.
fn backend(io: &blosc2_io) -> Result<std::sync::Arc<dyn blosc2_core::io::Backend>, Error> {
    super::io::backend_for(io)
}

fn finish(r: Result<Box<Handle>, Error>) -> *mut blosc2_schunk {
    match r {
        Ok(h) => h.into_c(),
        Err(e) => {
            err(e);
            ptr::null_mut()
        }
    }
}

/// Create a super-chunk (`storage` NULL = in-memory defaults).
///
/// # Safety
/// `storage` is NULL or a valid `blosc2_storage` whose pointers are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    guard("blosc2_schunk_new", ptr::null_mut(), || {
        // SAFETY: NULL or valid per the contract.
        let st = unsafe { storage.as_ref() }.copied().unwrap_or_default();
        // SAFETY: the storage's pointers are NULL or valid per the contract.
        let cp = unsafe { st.cparams.as_ref() }.copied().unwrap_or_default();
        // SAFETY: as above.
        let dp = unsafe { st.dparams.as_ref() }.copied().unwrap_or_default();
        // SAFETY: as above.
        let io = unsafe { st.io.as_ref() }.copied().unwrap_or_default();
        // SAFETY: as above.
        let urlpath = unsafe { c_path(st.urlpath) };
        finish((|| {
            let eff = effective_cparams(cp).ok_or(Error::InvalidParam)?;
            let mut core = SuperChunk::new(Storage {
                contiguous: st.contiguous,
                urlpath,
                cparams: core_cparams(&eff),
                dparams: DParams {
                    nthreads: dp.nthreads,
                    typesize: dp.typesize,
                },
                io: backend(&io)?,
            })?;
            // SAFETY: the storage's io is valid per the contract.
            if unsafe { locking_requested(&io) } {
                core.enable_locking();
            }
            Ok(Handle::new(core, cp, dp, io))
        })())
    })
}

/// Wrap a core super-chunk opened from a frame, with parameters derived
/// from it as upstream does: those of its header, but the library's
/// current thread count (`blosc2_set_nthreads`) rather
/// than the one the writer recorded.
fn adopt(core: SuperChunk, io: blosc2_io) -> Box<Handle> {
    let nthreads = super::library::blosc2_get_nthreads();
    let p = core.cparams();
    let cp = blosc2_cparams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: p.clevel,
        use_dict: c_int::from(p.use_dict),
        typesize: p.typesize,
        nthreads,
        blocksize: p.blocksize,
        splitmode: p.splitmode as i32,
        filters: p.filters,
        filters_meta: p.filters_meta,
        ..blosc2_cparams::default()
    };
    let dp = blosc2_dparams {
        nthreads,
        ..blosc2_dparams::default()
    };
    Handle::new(core, cp, dp, io)
}

/// Open a super-chunk from a contiguous frame in memory.
///
/// # Safety
/// `cframe` has `len` readable bytes; with `copy` false it must stay valid
/// while the super-chunk lives, and it is freed with the super-chunk (so it
/// must come from malloc) only after `blosc2_schunk_avoid_cframe_free(sc,
/// false)`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_from_buffer(
    cframe: *mut u8,
    len: i64,
    copy: bool,
) -> *mut blosc2_schunk {
    guard("blosc2_schunk_from_buffer", ptr::null_mut(), || {
        if cframe.is_null() || len <= 0 {
            return ptr::null_mut();
        }
        // SAFETY: `len` readable bytes at `cframe` per the contract.
        let buf = unsafe { std::slice::from_raw_parts(cframe, len as usize) };
        finish(SuperChunk::from_buffer(buf, copy).map(|core| {
            let mut h = adopt(core, blosc2_io::default());
            if !copy {
                // Like the reference, the caller keeps ownership of the
                // buffer unless it hands it over with
                // blosc2_schunk_avoid_cframe_free(sc, false).
                h.cframe = cframe;
                h.avoid_cframe_free = true;
            }
            h
        }))
    })
}

/// Whether freeing the super-chunk frees the adopted frame buffer.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(
    schunk: *mut blosc2_schunk,
    avoid_cframe_free: bool,
) {
    guard("blosc2_schunk_avoid_cframe_free", (), || {
        // SAFETY: per the contract.
        if let Some(h) = unsafe { handle(schunk) } {
            h.avoid_cframe_free = avoid_cframe_free;
        }
    })
}

/// # Safety
/// `urlpath` is NULL or a C string; `udio` is NULL or valid.
unsafe fn open_with(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: per the contract.
    let Some(path) = (unsafe { c_path(urlpath) }) else {
        err(Error::NullPointer);
        return ptr::null_mut();
    };
    // SAFETY: NULL or valid per the contract.
    let io = unsafe { udio.as_ref() }.copied().unwrap_or_default();
    if offset < 0 {
        return ptr::null_mut();
    }
    let r = (|| {
        // SAFETY: `udio` is valid per the contract.
        let core = if unsafe { locking_requested(&io) } {
            SuperChunk::open_locking(&path, offset as u64, backend(&io)?)?
        } else {
            SuperChunk::open(&path, offset as u64, backend(&io)?)?
        };
        Ok(adopt(core, io))
    })();
    if r.is_err() {
        super::io::destroy_params(&io);
    }
    finish(r)
}

/// Open a frame file or sparse frame directory.
///
/// # Safety
/// `urlpath` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open(urlpath: *const c_char) -> *mut blosc2_schunk {
    // SAFETY: forwarded contract.
    guard("blosc2_schunk_open", ptr::null_mut(), || unsafe {
        open_with(urlpath, 0, ptr::null())
    })
}

/// Open a frame that starts `offset` bytes into a file.
///
/// # Safety
/// `urlpath` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset(
    urlpath: *const c_char,
    offset: i64,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded contract.
    guard("blosc2_schunk_open_offset", ptr::null_mut(), || unsafe {
        open_with(urlpath, offset, ptr::null())
    })
}

/// Open with an I/O backend.
///
/// # Safety
/// `urlpath` is NULL or a C string; `udio` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_udio(
    urlpath: *const c_char,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded contract.
    guard("blosc2_schunk_open_udio", ptr::null_mut(), || unsafe {
        open_with(urlpath, 0, udio)
    })
}

/// Open at an offset with an I/O backend.
///
/// # Safety
/// `urlpath` is NULL or a C string; `udio` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset_udio(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded contract.
    guard(
        "blosc2_schunk_open_offset_udio",
        ptr::null_mut(),
        || unsafe { open_with(urlpath, offset, udio) },
    )
}

/// Copy a super-chunk into new storage.
///
/// # Safety
/// `schunk` is a live super-chunk; `storage` as in `blosc2_schunk_new`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    guard("blosc2_schunk_copy", ptr::null_mut(), || {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return ptr::null_mut();
        };
        // SAFETY: NULL or valid per the contract.
        let st = unsafe { storage.as_ref() }.copied().unwrap_or_default();
        // SAFETY: as above.
        let dp = unsafe { st.dparams.as_ref() }
            .copied()
            .unwrap_or(*h.dparams);
        // SAFETY: as above.
        let given = unsafe { st.cparams.as_ref() }.copied();
        // SAFETY: as above.
        let io = unsafe { st.io.as_ref() }.copied().unwrap_or_default();
        // SAFETY: as above.
        let urlpath = unsafe { c_path(st.urlpath) };
        finish((|| {
            // Without cparams the copy compresses as the source does (and
            // keeps its chunks); with them, as they say, which makes the
            // core compress the chunks again when they differ.
            let (c, cp) = match given {
                Some(g) => {
                    let eff = effective_cparams(g).ok_or(Error::InvalidParam)?;
                    (g, core_cparams(&eff))
                }
                None => (*h.cparams, h.core.cparams().clone()),
            };
            let core = h.core.copy_to(Storage {
                contiguous: st.contiguous,
                urlpath,
                cparams: cp,
                dparams: DParams {
                    nthreads: dp.nthreads,
                    typesize: dp.typesize,
                },
                io: backend(&io)?,
            })?;
            Ok(Handle::new(core, c, dp, io))
        })())
    })
}

/// Free a super-chunk (NULL is ignored).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    ffi_int!("blosc2_schunk_free", {
        if !schunk.is_null() {
            // SAFETY: the pointer came from Handle::into_c and is given back once.
            drop(unsafe { Box::from_raw(schunk.cast::<Handle>()) });
        }
        0
    })
}

/// Take what C wrote into the public struct (see [`Handle::pull`]) before
/// an operation that depends on it.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk.
unsafe fn pull(schunk: *mut blosc2_schunk) {
    // SAFETY: per the contract.
    if let Some(h) = unsafe { handle(schunk) } {
        h.pull();
    }
}

/// Run `f` on the core and sync the public struct afterwards.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk.
unsafe fn with<T: Into<i64>>(
    schunk: *mut blosc2_schunk,
    f: impl FnOnce(&mut SuperChunk) -> Result<T, Error>,
) -> i64 {
    if schunk.is_null() {
        return err(Error::NullPointer) as i64;
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
    match r {
        Ok(v) => v.into(),
        Err(e) => err(e) as i64,
    }
}

/// A chunk given by C: its header's cbytes bytes.
///
/// # Safety
/// `chunk` is NULL or a valid chunk.
unsafe fn c_chunk<'a>(chunk: *const u8) -> Result<&'a [u8], Error> {
    if chunk.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: a valid chunk starts with its 32-byte header... at least the 16
    // leading bytes tell its length.
    unsafe { super::ptr::chunk_slice(chunk.cast(), i32::MAX as usize) }
}

/// Take ownership of a chunk handed over with `copy = false` (upstream
/// keeps it; we store a copy, so the caller's malloc()ed buffer is freed).
///
/// # Safety
/// `chunk` came from malloc and is not used by the caller afterwards.
unsafe fn consume(chunk: *mut u8, copy: bool) {
    if !copy && !chunk.is_null() {
        // SAFETY: per the contract.
        unsafe { libc::free(chunk.cast()) };
    }
}

/// Shared body of append/insert/update: hand the chunk to `op`, and on
/// success take ownership of it when `copy` is false, as upstream does.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
unsafe fn store_chunk<T: Into<i64>>(
    name: &str,
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
    op: impl FnOnce(&mut SuperChunk, &[u8]) -> Result<T, Error>,
) -> i64 {
    guard(name, Error::Failure.code() as i64, || {
        // SAFETY: forwarded contract.
        let r = unsafe { with(schunk, |core| op(core, c_chunk(chunk)?)) };
        if r >= 0 {
            // SAFETY: forwarded contract.
            unsafe { consume(chunk, copy) };
        }
        r
    })
}

/// Append a compressed chunk; returns the number of chunks.
///
/// # Safety
/// `schunk` is live; `chunk` is a valid chunk (malloc()ed if `copy` is false).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe {
        store_chunk(
            "blosc2_schunk_append_chunk",
            schunk,
            chunk,
            copy,
            |core, c| core.append_chunk(c),
        )
    }
}

/// Insert a compressed chunk at `nchunk`.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe {
        store_chunk(
            "blosc2_schunk_insert_chunk",
            schunk,
            chunk,
            copy,
            |core, c| core.insert_chunk(nchunk, c),
        )
    }
}

/// Replace chunk `nchunk`.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe {
        store_chunk(
            "blosc2_schunk_update_chunk",
            schunk,
            chunk,
            copy,
            |core, c| core.update_chunk(nchunk, c),
        )
    }
}

/// Delete chunk `nchunk`.
///
/// # Safety
/// `schunk` is live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> i64 {
    guard(
        "blosc2_schunk_delete_chunk",
        Error::Failure.code() as i64,
        || {
            // SAFETY: forwarded contract.
            unsafe { with(schunk, |core| core.delete_chunk(nchunk)) }
        },
    )
}

/// Compress `nbytes` of `src` and append them.
///
/// # Safety
/// `schunk` is live; `src` has `nbytes` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    guard(
        "blosc2_schunk_append_buffer",
        Error::Failure.code() as i64,
        || {
            if nbytes < 0 || (src.is_null() && nbytes > 0) {
                return err(Error::InvalidParam) as i64;
            }
            // SAFETY: `nbytes` readable bytes per the contract.
            let s = unsafe { super::ptr::in_slice(src, nbytes as usize) };
            // As upstream: compress through the super-chunk's context, then
            // append. Only the first step runs prefilters and plugins, and
            // it shares the super-chunk with them.
            // SAFETY: per the contract.
            unsafe { pull(schunk) };
            // SAFETY: per the contract.
            let Some(h) = (unsafe { handle_ref(schunk) }) else {
                return err(Error::NullPointer) as i64;
            };
            let chunk = match h.core.compress_chunk(h.core.nchunks(), s) {
                Ok(c) => c,
                Err(e) => return err(e) as i64,
            };
            // SAFETY: forwarded contract.
            unsafe { with(schunk, |core| core.append_chunk(&chunk)) }
        },
    )
}

/// Decompress chunk `nchunk` into `dest` (`nbytes` writable bytes).
///
/// # Safety
/// `schunk` is live; `dest` has `nbytes` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    ffi_int!("blosc2_schunk_decompress_chunk", {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return err(Error::NullPointer);
        };
        if dest.is_null() || nbytes < 0 {
            return err(Error::InvalidParam);
        }
        // SAFETY: `nbytes` writable bytes per the contract.
        let out = unsafe { super::ptr::out_slice(dest, nbytes as usize) };
        match h.core.decompress_chunk(nchunk, out) {
            Ok(n) => n as c_int,
            Err(e) => err(e),
        }
    })
}

/// # Safety
/// `schunk` is live; `chunk` and `needs_free` are writable.
unsafe fn get_chunk_impl(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
    lazy: bool,
) -> c_int {
    // SAFETY: per the contract.
    let Some(h) = (unsafe { reading(schunk) }).ok() else {
        return err(Error::NullPointer);
    };
    if chunk.is_null() || needs_free.is_null() {
        return err(Error::NullPointer);
    }
    // SAFETY: writable per the contract; `schunk` is live.
    unsafe {
        *chunk = ptr::null_mut();
        *needs_free = false;
        // as upstream, so that a context of this super-chunk decoding the
        // chunk next tells postfilters its number
        if (0..h.core.nchunks()).contains(&nchunk) {
            set_current_nchunk(schunk, nchunk);
        }
    }
    let c = match if lazy {
        h.core.lazy_chunk(nchunk)
    } else {
        h.core.chunk(nchunk)
    } {
        Ok(c) => c,
        Err(e) => return err(e),
    };
    // Always a malloc()ed copy: the caller frees it, and it stays valid
    // whatever happens to the super-chunk afterwards.
    // SAFETY: plain allocation of c.len() (> 0) bytes.
    let p = unsafe { libc::malloc(c.len().max(1)) }.cast::<u8>();
    if p.is_null() {
        return err(Error::MemoryAlloc);
    }
    // SAFETY: p has c.len() writable bytes, disjoint from `c`; the out
    // pointers are writable per the contract.
    unsafe {
        ptr::copy_nonoverlapping(c.as_ptr(), p, c.len());
        *chunk = p;
        *needs_free = true;
    }
    c.len() as c_int
}

/// The compressed chunk `nchunk` (a malloc()ed copy: `*needs_free` is true).
///
/// # Safety
/// `schunk` is live; `chunk` and `needs_free` are writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: forwarded contract.
    ffi_int!("blosc2_schunk_get_chunk", {
        unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, false) }
    })
}

/// Chunk `nchunk` as a lazy chunk when it is in a frame on disk (header,
/// block starts and a trailer locating the blocks, which decoding contexts
/// of this super-chunk read from the frame as needed), else the whole chunk.
/// Always a malloc()ed copy (`*needs_free` true).
///
/// # Safety
/// As `blosc2_schunk_get_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: forwarded contract.
    ffi_int!("blosc2_schunk_get_lazychunk", {
        unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, true) }
    })
}

/// Items `start..stop` into `buffer`.
///
/// # Safety
/// `schunk` is live; `buffer` has `(stop - start) * typesize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    ffi_int!("blosc2_schunk_get_slice_buffer", {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return err(Error::NullPointer);
        };
        let ts = h.core.typesize() as i64;
        let Some(len) = stop
            .checked_sub(start)
            .and_then(|n| n.checked_mul(ts))
            .filter(|&n| n >= 0)
        else {
            return err(Error::InvalidParam);
        };
        if buffer.is_null() && len > 0 {
            return err(Error::NullPointer);
        }
        // SAFETY: `len` writable bytes per the contract.
        let out = unsafe { super::ptr::out_slice(buffer, len as usize) };
        match h.core.get_slice(start, stop, out) {
            Ok(()) => 0,
            Err(e) => err(e),
        }
    })
}

/// Overwrite items `start..stop` from `buffer`.
///
/// # Safety
/// `schunk` is live; `buffer` has `(stop - start) * typesize` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    ffi_int!("blosc2_schunk_set_slice_buffer", {
        // SAFETY: per the contract.
        let ts = match unsafe { handle(schunk) } {
            Some(h) => h.core.typesize() as i64,
            None => return err(Error::NullPointer),
        };
        let Some(len) = stop
            .checked_sub(start)
            .and_then(|n| n.checked_mul(ts))
            .filter(|&n| n >= 0)
        else {
            return err(Error::InvalidParam);
        };
        if buffer.is_null() && len > 0 {
            return err(Error::NullPointer);
        }
        // SAFETY: `len` readable bytes per the contract.
        let src = unsafe { super::ptr::in_slice(buffer, len as usize) };
        // SAFETY: per the contract.
        unsafe { pull(schunk) };
        // With locking, the whole slice is one change: the frame lock is
        // held across the chunk updates, so a locked reader never sees half
        // of them (and the updates are made from the frame as it is now).
        // SAFETY: per the contract.
        if let Err(e) = unsafe { handle(schunk) }.map_or(Ok(()), |h| h.core.lock()) {
            return err(e);
        }
        // The new chunks are made with the super-chunk shared (plugins may
        // read it), then stored.
        // SAFETY: per the contract.
        let updates =
            match unsafe { handle_ref(schunk) }.map(|h| h.core.slice_updates(start, stop, src)) {
                Some(Ok(u)) => Ok(u),
                Some(Err(e)) => Err(e),
                None => Err(Error::NullPointer),
            };
        // SAFETY: forwarded contract.
        let r = match updates {
            Ok(updates) => unsafe {
                with(schunk, |core| {
                    // one pass over a frame file for the whole slice
                    core.begin_batch();
                    let r = updates
                        .iter()
                        .try_for_each(|(n, c)| core.update_chunk(*n, c).map(|_| ()));
                    core.end_batch();
                    r.map(|_| 0i64)
                })
            },
            Err(e) => err(e) as i64,
        };
        // SAFETY: per the contract.
        if let Some(h) = unsafe { handle(schunk) } {
            let _ = h.core.unlock();
        }
        r as c_int
    })
}

/// New chunk order: chunk `i` becomes the old `offsets_order[i]`.
///
/// # Safety
/// `schunk` is live; `offsets_order` has `nchunks` readable values.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(
    schunk: *mut blosc2_schunk,
    offsets_order: *mut i64,
) -> c_int {
    ffi_int!("blosc2_schunk_reorder_offsets", {
        if offsets_order.is_null() {
            return err(Error::NullPointer);
        }
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = core.nchunks() as usize;
                // SAFETY: `nchunks` readable values per the contract.
                let order = std::slice::from_raw_parts(offsets_order, n);
                core.reorder(order).map(|()| 0i64)
            })
        };
        r as c_int
    })
}

/// Fill an empty super-chunk with special values.
///
/// # Safety
/// `schunk` is live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    guard(
        "blosc2_schunk_fill_special",
        Error::Failure.code() as i64,
        || {
            let kind = match Special::from_bits(special_value.clamp(0, 7) as u8) {
                Some(k @ (Special::Zero | Special::Nan | Special::Uninit)) => k,
                _ => return err(Error::SchunkSpecial) as i64,
            };
            // SAFETY: forwarded contract.
            unsafe { with(schunk, |core| core.fill_special(nitems, kind, chunksize)) }
        },
    )
}

/// Serialize into a contiguous frame: a new malloc()ed buffer, or the
/// caller's own frame while a super-chunk made from it is unchanged.
///
/// # Safety
/// `schunk` is live; `cframe` and `needs_free` are writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_buffer(
    schunk: *mut blosc2_schunk,
    cframe: *mut *mut u8,
    needs_free: *mut bool,
) -> i64 {
    guard(
        "blosc2_schunk_to_buffer",
        Error::Failure.code() as i64,
        || {
            // SAFETY: per the contract.
            let Some(h) = (unsafe { reading(schunk) }).ok() else {
                return err(Error::NullPointer) as i64;
            };
            if cframe.is_null() || needs_free.is_null() {
                return err(Error::NullPointer) as i64;
            }
            // an unchanged frame adopted from the caller is handed back as
            // it is, as upstream hands out its in-memory frame
            if let (false, Some(n)) = (h.cframe.is_null(), h.core.pristine_len()) {
                // SAFETY: out pointers writable per contract.
                unsafe {
                    *cframe = h.cframe;
                    *needs_free = false;
                }
                return n;
            }
            let f = match h.core.to_frame() {
                Ok(f) => f,
                Err(e) => return err(e) as i64,
            };
            // SAFETY: plain allocation.
            let p = unsafe { libc::malloc(f.len()) }.cast::<u8>();
            if p.is_null() {
                return err(Error::MemoryAlloc) as i64;
            }
            // SAFETY: p has f.len() writable bytes; out pointers writable per contract.
            unsafe {
                ptr::copy_nonoverlapping(f.as_ptr(), p, f.len());
                *cframe = p;
                *needs_free = true;
            }
            f.len() as i64
        },
    )
}

/// Write as a contiguous frame file; returns its length.
///
/// # Safety
/// `schunk` is live; `urlpath` is a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    guard(
        "blosc2_schunk_to_file",
        Error::Failure.code() as i64,
        || {
            // SAFETY: per the contract.
            let Some(path) = (unsafe { c_path(urlpath) }) else {
                return err(Error::NullPointer) as i64;
            };
            // SAFETY: forwarded contract.
            unsafe { with(schunk, |core| core.to_file(&path)) }
        },
    )
}

/// Append as a contiguous frame to a file; returns where it starts.
///
/// # Safety
/// `schunk` is live; `urlpath` is a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    guard(
        "blosc2_schunk_append_file",
        Error::Failure.code() as i64,
        || {
            // SAFETY: per the contract.
            let Some(path) = (unsafe { c_path(urlpath) }) else {
                return err(Error::NullPointer) as i64;
            };
            // SAFETY: forwarded contract.
            unsafe { with(schunk, |core| core.append_file(&path)) }
        },
    )
}

/// Length of the frame behind the super-chunk (an estimate without one).
///
/// # Safety
/// `schunk` is live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    guard(
        "blosc2_schunk_frame_len",
        Error::Failure.code() as i64,
        || {
            // SAFETY: forwarded contract.
            unsafe { with(schunk, |core| core.frame_len()) }
        },
    )
}

/// The chunk offsets of the frame (malloc()ed, `nchunks` values), or NULL.
///
/// # Safety
/// `schunk` is live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    guard("blosc2_frame_get_offsets", ptr::null_mut(), || {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return ptr::null_mut();
        };
        let Ok(offs) = h.core.offsets() else {
            return ptr::null_mut();
        };
        // SAFETY: plain allocation.
        let p = unsafe { libc::malloc(offs.len().max(1) * 8) }.cast::<i64>();
        if !p.is_null() {
            // SAFETY: p has room for offs.len() values.
            unsafe { ptr::copy_nonoverlapping(offs.as_ptr(), p, offs.len()) };
        }
        p
    })
}

/// A malloc()ed copy of the super-chunk's cparams.
///
/// # Safety
/// `schunk` is live; `cparams` is writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    ffi_int!("blosc2_schunk_get_cparams", {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { handle_ref(schunk) }) else {
            return err(Error::NullPointer);
        };
        if cparams.is_null() {
            return err(Error::NullPointer);
        }
        let mut cp = *h.cparams;
        let core = h.core.cparams();
        cp.compcode = core.compcode;
        cp.compcode_meta = core.compcode_meta;
        cp.clevel = core.clevel;
        cp.typesize = core.typesize;
        cp.blocksize = h.core.blocksize;
        cp.splitmode = core.splitmode as i32;
        cp.use_dict = c_int::from(core.use_dict);
        cp.filters = core.filters;
        cp.filters_meta = core.filters_meta;
        cp.schunk = schunk.cast();
        // SAFETY: plain allocation, then a write of one value into it.
        unsafe {
            let p = libc::calloc(1, std::mem::size_of::<blosc2_cparams>()).cast::<blosc2_cparams>();
            if p.is_null() {
                return err(Error::MemoryAlloc);
            }
            p.write(cp);
            *cparams = p;
        }
        0
    })
}

/// A malloc()ed copy of the super-chunk's dparams.
///
/// # Safety
/// `schunk` is live; `dparams` is writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    ffi_int!("blosc2_schunk_get_dparams", {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { handle_ref(schunk) }) else {
            return err(Error::NullPointer);
        };
        if dparams.is_null() {
            return err(Error::NullPointer);
        }
        let mut dp = *h.dparams;
        dp.schunk = schunk.cast();
        // SAFETY: plain allocation, then a write of one value into it.
        unsafe {
            let p = libc::calloc(1, std::mem::size_of::<blosc2_dparams>()).cast::<blosc2_dparams>();
            if p.is_null() {
                return err(Error::MemoryAlloc);
            }
            p.write(dp);
            *dparams = p;
        }
        0
    })
}

/// Upstream's `BLOSC2_STORAGE_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_storage_defaults() -> blosc2_storage {
    blosc2_storage::default()
}

/// Upstream's `BLOSC2_IO_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_io_defaults() -> blosc2_io {
    blosc2_io::default()
}

// ----- metalayers -----

/// # Safety
/// `content` is NULL or has `len` readable bytes.
unsafe fn content<'a>(content: *const u8, len: i32) -> Result<&'a [u8], Error> {
    if len < 0 || (len > 0 && content.is_null()) {
        return Err(Error::InvalidParam);
    }
    // SAFETY: per the contract.
    Ok(unsafe { super::ptr::in_slice(content.cast(), len as usize) })
}

/// Add a fixed-size metalayer; returns its index.
///
/// # Safety
/// `schunk` is live; `name` a C string; `content` has `content_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
) -> c_int {
    ffi_int!("blosc2_meta_add", {
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_name(name).ok_or(Error::InvalidParam)?;
                core.meta_add(n, content(content_, content_len)?)
                    .map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// Overwrite a metalayer's content (never growing it).
///
/// # Safety
/// As `blosc2_meta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
) -> c_int {
    ffi_int!("blosc2_meta_update", {
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_name(name).ok_or(Error::InvalidParam)?;
                core.meta_update(n, content(content_, content_len)?)
                    .map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// Index of a vlmetalayer, or BLOSC2_ERROR_NOT_FOUND.
///
/// # Safety
/// `schunk` is live; `name` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    ffi_int!("blosc2_vlmeta_exists", {
        // SAFETY: per the contract.
        let (Some(h), Some(n)) = (unsafe { reading(schunk) }.ok(), unsafe { c_name(name) }) else {
            return Error::InvalidParam.code();
        };
        if n.len() > blosc2_core::metalayers::NAME_MAXLEN {
            return Error::InvalidParam.code();
        }
        match blosc2_core::metalayers::find(&h.core.vlmetalayers, n) {
            Some(i) => i as c_int,
            None => Error::NotFound.code(),
        }
    })
}

/// # Safety
/// `cparams` is NULL or valid.
unsafe fn vl_cparams(cparams: *mut blosc2_cparams) -> Option<blosc2_core::chunk::CParams> {
    // SAFETY: per the contract.
    unsafe { cparams.as_ref() }.map(|c| core_cparams(&effective_cparams(*c).unwrap_or(*c)))
}

/// Add a vlmetalayer, compressed with `cparams` (NULL = defaults).
///
/// # Safety
/// As `blosc2_meta_add`; `cparams` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi_int!("blosc2_vlmeta_add", {
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_name(name).ok_or(Error::InvalidParam)?;
                let cp = vl_cparams(cparams);
                core.vlmeta_add(n, content(content_, content_len)?, cp.as_ref())
                    .map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// Replace a vlmetalayer's content.
///
/// # Safety
/// As `blosc2_vlmeta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi_int!("blosc2_vlmeta_update", {
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_name(name).ok_or(Error::InvalidParam)?;
                let cp = vl_cparams(cparams);
                core.vlmeta_update(n, content(content_, content_len)?, cp.as_ref())
                    .map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// A malloc()ed copy of a vlmetalayer's (decompressed) content.
///
/// # Safety
/// `schunk` is live; `name` a C string; `content` and `content_len` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content_: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    ffi_int!("blosc2_vlmeta_get", {
        // SAFETY: per the contract.
        let (Some(h), Some(n)) = (unsafe { reading(schunk) }.ok(), unsafe { c_name(name) }) else {
            return err(Error::InvalidParam);
        };
        if content_.is_null() || content_len.is_null() {
            return err(Error::InvalidParam);
        }
        let Some(i) = blosc2_core::metalayers::find(&h.core.vlmetalayers, n) else {
            return Error::NotFound.code();
        };
        let v = match h.core.vlmeta_get(n) {
            Ok(v) => v,
            Err(e) => return err(e),
        };
        let p = if v.is_empty() {
            ptr::null_mut()
        } else {
            // SAFETY: plain allocation.
            let p = unsafe { libc::malloc(v.len()) }.cast::<u8>();
            if p.is_null() {
                return err(Error::MemoryAlloc);
            }
            // SAFETY: p has v.len() writable bytes.
            unsafe { ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
            p
        };
        // SAFETY: writable per the contract.
        unsafe {
            *content_ = p;
            *content_len = v.len() as i32;
        }
        i as c_int
    })
}

/// Delete a vlmetalayer; returns how many are left.
///
/// # Safety
/// `schunk` is live; `name` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    ffi_int!("blosc2_vlmeta_delete", {
        // SAFETY: forwarded contract.
        let r = unsafe {
            with(schunk, |core| {
                let n = c_name(name).ok_or(Error::InvalidParam)?;
                core.vlmeta_delete(n).map(|i| i as i64)
            })
        };
        r as c_int
    })
}

/// Fill `names` with the vlmetalayer names (owned by the super-chunk).
///
/// # Safety
/// `schunk` is live; `names` has room for `nvlmetalayers` pointers.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(
    schunk: *mut blosc2_schunk,
    names: *mut *mut c_char,
) -> c_int {
    ffi_int!("blosc2_vlmeta_get_names", {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return err(Error::NullPointer);
        };
        if names.is_null() {
            return err(Error::NullPointer);
        }
        for (i, m) in h.vlmetas.iter().enumerate() {
            // SAFETY: room for nvlmetalayers pointers per the contract.
            unsafe { *names.add(i) = m.name.as_ptr() as *mut c_char };
        }
        h.vlmetas.len() as c_int
    })
}

/// Take the frame lock exclusively across several calls (re-entrant; a
/// no-op returning 0 unless locking is on for this handle).
///
/// # Safety
/// `schunk` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    ffi_int!("blosc2_schunk_lock", {
        // SAFETY: forwarded contract.
        unsafe { with(schunk, |core| core.lock().map(|()| 0i64)) as c_int }
    })
}

/// Release the lock taken by `blosc2_schunk_lock`.
///
/// # Safety
/// `schunk` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    ffi_int!("blosc2_schunk_unlock", {
        // SAFETY: forwarded contract.
        unsafe { with(schunk, |core| core.unlock().map(|()| 0i64)) as c_int }
    })
}

/// Re-read counters, chunk index and metalayers of a frame on disk that
/// another handle (or process) changed: 1 when something changed, 0 when
/// already current (and for super-chunks in memory), negative on errors.
///
/// # Safety
/// `schunk` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    ffi_int!("blosc2_schunk_refresh", {
        // SAFETY: forwarded contract.
        unsafe { with(schunk, |core| core.refresh().map(i64::from)) as c_int }
    })
}

/// Items at `coords` (item indices) into `buffer`, one after the other.
///
/// # Safety
/// `schunk` is live; `coords` has `ncoords` values; `buffer` has room for
/// `ncoords` items.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    ffi_int!("blosc2_schunk_get_sparse_buffer", {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { reading(schunk) }).ok() else {
            return Error::InvalidParam.code();
        };
        if ncoords < 0 {
            return Error::InvalidParam.code();
        }
        if ncoords == 0 {
            return 0;
        }
        if coords.is_null() || buffer.is_null() {
            return Error::InvalidParam.code();
        }
        let ts = h.core.typesize().max(1) as usize;
        let Some(len) = (ncoords as usize).checked_mul(ts) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: `ncoords` values and `ncoords` items of room per the contract.
        let (c, out) = unsafe {
            (
                std::slice::from_raw_parts(coords, ncoords as usize),
                super::ptr::out_slice(buffer, len),
            )
        };
        match h.core.get_sparse(c, out) {
            Ok(()) => 0,
            Err(e) => err(e),
        }
    })
}

/// Chunks touched by the slice `*start..*stop` (a malloc()ed list in
/// `*chunks_idx`); returns how many. Arrays (a "b2nd" metalayer) are not
/// supported here yet.
///
/// # Safety
/// `schunk` is live; `start`/`stop` point to one value; `chunks_idx` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    guard(
        "blosc2_get_slice_nchunks",
        Error::Failure.code() as i64,
        || {
            // SAFETY: per the contract.
            let Some(h) = (unsafe { reading(schunk) }).ok() else {
                return Error::NullPointer.code() as i64;
            };
            if start.is_null() || stop.is_null() || chunks_idx.is_null() {
                return Error::NullPointer.code() as i64;
            }
            let is_array = ["b2nd", "caterva"]
                .iter()
                .any(|n| blosc2_core::metalayers::find(&h.core.metalayers, n).is_some());
            let v = if is_array {
                // An array's start/stop hold one coordinate per dimension.
                let arr = match blosc2_core::b2nd::Array::from_schunk(&h.core) {
                    Ok(a) => a,
                    Err(e) => return err(e) as i64,
                };
                let nd = arr.ndim();
                // SAFETY: `ndim` readable values each, per the contract for
                // arrays (as upstream's b2nd_get_slice_nchunks reads them).
                let (a, b) = unsafe {
                    (
                        std::slice::from_raw_parts(start, nd),
                        std::slice::from_raw_parts(stop, nd),
                    )
                };
                arr.slice_chunks(a, b)
            } else {
                // SAFETY: one readable value each per the contract.
                let (a, b) = unsafe { (*start, *stop) };
                h.core.slice_chunks(a, b)
            };
            let v = match v {
                Ok(v) => v,
                Err(e) => return err(e) as i64,
            };
            let p = if v.is_empty() {
                ptr::null_mut()
            } else {
                // SAFETY: plain allocation, filled right away.
                unsafe {
                    let p = libc::malloc(v.len() * 8).cast::<i64>();
                    if p.is_null() {
                        return err(Error::MemoryAlloc) as i64;
                    }
                    ptr::copy_nonoverlapping(v.as_ptr(), p, v.len());
                    p
                }
            };
            // SAFETY: writable per the contract.
            unsafe { *chunks_idx = p };
            v.len() as i64
        },
    )
}
