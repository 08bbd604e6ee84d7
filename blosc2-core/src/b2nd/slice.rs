//! Reading and writing boxes of items (`b2nd_get_slice_cbuffer`,
//! `b2nd_set_slice_cbuffer`, `b2nd_get_slice`) and the strided N-d copy
//! they are built on (`b2nd_copy_buffer2`).
//!
//! A read visits only the chunks the box overlaps and, in each, only the
//! blocks it overlaps: when those are a small part of the chunk they are
//! decoded by byte range through the super-chunk (which, for frames on
//! disk, also reads only those blocks from the file); otherwise the chunk is
//! decoded once with the other blocks masked out. A write decodes a chunk
//! only when the box does not cover it whole.

use super::array::Array;
use super::geometry::{strides, Geometry};
use super::meta::MAX_DIM;
use crate::chunk::ChunkHeader;
use crate::error::{ErrorKind, Result};
use crate::schunk::SuperChunk;
use std::borrow::{Borrow, BorrowMut};

/// Copy the box `src_start..src_stop` of a C-order buffer shaped
/// `src_pad_shape` into a C-order buffer shaped `dst_pad_shape`, at
/// `dst_start`. With no dimensions, one item is copied. Boxes reaching out
/// of either buffer are `InvalidParam` (nothing is copied then).
#[allow(clippy::too_many_arguments)]
pub fn copy_buffer2(
    itemsize: usize,
    src: &[u8],
    src_pad_shape: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst: &mut [u8],
    dst_pad_shape: &[i64],
    dst_start: &[i64],
) -> Result<()> {
    let nd = src_pad_shape.len();
    if src_start.len() != nd
        || src_stop.len() != nd
        || dst_pad_shape.len() != nd
        || dst_start.len() != nd
    {
        return Err(ErrorKind::InvalidParam);
    }
    if nd == 0 {
        let s = src.get(..itemsize).ok_or(ErrorKind::InvalidParam)?;
        dst.get_mut(..itemsize)
            .ok_or(ErrorKind::InvalidParam)?
            .copy_from_slice(s);
        return Ok(());
    }
    let mut copy = [0i64; MAX_DIM];
    for i in 0..nd {
        copy[i] = src_stop[i]
            .checked_sub(src_start[i])
            .ok_or(ErrorKind::InvalidParam)?;
        if copy[i] < 0 {
            return Err(ErrorKind::InvalidParam);
        }
    }
    if copy[..nd].contains(&0) {
        return Ok(());
    }
    let ss = strides(src_pad_shape);
    let ds = strides(dst_pad_shape);
    let offset = |start: &[i64], st: &[i64]| -> Result<i64> {
        let mut o = 0i64;
        for i in 0..nd {
            o = start[i]
                .checked_mul(st[i])
                .and_then(|v| o.checked_add(v))
                .ok_or(ErrorKind::InvalidParam)?;
        }
        Ok(o)
    };
    let so = offset(src_start, &ss)?;
    let dof = offset(dst_start, &ds)?;
    let is = itemsize as i64;
    let row = copy[nd - 1]
        .checked_mul(is)
        .ok_or(ErrorKind::InvalidParam)? as usize;
    // the last row of the box bounds the whole box (offsets only grow)
    let last = |base: i64, st: &[i64]| -> Option<i64> {
        let mut o = base;
        for i in 0..nd {
            o = o.checked_add((copy[i] - 1).checked_mul(st[i])?)?;
        }
        o.checked_add(1)?.checked_mul(is)
    };
    let (Some(se), Some(de)) = (last(so, &ss), last(dof, &ds)) else {
        return Err(ErrorKind::InvalidParam);
    };
    if so < 0 || dof < 0 || se > src.len() as i64 || de > dst.len() as i64 {
        return Err(ErrorKind::InvalidParam);
    }
    if nd == 1 {
        let (a, b) = ((so * is) as usize, (dof * is) as usize);
        dst[b..b + row].copy_from_slice(&src[a..a + row]);
        return Ok(());
    }
    // odometer over all dimensions but the last
    let mut idx = [0i64; MAX_DIM];
    let (mut sp, mut dp) = (so, dof);
    loop {
        let (a, b) = ((sp * is) as usize, (dp * is) as usize);
        dst[b..b + row].copy_from_slice(&src[a..a + row]);
        let mut d = nd - 1;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            sp += ss[d];
            dp += ds[d];
            if idx[d] < copy[d] {
                break;
            }
            sp -= ss[d] * copy[d];
            dp -= ds[d] * copy[d];
            idx[d] = 0;
        }
    }
}

