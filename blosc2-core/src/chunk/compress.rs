//! Chunk compression (spec: chunk-format.rst, "Blocks"): header, block starts,
//! optional dictionary, then per-block data streams.
//!
//! Blocks are compressed independently (in parallel when the context has
//! threads) and laid out in block order, so the output never depends on the
//! number of threads.

use super::blocksize::{compute_blocksize, split_block, BlocksizeInput};
use super::codec::{compformat_of, compress_stream, compversion_of};
use super::header::{
    blosc2_flags, flags, flags_from_filters, version, ChunkHeader, Special, EXTENDED_HEADER_LENGTH,
    MAX_BLOCKSIZE, MAX_BUFFERSIZE, MIN_BUFFERSIZE, MIN_HEADER_LENGTH,
};
use super::params::{codec, CParams};
use super::pipeline::{self, PipelineSpec, PreStep};
use crate::codecs;
use crate::error::{ErrorKind, Result};
use crate::pool::Pool;
use crate::registry::{PluginContext, Prefilter, SchunkInfo, Tuner};
use std::sync::{Arc, Mutex};

/// Largest dictionary stored in a chunk.
pub const MAX_DICT_SIZE: usize = 32 * 1024;
/// Below this a dictionary is not worth it and compression goes without.
pub const MIN_USEFUL_DICT: usize = 256;

/// Per-thread scratch space for one block.
#[derive(Default)]
pub(crate) struct Scratch {
    pub s1: Vec<u8>,
    pub s2: Vec<u8>,
    pub out: Vec<u8>,
    /// Handed to prefilters as their private temporary.
    pub ttmp: Vec<u8>,
    /// Which pool task owns this scratch (the prefilter's `tid`).
    pub tid: usize,
}

impl Scratch {
    fn ensure(&mut self, bsize: usize, out: usize) {
        if self.s1.len() < bsize {
            self.s1.resize(bsize, 0);
            self.s2.resize(bsize, 0);
        }
        if self.out.len() < out {
            self.out.resize(out, 0);
        }
    }

    fn ensure_ttmp(&mut self, n: usize) {
        if self.ttmp.len() < n {
            self.ttmp.resize(n, 0);
        }
    }
}

/// Per-call facts a block's prefilter needs.
#[derive(Clone, Copy)]
struct PreInfo<'a> {
    f: &'a dyn Prefilter,
    nchunk: i64,
}

/// Where the parallel path stands in laying blocks out in dest.
struct Layout<'d> {
    dest: &'d mut [u8],
    /// Compressed size of each finished block.
    sizes: Vec<Option<usize>>,
    /// First block not laid out yet.
    next: usize,
    /// Where it goes.
    pos: usize,
    /// A block did not fit: the chunk will be stored raw.
    overflow: bool,
}

/// The settled layout of one compression call.
struct Plan {
    typesize: usize,
    nbytes: usize,
    blocksize: usize,
    nblocks: usize,
    leftover: usize,
    split: bool,
    header: ChunkHeader,
    header_len: usize,
}

impl Plan {
    /// Size of the per-block work buffers (a prefilter may widen items).
    fn work_size(&self, pre: Option<&dyn Prefilter>) -> usize {
        let pre_out = pre.map_or(0, |f| {
            pipeline::prefilter_output_size(f, self.blocksize, self.typesize)
        });
        self.blocksize.max(pre_out)
    }

    fn bsize(&self, j: usize) -> usize {
        if j + 1 == self.nblocks && self.leftover > 0 {
            self.leftover
        } else {
            self.blocksize
        }
    }

    /// Most bytes block `j` can take in the chunk: every stream stored raw
    /// behind its 4-byte size (a run takes at most 5 bytes).
    fn max_block_out(&self, j: usize) -> usize {
        self.bsize(j) + 5 * self.nstreams(j, false)
    }

    fn nstreams(&self, j: usize, training: bool) -> usize {
        let leftover_block = j + 1 == self.nblocks && self.leftover > 0;
        if self.split && !leftover_block && !training {
            self.typesize
        } else {
            1
        }
    }
}

