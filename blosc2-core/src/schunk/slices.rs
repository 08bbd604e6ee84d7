//! Item ranges: where items fall in the chunks (fixed or variable chunk
//! sizes), reading a slice (partial reads of the chunks at its ends, whole
//! chunks side by side on the chunk threads), writing one (the chunks it
//! touches recompressed), reading items at coordinates, and which chunks
//! a slice touches.
//!
//! Separate from chunk reads and mutations, which know nothing of items.

use super::{Backing, SuperChunk};
use crate::error::{ErrorKind, Result};
use std::borrow::Cow;
use std::sync::Mutex;

/// How positions in the uncompressed data map to chunks.
enum ChunkMap {
    Fixed(i64),
    /// Start of every chunk, plus the total at the end.
    Variable(Vec<i64>),
}

/// Chunks up to this size are cut into too few blocks to keep a context's
/// threads busy (the reference picks blocks of 32 to 256 KiB): calls that
/// span many of them work on several chunks at once instead.
pub(crate) const SMALL_CHUNK: usize = 128 << 10;

impl SuperChunk {
    fn slice_geometry(&self, start: i64, stop: i64, len: usize) -> Result<(i64, i64)> {
        let ts = self.cparams.typesize as i64;
        let bstart = start.checked_mul(ts).ok_or(ErrorKind::InvalidParam)?;
        let bstop = stop.checked_mul(ts).ok_or(ErrorKind::InvalidParam)?;
        if start < 0 || stop < start || bstop > self.nbytes {
            return Err(ErrorKind::InvalidParam);
        }
        if ((bstop - bstart) as u64) > len as u64 {
            return Err(ErrorKind::InvalidParam);
        }
        Ok((bstart, bstop))
    }

    /// Where each chunk starts in the uncompressed data.
    fn chunk_map(&self) -> ChunkMap {
        if self.chunksize > 0 {
            return ChunkMap::Fixed(self.chunksize as i64);
        }
        let mut starts = Vec::with_capacity(self.entries.len() + 1);
        let mut at = 0i64;
        starts.push(0);
        // (frames of variable-size chunks are read whole at open)
        for e in self.entries.iter() {
            at += e.map_or(0, |e| e.nbytes.max(0) as i64);
            starts.push(at);
        }
        ChunkMap::Variable(starts)
    }

    /// The chunk holding byte `pos` (< nbytes) and where in it.
    fn locate(&self, map: &ChunkMap, pos: i64) -> Result<(i64, i64)> {
        let n = match map {
            ChunkMap::Fixed(cs) => pos / cs,
            // the last chunk starting at or before pos (empty chunks share
            // their start with the next one)
            ChunkMap::Variable(starts) => {
                starts[..self.entries.len()].partition_point(|&s| s <= pos) as i64 - 1
            }
        };
        let e = self.entries.get(n as usize)?;
        let start = match map {
            ChunkMap::Fixed(cs) => n * cs,
            ChunkMap::Variable(starts) => starts[n as usize],
        };
        let in_chunk = pos - start;
        if in_chunk < 0 || in_chunk >= e.nbytes as i64 {
            return Err(ErrorKind::Data);
        }
        Ok((n, in_chunk))
    }

    /// Items `start..stop` (in units of typesize) into `dest`.
    pub fn get_slice(&self, start: i64, stop: i64, dest: &mut [u8]) -> Result<()> {
        let (bstart, bstop) = self.slice_geometry(start, stop, dest.len())?;
        let map = self.chunk_map();
        let mut pos = bstart;
        let mut tmp = Vec::new();
        // whole chunks are decompressed below, side by side when they are
        // too small to keep the threads busy one at a time
        let mut whole: Vec<(i64, &mut [u8])> = Vec::new();
        let mut rest = &mut *dest;
        while pos < bstop {
            let (n, in_chunk) = self.locate(&map, pos)?;
            let e_nb = self.entries.get(n as usize)?.nbytes as i64;
            let take = (bstop - pos).min(e_nb - in_chunk);
            if take <= 0 {
                return Err(ErrorKind::Data);
            }
            // the pieces follow each other from the start of `dest`
            let (out, tail) = std::mem::take(&mut rest).split_at_mut(take as usize);
            rest = tail;
            if in_chunk == 0 && take == e_nb {
                whole.push((n, out));
            } else if self
                .get_chunk_parts(n, &mut [(in_chunk as usize, &mut *out)])
                .is_err()
            {
                // fall back to a whole-chunk decode
                let full = self.chunk(n)?;
                // not a resize: a damaged chunk claiming a gigabyte had
                // it all zeroed (1.4 s) before its decode failed
                crate::spare::grow(&mut tmp, e_nb as usize)?;
                self.with_decompressor(n, &mut |d| d.decompress(&full, &mut tmp))?;
                out.copy_from_slice(&tmp[in_chunk as usize..(in_chunk + take) as usize]);
            }
            pos += take;
        }
        self.decompress_whole(whole)
    }

