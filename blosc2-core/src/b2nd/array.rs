//! [`Array`]: an n-dimensional array stored in a super-chunk, with the
//! `b2nd` metalayer describing its geometry.
//!
//! The super-chunk is held through any `S: Borrow<SuperChunk>` (owned by
//! default), so the C API can run the same code on a super-chunk that its
//! own handle owns.

use super::geometry::{self, Geometry};
use super::meta::{self, Meta, MAX_DIM};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::special::make_special;
use crate::chunk::{CParams, Special};
use crate::error::{ErrorKind, Result};
use crate::metalayers::Metalayer;
use crate::schunk::{Storage, SuperChunk};
use std::borrow::{Borrow, BorrowMut};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Name of the metalayer holding the geometry; `caterva` is its older name,
/// still read.
pub const META_NAME: &str = "b2nd";
pub const META_NAME_CATERVA: &str = "caterva";

/// What a new array holds.
#[derive(Clone, Copy, Debug)]
pub enum Fill<'a> {
    /// Zeros (also what `b2nd_empty` gives), stored as special chunks.
    Zeros,
    /// NaNs of the typesize (4 or 8), stored as special chunks.
    Nans,
    /// Undefined content, stored as special chunks.
    Uninit,
    /// One item repeated (its bytes, `typesize` long), stored as
    /// run-length chunks.
    Value(&'a [u8]),
}

/// Geometry and type of a new array (the safe face of `b2nd_context_t`,
/// without the storage).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    pub shape: Vec<i64>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
    /// None writes [`meta::DEFAULT_DTYPE`] into the metalayer.
    pub dtype: Option<String>,
    pub dtype_format: i8,
    /// Extra fixed-size metalayers, added after `b2nd`.
    pub metalayers: Vec<Metalayer>,
}

impl Params {
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Params {
        Params {
            shape: shape.to_vec(),
            chunkshape: chunkshape.to_vec(),
            blockshape: blockshape.to_vec(),
            dtype: None,
            dtype_format: meta::DTYPE_NUMPY_FORMAT,
            metalayers: Vec::new(),
        }
    }

    pub fn with_dtype(mut self, dtype: &str, dtype_format: i8) -> Params {
        self.dtype = Some(dtype.into());
        self.dtype_format = dtype_format;
        self
    }

    /// The block size in bytes arrays of this shape compress with (one
    /// block per `blockshape` of items), as the reference sets it.
    pub fn blocksize(&self, typesize: i32) -> Result<i32> {
        let mut n: i32 = 1;
        for &b in &self.blockshape {
            n = n.checked_mul(b).ok_or(ErrorKind::InvalidParam)?;
        }
        n.checked_mul(typesize).ok_or(ErrorKind::InvalidParam)
    }
}

/// Counters of the work partial reads did (for tests and benchmarks).
#[derive(Debug, Default)]
pub struct Stats {
    /// Blocks asked from the decompressor (each decoded once).
    pub blocks_decoded: AtomicU64,
    /// Chunks a read or write touched.
    pub chunks_touched: AtomicU64,
}

impl Stats {
    pub fn blocks(&self) -> u64 {
        self.blocks_decoded.load(Ordering::Relaxed)
    }
    pub fn chunks(&self) -> u64 {
        self.chunks_touched.load(Ordering::Relaxed)
    }
    pub fn reset(&self) {
        self.blocks_decoded.store(0, Ordering::Relaxed);
        self.chunks_touched.store(0, Ordering::Relaxed);
    }
    pub(crate) fn add(&self, chunks: u64, blocks: u64) {
        self.chunks_touched.fetch_add(chunks, Ordering::Relaxed);
        self.blocks_decoded.fetch_add(blocks, Ordering::Relaxed);
    }
}

/// An n-dimensional array in a super-chunk.
pub struct Array<S = SuperChunk> {
    pub(crate) sc: S,
    pub(crate) geom: Geometry,
    pub(crate) dtype: Option<String>,
    pub(crate) dtype_format: i8,
    pub stats: Stats,
}

impl Array<SuperChunk> {
    /// A new array in new storage (`b2nd_empty`, `_zeros`, `_nans`,
    /// `_uninit`, `_full`). The storage's block size is set from the
    /// blockshape, as the reference's context does.
    pub fn create(storage: Storage, params: &Params, fill: Fill) -> Result<Array> {
        let mut st = storage;
        st.cparams.blocksize = params.blocksize(st.cparams.typesize)?;
        geometry::validate(&params.shape, &params.chunkshape, &params.blockshape)?;
        let sc = SuperChunk::new(st)?;
        Array::init(sc, params, fill)
    }

