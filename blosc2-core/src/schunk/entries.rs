//! The chunk list of a super-chunk: one [`Entry`] per chunk, in index
//! order.
//!
//! A frame on disk with many chunks is opened with its offsets index
//! unread (see [`index::Lazy`]): the entries of its chunks are made from
//! the index when asked for, a decoded piece of it at a time, with the few
//! last pieces kept. Entries changed in place and chunks appended are held
//! apart; a change that moves entries (insert, delete, reorder) or visits
//! all of them reads the whole index first. Opening and reading a frame of
//! 10^8 chunks thus costs what a frame of 10^3 does.

use super::{Entry, Slot};
use crate::error::{ErrorKind, Result};
use crate::frame::{self, index, StreamSource};
use crate::io::Stream;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

#[cfg(test)]
thread_local! {
    /// Frames of this many chunks and more are opened lazily by the tests
    /// of this thread (the library's threshold otherwise).
    pub(super) static LAZY_FROM_IN_TESTS: std::cell::Cell<Option<u64>> =
        const { std::cell::Cell::new(None) };
}

/// Decoded pieces of the index kept for the next reads.
const KEPT_PIECES: usize = 8;

/// The entries of a frame on disk as its index holds them, read lazily.
pub(super) struct Base {
    index: index::Lazy,
    /// Entries it gives: all of the index's, or those of its full pieces
    /// (the rest are held in memory, see [`Entries::rebase`]).
    len: usize,
    /// The frame file (a sparse frame's index file) and where the frame
    /// starts in it.
    stream: Mutex<Box<dyn Stream>>,
    base: u64,
    sparse: bool,
    /// The chunks section's length, which bounds offsets.
    data_len: i64,
    /// Size of every chunk but the last one, and of that one.
    chunksize: i32,
    last_nbytes: i32,
    /// Recently decoded pieces, most recent last.
    pieces: Mutex<Vec<(u64, Arc<[i64]>)>>,
}

impl Base {
    pub(super) fn new(
        index: index::Lazy,
        stream: Box<dyn Stream>,
        base: u64,
        sparse: bool,
        data_len: i64,
        chunksize: i32,
        nbytes: i64,
    ) -> Result<Base> {
        let n = index.len() as i64;
        if chunksize <= 0 || n == 0 {
            return Err(ErrorKind::Failure);
        }
        let rest = nbytes - (n - 1) * chunksize as i64;
        if rest <= 0 || rest > chunksize as i64 {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Frame of {n} chunks of {chunksize} bytes cannot hold {nbytes} bytes"
            ));
        }
        let len = n as usize;
        if let Some(o) = index.constant() {
            frame::check_offset(o, sparse, data_len)?;
        }
        Ok(Base {
            index,
            len,
            stream: Mutex::new(stream),
            base,
            sparse,
            data_len,
            chunksize,
            last_nbytes: rest as i32,
            pieces: Mutex::new(Vec::new()),
        })
    }

    fn len(&self) -> usize {
        self.len
    }

    fn piece(&self, j: u64) -> Result<Arc<[i64]>> {
        let mut kept = self.pieces.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = kept.iter().position(|(n, _)| *n == j) {
            let p = kept.remove(k);
            let offs = p.1.clone();
            kept.push(p);
            return Ok(offs);
        }
        let offs: Arc<[i64]> = {
            let mut s = self.stream.lock().unwrap_or_else(|p| p.into_inner());
            let mut src = StreamSource {
                stream: s.as_mut(),
                base: self.base,
            };
            let offs = self.index.piece(&mut src, j)?;
            for &o in &offs {
                frame::check_offset(o, self.sparse, self.data_len)?;
            }
            offs.into()
        };
        if kept.len() >= KEPT_PIECES {
            kept.remove(0);
        }
        kept.push((j, offs.clone()));
        Ok(offs)
    }

    fn entry(&self, i: usize) -> Result<Entry> {
        if i >= self.len() {
            return Err(ErrorKind::InvalidIndex);
        }
        let o = match self.index.constant() {
            // (checked once, at open)
            Some(o) => o,
            None => {
                let per = self.index.piece_len();
                let offs = self.piece(i as u64 / per)?;
                *offs
                    .get((i as u64 % per) as usize)
                    .ok_or(ErrorKind::Failure)?
            }
        };
        let slot = match index::offset_special(o)? {
            Some(k) => Slot::Special(k),
            None if self.sparse => Slot::File(o),
            None => Slot::Disk(o),
        };
        let nbytes = if i + 1 == self.len() {
            self.last_nbytes
        } else {
            self.chunksize
        };
        Ok(Entry {
            slot,
            nbytes,
            digest: None,
        })
    }
}

impl Rebase {
    /// Entry `i` was written at offset `at` of the chunks section.
    pub(super) fn place(&mut self, i: usize, at: i64) {
        if let Some(e) = i.checked_sub(self.keep).and_then(|k| self.carry.get_mut(k)) {
            e.slot = Slot::Disk(at);
        }
    }

