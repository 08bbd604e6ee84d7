//! `b2 compress`, `b2 decompress` and `b2 recompress`.
//!
//! Outputs are written under a temporary name next to OUTPUT and renamed
//! once complete, so an interrupted run never leaves a frame that looks
//! whole but is not.

use blosc2_core::b2nd::meta::DTYPE_NUMPY_FORMAT;
use blosc2_core::b2nd::{Array, Fill, Params as NdParams};
use blosc2_core::chunk::header::EXTENDED_HEADER_LENGTH;
use blosc2_core::chunk::params::codec;
use blosc2_core::chunk::special::make_special;
use blosc2_core::chunk::{vlblocks, CParams, ChunkHeader, DParams, Decompressor, Special};
use blosc2_core::frame::checksum;
use blosc2_core::schunk::{FrameCheck, Storage, SuperChunk};
use indicatif::ProgressBar;
use std::fs;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::input::{self, is_dash, Input};
use crate::names::count;
use crate::out::{self, write_err};
use crate::{
    names, progress, sums, threads, CompressArgs, DecompressArgs, Fail, Params, RecompressArgs,
};

/// Refuse to overwrite OUTPUT unless told to; the temporary name to write.
fn prepare_output(out: &Path, force: bool) -> Result<PathBuf, Fail> {
    if out.exists() && !force {
        return Err(Fail::msg(format!(
            "{}: exists (use --force to replace it)",
            out.display()
        )));
    }
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".b2tmp{}", std::process::id()));
    let tmp = out.with_file_name(name);
    remove(&tmp);
    Ok(tmp)
}

fn remove(p: &Path) {
    if p.is_dir() {
        let _ = fs::remove_dir_all(p);
    } else {
        let _ = fs::remove_file(p);
    }
}

/// Put the finished temporary output in place of OUTPUT.
fn commit(tmp: &Path, out: &Path) -> Result<(), Fail> {
    if out.is_dir() {
        fs::remove_dir_all(out).map_err(|e| Fail::at(out, "cannot replace", e))?;
    }
    fs::rename(tmp, out).map_err(|e| {
        remove(tmp);
        Fail::at(out, "cannot write", e)
    })
}

/// Run `f` writing to `tmp`, then move it to `out`; on failure nothing is
/// left behind.
fn write_via_tmp<T>(
    out: &Path,
    force: bool,
    f: impl FnOnce(&Path) -> Result<T, Fail>,
) -> Result<T, Fail> {
    let tmp = prepare_output(out, force)?;
    match f(&tmp) {
        Ok(v) => {
            commit(&tmp, out)?;
            Ok(v)
        }
        Err(e) => {
            remove(&tmp);
            Err(e)
        }
    }
}

/// Compression parameters from the options, on top of `base`.
fn cparams(p: &Params, base: CParams) -> Result<CParams, Fail> {
    let mut cp = base;
    if let Some(c) = &p.codec {
        let (code, meta) = names::parse_codec(c).map_err(Fail)?;
        if code != cp.compcode {
            cp.compcode = code;
            // codec meta and dictionaries belong to the old codec
            cp.compcode_meta = 0;
            cp.use_dict = cp.use_dict && matches!(code, codec::LZ4 | codec::LZ4HC | codec::ZSTD);
        }
        if let Some(m) = meta {
            cp.compcode_meta = m;
        }
    }
    if let Some(l) = p.clevel {
        cp.clevel = l;
    }
    if !p.filters.is_empty() {
        let list = names::parse_filters(&p.filters).map_err(Fail)?;
        (cp.filters, cp.filters_meta) = names::pack_filters(&list);
        if is_zfp(cp.compcode) {
            if let Some(&(f, _)) = list
                .iter()
                .find(|(f, _)| *f != 0 && !names::ND_FILTERS.contains(f))
            {
                return Err(Fail::msg(format!(
                    "{} reads the float values themselves; --filter {} before it would \
                     hand it reordered bytes: leave the filter out",
                    names::codec_name(cp.compcode),
                    names::filter_name(f)
                )));
            }
        }
    } else if is_zfp(cp.compcode) {
        // The default shuffle (or the source's filters) would hand ZFP
        // byte-reordered values, which it encodes as garbage floats.
        (cp.filters, cp.filters_meta) = names::pack_filters(&[]);
    }
    Ok(cp)
}

