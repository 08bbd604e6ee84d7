//! `b2 compress`, `b2 decompress` and `b2 recompress`.
//!
//! Outputs are written under a temporary name next to OUTPUT and renamed
//! once complete, so an interrupted run never leaves a frame that looks
//! whole but is not.

use blosc2_core::chunk::header::EXTENDED_HEADER_LENGTH;
use blosc2_core::chunk::params::codec;
use blosc2_core::chunk::special::make_special;
use blosc2_core::chunk::{vlblocks, CParams, ChunkHeader, DParams, Decompressor, Special};
use blosc2_core::schunk::{Storage, SuperChunk};
use std::fs;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::input::{self, Input};
use crate::{names, progress, threads, CompressArgs, DecompressArgs, Fail, Params, RecompressArgs};

fn is_dash(p: &Path) -> bool {
    p.as_os_str() == "-"
}

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
        let code = names::codec_code(c).map_err(Fail)?;
        if code != cp.compcode {
            cp.compcode = code;
            // codec meta and dictionaries belong to the old codec
            cp.compcode_meta = 0;
            cp.use_dict = cp.use_dict && matches!(code, codec::LZ4 | codec::LZ4HC | codec::ZSTD);
        }
    }
    if let Some(l) = p.clevel {
        cp.clevel = l;
    }
    if !p.filters.is_empty() {
        let list = names::parse_filters(&p.filters).map_err(Fail)?;
        (cp.filters, cp.filters_meta) = names::pack_filters(&list);
    }
    Ok(cp)
}

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

/// The one-line summary of a frame file written by `compress` or
/// `recompress`, on stderr.
fn report_written(output: &Path, nchunks: i64, nbytes: i64) {
    let size = fs::metadata(output).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "{}: {nchunks} chunk(s), {nbytes} bytes -> {size} bytes (ratio {:.2}x)",
        output.display(),
        ratio(nbytes, size)
    );
}

fn ratio(nbytes: i64, cbytes: u64) -> f64 {
    if cbytes == 0 {
        0.0
    } else {
        nbytes as f64 / cbytes as f64
    }
}

