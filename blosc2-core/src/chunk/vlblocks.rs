//! Chunks of variable-length blocks (chunk format version 6; spec:
//! chunk-format.rst, `blosc2_flags2` bit 0).
//!
//! Each caller buffer becomes one block of its own size, stored as a single
//! stream `[i32 uncompressed size][codec output]`. The header's `blocksize`
//! field holds the number of blocks, and a block's compressed length is only
//! known from the distance to the next block start (or to `cbytes`), so the
//! starts must increase strictly. Blocks are never split, runs are never
//! encoded and the chunk is never stored memcpyed: those encodings would make
//! the size word ambiguous.
//!
//! Everything read from a chunk is validated before any block is decoded, with
//! the same checks (and error codes) as the reference, so a malformed chunk
//! fails as a whole instead of half-decoding.

use super::codec::{compformat_of, compress_stream, compversion_of, decompress_stream};
use super::compress::{Compressor, MAX_DICT_SIZE, MIN_USEFUL_DICT};
use super::header::{
    blosc2_flags, blosc2_flags2, flags, flags_from_filters, version, ChunkHeader,
    EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE,
};
use super::params::{codec, CParams};
use super::pipeline::{self, PipelineSpec, PreStep};
use crate::codecs;
use crate::error::{ErrorKind, Result};
use crate::registry::{PluginContext, Postfilter, Prefilter};

/// Largest typesize a chunk can be compressed with (upstream's BLOSC2_MAXTYPESIZE).
const MAX_TYPESIZE: i32 = super::header::MAX_BLOCKSIZE;
/// Upstream refuses destinations smaller than its worst-case overhead.
const MIN_DEST: usize = EXTENDED_HEADER_LENGTH;
/// A block's uncompressed-size word.
const SIZE_WORD: usize = 4;

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn put_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Number of blocks of a VL-block chunk, from its header alone.
/// `InvalidParam` when the chunk has regular blocks.
pub fn nblocks(src: &[u8]) -> Result<usize> {
    let h = ChunkHeader::read(src)?;
    if !h.is_vlblocks() {
        return Err(ErrorKind::InvalidParam);
    }
    // read() guarantees 0 < blocksize <= MAX_BLOCKSIZE
    Ok(h.blocksize as usize)
}

/// Where one block lives in the chunk.
#[derive(Clone, Copy, Debug)]
struct Span {
    /// Offset of the block's size word in the chunk.
    start: usize,
    /// End of its compressed bytes (the next start, or `cbytes`).
    end: usize,
    nbytes: usize,
}

/// A validated VL-block chunk, ready for decoding any of its blocks.
pub struct VlChunk<'a> {
    header: ChunkHeader,
    /// The chunk, cut at `cbytes`.
    src: &'a [u8],
    dict: Option<&'a [u8]>,
    spans: Vec<Span>,
    /// The largest block (upstream hands postfilters offsets in its units).
    max_nbytes: usize,
}

