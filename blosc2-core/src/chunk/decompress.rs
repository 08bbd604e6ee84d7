//! Chunk decompression, whole-chunk and partial (`getitem`): every length and
//! offset read from the chunk is checked before use.

use super::codec::decompress_stream;
use super::compress::MAX_DICT_SIZE;
use super::header::{blosc2_flags, compformat, filter_id, ChunkHeader, Special};
use super::params::{CParams, DParams};
use super::pipeline::{self, PipelineSpec};
use crate::error::{ErrorKind, Result};
use crate::pool::Pool;
use crate::registry::{PluginContext, Postfilter, SchunkInfo};
use std::sync::Arc;

/// Per-thread scratch for decoding one block.
#[derive(Default)]
pub(crate) struct DScratch {
    s1: Vec<u8>,
    s2: Vec<u8>,
    block: Vec<u8>,
    /// The decoded block a postfilter reads.
    post: Vec<u8>,
    ttmp: Vec<u8>,
    tid: usize,
}

/// Per-call facts a block's postfilter needs.
#[derive(Clone, Copy)]
struct PostInfo<'a> {
    f: &'a dyn Postfilter,
    nchunk: i64,
}

impl Drop for DScratch {
    fn drop(&mut self) {
        // for the next context (see `crate::spare`)
        for v in [&mut self.s1, &mut self.s2, &mut self.block, &mut self.post] {
            crate::spare::give(std::mem::take(v));
        }
    }
}

impl DScratch {
    fn ensure(&mut self, bsize: usize) -> Result<()> {
        super::grow_scratch(&mut self.s1, bsize)?;
        super::grow_scratch(&mut self.s2, bsize)
    }
}

/// A parsed, validated view of a chunk ready for block decoding.
pub struct ChunkView<'a> {
    pub header: ChunkHeader,
    src: &'a [u8],
    header_len: usize,
    typesize: usize,
    nbytes: usize,
    blocksize: usize,
    nblocks: usize,
    leftover: usize,
    special: Special,
    memcpyed: bool,
    dict: Option<&'a [u8]>,
}

impl<'a> ChunkView<'a> {
    /// Parse and validate `src` (which may be longer than the chunk).
    pub fn parse(src: &'a [u8]) -> Result<ChunkView<'a>> {
        Self::with_header(ChunkHeader::read(src)?, src)
    }

    /// [`Self::parse`] with the header already read from `src` (small
    /// chunks pay for every pass over it).
    fn with_header(header: ChunkHeader, src: &'a [u8]) -> Result<ChunkView<'a>> {
        if header.is_vlblocks() {
            // variable-length blocks arrive with the 3.x extensions
            return Err(ErrorKind::VersionSupport);
        }
        if header.is_lazy() {
            // lazy chunks need the frame they came from
            return Err(ErrorKind::InvalidParam);
        }
        let cbytes = header.cbytes as usize;
        if cbytes > src.len() {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Chunk header claims cbytes {cbytes} (offset 12), more than the {} bytes given",
                src.len()
            ));
        }
        let src = &src[..cbytes];
        let special = Special::from_bits(header.special_bits()).ok_or_else(|| {
            crate::traced!(
                ErrorKind::Data,
                "Chunk header has special-value code {} (offset 31, bits 4-6), which the format reserves",
                header.special_bits()
            )
        })?;
        let header_len = header.header_len();
        let memcpyed = header.is_memcpyed();
        let nbytes = header.nbytes as usize;
        if memcpyed && cbytes != nbytes + header_len {
            return Err(crate::traced!(
                ErrorKind::Data,
                "Memcpyed chunk has cbytes {cbytes} (offset 12), not its nbytes {nbytes} plus the {header_len}-byte header"
            ));
        }
        let (nblocks, leftover) = header.nblocks();
        let blocksize = header.blocksize as usize;
        let mut view = ChunkView {
            header,
            src,
            header_len,
            typesize: header.typesize as usize,
            nbytes,
            blocksize,
            nblocks,
            leftover,
            special,
            memcpyed,
            dict: None,
        };
        if nbytes == 0 && cbytes == header_len && special == Special::None {
            return Ok(view);
        }
        let mut bstarts_end = header_len;
        if special == Special::None && !memcpyed {
            bstarts_end = nblocks
                .checked_mul(4)
                .and_then(|n| n.checked_add(header_len))
                .ok_or(ErrorKind::InvalidHeader)?;
        }
        if src.len() < bstarts_end {
            return Err(crate::traced!(
                ErrorKind::ReadBuffer,
                "Chunk of {} bytes is too short for the block starts of its {nblocks} blocks (to offset {bstarts_end})",
                src.len()
            ));
        }
        // A dictionary section follows the block starts whenever the flag is
        // set, memcpyed chunks included (C-Blosc2 reads and checks its size
        // there too, so a flag set on a stored chunk is refused alike).
        if header.blosc2_flags & blosc2_flags::USEDICT != 0 && header.is_extended() {
            if src.len() < bstarts_end + 4 {
                return Err(ErrorKind::ReadBuffer);
            }
            let dsize = le_i32(src, bstarts_end);
            if dsize <= 0 || dsize as usize > MAX_DICT_SIZE {
                return Err(crate::traced!(
                    ErrorKind::CodecDict,
                    "Chunk flags a dictionary (offset 31) whose size {dsize} at offset {bstarts_end} is not in 1..={MAX_DICT_SIZE}"
                ));
            }
            let start = bstarts_end + 4;
            let end = start + dsize as usize;
            if end > src.len() {
                return Err(crate::traced!(
                    ErrorKind::ReadBuffer,
                    "Chunk dictionary of {dsize} bytes at offset {start} runs past the chunk's {} bytes",
                    src.len()
                ));
            }
            view.dict = Some(&src[start..end]);
        }
        Ok(view)
    }

