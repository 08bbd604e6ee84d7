#![no_main]
//! A frame behind a C-style I/O backend, read lazily: see `blosc2_fuzz::lazy_udio`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::lazy_udio(data));