impl<'a> VlChunk<'a> {
    /// Parse and validate `src` (which may be longer than the chunk).
    pub fn parse(src: &'a [u8]) -> Result<VlChunk<'a>> {
        let header = ChunkHeader::read(src)?;
        if !header.is_vlblocks() {
            return Err(ErrorKind::InvalidParam);
        }
        if header.is_lazy() {
            // the blocks of a lazy chunk are in the frame it came from
            return Err(ErrorKind::InvalidParam);
        }
        let cbytes = header.cbytes as usize;
        if cbytes > src.len() {
            return Err(ErrorKind::InvalidHeader);
        }
        let nblocks = header.blocksize as usize;
        let bstarts_end = nblocks
            .checked_mul(4)
            .and_then(|n| n.checked_add(EXTENDED_HEADER_LENGTH))
            .filter(|&n| n <= i32::MAX as usize)
            .ok_or(ErrorKind::InvalidHeader)?;
        // Upstream measures the block starts against the buffer it was given,
        // not against cbytes; a start past cbytes is caught below.
        if src.len() < bstarts_end {
            return Err(ErrorKind::ReadBuffer);
        }
        let mut dict = None;
        if header.blosc2_flags & blosc2_flags::USEDICT != 0 {
            let rest = src.len() - bstarts_end;
            if rest < 4 {
                return Err(ErrorKind::ReadBuffer);
            }
            let dsize = le_i32(src, bstarts_end);
            if dsize <= 0 || dsize as usize > MAX_DICT_SIZE {
                return Err(ErrorKind::CodecDict);
            }
            if rest - 4 < dsize as usize {
                return Err(ErrorKind::ReadBuffer);
            }
            let at = bstarts_end + 4;
            dict = Some(&src[at..at + dsize as usize]);
        }
        let nbytes = header.nbytes as usize;
        let mut spans = Vec::with_capacity(nblocks);
        let mut total = 0usize;
        let mut prev = 0usize;
        let mut max_nbytes = 0;
        for i in 0..nblocks {
            let start = le_i32(src, EXTENDED_HEADER_LENGTH + 4 * i);
            let next = if i + 1 < nblocks {
                le_i32(src, EXTENDED_HEADER_LENGTH + 4 * (i + 1))
            } else {
                header.cbytes
            };
            // Negative starts fail the first test once widened to i64.
            let (start, next) = (start as i64, next as i64);
            if start < bstarts_end as i64
                || start <= prev as i64
                || next <= start
                || next > cbytes as i64
                || start > src.len() as i64 - SIZE_WORD as i64
            {
                return Err(ErrorKind::InvalidHeader);
            }
            let (start, next) = (start as usize, next as usize);
            let bn = le_i32(src, start);
            if bn <= 0 {
                return Err(ErrorKind::InvalidHeader);
            }
            let bn = bn as usize;
            total = total.checked_add(bn).ok_or(ErrorKind::InvalidHeader)?;
            if total > nbytes {
                return Err(ErrorKind::InvalidHeader);
            }
            max_nbytes = max_nbytes.max(bn);
            spans.push(Span {
                start,
                end: next,
                nbytes: bn,
            });
            prev = start;
        }
        if total != nbytes {
            return Err(ErrorKind::InvalidHeader);
        }
        Ok(VlChunk {
            header,
            src: &src[..cbytes],
            dict,
            spans,
            max_nbytes,
        })
    }

    pub fn header(&self) -> &ChunkHeader {
        &self.header
    }

    pub fn nblocks(&self) -> usize {
        self.spans.len()
    }

    /// Sum of the block sizes (the header's `nbytes`).
    pub fn nbytes(&self) -> usize {
        self.header.nbytes as usize
    }

    /// Uncompressed size of block `j`; `InvalidParam` when out of range.
    pub fn block_nbytes(&self, j: usize) -> Result<usize> {
        self.spans
            .get(j)
            .map(|s| s.nbytes)
            .ok_or(ErrorKind::InvalidParam)
    }

    /// Uncompressed sizes of all blocks, in order.
    pub fn block_sizes(&self) -> impl Iterator<Item = usize> + '_ {
        self.spans.iter().map(|s| s.nbytes)
    }