    pub fn nbytes(&self) -> usize {
        self.nbytes
    }

    pub fn nblocks(&self) -> usize {
        self.nblocks
    }

    pub fn blocksize(&self) -> usize {
        self.blocksize
    }

    fn bsize(&self, j: usize) -> usize {
        if j + 1 == self.nblocks && self.leftover > 0 {
            self.leftover
        } else {
            self.blocksize
        }
    }

    fn spec(&self) -> PipelineSpec<'_> {
        PipelineSpec {
            filters: &self.header.filters,
            filters_meta: &self.header.filters_meta,
            typesize: self.typesize,
            version: self.header.version,
        }
    }

    fn is_instrumented(&self) -> bool {
        self.header.is_extended() && self.header.blosc2_flags & blosc2_flags::INSTR_CODEC != 0
    }

    /// Fill `out` (which starts `offset` bytes into the chunk's data) for a
    /// memcpyed or special chunk.
    fn fill_direct(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        match self.special {
            Special::None => {
                let start = self.header_len + offset;
                let end = start + out.len();
                if end > self.src.len() {
                    return Err(ErrorKind::ReadBuffer);
                }
                out.copy_from_slice(&self.src[start..end]);
            }
            Special::Zero => out.fill(0),
            Special::Uninit => {}
            Special::Nan => fill_nans(self.typesize, out)?,
            Special::Value => {
                let value = &self.src[self.header_len..];
                fill_values(value, offset, out)?;
            }
        }
        Ok(())
    }

    /// Decode block `j` into `out` (exactly its size). `dref` is the decoded
    /// first block when the pipeline has DELTA and `j > 0`.
    /// Decode block `j` and run the postfilter on it, if any.
    fn decode_block(
        &self,
        j: usize,
        out: &mut [u8],
        dref: Option<&[u8]>,
        scratch: &mut DScratch,
        ctx: &PluginContext,
        post: Option<PostInfo>,
    ) -> Result<()> {
        let Some(p) = post else {
            return self.decode_block_inner(j, out, dref, scratch, ctx);
        };
        let mut tmp = std::mem::take(&mut scratch.post);
        super::grow_scratch(&mut tmp, out.len())?;
        let tmp_block = &mut tmp[..out.len()];
        let r = self.decode_block_inner(j, tmp_block, dref, scratch, ctx);
        let r = r.and_then(|()| {
            let ttmp_len = pipeline::ttmp_len(self.blocksize, self.typesize);
            super::grow_scratch(&mut scratch.ttmp, ttmp_len)?;
            pipeline::run_postfilter(
                p.f,
                tmp_block,
                out,
                self.typesize as i32,
                j * self.blocksize,
                j,
                p.nchunk,
                scratch.tid,
                &mut scratch.ttmp[..ttmp_len],
            )
        });
        scratch.post = tmp;
        r
    }

    fn decode_block_inner(
        &self,
        j: usize,
        out: &mut [u8],
        dref: Option<&[u8]>,
        scratch: &mut DScratch,
        ctx: &PluginContext,
    ) -> Result<()> {
        let bsize = self.bsize(j);
        debug_assert_eq!(out.len(), bsize);
        if self.memcpyed || self.special != Special::None {
            return self.fill_direct(j * self.blocksize, out);
        }
        let bstart = le_i32(self.src, self.header_len + 4 * j);
        if bstart <= 0 || bstart as usize >= self.src.len() {
            return Err(ErrorKind::Data);
        }
        self.decode_streams(j, &self.src[bstart as usize..], out, dref, scratch, ctx)
    }

    /// Decode block `j` from `rest`, the chunk's bytes from the block's
    /// start on (its streams, maybe followed by more).
    fn decode_streams(
        &self,
        j: usize,
        mut rest: &[u8],
        out: &mut [u8],
        dref: Option<&[u8]>,
        scratch: &mut DScratch,
        ctx: &PluginContext,
    ) -> Result<()> {
        let bsize = self.bsize(j);
        let leftover_block = j + 1 == self.nblocks && self.leftover > 0;
        let nstreams = if !self.header.dont_split() && !leftover_block {
            self.typesize
        } else {
            1
        };
        let neblock = bsize / nstreams;
        if neblock == 0 {
            return Err(ErrorKind::WriteBuffer);
        }
        // split streams cover the whole block only when it holds whole
        // items, as every block a compressor splits does (the reference
        // rounds block sizes to the typesize): the bytes past the last
        // stream would come from no stream (the reference leaves them as its
        // scratch memory held, found by fuzzing ours)
        if neblock * nstreams != bsize {
            return Err(ErrorKind::Data);
        }
        let spec = self.spec();
        let filtered = spec.has_backward() && !self.is_instrumented();
        scratch.ensure(bsize)?;
        {
            let target: &mut [u8] = if filtered {
                &mut scratch.s1[..bsize]
            } else {
                &mut *out
            };
            for k in 0..nstreams {
                let dst = &mut target[k * neblock..(k + 1) * neblock];
                if rest.len() < 4 {
                    return Err(ErrorKind::ReadBuffer);
                }
                let csize = le_i32(rest, 0);
                rest = &rest[4..];
                if csize == 0 {
                    dst.fill(0);
                } else if csize < 0 {
                    let Some((&token, tail)) = rest.split_first() else {
                        return Err(ErrorKind::ReadBuffer);
                    };
                    rest = tail;
                    if token & 0x1 == 0 || csize < -255 {
                        return Err(ErrorKind::RunLength);
                    }
                    dst.fill((-csize) as u8);
                } else {
                    let csize = csize as usize;
                    if rest.len() < csize {
                        return Err(ErrorKind::ReadBuffer);
                    }
                    let stream = &rest[..csize];
                    rest = &rest[csize..];
                    if csize == neblock {
                        dst.copy_from_slice(stream);
                    } else {
                        decompress_stream(
                            self.header.compformat(),
                            self.header.compcode(),
                            self.header.compcode_meta,
                            self.dict,
                            stream,
                            dst,
                            ctx,
                        )?;
                    }
                }
            }
        }
        if filtered {
            let DScratch { s1, s2, .. } = scratch;
            // an empty slice, never a None: see `pipeline::backward`
            let dref = dref.unwrap_or(&[]);
            pipeline::backward(&spec, j * self.blocksize, s1, s2, out, dref, ctx)?;
        }
        Ok(())
    }
}

