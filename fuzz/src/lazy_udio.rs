//! `lazy_udio`: a contiguous or sparse frame behind a C-style I/O backend,
//! read the way a C program with its own backend reads it. The backend is a
//! set of `extern "C"` callbacks over in-memory files, registered with
//! `blosc2_register_io_cb` (twice: one copying into the caller's buffer,
//! one handing out pointers into its own memory, `is_allocation_necessary`
//! false); the frame is opened with `blosc2_schunk_open_udio` or, behind a
//! prefix, `blosc2_schunk_open_offset_udio`, and each chunk at the ends is
//! read three ways that must agree: `blosc2_schunk_get_lazychunk` then
//! `blosc2_decompress_ctx` and `blosc2_getitem_ctx` with `schunk->dctx`,
//! and `blosc2_schunk_decompress_chunk`. Everything is freed.
//!
//! Input: `[flags:u8][a:u16][b:u16]` then the frame. Flags bit 0: the
//! backend hands out its own pointers; bit 1: a prefix of `a % 256` bytes
//! before the frame, opened at that offset; bit 2: the rest is a sparse
//! frame in the `sframe` target's container (index file, then chunk files
//! by number) and the directory is opened instead (no prefix); `a` and `b`
//! pick the getitem range.

use crate::Knobs;
use blosc2_core::frame::sframe;
use libblosc2_rs_sys::blosc2_cbuffer_sizes;
use libblosc2_rs_sys::{blosc2_decompress_ctx, blosc2_getitem_ctx};
use libblosc2_rs_sys::blosc2_register_io_cb;
use libblosc2_rs_sys::{
    blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_get_lazychunk,
    blosc2_schunk_open_offset_udio, blosc2_schunk_open_udio,
};
use libblosc2_rs_sys::types::{blosc2_io, blosc2_io_cb};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;
use std::sync::Mutex;

/// Largest output decompressed (chunks may claim 2 GiB).
const CAP: usize = 2 << 20;
/// Chunks read at each end of the frame.
const ENDS: i64 = 8;
/// Backend ids (user ids start at `BLOSC2_IO_REGISTERED`, 160).
const COPYING: u8 = 230;
const POINTING: u8 = 231;

/// The in-memory "filesystem" a backend's `params` points at: its files
/// by name.
struct MemFs {
    files: Vec<(CString, Mutex<Vec<u8>>)>,
}

/// An open file: its bytes in the filesystem.
struct MemFile {
    data: *const Mutex<Vec<u8>>,
}

fn lock(data: &Mutex<Vec<u8>>) -> std::sync::MutexGuard<'_, Vec<u8>> {
    data.lock().unwrap_or_else(|e| e.into_inner())
}

/// # Safety
/// `urlpath` and `mode` are C strings; `params` is a live `MemFs`.
unsafe extern "C" fn mem_open(
    urlpath: *const c_char,
    mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    // SAFETY: per the callback contract.
    let (path, mode, fs) = unsafe {
        (
            CStr::from_ptr(urlpath),
            CStr::from_ptr(mode),
            params.cast::<MemFs>().as_ref(),
        )
    };
    let Some(fs) = fs else {
        return ptr::null_mut();
    };
    // only the given files exist; the reader never creates others
    if mode.to_bytes().first() != Some(&b'r') {
        return ptr::null_mut();
    }
    match fs.files.iter().find(|(name, _)| name.as_c_str() == path) {
        Some((_, data)) => Box::into_raw(Box::new(MemFile { data })).cast(),
        None => ptr::null_mut(),
    }
}

/// # Safety
/// `stream` came from `mem_open` and is not used again.
unsafe extern "C" fn mem_close(stream: *mut c_void) -> c_int {
    // SAFETY: per the contract.
    drop(unsafe { Box::from_raw(stream.cast::<MemFile>()) });
    0
}

/// # Safety
/// `stream` came from `mem_open`; its filesystem is live.
unsafe fn data_of<'a>(stream: *mut c_void) -> &'a Mutex<Vec<u8>> {
    // SAFETY: per the contract.
    unsafe { &*(*stream.cast::<MemFile>()).data }
}

/// # Safety
/// `stream` came from `mem_open`.
unsafe extern "C" fn mem_size(stream: *mut c_void) -> i64 {
    // SAFETY: per the contract.
    lock(unsafe { data_of(stream) }).len() as i64
}

/// # Safety
/// Never called: the file is read only.
unsafe extern "C" fn mem_write(_: *const c_void, _: i64, _: i64, _: i64, _: *mut c_void) -> i64 {
    0
}

