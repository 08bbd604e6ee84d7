//! Array geometry: the padded shapes, item counts and strides derived from
//! shape, chunkshape and blockshape, computed as the reference computes the
//! fields of `b2nd_array_t`.
//!
//! Storage layout: the array is cut into chunks of `chunkshape` items; the
//! grid of chunks covers `extshape` (shape rounded up to whole chunks). Each
//! chunk is stored padded to `extchunkshape` (chunkshape rounded up to whole
//! blocks) and holds its blocks one after the other in C order; each block
//! holds `blockshape` items in C order. So every chunk decompresses to
//! `extchunknitems * typesize` bytes, and block `j` of a chunk is the byte
//! range `j * blocknitems * typesize ..` of it.

use super::meta::MAX_DIM;
use crate::error::{ErrorKind, Result};

/// Shapes, counts and strides of an array (dimensions past `ndim` are 1,
/// as in the reference's struct).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub ndim: usize,
    pub shape: [i64; MAX_DIM],
    pub chunkshape: [i32; MAX_DIM],
    pub blockshape: [i32; MAX_DIM],
    pub extshape: [i64; MAX_DIM],
    pub extchunkshape: [i64; MAX_DIM],
    pub nitems: i64,
    pub chunknitems: i32,
    pub extnitems: i64,
    pub blocknitems: i32,
    pub extchunknitems: i64,
    pub item_array_strides: [i64; MAX_DIM],
    pub item_chunk_strides: [i64; MAX_DIM],
    pub item_extchunk_strides: [i64; MAX_DIM],
    pub item_block_strides: [i64; MAX_DIM],
    pub block_chunk_strides: [i64; MAX_DIM],
    pub chunk_array_strides: [i64; MAX_DIM],
}

