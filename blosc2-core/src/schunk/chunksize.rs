//! The chunk size of a super-chunk: -1 until the first chunk fixes it, 0
//! once chunks of different sizes made it variable. C code may also set it
//! (python-blosc2 writes `schunk->chunksize` right after creating a
//! super-chunk, and upstream's appends then keep to it). A chunk that
//! breaks the fixed size makes the super-chunk's chunks variable-size.

use super::{Slot, SuperChunk};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::{ChunkHeader, Compressor, Decompressor};
use crate::error::Result;

impl SuperChunk {
    /// Take a chunk size C code wrote into the public struct. It is taken
    /// when no chunk is stored yet, or when the stored chunks already keep
    /// to it (all of that size, the last one possibly shorter); a size the
    /// chunks break is left alone, as honouring it would misplace items.
    pub fn set_chunksize(&mut self, chunksize: i32) {
        if chunksize == self.chunksize || chunksize < -1 {
            return;
        }
        if self.entries.is_empty() {
            self.chunksize = chunksize;
            return;
        }
        if chunksize <= 0 {
            return;
        }
        let n = self.entries.len();
        let keeps = self.entries.iter().enumerate().all(|(i, e)| {
            e.is_ok_and(|e| {
                e.nbytes == chunksize || (i + 1 == n && e.nbytes < chunksize && e.nbytes > 0)
            })
        });
        if keeps {
            self.chunksize = chunksize;
        }
    }

    /// Whether chunks may differ in size (the frame header's `chunksize` 0).
    pub fn variable_chunks(&self) -> bool {
        self.chunksize == 0
    }

    /// Switch to variable-size chunks, as the reference does when a chunk
    /// no longer fits the fixed size. Special chunks of a frame become real
    /// chunks: a special offset carries no size, and a reader of
    /// variable-size chunks has nowhere else to take it from.
    pub(super) fn make_variable(&mut self) -> Result<()> {
        if self.chunksize == 0 {
            return Ok(());
        }
        self.entries.vec_mut()?;
        for i in 0..self.entries.len() {
            let e = self.entries.get(i)?.into_owned();
            if let Slot::Special(_) = e.slot {
                let s = self.special_chunk(&e)?;
                let c = self.regularize(&s)?;
                let slot = self.store(&c, false)?;
                let digest = self.digest_for(&c, false);
                let e = self.entries.get_mut(i)?;
                e.slot = slot;
                e.digest = digest;
                self.cbytes += c.len() as i64;
            }
        }
        self.chunksize = 0;
        Ok(())
    }

    /// A whole-chunk special value recompressed as an ordinary chunk, for
    /// frames of variable-size chunks: the reference reads special chunks
    /// stored as data whole but refuses them as lazy chunks (its partial
    /// reads of frames on disk).
    pub(super) fn regularize(&mut self, chunk: &[u8]) -> Result<Vec<u8>> {
        let nb = ChunkHeader::read(chunk)?.nbytes.max(0) as usize;
        let mut raw = vec![0u8; nb];
        Decompressor::new(self.dparams.clone()).decompress(chunk, &mut raw)?;
        // a fresh context: this is the library's own rewrite of a special
        // value, not data for the owner's hooks
        let mut out = vec![0u8; raw.len() + EXTENDED_HEADER_LENGTH];
        let n = Compressor::new(self.cparams.clone()).compress(&raw, &mut out)?;
        out.truncate(n);
        Ok(out)
    }

    /// Whether a chunk of `nb` bytes at position `pos` (replacing the one
    /// there when `replace`) keeps the fixed chunk size: every chunk but
    /// the last holds exactly `chunksize` bytes, the last at most that.
    pub(super) fn fits_fixed(&self, pos: usize, nb: i32, replace: bool) -> bool {
        let cs = self.chunksize;
        if cs <= 0 {
            return cs == -1 || self.entries.is_empty() && !replace;
        }
        let n = self.entries.len();
        let new_n = if replace { n } else { n + 1 };
        let last_after = pos + 1 == new_n;
        if nb > cs || (!last_after && nb != cs) {
            return false;
        }
        // a short chunk that stops being the last breaks the rule too
        if !replace
            && last_after
            && n > 0
            && self.entries.get(n - 1).map_or(true, |e| e.nbytes != cs)
        {
            return false;
        }
        true
    }

    /// Settle the chunk size for a new chunk of `nb` bytes at `pos`; returns
    /// whether a special chunk may still go in as a special offset.
    pub(super) fn settle_chunksize(&mut self, pos: usize, nb: i32, replace: bool) -> Result<bool> {
        if self.entries.is_empty() && !replace {
            // the first chunk fixes the size, unless one was set before
            // (by C code, see `set_chunksize`) that the chunk fits in
            if self.chunksize == -1 || (self.chunksize > 0 && nb > self.chunksize) {
                self.chunksize = nb;
            }
        } else if !self.fits_fixed(pos, nb, replace) {
            self.make_variable()?;
        }
        Ok(self.chunksize != 0)
    }
}

#[cfg(test)]
mod tests {
    use crate::chunk::CParams;
    use crate::schunk::{Storage, SuperChunk};

    fn plain() -> SuperChunk {
        SuperChunk::new(Storage {
            cparams: CParams {
                typesize: 1,
                ..CParams::default()
            },
            ..Storage::default()
        })
        .unwrap()
    }

    #[test]
    fn a_preset_size_survives_a_short_first_chunk() {
        let mut sc = plain();
        sc.set_chunksize(8192);
        sc.append_buffer(&[7u8; 100]).unwrap();
        assert_eq!(sc.chunksize(), 8192);
        // growing the short last chunk to the full size keeps it fixed
        let mut full = vec![7u8; 8192];
        full[8191] = 9;
        let mut c = crate::chunk::Compressor::new(CParams {
            typesize: 1,
            ..CParams::default()
        });
        let mut out = vec![0u8; 8192 + 64];
        let n = c.compress(&full, &mut out).unwrap();
        sc.update_chunk(0, &out[..n]).unwrap();
        sc.append_buffer(&[1u8; 8192]).unwrap();
        assert_eq!(sc.chunksize(), 8192);
        let mut back = vec![0u8; 8192];
        sc.decompress_chunk(0, &mut back).unwrap();
        assert_eq!(back, full);
    }

    #[test]
    fn without_a_preset_the_first_chunk_decides() {
        let mut sc = plain();
        assert_eq!(sc.chunksize(), -1);
        sc.append_buffer(&[7u8; 100]).unwrap();
        assert_eq!(sc.chunksize(), 100);
    }

    #[test]
    fn a_size_the_chunks_break_is_ignored() {
        let mut sc = plain();
        sc.append_buffer(&[7u8; 100]).unwrap();
        sc.append_buffer(&[7u8; 100]).unwrap();
        sc.set_chunksize(64);
        assert_eq!(sc.chunksize(), 100);
        sc.set_chunksize(200);
        assert_eq!(sc.chunksize(), 100);
        sc.set_chunksize(100);
        assert_eq!(sc.chunksize(), 100);
    }
}