    fn spec(&self) -> PipelineSpec<'_> {
        PipelineSpec {
            filters: &self.header.filters,
            filters_meta: &self.header.filters_meta,
            typesize: self.header.typesize as usize,
            version: self.header.version,
        }
    }

    /// Decode block `j` into `out`, which must be exactly its size. With a
    /// postfilter, `out` receives the postfilter's output.
    pub fn decode_block(
        &self,
        j: usize,
        out: &mut [u8],
        scratch: &mut VlScratch,
        post: Option<(&dyn Postfilter, i64)>,
    ) -> Result<()> {
        let span = *self.spans.get(j).ok_or(ErrorKind::InvalidParam)?;
        if out.len() != span.nbytes {
            return Err(ErrorKind::WriteBuffer);
        }
        let Some((f, nchunk)) = post else {
            return self.decode_inner(span, out, scratch);
        };
        let mut tmp = std::mem::take(&mut scratch.post);
        super::grow_scratch(&mut tmp, span.nbytes)?;
        let tmp_block = &mut tmp[..span.nbytes];
        let r = self.decode_inner(span, tmp_block, scratch).and_then(|()| {
            let ts = self.header.typesize as usize;
            super::grow_scratch(&mut scratch.ttmp, 4 * self.max_nbytes.max(ts))?;
            // upstream reports offsets in units of its largest block
            let offset = j
                .checked_mul(self.max_nbytes)
                .ok_or(ErrorKind::Postfilter)?;
            pipeline::run_postfilter(
                f,
                tmp_block,
                out,
                ts as i32,
                offset,
                j,
                nchunk,
                scratch.tid,
                &mut scratch.ttmp,
            )
        });
        scratch.post = tmp;
        r
    }

    fn decode_inner(&self, span: Span, out: &mut [u8], scratch: &mut VlScratch) -> Result<()> {
        let bsize = span.nbytes;
        if span.end - span.start <= SIZE_WORD {
            return Err(ErrorKind::Data);
        }
        if le_i32(self.src, span.start) as i64 != bsize as i64 {
            return Err(ErrorKind::Data);
        }
        let stream = &self.src[span.start + SIZE_WORD..span.end];
        let spec = self.spec();
        let instrumented = self.header.blosc2_flags & blosc2_flags::INSTR_CODEC != 0;
        let filtered = spec.has_backward() && !instrumented;
        let cparams = CParams {
            typesize: self.header.typesize as i32,
            ..CParams::default()
        };
        let ctx = PluginContext {
            cparams: &cparams,
            typesize: self.header.typesize as i32,
            chunk: Some(self.src),
            schunk: None,
        };
        if filtered {
            super::grow_scratch(&mut scratch.s1, bsize)?;
            super::grow_scratch(&mut scratch.s2, bsize)?;
        }
        {
            let target: &mut [u8] = if filtered {
                &mut scratch.s1[..bsize]
            } else {
                &mut *out
            };
            // a stream as long as the block is the block stored raw
            if stream.len() == bsize {
                target.copy_from_slice(stream);
            } else {
                decompress_stream(
                    self.header.compformat(),
                    self.header.compcode(),
                    self.header.compcode_meta,
                    self.dict,
                    stream,
                    target,
                    &ctx,
                )?;
            }
        }
        if filtered {
            // Every block was filtered on its own, so it is its own DELTA
            // reference (offset 0), whatever its place in the chunk.
            let VlScratch { s1, s2, .. } = scratch;
            pipeline::backward(&spec, 0, s1, s2, out, &[], &ctx)?;
        }
        Ok(())
    }

    /// Decode every block into `dest`, back to back (what decompressing the
    /// chunk as a whole gives), on up to `nthreads` threads. Blocks flagged
    /// in `mask` are left untouched. Returns the number of bytes covered (the
    /// chunk's `nbytes`).
    pub fn decode_concat(
        &self,
        dest: &mut [u8],
        mask: Option<&[bool]>,
        post: Option<(&dyn Postfilter, i64)>,
        nthreads: usize,
    ) -> Result<usize> {
        let nbytes = self.nbytes();
        if dest.len() < nbytes {
            return Err(ErrorKind::WriteBuffer);
        }
        if let Some(m) = mask {
            if m.len() != self.nblocks() {
                return Err(ErrorKind::Data);
            }
        }
        // the blocks tile dest in order, so it splits into their slices
        let mut rest = &mut dest[..nbytes];
        let mut outs = Vec::with_capacity(self.nblocks());
        for (j, span) in self.spans.iter().enumerate() {
            let (out, tail) = std::mem::take(&mut rest).split_at_mut(span.nbytes);
            rest = tail;
            if !mask.is_some_and(|m| m[j]) {
                outs.push((j, out));
            }
        }
        self.decode_many(outs, nthreads, post)?;
        Ok(nbytes)
    }

    /// Decode the listed blocks, each into its own buffer (exactly its size),
    /// on up to `nthreads` threads. When several blocks fail, the error of
    /// the first one is reported, as a serial pass would.
    pub fn decode_many(
        &self,
        outs: Vec<(usize, &mut [u8])>,
        nthreads: usize,
        post: Option<(&dyn Postfilter, i64)>,
    ) -> Result<()> {
        let total: usize = outs.iter().map(|(_, o)| o.len()).sum();
        let n = nthreads.max(1).min(outs.len());
        if n <= 1 || total < PAR_MIN_BYTES {
            let mut scratch = VlScratch::default();
            for (j, out) in outs {
                self.decode_block(j, out, &mut scratch, post)?;
            }
            return Ok(());
        }
        let mut lanes: Vec<Vec<(usize, &mut [u8])>> = (0..n).map(|_| Vec::new()).collect();
        for (i, o) in outs.into_iter().enumerate() {
            lanes[i % n].push(o);
        }
        let first = std::thread::scope(|s| {
            let handles: Vec<_> = lanes
                .into_iter()
                .enumerate()
                .map(|(tid, lane)| {
                    s.spawn(move || {
                        let mut scratch = VlScratch {
                            tid,
                            ..VlScratch::default()
                        };
                        for (j, out) in lane {
                            if let Err(e) = self.decode_block(j, out, &mut scratch, post) {
                                return Some((j, e));
                            }
                        }
                        None
                    })
                })
                .collect();
            handles
                .into_iter()
                .filter_map(|h| h.join().unwrap_or(Some((0, ErrorKind::Failure))))
                .min_by_key(|&(j, _)| j)
        });
        match first {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Decode every block into its own buffer.
    pub fn decode_all(&self) -> Result<Vec<Vec<u8>>> {
        let mut scratch = VlScratch::default();
        let mut blocks = Vec::with_capacity(self.nblocks());
        for (j, span) in self.spans.iter().enumerate() {
            let mut b = crate::spare::zeroed(span.nbytes)?;
            self.decode_block(j, &mut b, &mut scratch, None)?;
            blocks.push(b);
        }
        Ok(blocks)
    }
}

/// Reusable work buffers for decoding blocks.
#[derive(Default)]
pub struct VlScratch {
    s1: Vec<u8>,
    s2: Vec<u8>,
    post: Vec<u8>,
    ttmp: Vec<u8>,
    /// The worker a postfilter is told it runs on.
    tid: usize,
}

/// Decode all blocks of a VL-block chunk, each into its own buffer.
pub fn decompress_blocks(src: &[u8]) -> Result<Vec<Vec<u8>>> {
    VlChunk::parse(src)?.decode_all()
}

/// Decode block `j` of a VL-block chunk.
pub fn decompress_block(src: &[u8], j: usize) -> Result<Vec<u8>> {
    let vl = VlChunk::parse(src)?;
    let mut out = crate::spare::zeroed(vl.block_nbytes(j)?)?;
    vl.decode_block(j, &mut out, &mut VlScratch::default(), None)?;
    Ok(out)
}

/// What the compressor settled on for one call.
struct Plan<'p> {
    params: &'p CParams,
    typesize: usize,
    spec_version: u8,
    max_bsize: usize,
}

