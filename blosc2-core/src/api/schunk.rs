//! [`Schunk`]: a super-chunk, a growable sequence of compressed chunks in
//! memory, in a contiguous frame file or in a sparse frame directory.

use super::bulk::chunk_nbytes;
use super::element::{buffer_for, check_item_size, item_count, zeroed};
use super::params::CParams;
use super::paths::{frame_reason, must_exist, open_error, remove_existing};
use crate::chunk::DParams;
use crate::error::{Error, ErrorKind, Reason};
use crate::schunk::{Storage, SuperChunk, VerifyReport};
use bytemuck::Pod;
use std::io;
use std::ops::{Bound, RangeBounds};
use std::path::Path;

/// A super-chunk: chunks compressed with the same settings, with
/// metalayers (fixed-size, set at creation) and vlmetalayers
/// (variable-length, compressed), readable and writable by C-Blosc2.
///
/// Every chunk but the last holds the same number of bytes (the chunk
/// size, set by the first chunk).
///
/// ```
/// use blosc2_core::{CParams, Codec, Schunk};
///
/// let mut sc = Schunk::new(&CParams::new().with_codec(Codec::Lz4).with_typesize(4))?;
/// for i in 0..4 {
///     let chunk: Vec<i32> = (0..1000).map(|j| i * 1000 + j).collect();
///     sc.append(&chunk)?;
/// }
/// assert_eq!(sc.nchunks(), 4);
/// assert_eq!(sc.get::<i32>(2)?[0], 2000);
/// assert_eq!(sc.slice::<i32>(999..1002)?, [999, 1000, 1001]);
///
/// // the same super-chunk as a contiguous frame, as C-Blosc2 writes it
/// let frame = sc.to_frame()?;
/// let back = Schunk::from_frame(&frame)?;
/// assert_eq!(back.slice::<i32>(0..4000)?, sc.slice::<i32>(0..4000)?);
/// # Ok::<(), blosc2_core::Error>(())
/// ```
pub struct Schunk {
    inner: SuperChunk,
    /// Whether the item size is settled: set in the settings, read from a
    /// frame, or taken from the first write. Until then the first typed
    /// write decides it.
    typesize_fixed: bool,
}

impl std::fmt::Debug for Schunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schunk")
            .field("path", &self.path())
            .field("nchunks", &self.nchunks())
            .field("nbytes", &self.nbytes())
            .field("cbytes", &self.cbytes())
            .finish()
    }
}

fn storage(params: &CParams, path: Option<&Path>, contiguous: bool) -> Result<Storage, Error> {
    let cparams = params.to_engine(1)?;
    Ok(Storage {
        contiguous,
        urlpath: path.map(Path::to_path_buf),
        dparams: DParams {
            nthreads: cparams.nthreads,
            typesize: cparams.typesize,
        },
        cparams,
        io: crate::io::default_backend(),
    })
}

impl Schunk {
    fn wrap(inner: SuperChunk, typesize_fixed: bool) -> Schunk {
        Schunk {
            inner,
            typesize_fixed,
        }
    }

    /// A new, empty super-chunk in memory.
    ///
    /// Its item size is the settings' when they give one
    /// ([`CParams::with_typesize`]); otherwise the first typed write
    /// ([`Schunk::append`], [`Schunk::insert`], ...) takes it from its item
    /// type, and a byte write ([`Schunk::append_bytes`], [`Writer`]) settles
    /// it at 1. Once settled, typed writes of items of another size are
    /// errors.
    ///
    /// ```
    /// use blosc2_core::{CParams, Schunk};
    ///
    /// let mut sc = Schunk::new(&CParams::new())?;
    /// sc.append(&[1.5f64, 2.5, 3.5])?;
    /// assert_eq!(sc.typesize(), 8);
    /// assert!(sc.append(&[1u32, 2]).is_err()); // 4-byte items now
    /// # Ok::<(), blosc2_core::Error>(())
    /// ```
    pub fn new(params: &CParams) -> Result<Schunk, Error> {
        Ok(Schunk::wrap(
            SuperChunk::new(storage(params, None, true)?)?,
            params.typesize().is_some(),
        ))
    }

    /// A new, empty super-chunk stored as a contiguous frame file at `path`
    /// (replacing any file there). Every change is written to the file.
    pub fn create(path: impl AsRef<Path>, params: &CParams) -> Result<Schunk, Error> {
        let path = path.as_ref();
        remove_existing(path, false)?;
        let st = storage(params, Some(path), true)?;
        let inner = SuperChunk::new(st).map_err(|k| Error::new(k).with_path(path))?;
        Ok(Schunk::wrap(inner, params.typesize().is_some()))
    }

    /// A new, empty super-chunk stored as a sparse frame: a directory at
    /// `path` (replacing any there) holding one file per chunk and an index.
    pub fn create_sparse(path: impl AsRef<Path>, params: &CParams) -> Result<Schunk, Error> {
        let path = path.as_ref();
        remove_existing(path, true)?;
        let st = storage(params, Some(path), false)?;
        let inner = SuperChunk::new(st).map_err(|k| Error::new(k).with_path(path))?;
        Ok(Schunk::wrap(inner, params.typesize().is_some()))
    }