impl ChunkView<'_> {
    /// Bytes `lo..hi` of block `j` into `out`, for blocks whose streams can
    /// be decoded only as far as `hi` needs: split into one stream per item
    /// byte, shuffled (or the reference's plain shuffle meta), LZ4 or
    /// BloscLZ without a dictionary. Item `i` then takes byte `i` of every
    /// stream, so each stream is decoded up to item `hi / typesize` and no
    /// further, where the reference decodes the whole block for a getitem.
    /// Returns false, with nothing written, for any other block, and for
    /// ranges reaching the block's end (nothing to save there).
    fn decode_prefix(
        &self,
        j: usize,
        lo: usize,
        hi: usize,
        out: &mut [u8],
        scratch: &mut DScratch,
    ) -> Result<bool> {
        let ts = self.typesize;
        let format = self.header.compformat();
        let bsize = self.bsize(j);
        if self.memcpyed
            || self.special != Special::None
            || self.dict.is_some()
            || self.is_instrumented()
            || self.header.dont_split()
            || (j + 1 == self.nblocks && self.leftover > 0)
            || !(2..=16).contains(&ts)
            || !matches!(format, compformat::LZ4 | compformat::BLOSCLZ)
            || !lo.is_multiple_of(ts)
            || !hi.is_multiple_of(ts)
            || hi >= bsize
            || !bsize.is_multiple_of(ts)
        {
            return Ok(false);
        }
        let mut shuffles = 0;
        for (&f, &m) in self.header.filters.iter().zip(&self.header.filters_meta) {
            match f {
                filter_id::NOFILTER | filter_id::TRUNC_PREC => {}
                filter_id::SHUFFLE if m == 0 || m as usize == ts => shuffles += 1,
                _ => return Ok(false),
            }
        }
        if shuffles != 1 {
            return Ok(false);
        }
        let bstart = le_i32(self.src, self.header_len + 4 * j);
        if bstart <= 0 || bstart as usize >= self.src.len() {
            return Err(ErrorKind::Data);
        }
        let mut rest = &self.src[bstart as usize..];
        let neblock = bsize / ts;
        let (ilo, ihi) = (lo / ts, hi / ts);
        scratch.ensure(bsize)?;
        let streams = &mut scratch.s1[..bsize];
        // streams of one value are not written out, only remembered
        let mut runs: [Option<u8>; 16] = [None; 16];
        for (k, dst) in streams.chunks_exact_mut(neblock).enumerate() {
            if rest.len() < 4 {
                return Err(ErrorKind::ReadBuffer);
            }
            let csize = le_i32(rest, 0);
            rest = &rest[4..];
            if csize == 0 {
                runs[k] = Some(0);
            } else if csize < 0 {
                let Some((&token, tail)) = rest.split_first() else {
                    return Err(ErrorKind::ReadBuffer);
                };
                rest = tail;
                if token & 0x1 == 0 || csize < -255 {
                    return Err(ErrorKind::RunLength);
                }
                runs[k] = Some((-csize) as u8);
            } else {
                let csize = csize as usize;
                if rest.len() < csize {
                    return Err(ErrorKind::ReadBuffer);
                }
                let stream = &rest[..csize];
                rest = &rest[csize..];
                if csize == neblock {
                    dst[ilo..ihi].copy_from_slice(&stream[ilo..ihi]);
                } else if format == compformat::LZ4 {
                    crate::codecs::lz4::decompress_prefix(stream, dst, ihi)?;
                } else {
                    crate::codecs::blosclz::decompress_prefix(stream, dst, ihi)?;
                }
            }
        }
        // the items' bytes of every stream side by side, then the
        // (vectorized) unshuffle of just those items
        let m = ihi - ilo;
        let packed = &mut scratch.s2[..m * ts];
        for (k, (run, to)) in runs[..ts]
            .iter()
            .zip(packed.chunks_exact_mut(m))
            .enumerate()
        {
            match run {
                Some(v) => to.fill(*v),
                None => to.copy_from_slice(&streams[k * neblock + ilo..k * neblock + ihi]),
            }
        }
        crate::filters::shuffle::unshuffle(ts, packed, &mut out[..hi - lo]);
        Ok(true)
    }
}