/// A compression context of the safe core (`blosc2_create_cctx`).
pub struct Compressor {
    params: CParams,
    /// Write the 16-byte Blosc1 header instead of the extended one.
    pub blosc1_header: bool,
    pool: Option<Pool>,
    scratch: Vec<Scratch>,
    /// Per-block output regions of the parallel path, kept between calls.
    staging: Vec<u8>,
    /// Run on every block before the filters.
    pub prefilter: Option<Arc<dyn Prefilter>>,
    /// The chunk's index in its super-chunk, reported to prefilters.
    pub nchunk: i64,
    /// The super-chunk this context compresses for, shown to plugins.
    pub schunk: Option<Arc<SchunkInfo>>,
    /// Consulted before each chunk.
    pub tuner: Option<Arc<dyn Tuner>>,
}

impl Compressor {
    /// A context for `params`; they are validated by each `compress` call
    /// (upstream reports bad parameters there, not at creation).
    pub fn new(params: CParams) -> Compressor {
        Compressor {
            params,
            blosc1_header: false,
            pool: None,
            scratch: Vec::new(),
            staging: Vec::new(),
            prefilter: None,
            nchunk: -1,
            schunk: None,
            tuner: None,
        }
    }

    pub fn params(&self) -> &CParams {
        &self.params
    }

    /// A context with the same settings and hooks but its own scratch and
    /// threads, for a caller that finds this one in use.
    pub fn fork(&self) -> Compressor {
        Compressor {
            blosc1_header: self.blosc1_header,
            prefilter: self.prefilter.clone(),
            nchunk: self.nchunk,
            schunk: self.schunk.clone(),
            tuner: self.tuner.clone(),
            ..Compressor::new(self.params.clone())
        }
    }

    /// Ask the tuner, if any, before a chunk (upstream does so before it
    /// checks anything else).
    pub fn consult_tuner(&self) -> Result<()> {
        match &self.tuner {
            Some(t) if t.next_blocksize() < 0 => Err(ErrorKind::Tuner),
            _ => Ok(()),
        }
    }

    /// Compress with `params` from now on, keeping this context's threads
    /// and scratch space (a context made anew for each set of parameters
    /// would start its threads again).
    pub fn set_params(&mut self, params: CParams) {
        self.params = params;
    }

    /// Change the thread count used by later calls.
    pub fn set_nthreads(&mut self, nthreads: i16) -> Result<()> {
        if nthreads <= 0 {
            return Err(ErrorKind::InvalidParam);
        }
        self.params.nthreads = nthreads;
        Ok(())
    }

    /// Effective typesize for splitting: huge types are a byte stream.
    fn effective_typesize(&self) -> Result<usize> {
        let ts = self.params.typesize;
        if ts <= 0 || ts > MAX_BLOCKSIZE {
            return Err(crate::traced!(
                ErrorKind::InvalidParam,
                "`typesize` must be between 1 and {MAX_BLOCKSIZE}, not {ts}"
            ));
        }
        Ok(if ts > 255 { 1 } else { ts as usize })
    }

    /// Block size this context would use for `nbytes` of input.
    pub fn blocksize_for(&self, nbytes: usize) -> Result<usize> {
        self.effective_typesize()?;
        // Upstream sizes blocks before it caps huge typesizes to 1, so the
        // block stays a multiple of the real item size.
        Ok(compute_blocksize(&BlocksizeInput {
            clevel: self.params.clevel,
            typesize: self.params.typesize,
            nbytes: nbytes as i32,
            forced: self.params.blocksize,
            compcode: self.params.compcode,
            splitmode: self.params.splitmode,
            filter_flags: flags_from_filters(&self.params.filters),
        }) as usize)
    }

