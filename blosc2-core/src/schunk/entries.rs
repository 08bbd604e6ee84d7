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
        if let Some(o) = index.constant() {
            frame::check_offset(o, sparse, data_len)?;
        }
        Ok(Base {
            index,
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
        self.index.len() as usize
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

/// See the module documentation.
#[derive(Clone, Default)]
pub(super) struct Entries {
    /// Entries `0..base_len` not in `edits` come from here.
    base: Option<Arc<Base>>,
    base_len: usize,
    edits: BTreeMap<usize, Entry>,
    /// Entries from `base_len` on (all of them without a base).
    tail: Vec<Entry>,
}

impl Entries {
    pub(super) fn lazy(base: Base) -> Entries {
        Entries {
            base_len: base.len(),
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
        // (a plain list is walked as the slice it is: flushes walk it all)
        let read = (0..self.base_len).map(|i| self.get(i));
        read.chain(self.tail.iter().map(|e| Ok(Cow::Borrowed(e))))
    }

    pub(super) fn to_vec(&self) -> Result<Vec<Entry>> {
        self.iter().map(|e| e.map(Cow::into_owned)).collect()
    }

    /// Keep the first `n` entries.
    pub(super) fn truncate(&mut self, n: usize) -> Result<()> {
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