    /// Opens a contiguous frame file or a sparse frame directory for
    /// reading and writing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::FileOpen`] with the OS error when the path cannot be
    /// read; the engine's error (usually [`ErrorKind::InvalidHeader`]) for
    /// a damaged frame, with [`Reason::Truncated`] when the file is
    /// shorter than its header says and [`Reason::NotAFrame`] when it holds
    /// no frame.
    pub fn open(path: impl AsRef<Path>) -> Result<Schunk, Error> {
        let path = path.as_ref();
        must_exist(path).map_err(|e| e.with_operation("opening a super-chunk"))?;
        let inner = SuperChunk::open(path, 0, crate::io::default_backend())
            .map_err(|k| open_error(Error::new(k), path).with_operation("opening a super-chunk"))?;
        Ok(Schunk::wrap(inner, true))
    }

    /// A super-chunk in memory from a contiguous frame (copied).
    ///
    /// # Errors
    ///
    /// As [`Schunk::open`] for a damaged, truncated or foreign frame.
    pub fn from_frame(frame: &[u8]) -> Result<Schunk, Error> {
        let inner = SuperChunk::from_buffer(frame, true).map_err(|k| {
            let e = Error::new(k).with_operation("reading a frame");
            match frame_reason(frame, frame.len() as u64) {
                Some(r) => e.with_reason(r),
                None => e,
            }
        })?;
        Ok(Schunk::wrap(inner, true))
    }

    /// The super-chunk as a contiguous frame.
    pub fn to_frame(&self) -> Result<Vec<u8>, Error> {
        Ok(self.inner.to_frame()?)
    }

