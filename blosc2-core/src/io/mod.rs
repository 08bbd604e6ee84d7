//! I/O backends: every file access of the frame code goes through
//! [`Backend`], so the default filesystem backend, memory-mapped files and
//! user callbacks (registered through the C API) are interchangeable.

pub(crate) mod positional;
pub mod stdio;

use crate::error::{ErrorKind, Result};
use std::path::Path;
use std::sync::Arc;

/// How a file is opened, as the reference's fopen modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// "rb": read only, must exist.
    Read,
    /// "rb+": read and write, must exist.
    Update,
    /// "wb": created or truncated, written.
    Create,
    /// "ab": created if missing, writes go at the end.
    Append,
}

/// An open file of a backend. Positions are absolute.
pub trait Stream: Send {
    fn size(&mut self) -> Result<u64>;
    /// Read exactly `buf.len()` bytes at `pos`.
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()>;
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()>;
    fn truncate(&mut self, size: u64) -> Result<()>;
    /// Which file this stream reads (device and inode), where the backend
    /// can tell; see [`Backend::identity`].
    fn identity(&mut self) -> Option<(u64, u64)> {
        None
    }
    /// `len` bytes at `pos` in a new buffer (backends may skip zeroing it).
    fn read_vec_at(&mut self, pos: u64, len: usize) -> Result<Vec<u8>> {
        // Lengths come from headers: a damaged one claiming gigabytes must
        // not have them zeroed before the short read is found (a 36-byte
        // chunk file claimed 879 MB through a user I/O backend).
        let end = pos.checked_add(len as u64).ok_or(ErrorKind::FileRead)?;
        if end > self.size()? {
            return Err(ErrorKind::FileRead);
        }
        let mut v = crate::spare::zeroed(len)?;
        self.read_exact_at(pos, &mut v)?;
        Ok(v)
    }
}

/// A way of opening files.
pub trait Backend: Send + Sync {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn Stream>>;
    /// Whether [`Backend::replace`] works, so a file can be rewritten by
    /// writing a new one and putting it in place at once.
    fn can_replace(&self) -> bool {
        false
    }
    /// Which file `path` names now (device and inode), where the backend
    /// can tell: a stream whose identity differs reads a file that was
    /// replaced since it was opened.
    fn identity(&self, _path: &Path) -> Option<(u64, u64)> {
        None
    }
    /// Atomically put file `from` in place of `to`.
    fn replace(&self, _from: &Path, _to: &Path) -> Result<()> {
        Err(ErrorKind::FileWrite)
    }
    /// Get rid of file `path` (a sparse frame's chunk file that no index
    /// names any more). A backend that cannot delete files, as a C
    /// `blosc2_io_cb` (it has no such callback), empties it instead: the
    /// name may mean something else than a file of the real filesystem, so
    /// nothing outside the backend may be touched, and an empty file left
    /// behind is harmless (a sparse frame only reads the chunk files its
    /// index names, and creating one truncates it).
    fn remove(&self, path: &Path) -> Result<()> {
        self.open(path, Mode::Update)?.truncate(0)
    }
}

/// The default backend (`BLOSC2_IO_FILESYSTEM`).
pub fn default_backend() -> Arc<dyn Backend> {
    Arc::new(stdio::Stdio)
}

/// Read `len` bytes at `pos` into a new buffer.
pub fn read_vec(s: &mut dyn Stream, pos: u64, len: usize) -> Result<Vec<u8>> {
    s.read_vec_at(pos, len)
}

/// Map an OS error on open to the reference's code, tracing which file
/// and why.
pub(crate) fn open_err(path: &Path, e: std::io::Error) -> ErrorKind {
    crate::traced!(
        ErrorKind::FileOpen,
        "Cannot open file '{}': {e}",
        path.display()
    )
}

/// Bytes in memory (a file read whole, standard input) read as a file
/// would be, with the same errors past their end; they cannot be written.
pub struct Bytes<B = Vec<u8>>(pub B);

impl<B: AsRef<[u8]> + Send> Stream for Bytes<B> {
    fn size(&mut self) -> Result<u64> {
        Ok(self.0.as_ref().len() as u64)
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let at = usize::try_from(pos).map_err(|_| ErrorKind::FileRead)?;
        let src = at
            .checked_add(buf.len())
            .and_then(|end| self.0.as_ref().get(at..end))
            .ok_or(ErrorKind::FileRead)?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn write_all_at(&mut self, _: u64, _: &[u8]) -> Result<()> {
        Err(ErrorKind::FileWrite)
    }
    fn truncate(&mut self, _: u64) -> Result<()> {
        Err(ErrorKind::FileTruncate)
    }
}
