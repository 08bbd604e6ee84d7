//! Stable-toolchain runner for the fuzz targets, for machines without
//! libFuzzer (or to replay a corpus/crash quickly under a debugger).
//!
//! ```text
//! replay <TARGET> [--seconds S] [--seed N] [--slow-ms MS] PATH...
//! replay seeds DIR
//! replay seeds-sframe DIR SPARSE_DIR...
//! replay seeds-plugins DIR
//! ```
//!
//! Every file under PATH is run once; with `--seconds` the runner then keeps
//! mutating random corpus entries (bit flips, byte sets, splices, interesting
//! integers) until the time is up. A panicking input is written to
//! `artifacts/<target>/crash-<hash>` and the runner exits with status 1; an
//! input that runs longer than `--slow-ms` (1000) is written to
//! `slow-<hash>` and counted. A timed run prints its count so far every
//! five minutes, so one stopped early still adds to the totals.
//! `seeds` writes chunks made by our own compressor (varied codecs, filters
//! and sizes) as a starting corpus for `decompress_chunk`. `seeds-sframe`
//! packs sparse frame directories into `sframe`'s container. `seeds-plugins`
//! writes b2nd arrays compressed with the NDLZ codec, the NDCELL and NDMEAN
//! filters and the ZFP codecs, each also with its metalayer's blockshape
//! rewritten to one the chunks were not made with: `plugin-*` contiguous
//! frames (for `open_frame`, `b2nd_open`, `capi`) and `plugin-*` sparse
//! frame containers (for `sframe`) in DIR/open_frame, DIR/sframe.

use std::panic;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use blosc2_core::chunk::header::filter_id;
use blosc2_core::chunk::{CParams, Compressor, SplitMode};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: good enough to pick mutations, and reproducible.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            collect(&e, out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}

fn mutate(rng: &mut Rng, corpus: &[Vec<u8>], input: &mut Vec<u8>) {
    const INTERESTING: [u32; 10] = [
        0,
        1,
        0x7f,
        0x80,
        0xff,
        0x7fff,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
    ];
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = input.len();
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = rng.next() as u8;
            }
            // Header bytes matter most for chunks; hit them often.
            2 if len > 0 => {
                let i = rng.below(len.min(32));
                input[i] = rng.next() as u8;
            }
            3 if len >= 4 => {
                let i = rng.below(len - 3);
                let v = INTERESTING[rng.below(INTERESTING.len())];
                input[i..i + 4].copy_from_slice(&v.to_le_bytes());
            }
            4 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below(len - at);
                input.drain(at..at + n.min(64));
            }
            5 => {
                let at = rng.below(len + 1);
                let n = 1 + rng.below(64);
                let fill: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                input.splice(at..at, fill);
            }
            6 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                if !other.is_empty() {
                    let a = rng.below(other.len());
                    let b = a + rng.below(other.len() - a + 1);
                    let at = rng.below(len + 1);
                    input.truncate(at);
                    input.extend_from_slice(&other[a..b]);
                }
            }
            _ if len > 0 => {
                input.truncate(rng.below(len + 1));
            }
            _ => input.push(rng.next() as u8),
        }
    }
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// How often a timed run prints its count so far.
const PROGRESS_EVERY: Duration = Duration::from_secs(300);

/// What one input did: panicked (a crash), or ran longer than the slow
/// limit (libFuzzer's hang criterion in this project is 1 s per input).
struct Outcome {
    crashed: bool,
    slow: bool,
}

fn run_one(target: fn(&[u8]), name: &str, input: &[u8], slow_limit: Duration) -> Outcome {
    let start = Instant::now();
    let crashed = panic::catch_unwind(|| target(input)).is_err();
    let took = start.elapsed();
    let slow = took > slow_limit;
    if crashed || slow {
        let dir = PathBuf::from("artifacts").join(name);
        let _ = std::fs::create_dir_all(&dir);
        let kind = if crashed { "crash" } else { "slow" };
        let path = dir.join(format!("{kind}-{:016x}", fnv(input)));
        let _ = std::fs::write(&path, input);
        eprintln!(
            "{} input ({} ms) written to {}",
            if crashed { "crashing" } else { "slow" },
            took.as_millis(),
            path.display()
        );
    }
    Outcome { crashed, slow }
}

