//! Large scratch buffers kept from one handle to the next.
//!
//! Safe Rust has no uninitialized buffers, so a fresh scratch buffer is
//! zero-filled: for a handle's first partial read of a 4 MiB chunk on disk
//! (a chunk-sized buffer with the needed blocks read into place) and its
//! first decode (block-sized buffers), that was a millisecond of memset and
//! page faults on every `open, read a slice, free`, five times the
//! reference's time, whose malloc hands back what the last handle freed
//! without touching it. Buffers a handle or context drops wait here for
//! the next one. Their bytes are whatever was last written: users of these
//! buffers only read bytes they wrote first.

use crate::error::{ErrorKind, Result};
use std::sync::Mutex;

/// Buffers smaller than this are cheap to make and are not kept.
const MIN_KEPT: usize = 64 << 10;
/// At most this many buffers, holding at most `MAX_KEPT_BYTES` in all.
const MAX_KEPT: usize = 8;
const MAX_KEPT_BYTES: usize = 64 << 20;

static KEPT: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// A fresh zeroed buffer of `n` bytes, or [`ErrorKind::MemoryAlloc`] when
/// the allocator cannot give them. Sizes come from headers, which a damaged
/// or hostile file can set to 2 GiB: on a 32-bit host that does not fit the
/// address space, and `vec!` would abort the host program. Stable Rust has
/// no fallible zeroed allocation, so the size is first reserved fallibly
/// and freed, then taken with `vec!` (calloc: pages are touched only when
/// written, which a reserve-and-fill would lose for every large buffer).
///
/// Between the two another thread may take the address space the probe
/// found (seen on i686: a 2 GiB probe succeeded and the `vec!` after it
/// aborted), so where address space is scarce, large buffers are reserved
/// fallibly and filled instead: slower, never an abort.
pub(crate) fn zeroed(n: usize) -> Result<Vec<u8>> {
    zeroed_items(n)
}

/// [`zeroed`] for `n` items of a `Pod` type.
pub(crate) fn zeroed_items<T: bytemuck::Pod>(n: usize) -> Result<Vec<T>> {
    let scarce = cfg!(not(target_pointer_width = "64"))
        && n.saturating_mul(std::mem::size_of::<T>()) > 64 << 20;
    if scarce {
        let mut v: Vec<T> = Vec::new();
        v.try_reserve_exact(n).map_err(|_| ErrorKind::MemoryAlloc)?;
        v.resize(n, T::zeroed());
        return Ok(v);
    }
    let mut probe: Vec<T> = Vec::new();
    probe
        .try_reserve_exact(n)
        .map_err(|_| ErrorKind::MemoryAlloc)?;
    // an optimized build drops an allocation nobody uses, and its failure
    // with it: the probe would always succeed, and `vec!` abort
    drop(std::hint::black_box(probe));
    Ok(vec![T::zeroed(); n])
}

/// A buffer of exactly `n` bytes: the smallest kept one that fits, cut
/// short (callers decode into all of a buffer they grew from empty), or a
/// fresh zeroed one (calloc: its pages are touched only when written).
/// Fails only as [`zeroed`] does.
pub(crate) fn take(n: usize) -> Result<Vec<u8>> {
    // try_lock: a process forked while another thread held the lock must
    // not wait for it forever
    if let Ok(mut kept) = KEPT.try_lock() {
        let best = kept
            .iter()
            .enumerate()
            .filter(|(_, v)| v.len() >= n)
            .min_by_key(|(_, v)| v.len())
            .map(|(i, _)| i);
        if let Some(i) = best {
            let mut v = kept.swap_remove(i);
            v.truncate(n);
            return Ok(v);
        }
    }
    zeroed(n)
}

/// Keep `v` for a later [`take`], when it is worth keeping and there is
/// room; else free it.
pub(crate) fn give(v: Vec<u8>) {
    if v.len() < MIN_KEPT || v.len() > MAX_KEPT_BYTES {
        return;
    }
    if let Ok(mut kept) = KEPT.try_lock() {
        // a buffer cut short by `take` still holds its whole allocation
        let total: usize = kept.iter().map(Vec::capacity).sum();
        if kept.len() < MAX_KEPT && total + v.capacity() <= MAX_KEPT_BYTES {
            kept.push(v);
        }
    }
}

