//! What a FILE argument holds: a contiguous frame (at some offset of a
//! file), a sparse frame directory, or a single chunk. The core's errors
//! are bare codes, so every failure here says which file and which step.
//! FILE `-` is standard input, read into memory.

use blosc2_core::chunk::header::{version, EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH};
use blosc2_core::chunk::{ChunkHeader, Special};
use blosc2_core::error::ErrorKind;
use blosc2_core::frame::header::{pos, FrameHeader, HEADER_MINLEN};
use blosc2_core::frame::{self, index, sframe, FrameInfo, StreamSource};
use blosc2_core::io::{self, Mode, Stream};
use blosc2_core::schunk::SuperChunk;
use std::fmt::Display;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::names::count;
use crate::Fail;

/// Where FILE's bytes come from.
#[derive(Clone)]
pub(crate) enum Origin {
    Path(PathBuf),
    /// Standard input (`-`), read whole: frames are read out of order.
    Stdin(Arc<[u8]>),
}

/// `-`: standard input where a file is read, standard output where one is
/// written.
pub(crate) fn is_dash(p: &Path) -> bool {
    p.as_os_str() == "-"
}

impl Origin {
    /// The origin of a FILE argument; `-` reads standard input now.
    pub(crate) fn new(path: &Path) -> Result<Origin, Fail> {
        if !is_dash(path) {
            return Ok(Origin::Path(path.to_path_buf()));
        }
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Fail::at(path, "cannot read standard input", e))?;
        Ok(Origin::Stdin(Arc::from(bytes)))
    }

    pub(crate) fn name(&self) -> &Path {
        match self {
            Origin::Path(p) => p,
            Origin::Stdin(_) => Path::new("-"),
        }
    }

    pub(crate) fn stream(&self) -> Result<Box<dyn Stream>, Fail> {
        match self {
            Origin::Path(p) => open_stream(p),
            Origin::Stdin(b) => Ok(Box::new(io::Bytes(b.clone()))),
        }
    }

    fn read_all(&self) -> Result<Vec<u8>, Fail> {
        match self {
            Origin::Path(p) => {
                std::fs::read(p).map_err(|e| Fail::msg(format!("{}: {e}", p.display())))
            }
            Origin::Stdin(b) => Ok(b.to_vec()),
        }
    }
}

/// Where the frame is stored.
#[derive(Clone)]
pub(crate) enum Place {
    /// A frame file (or standard input), the frame starting `offset` bytes in.
    File { origin: Origin, offset: u64 },
    /// A sparse frame directory.
    Dir { path: PathBuf },
}

/// The frame's layout, read without the super-chunk machinery so that it
/// can be shown (and a broken frame diagnosed) even when opening fails.
pub(crate) struct Frame {
    pub place: Place,
    pub info: FrameInfo,
}

pub(crate) enum Input {
    /// Boxed: a frame's layout is large beside a chunk's bytes.
    Frame(Box<Frame>),
    Chunk {
        path: PathBuf,
        bytes: Vec<u8>,
    },
}

const MAGIC: &[u8] = b"b2frame";

/// Whether a frame header starts `offset` bytes into the stream.
fn looks_like_frame(name: &Path, s: &mut dyn Stream, offset: u64) -> Result<bool, Fail> {
    let size = s.size().map_err(|e| Fail::at(name, "cannot size", e))?;
    if size < offset.saturating_add(9) {
        return Ok(false);
    }
    let mut b = [0u8; 9];
    s.read_exact_at(offset, &mut b)
        .map_err(|e| Fail::at(name, "cannot read", e))?;
    Ok(&b[2..9] == MAGIC)
}

pub(crate) fn open_stream(path: &Path) -> Result<Box<dyn Stream>, Fail> {
    if !path.exists() {
        return Err(Fail::msg(format!("{}: no such file", path.display())));
    }
    io::default_backend()
        .open(path, Mode::Read)
        .map_err(|e| Fail::at(path, "cannot open", e))
}

