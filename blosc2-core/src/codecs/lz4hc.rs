//! LZ4HC encoder (the `BLOSC_LZ4HC` compressor). Its output is a plain LZ4
//! block, decoded by [`super::lz4::decompress`] /
//! [`super::lz4::decompress_with_dict`].
//!
//! Like the fast LZ4 encoder this is the C lz4 library (1.10.0, via
//! `lz4-sys`): no Rust crate has an HC mode, and using the same library as the
//! reference gives byte-identical streams at every level. The Blosc `clevel`
//! is LZ4HC's compression level as is (1..=9; lz4 clamps larger values to 12
//! and treats values below 1 as its default, 9).
//!
//! Same return convention as [`super::lz4`]: `Ok(0)` means "did not fit".

// One of the places lib.rs allows `unsafe`: the C lz4 library's HC encoder.
#![allow(unsafe_code)]

// FFI is confined to the private `ffi` module; every unsafe block says why it holds.
#![deny(clippy::undocumented_unsafe_blocks)]

use super::lz4::MAX_INPUT_SIZE;
use crate::error::{ErrorKind, Result};
use std::cell::RefCell;

/// Compresses `input` as one LZ4 block at HC level `clevel`.
///
/// Uses a per-thread [`Lz4HcCompressor`]: an HC state is about 256 KiB,
/// which lz4's own one-shot `LZ4_compress_HC` would allocate on every call.
pub fn compress(clevel: u8, input: &[u8], output: &mut [u8]) -> Result<usize> {
    with_thread_ctx(|ctx| ctx.compress(clevel, input, output))
}

/// Compresses `input` as one LZ4 block at HC level `clevel`, allowed to
/// reference `dict` (its last 64 KiB). Decode with
/// [`super::lz4::decompress_with_dict`] and the same dictionary.
pub fn compress_with_dict(
    clevel: u8,
    dict: &[u8],
    input: &[u8],
    output: &mut [u8],
) -> Result<usize> {
    with_thread_ctx(|ctx| ctx.compress_with_dict(clevel, dict, input, output))
}

fn with_thread_ctx(f: impl FnOnce(&mut Lz4HcCompressor) -> Result<usize>) -> Result<usize> {
    thread_local! {
        static CTX: RefCell<Option<Lz4HcCompressor>> = const { RefCell::new(None) };
    }
    CTX.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.is_none() {
                *slot = Some(Lz4HcCompressor::new()?);
            }
            match slot.as_mut() {
                Some(ctx) => f(ctx),
                None => Err(ErrorKind::MemoryAlloc),
            }
        }
        Err(_) => f(&mut Lz4HcCompressor::new()?),
    })
}

fn check_input(input: &[u8]) -> Result<()> {
    if input.len() > MAX_INPUT_SIZE {
        return Err(ErrorKind::TwoGbLimit);
    }
    Ok(())
}

/// A reusable LZ4HC state; keep one per worker thread.
pub struct Lz4HcCompressor {
    state: ffi::StreamHc,
}

impl Lz4HcCompressor {
    /// Allocates the HC state (about 256 KiB).
    pub fn new() -> Result<Self> {
        Ok(Lz4HcCompressor {
            state: ffi::StreamHc::new().ok_or(ErrorKind::MemoryAlloc)?,
        })
    }

    /// Same as the free [`compress`]; the state is fully re-initialised, so
    /// the output equals lz4's `LZ4_compress_HC` byte for byte.
    pub fn compress(&mut self, clevel: u8, input: &[u8], output: &mut [u8]) -> Result<usize> {
        check_input(input)?;
        Ok(self
            .state
            .compress_ext_state(input, output, i32::from(clevel)))
    }