/// Make `v` at least `n` bytes long, giving back what it held when it was
/// too short. Its bytes are not zeroed. Fails only as [`zeroed`] does,
/// leaving `v` as it was.
pub(crate) fn grow(v: &mut Vec<u8>, n: usize) -> Result<()> {
    if v.len() < n {
        give(std::mem::replace(v, take(n)?));
    }
    Ok(())
}

/// A scratch buffer that goes back to the kept ones when dropped.
#[derive(Default)]
pub(crate) struct Spare(pub(crate) Vec<u8>);

impl Drop for Spare {
    fn drop(&mut self) {
        give(std::mem::take(&mut self.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_buffer_serves_the_next_take() {
        // other tests share the kept buffers: use a size of its own
        let n = MIN_KEPT + 12_345;
        let mut v = take(n).unwrap();
        assert!(v.len() >= n);
        v[n - 1] = 7;
        let p = v.as_ptr();
        give(v);
        let w = take(n - 1).unwrap();
        // handed back as it was, cut to the size asked for (unless another
        // test took it meanwhile)
        if w.as_ptr() == p {
            assert_eq!(w[n - 2], 0);
        }
        assert_eq!(w.len(), n - 1);
    }

    #[test]
    fn small_and_huge_buffers_are_not_kept() {
        give(vec![1u8; 100]);
        give(vec![1u8; MAX_KEPT_BYTES + 1]);
        if let Ok(kept) = KEPT.lock() {
            assert!(kept
                .iter()
                .all(|v| v.len() >= MIN_KEPT && v.len() <= MAX_KEPT_BYTES));
        }
        let mut v = vec![3u8; 4];
        grow(&mut v, 10).unwrap();
        assert_eq!(v.len(), 10);
        // long enough already: kept as it is
        grow(&mut v, 2).unwrap();
        assert!(v.len() >= 10);
    }

    /// A size no address space holds is an error, not an abort.
    #[test]
    fn impossible_sizes_fail_softly() {
        assert_eq!(zeroed(usize::MAX).err(), Some(ErrorKind::MemoryAlloc));
        // (2 GiB on a 32-bit host, which a process there may well get)
        #[cfg(target_pointer_width = "64")]
        // (black_box: an optimized build may otherwise drop an allocation
        // nobody reads, and with it its failure)
        assert_eq!(
            std::hint::black_box(zeroed(isize::MAX as usize)).err(),
            Some(ErrorKind::MemoryAlloc)
        );
        assert_eq!(take(usize::MAX - 1).err(), Some(ErrorKind::MemoryAlloc));
        let mut v = vec![5u8; 3];
        assert_eq!(grow(&mut v, usize::MAX).err(), Some(ErrorKind::MemoryAlloc));
        assert_eq!(v, [5, 5, 5]);
        assert_eq!(zeroed(1000).unwrap(), vec![0u8; 1000]);
    }
}

#[cfg(test)]
mod decode_tests {
    use crate::chunk::header::filter_id;
    use crate::chunk::{CParams, Compressor, DParams, Decompressor};

    /// Found by `capi` (libFuzzer, session 11): getitem of a DELTA chunk
    /// past its first block decodes that block into a buffer grown from
    /// empty; a kept buffer longer than the block was handed out whole, and
    /// the block was decoded over all of it. Kept buffers are now cut to
    /// the size asked for.
    #[test]
    fn delta_getitem_after_a_larger_buffer_was_kept() {
        let data: Vec<u8> = (0..256 * 1024u32).map(|i| (i / 7) as u8).collect();
        let mut cp = CParams {
            typesize: 4,
            blocksize: 16384,
            ..CParams::default()
        };
        cp.filters[4] = filter_id::DELTA;
        let mut c = Compressor::new(cp);
        let mut chunk = vec![0u8; data.len() + 64];
        let n = c.compress(&data, &mut chunk).unwrap();
        chunk.truncate(n);
        for _ in 0..3 {
            super::give(vec![9u8; 1 << 20]);
            let mut d = Decompressor::new(DParams::default());
            let mut out = vec![0u8; 400];
            d.getitem_bytes(&chunk, 100_000, 400, &mut out).unwrap();
            assert_eq!(out, data[100_000..100_400]);
        }
    }
}
