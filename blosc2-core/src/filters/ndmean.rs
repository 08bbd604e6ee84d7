//! NDMEAN (filter id 33): a lossy filter for float32/float64 b2nd blocks.
//! Each cell (side `filters_meta`, clipped to the block) is replaced by the
//! mean of its items, and the block is laid out cell by cell as NDCELL does,
//! so codecs see long runs of equal values. Decompression puts the cells
//! back in place; the means stay.
//!
//! Matching C-Blosc2 bit for bit: the sum is accumulated in the item's own
//! precision in the cell's C order and divided by the item count; a cell's
//! origin is computed with the first dimension's (clipped) cell side for
//! every dimension, as the reference does (it only matters when a cell side
//! is clipped by a block dimension smaller than `meta`).

use super::ndcell::{
    block_dims, for_each_cell_row, geometry_of, plugin_typesize, scatter, trace, NdGeometry,
};
use crate::error::{ErrorKind, Result};
use crate::registry::PluginContext;

/// Filter id (`BLOSC_FILTER_NDMEAN`).
pub const ID: u8 = 33;

/// Per-dimension cell sides: `meta` clipped to the block.
fn cellshape(meta: u8, block: &[usize], len: usize, typesize: usize) -> Result<Vec<usize>> {
    if meta == 0 || meta > i8::MAX as u8 {
        trace!("Invalid cell shape (meta) {meta}");
        return Err(ErrorKind::Failure);
    }
    let cells: Vec<usize> = block.iter().map(|&b| b.min(meta as usize)).collect();
    let items: u64 = cells.iter().map(|&c| c as u64).product();
    if (len as u64) < items * typesize as u64 {
        trace!("input and output buffer cannot be smaller than cell size");
        return Err(ErrorKind::Failure);
    }
    Ok(cells)
}

/// Replace every cell by its mean, cells laid out one after the other.
pub fn forward(
    meta: u8,
    g: &NdGeometry,
    typesize: usize,
    input: &[u8],
    output: &mut [u8],
) -> Result<()> {
    if typesize != 4 && typesize != 8 {
        trace!("This filter only works for float or double");
        return Err(ErrorKind::Failure);
    }
    let len = input.len();
    let block = block_dims(g, typesize, len)?;
    let cells = cellshape(meta, &block, len, typesize)?;
    let mut op = 0usize;
    // the cell being summed: its index, item count and running sums
    let mut cur: Option<usize> = None;
    let mut count = 0usize;
    let mut sum32 = 0f32;
    let mut sum64 = 0f64;
    let mut flush = |count: usize, sum32: f32, sum64: f64, op: &mut usize| -> Result<()> {
        let nb = count * typesize;
        let dst = output.get_mut(*op..*op + nb).ok_or(ErrorKind::Failure)?;
        if typesize == 4 {
            let m = (sum32 / count as f32).to_ne_bytes();
            dst.chunks_exact_mut(4).for_each(|d| d.copy_from_slice(&m));
        } else {
            let m = (sum64 / count as f64).to_ne_bytes();
            dst.chunks_exact_mut(8).for_each(|d| d.copy_from_slice(&m));
        }
        *op += nb;
        Ok(())
    };
    for_each_cell_row(&block, &cells, cells[0], |ci, start, n| {
        if cur != Some(ci) {
            if cur.is_some() {
                flush(count, sum32, sum64, &mut op)?;
            }
            cur = Some(ci);
            count = 0;
            sum32 = 0.0;
            sum64 = 0.0;
        }
        let row = input
            .get(start * typesize..(start + n) * typesize)
            .ok_or(ErrorKind::Failure)?;
        if typesize == 4 {
            for b in row.chunks_exact(4) {
                sum32 += f32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
            }
        } else {
            for b in row.chunks_exact(8) {
                let a: [u8; 8] = b.try_into().map_err(|_| ErrorKind::Failure)?;
                sum64 += f64::from_ne_bytes(a);
            }
        }
        count += n;
        Ok(())
    })?;
    if cur.is_some() {
        flush(count, sum32, sum64, &mut op)?;
    }
    if op != len {
        trace!("Output size must be equal to input size");
        return Err(ErrorKind::Failure);
    }
    Ok(())
}

