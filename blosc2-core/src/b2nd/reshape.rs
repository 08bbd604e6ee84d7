//! Shape changes: resize, insert, append, delete, concatenate (which keep
//! the chunk grid and move whole chunks), and squeeze / expand_dims (which
//! give a new in-memory array over the same items).
//!
//! Growing and shrinking work on whole chunks, as in the reference: a
//! resize inserts zero chunks (special, nothing stored) or deletes chunks
//! where the chunk grid gains or loses positions. So changes away from the
//! end of an axis must be chunk aligned, and a shrink that cuts a chunk
//! keeps the cut items in that chunk's padding, where a later growth finds
//! them again (the reference behaves the same).

use super::array::{Array, Fill, Params, META_NAME};
use super::geometry::unravel;
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::special::make_special;
use crate::chunk::{CParams, Special};
use crate::error::{ErrorKind, Result};
use crate::schunk::{Storage, SuperChunk};
use std::borrow::{Borrow, BorrowMut};

/// Whether chunk `k` (grid coordinates, chunk sides `cs`) starts inside the
/// range `start .. start + len` along some dimension.
fn chunk_in_range(k: &[i64], cs: &[i32], start: &[i64], len: &[i64]) -> bool {
    (0..k.len()).any(|j| {
        let pos = cs[j] as i64 * k[j];
        start[j] <= pos && pos < start[j] + len[j]
    })
}

fn check_axis(axis: i32, ndim: usize) -> Result<usize> {
    usize::try_from(axis)
        .ok()
        .filter(|&a| a < ndim)
        .ok_or(ErrorKind::InvalidParam)
}

impl<S: BorrowMut<SuperChunk>> Array<S> {
    /// A compressed chunk of zeros for this array (a special chunk).
    fn zero_chunk(&self) -> Result<Vec<u8>> {
        let sc = self.schunk();
        let cp = CParams {
            blocksize: sc.blocksize,
            ..sc.cparams().clone()
        };
        let nbytes = self.geom.chunk_nbytes(self.typesize())?;
        let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
        let n = make_special(&cp, Special::Zero, nbytes as i32, None, &mut c)?;
        c.truncate(n);
        Ok(c)
    }

    /// Change the shape (`b2nd_resize`). With `start`, items are added or
    /// removed at `start` along each changing axis (chunk aligned unless at
    /// the end); without, at the end. New items read as zeros, except those
    /// that fall in the padding of a chunk that already existed.
    pub fn resize(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        let nd = self.ndim();
        if new_shape.len() != nd || start.is_some_and(|s| s.len() != nd) {
            return Err(ErrorKind::InvalidParam);
        }
        if new_shape.iter().any(|&s| s < 0) {
            return Err(ErrorKind::InvalidParam);
        }
        let shape = self.shape().to_vec();
        let cs = self.chunkshape().to_vec();
        if let Some(st) = start {
            for i in 0..nd {
                if st[i] < 0 || st[i] > shape[i] {
                    return Err(ErrorKind::InvalidParam);
                }
                let grows_inside = new_shape[i] > shape[i] && st[i] != shape[i];
                let shrinks_inside =
                    new_shape[i] < shape[i] && st[i] + shape[i] - new_shape[i] != shape[i];
                if grows_inside || shrinks_inside {
                    // only the last chunk of an axis may be cut
                    let c = cs[i] as i64;
                    if c == 0 || st[i] % c != 0 || (new_shape[i] - shape[i]) % c != 0 {
                        return Err(ErrorKind::InvalidParam);
                    }
                }
            }
        }
        let shrunk: Vec<i64> = (0..nd).map(|i| new_shape[i].min(shape[i])).collect();
        self.shrink(&shrunk, start)?;
        self.extend(new_shape, start)
    }

    fn shrink(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        let old = self.geom.clone();
        if new_shape == old.shape() {
            return Ok(());
        }
        let cs = self.chunkshape().to_vec();
        let bs = self.blockshape().to_vec();
        // the smaller shape goes out first so no reader sees missing chunks
        self.update_shape(new_shape, &cs, &bs)?;
        let start = start.unwrap_or(new_shape);
        let removed: Vec<i64> = (0..old.ndim).map(|i| old.shape[i] - new_shape[i]).collect();
        let grid = old.chunks_in_array();
        let mut k = vec![0i64; old.ndim];
        for n in (0..self.schunk().nchunks()).rev() {
            unravel(n, &grid, &mut k);
            if chunk_in_range(&k, &cs, start, &removed) {
                self.schunk_mut().delete_chunk(n)?;
            }
        }
        Ok(())
    }

