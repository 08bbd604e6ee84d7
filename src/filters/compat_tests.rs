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
