//! Malformed frames must be refused with an error: never a panic, never an
//! endless loop, never a read outside the frame.
//!
//! The conditions covered include those upstream C-Blosc2 tests for
//! (offsets index pointing outside the frame, trailer length too large, too
//! small or past the frame, a trailer vlmetalayer count of 0xffff or over
//! the ceiling, metalayer and vlmetalayer content lengths near `i32::MAX`, a
//! chunk whose `cbytes` runs past the frame, a sparse chunk file truncated
//! behind the library's back, a negative reorder index), plus truncations
//! at every length, lying header fields and single-byte corruption sweeps.
//! Every frame is opened every way a user can: from a buffer (copy and
//! no-copy), from a file, and from a file at an offset behind other bytes.

use blosc2_core::chunk::{CParams, ChunkHeader, Compressor};
use blosc2_core::error::ErrorKind;
use blosc2_core::schunk::{Storage, SuperChunk};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const ITEMS: usize = 256; // int32 items per chunk
const NCHUNKS: usize = 4;
const EXT: usize = 32; // extended chunk header length
const HEADER_MINLEN: usize = 87;
/// Fixed positions in the frame header (spec: cframe-format.rst).
const POS_HEADER_LEN: usize = 11;
const POS_FRAME_LEN: usize = 16;
const POS_FLAGS: usize = 25;
const POS_FRAME_TYPE: usize = 26;
const POS_NBYTES: usize = 30;
const POS_CBYTES: usize = 39;
const POS_TYPESIZE: usize = 48;
const POS_CHUNKSIZE: usize = 58;
const POS_NFILTERS: usize = 70;
/// A pass slower than this is reported on stderr. Not asserted: tests say
/// nothing about speed (a loaded or emulated host is slow), and a frame that
/// made us loop for ever would still stop the suite at its timeout.
const SLOW: Duration = Duration::from_secs(20);

fn report_if_slow(t0: Instant, what: &str) {
    if t0.elapsed() >= SLOW {
        eprintln!("note: {what} took {:?}", t0.elapsed());
    }
}

fn items(seed: i32) -> Vec<u8> {
    (0..ITEMS as i32)
        .flat_map(|i| (seed * 1_000_003 + i * (seed % 5 + 1)).to_le_bytes())
        .collect()
}

fn cparams() -> CParams {
    CParams {
        typesize: 4,
        ..CParams::default()
    }
}

fn mem_storage() -> Storage {
    Storage {
        contiguous: true,
        cparams: cparams(),
        ..Storage::default()
    }
}

/// A valid in-memory frame: a metalayer, `n` chunks (the second one all
/// zeros, stored as a special offset) and a vlmetalayer.
fn good_schunk(n: usize) -> SuperChunk {
    let mut sc = SuperChunk::new(mem_storage()).expect("new");
    sc.meta_add("ovrfl", &[0xde, 0xad, 0xbe, 0xef])
        .expect("meta_add");
    for i in 0..n {
        let d = if i == 1 {
            vec![0u8; ITEMS * 4]
        } else {
            items(i as i32 + 1)
        };
        sc.append_buffer(&d).expect("append");
    }
    let payload: Vec<u8> = (0..64u8).map(|i| 0xa5 ^ i).collect();
    sc.vlmeta_add("vlovr", &payload, None).expect("vlmeta_add");
    sc
}

fn good_frame() -> Vec<u8> {
    good_schunk(NCHUNKS).to_frame().expect("to_frame")
}

fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}
fn be_i64(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().unwrap())
}
fn put_be_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}
fn put_be_i64(b: &mut [u8], at: usize, v: i64) {
    b[at..at + 8].copy_from_slice(&v.to_be_bytes());
}
fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn put_le_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Where the parts of a valid frame are.
#[derive(Debug, Clone, Copy)]
struct Layout {
    header_len: usize,
    frame_len: usize,
    cbytes: usize,
    idx_pos: usize,
    idx_cbytes: usize,
    trailer_off: usize,
}

fn layout(f: &[u8]) -> Layout {
    let header_len = be_i32(f, POS_HEADER_LEN) as usize;
    let frame_len = be_i64(f, POS_FRAME_LEN) as usize;
    let cbytes = be_i64(f, POS_CBYTES) as usize;
    let sparse = f[POS_FRAME_TYPE] & 0x0f == 1;
    let idx_pos = if sparse {
        header_len
    } else {
        header_len + cbytes
    };
    let idx_cbytes = le_i32(f, idx_pos + 12) as usize;
    let tl = u32::from_be_bytes(f[frame_len - 22..frame_len - 18].try_into().unwrap()) as usize;
    Layout {
        header_len,
        frame_len,
        cbytes,
        idx_pos,
        idx_cbytes,
        trailer_off: frame_len - tl,
    }
}

/// Compress little-endian int64 offsets into an index chunk.
fn index_chunk(offsets: &[i64]) -> Vec<u8> {
    let raw: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    let mut c = Compressor::new(CParams {
        typesize: 8,
        ..CParams::default()
    });
    let mut out = vec![0u8; raw.len() + EXT];
    let n = c.compress(&raw, &mut out).expect("compress index");
    out.truncate(n);
    out
}

