//! A super-chunk's data going through contexts its owner supplies
//! ([`ChunkContexts`]), with the chunk numbers prefilters and postfilters
//! are told, and plugins reading the super-chunk from inside them.

use super::*;
use crate::registry::{Postfilter, PostfilterCall, Prefilter, PrefilterCall};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Records the chunk numbers it is called for; adds 1 to every byte.
#[derive(Default)]
struct Pre(Mutex<Vec<i64>>);

impl Prefilter for Pre {
    fn call(&self, c: PrefilterCall) -> i32 {
        self.0.lock().unwrap().push(c.nchunk);
        for (o, i) in c.output.iter_mut().zip(c.input) {
            *o = i.wrapping_add(1);
        }
        0
    }
}

/// Records the chunk numbers; doubles every byte.
#[derive(Default)]
struct Post(Mutex<Vec<i64>>);

impl Postfilter for Post {
    fn call(&self, c: PostfilterCall) -> i32 {
        self.0.lock().unwrap().push(c.nchunk);
        for (o, i) in c.output.iter_mut().zip(c.input) {
            *o = i.wrapping_mul(2);
        }
        0
    }
}

/// The owner's contexts; `off` makes it have none.
struct Owner {
    comp: Mutex<Compressor>,
    decomp: Mutex<Decompressor>,
    off: AtomicBool,
    uses: AtomicUsize,
}

impl ChunkContexts for Owner {
    fn compressor(
        &self,
        _nchunk: i64,
        f: &mut dyn FnMut(&mut Compressor) -> Result<usize>,
    ) -> Option<Result<usize>> {
        if self.off.load(Ordering::Relaxed) {
            return None;
        }
        self.uses.fetch_add(1, Ordering::Relaxed);
        Some(f(&mut self.comp.lock().unwrap()))
    }

    fn decompressor(
        &self,
        _nchunk: i64,
        f: &mut dyn FnMut(&mut Decompressor) -> Result<usize>,
    ) -> Option<Result<usize>> {
        if self.off.load(Ordering::Relaxed) {
            return None;
        }
        self.uses.fetch_add(1, Ordering::Relaxed);
        Some(f(&mut self.decomp.lock().unwrap()))
    }
}

const N: usize = 4000;

fn raw(seed: u8) -> Vec<u8> {
    (0..N).map(|i| (i / 64) as u8 ^ seed).collect()
}

#[test]
fn data_goes_through_the_owners_contexts() {
    let cparams = CParams {
        typesize: 4,
        blocksize: 1024,
        ..CParams::default()
    };
    let dparams = DParams::default();
    let pre = Arc::new(Pre::default());
    let post = Arc::new(Post::default());
    let mut comp = Compressor::new(cparams.clone());
    comp.prefilter = Some(pre.clone());
    let mut decomp = Decompressor::new(dparams.clone());
    decomp.postfilter = Some(post.clone());
    let owner = Arc::new(Owner {
        comp: Mutex::new(comp),
        decomp: Mutex::new(decomp),
        off: AtomicBool::new(false),
        uses: AtomicUsize::new(0),
    });
    let mut sc = SuperChunk::new(Storage {
        cparams,
        dparams,
        ..Storage::default()
    })
    .unwrap();
    sc.contexts = Some(owner.clone());
    for k in 0..3u8 {
        sc.append_buffer(&raw(k)).unwrap();
    }
    assert_eq!(
        *pre.0.lock().unwrap(),
        vec![0; 4]
            .into_iter()
            .chain(vec![1; 4])
            .chain(vec![2; 4])
            .collect::<Vec<i64>>()
    );

    let mut out = vec![0u8; N];
    sc.decompress_chunk(1, &mut out).unwrap();
    let want: Vec<u8> = raw(1)
        .iter()
        .map(|b| b.wrapping_add(1).wrapping_mul(2))
        .collect();
    assert_eq!(out, want);
    assert!(post.0.lock().unwrap().iter().all(|&n| n == 1));

    // a slice across chunks 1 and 2: each decoded as itself
    post.0.lock().unwrap().clear();
    let mut part = vec![0u8; 400];
    sc.get_slice(
        (2 * N as i64 - 100) / 4,
        (2 * N as i64 + 300) / 4,
        &mut part,
    )
    .unwrap();
    assert_eq!(part[0], raw(1)[N - 100].wrapping_add(1).wrapping_mul(2));
    assert_eq!(part[399], raw(2)[299].wrapping_add(1).wrapping_mul(2));
    let mut seen = post.0.lock().unwrap().clone();
    seen.dedup();
    assert_eq!(seen, vec![1, 2]);

    // rewriting chunk 2 compresses it as chunk 2
    pre.0.lock().unwrap().clear();
    sc.set_slice(2 * N as i64 / 4, 2 * N as i64 / 4 + 10, &[9u8; 40])
        .unwrap();
    assert!(pre.0.lock().unwrap().iter().all(|&n| n == 2));

    // without the owner's contexts, the super-chunk's own (no hooks)
    owner.off.store(true, Ordering::Relaxed);
    let uses = owner.uses.load(Ordering::Relaxed);
    sc.decompress_chunk(0, &mut out).unwrap();
    assert_eq!(
        out,
        raw(0)
            .iter()
            .map(|b| b.wrapping_add(1))
            .collect::<Vec<u8>>()
    );
    assert_eq!(owner.uses.load(Ordering::Relaxed), uses);
}

/// The super-chunk's own contexts, in use by a plugin that reads the same
/// super-chunk from inside a decode, lend a copy instead of deadlocking.
#[test]
fn own_contexts_never_wait_for_themselves() {
    struct Reader {
        sc: std::sync::OnceLock<std::sync::Weak<SuperChunk>>,
        nested: AtomicUsize,
    }
    impl Postfilter for Reader {
        fn call(&self, c: PostfilterCall) -> i32 {
            c.output.copy_from_slice(c.input);
            let sc = self.sc.get().and_then(|w| w.upgrade());
            if let (Some(sc), 0) = (sc, self.nested.fetch_add(1, Ordering::SeqCst)) {
                let mut out = vec![0u8; N];
                if sc.decompress_chunk(0, &mut out).is_err() {
                    return -1;
                }
            }
            0
        }
    }
    let mut sc = SuperChunk::new(Storage {
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    sc.append_buffer(&raw(5)).unwrap();
    let reader = Arc::new(Reader {
        sc: std::sync::OnceLock::new(),
        nested: AtomicUsize::new(0),
    });
    sc.decomp.lock().unwrap().postfilter = Some(reader.clone());
    let sc = Arc::new(sc);
    reader.sc.set(Arc::downgrade(&sc)).unwrap();
    let mut out = vec![0u8; N];
    sc.decompress_chunk(0, &mut out).unwrap();
    assert_eq!(out, raw(5));
    // the nested decode ran on a fresh context (without this postfilter)
    assert_eq!(reader.nested.load(Ordering::SeqCst), 1);
}
