//! Decompression threads for frames opened from disk: a super-chunk opened
//! by the core decompresses with one thread, and takes other settings only
//! through contexts its owner supplies.

use blosc2_core::chunk::{Compressor, DParams, Decompressor};
use blosc2_core::error::Result;
use blosc2_core::schunk::{ChunkContexts, SuperChunk};
use std::sync::{Arc, Mutex};

struct Threads {
    params: DParams,
    decomp: Mutex<Decompressor>,
}

impl ChunkContexts for Threads {
    fn compressor(
        &self,
        _nchunk: i64,
        _f: &mut dyn FnMut(&mut Compressor) -> Result<usize>,
    ) -> Option<Result<usize>> {
        // the CLI only compresses into new super-chunks, made with their
        // thread count already
        None
    }

    fn decompressor(
        &self,
        _nchunk: i64,
        f: &mut dyn FnMut(&mut Decompressor) -> Result<usize>,
    ) -> Option<Result<usize>> {
        // the core may call back from inside `f`: a busy context means a
        // nested call, which gets a fresh one
        match self.decomp.try_lock() {
            Ok(mut d) => Some(f(&mut d)),
            Err(_) => Some(f(&mut Decompressor::new(self.params.clone()))),
        }
    }
}

/// Make `sc` decompress each chunk with `nthreads` threads (no-op for 1).
pub(crate) fn set(sc: &mut SuperChunk, nthreads: i16) {
    if nthreads <= 1 {
        return;
    }
    let params = DParams {
        nthreads,
        typesize: sc.typesize(),
    };
    sc.contexts = Some(Arc::new(Threads {
        decomp: Mutex::new(Decompressor::new(params.clone())),
        params,
    }));
}
