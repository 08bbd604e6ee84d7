//! Which compressor or decompressor a chunk goes through: the owner's
//! contexts ([`ChunkContexts`], the C API's `schunk->cctx` and `dctx`) or
//! the super-chunk's own, with what plugins see of the super-chunk; and
//! compressing data as this super-chunk would.
//!
//! Separate because every read, mutation and slice compresses or
//! decompresses through here, and the rules (a busy context lends a fresh
//! copy, hooks that need chunks one at a time) are the same for all.

use super::SuperChunk;
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::{Compressor, Decompressor};
use crate::error::{ErrorKind, Result};
use crate::registry::SchunkInfo;
use std::sync::Arc;

/// Contexts the owner of a super-chunk supplies for its data chunks, in
/// place of the super-chunk's own: the C API's `schunk->cctx` and
/// `schunk->dctx`, which callers may replace and which carry the
/// prefilter, postfilter and thread settings they were made with.
///
/// Each method runs `f` on the owner's context for chunk number `nchunk`,
/// or returns None when the owner has none (the super-chunk's own is used).
/// They may be called from several threads at once, and again from inside
/// `f` (a plugin calling back into the library).
pub trait ChunkContexts: Send + Sync {
    fn compressor(
        &self,
        nchunk: i64,
        f: &mut dyn FnMut(&mut Compressor) -> Result<usize>,
    ) -> Option<Result<usize>>;
    fn decompressor(
        &self,
        nchunk: i64,
        f: &mut dyn FnMut(&mut Decompressor) -> Result<usize>,
    ) -> Option<Result<usize>>;
    /// How many chunks may be compressed (`compress`) or decompressed at
    /// once for one call that spans several: the owner's threads, or 1 when
    /// its hooks must see chunks one at a time (a prefilter or postfilter
    /// is told the chunk through the super-chunk).
    fn chunk_threads(&self, _compress: bool) -> usize {
        1
    }
}

impl SuperChunk {
    /// Point `slot` (a context's view for plugins) at this super-chunk's
    /// current typesize and metalayers: upstream plugins read them through
    /// `cparams->schunk` (the b2nd ones, their array geometry).
    pub fn plugin_info(&self, slot: &mut Option<Arc<SchunkInfo>>) {
        SchunkInfo::refresh(slot, self.cparams.typesize, &self.metalayers, self.owner);
    }

    /// Run `f` on the compressor for chunk number `nchunk`: the owner's, or
    /// this super-chunk's own (a fresh copy of it when it is busy, so that
    /// a plugin calling back in never waits for itself).
    fn with_compressor(
        &self,
        nchunk: i64,
        f: &mut dyn FnMut(&mut Compressor) -> Result<usize>,
    ) -> Result<usize> {
        let mut run = |c: &mut Compressor| {
            c.nchunk = nchunk;
            self.plugin_info(&mut c.schunk);
            f(c)
        };
        if let Some(r) = self
            .contexts
            .as_ref()
            .and_then(|x| x.compressor(nchunk, &mut run))
        {
            return r;
        }
        match self.comp.try_lock() {
            Ok(mut c) => run(&mut c),
            Err(std::sync::TryLockError::Poisoned(p)) => {
                // a caught panic left it: its scratch is rewritten before use
                self.comp.clear_poison();
                run(&mut p.into_inner())
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                run(&mut Compressor::new(self.cparams.clone()))
            }
        }
    }

    /// As [`Self::with_compressor`], for decompression.
    pub(super) fn with_decompressor(
        &self,
        nchunk: i64,
        f: &mut dyn FnMut(&mut Decompressor) -> Result<usize>,
    ) -> Result<usize> {
        let mut run = |d: &mut Decompressor| {
            d.nchunk = nchunk;
            self.plugin_info(&mut d.schunk);
            f(d)
        };
        if let Some(r) = self
            .contexts
            .as_ref()
            .and_then(|x| x.decompressor(nchunk, &mut run))
        {
            return r;
        }
        match self.decomp.try_lock() {
            Ok(mut d) => run(&mut d),
            Err(std::sync::TryLockError::Poisoned(p)) => {
                self.decomp.clear_poison();
                run(&mut p.into_inner())
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                run(&mut Decompressor::new(self.dparams.clone()))
            }
        }
    }

    /// How many chunks one call may compress or decompress side by side
    /// (see [`ChunkContexts::chunk_threads`]).
    pub(crate) fn chunk_threads(&self, compress: bool) -> usize {
        if let Some(c) = &self.contexts {
            return c.chunk_threads(compress);
        }
        if compress {
            match self.comp.try_lock() {
                Ok(c) if c.prefilter.is_none() => c.params().nthreads.max(1) as usize,
                _ => 1,
            }
        } else {
            match self.decomp.try_lock() {
                Ok(d) if d.postfilter.is_none() => d.params().nthreads.max(1) as usize,
                _ => 1,
            }
        }
    }

    /// Compress `src` with the super-chunk's parameters.
    pub fn compress(&self, src: &[u8]) -> Result<Vec<u8>> {
        self.compress_chunk(-1, src)
    }

    /// Compress `src` with the super-chunk's parameters as chunk number
    /// `nchunk` (what prefilters are told).
    pub fn compress_chunk(&self, nchunk: i64, src: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; src.len() + EXTENDED_HEADER_LENGTH];
        let n = self.with_compressor(nchunk, &mut |c| c.compress(src, &mut out))?;
        if n == 0 {
            // cannot happen with room for a memcpyed chunk, unless a
            // supplied context writes another header
            return Err(ErrorKind::WriteBuffer);
        }
        out.truncate(n);
        Ok(out)
    }
}
