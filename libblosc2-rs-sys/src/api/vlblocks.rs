//! The VL-block chunk API of blosc2.h (3.x): chunks whose blocks each hold one
//! caller buffer of its own size.
//!
//! Ownership follows upstream's documentation: the decompressors allocate each
//! block with `malloc` and the caller releases it with `free`; nothing is
//! written to the output parameters when a call fails, and on failure every
//! block allocated by the call has been freed again.

use crate::boundary::{code, err, ffi, or_return, trace_error};
use crate::objects::context::{Context, Kind};
use crate::ptr::{bytes, bytes_mut, calloc_bytes, slice};
use crate::types::{blosc2_context, blosc2_schunk};
use blosc2_core::chunk::header::MAX_BUFFERSIZE;
use blosc2_core::chunk::vlblocks::{VlChunk, VlScratch};
use blosc2_core::chunk::{ChunkHeader, Decompressor};
use blosc2_core::error::ErrorKind;
use std::ffi::c_int;
use std::os::raw::c_void;
use std::ptr;

/// The `srcsize` bytes at `src` (a negative size reads as an empty buffer).
/// Unlike the Blosc1 calls, these take the buffer's real size, and upstream
/// checks the block starts against it rather than against `cbytes`.
///
/// # Safety
/// `src` is NULL or has `srcsize` readable bytes.
unsafe fn chunk_at<'a>(src: *const c_void, srcsize: i32) -> Result<&'a [u8], ErrorKind> {
    // SAFETY: `src` is NULL or has `srcsize` readable bytes, per the contract.
    unsafe { bytes(src, srcsize.max(0) as usize) }
}

/// The chunk at `src`, completed first when it is a lazy chunk of the
/// context's super-chunk (`blosc2_schunk_get_lazychunk` of a frame on disk),
/// as the reference decodes lazy VL-block chunks too.
///
/// # Safety
/// `src` is non-NULL and has `srcsize` readable bytes; `schunk` is NULL or a
/// live super-chunk.
unsafe fn full_chunk(
    schunk: *mut c_void,
    src: *const c_void,
    srcsize: i32,
    owned: &mut Option<Vec<u8>>,
) -> Result<&[u8], ErrorKind> {
    // SAFETY: `schunk` is NULL or a live super-chunk and `src` has `srcsize`
    // readable bytes, per this function's contract, as resolve_lazy needs.
    *owned = unsafe { crate::objects::schunk::resolve_lazy(schunk, src, srcsize, None) }?;
    match owned {
        Some(v) => Ok(v.as_slice()),
        // SAFETY: `src` has `srcsize` readable bytes, per this function's
        // contract.
        None => unsafe { chunk_at(src, srcsize) },
    }
}

/// A malloc()ed copy of block `j` (the caller frees it), and its size.
fn malloc_block(
    vl: &VlChunk,
    j: usize,
    d: &Decompressor,
    scratch: &mut VlScratch,
) -> Result<(*mut u8, usize), ErrorKind> {
    let n = vl.block_nbytes(j)?;
    let p = calloc_bytes(n)?;
    // SAFETY: `p` is a fresh zeroed block of n bytes that nothing else
    // references.
    let out = unsafe { bytes_mut(p.cast(), n) }?;
    let post = d.postfilter.as_deref().map(|f| (f, d.nchunk));
    if let Err(e) = vl.decode_block(j, out, scratch, post) {
        // SAFETY: p came from malloc above and was not handed out.
        unsafe { libc::free(p.cast()) };
        return Err(e);
    }
    Ok((p, n))
}

