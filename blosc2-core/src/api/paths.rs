//! The file-system steps the typed API takes before handing a path to the
//! engine: a missing input named with its OS error, an old output removed.

use crate::error::{Error, ErrorKind, Reason};
use crate::frame::header::{pos, HEADER_MINLEN};
use std::io::{self, Read};
use std::path::Path;

/// Fails with `FileOpen`, the path and the OS error when `path` cannot be
/// looked at (the engine would say only "file open failure").
pub(crate) fn must_exist(path: &Path) -> Result<(), Error> {
    match std::fs::metadata(path) {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::new(ErrorKind::FileOpen)
            .with_path(path)
            .with_source(e)),
    }
}

/// Removes what is at `path` (a directory too when `dirs`), as
/// `File::create` replaces a file: upstream's `blosc2_schunk_new` refuses to
/// write over an existing frame.
pub(crate) fn remove_existing(path: &Path, dirs: bool) -> Result<(), Error> {
    let r = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => Err(e),
        Ok(m) if dirs && m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    };
    r.map_err(|e| {
        Error::new(ErrorKind::FileRemove)
            .with_path(path)
            .with_source(e)
    })
}

/// Why a contiguous frame of `actual` bytes, starting with `head`, could
/// not be read, when its first bytes tell: not a frame at all, or shorter
/// than its header says (the engine reports both as a bad header).
pub(crate) fn frame_reason(head: &[u8], actual: u64) -> Option<Reason> {
    let magic = head.get(2..).unwrap_or_default();
    let n = magic.len().min(MAGIC.len());
    if magic[..n] != MAGIC[..n] {
        return Some(Reason::NotAFrame);
    }
    let announced = head
        .get(pos::FRAME_LEN..pos::FRAME_LEN + 8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(i64::from_be_bytes)
        .and_then(|l| u64::try_from(l).ok());
    let expected = match announced {
        Some(len) => len,
        None => HEADER_MINLEN as u64,
    };
    (expected > actual).then_some(Reason::Truncated { expected, actual })
}

/// The magic string a frame header holds from byte 2 on.
const MAGIC: &[u8] = b"b2frame";

/// `err` from opening the frame file at `path`, with what its first bytes
/// tell about it (see [`frame_reason`]).
pub(crate) fn open_error(err: Error, path: &Path) -> Error {
    let err = err.with_path(path);
    let Ok(f) = std::fs::File::open(path) else {
        return err;
    };
    let Ok(meta) = f.metadata() else {
        return err;
    };
    if !meta.is_file() {
        return err;
    }
    let mut head = Vec::with_capacity(HEADER_MINLEN);
    if f.take(HEADER_MINLEN as u64).read_to_end(&mut head).is_err() {
        return err;
    }
    match frame_reason(&head, meta.len()) {
        Some(r) => err.with_reason(r),
        None => err,
    }
}
