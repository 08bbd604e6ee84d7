//! Shape changes and selections against a plain in-memory N-d model:
//! random shapes (ndim 1..=8, zero-length dimensions, chunk and block
//! shapes not dividing the shape), random operations.
//!
//! The model keeps `None` for items whose value the operations leave open:
//! the reference (and this crate) only promise zeros for items that land in
//! new chunks; items that reappear in the padding of an existing chunk hold
//! whatever the padding held.

use super::super::array::{read_meta, Array, Params};
use super::super::geometry::{strides, unravel};
use crate::chunk::CParams;
use crate::error::ErrorKind;
use crate::schunk::Storage;
use std::sync::atomic::{AtomicU64, Ordering};

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
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

#[derive(Clone, Debug)]
struct Model {
    shape: Vec<i64>,
    items: Vec<Option<u64>>,
}

impl Model {
    fn nitems(shape: &[i64]) -> usize {
        shape.iter().product::<i64>() as usize
    }
    fn get(&self, idx: &[i64]) -> Option<u64> {
        let st = strides(&self.shape);
        self.items[idx.iter().zip(&st).map(|(a, b)| a * b).sum::<i64>() as usize]
    }
    /// The model after moving to `new_shape`, item `x` of the new shape
    /// coming from `map(dim, x)` in the old one (None: a new item).
    fn remap(&self, new_shape: &[i64], map: impl Fn(usize, i64) -> Option<i64>) -> Model {
        let n = Model::nitems(new_shape);
        let mut items = vec![None; n];
        let mut idx = vec![0i64; new_shape.len()];
        let mut old = vec![0i64; new_shape.len()];
        for (k, item) in items.iter_mut().enumerate() {
            unravel(k as i64, new_shape, &mut idx);
            let mut ok = true;
            for d in 0..idx.len() {
                match map(d, idx[d]) {
                    Some(o) => old[d] = o,
                    None => ok = false,
                }
            }
            if ok {
                *item = self.get(&old);
            }
        }
        Model {
            shape: new_shape.to_vec(),
            items,
        }
    }
}

fn value_bytes(v: u64, ts: usize) -> Vec<u8> {
    v.to_le_bytes()[..ts].to_vec()
}

fn mask(ts: usize) -> u64 {
    if ts >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * ts)) - 1
    }
}

fn check(a: &Array, m: &Model, what: &str) {
    assert_eq!(a.shape(), &m.shape[..], "{what}: shape");
    assert_eq!(
        read_meta(a.schunk()).unwrap().shape,
        m.shape,
        "{what}: meta"
    );
    let ts = a.typesize() as usize;
    let mut buf = vec![0u8; a.nbytes().unwrap()];
    a.to_cbuffer(&mut buf).unwrap();
    for (k, item) in m.items.iter().enumerate() {
        if let Some(v) = item {
            let got = &buf[k * ts..(k + 1) * ts];
            assert_eq!(got, &value_bytes(*v, ts)[..], "{what}: item {k}");
        }
    }
}

/// Name prefix of this test thread's on-disk arrays.
fn disk_prefix() -> String {
    let t = format!("{:?}", std::thread::current().id());
    let t: String = t.chars().filter(|c| c.is_ascii_digit()).collect();
    format!("b2nd-reshape-{}-{}-", std::process::id(), t)
}

