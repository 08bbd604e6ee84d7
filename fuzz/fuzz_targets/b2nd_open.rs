#![no_main]
//! Arbitrary bytes as a frame holding a b2nd array, and as a bare b2nd
//! metalayer: see `blosc2_fuzz::b2nd_open`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::b2nd_open(data));
