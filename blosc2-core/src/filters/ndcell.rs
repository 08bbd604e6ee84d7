//! NDCELL (filter id 32): reorders a b2nd block so that the items of each
//! hypercubic cell (side `filters_meta`) are contiguous, cells in C order and
//! the items of a cell in C order too. Cells cut by the block's edge keep
//! only their valid part. Codecs then see neighbourhoods rather than rows.
//!
//! The geometry comes from the super-chunk's `b2nd` metalayer, as in
//! C-Blosc2: a block must be exactly `prod(blockshape) * typesize` bytes.
//!
//! Also home of the pieces the other b2nd plugins share: reading the block
//! geometry from the metalayer and walking a block cell by cell.

use crate::error::{ErrorKind, Result};
use crate::registry::PluginContext;

/// Filter id (`BLOSC_FILTER_NDCELL`).
pub const ID: u8 = 32;
/// Most dimensions the b2nd plugins handle (`B2ND_MAX_DIM`).
pub const MAX_DIM: usize = 8;

macro_rules! trace {
    ($($arg:tt)*) => {
        crate::trace_error!($($arg)*)
    };
}
pub(crate) use trace;

/// The part of the `b2nd` metalayer the plugins need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NdGeometry {
    pub shape: Vec<i64>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
}

/// Read ndim, shape, chunkshape and blockshape of a `b2nd` metalayer. Like
/// upstream's reader it trusts the layout (a 7-array of version, ndim and
/// three arrays of fixed-width big-endian integers) and only checks that
/// the bytes are there and ndim is in range.
pub fn parse_b2nd_geometry(meta: &[u8]) -> Result<NdGeometry> {
    let need = |pos: usize, n: usize| -> Result<()> {
        if meta.len() < pos || meta.len() - pos < n {
            trace!("Malformed b2nd metalayer: truncated metadata");
            return Err(ErrorKind::Failure);
        }
        Ok(())
    };
    // array marker, version
    need(0, 3)?;
    let ndim = meta[2] as i8;
    if !(0..=MAX_DIM as i8).contains(&ndim) {
        trace!("ndim {ndim} is out of range");
        return Err(ErrorKind::Failure);
    }
    let ndim = ndim as usize;
    let mut pos = 3;
    let mut g = NdGeometry {
        shape: Vec::with_capacity(ndim),
        chunkshape: Vec::with_capacity(ndim),
        blockshape: Vec::with_capacity(ndim),
    };
    need(pos, 1)?;
    pos += 1;
    for _ in 0..ndim {
        need(pos, 9)?;
        let b: [u8; 8] = meta[pos + 1..pos + 9]
            .try_into()
            .map_err(|_| ErrorKind::Failure)?;
        g.shape.push(i64::from_be_bytes(b));
        pos += 9;
    }
    for out in [&mut g.chunkshape, &mut g.blockshape] {
        need(pos, 1)?;
        pos += 1;
        for _ in 0..ndim {
            need(pos, 5)?;
            let b: [u8; 4] = meta[pos + 1..pos + 5]
                .try_into()
                .map_err(|_| ErrorKind::Failure)?;
            out.push(i32::from_be_bytes(b));
            pos += 5;
        }
    }
    Ok(g)
}

/// The b2nd geometry of the super-chunk a plugin runs for.
pub fn geometry_of(ctx: &PluginContext) -> Result<NdGeometry> {
    let Some(meta) = ctx.schunk.and_then(|s| s.meta("b2nd")) else {
        trace!("b2nd layer not found!");
        return Err(ErrorKind::Failure);
    };
    parse_b2nd_geometry(meta)
}

/// Check the block geometry against a block of `len` bytes the way the
/// reference filters do: 1..=8 dims, positive block dimensions whose items
/// make exactly `len` bytes. Returns the block shape as usizes.
pub(crate) fn block_dims(g: &NdGeometry, typesize: usize, len: usize) -> Result<Vec<usize>> {
    let ndim = g.blockshape.len();
    if ndim == 0 || ndim > MAX_DIM {
        trace!("ndim {ndim} is out of range");
        return Err(ErrorKind::Failure);
    }
    if typesize == 0 {
        trace!("Invalid typesize {typesize}");
        return Err(ErrorKind::Failure);
    }
    let mut size = typesize as u64;
    let mut dims = Vec::with_capacity(ndim);
    for (i, &b) in g.blockshape.iter().enumerate() {
        if b <= 0 {
            trace!("Invalid blockshape[{i}] = {b}");
            return Err(ErrorKind::Failure);
        }
        size *= b as u64;
        if size > len as u64 {
            trace!("blockshape too large for block of {len} bytes");
            return Err(ErrorKind::Failure);
        }
        dims.push(b as usize);
    }
    if size != len as u64 {
        trace!("Length not equal to blocksize {len} {size}");
        return Err(ErrorKind::Failure);
    }
    Ok(dims)
}

