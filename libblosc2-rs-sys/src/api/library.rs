//! Library-wide calls: init/destroy, names and versions, error strings,
//! global settings, timestamps.

use crate::boundary::{code_i16, err, ffi};
use crate::names::{builtin_name, compname_to_code, global_plugin, static_cstr};
use crate::types::{blosc_threads_callback, blosc_timestamp_t};
use blosc2_core::error::{cmessage_for_code, ErrorKind};
use blosc2_core::{codecs, registry};
use std::ffi::{c_char, c_int, CStr, CString};
use std::os::raw::c_void;
use std::sync::atomic::{AtomicBool, AtomicI16, AtomicI32, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

/// Settings of the Blosc1-style global API.
pub(crate) static G_NTHREADS: AtomicI16 = AtomicI16::new(1);
pub(crate) static G_COMPRESSOR: AtomicU8 = AtomicU8::new(0);
pub(crate) static G_BLOCKSIZE: AtomicI32 = AtomicI32::new(0);
pub(crate) static G_SPLITMODE: AtomicI32 = AtomicI32::new(4);
pub(crate) static G_DELTA: AtomicBool = AtomicBool::new(false);
/// `blosc2_init` minus `blosc2_destroy` calls: destroy only tears down
/// process-wide state when the last user is gone, and even then never
/// touches live contexts (they own everything they use).
static INIT_COUNT: AtomicUsize = AtomicUsize::new(0);
/// Set when `blosc2_destroy` released the last user: the next `blosc2_init`
/// starts from an empty plugin registry, as upstream's does.
static TORN_DOWN: AtomicBool = AtomicBool::new(false);

pub(crate) const VERSION: &CStr = c"3.3.5";

/// Initialize the library (optional; reference-counted with destroy).
#[no_mangle]
pub extern "C" fn blosc2_init() {
    ffi!({
        if INIT_COUNT.fetch_add(1, Ordering::SeqCst) == 0 && TORN_DOWN.swap(false, Ordering::SeqCst)
        {
            crate::api::plugins::forget_user_plugins();
        }
        crate::api::plugins::register_global_plugins();
    })
}

/// Release the library (idempotent; pairs with `blosc2_init`).
#[no_mangle]
pub extern "C" fn blosc2_destroy() {
    ffi!({
        if INIT_COUNT.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            == Ok(1)
        {
            TORN_DOWN.store(true, Ordering::SeqCst);
        }
    })
}

/// Free cached resources; nothing is cached across calls beyond contexts.
#[no_mangle]
pub extern "C" fn blosc2_free_resources() -> c_int {
    ffi!({ 0 })
}

/// The library version, as `BLOSC2_VERSION_STRING`.
#[no_mangle]
pub extern "C" fn blosc2_get_version_string() -> *const c_char {
    ffi!({ VERSION.as_ptr() })
}

/// Upstream's message for `error_code` (a static string).
#[no_mangle]
pub extern "C" fn blosc2_error_string(error_code: c_int) -> *const c_char {
    ffi!({ cmessage_for_code(error_code).as_ptr() })
}

/// The built-in codecs this build has (upstream's list leaves out those its
/// build deactivated).
#[no_mangle]
pub extern "C" fn blosc2_list_compressors() -> *const c_char {
    ffi!({
        match (codecs::HAVE_ZLIB, codecs::HAVE_ZSTD) {
            (true, true) => c"blosclz,lz4,lz4hc,zlib,zstd",
            (true, false) => c"blosclz,lz4,lz4hc,zlib",
            (false, true) => c"blosclz,lz4,lz4hc,zstd",
            (false, false) => c"blosclz,lz4,lz4hc",
        }
        .as_ptr()
    })
}

/// # Safety
/// `compname` is NULL or a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compcode_to_compname(
    compcode: c_int,
    compname: *mut *const c_char,
) -> c_int {
    ffi!({
        let (code, name) = match builtin_name(compcode) {
            Some((code, n)) => (code, n.as_ptr()),
            None => match u8::try_from(compcode).ok().and_then(registry::find_codec) {
                Some(c) => (compcode, static_cstr(&c.name)),
                None => (-1, std::ptr::null()),
            },
        };
        if !compname.is_null() {
            // SAFETY: non-NULL and writable per contract.
            unsafe { compname.write(name) };
        }
        code
    })
}