impl Compressor {
    /// Compress `srcs` into one VL-block chunk in `dest`, one block per
    /// buffer, with this context's codec, filters, level, typesize and
    /// dictionary setting. Returns the chunk size, or 0 when it does not fit
    /// in `dest` (the chunk cannot fall back to being stored memcpyed).
    pub fn vlcompress(&mut self, srcs: &[&[u8]], dest: &mut [u8]) -> Result<usize> {
        self.consult_tuner()?;
        let pre = self.prefilter.clone();
        let nchunk = self.nchunk;
        vlcompress(self.params(), pre.as_deref(), nchunk, srcs, dest)
    }
}

/// Compress `srcs` (one block each, none empty) into a VL-block chunk; see
/// [`Compressor::vlcompress`]. `pre` runs on each block as upstream's
/// prefilter does (every block is block 0 at offset 0 of its own buffer).
pub fn vlcompress(
    params: &CParams,
    pre: Option<&dyn Prefilter>,
    nchunk: i64,
    srcs: &[&[u8]],
    dest: &mut [u8],
) -> Result<usize> {
    if srcs.is_empty() || srcs.len() > i32::MAX as usize {
        return Err(ErrorKind::InvalidParam);
    }
    let mut total = 0usize;
    let mut max_bsize = 0;
    for s in srcs {
        if s.is_empty() {
            return Err(ErrorKind::InvalidParam);
        }
        total = total.saturating_add(s.len());
        if total > MAX_BUFFERSIZE as usize {
            return Err(ErrorKind::MaxBufsizeExceeded);
        }
        max_bsize = max_bsize.max(s.len());
    }
    if dest.len() < MIN_DEST {
        return Err(ErrorKind::MaxBufsizeExceeded);
    }
    if params.clevel > 9 {
        return Err(ErrorKind::CodecParam);
    }
    if params.typesize <= 0 || params.typesize > MAX_TYPESIZE {
        return Err(ErrorKind::InvalidParam);
    }
    if params.nthreads <= 0 {
        return Err(ErrorKind::InvalidParam);
    }
    if params.instr_codec {
        // instrumentation replaces the data by timing records, which the
        // size words of a VL chunk cannot describe
        return Err(ErrorKind::InvalidParam);
    }
    pipeline::check_filters(&params.filters)?;
    // Huge items are compressed as a byte stream.
    let typesize = if params.typesize > 255 {
        1
    } else {
        params.typesize as usize
    };
    let nblocks = srcs.len();
    let use_dict = params.use_dict && params.clevel > 0;
    let hflags = flags::DOSHUFFLE
        | flags::DOBITSHUFFLE
        | flags_from_filters(&params.filters)
        | flags::DONT_SPLIT
        | (compformat_of(params.compcode) << 5);
    let mut header = ChunkHeader {
        version: version::VL_BLOCKS,
        versionlz: compversion_of(params.compcode),
        flags: hflags,
        typesize: typesize as u8,
        nbytes: total as i32,
        blocksize: nblocks as i32,
        cbytes: 0,
        filters: params.filters,
        udcompcode: params.compcode,
        compcode_meta: params.compcode_meta,
        filters_meta: params.filters_meta,
        blosc2_flags2: blosc2_flags2::VL_BLOCKS,
        blosc2_flags: if use_dict { blosc2_flags::USEDICT } else { 0 },
    };
    let bstarts_end = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    let plan = Plan {
        params,
        typesize,
        spec_version: version::VL_BLOCKS,
        max_bsize,
    };
    let mut work = Work::new(&plan, pre, nchunk);

    let mut dict: Option<Vec<u8>> = None;
    if use_dict {
        // The reference stages the filtered blocks in dest before training.
        if EXTENDED_HEADER_LENGTH + total > dest.len() {
            return Ok(0);
        }
        dict = build_dict(&plan, &mut work, srcs, total)?;
        if dict.is_none() {
            header.blosc2_flags &= !blosc2_flags::USEDICT;
        }
    }
    if bstarts_end > dest.len() {
        return Ok(0);
    }
    let mut pos = bstarts_end;
    if let Some(d) = &dict {
        let end = pos + 4 + d.len();
        if end > dest.len() {
            return Ok(0);
        }
        put_i32(dest, pos, d.len() as i32);
        dest[pos + 4..end].copy_from_slice(d);
        pos = end;
    }
    let dict = dict.as_deref();
    // With room for every block stored raw, no block is ever squeezed, so
    // compressing them apart gives the same bytes as the serial pass.
    let worst = srcs
        .iter()
        .try_fold(pos, |acc, s| acc.checked_add(SIZE_WORD + s.len()));
    let nthreads = (params.nthreads.max(1) as usize).min(nblocks);
    if nthreads > 1 && total >= PAR_MIN_BYTES && worst.is_some_and(|w| w <= dest.len()) {
        pos = compress_parallel(&plan, pre, nchunk, srcs, dict, nthreads, dest, pos)?;
    } else {
        for (j, src) in srcs.iter().enumerate() {
            let bsize = src.len();
            put_i32(dest, EXTENDED_HEADER_LENGTH + 4 * j, pos as i32);
            // the reference reserves the size word before checking any room
            let used = pos + SIZE_WORD;
            if used >= dest.len() {
                return Ok(0);
            }
            let maxout = bsize.min(dest.len() - used);
            let Some(cbytes) = encode_block(&mut work, src, dict, &mut dest[used..used + maxout])?
            else {
                return Ok(0);
            };
            put_i32(dest, pos, bsize as i32);
            pos = used + cbytes;
        }
    }
    header.cbytes = pos as i32;
    header.write(&mut dest[..EXTENDED_HEADER_LENGTH]);
    Ok(pos)
}

