//! `b2 cat`: decompressed bytes on standard output. Work goes in pieces of
//! about `PIECE` bytes so that memory stays bounded whatever the size.

use blosc2_core::b2nd::Array;
use blosc2_core::chunk::{ChunkHeader, DParams, Decompressor};
use blosc2_core::schunk::SuperChunk;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use crate::input::{self, Frame, Input};
use crate::names::count;
use crate::{out, progress, threads, CatArgs, Fail};

const PIECE: i64 = 16 << 20;

/// `START:STOP` within `0..len`, either side optional; negative bounds
/// count from the end, as Python's do (`-10:` is the last ten items).
fn parse_range(s: &str, len: i64) -> Result<(i64, i64), Fail> {
    let bad = |why: String| Fail::msg(format!("--slice '{s}': {why}"));
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| bad("expected START:STOP, like 10:20, -10: or :5".into()))?;
    let num = |t: &str, default: i64| -> Result<i64, Fail> {
        let t = t.trim();
        if t.is_empty() {
            return Ok(default);
        }
        let v = t
            .parse::<i64>()
            .map_err(|_| bad(format!("'{t}' is not a whole number")))?;
        let at = if v < 0 { len.saturating_add(v) } else { v };
        if at < 0 || at > len {
            return Err(bad(format!(
                "{t} is outside the {} (valid bounds {}..={len})",
                count(len, "item"),
                -len
            )));
        }
        Ok(at)
    };
    let (start, stop) = (num(a, 0)?, num(b, len)?);
    if start >= stop && len > 0 {
        return Err(bad(format!(
            "selects no items (it is {start}:{stop} of {}: START must come before STOP)",
            count(len, "item")
        )));
    }
    Ok((start, stop))
}

/// A slice of a plain frame or chunk is one range.
fn one_range(s: &str, what: &str) -> Result<(), Fail> {
    if s.contains(',') {
        return Err(Fail::msg(format!(
            "{what} is not a b2nd array: --slice takes one START:STOP range of its items, \
             not one per dimension"
        )));
    }
    Ok(())
}

pub(crate) fn run(a: &CatArgs) -> Result<ExitCode, Fail> {
    let src = input::open(&a.src.file, a.src.offset)?;
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let r = match src {
        Input::Chunk { path, bytes } => {
            let h = ChunkHeader::read(&bytes).map_err(|e| Fail::at(&path, "invalid chunk", e))?;
            let mut data = vec![0u8; h.nbytes.max(0) as usize];
            Decompressor::new(DParams {
                nthreads: a.common.nthreads,
                typesize: h.typesize as i32,
            })
            .decompress(&bytes, &mut data)
            .map_err(|e| Fail::at(&path, "decompression failed", e))?;
            let ts = h.typesize.max(1) as i64;
            let (start, stop) = match &a.slice {
                Some(s) => {
                    one_range(s, &format!("{} (a chunk)", path.display()))?;
                    parse_range(s, data.len() as i64 / ts)?
                }
                None => (0, data.len() as i64 / ts),
            };
            // bytes past the last whole item belong to the content too
            let end = if a.slice.is_none() {
                data.len()
            } else {
                (stop * ts) as usize
            };
            out.write_all(&data[(start * ts) as usize..end])
        }
        Input::Frame(f) => {
            let mut sc = f.open_schunk()?;
            threads::set(&mut sc, a.common.nthreads);
            let is_b2nd = sc
                .metalayers
                .iter()
                .any(|m| m.name == "b2nd" || m.name == "caterva");
            if is_b2nd {
                let arr = Array::from_schunk(sc)
                    .map_err(|e| Fail::at(f.path(), "invalid b2nd array", e))?;
                cat_array(&arr, a, &mut out)?
            } else {
                cat_schunk(&f, &sc, a, &mut out)?
            }
        }
    };
    r.and_then(|_| out.flush()).map_err(out::write_err)?;
    Ok(ExitCode::SUCCESS)
}

