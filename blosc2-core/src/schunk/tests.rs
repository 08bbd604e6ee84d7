//! Frames written by the reference libraries (the shared interop corpus)
//! open with the right counts and metalayers and every chunk decodes; frames
//! we write read back the same.

use super::*;
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::special::make_special;
use crate::frame::header::{self as fh, FrameHeader};
use crate::frame::{cframe, index, sframe};
use crate::io::Mode;
use crate::metalayers;
use serde_json::Value;
use std::path::Path;

fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if p.join("interop").is_dir() {
        Some(p)
    } else {
        eprintln!("SKIP: ../shared not found: corpus frame tests not run");
        None
    }
}

fn open_entry(dir: &Path, e: &Value) -> Result<Vec<SuperChunk>> {
    let path = dir.join(e["path"].as_str().unwrap_or(""));
    let kind = e["kind"].as_str().unwrap_or("");
    let io = crate::io::default_backend();
    Ok(match kind {
        "cframe" | "cframe-file" => {
            let buf = std::fs::read(&path).map_err(|_| ErrorKind::FileRead)?;
            vec![
                SuperChunk::from_buffer(&buf, false)?,
                SuperChunk::from_buffer(&buf, true)?,
                SuperChunk::open(&path, 0, io)?,
            ]
        }
        "sframe" => vec![SuperChunk::open(&path, 0, io)?],
        "offset-frame" => {
            let off = e["params"]["offset"].as_u64().unwrap_or(0);
            vec![SuperChunk::open(&path, off, io)?]
        }
        _ => vec![],
    })
}

fn check(sc: &SuperChunk, exp: &Value) -> std::result::Result<(), String> {
    let want = |k: &str| exp[k].as_i64().unwrap_or(-99);
    if sc.nchunks() != want("nchunks") || sc.nbytes() != want("nbytes") {
        return Err(format!("nchunks/nbytes {} {}", sc.nchunks(), sc.nbytes()));
    }
    if sc.chunksize() as i64 != want("chunksize") || sc.typesize() as i64 != want("typesize") {
        return Err(format!(
            "chunksize {} typesize {}",
            sc.chunksize(),
            sc.typesize()
        ));
    }
    for m in exp["metalayers"].as_array().into_iter().flatten() {
        let name = m["name"].as_str().unwrap_or("");
        let i = metalayers::find(&sc.metalayers, name).ok_or(format!("meta {name}"))?;
        if sc.metalayers[i].content.len() as i64 != m["len"].as_i64().unwrap_or(-1) {
            return Err(format!("meta {name} len"));
        }
    }
    for m in exp["vlmetalayers"].as_array().into_iter().flatten() {
        let name = m["name"].as_str().unwrap_or("");
        let v = sc
            .vlmeta_get(name)
            .map_err(|e| format!("vlmeta {name}: {e:?}"))?;
        if v.len() as i64 != m["len"].as_i64().unwrap_or(-1) {
            return Err(format!("vlmeta {name} len"));
        }
    }
    let mut sum = 0i64;
    for i in 0..sc.nchunks() {
        let c = sc.chunk(i).map_err(|e| format!("chunk {i}: {e:?}"))?;
        let nb = ChunkHeader::read(&c).map_err(|e| format!("{e:?}"))?.nbytes;
        if let Some(cj) = exp["chunks"].get(i as usize) {
            if cj["nbytes"].as_i64() != Some(nb as i64) {
                return Err(format!("chunk {i} nbytes"));
            }
        }
        let mut buf = vec![0u8; nb as usize];
        sc.decompress_chunk(i, &mut buf)
            .map_err(|e| format!("decompress {i}: {e:?}"))?;
        sum += nb as i64;
    }
    if sum != sc.nbytes() {
        return Err("sum of chunk nbytes".into());
    }
    for s in exp["slices"].as_array().into_iter().flatten() {
        let (a, b) = (
            s["start"].as_i64().unwrap_or(0),
            s["stop"].as_i64().unwrap_or(0),
        );
        let mut buf = vec![0u8; ((b - a) * sc.typesize() as i64) as usize];
        sc.get_slice(a, b, &mut buf)
            .map_err(|e| format!("slice {a}..{b}: {e:?}"))?;
    }
    Ok(())
}

fn run_manifest(dir: &Path) -> (usize, Vec<String>) {
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let mut ok = 0;
    let mut bad = Vec::new();
    for e in m["entries"].as_array().unwrap() {
        let kind = e["kind"].as_str().unwrap_or("");
        if !["cframe", "cframe-file", "sframe", "offset-frame"].contains(&kind) {
            continue;
        }
        let id = e["id"].as_str().unwrap_or("?");
        match open_entry(dir, e) {
            Ok(scs) => {
                // no upstream frame has checksums, and none is ever
                // judged damaged by them (no false positives)
                let r: std::result::Result<Vec<()>, String> = scs
                    .iter()
                    .map(|sc| {
                        let v = sc.verify();
                        if v.frame != FrameCheck::Unverified || !v.ok() || sc.checksums() {
                            return Err(format!("checksums: {v:?}"));
                        }
                        check(sc, &e["expected"])
                    })
                    .collect();
                match r {
                    Ok(_) => ok += 1,
                    Err(msg) => bad.push(format!("{id}: {msg}")),
                }
            }
            Err(err) => bad.push(format!("{id}: open: {err:?}")),
        }
    }
    (ok, bad)
}

