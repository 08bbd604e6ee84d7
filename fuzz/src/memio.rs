//! An in-memory I/O backend, so frames on "disk" (contiguous frame files at
//! an offset, sparse frame directories) are fuzzed without touching the
//! file system: every input gets its own set of files, and a run costs no
//! system calls beyond the one `stat` the open path makes.

use blosc2_core::error::{ErrorKind, Result};
use blosc2_core::io::{Backend, Mode, Stream};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

// Keyed by the path's bytes, not by `PathBuf`: hashing a `Path` walks its
// components, which took an eighth of `schunk_ops`'s time. The library
// builds each path one way, so byte equality is the equality that matters.
type Files = Arc<Mutex<HashMap<OsString, Vec<u8>>>>;

/// Files by path; cloning shares them (a super-chunk keeps its own handle
/// of the backend).
#[derive(Clone, Default)]
pub struct MemBackend {
    files: Files,
}

struct MemStream {
    files: Files,
    path: OsString,
}

impl MemBackend {
    pub fn new() -> MemBackend {
        MemBackend::default()
    }

    pub fn insert(&self, path: PathBuf, data: Vec<u8>) {
        self.files
            .lock()
            .unwrap()
            .insert(path.into_os_string(), data);
    }

    /// A copy of file `path`'s bytes, if it exists.
    pub fn get(&self, path: &Path) -> Option<Vec<u8>> {
        self.files.lock().unwrap().get(path.as_os_str()).cloned()
    }
}

impl Backend for MemBackend {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn Stream>> {
        let mut files = self.files.lock().map_err(|_| ErrorKind::FileOpen)?;
        match mode {
            Mode::Read | Mode::Update => {
                if !files.contains_key(path.as_os_str()) {
                    return Err(ErrorKind::FileOpen);
                }
            }
            Mode::Create => {
                files.insert(path.as_os_str().to_owned(), Vec::new());
            }
            Mode::Append => {
                files.entry(path.as_os_str().to_owned()).or_default();
            }
        }
        Ok(Box::new(MemStream {
            files: self.files.clone(),
            path: path.as_os_str().to_owned(),
        }))
    }
    // Moving a map entry is atomic, as a rename is, so frames in memory are
    // rewritten the way they are on disk: new file, then put in place.
    fn can_replace(&self) -> bool {
        true
    }
    fn replace(&self, from: &Path, to: &Path) -> Result<()> {
        let mut files = self.files.lock().map_err(|_| ErrorKind::FileWrite)?;
        let data = files.remove(from.as_os_str()).ok_or(ErrorKind::FileWrite)?;
        files.insert(to.as_os_str().to_owned(), data);
        Ok(())
    }
}

impl MemStream {
    fn with<T>(&self, f: impl FnOnce(&mut Vec<u8>) -> Result<T>) -> Result<T> {
        let mut files = self.files.lock().map_err(|_| ErrorKind::FileRead)?;
        // a file removed behind an open stream reads as gone, as an
        // unlinked file would not on POSIX; the frame code must cope either way
        let file = files.get_mut(&self.path).ok_or(ErrorKind::FileRead)?;
        f(file)
    }
}

impl Stream for MemStream {
    fn size(&mut self) -> Result<u64> {
        self.with(|f| Ok(f.len() as u64))
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.with(|f| {
            let at = usize::try_from(pos).map_err(|_| ErrorKind::FileRead)?;
            let end = at.checked_add(buf.len()).ok_or(ErrorKind::FileRead)?;
            let src = f.get(at..end).ok_or(ErrorKind::FileRead)?;
            buf.copy_from_slice(src);
            Ok(())
        })
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.with(|f| {
            let at = usize::try_from(pos).map_err(|_| ErrorKind::FileWrite)?;
            let end = at.checked_add(data.len()).ok_or(ErrorKind::FileWrite)?;
            // a fuzzed offset must not make the harness allocate gigabytes
            if end > crate::MAX_DEST * 4 {
                return Err(ErrorKind::FileWrite);
            }
            if f.len() < end {
                f.resize(end, 0);
            }
            f[at..end].copy_from_slice(data);
            Ok(())
        })
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.with(|f| {
            let n = usize::try_from(size).map_err(|_| ErrorKind::FileTruncate)?;
            if n > crate::MAX_DEST * 4 {
                return Err(ErrorKind::FileTruncate);
            }
            f.resize(n, 0);
            Ok(())
        })
    }
}

/// A real empty directory and a real empty file, made once per process:
/// `SuperChunk::open` asks the file system (as upstream's `stat`) whether
/// its path is a directory before it uses the backend, so the keys of the
/// memory backend must name something that exists.
pub fn real_paths() -> &'static (PathBuf, PathBuf) {
    static PATHS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    PATHS.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        // Shared by every fuzzing process (nothing is ever written to
        // them: only their existence matters), so runs leave no litter
        // behind one per process.
        let dir = base.join("blosc2-fuzz-memio.dir");
        let file = base.join("blosc2-fuzz-memio.file");
        std::fs::create_dir_all(&dir).expect("creating the memio directory");
        if !file.is_file() {
            std::fs::write(&file, b"").expect("creating the memio file");
        }
        (dir, file)
    })
}
