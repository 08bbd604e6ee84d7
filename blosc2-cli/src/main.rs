//! `b2`: inspect, check and convert Blosc2 data from the command line.
//!
//! Works on contiguous frames (`.b2frame`, `.b2nd` files, also at an offset
//! inside a bigger file), sparse frames (directories holding
//! `chunks.b2frame`) and single chunks (a file holding one compressed chunk).

mod cat;
mod convert;
mod info;
mod input;
mod names;
mod progress;
mod threads;
mod verify;

use clap::{Args, Parser, Subcommand};
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A failure to report: one line for the user, exit status 1.
#[derive(Debug)]
pub struct Fail(pub String);

impl Fail {
    pub fn msg(s: impl Into<String>) -> Fail {
        Fail(s.into())
    }
    /// A core error, which carries only a code, with the file and the step.
    pub fn at(path: &Path, what: &str, e: impl Display) -> Fail {
        Fail(format!("{}: {what}: {e}", path.display()))
    }
}

#[derive(Parser)]
#[command(
    name = "b2",
    version,
    about = "Inspect, verify, compress, decompress and slice Blosc2 data",
    long_about = "Inspect, verify, compress, decompress and slice Blosc2 data: contiguous \
                  frames (.b2frame, .b2nd), sparse frames (directories with chunks.b2frame), \
                  b2nd arrays and single chunks, as C-Blosc2 2.x/3.x write them."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Show the frame header, trailer, chunk index, metalayers and b2nd geometry.
    Info(InfoArgs),
    /// Decompress everything; exit non-zero at the first bad chunk.
    Verify(VerifyArgs),
    /// Compress a raw file into a contiguous frame.
    Compress(CompressArgs),
    /// Write the uncompressed chunks of a frame (or a chunk) to a raw file.
    Decompress(DecompressArgs),
    /// Rewrite a frame with another codec, level or filters, keeping content and metalayers.
    Recompress(RecompressArgs),
    /// Write decompressed bytes to standard output, optionally a slice.
    Cat(CatArgs),
}

/// Options for reading FILE.
#[derive(Args, Clone)]
pub struct Source {
    /// A frame file, a sparse frame directory or a chunk file.
    pub file: PathBuf,
    /// Where the frame starts in FILE (frames appended to other data).
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub offset: u64,
}

#[derive(Args, Clone)]
pub struct Common {
    /// Threads for (de)compressing each chunk.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i16).range(1..))]
    pub nthreads: i16,
    /// Never show a progress bar (it only shows when stderr is a terminal).
    #[arg(long)]
    pub no_progress: bool,
}

#[derive(Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub src: Source,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub src: Source,
    #[command(flatten)]
    pub common: Common,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// Compression parameters; when recompressing, unset ones keep the source's.
#[derive(Args, Clone, Default)]
pub struct Params {
    /// blosclz, lz4, lz4hc, zlib, zstd, ndlz, zfp_acc, zfp_prec, zfp_rate (or an id).
    #[arg(long)]
    pub codec: Option<String>,
    /// Compression level, 0 (none) to 9.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=9))]
    pub clevel: Option<u8>,
    /// Filters in the order they run: shuffle, bitshuffle, delta, trunc_prec,
    /// bytedelta, int_trunc, ndcell, ndmean, nofilter (NAME or NAME:META,
    /// repeatable or comma-separated, at most 6).
    #[arg(long = "filter", value_name = "FILTER")]
    pub filters: Vec<String>,
}

#[derive(Args)]
pub struct CompressArgs {
    /// Raw input file ('-' for standard input).
    pub input: PathBuf,
    /// Contiguous frame to write.
    pub output: PathBuf,
    #[command(flatten)]
    pub params: Params,
    /// Item size in bytes (what shuffle and delta work on).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i32).range(1..))]
    pub typesize: i32,
    /// Bytes per chunk (suffixes K, M, G); rounded down to a whole number of items.
    #[arg(long, default_value = "4M", value_parser = parse_size)]
    pub chunksize: u64,
    #[command(flatten)]
    pub common: Common,
    /// Replace OUTPUT if it exists.
    #[arg(long, short)]
    pub force: bool,
}

#[derive(Args)]
pub struct DecompressArgs {
    /// Frame, sparse frame directory or chunk file.
    pub input: PathBuf,
    /// Raw file to write ('-' for standard output).
    pub output: PathBuf,
    /// Where the frame starts in INPUT.
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub offset: u64,
    #[command(flatten)]
    pub common: Common,
    /// Replace OUTPUT if it exists.
    #[arg(long, short)]
    pub force: bool,
}

#[derive(Args)]
pub struct RecompressArgs {
    /// Frame or sparse frame directory.
    pub input: PathBuf,
    /// Contiguous frame to write.
    pub output: PathBuf,
    /// Where the frame starts in INPUT.
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub offset: u64,
    #[command(flatten)]
    pub params: Params,
    #[command(flatten)]
    pub common: Common,
    /// Replace OUTPUT if it exists.
    #[arg(long, short)]
    pub force: bool,
}

#[derive(Args)]
pub struct CatArgs {
    #[command(flatten)]
    pub src: Source,
    /// Items START:STOP (either may be left out); for b2nd arrays one range
    /// per dimension, comma-separated ("0:10,5:7"), written in C order.
    #[arg(long, value_name = "RANGE")]
    pub slice: Option<String>,
    #[command(flatten)]
    pub common: Common,
}

/// `4096`, `64K`, `4M`, `1G` (powers of 1024).
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M') => (&t[..t.len() - 1], 1 << 20),
        Some('G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = num.parse().map_err(|_| format!("bad size '{s}'"))?;
    n.checked_mul(mult)
        .filter(|&v| v > 0)
        .ok_or_else(|| format!("bad size '{s}'"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Info(a) => info::run(&a),
        Cmd::Verify(a) => verify::run(&a),
        Cmd::Compress(a) => convert::compress(&a),
        Cmd::Decompress(a) => convert::decompress(&a),
        Cmd::Recompress(a) => convert::recompress(&a),
        Cmd::Cat(a) => cat::run(&a),
    };
    match r {
        Ok(code) => code,
        Err(Fail(m)) => {
            eprintln!("b2: {m}");
            ExitCode::FAILURE
        }
    }
}
