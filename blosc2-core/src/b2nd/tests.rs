//! Array tests against a plain in-memory N-d model: random shapes (ndim
//! 1..=8, zero-length dimensions, chunk and block shapes not dividing the
//! shape), random boxes read and written, every kind of storage.

use super::geometry::strides;
use super::*;
use crate::chunk::CParams;
use crate::error::ErrorKind;
use crate::io::{Backend, Mode, Stream};
use crate::schunk::{Storage, SuperChunk};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// xorshift64: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in lo..=hi.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}

/// The model: a C-order buffer and its shape.
struct Model {
    shape: Vec<i64>,
    ts: usize,
    data: Vec<u8>,
}

impl Model {
    fn offset(&self, idx: &[i64]) -> usize {
        let st = strides(&self.shape);
        idx.iter().zip(&st).map(|(a, b)| a * b).sum::<i64>() as usize * self.ts
    }
    /// Visit every multi-index of the box.
    fn each(start: &[i64], stop: &[i64], mut f: impl FnMut(&[i64], usize)) {
        if start.iter().zip(stop).any(|(a, b)| a >= b) {
            return;
        }
        let mut idx = start.to_vec();
        let mut n = 0;
        loop {
            f(&idx, n);
            n += 1;
            let mut d = idx.len();
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                idx[d] += 1;
                if idx[d] < stop[d] {
                    break;
                }
                idx[d] = start[d];
            }
        }
    }
    fn get(&self, start: &[i64], stop: &[i64]) -> Vec<u8> {
        let n: i64 = start.iter().zip(stop).map(|(a, b)| b - a).product();
        let mut out = vec![0u8; n as usize * self.ts];
        Model::each(start, stop, |idx, k| {
            let o = self.offset(idx);
            out[k * self.ts..(k + 1) * self.ts].copy_from_slice(&self.data[o..o + self.ts]);
        });
        out
    }
    fn set(&mut self, start: &[i64], stop: &[i64], src: &[u8]) {
        let ts = self.ts;
        let mut writes = Vec::new();
        Model::each(start, stop, |idx, k| writes.push((self.offset(idx), k)));
        for (o, k) in writes {
            self.data[o..o + ts].copy_from_slice(&src[k * ts..(k + 1) * ts]);
        }
    }
}

fn random_params(r: &mut Rng) -> Params {
    let ndim = r.range(1, 8) as usize;
    // keep the item count small whatever ndim is
    let maxdim = [0, 60, 30, 12, 7, 5, 4, 3, 3][ndim];
    let mut shape = Vec::new();
    let mut chunk = Vec::new();
    let mut block = Vec::new();
    for _ in 0..ndim {
        let s = if r.range(0, 15) == 0 {
            0
        } else {
            r.range(1, maxdim)
        };
        let c = r.range(1, s.max(1) + 1) as i32;
        let b = r.range(1, c as i64) as i32;
        shape.push(s);
        chunk.push(c);
        block.push(b);
    }
    Params::new(&shape, &chunk, &block)
}

fn random_box(r: &mut Rng, shape: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &s in shape {
        let x = r.range(0, s);
        let y = r.range(x, s);
        a.push(x);
        b.push(y);
    }
    (a, b)
}

fn scratch_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("b2nd-tests-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn storage(kind: usize, ts: i32, path: &Path) -> Storage {
    storage_threads(kind, ts, path, 1)
}

fn storage_threads(kind: usize, ts: i32, path: &Path, nthreads: i16) -> Storage {
    if kind >= 2 {
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_dir_all(path);
    }
    let cparams = CParams {
        typesize: ts,
        clevel: 5,
        nthreads,
        ..CParams::default()
    };
    Storage {
        contiguous: kind != 3,
        urlpath: (kind >= 2).then(|| path.to_path_buf()),
        cparams,
        dparams: crate::chunk::DParams {
            nthreads,
            ..Default::default()
        },
        ..Storage::default()
    }
}

