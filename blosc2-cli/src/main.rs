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
mod out;
mod progress;
mod sums;
mod threads;
mod verify;

use clap::{Args, Parser, Subcommand};
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A failure to report: one line for the user, exit status 1.
#[derive(Debug)]
pub(crate) struct Fail(pub(crate) String);

impl Fail {
    pub(crate) fn msg(s: impl Into<String>) -> Fail {
        Fail(s.into())
    }
    /// A core error, which carries only a code, with the file and the step.
    pub(crate) fn at(path: &Path, what: &str, e: impl Display) -> Fail {
        Fail(format!("{}: {what}: {e}", path.display()))
    }
    /// Standard output closed by its reader (`| head`): the reader's
    /// choice, so main exits without a message, with [`PIPE_CLOSED_STATUS`].
    pub(crate) fn pipe_closed() -> Fail {
        Fail(PIPE_CLOSED.into())
    }
    pub(crate) fn is_pipe_closed(&self) -> bool {
        self.0 == PIPE_CLOSED
    }
}

/// No message is ever this (messages are never empty).
const PIPE_CLOSED: &str = "";

/// The exit status after a closed pipe: 128 + SIGPIPE (13), what a shell
/// reports for `cat` or `gzip -dc` killed by SIGPIPE in the same place.
/// Rust ignores SIGPIPE, so b2 sees the write fail instead of dying; it
/// exits with that status so that `set -o pipefail` scripts and
/// `${PIPESTATUS[0]}` see b2 as they see coreutils (a truncated output
/// is not success).
const PIPE_CLOSED_STATUS: u8 = 128 + 13;

#[derive(Parser)]
#[command(
    name = "b2",
    version,
    about = "Inspect, verify, compress, decompress and slice Blosc2 data",
    long_about = "Inspect, verify, compress, decompress and slice Blosc2 data: contiguous \
                  frames (.b2frame, .b2nd), sparse frames (directories with chunks.b2frame), \
                  b2nd arrays and single chunks, as C-Blosc2 2.x/3.x write them.",
    after_help = "Exit status: 0 on success, 1 on failure (for verify: any FILE bad), 141 \
                  (128 + SIGPIPE, as for cat) when the reader of standard output closed it \
                  early."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Show the frame header, trailer, chunk index, metalayers and b2nd geometry.
    Info(InfoArgs),
    /// Decompress everything in each FILE and check its checksums; name the
    /// first bad chunk of each, exit non-zero if any FILE is bad.
    #[command(long_about = VERIFY_ABOUT)]
    Verify(VerifyArgs),
    /// Compress a raw file into a contiguous frame.
    Compress(CompressArgs),
    /// Write the uncompressed chunks of a frame (or a chunk) to a raw file.
    Decompress(DecompressArgs),
    /// Rewrite a frame with another codec, level or filters, keeping content,
    /// metalayers and checksums.
    Recompress(RecompressArgs),
    /// Write decompressed bytes to standard output, optionally a slice.
    Cat(CatArgs),
}

const VERIFY_ABOUT: &str = "\
Decompress everything in each FILE and check its checksums; name the first bad \
chunk of each, exit non-zero if any FILE is bad.

Every chunk must decode to the size its header and the frame promise, the sizes \
must add up and the metalayers must decode. In a frame written with checksums \
(b2 compress --checksum) every chunk is also checked against its digest, all of \
them even after a bad one. A frame's line ends with the checksum verdict, \
'; checksums: STATE: COUNTS', STATE being one of

  sealed                 the seal matches; chunks are checked against their digests
  metalayers changed     sealed, but a metalayer was rewritten in place by a writer \
without checksums (not data corruption); chunks are checked
  unverified             the frame has no checksums: nothing checked (C-Blosc2 \
writes none)
  stale                  changed by a writer without checksums after it was sealed: \
nothing checked
  corrupt: seal          the chunk index, the checksum table or the trailer is damaged
  corrupt: header        the frame header's fields are damaged
  corrupt: chunk count   the checksum table and the chunk index disagree

