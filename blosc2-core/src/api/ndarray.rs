//! [`NdArray`]: an n-dimensional array of fixed-size items (C-Blosc2's
//! b2nd), cut into chunks and blocks, in memory or on disk.

use super::element::{check_item_size, item_count, zeroed, Element};
use super::params::CParams;
use super::paths::{frame_reason, must_exist, open_error, remove_existing};
use super::schunk::item_range;
use crate::b2nd::array::{Array, Fill, Params};
use crate::b2nd::meta::DTYPE_NUMPY_FORMAT;
use crate::chunk::DParams;
use crate::error::{Error, ErrorKind, Reason};
use crate::schunk::Storage;
use bytemuck::Pod;
use std::ops::RangeBounds;
use std::path::{Path, PathBuf};

/// An n-dimensional array (up to 16 dimensions) stored as a super-chunk with
/// the `b2nd` metalayer, as C-Blosc2, python-blosc2 and Caterva write it.
///
/// The array is cut into chunks (the unit of storage) and each chunk into
/// blocks (the unit of compression); reading a box decompresses only the
/// blocks it touches.
///
/// ```
/// use blosc2_core::NdArray;
///
/// let data: Vec<f32> = (0..24 * 30 * 40).map(|i| i as f32).collect();
/// let a = NdArray::builder(&[24, 30, 40])
///     .chunks(&[8, 10, 40])
///     .blocks(&[4, 5, 20])
///     .from_slice(&data)?;
/// assert_eq!(a.shape(), [24, 30, 40]);
/// // the host's byte order: ">f4" on a big-endian host
/// let native = if cfg!(target_endian = "big") { ">f4" } else { "<f4" };
/// assert_eq!(a.dtype(), Some(native));
///
/// // one plane, and a box
/// let plane: Vec<f32> = a.slice(&[3..4, 0..30, 0..40])?;
/// assert_eq!(plane[0], (3 * 30 * 40) as f32);
/// let cube: Vec<f32> = a.slice(&[1..3, 2..4, 5..7])?;
/// assert_eq!(cube.len(), 8);
/// # Ok::<(), blosc2_core::Error>(())
/// ```
pub struct NdArray {
    inner: Array,
    // the engine's shapes in the API's integer type, so the getters can
    // hand out slices
    shape: Vec<u64>,
    chunks: Vec<u64>,
    blocks: Vec<u64>,
}

impl std::fmt::Debug for NdArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdArray")
            .field("shape", &self.shape())
            .field("chunks", &self.chunks())
            .field("blocks", &self.blocks())
            .field("dtype", &self.dtype())
            .finish()
    }
}

/// How to make a new [`NdArray`] ([`NdArray::builder`]).
#[derive(Clone, Debug)]
#[must_use]
pub struct NdArrayBuilder {
    shape: Vec<u64>,
    chunks: Option<Vec<u64>>,
    blocks: Option<Vec<u64>>,
    cparams: CParams,
    path: Option<PathBuf>,
    sparse: bool,
}

/// Blocks are kept near this size when the caller gives none: small enough
/// for a core's cache, large enough for the codecs.
const DEFAULT_BLOCK_BYTES: u64 = 256 * 1024;

impl NdArrayBuilder {
    /// The chunk shape (one value per dimension, each at least 1). The
    /// default is the whole shape: one chunk.
    pub fn chunks(mut self, chunks: &[u64]) -> NdArrayBuilder {
        self.chunks = Some(chunks.to_vec());
        self
    }

    /// The block shape (each value at most the chunk's). The default halves
    /// the chunk shape until a block is at most 256 KiB.
    pub fn blocks(mut self, blocks: &[u64]) -> NdArrayBuilder {
        self.blocks = Some(blocks.to_vec());
        self
    }

    /// The compression settings. The item size is the element type's; a
    /// different one in the settings is an error.
    pub fn cparams(mut self, cparams: CParams) -> NdArrayBuilder {
        self.cparams = cparams;
        self
    }