    fn plan(&self, nbytes: usize, dest_len: usize) -> Result<Plan> {
        if nbytes > MAX_BUFFERSIZE as usize {
            return Err(crate::traced!(
                ErrorKind::MaxBufsizeExceeded,
                "Input buffer of {nbytes} bytes exceeds the maximum of {MAX_BUFFERSIZE}"
            ));
        }
        if dest_len < EXTENDED_HEADER_LENGTH {
            return Err(crate::traced!(
                ErrorKind::MaxBufsizeExceeded,
                "Output buffer of {dest_len} bytes is smaller than a chunk header ({EXTENDED_HEADER_LENGTH})"
            ));
        }
        let p = &self.params;
        pipeline::check_filters(&p.filters)?;
        if p.nthreads <= 0 {
            return Err(crate::traced!(
                ErrorKind::InvalidParam,
                "`nthreads` must be at least 1, not {}",
                p.nthreads
            ));
        }
        if p.clevel > 9 {
            return Err(crate::traced!(
                ErrorKind::CodecParam,
                "`clevel` parameter must be between 0 and 9, not {}",
                p.clevel
            ));
        }
        if p.use_dict && !matches!(p.compcode, codec::ZSTD | codec::LZ4 | codec::LZ4HC) {
            return Err(crate::traced!(
                ErrorKind::CodecParam,
                "`use_dict` needs the ZSTD, LZ4 or LZ4HC codec, not codec {}",
                p.compcode
            ));
        }
        let typesize = self.effective_typesize()?;
        let blocksize = self.blocksize_for(nbytes)?.max(1);
        let nblocks = nbytes.div_ceil(blocksize);
        let leftover = nbytes % blocksize;
        let filter_flags = flags_from_filters(&p.filters);
        let split = split_block(
            p.splitmode,
            p.compcode,
            p.clevel,
            filter_flags,
            typesize as i32,
            blocksize as i32,
        );
        let header_len = if self.blosc1_header {
            MIN_HEADER_LENGTH
        } else {
            EXTENDED_HEADER_LENGTH
        };
        let header = ChunkHeader {
            version: version::STABLE,
            versionlz: compversion_of(p.compcode),
            flags: 0,
            typesize: typesize as u8,
            nbytes: nbytes as i32,
            blocksize: blocksize as i32,
            cbytes: 0,
            filters: p.filters,
            udcompcode: p.compcode,
            compcode_meta: p.compcode_meta,
            filters_meta: p.filters_meta,
            blosc2_flags2: 0,
            blosc2_flags: 0,
        };
        Ok(Plan {
            typesize,
            nbytes,
            blocksize,
            nblocks,
            leftover,
            split,
            header,
            header_len,
        })
    }

    /// Compress `src` into `dest`; returns the chunk size, or 0 when the data
    /// does not fit in `dest` even stored raw (upstream's convention).
    pub fn compress(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        self.consult_tuner()?;
        let plan = self.plan(src.len(), dest.len())?;
        let p = &self.params;
        let extended = plan.header_len == EXTENDED_HEADER_LENGTH;
        let clevel0 = p.clevel == 0;
        let use_dict = p.use_dict && !clevel0;
        let mut memcpyed = clevel0 || plan.nbytes < MIN_BUFFERSIZE as usize;
        let bstarts_end = plan.header_len + 4 * plan.nblocks;
        // Upstream skips this check when it is about to train a dictionary, so
        // such a chunk ends up memcpyed with a compressed chunk's flags.
        let no_room = bstarts_end > dest.len();
        if !memcpyed && no_room && !use_dict {
            memcpyed = true;
        }
        let mut hflags = if extended {
            flags::DOSHUFFLE | flags::DOBITSHUFFLE
        } else {
            0
        };
        if !memcpyed {
            hflags |= flags_from_filters(&p.filters);
            if !plan.split {
                hflags |= flags::DONT_SPLIT;
            }
            hflags |= compformat_of(p.compcode) << 5;
        }
        let mut header = plan.header;
        header.flags = hflags;
        if use_dict {
            header.blosc2_flags |= blosc2_flags::USEDICT;
        }
        if p.instr_codec {
            header.blosc2_flags |= blosc2_flags::INSTR_CODEC;
        }

        if use_dict && plan.nbytes == 0 && extended {
            // Upstream's dictionary pass compresses the empty source again and
            // finds all of its (zero) streams to be zero runs.
            header.blosc2_flags |= (Special::Zero as u8) << 4;
        }
        if memcpyed || no_room {
            return self.store_memcpyed(&mut header, &plan, src, dest);
        }

        let mut dict: Option<Vec<u8>> = None;
        if use_dict {
            dict = self.build_dict(&plan, src)?;
            if dict.is_none() {
                header.blosc2_flags &= !blosc2_flags::USEDICT;
            }
        }
        let mut pos = bstarts_end;
        if let Some(d) = &dict {
            let end = pos + 4 + d.len();
            if end > dest.len() {
                return self.store_memcpyed(&mut header, &plan, src, dest);
            }
            dest[pos..pos + 4].copy_from_slice(&(d.len() as i32).to_le_bytes());
            dest[pos + 4..end].copy_from_slice(d);
            pos = end;
        }
        let data_start = pos;

        let fitted = self.compress_blocks(&plan, src, dest, data_start, dict.as_deref())?;
        let Some(total) = fitted else {
            return self.store_memcpyed(&mut header, &plan, src, dest);
        };

        // A chunk whose streams are all zero runs is the special zero chunk.
        let nstreams: usize = (0..plan.nblocks).map(|j| plan.nstreams(j, false)).sum();
        let mut cbytes = total;
        if self.params.instr_codec {
            // the chunk now holds one record per stream instead of the data
            header.nbytes = (nstreams * INSTR_SIZE) as i32;
            header.blocksize = (INSTR_SIZE * if plan.split { plan.typesize } else { 1 }) as i32;
        }
        if extended && dict.is_none() && total == bstarts_end + 4 * nstreams {
            header.blosc2_flags |= (Special::Zero as u8) << 4;
            cbytes = plan.header_len;
        }
        header.cbytes = cbytes as i32;
        header.write(&mut dest[..plan.header_len]);
        Ok(cbytes)
    }