/// One block a box overlaps, in absolute item coordinates.
struct BlockPart {
    nblock: i64,
    block_start: [i64; MAX_DIM],
    lo: [i64; MAX_DIM],
    hi: [i64; MAX_DIM],
}

/// One chunk a box overlaps, with the blocks (in storage order).
struct ChunkPlan {
    nchunk: i64,
    /// The box covers every item of the chunk.
    full: bool,
    blocks: Vec<BlockPart>,
}

/// Advance a multi-index over `lo..=hi` per dimension; false when done.
fn next_index(idx: &mut [i64], lo: &[i64], hi: &[i64]) -> bool {
    for d in (0..idx.len()).rev() {
        if idx[d] < hi[d] {
            idx[d] += 1;
            return true;
        }
        idx[d] = lo[d];
    }
    false
}

/// Call `f` for every chunk the non-empty box `start..stop` overlaps, in
/// storage order.
fn plan_chunks(
    g: &Geometry,
    start: &[i64],
    stop: &[i64],
    mut f: impl FnMut(ChunkPlan) -> Result<()>,
) -> Result<()> {
    let nd = g.ndim;
    let cstr = strides(&g.chunks_in_array());
    let bstr = strides(&g.blocks_in_chunk());
    let mut c_lo = [0i64; MAX_DIM];
    let mut c_hi = [0i64; MAX_DIM];
    for i in 0..nd {
        let cs = g.chunkshape[i] as i64;
        c_lo[i] = start[i] / cs;
        c_hi[i] = (stop[i] - 1) / cs;
    }
    let mut ci = c_lo;
    loop {
        let mut nchunk = 0i64;
        let mut chunk_start = [0i64; MAX_DIM];
        let mut chunk_stop = [0i64; MAX_DIM];
        let mut b_lo = [0i64; MAX_DIM];
        let mut b_hi = [0i64; MAX_DIM];
        let mut full = true;
        for i in 0..nd {
            let cs = g.chunkshape[i] as i64;
            let bs = g.blockshape[i] as i64;
            nchunk += ci[i] * cstr[i];
            chunk_start[i] = ci[i] * cs;
            chunk_stop[i] = (chunk_start[i] + cs).min(g.shape[i]);
            full &= chunk_start[i] >= start[i] && chunk_stop[i] <= stop[i];
            let lo = start[i].max(chunk_start[i]) - chunk_start[i];
            let hi = stop[i].min(chunk_stop[i]) - chunk_start[i];
            b_lo[i] = lo / bs;
            b_hi[i] = (hi - 1) / bs;
        }
        let mut blocks = Vec::new();
        let mut bi = b_lo;
        loop {
            let mut part = BlockPart {
                nblock: 0,
                block_start: [0; MAX_DIM],
                lo: [0; MAX_DIM],
                hi: [0; MAX_DIM],
            };
            for i in 0..nd {
                let bs = g.blockshape[i] as i64;
                part.nblock += bi[i] * bstr[i];
                let b0 = chunk_start[i] + bi[i] * bs;
                let b1 = (b0 + bs).min(chunk_stop[i]);
                part.block_start[i] = b0;
                part.lo[i] = start[i].max(b0);
                part.hi[i] = stop[i].min(b1);
            }
            blocks.push(part);
            if !next_index(&mut bi[..nd], &b_lo[..nd], &b_hi[..nd]) {
                break;
            }
        }
        f(ChunkPlan {
            nchunk,
            full,
            blocks,
        })?;
        if !next_index(&mut ci[..nd], &c_lo[..nd], &c_hi[..nd]) {
            return Ok(());
        }
    }
}