    /// Writes the super-chunk as a contiguous frame file (replacing it).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        self.inner
            .to_file(path)
            .map_err(|k| Error::new(k).with_path(path))?;
        Ok(())
    }

    /// The file or directory it is stored in, if any.
    pub fn path(&self) -> Option<&Path> {
        self.inner.urlpath()
    }

    /// The number of chunks.
    pub fn nchunks(&self) -> u64 {
        self.inner.nchunks().max(0) as u64
    }

    /// The number of items held (the bytes held over the item size).
    pub fn nitems(&self) -> u64 {
        self.nbytes() / self.typesize().max(1) as u64
    }

    /// The item size in bytes.
    pub fn typesize(&self) -> usize {
        self.inner.typesize().max(0) as usize
    }

    /// The bytes every chunk but the last holds, once a chunk was added.
    pub fn chunksize(&self) -> Option<usize> {
        usize::try_from(self.inner.chunksize())
            .ok()
            .filter(|&n| n > 0)
    }

    /// The bytes of data held, decompressed.
    pub fn nbytes(&self) -> u64 {
        self.inner.nbytes().max(0) as u64
    }

    /// The bytes the compressed chunks take.
    pub fn cbytes(&self) -> u64 {
        self.inner.cbytes().max(0) as u64
    }

    /// The settings new chunks are compressed with.
    pub fn cparams(&self) -> CParams {
        CParams::from_engine(self.inner.cparams())
    }

    /// Compresses `data` and appends it as a new chunk; returns the new
    /// number of chunks.
    ///
    /// The items must be of the super-chunk's item size; the first typed
    /// write to a super-chunk made without one sets it (see
    /// [`Schunk::new`]).
    pub fn append<T: Pod>(&mut self, data: &[T]) -> Result<u64, Error> {
        self.adopt_item::<T>()
            .map_err(|e| e.with_operation("appending a chunk"))?;
        self.append_bytes(bytemuck::cast_slice(data))
    }

    /// Compresses bytes and appends them as a new chunk (whatever the item
    /// size; a super-chunk made without one keeps 1).
    pub fn append_bytes(&mut self, data: &[u8]) -> Result<u64, Error> {
        self.typesize_fixed = true;
        let n = self
            .inner
            .append_buffer(data)
            .map_err(|k| Error::new(k).with_operation("appending a chunk"))?;
        Ok(n as u64)
    }

    /// Appends an already compressed chunk (as [`crate::compress`] makes).
    pub fn append_compressed(&mut self, chunk: &[u8]) -> Result<u64, Error> {
        self.typesize_fixed = true;
        Ok(self.inner.append_chunk(chunk)? as u64)
    }

    /// Compresses `data` and inserts it as chunk `n`.
    pub fn insert<T: Pod>(&mut self, n: u64, data: &[T]) -> Result<u64, Error> {
        let op = || format!("inserting chunk {n}");
        self.adopt_item::<T>().map_err(|e| e.with_operation(op()))?;
        let i = self
            .chunk_index(n, true)
            .map_err(|e| e.with_operation(op()))?;
        let r = self
            .inner
            .compress_chunk(i, bytemuck::cast_slice(data))
            .and_then(|c| self.inner.insert_chunk(i, &c));
        Ok(r.map_err(|k| Error::new(k).with_operation(op()))? as u64)
    }

    /// Compresses `data` and replaces chunk `n` with it.
    pub fn update<T: Pod>(&mut self, n: u64, data: &[T]) -> Result<(), Error> {
        let op = || format!("replacing chunk {n}");
        self.adopt_item::<T>().map_err(|e| e.with_operation(op()))?;
        let i = self
            .chunk_index(n, false)
            .map_err(|e| e.with_operation(op()))?;
        self.inner
            .compress_chunk(i, bytemuck::cast_slice(data))
            .and_then(|c| self.inner.update_chunk(i, &c))
            .map_err(|k| Error::new(k).with_operation(op()))?;
        Ok(())
    }

    /// Removes chunk `n`.
    pub fn delete(&mut self, n: u64) -> Result<u64, Error> {
        let op = || format!("removing chunk {n}");
        let i = self
            .chunk_index(n, false)
            .map_err(|e| e.with_operation(op()))?;
        let left = self
            .inner
            .delete_chunk(i)
            .map_err(|k| Error::new(k).with_operation(op()))?;
        Ok(left as u64)
    }

    /// Chunk `n`, decompressed into items of `T`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidParam`] with [`Reason::NoSuchChunk`] past the
    /// last chunk, or when the chunk is not a whole number of `T`s; the
    /// decoder's error for a damaged chunk.
    pub fn get<T: Pod>(&self, n: u64) -> Result<Vec<T>, Error> {
        let op = || format!("reading chunk {n}");
        let read = || {
            let i = self.chunk_index(n, false)?;
            let nbytes = chunk_nbytes(&self.inner.chunk(i)?)?;
            let mut out = buffer_for::<T>(nbytes, &format!("chunk {n}"))?;
            self.inner
                .decompress_chunk(i, bytemuck::cast_slice_mut(&mut out))?;
            Ok(out)
        };
        read().map_err(|e: Error| e.with_operation(op()))
    }

    /// Chunk number `n` for the engine, or the error of one past the end
    /// (`n == nchunks` is allowed when `end_ok`, for inserts).
    fn chunk_index(&self, n: u64, end_ok: bool) -> Result<i64, Error> {
        let nchunks = self.nchunks();
        if n > nchunks || (n == nchunks && !end_ok) {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("n")
                .with_reason(Reason::NoSuchChunk { index: n, nchunks }));
        }
        to_i64(n)
    }

    /// Chunk `n` as it is stored, compressed.
    pub fn compressed_chunk(&self, n: u64) -> Result<Vec<u8>, Error> {
        let read = || Ok(self.inner.chunk(self.chunk_index(n, false)?)?.into_owned());
        read().map_err(|e: Error| e.with_operation(format!("reading chunk {n}")))
    }

    /// Items `range` (counted in the super-chunk's item size, across
    /// chunks: `10..20`, `..5`, `100..`, `..`) as items of `T`, whose size
    /// must be the item size.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidParam`] with [`Reason::OutOfRange`] for a range
    /// past the end or backwards, with [`Reason::ItemSize`] for a `T` of
    /// another size; the decoder's error for a damaged chunk.
    pub fn slice<T: Pod>(&self, range: impl RangeBounds<u64>) -> Result<Vec<T>, Error> {
        let read = || {
            self.check_item::<T>()?;
            let (start, stop) = item_range(&range, self.nitems())?;
            let (start, stop) = (to_i64(start)?, to_i64(stop)?);
            let mut out = zeroed::<T>(item_count(stop - start)?)?;
            self.inner
                .get_slice(start, stop, bytemuck::cast_slice_mut(&mut out))?;
            Ok(out)
        };
        read().map_err(|e: Error| e.with_operation("reading items"))
    }

    /// Overwrites the items from `start` on with `data` (which must not run
    /// past the end).
    pub fn set_slice<T: Pod>(&mut self, start: u64, data: &[T]) -> Result<(), Error> {
        let op = "writing items";
        self.check_item::<T>().map_err(|e| e.with_operation(op))?;
        let end = start.saturating_add(data.len() as u64);
        let (start, stop) =
            item_range(&(start..end), self.nitems()).map_err(|e| e.with_operation(op))?;
        self.inner
            .set_slice(to_i64(start)?, to_i64(stop)?, bytemuck::cast_slice(data))
            .map_err(|k| Error::new(k).with_operation(op))?;
        Ok(())
    }

    fn check_item<T>(&self) -> Result<(), Error> {
        check_item_size::<T>(self.typesize(), "a super-chunk")
    }

    /// Checks that a typed write's items are of the item size, first
    /// taking `T`'s size as the item size when none is settled yet.
    fn adopt_item<T>(&mut self) -> Result<(), Error> {
        let size = std::mem::size_of::<T>();
        if !self.typesize_fixed && self.inner.nchunks() == 0 && size != self.typesize() {
            let mut cparams = self.inner.cparams().clone();
            cparams.typesize = i32::try_from(size)
                .ok()
                .filter(|s| (1..=255).contains(s))
                .ok_or_else(|| {
                    Error::new(ErrorKind::InvalidParam)
                        .with_parameter("data")
                        .with_detail(format!(
                            "items of {} are {size} bytes, and an item size must be between \
                             1 and 255: write them as bytes with a `CParams::typesize`",
                            std::any::type_name::<T>()
                        ))
                })?;
            self.inner.set_cparams(cparams);
        }
        self.typesize_fixed = true;
        if size != self.typesize() {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("data")
                .with_reason(Reason::ItemSize {
                    expected: self.typesize(),
                    actual: size,
                })
                .with_detail(format!("the items are {}", std::any::type_name::<T>())));
        }
        Ok(())
    }

    /// The chunks in order, each decompressed into bytes.
    pub fn chunks(&self) -> Chunks<'_> {
        Chunks { sc: self, next: 0 }
    }

    /// A reader of all the data, chunk after chunk, that can seek.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            sc: self,
            cursor: Cursor::default(),
        }
    }

    /// A writer that appends what it is given as chunks of `chunk_bytes`
    /// bytes (the last one may be shorter: call [`Writer::finish`]).
    pub fn writer(&mut self, chunk_bytes: usize) -> Writer<'_> {
        Writer {
            sc: self,
            chunk_bytes: chunk_bytes.max(1),
            buf: Vec::new(),
        }
    }

    /// Keeps frame checksums from now on (`true`), or stops keeping them:
    /// the frame gets a digest of every chunk and a seal over its index and
    /// trailer, in places C-Blosc2 readers skip, so the file stays one they
    /// read and write (docs/checksums.md). Turning them on hashes every
    /// chunk once; after that an append hashes only the new chunk. A frame
    /// opened with a matching seal keeps them without asking.
    pub fn set_checksums(&mut self, on: bool) -> Result<(), Error> {
        Ok(self.inner.set_checksums(on)?)
    }

    /// Whether the frame keeps checksums (see [`Schunk::set_checksums`]).
    pub fn checksums(&self) -> bool {
        self.inner.checksums()
    }

    /// Whether reads check each chunk against its digest, where the frame
    /// has checksums (the default): a damaged chunk then fails with
    /// [`ErrorKind::Data`](crate::ErrorKind::Data) instead of decoding
    /// wrong bytes.
    pub fn set_verified_reads(&mut self, on: bool) {
        self.inner.set_verified_reads(on);
    }

    /// Reads every chunk and checks it against the frame's checksums.
    ///
    /// ```
    /// # fn main() -> Result<(), blosc2_core::Error> {
    /// use blosc2_core::{CParams, FrameCheck, Schunk};
    /// let mut s = Schunk::new(&CParams::new().with_typesize(4))?;
    /// s.set_checksums(true)?;
    /// s.append(&[1u32, 2, 3])?;
    /// let back = Schunk::from_frame(&s.to_frame()?)?;
    /// let report = back.verify();
    /// assert_eq!(report.frame, FrameCheck::Sealed);
    /// assert!(report.ok() && report.verified == 1);
    /// # Ok(())
    /// # }
    /// ```
    pub fn verify(&self) -> VerifyReport {
        self.inner.verify()
    }

    /// The content of the fixed-size metalayer `name`.
    pub fn meta(&self, name: &str) -> Option<&[u8]> {
        self.inner
            .metalayers
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.content.as_slice())
    }

    /// The names of the fixed-size metalayers.
    pub fn meta_names(&self) -> impl Iterator<Item = &str> {
        self.inner.metalayers.iter().map(|m| m.name.as_str())
    }

    /// Adds a fixed-size metalayer (at most 16, names up to 31 bytes), or
    /// replaces the content of one that exists with content of the same size.
    pub fn set_meta(&mut self, name: &str, content: &[u8]) -> Result<(), Error> {
        let r = if self.meta(name).is_some() {
            self.inner.meta_update(name, content)
        } else {
            self.inner.meta_add(name, content)
        };
        r.map_err(|k| Error::new(k).with_parameter("name").with_detail(name))?;
        Ok(())
    }

    /// The content of the variable-length metalayer `name`, if there is one.
    pub fn vlmeta(&self, name: &str) -> Result<Option<Vec<u8>>, Error> {
        if !self.inner.vlmetalayers.iter().any(|m| m.name == name) {
            return Ok(None);
        }
        Ok(Some(self.inner.vlmeta_get(name)?))
    }

    /// The names of the variable-length metalayers.
    pub fn vlmeta_names(&self) -> impl Iterator<Item = &str> {
        self.inner.vlmetalayers.iter().map(|m| m.name.as_str())
    }

    /// Sets the variable-length metalayer `name` (adding or replacing it).
    pub fn set_vlmeta(&mut self, name: &str, content: &[u8]) -> Result<(), Error> {
        let r = if self.inner.vlmetalayers.iter().any(|m| m.name == name) {
            self.inner.vlmeta_update(name, content, None)
        } else {
            self.inner.vlmeta_add(name, content, None)
        };
        r.map_err(|k| Error::new(k).with_parameter("name").with_detail(name))?;
        Ok(())
    }

    /// Removes the variable-length metalayer `name`; false when there is none.
    pub fn delete_vlmeta(&mut self, name: &str) -> Result<bool, Error> {
        if !self.inner.vlmetalayers.iter().any(|m| m.name == name) {
            return Ok(false);
        }
        self.inner.vlmeta_delete(name)?;
        Ok(true)
    }

    /// The engine's super-chunk, for the C API and tools.
    #[doc(hidden)]
    pub fn engine(&self) -> &SuperChunk {
        &self.inner
    }

    /// Wraps an engine super-chunk.
    #[doc(hidden)]
    pub fn from_engine(inner: SuperChunk) -> Schunk {
        Schunk::wrap(inner, true)
    }
}