fn write_seeds(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut n = 0;
    for codec in [0u8, 1, 2, 4, 5] {
        for (filter, ts) in [
            (filter_id::SHUFFLE, 4),
            (filter_id::BITSHUFFLE, 8),
            (filter_id::DELTA, 2),
            (filter_id::BYTEDELTA, 4),
            (filter_id::NOFILTER, 1),
        ] {
            let len = 64 + rng.below(6000);
            // Compressible but not trivial: a slow ramp with noise.
            let data: Vec<u8> = (0..len)
                .map(|i| (i / 7) as u8 ^ (rng.below(4) as u8))
                .collect();
            let mut filters = [0u8; 6];
            filters[5] = filter;
            let mut filters_meta = [0u8; 6];
            if filter == filter_id::BYTEDELTA {
                filters_meta[5] = ts as u8;
            }
            let params = CParams {
                compcode: codec,
                clevel: 1 + rng.below(9) as u8,
                typesize: ts,
                filters,
                filters_meta,
                blocksize: if rng.below(2) == 0 { 0 } else { 256 },
                splitmode: SplitMode::from_i32(1 + rng.below(4) as i32),
                use_dict: matches!(codec, 1 | 2 | 5) && rng.below(2) == 0,
                ..CParams::default()
            };
            let mut chunk = vec![0u8; len + 32];
            let size = Compressor::new(params)
                .compress(&data, &mut chunk)
                .expect("seed compression failed");
            std::fs::write(dir.join(format!("own-{n:03}")), &chunk[..size])?;
            n += 1;
        }
    }
    println!("wrote {n} seeds to {}", dir.display());
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: replay <decompress_chunk|roundtrip|open_frame|open_frame_at|vlblocks|b2nd_open|schunk_ops|sframe|capi|lazy_udio> [--seconds S] [--seed N] [--slow-ms MS] PATH...\n       replay seeds DIR\n       replay seeds-sframe DIR SPARSE_DIR...\n       replay seeds-plugins DIR";
    let Some(name) = args.first().cloned() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    if name == "seeds" {
        let dir = args.get(1).map(PathBuf::from).unwrap_or_else(|| {
            eprintln!("{usage}");
            std::process::exit(2)
        });
        write_seeds(&dir).expect("writing seeds");
        return;
    }
    if name == "seeds-sframe" || name == "seeds-plugins" {
        let Some(dir) = args.get(1).map(PathBuf::from) else {
            eprintln!("{usage}");
            std::process::exit(2)
        };
        if name == "seeds-sframe" {
            blosc2_fuzz::seeds::sframe(&dir, &args[2..]).expect("writing sframe seeds");
        } else {
            blosc2_fuzz::seeds::plugins(&dir).expect("writing plugin seeds");
        }
        return;
    }
    let target: fn(&[u8]) = match name.as_str() {
        "decompress_chunk" => blosc2_fuzz::decompress_chunk,
        "roundtrip" => blosc2_fuzz::roundtrip,
        "open_frame" => blosc2_fuzz::open_frame,
        "vlblocks" => blosc2_fuzz::vlblocks,
        "b2nd_open" => blosc2_fuzz::b2nd_open,
        "schunk_ops" => blosc2_fuzz::schunk_ops,
        "sframe" => blosc2_fuzz::sframe,
        "open_frame_at" => blosc2_fuzz::open_frame_at,
        "capi" => blosc2_fuzz::capi,
        "lazy_udio" => blosc2_fuzz::lazy_udio,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let mut seconds = 0u64;
    let mut seed = 1u64;
    let mut slow_ms = 1000u64;
    let mut paths = Vec::new();
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => seconds = it.next().and_then(|s| s.parse().ok()).unwrap_or(0),
            "--seed" => seed = it.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            "--slow-ms" => slow_ms = it.next().and_then(|s| s.parse().ok()).unwrap_or(slow_ms),
            p => collect(Path::new(p), &mut paths),
        }
    }
    let (paths, corpus): (Vec<PathBuf>, Vec<Vec<u8>>) = paths
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|d| (p, d)))
        .unzip();
    let slow_limit = Duration::from_millis(slow_ms);
    let mut execs = 0u64;
    let mut crashes = 0u64;
    let mut slow = 0u64;
    for (p, input) in paths.iter().zip(&corpus) {
        execs += 1;
        let o = run_one(target, &name, input, slow_limit);
        if o.crashed || o.slow {
            eprintln!("  from corpus file {}", p.display());
        }
        crashes += u64::from(o.crashed);
        slow += u64::from(o.slow);
    }
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut rng = Rng(seed.max(1));
    let mut input = Vec::new();
    // a run stopped early (the machine is needed, a session ends) still
    // leaves a count to add to the totals
    let mut next_progress = Instant::now() + PROGRESS_EVERY;
    while seconds > 0 && Instant::now() < deadline && crashes == 0 {
        if Instant::now() >= next_progress {
            next_progress += PROGRESS_EVERY;
            println!("{name}: progress {execs} execs, {crashes} crashes, {slow} slow");
        }
        for _ in 0..64 {
            input.clear();
            if !corpus.is_empty() {
                input.extend_from_slice(&corpus[rng.below(corpus.len())]);
            }
            mutate(&mut rng, &corpus, &mut input);
            execs += 1;
            let o = run_one(target, &name, &input, slow_limit);
            slow += u64::from(o.slow);
            if o.crashed {
                crashes += 1;
                break;
            }
        }
    }
    // Slow inputs are reported, not fatal: on a loaded machine a normal input
    // can pass the limit; replay the artifact alone to tell.
    println!("{name}: {execs} execs, {crashes} crashes, {slow} slower than {slow_ms} ms");
    if crashes > 0 {
        std::process::exit(1);
    }
}
