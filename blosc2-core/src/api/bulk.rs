//! One-call compression of a slice into a chunk, and back.

use super::element::buffer_for;
use super::params::CParams;
use crate::chunk::header::{ChunkHeader, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE};
use crate::chunk::{Compressor, DParams, Decompressor};
use crate::error::{Error, ErrorKind, Reason};
use bytemuck::Pod;

/// Compresses `data` into one Blosc2 chunk with C-Blosc2's defaults
/// (BloscLZ, level 5, byte shuffle by the item size of `T`).
///
/// The chunk is what `blosc2_compress` writes: any C-Blosc2 2.x or 3.x
/// reads it back. At most 2 GiB minus 32 bytes of data fit in one chunk.
///
/// ```
/// let data: Vec<f64> = (0..10_000).map(|i| i as f64 * 0.5).collect();
/// let chunk = blosc2_core::compress(&data)?;
/// assert!(chunk.len() < data.len() * 8);
/// let back: Vec<f64> = blosc2_core::decompress(&chunk)?;
/// assert_eq!(back, data);
/// # Ok::<(), blosc2_core::Error>(())
/// ```
pub fn compress<T: Pod>(data: &[T]) -> Result<Vec<u8>, Error> {
    compress_with(data, &CParams::new())
}

/// Compresses `data` into one chunk with these settings; the item size is
/// `T`'s unless the settings give one.
pub fn compress_with<T: Pod>(data: &[T], params: &CParams) -> Result<Vec<u8>, Error> {
    compress_bytes(
        bytemuck::cast_slice(data),
        &params
            .clone()
            .with_typesize(params.typesize().unwrap_or(std::mem::size_of::<T>())),
    )
}

