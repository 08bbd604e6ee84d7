//! Changes to the chunk list: append, insert, update and delete one chunk,
//! reorder the chunks, fill an empty super-chunk with special values; and
//! how a new chunk is admitted and stored (checked against the others,
//! kept as a special offset or as data, in memory or in a chunk file).
//!
//! Each public mutation runs its `_inner` body through
//! [`SuperChunk::transact`] (see `persist`), so a failure changes nothing.

use super::{special_kind, Backing, Entry, Slot, SuperChunk, VL_BLOCKS_FLAG};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::special::make_special;
use crate::chunk::{CParams, ChunkHeader, Special};
use crate::error::{ErrorKind, Result};
use crate::frame::sframe;
use crate::io::Mode;
use std::borrow::Cow;

impl SuperChunk {
    /// Check `chunk` and work out its sizes and whether it goes in as a
    /// special offset (decided again by [`Self::settle_chunksize`]). `err`
    /// is the code of the operation for chunks that do not fit.
    fn admit(&self, chunk: &[u8], err: ErrorKind) -> Result<(i32, i32, bool)> {
        let h = ChunkHeader::read(chunk)?;
        if h.cbytes as usize > chunk.len() {
            return Err(ErrorKind::ReadBuffer);
        }
        // regular and VL-block chunks never mix in one super-chunk
        let others = self.entries.len() > usize::from(err == ErrorKind::ChunkUpdate);
        if others && (h.blosc2_flags2 & VL_BLOCKS_FLAG != 0) != (self.flags2 & VL_BLOCKS_FLAG != 0)
        {
            return Err(err);
        }
        let special = self.is_frame() && self.frame_special(chunk, h.nbytes)?.is_some();
        Ok((h.nbytes, h.cbytes, special))
    }