/// Walk a block cell by cell, cells in C order. For each cell, `f` gets the
/// cell's index and then, in C order, each row of it: the item index where
/// the row starts in the block and its length in items.
///
/// `cellshape` is the cell side per dimension; a cell's origin is computed
/// with `origin_side` for every dimension (NDCELL: the cell side; NDMEAN
/// uses its first dimension's side everywhere, as the reference does).
pub(crate) fn for_each_cell_row(
    block: &[usize],
    cellshape: &[usize],
    origin_side: usize,
    mut f: impl FnMut(usize, usize, usize) -> Result<()>,
) -> Result<()> {
    let ndim = block.len();
    let grid: Vec<usize> = (0..ndim).map(|i| block[i].div_ceil(cellshape[i])).collect();
    let ncells: usize = grid.iter().product();
    // item strides of the block
    let mut stride = vec![1usize; ndim];
    for i in (0..ndim.saturating_sub(1)).rev() {
        stride[i] = stride[i + 1] * block[i + 1];
    }
    let mut cell = vec![0usize; ndim];
    let mut pad = vec![0usize; ndim];
    let mut row = vec![0usize; ndim];
    for ci in 0..ncells {
        unravel(ci, &grid, &mut cell);
        let mut orig = 0usize;
        for i in 0..ndim {
            orig += cell[i] * origin_side * stride[i];
            pad[i] = if !block[i].is_multiple_of(cellshape[i]) && cell[i] == grid[i] - 1 {
                block[i] % cellshape[i]
            } else {
                cellshape[i]
            };
        }
        let nrows: usize = pad[..ndim - 1].iter().product();
        for ri in 0..nrows {
            unravel(ri, &pad[..ndim - 1], &mut row[..ndim - 1]);
            let start = orig + (0..ndim - 1).map(|i| row[i] * stride[i]).sum::<usize>();
            f(ci, start, pad[ndim - 1])?;
        }
    }
    Ok(())
}

/// C-order coordinates of flat index `i` in `shape`.
fn unravel(mut i: usize, shape: &[usize], out: &mut [usize]) {
    for d in (0..shape.len()).rev() {
        out[d] = i % shape[d];
        i /= shape[d];
    }
}

/// The cell side for NDCELL's `meta`, checking that a cell fits the block.
fn cell_side(meta: u8, ndim: usize, len: usize, typesize: usize) -> Result<usize> {
    if meta == 0 {
        trace!("Invalid cell_shape {meta}");
        return Err(ErrorKind::Failure);
    }
    let cell_items = (meta as u64).checked_pow(ndim as u32);
    match cell_items {
        Some(n) if n <= (len / typesize) as u64 => Ok(meta as usize),
        _ => {
            trace!("input or output buffer cannot be smaller than cell size");
            Err(ErrorKind::Failure)
        }
    }
}

/// Gather each cell's items together (compression side).
pub fn forward(
    meta: u8,
    g: &NdGeometry,
    typesize: usize,
    input: &[u8],
    output: &mut [u8],
) -> Result<()> {
    let len = input.len();
    let block = block_dims(g, typesize, len)?;
    let side = cell_side(meta, block.len(), len, typesize)?;
    let cells = vec![side; block.len()];
    let mut op = 0usize;
    for_each_cell_row(&block, &cells, side, |_, start, n| {
        let (a, b) = (start * typesize, (start + n) * typesize);
        let src = input.get(a..b).ok_or(ErrorKind::Failure)?;
        output
            .get_mut(op..op + src.len())
            .ok_or(ErrorKind::Failure)?
            .copy_from_slice(src);
        op += src.len();
        Ok(())
    })?;
    if op != len {
        trace!("Output size must be equal to input size");
        return Err(ErrorKind::Failure);
    }
    Ok(())
}

/// Put each cell's items back in place (decompression side).
pub fn backward(
    meta: u8,
    g: &NdGeometry,
    typesize: usize,
    input: &[u8],
    output: &mut [u8],
) -> Result<()> {
    let len = input.len();
    let block = block_dims(g, typesize, len)?;
    let side = cell_side(meta, block.len(), len, typesize)?;
    let cells = vec![side; block.len()];
    scatter(&block, &cells, side, typesize, input, output)
}

