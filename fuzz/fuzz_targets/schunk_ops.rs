#![no_main]
//! Sequences of changes to a super-chunk (on disk, with failing writes, or
//! in memory) checked against a model: see `blosc2_fuzz::schunk_ops`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::schunk_ops(data));