#[test]
fn reference_corpus_frames() {
    let Some(sh) = shared() else { return };
    for v in ["ref-3.3.5", "ref-2.22.1"] {
        let (ok, bad) = run_manifest(&sh.join("interop").join(v));
        eprintln!("{v}: {ok} frames ok, {} failed", bad.len());
        assert!(bad.is_empty(), "{v}: {bad:#?}");
    }
    let (ok, bad) = run_manifest(&sh.join("upstream-data"));
    eprintln!("upstream-data: {ok} frames ok");
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn fuzz_corpus_never_panics() {
    let Some(sh) = shared() else { return };
    let dir = sh.join("upstream-data/tests/fuzz/corpus");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    for f in rd.flatten() {
        let buf = std::fs::read(f.path()).unwrap();
        if let Ok(sc) = SuperChunk::from_buffer(&buf, false) {
            for i in 0..sc.nchunks() {
                let mut out = vec![0u8; sc.chunksize().max(0) as usize];
                let _ = sc.decompress_chunk(i, &mut out);
            }
        }
        // every truncation too
        for cut in [0, 1, 16, 87, buf.len() / 2, buf.len().saturating_sub(1)] {
            let _ = SuperChunk::from_buffer(&buf[..cut.min(buf.len())], false);
        }
    }
}

fn sample(n: usize, seed: u32) -> Vec<u8> {
    (0..n)
        .map(|i| ((i as u32).wrapping_mul(seed) >> 3) as u8)
        .collect()
}

fn ops_round_trip(storage: Storage, reopen: Option<&dyn Fn() -> SuperChunk>) {
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut sc = SuperChunk::new(Storage {
        cparams: cp,
        ..storage
    })
    .unwrap();
    sc.meta_add("m1", b"hello").unwrap();
    let chunks: Vec<Vec<u8>> = (0..5).map(|i| sample(4000, 7 + i)).collect();
    for c in &chunks {
        sc.append_buffer(c).unwrap();
    }
    sc.vlmeta_add("v1", &sample(300, 3), None).unwrap();
    let ins = sc.compress(&sample(4000, 99)).unwrap();
    sc.insert_chunk(2, &ins).unwrap();
    let upd = sc.compress(&sample(4000, 55)).unwrap();
    sc.update_chunk(0, &upd).unwrap();
    sc.delete_chunk(4).unwrap();
    sc.reorder(&[4, 3, 2, 1, 0]).unwrap();
    sc.meta_update("m1", b"HELLO").unwrap();
    sc.vlmeta_add("v2", b"x", None).unwrap();
    sc.vlmeta_delete("v1").unwrap();
    let mut model = chunks.clone();
    model.insert(2, sample(4000, 99));
    model[0] = sample(4000, 55);
    model.remove(4);
    model.reverse();
    let check = |sc: &SuperChunk| {
        assert_eq!(sc.nchunks(), 5);
        for (i, m) in model.iter().enumerate() {
            let mut out = vec![0u8; 4000];
            sc.decompress_chunk(i as i64, &mut out).unwrap();
            assert_eq!(&out, m, "chunk {i}");
        }
        let mut s = vec![0u8; 400];
        sc.get_slice(900, 1000, &mut s).unwrap();
        assert_eq!(&s[..], &model[0][3600..4000]);
        assert_eq!(sc.metalayers[0].content, b"HELLO");
        assert_eq!(sc.vlmeta_get("v2").unwrap(), b"x");
        assert!(sc.vlmeta_get("v1").is_err());
    };
    check(&sc);
    let f = sc.to_frame().unwrap();
    check(&SuperChunk::from_buffer(&f, false).unwrap());
    check(&SuperChunk::from_buffer(&f, true).unwrap());
    if let Some(r) = reopen {
        drop(sc);
        check(&r());
    }
}

fn tmp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("b2rs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_dir_all(&p);
    p
}

#[test]
fn round_trips() {
    ops_round_trip(Storage::default(), None);
    ops_round_trip(
        Storage {
            contiguous: true,
            ..Storage::default()
        },
        None,
    );
    let f = tmp("c.b2frame");
    ops_round_trip(
        Storage {
            contiguous: true,
            urlpath: Some(f.clone()),
            ..Storage::default()
        },
        Some(&|| SuperChunk::open(&f, 0, crate::io::default_backend()).unwrap()),
    );
    let d = tmp("s.b2frame");
    ops_round_trip(
        Storage {
            contiguous: false,
            urlpath: Some(d.clone()),
            ..Storage::default()
        },
        Some(&|| SuperChunk::open(&d, 0, crate::io::default_backend()).unwrap()),
    );
    let _ = std::fs::remove_file(&f);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn special_fill_and_offsets() {
    let mut sc = SuperChunk::new(Storage {
        contiguous: true,
        ..Storage::default()
    })
    .unwrap();
    sc.fill_special(1000, Special::Zero, 800).unwrap();
    assert_eq!(sc.nchunks(), 10);
    assert_eq!(sc.cbytes(), 0);
    let f = sc.to_frame().unwrap();
    let back = SuperChunk::from_buffer(&f, false).unwrap();
    let mut out = vec![1u8; 8000];
    back.get_slice(0, 1000, &mut out).unwrap();
    assert!(out.iter().all(|&b| b == 0));
}

/// A small frame with metalayers, vlmetalayers, 3 chunks and a special one.
fn sample_frame() -> Vec<u8> {
    let mut sc = SuperChunk::new(Storage {
        contiguous: true,
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    sc.meta_add("ovrfl", &[0xde, 0xad, 0xbe, 0xef]).unwrap();
    for i in 0..3 {
        sc.append_buffer(&sample(4000, 11 + i)).unwrap();
    }
    let mut z = vec![0u8; EXTENDED_HEADER_LENGTH];
    let n = make_special(&sc.cparams, Special::Zero, 4000, None, &mut z).unwrap();
    sc.append_chunk(&z[..n]).unwrap();
    sc.vlmeta_add("vl", &sample(100, 5), None).unwrap();
    sc.to_frame().unwrap()
}

fn be(v: &mut [u8], at: usize, bytes: &[u8]) {
    v[at..at + bytes.len()].copy_from_slice(bytes);
}

fn opens_and_reads(buf: &[u8]) -> Result<()> {
    let sc = SuperChunk::from_buffer(buf, false)?;
    for i in 0..sc.nchunks() {
        let mut out = vec![0u8; sc.entries.get(i as usize).unwrap().nbytes.max(0) as usize];
        sc.decompress_chunk(i, &mut out)?;
    }
    for m in &sc.vlmetalayers {
        sc.vlmeta_get(&m.name)?;
    }
    Ok(())
}

#[test]
fn malformed_frames_are_errors() {
    let good = sample_frame();
    opens_and_reads(&good).unwrap();
    let hl = i32::from_be_bytes(good[11..15].try_into().unwrap()) as usize;
    let flen = good.len();
    // truncated anywhere
    for cut in 0..flen {
        assert!(opens_and_reads(&good[..cut]).is_err(), "cut {cut}");
    }
    let bad = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut v = good.clone();
        f(&mut v);
        opens_and_reads(&v)
    };
    // header_size lies
    for h in [0i32, 10, 86, flen as i32 + 1, i32::MAX, -1] {
        assert!(
            bad(&|v| be(v, 11, &h.to_be_bytes())).is_err(),
            "header_len {h}"
        );
    }
    // frame_size lies
    for l in [0u64, 50, flen as u64 - 1, flen as u64 + 1, u64::MAX] {
        assert!(
            bad(&|v| be(v, 16, &l.to_be_bytes())).is_err(),
            "frame_len {l}"
        );
    }
    // trailer_len: too small, too big, huge
    for t in [
        0u32,
        24,
        flen as u32,
        flen as u32 - 80,
        u32::MAX,
        i32::MAX as u32 + 1,
    ] {
        assert!(
            bad(&|v| be(v, flen - 22, &t.to_be_bytes())).is_err(),
            "trailer_len {t}"
        );
    }
    // compressed size in the header pointing the index elsewhere
    for c in [-1i64, 0, 1, i64::MAX, i64::MAX - 100, flen as i64] {
        assert!(bad(&|v| be(v, 39, &c.to_be_bytes())).is_err(), "cbytes {c}");
    }
    // metalayer count and content length overflowing
    assert!(bad(&|v| be(v, 92, &0xffffu16.to_be_bytes())).is_err());
    let meta_len_at = good
        .windows(5)
        .position(|w| w == [0xc6, 0, 0, 0, 4])
        .unwrap()
        + 1;
    assert!(meta_len_at < hl);
    for l in [i32::MAX, -1, 5, 1 << 20] {
        assert!(
            bad(&|v| be(v, meta_len_at, &l.to_be_bytes())).is_err(),
            "meta len {l}"
        );
    }
    // the trailer's vlmetalayer count
    let tl = u32::from_be_bytes(good[flen - 22..flen - 18].try_into().unwrap()) as usize;
    let t0 = flen - tl;
    assert_eq!(&good[t0..t0 + 4], &[0x94, 1, 0x93, 0xcd]);
    assert!(bad(&|v| be(v, t0 + 7, &0xffffu16.to_be_bytes())).is_err());
    // index offsets outside the frame
    let offs = [i64::MAX / 4; 4];
    let idx = index::encode(&offs).unwrap();
    let h = FrameHeader::parse(&good).unwrap();
    let idx_at = hl + h.cbytes as usize;
    let old_idx_len = ChunkHeader::read(&good[idx_at..]).unwrap().cbytes as usize;
    let mut v = good[..idx_at].to_vec();
    v.extend_from_slice(&idx);
    v.extend_from_slice(&good[idx_at + old_idx_len..]);
    let nl = v.len() as u64;
    be(&mut v, 16, &nl.to_be_bytes());
    assert!(opens_and_reads(&v).is_err());
    // a chunk whose cbytes runs past the chunks section
    for cb in [i32::MAX, h.cbytes as i32 + 1, 31] {
        assert!(
            bad(&|v| be(v, hl + 12, &cb.to_le_bytes())).is_err(),
            "chunk cbytes {cb}"
        );
    }
    // any single corrupted byte: never a panic
    for at in 0..flen {
        for x in [0u8, 0xff, 0x80, 0x7f] {
            let mut v = good.clone();
            v[at] = x;
            let _ = opens_and_reads(&v);
        }
    }
}

#[test]
fn sparse_frame_missing_or_truncated_chunk() {
    let d = tmp("broken.b2frame");
    let mut sc = SuperChunk::new(Storage {
        urlpath: Some(d.clone()),
        ..Storage::default()
    })
    .unwrap();
    for i in 0..3 {
        sc.append_buffer(&sample(8000, 3 + i)).unwrap();
    }
    drop(sc);
    let f1 = sframe::chunk_path(&d, 1);
    let content = std::fs::read(&f1).unwrap();
    std::fs::write(&f1, &content[..content.len() / 2]).unwrap();
    std::fs::remove_file(sframe::chunk_path(&d, 2)).unwrap();
    let sc = SuperChunk::open(&d, 0, crate::io::default_backend()).unwrap();
    let mut out = vec![0u8; 8000];
    sc.decompress_chunk(0, &mut out).unwrap();
    assert!(sc.decompress_chunk(1, &mut out).is_err());
    assert!(sc.decompress_chunk(2, &mut out).is_err());
    std::fs::write(sframe::index_path(&d), b"short").unwrap();
    assert!(SuperChunk::open(&d, 0, crate::io::default_backend()).is_err());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn readers_share_one_superchunk() {
    fn is_sync<T: Sync>(_: &T) {}
    let f = sample_frame();
    let sc = SuperChunk::from_buffer(&f, false).unwrap();
    is_sync(&sc);
    let want: Vec<Vec<u8>> = (0..sc.nchunks())
        .map(|i| {
            let mut o = vec![0u8; 4000];
            sc.decompress_chunk(i, &mut o).unwrap();
            o
        })
        .collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (sc, want) = (&sc, &want);
            s.spawn(move || {
                for k in 0..200 {
                    let i = ((k + t) % 4) as i64;
                    let mut o = vec![0u8; 4000];
                    sc.decompress_chunk(i, &mut o).unwrap();
                    assert_eq!(o, want[i as usize]);
                    let mut s2 = vec![0u8; 40];
                    sc.get_slice(i * 1000 + 5, i * 1000 + 15, &mut s2).unwrap();
                    assert_eq!(&s2[..], &want[i as usize][20..60]);
                }
            });
        }
    });
}

#[test]
fn partial_reads_of_large_chunks_on_disk() {
    for (name, cp) in [
        ("plain", CParams::default()),
        (
            "zstd-dict",
            CParams {
                compcode: crate::chunk::params::codec::ZSTD,
                use_dict: true,
                ..CParams::default()
            },
        ),
    ] {
        for contiguous in [true, false] {
            let p = tmp(&format!("partial-{name}-{contiguous}.b2frame"));
            let mut sc = SuperChunk::new(Storage {
                contiguous,
                urlpath: Some(p.clone()),
                cparams: CParams {
                    typesize: 8,
                    ..cp.clone()
                },
                ..Storage::default()
            })
            .unwrap();
            let data: Vec<u8> = (0..3 * 1024 * 1024u32)
                .map(|i| (i / 8 % 251) as u8 ^ (i % 8) as u8)
                .collect();
            for c in data.chunks(1024 * 1024) {
                sc.append_buffer(c).unwrap();
            }
            drop(sc);
            let sc = SuperChunk::open(&p, 0, crate::io::default_backend()).unwrap();
            let mut x = 99u64;
            for _ in 0..200 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let a = (x >> 20) as i64 % (data.len() as i64 / 8 - 2000);
                let len = 1 + (x >> 50) as i64 % 1500;
                let mut out = vec![0u8; len as usize * 8];
                sc.get_slice(a, a + len, &mut out).unwrap();
                assert_eq!(
                    &out[..],
                    &data[a as usize * 8..(a + len) as usize * 8],
                    "{name}"
                );
            }
            let _ = std::fs::remove_file(&p);
            let _ = std::fs::remove_dir_all(&p);
        }
    }
}