/// Chunk `n` of the array is super-chunk chunk `n` only when the
/// super-chunk's chunks have the array's padded chunk size; a file whose
/// metalayer disagrees with its chunks is refused rather than misread.
fn check_chunksize(sc: &SuperChunk, chunk_nbytes: usize) -> Result<()> {
    let fits = i32::try_from(chunk_nbytes).is_ok_and(|n| sc.chunks_hold(n));
    if sc.nchunks() > 0 && !fits {
        return Err(ErrorKind::Data);
    }
    Ok(())
}

/// How many chunks of `chunk_nbytes` one call works on at a time when they
/// are small enough to go side by side on the super-chunk's threads (None:
/// one at a time, as before, with no buffering): at most 4 MiB of them.
fn chunk_batch(sc: &SuperChunk, compress: bool, chunk_nbytes: usize) -> Option<usize> {
    if chunk_nbytes > crate::schunk::SMALL_CHUNK || sc.chunk_threads(compress) <= 1 {
        return None;
    }
    Some(((4 << 20) / chunk_nbytes.max(1)).max(1))
}

/// Items of the buffer (shaped `bufshape`) a box of `len` items per
/// dimension reaches from its origin; 0 for an empty box.
fn box_extent(bufshape: &[i64], len: &[i64]) -> Result<i64> {
    if len.contains(&0) {
        return Ok(0);
    }
    let st = strides(bufshape);
    let mut e = 1i64;
    for i in 0..len.len() {
        e = (len[i] - 1)
            .checked_mul(st[i])
            .and_then(|v| e.checked_add(v))
            .ok_or(ErrorKind::InvalidParam)?;
    }
    Ok(e)
}

impl<S: Borrow<SuperChunk>> Array<S> {
    /// `start`/`stop` have `ndim` values with `0 <= start <= stop <= shape`.
    pub fn check_range(&self, start: &[i64], stop: &[i64]) -> Result<()> {
        let nd = self.ndim();
        if start.len() != nd || stop.len() != nd {
            return Err(ErrorKind::InvalidParam);
        }
        for i in 0..nd {
            if start[i] < 0 || start[i] > stop[i] || stop[i] > self.geom.shape[i] {
                return Err(ErrorKind::InvalidParam);
            }
        }
        Ok(())
    }

    /// Check a caller's buffer for a box: its shape holds the box and its
    /// length every item the box reaches. Returns the box's item counts.
    fn check_buffer(
        &self,
        start: &[i64],
        stop: &[i64],
        bufshape: &[i64],
        buflen: usize,
    ) -> Result<Vec<i64>> {
        self.check_range(start, stop)?;
        if bufshape.len() != self.ndim() {
            return Err(ErrorKind::InvalidParam);
        }
        let len: Vec<i64> = start.iter().zip(stop).map(|(a, b)| b - a).collect();
        let mut n = 1i64;
        for i in 0..len.len() {
            if len[i] > bufshape[i] {
                return Err(ErrorKind::InvalidParam);
            }
            n = n.checked_mul(len[i]).ok_or(ErrorKind::InvalidParam)?;
        }
        let ts = self.typesize().max(1) as i64;
        let need = box_extent(bufshape, &len)?
            .max(n)
            .checked_mul(ts)
            .ok_or(ErrorKind::InvalidParam)?;
        if (buflen as i64) < need {
            return Err(ErrorKind::InvalidParam);
        }
        Ok(len)
    }

    /// Numbers of the chunks the box `start..stop` overlaps, in storage
    /// order (the reference's `b2nd_get_slice_nchunks`, which
    /// `blosc2_get_slice_nchunks` uses for arrays).
    pub fn slice_chunks(&self, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
        if self.ndim() == 0 {
            return Ok(if self.geom.nitems == 0 {
                vec![]
            } else {
                vec![0]
            });
        }
        self.check_range(start, stop)?;
        let mut v = Vec::new();
        if self.geom.nitems == 0 || start.iter().zip(stop).any(|(a, b)| a == b) {
            return Ok(v);
        }
        plan_chunks(&self.geom, start, stop, |p| {
            v.push(p.nchunk);
            Ok(())
        })?;
        Ok(v)
    }

