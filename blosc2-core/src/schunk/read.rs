//! Reading chunks: a chunk's stored bytes (special chunks synthesized,
//! chunks on disk read when asked for), parts of a chunk on disk (its
//! header, or only the blocks a small read needs), lazy chunks and their
//! completion, and the decompression of one chunk.
//!
//! Separate from slices, which map item positions onto these reads.

use super::{lazy, Backing, Entry, Slot, SuperChunk};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::ChunkHeader;
use crate::error::{ErrorKind, Result};
use crate::frame::{self, sframe, StreamSource};
use crate::io::{Mode, Stream};
use std::borrow::Cow;

/// Page size for placing file reads in memory (see `load_ranges`).
const PAGE: usize = 4096;

impl SuperChunk {
    /// The header of chunk `i`, reading only its first bytes from disk.
    pub(super) fn stored_header(&self, i: usize) -> Result<ChunkHeader> {
        match &self.entries.get(i)?.slot {
            Slot::Disk(_) | Slot::File(_) => {
                let mut hb = [0u8; EXTENDED_HEADER_LENGTH];
                self.read_part(i, 0, &mut hb)?;
                ChunkHeader::read(&hb)
            }
            Slot::Data(d) => ChunkHeader::read(d),
            Slot::Special(_) => ChunkHeader::read(&self.special_chunk(&*self.entries.get(i)?)?),
        }
    }

    pub(super) fn special_chunk(&self, e: &Entry) -> Result<Vec<u8>> {
        let Slot::Special(kind) = e.slot else {
            return Err(ErrorKind::Failure);
        };
        self.special_bytes(kind, e.nbytes)
    }

    pub(super) fn with_reader<T>(&self, f: impl FnOnce(&mut dyn Stream) -> Result<T>) -> Result<T> {
        let Backing::File { path, .. } = &self.backing else {
            return Err(ErrorKind::Failure);
        };
        self.readers.with(|| self.io.open(path, Mode::Read), f)
    }