    /// Compress every block after `data_start`; Ok(None) when they do not fit.
    fn compress_blocks(
        &mut self,
        plan: &Plan,
        src: &[u8],
        dest: &mut [u8],
        data_start: usize,
        dict: Option<&[u8]>,
    ) -> Result<Option<usize>> {
        let nthreads = (self.params.nthreads.max(1) as usize).min(plan.nblocks.max(1));
        // plugins are told the block size this chunk really uses
        let params = &CParams {
            blocksize: plan.blocksize as i32,
            ..self.params.clone()
        };
        let schunk = self.schunk.as_deref();
        let spec = PipelineSpec {
            filters: &params.filters,
            filters_meta: &params.filters_meta,
            typesize: plan.typesize,
            version: version::STABLE,
        };
        let extended = plan.header_len == EXTENDED_HEADER_LENGTH;
        let pre = self.prefilter.as_deref().map(|f| PreInfo {
            f,
            nchunk: self.nchunk,
        });
        let work = plan.work_size(pre.map(|p| p.f));
        let mut out_cap = plan.blocksize + 5 * plan.typesize + 8;
        if params.instr_codec {
            out_cap = out_cap.max(plan.typesize * (4 + INSTR_SIZE));
        }
        let mut pos = data_start;
        let nslots = nthreads.max(1);
        if self.scratch.len() < nslots {
            let first = self.scratch.len();
            self.scratch.resize_with(nslots, Scratch::default);
            for (tid, sc) in self.scratch.iter_mut().enumerate().skip(first) {
                sc.tid = tid;
            }
        }
        let ttmp_len = pipeline::ttmp_len(plan.blocksize, plan.typesize);
        let prep = |scratch: &mut Scratch| {
            scratch.ensure(work, out_cap);
            if pre.is_some() {
                scratch.ensure_ttmp(ttmp_len);
            }
        };

        // Upstream compresses serially when one thread is asked for or the
        // source holds at most one whole block, and only then lends each codec
        // just the room left in `dest` (which can change what it emits).
        if nthreads <= 1 || src.len() / plan.blocksize.max(1) <= 1 {
            let scratch = &mut self.scratch[0];
            prep(scratch);
            let mut spare = std::mem::take(&mut scratch.out);
            let r = (|| {
                for j in 0..plan.nblocks {
                    let room = dest.len().saturating_sub(pos);
                    let n = if params.instr_codec {
                        // instrumentation records are written whole, so they
                        // go through `spare` and are cut to the room after
                        let n = compress_block(
                            params,
                            plan,
                            &spec,
                            extended,
                            src,
                            j,
                            scratch,
                            &mut spare,
                            dict,
                            pre,
                            Some(room),
                            schunk,
                        )?;
                        if n > room {
                            return Ok(None);
                        }
                        dest[pos..pos + n].copy_from_slice(&spare[..n]);
                        n
                    } else {
                        // Straight into `dest`; near its end the codecs are
                        // lent only the room left (a copy through a spare
                        // buffer would cost a pass over every small chunk,
                        // whose single block always ends near the end).
                        let Some(out) = dest.get_mut(pos..) else {
                            return Ok(None);
                        };
                        let limit = (room < plan.max_block_out(j)).then_some(room);
                        let n = compress_block(
                            params, plan, &spec, extended, src, j, scratch, out, dict, pre, limit,
                            schunk,
                        )?;
                        if n > room {
                            return Ok(None);
                        }
                        n
                    };
                    dest[plan.header_len + 4 * j..plan.header_len + 4 * j + 4]
                        .copy_from_slice(&(pos as i32).to_le_bytes());
                    pos += n;
                }
                Ok(Some(pos))
            })();
            scratch.out = spare;
            return r;
        }

        // Parallel: every block into its own region of a buffer the context
        // keeps; whichever thread completes the next block in order lays it
        // (and any later ones already done) out in dest, so the copying
        // overlaps the compression of the remaining blocks.
        let region = out_cap;
        let need = region * plan.nblocks;
        if self.staging.len() < need {
            // fresh zeroed pages instead of writing zeros over the old ones
            self.staging = vec![0u8; need];
        }
        let regions: Vec<Mutex<&mut [u8]>> = self.staging[..need]
            .chunks_mut(region)
            .map(Mutex::new)
            .collect();
        let layout = Mutex::new(Layout {
            dest,
            sizes: vec![None; plan.nblocks],
            next: 0,
            pos,
            overflow: false,
        });
        let pool = Pool::ensure(&mut self.pool, nthreads)?;
        pool.run(plan.nblocks, &mut self.scratch[..nthreads], |j, scratch| {
            prep(scratch);
            let n = {
                let mut out = regions[j].lock().unwrap_or_else(|p| p.into_inner());
                compress_block(
                    params, plan, &spec, extended, src, j, scratch, &mut out, dict, pre, None,
                    schunk,
                )?
            };
            let mut lay = layout.lock().unwrap_or_else(|p| p.into_inner());
            lay.sizes[j] = Some(n);
            // Blocks already done are not held by anyone: their regions lock
            // at once.
            while let Some(&Some(n)) = lay.sizes.get(lay.next) {
                let k = lay.next;
                lay.next += 1;
                let pos = lay.pos;
                if lay.overflow || pos + n > lay.dest.len() {
                    lay.overflow = true;
                    continue;
                }
                let block = regions[k].lock().unwrap_or_else(|p| p.into_inner());
                lay.dest[pos..pos + n].copy_from_slice(&block[..n]);
                let at = plan.header_len + 4 * k;
                lay.dest[at..at + 4].copy_from_slice(&(pos as i32).to_le_bytes());
                lay.pos = pos + n;
            }
            Ok(())
        })?;
        let lay = layout.into_inner().unwrap_or_else(|p| p.into_inner());
        Ok((!lay.overflow).then_some(lay.pos))
    }