fn check_against_model(seed: u64, cases: usize) {
    let mut r = Rng(seed);
    let dir = scratch_dir();
    for case in 0..cases {
        let params = random_params(&mut r);
        let ts = [1, 2, 4, 8, 3][r.range(0, 4) as usize];
        let kind = r.range(0, 3) as usize;
        // several threads take small chunks side by side
        let nthreads = [1, 2, 3][r.range(0, 2) as usize];
        let path = dir.join(format!("p{seed}-{case}.b2nd"));
        let n: i64 = params.shape.iter().product();
        let data: Vec<u8> = (0..n as usize * ts).map(|_| r.next() as u8).collect();
        let mut model = Model {
            shape: params.shape.clone(),
            ts,
            data: data.clone(),
        };
        let ctx = format!(
            "case {case} {:?} ts {ts} kind {kind} nthreads {nthreads}",
            params
        );
        let st = storage_threads(kind, ts as i32, &path, nthreads);
        let mut a =
            Array::from_cbuffer(st, &params, &data).unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
        let mut back = vec![0u8; data.len()];
        a.to_cbuffer(&mut back).unwrap();
        assert_eq!(back, data, "{ctx}");
        for _ in 0..6 {
            let (s, e) = random_box(&mut r, &params.shape);
            let len: Vec<i64> = s.iter().zip(&e).map(|(a, b)| b - a).collect();
            let bn: i64 = len.iter().product();
            if r.range(0, 1) == 0 {
                let mut out = vec![0xAAu8; bn as usize * ts];
                a.get_slice_cbuffer(&s, &e, &mut out, &len)
                    .unwrap_or_else(|err| panic!("{ctx} get {s:?}..{e:?}: {err:?}"));
                assert_eq!(out, model.get(&s, &e), "{ctx} get {s:?}..{e:?}");
            } else {
                let src: Vec<u8> = (0..bn as usize * ts).map(|_| r.next() as u8).collect();
                a.set_slice_cbuffer(&src, &len, &s, &e)
                    .unwrap_or_else(|err| panic!("{ctx} set {s:?}..{e:?}: {err:?}"));
                model.set(&s, &e, &src);
            }
        }
        a.to_cbuffer(&mut back).unwrap();
        assert_eq!(back, model.data, "{ctx} after writes");
        // a slice into a new array, with other chunk and block shapes
        let (s, e) = random_box(&mut r, &params.shape);
        let sp = random_params_like(&mut r, &params);
        let sub = a
            .get_slice(storage(0, ts as i32, &path), &sp, &s, &e)
            .unwrap_or_else(|err| panic!("{ctx} get_slice: {err:?}"));
        let mut subbuf = vec![0u8; sub.nbytes().unwrap()];
        sub.to_cbuffer(&mut subbuf).unwrap();
        assert_eq!(subbuf, model.get(&s, &e), "{ctx} get_slice {s:?}..{e:?}");
        // frames and files read back the same
        let f = a.to_cframe().unwrap();
        let b = Array::from_cframe(&f, r.range(0, 1) == 0).unwrap();
        assert_eq!(b.shape(), &params.shape[..]);
        b.to_cbuffer(&mut back).unwrap();
        assert_eq!(back, model.data, "{ctx} cframe");
        if kind >= 2 {
            drop(a);
            let c = Array::open(&path).unwrap();
            c.to_cbuffer(&mut back).unwrap();
            assert_eq!(back, model.data, "{ctx} reopened");
        }
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_dir_all(&path);
    }
}

fn random_params_like(r: &mut Rng, p: &Params) -> Params {
    let mut q = p.clone();
    for i in 0..q.shape.len() {
        q.chunkshape[i] = r.range(1, p.shape[i].max(1)) as i32;
        q.blockshape[i] = r.range(1, q.chunkshape[i] as i64) as i32;
    }
    q
}

/// Arrays of many small chunks are read and written several chunks at a
/// time on the threads: the frame and every box read must not depend on
/// the thread count, on any storage.
#[test]
fn small_chunks_side_by_side_are_thread_count_independent() {
    let dir = scratch_dir();
    let params = Params::new(&[37, 41, 23], &[5, 8, 7], &[3, 4, 7]);
    let ts = 4usize;
    let n: i64 = params.shape.iter().product();
    let mut r = Rng(41);
    let data: Vec<u8> = (0..n as usize * ts)
        .map(|i| (i / 3) as u8 ^ (r.next() % 4) as u8)
        .collect();
    let boxes: Vec<(Vec<i64>, Vec<i64>)> =
        (0..20).map(|_| random_box(&mut r, &params.shape)).collect();
    let patch: Vec<u8> = (0..n as usize * ts).map(|_| r.next() as u8).collect();
    for kind in 0..4 {
        let mut frames = Vec::new();
        let mut reads = Vec::new();
        for nthreads in [1i16, 2, 3] {
            let path = dir.join(format!("small-{kind}-{nthreads}.b2nd"));
            let st = storage_threads(kind, ts as i32, &path, nthreads);
            let mut a = Array::from_cbuffer(st, &params, &data).unwrap();
            let mut got = Vec::new();
            for (i, (s, e)) in boxes.iter().enumerate() {
                let len: Vec<i64> = s.iter().zip(e).map(|(a, b)| b - a).collect();
                let bn = len.iter().product::<i64>() as usize * ts;
                if i % 2 == 0 {
                    let mut out = vec![0u8; bn];
                    a.get_slice_cbuffer(s, e, &mut out, &len).unwrap();
                    got.push(out);
                } else {
                    a.set_slice_cbuffer(&patch[..bn], &len, s, e).unwrap();
                }
            }
            let mut all = vec![0u8; data.len()];
            a.to_cbuffer(&mut all).unwrap();
            got.push(all);
            // the chunks, not the frame: its header records the threads
            let sc = a.schunk();
            let chunks: Vec<Vec<u8>> = (0..sc.nchunks())
                .map(|n| sc.chunk(n).unwrap().into_owned())
                .collect();
            frames.push(chunks);
            reads.push(got);
            drop(a);
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_dir_all(&path);
        }
        assert!(
            frames.windows(2).all(|w| w[0] == w[1]),
            "kind {kind}: chunks differ"
        );
        assert!(
            reads.windows(2).all(|w| w[0] == w[1]),
            "kind {kind}: reads differ"
        );
    }
}