/// # Safety
/// `compname` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compname_to_compcode(compname: *const c_char) -> c_int {
    ffi!({
        if compname.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: non-NULL, NUL-terminated per contract.
        let name = unsafe { CStr::from_ptr(compname) };
        compname_to_code(&name.to_string_lossy())
    })
}

fn clib_of(name: &str) -> Option<(i32, &'static str, String)> {
    Some(match name {
        "blosclz" => (0, "BloscLZ", "2.5.3".to_string()),
        "lz4" | "lz4hc" => (1, "LZ4", "1.10.0".to_string()),
        // a codec left out keeps its library name; upstream then reports
        // its version as "unknown"
        "zlib" if codecs::HAVE_ZLIB => (3, "Zlib", "2.2.5".to_string()),
        "zstd" if codecs::HAVE_ZSTD => (4, "Zstd", "1.5.7".to_string()),
        "zlib" => (3, "Zlib", "unknown".to_string()),
        "zstd" => (4, "Zstd", "unknown".to_string()),
        other if global_plugin(other).is_some() => {
            return global_plugin(other).map(|id| (id, "", "unknown".to_string()))
        }
        other => {
            let c = registry::find_codec_by_name(other)?;
            return Some((c.complib as i32, "", c.name));
        }
    })
}

/// Library name and version of a codec, as malloc'ed strings the caller frees.
///
/// # Safety
/// `compname` is a NUL-terminated string; `complib`/`version` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_complib_info(
    compname: *const c_char,
    complib: *mut *mut c_char,
    version: *mut *mut c_char,
) -> c_int {
    ffi!({
        if compname.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: non-NULL, NUL-terminated per contract.
        let name = unsafe { CStr::from_ptr(compname) }.to_string_lossy();
        let Some((code, lib, ver)) = clib_of(&name) else {
            return err(ErrorKind::NotFound);
        };
        let lib = if lib.is_empty() {
            name.to_string()
        } else {
            lib.to_string()
        };
        for (out, s) in [(complib, lib), (version, ver)] {
            if !out.is_null() {
                let c = CString::new(s).unwrap_or_default();
                // SAFETY: strdup copies a valid C string into malloc'ed memory
                // the caller releases with free(), as upstream documents.
                unsafe { out.write(libc::strdup(c.as_ptr())) };
            }
        }
        code
    })
}

/// The global thread count of the calls without a context.
#[no_mangle]
pub extern "C" fn blosc2_get_nthreads() -> i16 {
    ffi!({ G_NTHREADS.load(Ordering::Relaxed) })
}

/// Set the global thread count; returns the previous one (or an error).
#[no_mangle]
pub extern "C" fn blosc2_set_nthreads(nthreads: i16) -> i16 {
    ffi!({
        if nthreads <= 0 {
            return code_i16(ErrorKind::InvalidParam);
        }
        G_NTHREADS.swap(nthreads, Ordering::Relaxed)
    })
}

/// Switch the DELTA filter of the Blosc1 calls on (nonzero) or off.
#[no_mangle]
pub extern "C" fn blosc2_set_delta(dodelta: c_int) {
    ffi!({
        G_DELTA.store(dodelta != 0, Ordering::Relaxed);
    })
}