    /// Store the data raw after the header (the memcpyed chunk); 0 if it does
    /// not fit. With a prefilter, what is stored is its output.
    fn store_memcpyed(
        &mut self,
        header: &mut ChunkHeader,
        plan: &Plan,
        src: &[u8],
        dest: &mut [u8],
    ) -> Result<usize> {
        let total = plan.header_len + src.len();
        if total > dest.len() {
            return Ok(0);
        }
        header.flags |= flags::MEMCPYED;
        // a memcpyed chunk has no dictionary
        header.blosc2_flags &= !blosc2_flags::USEDICT;
        header.cbytes = total as i32;
        header.write(&mut dest[..plan.header_len]);
        let body = &mut dest[plan.header_len..total];
        match self.prefilter.clone() {
            None => body.copy_from_slice(src),
            Some(f) => {
                let mut work = vec![0u8; plan.work_size(Some(&*f))];
                let mut ttmp = vec![0u8; pipeline::ttmp_len(plan.blocksize, plan.typesize)];
                for j in 0..plan.nblocks {
                    let bsize = plan.bsize(j);
                    let offset = j * plan.blocksize;
                    let step = PreStep {
                        f: &*f,
                        blocksize: plan.blocksize,
                        nchunk: self.nchunk,
                        tid: 0,
                        ttmp: &mut ttmp,
                    };
                    pipeline::run_prefilter(step, src, offset, bsize, plan.typesize, &mut work)?;
                    body[offset..offset + bsize].copy_from_slice(&work[..bsize]);
                }
            }
        }
        Ok(total)
    }

