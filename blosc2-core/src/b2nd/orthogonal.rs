//! Selections: an independent list of indices per dimension (orthogonal
//! selection, the items of the Cartesian product of the lists), and a list
//! of flat item indices (sparse gather).
//!
//! Orthogonal selections visit each chunk the selection touches once: the
//! indices of every dimension are sorted and grouped by chunk, and for each
//! combination of groups the chunk is decompressed (and, when writing,
//! recompressed) a single time.

use super::array::Array;
use super::geometry::Geometry;
use crate::error::{ErrorKind, Result};
use crate::schunk::SuperChunk;
use std::borrow::{Borrow, BorrowMut};

/// The selected indices of one dimension that fall in one chunk.
struct Group {
    /// Chunk coordinate along the dimension.
    chunk: i64,
    /// (offset of the item in the chunk's storage along this dimension,
    /// i.e. block part times block stride plus in-block part times item
    /// stride; position in the caller's buffer along this dimension)
    items: Vec<(i64, i64)>,
}

/// Group the (sorted) selection of dimension `d` by chunk.
fn groups(g: &Geometry, d: usize, sel: &[i64], bufstride: i64) -> Result<Vec<Group>> {
    let mut order: Vec<(i64, usize)> = Vec::with_capacity(sel.len());
    for (pos, &v) in sel.iter().enumerate() {
        if v < 0 || v >= g.shape[d] {
            return Err(ErrorKind::InvalidIndex);
        }
        order.push((v, pos));
    }
    order.sort_by_key(|&(v, _)| v);
    let cs = g.chunkshape[d] as i64;
    let bs = g.blockshape[d] as i64;
    let mut out: Vec<Group> = Vec::new();
    for (v, pos) in order {
        let chunk = v / cs;
        let c = v % cs;
        let off = (c / bs) * g.block_chunk_strides[d] * g.blocknitems as i64
            + (c % bs) * g.item_block_strides[d];
        let item = (off, pos as i64 * bufstride);
        match out.last_mut() {
            Some(last) if last.chunk == chunk => last.items.push(item),
            _ => out.push(Group {
                chunk,
                items: vec![item],
            }),
        }
    }
    Ok(out)
}

