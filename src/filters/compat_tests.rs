//! Byte-identity with upstream C-Blosc2.
//!
//! * `../shared/upstream-data/compat/{shuffle,bitshuffle}-2.20.0.cdata`: raw
//!   `blosc2_shuffle`/`blosc2_bitshuffle` output (typesize 4) for the int32
//!   ramp `0..1_000_000`, little-endian.
//! * `tests/data/filters/transpose-3.3.5.txt`: FNV-1a digests of the outputs
//!   of the four exported transposes of C-Blosc2 3.3.5 on pseudo-random
//!   inputs, made by `tests/data/filters/gen_transpose.c` (its PRNG is
//!   mirrored by [`Prng`]).

use super::simd::{self, Kernel};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ramp() -> Vec<u8> {
    (0..1_000_000i32).flat_map(|i| i.to_le_bytes()).collect()
}

fn compat_file(name: &str) -> Option<Vec<u8>> {
    let shared = root().join("../shared");
    if !shared.is_dir() {
        println!("SKIP: ../shared not found");
        eprintln!("SKIP: ../shared not found");
        return None;
    }
    let path = shared.join("upstream-data/compat").join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[test]
fn shuffle_matches_2_20_0_ramp() {
    let Some(expected) = compat_file("shuffle-2.20.0.cdata") else {
        return;
    };
    let src = ramp();
    for k in Kernel::available() {
        let mut out = vec![0u8; src.len()];
        simd::shuffle_with(k, 4, &src, &mut out);
        assert!(out == expected, "shuffle {k:?} differs from upstream");
        let mut back = vec![0u8; src.len()];
        simd::unshuffle_with(k, 4, &out, &mut back);
        assert!(back == src, "unshuffle {k:?}");
    }
}

#[test]
fn bitshuffle_matches_2_20_0_ramp() {
    let Some(expected) = compat_file("bitshuffle-2.20.0.cdata") else {
        return;
    };
    let src = ramp();
    for k in Kernel::available() {
        let mut out = vec![0u8; src.len()];
        simd::bitshuffle_with(k, 4, &src, &mut out);
        assert!(out == expected, "bitshuffle {k:?} differs from upstream");
        let mut back = vec![0u8; src.len()];
        simd::bitunshuffle_with(k, 4, &out, &mut back);
        assert!(back == src, "bitunshuffle {k:?}");
    }
}

/// The generator's xorshift64* byte stream.
struct Prng(u64);

impl Prng {
    fn new(seed: u64) -> Prng {
        Prng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1))
    }

    fn fill(&mut self, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| {
                let mut x = self.0;
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                self.0 = x;
                (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
            })
            .collect()
    }
}

fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

#[test]
fn transposes_match_3_3_5_on_random_blocks() {
    let path = root().join("tests/data/filters/transpose-3.3.5.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cases = 0;
    type Op = fn(Kernel, usize, &[u8], &mut [u8]);
    let ops: [(&str, Op); 4] = [
        ("shuffle", simd::shuffle_with),
        ("unshuffle", simd::unshuffle_with),
        ("bitshuffle", simd::bitshuffle_with),
        ("bitunshuffle", simd::bitunshuffle_with),
    ];
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let ts: usize = f[0].parse().unwrap();
        let len: usize = f[1].parse().unwrap();
        let src = Prng::new(ts as u64 * 1_000_003 + len as u64).fill(len);
        for (i, (name, op)) in ops.iter().enumerate() {
            let want = u64::from_str_radix(f[2 + i], 16).unwrap();
            for k in Kernel::available() {
                let mut out = vec![0u8; len];
                op(k, ts, &src, &mut out);
                assert_eq!(fnv1a(&out), want, "{name} {k:?} ts {ts} len {len}");
            }
        }
        cases += 1;
    }
    assert!(cases > 500, "only {cases} cases read");
}