and COUNTS the chunks verified, corrupt (their numbers), stale and unverified, \
like 'sealed: 3 verified, 1 corrupt (chunk 2)'. Corrupt chunks and a corrupt \
frame fail; unverified and stale frames do not.

With --json, one object per FILE, whose \"checksums\" is {\"state\", \"damage\" \
(\"seal\", \"header\", \"chunk count\" or null), \"verified\", \"corrupt\" (chunk \
numbers), \"stale\", \"unverified\"}, or null for a single chunk or a frame that \
does not open.";

/// Options for reading FILE.
#[derive(Args, Clone)]
pub(crate) struct Source {
    /// A frame file, a sparse frame directory or a chunk file ('-' for
    /// standard input).
    pub(crate) file: PathBuf,
    /// Where the frame starts in FILE (frames appended to other data).
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub(crate) offset: u64,
}

#[derive(Args, Clone)]
pub(crate) struct Common {
    /// Threads for (de)compressing each chunk.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i16).range(1..))]
    pub(crate) nthreads: i16,
    /// Never show a progress bar (it only shows when stderr is a terminal).
    #[arg(long)]
    pub(crate) no_progress: bool,
}

#[derive(Args)]
pub(crate) struct InfoArgs {
    #[command(flatten)]
    pub(crate) src: Source,
    /// Machine-readable output.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args)]
pub(crate) struct VerifyArgs {
    /// Frame files, sparse frame directories or chunk files ('-' for
    /// standard input); each gets a line, and several a summary.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Where the frame starts in each FILE (frames appended to other data).
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub(crate) offset: u64,
    #[command(flatten)]
    pub(crate) common: Common,
    /// Machine-readable output.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Compression parameters; when recompressing, unset ones keep the source's.
#[derive(Args, Clone, Default)]
pub(crate) struct Params {
    /// blosclz, lz4, lz4hc, zlib, zstd, or an id; NAME:META sets the codec's
    /// meta. For b2nd arrays only (compress --shape): ndlz:4 or ndlz:8 (cell
    /// side, 2-D), zfp_acc:E (error within 10^E), zfp_prec:BITS, zfp_rate:PCT
    /// (percent of the input size), on float32/float64 items.
    #[arg(long, value_name = "CODEC")]
    pub(crate) codec: Option<String>,
    /// Compression level, 0 (none) to 9.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=9))]
    pub(crate) clevel: Option<u8>,
    /// Filters in the order they run: shuffle, bitshuffle, delta, trunc_prec,
    /// bytedelta, int_trunc, nofilter (NAME or NAME:META, repeatable or
    /// comma-separated, at most 6). For b2nd arrays only: ndcell:SIDE,
    /// ndmean:SIDE (float32/float64).
    #[arg(long = "filter", value_name = "FILTER")]
    pub(crate) filters: Vec<String>,
}

#[derive(Args)]
pub(crate) struct CompressArgs {
    /// Raw input file ('-' for standard input).
    pub(crate) input: PathBuf,
    /// Contiguous frame to write ('-' for standard output).
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) params: Params,
    /// Item size in bytes (what shuffle and delta work on) [default: 1, or
    /// the size of --dtype].
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..))]
    pub(crate) typesize: Option<i32>,
    /// Item type, NumPy style: f4, f8, i2, u1, <f8, float64, int32... Sets
    /// the typesize, and the dtype of a b2nd array (--shape).
    #[arg(long)]
    pub(crate) dtype: Option<String>,
    /// Write a b2nd array of this shape (items per dimension, C order, like
    /// 1000,500) instead of a plain frame; INPUT must hold exactly its items.
    #[arg(long, value_name = "DIMS")]
    pub(crate) shape: Option<String>,
    /// With --shape: items per chunk in each dimension [default: from
    /// --chunksize].
    #[arg(long, value_name = "DIMS", requires = "shape")]
    pub(crate) chunkshape: Option<String>,
    /// With --shape: items per block in each dimension [default: blocks of
    /// at most 256 KiB].
    #[arg(long, value_name = "DIMS", requires = "shape")]
    pub(crate) blockshape: Option<String>,
    /// Bytes per chunk (suffixes K, M, G); rounded down to a whole number of items.
    #[arg(long, default_value = "4M", value_parser = parse_size)]
    pub(crate) chunksize: u64,
    #[command(flatten)]
    pub(crate) common: Common,
    /// Keep checksums in the frame: an XXH3 digest of every chunk and a seal
    /// over the chunk index (docs/checksums.md), which `b2 verify` checks.
    /// C-Blosc2 reads such frames as any other.
    #[arg(long)]
    pub(crate) checksum: bool,
    /// Replace OUTPUT if it exists.
    #[arg(long, short)]
    pub(crate) force: bool,
}

