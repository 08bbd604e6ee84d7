//! I/O backends of the C API: the `blosc2_stdio_*` functions of
//! blosc2-stdio.h, the registry of `blosc2_io_cb` (`blosc2_register_io_cb`,
//! `blosc2_get_io_cb`), and [`CallbackBackend`], which lets the frame code
//! use any registered backend through the safe [`blosc2_core::io::Backend`] trait.

use crate::boundary::{const_u8, ffi, trace_error};
use crate::consts::{BLOSC2_IO_FILESYSTEM, BLOSC2_IO_FILESYSTEM_MMAP, BLOSC2_IO_REGISTERED};
use crate::types::{
    blosc2_destroy_cb, blosc2_io, blosc2_io_cb, blosc2_stdio_file, blosc2_stdio_mmap,
};
use blosc2_core::error::{ErrorKind, Result};
use blosc2_core::io::{Backend, Mode, Stream};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;
use std::ptr;
use std::sync::{Arc, Mutex, OnceLock};

// ----- the default filesystem callbacks -----

/// The platform's calls under the two filesystem backends.
#[cfg(unix)]
#[path = "io/unix.rs"]
mod os;
#[cfg(windows)]
#[path = "io/windows.rs"]
mod os;

/// Open `urlpath` with an fopen mode.
///
/// # Safety
/// `urlpath` and `mode` are NULL or C strings.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_open(
    urlpath: *const c_char,
    mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    ffi!({
        let _ = params;
        if urlpath.is_null() || mode.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: two C strings per the contract.
        let f = unsafe { os::fopen(urlpath, mode) };
        if f.is_null() {
            return ptr::null_mut();
        }
        match crate::ptr::malloc_value(blosc2_stdio_file { file: f }) {
            Ok(p) => p.cast(),
            Err(_) => {
                // SAFETY: `f` was opened above and is not handed out.
                unsafe { libc::fclose(f) };
                ptr::null_mut()
            }
        }
    })
}

/// # Safety
/// `stream` is NULL or came from `blosc2_stdio_open`.
unsafe fn stdio_file(stream: *mut c_void) -> Option<*mut libc::FILE> {
    // SAFETY: NULL or a live blosc2_stdio_file per the contract.
    let f = unsafe { stream.cast::<blosc2_stdio_file>().as_ref() }?.file;
    (!f.is_null()).then_some(f)
}

/// Close a stream of `blosc2_stdio_open`.
///
/// # Safety
/// `stream` is NULL or came from `blosc2_stdio_open`, and is not used again.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_close(stream: *mut c_void) -> c_int {
    ffi!({
        // SAFETY: `stream` is NULL or the `blosc2_stdio_file` blosc2_stdio_open
        // returned, per this function's contract, as stdio_file needs.
        let Some(f) = (unsafe { stdio_file(stream) }) else {
            return -1;
        };
        // SAFETY: a live FILE and the struct malloc()ed by blosc2_stdio_open.
        unsafe {
            let rc = libc::fclose(f);
            libc::free(stream);
            rc
        }
    })
}

/// Size of the file behind a stream.
///
/// # Safety
/// `stream` is NULL or came from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    ffi!({
        // SAFETY: `stream` is NULL or the `blosc2_stdio_file` blosc2_stdio_open
        // returned, per this function's contract, as stdio_file needs.
        let Some(f) = (unsafe { stdio_file(stream) }) else {
            return -1;
        };
        // SAFETY: a live FILE.
        unsafe { os::file_size(f) }
    })
}

fn nbytes_of(size: i64, nitems: i64, position: i64) -> Option<usize> {
    if size < 0 || nitems < 0 || position < 0 {
        return None;
    }
    size.checked_mul(nitems)
        .and_then(|n| usize::try_from(n).ok())
}

