//! How a mutation reaches storage, all or nothing: every mutation runs as
//! one step ([`SuperChunk::transact`]) that restores the previous state
//! and removes the chunk files it wrote when it fails, and ends by
//! bringing the frame on disk up to date (`flush`, or `rewrite` for a
//! whole new frame) in an order that leaves a valid frame at every point.
//!
//! Separate from the mutations themselves, which only change the entries
//! and call `flush`; `layout` does the writing of a contiguous frame file.

use super::entries::Entries;
use super::{Backing, Slot, SuperChunk};
use crate::error::Result;
use crate::frame::header as fh;
use crate::frame::sframe;
use crate::io::Mode;
use crate::metalayers::Metalayer;

/// What a failed operation restores.
struct Snapshot {
    /// None when the operation only appends entries: then the first
    /// `nentries` are kept (copying them all would make appends quadratic).
    entries: Option<Entries>,
    nentries: usize,
    chunksize: i32,
    blocksize: i32,
    nbytes: i64,
    cbytes: i64,
    flags2: u8,
    backing: Backing,
    repeat_index: bool,
    metalayers: Vec<Metalayer>,
    vlmetalayers: Vec<Metalayer>,
}

/// Bytes of a file that a failed write may have half replaced (a short
/// write writes a prefix) and that the write putting the old bytes back
/// could not restore either: a frame header or a sparse frame's index file
/// neither frame can be read from.
pub(super) struct Torn {
    path: std::path::PathBuf,
    pos: u64,
    old: Vec<u8>,
    new: Vec<u8>,
    /// The file's length before the failed write, when it must be cut back.
    len: Option<u64>,
}

impl Torn {
    pub(super) fn new(
        path: &std::path::Path,
        pos: u64,
        old: &[u8],
        new: &[u8],
        len: Option<u64>,
    ) -> Self {
        Torn {
            path: path.to_path_buf(),
            pos,
            old: old.to_vec(),
            new: new.to_vec(),
            len,
        }
    }

    /// Put the old bytes back, unless the file holds anything but old and
    /// new ones there now (then someone else has written it since).
    pub(super) fn repair(&self, io: &dyn crate::io::Backend) -> Result<()> {
        let mut s = io.open(&self.path, Mode::Update)?;
        let now = crate::io::read_vec(s.as_mut(), self.pos, self.old.len())?;
        let ours = now
            .iter()
            .enumerate()
            .all(|(i, b)| *b == self.old[i] || self.new.get(i) == Some(b));
        if ours {
            s.write_all_at(self.pos, &self.old)?;
            if let Some(l) = self.len {
                s.truncate(l)?;
            }
        }
        Ok(())
    }
}