/// Compresses bytes into one chunk; the item size is the settings' (1 when
/// they give none).
pub fn compress_bytes(data: &[u8], params: &CParams) -> Result<Vec<u8>, Error> {
    let engine = params.to_engine(1)?;
    if data.len() > MAX_BUFFERSIZE as usize {
        return Err(Error::new(ErrorKind::MaxBufsizeExceeded)
            .with_detail(format!("{} bytes do not fit in one chunk", data.len())));
    }
    let mut out = vec![0u8; data.len() + EXTENDED_HEADER_LENGTH];
    let n = Compressor::new(engine).compress(data, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// The largest chunk `nbytes` bytes of data can compress to: a buffer of
/// this size always suffices for [`compress_into`].
pub fn max_compressed_len(nbytes: usize) -> usize {
    nbytes.saturating_add(EXTENDED_HEADER_LENGTH)
}

/// Compresses `data` into `out` as one chunk, as [`compress_with`] does, and
/// returns the chunk's size in bytes.
///
/// Fails with [`ErrorKind::WriteBuffer`] and a
/// [`Reason::BufferTooSmall`] when the chunk does not fit; a buffer of
/// [`max_compressed_len`] bytes always suffices.
///
/// ```
/// use blosc2_core::{compress_into, decompress_into, max_compressed_len, CParams};
///
/// let data: Vec<u32> = (0..10_000).collect();
/// let mut chunk = vec![0u8; max_compressed_len(data.len() * 4)];
/// let n = compress_into(&data, &CParams::new(), &mut chunk)?;
/// let mut back = vec![0u32; data.len()];
/// assert_eq!(decompress_into(&chunk[..n], &mut back)?, data.len());
/// assert_eq!(back, data);
/// # Ok::<(), blosc2_core::Error>(())
/// ```
pub fn compress_into<T: Pod>(data: &[T], params: &CParams, out: &mut [u8]) -> Result<usize, Error> {
    let bytes: &[u8] = bytemuck::cast_slice(data);
    let engine = params
        .clone()
        .with_typesize(params.typesize().unwrap_or(std::mem::size_of::<T>()))
        .to_engine(1)?;
    if bytes.len() > MAX_BUFFERSIZE as usize {
        return Err(Error::new(ErrorKind::MaxBufsizeExceeded)
            .with_detail(format!("{} bytes do not fit in one chunk", bytes.len())));
    }
    let len = out.len();
    let too_small = || {
        Error::new(ErrorKind::WriteBuffer)
            .with_operation("compressing into a buffer")
            .with_reason(Reason::BufferTooSmall {
                needed: max_compressed_len(bytes.len()),
                len,
            })
    };
    if len < EXTENDED_HEADER_LENGTH {
        return Err(too_small());
    }
    match Compressor::new(engine).compress(bytes, out) {
        // the engine's answer, as upstream's, for a chunk that does not fit
        Ok(0) => Err(too_small()),
        Ok(n) => Ok(n),
        Err(k) => Err(Error::new(k)),
    }
}

/// Decompresses a chunk into `out` and returns the number of items written
/// (the chunk's bytes over the size of `T`; `out` may be longer).
///
/// Fails with [`ErrorKind::WriteBuffer`] and a [`Reason::BufferTooSmall`]
/// when `out` is too short, and with [`ErrorKind::InvalidParam`] when the
/// chunk's content is not a whole number of `T`s.
pub fn decompress_into<T: Pod>(chunk: &[u8], out: &mut [T]) -> Result<usize, Error> {
    let nbytes = chunk_nbytes(chunk)?;
    let size = std::mem::size_of::<T>();
    if size == 0 || !nbytes.is_multiple_of(size) {
        return Err(Error::new(ErrorKind::InvalidParam).with_detail(format!(
            "the chunk holds {nbytes} bytes, not a whole number of {size}-byte items"
        )));
    }
    let dest: &mut [u8] = bytemuck::cast_slice_mut(out);
    if dest.len() < nbytes {
        return Err(Error::new(ErrorKind::WriteBuffer)
            .with_operation("decompressing into a buffer")
            .with_reason(Reason::BufferTooSmall {
                needed: nbytes,
                len: dest.len(),
            }));
    }
    let n = Decompressor::new(DParams::default()).decompress(chunk, &mut dest[..nbytes])?;
    Ok(n / size)
}

/// Decompresses a chunk into items of `T`.
///
/// Fails with [`ErrorKind::InvalidParam`] when the chunk's content is not a
/// whole number of `T`s, and with the decoder's error on a damaged chunk.
pub fn decompress<T: Pod>(chunk: &[u8]) -> Result<Vec<T>, Error> {
    let nbytes = chunk_nbytes(chunk)?;
    let mut out = buffer_for::<T>(nbytes, "the chunk")?;
    let n = Decompressor::new(DParams::default())
        .decompress(chunk, bytemuck::cast_slice_mut(&mut out))?;
    debug_assert_eq!(n, nbytes);
    Ok(out)
}

/// Decompresses a chunk into bytes.
pub fn decompress_bytes(chunk: &[u8]) -> Result<Vec<u8>, Error> {
    decompress::<u8>(chunk)
}

/// The number of bytes a chunk decompresses to, read from its header.
pub fn chunk_nbytes(chunk: &[u8]) -> Result<usize, Error> {
    let h = ChunkHeader::read(chunk)
        .map_err(|k| Error::new(k).with_detail("not a Blosc2 chunk header"))?;
    usize::try_from(h.nbytes).map_err(|_| Error::new(ErrorKind::InvalidHeader).with_offset(4))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::params::{Codec, Filter};

    #[test]
    fn every_codec_round_trips_typed_data() {
        let data: Vec<i32> = (0..50_000).map(|i| (i * 7) % 1000).collect();
        for codec in [
            Codec::BloscLz,
            Codec::Lz4,
            Codec::Lz4Hc,
            Codec::Zlib,
            Codec::Zstd,
        ] {
            for filters in [
                &[][..],
                &[Filter::Shuffle],
                &[Filter::BitShuffle, Filter::Delta],
            ] {
                let p = CParams::new()
                    .with_codec(codec)
                    .with_filters(filters)
                    .with_nthreads(2);
                let c = compress_with(&data, &p).unwrap();
                assert_eq!(
                    decompress::<i32>(&c).unwrap(),
                    data,
                    "{codec:?} {filters:?}"
                );
            }
        }
    }

    #[test]
    fn matches_the_engine_byte_for_byte() {
        let data: Vec<u16> = (0..4096).collect();
        let ours = compress(&data).unwrap();
        let mut e = crate::chunk::CParams {
            typesize: 2,
            ..Default::default()
        };
        e.nthreads = 1;
        let mut out = vec![0u8; 8192 + 32];
        let n = Compressor::new(e)
            .compress(bytemuck::cast_slice(&data), &mut out)
            .unwrap();
        assert_eq!(ours, out[..n]);
    }

    #[test]
    fn into_buffers_report_sizes_and_short_buffers() {
        let data: Vec<u64> = (0..5000).map(|i| i * i).collect();
        let whole = compress(&data).unwrap();
        let mut out = vec![0u8; max_compressed_len(data.len() * 8)];
        let n = compress_into(&data, &CParams::new(), &mut out).unwrap();
        assert_eq!(out[..n], whole);
        // random bytes do not compress: they need the whole bound
        let noise: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let mut short = vec![0u8; 1000];
        let e = compress_into(&noise, &CParams::new(), &mut short).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::WriteBuffer);
        assert_eq!(
            e.reason(),
            Some(&Reason::BufferTooSmall {
                needed: 4128,
                len: 1000
            })
        );
        let e = compress_into(&noise, &CParams::new(), &mut [0u8; 8]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::WriteBuffer);

        let mut back = vec![0u64; 5001];
        assert_eq!(decompress_into(&whole, &mut back).unwrap(), 5000);
        assert_eq!(back[..5000], data);
        let e = decompress_into(&whole, &mut [0u64; 4999]).unwrap_err();
        assert_eq!(
            e.reason(),
            Some(&Reason::BufferTooSmall {
                needed: 40_000,
                len: 39_992
            })
        );
        let e = decompress_into(&compress(&[1u8; 3]).unwrap(), &mut [0u16; 4]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidParam);
    }

    #[test]
    fn wrong_item_size_and_garbage_are_errors() {
        let c = compress(&[1u8, 2, 3]).unwrap();
        assert_eq!(
            decompress::<u16>(&c).unwrap_err().kind(),
            ErrorKind::InvalidParam
        );
        assert!(decompress::<u8>(&[1, 2, 3]).is_err());
        assert_eq!(decompress_bytes(&c).unwrap(), vec![1, 2, 3]);
        assert!(decompress::<u8>(&compress::<u8>(&[]).unwrap())
            .unwrap()
            .is_empty());
    }
}