/// The reference's shape checks: no negative sizes, and a zero block only
/// with a zero chunk (the placeholder of empty contexts).
pub fn validate(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<()> {
    if shape.len() > MAX_DIM || chunkshape.len() != shape.len() || blockshape.len() != shape.len() {
        return Err(crate::traced!(
            ErrorKind::InvalidParam,
            "ndim {} (at most {MAX_DIM}) with {} chunkshape and {} blockshape values",
            shape.len(),
            chunkshape.len(),
            blockshape.len()
        ));
    }
    for i in 0..shape.len() {
        if shape[i] < 0 || chunkshape[i] < 0 || blockshape[i] < 0 {
            return Err(crate::traced!(
                ErrorKind::InvalidParam,
                "Negative size on dimension {i}: shape {}, chunkshape {}, blockshape {}",
                shape[i],
                chunkshape[i],
                blockshape[i]
            ));
        }
        if blockshape[i] == 0 && chunkshape[i] != 0 {
            return Err(crate::traced!(
                ErrorKind::InvalidParam,
                "blockshape 0 on dimension {i} with chunkshape {}",
                chunkshape[i]
            ));
        }
    }
    Ok(())
}

/// Stricter checks for metalayers read from storage: a non-empty dimension
/// needs a non-zero chunk and block (every slice divides by them).
pub fn validate_stored(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<()> {
    validate(shape, chunkshape, blockshape)?;
    for i in 0..shape.len() {
        if shape[i] != 0 && (chunkshape[i] == 0 || blockshape[i] == 0) {
            return Err(crate::traced!(
                ErrorKind::InvalidParam,
                "Stored b2nd metalayer has shape {} but chunkshape {} and blockshape {} on dimension {i}",
                shape[i],
                chunkshape[i],
                blockshape[i]
            ));
        }
    }
    Ok(())
}

fn mul64(a: i64, b: i64) -> Result<i64> {
    if a < 0 || b < 0 {
        return Err(ErrorKind::InvalidParam);
    }
    a.checked_mul(b).ok_or(ErrorKind::InvalidParam)
}

fn mul32(a: i32, b: i32) -> Result<i32> {
    if a < 0 || b < 0 {
        return Err(ErrorKind::InvalidParam);
    }
    a.checked_mul(b).ok_or(ErrorKind::InvalidParam)
}

impl Geometry {
    /// Compute the geometry; products that overflow are `InvalidParam`.
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<Geometry> {
        validate(shape, chunkshape, blockshape)?;
        let ndim = shape.len();
        let mut g = Geometry {
            ndim,
            shape: [1; MAX_DIM],
            chunkshape: [1; MAX_DIM],
            blockshape: [1; MAX_DIM],
            extshape: [1; MAX_DIM],
            extchunkshape: [1; MAX_DIM],
            nitems: 1,
            chunknitems: 1,
            extnitems: 1,
            blocknitems: 1,
            extchunknitems: 1,
            item_array_strides: [0; MAX_DIM],
            item_chunk_strides: [0; MAX_DIM],
            item_extchunk_strides: [0; MAX_DIM],
            item_block_strides: [0; MAX_DIM],
            block_chunk_strides: [0; MAX_DIM],
            chunk_array_strides: [0; MAX_DIM],
        };
        for i in 0..MAX_DIM {
            if i < ndim {
                let (s, c, b) = (shape[i], chunkshape[i], blockshape[i]);
                g.shape[i] = s;
                g.chunkshape[i] = c;
                g.blockshape[i] = b;
                if c != 0 {
                    let c64 = c as i64;
                    g.extshape[i] = if s % c64 == 0 {
                        s
                    } else {
                        s.checked_add(c64 - s % c64)
                            .ok_or(ErrorKind::InvalidParam)?
                    };
                    g.extchunkshape[i] = if c % b == 0 {
                        c64
                    } else {
                        c64 + b as i64 - (c % b) as i64
                    };
                } else {
                    g.extchunkshape[i] = 0;
                    g.extshape[i] = 0;
                }
            }
            g.nitems = mul64(g.nitems, g.shape[i])?;
            g.extnitems = mul64(g.extnitems, g.extshape[i])?;
            g.extchunknitems = mul64(g.extchunknitems, g.extchunkshape[i])?;
            g.chunknitems = mul32(g.chunknitems, g.chunkshape[i])?;
            g.blocknitems = mul32(g.blocknitems, g.blockshape[i])?;
        }
        if ndim > 0 {
            let l = ndim - 1;
            g.item_array_strides[l] = 1;
            g.item_extchunk_strides[l] = 1;
            g.item_chunk_strides[l] = 1;
            g.item_block_strides[l] = 1;
            g.block_chunk_strides[l] = 1;
            g.chunk_array_strides[l] = 1;
        }
        for i in (0..ndim.saturating_sub(1)).rev() {
            let n = i + 1;
            if g.shape[n] != 0 && g.chunkshape[n] != 0 && g.blockshape[n] != 0 {
                // wrapping: these are informational fields of the C struct
                // (the reference computes them unchecked); the slicing code
                // derives its own checked strides
                g.item_array_strides[i] = g.item_array_strides[n].wrapping_mul(g.shape[n]);
                g.item_extchunk_strides[i] =
                    g.item_extchunk_strides[n].wrapping_mul(g.extchunkshape[n]);
                g.item_chunk_strides[i] =
                    g.item_chunk_strides[n].wrapping_mul(g.chunkshape[n] as i64);
                g.item_block_strides[i] =
                    g.item_block_strides[n].wrapping_mul(g.blockshape[n] as i64);
                g.block_chunk_strides[i] = g.block_chunk_strides[n]
                    .wrapping_mul(g.extchunkshape[n] / g.blockshape[n] as i64);
                // the reference multiplies here (not divides); kept for
                // field-for-field equality of the public struct
                g.chunk_array_strides[i] = g.chunk_array_strides[n]
                    .wrapping_mul(g.extshape[n].wrapping_mul(g.chunkshape[n] as i64));
            }
        }
        // the super-chunk holds the chunks' items, padding included, one
        // after the other: item `nchunk * extchunknitems + i` must be
        // addressable (found by fuzzing: a shape of many small chunks
        // overflowed that product while slicing)
        let mut nchunks = 1i64;
        for c in g.chunks_in_array() {
            nchunks = mul64(nchunks, c)?;
        }
        mul64(nchunks, g.extchunknitems)?;
        Ok(g)
    }

    pub fn shape(&self) -> &[i64] {
        &self.shape[..self.ndim]
    }
    pub fn chunkshape(&self) -> &[i32] {
        &self.chunkshape[..self.ndim]
    }
    pub fn blockshape(&self) -> &[i32] {
        &self.blockshape[..self.ndim]
    }

    /// Chunks along each dimension (0 where the chunk size is 0).
    pub fn chunks_in_array(&self) -> Vec<i64> {
        (0..self.ndim)
            .map(|i| {
                if self.chunkshape[i] == 0 {
                    0
                } else {
                    self.extshape[i] / self.chunkshape[i] as i64
                }
            })
            .collect()
    }

    /// Blocks along each dimension of a chunk.
    pub fn blocks_in_chunk(&self) -> Vec<i64> {
        (0..self.ndim)
            .map(|i| {
                if self.blockshape[i] == 0 {
                    0
                } else {
                    self.extchunkshape[i] / self.blockshape[i] as i64
                }
            })
            .collect()
    }

    /// Number of chunks the super-chunk holds for this geometry.
    pub fn nchunks(&self) -> i64 {
        if self.nitems == 0 {
            return 0;
        }
        if self.ndim == 0 {
            return 1;
        }
        self.chunks_in_array().iter().product()
    }

    /// Blocks per chunk.
    pub fn nblocks(&self) -> i64 {
        if self.blocknitems == 0 {
            0
        } else {
            self.extchunknitems / self.blocknitems as i64
        }
    }

    /// Bytes of one decompressed chunk, checked against the 2 GiB chunk limit.
    pub fn chunk_nbytes(&self, typesize: i32) -> Result<usize> {
        if typesize <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let n = mul64(self.extchunknitems, typesize as i64)?;
        if n > crate::chunk::header::MAX_BUFFERSIZE as i64 {
            return Err(ErrorKind::MaxBufsizeExceeded);
        }
        Ok(n as usize)
    }
}

/// C-order strides (in items) of a buffer of the given shape.
pub fn strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1].saturating_mul(shape[i + 1]);
    }
    s
}

