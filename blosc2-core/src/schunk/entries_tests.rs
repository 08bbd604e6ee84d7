//! Frames opened with their index unread (see `entries`): every read and
//! every change gives what the same frame read whole gives, down to the
//! bytes of the file a change writes.

use super::entries::LAZY_FROM_IN_TESTS;
use super::tests::copy_frame;
use super::*;
use crate::frame::index;
use std::path::Path;

fn tmp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("b2rs-lazy-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_dir_all(&p);
    p
}

fn cparams() -> CParams {
    CParams {
        typesize: 4,
        ..CParams::default()
    }
}

/// Chunk `i` of the test frames: 256 bytes, of varying compressibility,
/// every 13th all zeros (a special value in frames).
fn data(i: usize) -> Vec<u8> {
    if i % 13 == 3 {
        return vec![0; 256];
    }
    (0..256)
        .map(|k| {
            ((k * (i % 7 + 1)) as u32 ^ (i as u32).wrapping_mul(2_654_435_761) >> (k % 5)) as u8
        })
        .collect()
}

/// `n` chunks of 256 bytes, the last one shorter, in memory.
fn in_memory(n: usize) -> SuperChunk {
    let mut sc = SuperChunk::new(Storage {
        cparams: cparams(),
        ..Storage::default()
    })
    .unwrap();
    for i in 0..n {
        let mut d = data(i);
        if i + 1 == n {
            d.truncate(100);
        }
        sc.append_buffer(&d).unwrap();
    }
    sc
}

fn open(path: &Path, lazy: bool) -> SuperChunk {
    LAZY_FROM_IN_TESTS.set(Some(if lazy { 1 } else { u64::MAX }));
    let sc = SuperChunk::open(path, 0, crate::io::default_backend()).unwrap();
    LAZY_FROM_IN_TESTS.set(None);
    assert_eq!(sc.entries.is_lazy(), lazy, "{}", path.display());
    sc
}

/// Open a frame again, lazily where it can be.
fn reopen(path: &Path) -> SuperChunk {
    LAZY_FROM_IN_TESTS.set(Some(1));
    let sc = SuperChunk::open(path, 0, crate::io::default_backend());
    LAZY_FROM_IN_TESTS.set(None);
    sc.unwrap()
}

fn contents(sc: &SuperChunk) -> Vec<Vec<u8>> {
    (0..sc.nchunks())
        .map(|i| {
            let mut out = vec![0u8; 256];
            let n = sc.decompress_chunk(i, &mut out).unwrap();
            out.truncate(n);
            out
        })
        .collect()
}

/// A contiguous frame file and a sparse frame of `n` chunks.
fn frames(name: &str, n: usize) -> [PathBuf; 2] {
    let mem = in_memory(n);
    let file = tmp(&format!("{name}.b2frame"));
    mem.to_file(&file).unwrap();
    let dir = tmp(&format!("{name}.b2sframe"));
    mem.copy_to(Storage {
        urlpath: Some(dir.clone()),
        cparams: cparams(),
        ..Storage::default()
    })
    .unwrap();
    [file, dir]
}

