#![no_main]
//! Arbitrary bytes as a chunk: see `blosc2_fuzz::decompress_chunk`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::decompress_chunk(data));