/// Write `nitems` items of `size` bytes at `position`; items written.
///
/// # Safety
/// `ptr` has `size * nitems` readable bytes; `stream` from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    ffi!({
        // SAFETY: `stream` is NULL or the `blosc2_stdio_file` blosc2_stdio_open
        // returned, per this function's contract, as stdio_file needs.
        let (Some(f), Some(n)) = (
            unsafe { stdio_file(stream) },
            nbytes_of(size, nitems, position),
        ) else {
            return 0;
        };
        if ptr.is_null() {
            return 0;
        }
        // SAFETY: `n` readable bytes at ptr per the contract (pio only reads them).
        let done = unsafe { os::pio(f, ptr as *mut u8, n, position, true) };
        if size > 0 {
            done as i64 / size
        } else {
            0
        }
    })
}

/// Read `nitems` items of `size` bytes at `position` into `*ptr`; items read.
///
/// # Safety
/// `*ptr` has `size * nitems` writable bytes; `stream` from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    ffi!({
        // SAFETY: `stream` is NULL or the `blosc2_stdio_file` blosc2_stdio_open
        // returned, per this function's contract, as stdio_file needs.
        let (Some(f), Some(n)) = (
            unsafe { stdio_file(stream) },
            nbytes_of(size, nitems, position),
        ) else {
            return 0;
        };
        if ptr.is_null() {
            return 0;
        }
        // SAFETY: readable pointer-to-buffer per the contract.
        let buf = unsafe { *ptr };
        if buf.is_null() && n > 0 {
            return 0;
        }
        // SAFETY: `n` writable bytes at buf per the contract.
        let done = unsafe { os::pio(f, buf.cast(), n, position, false) };
        if size > 0 {
            done as i64 / size
        } else {
            0
        }
    })
}

/// Truncate (or extend) the file behind a stream.
///
/// # Safety
/// `stream` is NULL or came from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_truncate(stream: *mut c_void, size: i64) -> c_int {
    ffi!({
        // SAFETY: `stream` is NULL or the `blosc2_stdio_file` blosc2_stdio_open
        // returned, per this function's contract, as stdio_file needs.
        let Some(f) = (unsafe { stdio_file(stream) }) else {
            return -1;
        };
        // SAFETY: a live FILE.
        unsafe { os::truncate(f, size) }
    })
}

/// The default backend has no parameters to release.
///
/// # Safety
/// Always safe; the pointer is not used.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_destroy(params: *mut c_void) -> c_int {
    ffi!({
        let _ = params;
        0
    })
}

// ----- the memory-mapped backend -----

/// Upstream's `BLOSC2_STDIO_MMAP_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_stdio_mmap_defaults() -> blosc2_stdio_mmap {
    ffi!({ blosc2_stdio_mmap::default() })
}