    /// Stores the array in a contiguous frame file at `path` (replacing any).
    pub fn path(mut self, path: impl AsRef<Path>) -> NdArrayBuilder {
        self.path = Some(path.as_ref().to_path_buf());
        self.sparse = false;
        self
    }

    /// Stores the array in a sparse frame directory at `path` (replacing any).
    pub fn sparse_path(mut self, path: impl AsRef<Path>) -> NdArrayBuilder {
        self.path = Some(path.as_ref().to_path_buf());
        self.sparse = true;
        self
    }

    /// A new array of zeros (stored as special chunks: it takes no space).
    pub fn zeros<T: Element>(self) -> Result<NdArray, Error> {
        self.build::<T>(Fill::Zeros)
    }

    /// A new array with every item `value`.
    pub fn full<T: Element>(self, value: T) -> Result<NdArray, Error> {
        self.build::<T>(Fill::Value(bytemuck::bytes_of(&value)))
    }

    /// A new array holding `data`, the items in C order.
    pub fn from_slice<T: Element>(self, data: &[T]) -> Result<NdArray, Error> {
        let mut a = self.build::<T>(Fill::Uninit)?;
        if u64::try_from(data.len()).ok() != Some(a.nitems()) {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("data")
                .with_detail(format!(
                    "{} items for an array of {}",
                    data.len(),
                    a.nitems()
                )));
        }
        a.inner.fill_from_cbuffer(bytemuck::cast_slice(data))?;
        Ok(a)
    }

    fn build<T: Element>(self, fill: Fill) -> Result<NdArray, Error> {
        let typesize = std::mem::size_of::<T>();
        if let Some(set) = self.cparams.typesize().filter(|&t| t != typesize) {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_operation("making a b2nd array")
                .with_parameter("cparams")
                .with_reason(Reason::ItemSize {
                    expected: set,
                    actual: typesize,
                })
                .with_detail(format!(
                    "the settings' item size is not that of {}",
                    std::any::type_name::<T>()
                )));
        }
        let chunks = match self.chunks {
            Some(c) => c,
            None => self
                .shape
                .iter()
                .map(|&s| s.clamp(1, i32::MAX as u64))
                .collect(),
        };
        let blocks = match self.blocks {
            Some(b) => b,
            None => default_blocks(&chunks, typesize as u64),
        };
        let shape_e = engine_dims::<i64>(&self.shape, "shape")?;
        let chunks_e = engine_dims::<i32>(&chunks, "chunks")?;
        let blocks_e = engine_dims::<i32>(&blocks, "blocks")?;
        let mut cparams = self.cparams.to_engine_any(typesize)?;
        cparams.typesize = typesize as i32;
        let storage = Storage {
            contiguous: !self.sparse,
            urlpath: self.path.clone(),
            dparams: DParams {
                nthreads: cparams.nthreads,
                typesize: cparams.typesize,
            },
            cparams,
            io: crate::io::default_backend(),
        };
        if let Some(p) = &self.path {
            remove_existing(p, true)?;
        }
        let params =
            Params::new(&shape_e, &chunks_e, &blocks_e).with_dtype(T::DTYPE, DTYPE_NUMPY_FORMAT);
        let inner = Array::create(storage, &params, fill).map_err(|k| {
            let e = Error::new(k).with_detail(format!(
                "shape {:?}, chunks {chunks:?}, blocks {blocks:?}",
                self.shape
            ));
            match &self.path {
                Some(p) => e.with_path(p),
                None => e,
            }
        })?;
        Ok(NdArray::wrap(inner))
    }
}

/// `e` with the reason a frame without the b2nd metalayer gives, the only
/// metalayer an array open looks for.
fn not_an_array(kind: ErrorKind, e: Error) -> Error {
    if kind == ErrorKind::MetalayerNotFound {
        e.with_reason(Reason::NotAnArray)
    } else {
        e
    }
}

