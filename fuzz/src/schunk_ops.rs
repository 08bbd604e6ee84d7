//! `schunk_ops`: sequences of changes to a super-chunk, picked by the input,
//! checked against a model of what it must hold.
//!
//! The super-chunk lives in a contiguous frame file, a sparse frame
//! directory, a frame in memory or plain memory. Frame files and sparse
//! frames go through the real file system or, in fifteen runs out of
//! sixteen (by a hash of the input), through the in-memory backend (`memio`, far faster: only the paths
//! exist on disk, for `open`'s directory test). Rewrites of a frame go
//! through the backend's atomic replace, or in one run out of four in
//! place (then no write is made to fail, since an in-place rewrite cut
//! short leaves a torn frame, as upstream's does). Each change is one of
//! append, insert, update (with data or a special value), delete, reorder,
//! set_slice, vlmetalayer add/update/delete, a batch of them, or a reopen.
//! A change may run with a write that fails part-way (the I/O backend
//! refuses its n-th write): then it must report an error and leave both the
//! handle and the frame on disk as they were. After every change the
//! handle holds what the model holds; on disk, a contiguous frame file must
//! stay packed (its chunks section is exactly its chunks and the file ends
//! with the frame) outside batches, and a reopened frame must hold the
//! model too.

use crate::memio::MemBackend;
use crate::Knobs;
use blosc2_core::chunk::special::make_special;
use blosc2_core::chunk::{CParams, ChunkHeader, Special};
use blosc2_core::error::{ErrorKind, Result};
use blosc2_core::io::{Backend, Mode, Stream};
use blosc2_core::schunk::{Storage, SuperChunk};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Bytes per full chunk (typesize 4).
const NB: usize = 1024;

/// Writes left before the backend refuses one (u64::MAX: never), over the
/// real file system or memory.
struct Faulty {
    inner: Arc<dyn Backend>,
    left: Arc<Mutex<u64>>,
    replace: bool,
}

struct FaultyStream {
    inner: Box<dyn Stream>,
    left: Arc<Mutex<u64>>,
}

impl Backend for Faulty {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn Stream>> {
        Ok(Box::new(FaultyStream {
            inner: self.inner.open(path, mode)?,
            left: self.left.clone(),
        }))
    }
    fn can_replace(&self) -> bool {
        self.replace && self.inner.can_replace()
    }
    fn replace(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.replace(from, to)
    }
}

impl Stream for FaultyStream {
    fn size(&mut self) -> Result<u64> {
        self.inner.size()
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_exact_at(pos, buf)
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let mut left = self.left.lock().unwrap();
        if *left == 0 {
            // a torn write: part of it lands, except in a frame's first
            // sector, whose write (the commit) lands whole or not at all
            if pos >= 512 {
                let _ = self.inner.write_all_at(pos, &data[..data.len() / 2]);
            }
            return Err(ErrorKind::FileWrite);
        }
        *left = left.saturating_sub(1);
        self.inner.write_all_at(pos, data)
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.inner.truncate(size)
    }
}

#[derive(Clone, PartialEq)]
struct Model {
    chunks: Vec<Vec<u8>>,
    vlmeta: Vec<(String, Vec<u8>)>,
}

/// Chunk data of `len` bytes from a seed: runs, ramps or noise, so chunks
/// compress to different sizes.
fn data(seed: u8, len: usize) -> Vec<u8> {
    let mut x = u64::from(seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|i| match seed % 4 {
            0 => seed,
            1 => (i / 8) as u8 ^ seed,
            _ => {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if seed % 4 == 2 {
                    (x >> 60) as u8
                } else {
                    x as u8
                }
            }
        })
        .collect()
}

fn zeros(sc: &SuperChunk, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; 64];
    let n = make_special(sc.cparams(), Special::Zero, len as i32, None, &mut out)
        .expect("a zero chunk");
    out.truncate(n);
    out
}

