//! `b2 verify`: decompress everything and say where the first damage is.
//!
//! "Good" means every header is valid, every chunk decompresses to the
//! size its header and the frame promise, the sizes add up, the metalayers
//! decode, and, in a frame with checksums (docs/checksums.md), every chunk
//! matches its digest and the seal matches. Frames without checksums (most
//! frames: C-Blosc2 writes none) and stale ones are not failures: nothing
//! could be checked against digests, and the line says so.

use blosc2_core::b2nd::Array;
use blosc2_core::chunk::header::EXTENDED_HEADER_LENGTH;
use blosc2_core::chunk::{ChunkHeader, DParams, Decompressor};
use blosc2_core::frame::checksum;
use blosc2_core::frame::header::{FrameHeader, HEADER_MINLEN};
use blosc2_core::schunk::{SuperChunk, VerifyReport};
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;

use crate::input::{self, Frame, Input, Origin};
use crate::names::count;
use crate::{out, progress, sums, threads, Fail, VerifyArgs};

/// The first problem found.
struct Bad {
    /// The chunk at fault, when the problem is in one.
    chunk: Option<i64>,
    why: String,
}

impl Bad {
    fn chunk(n: i64, why: impl Into<String>) -> Bad {
        Bad {
            chunk: Some(n),
            why: why.into(),
        }
    }
    fn frame(why: impl Into<String>) -> Bad {
        Bad {
            chunk: None,
            why: why.into(),
        }
    }
}

/// What a successful check covered.
struct Good {
    kind: &'static str,
    nchunks: i64,
    nbytes: i64,
    cbytes: i64,
}

pub(crate) fn run(a: &VerifyArgs) -> Result<ExitCode, Fail> {
    match verify_all(a) {
        // scripts asking for JSON get JSON, for failures before any FILE too
        Err(f) if a.json && !f.is_pipe_closed() => {
            out::line(&json!({"file": null, "ok": false, "error": f.0}).to_string())?;
            Ok(ExitCode::FAILURE)
        }
        r => r,
    }
}

