//! ZFP (codec ids 33-35: fixed accuracy, precision and rate), the lossy
//! floating-point codecs C-Blosc2 builds from the bundled LLNL zfp library.
//!
//! Each block of a b2nd array is one zfp field: its shape is the array's
//! blockshape (read from the super-chunk's `b2nd` metalayer, 1 to 4
//! dimensions, each at least one 4-wide zfp cell when compressing) and its
//! scalars are `float` or `double` (typesize 4 or 8). The stream is a bare
//! zfp bit stream: no zfp header, so the decoder rebuilds the stream mode
//! from the codec id and `compcode_meta` exactly as the encoder set it:
//!
//! | id | meta | zfp mode |
//! |---|---|---|
//! | 33 accuracy | `i8` exponent `e` | tolerance `10^e` |
//! | 34 precision | `p` | `p + 5/7/9/11` bit planes for 1/2/3/4-D, at most 64 |
//! | 35 rate | percent `r` of the input size | `r / 100 * typesize * 8` bits per value, unaligned |
//!
//! The bit stream comes from `zfp-rs`, a safe Rust port of zfp whose output
//! is bit-for-bit the C library's on little-endian machines, so chunks are
//! byte-identical to C-Blosc2's there.
//!
//! Reading part of a fixed-rate block (`blosc2_getitem*`) decodes the whole
//! block and returns the requested items in array order. C-Blosc2 3.3.5
//! instead decodes the single zfp cell holding the first item and copies
//! from it in cell order, so it returns other items (or fails) when a
//! request leaves the cell's row; that is not reproduced.

use crate::error::{ErrorKind, Result};
use crate::filters::ndcell::geometry_of;
use crate::registry::PluginContext;
use zfp_rs::{
    ZfpBitStream, ZfpConfig, ZfpDimensionality, ZfpField, ZfpFieldMut, ZfpScalar, ZfpScalarType,
    ZfpStreamAlignment,
};

/// An upstream-style trace line (shown with `BLOSC_TRACE` set).
macro_rules! trace {
    ($($arg:tt)*) => {
        crate::trace_error!($($arg)*)
    };
}

/// `BLOSC_CODEC_ZFP_FIXED_ACCURACY`.
pub const ACCURACY: u8 = 33;
/// `BLOSC_CODEC_ZFP_FIXED_PRECISION`.
pub const PRECISION: u8 = 34;
/// `BLOSC_CODEC_ZFP_FIXED_RATE`.
pub const RATE: u8 = 35;
/// First of the ZFP codec ids.
pub const FIRST_ID: u8 = ACCURACY;
/// Last of the ZFP codec ids.
pub const LAST_ID: u8 = RATE;
/// zfp fields have at most four dimensions.
pub const MAX_DIM: usize = 4;
/// Side of a zfp cell (its blocks are 4 values wide in every dimension).
const CELL_SIDE: i32 = 4;

/// The zfp stream mode an id and meta stand for. `None` when the rate asks
/// for more bits per cell than zfp can express: such a rate is at least the
/// uncompressed size, so the block is stored as is.
fn config(id: u8, meta: u8, ndim: usize, ty: ZfpScalarType) -> Result<Option<ZfpConfig>> {
    let dims = match ndim {
        1 => ZfpDimensionality::D1,
        2 => ZfpDimensionality::D2,
        3 => ZfpDimensionality::D3,
        4 => ZfpDimensionality::D4,
        _ => {
            trace!("ZFP is not available for ndims: {ndim}");
            return Err(ErrorKind::Failure);
        }
    };
    Ok(match id {
        ACCURACY => Some(ZfpConfig::fixed_accuracy(10f64.powi(i32::from(meta as i8)))),
        PRECISION => {
            // more bit planes for more dimensions: the transform widens values
            let prec = u32::from(meta) + 3 + 2 * ndim as u32;
            if prec > zfp_rs::ZFP_MAX_PREC {
                trace!("Max precision for this codecs is {}", zfp_rs::ZFP_MAX_PREC);
            }
            Some(ZfpConfig::fixed_precision(prec))
        }
        RATE => {
            let bits = f64::from(meta) / 100.0 * (scalar_size(ty) * 8) as f64;
            ZfpConfig::fixed_rate(bits, ty, dims, ZfpStreamAlignment::Unaligned).ok()
        }
        _ => return Err(ErrorKind::CodecSupport),
    })
}

fn scalar_size(ty: ZfpScalarType) -> usize {
    if ty == ZfpScalarType::F32 {
        4
    } else {
        8
    }
}