/// Items of `size` bytes from `position`, as many as the file holds.
///
/// # Safety
/// `stream` came from `mem_open`; `ptr` is writable and, for the copying
/// backend, `*ptr` has `size * nitems` writable bytes.
unsafe fn mem_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
    copy: bool,
) -> i64 {
    // SAFETY: per the contract.
    let file = unsafe { data_of(stream) };
    let data = lock(file);
    if size <= 0 || nitems < 0 || position < 0 || position as u64 > data.len() as u64 {
        return 0;
    }
    let avail = (data.len() - position as usize) as i64 / size;
    let n = nitems.min(avail);
    let bytes = (n * size) as usize;
    let at = position as usize;
    if copy {
        // SAFETY: the caller's buffer has room for `nitems` items.
        unsafe { ptr::copy_nonoverlapping(data.as_ptr().add(at), (*ptr).cast::<u8>(), bytes) };
    } else {
        // the file is never written while open, so its bytes stay put
        // SAFETY: `at` is within the file.
        unsafe { *ptr = data.as_ptr().add(at) as *mut c_void };
    }
    n
}

/// # Safety
/// As `mem_read`.
unsafe extern "C" fn read_copying(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe { mem_read(ptr, size, nitems, position, stream, true) }
}

/// # Safety
/// As `mem_read`.
unsafe extern "C" fn read_pointing(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    // SAFETY: forwarded contract.
    unsafe { mem_read(ptr, size, nitems, position, stream, false) }
}

/// # Safety
/// Never changes anything: the file is read only.
unsafe extern "C" fn mem_truncate(_: *mut c_void, _: i64) -> c_int {
    -1
}

/// # Safety
/// The params belong to the harness.
unsafe extern "C" fn mem_destroy(_: *mut c_void) -> c_int {
    0
}

fn register() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        libblosc2_rs_sys::blosc2_init();
        for (id, name, copy) in [
            (COPYING, c"fuzz-mem-copying", true),
            (POINTING, c"fuzz-mem-pointing", false),
        ] {
            let cb = blosc2_io_cb {
                id,
                name: name.as_ptr() as *mut c_char,
                is_allocation_necessary: copy,
                open: Some(mem_open),
                close: Some(mem_close),
                size: Some(mem_size),
                write: Some(mem_write),
                read: Some(if copy { read_copying } else { read_pointing }),
                truncate: Some(mem_truncate),
                destroy: Some(mem_destroy),
            };
            // SAFETY: a valid table whose name is static.
            assert_eq!(unsafe { blosc2_register_io_cb(&cb) }, 0);
        }
    });
}

pub fn lazy_udio(data: &[u8]) {
    register();
    let mut k = Knobs { data };
    let flags = k.byte();
    let a = k.u16();
    let b = k.u16();
    let frame = k.rest();
    let sparse = flags & 4 != 0;
    let (dir, file) = crate::memio::real_paths();
    let c_path = |p: &std::path::Path| {
        CString::new(p.as_os_str().as_encoded_bytes()).expect("a path without NUL")
    };
    // the opened name must exist on the file system (opening asks it, as
    // upstream's stat does, whether it is a directory): an empty file or
    // directory, never written; the frame's bytes are the backend's
    let mut files = Vec::new();
    let pad = if sparse {
        let (parts, _) = crate::frames::split_container(frame);
        let Some(Some(index)) = parts.first() else {
            return;
        };
        if !crate::frame_is_small(index) {
            return;
        }
        files.push((c_path(&sframe::index_path(dir)), Mutex::new(index.to_vec())));
        for (i, f) in parts.iter().enumerate().skip(1) {
            if let Some(f) = f {
                let name = c_path(&sframe::chunk_path(dir, i as i64 - 1));
                files.push((name, Mutex::new(f.to_vec())));
            }
        }
        0
    } else {
        if frame.is_empty() || !crate::frame_is_small(frame) {
            return;
        }
        let pad = if flags & 2 != 0 {
            (a % 256) as usize
        } else {
            0
        };
        let mut bytes = vec![0xa5u8; pad];
        bytes.extend_from_slice(frame);
        files.push((c_path(file), Mutex::new(bytes)));
        pad
    };
    let fs = MemFs { files };
    let io = blosc2_io {
        id: if flags & 1 != 0 { POINTING } else { COPYING },
        name: c"fuzz-mem".as_ptr(),
        params: &fs as *const MemFs as *mut c_void,
    };
    let path = c_path(if sparse { dir } else { file });
    // SAFETY: a C string; a valid backend whose params outlive the
    // super-chunk (freed below, before `fs` goes).
    let sc = unsafe {
        if pad > 0 {
            blosc2_schunk_open_offset_udio(path.as_ptr(), pad as i64, &io)
        } else {
            blosc2_schunk_open_udio(path.as_ptr(), &io)
        }
    };
    if sc.is_null() {
        return;
    }
    // SAFETY: a live super-chunk until blosc2_schunk_free.
    unsafe {
        let nchunks = (*sc).nchunks;
        let ends = (0..nchunks.min(ENDS))
            .chain(nchunks.saturating_sub(ENDS).max(nchunks.min(ENDS))..nchunks);
        for i in ends {
            read_chunk(sc, i, a, b);
        }
        assert!(blosc2_schunk_free(sc) >= 0);
    }
    drop(fs);
}