#[derive(Args)]
pub(crate) struct DecompressArgs {
    /// Frame, sparse frame directory or chunk file ('-' for standard input).
    pub(crate) input: PathBuf,
    /// Raw file to write ('-' for standard output).
    pub(crate) output: PathBuf,
    /// Where the frame starts in INPUT.
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub(crate) offset: u64,
    #[command(flatten)]
    pub(crate) common: Common,
    /// Replace OUTPUT if it exists.
    #[arg(long, short)]
    pub(crate) force: bool,
}

#[derive(Args)]
pub(crate) struct RecompressArgs {
    /// Frame or sparse frame directory ('-' for standard input).
    pub(crate) input: PathBuf,
    /// Contiguous frame to write ('-' for standard output).
    pub(crate) output: PathBuf,
    /// Where the frame starts in INPUT.
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub(crate) offset: u64,
    #[command(flatten)]
    pub(crate) params: Params,
    /// Write OUTPUT with checksums (see compress --checksum). The default when
    /// INPUT has any (sealed, stale or with a damaged seal): OUTPUT's are new
    /// digests of its own chunks, sealed afresh; a sealed INPUT's chunks are
    /// checked as they are read.
    #[arg(long, conflicts_with = "no_checksum")]
    pub(crate) checksum: bool,
    /// Write OUTPUT without checksums, even when INPUT has them.
    #[arg(long)]
    pub(crate) no_checksum: bool,
    #[command(flatten)]
    pub(crate) common: Common,
    /// Replace OUTPUT if it exists.
    #[arg(long, short)]
    pub(crate) force: bool,
}

#[derive(Args)]
pub(crate) struct CatArgs {
    #[command(flatten)]
    pub(crate) src: Source,
    /// Items START:STOP (either may be left out; negative ones count from
    /// the end, as in Python: -10: is the last ten); for b2nd arrays one
    /// range per dimension, comma-separated ("0:10,-3:"), written in C order.
    #[arg(long, value_name = "RANGE", allow_hyphen_values = true)]
    pub(crate) slice: Option<String>,
    #[command(flatten)]
    pub(crate) common: Common,
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

/// clap's report of bad arguments, and its status; with `--json` among
/// them also a JSON object on stdout, so that a script asking for JSON
/// never gets nothing to parse.
fn usage_error(e: clap::Error) -> ExitCode {
    if e.use_stderr() && std::env::args_os().any(|a| a == "--json") {
        let text = e.render().to_string();
        // the error without the usage and --help lines that follow it
        let head = text.split("\n\n").next().unwrap_or_default();
        let msg = head
            .strip_prefix("error: ")
            .unwrap_or(head)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let j = serde_json::json!({"file": null, "ok": false, "error": msg});
        // a closed stdout leaves stderr's report, printed below
        let _ = out::line(&j.to_string());
    }
    let _ = e.print();
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
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
        Err(f) if f.is_pipe_closed() => ExitCode::from(PIPE_CLOSED_STATUS),
        Err(Fail(m)) => {
            out::note(&format!("b2: {m}"));
            ExitCode::FAILURE
        }
    }
}
