//! The filter pipeline applied to one block: forward (compression, slots in
//! increasing order) and backward (decompression, decreasing order).

use super::header::{filter_id, MAX_FILTERS};
use crate::error::{ErrorKind, Result};
use crate::filters::{bitshuffle, delta, shuffle, trunc_prec};
// Upstream's plugin filters: registered only when built with plugins;
// without, their ids are unknown like any unregistered one.
#[cfg(feature = "plugins")]
use crate::filters::{bytedelta, int_trunc, ndcell, ndmean};
use crate::registry::{self, PluginContext, Postfilter, PostfilterCall, Prefilter, PrefilterCall};

/// Everything a block's filters need to know about the chunk.
pub(crate) struct PipelineSpec<'a> {
    pub filters: &'a [u8; MAX_FILTERS],
    pub filters_meta: &'a [u8; MAX_FILTERS],
    pub typesize: usize,
    /// Chunk format version (old bitshuffled chunks decode differently).
    pub version: u8,
}

impl PipelineSpec<'_> {
    /// Whether decompression runs any filter (TRUNC_PREC needs no undoing).
    pub(crate) fn has_backward(&self) -> bool {
        self.filters
            .iter()
            .any(|&f| f != filter_id::NOFILTER && f != filter_id::TRUNC_PREC)
    }

    pub(crate) fn has_delta(&self) -> bool {
        self.filters.contains(&filter_id::DELTA)
    }
}

/// Validate the ids of a pipeline for compression: undefined built-in slots
/// and unregistered plugin ids are refused up front.
pub(crate) fn check_filters(filters: &[u8; MAX_FILTERS]) -> Result<()> {
    for &f in filters {
        let ok = match f {
            0..=4 => true,
            // globally registered ids are accepted; unimplemented ones fail
            // when the pipeline runs, as upstream's unloadable plugins do
            32..=36 => true,
            5..=159 => false,
            _ => true, // user ids are checked when used: they may be registered later
        };
        if !ok {
            return Err(ErrorKind::InvalidParam);
        }
    }
    Ok(())
}

/// Run the forward filters over `block` (which starts at `offset` in `chunk`).
/// Returns which of the two scratch buffers holds the result, or None when no
/// filter ran (the result is `block` itself).
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward(
    spec: &PipelineSpec,
    chunk: &[u8],
    offset: usize,
    bsize: usize,
    s1: &mut [u8],
    s2: &mut [u8],
    plugin_ctx: &PluginContext,
    pre: Option<PreStep>,
) -> Result<Option<bool>> {
    let block = &chunk[offset..offset + bsize];
    let ts = spec.typesize;
    // `cur`: None = input block, Some(false) = s1, Some(true) = s2
    let mut cur: Option<bool> = None;
    if let Some(p) = pre {
        if !run_prefilter(p, chunk, offset, bsize, ts, s1)? {
            // a disposable output that failed: nothing more to do with it
            return Ok(Some(false));
        }
        cur = Some(false);
    }
    for i in 0..MAX_FILTERS {
        let id = spec.filters[i];
        if id == filter_id::NOFILTER {
            continue;
        }
        let meta = spec.filters_meta[i];
        let (src, dst): (&[u8], &mut [u8]) = match cur {
            None => (block, &mut s1[..bsize]),
            Some(false) => (&s1[..bsize], &mut s2[..bsize]),
            Some(true) => (&s2[..bsize], &mut s1[..bsize]),
        };
        match id {
            filter_id::SHUFFLE => {
                let streams = if meta == 0 { ts } else { meta as usize };
                shuffle::shuffle(streams, src, dst);
            }
            filter_id::BITSHUFFLE => bitshuffle::bitshuffle(ts, src, dst)?,
            filter_id::DELTA => {
                // Block 0 is coded against itself; the others against the
                // chunk's original first block (upstream's reference).
                let dref = if offset == 0 { src } else { &chunk[..bsize] };
                delta::delta_encode(dref, offset, src, dst, ts);
            }
            filter_id::TRUNC_PREC => trunc_prec::trunc_prec(meta as i8, ts, src, dst)?,
            // built-in plugins (upstream registers them at start-up)
            #[cfg(feature = "plugins")]
            filter_id::BYTEDELTA => bytedelta::forward(meta, ts, src, dst)?,
            #[cfg(feature = "plugins")]
            filter_id::BYTEDELTA_BUGGY => bytedelta::forward_buggy(meta, ts, src, dst)?,
            #[cfg(feature = "plugins")]
            filter_id::INT_TRUNC => int_trunc::forward(meta as i8, ts, src, dst)?,
            #[cfg(feature = "plugins")]
            ndcell::ID => ndcell::run(true, src, dst, meta, plugin_ctx)
                .map_err(|_| ErrorKind::FilterPipeline)?,
            #[cfg(feature = "plugins")]
            ndmean::ID => ndmean::run(true, src, dst, meta, plugin_ctx)
                .map_err(|_| ErrorKind::FilterPipeline)?,
            _ => {
                let entry = registry::find_filter(id).ok_or_else(|| {
                    crate::traced!(
                        ErrorKind::FilterPipeline,
                        "User-defined filter {id} not found during compression"
                    )
                })?;
                if entry.imp.forward(src, dst, meta, plugin_ctx) != 0 {
                    return Err(ErrorKind::FilterPipeline);
                }
            }
        }
        // the result now lives in the buffer just written
        cur = Some(cur == Some(false));
    }
    Ok(cur)
}