    /// Bytes `start..start + out.len()` of chunk `n`'s data into each
    /// `(start, out)` of `parts`. For a chunk on disk, its header and block
    /// starts are read once and only the blocks the parts need after them
    /// (a b2nd box reads several runs of a chunk's blocks).
    pub fn get_chunk_parts(&self, n: i64, parts: &mut [(usize, &mut [u8])]) -> Result<()> {
        // a plugin reading this super-chunk from inside the decode, or
        // another thread's slice, finds the shared buffer taken and uses
        // its own, from and back to the kept ones
        let ranges: Vec<(usize, usize)> = parts.iter().map(|(s, o)| (*s, o.len())).collect();
        let mut own = crate::spare::Spare::default();
        let mut held = self.scratch.try_lock().ok();
        let scratch = &mut held.as_deref_mut().unwrap_or(&mut own).0;
        let c = match self.load_ranges(n, &ranges, scratch)? {
            Some(at) => Cow::Borrowed(&scratch[at]),
            None => self.chunk(n)?,
        };
        for (start, out) in parts.iter_mut() {
            let (s, len) = (i32::try_from(*start), i32::try_from(out.len()));
            let (Ok(s), Ok(len)) = (s, len) else {
                return Err(ErrorKind::InvalidParam);
            };
            let got = self.with_decompressor(n, &mut |d| d.getitem_bytes(&c, s, len, out))?;
            if got != out.len() {
                return Err(ErrorKind::Data);
            }
        }
        Ok(())
    }

    /// Decompress each chunk `n` into its `out` (exactly its size), several
    /// at once when the decompression threads would otherwise idle: chunks
    /// of at most a few blocks each leave all but one thread without work.
    fn decompress_whole(&self, whole: Vec<(i64, &mut [u8])>) -> Result<()> {
        let small = whole.iter().all(|(_, o)| o.len() <= SMALL_CHUNK);
        let jobs: Vec<Mutex<(i64, &mut [u8])>> = whole.into_iter().map(Mutex::new).collect();
        self.run_chunks(false, small, jobs.len(), |j, _: &mut ()| {
            let mut job = jobs[j].lock().unwrap_or_else(|e| e.into_inner());
            let (n, out) = &mut *job;
            // a chunk shorter than the frame says would leave bytes of the
            // slice unwritten
            if self.decompress_chunk(*n, out)? != out.len() {
                return Err(ErrorKind::Data);
            }
            Ok(())
        })
        .map(|_| ())
    }

    /// Run `f(j, scratch)` for every `j` in `0..n`, one job per chunk: on
    /// the chunk threads when the chunks are `small` and the hooks allow it
    /// (see [`Self::chunk_threads`]), else one after the other on the
    /// calling thread. Results come back in job order.
    pub(crate) fn run_chunks<S: Default + Send, T: Send>(
        &self,
        compress: bool,
        small: bool,
        n: usize,
        f: impl Fn(usize, &mut S) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let threads = self.chunk_threads(compress).min(n);
        let mut pool = if threads > 1 && small {
            self.chunk_pool.try_lock().ok()
        } else {
            None
        };
        match pool.as_deref_mut() {
            Some(slot) => {
                let p = crate::pool::Pool::ensure(slot, threads)?;
                let mut scratch: Vec<S> = (0..threads).map(|_| S::default()).collect();
                p.run(n, &mut scratch, f)
            }
            None => {
                let mut scratch = S::default();
                (0..n).map(|j| f(j, &mut scratch)).collect()
            }
        }
    }

    /// Overwrite items `start..stop` with `src`, recompressing the chunks.
    pub fn set_slice(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        let updates = self.slice_updates(start, stop, src)?;
        self.store_slice_updates(updates)
    }

