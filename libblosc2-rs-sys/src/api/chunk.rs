//! Inspecting chunks (`*_cbuffer_*`), making special chunks, and the raw
//! shuffle entry points.

use crate::boundary::or_return;
use crate::boundary::{code, err, ffi};
use crate::objects::context::{core_cparams, new_cctx, Kind};
use crate::ptr::{bytes, bytes_mut};
use crate::types::blosc2_cparams;
use blosc2_core::chunk::header::MIN_HEADER_LENGTH;
use blosc2_core::chunk::special::make_special;
use blosc2_core::chunk::{ChunkHeader, Special};
use blosc2_core::error::ErrorKind;
use blosc2_core::filters::{bitshuffle, shuffle};
use std::ffi::{c_char, c_int};
use std::os::raw::c_void;

/// The 16-byte header at `p`, validated like upstream's `read_chunk_header`.
///
/// # Safety
/// `p` is NULL or has 16 readable bytes.
unsafe fn min_header(p: *const c_void) -> Result<ChunkHeader, ErrorKind> {
    // SAFETY: `p` is NULL or has 16 readable bytes, per the contract.
    ChunkHeader::read_min(unsafe { bytes(p, MIN_HEADER_LENGTH) }?)
}

/// # Safety
/// `cbuffer` has 16 readable bytes; the out pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    ffi!({
        // SAFETY: `cbuffer` is NULL or has 16 readable bytes, per this
        // function's contract, as min_header needs.
        let r = unsafe { min_header(cbuffer) };
        let h = r.unwrap_or_default();
        for (p, v) in [
            (nbytes, h.nbytes),
            (cbytes, h.cbytes),
            (blocksize, h.blocksize),
        ] {
            if !p.is_null() {
                // SAFETY: non-NULL and writable per contract.
                unsafe { p.write(v) };
            }
        }
        match r {
            Ok(_) => 0,
            Err(e) => err(e),
        }
    })
}

/// # Safety
/// `cbuffer` has 16 readable bytes; the out pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    ffi!({
        let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
        // SAFETY: `cbuffer` is NULL or has 16 readable bytes, per this
        // function's contract; the out pointers are locals.
        unsafe { blosc2_cbuffer_sizes(cbuffer, &mut n, &mut c, &mut b) };
        for (p, v) in [(nbytes, n), (cbytes, c), (blocksize, b)] {
            if !p.is_null() {
                // SAFETY: non-NULL and writable per contract.
                unsafe { p.write(v as usize) };
            }
        }
    })
}

/// # Safety
/// `cbuffer` has `cbytes` readable bytes; `nbytes` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_validate(
    cbuffer: *const c_void,
    cbytes: usize,
    nbytes: *mut usize,
) -> c_int {
    ffi!({
        let set = |v: usize| {
            if !nbytes.is_null() {
                // SAFETY: non-NULL and writable per contract.
                unsafe { nbytes.write(v) };
            }
        };
        set(0);
        if cbytes < MIN_HEADER_LENGTH {
            return err(ErrorKind::WriteBuffer);
        }
        // SAFETY: `cbuffer` has `cbytes` (>= 16, checked) readable bytes, per
        // this function's contract.
        let h = or_return!(unsafe { min_header(cbuffer) });
        if h.cbytes as usize != cbytes {
            return err(ErrorKind::InvalidHeader);
        }
        if h.nbytes < 0 || h.nbytes > blosc2_core::chunk::header::MAX_BUFFERSIZE {
            return err(ErrorKind::MemoryAlloc);
        }
        set(h.nbytes as usize);
        0
    })
}

/// # Safety
/// `cbuffer` has 16 readable bytes; out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_metainfo(
    cbuffer: *const c_void,
    typesize: *mut usize,
    flags: *mut c_int,
) {
    ffi!({
        // SAFETY: `cbuffer` is NULL or has 16 readable bytes, per this
        // function's contract, as min_header needs.
        let (t, f) = match unsafe { min_header(cbuffer) } {
            Ok(h) => (h.typesize as usize, h.flags as c_int),
            Err(_) => (0, 0),
        };
        if !typesize.is_null() {
            // SAFETY: non-NULL and writable per contract.
            unsafe { typesize.write(t) };
        }
        if !flags.is_null() {
            // SAFETY: non-NULL and writable per contract.
            unsafe { flags.write(f) };
        }
    })
}

