//! Opt-in locking of frames on disk, so one process can change a frame
//! while others read it. The lock is an advisory `flock` on a sidecar file
//! (`<frame>.b2lock` beside a contiguous frame, `.b2lock` inside a sparse
//! one), as the reference 3.x uses: readers share it, writers hold it
//! alone. The sidecar also holds a change counter at byte 8 that every
//! writer bumps, so a handle learns that another one changed the frame.
//!
//! The lock belongs to the open sidecar, not to the process, on both
//! systems: `File::lock` is `flock` on Unix (held by the open file
//! description, so two handles of one process exclude each other as two
//! processes do) and `LockFileEx` on Windows (held by the file handle).
//! Windows' locks are mandatory, but only this module reads and writes the
//! sidecar, always holding the lock.

use crate::error::{ErrorKind, Result};
use crate::io::positional;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// Where the change counter sits in the sidecar.
const SEQ_AT: u64 = 8;

/// The sidecar lock file of the frame at `urlpath`.
pub(super) fn sidecar(urlpath: &Path, sparse: bool) -> PathBuf {
    if sparse {
        urlpath.join(".b2lock")
    } else {
        let mut s = urlpath.as_os_str().to_owned();
        s.push(".b2lock");
        PathBuf::from(s)
    }
}

/// One handle's lock on a frame; re-entrant.
pub(super) struct FrameLock {
    path: PathBuf,
    file: Option<File>,
    depth: u32,
    /// The change counter as this handle last left or saw it.
    seq: u64,
}

impl FrameLock {
    pub(super) fn new(path: PathBuf) -> FrameLock {
        FrameLock {
            path,
            file: None,
            depth: 0,
            seq: 0,
        }
    }

    /// Take the lock (nested calls only count). Returns whether another
    /// handle changed the frame since this one last held it.
    pub(super) fn acquire(&mut self, exclusive: bool) -> Result<bool> {
        if self.depth > 0 {
            self.depth += 1;
            return Ok(false);
        }
        if self.file.is_none() {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.path)
                .map_err(|_| ErrorKind::Lock)?;
            self.file = Some(f);
        }
        let f = self.file.as_ref().ok_or(ErrorKind::Lock)?;
        if exclusive {
            f.lock().map_err(|_| ErrorKind::Lock)?;
        } else {
            f.lock_shared().map_err(|_| ErrorKind::Lock)?;
        }
        let mut b = [0u8; 8];
        // a fresh (short) sidecar counts as 0
        let seq = match positional::read_at(f, &mut b, SEQ_AT) {
            Ok(8) => u64::from_ne_bytes(b),
            Ok(_) => 0,
            Err(_) => {
                let _ = self.unlock_file();
                return Err(ErrorKind::Lock);
            }
        };
        let now = if exclusive { seq.wrapping_add(1) } else { seq };
        if exclusive && positional::write_all_at(f, &now.to_ne_bytes(), SEQ_AT).is_err() {
            let _ = self.unlock_file();
            return Err(ErrorKind::Lock);
        }
        let changed = seq != self.seq;
        self.seq = now;
        self.depth = 1;
        Ok(changed)
    }

    pub(super) fn release(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Ok(());
        }
        self.depth -= 1;
        if self.depth > 0 {
            return Ok(());
        }
        self.unlock_file()
    }

    #[cfg(not(windows))]
    fn unlock_file(&mut self) -> Result<()> {
        match &self.file {
            Some(f) => f.unlock().map_err(|_| ErrorKind::Lock),
            None => Ok(()),
        }
    }

    /// On Windows the lock goes with the handle: closing it releases the
    /// lock (the next `acquire` opens the sidecar again). `File::unlock`
    /// cannot be trusted to say whether it did: it unlocks twice (a handle
    /// may hold a shared and an exclusive lock at once) and takes
    /// `ERROR_NOT_LOCKED` from the second call as success, but wine answers
    /// `ERROR_LOCK_VIOLATION` there, so every release of a lock it had
    /// released failed with `Lock`.
    #[cfg(windows)]
    fn unlock_file(&mut self) -> Result<()> {
        self.file = None;
        Ok(())
    }
}