fn scalar_type(typesize: i32) -> Result<ZfpScalarType> {
    match typesize {
        4 => Ok(ZfpScalarType::F32),
        8 => Ok(ZfpScalarType::F64),
        _ => {
            trace!("ZFP is not available for typesize: {typesize}");
            Err(ErrorKind::Failure)
        }
    }
}

/// zfp orders dimensions fastest first, b2nd slowest first.
fn zfp_dims(blockshape: &[usize]) -> [usize; 4] {
    let mut d = [0usize; 4];
    for (slot, &b) in d.iter_mut().zip(blockshape.iter().rev()) {
        *slot = b;
    }
    d
}

/// Compress one block of `prod(blockshape) * typesize` bytes with the ZFP
/// codec `id` (33-35). Ok(0) means "store the block as is": the input is
/// not a whole block (split streams), or zfp does not make it smaller.
pub fn compress(
    id: u8,
    meta: u8,
    blockshape: &[i32],
    typesize: i32,
    input: &[u8],
    output: &mut [u8],
) -> Result<usize> {
    let ndim = blockshape.len();
    if ndim == 0 || ndim > MAX_DIM {
        trace!("Invalid b2nd meta info (ndim {ndim})");
        return Err(ErrorKind::Failure);
    }
    if blockshape.iter().any(|&b| b < CELL_SIDE) {
        trace!("ZFP does not support blocks smaller than cells (4x...x4)");
        return Err(ErrorKind::Failure);
    }
    let block: Vec<usize> = blockshape.iter().map(|&b| b as usize).collect();
    let nitems = block.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
    let whole = nitems
        .and_then(|n| n.checked_mul(usize::try_from(typesize).ok()?))
        .is_some_and(|n| n == input.len());
    if !whole {
        return Ok(0);
    }
    let ty = scalar_type(typesize)?;
    let Some(cfg) = config(id, meta, ndim, ty)? else {
        return Ok(0);
    };
    let dims = zfp_dims(&block);
    let size = if ty == ZfpScalarType::F32 {
        encode_field::<f32, 4>(&cfg, dims, input, f32::from_ne_bytes)
    } else {
        encode_field::<f64, 8>(&cfg, dims, input, f64::from_ne_bytes)
    };
    let Some(stream) = size else {
        trace!("ZFP: Compression failed");
        return Ok(0);
    };
    if stream.len() >= input.len() {
        trace!("ZFP: Compressed data is bigger than input!");
        return Ok(0);
    }
    let dst = output
        .get_mut(..stream.len())
        .ok_or(ErrorKind::WriteBuffer)?;
    dst.copy_from_slice(&stream);
    Ok(stream.len())
}

/// The zfp stream of a field of `T`s read from native-endian bytes, or None
/// if zfp fails.
fn encode_field<T: ZfpScalar, const N: usize>(
    cfg: &ZfpConfig,
    dims: [usize; 4],
    input: &[u8],
    from: fn([u8; N]) -> T,
) -> Option<Vec<u8>> {
    // the block bytes need not be aligned for T, so take a typed copy
    let values: Vec<T> = input
        .chunks_exact(N)
        .map(|c| c.try_into().map(from))
        .collect::<std::result::Result<_, _>>()
        .ok()?;
    let nd = dims.iter().take_while(|&&d| d > 0).count();
    let field = match nd {
        1 => ZfpField::new(&values, [dims[0]]),
        2 => ZfpField::new(&values, [dims[0], dims[1]]),
        3 => ZfpField::new(&values, [dims[0], dims[1], dims[2]]),
        _ => ZfpField::new(&values, dims),
    }
    .ok()?;
    // room for the worst case of any mode, as the reference allocates
    let cap = ZfpConfig::new().maximum_size(field.scalar_type(), field.dims())?;
    let mut bs = ZfpBitStream::new(cap).ok()?;
    let n = bs.compress(cfg, &field).ok()?;
    if n == 0 {
        return None;
    }
    bs.as_bytes().get(..n).map(<[u8]>::to_vec)
}

