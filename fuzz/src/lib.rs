//! Fuzz harness bodies, shared by the libFuzzer targets (`fuzz_targets/`) and
//! the stable replay/mutation runner (`src/bin/replay.rs`), so both exercise
//! exactly the same checks.
//!
//! Every check here is an invariant the core must hold on *any* input: no
//! panic, no out-of-bounds access, and agreement between the different ways of
//! reading the same chunk.

use blosc2_core::chunk::header::{filter_id, MAX_FILTERS};
use blosc2_core::chunk::{CParams, Compressor, DParams, Decompressor, SplitMode};

mod b2nd_open;
mod capi;
mod frames;
mod lazy_udio;
pub mod memio;
mod schunk_ops;
pub mod seeds;
mod vlblocks;
pub use b2nd_open::b2nd_open;
pub use capi::capi;
pub use frames::{build_container, open_frame_at, sframe, split_container};
pub use lazy_udio::lazy_udio;
pub use schunk_ops::schunk_ops;
pub use vlblocks::vlblocks;

/// Largest destination buffer the harness allocates, so a header claiming a
/// huge `nbytes` cannot make the fuzzer run out of memory.
pub const MAX_DEST: usize = 16 << 20;

/// `decompress_chunk`'s cap on the output a header may claim: enough for
/// the long matches and runs of real chunks (upstream's own fuzzer sizes
/// the output by the header too).
const CHUNK_DEST: usize = 64 << 20;

/// The bytes one block of a chunk decodes to, from its raw header (the
/// smaller of nbytes and blocksize): what a getitem call decodes, however
/// few items it asks for.
pub fn block_claim(chunk: &[u8]) -> usize {
    let at = |i: usize| {
        chunk.get(i..i + 4).map_or(0, |b| {
            i32::from_le_bytes([b[0], b[1], b[2], b[3]]).max(0) as usize
        })
    };
    at(4).min(at(8))
}

/// getitem is only asked of chunks whose blocks decode to at most this
/// (`CHUNK_DEST`, the output cap of whole decompressions). A 400-byte chunk
/// of run streams can declare 470 MB blocks, and reading one item of it
/// then runs its filters over all 470 MB, as upstream does: seconds of
/// legitimate work that would only report the fuzzer's time limit.
pub const GETITEM_BLOCK_CAP: usize = CHUNK_DEST;

/// Largest output decompressed a second time with two threads: a special
/// chunk claiming 64 MiB costs a 64 MiB fill per decompression, and the
/// threads split blocks the same way from a few blocks on, so comparing
/// past this size would mostly measure memset.
const COMPARE_THREADS_UP_TO: usize = 8 << 20;

/// Worst-case growth of a chunk over its data (upstream `BLOSC2_MAX_OVERHEAD`).
const MAX_OVERHEAD: usize = 32;

/// Most chunks a frame may claim for the harness to open it. A frame of a
/// few hundred bytes can claim 2^28 special chunks (its index is one
/// run-length chunk), which opening materializes as an index entry each:
/// gigabytes and seconds of legitimate work that only slow the fuzzer down.
pub const MAX_FRAME_CHUNKS: i64 = 1 << 20;

/// Whether `data`, read as a contiguous frame, claims at most
/// [`MAX_FRAME_CHUNKS`] chunks (or is no frame at all).
pub fn frame_is_small(data: &[u8]) -> bool {
    match blosc2_core::frame::header::FrameHeader::parse(data) {
        Ok(h) if h.chunksize > 0 => h.nbytes / i64::from(h.chunksize) <= MAX_FRAME_CHUNKS,
        // variable-size chunks: the index's own size says how many
        Ok(_) => h_index_claim(data) <= MAX_FRAME_CHUNKS,
        Err(_) => true,
    }
}

/// Chunks a variable-size frame's index claims (its chunk's nbytes / 8).
fn h_index_claim(data: &[u8]) -> i64 {
    let Ok(h) = blosc2_core::frame::header::FrameHeader::parse(data) else {
        return 0;
    };
    let at = (h.header_len as i64).saturating_add(h.cbytes.max(0));
    let Some(ih) = usize::try_from(at)
        .ok()
        .and_then(|a| data.get(a..a.checked_add(16)?))
    else {
        return 0;
    };
    i64::from(i32::from_le_bytes([ih[4], ih[5], ih[6], ih[7]])) / 8
}

/// Consumes bytes from the front of the input to make decisions; once the
/// input is exhausted it keeps answering zero, so every input is usable.
struct Knobs<'a> {
    data: &'a [u8],
}

