//! A super-chunk in a frame file: append chunks, add metadata, reopen it,
//! read a slice across chunks and stream it all back.
//!
//! `cargo run -p blosc2-core --example schunk_on_disk`

use blosc2_core::{CParams, Codec, Schunk};
use std::io::Read;

fn main() -> blosc2_core::Result<()> {
    let path = std::env::temp_dir().join("blosc2-example.b2frame");
    let params = CParams::new().with_codec(Codec::Zstd).with_typesize(4);
    let mut sc = Schunk::create(&path, &params)?;
    for c in 0..10 {
        let chunk: Vec<u32> = (0..250_000).map(|i| c * 250_000 + i).collect();
        sc.append(&chunk)?;
    }
    sc.set_vlmeta("description", b"ten chunks of counting numbers")?;
    println!(
        "{}: {} chunks, {} -> {} bytes",
        path.display(),
        sc.nchunks(),
        sc.nbytes(),
        sc.cbytes()
    );
    drop(sc);

    // Any C-Blosc2 or python-blosc2 opens this file too.
    let sc = Schunk::open(&path)?;
    let across: Vec<u32> = sc.slice(249_998..250_002)?;
    println!("items 249998..250002: {across:?}");
    let note = sc.vlmeta("description")?.unwrap_or_default();
    println!("description: {}", String::from_utf8_lossy(&note));

    let mut all = Vec::new();
    sc.reader().read_to_end(&mut all)?;
    println!("read back {} bytes", all.len());
    std::fs::remove_file(&path).ok();
    Ok(())
}