impl SuperChunk {
    /// Run a mutation as one step: if it fails, the super-chunk is as it
    /// was (its frame on disk was never left invalid, see `flush`), and
    /// chunk files it wrote are removed; if it succeeds, chunk files it made
    /// unused are.
    pub(super) fn transact<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.transact_with(|_| false, f)
    }

    /// [`Self::transact`] for an operation that, when `append_only` says
    /// so (asked once the state is current), leaves the existing entries
    /// alone.
    pub(super) fn transact_with<T>(
        &mut self,
        append_only: impl FnOnce(&Self) -> bool,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.take_lock(true)?;
        // a mutation applies to the frame as it is now, not as this handle
        // last saw it: writing a stale index would lose other handles' work
        if let Err(e) = self.catch_up() {
            let _ = self.unlock();
            return Err(e);
        }
        let append_only = append_only(self);
        let r = self.transact_locked(append_only, f);
        let u = self.unlock();
        let v = r?;
        u?;
        Ok(v)
    }

    fn transact_locked<T>(
        &mut self,
        append_only: bool,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        // chunks held in memory are never lost half-way: no copy needed
        let snap =
            matches!(self.backing, Backing::File { .. } | Backing::Dir { .. }).then(|| Snapshot {
                entries: (!append_only).then(|| self.entries.clone()),
                nentries: self.entries.len(),
                chunksize: self.chunksize,
                blocksize: self.blocksize,
                nbytes: self.nbytes,
                cbytes: self.cbytes,
                flags2: self.flags2,
                backing: self.backing.clone(),
                repeat_index: self.repeat_index,
                metalayers: self.metalayers.clone(),
                vlmetalayers: self.vlmetalayers.clone(),
            });
        self.created.clear();
        self.obsolete.clear();
        self.dropped.clear();
        self.anchor = None;
        self.disk_moved = false;
        let r = f(self);
        self.dropped.clear();
        self.anchor = None;
        let moved = std::mem::take(&mut self.disk_moved);
        let created = std::mem::take(&mut self.created);
        let obsolete = std::mem::take(&mut self.obsolete);
        match r {
            Ok(v) => {
                // through the backend: a user's need not be the filesystem
                if let Backing::Dir { path } = &self.backing {
                    for id in obsolete {
                        let _ = self.io.remove(&sframe::chunk_path(path, id));
                    }
                }
                Ok(v)
            }
            Err(e) => {
                self.appender = None;
                if let Some(s) = snap {
                    match s.entries {
                        Some(e) => self.entries = e,
                        // (appends leave the first entries as they were)
                        None => {
                            let _ = self.entries.truncate(s.nentries);
                        }
                    }
                    self.chunksize = s.chunksize;
                    self.blocksize = s.blocksize;
                    self.nbytes = s.nbytes;
                    self.cbytes = s.cbytes;
                    self.flags2 = s.flags2;
                    self.backing = s.backing;
                    self.repeat_index = s.repeat_index;
                    self.metalayers = s.metalayers;
                    self.vlmetalayers = s.vlmetalayers;
                }
                // the frame on disk holds the old content, but its chunks
                // may be copies elsewhere now: read where they are (or, if
                // that fails too, let the next access do it)
                if moved {
                    if self.reload().is_err() {
                        self.seen.clear();
                    }
                    // the frame read back keeps its chunks past a gap
                    if let Backing::File { data_len, .. } = self.backing {
                        self.gaps = Some((0, data_len));
                    }
                }
                for p in created {
                    let _ = self.io.remove(&p);
                }
                Err(e)
            }
        }
    }

    /// Bring the on-disk frame up to date after a change. The frame on
    /// disk stays valid until the last write: new chunks and the new index
    /// and trailer go after everything it uses, then its header is
    /// overwritten (a sparse frame's index file is replaced by renaming a
    /// new one over it where the backend can).
    pub(super) fn flush(&mut self) -> Result<()> {
        // the writes below may overwrite the index entries are still read
        // from (a frame file's flush knows when they do not)
        if matches!(self.backing, Backing::Dir { .. }) {
            self.entries.vec_mut()?;
        }
        self.pristine_len = None;
        self.wrote_frame();
        match &self.backing {
            Backing::Chunks | Backing::MemFrame => Ok(()),
            Backing::Dir { path, .. } => {
                let p = self.parts(true, 0)?;
                let mut buf = p.header;
                buf.extend_from_slice(&p.index);
                buf.extend_from_slice(&p.trailer);
                let dst = sframe::index_path(path);
                let tmp = path.join(format!("{}.tmp", sframe::INDEX_FILE));
                if self.io.can_replace() {
                    let mut s = self.io.open(&tmp, Mode::Create)?;
                    s.write_all_at(0, &buf)?;
                    drop(s);
                    self.io.replace(&tmp, &dst)?;
                } else {
                    // as upstream: overwrite in place, then cut what a
                    // longer old index left behind (user backends see the
                    // same open/write/truncate calls as with the reference)
                    // (an index this handle never saw is made anew: user
                    // backends may not report a missing file on "rb+")
                    let mode = if self.seen.is_empty() {
                        Mode::Create
                    } else {
                        Mode::Update
                    };
                    let mut s = self.io.open(&dst, mode)?;
                    let r = s
                        .write_all_at(0, &buf)
                        .and_then(|_| s.truncate(buf.len() as u64));
                    if let Err(e) = r {
                        // a short write leaves part of the new index over
                        // the old one, a file neither frame can read: put
                        // the old one back (all a backend that cannot
                        // replace files allows)
                        if !self.seen.is_empty() {
                            let old = &self.seen;
                            let back = s
                                .write_all_at(0, old)
                                .and_then(|_| s.truncate(old.len() as u64));
                            if back.is_err() {
                                let len = Some(old.len() as u64);
                                self.torn = Some(Torn::new(&dst, 0, old, &buf, len));
                            }
                        }
                        return Err(e);
                    }
                }
                self.seen = buf;
                Ok(())
            }
            Backing::File { .. } => self.flush_file(),
        }
    }

    /// Write the whole frame anew (new frames, header size changes), which
    /// also compacts the holes updates left in a contiguous file.
    pub(super) fn rewrite(&mut self) -> Result<()> {
        self.appender = None;
        match &self.backing {
            Backing::Chunks | Backing::MemFrame => Ok(()),
            Backing::Dir { .. } => self.flush(),
            Backing::File { path, base, .. } => {
                let (path, base) = (path.clone(), *base);
                let mut data = Vec::new();
                let mut new_entries = self.entries.to_vec()?;
                for (i, e) in new_entries.iter_mut().enumerate() {
                    if let Slot::Special(_) = e.slot {
                        continue;
                    }
                    let c = self.chunk(i as i64)?;
                    e.slot = Slot::Disk(data.len() as i64);
                    data.extend_from_slice(&c);
                }
                let old = std::mem::replace(&mut self.entries, new_entries.into());
                let p = match self.parts(false, data.len() as i64) {
                    Ok(p) => p,
                    Err(e) => {
                        self.entries = old;
                        return Err(e);
                    }
                };
                let mode = if base == 0 {
                    Mode::Create
                } else {
                    Mode::Update
                };
                let mut s = self.io.open(&path, mode)?;
                let tail_len = (p.index.len() + p.trailer.len()) as i64;
                let mut buf = p.header;
                let hl = buf.len() as i64;
                buf.extend_from_slice(&data);
                buf.extend_from_slice(&p.index);
                buf.extend_from_slice(&p.trailer);
                s.write_all_at(base, &buf)?;
                s.truncate(base + buf.len() as u64)?;
                self.seen = buf[..fh::HEADER_MINLEN].to_vec();
                self.gaps = None;
                self.backing = Backing::File {
                    path,
                    base,
                    header_len: hl,
                    data_len: data.len() as i64,
                    dead_tail: tail_len,
                };
                self.readers.forget()?;
                Ok(())
            }
        }
    }
}