/// A backend whose writes start failing once a byte budget is spent, like a
/// full disk.
pub(super) struct Failing {
    pub(super) budget: Arc<Mutex<usize>>,
}

struct FailingStream {
    inner: Box<dyn crate::io::Stream>,
    budget: Arc<Mutex<usize>>,
}

impl crate::io::Backend for Failing {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn crate::io::Stream>> {
        Ok(Box::new(FailingStream {
            inner: crate::io::stdio::Stdio.open(path, mode)?,
            budget: self.budget.clone(),
        }))
    }
}

impl crate::io::Stream for FailingStream {
    fn size(&mut self) -> Result<u64> {
        self.inner.size()
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_exact_at(pos, buf)
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let mut b = self.budget.lock().unwrap();
        if *b < data.len() {
            return Err(ErrorKind::FileWrite);
        }
        *b -= data.len();
        self.inner.write_all_at(pos, data)
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.inner.truncate(size)
    }
}

#[test]
fn failed_writes_are_errors() {
    for contiguous in [true, false] {
        let p = tmp(&format!("failing-{contiguous}.b2frame"));
        let budget = Arc::new(Mutex::new(usize::MAX));
        let mut sc = SuperChunk::new(Storage {
            contiguous,
            urlpath: Some(p.clone()),
            io: Arc::new(Failing {
                budget: budget.clone(),
            }),
            ..Storage::default()
        })
        .unwrap();
        sc.append_buffer(&sample(8000, 5)).unwrap();
        *budget.lock().unwrap() = 100;
        assert!(sc.append_buffer(&sample(8000, 6)).is_err());
        assert!(sc.vlmeta_add("big", &sample(5000, 1), None).is_err());
        let c = sc.compress(&sample(8000, 9)).unwrap();
        *budget.lock().unwrap() = 0;
        assert!(sc.update_chunk(0, &c).is_err());
        drop(sc);
        // whatever is on disk now must never make a reader panic
        if let Ok(sc) = SuperChunk::open(&p, 0, crate::io::default_backend()) {
            let mut out = vec![0u8; 8000];
            for i in 0..sc.nchunks() {
                let _ = sc.decompress_chunk(i, &mut out);
            }
        }
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
}

/// A special chunk of `nbytes` with the super-chunk's parameters.
fn special_of(sc: &SuperChunk, kind: Special, nbytes: i32) -> Vec<u8> {
    let mut z = vec![0u8; EXTENDED_HEADER_LENGTH];
    let n = make_special(&sc.cparams, kind, nbytes, None, &mut z).unwrap();
    z.truncate(n);
    z
}

/// Every read path against the model's chunks.
fn check_model(sc: &SuperChunk, model: &[Vec<u8>], what: &str) {
    assert_eq!(sc.nchunks(), model.len() as i64, "{what}");
    let all: Vec<u8> = model.concat();
    assert_eq!(sc.nbytes(), all.len() as i64, "{what}");
    for (i, m) in model.iter().enumerate() {
        let mut out = vec![0u8; m.len()];
        let n = sc.decompress_chunk(i as i64, &mut out).unwrap();
        assert_eq!(n, m.len(), "{what} chunk {i}");
        assert_eq!(&out, m, "{what} chunk {i}");
    }
    let items = all.len() as i64 / 4;
    let mut x = 7u64;
    for k in 0..60 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (a, b) = if k == 0 {
            (0, items)
        } else {
            let a = (x >> 33) as i64 % (items + 1);
            (a, a + (x >> 13) as i64 % (items - a + 1))
        };
        let mut out = vec![0u8; ((b - a) * 4) as usize];
        sc.get_slice(a, b, &mut out).unwrap();
        assert_eq!(
            &out[..],
            &all[a as usize * 4..b as usize * 4],
            "{what} {a}..{b}"
        );
        let idx = sc.slice_chunks(a, b).unwrap();
        if a < b {
            // the chunks listed are exactly those holding bytes of the slice
            let mut at = 0i64;
            let mut want = Vec::new();
            for (i, m) in model.iter().enumerate() {
                let end = at + m.len() as i64;
                if end > a * 4 && at < b * 4 && !m.is_empty() {
                    want.push(i as i64);
                }
                at = end;
            }
            assert_eq!(idx, want, "{what} slice_chunks {a}..{b}");
        }
    }
    let coords = [0, items / 3, items - 1];
    let mut out = vec![0u8; 12];
    sc.get_sparse(&coords, &mut out).unwrap();
    for (j, &c) in coords.iter().enumerate() {
        assert_eq!(
            &out[j * 4..j * 4 + 4],
            &all[c as usize * 4..c as usize * 4 + 4]
        );
    }
}

