//! The compression parameters a super-chunk records (in frame headers, and
//! for its item size). C code may change them in the public struct:
//! python-blosc2 writes `schunk->typesize`, `compcode`, `clevel`, ... after
//! swapping `schunk->cctx` for a context made with new parameters, and
//! upstream reads the fields back from then on.

use super::SuperChunk;
use crate::chunk::{CParams, Compressor};
use std::sync::Mutex;

impl SuperChunk {
    /// Record new compression parameters (threads stay as they are). The
    /// chunks already stored keep theirs; new ones get these when the
    /// super-chunk compresses them itself.
    pub fn set_cparams(&mut self, cparams: CParams) {
        let cp = CParams {
            nthreads: self.cparams.nthreads,
            ..cparams
        };
        if cp == self.cparams {
            return;
        }
        self.comp = Mutex::new(Compressor::new(cp.clone()));
        self.cparams = cp;
    }
}

#[cfg(test)]
mod tests {
    use crate::chunk::CParams;
    use crate::schunk::{Storage, SuperChunk};

    #[test]
    fn new_parameters_apply_to_new_chunks_and_item_sizes() {
        let mut sc = SuperChunk::new(Storage {
            cparams: CParams {
                typesize: 4,
                ..CParams::default()
            },
            ..Storage::default()
        })
        .unwrap();
        let a: Vec<u8> = (0..4000u32).flat_map(|v| v.to_le_bytes()).collect();
        sc.append_buffer(&a).unwrap();
        sc.set_cparams(CParams {
            typesize: 8,
            clevel: 9,
            compcode: crate::chunk::params::codec::ZSTD,
            ..CParams::default()
        });
        assert_eq!(sc.typesize(), 8);
        assert_eq!(sc.cparams().clevel, 9);
        sc.append_buffer(&a).unwrap();
        let mut back = vec![0u8; a.len()];
        sc.decompress_chunk(1, &mut back).unwrap();
        assert_eq!(back, a);
        // items are 8 bytes now: 2000 per chunk
        let mut item = vec![0u8; 8];
        sc.get_slice(2000, 2001, &mut item).unwrap();
        assert_eq!(&item[..], &a[..8]);
    }
}