    fn extend(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        let old_shape = self.shape().to_vec();
        if new_shape == old_shape {
            return Ok(());
        }
        let cs = self.chunkshape().to_vec();
        let bs = self.blockshape().to_vec();
        // the chunks go in before the larger shape is published
        self.update_geometry(new_shape, &cs, &bs)?;
        let nchunks = self.geom.nchunks();
        if nchunks != self.schunk().nchunks() {
            let start = start.unwrap_or(&old_shape);
            let added: Vec<i64> = (0..old_shape.len())
                .map(|i| new_shape[i] - old_shape[i])
                .collect();
            let grid = self.geom.chunks_in_array();
            let zero = self.zero_chunk()?;
            let mut k = vec![0i64; grid.len()];
            for n in 0..nchunks {
                unravel(n, &grid, &mut k);
                if chunk_in_range(&k, &cs, start, &added) {
                    self.schunk_mut().insert_chunk(n, &zero)?;
                }
            }
        }
        self.publish_meta()
    }

    /// Insert the C-order items of `buf` at `at` along `axis`
    /// (`b2nd_insert`); `buf` holds whole slabs of the other dimensions.
    pub fn insert(&mut self, buf: &[u8], axis: i32, at: i64) -> Result<()> {
        let axis = check_axis(axis, self.ndim())?;
        let shape = self.shape().to_vec();
        let mut slab = self.typesize() as i64;
        for (i, &s) in shape.iter().enumerate() {
            if i != axis {
                slab = slab.checked_mul(s).ok_or(ErrorKind::InvalidParam)?;
            }
        }
        if slab <= 0 || buf.len() as i64 % slab != 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let added = buf.len() as i64 / slab;
        let mut new_shape = shape.clone();
        new_shape[axis] += added;
        let mut start = vec![0i64; shape.len()];
        start[axis] = at;
        if at == shape[axis] {
            self.resize(&new_shape, None)?;
        } else {
            self.resize(&new_shape, Some(&start))?;
        }
        let mut bufshape = new_shape.clone();
        bufshape[axis] = added;
        let mut stop = new_shape;
        stop[axis] = at + added;
        self.set_slice_cbuffer(buf, &bufshape, &start, &stop)
    }

    /// Append the C-order items of `buf` at the end of `axis`
    /// (`b2nd_append`). A buffer that is exactly one whole chunk of the
    /// first axis becomes a chunk as it is (the reference's fast path).
    pub fn append(&mut self, buf: &[u8], axis: i32) -> Result<()> {
        let ax = check_axis(axis, self.ndim())?;
        let g = &self.geom;
        let nd = g.ndim;
        // The fast path is taken only where it equals the general one: a
        // chunk is then a whole, unpadded slab in C order.
        let whole_slab = ax == 0
            && g.shape[0] % g.chunkshape[0] as i64 == 0
            && g.extchunkshape[0] == g.chunkshape[0] as i64
            && (1..nd).all(|i| {
                g.chunkshape[i] == g.blockshape[i] && g.shape[i] == g.chunkshape[i] as i64
            })
            && buf.len() as i64 == g.extchunknitems * self.typesize() as i64;
        if !whole_slab {
            let end = self.shape()[ax];
            return self.insert(buf, axis, end);
        }
        let mut new_shape = self.shape().to_vec();
        new_shape[0] += self.chunkshape()[0] as i64;
        self.schunk_mut().append_buffer(buf)?;
        self.resize(&new_shape, None)
    }

    /// Remove `len` items at `at` along `axis` (`b2nd_delete`).
    pub fn delete(&mut self, axis: i32, at: i64, len: i64) -> Result<()> {
        let axis = check_axis(axis, self.ndim())?;
        let shape = self.shape().to_vec();
        if at < 0 || len < 0 || at.checked_add(len).is_none_or(|e| e > shape[axis]) {
            return Err(ErrorKind::InvalidParam);
        }
        let mut new_shape = shape.clone();
        new_shape[axis] -= len;
        if at == shape[axis] - len {
            self.resize(&new_shape, None)
        } else {
            let mut start = vec![0i64; shape.len()];
            start[axis] = at;
            self.resize(&new_shape, Some(&start))
        }
    }