    /// Read the whole array into `buf` in C order (`b2nd_to_cbuffer`).
    pub fn to_cbuffer(&self, buf: &mut [u8]) -> Result<()> {
        if buf.len() < self.nbytes()? {
            return Err(ErrorKind::InvalidParam);
        }
        if self.geom.nitems == 0 {
            return Ok(());
        }
        let start = vec![0i64; self.ndim()];
        let stop = self.shape().to_vec();
        self.get_slice_cbuffer(&start, &stop, buf, &stop)
    }

    /// Read the box `start..stop` into `buf`, a C-order buffer shaped
    /// `bufshape` (the box goes at its origin; the rest of `buf` is zeroed,
    /// as the reference does).
    pub fn get_slice_cbuffer(
        &self,
        start: &[i64],
        stop: &[i64],
        buf: &mut [u8],
        bufshape: &[i64],
    ) -> Result<()> {
        let ts = self.typesize();
        if ts <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let ts = ts as usize;
        if self.ndim() == 0 {
            let out = buf.get_mut(..ts).ok_or(ErrorKind::InvalidParam)?;
            self.schunk().decompress_chunk(0, out).map_err(failure)?;
            return Ok(());
        }
        let len = self.check_buffer(start, stop, bufshape, buf.len())?;
        if len[..] == bufshape[..] {
            // the box fills the buffer's shape: only what lies past it
            // would stay unwritten
            let covered = len.iter().product::<i64>() as usize * ts;
            buf.get_mut(covered..).unwrap_or_default().fill(0);
        } else {
            buf.fill(0);
        }
        if self.geom.nitems == 0 || len.contains(&0) {
            return Ok(());
        }
        let g = &self.geom;
        let sc = self.schunk();
        let chunk_nbytes = g.chunk_nbytes(ts as i32)?;
        // chunks of another size than the array's: the reference fails to
        // decompress them into its chunk buffer, or refuses their blocks
        check_chunksize(sc, chunk_nbytes).map_err(failure)?;
        let bb = g.blocknitems as usize * ts;
        let nblocks = g.nblocks() as usize;
        let bshape: Vec<i64> = g.blockshape().iter().map(|&b| b as i64).collect();
        let nd = g.ndim;
        let fast = is_fastpath(g, start, stop);
        // the reference's thresholds: reading blocks one by one pays when
        // they are a small part of the chunk, more so on disk where the
        // whole chunk would be read otherwise
        let frac = if sc.urlpath().is_some() { 4 } else { 16 };
        // Whether a chunk's blocks are read one byte range per run of
        // them (a small part of the chunk) rather than the chunk decoded.
        // Range reads of a chunk on disk load only the blocks asked for,
        // but DELTA decodes every block against block 0: such chunks go
        // through the whole-chunk path.
        let compact = |plan: &ChunkPlan| -> Result<bool> {
            Ok(
                (plan.blocks.len() * bb).saturating_mul(frac) <= chunk_nbytes
                    && !(sc.urlpath().is_some() && {
                        let lazy = sc.lazy_chunk(plan.nchunk)?;
                        ChunkHeader::read(&lazy)?
                            .filters
                            .contains(&crate::chunk::header::filter_id::DELTA)
                    }),
            )
        };
        // The blocks of one chunk the box needs, into `image`: compact, the
        // needed blocks one after the other; else the chunk as stored
        // (padded), each block at its place.
        let fill = |plan: &ChunkPlan, compact: bool, image: &mut [u8]| -> Result<()> {
            let nb = plan.blocks.len();
            if compact {
                // runs of consecutive blocks, each (first block, blocks)
                let mut runs = Vec::new();
                let mut k = 0;
                while k < nb {
                    let mut e = k + 1;
                    while e < nb && plan.blocks[e].nblock == plan.blocks[e - 1].nblock + 1 {
                        e += 1;
                    }
                    runs.push((plan.blocks[k].nblock as usize, e - k));
                    k = e;
                }
                // all runs from one load of the chunk's header and block
                // starts; a chunk the block-wise read refuses (another
                // size than the array's chunks) goes through the slices
                let mut rest = image.get_mut(..nb * bb).ok_or(ErrorKind::Data)?;
                let mut parts = Vec::with_capacity(runs.len());
                for &(j0, len) in &runs {
                    let (to, tail) = std::mem::take(&mut rest).split_at_mut(len * bb);
                    rest = tail;
                    parts.push((j0 * bb, to));
                }
                if sc.get_chunk_parts(plan.nchunk, &mut parts).is_ok() {
                    return Ok(());
                }
                let base_item = plan.nchunk * g.extchunknitems;
                for (&(j0, len), (_, to)) in runs.iter().zip(parts.iter_mut()) {
                    let a = base_item + (j0 * g.blocknitems as usize) as i64;
                    let b = a + (len * g.blocknitems as usize) as i64;
                    sc.get_slice(a, b, to).map_err(failure)?;
                }
                return Ok(());
            }
            let image = image.get_mut(..chunk_nbytes).ok_or(ErrorKind::Data)?;
            let h = ChunkHeader::read(&sc.lazy_chunk(plan.nchunk).map_err(failure)?)?;
            // the reference decompresses these chunks with a block mask of
            // the array's blocks, refused for a chunk cut otherwise (a
            // metalayer naming another block shape than its chunks were
            // made with): its data would be reshaped wrongly. Special
            // chunks decode the same whatever the blocks.
            if !fast && h.special_bits() == 0 && h.blocksize > 0 && h.nblocks().0 != nblocks {
                return Err(crate::traced!(
                    ErrorKind::Failure,
                    "chunk {} has {} blocks, the array's block shape makes {nblocks}",
                    plan.nchunk,
                    h.nblocks().0
                ));
            }
            if nb == nblocks {
                if sc.decompress_chunk(plan.nchunk, image).map_err(failure)? != chunk_nbytes {
                    return Err(ErrorKind::Data);
                }
            } else {
                // a mask only fits chunks cut into the array's blocks
                let mask =
                    (h.blocksize as usize == bb && h.nbytes as usize == chunk_nbytes).then(|| {
                        let mut mask = vec![true; nblocks];
                        for p in &plan.blocks {
                            mask[p.nblock as usize] = false;
                        }
                        mask
                    });
                let got = sc
                    .decompress_chunk_masked(plan.nchunk, mask.as_deref(), image)
                    .map_err(failure)?;
                if got != chunk_nbytes {
                    return Err(ErrorKind::Data);
                }
            }
            Ok(())
        };
        // The box's part of each block, from what `fill` left into `buf`.
        let put = |plan: &ChunkPlan, compact: bool, image: &[u8], buf: &mut [u8]| -> Result<()> {
            for (k, part) in plan.blocks.iter().enumerate() {
                let j = if compact { k } else { part.nblock as usize };
                let mut bs = [0i64; MAX_DIM];
                let mut be = [0i64; MAX_DIM];
                let mut ds = [0i64; MAX_DIM];
                for i in 0..nd {
                    bs[i] = part.lo[i] - part.block_start[i];
                    be[i] = part.hi[i] - part.block_start[i];
                    ds[i] = part.lo[i] - start[i];
                }
                copy_buffer2(
                    ts,
                    &image[j * bb..(j + 1) * bb],
                    &bshape,
                    &bs[..nd],
                    &be[..nd],
                    buf,
                    bufshape,
                    &ds[..nd],
                )?;
            }
            self.stats.add(1, plan.blocks.len() as u64);
            Ok(())
        };
        if let Some(batch) = chunk_batch(sc, false, chunk_nbytes) {
            // Small chunks hold too few blocks to keep the threads busy one
            // at a time: several are decoded side by side into one buffer,
            // then copied out.
            let mut plans = Vec::new();
            plan_chunks(g, start, stop, |plan| {
                let c = compact(&plan)?;
                plans.push((plan, c));
                Ok(())
            })?;
            let mut images = Vec::new();
            for group in plans.chunks(batch) {
                images.resize(group.len() * chunk_nbytes, 0);
                let slots: Vec<std::sync::Mutex<&mut [u8]>> = images
                    .chunks_mut(chunk_nbytes)
                    .map(std::sync::Mutex::new)
                    .collect();
                sc.run_chunks(false, true, group.len(), |j, _: &mut ()| {
                    let mut image = slots[j].lock().unwrap_or_else(|p| p.into_inner());
                    fill(&group[j].0, group[j].1, &mut image)
                })?;
                drop(slots);
                for ((plan, c), image) in group.iter().zip(images.chunks(chunk_nbytes)) {
                    put(plan, *c, image, buf)?;
                }
            }
            return Ok(());
        }
        let mut image: Vec<u8> = Vec::new();
        plan_chunks(g, start, stop, |plan| {
            let c = compact(&plan)?;
            let need = if c {
                plan.blocks.len() * bb
            } else {
                chunk_nbytes
            };
            // not a resize: a metalayer claiming gigabyte chunks had the
            // claim zeroed before the first decode failed (found by `capi`)
            crate::spare::grow(&mut image, need)?;
            fill(&plan, c, &mut image)?;
            put(&plan, c, &image, buf)
        })
    }