fn decode_index(f: &[u8]) -> Vec<i64> {
    let l = layout(f);
    let c = &f[l.idx_pos..l.idx_pos + l.idx_cbytes];
    let nb = ChunkHeader::read(c).expect("index header").nbytes as usize;
    let mut raw = vec![0u8; nb];
    blosc2_core::chunk::Decompressor::new(Default::default())
        .decompress(c, &mut raw)
        .expect("index");
    raw.chunks_exact(8)
        .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// The frame with its index chunk replaced by `idx` (the frame length
/// field follows; everything else is kept byte for byte).
fn with_index_chunk(f: &[u8], idx: &[u8]) -> Vec<u8> {
    let l = layout(f);
    let mut out = f[..l.idx_pos].to_vec();
    out.extend_from_slice(idx);
    out.extend_from_slice(&f[l.trailer_off..l.frame_len]);
    let len = out.len() as i64;
    put_be_i64(&mut out, POS_FRAME_LEN, len);
    out
}

fn with_offsets(f: &[u8], offsets: &[i64]) -> Vec<u8> {
    with_index_chunk(f, &index_chunk(offsets))
}

/// A unique scratch path under the system temp dir.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "b2-frame-malformed-{}-{}-{}",
        std::process::id(),
        tag,
        n
    ))
}

/// Removes a scratch path when dropped, also when a check panics.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        remove(&self.0);
    }
}

fn remove(p: &Path) {
    if p.is_dir() {
        let _ = std::fs::remove_dir_all(p);
    } else {
        let _ = std::fs::remove_file(p);
    }
}

/// Read everything an opened super-chunk claims (bounded: garbage sizes
/// must not make the test allocate gigabytes). Returns the first error.
fn read_all(sc: &SuperChunk) -> Result<(), ErrorKind> {
    let mut first: Result<(), ErrorKind> = Ok(());
    let mut note = |r: Result<(), ErrorKind>| {
        if first.is_ok() {
            first = r;
        }
    };
    let cap = 1 << 20;
    let mut dest = vec![0u8; (sc.chunksize().max(0) as usize).min(cap)];
    for i in 0..sc.nchunks().min(64) {
        note(sc.chunk(i).map(|_| ()));
        note(sc.decompress_chunk(i, &mut dest).map(|_| ()));
    }
    let ts = sc.typesize().max(1) as i64;
    let n = (sc.nbytes() / ts).min(cap as i64 / ts);
    let mut buf = vec![0u8; (n * ts) as usize];
    note(sc.get_slice(0, n, &mut buf));
    // a small slice in the middle of every chunk (the partial-read path)
    let cs = sc.chunksize().max(1) as i64 / ts;
    for i in 0..sc.nchunks().min(64) {
        let a = i * cs + cs / 3;
        let b = (a + 5).min(sc.nbytes() / ts);
        if a < b {
            let mut s = vec![0u8; ((b - a) * ts) as usize];
            note(sc.get_slice(a, b, &mut s));
        }
    }
    let names: Vec<String> = sc.vlmetalayers.iter().map(|m| m.name.clone()).collect();
    for name in names.iter().take(16) {
        note(sc.vlmeta_get(name).map(|_| ()));
    }
    note(sc.to_frame().map(|_| ()));
    first
}