/// Compress `nblocks` buffers into one VL-block chunk, one block each.
/// Returns the chunk size, 0 when it does not fit in `destsize` bytes, or a
/// negative error code (`BLOSC2_ERROR_INVALID_PARAM` for a decompression
/// context, no blocks, or a NULL or empty block).
///
/// # Safety
/// `context` is NULL or a live context; `srcs` and `srcsizes` hold `nblocks`
/// entries, each `srcs[i]` with `srcsizes[i]` readable bytes; `dest` has
/// `destsize` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlcompress_ctx(
    context: *mut blosc2_context,
    srcs: *const *const c_void,
    srcsizes: *const i32,
    nblocks: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let Some(c) = (unsafe { context.cast::<Context>().as_ref() }) else {
            return err(ErrorKind::NullPointer);
        };
        c.with_kind(|k| {
            let Kind::Compress(comp) = k else {
                trace_error!("Context is not meant for compression.  Giving up.");
                return err(ErrorKind::InvalidParam);
            };
            if srcs.is_null() || srcsizes.is_null() || nblocks <= 0 {
                trace_error!("Invalid sources for VL-block compression.");
                return err(ErrorKind::InvalidParam);
            }
            let n = nblocks as usize;
            // SAFETY: `srcs` and `srcsizes` (non-NULL) hold `nblocks` entries,
            // per the contract.
            let (ptrs, sizes) =
                or_return!(unsafe { slice(srcs, n).and_then(|p| Ok((p, slice(srcsizes, n)?))) });
            let mut blocks = Vec::with_capacity(n);
            let mut total = 0i64;
            for (i, (&p, &len)) in ptrs.iter().zip(sizes).enumerate() {
                if p.is_null() || len <= 0 {
                    trace_error!("Invalid VL block at index {i}.");
                    return err(ErrorKind::InvalidParam);
                }
                total += len as i64;
                if total > MAX_BUFFERSIZE as i64 {
                    return err(ErrorKind::MaxBufsizeExceeded);
                }
                // SAFETY: `srcs[i]` (non-NULL) has `srcsizes[i]` (> 0) readable
                // bytes, per the contract.
                match unsafe { bytes(p, len as usize) } {
                    Ok(b) => blocks.push(b),
                    Err(e) => return err(e),
                }
            }
            if dest.is_null() {
                return err(ErrorKind::NullPointer);
            }
            if destsize < 0 {
                return err(ErrorKind::MaxBufsizeExceeded);
            }
            // SAFETY: `dest` (non-NULL) has `destsize` (>= 0) writable bytes,
            // disjoint from the sources, per the contract.
            match unsafe { bytes_mut(dest, destsize as usize) } {
                Ok(out) => code(comp.vlcompress(&blocks, out)),
                Err(e) => err(e),
            }
        })
    })
}

