//! `b2`: look into, check, and convert Blosc2 frames, sparse frames, chunks
//! and b2nd arrays, as written by C-Blosc2, python-blosc2 or this project.

mod info;
mod source;

use blosc2_core::b2nd::array::Array;
use blosc2_core::chunk::{ChunkHeader, DParams, Decompressor};
use blosc2_core::{CParams, Codec, Error, ErrorKind, Filter, Schunk};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use source::Source;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "b2",
    version,
    about = "Inspect, verify and convert Blosc2 frames, chunks and b2nd arrays"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a frame (header, trailer, chunk index, metalayers, b2nd
    /// geometry), a sparse frame directory or a single chunk.
    Info {
        /// A .b2frame/.b2nd file, a sparse frame directory or a chunk file.
        file: PathBuf,
        /// Where the frame starts in the file.
        #[arg(long, default_value_t = 0)]
        offset: u64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Decompress everything; exit 1 at the first chunk that fails, naming it.
    Verify {
        /// A frame file, a sparse frame directory or a chunk file.
        file: PathBuf,
        /// Where the frame starts in the file.
        #[arg(long, default_value_t = 0)]
        offset: u64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Compress a raw file into a contiguous frame.
    Compress {
        /// The raw input file.
        input: PathBuf,
        /// The frame file to write (replaced if it exists).
        output: PathBuf,
        #[command(flatten)]
        params: ParamArgs,
        /// Bytes per chunk (a multiple of the typesize).
        #[arg(long, default_value_t = 4 << 20)]
        chunksize: usize,
    },
    /// Write the data of a frame (or chunk) to a raw file.
    Decompress {
        /// A frame file, a sparse frame directory or a chunk file.
        input: PathBuf,
        /// The raw file to write.
        output: PathBuf,
        /// Where the frame starts in the input.
        #[arg(long, default_value_t = 0)]
        offset: u64,
    },
    /// Rewrite a frame with another codec, level or filters; the content,
    /// chunk sizes, block size and metalayers stay (b2nd arrays stay arrays).
    Recompress {
        /// A frame file or sparse frame directory.
        input: PathBuf,
        /// The contiguous frame file to write (replaced if it exists).
        output: PathBuf,
        /// The codec (default: the input's).
        #[arg(long, value_enum)]
        codec: Option<CodecArg>,
        /// The level, 0-9 (default: the input's).
        #[arg(long)]
        clevel: Option<u8>,
        /// The filters, in order (default: the input's).
        #[arg(long, value_enum, value_delimiter = ',')]
        filter: Option<Vec<FilterArg>>,
        /// Threads to compress with.
        #[arg(long, default_value_t = 1)]
        nthreads: usize,
    },
    /// Write decompressed data to stdout: all of it, or a slice.
    Cat {
        /// A frame file, a sparse frame directory or a chunk file.
        file: PathBuf,
        /// Items START:STOP of a super-chunk, or one START:STOP per
        /// dimension of a b2nd array, separated by commas (`0:10,5:7`).
        #[arg(long)]
        slice: Option<String>,
        /// Where the frame starts in the file.
        #[arg(long, default_value_t = 0)]
        offset: u64,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum CodecArg {
    Blosclz,
    Lz4,
    Lz4hc,
    Zlib,
    Zstd,
}

impl From<CodecArg> for Codec {
    fn from(c: CodecArg) -> Codec {
        match c {
            CodecArg::Blosclz => Codec::BloscLz,
            CodecArg::Lz4 => Codec::Lz4,
            CodecArg::Lz4hc => Codec::Lz4Hc,
            CodecArg::Zlib => Codec::Zlib,
            CodecArg::Zstd => Codec::Zstd,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum FilterArg {
    None,
    Shuffle,
    Bitshuffle,
    Delta,
    Bytedelta,
}

fn filters_of(args: &[FilterArg]) -> Vec<Filter> {
    args.iter()
        .filter_map(|f| match f {
            FilterArg::None => None,
            FilterArg::Shuffle => Some(Filter::Shuffle),
            FilterArg::Bitshuffle => Some(Filter::BitShuffle),
            FilterArg::Delta => Some(Filter::Delta),
            FilterArg::Bytedelta => Some(Filter::ByteDelta),
        })
        .collect()
}

#[derive(clap::Args)]
struct ParamArgs {
    /// The codec.
    #[arg(long, value_enum, default_value = "blosclz")]
    codec: CodecArg,
    /// The level, 0 (store) to 9.
    #[arg(long, default_value_t = 5)]
    clevel: u8,
    /// The filters, in order (`--filter shuffle,delta`; `none` for none).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "shuffle")]
    filter: Vec<FilterArg>,
    /// The item size in bytes, which the shuffle filters group by.
    #[arg(long, default_value_t = 1)]
    typesize: usize,
    /// Threads to compress with.
    #[arg(long, default_value_t = 1)]
    nthreads: usize,
}

/// A progress bar on stderr for `total` units, drawn only on a terminal.
fn progress(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(total),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta})") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}

fn io_err(kind: ErrorKind, path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::new(kind).with_path(path).with_source(e)
}

/// Chunk `i` of a frame, decompressed.
fn frame_chunk(sc: &blosc2_core::schunk::SuperChunk, i: i64) -> Result<Vec<u8>, Error> {
    let c = sc.chunk(i)?;
    let h = ChunkHeader::read(&c)?;
    let mut out = vec![0u8; h.nbytes.max(0) as usize];
    let n = sc.decompress_chunk(i, &mut out)?;
    out.truncate(n);
    Ok(out)
}

fn chunk_data(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    let h = ChunkHeader::read(bytes)?;
    let mut out = vec![0u8; h.nbytes.max(0) as usize];
    let n = Decompressor::new(DParams::default()).decompress(bytes, &mut out)?;
    out.truncate(n);
    Ok(out)
}

fn info(file: &Path, offset: u64, as_json: bool) -> Result<(), Error> {
    let src = source::open(file, offset)?;
    let v = info::describe(&src)?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print!("{}", info::render(&v));
    }
    Ok(())
}

/// Verification outcome: Ok(count of chunks checked) or the first failure.
fn verify(file: &Path, offset: u64, as_json: bool) -> Result<bool, Error> {
    let src = source::open(file, offset)?;
    let (n, bad) = match &src {
        Source::Chunk { bytes, .. } => (1, chunk_data(bytes).err().map(|e| (0, e))),
        Source::Frame { sc, .. } => {
            let n = sc.nchunks();
            let bar = progress(n.max(0) as u64, "verifying");
            let mut bad = None;
            for i in 0..n {
                if let Err(e) = frame_chunk(sc, i) {
                    bad = Some((i, e));
                    break;
                }
                bar.inc(1);
            }
            bar.finish_and_clear();
            if bad.is_none() {
                for m in &sc.vlmetalayers {
                    if let Err(k) = sc.vlmeta_get(&m.name) {
                        bad = Some((
                            -1,
                            Error::new(k).with_detail(format!("vlmetalayer '{}'", m.name)),
                        ));
                        break;
                    }
                }
            }
            if bad.is_none() && sc.metalayers.iter().any(|m| m.name == "b2nd") {
                if let Err(k) = Array::from_schunk(&**sc) {
                    bad = Some((-1, Error::new(k).with_detail("b2nd metalayer")));
                }
            }
            (n, bad)
        }
    };
    let ok = bad.is_none();
    if as_json {
        let v = match &bad {
            None => json!({"path": file.display().to_string(), "ok": true, "chunks": n}),
            Some((i, e)) => json!({
                "path": file.display().to_string(),
                "ok": false,
                "chunk": if *i >= 0 { json!(i) } else { json!(null) },
                "error": e.to_string(),
                "code": e.code(),
            }),
        };
        println!("{v}");
    } else {
        match &bad {
            None => println!("{}: OK, {n} chunks decompressed", file.display()),
            Some((i, e)) if *i >= 0 => println!("{}: chunk {i} is bad: {e}", file.display()),
            Some((_, e)) => println!("{}: bad: {e}", file.display()),
        }
    }
    Ok(ok)
}

fn compress(input: &Path, output: &Path, p: &ParamArgs, chunksize: usize) -> Result<(), Error> {
    if chunksize == 0 || !chunksize.is_multiple_of(p.typesize.max(1)) {
        return Err(Error::new(ErrorKind::InvalidParam)
            .with_parameter("chunksize")
            .with_detail(format!(
                "{chunksize} is not a multiple of the typesize {}",
                p.typesize
            )));
    }
    let params = CParams::new()
        .codec(p.codec.into())
        .clevel(p.clevel)
        .filters(&filters_of(&p.filter))
        .typesize(p.typesize)
        .nthreads(p.nthreads);
    let mut f = std::fs::File::open(input).map_err(io_err(ErrorKind::FileOpen, input))?;
    let total = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut sc = Schunk::create(output, &params)?;
    let bar = progress(total, "compressing");
    let mut buf = vec![0u8; chunksize];
    loop {
        let mut filled = 0;
        while filled < buf.len() {
            let n = f
                .read(&mut buf[filled..])
                .map_err(io_err(ErrorKind::FileRead, input))?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if filled == 0 {
            break;
        }
        sc.append_bytes(&buf[..filled])?;
        bar.inc(filled as u64);
        if filled < buf.len() {
            break;
        }
    }
    bar.finish_and_clear();
    eprintln!(
        "{}: {} chunks, {} -> {} bytes",
        output.display(),
        sc.nchunks(),
        sc.nbytes(),
        sc.cbytes()
    );
    Ok(())
}

fn decompress(input: &Path, output: &Path, offset: u64) -> Result<(), Error> {
    let src = source::open(input, offset)?;
    let f = std::fs::File::create(output).map_err(io_err(ErrorKind::FileOpen, output))?;
    let mut w = std::io::BufWriter::new(f);
    let put = |w: &mut std::io::BufWriter<std::fs::File>, data: &[u8]| {
        w.write_all(data)
            .map_err(io_err(ErrorKind::FileWrite, output))
    };
    match &src {
        Source::Chunk { bytes, .. } => put(&mut w, &chunk_data(bytes)?)?,
        Source::Frame { sc, .. } => {
            let bar = progress(sc.nchunks().max(0) as u64, "decompressing");
            for i in 0..sc.nchunks() {
                let data = frame_chunk(sc, i).map_err(|e| e.with_detail(format!("chunk {i}")))?;
                put(&mut w, &data)?;
                bar.inc(1);
            }
            bar.finish_and_clear();
        }
    }
    w.flush().map_err(io_err(ErrorKind::FileWrite, output))
}

fn recompress(
    input: &Path,
    output: &Path,
    codec: Option<CodecArg>,
    clevel: Option<u8>,
    filter: Option<&[FilterArg]>,
    nthreads: usize,
) -> Result<(), Error> {
    let Source::Frame { sc, .. } = source::open(input, 0)? else {
        return Err(Error::new(ErrorKind::FrameType)
            .with_path(input)
            .with_detail("recompress takes a frame, not a single chunk"));
    };
    let old = sc.cparams();
    let mut params = CParams::new()
        .codec(
            codec
                .map(Codec::from)
                .unwrap_or_else(|| Codec::from_id(old.compcode).unwrap_or(Codec::BloscLz)),
        )
        .clevel(clevel.unwrap_or(old.clevel))
        .typesize(sc.typesize().max(1) as usize)
        .nthreads(nthreads)
        // b2nd arrays need their blocks to stay the blockshape's
        .blocksize(sc.blocksize.max(0) as usize);
    params = match filter {
        Some(f) => params.filters(&filters_of(f)),
        None => params.filters(
            &old.filters
                .iter()
                .zip(old.filters_meta)
                .filter(|(&id, _)| id != 0)
                .filter_map(|(&id, m)| Filter::from_id(id, m))
                .collect::<Vec<_>>(),
        ),
    };
    let mut out = Schunk::create(output, &params)?;
    for m in &sc.metalayers {
        out.set_meta(&m.name, &m.content)?;
    }
    let bar = progress(sc.nchunks().max(0) as u64, "recompressing");
    for i in 0..sc.nchunks() {
        let data = frame_chunk(&sc, i).map_err(|e| e.with_detail(format!("chunk {i}")))?;
        out.append_bytes(&data)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    for m in &sc.vlmetalayers {
        out.set_vlmeta(&m.name, &sc.vlmeta_get(&m.name)?)?;
    }
    eprintln!(
        "{}: {} chunks, {} -> {} bytes (was {})",
        output.display(),
        out.nchunks(),
        out.nbytes(),
        out.cbytes(),
        sc.cbytes()
    );
    Ok(())
}

fn parse_ranges(s: &str) -> Result<Vec<(i64, i64)>, Error> {
    s.split(',')
        .map(|r| {
            let (a, b) = r.split_once(':').unwrap_or((r, ""));
            let a: i64 = a.trim().parse().map_err(|_| bad_slice(s))?;
            let b: i64 = if b.trim().is_empty() {
                a + 1
            } else {
                b.trim().parse().map_err(|_| bad_slice(s))?
            };
            Ok((a, b))
        })
        .collect()
}

fn bad_slice(s: &str) -> Error {
    Error::new(ErrorKind::InvalidParam)
        .with_parameter("slice")
        .with_detail(format!("'{s}' is not START:STOP[,START:STOP...]"))
}

fn cat(file: &Path, slice: Option<&str>, offset: u64) -> Result<(), Error> {
    let src = source::open(file, offset)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let put = |w: &mut dyn Write, data: &[u8]| {
        w.write_all(data)
            .map_err(|e| Error::new(ErrorKind::FileWrite).with_source(e))
    };
    match (&src, slice) {
        (Source::Chunk { bytes, .. }, None) => put(&mut w, &chunk_data(bytes)?)?,
        (Source::Chunk { .. }, Some(_)) => {
            return Err(Error::new(ErrorKind::InvalidParam)
                .with_parameter("slice")
                .with_detail("a single chunk has no slices: use `cat` without --slice"))
        }
        (Source::Frame { sc, .. }, None) => {
            if sc.metalayers.iter().any(|m| m.name == "b2nd") {
                let a = Array::from_schunk(&**sc)?;
                let mut buf = vec![0u8; a.nbytes()?];
                a.to_cbuffer(&mut buf)?;
                put(&mut w, &buf)?;
            } else {
                for i in 0..sc.nchunks() {
                    put(&mut w, &frame_chunk(sc, i)?)?;
                }
            }
        }
        (Source::Frame { sc, .. }, Some(s)) => {
            let ranges = parse_ranges(s)?;
            if sc.metalayers.iter().any(|m| m.name == "b2nd") {
                let a = Array::from_schunk(&**sc)?;
                if ranges.len() != a.ndim() {
                    return Err(bad_slice(s).with_detail(format!(
                        "{} ranges for an array of {} dimensions",
                        ranges.len(),
                        a.ndim()
                    )));
                }
                let start: Vec<i64> = ranges.iter().map(|r| r.0).collect();
                let stop: Vec<i64> = ranges.iter().map(|r| r.1).collect();
                a.check_range(&start, &stop).map_err(|k| {
                    Error::new(k)
                        .with_parameter("slice")
                        .with_detail(s.to_string())
                })?;
                let shape: Vec<i64> = ranges.iter().map(|r| r.1 - r.0).collect();
                let n = shape.iter().product::<i64>() as usize * a.typesize().max(0) as usize;
                let mut buf = vec![0u8; n];
                if n > 0 {
                    a.get_slice_cbuffer(&start, &stop, &mut buf, &shape)?;
                }
                put(&mut w, &buf)?;
            } else {
                let [(start, stop)] = ranges[..] else {
                    return Err(
                        bad_slice(s).with_detail("a super-chunk takes one START:STOP of items")
                    );
                };
                if start < 0 || stop < start {
                    return Err(bad_slice(s));
                }
                let ts = sc.typesize().max(1) as usize;
                let mut buf = vec![0u8; (stop - start) as usize * ts];
                sc.get_slice(start, stop, &mut buf).map_err(|k| {
                    Error::new(k)
                        .with_parameter("slice")
                        .with_detail(s.to_string())
                })?;
                put(&mut w, &buf)?;
            }
        }
    }
    w.flush()
        .map_err(|e| Error::new(ErrorKind::FileWrite).with_source(e))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match &cli.command {
        Command::Info { file, offset, json } => info(file, *offset, *json).map(|()| true),
        Command::Verify { file, offset, json } => verify(file, *offset, *json),
        Command::Compress {
            input,
            output,
            params,
            chunksize,
        } => compress(input, output, params, *chunksize).map(|()| true),
        Command::Decompress {
            input,
            output,
            offset,
        } => decompress(input, output, *offset).map(|()| true),
        Command::Recompress {
            input,
            output,
            codec,
            clevel,
            filter,
            nthreads,
        } => {
            recompress(input, output, *codec, *clevel, filter.as_deref(), *nthreads).map(|()| true)
        }
        Command::Cat {
            file,
            slice,
            offset,
        } => cat(file, slice.as_deref(), *offset).map(|()| true),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("b2: {e}");
            ExitCode::from(2)
        }
    }
}