/// Why a contiguous frame whose layout does not read is broken, from its
/// size and fixed header alone: the core's error is a bare code, and
/// "Invalid value in header" hides the usual cause, a cut-off file.
fn explain_bad_frame(s: &mut dyn Stream, offset: u64, core: impl Display) -> String {
    let avail = s.size().unwrap_or(0).saturating_sub(offset);
    let from = if offset > 0 {
        format!(" after offset {offset}")
    } else {
        String::new()
    };
    let mut fixed = vec![0u8; (avail as usize).min(HEADER_MINLEN)];
    if s.read_exact_at(offset, &mut fixed).is_err() {
        return format!("invalid frame: {core}");
    }
    // the frame length is readable from a header cut short too
    let end = pos::FRAME_LEN + 8;
    let declared = (fixed.len() >= end)
        .then(|| i64::from_be_bytes(fixed[pos::FRAME_LEN..end].try_into().unwrap_or_default()));
    if fixed.len() < HEADER_MINLEN {
        return match declared {
            Some(n) if n > avail as i64 => format!(
                "truncated frame: the header says the frame has {n} bytes, the file has {avail}{from}"
            ),
            _ => format!(
                "truncated frame: {avail} bytes{from}, fewer than a frame header's {HEADER_MINLEN}"
            ),
        };
    }
    match FrameHeader::parse(&fixed) {
        Err(e) => format!("invalid frame header: {e}"),
        Ok(h) if h.frame_len > avail as i64 => format!(
            "truncated frame: the header says the frame has {} bytes, the file has {avail}{from}",
            h.frame_len
        ),
        Ok(_) => {
            format!("damaged frame (its chunk index, metalayers or trailer do not read): {core}")
        }
    }
}

/// Classify and read the layout of FILE (frames at `offset` when given);
/// `-` reads standard input. Errors about a damaged frame point to
/// `b2 verify`.
pub(crate) fn open(path: &Path, offset: u64) -> Result<Input, Fail> {
    let origin = Origin::new(path)?;
    open_origin(&origin, offset).map_err(|(f, damaged)| {
        if damaged {
            Fail(format!("{} (b2 verify says where the damage is)", f.0))
        } else {
            f
        }
    })
}

/// As [`open`]; the error tells whether FILE is a damaged frame (where
/// `b2 verify` can say more).
pub(crate) fn open_origin(origin: &Origin, offset: u64) -> Result<Input, (Fail, bool)> {
    let plain = |f: Fail| (f, false);
    let path = origin.name();
    if let Origin::Path(p) = origin {
        let meta = std::fs::metadata(p).map_err(|e| {
            plain(Fail::msg(if e.kind() == std::io::ErrorKind::NotFound {
                format!("{}: no such file or directory", p.display())
            } else {
                format!("{}: {e}", p.display())
            }))
        })?;
        if meta.is_dir() {
            return open_sparse(p).map_err(plain);
        }
    }
    let mut s = origin.stream().map_err(plain)?;
    let size = s
        .size()
        .map_err(|e| plain(Fail::at(path, "cannot size", e)))?;
    if size == 0 {
        return Err(plain(Fail::msg(format!(
            "{}: empty (0 bytes): not a Blosc2 frame or chunk",
            path.display()
        ))));
    }
    if offset >= size {
        return Err(plain(Fail::msg(format!(
            "{}: no frame at offset {offset}: the file has only {}",
            path.display(),
            count(size as i64, "byte")
        ))));
    }
    if looks_like_frame(path, s.as_mut(), offset).map_err(plain)? {
        let read = frame::read_info(
            &mut StreamSource {
                stream: s.as_mut(),
                base: offset,
            },
            false,
            false,
        );
        let info = read.map_err(|e| {
            let why = explain_bad_frame(s.as_mut(), offset, e);
            (Fail::msg(format!("{}: {why}", path.display())), true)
        })?;
        return Ok(Input::Frame(Box::new(Frame {
            place: Place::File {
                origin: origin.clone(),
                offset,
            },
            info,
        })));
    }
    if offset != 0 {
        return Err(plain(Fail::msg(format!(
            "{}: no frame at offset {offset} (no 'b2frame' magic there)",
            path.display()
        ))));
    }
    let bytes = origin.read_all().map_err(plain)?;
    let not_blosc = |why: String| {
        plain(Fail::msg(format!(
            "{}: neither a Blosc2 frame (no 'b2frame' magic at byte 2) nor a chunk ({why})",
            path.display()
        )))
    };
    if bytes.len() < MIN_HEADER_LENGTH {
        return Err(not_blosc(format!(
            "{}, fewer than a chunk header's {MIN_HEADER_LENGTH}",
            count(bytes.len() as i64, "byte")
        )));
    }
    let h = ChunkHeader::read(&bytes)
        .map_err(|e| not_blosc(format!("its first bytes are no valid chunk header: {e}")))?;
    // the header checks alone pass many arbitrary files
    if h.version == 0 || h.version > version::MAX {
        return Err(not_blosc(format!(
            "chunk format version {} is unknown",
            h.version
        )));
    }
    Ok(Input::Chunk {
        path: path.to_path_buf(),
        bytes,
    })
}

