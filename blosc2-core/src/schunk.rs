//! Super-chunks: a sequence of chunks sharing compression parameters and
//! metalayers, kept in memory (a chunk list or a contiguous frame), in a
//! contiguous frame file, or in a sparse frame directory.
//!
//! Chunks of a frame on disk are read when asked for; every mutation of a
//! disk-backed super-chunk leaves a complete, valid frame behind (new chunk
//! data goes after the existing chunks, then index, trailer and header are
//! rewritten), as the reference does.
//!
//! # Where things are
//!
//! This file holds the [`SuperChunk`] type, where its chunks are (`Slot`,
//! `Entry`, `Backing`) and its plain accessors. Each concept has a file in
//! `schunk/` that adds its own `impl SuperChunk` block:
//!
//! | File             | What it holds |
//! |------------------|---------------|
//! | `storage.rs`     | [`Storage`] and [`Kind`]; making a super-chunk: new, from a frame buffer, opened from disk, copied |
//! | `read.rs`        | reading chunks: whole, parts of chunks on disk, lazy chunks, one chunk decompressed |
//! | `contexts.rs`    | [`ChunkContexts`]: which compressor or decompressor a chunk goes through, what plugins see |
//! | `mutate.rs`      | append, insert, update, delete, reorder, special fills; admitting and storing a chunk |
//! | `chunksize.rs`   | the chunk size: fixed by the first chunk, variable, set by C code |
//! | `cparams.rs`     | new compression parameters set by C code |
//! | `slices.rs`      | item ranges: slices read and written, items at coordinates, chunks a slice touches |
//! | `meta.rs`        | metalayers and vlmetalayers |
//! | `encode.rs`      | the super-chunk as frame bytes: header, index, trailer, whole frames, offsets |
//! | `persist.rs`     | a mutation all or nothing: transactions, and bringing the frame on disk up to date |
//! | `layout.rs`      | how a change is written into a contiguous frame file, leaving the old frame on failure |
//! | `coherence.rs`   | other handles on the same frame: reading back their changes, the frame lock around accesses |
//! | `lock.rs`        | the frame lock itself (a sidecar file) |
//! | `lazy.rs`        | the lazy chunk format |
//! | `entries.rs`     | the chunk list, read lazily from a large frame's index |
//! | `held.rs`        | chunks held in memory, as the C layer shows them |
//! | `checksums.rs`   | frame checksums: keeping the digests, verified reads, `verify` |

use crate::chunk::{CParams, ChunkHeader, Compressor, DParams, Decompressor, Special};
use crate::error::{ErrorKind, Result};
use crate::io::Backend;
use crate::metalayers::Metalayer;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Where one chunk's bytes are.
#[derive(Clone, Debug, PartialEq)]
enum Slot {
    Data(Vec<u8>),
    /// A whole-chunk special value, stored as a special offset in frames.
    Special(Special),
    /// In a contiguous frame file, at this offset of the chunks section.
    Disk(i64),
    /// In a sparse frame, in chunk file number `id`.
    File(i64),
}

#[derive(Clone, Debug, PartialEq)]
struct Entry {
    slot: Slot,
    nbytes: i32,
    /// The chunk's digest over its stored bytes, while checksums are on
    /// (see `checksums`): kept with the entry, so that inserts, deletes and
    /// reorders carry it along and an append hashes only the new chunk.
    /// None when not known; a write with checksums on then hashes it.
    digest: Option<u64>,
}

/// The backing store.
#[derive(Clone)]
enum Backing {
    /// Chunks in memory, no frame (`contiguous = false`, no urlpath).
    Chunks,
    /// A contiguous frame in memory: chunks are held as data, the frame is
    /// produced on demand.
    MemFrame,
    File {
        path: PathBuf,
        /// Where the frame starts in the file.
        base: u64,
        header_len: i64,
        /// Length of the chunks section, holes left by updates included.
        data_len: i64,
        /// Bytes after the chunks section that the frame on disk still
        /// uses (its index and trailer) and new chunks must not overwrite:
        /// until the header is rewritten, that frame stays readable.
        dead_tail: i64,
    },
    Dir {
        path: PathBuf,
    },
}