    /// A new array holding the C-order items of `buf` (`b2nd_from_cbuffer`).
    pub fn from_cbuffer(storage: Storage, params: &Params, buf: &[u8]) -> Result<Array> {
        let mut a = Array::create(storage, params, Fill::Zeros)?;
        a.fill_from_cbuffer(buf)?;
        Ok(a)
    }

    /// An array from a contiguous frame in memory (`b2nd_from_cframe`).
    pub fn from_cframe(buf: &[u8], copy: bool) -> Result<Array> {
        Array::from_schunk(SuperChunk::from_buffer(buf, copy)?)
    }

    /// Open an array stored in a frame file or sparse directory (`b2nd_open`).
    pub fn open(path: &Path) -> Result<Array> {
        Array::open_offset(path, 0)
    }

    /// Open an array whose frame starts `offset` bytes into a file.
    pub fn open_offset(path: &Path, offset: u64) -> Result<Array> {
        Array::from_schunk(SuperChunk::open(
            path,
            offset,
            crate::io::default_backend(),
        )?)
    }

    /// Give back the super-chunk.
    pub fn into_schunk(self) -> SuperChunk {
        self.sc
    }
}

impl<S: Borrow<SuperChunk>> Array<S> {
    /// View a super-chunk holding a `b2nd` (or `caterva`) metalayer as an
    /// array (`b2nd_from_schunk`). The item size is the super-chunk's
    /// typesize, whatever the dtype string says.
    pub fn from_schunk(sc: S) -> Result<Array<S>> {
        let m = read_meta(sc.borrow())?;
        geometry::validate_stored(&m.shape, &m.chunkshape, &m.blockshape)?;
        let geom = Geometry::new(&m.shape, &m.chunkshape, &m.blockshape)?;
        Ok(Array::assemble(sc, geom, m.dtype, m.dtype_format))
    }

    /// An array over `sc` with a geometry already checked, for callers
    /// that build the super-chunk themselves (the C API's views).
    pub fn assemble(sc: S, geom: Geometry, dtype: Option<String>, dtype_format: i8) -> Array<S> {
        Array {
            sc,
            geom,
            dtype,
            dtype_format,
            stats: Stats::default(),
        }
    }

    /// Whatever holds the super-chunk (the `S` of `Array<S>`).
    pub fn holder(&self) -> &S {
        &self.sc
    }

    pub fn schunk(&self) -> &SuperChunk {
        self.sc.borrow()
    }
    pub fn geometry(&self) -> &Geometry {
        &self.geom
    }
    pub fn ndim(&self) -> usize {
        self.geom.ndim
    }
    pub fn shape(&self) -> &[i64] {
        self.geom.shape()
    }
    pub fn chunkshape(&self) -> &[i32] {
        self.geom.chunkshape()
    }
    pub fn blockshape(&self) -> &[i32] {
        self.geom.blockshape()
    }
    pub fn nitems(&self) -> i64 {
        self.geom.nitems
    }
    /// Bytes per item (the super-chunk's typesize).
    pub fn typesize(&self) -> i32 {
        self.schunk().typesize()
    }
    pub fn dtype(&self) -> Option<&str> {
        self.dtype.as_deref()
    }
    pub fn dtype_format(&self) -> i8 {
        self.dtype_format
    }

    /// The metalayer content this array's geometry serializes to.
    pub fn meta(&self) -> Meta {
        Meta {
            version: meta::METALAYER_VERSION,
            shape: self.shape().to_vec(),
            chunkshape: self.chunkshape().to_vec(),
            blockshape: self.blockshape().to_vec(),
            dtype: self.dtype.clone(),
            dtype_format: self.dtype_format,
        }
    }

    /// Bytes of the whole array in C order.
    pub fn nbytes(&self) -> Result<usize> {
        let n = (self.geom.nitems as u64)
            .checked_mul(self.typesize().max(0) as u64)
            .ok_or(ErrorKind::InvalidParam)?;
        usize::try_from(n).map_err(|_| ErrorKind::InvalidParam)
    }

    /// Serialize as a contiguous frame (`b2nd_to_cframe`).
    pub fn to_cframe(&self) -> Result<Vec<u8>> {
        self.schunk().to_frame()
    }

