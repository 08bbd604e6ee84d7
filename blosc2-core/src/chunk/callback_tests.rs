//! What prefilters, postfilters and plugins are handed per block, and what a
//! failing one does to the call (upstream 3.3.5's contract), with 1, 2 and 8
//! threads and with the workers run by a host's runner.

use super::pipeline::ttmp_len;
use super::{CParams, Compressor, DParams, Decompressor};
use crate::error::ErrorKind;
use crate::registry::{
    self, Codec, CodecEntry, Filter, FilterEntry, PluginContext, Postfilter, PostfilterCall,
    Prefilter, PrefilterCall, SchunkInfo,
};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const TS: usize = 4;
const BLOCK: usize = 4096 * TS;
const NBYTES: usize = 20_000 * TS;

fn data() -> Vec<u8> {
    (0..NBYTES / TS)
        .flat_map(|i| ((i * 3 + (i % 7 == 0) as usize) as u32).to_le_bytes())
        .collect()
}

fn params(nthreads: i16) -> CParams {
    CParams {
        typesize: TS as i32,
        blocksize: BLOCK as i32,
        nthreads,
        ..CParams::default()
    }
}

fn bsize(offset: usize) -> usize {
    BLOCK.min(NBYTES - offset)
}

/// What one prefilter or postfilter call saw.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    offset: usize,
    nblock: usize,
    len: usize,
    typesize: i32,
    nchunk: i64,
    tid: usize,
    ttmp: usize,
    input_at: usize,
}

/// Adds 1 to every item; records what it was given; fails while `fail`.
struct AddOne {
    src: usize,
    seen: Mutex<Vec<Seen>>,
    fail: AtomicI32,
}

impl Prefilter for AddOne {
    fn call(&self, c: PrefilterCall) -> i32 {
        self.seen.lock().unwrap().push(Seen {
            offset: c.offset,
            nblock: c.nblock,
            len: c.output.len(),
            typesize: c.output_typesize,
            nchunk: c.nchunk,
            tid: c.tid,
            ttmp: c.ttmp.len(),
            input_at: (c.input.as_ptr() as usize).wrapping_sub(self.src),
        });
        // all of the temporary is the callback's
        c.ttmp.fill(0xee);
        let rc = self.fail.load(Ordering::Relaxed);
        if rc != 0 {
            return rc;
        }
        for (o, i) in c.output.chunks_exact_mut(TS).zip(c.input.chunks_exact(TS)) {
            let v = u32::from_le_bytes(i.try_into().unwrap()) + 1;
            o.copy_from_slice(&v.to_le_bytes());
        }
        0
    }
}

/// Doubles every item; records what it was given; fails while `fail`.
struct Double {
    seen: Mutex<Vec<Seen>>,
    fail: AtomicBool,
}

impl Postfilter for Double {
    fn call(&self, c: PostfilterCall) -> i32 {
        self.seen.lock().unwrap().push(Seen {
            offset: c.offset,
            nblock: c.nblock,
            len: c.output.len(),
            typesize: c.typesize,
            nchunk: c.nchunk,
            tid: c.tid,
            ttmp: c.ttmp.len(),
            input_at: 0,
        });
        c.ttmp.fill(0xee);
        if self.fail.load(Ordering::Relaxed) {
            return -1;
        }
        for (o, i) in c.output.chunks_exact_mut(TS).zip(c.input.chunks_exact(TS)) {
            let v = u32::from_le_bytes(i.try_into().unwrap()) * 2;
            o.copy_from_slice(&v.to_le_bytes());
        }
        0
    }
}

fn item(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i * TS..(i + 1) * TS].try_into().unwrap())
}