    /// Upstream's dictionary recipe: sample the filtered blocks, then either use
    /// the samples directly (LZ4/LZ4HC) or train a zstd dictionary on them.
    fn build_dict(&mut self, plan: &Plan, src: &[u8]) -> Result<Option<Vec<u8>>> {
        let p = &self.params;
        let spec = PipelineSpec {
            filters: &p.filters,
            filters_meta: &p.filters_meta,
            typesize: plan.typesize,
            version: version::STABLE,
        };
        // The training pass: the filtered blocks, back to back.
        let mut samples = Vec::with_capacity(plan.nbytes);
        let mut scratch = Scratch::default();
        let pre_f = self.prefilter.clone();
        scratch.ensure(plan.work_size(pre_f.as_deref()), 0);
        scratch.ensure_ttmp(pipeline::ttmp_len(plan.blocksize, plan.typesize));
        let ctx_params = CParams {
            blocksize: plan.blocksize as i32,
            ..p.clone()
        };
        let ctx = PluginContext {
            cparams: &ctx_params,
            typesize: plan.typesize as i32,
            chunk: Some(src),
            schunk: self.schunk.as_deref(),
        };
        for j in 0..plan.nblocks {
            let bsize = plan.bsize(j);
            let offset = j * plan.blocksize;
            let pre = pre_f.as_deref().map(|f| PreStep {
                f,
                blocksize: plan.blocksize,
                nchunk: self.nchunk,
                tid: 0,
                ttmp: &mut scratch.ttmp,
            });
            match pipeline::forward(
                &spec,
                src,
                offset,
                bsize,
                &mut scratch.s1,
                &mut scratch.s2,
                &ctx,
                pre,
            )? {
                None => samples.extend_from_slice(&src[offset..offset + bsize]),
                Some(false) => samples.extend_from_slice(&scratch.s1[..bsize]),
                Some(true) => samples.extend_from_slice(&scratch.s2[..bsize]),
            }
        }
        let dict_maxsize = MAX_DICT_SIZE.min(plan.nbytes / 20);
        let mut nsamples = plan.nblocks;
        if plan.split {
            nsamples *= plan.typesize;
        }
        nsamples = nsamples.max(8);
        let sample_size = plan.nbytes / nsamples / 16;
        if dict_maxsize < MIN_USEFUL_DICT || sample_size == 0 {
            return Ok(None);
        }
        if p.compcode == codec::LZ4 || p.compcode == codec::LZ4HC {
            let n = (nsamples * sample_size)
                .min(dict_maxsize)
                .min(samples.len());
            let mut dict = samples[..n].to_vec();
            // Upstream writes the dictionary size into its sample area before
            // copying the samples out, so its LZ4 dictionaries carry those 4
            // bytes at offset 4*nblocks; doing the same keeps chunks identical.
            let at = 4 * plan.nblocks;
            for (i, b) in (n as i32).to_le_bytes().into_iter().enumerate() {
                if let Some(slot) = dict.get_mut(at + i) {
                    *slot = b;
                }
            }
            return Ok(Some(dict));
        }
        let need = nsamples * sample_size;
        if samples.len() < need {
            return Ok(None);
        }
        let sizes = vec![sample_size; nsamples];
        match codecs::train_dict(&samples[..need], &sizes, dict_maxsize) {
            Ok(d) if !d.is_empty() => Ok(Some(d)),
            _ => Ok(None),
        }
    }
}

