//! `capi`: the exported C functions of `libblosc2-rs-sys`, called in-process
//! the way a C caller would: raw pointers into exactly-sized heap buffers (so
//! AddressSanitizer sees any access past them), sizes chosen by the input
//! and sometimes smaller than needed, NULL where upstream allows it. Every
//! call must return an error code or NULL; everything allocated is freed.
//!
//! Input: `[flags:u8][a:u16][b:u16][squeeze:u16]` then the payload, used as
//! a chunk, a contiguous frame and a b2nd frame (flags bits 2-3 pick which,
//! 3 = all). Bit 0 squeezes output buffers by `squeeze` bytes; bit 1 passes
//! NULL for optional out pointers; `a` and `b` pick item ranges.

use crate::Knobs;
use libblosc2_rs_sys::{
    b2nd_free, b2nd_from_cframe, b2nd_get_slice_cbuffer, b2nd_to_cbuffer,
};
use libblosc2_rs_sys::{
    blosc1_decompress, blosc1_getitem, blosc2_decompress, blosc2_getitem,
};
use libblosc2_rs_sys::{
    blosc1_cbuffer_metainfo, blosc1_cbuffer_sizes, blosc1_cbuffer_validate, blosc2_cbuffer_complib,
    blosc2_cbuffer_sizes, blosc2_cbuffer_versions,
};
use libblosc2_rs_sys::{
    blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_from_buffer,
    blosc2_schunk_get_slice_buffer, blosc2_schunk_to_buffer, blosc2_vlmeta_get,
    blosc2_vlmeta_get_names,
};
use libblosc2_rs_sys::types::b2nd_array_t;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;

/// Largest output buffer handed to a call (chunks may claim 2 GiB).
const CAP: usize = 2 << 20;
/// Chunks decompressed at each end of a super-chunk.
const ENDS: i64 = 16;

struct Opts {
    squeeze: usize,
    nulls: bool,
    a: i32,
    b: i32,
}

impl Opts {
    /// An output size for `need` bytes: exact, or squeezed below it.
    fn size(&self, need: usize) -> usize {
        need.min(CAP).saturating_sub(self.squeeze)
    }
}

pub fn capi(data: &[u8]) {
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(|| libblosc2_rs_sys::blosc2_init());
    let mut k = Knobs { data };
    let flags = k.byte();
    let a = k.u16() as i32 - 64;
    let b = k.u16() as i32 - 64;
    let sq = k.u16() as usize;
    let o = Opts {
        squeeze: if flags & 1 != 0 { sq % 64 + 1 } else { 0 },
        nulls: flags & 2 != 0,
        a,
        b,
    };
    let payload = k.rest();
    match (flags >> 2) & 3 {
        0 => chunk_calls(payload, &o),
        1 => schunk_calls(payload, &o),
        2 => b2nd_calls(payload, &o),
        _ => {
            chunk_calls(payload, &o);
            schunk_calls(payload, &o);
            b2nd_calls(payload, &o);
        }
    }
}

/// A heap buffer of exactly `len` bytes (a Vec's capacity may be larger,
/// which would hide an over-read from ASan).
fn exact(src: &[u8]) -> Box<[u8]> {
    src.to_vec().into_boxed_slice()
}