fn verify_all(a: &VerifyArgs) -> Result<ExitCode, Fail> {
    if a.files.iter().filter(|f| input::is_dash(f)).count() > 1 {
        return Err(Fail::msg(
            "'-' (standard input) is named more than once: it can be read only once",
        ));
    }
    let mut failed = 0usize;
    for path in &a.files {
        let file = path.display().to_string();
        let (result, report) = check(path, a);
        let result = result.and_then(|g| match &report {
            Some(r) if !r.ok() => Err(checksum_failure(r)),
            _ => Ok(g),
        });
        let sums_json = report.as_ref().map(sums::report_json);
        // the checksum verdict ends the line of a frame
        let sums_text = report
            .as_ref()
            .map(|r| format!("; checksums: {}", sums::report_text(r)))
            .unwrap_or_default();
        let line = match result {
            Ok(g) => {
                if a.json {
                    json!({"file": file, "ok": true, "kind": g.kind, "nchunks": g.nchunks,
                           "nbytes": g.nbytes, "cbytes": g.cbytes, "chunk": null, "error": null,
                           "checksums": sums_json})
                    .to_string()
                } else {
                    format!(
                        "OK {file}: {} with {}, {} decompressed ({} compressed){sums_text}",
                        g.kind,
                        count(g.nchunks, "chunk"),
                        count(g.nbytes, "byte"),
                        g.cbytes
                    )
                }
            }
            Err(b) => {
                failed += 1;
                if a.json {
                    json!({"file": file, "ok": false, "chunk": b.chunk, "error": b.why,
                           "checksums": sums_json})
                    .to_string()
                } else {
                    match b.chunk {
                        Some(n) => format!("FAIL {file}: chunk {n}: {}{sums_text}", b.why),
                        None => format!("FAIL {file}: {}{sums_text}", b.why),
                    }
                }
            }
        };
        out::line(&line)?;
    }
    // one file's line is its own summary (and one JSON object stays the
    // whole output, as before)
    let n = a.files.len();
    if n > 1 {
        let line = if a.json {
            json!({"summary": true, "files": n, "ok": n - failed, "failed": failed}).to_string()
        } else if failed == 0 {
            format!("all {n} files OK")
        } else {
            format!("{failed} of {n} files FAILED")
        };
        out::line(&line)?;
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The failure of a frame that decodes but whose checksums say it is
/// damaged: its first corrupt chunk, or its seal or header.
fn checksum_failure(r: &VerifyReport) -> Bad {
    match r.corrupt.first() {
        Some(&n) => Bad::chunk(
            n as i64,
            "does not match its checksum: its stored bytes are damaged",
        ),
        None => Bad::frame("its checksums say the frame is damaged"),
    }
}

/// Check one FILE: every failure, opening included, is a [`Bad`] so that
/// it gets its line (and its JSON object) like any other. With the
/// checksum report of a frame that opens.
fn check(path: &Path, a: &VerifyArgs) -> (Result<Good, Bad>, Option<VerifyReport>) {
    // the messages name the file; the report line already does
    let bare = |f: Fail| {
        let prefix = format!("{}: ", path.display());
        Bad::frame(f.0.strip_prefix(&prefix).unwrap_or(&f.0).to_string())
    };
    let origin = match Origin::new(path) {
        Ok(o) => o,
        Err(f) => return (Err(bare(f)), None),
    };
    match input::open_origin(&origin, a.offset) {
        Ok(Input::Frame(f)) => check_frame(&f, a),
        Ok(Input::Chunk { bytes, .. }) => (check_chunk(&bytes, a.common.nthreads), None),
        // a frame whose layout cannot be read: find the damage by walking
        // its chunks section from the start
        Err((fail, true)) => (
            Err(diagnose(&origin, a.offset).unwrap_or_else(|| bare(fail))),
            None,
        ),
        Err((fail, false)) => (Err(bare(fail)), None),
    }
}

fn check_chunk(bytes: &[u8], nthreads: i16) -> Result<Good, Bad> {
    let h = ChunkHeader::read(bytes).map_err(|e| Bad::chunk(0, format!("invalid header: {e}")))?;
    if h.cbytes as usize != bytes.len() {
        return Err(Bad::chunk(
            0,
            format!(
                "header says {} compressed bytes, the file has {}",
                h.cbytes,
                bytes.len()
            ),
        ));
    }
    let mut d = Decompressor::new(DParams {
        nthreads,
        typesize: h.typesize as i32,
    });
    let mut out = vec![0u8; h.nbytes as usize];
    let n = d
        .decompress(bytes, &mut out)
        .map_err(|e| Bad::chunk(0, format!("decompression failed: {e}")))?;
    if n != out.len() {
        return Err(Bad::chunk(
            0,
            format!(
                "decompressed to {}, header says {}",
                count(n as i64, "byte"),
                out.len()
            ),
        ));
    }
    Ok(Good {
        kind: "chunk",
        nchunks: 1,
        nbytes: h.nbytes as i64,
        cbytes: h.cbytes as i64,
    })
}

/// Decode every chunk of the frame (the first failure is the result), and
/// check every chunk against the frame's checksums (all of them: a
/// corrupt chunk does not stop the count).
fn check_frame(f: &Frame, a: &VerifyArgs) -> (Result<Good, Bad>, Option<VerifyReport>) {
    let mut sc = match f.open_schunk() {
        Ok(sc) => sc,
        Err(e) => {
            let prefix = format!("{}: ", f.path().display());
            let why = e.0.strip_prefix(&prefix).unwrap_or(&e.0).to_string();
            return (Err(Bad::frame(why)), None);
        }
    };
    threads::set(&mut sc, a.common.nthreads);
    // the decoding pass reads chunks unchecked, so that a chunk which
    // fails its digest is still decoded (and the checksum pass below
    // counts every such chunk instead of stopping at the first)
    sc.set_verified_reads(false);
    let decoded = decode_frame(f, &sc, a);
    let report = sc.verify();
    let decoded = decoded.map_err(|mut b| {
        if let Some(n) = b.chunk {
            if report.corrupt.contains(&(n as u64)) {
                b.why += " (and it does not match its checksum)";
            }
        }
        b
    });
    (decoded, Some(report))
}

fn decode_frame(f: &Frame, sc: &SuperChunk, a: &VerifyArgs) -> Result<Good, Bad> {
    let h = f.header();
    let pb = progress::bar(
        h.nbytes.max(0) as u64,
        true,
        !a.common.no_progress,
        "verifying",
    );
    let mut buf = Vec::new();
    let mut total = 0i64;
    for i in 0..sc.nchunks() {
        let c = sc.chunk(i).map_err(|e| {
            let why = f.chunk_file_problem(i);
            Bad::chunk(i, why.unwrap_or_else(|| format!("cannot read: {e}")))
        })?;
        let ch =
            ChunkHeader::read(&c).map_err(|e| Bad::chunk(i, format!("invalid header: {e}")))?;
        if (ch.cbytes as usize) != c.len() {
            return Err(Bad::chunk(
                i,
                format!(
                    "{} stored, header says {}",
                    count(c.len() as i64, "byte"),
                    ch.cbytes
                ),
            ));
        }
        if let Some(want) = f.nominal_nbytes(i) {
            if want != ch.nbytes as i64 {
                return Err(Bad::chunk(
                    i,
                    format!(
                        "holds {}, the frame's chunk size says {want}",
                        count(ch.nbytes, "byte")
                    ),
                ));
            }
        }
        buf.resize(ch.nbytes as usize, 0);
        let n = sc
            .decompress_chunk(i, &mut buf)
            .map_err(|e| Bad::chunk(i, format!("decompression failed: {e}")))?;
        if n != buf.len() {
            return Err(Bad::chunk(
                i,
                format!(
                    "decompressed to {}, header says {}",
                    count(n as i64, "byte"),
                    buf.len()
                ),
            ));
        }
        total += n as i64;
        pb.inc(n as u64);
    }
    pb.finish_and_clear();
    if total != h.nbytes {
        return Err(Bad::frame(format!(
            "chunks hold {}, the frame header says {}",
            count(total, "byte"),
            h.nbytes
        )));
    }
    // a sealed frame's checksum table is the core's own (and judged with
    // the seal), not one of the vlmetalayers it hands out
    for m in f
        .info
        .vlmetalayers
        .iter()
        .filter(|m| m.name != checksum::VLMETA_NAME || !sc.checksums())
    {
        sc.vlmeta_get(&m.name)
            .map_err(|e| Bad::frame(format!("vlmetalayer '{}' does not decode: {e}", m.name)))?;
    }
    let is_b2nd = f
        .info
        .metalayers
        .iter()
        .any(|m| m.name == "b2nd" || m.name == "caterva");
    let kind = if is_b2nd {
        let arr = Array::from_schunk(sc)
            .map_err(|e| Bad::frame(format!("invalid b2nd metalayer: {e}")))?;
        let want = arr.geometry().nchunks();
        if want != sc.nchunks() {
            return Err(Bad::frame(format!(
                "b2nd geometry has {}, the frame {}",
                count(want, "chunk"),
                sc.nchunks()
            )));
        }
        "b2nd array"
    } else if f.is_sparse() {
        "sparse frame"
    } else {
        "frame"
    };
    Ok(Good {
        kind,
        nchunks: sc.nchunks(),
        nbytes: total,
        cbytes: h.cbytes,
    })
}

/// For a contiguous frame that does not open: walk the chunks section as
/// chunks are appended (each header gives the next one's place) and name
/// the first one that is cut off or unreadable. Chunks moved by updates
/// are not in file order, so the number is that of the walk; for frames
/// only ever appended to, it is the chunk number. None when FILE is not a
/// frame at all.
fn diagnose(origin: &Origin, offset: u64) -> Option<Bad> {
    if let Origin::Path(p) = origin {
        if p.is_dir() {
            return None;
        }
    }
    let mut s = origin.stream().ok()?;
    let size = s.size().ok()?;
    let mut fixed = vec![0u8; HEADER_MINLEN];
    s.read_exact_at(offset, &mut fixed).ok()?;
    let h = FrameHeader::parse(&fixed).ok()?;
    let avail = size.saturating_sub(offset) as i64;
    let data_start = h.header_len as i64;
    let data_end = data_start.saturating_add(h.cbytes.max(0));
    let trunc = if h.frame_len > avail {
        format!(
            " (truncated: the header says the frame has {}, the file {avail})",
            count(h.frame_len, "byte")
        )
    } else {
        String::new()
    };
    if data_start > avail {
        return Some(Bad::frame(format!("the frame header is cut off{trunc}")));
    }
    let mut pos = data_start;
    let mut n = 0i64;
    while pos < data_end {
        let ext = EXTENDED_HEADER_LENGTH as i64;
        if pos + ext > avail {
            return Some(Bad::chunk(
                n,
                format!("header at byte {pos} is cut off{trunc}"),
            ));
        }
        let mut hb = [0u8; EXTENDED_HEADER_LENGTH];
        s.read_exact_at(offset + pos as u64, &mut hb).ok()?;
        let ch = match ChunkHeader::read(&hb) {
            Ok(ch) => ch,
            Err(e) => {
                return Some(Bad::chunk(
                    n,
                    format!("invalid header at byte {pos}: {e}{trunc}"),
                ))
            }
        };
        let end = pos + ch.cbytes as i64;
        if end > avail {
            return Some(Bad::chunk(
                n,
                format!(
                    "cut off: {} at byte {pos}, only {} left{trunc}",
                    count(ch.cbytes, "byte"),
                    avail - pos
                ),
            ));
        }
        pos = end;
        n += 1;
    }
    let expected = h.nchunks().ok().flatten();
    Some(match expected {
        Some(want) if n < want => Bad::chunk(
            n,
            format!(
                "missing: the chunks section ends after {n} of {}{trunc}",
                count(want, "chunk")
            ),
        ),
        _ => Bad::frame(format!(
            "{} but the chunk index or trailer is damaged{trunc}",
            match n {
                0 => "no chunk is missing".to_string(),
                1 => "the one chunk is present".to_string(),
                _ => format!("all {n} chunks are present"),
            }
        )),
    })
}