/// Below this much data, starting threads costs more than it saves.
const PAR_MIN_BYTES: usize = 256 << 10;

/// Filter and compress one block into `out` (at most the block's size: the
/// room the reference lends the codec). Returns the stored length, or None
/// when the block does not fit even raw.
fn encode_block(
    work: &mut Work,
    src: &[u8],
    dict: Option<&[u8]>,
    out: &mut [u8],
) -> Result<Option<usize>> {
    let bsize = src.len();
    let p = work.plan.params;
    let ctx = work.ctx();
    let filtered = work.forward(src)?;
    // only the dictionary codecs use `dict`; the others ignore it
    let mut cbytes = compress_stream(
        p.compcode,
        p.clevel,
        p.compcode_meta,
        dict,
        filtered,
        out,
        &ctx,
    )?;
    if cbytes == 0 {
        cbytes = bsize;
    }
    if cbytes == bsize {
        // incompressible: stored raw, recognised by its length
        if out.len() < bsize {
            return Ok(None);
        }
        out[..bsize].copy_from_slice(filtered);
    }
    Ok(Some(cbytes))
}

/// Compress the blocks on `nthreads` threads, each into its own staging
/// area, then lay them out in block order after `pos`. `dest` must have room
/// for every block stored raw. Returns the end of the chunk.
#[allow(clippy::too_many_arguments)]
fn compress_parallel(
    plan: &Plan,
    pre: Option<&dyn Prefilter>,
    nchunk: i64,
    srcs: &[&[u8]],
    dict: Option<&[u8]>,
    nthreads: usize,
    dest: &mut [u8],
    mut pos: usize,
) -> Result<usize> {
    type Lane = Result<(Vec<u8>, Vec<(usize, usize, usize)>)>;
    let lanes: Vec<Lane> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..nthreads)
            .map(|t| {
                s.spawn(move || -> Lane {
                    let mut work = Work::new(plan, pre, nchunk);
                    let mut staging = Vec::new();
                    // (block, where in staging, length)
                    let mut placed = Vec::new();
                    for j in (t..srcs.len()).step_by(nthreads) {
                        let at = staging.len();
                        staging.resize(at + srcs[j].len(), 0);
                        let n = encode_block(&mut work, srcs[j], dict, &mut staging[at..])?
                            .ok_or(ErrorKind::Failure)?;
                        staging.truncate(at + n);
                        placed.push((j, at, n));
                    }
                    Ok((staging, placed))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(ErrorKind::Failure)))
            .collect()
    });
    let mut lanes_ok = Vec::with_capacity(lanes.len());
    for l in lanes {
        lanes_ok.push(l?);
    }
    for (j, src) in srcs.iter().enumerate() {
        let (staging, placed) = &lanes_ok[j % nthreads];
        let (k, at, n) = placed[j / nthreads];
        debug_assert_eq!(k, j);
        put_i32(dest, EXTENDED_HEADER_LENGTH + 4 * j, pos as i32);
        put_i32(dest, pos, src.len() as i32);
        let used = pos + SIZE_WORD;
        dest[used..used + n].copy_from_slice(&staging[at..at + n]);
        pos = used + n;
    }
    Ok(pos)
}

