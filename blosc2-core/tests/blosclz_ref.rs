//! BloscLZ against C-Blosc2 3.3.5.
//!
//! `tests/data/blosclz/manifest.txt` lists, for deterministic generated inputs,
//! the size and FNV-1a hash of the stream the reference library produced for
//! one single-block chunk (no filters, typesize 1, `BLOSC_NEVER_SPLIT`); 0 means
//! the reference declined to compress. A few complete reference streams sit
//! next to it as `<kind>_<len>_cl<clevel>.blz` so decoding is checked on bytes
//! we did not write ourselves.
//!
//! To regenerate: `BLOSCLZ_DUMP_INPUTS=<dir> cargo test --test blosclz_ref`
//! writes every input as `<kind>_<len>.raw`; compress each through the
//! reference and record the results in the same format.

use blosc2_core::codecs::blosclz::{compress, decompress};
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/blosclz")
}

struct SplitMix(u64);
impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "blosc", "chunk", "block", "the", "of", "compress", "data", "shuffle", "filter", "codec",
    "frame", "and", "a", "to", "is", "in", "memory", "fast", "bytes", "level", "with", "for",
];

/// Deterministic test inputs; `kind` names the flavour of data.
fn input(kind: &str, len: usize) -> Vec<u8> {
    let mut rng = SplitMix(len as u64 ^ kind.bytes().fold(7, |h, b| h * 31 + u64::from(b)));
    let mut v: Vec<u8> = match kind {
        "zeros" => vec![0; len],
        "ramp" => (0..len).map(|i| i as u8).collect(),
        "random" => (0..len).map(|_| rng.next_u64() as u8).collect(),
        "text" => {
            let mut v = Vec::with_capacity(len + 16);
            while v.len() < len {
                v.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes());
                v.push(if rng.below(12) == 0 { b'\n' } else { b' ' });
            }
            v
        }
        "i32" => (0..len / 4 + 1)
            .flat_map(|i| (100_000 + (i as i32) * 3 - (i as i32 % 5)).to_le_bytes())
            .collect(),
        "f32shuf" => {
            // Byte planes of a smooth float signal, as a shuffle filter leaves
            // them: a sine made with + - * / and floor only (Bhaskara's
            // approximation), which IEEE 754 rounds alike everywhere; libm's
            // sin differs in the last bit between C libraries (glibc's and
            // MinGW's), and so did these streams.
            let n = len / 4 + 1;
            let pi = std::f32::consts::PI;
            let vals: Vec<[u8; 4]> = (0..n)
                .map(|i| {
                    let t = i as f32 * 0.013;
                    let k = (t / pi).floor();
                    let u = t - k * pi;
                    let s = 16.0 * u * (pi - u) / (5.0 * pi * pi - 4.0 * u * (pi - u));
                    let sign = if k as i64 % 2 == 0 { 1.0f32 } else { -1.0 };
                    (sign * s * 500.0).to_le_bytes()
                })
                .collect();
            (0..4)
                .flat_map(|b| vals.iter().map(move |x| x[b]))
                .collect()
        }
        "noisyzeros" => {
            let mut v = vec![0u8; len];
            for _ in 0..len / 40 {
                let i = rng.below(len.max(1));
                v[i] = rng.next_u64() as u8;
            }
            v
        }
        "runs" => {
            let mut v = Vec::with_capacity(len + 32);
            while v.len() < len {
                let b = rng.next_u64() as u8;
                v.extend(std::iter::repeat_n(b, 1 + rng.below(24)));
            }
            v
        }
        "farcopies" => {
            // Random bytes with segments copied from far back (far matches).
            let mut v: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            for _ in 0..len / 64 {
                let l = 8 + rng.below(120);
                let d = 1 + rng.below(72_000);
                if len > l + d {
                    let s = d + rng.below(len - l - d);
                    for k in 0..l {
                        v[s + k] = v[s + k - d];
                    }
                }
            }
            v
        }
        _ => panic!("unknown input kind {kind}"),
    };
    v.truncate(len);
    v
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

struct Case {
    kind: String,
    len: usize,
    clevel: u8,
    csize: usize,
    hash: u64,
}

fn manifest() -> Vec<Case> {
    let text = std::fs::read_to_string(data_dir().join("manifest.txt")).expect("manifest");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Case {
                kind: f[0].to_string(),
                len: f[1].parse().unwrap(),
                clevel: f[2].parse().unwrap(),
                csize: f[3].parse().unwrap(),
                hash: u64::from_str_radix(f[4], 16).unwrap(),
            }
        })
        .collect()
}

#[test]
fn dump_inputs_when_asked() {
    let Ok(dir) = std::env::var("BLOSCLZ_DUMP_INPUTS") else {
        return;
    };
    let mut seen = std::collections::HashSet::new();
    for c in manifest() {
        if seen.insert((c.kind.clone(), c.len)) {
            let path = PathBuf::from(&dir).join(format!("{}_{}.raw", c.kind, c.len));
            std::fs::write(path, input(&c.kind, c.len)).unwrap();
        }
    }
}

#[test]
fn streams_match_reference() {
    let cases = manifest();
    assert!(cases.len() > 100);
    let mut compressed = 0;
    for c in &cases {
        let data = input(&c.kind, c.len);
        // The pipeline's maxout for a lone block is the block size.
        let mut out = vec![0u8; c.len];
        let n = compress(c.clevel, &data, &mut out);
        assert_eq!(n, c.csize, "{} {} clevel {}: size", c.kind, c.len, c.clevel);
        if n == 0 {
            continue;
        }
        compressed += 1;
        assert_eq!(
            fnv1a(&out[..n]),
            c.hash,
            "{} {} clevel {}",
            c.kind,
            c.len,
            c.clevel
        );
        // Tight output buffers: the reference needs one spare byte.
        let mut tight = vec![0u8; n + 1];
        if tight.len() >= 66 {
            assert_eq!(compress(c.clevel, &data, &mut tight), n);
            assert_eq!(compress(c.clevel, &data, &mut tight[..n]), 0);
        }
        let mut back = vec![0u8; c.len];
        assert_eq!(decompress(&out[..n], &mut back), Ok(c.len));
        assert!(back == data);
    }
    assert!(compressed > 50);
}

#[test]
fn decodes_reference_streams() {
    let mut count = 0;
    for entry in std::fs::read_dir(data_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("blz") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let parts: Vec<&str> = stem.split('_').collect();
        let (kind, len) = (parts[0], parts[1].parse::<usize>().unwrap());
        let clevel: u8 = parts[2].trim_start_matches("cl").parse().unwrap();
        let stream = std::fs::read(&path).unwrap();
        let data = input(kind, len);
        let mut back = vec![0u8; len];
        assert_eq!(decompress(&stream, &mut back), Ok(len), "{stem}");
        assert!(back == data, "{stem}");
        let mut ours = vec![0u8; len];
        let n = compress(clevel, &data, &mut ours);
        assert_eq!(&ours[..n], &stream[..], "{stem}");
        count += 1;
    }
    assert!(count >= 5);
}