/// Dimensions in the engine's integer type, or the error naming the
/// parameter whose value does not fit it.
fn engine_dims<I: TryFrom<u64>>(dims: &[u64], name: &'static str) -> Result<Vec<I>, Error> {
    dims.iter()
        .map(|&d| {
            I::try_from(d).map_err(|_| {
                Error::new(ErrorKind::InvalidParam)
                    .with_parameter(name)
                    .with_detail(format!("{d} is too large for the b2nd format"))
            })
        })
        .collect()
}

fn default_blocks(chunks: &[u64], typesize: u64) -> Vec<u64> {
    let mut b = chunks.to_vec();
    loop {
        let bytes = b.iter().fold(typesize, |acc, &d| acc.saturating_mul(d));
        let Some(i) = (0..b.len()).filter(|&i| b[i] > 1).max_by_key(|&i| b[i]) else {
            return b;
        };
        if bytes <= DEFAULT_BLOCK_BYTES {
            return b;
        }
        b[i] = b[i].div_ceil(2);
    }
}

impl NdArray {
    /// Starts making a new array of this shape.
    pub fn builder(shape: &[u64]) -> NdArrayBuilder {
        NdArrayBuilder {
            shape: shape.to_vec(),
            chunks: None,
            blocks: None,
            cparams: CParams::new(),
            path: None,
            sparse: false,
        }
    }

    /// Opens an array stored in a contiguous frame file or a sparse frame
    /// directory.
    ///
    /// # Errors
    ///
    /// As [`Schunk::open`](crate::Schunk::open), and
    /// [`ErrorKind::MetalayerNotFound`] with [`Reason::NotAnArray`] for a
    /// frame that is no b2nd array.
    pub fn open(path: impl AsRef<Path>) -> Result<NdArray, Error> {
        let path = path.as_ref();
        must_exist(path).map_err(|e| e.with_operation("opening a b2nd array"))?;
        let inner = Array::open(path).map_err(|k| {
            not_an_array(k, open_error(Error::new(k), path)).with_operation("opening a b2nd array")
        })?;
        Ok(NdArray::wrap(inner))
    }

    fn wrap(inner: Array) -> NdArray {
        let wide = |d: &[i32]| d.iter().map(|&v| v.max(0) as u64).collect();
        NdArray {
            shape: inner.shape().iter().map(|&v| v.max(0) as u64).collect(),
            chunks: wide(inner.chunkshape()),
            blocks: wide(inner.blockshape()),
            inner,
        }
    }

    /// An array in memory from a contiguous frame (copied).
    pub fn from_frame(frame: &[u8]) -> Result<NdArray, Error> {
        let inner = Array::from_cframe(frame, true).map_err(|k| {
            let e = Error::new(k).with_operation("reading a b2nd array from a frame");
            match frame_reason(frame, frame.len() as u64) {
                Some(r) => e.with_reason(r),
                None => not_an_array(k, e),
            }
        })?;
        Ok(NdArray::wrap(inner))
    }

    /// Keeps frame checksums from now on, or stops keeping them, as
    /// [`Schunk::set_checksums`](crate::Schunk::set_checksums) does for the
    /// array's super-chunk.
    pub fn set_checksums(&mut self, on: bool) -> Result<(), Error> {
        Ok(self.inner.sc.set_checksums(on)?)
    }

    /// Whether the array's frame keeps checksums.
    pub fn checksums(&self) -> bool {
        self.inner.sc.checksums()
    }

    /// Whether reads check each chunk against its digest (see
    /// [`Schunk::set_verified_reads`](crate::Schunk::set_verified_reads)).
    pub fn set_verified_reads(&mut self, on: bool) {
        self.inner.sc.set_verified_reads(on);
    }

    /// Reads every chunk and checks it against the frame's checksums.
    pub fn verify(&self) -> crate::VerifyReport {
        self.inner.sc.verify()
    }

