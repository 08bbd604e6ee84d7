//! The default filesystem backend: positioned reads and writes on `std::fs`.

use super::positional;
use super::{open_err, Backend, Mode, Stream};
use crate::error::{ErrorKind, Result};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

pub struct Stdio;

struct StdioFile {
    f: File,
}

impl Backend for Stdio {
    fn open(&self, path: &Path, mode: Mode) -> Result<Box<dyn Stream>> {
        let mut o = OpenOptions::new();
        match mode {
            Mode::Read => o.read(true),
            Mode::Update => o.read(true).write(true),
            Mode::Create => o.read(true).write(true).create(true).truncate(true),
            Mode::Append => o.read(true).write(true).create(true),
        };
        let f = o.open(path).map_err(|e| open_err(path, e))?;
        Ok(Box::new(StdioFile { f }))
    }
    fn can_replace(&self) -> bool {
        true
    }
    fn replace(&self, from: &Path, to: &Path) -> Result<()> {
        std::fs::rename(from, to).map_err(|_| ErrorKind::FileWrite)
    }
    fn identity(&self, path: &Path) -> Option<(u64, u64)> {
        positional::identity_of_path(path)
    }
    fn remove(&self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(|_| ErrorKind::FileRemove)
    }
}

impl Stream for StdioFile {
    fn size(&mut self) -> Result<u64> {
        self.f
            .metadata()
            .map(|m| m.len())
            .map_err(|_| ErrorKind::FileRead)
    }
    fn read_exact_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        positional::read_exact_at(&self.f, buf, pos).map_err(|_| ErrorKind::FileRead)
    }
    fn write_all_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        positional::write_all_at(&self.f, data, pos).map_err(|_| ErrorKind::FileWrite)
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.f.set_len(size).map_err(|_| ErrorKind::FileTruncate)
    }
    fn identity(&mut self) -> Option<(u64, u64)> {
        positional::identity_of_file(&self.f)
    }
    fn read_vec_at(&mut self, pos: u64, len: usize) -> Result<Vec<u8>> {
        // read_to_end fills spare capacity without zeroing it first, which
        // matters for multi-megabyte chunks
        let mut v = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|_| ErrorKind::MemoryAlloc)?;
        self.f
            .seek(SeekFrom::Start(pos))
            .map_err(|_| ErrorKind::FileRead)?;
        (&mut self.f)
            .take(len as u64)
            .read_to_end(&mut v)
            .map_err(|_| ErrorKind::FileRead)?;
        if v.len() != len {
            return Err(ErrorKind::FileRead);
        }
        Ok(v)
    }
}
