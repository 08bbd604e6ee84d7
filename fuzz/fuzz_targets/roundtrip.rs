#![no_main]
//! Parameters and data from the input, compress then decompress: see
//! `blosc2_fuzz::roundtrip`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::roundtrip(data));