    /// Append `other` to this array along `axis` (`b2nd_concatenate` with
    /// `copy = false`). The other dimensions must match.
    pub fn concatenate_in_place<T: Borrow<SuperChunk>>(
        &mut self,
        other: &Array<T>,
        axis: i32,
    ) -> Result<()> {
        let ax = check_concat(
            self.shape(),
            self.typesize(),
            other.shape(),
            other.typesize(),
            axis,
        )?;
        let old = self.shape().to_vec();
        let mut new_shape = old.clone();
        new_shape[ax] += other.shape()[ax];
        self.resize(&new_shape, None)?;
        let og = other.geometry();
        // Chunks line up one for one when both arrays cut the same way and
        // this one ended on a chunk boundary: copy them compressed.
        let aligned = other.chunkshape() == self.chunkshape()
            && other.blockshape() == self.blockshape()
            && old[ax] % self.chunkshape()[ax] as i64 == 0
            && other.typesize() == self.typesize();
        let grid = og.chunks_in_array();
        let dgrid = self.geom.chunks_in_array();
        let nd = og.ndim;
        let mut k = vec![0i64; nd];
        let ts = self.typesize() as usize;
        let mut buf = Vec::new();
        for n in 0..og.nchunks() {
            unravel(n, &grid, &mut k);
            if aligned {
                k[ax] += old[ax] / self.chunkshape()[ax] as i64;
                let dn = (0..nd).fold(0i64, |acc, i| acc * dgrid[i] + k[i]);
                let c = other.schunk().chunk(n)?.into_owned();
                self.schunk_mut().update_chunk(dn, &c)?;
                continue;
            }
            let start: Vec<i64> = (0..nd).map(|i| k[i] * og.chunkshape[i] as i64).collect();
            let stop: Vec<i64> = (0..nd)
                .map(|i| (start[i] + og.chunkshape[i] as i64).min(og.shape[i]))
                .collect();
            let shape: Vec<i64> = (0..nd).map(|i| stop[i] - start[i]).collect();
            buf.resize(shape.iter().product::<i64>() as usize * ts, 0);
            other.get_slice_cbuffer(&start, &stop, &mut buf, &shape)?;
            let mut dstart = start;
            let mut dstop = stop;
            dstart[ax] += old[ax];
            dstop[ax] += old[ax];
            self.set_slice_cbuffer(&buf, &shape, &dstart, &dstop)?;
        }
        Ok(())
    }
}

/// The concatenation axis, after checking that arrays of these shapes and
/// item sizes can be joined on it.
pub fn check_concat(
    shape: &[i64],
    typesize: i32,
    other_shape: &[i64],
    other_typesize: i32,
    axis: i32,
) -> Result<usize> {
    let nd = shape.len();
    let ax = check_axis(axis, nd)?;
    if other_typesize != typesize || nd == 0 || other_shape.len() != nd {
        return Err(ErrorKind::InvalidParam);
    }
    if (0..nd).any(|i| i != ax && shape[i] != other_shape[i]) {
        return Err(ErrorKind::InvalidParam);
    }
    Ok(ax)
}

impl<S: Borrow<SuperChunk>> Array<S> {
    /// A new array in `storage` (chunked as given) holding this array
    /// followed by `other` along `axis` (`b2nd_concatenate`, `copy = true`).
    pub fn concatenate<T: Borrow<SuperChunk>>(
        &self,
        other: &Array<T>,
        axis: i32,
        storage: Storage,
        chunkshape: &[i32],
        blockshape: &[i32],
    ) -> Result<Array> {
        check_concat(
            self.shape(),
            self.typesize(),
            other.shape(),
            other.typesize(),
            axis,
        )?;
        let mut out = self.copy(storage, chunkshape, blockshape)?;
        out.concatenate_in_place(other, axis)?;
        Ok(out)
    }

    /// The array without the size-1 dimensions flagged in `index`, as a new
    /// in-memory array (`b2nd_squeeze_index`).
    pub fn squeeze_index(&self, index: &[bool]) -> Result<Array> {
        let (params, same_layout) = self.squeeze_params(index)?;
        self.reshaped(&params, same_layout)
    }

    /// The array without its size-1 dimensions (`b2nd_squeeze`).
    pub fn squeeze(&self) -> Result<Array> {
        self.squeeze_index(&self.squeeze_all())
    }

    /// The flags of `squeeze`: every dimension of size 1.
    pub fn squeeze_all(&self) -> Vec<bool> {
        self.shape().iter().map(|&s| s == 1).collect()
    }

