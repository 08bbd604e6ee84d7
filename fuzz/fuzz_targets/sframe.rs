#![no_main]
//! A sparse frame directory (index and chunk files from the input) read
//! through an in-memory backend: see `blosc2_fuzz::sframe`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::sframe(data));