    /// The entries of an index that cannot be read lazily, from its
    /// `offsets`, all in memory.
    pub(super) fn plain(&self, offsets: &[i64], chunksize: i32) -> Result<Entries> {
        let n = offsets.len();
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(|_| ErrorKind::MemoryAlloc)?;
        for (i, &o) in offsets.iter().enumerate() {
            let slot = match index::offset_special(o)? {
                Some(k) => Slot::Special(k),
                None => Slot::Disk(o),
            };
            let nbytes = if i + 1 == n {
                self.last_nbytes
            } else {
                chunksize
            };
            v.push(Entry {
                slot,
                nbytes,
                digest: None,
            });
        }
        let mut e = Entries::from(v);
        e.mark_clean();
        Ok(e)
    }
}

/// See [`Entries::plan_rebase`].
pub(super) struct Rebase {
    n: usize,
    /// Entries from the index (whole blocks of it), then `carry`.
    keep: usize,
    carry: Vec<Entry>,
    /// Sizes of the last entry and of the last kept one.
    last_nbytes: i32,
    keep_nbytes: i32,
}

/// See the module documentation.
#[derive(Clone, Default)]
pub(super) struct Entries {
    /// Entries `0..base_len` not in `edits` come from here.
    base: Option<Arc<Base>>,
    base_len: usize,
    edits: BTreeMap<usize, Entry>,
    /// Entries from `base_len` on (all of them without a base).
    tail: Vec<Entry>,
    /// Entries before this one are as they were at the last
    /// [`Self::mark_clean`] (only appends happened since, if any).
    clean: usize,
}