/// Map `urlpath` as `params` (a `blosc2_stdio_mmap`) says; the params
/// struct is the stream, and a file is mapped only once per struct.
///
/// # Safety
/// `urlpath` is NULL or a C string; `params` is NULL or a valid
/// `blosc2_stdio_mmap` whose `mode` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_open(
    urlpath: *const c_char,
    mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    ffi!({
        let _ = mode;
        // SAFETY: NULL or valid per the contract.
        let Some(m) = (unsafe { params.cast::<blosc2_stdio_mmap>().as_mut() }) else {
            return ptr::null_mut();
        };
        if urlpath.is_null() {
            return ptr::null_mut();
        }
        if !m.addr.is_null() {
            // SAFETY: both C strings (ours was strdup()ed at first open).
            let same = !m.urlpath.is_null() && unsafe { libc::strcmp(m.urlpath, urlpath) } == 0;
            if !same {
                trace_error!(
                    "a memory-mapped file is mapped once, with one path (no sparse frames)"
                );
                return ptr::null_mut();
            }
            return params;
        }
        if m.mode.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: a C string per the contract.
        let mode = unsafe { CStr::from_ptr(m.mode) }.to_bytes();
        let Some((prot, flags, memory_only, fmode, initial)) = os::mmap_mode(mode) else {
            return ptr::null_mut();
        };
        // SAFETY: C strings; the FILE and mapping are owned by `m` until
        // blosc2_stdio_mmap_destroy.
        unsafe {
            let f = os::fopen(urlpath, fmode.as_ptr());
            if f.is_null() {
                return ptr::null_mut();
            }
            // a file larger than the address space cannot be mapped whole
            let Some(file_size) = os::map_size(f) else {
                libc::fclose(f);
                return ptr::null_mut();
            };
            let mut mapping = if initial {
                m.initial_mapping_size
            } else {
                file_size
            };
            mapping = mapping.max(file_size).max(1);
            m.file = f;
            m.fd = libc::fileno(f);
            m.file_size = file_size;
            m.mapping_size = mapping;
            m.access_flags = prot;
            m.map_flags = flags;
            m.is_memory_only = memory_only;
            if !os::map(m) {
                libc::fclose(f);
                m.file = ptr::null_mut();
                m.fd = -1;
                m.addr = ptr::null_mut();
                return ptr::null_mut();
            }
            if std::env::var_os("BLOSC_INFO").is_some() {
                // the line upstream's BLOSC_INFO prints (python-blosc2's
                // tests read it to check the mapping size)
                eprintln!(
                    "[INFO] - Opened memory-mapped file {} in mode {} with an mapping size of {} bytes.",
                    CStr::from_ptr(urlpath).to_string_lossy(),
                    String::from_utf8_lossy(mode),
                    mapping
                );
            }
            m.urlpath = libc::strdup(urlpath);
            // the caller's mode string need not outlive this call
            m.mode = ptr::null();
        }
        params
    })
}

/// Nothing to do: the mapping lives until `blosc2_stdio_mmap_destroy`.
///
/// # Safety
/// Always safe; the pointer is not used.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_close(stream: *mut c_void) -> c_int {
    ffi!({
        let _ = stream;
        0
    })
}

/// # Safety
/// `stream` came from `blosc2_stdio_mmap_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    ffi!({
        // SAFETY: `stream` is NULL or the live `blosc2_stdio_mmap` given to
        // blosc2_stdio_mmap_open, per this function's contract.
        match unsafe { stream.cast::<blosc2_stdio_mmap>().as_ref() } {
            Some(m) => i64::try_from(m.file_size).unwrap_or(i64::MAX),
            None => -1,
        }
    })
}

/// Copy into the mapping at `position`, growing the file and the mapping.
///
/// # Safety
/// `ptr` has `size * nitems` readable bytes; `stream` from `blosc2_stdio_mmap_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_write(
    ptr_: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    ffi!({
        // SAFETY: `stream` is NULL or the live `blosc2_stdio_mmap` given to
        // blosc2_stdio_mmap_open, per this function's contract.
        let Some(m) = (unsafe { stream.cast::<blosc2_stdio_mmap>().as_mut() }) else {
            return 0;
        };
        let Some(n) = nbytes_of(size, nitems, position) else {
            return 0;
        };
        if ptr_.is_null() || m.addr.is_null() {
            return 0;
        }
        let Some((start, end)) = usize::try_from(position)
            .ok()
            .and_then(|p| Some((p, p.checked_add(n)?)))
        else {
            return 0;
        };
        // SAFETY: our own mapping; a moved one is only reached through `m.addr`.
        if !unsafe { os::grow(m, end) } {
            return 0;
        }
        // SAFETY: [start, end) lies in the mapping; `n` readable bytes at ptr_.
        unsafe { ptr::copy_nonoverlapping(ptr_.cast::<u8>(), m.addr.cast::<u8>().add(start), n) };
        nitems
    })
}

