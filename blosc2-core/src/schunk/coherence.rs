//! Several handles (and processes) on one frame on disk: noticing that
//! another one changed the frame and reading its state back, and the
//! opt-in frame lock (see `lock`) taken around reads and writes.
//!
//! Separate because it is the only part that deals with changes made
//! elsewhere; every read and mutation goes through it first.

use super::{lock, Backing, SuperChunk};
use crate::error::{ErrorKind, Result};
use crate::frame::header as fh;
use crate::frame::sframe;
use crate::io::{Backend, Mode};
use std::path::Path;
use std::sync::Arc;

impl SuperChunk {
    /// Bytes that change whenever the frame on disk does: the fixed header
    /// of a contiguous frame (every change moves its end), the whole index
    /// file of a sparse one. Empty in memory.
    pub(super) fn disk_mark(&self) -> Result<Vec<u8>> {
        match &self.backing {
            Backing::File { base, path, .. } => {
                let base = *base;
                // a file replaced under this handle (unlinked, another one
                // moved in) would go on being read through the cached
                // stream: read the new one instead, which then differs
                self.drop_replaced_reader(path)?;
                let mut b = vec![0u8; fh::HEADER_MINLEN];
                self.with_reader(|s| s.read_exact_at(base, &mut b))?;
                Ok(b)
            }
            Backing::Dir { path } => {
                let mut s = self.io.open(&sframe::index_path(path), Mode::Read)?;
                let n = s.size()?;
                crate::io::read_vec(s.as_mut(), 0, n as usize)
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Forget the cached read streams when `path` now names another file.
    fn drop_replaced_reader(&self, path: &Path) -> Result<()> {
        let Some(now) = self.io.identity(path) else {
            return Ok(());
        };
        self.readers
            .forget_if(|s| s.identity().is_some_and(|open| open != now))
    }

    /// Read the frame back if another handle changed it since this one
    /// last looked (cheap when it did not).
    pub(super) fn catch_up(&mut self) -> Result<bool> {
        if !matches!(self.backing, Backing::File { .. } | Backing::Dir { .. }) {
            return Ok(false);
        }
        if let Some(t) = self.torn.take() {
            if t.repair(self.io.as_ref()).is_err() {
                self.torn = Some(t);
            }
        }
        if self.disk_mark()? == self.seen {
            return Ok(false);
        }
        self.reload()
    }

    /// Serialize this handle's accesses to its frame on disk with other
    /// handles' (and processes') that do the same (no-op in memory).
    pub fn enable_locking(&mut self) {
        let side = match &self.backing {
            Backing::File { path, .. } => lock::sidecar(path, false),
            Backing::Dir { path } => lock::sidecar(path, true),
            _ => return,
        };
        self.lock = Some(lock::FrameLock::new(side));
    }

    /// Open a frame with locking on ([`Self::open`] then
    /// [`Self::enable_locking`]), reading it under the frame lock shared so
    /// that a writer in another process cannot change it half-way through
    /// the open.
    pub fn open_locking(path: &Path, offset: u64, io: Arc<dyn Backend>) -> Result<SuperChunk> {
        if !path.exists() {
            return SuperChunk::open(path, offset, io);
        }
        let mut l = lock::FrameLock::new(lock::sidecar(path, path.is_dir()));
        l.acquire(false)?;
        let r = SuperChunk::open(path, offset, io);
        let u = l.release();
        let mut sc = r?;
        u?;
        sc.lock = Some(l);
        Ok(sc)
    }

    pub fn locking(&self) -> bool {
        self.lock.is_some()
    }

    /// Take the frame lock exclusively across several operations
    /// (`blosc2_schunk_lock`; re-entrant, no-op without locking). State
    /// another handle changed meanwhile is read back first.
    pub fn lock(&mut self) -> Result<()> {
        self.take_lock(true).map(|_| ())
    }

    /// Release what [`Self::lock`] took.
    pub fn unlock(&mut self) -> Result<()> {
        match &mut self.lock {
            Some(l) => l.release(),
            None => Ok(()),
        }
    }

    /// Take the lock if locking is on; whether the state was read back
    /// because another handle changed the frame.
    pub(super) fn take_lock(&mut self, exclusive: bool) -> Result<bool> {
        let Some(l) = &mut self.lock else {
            return Ok(false);
        };
        if l.acquire(exclusive)? {
            return match self.reload() {
                Ok(changed) => Ok(changed),
                Err(e) => {
                    let _ = self.unlock();
                    Err(e)
                }
            };
        }
        Ok(false)
    }

    /// Re-read counters, chunk index and metalayers from the frame on disk
    /// when another handle changed it (`blosc2_schunk_refresh`); returns
    /// whether anything changed. A no-op in memory.
    pub fn refresh(&mut self) -> Result<bool> {
        if !matches!(self.backing, Backing::File { .. } | Backing::Dir { .. }) {
            return Ok(false);
        }
        let reloaded = self.take_lock(false)?;
        let r = self.catch_up();
        self.unlock()?;
        Ok(r? || reloaded)
    }

    /// Whether the super-chunk lives in a frame on disk, which other
    /// handles may change.
    pub fn on_disk(&self) -> bool {
        matches!(self.backing, Backing::File { .. } | Backing::Dir { .. })
    }

    /// Begin a read as the reference does (its `frame_check_stale`): with
    /// locking, take the frame lock shared and keep it until
    /// [`Self::end_read`], so the read sees no half-applied change; then
    /// read back what other handles changed or replaced. A frame that
    /// cannot be read right now (a writer without locking in the middle of
    /// a change, a file being replaced) keeps this handle's view, as
    /// upstream's does. Returns whether the state was read back.
    pub fn begin_read(&mut self) -> Result<bool> {
        if !self.on_disk() {
            return Ok(false);
        }
        let reloaded = match self.take_lock(false) {
            Ok(r) => r,
            Err(ErrorKind::Lock) => return Err(ErrorKind::Lock),
            Err(_) => false,
        };
        Ok(self.catch_up().unwrap_or(false) || reloaded)
    }

    /// End what [`Self::begin_read`] began.
    pub fn end_read(&mut self) -> Result<()> {
        if self.on_disk() {
            self.unlock()
        } else {
            Ok(())
        }
    }

    /// Adopt what the frame on disk holds now; whether it differed.
    pub(super) fn reload(&mut self) -> Result<bool> {
        let (path, base) = match &self.backing {
            Backing::File { path, base, .. } => (path.clone(), *base),
            Backing::Dir { path } => (path.clone(), 0),
            _ => return Ok(false),
        };
        let fresh = SuperChunk::open(&path, base, self.io.clone())?;
        // (the entries last: that may read both indexes)
        let same = fresh.nbytes == self.nbytes
            && fresh.cbytes == self.cbytes
            && fresh.chunksize == self.chunksize
            && fresh.metalayers == self.metalayers
            && fresh.vlmetalayers == self.vlmetalayers
            && fresh.frame_len().ok() == self.frame_len().ok()
            && fresh.entries.same(&self.entries).unwrap_or(false);
        // the file may have been replaced: read through a new stream
        self.readers.forget()?;
        if same {
            self.seen = fresh.seen;
            return Ok(false);
        }
        self.entries = fresh.entries;
        self.appender = None;
        self.gaps = None;
        self.nbytes = fresh.nbytes;
        self.cbytes = fresh.cbytes;
        self.chunksize = fresh.chunksize;
        self.flags2 = fresh.flags2;
        self.metalayers = fresh.metalayers;
        self.vlmetalayers = fresh.vlmetalayers;
        self.backing = fresh.backing;
        self.seen = fresh.seen;
        self.adopt_sums(fresh.sums);
        self.repeat_index = false;
        Ok(true)
    }
}