/// Decompress a ZFP stream into `output`, which must hold at least
/// `prod(blockshape) * typesize` bytes; the bytes past the field (only
/// there when the metalayer's blockshape is not the one the chunk was
/// made with) are zeroed. Upstream leaves them alone, so they hold
/// whatever the block buffer held before: a decode that depends on
/// earlier calls (found by the `sframe` fuzz target). Returns
/// `output.len()`.
pub fn decompress(
    id: u8,
    meta: u8,
    blockshape: &[i32],
    typesize: i32,
    input: &[u8],
    output: &mut [u8],
) -> Result<usize> {
    let ndim = blockshape.len();
    if ndim == 0 || ndim > MAX_DIM {
        trace!("ndim {ndim} is out of range for ZFP");
        return Err(ErrorKind::Failure);
    }
    if typesize <= 0 {
        trace!("Invalid typesize {typesize}");
        return Err(ErrorKind::Failure);
    }
    // the metalayer is not trusted: the field must fit the block buffer
    let mut nbytes = typesize as u64;
    for &b in blockshape {
        if b <= 0 {
            trace!("Invalid blockshape dimension {b}");
            return Err(ErrorKind::Failure);
        }
        nbytes = nbytes.saturating_mul(b as u64);
    }
    if nbytes > output.len() as u64 {
        trace!(
            "Decompressed size ({nbytes} bytes) is bigger than the output buffer ({} bytes)",
            output.len()
        );
        return Err(ErrorKind::Failure);
    }
    let ty = scalar_type(typesize)?;
    let Some(cfg) = config(id, meta, ndim, ty)? else {
        trace!("ZFP: Decompression failed");
        return Err(ErrorKind::Failure);
    };
    let block: Vec<usize> = blockshape.iter().map(|&b| b as usize).collect();
    let dims = zfp_dims(&block);
    let field_bytes = &mut output[..nbytes as usize];
    let ok = if ty == ZfpScalarType::F32 {
        decode_field::<f32, 4>(&cfg, dims, input, field_bytes, f32::to_ne_bytes)
    } else {
        decode_field::<f64, 8>(&cfg, dims, input, field_bytes, f64::to_ne_bytes)
    };
    if !ok {
        trace!("ZFP: Decompression failed");
        return Err(ErrorKind::Failure);
    }
    output[nbytes as usize..].fill(0);
    Ok(output.len())
}

/// Decode a field of `T`s from `input` into native-endian bytes; false if
/// the stream is unusable (including one that ends before the field does,
/// where C zfp would read past the buffer).
fn decode_field<T: ZfpScalar + Default + Copy, const N: usize>(
    cfg: &ZfpConfig,
    dims: [usize; 4],
    input: &[u8],
    output: &mut [u8],
    to: fn(T) -> [u8; N],
) -> bool {
    let mut values = vec![T::default(); output.len() / N];
    let nd = dims.iter().take_while(|&&d| d > 0).count();
    let Ok(mut bs) = ZfpBitStream::from_bytes(input) else {
        return false;
    };
    let decoded = {
        let field = match nd {
            1 => ZfpFieldMut::new(&mut values, [dims[0]]),
            2 => ZfpFieldMut::new(&mut values, [dims[0], dims[1]]),
            3 => ZfpFieldMut::new(&mut values, [dims[0], dims[1], dims[2]]),
            _ => ZfpFieldMut::new(&mut values, dims),
        };
        match field {
            Ok(mut f) => bs.decompress(cfg, &mut f),
            Err(_) => return false,
        }
    };
    if !matches!(decoded, Ok(n) if n > 0) {
        return false;
    }
    for (dst, v) in output.chunks_exact_mut(N).zip(values) {
        dst.copy_from_slice(&to(v));
    }
    true
}

/// The codec as the chunk pipeline calls it when compressing: the block
/// geometry comes from the super-chunk's `b2nd` metalayer and the scalar
/// type from the compression typesize. A failure is a data error, as
/// upstream reports a plugin's negative result.
pub(crate) fn encode(
    id: u8,
    meta: u8,
    input: &[u8],
    output: &mut [u8],
    ctx: &PluginContext,
) -> Result<usize> {
    let g = geometry_of(ctx).map_err(|_| ErrorKind::Data)?;
    compress(id, meta, &g.blockshape, ctx.typesize, input, output).map_err(|e| match e {
        ErrorKind::WriteBuffer => e,
        _ => ErrorKind::Data,
    })
}