/// Compress block `j` into the start of `out`, which must hold
/// `plan.max_block_out(j)` bytes (with `instr_codec`, a record per stream);
/// returns the block's size.
#[allow(clippy::too_many_arguments)]
fn compress_block(
    params: &CParams,
    plan: &Plan,
    spec: &PipelineSpec,
    extended: bool,
    src: &[u8],
    j: usize,
    scratch: &mut Scratch,
    out: &mut [u8],
    dict: Option<&[u8]>,
    pre: Option<PreInfo>,
    room: Option<usize>,
    schunk: Option<&SchunkInfo>,
) -> Result<usize> {
    // More than `room`: tells the caller the block does not fit.
    let no_fit = room.map_or(usize::MAX, |r| r + 1);
    let bsize = plan.bsize(j);
    let offset = j * plan.blocksize;
    let ctx = PluginContext {
        cparams: params,
        typesize: plan.typesize as i32,
        chunk: Some(src),
        schunk,
    };
    let ttmp_len = pipeline::ttmp_len(plan.blocksize, plan.typesize);
    let Scratch {
        s1, s2, ttmp, tid, ..
    } = scratch;
    let ttmp_len = ttmp_len.min(ttmp.len());
    let ttmp = &mut ttmp[..ttmp_len];
    let step = pre.map(|p| PreStep {
        f: p.f,
        blocksize: plan.blocksize,
        nchunk: p.nchunk,
        tid: *tid,
        ttmp,
    });
    let disposable = pre.is_some_and(|p| p.f.output_is_disposable());
    // only instrumentation needs the clock
    let started = params.instr_codec.then(std::time::Instant::now);
    let filtered: &[u8] = match pipeline::forward(spec, src, offset, bsize, s1, s2, &ctx, step)? {
        None => &src[offset..offset + bsize],
        Some(false) => &s1[..bsize],
        Some(true) => &s2[..bsize],
    };
    let nstreams = plan.nstreams(j, false);
    let neblock = bsize / nstreams;
    if params.instr_codec {
        let filter_secs = started.map_or(0.0, |s| s.elapsed().as_secs_f32());
        return instrument_block(
            params,
            dict,
            filtered,
            nstreams,
            extended,
            filter_secs,
            out,
            &ctx,
        );
    }
    // `out` may be exactly `room` long: every write checks it first.
    let past_room = |end: usize| room.is_some_and(|r| end > r);
    let mut pos = 0usize;
    for k in 0..nstreams {
        let stream = &filtered[k * neblock..(k + 1) * neblock];
        if extended && disposable {
            if past_room(pos + 4) {
                return Ok(no_fit);
            }
            // the output only fed a computation: store nothing but zero runs
            out[pos..pos + 4].copy_from_slice(&0i32.to_le_bytes());
            pos += 4;
            continue;
        }
        if extended {
            if let Some(&first) = stream.first() {
                if is_run(stream, first) {
                    if past_room(pos + 4 + usize::from(first != 0)) {
                        return Ok(no_fit);
                    }
                    // runs are a negative size: the byte value, plus a token
                    out[pos..pos + 4].copy_from_slice(&(-(first as i32)).to_le_bytes());
                    pos += 4;
                    if first != 0 {
                        out[pos] = 0x1;
                        pos += 1;
                    }
                    continue;
                }
            }
        }
        let used = pos + 4;
        let maxout = match room {
            Some(r) if used >= r => return Ok(no_fit),
            Some(r) => neblock.min(r - used),
            None => neblock,
        };
        let mut cbytes = compress_stream(
            params.compcode,
            params.clevel,
            params.compcode_meta,
            dict,
            stream,
            &mut out[used..used + maxout],
            &ctx,
        )?;
        if cbytes == 0 || cbytes >= neblock {
            if past_room(used + neblock) {
                return Ok(no_fit);
            }
            // incompressible stream: stored raw, flagged by csize == neblock
            out[used..used + neblock].copy_from_slice(stream);
            cbytes = neblock;
        }
        out[pos..pos + 4].copy_from_slice(&(cbytes as i32).to_le_bytes());
        pos += 4 + cbytes;
    }
    Ok(pos)
}