/// Decompress every block of a VL-block chunk: `dests[i]` receives a newly
/// malloc()ed buffer (release it with `free`) and `destsizes[i]` its size.
/// Returns the number of blocks, or a negative error code
/// (`BLOSC2_ERROR_INVALID_PARAM` when the chunk has regular blocks or more
/// than `maxblocks` blocks).
///
/// # Safety
/// `context` is NULL or a live context; `src` has `srcsize` readable bytes;
/// `dests` and `destsizes` have `maxblocks` writable entries.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dests: *mut *mut c_void,
    destsizes: *mut i32,
    maxblocks: i32,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let Some(c) = (unsafe { context.cast::<Context>().as_ref() }) else {
            return err(ErrorKind::NullPointer);
        };
        c.with_kind(|k| {
            let Kind::Decompress(d) = k else {
                trace_error!("Context is not meant for decompression.  Giving up.");
                return err(ErrorKind::InvalidParam);
            };
            if dests.is_null() || destsizes.is_null() || maxblocks <= 0 {
                trace_error!("Invalid destinations for VL-block decompression.");
                return err(ErrorKind::InvalidParam);
            }
            if src.is_null() {
                return err(ErrorKind::NullPointer);
            }
            let mut owned = None;
            // SAFETY: `srcsize` readable bytes per the contract.
            let vl = or_return!(
                unsafe { full_chunk(c.dparams.schunk, src, srcsize, &mut owned) }
                    .and_then(VlChunk::parse)
            );
            let n = vl.nblocks();
            let count = match c_int::try_from(n) {
                Ok(count) if count <= maxblocks => count,
                _ => {
                    trace_error!("Not enough output entries for VL-block decompression.");
                    return err(ErrorKind::InvalidParam);
                }
            };
            // Every block gets its buffer first, so they can be decoded in
            // parallel; any failure frees them all.
            let mut got: Vec<(*mut u8, usize)> = Vec::with_capacity(n);
            let free_all = |got: &[(*mut u8, usize)]| {
                for &(p, _) in got {
                    // SAFETY: allocated below and not handed out.
                    unsafe { libc::free(p.cast()) };
                }
            };
            // each block's size is a positive int32_t of the chunk's index
            let mut sizes: Vec<i32> = Vec::with_capacity(n);
            for len in vl.block_sizes() {
                let Ok(size) = i32::try_from(len) else {
                    free_all(&got);
                    return err(ErrorKind::InvalidHeader);
                };
                sizes.push(size);
                match calloc_bytes(len) {
                    Ok(p) => got.push((p, len)),
                    Err(e) => {
                        free_all(&got);
                        return err(e);
                    }
                }
            }
            let mut outs: Vec<(usize, &mut [u8])> = Vec::with_capacity(n);
            for (j, &(p, len)) in got.iter().enumerate() {
                // SAFETY: each block is a fresh zeroed allocation of `len`
                // bytes, referenced by this slice only until decoding ends.
                match unsafe { bytes_mut(p.cast(), len) } {
                    Ok(b) => outs.push((j, b)),
                    Err(e) => {
                        free_all(&got);
                        return err(e);
                    }
                }
            }
            // SAFETY: `dparams.schunk` is NULL or a live super-chunk.
            let nchunk = unsafe { crate::api::context::current_nchunk(c.dparams.schunk) };
            let post = d.postfilter.as_deref().map(|f| (f, nchunk));
            let nthreads = d.params().nthreads.max(1) as usize;
            if let Err(e) = vl.decode_many(outs, nthreads, post) {
                free_all(&got);
                return err(e);
            }
            for (j, (&(p, _), &size)) in got.iter().zip(&sizes).enumerate() {
                // SAFETY: j < n <= maxblocks writable entries per the contract.
                unsafe {
                    *dests.add(j) = p.cast();
                    *destsizes.add(j) = size;
                }
            }
            count
        })
    })
}

/// The number of blocks of a VL-block chunk, from its header alone.
/// Returns 0, or a negative error code (`BLOSC2_ERROR_INVALID_PARAM` when the
/// chunk has regular blocks or a pointer is NULL).
///
/// # Safety
/// `src` is NULL or has `srcsize` readable bytes; `nblocks` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlchunk_get_nblocks(
    src: *const c_void,
    srcsize: i32,
    nblocks: *mut i32,
) -> c_int {
    ffi!({
        if src.is_null() || nblocks.is_null() {
            trace_error!("src and nblocks must not be NULL.");
            return err(ErrorKind::InvalidParam);
        }
        // SAFETY: `srcsize` readable bytes per the contract.
        let h = or_return!(unsafe { chunk_at(src, srcsize) }.and_then(ChunkHeader::read));
        if !h.is_vlblocks() {
            trace_error!("Chunk does not use VL blocks.");
            return err(ErrorKind::InvalidParam);
        }
        // SAFETY: non-NULL and writable per the contract.
        unsafe { nblocks.write(h.blocksize) };
        0
    })
}

/// Decode block `nblock` of a chunk with a decompression context.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk; `src` is NULL or has `srcsize`
/// readable bytes; `dest` and `destsize` are writable.
unsafe fn block_with(
    d: &Decompressor,
    schunk: *mut c_void,
    src: *const c_void,
    srcsize: i32,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    if src.is_null() {
        return err(ErrorKind::NullPointer);
    }
    let mut owned = None;
    // SAFETY: `srcsize` readable bytes per the contract.
    let vl = or_return!(
        unsafe { full_chunk(schunk, src, srcsize, &mut owned) }.and_then(VlChunk::parse)
    );
    if nblock < 0 || nblock as usize >= vl.nblocks() {
        trace_error!("nblock ({nblock}) out of range [0, {}).", vl.nblocks());
        return err(ErrorKind::InvalidParam);
    }
    match malloc_block(&vl, nblock as usize, d, &mut VlScratch::default()) {
        Ok((p, n)) => {
            // a block's size is a positive int32_t of the chunk's index
            let Ok(size) = i32::try_from(n) else {
                // SAFETY: malloc()ed by malloc_block and not handed out.
                unsafe { libc::free(p.cast()) };
                return err(ErrorKind::InvalidHeader);
            };
            // SAFETY: both are non-NULL and writable per the contract.
            unsafe {
                dest.write(p);
                destsize.write(size);
            }
            size
        }
        Err(e) => err(e),
    }
}