#[test]
fn slices_match_the_model() {
    check_against_model(0x9E3779B97F4A7C15, 60);
}

#[test]
fn slices_match_the_model_more_seeds() {
    for seed in [1u64, 77, 4242] {
        check_against_model(seed, 25);
    }
}

#[test]
fn special_fills_are_special_chunks() {
    let p = Params::new(&[10, 10], &[4, 5], &[2, 5]).with_dtype("<f8", 0);
    let st = || Storage {
        contiguous: true,
        cparams: CParams {
            typesize: 8,
            ..CParams::default()
        },
        ..Storage::default()
    };
    for fill in [Fill::Zeros, Fill::Nans, Fill::Uninit] {
        let a = Array::create(st(), &p, fill).unwrap();
        assert_eq!(a.schunk().nchunks(), 6);
        // nothing but headers: special chunks take no data in a frame
        assert_eq!(a.schunk().cbytes(), 0, "{fill:?}");
    }
    let a = Array::create(st(), &p, Fill::Nans).unwrap();
    let mut out = vec![0u8; 800];
    a.to_cbuffer(&mut out).unwrap();
    assert!(out
        .chunks(8)
        .all(|c| f64::from_ne_bytes(c.try_into().unwrap()).is_nan()));
    let v = 2.5f64.to_ne_bytes();
    let a = Array::create(st(), &p, Fill::Value(&v)).unwrap();
    a.to_cbuffer(&mut out).unwrap();
    assert!(out.chunks(8).all(|c| c == v));
    // NaN needs a float size
    let p1 = Params::new(&[10], &[5], &[5]);
    let st1 = Storage {
        cparams: CParams {
            typesize: 2,
            ..CParams::default()
        },
        ..Storage::default()
    };
    assert_eq!(
        Array::create(st1, &p1, Fill::Nans).err(),
        Some(ErrorKind::Data)
    );
}

#[test]
fn zero_dim_array() {
    let p = Params::new(&[], &[], &[]);
    let st = Storage {
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    };
    let mut a = Array::from_cbuffer(st, &p, &7u32.to_le_bytes()).unwrap();
    assert_eq!(a.schunk().nchunks(), 1);
    let mut out = [0u8; 4];
    a.to_cbuffer(&mut out).unwrap();
    assert_eq!(u32::from_le_bytes(out), 7);
    a.set_slice_cbuffer(&9u32.to_le_bytes(), &[], &[], &[])
        .unwrap();
    a.get_slice_cbuffer(&[], &[], &mut out, &[]).unwrap();
    assert_eq!(u32::from_le_bytes(out), 9);
}

#[test]
fn bad_boxes_are_errors() {
    let p = Params::new(&[10, 10], &[4, 4], &[2, 2]);
    let mut a = Array::create(Storage::default(), &p, Fill::Zeros).unwrap();
    let mut out = vec![0u8; 100];
    for (s, e) in [
        (vec![0, 0], vec![11, 10]),
        (vec![5, 0], vec![4, 10]),
        (vec![-1, 0], vec![4, 10]),
        (vec![0], vec![4]),
    ] {
        assert!(a.get_slice_cbuffer(&s, &e, &mut out, &[10, 10]).is_err());
        assert!(a.set_slice_cbuffer(&out, &[10, 10], &s, &e).is_err());
    }
    // the buffer must hold the box
    assert!(a
        .get_slice_cbuffer(&[0, 0], &[5, 5], &mut out[..24], &[5, 5])
        .is_err());
    assert!(a
        .get_slice_cbuffer(&[0, 0], &[5, 5], &mut out, &[4, 5])
        .is_err());
}

