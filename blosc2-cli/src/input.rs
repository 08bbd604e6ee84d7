//! What a FILE argument holds: a contiguous frame (at some offset of a
//! file), a sparse frame directory, or a single chunk. The core's errors
//! are bare codes, so every failure here says which file and which step.

use blosc2_core::chunk::header::{version, EXTENDED_HEADER_LENGTH};
use blosc2_core::chunk::{ChunkHeader, Special};
use blosc2_core::frame::header::FrameHeader;
use blosc2_core::frame::{self, index, sframe, FrameInfo, StreamSource};
use blosc2_core::io::{self, Mode, Stream};
use blosc2_core::schunk::SuperChunk;
use std::path::{Path, PathBuf};

use crate::Fail;

/// Where the frame is stored.
#[derive(Clone, Debug)]
pub enum Place {
    /// A frame file, the frame starting `offset` bytes in.
    File { path: PathBuf, offset: u64 },
    /// A sparse frame directory.
    Dir { path: PathBuf },
}

/// The frame's layout, read without the super-chunk machinery so that it
/// can be shown (and a broken frame diagnosed) even when opening fails.
pub struct Frame {
    pub place: Place,
    pub info: FrameInfo,
}

pub enum Input {
    Frame(Frame),
    Chunk { path: PathBuf, bytes: Vec<u8> },
}

const MAGIC: &[u8] = b"b2frame";

/// Whether a frame header starts `offset` bytes into `path`.
fn looks_like_frame(path: &Path, offset: u64) -> Result<bool, Fail> {
    let mut s = open_stream(path)?;
    let size = s.size().map_err(|e| Fail::at(path, "cannot size", e))?;
    if size < offset + 9 {
        return Ok(false);
    }
    let mut b = [0u8; 9];
    s.read_exact_at(offset, &mut b)
        .map_err(|e| Fail::at(path, "cannot read", e))?;
    Ok(&b[2..9] == MAGIC)
}

pub fn open_stream(path: &Path) -> Result<Box<dyn Stream>, Fail> {
    if !path.exists() {
        return Err(Fail::msg(format!("{}: no such file", path.display())));
    }
    io::default_backend()
        .open(path, Mode::Read)
        .map_err(|e| Fail::at(path, "cannot open", e))
}