fn content(sc: &SuperChunk) -> Result<Model> {
    let mut chunks = Vec::new();
    for i in 0..sc.nchunks() {
        let nb = ChunkHeader::read(&sc.chunk(i)?)?.nbytes;
        let mut out = vec![0u8; usize::try_from(nb).map_err(|_| ErrorKind::Data)?];
        sc.decompress_chunk(i, &mut out)?;
        chunks.push(out);
    }
    let mut vlmeta = Vec::new();
    for m in &sc.vlmetalayers {
        vlmeta.push((m.name.clone(), sc.vlmeta_get(&m.name)?));
    }
    Ok(Model { chunks, vlmeta })
}

/// Panic with a short account of where `got` and `want` differ.
fn same(got: &Model, want: &Model, what: &str) {
    if got == want {
        return;
    }
    let lens = |m: &Model| m.chunks.iter().map(Vec::len).collect::<Vec<_>>();
    let first = got
        .chunks
        .iter()
        .zip(&want.chunks)
        .position(|(a, b)| a != b);
    let names = |m: &Model| {
        m.vlmeta
            .iter()
            .map(|(n, v)| (n.clone(), v.len()))
            .collect::<Vec<_>>()
    };
    panic!(
        "{what}: chunk lengths {:?} (want {:?}), first differing chunk {first:?}, vlmeta {:?} (want {:?})",
        lens(got),
        lens(want),
        names(got),
        names(want)
    );
}

/// A frame file holds exactly its frame, whose chunks section holds
/// exactly its chunks.
fn assert_packed(sc: &SuperChunk, bytes: &[u8]) {
    let h = blosc2_core::frame::header::FrameHeader::parse(bytes).expect("a frame header");
    assert_eq!(bytes.len() as i64, h.frame_len, "file length");
    let offsets = sc.offsets().expect("offsets");
    let mut stored = 0i64;
    for (i, &o) in offsets.iter().enumerate() {
        if o >= 0 {
            stored += sc.chunk(i as i64).expect("chunk").len() as i64;
        }
    }
    assert_eq!(h.cbytes, stored, "chunks section");
    assert_eq!(sc.cbytes(), stored, "cbytes");
}

static RUN: AtomicU64 = AtomicU64::new(0);

/// Where runs keep their real files and directories: `/dev/shm` when it
/// exists. Each run names its own path there (process and run number), so
/// no directory is made or removed per run: those system calls cost more
/// than the changes themselves.
fn scratch_base() -> &'static Path {
    static BASE: OnceLock<PathBuf> = OnceLock::new();
    BASE.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        }
    })
}

fn tracing() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("FUZZ_TRACE").is_some())
}

