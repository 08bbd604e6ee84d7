#![no_main]
//! A sparse frame as a container of its files: see `blosc2_fuzz::sframe`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::sframe(data));