fn to_i64(v: u64) -> Result<i64, Error> {
    i64::try_from(v).map_err(|_| Error::new(ErrorKind::InvalidIndex))
}

/// The start and end of `range` over `len` items, or the error of a range
/// that runs backwards or past the end.
pub(crate) fn item_range(range: &impl RangeBounds<u64>, len: u64) -> Result<(u64, u64), Error> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    match (start, end) {
        (Some(s), Some(e)) if s <= e && e <= len => Ok((s, e)),
        (s, e) => Err(Error::new(ErrorKind::InvalidParam)
            .with_parameter("range")
            .with_reason(Reason::OutOfRange {
                start: s.unwrap_or(u64::MAX),
                end: e.unwrap_or(u64::MAX),
                len,
            })),
    }
}

/// The chunks of a [`Schunk`], decompressed ([`Schunk::chunks`]).
#[derive(Debug)]
pub struct Chunks<'a> {
    sc: &'a Schunk,
    next: u64,
}

impl Iterator for Chunks<'_> {
    type Item = Result<Vec<u8>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.sc.nchunks() {
            return None;
        }
        self.next += 1;
        Some(self.sc.get::<u8>(self.next - 1))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.sc.nchunks().saturating_sub(self.next);
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Chunks<'_> {}

/// Reads a [`Schunk`]'s data ([`Schunk::reader`]), decompressing one chunk
/// at a time; [`io::Seek`] moves to any byte, and only the chunk holding it
/// is decompressed when reading resumes.
#[derive(Debug)]
pub struct Reader<'a> {
    sc: &'a Schunk,
    cursor: Cursor,
}

