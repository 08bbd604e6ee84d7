//! Compress a `Vec<f64>` with a few settings and compare the sizes.
//!
//! `cargo run -p blosc2-core --example compress_vec`

use blosc2_core::{CParams, Codec, Filter};

fn main() -> blosc2_core::Result<()> {
    let data: Vec<f64> = (0..1_000_000)
        .map(|i| (i as f64 / 1000.0).sin() * 100.0)
        .collect();
    let raw = data.len() * std::mem::size_of::<f64>();

    let defaults = blosc2_core::compress(&data)?;
    println!(
        "defaults (blosclz, level 5, shuffle): {raw} -> {} bytes",
        defaults.len()
    );

    for (codec, filter) in [
        (Codec::Lz4, Filter::Shuffle),
        (Codec::Zstd, Filter::Shuffle),
        (Codec::Zstd, Filter::BitShuffle),
    ] {
        let params = CParams::new()
            .with_codec(codec)
            .with_clevel(9)
            .with_filters(&[filter])
            .with_nthreads(2);
        let chunk = blosc2_core::compress_with(&data, &params)?;
        let back: Vec<f64> = blosc2_core::decompress(&chunk)?;
        assert_eq!(back, data);
        println!(
            "{:>5} + {filter:?}: {raw} -> {} bytes ({:.1}x)",
            codec.name(),
            chunk.len(),
            raw as f64 / chunk.len() as f64
        );
    }
    Ok(())
}