    /// Copy the box of this array starting at `start` and shaped like
    /// `dest` into `dest`, chunk by chunk of `dest`.
    pub fn copy_into<T: BorrowMut<SuperChunk>>(
        &self,
        dest: &mut Array<T>,
        start: &[i64],
    ) -> Result<()> {
        let nd = dest.ndim();
        if nd != self.ndim() || start.len() != nd {
            return Err(ErrorKind::InvalidParam);
        }
        let stop: Vec<i64> = (0..nd)
            .map(|i| start[i].checked_add(dest.shape()[i]))
            .collect::<Option<_>>()
            .ok_or(ErrorKind::InvalidParam)?;
        self.check_range(start, &stop)?;
        if dest.nitems() == 0 {
            return Ok(());
        }
        if nd == 0 {
            let ts = self.typesize().max(0) as usize;
            let mut v = vec![0u8; ts];
            self.get_slice_cbuffer(&[], &[], &mut v, &[])?;
            return dest.set_slice_cbuffer(&v, &[], &[], &[]);
        }
        let dg = dest.geometry().clone();
        let cia = dg.chunks_in_array();
        let total: i64 = cia.iter().product();
        let ts = self.typesize().max(0) as usize;
        let mut idx = vec![0i64; nd];
        let mut buf = Vec::new();
        for n in 0..total {
            super::geometry::unravel(n, &cia, &mut idx);
            let mut cs = vec![0i64; nd];
            let mut ce = vec![0i64; nd];
            let mut ss = vec![0i64; nd];
            let mut se = vec![0i64; nd];
            let mut shape = vec![0i64; nd];
            for i in 0..nd {
                cs[i] = idx[i] * dg.chunkshape[i] as i64;
                ce[i] = (cs[i] + dg.chunkshape[i] as i64).min(dg.shape[i]);
                ss[i] = cs[i] + start[i];
                se[i] = ce[i] + start[i];
                shape[i] = ce[i] - cs[i];
            }
            let items: i64 = shape.iter().product();
            buf.resize(items as usize * ts, 0);
            self.get_slice_cbuffer(&ss, &se, &mut buf, &shape)?;
            dest.set_slice_cbuffer(&buf, &shape, &cs, &ce)?;
        }
        Ok(())
    }
}

