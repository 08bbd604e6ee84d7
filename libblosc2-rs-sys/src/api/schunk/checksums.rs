//! Frame checksums (docs/checksums.md) at the C ABI: this library's own
//! functions, declared in `blosc2/blosc2-rs.h` with the `blosc2rs_` prefix.
//!
//! Separate from upstream's functions: nothing here is upstream's API, and
//! nothing upstream's functions do depends on it.

use super::call::with;
use crate::boundary::{err, ffi};
use crate::consts::*;
use crate::types::{blosc2_schunk, blosc2rs_verify_report};
use blosc2_core::error::ErrorKind;
use blosc2_core::frame::checksum::Damage;
use blosc2_core::schunk::{FrameCheck, SuperChunk, VerifyReport};
use std::ffi::{c_char, c_int};

fn state_code(f: FrameCheck) -> c_int {
    match f {
        FrameCheck::Unverified => BLOSC2RS_FRAME_UNVERIFIED,
        FrameCheck::Stale => BLOSC2RS_FRAME_STALE,
        FrameCheck::Sealed => BLOSC2RS_FRAME_SEALED,
        FrameCheck::MetalayersChanged => BLOSC2RS_FRAME_METALAYERS_CHANGED,
        FrameCheck::Corrupt(Damage::Seal) => BLOSC2RS_FRAME_CORRUPT_SEAL,
        FrameCheck::Corrupt(Damage::Header) => BLOSC2RS_FRAME_CORRUPT_HEADER,
        FrameCheck::Corrupt(Damage::ChunkCount) => BLOSC2RS_FRAME_CORRUPT_CHUNK_COUNT,
    }
}

/// The report as C sees it, and the code the verifying function returns:
/// 0 when nothing is damaged, `BLOSC2_ERROR_DATA` otherwise.
fn publish(r: &VerifyReport, nchunks: i64, out: &mut blosc2rs_verify_report) -> c_int {
    *out = blosc2rs_verify_report {
        frame_state: state_code(r.frame),
        nchunks,
        verified: r.verified as i64,
        corrupt: r.corrupt.len() as i64,
        stale: r.stale as i64,
        unverified: r.unverified as i64,
        first_corrupt: r.corrupt.first().map_or(-1, |&c| c as i64),
    };
    if r.ok() {
        0
    } else {
        err(ErrorKind::Data)
    }
}

/// Keep frame checksums on `schunk` from now on (`on`), or stop keeping
/// them: its frame is written anew with (or without) the `_b2sum` table
/// and the seal. Turning them on reads and hashes every chunk once.
/// Returns 0, or a negative `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2rs_schunk_set_checksums(
    schunk: *mut blosc2_schunk,
    on: bool,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk, per this
        // function's contract, as `with` needs.
        unsafe { with(schunk, |core| core.set_checksums(on)) }
    })
}

/// 1 when `schunk` keeps frame checksums (set on, or opened from a sealed
/// frame), 0 when not, or a negative `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2rs_schunk_get_checksums(schunk: *mut blosc2_schunk) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk, per this
        // function's contract, as `with` needs.
        unsafe { with(schunk, |core| Ok(c_int::from(core.checksums()))) }
    })
}

/// Whether reads of `schunk`'s chunks are checked against their digests
/// (the default where it keeps checksums): a chunk that does not match
/// fails with `BLOSC2_ERROR_DATA`. Returns 0, or a negative code.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library.
#[no_mangle]
pub unsafe extern "C" fn blosc2rs_schunk_set_verified_reads(
    schunk: *mut blosc2_schunk,
    on: bool,
) -> c_int {
    ffi!({
        // SAFETY: `schunk` is NULL or a live super-chunk, per this
        // function's contract, as `with` needs.
        unsafe {
            with(schunk, |core| {
                core.set_verified_reads(on);
                Ok(())
            })
        }
    })
}

/// Read every chunk of `schunk` and check it against its frame's
/// checksums; the counts go to `report`. Returns 0 when nothing is
/// damaged (a frame without checksums, or a stale one, included: see
/// `report->frame_state`), `BLOSC2_ERROR_DATA` when a chunk, the seal or
/// the header is, or another negative code.
///
/// # Safety
/// `schunk` is NULL or a live super-chunk made by this library; `report` is
/// NULL or one writable `blosc2rs_verify_report`, outside the super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2rs_schunk_verify(
    schunk: *mut blosc2_schunk,
    report: *mut blosc2rs_verify_report,
) -> c_int {
    ffi!({
        if report.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: `schunk` is NULL or live, as `with` needs; `report`
        // (non-NULL) is writable and not part of it, per the contract.
        unsafe {
            with(schunk, |core| {
                let r = core.verify();
                Ok(publish(&r, core.nchunks(), &mut *report))
            })
        }
    })
}

/// Open the frame at `urlpath` (a contiguous frame file at `offset`, or a
/// sparse frame directory), verify it as `blosc2rs_schunk_verify` does and
/// close it. Returns as that function, or the error of the open.
///
/// # Safety
/// `urlpath` is NULL or a NUL-terminated string; `report` is NULL or one
/// writable `blosc2rs_verify_report`.
#[no_mangle]
pub unsafe extern "C" fn blosc2rs_verify_frame(
    urlpath: *const c_char,
    offset: i64,
    report: *mut blosc2rs_verify_report,
) -> c_int {
    ffi!({
        if report.is_null() {
            return err(ErrorKind::NullPointer);
        }
        // SAFETY: `urlpath` is NULL or NUL-terminated, per the contract, as
        // ptr::urlpath needs.
        let Some(path) = (unsafe { crate::ptr::urlpath(urlpath) }) else {
            return err(ErrorKind::NullPointer);
        };
        let Ok(offset) = u64::try_from(offset) else {
            return err(ErrorKind::InvalidParam);
        };
        let io = blosc2_core::io::default_backend();
        match SuperChunk::open(&path, offset, io) {
            Ok(sc) => {
                // SAFETY: `report` (non-NULL) is writable, per the contract.
                publish(&sc.verify(), sc.nchunks(), unsafe { &mut *report })
            }
            Err(e) => err(e),
        }
    })
}