/// (how it was opened, open result, first read error when it opened)
type Run = (&'static str, Result<(), ErrorKind>, Result<(), ErrorKind>);

/// How each way of opening a frame ended.
#[derive(Debug, Default)]
struct Outcome {
    runs: Vec<Run>,
}

impl Outcome {
    /// No way of opening succeeded.
    fn all_refused_at_open(&self) -> bool {
        self.runs.iter().all(|r| r.1.is_err())
    }
    /// Every way either refused to open or failed some read.
    fn all_errored(&self) -> bool {
        self.runs.iter().all(|r| r.1.is_err() || r.2.is_err())
    }
}

/// With FRAME_MALFORMED_DUMP=DIR set, every malformed frame is also saved
/// there (named after its case) to try it on the reference library.
fn dump(frame: &[u8], what: &str) {
    if let Some(dir) = std::env::var_os("FRAME_MALFORMED_DUMP") {
        let name: String = what
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(Path::new(&dir).join(format!("{name}.b2frame")), frame);
    }
}

/// Open `frame` from a buffer (copy and no-copy), from a file, and from a
/// file at offset 7; read everything that opened.
fn exercise(frame: &[u8], what: &str) -> Outcome {
    dump(frame, what);
    let t0 = Instant::now();
    let mut out = Outcome::default();
    for (how, copy) in [("buffer-nocopy", false), ("buffer-copy", true)] {
        match SuperChunk::from_buffer(frame, copy) {
            Ok(sc) => out.runs.push((how, Ok(()), read_all(&sc))),
            Err(e) => out.runs.push((how, Err(e), Ok(()))),
        }
    }
    let p = scratch("file");
    let _cleanup = Cleanup(p.clone());
    for (how, offset) in [("file", 0usize), ("file-at-offset", 7)] {
        let mut bytes = b"PREFIX!".to_vec()[..offset].to_vec();
        bytes.extend_from_slice(frame);
        std::fs::write(&p, &bytes).expect("write scratch frame");
        match SuperChunk::open(&p, offset as u64, blosc2_core::io::default_backend()) {
            Ok(sc) => out.runs.push((how, Ok(()), read_all(&sc))),
            Err(e) => out.runs.push((how, Err(e), Ok(()))),
        }
    }
    remove(&p);
    report_if_slow(t0, what);
    out
}

#[track_caller]
fn refused_at_open(frame: &[u8], what: &str) {
    let o = exercise(frame, what);
    assert!(
        o.all_refused_at_open(),
        "{what}: must be refused at open: {o:?}"
    );
}

#[track_caller]
fn errors_somewhere(frame: &[u8], what: &str) {
    let o = exercise(frame, what);
    assert!(o.all_errored(), "{what}: must give an error: {o:?}");
}

// ---------------------------------------------------------------------------

#[test]
fn the_good_frame_opens_every_way() {
    let f = good_frame();
    let o = exercise(&f, "good");
    for r in &o.runs {
        assert_eq!(r.1, Ok(()), "{}", r.0);
        assert_eq!(r.2, Ok(()), "{}", r.0);
    }
    let l = layout(&f);
    assert_eq!(l.frame_len, f.len());
    assert_eq!(decode_index(&f).len(), NCHUNKS);
    // rebuilding with the same offsets gives a frame that still works
    let same = with_offsets(&f, &decode_index(&f));
    let o = exercise(&same, "good-rebuilt");
    assert!(o.runs.iter().all(|r| r.1.is_ok() && r.2.is_ok()), "{o:?}");
}

#[test]
fn truncated_at_every_length() {
    let f = good_frame();
    for cut in 0..f.len() {
        refused_at_open(&f[..cut], &format!("truncated to {cut} of {}", f.len()));
    }
}

#[test]
fn header_len_lies() {
    let f = good_frame();
    let l = layout(&f);
    for v in [
        i32::MIN,
        -1,
        0,
        1,
        HEADER_MINLEN as i32 - 1,
        l.frame_len as i32,
        l.frame_len as i32 + 1,
        i32::MAX,
    ] {
        let mut g = f.clone();
        put_be_i32(&mut g, POS_HEADER_LEN, v);
        refused_at_open(&g, &format!("header_len {v}"));
    }
    // shifted by a few bytes: chunk and index positions no longer line up
    for d in [-3i32, -1, 1, 2, 17] {
        let mut g = f.clone();
        put_be_i32(&mut g, POS_HEADER_LEN, l.header_len as i32 + d);
        errors_somewhere(&g, &format!("header_len {:+}", d));
    }
}

#[test]
fn frame_len_lies() {
    let f = good_frame();
    let l = layout(&f);
    for v in [
        i64::MIN,
        -1,
        0,
        1,
        HEADER_MINLEN as i64,
        l.frame_len as i64 - 1,
        l.frame_len as i64 + 1,
        l.frame_len as i64 + 4096,
        i64::MAX,
    ] {
        let mut g = f.clone();
        put_be_i64(&mut g, POS_FRAME_LEN, v);
        // frame_len - 1 inside a file with more bytes after it is a frame
        // whose trailer is misplaced; everything else lies about the size
        refused_at_open(&g, &format!("frame_len {v}"));
    }
}

#[test]
fn header_cbytes_lies() {
    let f = good_frame();
    let l = layout(&f);
    for v in [
        i64::MIN,
        -1,
        l.frame_len as i64,
        l.frame_len as i64 * 4,
        i64::MAX,
        i64::MAX - l.header_len as i64 + 1,
    ] {
        let mut g = f.clone();
        put_be_i64(&mut g, POS_CBYTES, v);
        refused_at_open(&g, &format!("cbytes {v}"));
    }
    // the index is found at header_len + cbytes: any other value misses it
    for d in [-1i64, 1, 16, -(l.cbytes as i64)] {
        let mut g = f.clone();
        put_be_i64(&mut g, POS_CBYTES, l.cbytes as i64 + d);
        errors_somewhere(&g, &format!("cbytes {:+}", d));
    }
}

#[test]
fn nbytes_chunksize_typesize_lies() {
    let f = good_frame();
    let cs = (ITEMS * 4) as i64;
    for v in [
        i64::MIN,
        -1,
        i64::MAX,
        cs * NCHUNKS as i64 + 1,
        cs * 1_000_000,
    ] {
        let mut g = f.clone();
        put_be_i64(&mut g, POS_NBYTES, v);
        refused_at_open(&g, &format!("nbytes {v}"));
    }
    for v in [i32::MIN, -1, 0, 1, cs as i32 / 2, i32::MAX] {
        let mut g = f.clone();
        put_be_i32(&mut g, POS_CHUNKSIZE, v);
        errors_somewhere(&g, &format!("chunksize {v}"));
    }
    for v in [i32::MIN, -1, 0] {
        let mut g = f.clone();
        put_be_i32(&mut g, POS_TYPESIZE, v);
        errors_somewhere(&g, &format!("typesize {v}"));
    }
}

#[test]
fn fixed_header_fields_garbage() {
    let f = good_frame();
    // magic
    let mut g = f.clone();
    g[3] = b'X';
    refused_at_open(&g, "magic");
    // format version beyond what exists
    for v in [4u8, 0x0f] {
        let mut g = f.clone();
        g[POS_FLAGS] = (g[POS_FLAGS] & 0xf0) | v;
        refused_at_open(&g, &format!("version {v}"));
    }
    // a contiguous frame that says it is sparse
    let mut g = f.clone();
    g[POS_FRAME_TYPE] = 1;
    refused_at_open(&g, "frame_type sparse in a contiguous frame");
    // more filters than the pipeline has
    for v in [7u8, 0xff] {
        let mut g = f.clone();
        g[POS_NFILTERS] = v;
        refused_at_open(&g, &format!("nfilters {v}"));
    }
}

// --- the offsets index ------------------------------------------------------

#[test]
fn offsets_outside_the_frame() {
    let f = good_frame();
    let l = layout(&f);
    let good = decode_index(&f);
    let cb = l.cbytes as i64;
    for bad in [
        i64::MAX / 4, // the value upstream's test uses
        i64::MAX,
        cb,
        cb - 1,
        cb - EXT as i64 + 1,
        l.frame_len as i64,
        (l.frame_len as i64) << 20,
    ] {
        let all = vec![bad; NCHUNKS];
        refused_at_open(&with_offsets(&f, &all), &format!("all offsets {bad}"));
        // only the last chunk's offset broken
        let mut one = good.clone();
        one[NCHUNKS - 1] = bad;
        errors_somewhere(&with_offsets(&f, &one), &format!("last offset {bad}"));
    }
}

#[test]
fn offsets_negative_or_bad_special() {
    let f = good_frame();
    let good = decode_index(&f);
    // negative values are special chunks; only zero, NaN and uninit exist as
    // whole-chunk index values (bits 56..59), the rest are invalid
    for bad in [
        -1i64,
        i64::MIN,                // special kind 0 (none)
        i64::MIN | (3i64 << 56), // "value" run: not valid in an index
        i64::MIN | (6i64 << 56),
        i64::MIN | (7i64 << 56),
        i64::MIN | (5i64 << 56) | 1234, // reserved kind with junk below
    ] {
        let mut one = good.clone();
        one[0] = bad;
        errors_somewhere(&with_offsets(&f, &one), &format!("offset {bad:#x}"));
    }
}

#[test]
fn offsets_into_the_middle_of_a_chunk() {
    let f = good_frame();
    let good = decode_index(&f);
    for d in [1i64, 5, 12, EXT as i64] {
        let mut one = good.clone();
        one[0] = good[0] + d;
        errors_somewhere(&with_offsets(&f, &one), &format!("offset +{d}"));
    }
}

#[test]
fn offsets_chunk_corrupt() {
    let f = good_frame();
    let l = layout(&f);
    // upstream: the payload of the offsets chunk overwritten with 0xff
    let mut g = f.clone();
    for b in &mut g[l.idx_pos + EXT..l.idx_pos + l.idx_cbytes] {
        *b = 0xff;
    }
    refused_at_open(&g, "offsets payload 0xff");
    // fewer and more offsets than the header's nbytes implies
    refused_at_open(
        &with_offsets(&f, &decode_index(&f)[..NCHUNKS - 1]),
        "offsets short",
    );
    let mut more = decode_index(&f);
    more.push(0);
    refused_at_open(&with_offsets(&f, &more), "offsets long");
    // index chunk header: cbytes too small, past the trailer, huge
    for v in [
        0,
        16,
        EXT as i32 - 1,
        (l.frame_len * 2) as i32,
        i32::MAX,
        -1,
    ] {
        let mut g = f.clone();
        put_le_i32(&mut g, l.idx_pos + 12, v);
        refused_at_open(&g, &format!("index cbytes {v}"));
    }
    // index chunk header: nbytes lies
    for v in [0, 8, (NCHUNKS * 8 + 8) as i32, i32::MAX, -1] {
        let mut g = f.clone();
        put_le_i32(&mut g, l.idx_pos + 4, v);
        refused_at_open(&g, &format!("index nbytes {v}"));
    }
    // no room for the index at all: the trailer follows the chunks directly
    let mut g = f[..l.idx_pos].to_vec();
    g.extend_from_slice(&f[l.trailer_off..]);
    let len = g.len() as i64;
    put_be_i64(&mut g, POS_FRAME_LEN, len);
    refused_at_open(&g, "index missing");
}

#[test]
fn huge_nchunks_from_a_tiny_index_is_bounded() {
    // A header claiming ~2^27 chunks of 8 KiB, backed by a run-length index
    // chunk of a few bytes (every offset 0). Opening may refuse it or
    // accept it, but it must not take minutes or gigabytes per chunk.
    let f = good_frame();
    let cs: i64 = 8192;
    let n: i64 = 1 << 27;
    let mut g = f.clone();
    put_be_i32(&mut g, POS_CHUNKSIZE, cs as i32);
    put_be_i64(&mut g, POS_NBYTES, cs * n);
    // a special "value" chunk: every int64 is offset 0
    let mut idx = vec![0u8; EXT + 8];
    idx[0] = 2; // version
    idx[1] = 1; // versionlz
    idx[2] = 0x10 | 0x01; // flags: extended header marker bits as written
    idx[3] = 8; // typesize
    put_le_i32(&mut idx, 4, (n * 8).min(i32::MAX as i64) as i32);
    put_le_i32(&mut idx, 8, 16384);
    put_le_i32(&mut idx, 12, (EXT + 8) as i32);
    idx[31] = 0x04 << 4; // special: value run
    let g = with_index_chunk(&g, &idx);
    let t0 = Instant::now();
    for copy in [false, true] {
        let r = SuperChunk::from_buffer(&g, copy);
        if let Ok(sc) = r {
            let _ = read_all(&sc);
        }
    }
    report_if_slow(t0, "a huge claimed index");
}

// --- chunks -----------------------------------------------------------------

#[test]
fn chunk_cbytes_past_the_frame() {
    let f = good_frame();
    let l = layout(&f);
    let offs = decode_index(&f);
    // chunk 2 is a regular chunk (chunk 1 is the special zero chunk)
    let c2 = l.header_len + offs[2] as usize;
    let c2_cbytes = le_i32(&f, c2 + 12);
    let past_data = (l.cbytes - offs[2] as usize) as i32 + 1;
    for v in [i32::MAX, past_data, (l.frame_len * 2) as i32] {
        let mut g = f.clone();
        put_le_i32(&mut g, c2 + 12, v);
        errors_somewhere(&g, &format!("chunk cbytes {v} (was {c2_cbytes})"));
    }
    for v in [0, 1, EXT as i32 - 1, -1, i32::MIN] {
        let mut g = f.clone();
        put_le_i32(&mut g, c2 + 12, v);
        errors_somewhere(&g, &format!("chunk cbytes {v}"));
    }
    // the chunk's nbytes disagrees with the frame's chunk size (smaller
    // values: see chunk_nbytes_smaller_in_file_frame)
    for v in [-1, (ITEMS * 8) as i32, i32::MAX] {
        let mut g = f.clone();
        put_le_i32(&mut g, c2 + 4, v);
        errors_somewhere(&g, &format!("chunk nbytes {v}"));
    }
}

/// Bytes of chunk 2's header in the good frame (chunk 1 is special).
fn chunk2_pos(f: &[u8]) -> usize {
    layout(f).header_len + decode_index(f)[2] as usize
}

#[test]
fn chunk_nbytes_smaller_in_file_frame() {
    // A chunk decoding to fewer bytes than the frame's chunk size: the
    // reference fails get_slice_buffer; a slice must never come back with
    // bytes that were not written.
    let f = good_frame();
    let c2 = chunk2_pos(&f);
    for v in [0, 4, (ITEMS * 2) as i32] {
        let mut g = f.clone();
        put_le_i32(&mut g, c2 + 4, v);
        errors_somewhere(&g, &format!("chunk nbytes {v}"));
    }
}

#[test]
fn chunk_payload_garbage_never_panics() {
    let f = good_frame();
    let l = layout(&f);
    let offs = decode_index(&f);
    let c0 = l.header_len + offs[0] as usize;
    let cb = le_i32(&f, c0 + 12) as usize;
    for fill in [0x00u8, 0xff, 0x80] {
        let mut g = f.clone();
        for b in &mut g[c0 + 16..c0 + cb] {
            *b = fill;
        }
        let _ = exercise(&g, &format!("chunk payload {fill:#x}"));
    }
}

// --- metalayers (header) and vlmetalayers (trailer) -------------------------

/// Position of the 4-byte content length after `name`'s 0xc6 marker that
/// currently holds `len` (the way upstream's test locates it).
fn content_len_field(f: &[u8], from: usize, name: &[u8], len: i32) -> usize {
    let i = f[from..]
        .windows(name.len())
        .position(|w| w == name)
        .expect("name")
        + from;
    (i + name.len()..f.len() - 5)
        .find(|&j| f[j] == 0xc6 && be_i32(f, j + 1) == len)
        .expect("content length field")
        + 1
}

#[test]
fn metalayer_section_overflows() {
    let f = good_frame();
    // fixed part: 0x93, 0xcd idx(2), 0xde count(2)
    assert_eq!(&f[HEADER_MINLEN..HEADER_MINLEN + 2], &[0x93, 0xcd]);
    assert_eq!(f[HEADER_MINLEN + 4], 0xde);
    for v in [0xffffu16, 17, 2] {
        let mut g = f.clone();
        g[HEADER_MINLEN + 5..HEADER_MINLEN + 7].copy_from_slice(&v.to_be_bytes());
        refused_at_open(&g, &format!("metalayer count {v}"));
    }
    let at = content_len_field(&f, HEADER_MINLEN, b"ovrfl", 4);
    for v in [1 << 28, i32::MAX, i32::MAX - 4, -1, i32::MIN] {
        let mut g = f.clone();
        put_be_i32(&mut g, at, v);
        refused_at_open(&g, &format!("metalayer content_len {v}"));
    }
    // the name's content offset (0xd2 + int32 after the name)
    let name_at = f[HEADER_MINLEN..]
        .windows(5)
        .position(|w| w == b"ovrfl")
        .unwrap()
        + HEADER_MINLEN;
    assert_eq!(f[name_at + 5], 0xd2);
    let l = layout(&f);
    for v in [
        -1,
        i32::MIN,
        l.header_len as i32,
        l.frame_len as i32,
        i32::MAX,
        0,
    ] {
        let mut g = f.clone();
        put_be_i32(&mut g, name_at + 6, v);
        refused_at_open(&g, &format!("metalayer offset {v}"));
    }
    // the name's length prefix runs past the header
    let mut g = f.clone();
    g[name_at - 1] = 0xbf;
    refused_at_open(&g, "metalayer name length 31");
}

#[test]
fn vlmetalayer_section_overflows() {
    let f = good_frame();
    let l = layout(&f);
    let t = l.trailer_off;
    // trailer: 0x94, version, 0x93, 0xcd idx(2), 0xde count(2)
    assert_eq!(&f[t..t + 4], &[0x94, 1, 0x93, 0xcd]);
    assert_eq!(f[t + 6], 0xde);
    // sanity: the untouched frame has its vlmetalayer
    let sc = SuperChunk::from_buffer(&f, true).unwrap();
    assert_eq!(sc.vlmetalayers.len(), 1);
    for v in [0xffffu16, 0x8000, 8 * 1024 + 1, 2] {
        let mut g = f.clone();
        g[t + 7..t + 9].copy_from_slice(&v.to_be_bytes());
        refused_at_open(&g, &format!("vlmetalayer count {v:#x}"));
    }
    let stored = sc.vlmetalayers[0].content.len() as i32;
    let at = content_len_field(&f, t, b"vlovr", stored);
    for v in [1 << 28, i32::MAX, -1] {
        let mut g = f.clone();
        put_be_i32(&mut g, at, v);
        refused_at_open(&g, &format!("vlmetalayer content_len {v}"));
    }
    let name_at = f[t..].windows(5).position(|w| w == b"vlovr").unwrap() + t;
    assert_eq!(f[name_at + 5], 0xd2);
    for v in [-1, i32::MIN, (l.frame_len - t) as i32, i32::MAX] {
        let mut g = f.clone();
        put_be_i32(&mut g, name_at + 6, v);
        refused_at_open(&g, &format!("vlmetalayer offset {v}"));
    }
}

#[test]
fn vlmetalayer_content_not_a_chunk() {
    // the content is a compressed chunk; a broken one is an error on get
    let f = good_frame();
    let sc = SuperChunk::from_buffer(&f, true).unwrap();
    let stored = sc.vlmetalayers[0].content.len() as i32;
    let l = layout(&f);
    let at = content_len_field(&f, l.trailer_off, b"vlovr", stored) + 4;
    for (what, pos, v) in [
        ("cbytes", 12usize, stored + 1),
        ("cbytes", 12, 3),
        ("nbytes", 4, -1),
        ("nbytes", 4, i32::MAX),
    ] {
        let mut g = f.clone();
        put_le_i32(&mut g, at + pos, v);
        for copy in [false, true] {
            // refusing the frame is fine too
            if let Ok(sc) = SuperChunk::from_buffer(&g, copy) {
                assert!(
                    sc.vlmeta_get("vlovr").is_err(),
                    "vlmeta content {what} {v}: get must fail"
                );
            }
        }
    }
}

// --- the trailer length -----------------------------------------------------

#[test]
fn trailer_len_lies() {
    let f = good_frame();
    let l = layout(&f);
    let at = l.frame_len - 22;
    assert_eq!(f[at - 1], 0xce);
    for v in [
        u32::MAX, // upstream: oversized
        24,       // upstream: below the minimum
        0,
        l.frame_len as u32 + 1, // upstream: past the frame
        l.frame_len as u32,
        (l.frame_len - HEADER_MINLEN + 1) as u32,
        i32::MAX as u32 + 1, // negative as an int32
    ] {
        let mut g = f.clone();
        g[at..at + 4].copy_from_slice(&v.to_be_bytes());
        refused_at_open(&g, &format!("trailer_len {v}"));
    }
    // trailer starts inside the index or the chunks
    let tl = (l.frame_len - l.trailer_off) as u32;
    for d in [1u32, 7, 40] {
        let mut g = f.clone();
        g[at..at + 4].copy_from_slice(&(tl + d).to_be_bytes());
        refused_at_open(&g, &format!("trailer_len +{d}"));
    }
    // the uint32 marker itself
    let mut g = f.clone();
    g[at - 1] = 0xcd;
    refused_at_open(&g, "trailer_len marker");
}

// --- single-byte corruption sweep -------------------------------------------

#[test]
fn every_byte_corrupted_never_panics() {
    let sc = good_schunk(2);
    let f = sc.to_frame().unwrap();
    let t0 = Instant::now();
    let mut opened = 0usize;
    for i in 0..f.len() {
        for v in [0x00u8, 0xff, f[i] ^ 0x80, f[i].wrapping_add(1)] {
            if v == f[i] {
                continue;
            }
            let mut g = f.clone();
            g[i] = v;
            for copy in [false, true] {
                if let Ok(sc) = SuperChunk::from_buffer(&g, copy) {
                    opened += 1;
                    let _ = read_all(&sc);
                }
            }
        }
    }
    eprintln!(
        "{} bytes x 4 corruptions: {} opens succeeded, {:?}",
        f.len(),
        opened,
        t0.elapsed()
    );
}

#[test]
fn file_frame_corruption_sweep_never_panics() {
    // the same on a file (reads go through the I/O backend, chunks lazily)
    let f = good_schunk(2).to_frame().unwrap();
    let p = scratch("sweep");
    let _cleanup = Cleanup(p.clone());
    for i in (0..f.len()).step_by(3) {
        let mut g = f.clone();
        g[i] ^= 0xa5;
        std::fs::write(&p, &g).unwrap();
        if let Ok(sc) = SuperChunk::open(&p, 0, blosc2_core::io::default_backend()) {
            let _ = read_all(&sc);
        }
    }
    remove(&p);
}

// --- files and offsets --------------------------------------------------------

#[test]
fn file_open_errors() {
    let p = scratch("missing");
    let _cleanup = Cleanup(p.clone());
    let io = blosc2_core::io::default_backend();
    assert!(SuperChunk::open(&p, 0, io.clone()).is_err(), "missing file");
    std::fs::write(&p, b"").unwrap();
    assert!(SuperChunk::open(&p, 0, io.clone()).is_err(), "empty file");
    let f = good_frame();
    std::fs::write(&p, &f).unwrap();
    for off in [
        1u64,
        f.len() as u64,
        f.len() as u64 + 1,
        u64::MAX / 2,
        u64::MAX,
    ] {
        assert!(
            SuperChunk::open(&p, off, io.clone()).is_err(),
            "offset {off} into a frame file"
        );
    }
    // a frame followed by other bytes is fine (frames appended to files)
    let mut g = f.clone();
    g.extend_from_slice(b"more bytes after the frame");
    std::fs::write(&p, &g).unwrap();
    let sc = SuperChunk::open(&p, 0, io.clone()).expect("frame with a tail");
    assert_eq!(read_all(&sc), Ok(()));
    drop(sc);
    remove(&p);
}

#[test]
fn file_truncated_after_open() {
    // the file shrinks behind the library's back: reads fail, no panic
    let f = good_frame();
    let l = layout(&f);
    let p = scratch("shrink");
    let _cleanup = Cleanup(p.clone());
    // (cut after the chunks, everything read at open time is still valid)
    for keep in [l.header_len + 40, l.header_len, 0] {
        std::fs::write(&p, &f).unwrap();
        let sc = SuperChunk::open(&p, 0, blosc2_core::io::default_backend()).expect("open");
        std::fs::write(&p, &f[..keep]).unwrap();
        assert!(read_all(&sc).is_err(), "file cut to {keep} after open");
    }
    remove(&p);
}

// --- sparse frames ----------------------------------------------------------

fn make_sparse(tag: &str) -> (PathBuf, SuperChunk) {
    let dir = scratch(tag);
    remove(&dir);
    let st = Storage {
        contiguous: false,
        urlpath: Some(dir.clone()),
        cparams: cparams(),
        ..Storage::default()
    };
    let mut sc = SuperChunk::new(st).expect("new sparse");
    sc.meta_add("ovrfl", &[1, 2, 3, 4]).unwrap();
    for i in 0..NCHUNKS {
        let d = if i == 1 {
            vec![0u8; ITEMS * 4]
        } else {
            items(i as i32 + 1)
        };
        sc.append_buffer(&d).unwrap();
    }
    sc.vlmeta_add("vlovr", b"sparse vlmeta", None).unwrap();
    (dir, sc)
}

fn chunk_file(dir: &Path, id: u32) -> PathBuf {
    dir.join(format!("{id:08X}.chunk"))
}

fn open_dir(dir: &Path) -> Result<SuperChunk, ErrorKind> {
    SuperChunk::open(dir, 0, blosc2_core::io::default_backend())
}

#[test]
fn sparse_good_opens() {
    let (dir, sc) = make_sparse("good");
    let _cleanup = Cleanup(dir.clone());
    drop(sc);
    assert!(chunk_file(&dir, 0).exists(), "chunk file naming");
    assert!(dir.join("chunks.b2frame").exists());
    let sc = open_dir(&dir).expect("open");
    assert_eq!(sc.nchunks(), NCHUNKS as i64);
    assert_eq!(read_all(&sc), Ok(()));
    remove(&dir);
}

#[test]
fn sparse_missing_chunk_file() {
    let (dir, sc) = make_sparse("missing");
    let _cleanup = Cleanup(dir.clone());
    drop(sc);
    // chunk 1 is a special offset and has no file; chunk 2 lives in a file
    let victim = (0..NCHUNKS as u32 + 2)
        .map(|i| chunk_file(&dir, i))
        .filter(|p| p.exists())
        .nth(1)
        .expect("two chunk files");
    std::fs::remove_file(&victim).unwrap();
    match open_dir(&dir) {
        Err(_) => {}
        Ok(sc) => {
            assert!(read_all(&sc).is_err(), "{victim:?} missing");
            // the chunks whose files are there still read
            let mut d = vec![0u8; ITEMS * 4];
            assert_eq!(sc.decompress_chunk(0, &mut d), Ok(ITEMS * 4));
            assert_eq!(d, items(1));
        }
    }
    remove(&dir);
}

#[test]
fn sparse_truncated_or_garbage_chunk_file() {
    let (dir, sc) = make_sparse("trunc");
    let _cleanup = Cleanup(dir.clone());
    drop(sc);
    let f0 = chunk_file(&dir, 0);
    let orig = std::fs::read(&f0).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("16 bytes", orig[..16].to_vec()),
        ("header only", orig[..EXT].to_vec()),
        ("half", orig[..orig.len() / 2].to_vec()),
        ("one byte short", orig[..orig.len() - 1].to_vec()),
        ("zeros", vec![0u8; orig.len()]),
        ("0xff", vec![0xffu8; orig.len()]),
        ("cbytes huge", {
            let mut v = orig.clone();
            put_le_i32(&mut v, 12, i32::MAX);
            v
        }),
        ("nbytes huge", {
            let mut v = orig.clone();
            put_le_i32(&mut v, 4, i32::MAX);
            v
        }),
    ];
    for (what, bytes) in cases {
        // behind an open handle (upstream's stale-reader case) ...
        std::fs::write(&f0, &orig).unwrap();
        let sc = open_dir(&dir).expect("open");
        let mut d = vec![0u8; ITEMS * 4];
        assert_eq!(sc.decompress_chunk(0, &mut d), Ok(ITEMS * 4));
        std::fs::write(&f0, &bytes).unwrap();
        assert!(
            sc.chunk(0).is_err() || sc.decompress_chunk(0, &mut d).is_err(),
            "{what}"
        );
        assert!(
            sc.decompress_chunk(0, &mut d).is_err(),
            "{what}: decompress"
        );
        let mut s = vec![0u8; 40];
        assert!(sc.get_slice(10, 20, &mut s).is_err(), "{what}: slice");
        drop(sc);
        // ... and on a fresh open
        if let Ok(sc) = open_dir(&dir) {
            assert!(read_all(&sc).is_err(), "{what}: reopened");
        }
    }
    remove(&dir);
}