/// Chunk `i` read lazily and whole; both must agree where both work.
///
/// # Safety
/// `sc` is a live super-chunk.
unsafe fn read_chunk(sc: *mut libblosc2_rs_sys::types::blosc2_schunk, i: i64, a: u16, b: u16) {
    let mut lazy: *mut u8 = ptr::null_mut();
    let mut needs_free = false;
    // SAFETY: a live super-chunk; writable out pointers.
    let cb = unsafe { blosc2_schunk_get_lazychunk(sc, i, &mut lazy, &mut needs_free) };
    let mut whole_rc = None;
    let mut whole = Vec::new();
    if cb >= 16 && !lazy.is_null() {
        let (mut nbytes, mut cbytes, mut bsize) = (0i32, 0i32, 0i32);
        // SAFETY: `cb` >= 16 readable bytes.
        unsafe { blosc2_cbuffer_sizes(lazy.cast(), &mut nbytes, &mut cbytes, &mut bsize) };
        let len = (nbytes.max(0) as usize).min(CAP);
        let mut out = vec![0u8; len];
        let mut back = vec![0u8; len];
        // SAFETY: live contexts and buffers of the given sizes.
        let (r1, r2) = unsafe {
            let dctx = (*sc).dctx;
            let r1 =
                blosc2_decompress_ctx(dctx, lazy.cast(), cb, out.as_mut_ptr().cast(), len as i32);
            let r2 = blosc2_schunk_decompress_chunk(sc, i, back.as_mut_ptr().cast(), len as i32);
            (r1, r2)
        };
        assert!(r1 <= len as i32 && r2 <= len as i32, "more than the buffer");
        if r1 >= 0 && r2 >= 0 {
            assert_eq!(r1, r2, "chunk {i}: lazy and whole lengths differ");
            assert!(
                out[..r1 as usize] == back[..r2 as usize],
                "chunk {i}: lazy and whole data differ"
            );
        }
        if r2 >= 0 {
            whole_rc = Some(r2);
            whole = back;
        }
        // items from the lazy chunk, checked against the whole one
        // getitem counts items of the chunk's typesize (its header's byte,
        // which a super-chunk's typesize past 255 does not fit in)
        // SAFETY: `cb` >= 16 readable bytes.
        let ts = unsafe { *lazy.add(3) }.max(1) as usize;
        let start = a as i32 % 4096 - 8;
        let n = b as i32 % 4096;
        let mut items = vec![0u8; n.max(0) as usize * ts];
        // getitem decodes a whole block, however large the header says it
        // is (see `GETITEM_BLOCK_CAP`)
        // (negative claims stay in: they must be refused)
        let block_ok = nbytes.min(bsize).max(0) as usize <= crate::GETITEM_BLOCK_CAP;
        if block_ok {
            // SAFETY: live context; `items.len()` writable bytes.
            let r = unsafe {
                blosc2_getitem_ctx(
                    (*sc).dctx,
                    lazy.cast(),
                    cb,
                    start,
                    n,
                    items.as_mut_ptr().cast(),
                    items.len() as i32,
                )
            };
            assert!(r <= items.len() as i32);
            if let (Some(w), true) = (whole_rc, r > 0 && start >= 0) {
                let at = start as usize * ts;
                let end = at + r as usize;
                if end <= w as usize {
                    assert!(
                        items[..r as usize] == whole[at..end],
                        "chunk {i}: getitem_ctx on the lazy chunk differs"
                    );
                }
            }
        }
    }
    if needs_free && !lazy.is_null() {
        // SAFETY: malloc()ed by the library for us.
        unsafe { libc::free(lazy.cast()) };
    }
}
