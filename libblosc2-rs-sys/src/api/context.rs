//! Contexts (`blosc2_context`) and the contextual chunk API of blosc2.h.

use crate::boundary::or_return;
use crate::boundary::{code, err, ffi, trace_error};
use crate::objects::context::{new_cctx, new_dctx, Context, Kind};
use crate::ptr::{bytes, bytes_mut, chunk_slice, slice};
use crate::types::{blosc2_context, blosc2_cparams, blosc2_dparams};
use blosc2_core::chunk::params::DParams;
use blosc2_core::chunk::Decompressor;
use blosc2_core::error::ErrorKind;
use blosc2_core::registry::SchunkInfo;
use std::ffi::c_int;
use std::os::raw::c_void;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// `current_nchunk` of the super-chunk a context's parameters name, which
/// upstream reports to prefilters and postfilters as `nchunk` (callers
/// such as python-blosc2 set it before compressing); -1 without one.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk of this library.
pub(crate) unsafe fn current_nchunk(schunk: *mut c_void) -> i64 {
    let sc = schunk.cast::<crate::types::blosc2_schunk>();
    if sc.is_null() {
        return -1;
    }
    // SAFETY: a live super-chunk's public struct, which C may write at any
    // time (it lives in an UnsafeCell); an aligned i64 read atomically, as
    // threads sharing the super-chunk may store it concurrently.
    unsafe { AtomicI64::from_ptr(std::ptr::addr_of_mut!((*sc).current_nchunk)) }
        .load(Ordering::Relaxed)
}

/// Create a compression context; NULL when the parameters are refused.
#[no_mangle]
pub extern "C" fn blosc2_create_cctx(cparams: blosc2_cparams) -> *mut blosc2_context {
    ffi!({
        // upstream needs blosc2_init for these; a context works without
        crate::api::plugins::register_global_plugins();
        match new_cctx(cparams) {
            Some(b) => Box::into_raw(b).cast(),
            None => std::ptr::null_mut(),
        }
    })
}

/// Create a decompression context.
#[no_mangle]
pub extern "C" fn blosc2_create_dctx(dparams: blosc2_dparams) -> *mut blosc2_context {
    ffi!({
        crate::api::plugins::register_global_plugins();
        Box::into_raw(new_dctx(dparams)).cast()
    })
}

/// Free a context (NULL is ignored).
///
/// # Safety
/// `context` is NULL or came from `blosc2_create_cctx`/`dctx` and is not used again.
#[no_mangle]
pub unsafe extern "C" fn blosc2_free_ctx(context: *mut blosc2_context) {
    ffi!({
        if !context.is_null() {
            // SAFETY: the caller hands back a pointer from Box::into_raw, once.
            drop(unsafe { Box::from_raw(context.cast::<Context>()) });
        }
    })
}

/// # Safety
/// `ctx` is a live context or NULL; `cparams` is writable or NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_cparams(
    ctx: *mut blosc2_context,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let (Some(c), false) = (unsafe { ctx.cast::<Context>().as_ref() }, cparams.is_null())
        else {
            return err(ErrorKind::NullPointer);
        };
        // SAFETY: non-NULL and writable per contract.
        unsafe { cparams.write(c.cparams) };
        0
    })
}

/// # Safety
/// `ctx` is a live context or NULL; `dparams` is writable or NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_dparams(
    ctx: *mut blosc2_context,
    dparams: *mut blosc2_dparams,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let (Some(c), false) = (unsafe { ctx.cast::<Context>().as_ref() }, dparams.is_null())
        else {
            return err(ErrorKind::NullPointer);
        };
        // SAFETY: non-NULL and writable per contract.
        unsafe { dparams.write(c.dparams) };
        0
    })
}

/// Skip the flagged blocks in the next `blosc2_decompress_ctx` call.
///
/// # Safety
/// `maskout` points to `nblocks` bools; `ctx` is a live context.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_maskout(
    ctx: *mut blosc2_context,
    maskout: *mut bool,
    nblocks: c_int,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let Some(c) = (unsafe { ctx.cast::<Context>().as_ref() }) else {
            return err(ErrorKind::NullPointer);
        };
        if maskout.is_null() || nblocks < 0 {
            return err(ErrorKind::NullPointer);
        }
        // Read as bytes: a C `bool` other than 0 or 1 is not a Rust bool.
        // SAFETY: `maskout` (non-NULL) has `nblocks` readable bools, per the
        // contract.
        let raw = or_return!(unsafe { slice(maskout.cast::<u8>(), nblocks as usize) });
        let mask: Vec<bool> = raw.iter().map(|&b| b != 0).collect();
        c.with_kind(|k| match k {
            Kind::Decompress(d) => {
                d.set_maskout(&mask);
                0
            }
            Kind::Compress(_) => err(ErrorKind::InvalidParam),
        })
    })
}

