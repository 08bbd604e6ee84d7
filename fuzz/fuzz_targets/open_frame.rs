#![no_main]
//! Arbitrary bytes as a contiguous frame: see `blosc2_fuzz::open_frame`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::open_frame(data));
