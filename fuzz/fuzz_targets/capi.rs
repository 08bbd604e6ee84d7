#![no_main]
//! The exported C functions called as a C caller would: see `blosc2_fuzz::capi`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::capi(data));