/// Multi-index of item `n` in C order of `shape`.
pub fn unravel(mut n: i64, shape: &[i64], out: &mut [i64]) {
    for i in (0..shape.len()).rev() {
        if shape[i] > 0 {
            out[i] = n % shape[i];
            n /= shape[i];
        } else {
            out[i] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_and_counts() {
        let g = Geometry::new(&[10, 7], &[4, 5], &[3, 2]).unwrap();
        assert_eq!(&g.extshape[..2], &[12, 10]);
        assert_eq!(&g.extchunkshape[..2], &[6, 6]);
        assert_eq!(g.nitems, 70);
        assert_eq!(g.extnitems, 120);
        assert_eq!(g.chunknitems, 20);
        assert_eq!(g.extchunknitems, 36);
        assert_eq!(g.blocknitems, 6);
        assert_eq!(g.chunks_in_array(), vec![3, 2]);
        assert_eq!(g.blocks_in_chunk(), vec![2, 3]);
        assert_eq!(g.nchunks(), 6);
        assert_eq!(g.nblocks(), 6);
        assert_eq!(g.item_array_strides[0], 7);
        assert_eq!(g.item_extchunk_strides[0], 6);
        assert_eq!(g.block_chunk_strides[0], 3);
        assert_eq!(g.chunk_array_strides[0], 50);
        // dimensions past ndim are ones
        assert_eq!(g.shape[2], 1);
        assert_eq!(g.extchunkshape[15], 1);
    }

    #[test]
    fn zero_sizes() {
        let g = Geometry::new(&[0, 5], &[0, 5], &[0, 5]).unwrap();
        assert_eq!(g.nitems, 0);
        assert_eq!(g.nchunks(), 0);
        let g = Geometry::new(&[], &[], &[]).unwrap();
        assert_eq!(g.nitems, 1);
        assert_eq!(g.nchunks(), 1);
        assert_eq!(g.extchunknitems, 1);
    }

    #[test]
    fn invalid() {
        assert!(Geometry::new(&[-1], &[1], &[1]).is_err());
        assert!(Geometry::new(&[1], &[-1], &[1]).is_err());
        assert!(Geometry::new(&[1], &[1], &[0]).is_err());
        assert!(Geometry::new(&[i64::MAX], &[3], &[1]).is_err());
        assert!(Geometry::new(&[1 << 40, 1 << 40], &[1, 1], &[1, 1]).is_err());
        assert!(Geometry::new(&[1, 1], &[1 << 20, 1 << 20], &[1, 1]).is_err());
        assert!(validate_stored(&[4], &[0], &[0]).is_err());
        assert!(validate_stored(&[0], &[0], &[0]).is_ok());
        assert!(Geometry::new(&[1; 17], &[1; 17], &[1; 17]).is_err());
    }

    #[test]
    fn helpers() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        let mut o = [0i64; 3];
        unravel(17, &[2, 3, 4], &mut o);
        assert_eq!(o, [1, 1, 1]);
    }
}