    /// Store what [`Self::slice_updates`] made: one pass over a frame file
    /// for the whole slice (a batch, each chunk atomic), and one
    /// transaction for a sparse frame, whose index is written once: a
    /// failure leaves every chunk old. (Per chunk, the index, which names
    /// every chunk, was rewritten and renamed each time, a cost growing
    /// with the frame.)
    pub fn store_slice_updates(&mut self, updates: Vec<(i64, Vec<u8>)>) -> Result<()> {
        if matches!(self.backing, Backing::Dir { .. }) && updates.len() > 1 {
            return self.transact(|s| {
                updates
                    .into_iter()
                    .try_for_each(|(n, c)| s.update_chunk_inner(n, &c, false).map(|_| ()))?;
                s.flush()
            });
        }
        self.begin_batch();
        let r = updates
            .into_iter()
            .try_for_each(|(n, c)| self.update_chunk(n, &c).map(|_| ()));
        self.end_batch();
        r
    }

    /// The chunks `set_slice` would write, by number: compressing them needs
    /// only shared access, so plugins that read the super-chunk meanwhile
    /// (C plugins call back with `cparams->schunk`) see a consistent one.
    pub fn slice_updates(&self, start: i64, stop: i64, src: &[u8]) -> Result<Vec<(i64, Vec<u8>)>> {
        let (bstart, bstop) = self.slice_geometry(start, stop, src.len())?;
        let map = self.chunk_map();
        let mut pos = bstart;
        // (chunk, its size, where the part goes in it, the part)
        let mut parts: Vec<(i64, i64, i64, &[u8])> = Vec::new();
        while pos < bstop {
            let (n, in_chunk) = self.locate(&map, pos)?;
            let e_nb = self.entries.get(n as usize)?.nbytes as i64;
            let take = (bstop - pos).min(e_nb - in_chunk);
            if take <= 0 {
                return Err(ErrorKind::Data);
            }
            let part = &src[(pos - bstart) as usize..(pos - bstart + take) as usize];
            parts.push((n, e_nb, in_chunk, part));
            pos += take;
        }
        let make = |tmp: &mut Vec<u8>, &(n, e_nb, in_chunk, part): &(i64, i64, i64, &[u8])| {
            if in_chunk == 0 && part.len() as i64 == e_nb {
                return Ok((n, self.compress_chunk(n, part)?));
            }
            // a chunk of another size gets a fresh calloc'd buffer, not a
            // resize that zeroes all of a damaged chunk's claim first
            if tmp.len() != e_nb as usize {
                *tmp = crate::spare::zeroed(e_nb as usize)?;
            }
            self.decompress_chunk(n, tmp)?;
            tmp[in_chunk as usize..in_chunk as usize + part.len()].copy_from_slice(part);
            Ok((n, self.compress_chunk(n, tmp)?))
        };
        // small chunks are made side by side on the compression threads
        let small = parts.iter().all(|p| p.1 as usize <= SMALL_CHUNK);
        self.run_chunks(true, small, parts.len(), |j, tmp: &mut Vec<u8>| {
            make(tmp, &parts[j])
        })
    }

    /// Items at the given item indices, one after the other into `dest`.
    pub fn get_sparse(&self, coords: &[i64], dest: &mut [u8]) -> Result<()> {
        let ts = self.cparams.typesize.max(1) as usize;
        if dest.len() / ts < coords.len() {
            return Err(ErrorKind::InvalidParam);
        }
        for (i, &c) in coords.iter().enumerate() {
            let stop = c.checked_add(1).ok_or(ErrorKind::InvalidParam)?;
            self.get_slice(c, stop, &mut dest[i * ts..(i + 1) * ts])?;
        }
        Ok(())
    }

    /// Indices of the chunks that items `start..stop` touch.
    pub fn slice_chunks(&self, start: i64, stop: i64) -> Result<Vec<i64>> {
        if self.entries.is_empty() {
            return Ok(Vec::new());
        }
        let ts = self.cparams.typesize as i64;
        if start < 0 || stop < start {
            return Err(ErrorKind::InvalidParam);
        }
        let bstart = start.checked_mul(ts).ok_or(ErrorKind::InvalidParam)?;
        let bstop = stop.checked_mul(ts).ok_or(ErrorKind::InvalidParam)?;
        let (first, last) = match self.chunk_map() {
            ChunkMap::Fixed(cs) => (bstart / cs, bstop / cs + i64::from(bstop % cs != 0)),
            ChunkMap::Variable(starts) => {
                // as the fixed case: the chunk holding the first byte up to
                // the last chunk starting before the end
                let n = self.entries.len();
                let first = starts[..n].partition_point(|&s| s <= bstart).max(1) - 1;
                let last = starts[..n].partition_point(|&s| s < bstop).max(first);
                (first as i64, last as i64)
            }
        };
        Ok((first..last).collect())
    }
}