/// Put the cells of means back in place.
pub fn backward(
    meta: u8,
    g: &NdGeometry,
    typesize: usize,
    input: &[u8],
    output: &mut [u8],
) -> Result<()> {
    let len = input.len();
    let block = block_dims(g, typesize, len)?;
    let cells = cellshape(meta, &block, len, typesize)?;
    scatter(&block, &cells, cells[0], typesize, input, output)
}

/// The registered-filter face of NDMEAN: geometry from the super-chunk.
pub(crate) fn run(
    forward_dir: bool,
    input: &[u8],
    output: &mut [u8],
    meta: u8,
    ctx: &PluginContext,
) -> Result<()> {
    let g = geometry_of(ctx)?;
    let ts = plugin_typesize(forward_dir, ctx)?;
    if forward_dir {
        forward(meta, &g, ts, input, output)
    } else {
        backward(meta, &g, ts, input, output)
    }
}

#[cfg(test)]
mod tests {
    use super::super::ndcell::{parse_b2nd_geometry, tests::b2nd_meta};
    use super::*;

    fn geom(block: &[i32]) -> NdGeometry {
        parse_b2nd_geometry(&b2nd_meta(&[100, 100, 100][..block.len()], block, block)).unwrap()
    }

    #[test]
    fn means_of_cells_f64() {
        let g = geom(&[4, 4]);
        let vals: Vec<f64> = (0..16).map(|i| i as f64).collect();
        let input: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut out = vec![0u8; input.len()];
        forward(2, &g, 8, &input, &mut out).unwrap();
        let got: Vec<f64> = out
            .chunks_exact(8)
            .map(|b| f64::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        // cell (0,0) = {0,1,4,5}, (0,1) = {2,3,6,7}, ...
        let expect = [2.5, 4.5, 10.5, 12.5];
        for (c, m) in expect.iter().enumerate() {
            assert!(got[c * 4..c * 4 + 4].iter().all(|v| v == m), "{got:?}");
        }
        let mut back = vec![0u8; input.len()];
        backward(2, &g, 8, &out, &mut back).unwrap();
        let back: Vec<f64> = back
            .chunks_exact(8)
            .map(|b| f64::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(back[0], 2.5);
        assert_eq!(back[5], 2.5);
        assert_eq!(back[15], 12.5);
    }

    #[test]
    fn float32_ragged_cells() {
        let g = geom(&[5, 3, 7]);
        let n = 5 * 3 * 7;
        let vals: Vec<f32> = (0..n).map(|i| (i % 11) as f32 * 0.5).collect();
        let input: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut out = vec![0u8; input.len()];
        forward(3, &g, 4, &input, &mut out).unwrap();
        let mut back = vec![0u8; input.len()];
        backward(3, &g, 4, &out, &mut back).unwrap();
        // applying the filter to its own output changes nothing (up to the
        // rounding of summing equal values)
        let mut again = vec![0u8; input.len()];
        forward(3, &g, 4, &back, &mut again).unwrap();
        let f = |b: &[u8]| -> Vec<f32> {
            b.chunks_exact(4)
                .map(|x| f32::from_ne_bytes(x.try_into().unwrap()))
                .collect()
        };
        for (a, b) in f(&again).iter().zip(f(&out)) {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} {b}");
        }
    }

    #[test]
    fn rejects() {
        let g = geom(&[4, 4]);
        let mut out = vec![0u8; 32];
        assert!(forward(2, &g, 2, &[0u8; 32], &mut out).is_err());
        assert!(forward(0, &g, 2, &[0u8; 32], &mut out).is_err());
        assert!(forward(200, &g, 4, &[0u8; 64], &mut [0u8; 64]).is_err());
    }
}