/// # Safety
/// `cbuffer` has 16 readable bytes; out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_versions(
    cbuffer: *const c_void,
    version: *mut c_int,
    versionlz: *mut c_int,
) {
    ffi!({
        // SAFETY: `cbuffer` is NULL or has 16 readable bytes, per this
        // function's contract, as min_header needs.
        let (v, l) = match unsafe { min_header(cbuffer) } {
            Ok(h) => (h.version as c_int, h.versionlz as c_int),
            Err(_) => (0, 0),
        };
        if !version.is_null() {
            // SAFETY: non-NULL and writable per contract.
            unsafe { version.write(v) };
        }
        if !versionlz.is_null() {
            // SAFETY: non-NULL and writable per contract.
            unsafe { versionlz.write(l) };
        }
    })
}

/// # Safety
/// `cbuffer` has 16 readable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    ffi!({
        // SAFETY: `cbuffer` is NULL or has 16 readable bytes, per this
        // function's contract, as min_header needs.
        match unsafe { min_header(cbuffer) } {
            Ok(h) => match h.flags >> 5 {
                0 => c"BloscLZ".as_ptr(),
                1 => c"LZ4".as_ptr(),
                3 => c"Zlib".as_ptr(),
                4 => c"Zstd".as_ptr(),
                _ => std::ptr::null(),
            },
            Err(_) => std::ptr::null(),
        }
    })
}

/// # Safety
/// `dest` has `destsize` writable bytes; `value` (repeatval) `typesize` bytes.
unsafe fn special(
    cparams: blosc2_cparams,
    kind: Special,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    value: *const c_void,
) -> c_int {
    if dest.is_null() {
        return err(ErrorKind::NullPointer);
    }
    if destsize < 0 {
        return err(ErrorKind::Data);
    }
    // a whole context, as upstream makes one: it refuses what a context
    // refuses, and a user tuner is asked as for any other chunk
    let Some(ctx) = new_cctx(cparams) else {
        return err(ErrorKind::NullPointer);
    };
    let tuned = ctx.with_kind(|k| match k {
        Kind::Compress(c) => c.consult_tuner(),
        Kind::Decompress(_) => Ok(()),
    });
    if let Err(e) = tuned {
        return err(e);
    }
    let cp = ctx.cparams;
    let core = core_cparams(&cp);
    let v = if kind == Special::Value {
        if value.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: `value` has `typesize` readable bytes, per the contract.
        Some(or_return!(unsafe {
            bytes(value, cp.typesize.max(0) as usize)
        }))
    } else {
        None
    };
    // SAFETY: `dest` has `destsize` (>= 0, checked) writable bytes, per the
    // contract.
    let out = or_return!(unsafe { bytes_mut(dest, destsize as usize) });
    code(make_special(&core, kind, nbytes, v, out))
}

/// # Safety
/// `dest` has `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_zeros(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // SAFETY: `dest` has `destsize` writable bytes, per the contract;
        // no value pointer is read for this kind.
        unsafe {
            special(
                cparams,
                Special::Zero,
                nbytes,
                dest,
                destsize,
                std::ptr::null(),
            )
        }
    })
}

/// # Safety
/// `dest` has `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_nans(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // SAFETY: `dest` has `destsize` writable bytes, per the contract;
        // no value pointer is read for this kind.
        unsafe {
            special(
                cparams,
                Special::Nan,
                nbytes,
                dest,
                destsize,
                std::ptr::null(),
            )
        }
    })
}

/// # Safety
/// `dest` has `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_uninit(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // SAFETY: `dest` has `destsize` writable bytes, per the contract;
        // no value pointer is read for this kind.
        unsafe {
            special(
                cparams,
                Special::Uninit,
                nbytes,
                dest,
                destsize,
                std::ptr::null(),
            )
        }
    })
}

