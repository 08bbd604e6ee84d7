//! The file-system steps the typed API takes before handing a path to the
//! engine: a missing input named with its OS error, an old output removed.

use crate::error::{Error, ErrorKind};
use std::io;
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
