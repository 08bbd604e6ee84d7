//! `b2nd_open`: arbitrary bytes as a contiguous frame holding a b2nd array
//! (`b2nd_from_cframe`), and as a bare `b2nd` metalayer.

use blosc2_core::b2nd::meta;
use blosc2_core::b2nd::Array;
use blosc2_core::schunk::SuperChunk;
use std::borrow::Borrow;

/// Largest array (items times typesize) read whole; bigger geometries are
/// skipped before any read so one input cannot stall the fuzzer on a
/// multi-GiB decode of mostly special chunks.
const MAX_ARRAY: u64 = 8 << 20;
/// Largest decoded chunk the slice reads may allocate (each chunk is
/// decoded padded to `extchunkshape`).
const MAX_CHUNK: u64 = 16 << 20;
/// Largest box one slice read asks for.
const MAX_BOX: u64 = 1 << 20;

/// The input's tail picks the slice boxes: it is the part of a frame (the
/// trailer and index) that changes least the geometry, so boxes vary
/// independently of what the metalayer says.
struct Tail<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Tail<'_> {
    fn next(&mut self) -> u64 {
        if self.data.is_empty() {
            return 0;
        }
        let b = self.data[self.data.len() - 1 - self.pos % self.data.len()];
        self.pos += 1;
        b as u64
    }
}

pub fn b2nd_open(data: &[u8]) {
    // Inputs that are bare metalayers (a corpus of its own) and frames whose
    // bytes start elsewhere both go through the decoder; a decoded metalayer
    // must report using no more bytes than it had, and re-encode to
    // something that decodes to the same values.
    if let Ok((m, used)) = meta::deserialize(data) {
        assert!(used <= data.len(), "metalayer used more bytes than given");
        if let Ok(again) = m.serialize() {
            let (m2, n2) = meta::deserialize(&again).expect("our own metalayer did not decode");
            assert_eq!(n2, again.len(), "our own metalayer was not read whole");
            // the dtype of an old caterva layer is written as the default
            assert_eq!(
                (&m2.shape, &m2.chunkshape, &m2.blockshape),
                (&m.shape, &m.chunkshape, &m.blockshape),
                "metalayer changed through serialize/deserialize"
            );
        }
    }

    if !crate::frame_is_small(data) {
        return;
    }
    let Ok(a) = Array::from_cframe(data, true) else {
        return;
    };
    check_array(&a, data);
}