fn variable_ops(storage: Storage, reopen: Option<&dyn Fn() -> SuperChunk>) {
    let mut sc = SuperChunk::new(Storage {
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..storage
    })
    .unwrap();
    sc.meta_add("m", b"meta").unwrap();
    let mut model: Vec<Vec<u8>> = Vec::new();
    for i in 0..3 {
        let d = sample(4000, 3 + i);
        sc.append_buffer(&d).unwrap();
        model.push(d);
    }
    // a special chunk while sizes are fixed: a special offset in frames
    let z = special_of(&sc, Special::Zero, 4000);
    sc.append_chunk(&z).unwrap();
    model.push(vec![0u8; 4000]);
    assert_eq!(sc.chunksize(), 4000);
    // a bigger chunk switches to variable-size chunks
    let d = sample(10000, 21);
    sc.append_buffer(&d).unwrap();
    model.push(d);
    assert_eq!(sc.chunksize(), 0);
    for (n, s) in [(2400usize, 5u32), (400, 9), (12000, 13)] {
        let d = sample(n, s);
        sc.append_buffer(&d).unwrap();
        model.push(d);
    }
    let ins = sample(1204, 17);
    {
        let c = sc.compress(&ins).unwrap();
        sc.insert_chunk(1, &c)
    }
    .unwrap();
    model.insert(1, ins);
    let z2 = special_of(&sc, Special::Zero, 800);
    sc.insert_chunk(3, &z2).unwrap();
    model.insert(3, vec![0u8; 800]);
    let upd = sample(6000, 29);
    {
        let c = sc.compress(&upd).unwrap();
        sc.update_chunk(0, &c)
    }
    .unwrap();
    model[0] = upd;
    sc.delete_chunk(6).unwrap();
    model.remove(6);
    let n = model.len() as i64;
    let order: Vec<i64> = (0..n).rev().collect();
    sc.reorder(&order).unwrap();
    model.reverse();
    // a slice across several chunks of different sizes
    let total: usize = model.iter().map(|m| m.len()).sum();
    let patch = sample(total / 8 * 4, 31);
    let a = total / 8 / 4;
    sc.set_slice(a as i64, (a + patch.len() / 4) as i64, &patch)
        .unwrap();
    let mut flat = model.concat();
    flat[a * 4..a * 4 + patch.len()].copy_from_slice(&patch);
    let mut at = 0;
    for m in model.iter_mut() {
        let l = m.len();
        m.copy_from_slice(&flat[at..at + l]);
        at += l;
    }
    sc.vlmeta_add("v", b"vl", None).unwrap();
    check_model(&sc, &model, "live");
    let f = sc.to_frame().unwrap();
    // written as the reference writes them: version 3, variable-size flag,
    // chunksize 0
    assert_eq!(f[fh::pos::FLAGS], 0x53);
    assert_eq!(
        &f[fh::pos::CHUNKSIZE..fh::pos::CHUNKSIZE + 4],
        &[0, 0, 0, 0]
    );
    check_model(
        &SuperChunk::from_buffer(&f, false).unwrap(),
        &model,
        "buffer",
    );
    check_model(&SuperChunk::from_buffer(&f, true).unwrap(), &model, "copy");
    // no special offsets remain: the reference could not size them
    let back = SuperChunk::from_buffer(&f, false).unwrap();
    assert!(back
        .entries
        .iter()
        .all(|e| !matches!(e.unwrap().slot, Slot::Special(_))));
    if let Some(r) = reopen {
        drop(sc);
        let sc = r();
        assert_eq!(sc.chunksize(), 0);
        assert_eq!(sc.metalayers[0].content, b"meta");
        check_model(&sc, &model, "reopened");
    }
}