/// How many streams block `j` of `h`'s chunk is cut into (a short last
/// block, and chunks not split, hold one).
pub(crate) fn block_nstreams(h: &ChunkHeader, j: usize) -> usize {
    let (nblocks, leftover) = h.nblocks();
    if h.dont_split() || (j + 1 == nblocks && leftover > 0) {
        1
    } else {
        h.typesize as usize
    }
}

/// Decode block `j` of a chunk from the bytes of that block alone
/// (`streams`, read from the block's start), given the chunk's header:
/// for readers that fetch one block of a chunk too large to read whole (a
/// frame's offsets index of millions of chunks). Only blocks that decode
/// on their own qualify: a chunk that is special, stored whole, made of
/// VL blocks, uses a dictionary or DELTA (which needs the first block) is
/// refused with `InvalidParam`, and must be decoded whole. Returns the
/// block's size, which `out` must hold.
pub fn decode_block_alone(
    header: &ChunkHeader,
    j: usize,
    streams: &[u8],
    out: &mut [u8],
) -> Result<usize> {
    if header.is_vlblocks()
        || header.is_lazy()
        || header.is_memcpyed()
        || header.special_bits() != 0
        || header.uses_dict()
        || header.blocks_need_the_first()
    {
        return Err(ErrorKind::InvalidParam);
    }
    let (nblocks, leftover) = header.nblocks();
    if j >= nblocks {
        return Err(ErrorKind::InvalidParam);
    }
    let view = ChunkView {
        header: *header,
        src: &[],
        header_len: header.header_len(),
        typesize: header.typesize as usize,
        nbytes: header.nbytes as usize,
        blocksize: header.blocksize as usize,
        nblocks,
        leftover,
        special: Special::None,
        memcpyed: false,
        dict: None,
    };
    let bsize = view.bsize(j);
    let out = out.get_mut(..bsize).ok_or(ErrorKind::WriteBuffer)?;
    let cparams = CParams {
        typesize: header.typesize as i32,
        blocksize: header.blocksize,
        ..CParams::default()
    };
    let ctx = PluginContext {
        cparams: &cparams,
        typesize: header.typesize as i32,
        chunk: None,
        schunk: None,
    };
    let mut scratch = DScratch::default();
    view.decode_streams(j, streams, out, None, &mut scratch, &ctx)?;
    Ok(bsize)
}