fn open_sparse(path: &Path) -> Result<Input, Fail> {
    let idx = sframe::index_path(path);
    if !idx.is_file() {
        return Err(Fail::msg(format!(
            "{}: a directory without {} is not a sparse frame",
            path.display(),
            sframe::INDEX_FILE
        )));
    }
    let mut s = open_stream(&idx)?;
    let read = frame::read_info(
        &mut StreamSource {
            stream: s.as_mut(),
            base: 0,
        },
        true,
        false,
    );
    let info = read.map_err(|e| {
        let why = explain_bad_frame(s.as_mut(), 0, e);
        Fail::msg(format!("{}: {why}", idx.display()))
    })?;
    Ok(Input::Frame(Box::new(Frame {
        place: Place::Dir {
            path: path.to_path_buf(),
        },
        info,
    })))
}

impl Frame {
    pub(crate) fn path(&self) -> &Path {
        match &self.place {
            Place::File { origin, .. } => origin.name(),
            Place::Dir { path } => path,
        }
    }

    pub(crate) fn header(&self) -> &FrameHeader {
        &self.info.header
    }

    pub(crate) fn is_sparse(&self) -> bool {
        matches!(self.place, Place::Dir { .. })
    }

    /// The super-chunk over this frame, for reading chunks.
    pub(crate) fn open_schunk(&self) -> Result<SuperChunk, Fail> {
        let (path, offset) = match &self.place {
            Place::File {
                origin: Origin::Stdin(bytes),
                offset,
            } => {
                let start = *offset as usize;
                let end = start.saturating_add(self.header().frame_len.max(0) as usize);
                let frame = bytes.get(start..end).unwrap_or_default();
                return SuperChunk::from_buffer(frame, true)
                    .map_err(|e| Fail::at(self.path(), "cannot open the frame", e));
            }
            Place::File {
                origin: Origin::Path(path),
                offset,
            } => (path.as_path(), *offset),
            Place::Dir { path } => (path.as_path(), 0),
        };
        SuperChunk::open(path, offset, io::default_backend())
            .map_err(|e| Fail::at(path, "cannot open the frame", e))
    }

    /// Why chunk `i` of a sparse frame cannot be read when its file is
    /// gone or cut short: the core says only "File open failure" or "File
    /// read failure".
    pub(crate) fn chunk_file_problem(&self, i: i64) -> Option<String> {
        let Place::Dir { path } = &self.place else {
            return None;
        };
        let off = *self.info.offsets.get(usize::try_from(i).ok()?)?;
        if !matches!(index::offset_special(off), Ok(None)) {
            return None;
        }
        let p = sframe::chunk_path(path, off);
        let Ok(meta) = std::fs::metadata(&p) else {
            return Some(format!("its file {} is missing", p.display()));
        };
        let len = meta.len();
        if len < MIN_HEADER_LENGTH as u64 {
            return Some(format!(
                "its file {} is cut off: {}, fewer than a chunk header's {MIN_HEADER_LENGTH}",
                p.display(),
                count(len as i64, "byte")
            ));
        }
        let mut head = [0u8; MIN_HEADER_LENGTH];
        open_stream(&p).ok()?.read_exact_at(0, &mut head).ok()?;
        // cbytes, the chunk's whole size, closes every chunk header's
        // first 16 bytes (little-endian), whatever the version
        let cbytes = i32::from_le_bytes(head[12..16].try_into().ok()?);
        (len < cbytes.max(0) as u64).then(|| {
            format!(
                "its file {} is cut off: {}, its header says {cbytes}",
                p.display(),
                count(len as i64, "byte")
            )
        })
    }

    /// What a failed read of chunk `i` (through `sc`, this frame's
    /// super-chunk) says.
    pub(crate) fn read_error(&self, sc: &SuperChunk, i: i64, e: ErrorKind) -> String {
        match self.chunk_file_problem(i) {
            Some(why) => format!("chunk {i}: {why}"),
            None => crate::sums::read_error(sc, i, e),
        }
    }

    /// The nominal uncompressed size of chunk `i` (None for frames of
    /// variable-size chunks, where only the chunk's header knows).
    pub(crate) fn nominal_nbytes(&self, i: i64) -> Option<i64> {
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
    pub(crate) fn chunk_entries(&self) -> Vec<ChunkEntry> {
        // one stream for a frame file; sparse chunks are files of their own
        let mut file = match &self.place {
            Place::File { origin, .. } => Some(origin.stream().map_err(|f| f.0)),
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

pub(crate) struct ChunkEntry {
    /// The index value: offset in the chunks section, chunk file number,
    /// or a special marker.
    pub offset: i64,
    /// A special value stored in the index instead of a chunk.
    pub special_offset: Option<Special>,
    pub header: Result<ChunkHeader, String>,
}