/// Point `*ptr` into the mapping (no copy).
///
/// # Safety
/// `ptr` is writable; `stream` from `blosc2_stdio_mmap_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_read(
    ptr_: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    ffi!({
        if ptr_.is_null() {
            return 0;
        }
        // SAFETY: `stream` is NULL or the live `blosc2_stdio_mmap` given to
        // blosc2_stdio_mmap_open, per this function's contract.
        let m = unsafe { stream.cast::<blosc2_stdio_mmap>().as_ref() };
        let ok = match (m, nbytes_of(size, nitems, position)) {
            (Some(m), Some(n)) if !m.addr.is_null() => usize::try_from(position)
                .ok()
                .filter(|&p| p.checked_add(n).is_some_and(|e| e <= m.file_size))
                .map(|p| (m.addr, p)),
            _ => None,
        };
        // SAFETY: writable per the contract; the address is inside the mapping.
        unsafe {
            match ok {
                Some((a, start)) => {
                    *ptr_ = a.cast::<u8>().add(start).cast();
                    nitems
                }
                None => {
                    *ptr_ = ptr::null_mut();
                    0
                }
            }
        }
    })
}

/// # Safety
/// `stream` came from `blosc2_stdio_mmap_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    ffi!({
        // SAFETY: `stream` is NULL or the live `blosc2_stdio_mmap` given to
        // blosc2_stdio_mmap_open, per this function's contract.
        let Some(m) = (unsafe { stream.cast::<blosc2_stdio_mmap>().as_mut() }) else {
            return -1;
        };
        // a size past the address space cannot be mapped
        let Ok(new_size) = usize::try_from(size) else {
            return -1;
        };
        if m.file_size == new_size {
            return 0;
        }
        m.file_size = new_size;
        if m.is_memory_only {
            return 0;
        }
        // SAFETY: our own descriptor.
        unsafe { os::set_file_size(m, size) }
    })
}

/// Flush, unmap and close; frees the struct when `needs_free` says so.
///
/// # Safety
/// `params` is NULL or a `blosc2_stdio_mmap` (malloc()ed if `needs_free`).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_destroy(params: *mut c_void) -> c_int {
    ffi!({
        // SAFETY: `params` is NULL or a live `blosc2_stdio_mmap`, per this
        // function's contract.
        let Some(m) = (unsafe { params.cast::<blosc2_stdio_mmap>().as_mut() }) else {
            return -1;
        };
        // SAFETY: releasing what blosc2_stdio_mmap_open acquired, once.
        unsafe {
            let mut rc = if m.addr.is_null() || m.file.is_null() {
                -1
            } else {
                os::unmap(m)
            };
            if !m.file.is_null() && libc::fclose(m.file) < 0 {
                rc = -1;
            }
            m.file = ptr::null_mut();
            m.addr = ptr::null_mut();
            libc::free(m.urlpath.cast());
            m.urlpath = ptr::null_mut();
            if m.needs_free {
                libc::free(params);
            }
            rc
        }
    })
}

// ----- the registry -----

/// Registered backends; entries are leaked so `blosc2_get_io_cb` can hand
/// out stable pointers.
struct Registry(Vec<*mut blosc2_io_cb>);
// SAFETY: the pointers are leaked, never freed, and only read or replaced
// under the registry's mutex.
unsafe impl Send for Registry {}

fn registry() -> &'static Mutex<Registry> {
    static R: OnceLock<Mutex<Registry>> = OnceLock::new();
    R.get_or_init(|| {
        let fs = blosc2_io_cb {
            id: const { const_u8(BLOSC2_IO_FILESYSTEM) },
            name: c"filesystem".as_ptr() as *mut c_char,
            is_allocation_necessary: true,
            open: Some(blosc2_stdio_open),
            close: Some(blosc2_stdio_close),
            size: Some(blosc2_stdio_size),
            write: Some(blosc2_stdio_write),
            read: Some(blosc2_stdio_read),
            truncate: Some(blosc2_stdio_truncate),
            destroy: Some(blosc2_stdio_destroy),
        };
        let mmap = blosc2_io_cb {
            id: const { const_u8(BLOSC2_IO_FILESYSTEM_MMAP) },
            name: c"filesystem_mmap".as_ptr() as *mut c_char,
            is_allocation_necessary: false,
            open: Some(blosc2_stdio_mmap_open),
            close: Some(blosc2_stdio_mmap_close),
            size: Some(blosc2_stdio_mmap_size),
            write: Some(blosc2_stdio_mmap_write),
            read: Some(blosc2_stdio_mmap_read),
            truncate: Some(blosc2_stdio_mmap_truncate),
            destroy: Some(blosc2_stdio_mmap_destroy),
        };
        Mutex::new(Registry(vec![
            Box::into_raw(Box::new(fs)),
            Box::into_raw(Box::new(mmap)),
        ]))
    })
}