    /// Same as the free [`compress_with_dict`]. The state is reset and
    /// re-primed with `dict` for every block, so blocks reference only the
    /// dictionary and stay independently decodable.
    pub fn compress_with_dict(
        &mut self,
        clevel: u8,
        dict: &[u8],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize> {
        check_input(input)?;
        check_input(dict)?;
        self.state.reset_fast(i32::from(clevel));
        self.state.load_dict(dict);
        Ok(self.state.compress_continue(input, output))
    }
}

/// The FFI to lz4's HC encoder. Slices in, so pointer/length pairs always
/// describe live buffers; lengths are checked against `LZ4_MAX_INPUT_SIZE`
/// by the callers and output capacities clamped to `c_int`.
mod ffi {
    use std::os::raw::{c_char, c_int, c_void};
    use std::ptr::NonNull;

    fn cap(len: usize) -> c_int {
        len.min(c_int::MAX as usize) as c_int
    }

    fn len(s: &[u8]) -> c_int {
        s.len() as c_int
    }

    #[repr(C)]
    pub(super) struct Lz4StreamHc {
        _opaque: [u8; 0],
    }

    // Where the symbols come from: see `lz4::ffi`.
    #[cfg_attr(feature = "system-lz4", link(name = "lz4"))]
    extern "C" {
        fn LZ4_createStreamHC() -> *mut Lz4StreamHc;
        fn LZ4_freeStreamHC(stream: *mut Lz4StreamHc) -> c_int;
        fn LZ4_resetStreamHC_fast(stream: *mut Lz4StreamHc, level: c_int);
        fn LZ4_loadDictHC(stream: *mut Lz4StreamHc, dict: *const c_char, dict_size: c_int)
            -> c_int;
        fn LZ4_compress_HC_continue(
            stream: *mut Lz4StreamHc,
            src: *const c_char,
            dst: *mut c_char,
            src_size: c_int,
            dst_cap: c_int,
        ) -> c_int;
        fn LZ4_compress_HC_extStateHC(
            state: *mut c_void,
            src: *const c_char,
            dst: *mut c_char,
            src_size: c_int,
            dst_cap: c_int,
            level: c_int,
        ) -> c_int;
    }

    /// Owned `LZ4_streamHC_t`, which is also a valid, aligned and big enough
    /// state for `LZ4_compress_HC_extStateHC`. It remembers the address of
    /// the last loaded dictionary, so `load_dict` and `compress_continue` are
    /// only ever called back to back under one borrow of that dictionary.
    pub(super) struct StreamHc(NonNull<Lz4StreamHc>);

    // SAFETY: plain heap memory owned exclusively by this value; lz4 has no
    // thread affinity.
    unsafe impl Send for StreamHc {}

    impl StreamHc {
        pub(super) fn new() -> Option<Self> {
            // SAFETY: allocates and initialises a stream, or returns NULL.
            NonNull::new(unsafe { LZ4_createStreamHC() }).map(StreamHc)
        }

        pub(super) fn compress_ext_state(
            &mut self,
            src: &[u8],
            dst: &mut [u8],
            level: i32,
        ) -> usize {
            // SAFETY: the state is a live LZ4_streamHC_t that lz4 fully
            // re-initialises; src/dst valid for the given lengths; lz4 writes
            // at most dst_cap bytes and returns 0 when they do not suffice.
            let n = unsafe {
                LZ4_compress_HC_extStateHC(
                    self.0.as_ptr().cast(),
                    src.as_ptr().cast(),
                    dst.as_mut_ptr().cast(),
                    len(src),
                    cap(dst.len()),
                    level,
                )
            };
            n.max(0) as usize
        }

        pub(super) fn reset_fast(&mut self, level: i32) {
            // SAFETY: valid, exclusively borrowed stream.
            unsafe { LZ4_resetStreamHC_fast(self.0.as_ptr(), level) };
        }

        pub(super) fn load_dict(&mut self, dict: &[u8]) {
            // SAFETY: valid stream; lz4 reads at most the last 64 KiB of
            // `dict` and keeps its address only for the immediately following
            // `compress_continue`, made while `dict` is still borrowed.
            unsafe { LZ4_loadDictHC(self.0.as_ptr(), dict.as_ptr().cast(), len(dict)) };
        }