fn check_blocks(seen: &[Seen], nthreads: usize, nchunk: i64, with_input: bool) {
    let nblocks = NBYTES.div_ceil(BLOCK);
    let mut blocks: Vec<usize> = seen.iter().map(|s| s.nblock).collect();
    blocks.sort_unstable();
    assert_eq!(
        blocks,
        (0..nblocks).collect::<Vec<_>>(),
        "one call per block"
    );
    for s in seen {
        assert_eq!(s.offset, s.nblock * BLOCK, "{s:?}");
        assert_eq!(s.len, bsize(s.offset), "{s:?}");
        assert_eq!(s.typesize, TS as i32, "{s:?}");
        assert_eq!(s.nchunk, nchunk, "{s:?}");
        assert!(s.tid < nthreads, "{s:?}");
        assert_eq!(s.ttmp, ttmp_len(BLOCK, TS), "{s:?}");
        if with_input {
            assert_eq!(s.input_at, s.offset, "{s:?}");
        }
    }
}

/// Compress and decompress through a prefilter and a postfilter, checking
/// what they saw; then make each fail and check the call fails with
/// upstream's code and the next call works.
fn prefilter_and_postfilter(nthreads: i16) {
    let src = data();
    let pre = Arc::new(AddOne {
        src: src.as_ptr() as usize,
        seen: Mutex::new(Vec::new()),
        fail: AtomicI32::new(0),
    });
    let mut comp = Compressor::new(params(nthreads));
    comp.prefilter = Some(pre.clone());
    comp.nchunk = 5;
    let mut chunk = vec![0u8; NBYTES + 32];
    let n = comp.compress(&src, &mut chunk).unwrap();
    check_blocks(&pre.seen.lock().unwrap(), nthreads as usize, 5, true);

    let post = Arc::new(Double {
        seen: Mutex::new(Vec::new()),
        fail: AtomicBool::new(false),
    });
    let mut d = Decompressor::new(DParams {
        nthreads,
        typesize: TS as i32,
    });
    d.postfilter = Some(post.clone());
    d.nchunk = 3;
    let mut out = vec![0u8; NBYTES];
    assert_eq!(d.decompress(&chunk[..n], &mut out).unwrap(), NBYTES);
    check_blocks(&post.seen.lock().unwrap(), nthreads as usize, 3, false);
    for i in [0, 1, 4095, 4096, NBYTES / TS - 1] {
        assert_eq!(item(&out, i), (item(&src, i) + 1) * 2, "item {i}");
    }

    for rc in [-1, 7] {
        pre.fail.store(rc, Ordering::Relaxed);
        for _ in 0..2 {
            assert_eq!(
                comp.compress(&src, &mut chunk),
                Err(ErrorKind::FilterPipeline),
                "prefilter returning {rc}"
            );
        }
    }
    pre.fail.store(0, Ordering::Relaxed);
    let n = comp.compress(&src, &mut chunk).unwrap();

    post.fail.store(true, Ordering::Relaxed);
    for _ in 0..2 {
        assert_eq!(
            d.decompress(&chunk[..n], &mut out),
            Err(ErrorKind::Postfilter)
        );
        assert_eq!(
            d.getitem(&chunk[..n], 5000, 10, &mut out),
            Err(ErrorKind::Postfilter)
        );
    }
    post.fail.store(false, Ordering::Relaxed);
    assert_eq!(d.decompress(&chunk[..n], &mut out).unwrap(), NBYTES);
    assert_eq!(item(&out, 77), (item(&src, 77) + 1) * 2);
}

#[test]
fn prefilter_and_postfilter_params_and_failures() {
    for nthreads in [1, 2, 8] {
        prefilter_and_postfilter(nthreads);
    }
}

/// XORs the bytes; checks the context it is shown; fails with `fail`.
struct Xor {
    nthreads: AtomicI32,
    fail_forward: AtomicI32,
    fail_backward: AtomicI32,
    calls: AtomicUsize,
}

fn check_ctx(ctx: &PluginContext, nthreads: &AtomicI32) {
    assert_eq!(ctx.typesize, TS as i32);
    assert_eq!(
        ctx.cparams.nthreads as i32,
        nthreads.load(Ordering::Relaxed)
    );
    assert_eq!(ctx.schunk.map(|s| s.owner), Some(0xb10c));
}