    /// The array as a contiguous frame.
    pub fn to_frame(&self) -> Result<Vec<u8>, Error> {
        Ok(self.inner.to_cframe()?)
    }

    /// Writes the array as a contiguous frame file (replacing it).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        self.inner
            .save(path)
            .map_err(|k| Error::new(k).with_path(path))
    }

    /// The shape.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The chunk shape.
    pub fn chunks(&self) -> &[u64] {
        &self.chunks
    }

    /// The block shape.
    pub fn blocks(&self) -> &[u64] {
        &self.blocks
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.inner.ndim()
    }

    /// The number of items.
    pub fn nitems(&self) -> u64 {
        self.inner.nitems().max(0) as u64
    }

    /// The item size in bytes.
    pub fn typesize(&self) -> usize {
        self.inner.typesize().max(0) as usize
    }

    /// The NumPy dtype string recorded with the array, if any.
    pub fn dtype(&self) -> Option<&str> {
        self.inner.dtype()
    }

    /// All items in C order.
    pub fn to_vec<T: Pod>(&self) -> Result<Vec<T>, Error> {
        let all = vec![..; self.ndim()];
        self.slice(&all)
    }

    /// The items of the box `ranges` (one range per dimension, all of one
    /// range type: `&[2..4, 0..10]`, `&[.., ..]`) in C order.
    pub fn slice<T: Pod>(&self, ranges: &[impl RangeBounds<u64>]) -> Result<Vec<T>, Error> {
        self.read_box(ranges)
            .map_err(|e| e.with_operation("reading a box of an array"))
    }

    fn read_box<T: Pod>(&self, ranges: &[impl RangeBounds<u64>]) -> Result<Vec<T>, Error> {
        self.check_item::<T>()?;
        let (start, stop) = self.bounds(ranges)?;
        let shape: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
        let n = shape
            .iter()
            .try_fold(1i64, |a, &d| a.checked_mul(d))
            .ok_or(ErrorKind::MemoryAlloc)?;
        let n = item_count(n)?;
        let mut out = zeroed::<T>(n)?;
        if n > 0 {
            self.inner.get_slice_cbuffer(
                &start,
                &stop,
                bytemuck::cast_slice_mut(&mut out),
                &shape,
            )?;
        }
        Ok(out)
    }

    /// Overwrites the box `ranges` with `data`, its items in C order.
    pub fn set_slice<T: Pod>(
        &mut self,
        ranges: &[impl RangeBounds<u64>],
        data: &[T],
    ) -> Result<(), Error> {
        self.check_item::<T>()?;
        let (start, stop) = self.bounds(ranges)?;
        let shape: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
        let n = shape
            .iter()
            .try_fold(1i64, |a, &d| a.checked_mul(d))
            .and_then(|n| usize::try_from(n).ok());
        if Some(data.len()) != n {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("data")
                .with_detail(format!(
                    "{} items for a box of {}",
                    data.len(),
                    shape.iter().map(|&d| d as u64).product::<u64>()
                )));
        }
        if !data.is_empty() {
            self.inner
                .set_slice_cbuffer(bytemuck::cast_slice(data), &shape, &start, &stop)?;
        }
        Ok(())
    }

    fn check_item<T>(&self) -> Result<(), Error> {
        check_item_size::<T>(self.typesize(), "an array")
    }

    fn bounds<R: RangeBounds<u64>>(&self, ranges: &[R]) -> Result<(Vec<i64>, Vec<i64>), Error> {
        let bad = |why: String| {
            Error::new(ErrorKind::InvalidParam)
                .with_parameter("ranges")
                .with_detail(why)
        };
        if ranges.len() != self.ndim() {
            return Err(bad(format!(
                "{} ranges for {} dimensions",
                ranges.len(),
                self.ndim()
            )));
        }
        let (mut start, mut stop) = (Vec::new(), Vec::new());
        for (d, (r, &s)) in ranges.iter().zip(self.shape()).enumerate() {
            let (a, b) = item_range(r, s).map_err(|e| {
                let wrong = bad(format!("on dimension {d} of size {s}"));
                match e.reason() {
                    Some(r) => wrong.with_reason(r.clone()),
                    None => wrong,
                }
            })?;
            // the shape came from i64s, so bounds within it fit them
            start.push(a as i64);
            stop.push(b as i64);
        }
        Ok((start, stop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_full_and_writes() {
        let mut a = NdArray::builder(&[10, 12])
            .chunks(&[4, 5])
            .blocks(&[2, 5])
            .zeros::<i16>()
            .unwrap();
        assert_eq!(a.to_vec::<i16>().unwrap(), vec![0; 120]);
        a.set_slice(&[2..4, 3..6], &[1i16, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(a.slice::<i16>(&[2..4, 3..6]).unwrap(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(a.slice::<i16>(&[1..3, 4..5]).unwrap(), [0, 2]);
        assert_eq!(a.slice::<i16>(&[3..=3, 4..=5]).unwrap(), [5, 6]);
        assert_eq!(a.slice::<i16>(&[2.., 5..]).unwrap().len(), 8 * 7);
        assert_eq!(
            a.slice::<i16>(&[.., ..]).unwrap(),
            a.to_vec::<i16>().unwrap()
        );
        assert_eq!(a.shape(), [10, 12]);
        assert_eq!(a.chunks(), [4, 5]);
        assert_eq!(a.blocks(), [2, 5]);
        let f = NdArray::builder(&[3, 3, 3]).full(2.5f64).unwrap();
        assert_eq!(f.to_vec::<f64>().unwrap(), vec![2.5; 27]);
        let native = if cfg!(target_endian = "big") {
            ">f8"
        } else {
            "<f8"
        };
        assert_eq!(f.dtype(), Some(native));
        let back = NdArray::from_frame(&a.to_frame().unwrap()).unwrap();
        assert_eq!(back.to_vec::<i16>().unwrap(), a.to_vec::<i16>().unwrap());
    }

    #[test]
    fn bad_boxes_are_errors_that_say_why() {
        let a = NdArray::builder(&[4, 4]).zeros::<u8>().unwrap();
        let e = a.slice::<u8>(&[0..5, 0..1]).unwrap_err();
        assert_eq!(e.parameter(), Some("ranges"));
        assert!(e.to_string().contains("dimension 0"), "{e}");
        let one_range = vec![0..1; 1];
        assert!(a.slice::<u8>(&one_range).is_err());
        assert!(a.slice::<u16>(&[0..1, 0..1]).is_err());
        let e = NdArray::builder(&[4, 4]).from_slice(&[1u8; 3]).unwrap_err();
        assert_eq!(e.parameter(), Some("data"));
        let e = a.slice::<u8>(&[3..5, 0..1]).unwrap_err();
        assert_eq!(
            e.reason(),
            Some(&Reason::OutOfRange {
                start: 3,
                end: 5,
                len: 4
            })
        );
        assert!(
            e.to_string()
                .starts_with("reading a box of an array: the range 3..5 runs past the end"),
            "{e}"
        );
        let e = NdArray::builder(&[4])
            .cparams(CParams::new().with_typesize(4))
            .zeros::<f64>()
            .unwrap_err();
        assert_eq!(
            e.reason(),
            Some(&Reason::ItemSize {
                expected: 4,
                actual: 8
            })
        );
    }

    #[cfg(feature = "plugins")]
    #[test]
    fn the_array_codecs_and_filters_round_trip() {
        use crate::{Codec, Filter};
        let with = |codec, filters: &[Filter]| {
            CParams::new()
                .with_codec(codec)
                .with_filters(filters)
                .with_clevel(5)
        };
        // NDLZ: 2-D, one-byte items, repeated cells
        let bytes: Vec<u8> = (0..128 * 128)
            .map(|i| ((i / 128) % 4 * 16 + i % 8) as u8)
            .collect();
        for codec in [Codec::NdLz4, Codec::NdLz8] {
            let a = NdArray::builder(&[128, 128])
                .chunks(&[64, 64])
                .blocks(&[32, 32])
                .cparams(with(codec, &[]))
                .from_slice(&bytes)
                .unwrap();
            assert_eq!(a.to_vec::<u8>().unwrap(), bytes, "{codec:?}");
            assert!(a.to_frame().unwrap().len() < bytes.len() / 2, "{codec:?}");
        }
        // NDCELL: lossless, any item type
        let ints: Vec<i32> = (0..16 * 16 * 16).map(|i| i % 37).collect();
        let a = NdArray::builder(&[16, 16, 16])
            .chunks(&[8, 8, 8])
            .blocks(&[8, 8, 8])
            .cparams(with(Codec::Lz4, &[Filter::NdCell { cell: 4 }]))
            .from_slice(&ints)
            .unwrap();
        assert_eq!(a.to_vec::<i32>().unwrap(), ints);
        // NDMEAN: each 2x2 cell becomes its mean
        let floats: Vec<f32> = (0..8 * 8).map(|i| i as f32).collect();
        let a = NdArray::builder(&[8, 8])
            .chunks(&[8, 8])
            .blocks(&[8, 8])
            .cparams(with(Codec::Zstd, &[Filter::NdMean { cell: 2 }]))
            .from_slice(&floats)
            .unwrap();
        let back = a.to_vec::<f32>().unwrap();
        let mean = (0.0 + 1.0 + 8.0 + 9.0) / 4.0;
        assert_eq!(back[..2], [mean, mean]);
        assert_eq!(back[8..10], [mean, mean]);
    }

    #[cfg(all(feature = "plugins", feature = "zfp"))]
    #[test]
    fn the_zfp_modes_keep_their_promises() {
        use crate::Codec;
        let data: Vec<f64> = (0..32 * 32 * 32)
            .map(|i| ((i % 32) as f64 * 0.2).sin() + ((i / 1024) as f64 * 0.1).cos())
            .collect();
        let make = |codec| {
            NdArray::builder(&[32, 32, 32])
                .chunks(&[16, 32, 32])
                .blocks(&[8, 16, 16])
                .cparams(CParams::new().with_codec(codec).with_filters(&[]))
                .from_slice(&data)
                .unwrap()
        };
        let max_err = |a: &NdArray| {
            let back = a.to_vec::<f64>().unwrap();
            back.iter()
                .zip(&data)
                .map(|(b, d)| (b - d).abs())
                .fold(0.0, f64::max)
        };
        let acc = make(Codec::ZfpAccuracy { exponent: -3 });
        assert!(max_err(&acc) <= 1e-3, "{}", max_err(&acc));
        assert!(max_err(&acc) > 0.0);
        let prec = make(Codec::ZfpPrecision { bits: 40 });
        assert!(max_err(&prec) < 1e-6);
        let rate = make(Codec::ZfpRate { percent: 25 });
        let raw = data.len() * 8;
        let frame = rate.to_frame().unwrap().len();
        // 16 of 64 bits per value, plus chunk and frame headers
        assert!(frame <= raw / 4 + 4096, "{frame} of {raw}");
        assert!(frame >= raw / 5, "{frame} of {raw}");
        assert!(max_err(&rate) < 0.1);
        assert_eq!(
            NdArray::from_frame(&rate.to_frame().unwrap())
                .unwrap()
                .to_vec::<f64>()
                .unwrap(),
            rate.to_vec::<f64>().unwrap()
        );
    }

    #[test]
    fn default_blocks_stay_small() {
        let b = default_blocks(&[1000, 1000], 8);
        assert!(b.iter().product::<u64>() * 8 <= DEFAULT_BLOCK_BYTES);
        assert_eq!(default_blocks(&[10, 10], 4), [10, 10]);
    }
}