/// Size of a `blosc2_instr` record.
pub const INSTR_SIZE: usize = 16;

/// With `instr_codec`, each stream is replaced by a 16-byte record of how it
/// compressed (ratio, speeds), as upstream's development instrumentation does.
#[allow(clippy::too_many_arguments)]
fn instrument_block(
    params: &CParams,
    dict: Option<&[u8]>,
    filtered: &[u8],
    nstreams: usize,
    extended: bool,
    filter_secs: f32,
    out: &mut [u8],
    ctx: &PluginContext,
) -> Result<usize> {
    let neblock = filtered.len() / nstreams;
    let need = nstreams * (4 + INSTR_SIZE);
    if out.len() < need {
        // the callers size `out` for the records
        return Err(ErrorKind::WriteBuffer);
    }
    let mut tmp = vec![0u8; neblock];
    let mut pos = 0;
    for k in 0..nstreams {
        let stream = &filtered[k * neblock..(k + 1) * neblock];
        let t0 = std::time::Instant::now();
        let run = extended && stream.first().is_some_and(|&v| is_run(stream, v));
        let (cratio, flag) = if run {
            // a run costs its size word, plus a token byte unless it is zeros
            let ssize = if stream[0] == 0 { 4 } else { 5 };
            (neblock as f32 / ssize as f32, 1u8)
        } else {
            let c = compress_stream(
                params.compcode,
                params.clevel,
                params.compcode_meta,
                dict,
                stream,
                &mut tmp,
                ctx,
            )?;
            let c = if c == 0 { neblock } else { c };
            (neblock as f32 / (c + 4) as f32, 0u8)
        };
        let secs = t0.elapsed().as_secs_f32();
        out[pos..pos + 4].copy_from_slice(&(INSTR_SIZE as i32).to_le_bytes());
        // The record is what a caller reads back as a `blosc2_instr`
        // struct, so its floats are native like upstream's; only the
        // stream's size word above is a format integer (little-endian).
        let rec = &mut out[pos + 4..pos + 4 + INSTR_SIZE];
        rec[0..4].copy_from_slice(&cratio.to_ne_bytes());
        rec[4..8].copy_from_slice(&(neblock as f32 / secs).to_ne_bytes());
        rec[8..12].copy_from_slice(&(neblock as f32 / filter_secs).to_ne_bytes());
        rec[12..16].copy_from_slice(&[flag, 0, 0, 0]);
        pos += 4 + INSTR_SIZE;
    }
    Ok(pos)
}

fn is_run(stream: &[u8], value: u8) -> bool {
    let word = u64::from_ne_bytes([value; 8]);
    let differs = |c: &[u8]| u64::from_ne_bytes(c.try_into().expect("8 bytes")) ^ word;
    // 32 bytes per test: one branch where a word at a time took four
    let mut wide = stream.chunks_exact(32);
    for c in &mut wide {
        if differs(&c[..8]) | differs(&c[8..16]) | differs(&c[16..24]) | differs(&c[24..]) != 0 {
            return false;
        }
    }
    let mut words = wide.remainder().chunks_exact(8);
    for c in &mut words {
        if differs(c) != 0 {
            return false;
        }
    }
    words.remainder().iter().all(|&b| b == value)
}

#[cfg(test)]
mod tests {
    use super::is_run;

    #[test]
    fn run_detection_at_every_length_and_position() {
        for len in 0..100usize {
            let run = vec![7u8; len];
            assert!(is_run(&run, 7), "len {len}");
            for at in 0..len {
                let mut v = run.clone();
                v[at] = 6;
                assert!(!is_run(&v, 7), "len {len}, odd byte at {at}");
            }
        }
    }
}