impl Entries {
    pub(super) fn lazy(base: Base) -> Entries {
        Entries {
            base_len: base.len(),
            clean: base.len(),
            base: Some(Arc::new(base)),
            edits: BTreeMap::new(),
            tail: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.base_len + self.tail.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether some entries are still only in the frame's index (which is
    /// then the frame on disk as it was read: every write reads it whole
    /// first).
    pub(super) fn is_lazy(&self) -> bool {
        self.base.is_some()
    }

    pub(super) fn get(&self, i: usize) -> Result<Cow<'_, Entry>> {
        if i >= self.base_len {
            return self
                .tail
                .get(i - self.base_len)
                .map(Cow::Borrowed)
                .ok_or(ErrorKind::InvalidIndex);
        }
        if let Some(e) = self.edits.get(&i) {
            return Ok(Cow::Borrowed(e));
        }
        match &self.base {
            Some(b) => b.entry(i).map(Cow::Owned),
            None => Err(ErrorKind::Failure),
        }
    }

    pub(super) fn get_mut(&mut self, i: usize) -> Result<&mut Entry> {
        self.clean = self.clean.min(i);
        if i >= self.base_len {
            return self
                .tail
                .get_mut(i - self.base_len)
                .ok_or(ErrorKind::Failure);
        }
        if !self.edits.contains_key(&i) {
            let e = match &self.base {
                Some(b) => b.entry(i)?,
                None => return Err(ErrorKind::Failure),
            };
            self.edits.insert(i, e);
        }
        self.edits.get_mut(&i).ok_or(ErrorKind::Failure)
    }

    pub(super) fn push(&mut self, e: Entry) {
        self.tail.push(e);
    }

    /// The entries, unless some are still only in the index.
    pub(super) fn plain(&self) -> Option<&[Entry]> {
        self.base.is_none().then_some(&self.tail[..])
    }

    /// All entries in a plain list, reading what the index still holds.
    pub(super) fn vec_mut(&mut self) -> Result<&mut Vec<Entry>> {
        // (the caller may change any entry)
        self.clean = 0;
        if self.base.is_some() {
            let mut all = Vec::new();
            all.try_reserve_exact(self.len())
                .map_err(|_| ErrorKind::MemoryAlloc)?;
            for i in 0..self.base_len {
                all.push(self.get(i)?.into_owned());
            }
            all.append(&mut self.tail);
            *self = Entries {
                tail: all,
                ..Entries::default()
            };
        }
        Ok(&mut self.tail)
    }

    /// Every entry in order (read from the index where needed).
    pub(super) fn iter(&self) -> impl Iterator<Item = Result<Cow<'_, Entry>>> + '_ {
        self.iter_from(0)
    }

    /// The entries from `k` on, with their positions.
    pub(super) fn iter_from(&self, k: usize) -> impl Iterator<Item = Result<Cow<'_, Entry>>> + '_ {
        // (a plain list is walked as the slice it is: flushes walk it all)
        let read = (k.min(self.base_len)..self.base_len).map(|i| self.get(i));
        let skip = k.saturating_sub(self.base_len);
        read.chain(self.tail.iter().skip(skip).map(|e| Ok(Cow::Borrowed(e))))
    }

    /// An appender for the index the entries are read from, when none has
    /// changed since it was read (with the number of entries it holds).
    pub(super) fn seed_appender(&self) -> Result<Option<(usize, index::Appender)>> {
        let Some(b) = &self.base else {
            return Ok(None);
        };
        if self.clean() < self.base_len {
            return Ok(None);
        }
        let mut s = b.stream.lock().unwrap_or_else(|p| p.into_inner());
        let mut src = StreamSource {
            stream: s.as_mut(),
            base: b.base,
        };
        Ok(index::Appender::from_lazy(&b.index, &mut src)?.map(|a| (self.base_len, a)))
    }

    /// How many entries are unchanged since [`Self::mark_clean`].
    pub(super) fn clean(&self) -> usize {
        self.clean.min(self.len())
    }

    /// Note that the entries are what the frame on disk holds now.
    pub(super) fn mark_clean(&mut self) {
        self.clean = self.len();
    }

    /// What [`Self::rebase`] takes from the entries, read before the index
    /// they are read from is overwritten (None for a plain list).
    pub(super) fn plan_rebase(&self) -> Result<Option<Rebase>> {
        if self.base.is_none() || self.is_empty() {
            return Ok(None);
        }
        let n = self.len();
        let keep = n / index::MODIFIED_BLOCK_OFFSETS * index::MODIFIED_BLOCK_OFFSETS;
        // (chunks still to be written get their places with `place`)
        let carry = (keep..n)
            .map(|i| {
                let e = self.get(i)?;
                Ok(match e.slot {
                    Slot::Data(_) => Entry {
                        slot: Slot::Disk(-1),
                        nbytes: e.nbytes,
                        digest: e.digest,
                    },
                    _ => e.into_owned(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Rebase {
            n,
            keep,
            carry,
            last_nbytes: self.get(n - 1)?.nbytes,
            keep_nbytes: match keep {
                0 => 0,
                k => self.get(k - 1)?.nbytes,
            },
        }))
    }

    /// Read the entries from `index`, just written for them at the end of
    /// a chunks section of `data_len` bytes, as `plan` (taken before the
    /// write) says: the entries past its last full block stay in memory,
    /// and the pieces decoded before that are still the same are kept, so
    /// an append decodes nothing again. `reopen` gives a stream when the
    /// old one is still shared.
    pub(super) fn rebase(
        &mut self,
        plan: Rebase,
        index: index::Lazy,
        data_len: i64,
        reopen: impl FnOnce() -> Result<Box<dyn Stream>>,
    ) -> Result<()> {
        let Some(old) = self.base.take() else {
            return Err(ErrorKind::Failure);
        };
        if index.len() as usize != plan.n {
            return Err(ErrorKind::Failure);
        }
        let per = index.piece_len() as usize;
        let split = per == index::MODIFIED_BLOCK_OFFSETS && plan.keep > 0;
        let (len, last_nbytes, tail) = if split {
            (plan.keep, plan.keep_nbytes, plan.carry)
        } else {
            (plan.n, plan.last_nbytes, Vec::new())
        };
        // pieces of blocks that were full already are the same in both
        let old_full = old.index.len() as usize / per * per;
        let pieces: Vec<(u64, Arc<[i64]>)> = old
            .pieces
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(j, _)| (*j as usize + 1) * per <= old_full.min(len))
            .cloned()
            .collect();
        let (base, sparse, chunksize) = (old.base, old.sparse, old.chunksize);
        let stream = match Arc::try_unwrap(old) {
            Ok(b) => b.stream.into_inner().unwrap_or_else(|p| p.into_inner()),
            Err(_) => reopen()?,
        };
        let b = Base {
            index,
            len,
            stream: Mutex::new(stream),
            base,
            sparse,
            data_len,
            chunksize,
            last_nbytes,
            pieces: Mutex::new(pieces),
        };
        *self = Entries {
            base_len: len,
            clean: plan.n,
            base: Some(Arc::new(b)),
            edits: BTreeMap::new(),
            tail,
        };
        Ok(())
    }

    pub(super) fn to_vec(&self) -> Result<Vec<Entry>> {
        self.iter().map(|e| e.map(Cow::into_owned)).collect()
    }

    /// Keep the first `n` entries.
    pub(super) fn truncate(&mut self, n: usize) -> Result<()> {
        self.clean = self.clean.min(n);
        if n >= self.base_len {
            self.tail.truncate(n - self.base_len);
            return Ok(());
        }
        self.vec_mut()?.truncate(n);
        Ok(())
    }

    pub(super) fn clear(&mut self) {
        *self = Entries::default();
    }

    /// Whether both hold the same entries.
    pub(super) fn same(&self, other: &Entries) -> Result<bool> {
        if self.len() != other.len() {
            return Ok(false);
        }
        for i in 0..self.len() {
            if *self.get(i)? != *other.get(i)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl From<Vec<Entry>> for Entries {
    fn from(tail: Vec<Entry>) -> Entries {
        Entries {
            tail,
            ..Entries::default()
        }
    }
}
