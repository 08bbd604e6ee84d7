//! A 3-D array on disk, read back by planes and boxes.
//!
//! `cargo run -p blosc2-core --example ndarray_slices`

use blosc2_core::{CParams, Codec, NdArray};

fn main() -> blosc2_core::Result<()> {
    let (nz, ny, nx) = (64u64, 128u64, 256u64);
    let data: Vec<f32> = (0..nz * ny * nx)
        .map(|i| {
            let (z, y, x) = (i / (ny * nx), (i / nx) % ny, i % nx);
            (z as f32 * 0.1).sin() + (y as f32 * 0.05).cos() + x as f32 * 0.001
        })
        .collect();

    let path = std::env::temp_dir().join("blosc2-example-3d.b2nd");
    let mut a = NdArray::builder(&[nz, ny, nx])
        .chunks(&[16, 64, 256])
        .blocks(&[4, 32, 64])
        .cparams(CParams::new().with_codec(Codec::Lz4).with_nthreads(2))
        .path(&path)
        .from_slice(&data)?;
    println!("{a:?}");

    // A plane on each axis: the box decides which blocks are decompressed.
    let z_plane: Vec<f32> = a.slice(&[10..11, 0..ny, 0..nx])?;
    let y_plane: Vec<f32> = a.slice(&[0..nz, 5..6, 0..nx])?;
    let x_plane: Vec<f32> = a.slice(&[0..nz, 0..ny, 100..101])?;
    println!(
        "planes: {} + {} + {} items",
        z_plane.len(),
        y_plane.len(),
        x_plane.len()
    );

    // Write a box, reopen, read it back.
    a.set_slice(&[0..2, 0..2, 0..2], &[-1.0f32; 8])?;
    drop(a);
    let a = NdArray::open(&path)?;
    let corner: Vec<f32> = a.slice(&[0..2, 0..2, 0..3])?;
    println!("corner after the write: {corner:?}");
    std::fs::remove_file(&path).ok();
    Ok(())
}