pub struct SuperChunk {
    cparams: CParams,
    dparams: DParams,
    /// Block size recorded in frame headers (0 = automatic).
    pub blocksize: i32,
    /// -1 until the first chunk, then the size of every chunk but the last.
    chunksize: i32,
    nbytes: i64,
    cbytes: i64,
    flags2: u8,
    entries: entries::Entries,
    backing: Backing,
    io: Arc<dyn Backend>,
    readers: readers::Readers,
    comp: Mutex<Compressor>,
    decomp: Mutex<Decompressor>,
    /// The owner's contexts, used instead of `comp` and `decomp` when set.
    pub contexts: Option<Arc<dyn ChunkContexts>>,
    /// Opaque: how plugins' own code knows this super-chunk (see
    /// [`SchunkInfo::owner`](crate::registry::SchunkInfo::owner)).
    pub owner: usize,
    /// Reused buffer for partially read chunks (see `load_ranges`).
    scratch: Mutex<crate::spare::Spare>,
    /// Threads that decompress whole chunks side by side in calls spanning
    /// many small chunks (see `get_slice`).
    chunk_pool: Mutex<Option<crate::pool::Pool>>,
    pub metalayers: Vec<Metalayer>,
    pub vlmetalayers: Vec<Metalayer>,
    /// Set by a special fill until the next chunk operation (see
    /// [`index::Style`]).
    repeat_index: bool,
    /// Sparse chunk files written by the current operation (removed if it
    /// fails) and the numbers of those it made unused (removed once it
    /// succeeds; until then no new file may take their number).
    created: Vec<PathBuf>,
    obsolete: Vec<i64>,
    /// Offsets of stored chunks the current operation took out of a frame
    /// file (see `layout`), and the entry that replaces one in its place.
    dropped: Vec<i64>,
    anchor: Option<(usize, i64)>,
    /// Whether the current operation moved the frame on disk (its old
    /// content to copies): if it fails, state is read back from the file.
    disk_moved: bool,
    /// Bytes a failed write tore and the write meant to put the old ones
    /// back failed too (see [`persist::Torn`]): retried before the next
    /// access to the frame.
    torn: Option<persist::Torn>,
    /// The length of the caller's frame a super-chunk was made from with
    /// `from_buffer(copy=false)`, until the first change: that frame, holes
    /// included, is what it stands for (its length, and its bytes at the C
    /// API, which keeps the caller's buffer).
    pristine_len: Option<i64>,
    /// Nesting of batches (see `layout`), and the span of a frame file's
    /// chunks section where freed bytes wait to be given back.
    batch_depth: u32,
    gaps: Option<(i64, i64)>,
    /// The frame lock, when locking is on (see [`Self::enable_locking`]).
    lock: Option<lock::FrameLock>,
    /// What this handle last saw of its frame on disk (see
    /// [`Self::disk_mark`]), to notice changes made through other handles.
    seen: Vec<u8>,
    /// Frame checksums (docs/checksums.md), see `checksums.rs`.
    sums: checksums::Sums,
    /// The index of a frame file as last written, for appends that encode
    /// only its last blocks again (see `layout`), with the number of
    /// entries it holds.
    appender: Option<(usize, crate::frame::index::Appender)>,
}

/// `blosc2_flags2` bit of chunks made of variable-length blocks.
const VL_BLOCKS_FLAG: u8 = crate::chunk::header::blosc2_flags2::VL_BLOCKS;

fn special_kind(chunk: &[u8]) -> Result<Special> {
    let h = ChunkHeader::read(chunk)?;
    Ok(Special::from_bits(h.special_bits()).unwrap_or(Special::None))
}

impl SuperChunk {
    pub fn cparams(&self) -> &CParams {
        &self.cparams
    }

    pub fn dparams(&self) -> &DParams {
        &self.dparams
    }

    pub fn nchunks(&self) -> i64 {
        self.entries.len() as i64
    }

    pub fn nbytes(&self) -> i64 {
        self.nbytes
    }

    pub fn cbytes(&self) -> i64 {
        self.cbytes
    }

    pub fn chunksize(&self) -> i32 {
        self.chunksize
    }

    /// Whether every chunk holds `nbytes` bytes: as the chunksize says, or,
    /// where the chunksize is 0 (chunks of variable size, or a damaged
    /// header C-Blosc2 reads anyway), as each chunk's own header says.
    pub(crate) fn chunks_hold(&self, nbytes: i32) -> bool {
        self.chunksize == nbytes
            || (self.chunksize == 0
                && self
                    .entries
                    .iter()
                    .all(|e| e.is_ok_and(|e| e.nbytes == nbytes)))
    }

    pub fn typesize(&self) -> i32 {
        self.cparams.typesize
    }

    pub fn flags2(&self) -> u8 {
        self.flags2
    }

    pub fn io(&self) -> Arc<dyn Backend> {
        self.io.clone()
    }

    /// A chunk number in range (the reference's code otherwise).
    fn check_index(&self, n: i64) -> Result<usize> {
        if n < 0 || n >= self.nchunks() {
            return Err(ErrorKind::InvalidParam);
        }
        Ok(n as usize)
    }
}

mod checksums;
mod chunksize;
mod coherence;
mod contexts;
mod cparams;
mod encode;
mod entries;
mod held;
mod layout;
mod lazy;
mod lock;
mod meta;
mod mutate;
mod persist;
mod read;
mod readers;
mod slices;
mod storage;

pub use checksums::{FrameCheck, VerifyReport};
pub use contexts::ChunkContexts;
pub use held::HeldChunk;
pub(crate) use slices::SMALL_CHUNK;
pub use storage::{Kind, Storage};

#[cfg(test)]
mod checksums_tests;
#[cfg(test)]
mod coherence_tests;
#[cfg(test)]
mod contexts_tests;
#[cfg(test)]
mod entries_tests;
#[cfg(test)]
mod tests;