/// Visit every element of the Cartesian product of `lens`, in C order.
fn for_each_index(lens: &[usize], mut f: impl FnMut(&[usize]) -> Result<()>) -> Result<()> {
    if lens.contains(&0) {
        return Ok(());
    }
    let mut idx = vec![0usize; lens.len()];
    loop {
        f(&idx)?;
        let mut d = lens.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < lens[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// What an orthogonal selection needs: the per-dimension groups and the
/// byte length the caller's buffer must have.
fn plan(
    g: &Geometry,
    ts: usize,
    selection: &[&[i64]],
    bufshape: &[i64],
) -> Result<(Vec<Vec<Group>>, usize)> {
    let nd = g.ndim;
    if selection.len() != nd || bufshape.len() != nd {
        return Err(ErrorKind::InvalidParam);
    }
    let bufstrides = super::geometry::strides(bufshape);
    let mut need: i64 = 1;
    let mut all = Vec::with_capacity(nd);
    for d in 0..nd {
        let n = selection[d].len() as i64;
        if n > bufshape[d] {
            return Err(ErrorKind::InvalidParam);
        }
        if n == 0 {
            need = 0;
        } else if need > 0 {
            need = need
                .checked_add(
                    (n - 1)
                        .checked_mul(bufstrides[d])
                        .ok_or(ErrorKind::InvalidParam)?,
                )
                .ok_or(ErrorKind::InvalidParam)?;
        }
        all.push(groups(g, d, selection[d], bufstrides[d])?);
    }
    let bytes = usize::try_from(need)
        .ok()
        .and_then(|n| n.checked_mul(ts))
        .ok_or(ErrorKind::InvalidParam)?;
    Ok((all, bytes))
}

/// Flat index of chunk `k` in the chunk grid.
fn chunk_index(g: &Geometry, k: &[i64]) -> i64 {
    let grid = g.chunks_in_array();
    k.iter().zip(&grid).fold(0i64, |acc, (&k, &n)| acc * n + k)
}

impl<S: Borrow<SuperChunk>> Array<S> {
    /// Read the items at the Cartesian product of `selection` (one index
    /// list per dimension, any order, repeats allowed) into `buf`, a
    /// C-order buffer shaped `bufshape`: the item of `selection[d][j_d]`
    /// goes to position `(j_0, j_1, ...)` (`b2nd_get_orthogonal_selection`).
    pub fn get_orthogonal_selection(
        &self,
        selection: &[&[i64]],
        buf: &mut [u8],
        bufshape: &[i64],
    ) -> Result<()> {
        let g = &self.geom;
        let ts = self.typesize().max(1) as usize;
        if g.ndim == 0 {
            let out = buf.get_mut(..ts).ok_or(ErrorKind::InvalidParam)?;
            return self.get_slice_cbuffer(&[], &[], out, &[]);
        }
        let (groups, need) = plan(g, ts, selection, bufshape)?;
        if buf.len() < need {
            return Err(ErrorKind::InvalidParam);
        }
        let nbytes = g.chunk_nbytes(ts as i32)?;
        let mut chunk = crate::spare::zeroed(nbytes)?;
        let ngroups: Vec<usize> = groups.iter().map(|v| v.len()).collect();
        for_each_index(&ngroups, |gi| {
            let k: Vec<i64> = (0..g.ndim).map(|d| groups[d][gi[d]].chunk).collect();
            self.schunk()
                .decompress_chunk(chunk_index(g, &k), &mut chunk)?;
            let lens: Vec<usize> = (0..g.ndim).map(|d| groups[d][gi[d]].items.len()).collect();
            for_each_index(&lens, |ii| {
                let (mut src, mut dst) = (0i64, 0i64);
                for d in 0..g.ndim {
                    let (o, p) = groups[d][gi[d]].items[ii[d]];
                    src += o;
                    dst += p;
                }
                let (s, t) = (src as usize * ts, dst as usize * ts);
                buf[t..t + ts].copy_from_slice(&chunk[s..s + ts]);
                Ok(())
            })?;
            self.stats.add(1, 0);
            Ok(())
        })
    }

    /// Gather items by flat C-order indices into `buf`, in the order given
    /// (`b2nd_get_sparse_cbuffer`).
    pub fn get_sparse_cbuffer(&self, coords: &[i64], buf: &mut [u8]) -> Result<()> {
        if coords.is_empty() {
            return Ok(());
        }
        let g = &self.geom;
        let ts = self.typesize().max(1) as usize;
        if buf.len() < coords.len() * ts || g.ndim == 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let grid = g.chunks_in_array();
        let mut idx = vec![0i64; g.ndim];
        let mut storage = Vec::with_capacity(coords.len());
        for &c in coords {
            if c < 0 || c >= g.nitems {
                return Err(ErrorKind::InvalidParam);
            }
            super::geometry::unravel(c, g.shape(), &mut idx);
            let (mut nchunk, mut nblock, mut inblock) = (0i64, 0i64, 0i64);
            for d in 0..g.ndim {
                let cs = g.chunkshape[d] as i64;
                let bs = g.blockshape[d] as i64;
                let inchunk = idx[d] % cs;
                nchunk = nchunk * grid[d] + idx[d] / cs;
                nblock += (inchunk / bs) * g.block_chunk_strides[d];
                inblock += (inchunk % bs) * g.item_block_strides[d];
            }
            storage.push(nchunk * g.extchunknitems + nblock * g.blocknitems as i64 + inblock);
        }
        self.schunk()
            .get_sparse(&storage, &mut buf[..coords.len() * ts])
    }
}

impl<S: BorrowMut<SuperChunk>> Array<S> {
    /// Write the items of `buf` (shaped `bufshape`) at the Cartesian product
    /// of `selection` (`b2nd_set_orthogonal_selection`); with repeated
    /// indices the last one listed wins.
    pub fn set_orthogonal_selection(
        &mut self,
        selection: &[&[i64]],
        buf: &[u8],
        bufshape: &[i64],
    ) -> Result<()> {
        // the chunks it replaces are given back to a frame file once
        self.schunk_mut().begin_batch();
        let r = self.set_orthogonal_inner(selection, buf, bufshape);
        self.schunk_mut().end_batch();
        r
    }

    fn set_orthogonal_inner(
        &mut self,
        selection: &[&[i64]],
        buf: &[u8],
        bufshape: &[i64],
    ) -> Result<()> {
        let g = self.geom.clone();
        let ts = self.typesize().max(1) as usize;
        if g.ndim == 0 {
            let item = buf.get(..ts).ok_or(ErrorKind::InvalidParam)?;
            return self.set_slice_cbuffer(item, &[], &[], &[]);
        }
        let (groups, need) = plan(&g, ts, selection, bufshape)?;
        if buf.len() < need {
            return Err(ErrorKind::InvalidParam);
        }
        let nbytes = g.chunk_nbytes(ts as i32)?;
        let mut chunk = crate::spare::zeroed(nbytes)?;
        let ngroups: Vec<usize> = groups.iter().map(|v| v.len()).collect();
        for_each_index(&ngroups, |gi| {
            let k: Vec<i64> = (0..g.ndim).map(|d| groups[d][gi[d]].chunk).collect();
            let n = chunk_index(&g, &k);
            self.schunk().decompress_chunk(n, &mut chunk)?;
            let lens: Vec<usize> = (0..g.ndim).map(|d| groups[d][gi[d]].items.len()).collect();
            for_each_index(&lens, |ii| {
                let (mut dst, mut src) = (0i64, 0i64);
                for d in 0..g.ndim {
                    let (o, p) = groups[d][gi[d]].items[ii[d]];
                    dst += o;
                    src += p;
                }
                let (s, t) = (src as usize * ts, dst as usize * ts);
                chunk[t..t + ts].copy_from_slice(&buf[s..s + ts]);
                Ok(())
            })?;
            let sc = self.schunk_mut();
            let c = sc.compress_chunk(n, &chunk)?;
            sc.update_chunk(n, &c)?;
            self.stats.add(1, 0);
            Ok(())
        })
    }
}