/// All bytes of a frame file or directory, by file name.
fn frame_bytes(p: &Path) -> Vec<(String, Vec<u8>)> {
    if !p.is_dir() {
        return vec![(String::new(), std::fs::read(p).unwrap())];
    }
    let mut v: Vec<_> = std::fs::read_dir(p)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_lazily_read_index_gives_every_chunk_offset_and_slice() {
    // 5,000 chunks: the index has blocks of 2,048 offsets or more
    let n = 5000;
    let mem = in_memory(n);
    let want = contents(&mem);
    for path in frames("reads", n) {
        let lazy = open(&path, true);
        let whole = open(&path, false);
        assert_eq!(lazy.nchunks(), n as i64);
        assert_eq!(lazy.nbytes(), whole.nbytes());
        assert_eq!(lazy.cbytes(), whole.cbytes());
        assert_eq!(lazy.offsets().unwrap(), whole.offsets().unwrap());
        assert_eq!(lazy.frame_len().unwrap(), whole.frame_len().unwrap());
        assert_eq!(contents(&lazy), want, "{}", path.display());
        // backwards, across pieces
        for i in (0..n as i64).rev().step_by(997) {
            assert_eq!(lazy.chunk(i).unwrap(), whole.chunk(i).unwrap());
            assert_eq!(lazy.lazy_chunk(i).unwrap(), whole.lazy_chunk(i).unwrap());
        }
        let items = (lazy.nbytes() / 4) as usize;
        let (mut a, mut b) = (vec![0u8; items * 4], vec![0u8; items * 4]);
        lazy.get_slice(0, items as i64, &mut a).unwrap();
        whole.get_slice(0, items as i64, &mut b).unwrap();
        assert_eq!(a, b);
        // reading changed nothing: still lazy
        assert!(lazy.entries.is_lazy());
    }
}

#[test]
fn every_change_to_a_lazily_read_frame_writes_what_a_whole_read_one_does() {
    let n = 3000;
    type Op = fn(&mut SuperChunk);
    let ops: [(&str, Op); 8] = [
        ("append", |s| {
            s.append_buffer(&data(7)).unwrap();
        }),
        ("update", |s| {
            let c = s.chunk(5).unwrap().to_vec();
            s.update_chunk(2100, &c).unwrap();
        }),
        ("update-special", |s| {
            let z = s.chunk(3).unwrap().into_owned();
            s.update_chunk(10, &z).unwrap();
        }),
        ("insert", |s| {
            let c = s.chunk(41).unwrap().to_vec();
            s.insert_chunk(40, &c).unwrap();
        }),
        ("delete", |s| {
            s.delete_chunk(2999).unwrap();
            s.delete_chunk(17).unwrap();
        }),
        ("reorder", |s| {
            let order: Vec<i64> = (0..s.nchunks()).rev().collect();
            s.reorder(&order).unwrap();
        }),
        ("set-slice", |s| {
            s.set_slice(64 * 2047, 64 * 2050, &[7u8; 3 * 256]).unwrap();
        }),
        ("vlmeta", |s| {
            s.vlmeta_add("k", b"v", None).unwrap();
        }),
    ];
    for src in frames("changes", n) {
        for (name, op) in ops {
            let a = tmp(&format!("ch-{name}-a"));
            let b = tmp(&format!("ch-{name}-b"));
            copy_frame(&src, &a);
            copy_frame(&src, &b);
            let mut lazy = open(&a, true);
            let mut whole = open(&b, false);
            op(&mut lazy);
            op(&mut whole);
            assert_eq!(
                frame_bytes(&a),
                frame_bytes(&b),
                "{name} on {}",
                src.display()
            );
            assert_eq!(contents(&lazy), contents(&whole), "{name}");
            assert_eq!(contents(&reopen(&a)), contents(&whole), "{name}");
        }
    }
}

#[test]
fn a_failed_change_leaves_a_lazily_read_frame_readable() {
    for src in frames("failed", 3000) {
        let want = contents(&open(&src, false));
        let mut failed = 0;
        type Op = fn(&mut SuperChunk) -> Result<i64>;
        let ops: [Op; 4] = [
            |s| {
                let c = s.chunk(1).unwrap().to_vec();
                s.update_chunk(2500, &c)
            },
            |s| s.delete_chunk(3),
            |s| {
                let c = s.chunk(2).unwrap().to_vec();
                s.insert_chunk(2999, &c)
            },
            |s| s.append_buffer(&[9u8; 100]),
        ];
        for (k, op) in ops.iter().enumerate() {
            for budget in [0, 100, 5000, 40_000] {
                let p = tmp(&format!("failed-{k}-{budget}"));
                copy_frame(&src, &p);
                let left = Arc::new(Mutex::new(usize::MAX));
                LAZY_FROM_IN_TESTS.set(Some(1));
                let io = Arc::new(super::tests::Failing {
                    budget: left.clone(),
                });
                let mut sc = SuperChunk::open(&p, 0, io).unwrap();
                LAZY_FROM_IN_TESTS.set(None);
                assert!(sc.entries.is_lazy());
                *left.lock().unwrap() = budget;
                if op(&mut sc).is_ok() {
                    continue;
                }
                failed += 1;
                assert_eq!(contents(&sc), want, "op {k}, budget {budget}");
                assert_eq!(contents(&reopen(&p)), want, "op {k}, budget {budget}");
            }
        }
        assert!(failed >= 8, "{failed} changes failed");
    }
}

/// A frame file of `items` zero items of 4 bytes in chunks of 4 KiB,
/// written by a special fill.
fn zero_frame(name: &str, items: i64) -> PathBuf {
    let path = tmp(name);
    let mut sc = SuperChunk::new(Storage {
        contiguous: true,
        urlpath: Some(path.clone()),
        cparams: cparams(),
        ..Storage::default()
    })
    .unwrap();
    sc.fill_special(items, Special::Zero, 4096).unwrap();
    path
}

#[test]
fn a_frame_of_a_million_special_chunks_opens_without_its_index() {
    let path = zero_frame("million.b2frame", 1_000_000 * 1024 + 7);
    // (the library's own threshold)
    let sc = SuperChunk::open(&path, 0, crate::io::default_backend()).unwrap();
    assert!(sc.entries.is_lazy());
    assert_eq!(sc.nchunks(), 1_000_001);
    let mut out = vec![1u8; 4096];
    assert_eq!(sc.decompress_chunk(1_000_000, &mut out).unwrap(), 28);
    assert!(out[..28].iter().all(|&b| b == 0));
    assert_eq!(sc.decompress_chunk(123_456, &mut out).unwrap(), 4096);
    assert_eq!(
        sc.offsets().unwrap()[999_999],
        index::special_offset(Special::Zero)
    );
    drop(sc);
    // appends go from its index as stored (one repeated value), when they
    // keep the chunk size fixed
    let path = zero_frame("million-full.b2frame", 1_000_000 * 1024);
    let other = tmp("million-whole.b2frame");
    copy_frame(&path, &other);
    let mut fast = SuperChunk::open(&path, 0, crate::io::default_backend()).unwrap();
    let mut whole = SuperChunk::open(&other, 0, crate::io::default_backend()).unwrap();
    for i in 0..30 / crate::test_stride() {
        let mut d = data(i);
        d.resize(4096, 7);
        fast.append_buffer(&d).unwrap();
        whole.appender = None;
        whole.entries.vec_mut().unwrap();
        whole.append_buffer(&d).unwrap();
    }
    assert!(fast.entries.is_lazy() && fast.appender.is_some());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&other).unwrap()
    );
    let mut out = vec![0u8; 4096];
    let last = 30 / crate::test_stride() - 1;
    fast.decompress_chunk(1_000_000 + last as i64, &mut out)
        .unwrap();
    assert_eq!(out[..256], data(last)[..]);
}