#[test]
fn sparse_index_file_broken() {
    let (dir, sc) = make_sparse("index");
    let _cleanup = Cleanup(dir.clone());
    drop(sc);
    let ip = dir.join("chunks.b2frame");
    let orig = std::fs::read(&ip).unwrap();
    // truncated at every length
    for cut in 0..orig.len() {
        std::fs::write(&ip, &orig[..cut]).unwrap();
        assert!(open_dir(&dir).is_err(), "chunks.b2frame cut to {cut}");
    }
    // missing
    std::fs::remove_file(&ip).unwrap();
    assert!(open_dir(&dir).is_err(), "chunks.b2frame missing");
    // says it is contiguous
    let mut g = orig.clone();
    g[POS_FRAME_TYPE] = 0;
    std::fs::write(&ip, &g).unwrap();
    assert!(open_dir(&dir).is_err(), "sparse index with contiguous type");
    // chunk ids that have no file, or are nonsense
    let good = decode_index(&orig);
    for bad in [0x7fff_ffffi64, 0xffff_ffff, NCHUNKS as i64 + 5] {
        let mut one = good.clone();
        one[0] = bad;
        std::fs::write(&ip, with_offsets(&orig, &one)).unwrap();
        if let Ok(sc) = open_dir(&dir) {
            assert!(read_all(&sc).is_err(), "chunk id {bad}");
        }
    }
    // trailer length lies
    let l = layout(&orig);
    for v in [u32::MAX, 24, l.frame_len as u32 + 1] {
        let mut g = orig.clone();
        g[l.frame_len - 22..l.frame_len - 18].copy_from_slice(&v.to_be_bytes());
        std::fs::write(&ip, &g).unwrap();
        assert!(open_dir(&dir).is_err(), "sparse trailer_len {v}");
    }
    std::fs::write(&ip, &orig).unwrap();
    assert!(open_dir(&dir).is_ok(), "restored");
    remove(&dir);
}