fn find(id: u8) -> Option<*mut blosc2_io_cb> {
    let r = registry().lock().ok()?;
    // SAFETY: registry entries are leaked boxes, valid forever.
    r.0.iter().copied().find(|&p| unsafe { (*p).id } == id)
}

/// Register a user I/O backend (ids from `BLOSC2_IO_REGISTERED` on).
///
/// # Safety
/// `io` is NULL or valid; its name is a C string that outlives the library use.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_io_cb(io: *const blosc2_io_cb) -> c_int {
    ffi!({
        // SAFETY: NULL or valid per the contract.
        let Some(io) = (unsafe { io.as_ref() }) else {
            return ErrorKind::InvalidParam.code();
        };
        if (io.id as c_int) < BLOSC2_IO_REGISTERED {
            trace_error!(
                "The compcode must be greater or equal than {}",
                BLOSC2_IO_REGISTERED
            );
            return ErrorKind::PluginIo.code();
        }
        let Ok(mut r) = registry().lock() else {
            return ErrorKind::Failure.code();
        };
        for &p in &r.0 {
            // SAFETY: registry entries are valid forever.
            let old = unsafe { &*p };
            if old.id == io.id {
                let same = !old.name.is_null()
                    && !io.name.is_null()
                    // SAFETY: both names are C strings.
                    && unsafe { libc::strcmp(old.name, io.name) } == 0;
                return if same { 0 } else { ErrorKind::PluginIo.code() };
            }
        }
        if r.0.len() >= u8::MAX as usize {
            return ErrorKind::PluginIo.code();
        }
        r.0.push(Box::into_raw(Box::new(*io)));
        0
    })
}

/// The registered backend with `id`, or NULL.
#[no_mangle]
pub extern "C" fn blosc2_get_io_cb(id: u8) -> *mut blosc2_io_cb {
    ffi!({ find(id).unwrap_or(ptr::null_mut()) })
}

// ----- any registered backend as a safe Backend -----

/// A registered callback table plus the `params` of a `blosc2_io`.
pub(crate) struct CallbackBackend {
    cb: blosc2_io_cb,
    params: *mut c_void,
}

// SAFETY: callbacks are plain C functions; upstream calls them from any
// thread too, and the params pointer is only passed through to them.
unsafe impl Send for CallbackBackend {}
// SAFETY: the callbacks may be called from any thread at once, as
// upstream's are; the backend holds no Rust state that could be shared.
unsafe impl Sync for CallbackBackend {}

struct CallbackStream {
    cb: blosc2_io_cb,
    stream: *mut c_void,
}

// SAFETY: a stream is used by one thread at a time (behind a Mutex or owned).
unsafe impl Send for CallbackStream {}

impl Backend for CallbackBackend {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn Stream>> {
        let open = self.cb.open.ok_or(ErrorKind::PluginIo)?;
        let p = CString::new(path.to_string_lossy().into_owned())
            .map_err(|_| ErrorKind::InvalidParam)?;
        let m = match mode {
            Mode::Read => c"rb",
            Mode::Update => c"rb+",
            Mode::Create => c"wb+",
            Mode::Append => c"ab+",
        };
        // SAFETY: C strings alive for the call; params as the user gave them.
        let stream = unsafe { open(p.as_ptr(), m.as_ptr(), self.params) };
        if stream.is_null() {
            return Err(ErrorKind::FileOpen);
        }
        Ok(Box::new(CallbackStream {
            cb: self.cb,
            stream,
        }))
    }
}