/// Inverse of the cell gather: copy consecutive rows of `input` to their
/// places in `output`.
pub(crate) fn scatter(
    block: &[usize],
    cells: &[usize],
    origin_side: usize,
    typesize: usize,
    input: &[u8],
    output: &mut [u8],
) -> Result<()> {
    let mut ip = 0usize;
    let mut end = 0usize;
    for_each_cell_row(block, cells, origin_side, |_, start, n| {
        let nb = n * typesize;
        let src = input.get(ip..ip + nb).ok_or(ErrorKind::Failure)?;
        output
            .get_mut(start * typesize..start * typesize + nb)
            .ok_or(ErrorKind::Failure)?
            .copy_from_slice(src);
        ip += nb;
        end = start + n;
        Ok(())
    })?;
    // The last row written must end the block; the reference checks this,
    // and it fails for NDMEAN cells whose origins overlap (see ndmean.rs).
    if end != block.iter().product::<usize>() {
        trace!("Output size is not compatible with embedded blockshape");
        return Err(ErrorKind::Failure);
    }
    Ok(())
}

/// The item size the b2nd filters work with: the chunk's when encoding,
/// the super-chunk's when decoding (as upstream's plugins read it).
pub(crate) fn plugin_typesize(forward_dir: bool, ctx: &PluginContext) -> Result<usize> {
    let ts = if forward_dir {
        ctx.typesize
    } else {
        ctx.schunk.map_or(ctx.typesize, |s| s.typesize)
    };
    usize::try_from(ts).map_err(|_| ErrorKind::Failure)
}

/// The registered-filter face of NDCELL: geometry from the super-chunk.
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
pub(crate) mod tests {
    use super::*;

    /// A `b2nd` metalayer as upstream serializes it (dtype omitted).
    pub(crate) fn b2nd_meta(shape: &[i64], chunk: &[i32], block: &[i32]) -> Vec<u8> {
        let n = shape.len() as u8;
        let mut m = vec![0x97, 0, n, 0x90 | n];
        for &s in shape {
            m.push(0xd3);
            m.extend_from_slice(&s.to_be_bytes());
        }
        for arr in [chunk, block] {
            m.push(0x90 | n);
            for &s in arr {
                m.push(0xd2);
                m.extend_from_slice(&s.to_be_bytes());
            }
        }
        m.extend_from_slice(&[0, 0xdb, 0, 0, 0, 3, b'|', b'u', b'1']);
        m
    }

    fn geom(block: &[i32]) -> NdGeometry {
        let shape: Vec<i64> = block.iter().map(|&b| b as i64 * 2).collect();
        parse_b2nd_geometry(&b2nd_meta(&shape, block, block)).unwrap()
    }

    #[test]
    fn parses_meta() {
        let g = parse_b2nd_geometry(&b2nd_meta(&[10, 20, 30], &[5, 6, 7], &[2, 3, 4])).unwrap();
        assert_eq!(g.shape, vec![10, 20, 30]);
        assert_eq!(g.chunkshape, vec![5, 6, 7]);
        assert_eq!(g.blockshape, vec![2, 3, 4]);
        let m = b2nd_meta(&[10, 20], &[5, 6], &[2, 3]);
        for cut in 0..m.len() - 9 {
            assert!(parse_b2nd_geometry(&m[..cut]).is_err(), "cut {cut}");
        }
        let mut bad = m.clone();
        bad[2] = 9;
        assert!(parse_b2nd_geometry(&bad).is_err());
    }

    #[test]
    fn forward_2d_layout() {
        // 3x5 block of u8, cells of 2: cells (0,0) (0,1) (0,2) (1,0) ...
        let g = geom(&[3, 5]);
        let input: Vec<u8> = (0..15).collect();
        let mut out = vec![0u8; 15];
        forward(2, &g, 1, &input, &mut out).unwrap();
        assert_eq!(out, vec![0, 1, 5, 6, 2, 3, 7, 8, 4, 9, 10, 11, 12, 13, 14]);
        let mut back = vec![0u8; 15];
        backward(2, &g, 1, &out, &mut back).unwrap();
        assert_eq!(back, input);
    }