pub fn compress(a: &CompressArgs) -> Result<ExitCode, Fail> {
    let base = CParams {
        compcode: codec::ZSTD,
        clevel: 5,
        typesize: a.typesize,
        nthreads: a.common.nthreads,
        ..CParams::default()
    };
    let cp = cparams(&a.params, base)?;
    let ts = a.typesize as u64;
    let max = blosc2_core::chunk::header::MAX_BUFFERSIZE as u64;
    let chunksize = (a.chunksize.min(max) / ts * ts).max(ts) as usize;
    let (mut reader, total): (Box<dyn Read>, u64) = if is_dash(&a.input) {
        (Box::new(io::stdin().lock()), 0)
    } else {
        let f = fs::File::open(&a.input).map_err(|e| Fail::at(&a.input, "cannot open", e))?;
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        (Box::new(f), len)
    };
    let pb = progress::bar(total, true, !a.common.no_progress, "compressing");
    let (nchunks, nbytes) = write_via_tmp(&a.output, a.force, |tmp| {
        let mut sc = SuperChunk::new(Storage {
            contiguous: true,
            urlpath: Some(tmp.to_path_buf()),
            cparams: cp.clone(),
            dparams: DParams {
                nthreads: a.common.nthreads,
                typesize: a.typesize,
            },
            ..Storage::default()
        })
        .map_err(|e| Fail::at(&a.output, "cannot create the frame", e))?;
        let mut buf = vec![0u8; chunksize];
        loop {
            let n = fill(&mut reader, &mut buf).map_err(|e| Fail::at(&a.input, "read error", e))?;
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
        Ok((sc.nchunks(), sc.nbytes()))
    })?;
    pb.finish_and_clear();
    report_written(&a.output, nchunks, nbytes);
    Ok(ExitCode::SUCCESS)
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
                let nb = sc
                    .chunk(i)
                    .and_then(|c| ChunkHeader::read(&c))
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

/// What a closed output pipe (`| head`) is reported as, so that callers
/// writing to standard output can treat it as the reader's choice.
const BROKEN_PIPE: &str = "write error: broken pipe";

fn write_err(e: io::Error) -> Fail {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Fail::msg(BROKEN_PIPE);
    }
    Fail::msg(format!("write error: {e}"))
}

pub fn decompress(a: &DecompressArgs) -> Result<ExitCode, Fail> {
    let src = input::open(&a.input, a.offset)?;
    let show = !a.common.no_progress;
    if is_dash(&a.output) {
        let mut out = BufWriter::new(io::stdout().lock());
        match write_content(src, a.common.nthreads, show, &mut out)
            .and_then(|_| out.flush().map_err(write_err))
        {
            Err(Fail(m)) if m == BROKEN_PIPE => {}
            r => {
                r?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (nchunks, nbytes) = write_via_tmp(&a.output, a.force, |tmp| {
        let f = fs::File::create(tmp).map_err(|e| Fail::at(&a.output, "cannot create", e))?;
        let mut w = BufWriter::new(f);
        let r = write_content(src, a.common.nthreads, show, &mut w)?;
        w.flush().map_err(write_err)?;
        Ok(r)
    })?;
    eprintln!(
        "{}: {nbytes} bytes from {nchunks} chunk(s)",
        a.output.display()
    );
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

pub fn recompress(a: &RecompressArgs) -> Result<ExitCode, Fail> {
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
    let base = CParams {
        nthreads: a.common.nthreads,
        ..src.cparams().clone()
    };
    let cp = cparams(&a.params, base)?;
    let pb = progress::bar(
        src.nbytes().max(0) as u64,
        true,
        !a.common.no_progress,
        "recompressing",
    );
    let (nchunks, nbytes) = write_via_tmp(&a.output, a.force, |tmp| {
        let out = &a.output;
        let mut dst = SuperChunk::new(Storage {
            contiguous: true,
            urlpath: Some(tmp.to_path_buf()),
            cparams: cp.clone(),
            dparams: DParams {
                nthreads: a.common.nthreads,
                typesize: cp.typesize,
            },
            ..Storage::default()
        })
        .map_err(|e| Fail::at(out, "cannot create the frame", e))?;
        // b2nd arrays read blocks by the block size their blockshape gives
        dst.blocksize = src.blocksize;
        // fixed metalayers live in the header, which cannot grow once
        // chunks follow it
        for m in &src.metalayers {
            dst.meta_add(&m.name, &m.content)
                .map_err(|e| Fail::at(out, &format!("metalayer '{}'", m.name), e))?;
        }
        let mut buf = Vec::new();
        for i in 0..src.nchunks() {
            let c = src
                .chunk(i)
                .map_err(|e| Fail::at(&a.input, &format!("chunk {i}"), e))?;
            let nc = recompress_chunk(&src, &dst, i, &c, &mut buf)
                .map_err(|e| Fail::at(&a.input, &format!("chunk {i}"), e))?;
            dst.append_chunk(&nc)
                .map_err(|e| Fail::at(out, &format!("cannot append chunk {i}"), e))?;
            pb.inc(ChunkHeader::read(&nc).map(|h| h.nbytes as u64).unwrap_or(0));
        }
        for m in &src.vlmetalayers {
            let content = src
                .vlmeta_get(&m.name)
                .map_err(|e| Fail::at(&a.input, &format!("vlmetalayer '{}'", m.name), e))?;
            dst.vlmeta_add(&m.name, &content, None)
                .map_err(|e| Fail::at(out, &format!("vlmetalayer '{}'", m.name), e))?;
        }
        Ok((dst.nchunks(), dst.nbytes()))
    })?;
    pb.finish_and_clear();
    report_written(&a.output, nchunks, nbytes);
    Ok(ExitCode::SUCCESS)
}