/// Remove this test thread's on-disk arrays.
fn cleanup() {
    let prefix = disk_prefix();
    if let Ok(dir) = std::fs::read_dir(std::env::temp_dir()) {
        for e in dir.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(e.path());
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

fn random_array(r: &mut Rng, ndim: usize, ts: usize, shape: Option<Vec<i64>>) -> (Array, Model) {
    let max_items: i64 = 3000;
    let mut shape = shape.unwrap_or_else(|| {
        (0..ndim)
            .map(|_| {
                if r.range(0, 12) == 0 {
                    0
                } else {
                    r.range(
                        1,
                        if ndim <= 2 {
                            40
                        } else if ndim <= 4 {
                            9
                        } else {
                            4
                        },
                    )
                }
            })
            .collect()
    });
    while shape.iter().product::<i64>() > max_items {
        let d = r.range(0, ndim as i64 - 1) as usize;
        shape[d] = (shape[d] / 2).max(1);
    }
    let cs: Vec<i32> = shape
        .iter()
        .map(|&s| r.range(1, (s.max(1) + 2).min(12)) as i32)
        .collect();
    let bs: Vec<i32> = cs.iter().map(|&c| r.range(1, c as i64) as i32).collect();
    let params = Params::new(&shape, &cs, &bs);
    // one array in four lives on disk: a frame file or a sparse directory
    let kind = r.range(0, 7);
    let urlpath = (kind >= 6).then(|| {
        static N: AtomicU64 = AtomicU64::new(0);
        let p = std::env::temp_dir().join(format!(
            "{}{}",
            disk_prefix(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
        p
    });
    let storage = Storage {
        contiguous: kind % 2 == 0,
        urlpath,
        cparams: CParams {
            typesize: ts as i32,
            clevel: 5,
            ..CParams::default()
        },
        ..Storage::default()
    };
    let n = Model::nitems(&shape);
    let base = r.next();
    let items: Vec<Option<u64>> = (0..n as u64)
        .map(|i| Some((base.wrapping_add(i * 2654435761)) & mask(ts)))
        .collect();
    let buf: Vec<u8> = items
        .iter()
        .flat_map(|v| value_bytes(v.unwrap_or(0), ts))
        .collect();
    let a = Array::from_cbuffer(storage, &params, &buf).unwrap();
    (a, Model { shape, items })
}

/// One random resize: new shape and start as `b2nd_resize` accepts them.
fn random_resize(r: &mut Rng, a: &Array) -> (Vec<i64>, Option<Vec<i64>>) {
    let shape = a.shape().to_vec();
    let cs = a.chunkshape();
    let nd = shape.len();
    let with_start = r.coin();
    let mut new = shape.clone();
    let mut start = shape.clone();
    for d in 0..nd {
        let c = cs[d] as i64;
        match r.range(0, 3) {
            0 => {} // unchanged
            1 => {
                // at the end
                new[d] = (shape[d] + r.range(-3, 5)).max(0);
                start[d] = if new[d] > shape[d] { shape[d] } else { new[d] };
            }
            2 if with_start => {
                // whole chunks inserted at a chunk boundary
                let at = r.range(0, shape[d] / c) * c;
                new[d] = shape[d] + c * r.range(1, 2);
                start[d] = at;
            }
            _ if with_start && shape[d] >= c => {
                // whole chunks removed at a chunk boundary
                let k = r.range(1, shape[d] / c);
                let at = r.range(0, (shape[d] - k * c) / c) * c;
                new[d] = shape[d] - k * c;
                start[d] = at;
            }
            _ => {}
        }
        if Model::nitems(&new) > 6000 {
            new[d] = shape[d];
            start[d] = shape[d];
        }
    }
    (new, with_start.then_some(start))
}

/// The model side of a resize, as shrink-then-grow.
fn model_resize(m: &Model, new: &[i64], start: Option<&[i64]>) -> Model {
    let old = m.shape.clone();
    let shrunk: Vec<i64> = (0..old.len()).map(|d| new[d].min(old[d])).collect();
    let st1: Vec<i64> = start.map_or(shrunk.clone(), |s| s.to_vec());
    let m1 = m.remap(&shrunk, |d, x| {
        let removed = old[d] - shrunk[d];
        Some(if x < st1[d] { x } else { x + removed })
    });
    let st2: Vec<i64> = start.map_or(shrunk.clone(), |s| s.to_vec());
    m1.remap(new, |d, x| {
        let added = new[d] - shrunk[d];
        if x < st2[d] {
            Some(x)
        } else if x < st2[d] + added {
            None
        } else {
            Some(x - added)
        }
    })
}

#[test]
fn resize_matches_model() {
    let mut r = Rng(0x5eed_1234);
    for case in 0..220 {
        let ndim = r.range(1, 8) as usize;
        let ts = [1usize, 2, 4, 8][r.range(0, 3) as usize];
        let (mut a, mut m) = random_array(&mut r, ndim, ts, None);
        for step in 0..4 {
            let (new, start) = random_resize(&mut r, &a);
            a.resize(&new, start.as_deref()).unwrap_or_else(|e| {
                panic!(
                    "case {case} step {step}: resize {:?} -> {new:?} at {start:?} (chunks {:?}): {e:?}",
                    a.shape(),
                    a.chunkshape()
                )
            });
            m = model_resize(&m, &new, start.as_deref());
            check(&a, &m, &format!("case {case} step {step} resize"));
            assert_eq!(a.schunk().nchunks(), a.geometry().nchunks());
        }
    }
    cleanup();
}

#[test]
fn resize_rejects_unaligned_inner_changes() {
    let mut r = Rng(7);
    let (mut a, _) = random_array(&mut r, 1, 4, Some(vec![20]));
    let cs = a.chunkshape()[0] as i64;
    if cs > 1 {
        assert_eq!(
            a.resize(&[20 + cs], Some(&[1])),
            Err(ErrorKind::InvalidParam)
        );
        assert_eq!(a.resize(&[21], Some(&[0])), Err(ErrorKind::InvalidParam));
    }
    assert_eq!(a.resize(&[25], Some(&[21])), Err(ErrorKind::InvalidParam));
    assert_eq!(a.resize(&[25, 1], None), Err(ErrorKind::InvalidParam));
    cleanup();
}

fn slab_values(r: &mut Rng, n: usize, ts: usize) -> Vec<u64> {
    (0..n).map(|_| r.next() & mask(ts)).collect()
}

#[test]
fn insert_append_delete_match_model() {
    let mut r = Rng(0xabcdef);
    for case in 0..220 {
        let ndim = r.range(1, 6) as usize;
        let ts = [1usize, 2, 4, 8][r.range(0, 3) as usize];
        let (mut a, mut m) = random_array(&mut r, ndim, ts, None);
        for step in 0..4 {
            let axis = r.range(0, ndim as i64 - 1) as usize;
            let shape = a.shape().to_vec();
            let c = a.chunkshape()[axis] as i64;
            let slab: i64 = (0..ndim).filter(|&d| d != axis).map(|d| shape[d]).product();
            let what = format!("case {case} step {step} axis {axis} shape {shape:?}");
            match r.range(0, 2) {
                0 | 1 => {
                    // insert (op 0 in the middle at a chunk boundary, op 1 via append)
                    let middle = r.coin() && shape[axis] >= c;
                    let (at, len) = if middle {
                        (r.range(0, shape[axis] / c) * c, c * r.range(1, 2))
                    } else {
                        (shape[axis], r.range(1, 4))
                    };
                    if slab == 0 || Model::nitems(&shape) as i64 + slab * len > 8000 {
                        continue;
                    }
                    let vals = slab_values(&mut r, (slab * len) as usize, ts);
                    let buf: Vec<u8> = vals.iter().flat_map(|&v| value_bytes(v, ts)).collect();
                    if at == shape[axis] && r.coin() {
                        a.append(&buf, axis as i32).unwrap();
                    } else {
                        a.insert(&buf, axis as i32, at)
                            .unwrap_or_else(|e| panic!("{what}: insert {len} at {at}: {e:?}"));
                    }
                    let mut new = shape.clone();
                    new[axis] += len;
                    let mut mm = m.remap(&new, |d, x| {
                        if d != axis || x < at {
                            Some(x)
                        } else if x < at + len {
                            None
                        } else {
                            Some(x - len)
                        }
                    });
                    // fill in the inserted slab (C order over the slab shape)
                    let mut bshape = new.clone();
                    bshape[axis] = len;
                    let st = strides(&new);
                    let mut idx = vec![0i64; ndim];
                    for (k, &v) in vals.iter().enumerate() {
                        unravel(k as i64, &bshape, &mut idx);
                        idx[axis] += at;
                        let off: i64 = idx.iter().zip(&st).map(|(a, b)| a * b).sum();
                        mm.items[off as usize] = Some(v);
                    }
                    m = mm;
                    check(&a, &m, &format!("{what}: insert {len} at {at}"));
                }
                _ => {
                    if shape[axis] == 0 {
                        continue;
                    }
                    let (at, len) = if r.coin() && shape[axis] >= c {
                        let k = r.range(1, shape[axis] / c);
                        (r.range(0, (shape[axis] - k * c) / c) * c, k * c)
                    } else {
                        let len = r.range(0, shape[axis]);
                        (shape[axis] - len, len)
                    };
                    a.delete(axis as i32, at, len)
                        .unwrap_or_else(|e| panic!("{what}: delete {len} at {at}: {e:?}"));
                    let mut new = shape.clone();
                    new[axis] -= len;
                    m = m.remap(&new, |d, x| {
                        Some(if d != axis || x < at { x } else { x + len })
                    });
                    check(&a, &m, &format!("{what}: delete {len} at {at}"));
                }
            }
        }
    }
    cleanup();
}

#[test]
fn append_whole_chunks_fast_path() {
    // chunks that are whole slabs: the appended buffer becomes one chunk
    let storage = Storage {
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    };
    let p = Params::new(&[4, 3, 5], &[2, 3, 5], &[2, 3, 5]);
    let items: Vec<u8> = (0..60u32).flat_map(|v| v.to_le_bytes()).collect();
    let mut a = Array::from_cbuffer(storage, &p, &items).unwrap();
    let more: Vec<u8> = (60..90u32).flat_map(|v| v.to_le_bytes()).collect();
    a.append(&more, 0).unwrap();
    assert_eq!(a.shape(), &[6, 3, 5]);
    assert_eq!(a.schunk().nchunks(), 3);
    let mut buf = vec![0u8; 90 * 4];
    a.to_cbuffer(&mut buf).unwrap();
    let want: Vec<u8> = (0..90u32).flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(buf, want);
}

#[test]
fn concatenate_matches_model() {
    let mut r = Rng(0xc0ffee);
    for case in 0..150 {
        let ndim = r.range(1, 5) as usize;
        let ts = [1usize, 2, 4, 8][r.range(0, 3) as usize];
        let (a, ma) = random_array(&mut r, ndim, ts, None);
        let axis = r.range(0, ndim as i64 - 1) as usize;
        let mut shape2 = a.shape().to_vec();
        shape2[axis] = r.range(0, 7);
        let (b, mb) = random_array(&mut r, ndim, ts, Some(shape2.clone()));
        // sometimes the same chunking and an aligned end (compressed copy)
        let (b, mb) = if r.coin() && a.shape()[axis] % a.chunkshape()[axis] as i64 == 0 {
            let p = Params::new(&shape2, a.chunkshape(), a.blockshape());
            let st = Storage {
                cparams: CParams {
                    typesize: ts as i32,
                    ..CParams::default()
                },
                ..Storage::default()
            };
            let mut buf = vec![0u8; b.nbytes().unwrap()];
            b.to_cbuffer(&mut buf).unwrap();
            (Array::from_cbuffer(st, &p, &buf).unwrap(), mb)
        } else {
            (b, mb)
        };
        let mut new = ma.shape.clone();
        new[axis] += shape2[axis];
        let want = Model {
            shape: new.clone(),
            items: {
                let mut items = vec![None; Model::nitems(&new)];
                let st = strides(&new);
                let mut idx = vec![0i64; ndim];
                for (k, item) in items.iter_mut().enumerate() {
                    let _ = st;
                    unravel(k as i64, &new, &mut idx);
                    *item = if idx[axis] < ma.shape[axis] {
                        ma.get(&idx)
                    } else {
                        let mut j = idx.clone();
                        j[axis] -= ma.shape[axis];
                        mb.get(&j)
                    };
                }
                items
            },
        };
        let what = format!("case {case} axis {axis} {:?} + {:?}", a.shape(), b.shape());
        if r.coin() {
            let cs: Vec<i32> = new
                .iter()
                .map(|&s| r.range(1, (s.max(1) + 1).min(10)) as i32)
                .collect();
            let bs: Vec<i32> = cs.iter().map(|&c| r.range(1, c as i64) as i32).collect();
            let st = Storage {
                contiguous: r.coin(),
                cparams: CParams {
                    typesize: ts as i32,
                    ..CParams::default()
                },
                ..Storage::default()
            };
            let c = a
                .concatenate(&b, axis as i32, st, &cs, &bs)
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            check(&c, &want, &what);
            // the source is left alone
            check(&a, &ma, &what);
        } else {
            let mut a = a;
            a.concatenate_in_place(&b, axis as i32)
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            check(&a, &want, &what);
        }
    }
    cleanup();
}

#[test]
fn concatenate_checks() {
    let mut r = Rng(3);
    let (a, _) = random_array(&mut r, 2, 4, Some(vec![4, 5]));
    let (b, _) = random_array(&mut r, 2, 4, Some(vec![4, 6]));
    let (c, _) = random_array(&mut r, 2, 2, Some(vec![3, 5]));
    let (d, _) = random_array(&mut r, 3, 4, Some(vec![4, 5, 1]));
    let st = || Storage::default();
    let e = |x: Result<Array, ErrorKind>| x.err();
    assert_eq!(
        e(a.concatenate(&b, 0, st(), &[2, 2], &[1, 1])),
        Some(ErrorKind::InvalidParam)
    );
    assert_eq!(
        e(a.concatenate(&c, 0, st(), &[2, 2], &[1, 1])),
        Some(ErrorKind::InvalidParam)
    );
    assert_eq!(
        e(a.concatenate(&d, 0, st(), &[2, 2], &[1, 1])),
        Some(ErrorKind::InvalidParam)
    );
    assert_eq!(
        e(a.concatenate(&b, 2, st(), &[2, 2], &[1, 1])),
        Some(ErrorKind::InvalidParam)
    );
    assert!(a.concatenate(&b, 1, st(), &[2, 2], &[1, 1]).is_ok());
    cleanup();
}

#[test]
fn squeeze_and_expand_keep_items() {
    let mut r = Rng(0x5157);
    for case in 0..150 {
        let ndim = r.range(1, 7) as usize;
        let ts = [1usize, 2, 4, 8][r.range(0, 3) as usize];
        let mut shape: Vec<i64> = (0..ndim).map(|_| r.range(1, 5)).collect();
        for s in shape.iter_mut() {
            if r.range(0, 2) == 0 {
                *s = 1;
            }
        }
        let (a, m) = random_array(&mut r, ndim, ts, Some(shape.clone()));
        let what = format!("case {case} {shape:?} chunks {:?}", a.chunkshape());
        let sq = a.squeeze().unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let kept: Vec<i64> = shape.iter().copied().filter(|&s| s != 1).collect();
        check(
            &sq,
            &Model {
                shape: kept.clone(),
                items: m.items.clone(),
            },
            &what,
        );
        // put new axes back where the ones were (if any room is left)
        let axis: Vec<bool> = shape.iter().map(|&s| s == 1).collect();
        if sq.ndim() > 0 || !axis.is_empty() {
            let ex = sq
                .expand_dims(&axis)
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            check(&ex, &m, &format!("{what} expanded"));
        }
        // squeezing a dimension that is not 1 is an index error
        if let Some(d) = shape.iter().position(|&s| s != 1) {
            let mut idx = vec![false; ndim];
            idx[d] = true;
            assert_eq!(a.squeeze_index(&idx).err(), Some(ErrorKind::InvalidIndex));
        }
    }
    cleanup();
}

#[test]
fn expand_dims_checks() {
    let mut r = Rng(11);
    let (a, m) = random_array(&mut r, 2, 4, Some(vec![3, 4]));
    let ex = a.expand_dims(&[true, false, true, false]).unwrap();
    assert_eq!(ex.shape(), &[1, 3, 1, 4]);
    check(
        &ex,
        &Model {
            shape: vec![1, 3, 1, 4],
            items: m.items.clone(),
        },
        "expand",
    );
    assert_eq!(
        a.expand_dims(&[false, false, false]).err(),
        Some(ErrorKind::InvalidParam)
    );
    assert_eq!(a.expand_dims(&[false]).err(), Some(ErrorKind::InvalidParam));
    cleanup();
}

fn random_selection(r: &mut Rng, shape: &[i64]) -> Vec<Vec<i64>> {
    shape
        .iter()
        .map(|&s| {
            if s == 0 {
                return Vec::new();
            }
            let n = r.range(0, 5) as usize;
            (0..n).map(|_| r.range(0, s - 1)).collect()
        })
        .collect()
}

#[test]
fn orthogonal_selection_matches_model() {
    let mut r = Rng(0x0127);
    for case in 0..220 {
        let ndim = r.range(1, 8) as usize;
        let ts = [1usize, 2, 4, 8][r.range(0, 3) as usize];
        let (mut a, mut m) = random_array(&mut r, ndim, ts, None);
        for step in 0..3 {
            let sel = random_selection(&mut r, &m.shape);
            let refs: Vec<&[i64]> = sel.iter().map(|v| v.as_slice()).collect();
            let bshape: Vec<i64> = sel.iter().map(|v| v.len() as i64).collect();
            let n = Model::nitems(&bshape);
            let what = format!("case {case} step {step} shape {:?} sel {sel:?}", m.shape);
            // read
            let mut buf = vec![0u8; n * ts];
            a.get_orthogonal_selection(&refs, &mut buf, &bshape)
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            let mut idx = vec![0i64; ndim];
            let mut at = vec![0i64; ndim];
            for k in 0..n {
                unravel(k as i64, &bshape, &mut idx);
                for d in 0..ndim {
                    at[d] = sel[d][idx[d] as usize];
                }
                let want = m.get(&at).unwrap();
                assert_eq!(
                    &buf[k * ts..(k + 1) * ts],
                    &value_bytes(want, ts)[..],
                    "{what}"
                );
            }
            // write
            let vals = slab_values(&mut r, n, ts);
            let src: Vec<u8> = vals.iter().flat_map(|&v| value_bytes(v, ts)).collect();
            a.set_orthogonal_selection(&refs, &src, &bshape)
                .unwrap_or_else(|e| panic!("{what}: set {e:?}"));
            let st = strides(&m.shape);
            for (k, &v) in vals.iter().enumerate() {
                unravel(k as i64, &bshape, &mut idx);
                let off: i64 = (0..ndim).map(|d| sel[d][idx[d] as usize] * st[d]).sum();
                m.items[off as usize] = Some(v);
            }
            check(&a, &m, &format!("{what}: after set"));
        }
    }
    cleanup();
}

#[test]
fn orthogonal_selection_checks() {
    let mut r = Rng(5);
    let (a, _) = random_array(&mut r, 2, 4, Some(vec![6, 7]));
    let mut buf = vec![0u8; 64];
    let bad = [&[6i64][..], &[0][..]];
    assert_eq!(
        a.get_orthogonal_selection(&bad, &mut buf, &[1, 1]),
        Err(ErrorKind::InvalidIndex)
    );
    let neg = [&[0i64][..], &[-1][..]];
    assert_eq!(
        a.get_orthogonal_selection(&neg, &mut buf, &[1, 1]),
        Err(ErrorKind::InvalidIndex)
    );
    let ok = [&[0i64, 1, 2][..], &[0, 1, 2, 3, 4, 5][..]];
    assert_eq!(
        a.get_orthogonal_selection(&ok, &mut buf, &[3, 6]),
        Err(ErrorKind::InvalidParam)
    );
    // a larger buffer shape places the items at its origin
    let mut big = vec![0u8; 4 * 4 * 8];
    let sel = [&[5i64, 0][..], &[6, 1][..]];
    a.get_orthogonal_selection(&sel, &mut big, &[4, 8]).unwrap();
    let mut all = vec![0u8; a.nbytes().unwrap()];
    a.to_cbuffer(&mut all).unwrap();
    let item = |i: usize, j: usize| &all[(i * 7 + j) * 4..(i * 7 + j + 1) * 4];
    assert_eq!(&big[0..4], item(5, 6));
    assert_eq!(&big[4..8], item(5, 1));
    assert_eq!(&big[32..36], item(0, 6));
    cleanup();
}

#[test]
fn sparse_gather_matches_model() {
    let mut r = Rng(0x5ba75e);
    for case in 0..150 {
        let ndim = r.range(1, 8) as usize;
        let ts = [1usize, 2, 4, 8][r.range(0, 3) as usize];
        let (a, m) = random_array(&mut r, ndim, ts, None);
        let n = m.items.len() as i64;
        if n == 0 {
            assert_eq!(
                a.get_sparse_cbuffer(&[0], &mut [0u8; 8]),
                Err(ErrorKind::InvalidParam)
            );
            continue;
        }
        let coords: Vec<i64> = (0..r.range(0, 40)).map(|_| r.range(0, n - 1)).collect();
        let mut buf = vec![0u8; coords.len() * ts];
        a.get_sparse_cbuffer(&coords, &mut buf)
            .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        for (k, &c) in coords.iter().enumerate() {
            let want = m.items[c as usize].unwrap();
            assert_eq!(
                &buf[k * ts..(k + 1) * ts],
                &value_bytes(want, ts)[..],
                "case {case}"
            );
        }
        assert_eq!(
            a.get_sparse_cbuffer(&[n], &mut buf),
            Err(ErrorKind::InvalidParam)
        );
        assert_eq!(
            a.get_sparse_cbuffer(&[-1], &mut buf),
            Err(ErrorKind::InvalidParam)
        );
    }
    cleanup();
}
