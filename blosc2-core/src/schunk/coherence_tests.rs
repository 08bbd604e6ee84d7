//! Handles on one frame on disk follow each other's changes at their next
//! read (`begin_read`), as upstream's do, including a file replaced
//! underneath an open handle.

use super::{Storage, SuperChunk};
use crate::chunk::CParams;
use crate::io::default_backend;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("b2-coh-{}-{name}", std::process::id()))
}

fn make(path: &PathBuf, contiguous: bool, base: i32, nchunks: i32) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_dir_all(path);
    let mut sc = SuperChunk::new(Storage {
        contiguous,
        urlpath: Some(path.clone()),
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    for c in 0..nchunks {
        let v: Vec<u8> = (0..1000)
            .flat_map(|i| (base + c * 1000 + i).to_le_bytes())
            .collect();
        sc.append_buffer(&v).unwrap();
    }
}

fn first_item(sc: &SuperChunk, n: i64) -> i32 {
    let mut b = vec![0u8; 4000];
    sc.decompress_chunk(n, &mut b).unwrap();
    i32::from_le_bytes(b[..4].try_into().unwrap())
}

#[test]
fn a_reader_follows_a_writer_on_both_kinds_of_frame() {
    for contiguous in [true, false] {
        let p = tmp(if contiguous { "c.b2frame" } else { "s.b2frame" });
        make(&p, contiguous, 0, 2);
        let mut w = SuperChunk::open(&p, 0, default_backend()).unwrap();
        let mut r = SuperChunk::open(&p, 0, default_backend()).unwrap();
        assert!(!r.begin_read().unwrap());
        let v: Vec<u8> = (0..1000).flat_map(|i: i32| (7 + i).to_le_bytes()).collect();
        w.append_buffer(&v).unwrap();
        assert_eq!(r.nchunks(), 2);
        assert!(r.begin_read().unwrap());
        r.end_read().unwrap();
        assert_eq!(r.nchunks(), 3);
        assert_eq!(first_item(&r, 2), 7);
        assert!(!r.begin_read().unwrap());
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
}

// Not on Windows: a file another handle holds open cannot be renamed over
// there (the rename fails with "access denied" while the reader's handle
// lives), so the situation this test builds cannot arise.
#[cfg(not(windows))]
#[test]
fn a_file_replaced_underneath_is_read_anew() {
    let p = tmp("replaced.b2frame");
    let q = tmp("replacement.b2frame");
    make(&p, true, 0, 2);
    let mut r = SuperChunk::open(&p, 0, default_backend()).unwrap();
    assert_eq!(first_item(&r, 1), 1000);
    // same length, other content: only the file's identity tells
    make(&q, true, 500_000, 2);
    std::fs::remove_file(&p).unwrap();
    std::fs::rename(&q, &p).unwrap();
    assert!(r.begin_read().unwrap());
    assert_eq!(first_item(&r, 1), 501_000);
    let _ = std::fs::remove_file(&p);
}
