//! The chunk size of a super-chunk: -1 until the first chunk fixes it, 0
//! once chunks of different sizes made it variable. C code may also set it
//! (python-blosc2 writes `schunk->chunksize` right after creating a
//! super-chunk, and upstream's appends then keep to it).

use super::SuperChunk;

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
            e.nbytes == chunksize || (i + 1 == n && e.nbytes < chunksize && e.nbytes > 0)
        });
        if keeps {
            self.chunksize = chunksize;
        }
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