    /// The compressed bytes of chunk `n` (special chunks are synthesized),
    /// checked against its digest when the frame has checksums.
    pub fn chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.check_index(n)?;
        let c = self.stored_bytes(i)?;
        if !matches!(self.entries.get(i)?.slot, Slot::Special(_)) {
            self.check_read(i, &c)?;
        }
        Ok(c)
    }

    /// The compressed bytes of entry `i`, unchecked.
    pub(super) fn stored_bytes(&self, i: usize) -> Result<Cow<'_, [u8]>> {
        let e = self.entries.get(i)?;
        // (chunks held as data are never read from the index)
        if let Cow::Borrowed(Entry {
            slot: Slot::Data(d),
            ..
        }) = e
        {
            return Ok(Cow::Borrowed(d));
        }
        match (&e.slot, &self.backing) {
            (Slot::Data(d), _) => Ok(Cow::Owned(d.clone())),
            (Slot::Special(_), _) => Ok(Cow::Owned(self.special_chunk(&e)?)),
            (
                Slot::Disk(off),
                Backing::File {
                    base,
                    header_len,
                    data_len,
                    ..
                },
            ) => {
                let (base, hl, dl, off) = (*base, *header_len, *data_len, *off);
                self.with_reader(|s| {
                    frame::read_chunk(&mut StreamSource { stream: s, base }, hl, dl, off)
                })
                .map(Cow::Owned)
            }
            (Slot::File(id), Backing::Dir { path, .. }) => {
                let mut s = self.io.open(&sframe::chunk_path(path, *id), Mode::Read)?;
                let size = s.size()?;
                // a missing or short chunk file is a failed read, as in
                // the reference
                if size < EXTENDED_HEADER_LENGTH as u64 || size > i32::MAX as u64 {
                    return Err(ErrorKind::FileRead);
                }
                let mut v = crate::io::read_vec(s.as_mut(), 0, size as usize)?;
                let cb = ChunkHeader::read(&v)?.cbytes as usize;
                if cb > v.len() {
                    return Err(ErrorKind::FileRead);
                }
                v.truncate(cb);
                Ok(Cow::Owned(v))
            }
            _ => Err(ErrorKind::Failure),
        }
    }

    /// Read `len` bytes at `pos` of chunk `n`'s stored bytes (disk slots).
    pub(super) fn read_part(&self, n: usize, pos: usize, buf: &mut [u8]) -> Result<()> {
        match (&self.entries.get(n)?.slot, &self.backing) {
            (
                Slot::Disk(off),
                Backing::File {
                    base, header_len, ..
                },
            ) => {
                let at = (*base as i64)
                    .checked_add(*header_len)
                    .and_then(|v| v.checked_add(*off))
                    .and_then(|v| v.checked_add(pos as i64))
                    .ok_or(ErrorKind::ReadBuffer)?;
                self.with_reader(|s| s.read_exact_at(at as u64, buf))
            }
            (Slot::File(id), Backing::Dir { path, .. }) => {
                let mut s = self.io.open(&sframe::chunk_path(path, *id), Mode::Read)?;
                s.read_exact_at(pos as u64, buf)
            }
            _ => Err(ErrorKind::Failure),
        }
    }

    /// Reads of parts of stored chunk `i` through one open file: a sparse
    /// frame's chunk file is opened once for all of them rather than per
    /// read (a small slice of a chunk takes four or five reads).
    fn part_reader(&self, i: usize) -> Result<PartReader<'_>> {
        let file = match (&self.entries.get(i)?.slot, &self.backing) {
            (Slot::File(id), Backing::Dir { path, .. }) => {
                Some(self.io.open(&sframe::chunk_path(path, *id), Mode::Read)?)
            }
            _ => None,
        };
        Ok(PartReader { sc: self, i, file })
    }

    /// Load into `buf` chunk `n` with at least the blocks holding the
    /// byte ranges `(start, len)` of its data, for chunks on disk: only the
    /// header, block starts, dictionary and those blocks are read, once for
    /// all ranges, so small slices of large chunks stay cheap (a b2nd box
    /// across a chunk reads several runs of its blocks). The other bytes of
    /// `buf` are left as they are (never decoded). Returns where in `buf`
    /// the chunk lies, or None when the whole chunk should be read instead.
    pub(super) fn load_ranges(
        &self,
        n: i64,
        ranges: &[(usize, usize)],
        buf: &mut Vec<u8>,
    ) -> Result<Option<std::ops::Range<usize>>> {
        let i = self.check_index(n)?;
        // (a checked read needs all of the chunk's bytes)
        if !matches!(self.entries.get(i)?.slot, Slot::Disk(_) | Slot::File(_))
            || ranges.iter().all(|r| r.1 == 0)
            || self.verifying()
        {
            return Ok(None);
        }
        let ext = EXTENDED_HEADER_LENGTH;
        let mut part = self.part_reader(i)?;
        let mut hb = [0u8; EXTENDED_HEADER_LENGTH];
        part.read(0, &mut hb)?;
        let h = ChunkHeader::read(&hb)?;
        let cb = h.cbytes.max(0) as usize;
        let (nblocks, _) = h.nblocks();
        if !h.is_extended()
            || h.is_memcpyed()
            || h.special_bits() != 0
            || h.is_lazy()
            || h.is_vlblocks()
            || nblocks < 2
        {
            return Ok(None);
        }
        // where the chunk's first byte is in its file
        let mut file_pos = 0u64;
        if let (
            Slot::Disk(off),
            Backing::File {
                base,
                header_len,
                data_len,
                ..
            },
        ) = (&self.entries.get(i)?.slot, &self.backing)
        {
            if off.checked_add(cb as i64).is_none_or(|e| e > *data_len) {
                return Err(ErrorKind::InvalidHeader);
            }
            file_pos = base.wrapping_add(header_len.wrapping_add(*off) as u64);
        }
        // A chunk file shorter than its header claims is a failed read, as
        // in `chunk`; checked before `buf` grows to the claim (a 36-byte
        // file claimed 879 MB, all of it zeroed).
        if let Some(size) = part.file_size()? {
            if cb as u64 > size {
                return Err(ErrorKind::FileRead);
            }
        }
        let bs = h.blocksize as usize;
        let idx_end = ext + nblocks * 4;
        if idx_end > cb {
            return Err(ErrorKind::InvalidHeader);
        }
        // The kernel copies file bytes out with `rep movsb`, which on AMD
        // Zen runs about 10x slower when the destination is 1 to 31 bytes
        // past the source modulo the page size. A large malloc block starts
        // 16 bytes into a page, so a sparse chunk file (read from offset 0)
        // copied into the chunk's own positions always hit that: the chunk
        // is placed in `buf` so each byte lands at its file page offset.
        let need = cb.checked_add(PAGE).ok_or(ErrorKind::InvalidHeader)?;
        // kept buffers are not zeroed: only the bytes read below are decoded
        crate::spare::grow(buf, need)?;
        let at = (file_pos as usize).wrapping_sub(buf.as_ptr().addr()) % PAGE;
        let out = &mut buf[at..at + cb];
        out[..ext].copy_from_slice(&hb);
        part.read(ext, &mut out[ext..idx_end])?;
        let starts: Vec<usize> = out[ext..idx_end]
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]).max(0) as usize)
            .collect();
        let first = starts.iter().copied().min().unwrap_or(cb);
        if first < idx_end || first > cb {
            return Ok(None);
        }
        part.read(idx_end, &mut out[idx_end..first])?;
        let mut blocks: Vec<usize> = ranges
            .iter()
            .filter(|r| r.1 > 0)
            .flat_map(|&(start, len)| {
                start / bs..=(start.saturating_add(len - 1) / bs).min(nblocks - 1)
            })
            .collect();
        if h.blocks_need_the_first() {
            blocks.push(0);
        }
        blocks.sort_unstable();
        blocks.dedup();
        for j in blocks {
            let a = starts[j];
            let b = starts
                .iter()
                .copied()
                .filter(|&x| x > a)
                .min()
                .unwrap_or(cb)
                .min(cb);
            if a < first || a > b {
                return Ok(None);
            }
            part.read(a, &mut out[a..b])?;
            // a block running past its extent needs the whole chunk
            let nstreams = crate::chunk::decompress::block_nstreams(&h, j);
            if !h.is_memcpyed() && !crate::chunk::decompress::streams_fit(&out[..b], a, nstreams) {
                return Ok(None);
            }
        }
        Ok(Some(at..at + cb))
    }

    /// Chunk `n` as `blosc2_schunk_get_lazychunk` gives it: for chunks in a
    /// file (contiguous or sparse frame), a lazy chunk (see
    /// `lazy::build`) of header, block starts and a trailer saying where
    /// the blocks are; otherwise the whole chunk.
    pub fn lazy_chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.check_index(n)?;
        // a checked read needs all of the chunk's bytes
        if self.verifying() {
            return self.chunk(n);
        }
        let (nchunk, offset) = match (&self.entries.get(i)?.slot, &self.backing) {
            (Slot::Disk(off), Backing::File { header_len, .. }) => (
                n as i32,
                header_len.checked_add(*off).ok_or(ErrorKind::Data)?,
            ),
            (Slot::File(id), Backing::Dir { .. }) => (*id as i32, *id),
            _ => return self.chunk(n),
        };
        let mut part = self.part_reader(i)?;
        let mut hb = [0u8; EXTENDED_HEADER_LENGTH];
        part.read(0, &mut hb)?;
        let h = ChunkHeader::read(&hb)?;
        let Some(layout) = lazy::Layout::of(&h)? else {
            // special chunks stored as data are small: hand them out whole
            return self.chunk(n);
        };
        if layout.needs_presence_check() {
            let last = (h.cbytes as usize).saturating_sub(1);
            part.read(last, &mut [0u8; 1])?;
        }
        let mut meta = vec![0u8; layout.meta_len()];
        meta[..EXTENDED_HEADER_LENGTH].copy_from_slice(&hb);
        part.read(EXTENDED_HEADER_LENGTH, &mut meta[EXTENDED_HEADER_LENGTH..])?;
        lazy::build(&h, &layout, &meta, nchunk, offset).map(Cow::Owned)
    }

    /// Complete a lazy chunk of this super-chunk for decoding bytes
    /// `range` of its data (all of them when None): a buffer with the
    /// chunk's real layout where only the header, block starts, dictionary
    /// and the blocks holding those bytes are filled in, read from the frame
    /// where the lazy chunk's trailer says.
    pub fn complete_lazy(&self, lazy: &[u8], range: Option<(usize, usize)>) -> Result<Vec<u8>> {
        let plan = lazy::Plan::parse(lazy, range)?;
        let mut out = crate::spare::zeroed(plan.cbytes)?;
        out[..plan.meta_len].copy_from_slice(&lazy[..plan.meta_len]);
        lazy::clear_flag(&mut out);
        let read = |at: usize, buf: &mut [u8]| -> Result<()> {
            match &self.backing {
                Backing::File { base, .. } => {
                    let pos = (*base as i64)
                        .checked_add(plan.offset)
                        .and_then(|v| v.checked_add(at as i64))
                        .ok_or(ErrorKind::ReadBuffer)?;
                    self.with_reader(|s| s.read_exact_at(pos as u64, buf))
                }
                Backing::Dir { path } => {
                    let mut s = self
                        .io
                        .open(&sframe::chunk_path(path, plan.nchunk as i64), Mode::Read)?;
                    s.read_exact_at(at as u64, buf)
                }
                // lazy chunks only come from frames on disk
                _ => Err(ErrorKind::InvalidParam),
            }
        };
        for (a, b) in plan.extents() {
            read(a, &mut out[a..b])?;
        }
        // a block running past its extent needs the others' bytes too
        if range.is_some() && !plan.blocks_fit(&out) {
            return self.complete_lazy(lazy, None);
        }
        Ok(out)
    }

    /// Decompress chunk `n` into `dest`; returns its size.
    pub fn decompress_chunk(&self, n: i64, dest: &mut [u8]) -> Result<usize> {
        let c = self.chunk(n)?;
        let nb = ChunkHeader::read(&c)?.nbytes;
        // A frame opened from a file takes the sizes of its chunks from the
        // header (chunksize, nbytes) without reading each one. A chunk that
        // says otherwise is damaged: decoding it as it is would give another
        // number of bytes than the frame's chunks are known to hold. The
        // last chunk is the exception: C-Blosc2 decodes it as its own header
        // says, whatever the frame's (damaged) nbytes leaves for it, and
        // the chunk's blocks check that size when it is decoded.
        let i = self.check_index(n)?;
        let e = self.entries.get(i)?;
        let last_within = i + 1 == self.entries.len() && nb > 0 && nb <= self.chunksize;
        if !matches!(e.slot, Slot::Special(_)) && e.nbytes >= 0 && nb != e.nbytes && !last_within {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Chunk {n} holds {nb} bytes (its header, offset 4), not the {} the frame's chunksize and nbytes give it",
                e.nbytes
            ));
        }
        if (dest.len() as i64) < nb as i64 {
            return Err(ErrorKind::InvalidParam);
        }
        self.with_decompressor(n, &mut |d| d.decompress(&c, dest))
    }

    /// Decompress chunk `n` skipping the blocks flagged in `mask` (None: a
    /// whole decode) into `dest`; returns its size.
    pub fn decompress_chunk_masked(
        &self,
        n: i64,
        mask: Option<&[bool]>,
        dest: &mut [u8],
    ) -> Result<usize> {
        let c = self.chunk(n)?;
        self.with_decompressor(n, &mut |d| {
            if let Some(m) = mask {
                d.set_maskout(m);
            }
            d.decompress(&c, dest)
        })
    }
}

/// See [`SuperChunk::part_reader`].
struct PartReader<'a> {
    sc: &'a SuperChunk,
    i: usize,
    /// The chunk's own file (sparse frames); None: through the frame's.
    file: Option<Box<dyn crate::io::Stream>>,
}

impl PartReader<'_> {
    fn read(&mut self, pos: usize, buf: &mut [u8]) -> Result<()> {
        match self.file.as_mut() {
            Some(s) => s.read_exact_at(pos as u64, buf),
            None => self.sc.read_part(self.i, pos, buf),
        }
    }

    /// The length of the chunk's own file, when it has one.
    fn file_size(&mut self) -> Result<Option<u64>> {
        self.file.as_mut().map(|s| s.size()).transpose()
    }
}