impl<'a> Knobs<'a> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    fn rest(self) -> &'a [u8] {
        self.data
    }
}

thread_local! {
    /// Contexts kept from one input to the next, as applications keep
    /// theirs: a context starts its threads once, and starting them for
    /// every input would cost more than the work.
    static DECOMPRESSORS: std::cell::RefCell<Vec<Decompressor>> =
        std::cell::RefCell::new((1..=3).map(|n| Decompressor::new(DParams {
            nthreads: n,
            ..DParams::default()
        })).collect());
    /// `decompress_chunk`'s two outputs, allocated once per process:
    /// zeroing 64 MiB per input would cost more than most decompressions.
    /// Never zeroed between inputs either, so only the `n` bytes a
    /// successful decompression reports are ever compared (it writes all
    /// of them, or fails; a chunk of uninitialized values writes none, see
    /// `decompress_chunk`).
    static CHUNK_OUTPUTS: std::cell::RefCell<[Vec<u8>; 2]> =
        std::cell::RefCell::new([vec![0u8; CHUNK_DEST], vec![0u8; CHUNK_DEST]]);
    static COMPRESSORS: std::cell::RefCell<Vec<Compressor>> =
        std::cell::RefCell::new((1..=3).map(|n| Compressor::new(CParams {
            nthreads: n,
            ..CParams::default()
        })).collect());
}

/// Run `f` on this thread's kept decompressor with `nthreads` (1 to 3).
fn with_decompressor<T>(nthreads: i16, f: impl FnOnce(&mut Decompressor) -> T) -> T {
    DECOMPRESSORS.with(|d| f(&mut d.borrow_mut()[(nthreads.clamp(1, 3) - 1) as usize]))
}

/// Run `f` on this thread's kept compressor for `params.nthreads` (1 to
/// 3), set to `params`.
fn with_compressor<T>(params: CParams, f: impl FnOnce(&mut Compressor) -> T) -> T {
    COMPRESSORS.with(|c| {
        let c = &mut c.borrow_mut()[(params.nthreads.clamp(1, 3) - 1) as usize];
        c.set_params(params);
        f(c)
    })
}

/// Treat `data` as a chunk: decompress it with one and two threads and read
/// ranges of it with `getitem`/`getitem_bytes`. Any result is acceptable as
/// long as nothing panics and successful reads agree with each other.
pub fn decompress_chunk(data: &[u8]) {
    // The header's nbytes, read without trusting the rest of the header.
    let claimed = if data.len() >= 8 {
        i32::from_le_bytes([data[4], data[5], data[6], data[7]])
    } else {
        0
    };
    let dest_len = (claimed.max(0) as usize).min(CHUNK_DEST);
    // A chunk of uninitialized values decompresses without writing its
    // output (as upstream's): its bytes are made zeros here, the values a
    // fresh buffer would have, so nothing left from another input is read.
    let uninit = blosc2_core::chunk::ChunkHeader::read(data)
        .is_ok_and(|h| h.special_bits() == blosc2_core::chunk::Special::Uninit as u8);
    let settle = |r: blosc2_core::error::Result<usize>, out: &mut [u8]| {
        if let (Ok(n), true) = (r, uninit) {
            let len = out.len();
            out[..n.min(len)].fill(0);
        }
        r
    };

    CHUNK_OUTPUTS.with(|outs| {
        let [one, two] = &mut *outs.borrow_mut();
        let got1 = with_decompressor(1, |d| d.decompress(data, &mut one[..dest_len]));
        let got1 = settle(got1, one);
        if let Ok(n) = got1 {
            assert!(n <= dest_len, "decompress reported more than the buffer");
        }
        let mut got2 = Err(blosc2_core::error::ErrorKind::Failure);
        if dest_len <= COMPARE_THREADS_UP_TO {
            got2 = with_decompressor(2, |d| d.decompress(data, &mut two[..dest_len]));
            got2 = settle(got2, two);
            match (got1, got2) {
                (Ok(n1), Ok(n2)) => {
                    let (a, b) = (&one[..n1], &two[..n2]);
                    if a != b {
                        let at = a.iter().zip(b).position(|(x, y)| x != y);
                        panic!(
                            "1 and 2 threads disagree: lengths {n1} and {n2}, first difference at {at:?}"
                        );
                    }
                }
                (Ok(_), Err(e)) => {
                    panic!("decompress succeeded with 1 thread but failed with 2: {e:?}")
                }
                (Err(_), Ok(n)) => assert!(n <= dest_len),
                (Err(_), Err(_)) => {}
            }
        }
        let (full, spare) = match (got1, got2) {
            (Ok(n), _) => (Some(&one[..n]), &mut two[..]),
            (Err(_), Ok(n)) => (Some(&two[..n]), &mut one[..]),
            _ => (None, &mut two[..]),
        };
        // Too small a destination must be refused, not overrun.
        if dest_len > 0 {
            if let Ok(n) = with_decompressor(1, |d| d.decompress(data, &mut spare[..dest_len - 1])) {
                assert!(n < dest_len);
            }
        }
        check_getitem(data, full);
    });
}

