//! `sframe` and `open_frame_at`: frames opened through an I/O backend (the
//! in-memory one of `memio`), as `blosc2_schunk_open` opens them, and read
//! every way a caller can: whole chunks, lazy chunks completed for byte
//! ranges, vlmetalayers, slices, a copy as a contiguous frame, and the b2nd
//! array they may hold.

use crate::memio::{real_paths, MemBackend};
use crate::{b2nd_open::check_array, with_decompressor, Knobs, MAX_DEST};
use blosc2_core::b2nd::Array;
use blosc2_core::chunk::ChunkHeader;
use blosc2_core::frame::sframe;
use blosc2_core::schunk::SuperChunk;
use std::sync::Arc;

/// Chunks read at each end of a frame: enough to reach the last chunk
/// (which upstream's fuzzers skip) without spending a second on the 2^20
/// special chunks a tiny index can claim.
const ENDS: i64 = 64;
/// Chunks also read lazily (each costs several backend reads).
const LAZY: usize = 8;

/// Marks an absent file in the `sframe` container (an empty one is a
/// different case: it opens, and every read of it fails).
const ABSENT: u16 = 0xffff;

/// Split an `sframe` input into its files and the bytes left for knobs:
/// `[nfiles:u8]`, then per file `[len:u16 le][len bytes]` (`len` 0xffff:
/// no such file). File 0 is `chunks.b2frame`, file `i > 0` the chunk file
/// numbered `i - 1`. A length past the end takes what is left, so a
/// mutated length shortens one file instead of breaking every later one.
pub fn split_container(data: &[u8]) -> (Vec<Option<&[u8]>>, &[u8]) {
    let Some((&n, mut rest)) = data.split_first() else {
        return (Vec::new(), data);
    };
    let mut files = Vec::with_capacity(n as usize);
    for _ in 0..n {
        if rest.len() < 2 {
            break;
        }
        let len = u16::from_le_bytes([rest[0], rest[1]]);
        rest = &rest[2..];
        if len == ABSENT {
            files.push(None);
            continue;
        }
        let len = (len as usize).min(rest.len());
        files.push(Some(&rest[..len]));
        rest = &rest[len..];
    }
    (files, rest)
}

/// Write the `sframe` container of `files` (as `split_container` reads it).
pub fn build_container(files: &[Option<Vec<u8>>], knobs: &[u8]) -> Vec<u8> {
    assert!(files.len() <= 255);
    let mut out = vec![files.len() as u8];
    for f in files {
        match f {
            None => out.extend_from_slice(&ABSENT.to_le_bytes()),
            Some(b) => {
                assert!(
                    b.len() < ABSENT as usize,
                    "file too large for the container"
                );
                out.extend_from_slice(&(b.len() as u16).to_le_bytes());
                out.extend_from_slice(b);
            }
        }
    }
    out.extend_from_slice(knobs);
    out
}

/// A sparse frame, given as a container of its files, opened from memory.
pub fn sframe(data: &[u8]) {
    let (files, knobs) = split_container(data);
    let Some(Some(index)) = files.first() else {
        return;
    };
    if !crate::frame_is_small(index) {
        return;
    }
    let mem = MemBackend::new();
    let (dir, _) = real_paths();
    mem.insert(sframe::index_path(dir), index.to_vec());
    for (i, f) in files.iter().enumerate().skip(1) {
        if let Some(f) = f {
            mem.insert(sframe::chunk_path(dir, i as i64 - 1), f.to_vec());
        }
    }
    let Ok(sc) = SuperChunk::open(dir, 0, Arc::new(mem)) else {
        return;
    };
    read_everything(&sc, knobs, false);
}

/// A contiguous frame in a file behind a prefix: `[prefix_len:u8]`, the
/// prefix bytes, then the frame; the knobs come from the frame's own last
/// bytes (its trailer, which changes the layout least).
pub fn open_frame_at(data: &[u8]) {
    let Some((&plen, rest)) = data.split_first() else {
        return;
    };
    let plen = (plen as usize).min(rest.len());
    let frame = &rest[plen..];
    if !crate::frame_is_small(frame) {
        return;
    }
    let mem = MemBackend::new();
    let (_, file) = real_paths();
    mem.insert(file.clone(), rest.to_vec());
    let Ok(sc) = SuperChunk::open(file, plen as u64, Arc::new(mem)) else {
        return;
    };
    let tail = &frame[frame.len().saturating_sub(16)..];
    let strict = SuperChunk::from_buffer(frame, false).is_ok();
    read_everything(&sc, tail, strict);
}