impl io::Read for Reader<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.cursor.read(self.sc, out)
    }
}

impl io::Seek for Reader<'_> {
    /// Positions past the end are allowed (reads there return 0 bytes), as
    /// for files; positions before the start are errors.
    fn seek(&mut self, to: io::SeekFrom) -> io::Result<u64> {
        self.cursor.seek(self.sc, to)
    }
}

/// A position in a super-chunk's decompressed bytes and the chunk around
/// it, shared by [`Reader`] and [`crate::Decoder`].
#[derive(Debug, Default)]
pub(crate) struct Cursor {
    pos: u64,
    /// The decompressed chunk holding `buf_start..buf_start + buf.len()`.
    buf: Vec<u8>,
    buf_start: u64,
    /// Where each chunk starts, for super-chunks of variable-size chunks
    /// (read from the chunk headers on the first need).
    starts: Option<Vec<u64>>,
}

impl Cursor {
    /// The chunk holding byte `pos` and where it starts, if `pos` is before
    /// the end.
    fn locate(&mut self, sc: &Schunk) -> Result<Option<(u64, u64)>, Error> {
        if self.pos >= sc.nbytes() {
            return Ok(None);
        }
        if let Some(cs) = sc.chunksize().filter(|_| !sc.inner.variable_chunks()) {
            let n = self.pos / cs as u64;
            return Ok(Some((n, n * cs as u64)));
        }
        if self.starts.is_none() {
            let mut starts = vec![0u64];
            let mut end = 0u64;
            for i in 0..sc.nchunks() {
                let nbytes = chunk_nbytes(&sc.inner.chunk(to_i64(i)?)?)?;
                end = end.saturating_add(nbytes as u64);
                starts.push(end);
            }
            self.starts = Some(starts);
        }
        let starts = self.starts.as_deref().unwrap_or(&[0]);
        // the last chunk starting at or before `pos` (empty chunks share
        // their start with the next one)
        let i = starts.partition_point(|&s| s <= self.pos).saturating_sub(1);
        Ok(Some((i as u64, starts[i])))
    }