/// Ranges of `data` read with `getitem` and `getitem_bytes` agree with
/// `full`, its decompressed output where that worked.
fn check_getitem(data: &[u8], full: Option<&[u8]>) {
    if block_claim(data) > GETITEM_BLOCK_CAP {
        return;
    }
    // Ranges derived from the tail of the input (least likely to be the
    // header, so they vary independently of it).
    let tail = if data.len() >= 8 {
        &data[data.len() - 8..]
    } else {
        data
    };
    let mut k = Knobs { data: tail };
    let start = k.u16() as i32 - 16;
    let count = k.u16() as i32 - 16;
    let typesize = data.get(3).copied().unwrap_or(1).max(1) as usize;

    let mut d = Decompressor::new(DParams::default());
    let items_len = (count.max(0) as usize * typesize).min(MAX_DEST);
    let mut dest = vec![0u8; items_len];
    if let Ok(n) = d.getitem(data, start, count, &mut dest) {
        assert!(n <= dest.len());
        // Zero items succeed whatever the start (as upstream), so only
        // non-empty reads say anything about the offsets.
        if let (Some(f), true) = (full, n > 0) {
            let at = start as usize * typesize;
            assert_eq!(
                &dest[..n],
                &f[at..at + n],
                "getitem disagrees with decompress"
            );
        }
    }

    // getitem_bytes wants multiples of the typesize; mostly give it those.
    let (bstart, bcount) = if k.byte() & 1 == 0 {
        (
            start.saturating_mul(typesize as i32),
            count.saturating_mul(typesize as i32),
        )
    } else {
        (start, count)
    };
    let bytes_len = (bcount.max(0) as usize).min(MAX_DEST);
    let mut dest = vec![0u8; bytes_len];
    if let Ok(n) = d.getitem_bytes(data, bstart, bcount, &mut dest) {
        assert!(n <= dest.len());
        if let (Some(f), true) = (full, n > 0) {
            let at = bstart as usize;
            assert_eq!(
                &dest[..n],
                &f[at..at + n],
                "getitem_bytes disagrees with decompress"
            );
        }
    }
}

/// Filters the roundtrip target picks from (0 = empty slot).
const FILTERS: [u8; 8] = [
    filter_id::NOFILTER,
    filter_id::SHUFFLE,
    filter_id::BITSHUFFLE,
    filter_id::DELTA,
    filter_id::TRUNC_PREC,
    filter_id::BYTEDELTA,
    filter_id::INT_TRUNC,
    filter_id::NOFILTER,
];

const CODECS: [u8; 5] = [0, 1, 2, 4, 5];

/// Parameters decided by the first bytes of the input; the rest is the data.
pub fn roundtrip_params(data: &[u8]) -> (CParams, &[u8], u32) {
    let mut k = Knobs { data };
    let compcode = CODECS[k.byte() as usize % CODECS.len()];
    let clevel = k.byte() % 10;
    let typesize = (k.u16() % 300) as i32 + 1;
    let mut filters = [0u8; MAX_FILTERS];
    let mut filters_meta = [0u8; MAX_FILTERS];
    let mask = k.byte();
    for i in 0..MAX_FILTERS {
        if mask & (1 << i) != 0 {
            filters[i] = FILTERS[k.byte() as usize % FILTERS.len()];
            // Small metas are the meaningful ones (shuffle streams, bits to
            // keep/drop, bytedelta typesize); keep some arbitrary ones too.
            let m = k.byte();
            filters_meta[i] = if m & 0x80 != 0 { m } else { m % 17 };
        }
    }
    let splitmode = SplitMode::from_i32((k.byte() % 4) as i32 + 1);
    let bs = k.byte();
    let blocksize = match bs % 4 {
        0 | 1 => 0,
        2 => (bs as i32 >> 2) * 16 + 1,
        _ => (k.u16() as i32) + 1,
    };
    let flags = k.byte();
    let use_dict = flags & 1 != 0;
    let nthreads = (flags >> 1) as i16 % 3 + 1;
    let extra = k.u32();
    let params = CParams {
        compcode,
        clevel,
        typesize,
        filters,
        filters_meta,
        splitmode,
        blocksize,
        use_dict,
        nthreads,
        ..CParams::default()
    };
    (params, k.rest(), extra)
}