/// What a block's prefilter needs besides the block.
pub(crate) struct PreStep<'a> {
    pub f: &'a dyn Prefilter,
    pub blocksize: usize,
    pub nchunk: i64,
    pub tid: usize,
    pub ttmp: &'a mut [u8],
}

/// Size of the per-thread temporary handed to prefilters and postfilters
/// (`ttmp_nbytes`): upstream lends its worker's four scratch areas, each a
/// block plus a size word per stream, and callers may use all of it.
pub(crate) fn ttmp_len(blocksize: usize, typesize: usize) -> usize {
    4 * (blocksize + 4 * typesize)
}

/// Bytes a prefilter writes for a block of `bsize` (its output items may be
/// wider or narrower than the chunk's).
pub(crate) fn prefilter_output_size(f: &dyn Prefilter, bsize: usize, ts: usize) -> usize {
    let out_ts = match f.output_typesize() {
        n if n > 0 => n as usize,
        _ => ts,
    };
    bsize / ts.max(1) * out_ts
}

/// Run the prefilter for one block into `out`. Ok(false) when it failed but
/// its output was disposable anyway.
pub(crate) fn run_prefilter(
    p: PreStep,
    chunk: &[u8],
    offset: usize,
    bsize: usize,
    ts: usize,
    out: &mut [u8],
) -> Result<bool> {
    let out_size = prefilter_output_size(p.f, bsize, ts);
    let out_ts = match p.f.output_typesize() {
        n if n > 0 => n,
        _ => ts as i32,
    };
    let disposable = p.f.output_is_disposable();
    let len = out_size.max(bsize);
    if out.len() < len {
        return Err(ErrorKind::FilterPipeline);
    }
    if !disposable {
        // unwritten items read as zeros, as upstream promises
        out[..len].fill(0);
    }
    let rc = p.f.call(PrefilterCall {
        input: &chunk[offset..],
        output: &mut out[..out_size],
        output_typesize: out_ts,
        offset,
        nblock: offset / p.blocksize.max(1),
        nchunk: p.nchunk,
        tid: p.tid,
        ttmp: p.ttmp,
    });
    if rc != 0 {
        if disposable {
            return Ok(false);
        }
        return Err(ErrorKind::FilterPipeline);
    }
    Ok(true)
}

/// Run the postfilter on a decoded block.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_postfilter(
    f: &dyn Postfilter,
    input: &[u8],
    out: &mut [u8],
    typesize: i32,
    offset: usize,
    nblock: usize,
    nchunk: i64,
    tid: usize,
    ttmp: &mut [u8],
) -> Result<()> {
    let rc = f.call(PostfilterCall {
        input,
        output: out,
        typesize,
        offset,
        nblock,
        nchunk,
        tid,
        ttmp,
    });
    if rc != 0 {
        return Err(ErrorKind::Postfilter);
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Buf {
    S1,
    S2,
    Dst,
}

/// Borrow `from` for reading and `to` for writing among the three buffers.
fn split<'a>(
    s1: &'a mut [u8],
    s2: &'a mut [u8],
    dst: &'a mut [u8],
    from: Buf,
    to: Buf,
) -> (&'a [u8], &'a mut [u8]) {
    match (from, to) {
        (Buf::S1, Buf::S2) => (s1, s2),
        (Buf::S1, Buf::Dst) => (s1, dst),
        (Buf::S2, Buf::S1) => (s2, s1),
        (Buf::S2, Buf::Dst) => (s2, dst),
        (Buf::Dst, Buf::S1) => (dst, s1),
        (Buf::Dst, Buf::S2) => (dst, s2),
        _ => unreachable!("a filter never reads and writes the same buffer"),
    }
}

fn pick<'a>(s1: &'a mut [u8], s2: &'a mut [u8], dst: &'a mut [u8], b: Buf) -> &'a mut [u8] {
    match b {
        Buf::S1 => s1,
        Buf::S2 => s2,
        Buf::Dst => dst,
    }
}