    pub(crate) fn read(&mut self, sc: &Schunk, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let held = self.buf_start..self.buf_start + self.buf.len() as u64;
        if !held.contains(&self.pos) {
            let Some((n, start)) = self.locate(sc)? else {
                return Ok(0);
            };
            self.buf = sc.get::<u8>(n)?;
            self.buf_start = start;
            if !(start..start + self.buf.len() as u64).contains(&self.pos) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("chunk {n} is shorter than the super-chunk's sizes say"),
                ));
            }
        }
        let off = (self.pos - self.buf_start) as usize;
        let n = out.len().min(self.buf.len() - off);
        out[..n].copy_from_slice(&self.buf[off..off + n]);
        self.pos += n as u64;
        Ok(n)
    }

    pub(crate) fn seek(&mut self, sc: &Schunk, to: io::SeekFrom) -> io::Result<u64> {
        let (base, delta) = match to {
            io::SeekFrom::Start(p) => (p, 0),
            io::SeekFrom::End(d) => (sc.nbytes(), d),
            io::SeekFrom::Current(d) => (self.pos, d),
        };
        self.pos = base.checked_add_signed(delta).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek to a position before the start of the data",
            )
        })?;
        Ok(self.pos)
    }
}

/// Appends data to a [`Schunk`] chunk by chunk ([`Schunk::writer`]).
///
/// Dropping it appends what is left as a last, shorter chunk, ignoring
/// errors; call [`Writer::finish`] to see them.
#[derive(Debug)]
pub struct Writer<'a> {
    sc: &'a mut Schunk,
    chunk_bytes: usize,
    buf: Vec<u8>,
}

impl Writer<'_> {
    /// Appends what is left as a last chunk.
    pub fn finish(mut self) -> Result<(), Error> {
        self.flush_tail()
    }

    fn flush_tail(&mut self) -> Result<(), Error> {
        if !self.buf.is_empty() {
            let tail = std::mem::take(&mut self.buf);
            self.sc.append_bytes(&tail)?;
        }
        Ok(())
    }
}

/// `io::Write::write` for a writer that gathers `chunk_bytes` in `buf`
/// and appends each full chunk to `sc` (the partial one waits).
pub(super) fn write_chunked(
    sc: &mut Schunk,
    buf: &mut Vec<u8>,
    chunk_bytes: usize,
    data: &[u8],
) -> io::Result<usize> {
    let n = data.len().min(chunk_bytes - buf.len());
    buf.extend_from_slice(&data[..n]);
    if buf.len() == chunk_bytes {
        let full = std::mem::take(buf);
        sc.append_bytes(&full)?;
    }
    Ok(n)
}