    /// `chunk`, or its ordinary version when it is a special chunk going
    /// into a frame as data (`special` but not `keep_special`).
    fn as_stored<'c>(
        &mut self,
        chunk: &'c [u8],
        special: bool,
        keep_special: bool,
    ) -> Result<Cow<'c, [u8]>> {
        if special && !keep_special {
            return self.regularize(chunk).map(Cow::Owned);
        }
        Ok(Cow::Borrowed(chunk))
    }

    /// Store `chunk` (already admitted) and return its slot.
    pub(super) fn store(&mut self, chunk: &[u8], special: bool) -> Result<Slot> {
        if special {
            return Ok(Slot::Special(special_kind(chunk)?));
        }
        let cb = ChunkHeader::read(chunk)?.cbytes as usize;
        let chunk = &chunk[..cb];
        match &mut self.backing {
            // a frame file takes new chunks when the change is flushed
            // (see `layout`)
            Backing::Chunks | Backing::MemFrame | Backing::File { .. } => {
                Ok(Slot::Data(chunk.to_vec()))
            }
            Backing::Dir { path } => {
                // the reference names a new chunk file one past the highest
                // number the index still uses
                // (a plain loop: the iterator form compiled to a compare of
                // every entry's payload before its variant was known, which
                // valgrind reports as a jump on uninitialised bytes for
                // entries that hold no file number)
                //
                // Nor one a file this operation made unused still has: that
                // file goes when the operation succeeds, and the new chunk
                // would go with it; if the operation fails, the index it
                // restores names the old file, which the new chunk would
                // have overwritten (a set_slice across chunks, which
                // replaces several in one operation, did both).
                let mut id = 0;
                for e in self.entries.iter() {
                    if let Slot::File(n) = e?.slot {
                        id = id.max(n + 1);
                    }
                }
                for &n in &self.obsolete {
                    id = id.max(n + 1);
                }
                let cp = sframe::chunk_path(path, id);
                self.created.push(cp.clone());
                let mut s = self.io.open(&cp, Mode::Create)?;
                s.write_all_at(0, chunk)?;
                Ok(Slot::File(id))
            }
        }
    }

    pub(super) fn slot_cbytes(&self, i: usize) -> Result<i64> {
        Ok(match &self.entries.get(i)?.slot {
            Slot::Special(_) => 0,
            Slot::Data(d) => d.len() as i64,
            _ => self.stored_header(i)?.cbytes as i64,
        })
    }

    /// Append a compressed chunk; returns the new number of chunks.
    pub fn append_chunk(&mut self, chunk: &[u8]) -> Result<i64> {
        // only a switch to variable-size chunks touches the other entries
        let append_only = |s: &Self| {
            s.chunksize <= 0
                || ChunkHeader::read(chunk)
                    .is_ok_and(|h| s.fits_fixed(s.entries.len(), h.nbytes, false))
        };
        self.transact_with(append_only, |s| s.append_chunk_inner(chunk))
    }

    /// Append a compressed chunk; returns the new number of chunks.
    fn append_chunk_inner(&mut self, chunk: &[u8]) -> Result<i64> {
        let (nb, _, special) = self.admit(chunk, ErrorKind::ChunkAppend)?;
        let n = self.entries.len();
        let keep = self.settle_chunksize(n, nb, false)?;
        let chunk = self.as_stored(chunk, special, keep)?;
        let chunk = &chunk[..];
        let cb = ChunkHeader::read(chunk)?.cbytes;
        let special = special && keep;
        if n == 0 {
            self.flags2 = ChunkHeader::read(chunk)?.blosc2_flags2;
        }
        let slot = self.store(chunk, special)?;
        let digest = self.digest_for(chunk, special);
        self.entries.push(Entry {
            slot,
            nbytes: nb,
            digest,
        });
        self.nbytes += nb as i64;
        if !special {
            self.cbytes += cb as i64;
        }
        self.repeat_index = false;
        self.flush()?;
        Ok(self.nchunks())
    }

    /// Compress `src` with the super-chunk's parameters and append it.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        let c = self.compress_chunk(self.nchunks(), src)?;
        self.append_chunk(&c)
    }

    /// Insert a chunk at position `n`; returns the new number of chunks.
    pub fn insert_chunk(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        self.transact(|s| s.insert_chunk_inner(n, chunk))
    }

    /// Insert a chunk at position `n`; returns the new number of chunks.
    fn insert_chunk_inner(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        if n < 0 || n > self.nchunks() {
            return Err(ErrorKind::InvalidParam);
        }
        if n == self.nchunks() {
            return self.append_chunk_inner(chunk);
        }
        let (nb, _, special) = self.admit(chunk, ErrorKind::ChunkInsert)?;
        let keep = self.settle_chunksize(n as usize, nb, false)?;
        let chunk = self.as_stored(chunk, special, keep)?;
        let chunk = &chunk[..];
        let cb = ChunkHeader::read(chunk)?.cbytes;
        let special = special && keep;
        let slot = self.store(chunk, special)?;
        let digest = self.digest_for(chunk, special);
        self.entries.vec_mut()?.insert(
            n as usize,
            Entry {
                slot,
                nbytes: nb,
                digest,
            },
        );
        self.nbytes += nb as i64;
        if !special {
            self.cbytes += cb as i64;
        }
        self.repeat_index = false;
        self.flush()?;
        Ok(self.nchunks())
    }

    /// Replace chunk `n`; returns the number of chunks.
    pub fn update_chunk(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        self.transact(|s| s.update_chunk_inner(n, chunk, true))
    }

    /// Replace chunk `n`; returns the number of chunks. Without `flush`,
    /// the frame on disk is left to the caller to write (one transaction
    /// replacing many chunks of a sparse frame writes its index once).
    pub(super) fn update_chunk_inner(&mut self, n: i64, chunk: &[u8], flush: bool) -> Result<i64> {
        let i = self.check_index(n)?;
        let (nb, _, special) = self.admit(chunk, ErrorKind::ChunkUpdate)?;
        let keep = self.settle_chunksize(i, nb, true)?;
        let chunk = self.as_stored(chunk, special, keep)?;
        let chunk = &chunk[..];
        let cb = ChunkHeader::read(chunk)?.cbytes;
        let special = special && keep;
        if self.entries.len() == 1 {
            self.flags2 = ChunkHeader::read(chunk)?.blosc2_flags2;
        }
        let old_cb = self.slot_cbytes(i)?;
        // In a sparse frame the new chunk gets a new file and the old one
        // goes once the index no longer names it, so a failed update
        // leaves the previous frame whole.
        let (old_file, old_nb) = {
            let e = self.entries.get(i)?;
            let file = match e.slot {
                Slot::File(id) => Some(id),
                _ => None,
            };
            (file, e.nbytes)
        };
        if let (Some(id), Backing::Dir { .. }) = (old_file, &self.backing) {
            self.obsolete.push(id);
        }
        let slot = self.store(chunk, special)?;
        self.drop_stored(i, matches!(slot, Slot::Data(_)));
        self.nbytes += nb as i64 - old_nb as i64;
        self.cbytes += if special { 0 } else { cb as i64 } - old_cb;
        let digest = self.digest_for(chunk, special);
        *self.entries.get_mut(i)? = Entry {
            slot,
            nbytes: nb,
            digest,
        };
        self.repeat_index = false;
        if flush {
            self.flush()?;
        }
        Ok(self.nchunks())
    }

    /// Delete chunk `n`; returns the new number of chunks.
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        self.transact(|s| s.delete_chunk_inner(n))
    }

    /// Delete chunk `n`; returns the new number of chunks.
    fn delete_chunk_inner(&mut self, n: i64) -> Result<i64> {
        let i = self.check_index(n)?;
        let old_cb = self.slot_cbytes(i)?;
        self.drop_stored(i, false);
        let e = self.entries.vec_mut()?.remove(i);
        self.nbytes -= e.nbytes as i64;
        self.cbytes -= old_cb;
        if let (Slot::File(id), Backing::Dir { .. }) = (&e.slot, &self.backing) {
            self.obsolete.push(*id);
        }
        self.repeat_index = false;
        self.flush()?;
        Ok(self.nchunks())
    }

    /// New order: chunk `i` becomes the old chunk `order[i]`.
    pub fn reorder(&mut self, order: &[i64]) -> Result<()> {
        self.transact(|s| s.reorder_inner(order))
    }

    /// New order: chunk `i` becomes the old chunk `order[i]`.
    fn reorder_inner(&mut self, order: &[i64]) -> Result<()> {
        let n = self.entries.len();
        if order.len() < n {
            return Err(ErrorKind::Data);
        }
        let mut seen = vec![false; n];
        for &o in &order[..n] {
            if o < 0 || o as usize >= n || seen[o as usize] {
                return Err(ErrorKind::Data);
            }
            seen[o as usize] = true;
        }
        let all = self.entries.vec_mut()?;
        let new: Vec<Entry> = order[..n]
            .iter()
            .map(|&o| all[o as usize].clone())
            .collect();
        if self.chunksize > 0
            && new
                .iter()
                .take(n.saturating_sub(1))
                .any(|e| e.nbytes != self.chunksize)
        {
            // a short chunk anywhere but last makes chunks variable-size
            self.make_variable()?;
            return self.reorder_inner(order);
        }
        self.entries = new.into();
        self.repeat_index = false;
        self.flush()
    }

    /// Fill an empty super-chunk with `nitems` special values in chunks of
    /// `chunksize` bytes; returns the number of chunks.
    pub fn fill_special(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        self.transact(|s| s.fill_special_inner(nitems, kind, chunksize))
    }

    /// Fill an empty super-chunk with `nitems` special values in chunks of
    /// `chunksize` bytes; returns the number of chunks.
    fn fill_special_inner(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        if nitems == 0 {
            return Ok(0);
        }
        let ts = self.cparams.typesize as i64;
        if nitems < 0 || chunksize <= 0 || ts <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        if self.nbytes > 0 || self.cbytes > 0 {
            return Err(ErrorKind::FrameSpecial);
        }
        if !matches!(kind, Special::Zero | Special::Nan | Special::Uninit) {
            return Err(ErrorKind::SchunkSpecial);
        }
        let items = chunksize as i64 / ts;
        if items <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let full = nitems / items;
        let left = nitems % items;
        let total = full + i64::from(left != 0);
        if total > (i32::MAX as i64) / 8 || nitems > i64::MAX / ts {
            return Err(ErrorKind::SchunkSpecial);
        }
        let p = CParams {
            blocksize: self.blocksize,
            ..self.cparams.clone()
        };
        let mk = |nb: i32| -> Result<Vec<u8>> {
            let mut out = vec![0u8; EXTENDED_HEADER_LENGTH];
            let n = make_special(&p, kind, nb, None, &mut out)?;
            out.truncate(n);
            Ok(out)
        };
        let full_chunk = mk(chunksize)?;
        let left_chunk = mk((left * ts) as i32)?;
        self.entries.clear();
        self.chunksize = chunksize;
        for i in 0..total {
            let (c, nb) = if i < full {
                (&full_chunk, chunksize)
            } else {
                (&left_chunk, (left * ts) as i32)
            };
            let slot = if self.is_frame() {
                Slot::Special(kind)
            } else {
                self.cbytes += c.len() as i64;
                Slot::Data(c.clone())
            };
            let digest = self.digest_for(c, self.is_frame());
            self.entries.push(Entry {
                slot,
                nbytes: nb,
                digest,
            });
        }
        self.nbytes = nitems * ts;
        if self.is_frame() {
            self.repeat_index = true;
            self.blocksize = ChunkHeader::read(&full_chunk)?.blocksize;
        }
        self.flush()?;
        Ok(self.nchunks())
    }
}