/// Compress with parameters derived from the input, decompress, and check the
/// data comes back (exactly, unless a lossy filter is in the pipeline), and
/// that `getitem`/`getitem_bytes` agree with it.
pub fn roundtrip(input: &[u8]) {
    let (params, src, extra) = roundtrip_params(input);
    let lossy = params
        .filters
        .iter()
        .any(|&f| f == filter_id::TRUNC_PREC || f == filter_id::INT_TRUNC);
    let nthreads = params.nthreads;

    // Sometimes squeeze the destination: the compressor must then answer
    // "did not fit" (0) or an error, never write past the end.
    let squeeze = extra & 0x10000 != 0;
    let cap = if squeeze {
        (extra as usize & 0xffff) % (src.len() + MAX_OVERHEAD + 1)
    } else {
        src.len() + MAX_OVERHEAD
    };
    let mut chunk = vec![0u8; cap];
    let csize = match with_compressor(params, |c| c.compress(src, &mut chunk)) {
        Ok(0) => {
            assert!(
                squeeze,
                "{} bytes did not fit in nbytes + overhead",
                src.len()
            );
            return;
        }
        Ok(n) => n,
        Err(_) => return,
    };
    assert!(csize <= chunk.len());
    let chunk = &chunk[..csize];

    let mut out = vec![0u8; src.len()];
    let n = with_decompressor(nthreads, |d| d.decompress(chunk, &mut out))
        .expect("decompressing our own chunk failed");
    assert_eq!(n, src.len());
    if lossy {
        return;
    }
    assert!(out == src, "roundtrip changed the data");

    if src.is_empty() {
        return;
    }
    // A random byte range through getitem_bytes, in whole items of the
    // typesize the header records (huge typesizes are stored as 1).
    let ts = chunk[3].max(1) as usize;
    let a = (extra as usize >> 17) % src.len() / ts * ts;
    let len = ((extra as usize >> 5) & 0xfff) % (src.len() - a + 1) / ts * ts;
    let mut part = vec![0u8; len];
    let got = with_decompressor(nthreads, |d| {
        d.getitem_bytes(chunk, a as i32, len as i32, &mut part)
    })
    .expect("getitem_bytes on our own chunk failed");
    assert_eq!(got, len);
    assert!(
        part == src[a..a + len],
        "getitem_bytes returned other bytes"
    );

    // And an item range.
    let nitems = src.len() / ts;
    if nitems > 0 {
        let start = a / ts % nitems;
        let count = len / ts % (nitems - start + 1);
        let mut part = vec![0u8; count * ts];
        let got = with_decompressor(nthreads, |d| {
            d.getitem(chunk, start as i32, count as i32, &mut part)
        })
        .expect("getitem on our own chunk failed");
        assert_eq!(got, count * ts);
        assert!(
            part == src[start * ts..(start + count) * ts],
            "getitem returned other items"
        );
    }
}

/// Open `data` as a contiguous frame (as `blosc2_schunk_from_buffer`, both
/// ways), then read all it claims to hold: chunks, vlmetalayers, a slice,
/// and serialize it again. Errors are fine; panics are not.
pub fn open_frame(data: &[u8]) {
    use blosc2_core::schunk::SuperChunk;
    if !frame_is_small(data) {
        return;
    }
    for copy in [false, true] {
        let Ok(sc) = SuperChunk::from_buffer(data, copy) else {
            return;
        };
        let mut out = vec![0u8; (sc.chunksize().max(0) as usize).min(MAX_DEST)];
        // both ends: the last chunk is where short chunks and the
        // frame's end meet
        let n = sc.nchunks();
        for i in (0..n.min(64)).chain(n.saturating_sub(64).max(n.min(64))..n) {
            let _ = sc.chunk(i);
            let _ = sc.decompress_chunk(i, &mut out);
        }
        for m in sc.vlmetalayers.iter().take(8) {
            let _ = sc.vlmeta_get(&m.name);
        }
        let ts = sc.typesize().max(1) as i64;
        // frames may claim items of gigabytes: a slice of one would be zeroed
        let n = (sc.nbytes() / ts).min(4096).min((4 << 20) / ts);
        let mut buf = vec![0u8; (n * ts) as usize];
        let _ = sc.get_slice(0, n, &mut buf);
        let _ = sc.to_frame();
    }
}