/// Decompress only block `nblock` of a VL-block chunk into a newly malloc()ed
/// `*dest` (release it with `free`) of `*destsize` bytes. Returns the block
/// size, or a negative error code (`BLOSC2_ERROR_INVALID_PARAM` when the chunk
/// has regular blocks or `nblock` is out of range).
///
/// # Safety
/// `context` is NULL or a live context; `src` has `srcsize` readable bytes;
/// `dest` and `destsize` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_block_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref; otherwise a live context per contract.
        let Some(c) = (unsafe { context.cast::<Context>().as_ref() }) else {
            return err(ErrorKind::NullPointer);
        };
        c.with_kind(|k| {
            let Kind::Decompress(d) = k else {
                trace_error!("Context is not meant for decompression.  Giving up.");
                return err(ErrorKind::InvalidParam);
            };
            if dest.is_null() || destsize.is_null() {
                trace_error!("dest and destsize must not be NULL.");
                return err(ErrorKind::InvalidParam);
            }
            let schunk = c.dparams.schunk;
            // SAFETY: `schunk` is NULL or a live super-chunk, `src` has
            // `srcsize` readable bytes and `dest`/`destsize` are writable
            // (non-NULL above), per the contract, as block_with needs.
            unsafe {
                d.nchunk = crate::api::context::current_nchunk(schunk);
                block_with(d, schunk, src, srcsize, nblock, dest, destsize)
            }
        })
    })
}

/// Decompress only block `nblock` of chunk `nchunk` of a super-chunk into a
/// newly malloc()ed `*dest` (release it with `free`) of `*destsize` bytes.
/// Returns the block size, or a negative error code.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk of this library; `dest` and
/// `destsize` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    ffi!({
        if schunk.is_null() || dest.is_null() || destsize.is_null() {
            trace_error!("schunk, dest, and destsize must not be NULL.");
            return err(ErrorKind::InvalidParam);
        }
        let mut chunk: *mut u8 = ptr::null_mut();
        let mut needs_free = false;
        // SAFETY: a live super-chunk per the contract; the out pointers are locals.
        let cbytes = unsafe {
            crate::api::schunk::blosc2_schunk_get_chunk(schunk, nchunk, &mut chunk, &mut needs_free)
        };
        if cbytes < 0 {
            return cbytes;
        }
        if chunk.is_null() || cbytes == 0 {
            trace_error!("Chunk {nchunk} is not initialized.");
            return err(ErrorKind::InvalidParam);
        }
        // SAFETY: the super-chunk is live, so its dctx is NULL or a live context.
        let dctx = unsafe { (*schunk).dctx };
        // SAFETY: `dctx` is NULL or a live context (above); NULL checked by
        // as_ref.
        let rc = match unsafe { dctx.cast::<Context>().as_ref() } {
            Some(cx) => cx.with_kind(|k| match k {
                // SAFETY: `chunk` holds `cbytes` bytes; the out pointers are
                // writable per the contract.
                Kind::Decompress(d) => unsafe {
                    d.nchunk = nchunk;
                    block_with(
                        d,
                        ptr::null_mut(),
                        chunk.cast(),
                        cbytes,
                        nblock,
                        dest,
                        destsize,
                    )
                },
                Kind::Compress(_) => err(ErrorKind::InvalidParam),
            }),
            None => err(ErrorKind::InvalidParam),
        };
        if needs_free {
            // SAFETY: blosc2_schunk_get_chunk malloc()ed it for us to free.
            unsafe { libc::free(chunk.cast()) };
        }
        rc
    })
}
