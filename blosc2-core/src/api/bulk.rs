//! One-call compression of a slice into a chunk, and back.

use super::element::buffer_for;
use super::params::CParams;
use crate::chunk::header::{ChunkHeader, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE};
use crate::chunk::{Compressor, DParams, Decompressor};
use crate::error::{Error, ErrorKind};
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
