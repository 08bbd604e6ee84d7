//! Where a super-chunk lives and how one comes to be: the [`Storage`] a new
//! one is made with, the [`Kind`] of backing it has, and the ways to get
//! one (a new one, one read from a frame buffer, one opened from a frame
//! file or sparse frame directory, a copy into other storage).
//!
//! Separate from the operations on a super-chunk because reading a frame
//! in (counters, index, special chunks, sizes of variable chunks) is a
//! concern of its own that every other file takes as done.

use super::entries::{Base, Entries};
use super::{Backing, Entry, Slot, SuperChunk, VL_BLOCKS_FLAG};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::{CParams, ChunkHeader, Compressor, DParams, Decompressor, SplitMode};
use crate::error::{ErrorKind, Result};
use crate::frame::header::FrameHeader;
use crate::frame::{self, index, sframe, SliceSource, StreamSource};
use crate::io::{Backend, Mode};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where a new super-chunk lives.
#[derive(Clone)]
pub struct Storage {
    pub contiguous: bool,
    pub urlpath: Option<PathBuf>,
    pub cparams: CParams,
    pub dparams: DParams,
    pub io: Arc<dyn Backend>,
}

impl Default for Storage {
    fn default() -> Self {
        Storage {
            contiguous: false,
            urlpath: None,
            cparams: CParams::default(),
            dparams: DParams::default(),
            io: crate::io::default_backend(),
        }
    }
}

/// What kind of storage a super-chunk has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Chunks,
    MemFrame,
    File,
    Dir,
}

impl SuperChunk {
    fn empty(storage: &Storage, backing: Backing) -> SuperChunk {
        SuperChunk {
            cparams: storage.cparams.clone(),
            dparams: storage.dparams.clone(),
            blocksize: storage.cparams.blocksize,
            chunksize: -1,
            nbytes: 0,
            cbytes: 0,
            flags2: 0,
            entries: Default::default(),
            backing,
            io: storage.io.clone(),
            readers: Default::default(),
            comp: Mutex::new(Compressor::new(storage.cparams.clone())),
            decomp: Mutex::new(Decompressor::new(storage.dparams.clone())),
            contexts: None,
            owner: 0,
            scratch: Mutex::new(Default::default()),
            chunk_pool: Mutex::new(None),
            metalayers: Vec::new(),
            vlmetalayers: Vec::new(),
            repeat_index: false,
            created: Vec::new(),
            obsolete: Vec::new(),
            dropped: Vec::new(),
            anchor: None,
            disk_moved: false,
            torn: None,
            pristine_len: None,
            batch_depth: 0,
            gaps: None,
            lock: None,
            seen: Vec::new(),
            sums: Default::default(),
            appender: None,
        }
    }

    /// A new, empty super-chunk (`blosc2_schunk_new`). On disk, the frame
    /// file or directory must not exist yet.
    pub fn new(storage: Storage) -> Result<SuperChunk> {
        let backing = match (&storage.urlpath, storage.contiguous) {
            (None, false) => Backing::Chunks,
            (None, true) => Backing::MemFrame,
            (Some(p), true) => {
                if p.exists() {
                    return Err(ErrorKind::FileOpen);
                }
                Backing::File {
                    path: p.clone(),
                    base: 0,
                    header_len: 0,
                    data_len: 0,
                    dead_tail: 0,
                }
            }
            (Some(p), false) => {
                std::fs::create_dir(p).map_err(|_| ErrorKind::FileOpen)?;
                Backing::Dir { path: p.clone() }
            }
        };
        let mut sc = SuperChunk::empty(&storage, backing);
        sc.rewrite()?;
        Ok(sc)
    }

    fn from_info(
        info: &frame::FrameInfo,
        backing: Backing,
        io: Arc<dyn Backend>,
        dparams: DParams,
    ) -> SuperChunk {
        let h = &info.header;
        let cparams = CParams {
            compcode: h.compcode,
            compcode_meta: h.compcode_meta,
            clevel: h.clevel,
            use_dict: h.use_dict,
            typesize: h.typesize,
            nthreads: h.nthreads_c.max(1),
            blocksize: h.blocksize,
            splitmode: SplitMode::from_i32(h.splitmode as i32),
            filters: h.filters,
            filters_meta: h.filters_meta,
            instr_codec: false,
        };
        let storage = Storage {
            contiguous: true,
            urlpath: None,
            cparams,
            dparams,
            io,
        };
        let mut sc = SuperChunk::empty(&storage, backing);
        sc.chunksize = h.chunksize;
        sc.nbytes = h.nbytes;
        sc.cbytes = h.cbytes;
        sc.metalayers = info.metalayers.clone();
        sc.vlmetalayers = info.vlmetalayers.clone();
        sc
    }