/// Per-call buffers for filtering blocks.
struct Work<'p> {
    plan: &'p Plan<'p>,
    pre: Option<&'p dyn Prefilter>,
    nchunk: i64,
    s1: Vec<u8>,
    s2: Vec<u8>,
    ttmp: Vec<u8>,
    /// Which buffer the last `forward` left its result in.
    last: Option<bool>,
}

impl<'p> Work<'p> {
    fn new(plan: &'p Plan<'p>, pre: Option<&'p dyn Prefilter>, nchunk: i64) -> Work<'p> {
        let mut size = plan.max_bsize;
        if let Some(f) = pre {
            size = size.max(pipeline::prefilter_output_size(
                f,
                plan.max_bsize,
                plan.typesize,
            ));
        }
        let ttmp = if pre.is_some() {
            vec![0u8; 4 * size + 64]
        } else {
            Vec::new()
        };
        Work {
            plan,
            pre,
            nchunk,
            s1: vec![0u8; size],
            s2: vec![0u8; size],
            ttmp,
            last: None,
        }
    }

    fn ctx(&self) -> PluginContext<'p> {
        PluginContext {
            cparams: self.plan.params,
            typesize: self.plan.typesize as i32,
            chunk: None,
            schunk: None,
        }
    }

    /// Run the prefilter and filters over one block; the result borrows
    /// either the block or a work buffer.
    fn forward<'s>(&'s mut self, block: &'s [u8]) -> Result<&'s [u8]> {
        let p = self.plan.params;
        let spec = PipelineSpec {
            filters: &p.filters,
            filters_meta: &p.filters_meta,
            typesize: self.plan.typesize,
            version: self.plan.spec_version,
        };
        let ctx = self.ctx();
        let step = self.pre.map(|f| PreStep {
            f,
            blocksize: self.plan.max_bsize,
            nchunk: self.nchunk,
            tid: 0,
            ttmp: &mut self.ttmp,
        });
        let bsize = block.len();
        self.last = pipeline::forward(
            &spec,
            block,
            0,
            bsize,
            &mut self.s1,
            &mut self.s2,
            &ctx,
            step,
        )?;
        Ok(match self.last {
            None => block,
            Some(false) => &self.s1[..bsize],
            Some(true) => &self.s2[..bsize],
        })
    }
}

