//! Helpers shared by the tests that run the built `b2`.

#![allow(dead_code)]

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

pub(crate) fn b2(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_b2"))
        .args(args)
        .output()
        .expect("run b2")
}

/// Run b2 and demand success; its stdout.
pub(crate) fn b2_ok(args: &[&str]) -> Vec<u8> {
    let o = b2(args);
    assert!(
        o.status.success(),
        "b2 {args:?} failed ({}):\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

pub(crate) fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A scratch directory removed when dropped.
pub(crate) struct Scratch(pub PathBuf);

static COUNTER: AtomicUsize = AtomicUsize::new(0);

impl Scratch {
    pub(crate) fn new(tag: &str) -> Scratch {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("b2-cli-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Data that compresses somewhat and differs between items: f64 ramps with
/// noise in the low bits.
pub(crate) fn sample_f64(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::with_capacity(n * 8);
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = i as f64 * 0.25 + (x % 1000) as f64 * 1e-6;
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// The shared corpora beside the repository, or None with a visible SKIP.
pub(crate) fn shared_interop(test: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/interop");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "SKIP {test}: {} not found, interop corpus checks not run",
            p.display()
        );
        None
    }
}
