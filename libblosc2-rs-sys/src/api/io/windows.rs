//! The Windows side of the filesystem backends. The C runtime's `FILE`
//! stays the stream (it is what `blosc2_stdio_file` and
//! `blosc2_stdio_mmap` hold, as upstream's Windows build does); transfers,
//! sizes and truncation go to the OS handle under it, so they are
//! positioned, 64-bit and never see the runtime's text mode or buffer.
//! The memory mapping is a file-mapping object: the file grows to the
//! mapping while it is open and is cut to its real size at destroy, which
//! is how upstream's Windows build behaves too.

use crate::types::blosc2_stdio_mmap;
use std::ffi::{c_int, CStr};
use std::fs::File;
use std::mem::ManuallyDrop;
use std::os::windows::fs::FileExt;
use std::os::windows::io::{FromRawHandle, RawHandle};
use std::ptr;
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::Storage::FileSystem::FlushFileBuffers;
use windows_sys::Win32::System::Memory::{
    CreateFileMappingW, FlushViewOfFile, MapViewOfFile, UnmapViewOfFile, FILE_MAP_COPY,
    FILE_MAP_READ, FILE_MAP_WRITE, MEMORY_MAPPED_VIEW_ADDRESS, PAGE_READONLY, PAGE_READWRITE,
    PAGE_WRITECOPY,
};

pub(super) use libc::fopen;

/// The OS handle under descriptor `fd`, None for a closed descriptor.
fn os_handle(fd: c_int) -> Option<HANDLE> {
    if fd < 0 {
        return None;
    }
    // SAFETY: _get_osfhandle only looks the descriptor up (an unknown one
    // gives INVALID_HANDLE_VALUE; mingw's runtime does not abort on it).
    let h = unsafe { libc::get_osfhandle(fd) } as HANDLE;
    (h != INVALID_HANDLE_VALUE && !h.is_null()).then_some(h)
}

/// Run `op` on descriptor `fd`'s handle as a `File` that is never closed
/// here: the C runtime owns the handle and closes it with the `FILE`.
fn with_fd<R>(fd: c_int, op: impl FnOnce(&File) -> R) -> Option<R> {
    let h = os_handle(fd)?;
    // SAFETY: a live handle; ManuallyDrop keeps File's drop from closing it.
    let file = ManuallyDrop::new(unsafe { File::from_raw_handle(h as RawHandle) });
    Some(op(&file))
}

/// # Safety
/// `f` is a live FILE.
unsafe fn with_file<R>(f: *mut libc::FILE, op: impl FnOnce(&File) -> R) -> Option<R> {
    // SAFETY: a live FILE per the caller.
    with_fd(unsafe { libc::fileno(f) }, op)
}

/// Size of the file behind a live stream, -1 on error.
///
/// # Safety
/// `f` is a live FILE.
pub(super) unsafe fn file_size(f: *mut libc::FILE) -> i64 {
    // SAFETY: `f` is a live FILE, per this function's contract, as
    // with_file needs.
    unsafe { with_file(f, |file| file.metadata().map(|m| m.len())) }
        .and_then(|r| r.ok())
        .and_then(|n| i64::try_from(n).ok())
        .unwrap_or(-1)
}

/// Positioned transfer; bytes moved. Windows moves the handle's file
/// pointer on a positioned transfer, which no caller relies on: every
/// transfer of these backends names its position.
///
/// # Safety
/// `f` is a live FILE; `buf` has `n` bytes (readable for writes, writable
/// for reads).
pub(super) unsafe fn pio(
    f: *mut libc::FILE,
    buf: *mut u8,
    n: usize,
    pos: i64,
    write: bool,
) -> usize {
    let Ok(pos) = u64::try_from(pos) else {
        return 0;
    };
    let run = |file: &File| {
        let mut done = 0usize;
        while done < n {
            let todo = (n - done).min(1 << 30);
            let Some(at) = pos.checked_add(done as u64) else {
                break;
            };
            // SAFETY: done < n, so `buf + done` stays inside the caller's
            // `n` bytes, of which `todo` follow it.
            let at_buf = unsafe { buf.add(done) };
            // SAFETY: those `todo` bytes are readable (a write) or writable
            // (a read) and nothing else uses them during the call, per the
            // contract.
            let r = unsafe {
                if write {
                    crate::ptr::slice(at_buf.cast_const(), todo).map(|s| file.seek_write(s, at))
                } else {
                    crate::ptr::slice_mut(at_buf, todo).map(|s| file.seek_read(s, at))
                }
            };
            let Ok(r) = r else {
                break;
            };
            match r {
                Ok(0) => break,
                Ok(k) => done += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // a read past the end reports ERROR_HANDLE_EOF: a short count
                Err(_) => break,
            }
        }
        done
    };
    // SAFETY: `f` is a live FILE, per this function's contract, as
    // with_file needs.
    unsafe { with_file(f, run) }.unwrap_or(0)
}

/// Truncate (or extend) the file behind a live stream; 0 or -1.
///
/// # Safety
/// `f` is a live FILE.
pub(super) unsafe fn truncate(f: *mut libc::FILE, size: i64) -> c_int {
    let Ok(size) = u64::try_from(size) else {
        return -1;
    };
    // SAFETY: a live FILE per the caller.
    unsafe { libc::fflush(f) };
    // SAFETY: `f` is a live FILE, per this function's contract, as
    // with_file needs.
    match unsafe { with_file(f, |file| file.set_len(size)) } {
        Some(Ok(())) => 0,
        _ => -1,
    }
}