    #[test]
    fn roundtrip_nd() {
        for (block, ts, cell) in [
            (vec![4, 4, 4], 4usize, 2u8),
            (vec![5, 3, 7], 2, 3),
            (vec![9], 8, 4),
            (vec![2, 3, 2, 3, 2], 1, 2),
            (vec![7, 6], 8, 1),
            (vec![1, 1, 1, 1, 1, 1, 1, 2], 4, 1),
        ] {
            let g = geom(&block);
            let n: usize = block.iter().map(|&b| b as usize).product::<usize>() * ts;
            let input: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            let mut out = vec![0u8; n];
            forward(cell, &g, ts, &input, &mut out).unwrap();
            let mut back = vec![0u8; n];
            backward(cell, &g, ts, &out, &mut back).unwrap();
            assert_eq!(back, input, "{block:?}");
        }
    }

    /// The plugins through the chunk pipeline of a b2nd array: whole reads,
    /// partial reads (single blocks decoded) and NDMEAN's lossy means.
    #[test]
    fn plugins_in_b2nd_arrays() {
        use crate::b2nd::{Array, Params};
        use crate::chunk::header::filter_id;
        use crate::chunk::CParams;
        use crate::schunk::Storage;
        let shape = [37i64, 45];
        let p = Params::new(&shape, &[20, 24], &[8, 8]);
        // (compcode, compcode_meta, filter, filter_meta, typesize)
        for (cc, cm, f, fm, ts) in [
            (5u8, 0u8, ID, 3u8, 4i32),
            (32, 4, 0, 0, 1),
            (32, 8, ID, 4, 1),
            (1, 0, super::super::ndmean::ID, 2, 8),
            (0, 0, ID, 2, 2),
        ] {
            let mut filters = [0u8; 6];
            let mut filters_meta = [0u8; 6];
            filters[0] = f;
            filters_meta[0] = fm;
            filters[5] = if ts > 1 { filter_id::SHUFFLE } else { 0 };
            let st = Storage {
                contiguous: true,
                cparams: CParams {
                    compcode: cc,
                    compcode_meta: cm,
                    typesize: ts,
                    filters,
                    filters_meta,
                    ..CParams::default()
                },
                ..Storage::default()
            };
            let n = 37 * 45 * ts as usize;
            let src: Vec<u8> = (0..n)
                .map(|i| {
                    let item = i / ts as usize;
                    ((item / 45 / 3 + item % 45 / 5) % 7) as u8 * (i % ts as usize == 0) as u8
                })
                .collect();
            let a = Array::from_cbuffer(st, &p, &src).unwrap();
            let mut all = vec![0u8; n];
            a.to_cbuffer(&mut all).unwrap();
            let lossy = f == super::super::ndmean::ID;
            if !lossy {
                assert_eq!(all, src, "codec {cc}/{cm} filter {f}/{fm}");
            }
            let t = ts as usize;
            let mut part = vec![0u8; 8 * 11 * t];
            a.get_slice_cbuffer(&[3, 9], &[11, 20], &mut part, &[8, 11])
                .unwrap();
            for i in 0..8 {
                for j in 0..11 {
                    let at = ((3 + i) * 45 + 9 + j) * t;
                    assert_eq!(&part[(i * 11 + j) * t..][..t], &all[at..at + t]);
                }
            }
            // item by item (single-item reads of blocks) and by selection
            let coords = [0i64, 100, 1664, 777];
            let mut sp = vec![0u8; coords.len() * t];
            a.get_sparse_cbuffer(&coords, &mut sp).unwrap();
            for (k, &c) in coords.iter().enumerate() {
                assert_eq!(&sp[k * t..(k + 1) * t], &all[c as usize * t..][..t]);
            }
            let (rows, cols) = ([36i64, 0, 17], [44i64, 3]);
            let mut sel = vec![0u8; 6 * t];
            a.get_orthogonal_selection(&[&rows, &cols], &mut sel, &[3, 2])
                .unwrap();
            for (i, &r) in rows.iter().enumerate() {
                for (j, &c) in cols.iter().enumerate() {
                    let at = (r * 45 + c) as usize * t;
                    assert_eq!(&sel[(i * 2 + j) * t..][..t], &all[at..at + t]);
                }
            }
        }
    }

    #[test]
    fn rejects_bad_geometry() {
        let g = geom(&[4, 4]);
        let mut out = vec![0u8; 64];
        assert!(forward(2, &g, 4, &[0u8; 60], &mut out[..60]).is_err());
        assert!(forward(0, &g, 4, &[0u8; 64], &mut out).is_err());
        assert!(forward(5, &g, 4, &[0u8; 64], &mut out).is_err());
        assert!(backward(2, &g, 0, &[0u8; 64], &mut out).is_err());
    }
}
