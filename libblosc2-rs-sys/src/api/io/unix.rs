//! The Unix side of the filesystem backends: large-file stdio calls,
//! positioned transfers and `mmap`.

use crate::types::blosc2_stdio_mmap;
use std::ffi::c_int;
use std::ptr;

/// The large-file calls. glibc and Android's bionic keep a 32-bit `off_t`
/// on 32-bit targets (i686, armhf) unless the `*64` variants are used, and
/// frames pass 2 GiB; everywhere else `off_t` is 64 bits already (musl,
/// the BSDs, macOS, every 64-bit target), so the plain names serve.
#[cfg(any(all(target_os = "linux", target_env = "gnu"), target_os = "android"))]
mod lfs {
    pub(crate) use libc::{
        fopen64 as fopen, fstat64 as fstat, ftruncate64 as ftruncate, mmap64 as mmap,
        off64_t as off_t, pread64 as pread, pwrite64 as pwrite, stat64 as stat,
    };
}
#[cfg(not(any(all(target_os = "linux", target_env = "gnu"), target_os = "android")))]
mod lfs {
    pub(crate) use libc::{fopen, fstat, ftruncate, mmap, off_t, pread, pwrite, stat};
}

pub(super) use lfs::fopen;

/// A file offset or size as `off_t`, None where it does not fit (only
/// possible on a target whose `off_t` is narrower than 64 bits).
#[allow(clippy::unnecessary_fallible_conversions)] // off_t is i64 on most targets
fn off(v: i64) -> Option<lfs::off_t> {
    lfs::off_t::try_from(v).ok()
}

/// Size of the file behind a live stream, -1 on error.
///
/// # Safety
/// `f` is a live FILE.
#[allow(clippy::useless_conversion)] // st_size is i64 wherever off_t is 64-bit
pub(super) unsafe fn file_size(f: *mut libc::FILE) -> i64 {
    // SAFETY: a live FILE per the caller; fstat writes into a zeroed stat.
    unsafe {
        let mut st: lfs::stat = std::mem::zeroed();
        if lfs::fstat(libc::fileno(f), &mut st) != 0 {
            return -1;
        }
        i64::from(st.st_size)
    }
}

/// Positioned transfer without moving the stream position; bytes moved.
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
    // SAFETY: a live FILE per the caller.
    let fd = unsafe { libc::fileno(f) };
    if fd < 0 {
        return 0;
    }
    let mut done = 0usize;
    while done < n {
        let todo = (n - done).min(1 << 30);
        let Some(off) = i64::try_from(done)
            .ok()
            .and_then(|d| pos.checked_add(d))
            .and_then(off)
        else {
            break;
        };
        // SAFETY: `buf + done` has `todo` bytes per the caller.
        let r = unsafe {
            if write {
                lfs::pwrite(fd, buf.add(done).cast(), todo, off)
            } else {
                lfs::pread(fd, buf.add(done).cast(), todo, off)
            }
        };
        if r < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if r == 0 {
            break;
        }
        done += r as usize;
    }
    done
}

/// Truncate (or extend) the file behind a live stream; 0 or -1.
///
/// # Safety
/// `f` is a live FILE.
pub(super) unsafe fn truncate(f: *mut libc::FILE, size: i64) -> c_int {
    let Some(size) = off(size).filter(|&s| s >= 0) else {
        return -1;
    };
    // SAFETY: a live FILE per the caller.
    unsafe {
        libc::fflush(f);
        lfs::ftruncate(libc::fileno(f), size)
    }
}

/// What an mmap mode string means: page protection, mapping flags, whether
/// changes stay in memory, the fopen mode, and whether the mapping starts
/// at `initial_mapping_size`.
pub(super) fn mmap_mode(mode: &[u8]) -> Option<(i64, i64, bool, &'static std::ffi::CStr, bool)> {
    let rw = i64::from(libc::PROT_READ | libc::PROT_WRITE);
    let shared = i64::from(libc::MAP_SHARED);
    Some(match mode {
        b"r" => (i64::from(libc::PROT_READ), shared, false, c"rb", false),
        b"r+" => (rw, shared, false, c"rb+", true),
        b"w+" => (rw, shared, false, c"wb+", true),
        b"c" => (rw, i64::from(libc::MAP_PRIVATE), true, c"rb", true),
        _ => return None,
    })
}

/// Map `m.mapping_size` bytes of `m.file` (`m.fd` set) with `m`'s flags
/// into `m.addr`; false when the system refuses.
///
/// # Safety
/// `m.file` is a live FILE and `m.fd` its descriptor; `m.addr` is unmapped.
pub(super) unsafe fn map(m: &mut blosc2_stdio_mmap) -> bool {
    // mmap_mode's flags are c_ints; other values are no mmap flags at all
    let (Ok(prot), Ok(flags)) = (
        c_int::try_from(m.access_flags),
        c_int::try_from(m.map_flags),
    ) else {
        return false;
    };
    // SAFETY: our own descriptor and flags that mmap_mode chose.
    let addr = unsafe { lfs::mmap(ptr::null_mut(), m.mapping_size, prot, flags, m.fd, 0) };
    if addr == libc::MAP_FAILED {
        return false;
    }
    m.addr = addr.cast();
    true
}

/// Make the file (unless memory-only) at least `end` bytes long, and the
/// mapping at least `m.file_size` (doubling it); false on failure.
///
/// # Safety
/// `m` holds a live mapping of `m.fd`.
pub(super) unsafe fn grow(m: &mut blosc2_stdio_mmap, end: usize) -> bool {
    if end > m.file_size {
        if !m.is_memory_only {
            let Some(end_off) = i64::try_from(end).ok().and_then(off) else {
                return false;
            };
            // SAFETY: our own descriptor.
            if unsafe { lfs::ftruncate(m.fd, end_off) } < 0 {
                return false;
            }
        }
        m.file_size = end;
    }
    if m.mapping_size < m.file_size {
        let new = m.file_size.saturating_mul(2);
        // SAFETY: remapping our own mapping; the old address is not used after.
        let a = unsafe { libc::mremap(m.addr.cast(), m.mapping_size, new, libc::MREMAP_MAYMOVE) };
        if a == libc::MAP_FAILED {
            return false;
        }
        m.addr = a.cast();
        m.mapping_size = new;
    }
    true
}

/// Set the file's size (the mapping is already accounted for); 0 or -1.
///
/// # Safety
/// `m.fd` is our own descriptor.
pub(super) unsafe fn set_file_size(m: &mut blosc2_stdio_mmap, size: i64) -> c_int {
    let Some(size) = off(size) else {
        return -1;
    };
    // SAFETY: our own descriptor.
    unsafe { lfs::ftruncate(m.fd, size) }
}

/// Flush a writable mapping and unmap it; 0 or -1.
///
/// # Safety
/// `m` holds a live mapping, not used after.
pub(super) unsafe fn unmap(m: &mut blosc2_stdio_mmap) -> c_int {
    let mut rc = 0;
    // SAFETY: our own mapping, released once.
    unsafe {
        if (m.access_flags & i64::from(libc::PROT_WRITE)) != 0
            && !m.is_memory_only
            && libc::msync(m.addr.cast(), m.file_size, libc::MS_SYNC) < 0
        {
            rc = -1;
        }
        if libc::munmap(m.addr.cast(), m.mapping_size) < 0 {
            rc = -1;
        }
    }
    rc
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