fn is_zfp(code: u8) -> bool {
    (ZFP_FIRST..=ZFP_LAST).contains(&code)
}
const ZFP_FIRST: u8 = 33;
const ZFP_LAST: u8 = 35;

fn fill(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// What `compress` or `recompress` wrote.
struct Written {
    nchunks: i64,
    nbytes: i64,
    size: u64,
    checksums: bool,
}

/// The one-line summary of a frame written by `compress` or `recompress`,
/// on stderr.
fn report_written(output: &Path, w: &Written) {
    out::note(&format!(
        "{}: {}, {} -> {} (ratio {:.2}x){}",
        output.display(),
        count(w.nchunks, "chunk"),
        count(w.nbytes, "byte"),
        count(w.size as i64, "byte"),
        ratio(w.nbytes, w.size),
        if w.checksums {
            ", with checksums (sealed)"
        } else {
            ""
        }
    ));
}

fn ratio(nbytes: i64, cbytes: u64) -> f64 {
    if cbytes == 0 {
        0.0
    } else {
        nbytes as f64 / cbytes as f64
    }
}

/// Make the frame `make` fills at OUTPUT (through a temporary file), or
/// for `-` in memory and then on standard output. `make` gets the path to
/// create the frame at, None for memory.
fn make_frame(
    output: &Path,
    force: bool,
    make: impl FnOnce(Option<&Path>) -> Result<SuperChunk, Fail>,
) -> Result<Written, Fail> {
    if is_dash(output) {
        // as gzip: a frame is no use on a screen, and may upset the terminal
        if io::stdout().is_terminal() {
            return Err(Fail::msg(
                "standard output is a terminal: redirect it, or name an OUTPUT file",
            ));
        }
        let sc = make(None)?;
        let frame = sc
            .to_frame()
            .map_err(|e| Fail::at(output, "cannot serialize the frame", e))?;
        out::write_bytes(&frame)?;
        return Ok(Written {
            nchunks: sc.nchunks(),
            nbytes: sc.nbytes(),
            size: frame.len() as u64,
            checksums: sc.checksums(),
        });
    }
    let (nchunks, nbytes, checksums) = write_via_tmp(output, force, |tmp| {
        let sc = make(Some(tmp))?;
        Ok((sc.nchunks(), sc.nbytes(), sc.checksums()))
    })?;
    Ok(Written {
        nchunks,
        nbytes,
        size: fs::metadata(output).map(|m| m.len()).unwrap_or(0),
        checksums,
    })
}

/// Keep checksums in the new super-chunk `sc` (when `on`): set before
/// any chunk goes in, so that each append hashes only its own chunk.
fn keep_checksums(sc: &mut SuperChunk, on: bool, output: &Path) -> Result<(), Fail> {
    if on {
        sc.set_checksums(true)
            .map_err(|e| Fail::at(output, "cannot turn checksums on", e))?;
    }
    Ok(())
}

fn storage(urlpath: Option<&Path>, cp: &CParams) -> Storage {
    Storage {
        contiguous: true,
        urlpath: urlpath.map(Path::to_path_buf),
        cparams: cp.clone(),
        dparams: DParams {
            nthreads: cp.nthreads,
            typesize: cp.typesize,
        },
        ..Storage::default()
    }
}

const NDLZ: u8 = 32;
const NDMEAN: u8 = 33;

/// Refuse up front what the n-dimensional codecs and filters cannot do:
/// they read the geometry of b2nd blocks, so on anything else every chunk
/// fails with a bare "Invalid data" or "Filter pipeline error". `ndim` is
/// the array's (None: not a b2nd array), `fix` says how to get one.
fn check_nd(cp: &CParams, ndim: Option<usize>, fix: &str) -> Result<(), Fail> {
    let nd_filters: Vec<(u8, u8)> = cp
        .filters
        .iter()
        .zip(&cp.filters_meta)
        .filter(|(f, _)| names::ND_FILTERS.contains(f))
        .map(|(f, m)| (*f, *m))
        .collect();
    let nd_codec = names::ND_CODECS.contains(&cp.compcode);
    let what = match (nd_codec, nd_filters.first()) {
        (true, _) => names::codec_name(cp.compcode),
        (false, Some((f, _))) => names::filter_name(*f),
        (false, None) => return Ok(()),
    };
    let Some(ndim) = ndim else {
        return Err(Fail::msg(format!(
            "{what} works on the blocks of an n-dimensional b2nd array, not on a plain \
             frame of bytes: {fix}"
        )));
    };
    let ts = cp.typesize;
    let float = ts == 4 || ts == 8;
    let name = names::codec_name(cp.compcode);
    if cp.compcode == NDLZ {
        if ndim != 2 {
            return Err(Fail::msg(format!(
                "ndlz compresses 2-dimensional arrays only, this one has {}",
                count(ndim as i64, "dimension")
            )));
        }
        if ts != 1 {
            return Err(Fail::msg(format!(
                "ndlz compresses 1-byte items, these have {ts} bytes"
            )));
        }
        if cp.compcode_meta != 4 && cp.compcode_meta != 8 {
            return Err(Fail::msg(
                "ndlz needs its cell side as meta: --codec ndlz:4 or --codec ndlz:8",
            ));
        }
    } else if nd_codec {
        if ndim > 4 {
            return Err(Fail::msg(format!(
                "{name} handles 1 to 4 dimensions, this array has {ndim}"
            )));
        }
        if !float {
            return Err(Fail::msg(format!(
                "{name} compresses float32 or float64 items (--dtype f4 or f8), these have \
                 {}",
                count(ts, "byte")
            )));
        }
    }
    for (f, m) in nd_filters {
        let fname = names::filter_name(f);
        if m == 0 {
            return Err(Fail::msg(format!(
                "{fname} needs its cell side as meta, like --filter {fname}:4"
            )));
        }
        if f == NDMEAN && !float {
            return Err(Fail::msg(format!(
                "ndmean averages float32 or float64 items (--dtype f4 or f8), these have \
                 {}",
                count(ts, "byte")
            )));
        }
    }
    Ok(())
}

/// Item size and NumPy dtype from --typesize and --dtype, and whether the
/// size was left at its default.
fn item_type(a: &CompressArgs) -> Result<(i32, Option<String>, bool), Fail> {
    let dtype = match &a.dtype {
        Some(d) => Some(names::parse_dtype(d).map_err(Fail)?),
        None => None,
    };
    match (a.typesize, dtype) {
        (Some(ts), Some((d, size))) if ts != size => Err(Fail::msg(format!(
            "--typesize {ts} contradicts --dtype {d} ({size}-byte items)"
        ))),
        (_, Some((d, size))) => Ok((size, Some(d), false)),
        (Some(ts), None) => Ok((ts, None, false)),
        (None, None) => Ok((1, None, true)),
    }
}

/// The b2nd geometry for `--shape`: chunk and block shapes as given, or
/// chosen by halving the largest dimension until the bytes fit.
fn array_params(
    a: &CompressArgs,
    shape_s: &str,
    ts: i32,
    dtype: Option<&str>,
    chunk_bytes: u64,
) -> Result<NdParams, Fail> {
    let shape = names::parse_dims(shape_s, "--shape").map_err(Fail)?;
    let given = |s: &Option<String>, what: &str| -> Result<Option<Vec<i32>>, Fail> {
        let Some(s) = s else { return Ok(None) };
        let d = names::parse_dims(s, what).map_err(Fail)?;
        if d.len() != shape.len() {
            return Err(Fail::msg(format!(
                "{what} has {}, --shape {}",
                count(d.len() as i64, "dimension"),
                shape.len()
            )));
        }
        d.iter()
            .map(|&n| i32::try_from(n).ok().filter(|&n| n > 0))
            .collect::<Option<Vec<i32>>>()
            .map(Some)
            .ok_or_else(|| Fail::msg(format!("{what} '{s}': sizes must be 1 to {}", i32::MAX)))
    };
    let chunkshape = match given(&a.chunkshape, "--chunkshape")? {
        Some(c) => c,
        None => fit(
            shape
                .iter()
                .map(|&n| n.clamp(1, i32::MAX as i64) as i32)
                .collect(),
            ts,
            chunk_bytes,
        ),
    };
    let blockshape = match given(&a.blockshape, "--blockshape")? {
        Some(b) => b,
        None => fit(chunkshape.clone(), ts, 256 << 10),
    };
    let p = NdParams::new(&shape, &chunkshape, &blockshape);
    // without a dtype the array would read back as single bytes ("|u1")
    let p = match dtype {
        Some(d) => p.with_dtype(d, DTYPE_NUMPY_FORMAT),
        None if ts == 1 => p,
        None => p.with_dtype(&format!("|V{ts}"), DTYPE_NUMPY_FORMAT),
    };
    blosc2_core::b2nd::geometry::validate(&p.shape, &p.chunkshape, &p.blockshape).map_err(|e| {
        Fail::msg(format!(
            "shape {:?}, chunkshape {:?} and blockshape {:?} do not fit together ({e}): \
                 a block must fit in a chunk",
            p.shape, p.chunkshape, p.blockshape
        ))
    })?;
    Ok(p)
}

/// `dims` with its largest dimension halved until `ts`-byte items in it
/// take at most `max` bytes.
fn fit(mut dims: Vec<i32>, ts: i32, max: u64) -> Vec<i32> {
    loop {
        let bytes = dims
            .iter()
            .fold(ts as u64, |acc, &d| acc.saturating_mul(d as u64));
        let Some(i) = (0..dims.len())
            .filter(|&i| dims[i] > 1)
            .max_by_key(|&i| dims[i])
        else {
            return dims;
        };
        if bytes <= max {
            return dims;
        }
        dims[i] = (dims[i] + 1) / 2;
    }
}

pub(crate) fn compress(a: &CompressArgs) -> Result<ExitCode, Fail> {
    let (ts, dtype, default_ts) = item_type(a)?;
    let base = CParams {
        compcode: codec::ZSTD,
        clevel: 5,
        typesize: ts,
        nthreads: a.common.nthreads,
        ..CParams::default()
    };
    let cp = cparams(&a.params, base)?;
    let max = blosc2_core::chunk::header::MAX_BUFFERSIZE as u64;
    let chunksize = (a.chunksize.min(max) / ts as u64 * ts as u64).max(ts as u64) as usize;
    let array = match &a.shape {
        Some(shape) => Some(array_params(
            a,
            shape,
            ts,
            dtype.as_deref(),
            chunksize as u64,
        )?),
        None => None,
    };
    check_nd(
        &cp,
        array.as_ref().map(|p| p.shape.len()),
        "add --shape DIMS (and --dtype, like f8) to write one",
    )?;
    let (mut reader, total): (Box<dyn Read>, Option<u64>) = if is_dash(&a.input) {
        (Box::new(io::stdin().lock()), None)
    } else {
        let f = fs::File::open(&a.input).map_err(|e| Fail::at(&a.input, "cannot open", e))?;
        let len = f.metadata().map(|m| m.len()).ok();
        (Box::new(f), len)
    };
    if let (Some(p), Some(len)) = (&array, total) {
        if len != array_bytes(p, ts) {
            return Err(size_mismatch(&a.input, len, p, ts));
        }
    }
    let pb = progress::bar(
        total.unwrap_or(0),
        true,
        !a.common.no_progress,
        "compressing",
    );
    let w = make_frame(&a.output, a.force, |path| match &array {
        Some(p) => fill_array(a, &cp, p, &mut reader, path, &pb),
        None => fill_frame(a, &cp, chunksize, &mut reader, path, &pb),
    })?;
    pb.finish_and_clear();
    report_written(&a.output, &w);
    // NDLZ takes single bytes only: no other typesize to suggest
    if default_ts && w.nbytes > 0 && w.nbytes % 4 == 0 && cp.compcode != NDLZ {
        out::note(
            "b2: hint: items were taken as single bytes (--typesize 1); if INPUT holds 4- or \
             8-byte numbers, --typesize 4/8 or --dtype (f4, f8, i4, ...) lets shuffle find them",
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn array_bytes(p: &NdParams, ts: i32) -> u64 {
    p.shape
        .iter()
        .fold(ts as u64, |acc, &n| acc.saturating_mul(n as u64))
}

fn size_mismatch(input: &Path, len: u64, p: &NdParams, ts: i32) -> Fail {
    Fail::msg(format!(
        "{}: holds {}, but shape {:?} of {ts}-byte items needs {}",
        input.display(),
        count(len as i64, "byte"),
        p.shape,
        count(array_bytes(p, ts) as i64, "byte")
    ))
}

/// A plain frame of `chunksize`-byte chunks.
fn fill_frame(
    a: &CompressArgs,
    cp: &CParams,
    chunksize: usize,
    reader: &mut dyn Read,
    path: Option<&Path>,
    pb: &ProgressBar,
) -> Result<SuperChunk, Fail> {
    let mut sc = SuperChunk::new(storage(path, cp))
        .map_err(|e| Fail::at(&a.output, "cannot create the frame", e))?;
    keep_checksums(&mut sc, a.checksum, &a.output)?;
    let mut buf = vec![0u8; chunksize];
    loop {
        let n = fill(reader, &mut buf).map_err(|e| Fail::at(&a.input, "read error", e))?;
        if n == 0 {
            break;
        }
        sc.append_buffer(&buf[..n]).map_err(|e| {
            Fail::at(
                &a.output,
                &format!("cannot compress chunk {}", sc.nchunks()),
                e,
            )
        })?;
        pb.inc(n as u64);
        if n < buf.len() {
            break;
        }
    }
    Ok(sc)
}

/// A b2nd array, written a slab of chunk rows at a time so that memory
/// stays bounded whatever the size.
fn fill_array(
    a: &CompressArgs,
    cp: &CParams,
    p: &NdParams,
    reader: &mut dyn Read,
    path: Option<&Path>,
    pb: &ProgressBar,
) -> Result<SuperChunk, Fail> {
    let ts = cp.typesize;
    let mut arr = Array::create(storage(path, cp), p, Fill::Zeros)
        .map_err(|e| Fail::at(&a.output, "cannot create the b2nd array", e))?;
    // the zero chunks so far are special values: nothing to hash
    keep_checksums(arr.schunk_mut(), a.checksum, &a.output)?;
    let shape = &p.shape;
    let row_bytes = array_bytes(p, ts) / (shape[0].max(1) as u64);
    let mut buf = Vec::new();
    let mut done = 0u64;
    let mut r = 0i64;
    while r < shape[0] {
        let end = (r + p.chunkshape[0] as i64).min(shape[0]);
        buf.resize(((end - r) as u64 * row_bytes) as usize, 0);
        let n = fill(reader, &mut buf).map_err(|e| Fail::at(&a.input, "read error", e))?;
        done += n as u64;
        if n < buf.len() {
            return Err(size_mismatch(&a.input, done, p, ts));
        }
        let mut start = vec![0i64; shape.len()];
        let mut stop = shape.clone();
        (start[0], stop[0]) = (r, end);
        let bufshape: Vec<i64> = start.iter().zip(&stop).map(|(s, e)| e - s).collect();
        arr.set_slice_cbuffer(&buf, &bufshape, &start, &stop)
            .map_err(|e| Fail::at(&a.output, &format!("cannot compress rows {r}:{end}"), e))?;
        pb.inc(n as u64);
        r = end;
    }
    // the size of standard input is known only now
    let mut extra = [0u8; 1];
    if fill(reader, &mut extra).map_err(|e| Fail::at(&a.input, "read error", e))? > 0 {
        return Err(Fail::msg(format!(
            "{}: holds more than the {} shape {:?} of {ts}-byte items needs",
            a.input.display(),
            count(array_bytes(p, ts) as i64, "byte"),
            p.shape
        )));
    }
    Ok(arr.into_schunk())
}

/// Write the decompressed chunks of FILE to `w`, in order.
fn write_content(
    src: Input,
    nthreads: i16,
    show: bool,
    w: &mut dyn Write,
) -> Result<(i64, i64), Fail> {
    match src {
        Input::Chunk { path, bytes } => {
            let h = ChunkHeader::read(&bytes).map_err(|e| Fail::at(&path, "invalid chunk", e))?;
            let mut out = vec![0u8; h.nbytes.max(0) as usize];
            Decompressor::new(DParams {
                nthreads,
                typesize: h.typesize as i32,
            })
            .decompress(&bytes, &mut out)
            .map_err(|e| Fail::at(&path, "chunk 0: decompression failed", e))?;
            w.write_all(&out).map_err(write_err)?;
            Ok((1, out.len() as i64))
        }
        Input::Frame(f) => {
            let mut sc = f.open_schunk()?;
            threads::set(&mut sc, nthreads);
            let pb = progress::bar(sc.nbytes().max(0) as u64, true, show, "decompressing");
            let mut buf = Vec::new();
            for i in 0..sc.nchunks() {
                let c = sc.chunk(i).map_err(|e| {
                    Fail::msg(format!(
                        "{}: {}",
                        f.path().display(),
                        f.read_error(&sc, i, e)
                    ))
                })?;
                let nb = ChunkHeader::read(&c)
                    .map_err(|e| Fail::at(f.path(), &format!("chunk {i}"), e))?
                    .nbytes;
                buf.resize(nb.max(0) as usize, 0);
                let n = sc.decompress_chunk(i, &mut buf).map_err(|e| {
                    Fail::at(f.path(), &format!("chunk {i}: decompression failed"), e)
                })?;
                w.write_all(&buf[..n]).map_err(write_err)?;
                pb.inc(n as u64);
            }
            pb.finish_and_clear();
            Ok((sc.nchunks(), sc.nbytes()))
        }
    }
}

pub(crate) fn decompress(a: &DecompressArgs) -> Result<ExitCode, Fail> {
    let src = input::open(&a.input, a.offset)?;
    let show = !a.common.no_progress;
    if is_dash(&a.output) {
        let mut out = BufWriter::new(io::stdout().lock());
        write_content(src, a.common.nthreads, show, &mut out)?;
        out.flush().map_err(write_err)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (nchunks, nbytes) = write_via_tmp(&a.output, a.force, |tmp| {
        let f = fs::File::create(tmp).map_err(|e| Fail::at(&a.output, "cannot create", e))?;
        let mut w = BufWriter::new(f);
        let r = write_content(src, a.common.nthreads, show, &mut w)?;
        w.flush().map_err(write_err)?;
        Ok(r)
    })?;
    out::note(&format!(
        "{}: {} from {}",
        a.output.display(),
        count(nbytes, "byte"),
        count(nchunks, "chunk")
    ));
    Ok(ExitCode::SUCCESS)
}

/// The chunk `c` (of `src`) compressed again for `dst`.
fn recompress_chunk(
    src: &SuperChunk,
    dst: &SuperChunk,
    i: i64,
    c: &[u8],
    buf: &mut Vec<u8>,
) -> blosc2_core::error::Result<Vec<u8>> {
    let h = ChunkHeader::read(c)?;
    let special = Special::from_bits(h.special_bits()).unwrap_or(Special::None);
    if special != Special::None {
        // special values stay special values, with the new parameters
        let value = (special == Special::Value).then(|| &c[EXTENDED_HEADER_LENGTH..]);
        let mut out = vec![0u8; EXTENDED_HEADER_LENGTH + dst.typesize().max(0) as usize];
        let n = make_special(dst.cparams(), special, h.nbytes, value, &mut out)?;
        out.truncate(n);
        return Ok(out);
    }
    if h.is_vlblocks() {
        let blocks = vlblocks::decompress_blocks(c)?;
        let refs: Vec<&[u8]> = blocks.iter().map(Vec::as_slice).collect();
        let total: usize = blocks.iter().map(Vec::len).sum();
        // incompressible blocks grow a little; the compressor says when
        // the room was too small (0)
        let mut room = total + 64 * blocks.len() + 1024;
        loop {
            let mut out = vec![0u8; room];
            let n = vlblocks::vlcompress(dst.cparams(), None, i, &refs, &mut out)?;
            if n > 0 {
                out.truncate(n);
                return Ok(out);
            }
            room *= 2;
        }
    }
    buf.resize(h.nbytes.max(0) as usize, 0);
    let n = src.decompress_chunk(i, buf)?;
    dst.compress_chunk(i, &buf[..n])
}

pub(crate) fn recompress(a: &RecompressArgs) -> Result<ExitCode, Fail> {
    let f = match input::open(&a.input, a.offset)? {
        Input::Frame(f) => f,
        Input::Chunk { path, .. } => {
            return Err(Fail::msg(format!(
                "{}: recompress works on frames; use decompress and compress for a chunk",
                path.display()
            )))
        }
    };
    let mut src = f.open_schunk()?;
    threads::set(&mut src, a.common.nthreads);
    let src_sums = sums::from_verdict(&f.info.checksums);
    // by default OUTPUT keeps checksums if INPUT has any (a table, sealed
    // or not): they are new digests of the new chunks either way
    let with_sums = !a.no_checksum && (a.checksum || src_sums != FrameCheck::Unverified);
    if let FrameCheck::Corrupt(_) = src_sums {
        out::note(&format!(
            "b2: warning: {}: checksums: {}; its chunks are read unchecked (b2 verify says more)",
            a.input.display(),
            sums::describe(src_sums)
        ));
    }
    let base = CParams {
        nthreads: a.common.nthreads,
        ..src.cparams().clone()
    };
    let cp = cparams(&a.params, base)?;
    let ndim = Array::from_schunk(&src).ok().map(|arr| arr.ndim());
    check_nd(
        &cp,
        ndim,
        "b2 compress --shape DIMS --dtype f8 writes raw data as one",
    )?;
    let pb = progress::bar(
        src.nbytes().max(0) as u64,
        true,
        !a.common.no_progress,
        "recompressing",
    );
    let w = make_frame(&a.output, a.force, |path| {
        let out = &a.output;
        let mut dst = SuperChunk::new(storage(path, &cp))
            .map_err(|e| Fail::at(out, "cannot create the frame", e))?;
        // b2nd arrays read blocks by the block size their blockshape gives
        dst.blocksize = src.blocksize;
        // fixed metalayers live in the header, which cannot grow once
        // chunks follow it
        for m in &src.metalayers {
            dst.meta_add(&m.name, &m.content)
                .map_err(|e| Fail::at(out, &format!("metalayer '{}'", m.name), e))?;
        }
        keep_checksums(&mut dst, with_sums, out)?;
        let mut buf = Vec::new();
        for i in 0..src.nchunks() {
            let c = src.chunk(i).map_err(|e| {
                Fail::msg(format!(
                    "{}: {}",
                    a.input.display(),
                    f.read_error(&src, i, e)
                ))
            })?;
            let nc = recompress_chunk(&src, &dst, i, &c, &mut buf)
                .map_err(|e| Fail::at(&a.input, &format!("chunk {i}"), e))?;
            dst.append_chunk(&nc)
                .map_err(|e| Fail::at(out, &format!("cannot append chunk {i}"), e))?;
            pb.inc(ChunkHeader::read(&nc).map(|h| h.nbytes as u64).unwrap_or(0));
        }
        // a stale or damaged source's checksum table describes its old
        // chunks: never copied (OUTPUT with checksums gets its own)
        for m in src
            .vlmetalayers
            .iter()
            .filter(|m| m.name != checksum::VLMETA_NAME)
        {
            let content = src
                .vlmeta_get(&m.name)
                .map_err(|e| Fail::at(&a.input, &format!("vlmetalayer '{}'", m.name), e))?;
            dst.vlmeta_add(&m.name, &content, None)
                .map_err(|e| Fail::at(out, &format!("vlmetalayer '{}'", m.name), e))?;
        }
        Ok(dst)
    })?;
    pb.finish_and_clear();
    report_written(&a.output, &w);
    Ok(ExitCode::SUCCESS)
}