/// Classify and read the layout of FILE (frames at `offset` when given).
pub fn open(path: &Path, offset: u64) -> Result<Input, Fail> {
    let meta =
        std::fs::metadata(path).map_err(|e| Fail::msg(format!("{}: {e}", path.display())))?;
    if meta.is_dir() {
        let idx = sframe::index_path(path);
        if !idx.is_file() {
            return Err(Fail::msg(format!(
                "{}: a directory without {} is not a sparse frame",
                path.display(),
                sframe::INDEX_FILE
            )));
        }
        let mut s = open_stream(&idx)?;
        let info = frame::read_info(
            &mut StreamSource {
                stream: s.as_mut(),
                base: 0,
            },
            true,
            false,
        )
        .map_err(|e| Fail::at(&idx, "invalid sparse frame index", e))?;
        return Ok(Input::Frame(Frame {
            place: Place::Dir {
                path: path.to_path_buf(),
            },
            info,
        }));
    }
    if looks_like_frame(path, offset)? {
        let mut s = open_stream(path)?;
        let info = frame::read_info(
            &mut StreamSource {
                stream: s.as_mut(),
                base: offset,
            },
            false,
            false,
        )
        .map_err(|e| {
            Fail::at(
                path,
                "invalid frame (b2 verify tells where it is damaged)",
                e,
            )
        })?;
        return Ok(Input::Frame(Frame {
            place: Place::File {
                path: path.to_path_buf(),
                offset,
            },
            info,
        }));
    }
    if offset != 0 {
        return Err(Fail::msg(format!(
            "{}: no frame at offset {offset}",
            path.display()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| Fail::msg(format!("{}: {e}", path.display())))?;
    let h = ChunkHeader::read(&bytes).map_err(|e| {
        Fail::msg(format!(
            "{}: neither a Blosc2 frame nor a chunk ({e})",
            path.display()
        ))
    })?;
    // the header checks alone pass many arbitrary files
    if h.version == 0 || h.version > version::MAX {
        return Err(Fail::msg(format!(
            "{}: neither a Blosc2 frame nor a chunk (chunk format version {} unknown)",
            path.display(),
            h.version
        )));
    }
    Ok(Input::Chunk {
        path: path.to_path_buf(),
        bytes,
    })
}

impl Frame {
    pub fn path(&self) -> &Path {
        match &self.place {
            Place::File { path, .. } | Place::Dir { path } => path,
        }
    }

    pub fn header(&self) -> &FrameHeader {
        &self.info.header
    }

    pub fn is_sparse(&self) -> bool {
        matches!(self.place, Place::Dir { .. })
    }

    /// The super-chunk over this frame, for reading chunks.
    pub fn open_schunk(&self) -> Result<SuperChunk, Fail> {
        let (path, offset) = match &self.place {
            Place::File { path, offset } => (path.as_path(), *offset),
            Place::Dir { path } => (path.as_path(), 0),
        };
        SuperChunk::open(path, offset, io::default_backend())
            .map_err(|e| Fail::at(path, "cannot open the frame", e))
    }

    /// The nominal uncompressed size of chunk `i` (None for frames of
    /// variable-size chunks, where only the chunk's header knows).
    pub fn nominal_nbytes(&self, i: i64) -> Option<i64> {
        let h = self.header();
        if h.chunksize <= 0 {
            return None;
        }
        let cs = h.chunksize as i64;
        if i == self.info.nchunks - 1 && h.nbytes % cs != 0 {
            Some(h.nbytes % cs)
        } else {
            Some(cs)
        }
    }

    /// What the index says about every chunk, with the headers of stored
    /// chunks: read from their first bytes only, so showing the index of a
    /// large frame stays cheap.
    pub fn chunk_entries(&self) -> Vec<ChunkEntry> {
        // one stream for a frame file; sparse chunks are files of their own
        let mut file = match &self.place {
            Place::File { path, .. } => Some(open_stream(path).map_err(|f| f.0)),
            Place::Dir { .. } => None,
        };
        self.info
            .offsets
            .iter()
            .map(|&off| match index::offset_special(off) {
                Ok(Some(kind)) => ChunkEntry {
                    offset: off,
                    special_offset: Some(kind),
                    header: Err("special value in the index".into()),
                },
                Ok(None) => ChunkEntry {
                    offset: off,
                    special_offset: None,
                    header: self.read_chunk_header(off, file.as_mut()),
                },
                Err(e) => ChunkEntry {
                    offset: off,
                    special_offset: None,
                    header: Err(format!("bad index entry: {e}")),
                },
            })
            .collect()
    }

    fn read_chunk_header(
        &self,
        off: i64,
        file: Option<&mut Result<Box<dyn Stream>, String>>,
    ) -> Result<ChunkHeader, String> {
        let mut b = [0u8; EXTENDED_HEADER_LENGTH];
        match (&self.place, file) {
            (Place::File { offset, .. }, Some(stream)) => {
                let s = stream.as_mut().map_err(|e| e.clone())?;
                let pos = *offset as i64 + self.header().header_len as i64 + off;
                s.read_exact_at(pos as u64, &mut b)
                    .map_err(|e| format!("cannot read the chunk header at byte {pos}: {e}"))?;
            }
            (Place::Dir { path }, _) => {
                let p = sframe::chunk_path(path, off);
                let mut s = open_stream(&p).map_err(|f| f.0)?;
                s.read_exact_at(0, &mut b)
                    .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            }
            _ => return Err("no stream".into()),
        }
        ChunkHeader::read(&b).map_err(|e| format!("invalid chunk header: {e}"))
    }
}

pub struct ChunkEntry {
    /// The index value: offset in the chunks section, chunk file number,
    /// or a special marker.
    pub offset: i64,
    /// A special value stored in the index instead of a chunk.
    pub special_offset: Option<Special>,
    pub header: Result<ChunkHeader, String>,
}