    /// Write a copy as a frame file (contiguous) or directory (sparse),
    /// following the source's storage kind (`b2nd_save`).
    pub fn save(&self, path: &Path) -> Result<()> {
        let contiguous = matches!(
            self.schunk().kind(),
            crate::schunk::Kind::MemFrame | crate::schunk::Kind::File
        );
        let st = Storage {
            contiguous,
            urlpath: Some(path.to_path_buf()),
            ..Storage::default()
        };
        self.schunk().copy_to(st)?;
        Ok(())
    }

    /// Append as a contiguous frame to `path`; returns the offset where it
    /// starts (`b2nd_save_append`).
    pub fn save_append(&self, path: &Path) -> Result<i64> {
        self.schunk().append_file(path)
    }

    /// A copy in new storage (`b2nd_copy`): the chunks are copied as they
    /// are when the chunk and block shapes stay, and re-chunked otherwise
    /// (then the other metalayers and the vlmetalayers come along).
    pub fn copy(&self, storage: Storage, chunkshape: &[i32], blockshape: &[i32]) -> Result<Array> {
        if chunkshape == self.chunkshape() && blockshape == self.blockshape() {
            let sc = self.schunk().copy_to(storage)?;
            return Array::from_schunk(sc);
        }
        let mut params = Params::new(self.shape(), chunkshape, blockshape);
        params.dtype = self.dtype.clone();
        params.dtype_format = self.dtype_format;
        params.metalayers = self
            .schunk()
            .metalayers
            .iter()
            .filter(|m| m.name != META_NAME)
            .cloned()
            .collect();
        let mut st = storage;
        st.cparams.typesize = self.typesize();
        let mut out = Array::create(st, &params, Fill::Zeros)?;
        let start = vec![0i64; self.ndim()];
        self.copy_into(&mut out, &start)?;
        let vl: Vec<String> = self
            .schunk()
            .vlmetalayers
            .iter()
            .map(|m| m.name.clone())
            .collect();
        for name in vl {
            let content = self.schunk().vlmeta_get(&name)?;
            let cp = out.sc.cparams().clone();
            out.sc.vlmeta_add(&name, &content, Some(&cp))?;
        }
        Ok(out)
    }

    /// The items `start..stop` as a new array in `storage` (`b2nd_get_slice`;
    /// the storage's typesize is replaced by this array's).
    pub fn get_slice(
        &self,
        storage: Storage,
        params: &Params,
        start: &[i64],
        stop: &[i64],
    ) -> Result<Array> {
        self.check_range(start, stop)?;
        let mut p = params.clone();
        p.shape = start.iter().zip(stop).map(|(a, b)| b - a).collect();
        let mut st = storage;
        // items are copied as they are: the new array has this item size
        st.cparams.typesize = self.typesize();
        let mut out = Array::create(st, &p, Fill::Zeros)?;
        self.copy_into(&mut out, start)?;
        Ok(out)
    }
}

impl<S: BorrowMut<SuperChunk>> Array<S> {
    /// Turn a fresh super-chunk into an array: add the metalayers and fill
    /// it with special chunks. The super-chunk's typesize is the item size.
    pub fn init(mut sc: S, params: &Params, fill: Fill) -> Result<Array<S>> {
        let p = params;
        if p.shape.len() > MAX_DIM {
            return Err(ErrorKind::InvalidParam);
        }
        geometry::validate(&p.shape, &p.chunkshape, &p.blockshape)?;
        let geom = Geometry::new(&p.shape, &p.chunkshape, &p.blockshape)?;
        let ts = sc.borrow().typesize();
        if ts <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let chunk_nbytes = geom.chunk_nbytes(ts)?;
        if matches!(fill, Fill::Nans) && ts != 4 && ts != 8 {
            return Err(ErrorKind::Data);
        }
        if let Fill::Value(v) = fill {
            if v.len() < ts as usize {
                return Err(ErrorKind::InvalidParam);
            }
        }
        let m = meta::serialize(
            &p.shape,
            &p.chunkshape,
            &p.blockshape,
            p.dtype.as_deref(),
            p.dtype_format,
        )?;
        let s = sc.borrow_mut();
        s.meta_add(META_NAME, &m)?;
        for ml in &p.metalayers {
            s.meta_add(&ml.name, &ml.content)?;
        }
        if geom.nitems != 0 {
            let kind = match fill {
                Fill::Nans => Special::Nan,
                Fill::Uninit => Special::Uninit,
                Fill::Zeros | Fill::Value(_) => Special::Zero,
            };
            let nitems = geom
                .nchunks()
                .checked_mul(geom.extchunknitems)
                .ok_or(ErrorKind::InvalidParam)?;
            s.fill_special(nitems, kind, chunk_nbytes as i32)?;
            if let Fill::Value(v) = fill {
                let cp = CParams {
                    blocksize: s.blocksize,
                    ..s.cparams().clone()
                };
                let mut c = vec![0u8; EXTENDED_HEADER_LENGTH + ts as usize];
                let n = make_special(&cp, Special::Value, chunk_nbytes as i32, Some(v), &mut c)?;
                c.truncate(n);
                for i in 0..s.nchunks() {
                    s.update_chunk(i, &c)?;
                }
            }
        }
        Ok(Array::assemble(sc, geom, p.dtype.clone(), p.dtype_format))
    }