/// Undo the filters of one block. The decoded streams are in `s1`; the result
/// goes to `dst` (len bsize). `dref` is the chunk's fully decoded first block,
/// needed by DELTA for every block but the first (`offset == 0`); empty when
/// the caller has none.
///
/// It is a plain slice, not an `Option`: a `None` is a null pointer beside
/// an unset length, and LLVM hoists DELTA's `min(len, dref.len())` out of
/// the filter loop and branches on it even when DELTA never runs. That is
/// harmless (the result is then unused) but valgrind reports it as a jump on
/// an uninitialised value in every decompression, which would hide real
/// reports.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward(
    spec: &PipelineSpec,
    offset: usize,
    s1: &mut [u8],
    s2: &mut [u8],
    dst: &mut [u8],
    dref: &[u8],
    plugin_ctx: &PluginContext,
) -> Result<()> {
    let bsize = dst.len();
    let s1 = &mut s1[..bsize];
    let s2 = &mut s2[..bsize];
    let ts = spec.typesize;
    // slots to undo, last first (no allocation: this runs once per block)
    let mut active = [0usize; MAX_FILTERS];
    let mut nactive = 0;
    for i in (0..MAX_FILTERS).rev() {
        let f = spec.filters[i];
        if f != filter_id::NOFILTER && f != filter_id::TRUNC_PREC {
            active[nactive] = i;
            nactive += 1;
        }
    }
    let mut cur = Buf::S1;
    for (n, &i) in active[..nactive].iter().enumerate() {
        let last = n + 1 == nactive;
        let id = spec.filters[i];
        let meta = spec.filters_meta[i];
        if id == filter_id::DELTA {
            if last && cur != Buf::Dst {
                let (src, out) = split(s1, s2, dst, cur, Buf::Dst);
                out.copy_from_slice(src);
                cur = Buf::Dst;
            }
            let buf = pick(s1, s2, dst, cur);
            if offset == 0 {
                delta::delta_decode_first(buf, ts);
            } else {
                if dref.is_empty() {
                    return Err(ErrorKind::FilterPipeline);
                }
                delta::delta_decode(dref, offset, buf, ts);
            }
            continue;
        }
        // DELTA works in place, so a filter followed only by DELTAs writes
        // straight to `dst`: no copy of the block, and no third buffer
        // touched (for a huge block, gigabytes of first-touch page faults)
        let only_delta_left = active[n + 1..nactive]
            .iter()
            .all(|&k| spec.filters[k] == filter_id::DELTA);
        let to = if last || only_delta_left {
            Buf::Dst
        } else if cur == Buf::S1 {
            Buf::S2
        } else {
            Buf::S1
        };
        let (src, out) = split(s1, s2, dst, cur, to);
        match id {
            filter_id::SHUFFLE => {
                let streams = if meta == 0 { ts } else { meta as usize };
                shuffle::unshuffle(streams, src, out);
            }
            filter_id::BITSHUFFLE => bitshuffle::bitunshuffle_version(ts, src, out, spec.version)?,
            #[cfg(feature = "plugins")]
            filter_id::BYTEDELTA => bytedelta::backward(meta, ts, src, out)?,
            #[cfg(feature = "plugins")]
            filter_id::BYTEDELTA_BUGGY => bytedelta::backward_buggy(meta, ts, src, out)?,
            #[cfg(feature = "plugins")]
            filter_id::INT_TRUNC => out.copy_from_slice(src),
            // a plugin's own error code is what upstream returns here
            #[cfg(feature = "plugins")]
            ndcell::ID => ndcell::run(false, src, out, meta, plugin_ctx)?,
            #[cfg(feature = "plugins")]
            ndmean::ID => ndmean::run(false, src, out, meta, plugin_ctx)?,
            _ => {
                let entry = registry::find_filter(id).ok_or_else(|| {
                    crate::traced!(
                        ErrorKind::FilterPipeline,
                        "User-defined filter {id} not found during decompression."
                    )
                })?;
                // upstream passes a failing plugin's own code on when
                // decoding (but not when encoding, see `forward`)
                match entry.imp.backward(src, out, meta, plugin_ctx) {
                    0 => {}
                    rc => return Err(ErrorKind::from_code(rc).unwrap_or(ErrorKind::FilterPipeline)),
                }
            }
        }
        cur = to;
    }
    if cur != Buf::Dst {
        let (src, out) = split(s1, s2, dst, cur, Buf::Dst);
        out.copy_from_slice(src);
    }
    Ok(())
}