#[test]
fn sparse_chunk_id_beyond_u32() {
    // The reference refuses chunk numbers outside 0..=u32::MAX; taking
    // the low 32 bits would read another chunk's file.
    let (dir, sc) = make_sparse("bigid");
    let _cleanup = Cleanup(dir.clone());
    drop(sc);
    let ip = dir.join("chunks.b2frame");
    let orig = std::fs::read(&ip).unwrap();
    let good = decode_index(&orig);
    for bad in [1i64 << 32, 1 << 40, i64::MAX] {
        let mut one = good.clone();
        one[0] = bad;
        std::fs::write(&ip, with_offsets(&orig, &one)).unwrap();
        if let Ok(sc) = open_dir(&dir) {
            let mut d = vec![0u8; ITEMS * 4];
            assert!(sc.decompress_chunk(0, &mut d).is_err(), "chunk id {bad:#x}");
        }
    }
    remove(&dir);
}

#[test]
fn contiguous_file_is_not_a_sparse_index() {
    // a directory whose chunks.b2frame is a contiguous frame
    let dir = scratch("notsparse");
    let _cleanup = Cleanup(dir.clone());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("chunks.b2frame"), good_frame()).unwrap();
    assert!(open_dir(&dir).is_err());
    remove(&dir);
}

// --- API misuse on valid frames (upstream's negative-index tests) ------------