/// Compress with a context.
///
/// # Safety
/// `src` has `srcsize` readable bytes, `dest` `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let Some(c) = (unsafe { context.cast::<Context>().as_ref() }) else {
            return err(ErrorKind::NullPointer);
        };
        // SAFETY: `src` has `srcsize` readable and `dest` `destsize` writable
        // bytes, per this function's contract.
        let (src, dest) = or_return!(unsafe { io_slices(src, srcsize, dest, destsize) });
        c.with_kind(|k| {
            let Kind::Compress(comp) = k else {
                trace_error!("Context is not meant for compression.  Giving up.");
                return err(ErrorKind::InvalidParam);
            };
            // SAFETY: `cparams.schunk` is NULL or a live super-chunk, as for
            // upstream.
            unsafe {
                show_plugins_schunk(c.cparams.schunk, &mut comp.schunk);
                comp.nchunk = current_nchunk(c.cparams.schunk);
            }
            code(comp.compress(src, dest))
        })
    })
}

/// Let plugins see the super-chunk a context's parameters name (upstream's
/// `cparams->schunk` / `dparams->schunk`): the b2nd plugins read its
/// geometry.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk of this library.
unsafe fn show_plugins_schunk(schunk: *mut c_void, slot: &mut Option<Arc<SchunkInfo>>) {
    // SAFETY: per the contract, a Handle whose first field `schunk` addresses.
    if let Some(h) = unsafe { schunk.cast::<crate::objects::schunk::Handle>().as_ref() } {
        h.core.plugin_info(slot);
    }
}

/// Build the input and output slices of a compression call.
///
/// # Safety
/// `src` is NULL or has `srcsize` readable bytes; `dest` is NULL or has
/// `destsize` writable bytes, not overlapping `src`.
pub(crate) unsafe fn io_slices<'a>(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> Result<(&'a [u8], &'a mut [u8]), ErrorKind> {
    if srcsize < 0 || destsize < 0 {
        return Err(ErrorKind::InvalidParam);
    }
    if dest.is_null() {
        return Err(ErrorKind::NullPointer);
    }
    // SAFETY: `src` has `srcsize` readable bytes and `dest` `destsize`
    // writable ones, not overlapping (the compression calls' contract).
    unsafe {
        Ok((
            bytes(src, srcsize as usize)?,
            bytes_mut(dest, destsize as usize)?,
        ))
    }
}

/// Decompress with a context.
///
/// # Safety
/// `src` has `srcsize` readable bytes, `dest` `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let Some(c) = (unsafe { context.cast::<Context>().as_ref() }) else {
            return err(ErrorKind::NullPointer);
        };
        // SAFETY: `dparams.schunk` is NULL or a live super-chunk, as for
        // upstream; `src` has `srcsize` readable bytes, per the contract.
        let lazy = or_return!(unsafe {
            crate::objects::schunk::resolve_lazy(c.dparams.schunk, src, srcsize, None)
        });
        let (src, srcsize) = or_return!(chunk_or_lazy(lazy.as_deref(), src, srcsize));
        c.with_kind(|k| {
            let Kind::Decompress(d) = k else {
                trace_error!("Context is not meant for decompression.  Giving up.");
                return err(ErrorKind::InvalidParam);
            };
            // SAFETY: `dparams.schunk` is NULL or a live super-chunk, as for
            // upstream; the caller's sizes describe the buffers.
            unsafe {
                show_plugins_schunk(c.dparams.schunk, &mut d.schunk);
                d.nchunk = current_nchunk(c.dparams.schunk);
                decompress_with(d, src, srcsize, dest, destsize)
            }
        })
    })
}

/// The chunk a decoding call reads: a resolved lazy chunk in place of
/// `src` (its length, the header's `int32_t` cbytes, always fits), or `src`.
fn chunk_or_lazy(
    lazy: Option<&[u8]>,
    src: *const c_void,
    srcsize: i32,
) -> Result<(*const c_void, i32), ErrorKind> {
    match lazy {
        None => Ok((src, srcsize)),
        Some(l) => {
            let n = i32::try_from(l.len()).map_err(|_| ErrorKind::TwoGbLimit)?;
            Ok((l.as_ptr().cast(), n))
        }
    }
}

/// Shared by the contextual and global decompression entry points.
///
/// # Safety
/// `src` is NULL or has `srcsize` readable bytes (a chunk's cbytes when
/// fewer); `dest` is NULL or has `destsize` writable bytes, not
/// overlapping `src`.
pub(crate) unsafe fn decompress_with(
    d: &mut Decompressor,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // A NULL destination of size 0 is fine for an empty chunk: upstream's
    // test_empty_buffer decompresses into (NULL, 0).
    if src.is_null() || (dest.is_null() && destsize != 0) {
        return err(ErrorKind::NullPointer);
    }
    if srcsize < 0 || destsize < 0 {
        return err(ErrorKind::InvalidParam);
    }
    // SAFETY: `src` has `srcsize` readable bytes, or a whole chunk when
    // that is less, per the contract.
    let s = or_return!(unsafe { chunk_slice(src, srcsize as usize) });
    // Only the chunk's own nbytes may be written, whatever destsize says.
    let header = or_return!(blosc2_core::chunk::ChunkHeader::read(s));
    let nbytes = header.nbytes.max(0) as usize;
    if nbytes > destsize as usize {
        return err(ErrorKind::WriteBuffer);
    }

    // SAFETY: `dest` has `destsize` >= nbytes writable bytes, disjoint from
    // `src`, per the contract.
    let out = or_return!(unsafe { bytes_mut(dest, nbytes) });
    code(d.decompress_read(header, s, out))
}