/// The decoding side: upstream takes the scalar type from the super-chunk's
/// typesize (not the chunk header's).
pub(crate) fn decode(
    id: u8,
    meta: u8,
    input: &[u8],
    output: &mut [u8],
    ctx: &PluginContext,
) -> Result<usize> {
    let Some(sc) = ctx.schunk else {
        trace!("ZFP needs the super-chunk (dparams->schunk) to decompress");
        return Err(ErrorKind::Data);
    };
    let g = geometry_of(ctx).map_err(|_| ErrorKind::Data)?;
    decompress(id, meta, &g.blockshape, sc.typesize, input, output).map_err(|_| ErrorKind::Data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A smooth field (zfp's favourite) of `n` values.
    fn smooth(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| (i as f64 * 0.05).sin() * 100.0 + i as f64 * 0.01)
            .collect()
    }

    fn bytes_of(v: &[f64], typesize: i32) -> Vec<u8> {
        if typesize == 4 {
            v.iter().flat_map(|&x| (x as f32).to_ne_bytes()).collect()
        } else {
            v.iter().flat_map(|&x| x.to_ne_bytes()).collect()
        }
    }

    fn values_of(b: &[u8], typesize: i32) -> Vec<f64> {
        if typesize == 4 {
            b.chunks_exact(4)
                .map(|c| f32::from_ne_bytes(c.try_into().unwrap()) as f64)
                .collect()
        } else {
            b.chunks_exact(8)
                .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
                .collect()
        }
    }

    const SHAPES: [&[i32]; 5] = [&[64], &[8, 12], &[4, 5, 8], &[4, 4, 4, 6], &[16, 16]];

    fn roundtrip(id: u8, meta: u8, shape: &[i32], ts: i32) -> (Vec<f64>, Vec<f64>, usize) {
        let n: usize = shape.iter().map(|&b| b as usize).product();
        let orig = smooth(n);
        let input = bytes_of(&orig, ts);
        let mut comp = vec![0u8; input.len()];
        let c = compress(id, meta, shape, ts, &input, &mut comp).unwrap();
        assert!(
            c > 0 && c < input.len(),
            "id {id} shape {shape:?} ts {ts}: {c}"
        );
        let mut out = vec![0u8; input.len()];
        let d = decompress(id, meta, shape, ts, &comp[..c], &mut out).unwrap();
        assert_eq!(d, input.len());
        (values_of(&input, ts), values_of(&out, ts), c)
    }

    #[test]
    fn accuracy_stays_within_tolerance() {
        for shape in SHAPES {
            for ts in [4, 8] {
                for e in [-3i8, -1, 1] {
                    let (a, b, _) = roundtrip(ACCURACY, e as u8, shape, ts);
                    let tol = 10f64.powi(e.into());
                    let err = a
                        .iter()
                        .zip(&b)
                        .map(|(x, y)| (x - y).abs())
                        .fold(0.0, f64::max);
                    assert!(err <= tol, "shape {shape:?} ts {ts} e {e}: {err} > {tol}");
                }
            }
        }
    }

    #[test]
    fn precision_error_shrinks_with_more_planes() {
        for shape in SHAPES {
            for ts in [4, 8] {
                let max_err = |meta| {
                    let (a, b, c) = roundtrip(PRECISION, meta, shape, ts);
                    let e = a
                        .iter()
                        .zip(&b)
                        .map(|(x, y)| (x - y).abs())
                        .fold(0.0, f64::max);
                    (e, c)
                };
                let (e_lo, c_lo) = max_err(5);
                let (e_hi, c_hi) = max_err(15);
                assert!(e_hi <= e_lo && c_hi >= c_lo, "shape {shape:?} ts {ts}");
                // 20 planes of values around 100 are good to well under 1
                assert!(e_hi < 0.5, "shape {shape:?} ts {ts}: {e_hi}");
            }
        }
    }

    #[test]
    fn rate_gives_the_requested_size() {
        for shape in SHAPES {
            for ts in [4, 8] {
                for pct in [25u8, 50] {
                    let (a, b, c) = roundtrip(RATE, pct, shape, ts);
                    let ndim = shape.len() as u32;
                    let cell = 1usize << (2 * ndim);
                    let cells: usize = shape.iter().map(|&s| (s as usize).div_ceil(4)).product();
                    let bits = (cell as f64 * f64::from(pct) / 100.0 * (ts * 8) as f64 + 0.5)
                        .floor() as usize;
                    // whole 64-bit words of `bits` per zfp cell
                    assert_eq!(
                        c,
                        (cells * bits).div_ceil(64) * 8,
                        "shape {shape:?} ts {ts}"
                    );
                    let rel = a
                        .iter()
                        .zip(&b)
                        .map(|(x, y)| (x - y).abs())
                        .fold(0.0, f64::max);
                    assert!(rel < 50.0, "shape {shape:?} ts {ts} pct {pct}: {rel}");
                }
            }
        }
    }

    #[test]
    fn stored_as_is_when_not_a_whole_block_or_no_gain() {
        let input = bytes_of(&smooth(64), 8);
        let mut out = vec![0u8; input.len()];
        // a split stream (an eighth of the block)
        assert_eq!(
            compress(ACCURACY, 0, &[64], 8, &input[..64], &mut out).unwrap(),
            0
        );
        // a rate of 100% or more never pays
        assert_eq!(compress(RATE, 100, &[64], 8, &input, &mut out).unwrap(), 0);
        assert_eq!(
            compress(
                RATE,
                255,
                &[4, 4, 4, 1 + 3],
                8,
                &bytes_of(&smooth(256), 8),
                &mut vec![0; 2048]
            )
            .unwrap(),
            0
        );
    }

    #[test]
    fn bad_geometry_and_types_fail() {
        let input = vec![0u8; 512];
        let mut out = vec![0u8; 512];
        for (shape, ts) in [
            (&[3, 32][..], 4),         // smaller than a cell
            (&[][..], 4),              // no dimensions
            (&[4, 4, 4, 4, 2][..], 1), // five dimensions
            (&[128][..], 4),           // a valid shape
        ] {
            let r = compress(ACCURACY, 0, shape, ts, &input, &mut out);
            if shape == [128] {
                assert!(r.unwrap() > 0);
            } else {
                assert!(r.is_err(), "{shape:?}");
            }
        }
        // typesize 2 with a whole block: not a float type
        assert!(compress(ACCURACY, 0, &[256], 2, &input, &mut out).is_err());
        assert!(decompress(ACCURACY, 0, &[64], 2, &input, &mut out).is_err());
    }

    #[test]
    fn malformed_streams_are_errors() {
        let input = bytes_of(&smooth(256), 8);
        for (id, m) in [(ACCURACY, -2i8 as u8), (PRECISION, 10), (RATE, 30)] {
            let mut comp = vec![0u8; input.len()];
            let c = compress(id, m, &[16, 16], 8, &input, &mut comp).unwrap();
            assert!(c > 8);
            let mut out = vec![0u8; input.len()];
            // a blockshape larger than the block buffer
            assert!(decompress(id, m, &[32, 16], 8, &comp[..c], &mut out).is_err());
            assert!(decompress(id, m, &[16, -16], 8, &comp[..c], &mut out).is_err());
            assert!(decompress(
                id,
                30,
                &[i32::MAX, i32::MAX, i32::MAX],
                8,
                &comp[..c],
                &mut out
            )
            .is_err());
            // truncated streams: never a panic, an error where zfp notices
            for cut in [0, 1, 7, 8, c / 2, c - 8] {
                let _ = decompress(id, m, &[16, 16], 8, &comp[..cut], &mut out);
            }
            assert!(decompress(id, m, &[16, 16], 8, &[], &mut out).is_err());
            // garbage
            let junk: Vec<u8> = (0..c).map(|i| (i * 37 + 11) as u8).collect();
            let _ = decompress(id, m, &[16, 16], 8, &junk, &mut out);
        }
    }

    #[test]
    fn plugin_context_supplies_geometry_and_typesize() {
        use crate::chunk::params::CParams;
        use crate::metalayers::Metalayer;
        use crate::registry::SchunkInfo;
        let meta = crate::filters::ndcell::tests::b2nd_meta(&[32, 32], &[16, 16], &[8, 8]);
        let info = SchunkInfo {
            typesize: 4,
            metalayers: vec![Metalayer {
                name: "b2nd".into(),
                content: meta,
            }],
            owner: 0,
        };
        let cp = CParams::default();
        let ctx = PluginContext {
            cparams: &cp,
            typesize: 4,
            chunk: None,
            schunk: Some(&info),
        };
        let input = bytes_of(&smooth(64), 4);
        let mut comp = vec![0u8; 256];
        let c = encode(RATE, 50, &input, &mut comp, &ctx).unwrap();
        assert_eq!(c, 128);
        let mut out = vec![0u8; 256];
        assert_eq!(decode(RATE, 50, &comp[..c], &mut out, &ctx).unwrap(), 256);
        let no_sc = PluginContext {
            schunk: None,
            ..ctx
        };
        assert_eq!(
            encode(RATE, 50, &input, &mut comp, &no_sc),
            Err(ErrorKind::Data)
        );
        assert_eq!(
            decode(RATE, 50, &comp[..c], &mut out, &no_sc),
            Err(ErrorKind::Data)
        );
    }
}