    /// Frames of at least this many chunks are opened with their index
    /// unread (see `entries`); below, decoding it whole costs less than a
    /// millisecond.
    const LAZY_FROM: u64 = 1 << 14;

    fn lazy_from() -> u64 {
        #[cfg(test)]
        if let Some(n) = super::entries::LAZY_FROM_IN_TESTS.get() {
            return n;
        }
        Self::LAZY_FROM
    }

    /// Nominal size of chunk `i` of `n` in a frame of fixed chunk size; -1
    /// (unknown until its header is read) for variable-size chunks.
    fn nominal_nbytes(h: &FrameHeader, i: i64, n: i64) -> i32 {
        Self::nominal_size(h.chunksize, h.nbytes, i, n)
    }

    /// [`Self::nominal_nbytes`] for chunks of `chunksize` in `nbytes`.
    fn nominal_size(chunksize: i32, nbytes: i64, i: i64, n: i64) -> i32 {
        if chunksize <= 0 {
            return -1;
        }
        let cs = chunksize as i64;
        if i == n - 1 && nbytes % cs != 0 {
            (nbytes % cs) as i32
        } else {
            chunksize
        }
    }

    /// The size of a fixed-size frame's chunks as its chunks give it.
    /// C-Blosc2 decodes each chunk as its own header says and never compares
    /// it with the frame header's chunksize, so it reads a frame whose
    /// chunksize is damaged; so do we when the data chunks agree among
    /// themselves (all but the last of one size, the last no larger) on a
    /// size that gives the header's chunk count. Other disagreements are
    /// refused. `sizes`: each data chunk's size, -1 for specials.
    fn chunksize_of(h: &FrameHeader, sizes: &[i32]) -> Result<i32> {
        let n = sizes.len();
        if h.chunksize <= 0 || n == 0 {
            return Ok(h.chunksize);
        }
        let sized = |i: usize| Some(sizes[i]).filter(|&nb| nb >= 0);
        let nominal = |cs: i32, i: usize| Self::nominal_size(cs, h.nbytes, i as i64, n as i64);
        if (0..n).all(|i| sized(i).is_none_or(|nb| nb == nominal(h.chunksize, i))) {
            return Ok(h.chunksize);
        }
        let cs = (0..n.saturating_sub(1)).find_map(sized).unwrap_or(0);
        let fits = cs > 0
            && (h.nbytes + cs as i64 - 1) / cs as i64 == n as i64
            && (0..n).all(|i| sized(i).is_none_or(|nb| nb == nominal(cs, i)));
        if !fits {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Frame header gives {n} chunks of {} bytes ({} in all), which its chunks' own sizes do not match",
                h.chunksize,
                h.nbytes
            ));
        }
        crate::trace_warning!(
            "Frame header's chunksize {} disagrees with its chunks, which hold {cs} bytes each: read as {cs}",
            h.chunksize
        );
        Ok(cs)
    }

    /// A frame file's chunk sizes come from its header without reading each
    /// chunk; where the first chunk says otherwise, [`Self::chunksize_of`]
    /// judges the first two chunks' sizes (the only ones read at open):
    /// the size to use instead of the header's, if any. (Its trace of a
    /// disagreement is then only a note: the open goes on.)
    fn chunksize_from_chunks(&self, h: &FrameHeader) -> Result<Option<i32>> {
        let n = self.entries.len();
        if h.chunksize <= 0 || n < 2 {
            return Ok(None);
        }
        let mut sizes = Vec::with_capacity(n);
        for i in 0..2 {
            sizes.push(match self.entries.get(i)?.slot {
                Slot::Special(_) => -1,
                _ => self.stored_header(i)?.nbytes,
            });
        }
        if sizes[0] < 0 || sizes[0] == h.chunksize {
            return Ok(None);
        }
        // the chunks not read take the size the first one gives
        let cs = sizes[0];
        sizes.extend((2..n).map(|i| Self::nominal_size(cs, h.nbytes, i as i64, n as i64)));
        // Sizes that agree on nothing leave the header's: reading such a
        // chunk is the error (see decompress_chunk), not opening the frame.
        Ok(Self::chunksize_of(h, &sizes)
            .ok()
            .filter(|&c| c != h.chunksize))
    }

    /// A contiguous frame held in a buffer (`blosc2_schunk_from_buffer`).
    /// `copy` gives a plain in-memory super-chunk, as upstream does.
    pub fn from_buffer(buf: &[u8], copy: bool) -> Result<SuperChunk> {
        let info = frame::read_info(&mut SliceSource(buf), false, true)?;
        let backing = if copy {
            Backing::Chunks
        } else {
            Backing::MemFrame
        };
        let mut sc = SuperChunk::from_info(
            &info,
            backing,
            crate::io::default_backend(),
            DParams::default(),
        );
        let h = &info.header;
        let data_start = h.header_len as i64;
        let mut cbytes = 0i64;
        let mut nbytes = 0i64;
        let mut chunks = Vec::with_capacity(info.offsets.len());
        for &off in &info.offsets {
            chunks.push(match index::offset_special(off)? {
                Some(k) => (Slot::Special(k), -1),
                None => {
                    let c = frame::read_chunk(&mut SliceSource(buf), data_start, h.cbytes, off)?;
                    let nb = ChunkHeader::read(&c)?.nbytes;
                    (Slot::Data(c), nb)
                }
            });
        }
        let sizes: Vec<i32> = chunks.iter().map(|c| c.1).collect();
        sc.chunksize = Self::chunksize_of(h, &sizes)?;
        for (i, (slot, nb)) in chunks.into_iter().enumerate() {
            let nbytes = match slot {
                Slot::Special(_) => {
                    Self::nominal_size(sc.chunksize, h.nbytes, i as i64, info.nchunks)
                }
                _ => nb,
            };
            sc.entries.push(Entry {
                slot,
                nbytes,
                digest: None,
            });
        }
        sc.resolve_special_sizes(h.nbytes)?;
        sc.adopt_checksums(info.checksums.clone());
        for i in 0..sc.entries.len() {
            if copy {
                let e = sc.entries.get(i)?;
                if let Slot::Special(_) = e.slot {
                    let c = sc.special_chunk(&e)?;
                    let digest = sc.digest_for(&c, false);
                    let e = sc.entries.get_mut(i)?;
                    e.digest = digest;
                    e.slot = Slot::Data(c);
                }
            }
            let e = sc.entries.get(i)?;
            if let Slot::Data(d) = &e.slot {
                cbytes += d.len() as i64;
            }
            nbytes += e.nbytes as i64;
        }
        if nbytes != h.nbytes {
            return Err(ErrorKind::InvalidHeader);
        }
        if copy {
            sc.cbytes = cbytes;
        } else {
            sc.pristine_len = Some(h.frame_len);
        }
        sc.read_flags2()?;
        Ok(sc)
    }

    /// Open a frame file at `offset`, or a sparse frame directory.
    pub fn open(path: &Path, offset: u64, io: Arc<dyn Backend>) -> Result<SuperChunk> {
        // the parsers say what is wrong and where; this says in which file
        Self::open_inner(path, offset, io).map_err(|k| {
            crate::traced!(
                k,
                "Cannot open the frame in '{}' (at offset {offset}): {}",
                path.display(),
                k.message()
            )
        })
    }

    fn open_inner(path: &Path, offset: u64, io: Arc<dyn Backend>) -> Result<SuperChunk> {
        let meta = std::fs::metadata(path).map_err(|e| {
            crate::traced!(
                ErrorKind::FileOpen,
                "Cannot get information about the path '{}': {e}",
                path.display()
            )
        })?;
        if meta.is_dir() {
            if offset != 0 {
                return Err(crate::traced!(
                    ErrorKind::InvalidParam,
                    "A sparse frame directory has no offset (asked {offset})"
                ));
            }
            // Read whole, which this handle's mark of the frame (`seen`)
            // needs anyway, and closed at once: a stream kept on it for
            // the entries left in the index would make every handle's
            // rename of a new index over it fail on Windows (wine, and
            // Windows without POSIX renames, refuse to replace open files).
            let mut bytes = {
                let mut s = io.open(&sframe::index_path(path), Mode::Read)?;
                let n = s.size()?;
                crate::io::Bytes(crate::io::read_vec(s.as_mut(), 0, n as usize)?)
            };
            let info = frame::read_info_lazy(
                &mut StreamSource {
                    stream: &mut bytes,
                    base: 0,
                },
                true,
                false,
                Self::lazy_from(),
            )?;
            let backing = Backing::Dir {
                path: path.to_path_buf(),
            };
            let mut sc = SuperChunk::from_info(&info, backing, io, DParams::default());
            // (copied only when the entries are read from it later)
            sc.seen = if info.lazy.is_some() {
                bytes.0.clone()
            } else {
                std::mem::take(&mut bytes.0)
            };
            sc.fill_entries(&info, Slot::File, || Ok(Box::new(bytes)))?;
            sc.adopt_checksums(info.checksums.clone());
            sc.read_flags2()?;
            return Ok(sc);
        }
        let mut s = io.open(path, Mode::Read)?;
        let info = frame::read_info_lazy(
            &mut StreamSource {
                stream: s.as_mut(),
                base: offset,
            },
            false,
            false,
            Self::lazy_from(),
        )?;
        let backing = Backing::File {
            path: path.to_path_buf(),
            base: offset,
            header_len: info.header.header_len as i64,
            data_len: info.header.cbytes,
            dead_tail: info.header.frame_len - info.header.header_len as i64 - info.header.cbytes,
        };
        let mut sc = SuperChunk::from_info(&info, backing, io, DParams::default());
        sc.readers.keep(s)?;
        let index_io = sc.io.clone();
        sc.fill_entries(&info, Slot::Disk, || index_io.open(path, Mode::Read))?;
        if let Some(cs) = sc.chunksize_from_chunks(&info.header)? {
            let mut info = info.clone();
            info.header.chunksize = cs;
            sc.chunksize = cs;
            sc.entries.clear();
            sc.fill_entries(&info, Slot::Disk, || index_io.open(path, Mode::Read))?;
        }
        sc.adopt_checksums(info.checksums.clone());
        sc.read_flags2()?;
        sc.seen = sc.disk_mark()?;
        Ok(sc)
    }

    /// The entries of a frame just read: left in its index when that is
    /// read lazily (`index` opens the stream it is read through).
    fn fill_entries(
        &mut self,
        info: &frame::FrameInfo,
        regular: fn(i64) -> Slot,
        index: impl FnOnce() -> Result<Box<dyn crate::io::Stream>>,
    ) -> Result<()> {
        let h = &info.header;
        if let Some(lazy) = &info.lazy {
            let (base, data_len) = match &self.backing {
                Backing::File { base, .. } => (*base, h.cbytes),
                _ => (0, h.cbytes),
            };
            let sparse = matches!(self.backing, Backing::Dir { .. });
            self.entries = Entries::lazy(Base::new(
                lazy.clone(),
                index()?,
                base,
                sparse,
                data_len,
                h.chunksize,
                h.nbytes,
            )?);
            return Ok(());
        }
        for (i, &off) in info.offsets.iter().enumerate() {
            let slot = match index::offset_special(off)? {
                Some(k) => Slot::Special(k),
                None => regular(off),
            };
            self.entries.push(Entry {
                slot,
                nbytes: Self::nominal_nbytes(h, i as i64, info.nchunks),
                digest: None,
            });
        }
        if h.variable_chunks() {
            // each chunk's size is in its own header
            for i in 0..self.entries.len() {
                if matches!(self.entries.get(i)?.slot, Slot::Special(_)) {
                    continue;
                }
                let mut hb = [0u8; EXTENDED_HEADER_LENGTH];
                self.read_part(i, 0, &mut hb)?;
                let nb = ChunkHeader::read(&hb)?.nbytes;
                self.entries.get_mut(i)?.nbytes = nb;
            }
            self.resolve_special_sizes(h.nbytes)?;
            let mut sum = 0i64;
            for e in self.entries.iter() {
                sum += e?.nbytes as i64;
            }
            if sum != h.nbytes {
                return Err(ErrorKind::InvalidHeader);
            }
        }
        Ok(())
    }

    /// Special offsets carry no size, so in a frame of variable-size chunks
    /// the size of a special chunk is what the others leave of the total.
    /// That is decidable for one such chunk only (this library never writes
    /// special offsets into such frames; the reference misreads them).
    fn resolve_special_sizes(&mut self, total: i64) -> Result<()> {
        // (only chunks of variable size lack a size; those are read whole)
        let Some(all) = self.entries.plain() else {
            return Ok(());
        };
        let unknown: Vec<usize> = (0..all.len()).filter(|&i| all[i].nbytes < 0).collect();
        if unknown.is_empty() {
            return Ok(());
        }
        if unknown.len() > 1 {
            return Err(ErrorKind::FrameSpecial);
        }
        let known: i64 = all
            .iter()
            .filter(|e| e.nbytes >= 0)
            .map(|e| e.nbytes as i64)
            .sum();
        let left = total - known;
        if left < 0 || left > i32::MAX as i64 {
            return Err(ErrorKind::InvalidHeader);
        }
        self.entries.get_mut(unknown[0])?.nbytes = left as i32;
        Ok(())
    }

    /// The chunks' second flags byte (VL blocks or not) as the first chunk
    /// has it.
    fn read_flags2(&mut self) -> Result<()> {
        if self.entries.is_empty() {
            return Ok(());
        }
        self.flags2 = self.stored_header(0)?.blosc2_flags2;
        Ok(())
    }

    pub fn kind(&self) -> Kind {
        match self.backing {
            Backing::Chunks => Kind::Chunks,
            Backing::MemFrame => Kind::MemFrame,
            Backing::File { .. } => Kind::File,
            Backing::Dir { .. } => Kind::Dir,
        }
    }

    pub fn is_frame(&self) -> bool {
        !matches!(self.backing, Backing::Chunks)
    }

    pub fn urlpath(&self) -> Option<&Path> {
        match &self.backing {
            Backing::File { path, .. } | Backing::Dir { path, .. } => Some(path),
            _ => None,
        }
    }

    /// Whether chunks made with `cp` can be taken as they are by a copy
    /// asked to compress with `cp`: the reference compares codec, level,
    /// typesize, dictionary use, block size (0 meaning this one's) and
    /// filters, and ignores threads and split mode.
    fn compresses_as(&self, cp: &CParams) -> bool {
        let mine = &self.cparams;
        cp.compcode == mine.compcode
            && cp.clevel == mine.clevel
            && cp.typesize == mine.typesize
            && cp.use_dict == mine.use_dict
            && (cp.blocksize == 0
                || cp.blocksize == self.blocksize
                || cp.blocksize == mine.blocksize)
            && cp.filters == mine.filters
            && cp.filters_meta == mine.filters_meta
    }

    /// Copy into new storage (`blosc2_schunk_copy`). The copy compresses
    /// with `storage.cparams`: chunks are taken as they are when those
    /// compress as this super-chunk does (or hold VL blocks), and are
    /// decompressed and compressed again otherwise.
    pub fn copy_to(&self, storage: Storage) -> Result<SuperChunk> {
        let mut st = storage;
        let same = self.compresses_as(&st.cparams) || self.flags2 & VL_BLOCKS_FLAG != 0;
        if same {
            st.cparams = CParams {
                nthreads: st.cparams.nthreads,
                ..self.cparams.clone()
            };
        }
        let mut sc = SuperChunk::new(st)?;
        if same {
            sc.blocksize = self.blocksize;
        }
        for m in &self.metalayers {
            sc.meta_add(&m.name, &m.content)?;
        }
        // a copy keeps checksums where its source does (each chunk is
        // checked as it is read, and hashed as it is appended)
        if self.checksums() {
            sc.set_checksums(true)?;
        }
        let mut buf = Vec::new();
        for i in 0..self.nchunks() {
            if same {
                let c = self.chunk(i)?;
                sc.append_chunk(&c)?;
            } else {
                let nb = usize::try_from(self.entries.get(i as usize)?.nbytes)
                    .map_err(|_| ErrorKind::ChunkAppend)?;
                // not a resize, which zeroes all of a damaged claim first
                crate::spare::grow(&mut buf, nb)?;
                let n = self.decompress_chunk(i, &mut buf)?;
                sc.append_buffer(&buf[..n])?;
            }
        }
        sc.vlmetalayers = self.vlmetalayers.clone();
        sc.flush()?;
        Ok(sc)
    }
}