impl Filter for Xor {
    fn forward(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32 {
        self.calls.fetch_add(1, Ordering::Relaxed);
        assert_eq!(meta, 7);
        check_ctx(ctx, &self.nthreads);
        assert_eq!(ctx.cparams.blocksize, BLOCK as i32);
        assert_eq!(ctx.chunk.map(|c| c.len()), Some(NBYTES));
        for (o, i) in output.iter_mut().zip(input) {
            *o = i ^ 0x5a;
        }
        self.fail_forward.load(Ordering::Relaxed)
    }

    fn backward(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32 {
        assert_eq!(meta, 7);
        check_ctx(ctx, &self.nthreads);
        for (o, i) in output.iter_mut().zip(input) {
            *o = i ^ 0x5a;
        }
        self.fail_backward.load(Ordering::Relaxed)
    }
}

/// Stores the stream with a one-byte marker after a 0 byte run, so it always
/// "compresses" data that has one; fails with `fail_*`.
struct Marker {
    nthreads: AtomicI32,
    fail_encode: AtomicI32,
    fail_decode: AtomicI32,
}

impl Codec for Marker {
    fn encode(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32 {
        assert_eq!(meta, 3);
        check_ctx(ctx, &self.nthreads);
        let rc = self.fail_encode.load(Ordering::Relaxed);
        if rc != 0 {
            return rc;
        }
        // a run-length code of byte pairs (count, value)
        let mut o = 0;
        let mut i = 0;
        while i < input.len() {
            let mut n = 1;
            while i + n < input.len() && n < 255 && input[i + n] == input[i] {
                n += 1;
            }
            if o + 2 > output.len() {
                return 0;
            }
            output[o] = n as u8;
            output[o + 1] = input[i];
            o += 2;
            i += n;
        }
        o as i32
    }

    fn decode(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32 {
        assert_eq!(meta, 3);
        check_ctx(ctx, &self.nthreads);
        let rc = self.fail_decode.load(Ordering::Relaxed);
        if rc != 0 {
            return rc;
        }
        let mut o = 0;
        for p in input.chunks_exact(2) {
            let n = p[0] as usize;
            if o + n > output.len() {
                return -1;
            }
            output[o..o + n].fill(p[1]);
            o += n;
        }
        o as i32
    }
}

#[test]
fn plugins_see_the_context_and_fail_with_upstreams_codes() {
    let xor = Arc::new(Xor {
        nthreads: AtomicI32::new(0),
        fail_forward: AtomicI32::new(0),
        fail_backward: AtomicI32::new(0),
        calls: AtomicUsize::new(0),
    });
    let marker = Arc::new(Marker {
        nthreads: AtomicI32::new(0),
        fail_encode: AtomicI32::new(0),
        fail_decode: AtomicI32::new(0),
    });
    registry::register_filter(FilterEntry {
        id: 231,
        name: "test_xor_231".into(),
        version: 1,
        imp: xor.clone(),
    })
    .unwrap();
    registry::register_codec(CodecEntry {
        id: 232,
        name: "test_rle_232".into(),
        version: 1,
        complib: 232,
        imp: marker.clone(),
    })
    .unwrap();
    let info = Some(Arc::new(SchunkInfo {
        typesize: TS as i32,
        metalayers: Vec::new(),
        owner: 0xb10c,
    }));
    let src = data();
    for nthreads in [1i16, 2, 8] {
        xor.nthreads.store(nthreads as i32, Ordering::Relaxed);
        marker.nthreads.store(nthreads as i32, Ordering::Relaxed);
        let mut p = params(nthreads);
        p.filters[4] = 231;
        p.filters_meta[4] = 7;
        p.compcode = 232;
        p.compcode_meta = 3;
        let mut comp = Compressor::new(p);
        comp.schunk = info.clone();
        let mut d = Decompressor::new(DParams {
            nthreads,
            typesize: TS as i32,
        });
        d.schunk = info.clone();
        let mut chunk = vec![0u8; NBYTES + 32];
        let mut out = vec![0u8; NBYTES];

        // a failing filter: upstream's pipeline error when encoding, the
        // filter's own code when decoding
        xor.fail_forward.store(-1, Ordering::Relaxed);
        assert_eq!(
            comp.compress(&src, &mut chunk),
            Err(ErrorKind::FilterPipeline)
        );
        xor.fail_forward.store(0, Ordering::Relaxed);
        // a failing codec: a data error both ways, whatever its code
        marker.fail_encode.store(-5, Ordering::Relaxed);
        assert_eq!(comp.compress(&src, &mut chunk), Err(ErrorKind::Data));
        marker.fail_encode.store(0, Ordering::Relaxed);

        let n = comp.compress(&src, &mut chunk).unwrap();
        marker
            .fail_decode
            .store(ErrorKind::CodecDict.code(), Ordering::Relaxed);
        assert_eq!(d.decompress(&chunk[..n], &mut out), Err(ErrorKind::Data));
        marker.fail_decode.store(0, Ordering::Relaxed);
        xor.fail_backward
            .store(ErrorKind::CodecDict.code(), Ordering::Relaxed);
        assert_eq!(
            d.decompress(&chunk[..n], &mut out),
            Err(ErrorKind::CodecDict)
        );
        xor.fail_backward.store(0, Ordering::Relaxed);

        assert_eq!(d.decompress(&chunk[..n], &mut out).unwrap(), NBYTES);
        assert_eq!(out, src);
    }
    assert!(xor.calls.load(Ordering::Relaxed) > 0);
}

/// Runs each job on a thread of its own.
struct Spawning(AtomicUsize);

impl crate::pool::Runner for Spawning {
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
        self.0.fetch_add(1, Ordering::Relaxed);
        std::thread::scope(|s| {
            for w in 0..njobs {
                s.spawn(move || job(w));
            }
        });
    }
}

/// Runs only the last job, twice at once: the rest is left to the caller.
struct Sloppy(AtomicUsize);

impl crate::pool::Runner for Sloppy {
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
        self.0.fetch_add(1, Ordering::Relaxed);
        std::thread::scope(|s| {
            s.spawn(move || job(njobs - 1));
            s.spawn(move || job(njobs - 1));
        });
    }
}

#[test]
fn host_runners_run_the_workers() {
    let src = data();
    let plain = {
        let mut c = Compressor::new(params(4));
        let mut chunk = vec![0u8; NBYTES + 32];
        let n = c.compress(&src, &mut chunk).unwrap();
        chunk.truncate(n);
        chunk
    };
    let spawning = Arc::new(Spawning(AtomicUsize::new(0)));
    let sloppy = Arc::new(Sloppy(AtomicUsize::new(0)));
    let runners: [Arc<dyn crate::pool::Runner>; 2] = [spawning.clone(), sloppy.clone()];
    for r in runners {
        // the runner is process-wide: other tests running meanwhile use it
        // too, and must not notice
        crate::pool::set_runner(Some(r));
        let mut c = Compressor::new(params(4));
        let mut chunk = vec![0u8; NBYTES + 32];
        let n = c.compress(&src, &mut chunk).unwrap();
        assert_eq!(&chunk[..n], &plain[..]);
        let mut d = Decompressor::new(DParams {
            nthreads: 4,
            typesize: TS as i32,
        });
        let mut out = vec![0u8; NBYTES];
        assert_eq!(d.decompress(&plain, &mut out).unwrap(), NBYTES);
        assert_eq!(out, src);
        // a failing prefilter under a runner still fails cleanly
        let pre = Arc::new(AddOne {
            src: src.as_ptr() as usize,
            seen: Mutex::new(Vec::new()),
            fail: AtomicI32::new(-1),
        });
        c.prefilter = Some(pre.clone());
        assert_eq!(c.compress(&src, &mut chunk), Err(ErrorKind::FilterPipeline));
        pre.fail.store(0, Ordering::Relaxed);
        assert!(c.compress(&src, &mut chunk).unwrap() > 0);
        crate::pool::set_runner(None);
    }
    assert!(spawning.0.load(Ordering::Relaxed) > 0);
    assert!(sloppy.0.load(Ordering::Relaxed) > 0);
}

/// A codec registered by name whose library cannot be found.
struct Absent;

impl Codec for Absent {
    fn encode(&self, _: &[u8], _: &mut [u8], _: u8, _: &PluginContext) -> i32 {
        unreachable!("an absent codec is never called")
    }
    fn decode(&self, _: &[u8], _: &mut [u8], _: u8, _: &PluginContext) -> i32 {
        unreachable!("an absent codec is never called")
    }
    fn ready(&self) -> bool {
        false
    }
}

#[test]
fn a_codec_that_cannot_be_loaded_is_unsupported_not_a_data_error() {
    let absent = |id| CodecEntry {
        id,
        name: format!("test_absent_{id}"),
        version: 1,
        complib: id,
        imp: Arc::new(Absent),
    };
    registry::register_codec(absent(233)).unwrap();
    // upstream's global plugins (openhtj2k, grok, ...) take ids below 160
    registry::register_global_codec(absent(38)).unwrap();
    assert_eq!(
        registry::register_global_codec(absent(161)),
        Err(ErrorKind::CodecParam)
    );
    assert_eq!(
        registry::register_global_codec(absent(5)),
        Err(ErrorKind::CodecParam)
    );
    let src = data();
    for id in [233u8, 38] {
        for nthreads in [1i16, 2] {
            let mut p = params(nthreads);
            p.compcode = id;
            let mut chunk = vec![0u8; NBYTES + 32];
            assert_eq!(
                Compressor::new(p).compress(&src, &mut chunk),
                Err(ErrorKind::CodecSupport)
            );
        }
    }
}

/// Counts its calls; refuses the chunk while `refuse`.
struct CountingTuner {
    calls: AtomicUsize,
    refuse: AtomicBool,
}

impl registry::Tuner for CountingTuner {
    fn next_blocksize(&self) -> i32 {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.refuse.load(Ordering::SeqCst) {
            -1
        } else {
            0
        }
    }
}

#[test]
fn a_tuner_is_asked_once_per_chunk_and_can_refuse_it() {
    let tuner = Arc::new(CountingTuner {
        calls: AtomicUsize::new(0),
        refuse: AtomicBool::new(false),
    });
    let src = data();
    for nthreads in [1, 4] {
        tuner.calls.store(0, Ordering::SeqCst);
        let mut c = Compressor::new(params(nthreads));
        c.tuner = Some(tuner.clone());
        let mut out = vec![0u8; NBYTES + 64];
        let n = c.compress(&src, &mut out).unwrap();
        // forks (spare contexts) keep the hook
        c.fork().compress(&src, &mut out).unwrap();
        c.vlcompress(&[&src[..100], &src[100..300]], &mut out)
            .unwrap();
        assert_eq!(tuner.calls.load(Ordering::SeqCst), 3);
        // the tuner does not choose the bytes
        let mut plain = vec![0u8; NBYTES + 64];
        let m = Compressor::new(params(nthreads))
            .compress(&src, &mut plain)
            .unwrap();
        let again = c.compress(&src, &mut out).unwrap();
        assert_eq!((n, &out[..again]), (m, &plain[..m]));

        tuner.refuse.store(true, Ordering::SeqCst);
        assert_eq!(c.compress(&src, &mut out), Err(ErrorKind::Tuner));
        assert_eq!(
            c.vlcompress(&[&src[..100]], &mut out),
            Err(ErrorKind::Tuner)
        );
        tuner.refuse.store(false, Ordering::SeqCst);
    }
}
