#![no_main]
//! VL-block chunks, read from arbitrary bytes and round-tripped: see
//! `blosc2_fuzz::vlblocks`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::vlblocks(data));