#[test]
fn negative_and_out_of_range_indices() {
    for kind in 0..3 {
        let (dir, mut sc) = match kind {
            0 => (None, good_schunk(2)),
            1 => {
                let p = scratch("idx");
                let f = good_frame();
                std::fs::write(&p, &f).unwrap();
                let sc = SuperChunk::open(&p, 0, blosc2_core::io::default_backend()).unwrap();
                (Some(p), sc)
            }
            _ => {
                let (d, sc) = make_sparse("idx");
                (Some(d), sc)
            }
        };
        let n = sc.nchunks();
        let c = sc.compress(&items(9)).unwrap();
        let mut d = vec![0u8; ITEMS * 4];
        for i in [-1i64, n, n + 1, i64::MIN, i64::MAX] {
            assert!(sc.chunk(i).is_err(), "chunk({i})");
            assert!(sc.decompress_chunk(i, &mut d).is_err(), "decompress({i})");
            assert!(sc.update_chunk(i, &c).is_err(), "update({i})");
            assert!(sc.delete_chunk(i).is_err(), "delete({i})");
            if i != n {
                assert!(sc.insert_chunk(i, &c).is_err(), "insert({i})");
            }
            assert_eq!(sc.nchunks(), n);
        }
        // reorder: a negative index, a repeated one, too few entries
        let mut order: Vec<i64> = (0..n).collect();
        order[n as usize - 1] = -1;
        assert!(sc.reorder(&order).is_err(), "reorder with -1");
        order[n as usize - 1] = 0;
        assert!(sc.reorder(&order).is_err(), "reorder with a repeat");
        order[n as usize - 1] = n;
        assert!(sc.reorder(&order).is_err(), "reorder out of range");
        assert!(sc.reorder(&order[..1]).is_err(), "reorder too short");
        // slices outside the data
        let mut s = vec![0u8; 64];
        let items_total = sc.nbytes() / 4;
        assert!(sc.get_slice(-1, 5, &mut s).is_err());
        assert!(sc.get_slice(5, 4, &mut s).is_err());
        assert!(sc
            .get_slice(items_total - 2, items_total + 14, &mut s)
            .is_err());
        assert!(sc.get_slice(i64::MAX - 3, i64::MAX, &mut s).is_err());
        assert!(sc.get_slice(0, 17, &mut s).is_err(), "dest too small");
        // everything still there
        assert_eq!(sc.decompress_chunk(0, &mut d), Ok(ITEMS * 4));
        assert_eq!(d, items(1));
        drop(sc);
        if let Some(p) = dir {
            remove(&p);
        }
    }
}

/// C-Blosc2 on a big-endian host writes the offsets index in host order
/// (its issue #467): not a frame of the spec. Read as the spec says, its
/// entries are neither places in the frame nor special-value markers, so
/// the frame is refused rather than read wrongly (README, "Other CPUs").
#[test]
fn big_endian_host_order_index_is_refused() {
    let f = good_frame();
    let swapped: Vec<i64> = decode_index(&f).iter().map(|o| o.swap_bytes()).collect();
    refused_at_open(
        &with_offsets(&f, &swapped),
        "index in big-endian host order",
    );
}