/// Run every context's worker threads through `callback` from now on (NULL:
/// the library's own threads again), as upstream does. The callback gets
/// `numjobs` jobs of `jobdata_elsize` bytes each at `jobdata` and must call
/// `dojob` on each, in any order or concurrently, before it returns. Like
/// upstream's, it is meant to be set before any other call, not while
/// contexts are compressing.
#[no_mangle]
pub extern "C" fn blosc2_set_threads_callback(
    callback: blosc_threads_callback,
    callback_data: *mut c_void,
) {
    ffi!({
        let runner = callback.map(|cb| {
            Arc::new(CRunner {
                cb,
                data: callback_data as usize,
            }) as Arc<dyn blosc2_core::pool::Runner>
        });
        blosc2_core::pool::set_runner(runner);
    })
}

type ThreadsCallback = unsafe extern "C" fn(
    *mut c_void,
    Option<unsafe extern "C" fn(*mut c_void)>,
    c_int,
    usize,
    *mut c_void,
);

/// A host's threads callback as the pools' runner.
struct CRunner {
    cb: ThreadsCallback,
    /// The host's `callback_data`, handed back untouched.
    data: usize,
}

/// One job as the host sees it: an opaque element of `jobdata`.
struct Job<'a> {
    job: &'a (dyn Fn(usize) + Sync),
    w: usize,
}

/// The `dojob` the host calls on each element of `jobdata`.
///
/// # Safety
/// `p` is NULL or points to a `Job` of the running `CRunner::run` call.
unsafe extern "C" fn run_job(p: *mut c_void) {
    // Nothing may unwind into the host's C frames (the pool catches panics
    // of its own work; this catches the rest).
    ffi!({
        // SAFETY: `p` is NULL (a broken host: ignored) or a `Job` of the
        // running `CRunner::run` call, per this function's contract.
        if let Some(j) = unsafe { p.cast::<Job>().as_ref() } {
            (j.job)(j.w)
        }
    })
}

impl blosc2_core::pool::Runner for CRunner {
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
        let mut jobs: Vec<Job> = (0..njobs).map(|w| Job { job, w }).collect();
        // SAFETY: the host's callback per its contract: it runs `run_job` on
        // the `njobs` elements of `jobs`, which outlive the call, and returns
        // when they are done.
        unsafe {
            (self.cb)(
                self.data as *mut c_void,
                Some(run_job),
                c_int::try_from(njobs).unwrap_or(c_int::MAX),
                std::mem::size_of::<Job>(),
                jobs.as_mut_ptr().cast(),
            )
        }
    }
}

/// # Safety
/// `timestamp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc_set_timestamp(timestamp: *mut blosc_timestamp_t) {
    ffi!({
        if timestamp.is_null() {
            return;
        }
        #[cfg(not(windows))]
        // SAFETY: clock_gettime writes one timespec into a valid, writable pointer.
        unsafe {
            libc::clock_gettime(libc::CLOCK_MONOTONIC, timestamp);
        }
        #[cfg(windows)]
        // SAFETY: the counter is written into a valid, writable pointer.
        unsafe {
            windows_sys::Win32::System::Performance::QueryPerformanceCounter(timestamp);
        }
    })
}

/// Nanoseconds from `start_time` to `end_time` (`blosc_set_timestamp`).
// One declaration for the header, whose counter differs by system.
#[no_mangle]
pub extern "C" fn blosc_elapsed_nsecs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    ffi!({
        #[cfg(not(windows))]
        {
            (end_time.tv_sec - start_time.tv_sec) as f64 * 1e9
                + (end_time.tv_nsec - start_time.tv_nsec) as f64
        }
        #[cfg(windows)]
        {
            let mut freq = 0i64;
            // SAFETY: writes one i64 into a local.
            unsafe {
                windows_sys::Win32::System::Performance::QueryPerformanceFrequency(&mut freq)
            };
            if freq <= 0 {
                return 0.0;
            }
            (end_time - start_time) as f64 / (freq as f64 / 1e9)
        }
    })
}

/// Seconds from `start_time` to `end_time` (`blosc_set_timestamp`).
#[no_mangle]
pub extern "C" fn blosc_elapsed_secs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    ffi!({ blosc_elapsed_nsecs(start_time, end_time) / 1e9 })
}
