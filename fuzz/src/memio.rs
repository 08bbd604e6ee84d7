//! An in-memory I/O backend, so that frames are fuzzed without touching the
//! file system: every "file" is a byte vector in a map.
//!
//! `SuperChunk::open` first asks the real file system whether the path is a
//! directory (as upstream does with `stat`), so the paths used here are a
//! real empty directory and a real empty file, made once per process; their
//! contents come from the map.

use blosc2_core::error::{ErrorKind, Result};
use blosc2_core::io::{Backend, Mode, Stream};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

type Files = Arc<Mutex<HashMap<PathBuf, Vec<u8>>>>;

/// Files held in memory.
#[derive(Clone, Default)]
pub struct MemIo {
    files: Files,
}

impl MemIo {
    pub fn new(files: HashMap<PathBuf, Vec<u8>>) -> MemIo {
        MemIo {
            files: Arc::new(Mutex::new(files)),
        }
    }
}

struct MemFile {
    files: Files,
    path: PathBuf,
}

impl MemFile {
    fn with<T>(&self, f: impl FnOnce(&mut Vec<u8>) -> Result<T>) -> Result<T> {
        let mut files = self.files.lock().map_err(|_| ErrorKind::Failure)?;
        let data = files.get_mut(&self.path).ok_or(ErrorKind::FileRead)?;
        f(data)
    }
}

impl Backend for MemIo {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn Stream>> {
        let mut files = self.files.lock().map_err(|_| ErrorKind::Failure)?;
        match mode {
            Mode::Read | Mode::Update => {
                if !files.contains_key(path) {
                    return Err(ErrorKind::FileOpen);
                }
            }
            Mode::Create => {
                files.insert(path.to_path_buf(), Vec::new());
            }
            Mode::Append => {
                files.entry(path.to_path_buf()).or_default();
            }
        }
        Ok(Box::new(MemFile {
            files: self.files.clone(),
            path: path.to_path_buf(),
        }))
    }
}

impl Stream for MemFile {
    fn size(&mut self) -> Result<u64> {
        self.with(|d| Ok(d.len() as u64))
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.with(|d| {
            let start = usize::try_from(pos).map_err(|_| ErrorKind::FileRead)?;
            let end = start.checked_add(buf.len()).ok_or(ErrorKind::FileRead)?;
            buf.copy_from_slice(d.get(start..end).ok_or(ErrorKind::FileRead)?);
            Ok(())
        })
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.with(|d| {
            let start = usize::try_from(pos).map_err(|_| ErrorKind::FileWrite)?;
            let end = start.checked_add(data.len()).ok_or(ErrorKind::FileWrite)?;
            if d.len() < end {
                d.resize(end, 0);
            }
            d[start..end].copy_from_slice(data);
            Ok(())
        })
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.with(|d| {
            d.resize(usize::try_from(size).map_err(|_| ErrorKind::FileWrite)?, 0);
            Ok(())
        })
    }
}

/// A real empty directory and a real empty file whose paths name the
/// in-memory sparse frame and frame file.
pub fn anchors() -> &'static (PathBuf, PathBuf) {
    static A: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    A.get_or_init(|| {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let root = base.join(format!("blosc2-fuzz-memio-{}", std::process::id()));
        let dir = root.join("sparse.b2frame");
        let file = root.join("frame.b2frame");
        std::fs::create_dir_all(&dir).expect("fuzz anchor directory");
        std::fs::write(&file, b"").expect("fuzz anchor file");
        (dir, file)
    })
}