#[test]
fn malformed_metalayers_are_refused() {
    let mut sc = SuperChunk::new(Storage::default()).unwrap();
    let bad = [
        meta::serialize(&[-3], &[1], &[1], None, 0).unwrap(),
        meta::serialize(&[10], &[0], &[0], None, 0).unwrap(),
        meta::serialize(&[10], &[4], &[0], None, 0).unwrap(),
        meta::serialize(&[i64::MAX], &[3], &[1], None, 0).unwrap(),
        meta::serialize(&[1 << 40, 1 << 40], &[1, 1], &[1, 1], None, 0).unwrap(),
    ];
    assert_eq!(
        Array::from_schunk(&mut sc).err(),
        Some(ErrorKind::MetalayerNotFound)
    );
    sc.meta_add("b2nd", &bad[0]).unwrap();
    for b in &bad {
        sc.metalayers[0].content = b.clone();
        assert!(Array::from_schunk(&sc).is_err(), "{b:?}");
    }
}

/// A backend that counts the bytes read through it.
struct Counting {
    bytes: Arc<AtomicU64>,
}
struct CountingStream {
    inner: Box<dyn Stream>,
    bytes: Arc<AtomicU64>,
}
impl Backend for Counting {
    fn open(&self, path: &Path, mode: Mode) -> crate::error::Result<Box<dyn Stream>> {
        Ok(Box::new(CountingStream {
            inner: crate::io::default_backend().open(path, mode)?,
            bytes: self.bytes.clone(),
        }))
    }
}
impl Stream for CountingStream {
    fn size(&mut self) -> crate::error::Result<u64> {
        self.inner.size()
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> crate::error::Result<()> {
        self.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.inner.read_exact_at(pos, buf)
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> crate::error::Result<()> {
        self.inner.write_all_at(pos, data)
    }
    fn truncate(&mut self, size: u64) -> crate::error::Result<()> {
        self.inner.truncate(size)
    }
}

/// Partial reads from disk touch only the blocks they need: a 3-D float32
/// array of 64 chunks of 64 blocks each; a 3x3x3 box inside one block
/// decodes 1 block and reads about one block's bytes from the file.
#[test]
fn small_reads_touch_only_needed_blocks() {
    let dir = scratch_dir();
    for contiguous in [true, false] {
        let path = dir.join(format!("partial-{contiguous}.b2nd"));
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_dir_all(&path);
        let p = Params::new(&[128, 128, 128], &[32, 32, 32], &[8, 8, 8]).with_dtype("<f4", 0);
        let n = 128 * 128 * 128;
        let data: Vec<u8> = (0..n)
            .flat_map(|i| ((i % 1000) as f32 * 0.37).to_le_bytes())
            .collect();
        let st = Storage {
            contiguous,
            urlpath: Some(path.clone()),
            cparams: CParams {
                typesize: 4,
                ..CParams::default()
            },
            ..Storage::default()
        };
        drop(Array::from_cbuffer(st, &p, &data).unwrap());
        let bytes = Arc::new(AtomicU64::new(0));
        let be: Arc<dyn Backend> = Arc::new(Counting {
            bytes: bytes.clone(),
        });
        let a = Array::from_schunk(SuperChunk::open(&path, 0, be).unwrap()).unwrap();
        let chunk_cbytes = a.schunk().cbytes() / a.schunk().nchunks();
        bytes.store(0, Ordering::Relaxed);
        // inside one block
        let (s, e) = ([41, 42, 43], [44, 45, 46]);
        let mut out = vec![0u8; 27 * 4];
        a.get_slice_cbuffer(&s, &e, &mut out, &[3, 3, 3]).unwrap();
        let one = (
            a.stats.chunks(),
            a.stats.blocks(),
            bytes.load(Ordering::Relaxed),
        );
        // across 2x2x2 blocks of one chunk
        a.stats.reset();
        bytes.store(0, Ordering::Relaxed);
        let (s2, e2) = ([38, 38, 38], [42, 42, 42]);
        let mut out2 = vec![0u8; 64 * 4];
        a.get_slice_cbuffer(&s2, &e2, &mut out2, &[4, 4, 4])
            .unwrap();
        let eight = (
            a.stats.chunks(),
            a.stats.blocks(),
            bytes.load(Ordering::Relaxed),
        );
        eprintln!(
            "contiguous={contiguous}: chunk ~{chunk_cbytes} B compressed, 64 blocks; \
             3x3x3 box: {} chunk, {} blocks decoded, {} B read; \
             4x4x4 box over 8 blocks: {} chunk, {} blocks decoded, {} B read",
            one.0, one.1, one.2, eight.0, eight.1, eight.2
        );
        assert_eq!((one.0, one.1), (1, 1));
        assert_eq!((eight.0, eight.1), (1, 8));
        // header + block offsets + the block, far below the chunk
        assert!(one.2 < chunk_cbytes as u64 / 8, "{one:?}");
        let mut model = Model {
            shape: vec![128, 128, 128],
            ts: 4,
            data,
        };
        assert_eq!(out, model.get(&s, &e));
        assert_eq!(out2, model.get(&s2, &e2));
        model.data.clear();
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_dir_all(&path);
    }
}

/// DELTA decodes every block against the first one: partial reads of a
/// chunk on disk must still see block 0.
#[test]
fn delta_filtered_arrays_read_partially_from_disk() {
    use crate::chunk::header::filter_id;
    let dir = scratch_dir();
    let path = dir.join("delta.b2nd");
    let _ = std::fs::remove_file(&path);
    let p = Params::new(&[64, 64], &[64, 64], &[4, 64]);
    let data: Vec<u8> = (0..64 * 64u32)
        .flat_map(|i| (i * 7 + (i % 13)).to_le_bytes())
        .collect();
    let mut cparams = CParams {
        typesize: 4,
        ..CParams::default()
    };
    cparams.filters[4] = filter_id::DELTA;
    cparams.filters[5] = filter_id::SHUFFLE;
    let st = Storage {
        contiguous: true,
        urlpath: Some(path.clone()),
        cparams,
        ..Storage::default()
    };
    drop(Array::from_cbuffer(st, &p, &data).unwrap());
    let a = Array::open(&path).unwrap();
    let model = Model {
        shape: vec![64, 64],
        ts: 4,
        data,
    };
    for (s, e) in [([40, 3], [42, 9]), ([0, 0], [1, 2]), ([60, 60], [64, 64])] {
        let len = [e[0] - s[0], e[1] - s[1]];
        let mut out = vec![0u8; (len[0] * len[1]) as usize * 4];
        a.get_slice_cbuffer(&s, &e, &mut out, &len).unwrap();
        assert_eq!(out, model.get(&s, &e), "{s:?}..{e:?}");
    }
    let _ = std::fs::remove_file(&path);
}

/// Opening arrays from damaged frames: errors, never panics (a small
/// deterministic fuzz over a real array's frame).
#[test]
fn damaged_frames_never_panic() {
    let p = Params::new(&[9, 7, 5], &[4, 3, 5], &[2, 3, 2]).with_dtype("<i2", 0);
    let data: Vec<u8> = (0..9 * 7 * 5 * 2).map(|i| (i * 31 % 251) as u8).collect();
    let st = Storage {
        contiguous: true,
        cparams: CParams {
            typesize: 2,
            ..CParams::default()
        },
        ..Storage::default()
    };
    let good = Array::from_cbuffer(st, &p, &data)
        .unwrap()
        .to_cframe()
        .unwrap();
    let mut r = Rng(12345);
    let mut opened = 0;
    for round in 0..3000 {
        let mut f = good.clone();
        if round % 10 == 0 {
            f.truncate(r.range(0, good.len() as i64 - 1) as usize);
        } else {
            for _ in 0..r.range(1, 4) {
                let i = r.range(0, f.len() as i64 - 1) as usize;
                f[i] = r.next() as u8;
            }
        }
        if let Ok(a) = Array::from_cframe(&f, r.range(0, 1) == 0) {
            opened += 1;
            if a.nbytes().is_ok_and(|n| n <= 1 << 20) {
                let mut out = vec![0u8; a.nbytes().unwrap()];
                let _ = a.to_cbuffer(&mut out);
                let s = vec![0i64; a.ndim()];
                let e: Vec<i64> = a.shape().iter().map(|&x| x.min(2)).collect();
                let _ = a.get_slice_cbuffer(&s, &e, &mut out, &e);
            }
        }
    }
    assert!(opened > 0);
}

#[test]
fn chunks_of_a_slice() {
    let p = Params::new(&[10, 10], &[4, 3], &[2, 3]);
    let a = Array::create(Storage::default(), &p, Fill::Zeros).unwrap();
    // chunk grid 3 x 4
    assert_eq!(a.slice_chunks(&[0, 0], &[10, 10]).unwrap().len(), 12);
    assert_eq!(a.slice_chunks(&[5, 2], &[9, 4]).unwrap(), vec![4, 5, 8, 9]);
    assert_eq!(a.slice_chunks(&[5, 2], &[5, 4]).unwrap(), Vec::<i64>::new());
}