/// # Safety
/// `dest` has `destsize` writable bytes; `repeatval` has `typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_repeatval(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    repeatval: *const c_void,
) -> c_int {
    // SAFETY: `dest` has `destsize` writable bytes and `repeatval` NULL or
    // `typesize` readable bytes, per this function's contract.
    ffi!({ unsafe { special(cparams, Special::Value, nbytes, dest, destsize, repeatval) } })
}

/// Validate and build the slices of the raw shuffle calls.
///
/// # Safety
/// `src`/`dest` have `blocksize` bytes.
unsafe fn shuffle_args<'a>(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> Result<(usize, &'a [u8], &'a mut [u8]), ErrorKind> {
    if !(1..=256).contains(&typesize) || blocksize < 0 {
        return Err(ErrorKind::InvalidParam);
    }
    let n = blocksize as usize;
    // SAFETY: `src` and `dest` are NULL or have `blocksize` bytes, readable
    // and writable, and do not overlap, per the contract.
    let (s, d) = unsafe { (bytes(src, n)?, bytes_mut(dest, n)?) };
    Ok((typesize as usize, s, d))
}

/// Shared body of the four raw filter entry points (cbindgen cannot see
/// through a macro, so each export is spelled out).
///
/// # Safety
/// `src` and `dest` are NULL or have `blocksize` bytes each (readable,
/// writable) and do not overlap.
unsafe fn raw_filter(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
    f: fn(usize, &[u8], &mut [u8]) -> blosc2_core::error::Result<()>,
) -> i32 {
    // SAFETY: `src` and `dest` have `blocksize` bytes each (readable,
    // writable) and do not overlap, per this function's contract.
    match unsafe { shuffle_args(typesize, blocksize, src, dest) } {
        Ok((ts, s, d)) => match f(ts, s, d) {
            Ok(()) => blocksize,
            Err(e) => err(e),
        },
        Err(e) => err(e),
    }
}

fn do_shuffle(ts: usize, s: &[u8], d: &mut [u8]) -> blosc2_core::error::Result<()> {
    shuffle::shuffle(ts, s, d);
    Ok(())
}

fn do_unshuffle(ts: usize, s: &[u8], d: &mut [u8]) -> blosc2_core::error::Result<()> {
    shuffle::unshuffle(ts, s, d);
    Ok(())
}

/// Raw byte shuffle; returns `blocksize` or a negative error.
///
/// # Safety
/// `src` and `dest` each have `blocksize` bytes and do not overlap.
#[no_mangle]
pub unsafe extern "C" fn blosc2_shuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    ffi!({
        // SAFETY: `src` and `dest` have `blocksize` bytes each (readable,
        // writable) and do not overlap, per this function's contract.
        unsafe { raw_filter(typesize, blocksize, src, dest, do_shuffle) }
    })
}

/// Raw byte unshuffle; returns `blocksize` or a negative error.
///
/// # Safety
/// `src` and `dest` each have `blocksize` bytes and do not overlap.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    ffi!({
        // SAFETY: `src` and `dest` have `blocksize` bytes each (readable,
        // writable) and do not overlap, per this function's contract.
        unsafe { raw_filter(typesize, blocksize, src, dest, do_unshuffle) }
    })
}

/// Raw bit shuffle; returns `blocksize` or a negative error.
///
/// # Safety
/// `src` and `dest` each have `blocksize` bytes and do not overlap.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    ffi!({
        // SAFETY: `src` and `dest` have `blocksize` bytes each (readable,
        // writable) and do not overlap, per this function's contract.
        unsafe { raw_filter(typesize, blocksize, src, dest, bitshuffle::bitshuffle) }
    })
}

/// Raw bit unshuffle; returns `blocksize` or a negative error.
///
/// # Safety
/// `src` and `dest` each have `blocksize` bytes and do not overlap.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    ffi!({
        // SAFETY: `src` and `dest` have `blocksize` bytes each (readable,
        // writable) and do not overlap, per this function's contract.
        unsafe { raw_filter(typesize, blocksize, src, dest, bitshuffle::bitunshuffle) }
    })
}
