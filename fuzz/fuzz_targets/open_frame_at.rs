#![no_main]
//! A contiguous frame in a file behind a prefix: see `blosc2_fuzz::open_frame_at`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::open_frame_at(data));