    pub fn schunk_mut(&mut self) -> &mut SuperChunk {
        self.sc.borrow_mut()
    }

    /// Fill the whole array from a C-order buffer.
    pub fn fill_from_cbuffer(&mut self, buf: &[u8]) -> Result<()> {
        let need = self.nbytes()?;
        if buf.len() < need {
            return Err(ErrorKind::InvalidParam);
        }
        if self.geom.nitems == 0 {
            return Ok(());
        }
        let start = vec![0i64; self.ndim()];
        let stop = self.shape().to_vec();
        self.set_slice_cbuffer(buf, &stop.clone(), &start, &stop)
    }

    /// Recompute the geometry for new shapes and rewrite the metalayer
    /// (the reference's `update_shape`); for shape-changing operations.
    #[allow(dead_code)] // for the shape-changing operations
    pub(crate) fn update_shape(
        &mut self,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
    ) -> Result<()> {
        let geom = Geometry::new(shape, chunkshape, blockshape)?;
        self.geom = geom;
        self.publish_meta()
    }

    /// Recompute the geometry only (the metalayer is left as it is).
    #[allow(dead_code)] // for the shape-changing operations
    pub(crate) fn update_geometry(
        &mut self,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
    ) -> Result<()> {
        self.geom = Geometry::new(shape, chunkshape, blockshape)?;
        Ok(())
    }

    /// Write the current geometry into the `b2nd` metalayer (added when
    /// missing; updated in place otherwise, never growing, as the reference).
    pub(crate) fn publish_meta(&mut self) -> Result<()> {
        let m = self.meta().serialize()?;
        let s = self.sc.borrow_mut();
        if crate::metalayers::find(&s.metalayers, META_NAME).is_some() {
            s.meta_update(META_NAME, &m)?;
        } else {
            s.meta_add(META_NAME, &m)?;
        }
        Ok(())
    }

    /// Re-read the geometry from the metalayer (after the super-chunk was
    /// changed by other means). Returns whether the shape changed; a
    /// changed ndim, chunkshape or blockshape is `Data`, as the reference.
    pub fn refresh(&mut self) -> Result<bool> {
        let m = match read_meta(self.schunk()) {
            Ok(m) => m,
            Err(ErrorKind::MetalayerNotFound) => return Ok(false),
            Err(e) => return Err(e),
        };
        if m.ndim() != self.ndim()
            || m.chunkshape != self.chunkshape()
            || m.blockshape != self.blockshape()
        {
            return Err(ErrorKind::Data);
        }
        if m.shape == self.shape() {
            return Ok(false);
        }
        self.geom = Geometry::new(&m.shape, &m.chunkshape, &m.blockshape)?;
        Ok(true)
    }
}

/// The decoded `b2nd` (or `caterva`) metalayer of a super-chunk.
pub fn read_meta(sc: &SuperChunk) -> Result<Meta> {
    let i = crate::metalayers::find(&sc.metalayers, META_NAME)
        .or_else(|| crate::metalayers::find(&sc.metalayers, META_NAME_CATERVA))
        .ok_or_else(|| {
            crate::traced!(
                ErrorKind::MetalayerNotFound,
                "No \"{META_NAME}\" metalayer in the frame: not a b2nd array"
            )
        })?;
    let content = &sc.metalayers[i].content;
    Meta::deserialize(content).map_err(|e| {
        crate::traced!(
            e,
            "The \"{}\" metalayer ({} bytes) is not a valid b2nd description",
            sc.metalayers[i].name,
            content.len()
        )
    })
}