fn out_or_null<T>(p: &mut T, nulls: bool) -> *mut T {
    if nulls {
        ptr::null_mut()
    } else {
        p
    }
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn chunk_calls(payload: &[u8], o: &Opts) {
    let src = exact(payload);
    let len = src.len();
    let sp = src.as_ptr() as *const c_void;
    // The header functions may read 16 bytes: a C caller only calls them
    // on something that long.
    if len >= 16 {
        let (mut nb, mut cb, mut bs) = (0i32, 0i32, 0i32);
        // SAFETY: 16 readable bytes; out pointers are NULL or locals.
        unsafe {
            blosc2_cbuffer_sizes(
                sp,
                out_or_null(&mut nb, o.nulls),
                &mut cb,
                out_or_null(&mut bs, o.nulls),
            );
            let (mut n1, mut c1, mut b1) = (0usize, 0usize, 0usize);
            blosc1_cbuffer_sizes(sp, &mut n1, out_or_null(&mut c1, o.nulls), &mut b1);
            let (mut ts, mut fl) = (0usize, 0 as c_int);
            blosc1_cbuffer_metainfo(sp, out_or_null(&mut ts, o.nulls), &mut fl);
            let (mut v, mut vl) = (0 as c_int, 0 as c_int);
            blosc2_cbuffer_versions(sp, &mut v, out_or_null(&mut vl, o.nulls));
            let name = blosc2_cbuffer_complib(sp);
            if !name.is_null() {
                let _ = std::ffi::CStr::from_ptr(name);
            }
        }
    }
    let mut nbytes = 0usize;
    // SAFETY: `len` readable bytes; a writable local.
    let valid = unsafe { blosc1_cbuffer_validate(sp, len, &mut nbytes) } == 0;

    // blosc2_decompress: sized by what the header claims, sometimes short
    let claim = if len >= 8 {
        le_i32(&src, 4).max(0) as usize
    } else {
        0
    };
    let mut dest = vec![0u8; o.size(claim)].into_boxed_slice();
    let dp = if dest.is_empty() && o.nulls {
        ptr::null_mut()
    } else {
        dest.as_mut_ptr() as *mut c_void
    };
    // SAFETY: `len` readable and `dest.len()` writable bytes.
    let rc = unsafe { blosc2_decompress(sp, len as i32, dp, dest.len() as i32) };
    assert!(
        rc <= dest.len() as i32,
        "blosc2_decompress claims {rc} bytes"
    );

    // The Blosc1 calls trust the header's cbytes as the source size: a C
    // caller only makes them on a buffer validate accepted.
    if valid {
        let mut dest = vec![0u8; o.size(nbytes)].into_boxed_slice();
        // SAFETY: validated: cbytes == len readable bytes; dest writable.
        let rc = unsafe { blosc1_decompress(sp, dest.as_mut_ptr() as *mut c_void, dest.len()) };
        assert!(rc <= dest.len() as i32);
    }

    // getitem over an input-chosen range, into a buffer sized for it
    let ts = if len >= 4 { src[3].max(1) as usize } else { 1 };
    let count = o.b.max(0) as usize;
    let need = count.saturating_mul(ts);
    if need <= CAP && crate::block_claim(&src) <= crate::GETITEM_BLOCK_CAP {
        let mut dest = vec![0u8; o.size(need)].into_boxed_slice();
        // SAFETY: `len` readable and `dest.len()` writable bytes.
        let rc = unsafe {
            blosc2_getitem(
                sp,
                len as i32,
                o.a,
                o.b,
                dest.as_mut_ptr() as *mut c_void,
                dest.len() as i32,
            )
        };
        assert!(rc <= dest.len() as i32, "blosc2_getitem claims {rc} bytes");
        // blosc1_getitem trusts the buffer to hold nitems items
        if valid && o.squeeze == 0 && dest.len() == need {
            // SAFETY: validated source; `need` writable bytes.
            unsafe { blosc1_getitem(sp, o.a, o.b, dest.as_mut_ptr() as *mut c_void) };
        }
    }
}

fn schunk_calls(payload: &[u8], o: &Opts) {
    if payload.is_empty() || !crate::frame_is_small(payload) {
        return;
    }
    for copy in [true, false] {
        let mut buf = exact(payload);
        // SAFETY: `buf.len()` readable bytes that outlive the super-chunk.
        let sc = unsafe { blosc2_schunk_from_buffer(buf.as_mut_ptr(), buf.len() as i64, copy) };
        if sc.is_null() {
            continue;
        }
        // SAFETY: a live super-chunk until blosc2_schunk_free below.
        unsafe {
            let (nchunks, chunksize, typesize, nbytes) =
                ((*sc).nchunks, (*sc).chunksize, (*sc).typesize, (*sc).nbytes);
            let ends = (0..nchunks.min(ENDS))
                .chain(nchunks.saturating_sub(ENDS).max(nchunks.min(ENDS))..nchunks);
            let need = chunksize.max(0) as usize;
            let mut dest = vec![0u8; o.size(need)].into_boxed_slice();
            for i in ends {
                let rc = blosc2_schunk_decompress_chunk(
                    sc,
                    i,
                    dest.as_mut_ptr() as *mut c_void,
                    dest.len() as i32,
                );
                assert!(rc <= dest.len() as i32);
            }
            // out-of-range chunk numbers are refused
            let rc = blosc2_schunk_decompress_chunk(
                sc,
                nchunks,
                dest.as_mut_ptr() as *mut c_void,
                dest.len() as i32,
            );
            assert!(rc < 0, "chunk {nchunks} of {nchunks} decoded");

            // a slice of items, into a buffer of exactly its size
            let ts = typesize.max(1) as i64;
            let nitems = nbytes / ts;
            let start = (o.a as i64).clamp(-1, nitems);
            let stop = start.saturating_add(o.b as i64).min(nitems + 1);
            if let Some(bytes) = stop
                .checked_sub(start)
                .and_then(|n| n.checked_mul(ts))
                .filter(|&n| n >= 0 && n as usize <= CAP)
            {
                let mut dest = vec![0u8; bytes as usize].into_boxed_slice();
                blosc2_schunk_get_slice_buffer(sc, start, stop, dest.as_mut_ptr() as *mut c_void);
            }

            let n = (*sc).nvlmetalayers.max(0) as usize;
            let mut names: Vec<*mut c_char> = vec![ptr::null_mut(); n];
            if blosc2_vlmeta_get_names(sc, names.as_mut_ptr()) >= 0 {
                for &name in &names {
                    let mut content: *mut u8 = ptr::null_mut();
                    let mut clen = 0i32;
                    if blosc2_vlmeta_get(sc, name, &mut content, &mut clen) >= 0
                        && !content.is_null()
                    {
                        libc::free(content.cast());
                    }
                }
            }
            let mut content: *mut u8 = ptr::null_mut();
            let mut clen = 0i32;
            assert!(blosc2_vlmeta_get(sc, c"no such name".as_ptr(), &mut content, &mut clen) < 0);
            assert!(blosc2_vlmeta_get(sc, ptr::null(), &mut content, &mut clen) < 0);

            let mut frame: *mut u8 = ptr::null_mut();
            let mut needs_free = false;
            let flen = blosc2_schunk_to_buffer(sc, &mut frame, &mut needs_free);
            if flen > 0 && !frame.is_null() {
                let _ = std::slice::from_raw_parts(frame, flen as usize)
                    .iter()
                    .fold(0u8, |x, &y| x ^ y);
                if needs_free {
                    libc::free(frame.cast());
                }
            }
            assert!(blosc2_schunk_free(sc) >= 0);
        }
        drop(buf);
    }
}

fn b2nd_calls(payload: &[u8], o: &Opts) {
    if payload.is_empty() || !crate::frame_is_small(payload) {
        return;
    }
    let copy = o.a & 1 != 0;
    let mut buf = exact(payload);
    let mut arr: *mut b2nd_array_t = ptr::null_mut();
    // SAFETY: readable buffer outliving the array; a writable out pointer.
    let rc = unsafe { b2nd_from_cframe(buf.as_mut_ptr(), buf.len() as i64, copy, &mut arr) };
    if rc < 0 || arr.is_null() {
        assert!(arr.is_null(), "b2nd_from_cframe failed but gave an array");
        return;
    }
    // SAFETY: a live array until b2nd_free.
    unsafe {
        let nd = ((*arr).ndim.max(0) as usize).min(16);
        let ts = (*(*arr).sc).typesize.max(0) as u64;
        let shape_all = (*arr).shape;
        let shape = &shape_all[..nd];
        let total = shape
            .iter()
            .try_fold(ts, |acc, &d| acc.checked_mul(d.max(0) as u64));
        if let Some(n) = total.filter(|&n| n as usize <= CAP) {
            let mut out = vec![0u8; o.size(n as usize)].into_boxed_slice();
            let p = if out.is_empty() && o.nulls {
                ptr::null_mut()
            } else {
                out.as_mut_ptr() as *mut c_void
            };
            let rc = b2nd_to_cbuffer(arr, p, out.len() as i64);
            assert!(
                rc < 0 || out.len() as u64 >= n,
                "b2nd_to_cbuffer filled a short buffer"
            );
        }
        // a box from the range knobs, dimension by dimension
        let mut start = vec![0i64; nd];
        let mut stop = vec![0i64; nd];
        let mut items: u64 = 1;
        for i in 0..nd {
            let s = shape[i].max(0);
            let lo = ((o.a as i64 >> i) & 0xff) % (s + 2) - (i == 0 && o.b < -32) as i64;
            let l = ((o.b as i64).unsigned_abs() as i64 >> i) % (s + 2);
            start[i] = lo;
            stop[i] = lo.saturating_add(l);
            items = items.saturating_mul(l.max(1) as u64);
        }
        let bufshape: Vec<i64> = start
            .iter()
            .zip(&stop)
            .map(|(a, b)| (b - a).max(0))
            .collect();
        let need = items.saturating_mul(ts.max(1));
        if need as usize <= CAP {
            let mut out = vec![0u8; o.size(need as usize).max(1)].into_boxed_slice();
            let sp = if o.nulls && nd > 0 {
                ptr::null()
            } else {
                start.as_ptr()
            };
            b2nd_get_slice_cbuffer(
                arr,
                sp,
                stop.as_ptr(),
                out.as_mut_ptr() as *mut c_void,
                bufshape.as_ptr(),
                out.len() as i64,
            );
        }
        assert!(b2nd_free(arr) >= 0);
    }
    drop(buf);
}
