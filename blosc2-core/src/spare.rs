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

use std::sync::Mutex;

/// Buffers smaller than this are cheap to make and are not kept.
const MIN_KEPT: usize = 64 << 10;
/// At most this many buffers, holding at most `MAX_KEPT_BYTES` in all.
const MAX_KEPT: usize = 8;
const MAX_KEPT_BYTES: usize = 64 << 20;

static KEPT: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// A buffer of at least `n` bytes: the smallest kept one that fits, or a
/// fresh zeroed one (calloc: its pages are touched only when written).
pub(crate) fn take(n: usize) -> Vec<u8> {
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
            return kept.swap_remove(i);
        }
    }
    vec![0u8; n]
}

/// Keep `v` for a later [`take`], when it is worth keeping and there is
/// room; else free it.
pub(crate) fn give(v: Vec<u8>) {
    if v.len() < MIN_KEPT || v.len() > MAX_KEPT_BYTES {
        return;
    }
    if let Ok(mut kept) = KEPT.try_lock() {
        let total: usize = kept.iter().map(Vec::len).sum();
        if kept.len() < MAX_KEPT && total + v.len() <= MAX_KEPT_BYTES {
            kept.push(v);
        }
    }
}

/// Make `v` at least `n` bytes long, giving back what it held when it was
/// too short. Its bytes are not zeroed.
pub(crate) fn grow(v: &mut Vec<u8>, n: usize) {
    if v.len() < n {
        give(std::mem::replace(v, take(n)));
    }
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
        let mut v = take(n);
        assert!(v.len() >= n);
        v[n - 1] = 7;
        let p = v.as_ptr();
        give(v);
        let w = take(n);
        // handed back as it was (unless another test took it meanwhile)
        if w.as_ptr() == p {
            assert_eq!(w[n - 1], 7);
        }
        assert!(w.len() >= n);
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
        grow(&mut v, 10);
        assert!(v.len() >= 10);
        // long enough already: kept as it is
        grow(&mut v, 2);
        assert!(v.len() >= 10);
    }
}