fn cat_schunk(
    f: &Frame,
    sc: &SuperChunk,
    a: &CatArgs,
    out: &mut dyn Write,
) -> Result<io::Result<()>, Fail> {
    let path = &a.src.file;
    let ts = sc.typesize().max(1) as i64;
    let nitems = sc.nbytes() / ts;
    let pb = progress::bar(
        sc.nbytes().max(0) as u64,
        true,
        !a.common.no_progress,
        "reading",
    );
    let Some(s) = &a.slice else {
        // whole chunks: the content includes any bytes past the last item
        let mut buf = Vec::new();
        for i in 0..sc.nchunks() {
            let c = sc.chunk(i).map_err(|e| {
                Fail::msg(format!("{}: {}", path.display(), f.read_error(sc, i, e)))
            })?;
            let nb = ChunkHeader::read(&c)
                .map_err(|e| Fail::at(path, &format!("chunk {i}"), e))?
                .nbytes;
            buf.resize(nb.max(0) as usize, 0);
            let n = sc
                .decompress_chunk(i, &mut buf)
                .map_err(|e| Fail::at(path, &format!("chunk {i}: decompression failed"), e))?;
            if let Err(e) = out.write_all(&buf[..n]) {
                return Ok(Err(e));
            }
            pb.inc(n as u64);
        }
        pb.finish_and_clear();
        return Ok(Ok(()));
    };
    one_range(s, &path.display().to_string())?;
    let (start, stop) = parse_range(s, nitems)?;
    let step = (PIECE / ts).max(1);
    let mut buf = Vec::new();
    let mut at = start;
    while at < stop {
        let end = (at + step).min(stop);
        buf.resize(((end - at) * ts) as usize, 0);
        sc.get_slice(at, end, &mut buf).map_err(|e| {
            match chunk_in_trouble(f, at * ts, end * ts) {
                Some(why) => Fail::msg(format!("{}: {why}", path.display())),
                None => Fail::at(path, &format!("items {at}:{end}"), e),
            }
        })?;
        if let Err(e) = out.write_all(&buf) {
            return Ok(Err(e));
        }
        pb.inc(buf.len() as u64);
        at = end;
    }
    pb.finish_and_clear();
    Ok(Ok(()))
}

/// The first chunk holding bytes `from..to` whose file in a sparse frame
/// is missing or cut short, with what is wrong: a failed slice names no
/// chunk.
fn chunk_in_trouble(f: &Frame, from: i64, to: i64) -> Option<String> {
    let cs = i64::from(f.header().chunksize);
    if cs <= 0 || to <= from {
        return None;
    }
    (from / cs..=(to - 1) / cs).find_map(|i| {
        f.chunk_file_problem(i)
            .map(|why| format!("chunk {i}: {why}"))
    })
}

fn cat_array(arr: &Array, a: &CatArgs, out: &mut dyn Write) -> Result<io::Result<()>, Fail> {
    let path = &a.src.file;
    let ts = arr.typesize().max(1) as i64;
    let shape = arr.shape().to_vec();
    let nd = shape.len();
    if nd == 0 {
        if a.slice.is_some() {
            return Err(Fail::msg("a 0-dimensional array has nothing to slice"));
        }
        let mut buf = vec![0u8; ts as usize];
        arr.get_slice_cbuffer(&[], &[], &mut buf, &[])
            .map_err(|e| Fail::at(path, "cannot read the item", e))?;
        return Ok(out.write_all(&buf));
    }
    let mut start = vec![0i64; nd];
    let mut stop = shape.clone();
    if let Some(s) = &a.slice {
        let parts: Vec<&str> = s.split(',').collect();
        if parts.len() > nd {
            return Err(Fail::msg(format!(
                "--slice has {} ranges, the array {}",
                parts.len(),
                count(nd as i64, "dimension")
            )));
        }
        // dimensions left out are taken whole
        for (d, p) in parts.iter().enumerate() {
            (start[d], stop[d]) =
                parse_range(p, shape[d]).map_err(|f| Fail(format!("{} (dimension {d})", f.0)))?;
        }
    }
    if start.iter().zip(&stop).any(|(s, e)| s == e) {
        return Ok(Ok(()));
    }
    // whole rows of the first dimension per piece keep C order when the
    // pieces are written one after another
    let row_bytes: i64 = stop[1..]
        .iter()
        .zip(&start[1..])
        .map(|(e, s)| e - s)
        .product::<i64>()
        * ts;
    let rows = (PIECE / row_bytes.max(1)).max(1);
    let total = (stop[0] - start[0]) * row_bytes;
    let pb = progress::bar(total as u64, true, !a.common.no_progress, "reading");
    let mut buf = Vec::new();
    let mut r = start[0];
    while r < stop[0] {
        let end = (r + rows).min(stop[0]);
        let mut s = start.clone();
        let mut e = stop.clone();
        (s[0], e[0]) = (r, end);
        let bufshape: Vec<i64> = s.iter().zip(&e).map(|(a, b)| b - a).collect();
        buf.resize(((end - r) * row_bytes) as usize, 0);
        arr.get_slice_cbuffer(&s, &e, &mut buf, &bufshape)
            .map_err(|err| Fail::at(path, &format!("slice {s:?}..{e:?}"), err))?;
        if let Err(err) = out.write_all(&buf) {
            return Ok(Err(err));
        }
        pb.inc(buf.len() as u64);
        r = end;
    }
    pb.finish_and_clear();
    Ok(Ok(()))
}