/// Decode `nitems` items from `start` with a context.
///
/// # Safety
/// `src` has `srcsize` readable bytes, `dest` `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let Some(c) = (unsafe { context.cast::<Context>().as_ref() }) else {
            return err(ErrorKind::NullPointer);
        };
        // SAFETY: `dparams.schunk` is NULL or a live super-chunk, as for
        // upstream; `src` has `srcsize` readable bytes, per the contract.
        let lazy = or_return!(unsafe {
            crate::objects::schunk::resolve_lazy(
                c.dparams.schunk,
                src,
                srcsize,
                Some((start, nitems, false)),
            )
        });
        let (src, srcsize) = or_return!(chunk_or_lazy(lazy.as_deref(), src, srcsize));
        c.with_kind(|k| {
            if let Kind::Decompress(d) = k {
                // SAFETY: `dparams.schunk` is NULL or a live super-chunk.
                unsafe {
                    show_plugins_schunk(c.dparams.schunk, &mut d.schunk);
                    d.nchunk = current_nchunk(c.dparams.schunk);
                }
            }
            // SAFETY: `src` has `srcsize` readable bytes (the lazy chunk's
            // own when resolved) and `dest` `destsize` writable, per the contract.
            unsafe { getitem_with(k, src, srcsize, start, nitems, dest, destsize, false) }
        })
    })
}

/// Like `blosc2_getitem_ctx` with byte offsets.
///
/// # Safety
/// `src` has `srcsize` readable bytes, `dest` `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_bytes_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: i32,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let Some(c) = (unsafe { context.cast::<Context>().as_ref() }) else {
            return err(ErrorKind::NullPointer);
        };
        // SAFETY: `dparams.schunk` is NULL or a live super-chunk, as for
        // upstream; `src` has `srcsize` readable bytes, per the contract.
        let lazy = or_return!(unsafe {
            crate::objects::schunk::resolve_lazy(
                c.dparams.schunk,
                src,
                srcsize,
                Some((start, nbytes, true)),
            )
        });
        let (src, srcsize) = or_return!(chunk_or_lazy(lazy.as_deref(), src, srcsize));
        c.with_kind(|k| {
            if let Kind::Decompress(d) = k {
                // SAFETY: `dparams.schunk` is NULL or a live super-chunk.
                unsafe {
                    show_plugins_schunk(c.dparams.schunk, &mut d.schunk);
                    d.nchunk = current_nchunk(c.dparams.schunk);
                }
            }
            // SAFETY: `src` has `srcsize` readable bytes (the lazy chunk's
            // own when resolved) and `dest` `destsize` writable, per the contract.
            unsafe { getitem_with(k, src, srcsize, start, nbytes, dest, destsize, true) }
        })
    })
}

/// # Safety
/// `src` is NULL or has `srcsize` readable bytes (a chunk's cbytes when
/// fewer); `dest` is NULL or has `destsize` writable bytes, not
/// overlapping `src`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn getitem_with(
    kind: &mut Kind,
    src: *const c_void,
    srcsize: i32,
    start: i32,
    count: i32,
    dest: *mut c_void,
    destsize: i32,
    bytes: bool,
) -> c_int {
    if src.is_null() || dest.is_null() {
        return err(ErrorKind::NullPointer);
    }
    if srcsize < 0 || destsize < 0 {
        return err(ErrorKind::InvalidParam);
    }
    // SAFETY: `src` has `srcsize` readable bytes, or a whole chunk when
    // that is less, per the contract.
    let s = or_return!(unsafe { chunk_slice(src, srcsize as usize) });
    let ts = match blosc2_core::chunk::ChunkHeader::read(s) {
        Ok(h) => h.typesize as i64,
        Err(e) => return err(e),
    };
    let want = if bytes {
        count as i64
    } else {
        count as i64 * ts
    };
    // Never hand out more of `dest` than the request needs.
    let len = want.clamp(0, i64::from(destsize));
    let len = or_return!(usize::try_from(len).map_err(|_| ErrorKind::InvalidParam));
    // SAFETY: `dest` has `destsize` >= len writable bytes, disjoint from
    // `src`, per the contract.
    let out = or_return!(unsafe { bytes_mut(dest, len) });
    let mut tmp;
    let d: &mut Decompressor = match kind {
        Kind::Decompress(d) => d,
        Kind::Compress(_) => {
            // upstream lets any context do getitem
            tmp = Decompressor::new(DParams::default());
            &mut tmp
        }
    };
    if bytes {
        code(d.getitem_bytes(s, start, count, out))
    } else {
        code(d.getitem(s, start, count, out))
    }
}

/// Upstream's `BLOSC2_CPARAMS_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_cparams_defaults() -> blosc2_cparams {
    ffi!({ blosc2_cparams::default() })
}

/// Upstream's `BLOSC2_DPARAMS_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_dparams_defaults() -> blosc2_dparams {
    ffi!({ blosc2_dparams::default() })
}