/// Read an opened array whole (when small) and by boxes picked from the
/// end of `knobs`; boxes that read must agree with the whole. Shared by
/// the targets that open arrays other ways (sparse frames, frames at an
/// offset).
pub(crate) fn check_array<S: Borrow<SuperChunk>>(a: &Array<S>, knobs: &[u8]) {
    let data = knobs;
    let nd = a.ndim();
    let ts = a.typesize().max(0) as u64;
    let g = a.geometry();
    assert!(nd <= meta::MAX_DIM);
    assert_eq!(a.shape().len(), nd);
    let nbytes = (g.nitems as u64).checked_mul(ts);
    let chunk_bytes = (g.extchunknitems.max(0) as u64).checked_mul(ts);
    let small_chunks = matches!(chunk_bytes, Some(n) if n <= MAX_CHUNK);
    let _ = a.meta().serialize();

    // The whole array, only when its size is reasonable.
    let mut full: Option<Vec<u8>> = None;
    if let (Some(n), true) = (nbytes, small_chunks) {
        if n <= MAX_ARRAY {
            let mut buf = vec![0u8; n as usize];
            if a.to_cbuffer(&mut buf).is_ok() {
                full = Some(buf);
            }
            // one item short must be refused, not overrun
            if n > 0 {
                let mut short = vec![0u8; n as usize - 1];
                assert!(
                    a.to_cbuffer(&mut short).is_err(),
                    "to_cbuffer accepted a short buffer"
                );
            }
        }
    }

    // A few boxes from the tail bytes; when the whole array decoded, a box
    // that reads must equal the same items of the whole.
    let mut k = Tail { data, pos: 0 };
    let shape = a.shape().to_vec();
    for _ in 0..3 {
        let mut start = vec![0i64; nd];
        let mut stop = vec![0i64; nd];
        let mut items: u64 = 1;
        for i in 0..nd {
            let s = shape[i].max(0) as u64;
            let lo = (k.next() << 8 | k.next()) % (s + 1);
            let len = k.next() % (s - lo + 1);
            // keep the box within MAX_BOX items by shortening it
            let room = (MAX_BOX / items.max(1)).max(1);
            let len = len.min(room);
            start[i] = lo as i64;
            stop[i] = (lo + len) as i64;
            items = items.saturating_mul(len.max(1));
        }
        // some boxes land in a larger buffer, as a caller's sub-array would
        let pad = k.next() & 1;
        let bufshape: Vec<i64> = start
            .iter()
            .zip(&stop)
            .map(|(a, b)| b - a + pad as i64)
            .collect();
        let _ = a.slice_chunks(&start, &stop);
        if !small_chunks {
            continue;
        }
        let Some(buflen) = bufshape
            .iter()
            .try_fold(ts, |acc, &d| acc.checked_mul(d.max(0) as u64))
            // an empty box still gets a one-item buffer, and frames may
            // claim items of gigabytes (a 219-byte input asked for 1.6 GB)
            .filter(|&n| n <= MAX_BOX * 16 && ts <= MAX_BOX * 16)
        else {
            continue;
        };
        let mut buf = vec![0u8; buflen.max(ts) as usize];
        if a.get_slice_cbuffer(&start, &stop, &mut buf, &bufshape)
            .is_err()
        {
            continue;
        }
        // chunks of uninitialized items hold whatever the buffer did (as
        // upstream's): two reads of them need not agree
        let uninit = a.slice_chunks(&start, &stop).map_or(true, |ns| {
            ns.iter().any(|&n| {
                a.schunk()
                    .chunk(n)
                    .ok()
                    .and_then(|c| c.get(31).copied())
                    .is_none_or(|f| (f >> 4) & 7 == 4)
            })
        });
        if let (Some(f), true) = (&full, nd > 0 && ts > 0 && !uninit) {
            check_box(f, &shape, ts as usize, &start, &stop, &buf, &bufshape);
        }
    }
    // out-of-range boxes are refused
    if nd > 0 {
        let start = vec![0i64; nd];
        let mut stop = shape.clone();
        stop[0] = stop[0].saturating_add(1);
        assert!(a.slice_chunks(&start, &stop).is_err());
    }
}

/// Compare the box read into `buf` (shaped `bufshape`, box at the origin)
/// with the same items of the whole array `full`.
fn check_box(
    full: &[u8],
    shape: &[i64],
    ts: usize,
    start: &[i64],
    stop: &[i64],
    buf: &[u8],
    bufshape: &[i64],
) {
    let nd = shape.len();
    let len: Vec<i64> = start.iter().zip(stop).map(|(a, b)| b - a).collect();
    if len.contains(&0) {
        return;
    }
    let mut idx = vec![0i64; nd];
    loop {
        let mut at_full = 0i64;
        let mut at_buf = 0i64;
        for i in 0..nd {
            at_full = at_full * shape[i] + start[i] + idx[i];
            at_buf = at_buf * bufshape[i] + idx[i];
        }
        let (f, b) = (at_full as usize * ts, at_buf as usize * ts);
        assert_eq!(
            &buf[b..b + ts],
            &full[f..f + ts],
            "slice {start:?}..{stop:?} differs from the whole array at {idx:?}"
        );
        // next index of the box, last dimension fastest
        let mut i = nd;
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            idx[i] += 1;
            if idx[i] < len[i] {
                break;
            }
            idx[i] = 0;
        }
    }
}
