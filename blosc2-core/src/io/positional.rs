//! Positioned reads and writes and file identity on `std::fs::File`, the
//! same on Unix and Windows, for the filesystem backend and frame locks.
//!
//! Unix has `pread`/`pwrite` (`FileExt::read_exact_at`/`write_all_at`),
//! which leave the file position alone. Windows' `seek_read`/`seek_write`
//! move it and may transfer fewer bytes than asked, so they are looped
//! here; nothing in this crate relies on the file position between calls
//! (streamed reads seek first).

use std::fs::File;
use std::io;
use std::path::Path;

/// Fill `buf` from `pos`; a file that ends first is an `UnexpectedEof`.
pub(crate) fn read_exact_at(f: &File, buf: &mut [u8], pos: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(f, buf, pos)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            let at = pos
                .checked_add(done as u64)
                .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
            match std::os::windows::fs::FileExt::seek_read(f, &mut buf[done..], at) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// As many bytes as the file has at `pos`, up to `buf.len()`, in one call.
pub(crate) fn read_at(f: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(f, buf, pos)
    }
    #[cfg(windows)]
    {
        match std::os::windows::fs::FileExt::seek_read(f, buf, pos) {
            // reading at or past the end is an error on Windows, 0 on Unix
            Err(e) if e.raw_os_error() == Some(38) => Ok(0), // ERROR_HANDLE_EOF
            r => r,
        }
    }
}

/// Write all of `data` at `pos`.
pub(crate) fn write_all_at(f: &File, data: &[u8], pos: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::write_all_at(f, data, pos)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < data.len() {
            let at = pos
                .checked_add(done as u64)
                .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
            match std::os::windows::fs::FileExt::seek_write(f, &data[done..], at) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Which file `path` names (a key equal for two paths of one file, as a
/// device and inode pair is on Unix), or None when it cannot be told.
pub(crate) fn identity_of_path(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(windows)]
    {
        same_file::Handle::from_path(path).ok().map(|h| key(&h))
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = path;
        None
    }
}

/// [`identity_of_path`] of an open file.
pub(crate) fn identity_of_file(f: &File) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        f.metadata().ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(windows)]
    {
        // same_file takes the handle over; a duplicate keeps `f` open
        let dup = f.try_clone().ok()?;
        same_file::Handle::from_file(dup).ok().map(|h| key(&h))
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = f;
        None
    }
}

/// Windows: the volume serial number and file index behind a handle, which
/// same_file compares and hashes, reduced to the backends' key (std's own
/// accessors for them are unstable). A 64-bit hash of the pair only has to
/// tell apart the few files one process has open.
#[cfg(windows)]
fn key(h: &same_file::Handle) -> (u64, u64) {
    use std::hash::{Hash, Hasher};
    let mut s = std::collections::hash_map::DefaultHasher::new();
    h.hash(&mut s);
    (0, s.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    #[test]
    fn positioned_io_and_identity() {
        let dir = std::env::temp_dir().join(format!("b2-positional-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.bin");
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&p)
            .unwrap();
        write_all_at(&f, b"hello world", 0).unwrap();
        write_all_at(&f, b"W", 6).unwrap();
        let mut b = [0u8; 5];
        read_exact_at(&f, &mut b, 6).unwrap();
        assert_eq!(&b, b"World");
        // past the end: a short read, then an error for exact reads
        let mut big = [0u8; 8];
        assert_eq!(read_at(&f, &mut big, 8).unwrap(), 3);
        assert_eq!(read_at(&f, &mut big, 100).unwrap(), 0);
        assert!(read_exact_at(&f, &mut big, 8).is_err());
        // the same file by path and by handle; another file differs
        let id = identity_of_path(&p).expect("identity");
        assert_eq!(identity_of_file(&f), Some(id));
        let q = dir.join("g.bin");
        std::fs::write(&q, b"x").unwrap();
        assert_ne!(identity_of_path(&q), Some(id));
        drop(f);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