/// One change; what the model becomes if it succeeds (None: the change is
/// refused whatever happens, e.g. an index out of range).
fn change(sc: &mut SuperChunk, model: &Model, k: &mut Knobs, op: u8) -> (Result<()>, Model) {
    let mut m = model.clone();
    let n = m.chunks.len();
    let len = |k: &mut Knobs| match k.byte() % 4 {
        0 | 1 => NB,
        2 => NB / 2,
        _ => 4 * (1 + usize::from(k.byte() % 64)),
    };
    let r = match op % 11 {
        0 => {
            let d = data(k.byte(), len(k));
            m.chunks.push(d.clone());
            sc.append_buffer(&d).map(|_| ())
        }
        1 => {
            let at = usize::from(k.byte()) % (n + 1);
            let d = data(k.byte(), len(k));
            m.chunks.insert(at, d.clone());
            sc.compress(&d)
                .and_then(|c| sc.insert_chunk(at as i64, &c))
                .map(|_| ())
        }
        2 | 3 if n > 0 => {
            let at = usize::from(k.byte()) % n;
            let l = len(k);
            let (c, d) = if op % 11 == 3 {
                (zeros(sc, l), vec![0u8; l])
            } else {
                let d = data(k.byte(), l);
                match sc.compress(&d) {
                    Ok(c) => (c, d),
                    Err(e) => return (Err(e), m),
                }
            };
            m.chunks[at] = d;
            sc.update_chunk(at as i64, &c).map(|_| ())
        }
        4 if n > 0 => {
            let at = usize::from(k.byte()) % n;
            m.chunks.remove(at);
            sc.delete_chunk(at as i64).map(|_| ())
        }
        5 if n > 0 => {
            let rot = usize::from(k.byte()) % n;
            let order: Vec<i64> = (0..n).map(|i| ((i + rot) % n) as i64).collect();
            m.chunks = order
                .iter()
                .map(|&o| model.chunks[o as usize].clone())
                .collect();
            if k.byte() % 2 == 1 {
                m.chunks.reverse();
                let rev: Vec<i64> = order.iter().rev().copied().collect();
                sc.reorder(&rev)
            } else {
                sc.reorder(&order)
            }
        }
        6 if n > 0 => {
            // a slice across chunks, in items of 4 bytes: only where all
            // chunks before its end are full (set_slice's addressing)
            let total: usize = m.chunks.iter().map(Vec::len).sum();
            let start = 4 * (usize::from(k.u16()) % (total / 4 + 1));
            let stop = (start + 4 * usize::from(k.u16() % 700)).min(total / 4 * 4);
            let src = data(k.byte(), stop - start);
            let mut pos = 0;
            for c in m.chunks.iter_mut() {
                let (a, b) = (pos, pos + c.len());
                let (lo, hi) = (start.max(a), stop.min(b));
                if lo < hi {
                    c[lo - a..hi - a].copy_from_slice(&src[lo - start..hi - start]);
                }
                pos = b;
            }
            sc.set_slice((start / 4) as i64, (stop / 4) as i64, &src)
        }
        7 => {
            let name = format!("v{}", k.byte() % 4);
            let d = data(k.byte(), usize::from(k.u16() % 2000));
            match m.vlmeta.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => {
                    slot.1 = d.clone();
                    sc.vlmeta_update(&name, &d, None).map(|_| ())
                }
                None => {
                    m.vlmeta.push((name.clone(), d.clone()));
                    sc.vlmeta_add(&name, &d, None).map(|_| ())
                }
            }
        }
        8 if !m.vlmeta.is_empty() => {
            let i = usize::from(k.byte()) % m.vlmeta.len();
            let (name, _) = m.vlmeta.remove(i);
            sc.vlmeta_delete(&name).map(|_| ())
        }
        _ => {
            let d = data(k.byte(), NB);
            m.chunks.push(d.clone());
            sc.append_buffer(&d).map(|_| ())
        }
    };
    (r, m)
}