#[test]
fn variable_size_chunks() {
    variable_ops(Storage::default(), None);
    variable_ops(
        Storage {
            contiguous: true,
            ..Storage::default()
        },
        None,
    );
    let f = tmp("var.b2frame");
    variable_ops(
        Storage {
            contiguous: true,
            urlpath: Some(f.clone()),
            ..Storage::default()
        },
        Some(&|| SuperChunk::open(&f, 0, crate::io::default_backend()).unwrap()),
    );
    let d = tmp("var-s.b2frame");
    variable_ops(
        Storage {
            contiguous: false,
            urlpath: Some(d.clone()),
            ..Storage::default()
        },
        Some(&|| SuperChunk::open(&d, 0, crate::io::default_backend()).unwrap()),
    );
    let _ = std::fs::remove_file(&f);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn fixed_size_rules() {
    let mut sc = SuperChunk::new(Storage {
        contiguous: true,
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    sc.append_buffer(&sample(1000, 3)).unwrap();
    sc.append_buffer(&sample(600, 3)).unwrap();
    assert_eq!(sc.chunksize(), 1000);
    // updating the short last chunk with another short one keeps them fixed
    {
        let c = sc.compress(&sample(700, 5)).unwrap();
        sc.update_chunk(1, &c)
    }
    .unwrap();
    assert_eq!(sc.chunksize(), 1000);
    // a full chunk inserted before the short last one keeps them fixed too
    {
        let c = sc.compress(&sample(1000, 7)).unwrap();
        sc.insert_chunk(0, &c)
    }
    .unwrap();
    assert_eq!(sc.chunksize(), 1000);
    // a chunk after a short one does not
    sc.append_buffer(&sample(1000, 9)).unwrap();
    assert_eq!(sc.chunksize(), 0);
    let f = sc.to_frame().unwrap();
    let back = SuperChunk::from_buffer(&f, false).unwrap();
    check_model(
        &back,
        &[
            sample(1000, 7),
            sample(1000, 3),
            sample(700, 5),
            sample(1000, 9),
        ],
        "rules",
    );
}

/// A backend counting the bytes read through it.
struct Counting {
    read: Arc<Mutex<u64>>,
}

struct CountingStream {
    inner: Box<dyn crate::io::Stream>,
    read: Arc<Mutex<u64>>,
}

impl crate::io::Backend for Counting {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn crate::io::Stream>> {
        Ok(Box::new(CountingStream {
            inner: crate::io::stdio::Stdio.open(path, mode)?,
            read: self.read.clone(),
        }))
    }
}

impl crate::io::Stream for CountingStream {
    fn size(&mut self) -> Result<u64> {
        self.inner.size()
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        *self.read.lock().unwrap() += buf.len() as u64;
        self.inner.read_exact_at(pos, buf)
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.inner.write_all_at(pos, data)
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.inner.truncate(size)
    }
}

#[test]
fn lazy_chunks_read_only_needed_blocks() {
    for contiguous in [true, false] {
        let p = tmp(&format!("lazy-{contiguous}.b2frame"));
        let mut sc = SuperChunk::new(Storage {
            contiguous,
            urlpath: Some(p.clone()),
            cparams: CParams {
                typesize: 8,
                blocksize: 64 * 1024,
                ..CParams::default()
            },
            ..Storage::default()
        })
        .unwrap();
        let data: Vec<u8> = (0..4 * 1024 * 1024u32)
            .map(|i| ((i / 8).wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        for c in data.chunks(2 * 1024 * 1024) {
            sc.append_buffer(c).unwrap();
        }
        // a special chunk stays whole
        let z = special_of(&sc, Special::Zero, 2 * 1024 * 1024);
        sc.append_chunk(&z).unwrap();
        drop(sc);
        let read = Arc::new(Mutex::new(0u64));
        let sc = SuperChunk::open(&p, 0, Arc::new(Counting { read: read.clone() })).unwrap();
        let full = sc.chunk(1).unwrap().len();
        *read.lock().unwrap() = 0;
        let lazy = sc.lazy_chunk(1).unwrap().into_owned();
        let h = ChunkHeader::read(&lazy).unwrap();
        assert!(h.is_lazy());
        let nblocks = h.nblocks().0;
        assert_eq!(lazy.len(), 32 + 8 * nblocks + 12);
        assert!(*read.lock().unwrap() <= 32 + 4 * nblocks as u64);
        // bytes 1000..1100 of chunk 1: one block is read
        *read.lock().unwrap() = 0;
        let done = sc.complete_lazy(&lazy, Some((1000 * 8, 1100 * 8))).unwrap();
        let got = *read.lock().unwrap();
        assert!(got < full as u64 / 8, "{got} of {full}");
        let mut d = Decompressor::new(DParams::default());
        let mut out = vec![0u8; 800];
        d.getitem_bytes(&done, 8000, 800, &mut out).unwrap();
        assert_eq!(
            &out[..],
            &data[2 * 1024 * 1024 + 8000..2 * 1024 * 1024 + 8800]
        );
        // the whole chunk decodes from a completed lazy chunk too
        let all = sc.complete_lazy(&lazy, None).unwrap();
        assert_eq!(&all[..], &sc.chunk(1).unwrap()[..]);
        // slices read only what they need as well
        *read.lock().unwrap() = 0;
        let mut s = vec![0u8; 80];
        sc.get_slice(300_000, 300_010, &mut s).unwrap();
        assert_eq!(&s[..], &data[2_400_000..2_400_080]);
        let got = *read.lock().unwrap();
        assert!(got < full as u64 / 8, "slice read {got} of {full}");
        assert!(!ChunkHeader::read(&sc.lazy_chunk(2).unwrap())
            .unwrap()
            .is_lazy());
        // a broken trailer is an error, not a wild read
        let mut bad = lazy.clone();
        let t = 32 + 4 * nblocks + 12;
        bad[t..t + 4].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(sc.complete_lazy(&bad, None).is_err());
        assert!(sc.complete_lazy(&lazy[..lazy.len() - 1], None).is_err());
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
}

/// How [`Faulty`] fails: a disk that fills up after `bytes` more bytes
/// (the write that does not fit writes what fits, then fails; overwriting
/// allocated bytes needs no room), or an I/O callback failing from write
/// call number `calls` on, writing nothing.
#[derive(Clone, Copy)]
pub(super) enum Fault {
    DiskFull { bytes: u64 },
    CallFails { calls: u64 },
}

pub(super) struct Faulty {
    pub(super) fault: Arc<Mutex<Fault>>,
}

struct FaultyStream {
    inner: Box<dyn crate::io::Stream>,
    fault: Arc<Mutex<Fault>>,
}

impl crate::io::Backend for Faulty {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn crate::io::Stream>> {
        Ok(Box::new(FaultyStream {
            inner: crate::io::stdio::Stdio.open(path, mode)?,
            fault: self.fault.clone(),
        }))
    }
    fn can_replace(&self) -> bool {
        true
    }
    fn replace(&self, from: &Path, to: &Path) -> Result<()> {
        crate::io::stdio::Stdio.replace(from, to)
    }
}

impl crate::io::Stream for FaultyStream {
    fn size(&mut self) -> Result<u64> {
        self.inner.size()
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_exact_at(pos, buf)
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let mut f = self.fault.lock().unwrap();
        match &mut *f {
            Fault::CallFails { calls } => {
                if *calls == 0 {
                    return Err(ErrorKind::FileWrite);
                }
                *calls -= 1;
                self.inner.write_all_at(pos, data)
            }
            Fault::DiskFull { bytes } => {
                let size = self.inner.size()?;
                let end = pos + data.len() as u64;
                let growth = end.saturating_sub(size.max(pos));
                if growth <= *bytes {
                    *bytes -= growth;
                    return self.inner.write_all_at(pos, data);
                }
                let fits = (size.max(pos) + *bytes).saturating_sub(pos) as usize;
                *bytes = 0;
                self.inner
                    .write_all_at(pos, &data[..fits.min(data.len())])?;
                Err(ErrorKind::FileWrite)
            }
        }
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.inner.truncate(size)
    }
}

/// What a reader must find in a frame: chunks and vlmetalayers.
#[derive(Clone, Debug, PartialEq)]
struct Content {
    chunks: Vec<Vec<u8>>,
    vlmeta: Vec<(String, Vec<u8>)>,
}

fn content_of(sc: &SuperChunk) -> Result<Content> {
    let mut chunks = Vec::new();
    for i in 0..sc.nchunks() {
        let nb = ChunkHeader::read(&sc.chunk(i)?)?.nbytes;
        let mut out = vec![0u8; nb as usize];
        sc.decompress_chunk(i, &mut out)?;
        chunks.push(out);
    }
    let mut vlmeta = Vec::new();
    for m in &sc.vlmetalayers {
        vlmeta.push((m.name.clone(), sc.vlmeta_get(&m.name)?));
    }
    if chunks.iter().map(|c| c.len() as i64).sum::<i64>() != sc.nbytes() {
        return Err(ErrorKind::Data);
    }
    Ok(Content { chunks, vlmeta })
}

pub(super) fn copy_frame(from: &Path, to: &Path) {
    let _ = std::fs::remove_file(to);
    let _ = std::fs::remove_dir_all(to);
    if from.is_dir() {
        std::fs::create_dir(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

type Op = fn(&mut SuperChunk) -> Result<()>;

fn ops() -> Vec<(&'static str, Op)> {
    fn small(seed: u32, n: usize) -> Vec<u8> {
        sample(n, seed)
    }
    vec![
        ("append", |sc| sc.append_buffer(&small(41, 400)).map(|_| ())),
        ("append-variable", |sc| {
            sc.append_buffer(&small(43, 1200)).map(|_| ())
        }),
        ("update", |sc| {
            let c = sc.compress(&small(47, 400))?;
            sc.update_chunk(1, &c).map(|_| ())
        }),
        ("insert", |sc| {
            let c = sc.compress(&small(53, 400))?;
            sc.insert_chunk(0, &c).map(|_| ())
        }),
        ("update-zeros", |sc| {
            // a stored chunk becomes a special offset: the chunks after it
            // move back over its bytes
            let cp = sc.cparams().clone();
            let mut z = vec![0u8; 64];
            let n = make_special(&cp, Special::Zero, 400, None, &mut z)?;
            sc.update_chunk(0, &z[..n]).map(|_| ())
        }),
        ("delete", |sc| sc.delete_chunk(2).map(|_| ())),
        ("reorder", |sc| sc.reorder(&[3, 2, 1, 0])),
        ("vlmeta-add", |sc| {
            sc.vlmeta_add("new", &small(59, 300), None).map(|_| ())
        }),
        ("vlmeta-update", |sc| {
            sc.vlmeta_update("v", &small(61, 500), None).map(|_| ())
        }),
        // items 50..350 of 4 chunks of 100: three chunks rewritten
        ("set-slice", |sc| sc.set_slice(50, 350, &small(67, 1200))),
    ]
}

#[test]
fn failed_writes_leave_the_previous_frame() {
    for contiguous in [true, false] {
        let base = tmp(&format!("fw-base-{contiguous}.b2frame"));
        let work = tmp(&format!("fw-work-{contiguous}.b2frame"));
        {
            let mut sc = SuperChunk::new(Storage {
                contiguous,
                urlpath: Some(base.clone()),
                cparams: CParams {
                    typesize: 4,
                    ..CParams::default()
                },
                ..Storage::default()
            })
            .unwrap();
            for i in 0..4 {
                sc.append_buffer(&sample(400, 31 + i)).unwrap();
            }
            sc.vlmeta_add("v", b"vlmeta", None).unwrap();
        }
        let io = crate::io::default_backend;
        let old = content_of(&SuperChunk::open(&base, 0, io()).unwrap()).unwrap();
        // a frame file's set_slice is atomic per chunk (each chunk is old
        // or new after a failure), a sparse frame's as a whole
        let whole = ops()
            .into_iter()
            .filter(|&(name, _)| !(contiguous && name == "set-slice"));
        for (name, op) in whole {
            // what the operation gives when nothing fails, and how much it
            // writes
            copy_frame(&base, &work);
            let fault = Arc::new(Mutex::new(Fault::DiskFull { bytes: u64::MAX }));
            let backend = Arc::new(Faulty {
                fault: fault.clone(),
            });
            let mut sc = SuperChunk::open(&work, 0, backend.clone()).unwrap();
            op(&mut sc).unwrap();
            let grown = match *fault.lock().unwrap() {
                Fault::DiskFull { bytes } => u64::MAX - bytes,
                _ => unreachable!(),
            };
            drop(sc);
            let new = content_of(&SuperChunk::open(&work, 0, io()).unwrap()).unwrap();
            assert_ne!(old, new, "{name}");
            *fault.lock().unwrap() = Fault::CallFails { calls: u64::MAX };
            copy_frame(&base, &work);
            let mut sc = SuperChunk::open(&work, 0, backend.clone()).unwrap();
            op(&mut sc).unwrap();
            let calls = match *fault.lock().unwrap() {
                Fault::CallFails { calls } => u64::MAX - calls,
                _ => unreachable!(),
            };
            drop(sc);
            // every k-th byte count under emulation (each call still fails)
            let faults = (0..grown)
                .step_by(crate::test_stride())
                .map(|b| Fault::DiskFull { bytes: b })
                .chain((0..calls).map(|c| Fault::CallFails { calls: c }));
            for f in faults {
                copy_frame(&base, &work);
                *fault.lock().unwrap() = f;
                let mut sc = SuperChunk::open(&work, 0, backend.clone()).unwrap();
                let r = op(&mut sc);
                let what = match f {
                    Fault::DiskFull { bytes } => {
                        format!("{name} ({contiguous}) disk full after {bytes}")
                    }
                    Fault::CallFails { calls } => {
                        format!("{name} ({contiguous}) write {calls} fails")
                    }
                };
                assert!(r.is_err(), "{what}: no error");
                // the handle is as before: the same call works once writes do
                assert_eq!(content_of(&sc).unwrap(), old, "{what}: handle");
                *fault.lock().unwrap() = Fault::DiskFull { bytes: u64::MAX };
                let reader = SuperChunk::open(&work, 0, io()).unwrap();
                assert_eq!(content_of(&reader).unwrap(), old, "{what}: on disk");
                op(&mut sc).unwrap();
                drop(sc);
                let reader = SuperChunk::open(&work, 0, io()).unwrap();
                assert_eq!(content_of(&reader).unwrap(), new, "{what}: retried");
            }
        }
        let _ = std::fs::remove_file(&base);
        let _ = std::fs::remove_dir_all(&base);
        let _ = std::fs::remove_file(&work);
        let _ = std::fs::remove_dir_all(&work);
    }
}

/// A backend over [`Faulty`] that only notes which files it was asked to
/// remove, so a file still on disk afterwards shows nothing went around it.
struct NoteRemovals {
    inner: Faulty,
    removed: Mutex<Vec<PathBuf>>,
}

impl crate::io::Backend for NoteRemovals {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn crate::io::Stream>> {
        self.inner.open(path, mode)
    }
    fn can_replace(&self) -> bool {
        true
    }
    fn replace(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.replace(from, to)
    }
    fn remove(&self, path: &Path) -> Result<()> {
        self.removed.lock().unwrap().push(path.to_path_buf());
        Ok(())
    }
}

/// A sparse frame's chunk files go through the super-chunk's backend when
/// a failed change drops the one it wrote and when a change leaves one
/// unused: a user backend's names need not be files of the filesystem, so
/// removing them there could delete someone else's file.
/// A new sparse frame at `dir` of `n` chunks of 100 4-byte items
/// (`sample` data, seeds from `seed` on).
fn sparse_frame(dir: &Path, n: u32, seed: u32) -> SuperChunk {
    let _ = std::fs::remove_dir_all(dir);
    let mut sc = SuperChunk::new(Storage {
        contiguous: false,
        urlpath: Some(dir.to_path_buf()),
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    for i in 0..n {
        sc.append_buffer(&sample(400, seed + i)).unwrap();
    }
    sc
}

#[test]
fn sparse_chunk_files_are_removed_through_the_backend() {
    let dir = tmp("rm-through-backend.b2frame");
    drop(sparse_frame(&dir, 3, 7));
    let old =
        content_of(&SuperChunk::open(&dir, 0, crate::io::default_backend()).unwrap()).unwrap();
    let fault = Arc::new(Mutex::new(Fault::CallFails { calls: 1 }));
    let backend = Arc::new(NoteRemovals {
        inner: Faulty {
            fault: fault.clone(),
        },
        removed: Mutex::new(Vec::new()),
    });
    let mut sc = SuperChunk::open(&dir, 0, backend.clone()).unwrap();
    // the new chunk's file is written, the index is not
    assert!(sc.append_buffer(&sample(400, 99)).is_err());
    let new_file = sframe::chunk_path(&dir, 3);
    assert_eq!(
        *backend.removed.lock().unwrap(),
        std::slice::from_ref(&new_file)
    );
    assert!(new_file.exists(), "removed around the backend");
    assert_eq!(content_of(&sc).unwrap(), old);
    *fault.lock().unwrap() = Fault::CallFails { calls: u64::MAX };
    backend.removed.lock().unwrap().clear();
    sc.delete_chunk(0).unwrap();
    let gone = sframe::chunk_path(&dir, 0);
    assert_eq!(
        *backend.removed.lock().unwrap(),
        std::slice::from_ref(&gone)
    );
    assert!(gone.exists(), "removed around the backend");
    drop(sc);
    let reader = SuperChunk::open(&dir, 0, crate::io::default_backend()).unwrap();
    assert_eq!(content_of(&reader).unwrap().chunks, old.chunks[1..]);
    // the filesystem backend does delete them
    let mut sc = SuperChunk::open(&dir, 0, crate::io::default_backend()).unwrap();
    sc.delete_chunk(0).unwrap();
    assert!(!sframe::chunk_path(&dir, 1).exists());
    drop(sc);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refresh_and_locking_between_handles() {
    for contiguous in [true, false] {
        for locking in [false, true] {
            let p = tmp(&format!("swmr-{contiguous}-{locking}.b2frame"));
            let mut w = SuperChunk::new(Storage {
                contiguous,
                urlpath: Some(p.clone()),
                cparams: CParams {
                    typesize: 4,
                    ..CParams::default()
                },
                ..Storage::default()
            })
            .unwrap();
            if locking {
                w.enable_locking();
            }
            w.append_buffer(&sample(4000, 3)).unwrap();
            let mut r = SuperChunk::open(&p, 0, crate::io::default_backend()).unwrap();
            if locking {
                r.enable_locking();
            }
            assert!(!r.refresh().unwrap() || locking);
            assert!(!r.refresh().unwrap());
            for i in 0..3 {
                w.append_buffer(&sample(4000, 5 + i)).unwrap();
                assert!(r.refresh().unwrap());
                assert!(!r.refresh().unwrap());
                assert_eq!(content_of(&r).unwrap(), content_of(&w).unwrap());
            }
            w.vlmeta_add("x", b"y", None).unwrap();
            assert!(r.refresh().unwrap());
            assert_eq!(r.vlmeta_get("x").unwrap(), b"y");
            // an update through the reader is seen by the writer's next call
            let c = r.compress(&sample(4000, 77)).unwrap();
            r.update_chunk(0, &c).unwrap();
            w.refresh().unwrap();
            assert_eq!(content_of(&r).unwrap(), content_of(&w).unwrap());
            // the bracket is re-entrant, and mutations nest in it
            w.lock().unwrap();
            w.lock().unwrap();
            w.append_buffer(&sample(4000, 9)).unwrap();
            w.unlock().unwrap();
            w.append_buffer(&sample(4000, 10)).unwrap();
            w.unlock().unwrap();
            assert!(r.refresh().unwrap());
            assert_eq!(r.nchunks(), 6);
            assert_eq!(content_of(&r).unwrap(), content_of(&w).unwrap());
            drop((w, r));
            let _ = std::fs::remove_file(&p);
            let _ = std::fs::remove_dir_all(&p);
            let mut side = p.into_os_string();
            side.push(".b2lock");
            let _ = std::fs::remove_file(side);
        }
    }
}

#[test]
fn malformed_variable_size_frames_are_errors() {
    let mut sc = SuperChunk::new(Storage {
        contiguous: true,
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    let a = sc.compress(&sample(4000, 3)).unwrap();
    let b = sc.compress(&sample(1200, 5)).unwrap();
    sc.append_chunk(&a).unwrap();
    sc.append_chunk(&b).unwrap();
    sc.append_chunk(&a).unwrap();
    assert_eq!(sc.chunksize(), 0);
    let data: Vec<u8> = [&a[..], &b[..], &a[..]].concat();
    let good = [0, a.len() as i64, (a.len() + b.len()) as i64];
    let build = |nbytes: i64, chunksize: i32, offsets: &[i64]| {
        let mut h = sc.frame_header(false, data.len() as i64);
        h.nbytes = nbytes;
        h.chunksize = chunksize;
        cframe::encode_frame(&h, &[], &[], offsets, &data, &index::Style::Fresh, None).unwrap()
    };
    let zero = index::special_offset(Special::Zero);
    // the frame as written reads back
    let f = build(9200, 0, &good);
    opens_and_reads(&f).unwrap();
    for (what, f) in [
        ("total too big", build(9204, 0, &good)),
        ("total too small", build(9196, 0, &good)),
        ("negative chunksize", build(9200, -5, &good)),
        ("offset past the data", build(9200, 0, &[0, 999_999, 0])),
        ("offset inside a chunk", build(9200, 0, &[0, 7, 0])),
        ("two special chunks", build(9200, 0, &[0, zero, zero])),
        ("special larger than left", build(4000, 0, &[0, zero, 0])),
    ] {
        let r = SuperChunk::from_buffer(&f, false).and_then(|sc| opens_and_reads(&sc.to_frame()?));
        assert!(r.is_err(), "{what}");
    }
    // one special chunk takes what the others leave
    let f = build(9200 - 1200 + 640, 0, &[0, zero, 0]);
    let back = SuperChunk::from_buffer(&f, false).unwrap();
    assert_eq!(back.entries.get(1).unwrap().nbytes, 640);
    let mut out = vec![1u8; 640];
    back.decompress_chunk(1, &mut out).unwrap();
    assert!(out.iter().all(|&x| x == 0));
}

#[test]
fn stale_handles_do_not_undo_other_writes() {
    for contiguous in [true, false] {
        let p = tmp(&format!("stale-{contiguous}.b2frame"));
        let mut a = SuperChunk::new(Storage {
            contiguous,
            urlpath: Some(p.clone()),
            cparams: CParams {
                typesize: 4,
                ..CParams::default()
            },
            ..Storage::default()
        })
        .unwrap();
        for i in 0..8 {
            a.append_buffer(&sample(2000, 3 + i)).unwrap();
        }
        let mut b = SuperChunk::open(&p, 0, crate::io::default_backend()).unwrap();
        let z = special_of(&a, Special::Zero, 2000);
        a.update_chunk(0, &z).unwrap();
        // b has not looked since: its update must keep a's
        b.update_chunk(5, &z).unwrap();
        b.append_buffer(&sample(2000, 99)).unwrap();
        a.delete_chunk(1).unwrap();
        drop((a, b));
        let r = SuperChunk::open(&p, 0, crate::io::default_backend()).unwrap();
        let c = content_of(&r).unwrap();
        assert_eq!(c.chunks.len(), 8, "{contiguous}");
        assert_eq!(c.chunks[0], vec![0u8; 2000]);
        assert_eq!(c.chunks[1], sample(2000, 5));
        assert_eq!(c.chunks[4], vec![0u8; 2000]);
        assert_eq!(c.chunks[7], sample(2000, 99));
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
}

#[test]
fn plain_superchunks_serialize_specials_as_offsets() {
    let mut sc = SuperChunk::new(Storage {
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    sc.append_buffer(&sample(4000, 3)).unwrap();
    let z = special_of(&sc, Special::Zero, 4000);
    sc.append_chunk(&z).unwrap();
    sc.append_buffer(&sample(4000, 5)).unwrap();
    let f = sc.to_frame().unwrap();
    let back = SuperChunk::from_buffer(&f, false).unwrap();
    assert!(matches!(
        back.entries.get(1).unwrap().slot,
        Slot::Special(Special::Zero)
    ));
    assert_eq!(
        content_of(&back).unwrap().chunks,
        vec![sample(4000, 3), vec![0u8; 4000], sample(4000, 5)]
    );
}

/// Appending to a frame file leaves no dead index behind: the file stays
/// the size of the frame it holds (it grew by a whole index per append,
/// O(n^2), when each append wrote after the old index and trailer).
#[test]
fn appends_to_a_file_keep_it_compact() {
    let f = tmp("grow.b2frame");
    let mut sc = SuperChunk::new(Storage {
        contiguous: true,
        urlpath: Some(f.clone()),
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    sc.vlmeta_add("attrs", &[7u8; 300], None).unwrap();
    let mut buf = vec![0u8; 4000];
    for n in 0..400u32 {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = ((i as u32 / 4).wrapping_mul(n % 7 + 1) >> ((i % 4) * 8)) as u8;
        }
        sc.append_buffer(&buf).unwrap();
    }
    let on_disk = std::fs::metadata(&f).unwrap().len() as i64;
    assert_eq!(on_disk, sc.frame_len().unwrap());
    let compact = sc.to_frame().unwrap().len() as i64;
    assert!(on_disk <= compact + 64, "file {on_disk} vs frame {compact}");
    drop(sc);
    let r = SuperChunk::open(&f, 0, crate::io::default_backend()).unwrap();
    assert_eq!(r.nchunks(), 400);
    let mut out = vec![0u8; 4000];
    r.decompress_chunk(399, &mut out).unwrap();
    assert_eq!(out, buf);
    let _ = std::fs::remove_file(&f);
}

/// A slice over many small chunks is decompressed chunk by chunk on the
/// context's threads: the bytes are those of one thread, partial first and
/// last chunks included, on every storage.
#[test]
fn slices_of_small_chunks_read_alike_on_any_thread_count() {
    let data: Vec<u8> = (0..200 * 4096u32)
        .flat_map(|i| (i / 3 + (i % 11) * 1000).to_le_bytes())
        .collect();
    let dir = tmp("small-slices");
    for (k, contiguous, urlpath) in [
        (0, false, None),
        (1, true, None),
        (2, true, Some(dir.with_extension("b2frame"))),
        (3, false, Some(dir.with_extension("b2sframe"))),
    ] {
        let mut outs = Vec::new();
        for nthreads in [1i16, 2, 3] {
            if let Some(p) = &urlpath {
                let _ = std::fs::remove_file(p);
                let _ = std::fs::remove_dir_all(p);
            }
            let mut sc = SuperChunk::new(Storage {
                contiguous,
                urlpath: urlpath.clone(),
                cparams: CParams {
                    typesize: 4,
                    ..CParams::default()
                },
                dparams: DParams {
                    nthreads,
                    ..DParams::default()
                },
                ..Storage::default()
            })
            .unwrap();
            for c in data.chunks(16384) {
                sc.append_buffer(c).unwrap();
            }
            let (a, b) = (1001i64, 200 * 4096 - 77);
            let mut out = vec![0u8; (b - a) as usize * 4];
            sc.get_slice(a, b, &mut out).unwrap();
            assert!(
                out[..] == data[a as usize * 4..b as usize * 4],
                "storage {k}"
            );
            outs.push(out);
        }
        assert!(outs.iter().all(|o| *o == outs[0]));
    }
    for ext in ["b2frame", "b2sframe"] {
        let _ = std::fs::remove_file(dir.with_extension(ext));
        let _ = std::fs::remove_dir_all(dir.with_extension(ext));
    }
}

/// set_slice over many small chunks compresses them side by side on the
/// context's threads: the frame comes out byte for byte as with one thread.
#[test]
fn slice_writes_of_small_chunks_match_on_any_thread_count() {
    let data: Vec<u8> = (0..100 * 4096u32)
        .flat_map(|i| (i / 5 + (i % 13) * 77).to_le_bytes())
        .collect();
    let patch: Vec<u8> = (0..60 * 4096u32)
        .flat_map(|i| (i.wrapping_mul(2654435761) >> 20).to_le_bytes())
        .collect();
    let mut frames = Vec::new();
    for nthreads in [1i16, 2, 3] {
        let mut sc = SuperChunk::new(Storage {
            contiguous: true,
            cparams: CParams {
                typesize: 4,
                nthreads,
                ..CParams::default()
            },
            ..Storage::default()
        })
        .unwrap();
        for c in data.chunks(16384) {
            sc.append_buffer(c).unwrap();
        }
        let a = 3 * 4096 + 17;
        sc.set_slice(a, a + 60 * 4096, &patch).unwrap();
        let mut want = data.clone();
        want[a as usize * 4..(a as usize + 60 * 4096) * 4].copy_from_slice(&patch);
        let mut out = vec![0u8; want.len()];
        sc.get_slice(0, 100 * 4096, &mut out).unwrap();
        assert!(out == want, "nthreads {nthreads}");
        let mut f = sc.to_frame().unwrap();
        // the header records the thread counts
        f[..fh::HEADER_MINLEN].fill(0);
        frames.push(f);
    }
    assert!(frames[1] == frames[0] && frames[2] == frames[0]);
}

/// `set_slice` over many chunks of a sparse frame writes them in one
/// transaction: afterwards the directory holds the index and exactly one
/// file per chunk (the replaced ones are gone), and a reader sees the data.
#[test]
fn sparse_set_slice_leaves_one_file_per_chunk() {
    let dir = tmp("set-slice-files.b2frame");
    let mut sc = sparse_frame(&dir, 10, 3);
    let new = sample(4000, 77);
    sc.set_slice(0, 1000, &new).unwrap();
    drop(sc);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = (10..20).map(|i| format!("{i:08X}.chunk")).collect();
    want.push(sframe::INDEX_FILE.to_string());
    want.sort();
    assert_eq!(names, want);
    let reader = SuperChunk::open(&dir, 0, crate::io::default_backend()).unwrap();
    let mut back = vec![0u8; 4000];
    reader.get_slice(0, 1000, &mut back).unwrap();
    assert_eq!(back, new);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A super-chunk of 4-byte items in 16 KiB blocks, so its chunks have
/// several blocks to read apart.
fn small_block_schunk(contiguous: bool, urlpath: Option<PathBuf>) -> SuperChunk {
    SuperChunk::new(Storage {
        contiguous,
        urlpath,
        cparams: CParams {
            typesize: 4,
            blocksize: 16384,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap()
}

/// A partial read places the chunk in the scratch buffer so each byte sits
/// at the page offset it has in its file (see `load_ranges`), for sparse
/// chunk files and for chunks inside a contiguous frame.
#[test]
fn partial_reads_land_at_their_file_page_offset() {
    for contiguous in [false, true] {
        let d = tmp(if contiguous {
            "pageoff.b2frame"
        } else {
            "pageoff-sparse.b2frame"
        });
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_file(&d);
        let mut sc = small_block_schunk(contiguous, Some(d.clone()));
        for i in 0..3 {
            sc.append_buffer(&sample(256 * 1024, 7 + i)).unwrap();
        }
        drop(sc);
        let sc = SuperChunk::open(&d, 0, crate::io::default_backend()).unwrap();
        let mut buf = Vec::new();
        for n in 0..3 {
            let r = sc
                .load_ranges(n, &[(100_000, 10)], &mut buf)
                .unwrap()
                .expect("a partial read");
            let file_pos = match (&sc.entries.get(n as usize).unwrap().slot, &sc.backing) {
                (
                    Slot::Disk(off),
                    Backing::File {
                        base, header_len, ..
                    },
                ) => base + (header_len + off) as u64,
                _ => 0,
            };
            assert_eq!(
                (buf.as_ptr().addr() + r.start) % 4096,
                (file_pos % 4096) as usize
            );
            assert_eq!(
                ChunkHeader::read(&buf[r.clone()]).unwrap().nbytes,
                256 * 1024
            );
            let mut out = vec![0u8; 40];
            sc.get_slice(25_000 + n * 65_536, 25_010 + n * 65_536, &mut out)
                .unwrap();
            let want = sample(256 * 1024, 7 + n as u32);
            assert_eq!(out, want[100_000..100_040]);
        }
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_file(&d);
    }
}

/// `get_chunk_parts` reads several block runs of one chunk, on disk
/// (header and block starts read once) and in memory, as the whole chunk
/// decoded holds them; a part past the chunk is an error.
#[test]
fn chunk_parts_match_the_whole_chunk() {
    let want = sample(256 * 1024, 11);
    for (contiguous, on_disk) in [(true, true), (false, true), (true, false)] {
        let d = tmp(if contiguous {
            "parts.b2frame"
        } else {
            "parts-sparse.b2frame"
        });
        let mut sc = small_block_schunk(contiguous, on_disk.then(|| d.clone()));
        sc.append_buffer(&sample(256 * 1024, 3)).unwrap();
        sc.append_buffer(&want).unwrap();
        let mut a = vec![0u8; 16384];
        let mut b = vec![0u8; 3 * 16384];
        let mut c = vec![0u8; 100];
        {
            let mut parts = [
                (0, &mut a[..]),
                (5 * 16384, &mut b[..]),
                (200_000, &mut c[..]),
            ];
            sc.get_chunk_parts(1, &mut parts).unwrap();
        }
        assert_eq!(a, want[..16384]);
        assert_eq!(b, want[5 * 16384..8 * 16384]);
        assert_eq!(c, want[200_000..200_100]);
        let mut past = [(256 * 1024 - 12, &mut c[..])];
        assert!(sc.get_chunk_parts(1, &mut past).is_err());
        assert!(sc.get_chunk_parts(2, &mut []).is_err());
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_file(&d);
    }
}

/// DELTA decodes every block of a chunk against its first one, so a read of
/// part of a chunk in a frame file (a slice, a box's block runs, a lazy
/// chunk completed for a byte range) needs block 0 too, wherever the range
/// lies. Reading only the blocks of the range decoded them against
/// whatever bytes sat where block 0 was not read (found by the `sframe`
/// fuzz target: a completed lazy chunk's range differed from the whole).
#[test]
fn partial_reads_of_delta_chunks_decode_against_the_first_block() {
    let data: Vec<Vec<u8>> = (0..3).map(|i| sample(256 * 1024, 7 + i)).collect();
    for contiguous in [true, false] {
        let d = tmp(if contiguous {
            "delta-part.b2frame"
        } else {
            "delta-part-sparse.b2frame"
        });
        let mut filters = [0u8; crate::chunk::header::MAX_FILTERS];
        filters[4] = crate::chunk::header::filter_id::DELTA;
        filters[5] = crate::chunk::header::filter_id::SHUFFLE;
        let mut sc = SuperChunk::new(Storage {
            contiguous,
            urlpath: Some(d.clone()),
            cparams: CParams {
                typesize: 4,
                blocksize: 16384,
                filters,
                ..CParams::default()
            },
            ..Storage::default()
        })
        .unwrap();
        for c in &data {
            sc.append_buffer(c).unwrap();
        }
        drop(sc);
        let sc = SuperChunk::open(&d, 0, crate::io::default_backend()).unwrap();
        for (n, want) in data.iter().enumerate() {
            let base = (n * 65_536) as i64;
            let mut out = vec![0u8; 40];
            sc.get_slice(base + 25_000, base + 25_010, &mut out)
                .unwrap();
            assert_eq!(out, want[100_000..100_040], "slice of chunk {n}");
            let mut b = vec![0u8; 3 * 16384];
            sc.get_chunk_parts(n as i64, &mut [(5 * 16384, &mut b[..])])
                .unwrap();
            assert_eq!(b, want[5 * 16384..8 * 16384], "parts of chunk {n}");
            let lazy = sc.lazy_chunk(n as i64).unwrap().into_owned();
            let done = sc.complete_lazy(&lazy, Some((100_000, 100_040))).unwrap();
            let mut got = vec![0u8; 40];
            let mut d2 = crate::chunk::Decompressor::new(Default::default());
            d2.getitem_bytes(&done, 100_000, 40, &mut got).unwrap();
            assert_eq!(got, want[100_000..100_040], "lazy range of chunk {n}");
        }
        drop(sc);
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_file(&d);
    }
}