    /// The array with new size-1 dimensions where `axis` is true; `axis`
    /// has one flag per dimension of the result (`b2nd_expand_dims`).
    pub fn expand_dims(&self, axis: &[bool]) -> Result<Array> {
        let (params, same_layout) = self.expand_params(axis)?;
        self.reshaped(&params, same_layout)
    }

    /// Geometry of a squeeze, and whether the items keep their storage
    /// order (the dropped dimensions are cut in chunks and blocks of one).
    pub fn squeeze_params(&self, index: &[bool]) -> Result<(Params, bool)> {
        let nd = self.ndim();
        if index.len() < nd {
            return Err(ErrorKind::InvalidParam);
        }
        self.only_b2nd_meta()?;
        let (mut shape, mut cs, mut bs) = (Vec::new(), Vec::new(), Vec::new());
        let mut same_layout = true;
        for (i, &squeezed) in index.iter().enumerate().take(nd) {
            if squeezed {
                if self.shape()[i] != 1 {
                    return Err(ErrorKind::InvalidIndex);
                }
                same_layout &= self.chunkshape()[i] == 1 && self.blockshape()[i] == 1;
            } else {
                shape.push(self.shape()[i]);
                cs.push(self.chunkshape()[i]);
                bs.push(self.blockshape()[i]);
            }
        }
        Ok((self.params_like(&shape, &cs, &bs), same_layout))
    }

    /// Geometry of an expand_dims (the storage order never changes: new
    /// dimensions of one item are cut in chunks and blocks of one).
    pub fn expand_params(&self, axis: &[bool]) -> Result<(Params, bool)> {
        self.only_b2nd_meta()?;
        if axis.len() > super::MAX_DIM {
            return Err(ErrorKind::InvalidParam);
        }
        let (mut shape, mut cs, mut bs) = (Vec::new(), Vec::new(), Vec::new());
        let mut old = 0;
        for &new_axis in axis {
            if new_axis {
                shape.push(1);
                cs.push(1);
                bs.push(1);
            } else {
                if old == self.ndim() {
                    return Err(ErrorKind::InvalidParam);
                }
                shape.push(self.shape()[old]);
                cs.push(self.chunkshape()[old]);
                bs.push(self.blockshape()[old]);
                old += 1;
            }
        }
        if old != self.ndim() {
            // the reference would silently drop the remaining dimensions
            return Err(ErrorKind::InvalidParam);
        }
        Ok((self.params_like(&shape, &cs, &bs), true))
    }

    fn params_like(&self, shape: &[i64], cs: &[i32], bs: &[i32]) -> Params {
        let mut params = Params::new(shape, cs, bs);
        params.dtype = self.dtype.clone();
        params.dtype_format = self.dtype_format;
        params
    }

    /// Squeeze and expand refuse arrays with other metalayers, as the
    /// reference does.
    fn only_b2nd_meta(&self) -> Result<()> {
        if self.schunk().metalayers.iter().any(|m| m.name != META_NAME) {
            return Err(ErrorKind::InvalidParam);
        }
        Ok(())
    }

    /// A new in-memory array of the same items with the geometry `params`.
    fn reshaped(&self, params: &Params, same_layout: bool) -> Result<Array> {
        let src = self.schunk();
        let storage = Storage {
            contiguous: false,
            urlpath: None,
            cparams: src.cparams().clone(),
            dparams: src.dparams().clone(),
            io: src.io(),
        };
        let mut out = Array::create(storage, params, Fill::Zeros)?;
        self.copy_reshaped_into(&mut out, same_layout)?;
        Ok(out)
    }

    /// Fill `dest`, a fresh array of the same items in another geometry,
    /// with this array's items (and vlmetalayers). With `same_layout` the
    /// compressed chunks are taken over as they are.
    pub fn copy_reshaped_into<T: BorrowMut<SuperChunk>>(
        &self,
        dest: &mut Array<T>,
        same_layout: bool,
    ) -> Result<()> {
        if dest.nitems() != self.nitems() || dest.typesize() != self.typesize() {
            return Err(ErrorKind::InvalidParam);
        }
        let src = self.schunk();
        if same_layout && dest.schunk().nchunks() == src.nchunks() {
            for n in 0..src.nchunks() {
                let c = src.chunk(n)?.into_owned();
                dest.schunk_mut().update_chunk(n, &c)?;
            }
        } else {
            let mut items = vec![0u8; self.nbytes()?];
            self.to_cbuffer(&mut items)?;
            dest.fill_from_cbuffer(&items)?;
        }
        dest.schunk_mut().vlmetalayers = src.vlmetalayers.clone();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