impl io::Write for Writer<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        write_chunked(self.sc, &mut self.buf, self.chunk_bytes, data)
    }

    /// Whole chunks are appended as they fill; a partial one waits for
    /// [`Writer::finish`], since only the last chunk may be shorter.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        let _ = self.flush_tail();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn reader_and_writer_round_trip() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 31 % 251) as u8).collect();
        let mut sc = Schunk::new(&CParams::new()).unwrap();
        let mut w = sc.writer(16 * 1024);
        for piece in data.chunks(3000) {
            w.write_all(piece).unwrap();
        }
        w.finish().unwrap();
        assert_eq!(sc.nchunks(), 7);
        let mut back = Vec::new();
        sc.reader().read_to_end(&mut back).unwrap();
        assert_eq!(back, data);
        let joined: Vec<u8> = sc.chunks().flat_map(Result::unwrap).collect();
        assert_eq!(joined, data);
    }

    #[test]
    fn the_first_typed_write_sets_the_item_size() {
        let data: Vec<f64> = (0..1000).map(|i| i as f64 * 0.25).collect();
        let mut sc = Schunk::new(&CParams::new()).unwrap();
        assert_eq!(sc.typesize(), 1);
        sc.append(&data).unwrap();
        assert_eq!(sc.typesize(), 8);
        assert_eq!(sc.slice::<f64>(998..1000).unwrap(), [249.5, 249.75]);
        assert_eq!(sc.cparams().typesize(), Some(8));
        let e = sc.append(&[1u32, 2]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidParam);
        assert_eq!(e.parameter(), Some("data"));
        assert_eq!(
            e.reason(),
            Some(&Reason::ItemSize {
                expected: 8,
                actual: 4
            })
        );
        assert_eq!(
            e.to_string(),
            "appending a chunk: 4-byte items do not fit a container of 8-byte items; \
             the items are u32 (parameter `data`)"
        );
        assert!(sc.insert(0, &[1u16]).is_err());
        assert!(sc.update(0, &[1u8; 8000]).is_err());
        assert_eq!(sc.nchunks(), 1);
        // the same type again is fine
        sc.append(&data).unwrap();
        assert_eq!(sc.nchunks(), 2);
    }

    #[test]
    fn an_explicit_or_settled_item_size_refuses_other_items() {
        let mut sc = Schunk::new(&CParams::new().with_typesize(4)).unwrap();
        let e = sc.append(&[1.0f64]).unwrap_err();
        assert!(e.to_string().contains("4-byte items"), "{e}");
        assert_eq!(sc.nchunks(), 0);
        sc.append(&[1.0f32]).unwrap();

        let mut bytes = Schunk::new(&CParams::new()).unwrap();
        bytes.append_bytes(&[0u8; 16]).unwrap();
        assert!(bytes.append(&[1.0f64, 2.0]).is_err());
        assert_eq!(bytes.typesize(), 1);

        let back = Schunk::from_frame(&sc.to_frame().unwrap()).unwrap();
        assert_eq!(back.typesize(), 4);

        // items too large for the chunk format's one-byte item size
        let mut big = Schunk::new(&CParams::new()).unwrap();
        let e = big.append(&[[0u8; 256]]).unwrap_err();
        assert!(e.to_string().contains("between 1 and 255"), "{e}");
    }

    fn four_chunks() -> Schunk {
        let mut sc = Schunk::new(&CParams::new()).unwrap();
        for i in 0..4 {
            sc.append(&[i as f64; 25]).unwrap();
        }
        sc
    }

    #[test]
    fn errors_name_the_chunk_and_the_count() {
        let mut sc = four_chunks();
        let e = sc.get::<f64>(99).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidParam);
        assert_eq!(e.code(), -12);
        assert_eq!(
            e.reason(),
            Some(&Reason::NoSuchChunk {
                index: 99,
                nchunks: 4
            })
        );
        assert_eq!(
            e.to_string(),
            "reading chunk 99: there is no chunk 99, the super-chunk has 4 chunks (parameter `n`)"
        );
        for e in [
            sc.compressed_chunk(4).unwrap_err(),
            sc.update(4, &[0f64; 25]).unwrap_err(),
            sc.delete(4).unwrap_err(),
            sc.insert(5, &[0f64; 25]).unwrap_err(),
        ] {
            assert!(
                matches!(e.reason(), Some(Reason::NoSuchChunk { nchunks: 4, .. })),
                "{e}"
            );
        }
        sc.insert(4, &[9f64; 25]).unwrap();
    }

    #[test]
    fn errors_name_the_range_and_the_length() {
        let mut sc = four_chunks();
        let e = sc.slice::<f64>(90..110).unwrap_err();
        assert_eq!(
            e.reason(),
            Some(&Reason::OutOfRange {
                start: 90,
                end: 110,
                len: 100
            })
        );
        assert_eq!(
            e.to_string(),
            "reading items: the range 90..110 runs past the end, there are 100 items \
             (parameter `range`)"
        );
        let e = sc.set_slice(95, &[1f64; 10]).unwrap_err();
        assert!(
            matches!(
                e.reason(),
                Some(Reason::OutOfRange {
                    start: 95,
                    end: 105,
                    len: 100
                })
            ),
            "{e}"
        );
        assert!(e.to_string().starts_with("writing items: "), "{e}");
    }

    #[test]
    fn errors_say_a_frame_is_truncated_or_no_frame() {
        let frame = four_chunks().to_frame().unwrap();
        let len = frame.len() as u64;
        for cut in [frame.len() / 2, 40, 5] {
            let e = Schunk::from_frame(&frame[..cut]).unwrap_err();
            let expected = if cut >= 24 { len } else { 87 };
            assert_eq!(
                e.reason(),
                Some(&Reason::Truncated {
                    expected,
                    actual: cut as u64
                }),
                "{e}"
            );
        }
        let e = Schunk::from_frame(&frame[..frame.len() / 2]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "reading a frame: the frame is truncated: its header says {len} bytes, there are {}",
                len / 2
            )
        );
        let e = Schunk::from_frame(&[7u8; 200]).unwrap_err();
        assert_eq!(e.reason(), Some(&Reason::NotAFrame));

        let dir = std::env::temp_dir().join(format!("blosc2-api-cut-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cut.b2frame");
        let cut = frame.len() * 2 / 3;
        std::fs::write(&path, &frame[..cut]).unwrap();
        let e = Schunk::open(&path).unwrap_err();
        assert_eq!(
            e.reason(),
            Some(&Reason::Truncated {
                expected: len,
                actual: cut as u64
            })
        );
        assert_eq!(e.path(), Some(path.as_path()));
        assert!(e
            .to_string()
            .starts_with("opening a super-chunk: the frame is truncated"));
        let e = crate::NdArray::open(&path).unwrap_err();
        assert!(matches!(e.reason(), Some(Reason::Truncated { .. })), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_plain_frame_is_not_an_array() {
        let frame = four_chunks().to_frame().unwrap();
        let e = crate::NdArray::from_frame(&frame).unwrap_err();
        assert_eq!(e.reason(), Some(&Reason::NotAnArray));
        assert_eq!(e.kind(), ErrorKind::MetalayerNotFound);
        let dir = std::env::temp_dir().join(format!("blosc2-api-plain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plain.b2frame");
        std::fs::write(&path, &frame).unwrap();
        let e = crate::NdArray::open(&path).unwrap_err();
        assert_eq!(e.reason(), Some(&Reason::NotAnArray));
        assert!(
            e.to_string()
                .starts_with("opening a b2nd array: not a b2nd array (no b2nd metalayer)"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn slices_take_any_range() {
        let mut sc = Schunk::new(&CParams::new()).unwrap();
        sc.append(&[0u16, 1, 2, 3]).unwrap();
        sc.append(&[4u16, 5, 6]).unwrap();
        assert_eq!(sc.nitems(), 7);
        assert_eq!(sc.slice::<u16>(..).unwrap(), [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(sc.slice::<u16>(5..).unwrap(), [5, 6]);
        assert_eq!(sc.slice::<u16>(..=1).unwrap(), [0, 1]);
        assert_eq!(sc.slice::<u16>(3..=4).unwrap(), [3, 4]);
        assert!(sc.slice::<u16>(7..).unwrap().is_empty());
        for bad in [sc.slice::<u16>(6..8), sc.slice::<u16>(..=7)] {
            assert_eq!(bad.unwrap_err().parameter(), Some("range"));
        }
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = sc.slice::<u16>(4..2);
        assert!(backwards.is_err());
    }

    #[test]
    fn an_inferred_item_size_reaches_the_frame_file() {
        let dir = std::env::temp_dir().join(format!("blosc2-api-ts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.b2frame");
        let mut sc = Schunk::create(&path, &CParams::new()).unwrap();
        sc.append(&[1.0f64, 2.0, 3.0]).unwrap();
        drop(sc);
        let sc = Schunk::open(&path).unwrap();
        assert_eq!(sc.typesize(), 8);
        assert_eq!(sc.slice::<f64>(1..3).unwrap(), [2.0, 3.0]);
        // (wine removes no file a handle still has open)
        drop(sc);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn readers_seek_in_fixed_and_variable_chunks() {
        use std::io::{Seek, SeekFrom};
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let mut fixed = Schunk::new(&CParams::new()).unwrap();
        for piece in data.chunks(3000) {
            fixed.append_bytes(piece).unwrap();
        }
        let mut variable = Schunk::new(&CParams::new()).unwrap();
        for piece in [
            &data[..1000],
            &data[1000..1000],
            &data[1000..4500],
            &data[4500..],
        ] {
            variable.append_bytes(piece).unwrap();
        }
        assert_eq!(variable.chunksize(), None);
        for sc in [&fixed, &variable] {
            let mut r = sc.reader();
            let mut all = Vec::new();
            r.read_to_end(&mut all).unwrap();
            assert_eq!(all, data);
            for at in [0u64, 999, 1000, 2999, 3000, 4499, 4500, 9999] {
                assert_eq!(r.seek(SeekFrom::Start(at)).unwrap(), at);
                let mut two = [0u8; 2];
                let n = r.read(&mut two).unwrap();
                assert!(n >= 1);
                assert_eq!(two[..n], data[at as usize..at as usize + n]);
            }
            assert_eq!(r.seek(SeekFrom::End(-10)).unwrap(), 9990);
            assert_eq!(r.seek(SeekFrom::Current(-990)).unwrap(), 9000);
            let mut rest = Vec::new();
            r.read_to_end(&mut rest).unwrap();
            assert_eq!(rest, data[9000..]);
            assert_eq!(r.seek(SeekFrom::Start(20_000)).unwrap(), 20_000);
            assert_eq!(r.read(&mut [0u8; 4]).unwrap(), 0);
            assert!(r.seek(SeekFrom::Current(-30_000)).is_err());
        }
    }

    #[test]
    fn files_and_metalayers() {
        let dir = std::env::temp_dir().join(format!("blosc2-api-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for sparse in [false, true] {
            let path = dir.join(if sparse { "s.b2frame" } else { "c.b2frame" });
            let p = CParams::new().with_typesize(8);
            let mut sc = if sparse {
                Schunk::create_sparse(&path, &p).unwrap()
            } else {
                Schunk::create(&path, &p).unwrap()
            };
            sc.set_meta("shape", b"1234").unwrap();
            for i in 0..3u64 {
                sc.append(&[i; 100]).unwrap();
            }
            sc.insert(1, &[9u64; 100]).unwrap();
            sc.update(0, &[7u64; 100]).unwrap();
            sc.delete(3).unwrap();
            sc.set_vlmeta("note", b"hello").unwrap();
            sc.set_slice(150, &[5u64; 10]).unwrap();
            drop(sc);
            let sc = Schunk::open(&path).unwrap();
            assert_eq!(sc.nchunks(), 3);
            assert_eq!(sc.meta("shape"), Some(&b"1234"[..]));
            assert_eq!(sc.vlmeta("note").unwrap().as_deref(), Some(&b"hello"[..]));
            assert_eq!(sc.vlmeta("none").unwrap(), None);
            assert_eq!(sc.get::<u64>(0).unwrap(), vec![7; 100]);
            assert_eq!(
                sc.slice::<u64>(148..162).unwrap(),
                [9, 9, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9, 9]
            );
            assert_eq!(sc.get::<u64>(2).unwrap(), vec![1; 100]);
            assert_eq!(
                sc.slice::<u32>(0..1).unwrap_err().kind(),
                ErrorKind::InvalidParam
            );
        }
        let err = Schunk::open(dir.join("missing")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::FileOpen);
        assert!(std::error::Error::source(&err).is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