/// The reference's dictionary recipe for VL chunks: the filtered blocks are
/// the samples; LZ4/LZ4HC use their head directly, every other codec gets a
/// zstd-trained dictionary (which only zstd reads). None when the data is too
/// small for one, and compression then goes without.
fn build_dict(
    plan: &Plan,
    work: &mut Work,
    srcs: &[&[u8]],
    total: usize,
) -> Result<Option<Vec<u8>>> {
    let nblocks = srcs.len();
    let dict_maxsize = MAX_DICT_SIZE.min(total / 20);
    let sample_size = total / nblocks / 16;
    if dict_maxsize < MIN_USEFUL_DICT || nblocks < 8 || sample_size == 0 {
        return Ok(None);
    }
    let mut samples = Vec::with_capacity(total);
    for s in srcs {
        samples.extend_from_slice(work.forward(s)?);
    }
    let compcode = plan.params.compcode;
    if compcode == codec::LZ4 || compcode == codec::LZ4HC {
        let n = dict_maxsize.min(samples.len());
        let mut dict = samples[..n].to_vec();
        // The reference writes the dictionary size into its staging area
        // before copying the samples out of it, so its dictionaries carry
        // those 4 bytes at offset 4*nblocks; doing the same keeps chunks
        // byte-identical.
        let at = 4 * nblocks;
        for (i, b) in (n as i32).to_le_bytes().into_iter().enumerate() {
            if let Some(slot) = dict.get_mut(at + i) {
                *slot = b;
            }
        }
        return Ok(Some(dict));
    }
    let sizes: Vec<usize> = srcs.iter().map(|s| s.len()).collect();
    match codecs::train_dict(&samples, &sizes, dict_maxsize) {
        Ok(d) if !d.is_empty() => Ok(Some(d)),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests;
