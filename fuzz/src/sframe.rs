//! Sparse frames through the in-memory backend: the directory's index file
//! and chunk files come from the input, so the directory and every chunk
//! file's parser are fuzzed without the file system.
//!
//! Input: `[nfiles: u8]`, then per file `[len: u16 le][bytes]` (cut short
//! when the input ends). File 0 is the index `chunks.b2frame`; file `i > 0`
//! is chunk file number `i - 1`.

use crate::memio::{anchors, MemIo};
use blosc2_core::b2nd::array::Array;
use blosc2_core::frame::sframe;
use blosc2_core::schunk::SuperChunk;
use std::collections::HashMap;
use std::sync::Arc;

/// Splits the input into the files of a sparse frame directory.
pub fn files_of(data: &[u8], dir: &std::path::Path) -> HashMap<std::path::PathBuf, Vec<u8>> {
    let mut files = HashMap::new();
    let Some((&n, mut rest)) = data.split_first() else {
        return files;
    };
    for i in 0..n as usize {
        if rest.len() < 2 {
            break;
        }
        let len = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        rest = &rest[2..];
        let take = len.min(rest.len());
        let path = if i == 0 {
            sframe::index_path(dir)
        } else {
            sframe::chunk_path(dir, i as i64 - 1)
        };
        files.insert(path, rest[..take].to_vec());
        rest = &rest[take..];
    }
    files
}

/// The inverse of [`files_of`], for making seeds from real directories.
pub fn container_of(index: &[u8], chunks: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![(1 + chunks.len()).min(255) as u8];
    for f in std::iter::once(index)
        .chain(chunks.iter().map(Vec::as_slice))
        .take(255)
    {
        let len = f.len().min(u16::MAX as usize);
        out.extend_from_slice(&(len as u16).to_le_bytes());
        out.extend_from_slice(&f[..len]);
    }
    out
}

/// Reads everything a super-chunk claims to hold; errors are fine, panics
/// and disagreements are not.
pub fn read_all(sc: &SuperChunk) {
    // Buffers are zeroed once per input and capped at 1 MiB: chunk sizes
    // claimed up to 16 MiB, zeroed twice per chunk, made this target run
    // at 40 inputs/s (a larger claim only exercises the "too small"
    // refusal, which a 1 MiB buffer does as well).
    let n = sc.nchunks().min(64);
    let cap = (sc.chunksize().max(0) as usize).min(1 << 20);
    let mut out = vec![0u8; cap];
    let mut again = vec![0u8; cap];
    for i in 0..n {
        let _ = sc.chunk(i);
        let full = sc.decompress_chunk(i, &mut out).ok();
        if let Ok(lazy) = sc.lazy_chunk(i) {
            let lazy = lazy.into_owned();
            if let Ok(done) = sc.complete_lazy(&lazy, None) {
                // the completed lazy chunk decodes as the chunk does
                if let Some(n) = full {
                    let mut d = blosc2_core::chunk::Decompressor::new(Default::default());
                    if let Ok(m) = d.decompress(&done, &mut again) {
                        assert_eq!(m, n, "completed lazy chunk {i} has another size");
                        assert_eq!(again[..m], out[..n], "completed lazy chunk {i} differs");
                    }
                }
            }
            if let Ok(h) = blosc2_core::chunk::ChunkHeader::read(&lazy) {
                let nb = h.nbytes.max(0) as usize;
                let _ = sc.complete_lazy(&lazy, Some((nb / 3, nb / 2)));
            }
        }
    }
    if sc.nchunks() > 0 {
        let _ = sc.decompress_chunk(sc.nchunks() - 1, &mut out);
    }
    for m in sc.vlmetalayers.iter().take(8) {
        let _ = sc.vlmeta_get(&m.name);
    }
    // frames may claim items of gigabytes: a slice of one would be zeroed
    let ts = sc.typesize().max(1) as i64;
    let items = (sc.nbytes() / ts).min(4096).min((4 << 20) / ts);
    let mut buf = vec![0u8; (items * ts) as usize];
    let _ = sc.get_slice(0, items, &mut buf);
    let _ = sc.to_frame();
}

pub fn sframe(data: &[u8]) {
    let (dir, _) = anchors();
    let files = files_of(data, dir);
    let io = Arc::new(MemIo::new(files));
    let Ok(sc) = SuperChunk::open(dir, 0, io) else {
        return;
    };
    if sc.nchunks() > crate::MAX_FRAME_CHUNKS {
        return;
    }
    read_all(&sc);
    if let Ok(a) = Array::from_schunk(&sc) {
        let nitems = a.nitems();
        let ts = a.typesize().max(0) as i64;
        if nitems > 0 && nitems.saturating_mul(ts) <= 1 << 22 {
            let mut buf = vec![0u8; (nitems * ts) as usize];
            let _ = a.to_cbuffer(&mut buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_seeds_open() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/sframe");
        let (anchor, _) = anchors();
        let mut opened = 0;
        let mut total = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_owned();
            let data = std::fs::read(&path).unwrap();
            total += 1;
            let io = Arc::new(MemIo::new(files_of(&data, anchor)));
            match SuperChunk::open(anchor, 0, io) {
                Ok(sc) => {
                    let mut out = vec![0u8; sc.chunksize().max(0) as usize];
                    match (0..sc.nchunks())
                        .try_for_each(|i| sc.decompress_chunk(i, &mut out).map(|_| ()))
                    {
                        Ok(()) => opened += 1,
                        Err(k) => eprintln!("{k:?} decoding a chunk of {name:?}"),
                    }
                }
                Err(k) => eprintln!("{k:?} opening {name:?}"),
            }
        }
        assert!(
            total > 0 && opened == total,
            "{opened} of {total} seeds open and decode"
        );
    }
}