#[test]
fn damaged_lazily_read_indexes_are_errors_not_panics() {
    let [file, _] = frames("damaged", 5000);
    let good = std::fs::read(&file).unwrap();
    let whole = open(&file, false);
    let h = crate::frame::header::FrameHeader::parse(&good).unwrap();
    let idx = h.header_len as usize + h.cbytes as usize;
    let icb = ChunkHeader::read(&good[idx..]).unwrap().cbytes as usize;
    let bad_path = tmp("damaged-copy.b2frame");
    let mut opened = 0;
    for at in (idx..idx + icb).step_by(7 * crate::test_stride()) {
        let mut bad = good.clone();
        bad[at] ^= 0x55;
        std::fs::write(&bad_path, &bad).unwrap();
        LAZY_FROM_IN_TESTS.set(Some(1));
        let r = SuperChunk::open(&bad_path, 0, crate::io::default_backend());
        LAZY_FROM_IN_TESTS.set(None);
        let Ok(sc) = r else { continue };
        opened += 1;
        for i in (0..sc.nchunks()).step_by(131) {
            // an error, or the chunk the offset now points at
            if let (Ok(a), Ok(b)) = (sc.chunk(i), whole.chunk(i)) {
                let _ = a == b;
            }
        }
        let _ = sc.offsets();
    }
    assert!(opened > 0, "no damaged index opened at all");
}

#[test]
fn appends_encode_only_the_last_blocks_and_write_what_a_whole_encoding_does() {
    // full chunks only, so that appends keep the chunk size fixed
    let mut mem = SuperChunk::new(Storage {
        cparams: cparams(),
        ..Storage::default()
    })
    .unwrap();
    for i in 0..2500 {
        mem.append_buffer(&data(i)).unwrap();
    }
    let src = tmp("appends.b2frame");
    mem.to_file(&src).unwrap();
    let (a, b) = (tmp("appends-a.b2frame"), tmp("appends-b.b2frame"));
    copy_frame(&src, &a);
    copy_frame(&src, &b);
    let mut lazy = open(&a, true);
    let mut whole = open(&b, false);
    // (a k-th as many appends under emulation, the change in place halfway)
    let n = 2200 / crate::test_stride();
    for i in 0..n {
        let d = data(10_000 + i);
        lazy.append_buffer(&d).unwrap();
        // the other one encodes its whole index every time
        whole.appender = None;
        whole.append_buffer(&d).unwrap();
        if i % 300 == 0 || i == n - 1 {
            assert_eq!(frame_bytes(&a), frame_bytes(&b), "after {} appends", i + 1);
        }
        if i == n / 2 {
            assert!(lazy.appender.is_some(), "appends went the whole way");
            assert!(lazy.entries.is_lazy(), "appends read the whole index");
            // a change in place (which reads the index whole), then
            // appends again
            let c = lazy.chunk(7).unwrap().to_vec();
            lazy.update_chunk(2, &c).unwrap();
            whole.update_chunk(2, &c).unwrap();
        }
    }
    assert!(
        lazy.appender.is_some(),
        "appends after the change went the whole way"
    );
    assert_eq!(contents(&lazy), contents(&whole));
    assert_eq!(contents(&reopen(&a)), contents(&whole));
}

#[test]
fn a_handle_reading_a_sparse_frame_lazily_lets_another_one_write_it() {
    // (on Windows a stream kept on the index file would forbid the rename
    // of the new index over it: every write of the other handle failed)
    let [_, dir] = frames("two-handles", 3000);
    let mut r = open(&dir, true);
    let mut w = open(&dir, false);
    let before = contents(&r);
    w.append_buffer(&data(7)).unwrap();
    assert_eq!(contents(&r), before);
    // (this one removes a chunk file the reader's view still names)
    let c = w.chunk(9).unwrap().into_owned();
    w.update_chunk(5, &c).unwrap();
    assert!(r.refresh().unwrap());
    assert_eq!(contents(&r), contents(&w));
}