impl<S: BorrowMut<SuperChunk>> Array<S> {
    /// Write `buf`, a C-order buffer shaped `bufshape`, into the box
    /// `start..stop` (the box's items are taken from the buffer's origin).
    pub fn set_slice_cbuffer(
        &mut self,
        buf: &[u8],
        bufshape: &[i64],
        start: &[i64],
        stop: &[i64],
    ) -> Result<()> {
        // the chunks it replaces are given back to a frame file once
        self.schunk_mut().begin_batch();
        let r = self.set_slice_cbuffer_inner(buf, bufshape, start, stop);
        self.schunk_mut().end_batch();
        r
    }

    fn set_slice_cbuffer_inner(
        &mut self,
        buf: &[u8],
        bufshape: &[i64],
        start: &[i64],
        stop: &[i64],
    ) -> Result<()> {
        let ts = self.typesize();
        if ts <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let ts = ts as usize;
        if self.ndim() == 0 {
            let item = buf.get(..ts).ok_or(ErrorKind::InvalidParam)?;
            let sc = self.schunk_mut();
            let c = sc.compress_chunk(0, item)?;
            sc.update_chunk(0, &c)?;
            return Ok(());
        }
        let len = self.check_buffer(start, stop, bufshape, buf.len())?;
        if self.geom.nitems == 0 || len.contains(&0) {
            return Ok(());
        }
        let g = self.geom.clone();
        let chunk_nbytes = g.chunk_nbytes(ts as i32)?;
        check_chunksize(self.schunk(), chunk_nbytes)?;
        let bb = g.blocknitems as usize * ts;
        let bshape: Vec<i64> = g.blockshape().iter().map(|&b| b as i64).collect();
        let nd = g.ndim;
        let stats = &self.stats;
        let sc = self.sc.borrow_mut();
        // The chunk a plan writes, compressed: the old one decoded when the
        // box covers it only in part, the box's items copied in.
        let make = |sc: &SuperChunk, plan: &ChunkPlan, data: &mut Vec<u8>| -> Result<Vec<u8>> {
            data.resize(chunk_nbytes, 0);
            if plan.full {
                // padding stays zero, as in the reference (with no padding
                // every byte is written below)
                let covered: i64 = plan
                    .blocks
                    .iter()
                    .map(|p| (0..nd).map(|i| p.hi[i] - p.lo[i]).product::<i64>())
                    .sum();
                if covered != g.extchunknitems {
                    data.fill(0);
                }
            } else if sc.decompress_chunk(plan.nchunk, data)? != chunk_nbytes {
                return Err(ErrorKind::Data);
            }
            for part in &plan.blocks {
                let j = part.nblock as usize;
                let mut ss = [0i64; MAX_DIM];
                let mut se = [0i64; MAX_DIM];
                let mut ds = [0i64; MAX_DIM];
                for i in 0..nd {
                    ss[i] = part.lo[i] - start[i];
                    se[i] = part.hi[i] - start[i];
                    ds[i] = part.lo[i] - part.block_start[i];
                }
                copy_buffer2(
                    ts,
                    buf,
                    bufshape,
                    &ss[..nd],
                    &se[..nd],
                    &mut data[j * bb..(j + 1) * bb],
                    &bshape,
                    &ds[..nd],
                )?;
            }
            sc.compress_chunk(plan.nchunk, data)
        };
        if let Some(batch) = chunk_batch(sc, true, chunk_nbytes) {
            // Small chunks are compressed side by side (as super-chunk
            // slices are), then stored in order: the frame is the same
            // for every thread count.
            let mut plans = Vec::new();
            plan_chunks(&g, start, stop, |plan| {
                plans.push(plan);
                Ok(())
            })?;
            for group in plans.chunks(batch) {
                let shared: &SuperChunk = sc;
                let chunks =
                    shared.run_chunks(true, true, group.len(), |j, data: &mut Vec<u8>| {
                        make(shared, &group[j], data)
                    })?;
                for (plan, c) in group.iter().zip(chunks) {
                    sc.update_chunk(plan.nchunk, &c)?;
                    stats.add(1, 0);
                }
            }
            return Ok(());
        }
        let mut data = Vec::new();
        plan_chunks(&g, start, stop, |plan| {
            let c = make(sc, &plan, &mut data)?;
            sc.update_chunk(plan.nchunk, &c)?;
            stats.add(1, 0);
            Ok(())
        })
    }
}

/// What the reference's slice reading gives for any failure to read or
/// decompress a chunk (its `get_set_slice` maps them all to this).
fn failure(_: ErrorKind) -> ErrorKind {
    ErrorKind::Failure
}

/// Whether the reference reads `start..stop` as one whole chunk straight
/// into the buffer (its `nchunk_fastpath`): one chunk exactly, whose blocks
/// lie in C order inside it. It checks no block count there.
fn is_fastpath(g: &Geometry, start: &[i64], stop: &[i64]) -> bool {
    let n: i64 = start.iter().zip(stop).map(|(a, b)| b - a).product();
    if n != i64::from(g.chunknitems) {
        return false;
    }
    let mut k = 0;
    for i in 0..g.ndim {
        let (c, b) = (i64::from(g.chunkshape[i]), i64::from(g.blockshape[i]));
        if c <= 0 || b <= 0 || start[i] % c != 0 || stop[i] - start[i] != c || c % b != 0 {
            return false;
        }
        if i > k && c != b {
            return false;
        }
        if i == k && b == 1 {
            k += 1;
        }
    }
    true
}