impl Stream for CallbackStream {
    fn size(&mut self) -> Result<u64> {
        let f = self.cb.size.ok_or(ErrorKind::PluginIo)?;
        // SAFETY: a stream from this backend's open.
        let s = unsafe { f(self.stream) };
        u64::try_from(s).map_err(|_| ErrorKind::FileRead)
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let f = self.cb.read.ok_or(ErrorKind::PluginIo)?;
        let n = buf.len() as i64;
        if self.cb.is_allocation_necessary {
            let mut p = buf.as_mut_ptr().cast::<c_void>();
            // SAFETY: p has buf.len() writable bytes.
            let got = unsafe { f(&mut p, 1, n, pos as i64, self.stream) };
            return if got == n {
                Ok(())
            } else {
                Err(ErrorKind::FileRead)
            };
        }
        let mut p: *mut c_void = ptr::null_mut();
        // SAFETY: the backend points p at `n` bytes of its own memory.
        let got = unsafe { f(&mut p, 1, n, pos as i64, self.stream) };
        if got != n || (p.is_null() && n > 0) {
            return Err(ErrorKind::FileRead);
        }
        if n > 0 {
            // SAFETY: the backend promised `n` readable bytes at p.
            unsafe { ptr::copy_nonoverlapping(p.cast::<u8>(), buf.as_mut_ptr(), buf.len()) };
        }
        Ok(())
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let f = self.cb.write.ok_or(ErrorKind::PluginIo)?;
        let n = data.len() as i64;
        // SAFETY: data has `n` readable bytes.
        let put = unsafe { f(data.as_ptr().cast(), 1, n, pos as i64, self.stream) };
        if put == n {
            Ok(())
        } else {
            Err(ErrorKind::FileWrite)
        }
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        let f = self.cb.truncate.ok_or(ErrorKind::PluginIo)?;
        // SAFETY: a stream from this backend's open.
        if unsafe { f(self.stream, size as i64) } == 0 {
            Ok(())
        } else {
            Err(ErrorKind::FileTruncate)
        }
    }
}

impl Drop for CallbackStream {
    fn drop(&mut self) {
        if let Some(f) = self.cb.close {
            // SAFETY: the stream is closed once, here.
            unsafe { f(self.stream) };
        }
    }
}

/// The backend a `blosc2_io` selects: the native one for the default
/// filesystem backend, the registered callbacks otherwise.
pub(crate) fn backend_for(io: &blosc2_io) -> Result<Arc<dyn Backend>> {
    if io.id as c_int == BLOSC2_IO_FILESYSTEM {
        return Ok(blosc2_core::io::default_backend());
    }
    let Some(cb) = find(io.id) else {
        trace_error!("I/O backend {} is not registered", io.id);
        return Err(ErrorKind::PluginIo);
    };
    // SAFETY: registry entries are valid forever.
    let cb = unsafe { *cb };
    Ok(Arc::new(CallbackBackend {
        cb,
        params: io.params,
    }))
}

/// The `destroy` of the backend `io` names (NULL when none): a handle
/// keeps it and runs it once when it is freed, as upstream's
/// `blosc2_schunk_free` runs `io_cb->destroy`.
pub(crate) fn destroy_cb(io: &blosc2_io) -> blosc2_destroy_cb {
    // SAFETY: registry entries are leaked boxes, valid forever.
    find(io.id).and_then(|cb| unsafe { (*cb).destroy })
}

/// Run the `destroy` of the backend `io` names on its params (a handle
/// that could not be made hands them back); its code, 0 without one.
pub(crate) fn destroy_params(io: &blosc2_io) -> c_int {
    match destroy_cb(io) {
        // SAFETY: the params the user handed over with this backend.
        Some(d) => unsafe { d(io.params) },
        None => 0,
    }
}