/// What an mmap mode string means on Windows: page protection, view
/// access, whether changes stay in memory, the fopen mode, and whether the
/// mapping starts at `initial_mapping_size` (a copy-on-write view cannot
/// grow the read-only file under it, so "c" maps the file's size).
pub(super) fn mmap_mode(mode: &[u8]) -> Option<(i64, i64, bool, &'static CStr, bool)> {
    let rw = (i64::from(PAGE_READWRITE), i64::from(FILE_MAP_WRITE));
    Some(match mode {
        b"r" => (
            i64::from(PAGE_READONLY),
            i64::from(FILE_MAP_READ),
            false,
            c"rb",
            false,
        ),
        b"r+" => (rw.0, rw.1, false, c"rb+", true),
        b"w+" => (rw.0, rw.1, false, c"wb+", true),
        b"c" => (
            i64::from(PAGE_WRITECOPY),
            i64::from(FILE_MAP_COPY),
            true,
            c"rb",
            false,
        ),
        _ => return None,
    })
}

/// Create the mapping object and its view of `m.mapping_size` bytes.
fn map_view(m: &mut blosc2_stdio_mmap) -> bool {
    let Some(h) = os_handle(m.fd) else {
        return false;
    };
    let (Ok(prot), Ok(access)) = (u32::try_from(m.access_flags), u32::try_from(m.map_flags)) else {
        return false;
    };
    // the size as the high and low 32-bit halves the call takes
    let [l0, l1, l2, l3, h0, h1, h2, h3] = (m.mapping_size as u64).to_le_bytes();
    let (high, low) = (
        u32::from_le_bytes([h0, h1, h2, h3]),
        u32::from_le_bytes([l0, l1, l2, l3]),
    );
    // SAFETY: a live file handle; no security attributes, no name.
    let mh = unsafe { CreateFileMappingW(h, ptr::null(), prot, high, low, ptr::null()) };
    if mh.is_null() {
        return false;
    }
    // SAFETY: the mapping object just created, viewed from offset 0.
    let view = unsafe { MapViewOfFile(mh, access, 0, 0, m.mapping_size) };
    if view.Value.is_null() {
        // SAFETY: our own handle, closed once.
        unsafe { CloseHandle(mh) };
        return false;
    }
    m.mmap_handle = mh;
    m.addr = view.Value.cast();
    true
}

/// Unmap the view and close the mapping object; true when both went well.
fn unmap_view(m: &mut blosc2_stdio_mmap) -> bool {
    let mut ok = true;
    if !m.addr.is_null() {
        // SAFETY: the view map_view created, unmapped once.
        ok &= unsafe {
            UnmapViewOfFile(MEMORY_MAPPED_VIEW_ADDRESS {
                Value: m.addr.cast(),
            })
        } != 0;
        m.addr = ptr::null_mut();
    }
    if m.mmap_handle != INVALID_HANDLE_VALUE && !m.mmap_handle.is_null() {
        // SAFETY: the mapping object map_view created, closed once.
        ok &= unsafe { CloseHandle(m.mmap_handle) } != 0;
    }
    m.mmap_handle = INVALID_HANDLE_VALUE;
    ok
}

/// Map `m.mapping_size` bytes of `m.file` (`m.fd` set) into `m.addr`.
///
/// # Safety
/// `m.file` is a live FILE and `m.fd` its descriptor; nothing is mapped.
pub(super) unsafe fn map(m: &mut blosc2_stdio_mmap) -> bool {
    map_view(m)
}

/// Make the mapping cover `end` bytes (doubling it; the mapping object
/// grows the file), recording `end` as the file's size.
///
/// # Safety
/// `m` holds a live mapping of `m.fd`; the old address is not used after.
pub(super) unsafe fn grow(m: &mut blosc2_stdio_mmap, end: usize) -> bool {
    m.file_size = m.file_size.max(end);
    if m.mapping_size >= m.file_size {
        return true;
    }
    // a mapping object has a fixed size and a view cannot move: map anew
    if !unmap_view(m) {
        return false;
    }
    m.mapping_size = m.file_size.saturating_mul(2);
    map_view(m)
}

/// The file keeps the mapping's size while it is mapped; the size is
/// applied at destroy.
///
/// # Safety
/// Always safe.
pub(super) unsafe fn set_file_size(m: &mut blosc2_stdio_mmap, size: i64) -> c_int {
    let _ = (m, size);
    0
}

/// Flush a writable mapping, unmap it and cut the file to its size; 0 or -1.
///
/// # Safety
/// `m` holds a live mapping, not used after.
pub(super) unsafe fn unmap(m: &mut blosc2_stdio_mmap) -> c_int {
    let writable = m.access_flags == i64::from(PAGE_READWRITE);
    let mut ok = true;
    if writable {
        // SAFETY: our own view, `file_size` <= its size.
        ok &= unsafe { FlushViewOfFile(m.addr.cast(), m.file_size) } != 0;
        if let Some(h) = os_handle(m.fd) {
            // SAFETY: a live file handle.
            ok &= unsafe { FlushFileBuffers(h) } != 0;
        }
    }
    ok &= unmap_view(m);
    if writable {
        let size = m.file_size as u64;
        ok &= matches!(with_fd(m.fd, |file| file.set_len(size)), Some(Ok(())));
    }
    if ok {
        0
    } else {
        -1
    }
}

/// Size of the file behind `f` for mapping it, None when it does not fit
/// the address space.
///
/// # Safety
/// `f` is a live FILE.
pub(super) unsafe fn map_size(f: *mut libc::FILE) -> Option<usize> {
    // SAFETY: `f` is a live FILE, per this function's contract, as
    // file_size needs.
    usize::try_from(unsafe { file_size(f) }).ok()
}