/// Chunk numbers read: the first and last `ENDS`.
fn picked(n: i64) -> impl Iterator<Item = i64> {
    let head = 0..n.min(ENDS);
    let tail = n.saturating_sub(ENDS).max(n.min(ENDS))..n;
    head.chain(tail)
}

/// Read all an opened frame claims, checking that the different ways of
/// reading a chunk agree with each other where they both succeed.
pub(crate) fn read_everything(sc: &SuperChunk, knobs: &[u8], strict_reopen: bool) {
    let mut k = Knobs { data: knobs };
    let mut lazy_left = LAZY;
    for i in picked(sc.nchunks()) {
        let nbytes = match sc.chunk(i).ok().and_then(|c| ChunkHeader::read(&c).ok()) {
            Some(h) => h.nbytes.max(0) as usize,
            None => sc.chunksize().max(0) as usize,
        };
        if nbytes > MAX_DEST {
            let mut small = vec![0u8; 64];
            let _ = sc.decompress_chunk(i, &mut small);
            continue;
        }
        let mut out = vec![0u8; nbytes];
        let full = match sc.decompress_chunk(i, &mut out) {
            Ok(n) => {
                assert!(n <= out.len());
                out.truncate(n);
                Some(out)
            }
            Err(_) => None,
        };
        if lazy_left == 0 {
            continue;
        }
        lazy_left -= 1;
        let Ok(lazy) = sc.lazy_chunk(i) else {
            continue;
        };
        let lazy = lazy.into_owned();
        // Decompressed with the super-chunk's plugin view, as
        // `blosc2_schunk_decompress_chunk` would (the b2nd plugins need it).
        let decode = |chunk: &[u8], range: Option<(usize, usize)>| -> Option<Vec<u8>> {
            with_decompressor(1, |d| {
                sc.plugin_info(&mut d.schunk);
                let r = match range {
                    None => {
                        let mut buf = vec![0u8; nbytes];
                        d.decompress(chunk, &mut buf).map(|n| {
                            buf.truncate(n);
                            buf
                        })
                    }
                    Some((a, b)) => {
                        let mut buf = vec![0u8; b - a];
                        d.getitem_bytes(chunk, a as i32, (b - a) as i32, &mut buf)
                            .map(|n| {
                                buf.truncate(n);
                                buf
                            })
                    }
                };
                d.schunk = None;
                r.ok()
            })
        };
        if let Ok(done) = sc.complete_lazy(&lazy, None) {
            if let (Some(f), Some(got)) = (&full, decode(&done, None)) {
                assert!(&got == f, "completed lazy chunk {i} decodes differently");
            }
        }
        // a byte range picked by the knobs, sometimes past the end
        let a = k.u16() as usize % (nbytes + 16);
        let b = a + k.u16() as usize % (nbytes + 16);
        if let Ok(done) = sc.complete_lazy(&lazy, Some((a, b))) {
            if let (Some(f), Some(got)) = (&full, decode(&done, Some((a, b)))) {
                if !got.is_empty() {
                    assert!(
                        f.get(a..a + got.len()) == Some(&got[..]),
                        "bytes {a}..{b} of lazy chunk {i} differ from the whole"
                    );
                }
            }
        }
        // and the same range from the chunk itself
        if let Ok(c) = sc.chunk(i) {
            if let (Some(f), Some(got)) = (&full, decode(&c, Some((a, b)))) {
                if !got.is_empty() {
                    assert!(
                        f.get(a..a + got.len()) == Some(&got[..]),
                        "getitem_bytes {a}..{b} of chunk {i} differs from the whole"
                    );
                }
            }
        }
    }
    for m in sc.vlmetalayers.iter().take(8) {
        let _ = sc.vlmeta_get(&m.name);
    }
    let ts = sc.typesize().max(1) as i64;
    // frames may claim items of gigabytes: a slice of one would be zeroed
    let n = (sc.nbytes() / ts).min(4096).min((4 << 20) / ts);
    let start = (k.u16() as i64).min(n);
    let mut buf = vec![0u8; ((n - start) * ts) as usize];
    let _ = sc.get_slice(start, n, &mut buf);
    if let Ok(f) = sc.to_frame() {
        // what we write must open again
        // Opening from a file reads chunk headers lazily, so a frame whose
        // chunks contradict its header opens there but not from a buffer
        // (which reads them all): only a frame that opened from a buffer
        // too must come back as one that opens.
        if let (Err(e), true) = (SuperChunk::from_buffer(&f, false), strict_reopen) {
            panic!("to_frame wrote a frame that does not open: {e:?}");
        }
    }
    if let Ok(a) = Array::from_schunk(sc) {
        check_array(&a, k.rest());
    }
}