/// Whether the `nstreams` streams of a block stored from byte `a` end
/// within `chunk` (the bytes up to where the block's extent ends). Blocks
/// of real chunks lie back to back, each ending where the next begins; a
/// crafted one may run on into another block's bytes, which a read of its
/// own extent alone (a lazy chunk completed for a range, a partial read
/// from disk) would see as zeros where the whole chunk has data.
pub(crate) fn streams_fit(chunk: &[u8], a: usize, nstreams: usize) -> bool {
    let mut p = a;
    for _ in 0..nstreams {
        let Some(c) = p.checked_add(4).and_then(|e| chunk.get(p..e)) else {
            return false;
        };
        let csize = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        p += 4;
        let len = if csize < 0 { 1 } else { csize as usize };
        match p.checked_add(len) {
            Some(e) if e <= chunk.len() => p = e,
            _ => return false,
        }
    }
    true
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn fill_nans(typesize: usize, out: &mut [u8]) -> Result<()> {
    match typesize {
        4 => {
            if !out.len().is_multiple_of(4) {
                return Err(ErrorKind::Data);
            }
            let nan = f32::NAN.to_ne_bytes();
            out.chunks_exact_mut(4)
                .for_each(|c| c.copy_from_slice(&nan));
        }
        8 => {
            if !out.len().is_multiple_of(8) {
                return Err(ErrorKind::Data);
            }
            let nan = f64::NAN.to_ne_bytes();
            out.chunks_exact_mut(8)
                .for_each(|c| c.copy_from_slice(&nan));
        }
        _ => return Err(ErrorKind::Data),
    }
    Ok(())
}

/// Repeat `value` over `out`, which starts `offset` bytes into the data.
fn fill_values(value: &[u8], offset: usize, out: &mut [u8]) -> Result<()> {
    let ts = value.len();
    if ts == 0 {
        return Err(ErrorKind::Data);
    }
    for (i, b) in out.iter_mut().enumerate() {
        *b = value[(offset + i) % ts];
    }
    Ok(())
}

/// A decompression context of the safe core (`blosc2_create_dctx`).
pub struct Decompressor {
    params: DParams,
    pool: Option<Pool>,
    scratch: Vec<DScratch>,
    maskout: Option<Vec<bool>>,
    /// Run on every decoded block; it writes the final bytes.
    pub postfilter: Option<Arc<dyn Postfilter>>,
    /// The chunk's index in its super-chunk, reported to postfilters.
    pub nchunk: i64,
    /// Plugins see these (upstream hands them the context's parameters).
    plugin_cparams: CParams,
    /// The super-chunk this context decompresses for, shown to plugins.
    pub schunk: Option<Arc<SchunkInfo>>,
}

impl Decompressor {
    /// A context for `params` (validated by each call, as upstream does).
    pub fn new(params: DParams) -> Decompressor {
        Decompressor {
            params,
            pool: None,
            scratch: Vec::new(),
            maskout: None,
            postfilter: None,
            nchunk: -1,
            plugin_cparams: CParams::default(),
            schunk: None,
        }
    }

    pub fn params(&self) -> &DParams {
        &self.params
    }

    /// A context with the same settings and hooks but its own scratch and
    /// threads (and no maskout), for a caller that finds this one in use.
    pub fn fork(&self) -> Decompressor {
        Decompressor {
            postfilter: self.postfilter.clone(),
            nchunk: self.nchunk,
            schunk: self.schunk.clone(),
            ..Decompressor::new(self.params.clone())
        }
    }

    pub fn set_nthreads(&mut self, nthreads: i16) -> Result<()> {
        if nthreads <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        self.params.nthreads = nthreads;
        Ok(())
    }

    /// Skip the blocks flagged `true` in the next decompression only.
    pub fn set_maskout(&mut self, mask: &[bool]) {
        self.maskout = Some(mask.to_vec());
    }

    /// Decompress a whole chunk into `dest`; returns the decoded size.
    pub fn decompress(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        self.decompress_read(ChunkHeader::read(src)?, src, dest)
    }

    /// [`Self::decompress`] of a chunk whose header the caller has read
    /// already (with [`ChunkHeader::read`] from `src`).
    pub fn decompress_read(
        &mut self,
        header: ChunkHeader,
        src: &[u8],
        dest: &mut [u8],
    ) -> Result<usize> {
        let mask = self.maskout.take();
        if self.params.nthreads <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        if header.nbytes as usize > dest.len() {
            return Err(ErrorKind::WriteBuffer);
        }
        if header.is_vlblocks() {
            // the blocks come out back to back, as upstream gives them
            let post = self.postfilter.as_deref().map(|f| (f, self.nchunk));
            let nthreads = self.params.nthreads as usize;
            return super::vlblocks::VlChunk::parse(src)?.decode_concat(
                dest,
                mask.as_deref(),
                post,
                nthreads,
            );
        }
        let view = ChunkView::with_header(header, src)?;
        if let Some(m) = &mask {
            if m.len() != view.nblocks {
                return Err(ErrorKind::Data);
            }
        }
        let nbytes = view.nbytes;
        if nbytes == 0 {
            return Ok(0);
        }
        let dest = &mut dest[..nbytes];
        let post = self.postfilter.as_deref().map(|f| PostInfo {
            f,
            nchunk: self.nchunk,
        });
        if (view.special != Special::None || view.memcpyed) && mask.is_none() && post.is_none() {
            return self.fill_parallel(&view, dest).map(|_| nbytes);
        }
        let ctx_cparams = CParams {
            typesize: view.typesize as i32,
            nthreads: self.params.nthreads,
            blocksize: view.blocksize as i32,
            ..self.plugin_cparams.clone()
        };
        let ctx = PluginContext {
            cparams: &ctx_cparams,
            typesize: view.typesize as i32,
            chunk: Some(src),
            schunk: self.schunk.as_deref(),
        };
        let masked = |j: usize| mask.as_ref().is_some_and(|m| m[j]);
        let nthreads = (self.params.nthreads.max(1) as usize).min(view.nblocks);
        if self.scratch.len() < nthreads.max(1) {
            let from = self.scratch.len();
            self.scratch.resize_with(nthreads.max(1), DScratch::default);
            for (tid, sc) in self.scratch.iter_mut().enumerate().skip(from) {
                sc.tid = tid;
            }
        }
        let has_delta = view.spec().has_delta();
        let bs = view.blocksize;
        // DELTA decodes every block against the first one, so that one goes
        // first; with a postfilter the reference is the block before
        // postfiltering. Without DELTA, block 0 is just one more parallel task.
        let skip = usize::from(has_delta);
        let (first, rest) = dest.split_at_mut(if has_delta { bs.min(nbytes) } else { 0 });
        let mut dref_owned = None;
        if has_delta && post.is_some() {
            let mut b0 = crate::spare::zeroed(first.len())?;
            view.decode_block(0, &mut b0, None, &mut self.scratch[0], &ctx, None)?;
            dref_owned = Some(b0);
        }
        if has_delta {
            view.decode_block(0, first, None, &mut self.scratch[0], &ctx, post)?;
        }
        let dref: Option<&[u8]> = match (&dref_owned, has_delta) {
            (Some(b0), _) => Some(b0),
            (None, true) => Some(first),
            (None, false) => None,
        };
        if nthreads <= 1 || view.nblocks <= 2 {
            for (i, out) in rest.chunks_mut(bs).enumerate() {
                let j = i + skip;
                if !masked(j) {
                    view.decode_block(j, out, dref, &mut self.scratch[0], &ctx, post)?;
                }
            }
        } else {
            let pool = Pool::ensure(&mut self.pool, nthreads)?;
            let outs: Vec<std::sync::Mutex<&mut [u8]>> =
                rest.chunks_mut(bs).map(std::sync::Mutex::new).collect();
            pool.run(outs.len(), &mut self.scratch[..nthreads], |i, scratch| {
                let j = i + skip;
                if masked(j) {
                    return Ok(());
                }
                let mut out = outs[i].lock().unwrap_or_else(|p| p.into_inner());
                view.decode_block(j, &mut out, dref, scratch, &ctx, post)
            })?;
        }
        Ok(nbytes)
    }

    /// Fill `dest` with a chunk stored whole (memcpyed) or made of one
    /// value, in pieces spread over the context's threads when it is large
    /// enough for that to pay (as the reference copies such chunks block by
    /// block on its threads).
    fn fill_parallel(&mut self, view: &ChunkView, dest: &mut [u8]) -> Result<()> {
        /// Below this much per thread, waking threads costs more than the copy.
        const MIN_PIECE: usize = 256 << 10;
        let nthreads = (self.params.nthreads.max(1) as usize).min(dest.len() / MIN_PIECE);
        if nthreads <= 1 || view.special == Special::Uninit {
            return view.fill_direct(0, dest);
        }
        // pieces start on item boundaries (value and NaN fills need them)
        let unit = view.typesize.max(1) * 64;
        let piece = dest.len().div_ceil(nthreads * 2).div_ceil(unit) * unit;
        if self.scratch.len() < nthreads {
            let from = self.scratch.len();
            self.scratch.resize_with(nthreads, DScratch::default);
            for (tid, sc) in self.scratch.iter_mut().enumerate().skip(from) {
                sc.tid = tid;
            }
        }
        let pool = Pool::ensure(&mut self.pool, nthreads)?;
        let outs: Vec<std::sync::Mutex<&mut [u8]>> =
            dest.chunks_mut(piece).map(std::sync::Mutex::new).collect();
        pool.run(outs.len(), &mut self.scratch[..nthreads], |i, _| {
            let mut out = outs[i].lock().unwrap_or_else(|p| p.into_inner());
            view.fill_direct(i * piece, &mut out)
        })?;
        Ok(())
    }

    /// Decode `nitems` items of the chunk's stored typesize from item `start`
    /// into `dest`, touching only the blocks that hold them.
    pub fn getitem(
        &mut self,
        src: &[u8],
        start: i32,
        nitems: i32,
        dest: &mut [u8],
    ) -> Result<usize> {
        let header = ChunkHeader::read(src)?;
        if header.is_vlblocks() {
            return Err(ErrorKind::InvalidParam);
        }
        let ts = header.typesize as i64;
        self.getitem_bytes_inner(src, header, start as i64 * ts, nitems as i64, ts, dest)
    }

    /// Like `getitem` with byte offsets (multiples of the stored typesize).
    pub fn getitem_bytes(
        &mut self,
        src: &[u8],
        start: i32,
        nbytes: i32,
        dest: &mut [u8],
    ) -> Result<usize> {
        let header = ChunkHeader::read(src)?;
        if header.is_vlblocks() {
            return Err(ErrorKind::InvalidParam);
        }
        if start < 0 || nbytes < 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let ts = header.typesize as i32;
        if start % ts != 0 || nbytes % ts != 0 {
            return Err(ErrorKind::InvalidParam);
        }
        self.getitem_bytes_inner(
            src,
            header,
            start as i64,
            (nbytes / ts) as i64,
            ts as i64,
            dest,
        )
    }

    fn getitem_bytes_inner(
        &mut self,
        src: &[u8],
        header: ChunkHeader,
        start_bytes: i64,
        nitems: i64,
        ts: i64,
        dest: &mut [u8],
    ) -> Result<usize> {
        if nitems == 0 {
            return Ok(0);
        }
        if nitems < 0 {
            return Err(ErrorKind::InvalidParam);
        }
        let len = nitems * ts;
        if len > i32::MAX as i64 || len > dest.len() as i64 {
            return Err(ErrorKind::WriteBuffer);
        }
        let nbytes = header.nbytes as i64;
        if start_bytes < 0 || start_bytes > nbytes {
            return Err(ErrorKind::InvalidParam);
        }
        let stop = start_bytes + len;
        if stop > nbytes {
            return Err(ErrorKind::InvalidParam);
        }
        // C-Blosc2's getitem names a reserved special-value code as a
        // special-chunk error (its decompress calls it bad data).
        if Special::from_bits(header.special_bits()).is_none() {
            return Err(crate::traced!(
                ErrorKind::SchunkSpecial,
                "Chunk header has special-value code {} (offset 31, bits 4-6), which the format reserves",
                header.special_bits()
            ));
        }
        let view = ChunkView::parse(src)?;
        let (start, stop) = (start_bytes as usize, stop as usize);
        let dest = &mut dest[..len as usize];
        let post = self.postfilter.as_deref().map(|f| PostInfo {
            f,
            nchunk: self.nchunk,
        });
        if (view.special != Special::None || view.memcpyed) && post.is_none() {
            view.fill_direct(start, dest)?;
            return Ok(dest.len());
        }
        let ctx_cparams = CParams {
            typesize: view.typesize as i32,
            nthreads: self.params.nthreads,
            blocksize: view.blocksize as i32,
            ..self.plugin_cparams.clone()
        };
        let ctx = PluginContext {
            cparams: &ctx_cparams,
            typesize: view.typesize as i32,
            chunk: Some(src),
            schunk: self.schunk.as_deref(),
        };
        if self.scratch.is_empty() {
            self.scratch.push(DScratch::default());
        }
        let scratch = &mut self.scratch[0];
        let bs = view.blocksize;
        let mut block = std::mem::take(&mut scratch.block);
        super::grow_scratch(&mut block, bs)?;
        // DELTA needs the decoded first block for every other block.
        let needs_ref = view.spec().has_delta() && stop > bs;
        let mut dref_buf = Vec::new();
        if needs_ref {
            super::grow_scratch(&mut dref_buf, view.bsize(0))?;
            let b0 = view.bsize(0);
            view.decode_block(0, &mut dref_buf[..b0], None, scratch, &ctx, None)?;
            dref_buf.truncate(b0);
        }
        let first = start / bs;
        let last = (stop - 1) / bs;
        let mut written = 0;
        for j in first..=last {
            let bsize = view.bsize(j);
            let b0 = j * bs;
            let lo = start.max(b0) - b0;
            let hi = stop.min(b0 + bsize) - b0;
            if j == 0 && needs_ref && post.is_none() {
                dest[written..written + hi - lo].copy_from_slice(&dref_buf[lo..hi]);
            } else if post.is_some()
                || !view.decode_prefix(j, lo, hi, &mut dest[written..], scratch)?
            {
                let dref = needs_ref.then_some(&dref_buf[..]);
                if lo == 0 && hi == bsize && post.is_none() {
                    // a whole block (b2nd reads runs of them): decoded in
                    // place, without the copy through `block`
                    let to = &mut dest[written..written + bsize];
                    view.decode_block(j, to, dref, scratch, &ctx, None)?;
                } else {
                    view.decode_block(j, &mut block[..bsize], dref, scratch, &ctx, post)?;
                    dest[written..written + hi - lo].copy_from_slice(&block[lo..hi]);
                }
            }
            written += hi - lo;
        }
        scratch.block = block;
        Ok(written)
    }
}