/// See the module documentation.
pub fn schunk_ops(input: &[u8]) {
    let mut k = Knobs { data: input };
    let run = RUN.fetch_add(1, Ordering::Relaxed);
    let path = scratch_base().join(format!("b2fuzz-ops-{}-{run}.b2frame", std::process::id()));
    let sel = k.byte();
    let kind = sel % 4;
    let on_disk = kind < 2;
    if on_disk {
        // left by a dead process of the same id
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_dir_all(&path);
    }
    // Real files in one run of sixteen: such a run costs several runs in
    // memory, and the memory backend reaches the same frame code. Picked by
    // a hash of the whole input, not by a bit of its first byte: mutations
    // seldom touch that byte, so each seed would keep its storage and the
    // seeds' share, not one in sixteen, would decide the cost.
    let hash = input
        .iter()
        .fold(0u32, |h, &b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let mem = hash % 16 != 0;
    let replace = (sel >> 4) & 3 != 0;
    let memfs = MemBackend::new();
    let inner: Arc<dyn Backend> = if mem {
        Arc::new(memfs.clone())
    } else {
        Arc::new(blosc2_core::io::stdio::Stdio)
    };
    let left = Arc::new(Mutex::new(u64::MAX));
    let io: Arc<dyn Backend> = Arc::new(Faulty {
        inner,
        left: left.clone(),
        replace,
    });
    let frame_bytes = |path: &Path| {
        if mem {
            memfs.get(path).expect("the frame in memory")
        } else {
            std::fs::read(path).expect("the frame file")
        }
    };
    let storage = Storage {
        contiguous: kind != 1,
        urlpath: (kind < 2).then(|| path.clone()),
        cparams: CParams {
            typesize: 4,
            clevel: k.byte() % 10,
            compcode: [0, 1, 5][usize::from(k.byte() % 3)],
            ..CParams::default()
        },
        io: io.clone(),
        ..Storage::default()
    };
    let Ok(mut sc) = SuperChunk::new(storage) else {
        return;
    };
    if mem && kind == 0 {
        // `open` asks the file system whether the path is a directory
        // before it asks the backend for the frame
        std::fs::write(&path, b"").expect("the frame's stand-in file");
    }
    let mut model = Model {
        chunks: Vec::new(),
        vlmeta: Vec::new(),
    };
    let mut batch = false;
    // a failed change may leave the old frame where it moved it, unpacked,
    // until the next change
    let mut unpacked = false;
    // a frame reopened before that next change keeps the freed bytes (a
    // new handle cannot know them without reading every chunk)
    let mut holey = false;
    for _ in 0..24 {
        if k.data.is_empty() {
            break;
        }
        let op = k.byte();
        match op >> 4 {
            // batches begin and end
            0xe => {
                if tracing() {
                    eprintln!("batch {}", !batch);
                }
                if batch {
                    sc.end_batch();
                } else {
                    sc.begin_batch();
                }
                batch = !batch;
            }
            // reopen
            0xf if on_disk => {
                if tracing() {
                    eprintln!("reopen");
                }
                if batch {
                    sc.end_batch();
                    batch = false;
                }
                holey |= unpacked;
                drop(sc);
                sc = SuperChunk::open(&path, 0, io.clone()).expect("reopen");
                same(&content(&sc).expect("read back"), &model, "reopened");
            }
            hi => {
                // a failing write in a third of the changes on disk
                let fail = on_disk && replace && hi % 3 == 2;
                *left.lock().unwrap() = if fail {
                    u64::from(k.byte() % 16)
                } else {
                    u64::MAX
                };
                let (r, m) = change(&mut sc, &model, &mut k, op);
                *left.lock().unwrap() = u64::MAX;
                if tracing() {
                    eprintln!("kind {kind} op {} fail {fail}: {r:?}", op % 11);
                }
                match r {
                    Ok(()) => {
                        // a change writes the frame anew (a no-op, like an
                        // empty slice, need not); set_slice packs once, at
                        // its end: a failure there only leaves the freed
                        // bytes, for the next change
                        if fail && op % 11 == 6 {
                            unpacked = true;
                        } else if m != model {
                            unpacked = false;
                        }
                        model = m;
                    }
                    Err(_) if fail && op % 11 == 6 => {
                        // set_slice writes chunk by chunk (as upstream):
                        // each chunk is old or new
                        let got = content(&sc).expect("read");
                        assert_eq!(got.chunks.len(), model.chunks.len(), "set_slice");
                        for (i, c) in got.chunks.iter().enumerate() {
                            assert!(
                                *c == model.chunks[i] || *c == m.chunks[i],
                                "set_slice: chunk {i} is neither old nor new"
                            );
                        }
                        model = got;
                        unpacked = true;
                    }
                    Err(_) if fail => unpacked = true,
                    Err(ErrorKind::InvalidParam | ErrorKind::InvalidIndex) => {}
                    Err(e) => panic!("op {op}: {e:?} without a failing write"),
                }
                same(&content(&sc).expect("read"), &model, &format!("op {op}"));
                if fail && on_disk {
                    let back =
                        SuperChunk::open(&path, 0, io.clone()).expect("open after a failure");
                    same(
                        &content(&back).expect("read back"),
                        &model,
                        &format!("op {op} on disk"),
                    );
                }
            }
        }
        if kind == 0 && !batch && !unpacked && !holey {
            assert_packed(&sc, &frame_bytes(&path));
        }
    }
    if batch {
        sc.end_batch();
    }
    if kind == 0 && !unpacked && !holey {
        assert_packed(&sc, &frame_bytes(&path));
    }
    if on_disk {
        drop(sc);
        let back = SuperChunk::open(&path, 0, io).expect("final reopen");
        same(&content(&back).expect("final read"), &model, "final");
    }
    if on_disk {
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_dir_all(&path);
    }
}