        pub(super) fn compress_continue(&mut self, src: &[u8], dst: &mut [u8]) -> usize {
            // SAFETY: as for `compress_ext_state`; the dictionary loaded just
            // before is still alive.
            let n = unsafe {
                LZ4_compress_HC_continue(
                    self.0.as_ptr(),
                    src.as_ptr().cast(),
                    dst.as_mut_ptr().cast(),
                    len(src),
                    cap(dst.len()),
                )
            };
            n.max(0) as usize
        }
    }

    impl Drop for StreamHc {
        fn drop(&mut self) {
            // SAFETY: pointer from LZ4_createStreamHC, freed exactly once.
            unsafe { LZ4_freeStreamHC(self.0.as_ptr()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lz4;
    use super::*;

    fn sample(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| ((i / 11) as u8) ^ if i % 5 == 0 { (i * 31) as u8 } else { 0 })
            .collect()
    }

    #[test]
    fn round_trip_all_levels() {
        let input = sample(70_000);
        let mut prev = usize::MAX;
        for clevel in 1..=9 {
            let mut c = vec![0u8; input.len()];
            let n = compress(clevel, &input, &mut c).unwrap();
            assert!(n > 0 && n < input.len());
            // HC beats the fast encoder at its best setting.
            let fast = lz4::compress(9, &input, &mut vec![0u8; input.len()]).unwrap();
            assert!(n <= fast, "clevel {clevel}: hc {n} fast {fast}");
            prev = prev.min(n);
            let mut d = vec![0u8; input.len()];
            assert_eq!(lz4::decompress(&c[..n], &mut d).unwrap(), input.len());
            assert_eq!(d, input);
        }
        assert!(prev > 0);
    }

    // lz4 1.10.0's streams: a system liblz4 may be another version.
    #[cfg(feature = "bundled-lz4")]
    #[test]
    fn same_streams_as_reference() {
        let input = lz4::golden_input();
        for clevel in 1..=9 {
            let mut c = vec![0u8; input.len()];
            let n = compress(clevel, &input, &mut c).unwrap();
            let expected = if clevel <= 2 {
                (4597, 0x46f5_304c)
            } else {
                (4574, 0xd684_51e5)
            };
            assert_eq!((n, zlib_rs::crc32(0, &c[..n])), expected, "clevel {clevel}");
        }
    }

    #[test]
    fn round_trip_dict() {
        let dict = sample(20_000);
        let input: Vec<u8> = dict[5_000..]
            .iter()
            .chain(dict[..9_000].iter())
            .copied()
            .collect();
        for clevel in [1, 5, 9] {
            let mut c = vec![0u8; input.len()];
            let n = compress_with_dict(clevel, &dict, &input, &mut c).unwrap();
            let plain = compress(clevel, &input, &mut vec![0u8; input.len()]).unwrap();
            assert!(n > 0 && n < plain, "dict {n} plain {plain}");
            let mut d = vec![0u8; input.len()];
            assert_eq!(
                lz4::decompress_with_dict(&dict, &c[..n], &mut d).unwrap(),
                input.len()
            );
            assert_eq!(d, input);
            let mut c2 = vec![0u8; input.len()];
            assert_eq!(
                compress_with_dict(clevel, &dict, &input, &mut c2).unwrap(),
                n
            );
            assert_eq!(c2[..n], c[..n]);
        }
    }

    #[test]
    fn output_too_small_is_zero() {
        let input = sample(10_000);
        assert_eq!(compress(9, &input, &mut [0u8; 8]).unwrap(), 0);
        assert_eq!(
            compress_with_dict(9, &input[..500], &input, &mut [0u8; 8]).unwrap(),
            0
        );
        assert_eq!(compress(9, &input, &mut []).unwrap(), 0);
    }
}
