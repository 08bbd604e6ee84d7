//! `b2 info`: everything a frame or chunk says about itself, read from
//! headers only (no chunk is decompressed).

use blosc2_core::b2nd::Meta;
use blosc2_core::chunk::header::{blosc2_flags, flags};
use blosc2_core::chunk::{ChunkHeader, Special};
use blosc2_core::frame::header::{OFFSETS_64BIT, VARIABLE_CHUNKS, VL_BLOCKS};
use blosc2_core::metalayers::Metalayer;
use serde_json::{json, Value};
use std::process::ExitCode;

use crate::input::{self, ChunkEntry, Frame, Input};
use crate::names::{self, count};
use crate::{out, sums};
use crate::{Fail, InfoArgs};

pub(crate) fn run(a: &InfoArgs) -> Result<ExitCode, Fail> {
    match report(a) {
        // scripts asking for JSON get JSON, failures included
        Err(f) if a.json && !f.is_pipe_closed() => {
            let file = a.src.file.display().to_string();
            let prefix = format!("{file}: ");
            let error = f.0.strip_prefix(&prefix).unwrap_or(&f.0);
            out::line(&json!({"file": file, "ok": false, "error": error}).to_string())?;
            Ok(ExitCode::FAILURE)
        }
        r => r,
    }
}

fn report(a: &InfoArgs) -> Result<ExitCode, Fail> {
    let v = match input::open(&a.src.file, a.src.offset)? {
        Input::Frame(f) => frame_json(&f),
        Input::Chunk { path, bytes } => json!({
            "file": path.display().to_string(),
            "kind": "chunk",
            "file_size": bytes.len(),
            "chunk": chunk_json(&ChunkHeader::read(&bytes).map_err(|e| Fail::at(&path, "invalid chunk", e))?),
        }),
    };
    if a.json {
        out::line(&serde_json::to_string_pretty(&v).unwrap_or_default())?;
    } else {
        out::print(&human(&v))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn ratio(nbytes: i64, cbytes: i64) -> f64 {
    if cbytes > 0 {
        nbytes as f64 / cbytes as f64
    } else {
        0.0
    }
}

fn filters_json(f: &[u8; 6], m: &[u8; 6]) -> Value {
    Value::Array(
        names::pipeline(f, m)
            .into_iter()
            .map(|(name, meta)| json!({"name": name, "meta": meta as i8}))
            .collect(),
    )
}

/// The facts of one chunk header.
pub(crate) fn chunk_json(h: &ChunkHeader) -> Value {
    let special = Special::from_bits(h.special_bits()).and_then(names::special_name);
    json!({
        "version": h.version,
        "nbytes": h.nbytes,
        "cbytes": h.cbytes,
        "blocksize": h.blocksize,
        "typesize": h.typesize,
        "codec": names::chunk_codec_name(h.compcode(), h.compformat() == blosc2_core::chunk::header::compformat::UDCODEC && h.is_extended()),
        "codec_meta": h.compcode_meta,
        "filters": filters_json(&h.filters, &h.filters_meta),
        "special": special,
        "memcpyed": h.flags & flags::MEMCPYED != 0,
        "dict": h.uses_dict(),
        "vlblocks": h.is_vlblocks(),
        "big_endian": h.is_extended() && h.blosc2_flags & blosc2_flags::BIGENDIAN != 0,
    })
}

fn entry_json(f: &Frame, i: usize, e: &ChunkEntry) -> Value {
    let mut v = match (&e.special_offset, &e.header) {
        (Some(kind), _) => json!({
            "nbytes": f.nominal_nbytes(i as i64),
            "cbytes": 0,
            "special": names::special_name(*kind),
            "in_index": true,
        }),
        (None, Ok(h)) => chunk_json(h),
        (None, Err(msg)) => json!({ "error": msg }),
    };
    if let Value::Object(m) = &mut v {
        m.insert("chunk".into(), json!(i));
        // special values in the index have no location
        if e.special_offset.is_none() {
            m.insert(
                if f.is_sparse() {
                    "file_number"
                } else {
                    "offset"
                }
                .into(),
                json!(e.offset),
            );
        }
    }
    v
}

fn metas_json(list: &[Metalayer], vl: bool) -> Value {
    Value::Array(
        list.iter()
            .map(|m| {
                if vl {
                    // stored compressed: the chunk header has both sizes
                    let nb = ChunkHeader::read(&m.content).map(|h| h.nbytes).ok();
                    json!({"name": m.name, "size": nb, "cbytes": m.content.len()})
                } else {
                    json!({"name": m.name, "size": m.content.len()})
                }
            })
            .collect(),
    )
}

fn b2nd_json(list: &[Metalayer]) -> Value {
    let Some(m) = list
        .iter()
        .find(|m| m.name == "b2nd" || m.name == "caterva")
    else {
        return Value::Null;
    };
    match Meta::deserialize(&m.content) {
        Ok(meta) => json!({
            "ndim": meta.ndim(),
            "shape": meta.shape,
            "chunkshape": meta.chunkshape,
            "blockshape": meta.blockshape,
            "dtype": meta.dtype,
            "dtype_format": meta.dtype_format,
        }),
        Err(e) => json!({ "error": format!("invalid {} metalayer: {e}", m.name) }),
    }
}

pub(crate) fn frame_json(f: &Frame) -> Value {
    let h = f.header();
    let info = &f.info;
    let file_size = match &f.place {
        input::Place::File { origin, .. } => origin.stream().ok().and_then(|mut s| s.size().ok()),
        input::Place::Dir { path } => {
            std::fs::metadata(blosc2_core::frame::sframe::index_path(path))
                .map(|m| m.len())
                .ok()
        }
    };
    let chunks: Vec<Value> = f
        .chunk_entries()
        .iter()
        .enumerate()
        .map(|(i, e)| entry_json(f, i, e))
        .collect();
    json!({
        "file": f.path().display().to_string(),
        "kind": if f.is_sparse() { "sparse frame" } else { "contiguous frame" },
        "offset": match &f.place { input::Place::File { offset, .. } => *offset, _ => 0 },
        "file_size": file_size,
        "frame": {
            "version": h.general_flags & 0x0f,
            "general_flags": h.general_flags,
            "offsets_64bit": h.general_flags & OFFSETS_64BIT != 0,
            "variable_chunks": h.general_flags & VARIABLE_CHUNKS != 0,
            "vl_blocks": h.general_flags & VL_BLOCKS != 0,
            "header_len": h.header_len,
            "frame_len": h.frame_len,
            "nbytes": h.nbytes,
            "cbytes": h.cbytes,
            "ratio": ratio(h.nbytes, h.cbytes),
            "typesize": h.typesize,
            "blocksize": h.blocksize,
            "chunksize": h.chunksize,
            "nchunks": info.nchunks,
            "codec": names::codec_name(h.compcode),
            "compcode": h.compcode,
            "codec_meta": h.compcode_meta,
            "clevel": h.clevel,
            "splitmode": names::split_name(h.splitmode),
            "use_dict": h.use_dict,
            "filters": filters_json(&h.filters, &h.filters_meta),
            "nthreads_c": h.nthreads_c,
            "nthreads_d": h.nthreads_d,
        },
        "trailer": {
            "len": info.trailer_len,
            "vlmetalayers": info.vlmetalayers.len(),
        },
        "checksums": checksums_json(&info.checksums),
        "metalayers": metas_json(&info.metalayers, false),
        "vlmetalayers": metas_json(&info.vlmetalayers, true),
        "b2nd": b2nd_json(&info.metalayers),
        "chunks": chunks,
    })
}

/// The frame's checksum state, as its seal and table say (chunks are not
/// read: `b2 verify` checks them against their digests).
fn checksums_json(v: &blosc2_core::frame::checksum::Verdict) -> Value {
    let c = sums::from_verdict(v);
    let (state, damage) = sums::state(c);
    json!({
        "present": c != blosc2_core::schunk::FrameCheck::Unverified,
        "state": state,
        "damage": damage,
        "table_chunks": sums::table_chunks(v),
        "description": sums::describe(c),
    })
}

fn s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// `1 byte`, `35 bytes` (`- bytes` when unknown).
fn bytes(v: &Value) -> String {
    match v.as_i64() {
        Some(n) => count(n, "byte"),
        None => format!("{} bytes", s(v)),
    }
}

fn filters_text(v: &Value) -> String {
    let list: Vec<String> = v
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let n = s(&f["name"]);
            match f["meta"].as_i64() {
                Some(0) | None => n,
                Some(m) => format!("{n}:{m}"),
            }
        })
        .collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(",")
    }
}

fn notes(c: &Value) -> String {
    let mut notes = Vec::new();
    if let Some(sp) = c["special"].as_str() {
        notes.push(if c["in_index"].as_bool() == Some(true) {
            format!("special: {sp} (index)")
        } else {
            format!("special: {sp}")
        });
    }
    for (k, label) in [("memcpyed", "memcpyed"), ("dict", "dict")] {
        if c[k].as_bool() == Some(true) {
            notes.push(label.to_string());
        }
    }
    if c["vlblocks"].as_bool() == Some(true) {
        // such chunks keep their block count where others keep a size
        notes.push(format!("vl-blocks ({} blocks)", s(&c["blocksize"])));
    }
    notes.join(", ")
}

fn chunk_row(c: &Value) -> String {
    if let Some(e) = c["error"].as_str() {
        return format!("ERROR: {e}");
    }
    format!(
        "{:>10} {:>10} {:>9}  {:<8} {:<20} {}",
        s(&c["nbytes"]),
        s(&c["cbytes"]),
        s(&c["blocksize"]),
        s(&c["codec"]),
        if c["filters"].is_null() {
            "-".into()
        } else {
            filters_text(&c["filters"])
        },
        notes(c)
    )
}

/// The report for people, one line per fact and one per chunk.
fn human(v: &Value) -> String {
    let mut o = String::new();
    // format! into the String: writing to it cannot fail
    macro_rules! w {
        ($($t:tt)*) => {{
            o.push_str(&format!($($t)*));
            o.push('\n');
        }};
    }
    w!("file:          {}", s(&v["file"]));
    if v["kind"] == "chunk" {
        w!("kind:          chunk ({})", bytes(&v["file_size"]));
        let c = &v["chunk"];
        w!("version:       {}", s(&c["version"]));
        w!(
            "sizes:         nbytes {}  cbytes {}  blocksize {}  typesize {}",
            s(&c["nbytes"]),
            s(&c["cbytes"]),
            s(&c["blocksize"]),
            s(&c["typesize"])
        );
        w!("codec:         {}", s(&c["codec"]));
        w!("filters:       {}", filters_text(&c["filters"]));
        let n = notes(c);
        if !n.is_empty() {
            w!("notes:         {n}");
        }
        return o;
    }
    let fr = &v["frame"];
    let mut kind = s(&v["kind"]);
    if v["offset"].as_u64().unwrap_or(0) > 0 {
        kind += &format!(" at offset {}", s(&v["offset"]));
    }
    w!("kind:          {kind}");
    w!(
        "frame:         version {}, header {} bytes, frame {} bytes, flags 0x{:02x}{}{}",
        s(&fr["version"]),
        s(&fr["header_len"]),
        s(&fr["frame_len"]),
        fr["general_flags"].as_u64().unwrap_or(0),
        if fr["variable_chunks"] == true {
            ", variable-size chunks"
        } else {
            ""
        },
        if fr["vl_blocks"] == true {
            ", VL blocks"
        } else {
            ""
        },
    );
    w!(
        "sizes:         nbytes {}  cbytes {}  ratio {:.2}x",
        s(&fr["nbytes"]),
        s(&fr["cbytes"]),
        fr["ratio"].as_f64().unwrap_or(0.0)
    );
    w!(
        "chunks:        {} of {} bytes (typesize {}, blocksize {})",
        count(fr["nchunks"].as_i64().unwrap_or(0), "chunk"),
        match fr["chunksize"].as_i64() {
            Some(0) => "variable size".to_string(),
            Some(-1) => "no size yet".to_string(),
            _ => s(&fr["chunksize"]),
        },
        s(&fr["typesize"]),
        match fr["blocksize"].as_i64() {
            Some(0) => "automatic".to_string(),
            _ => s(&fr["blocksize"]),
        }
    );
    w!(
        "codec:         {} (id {}, meta {}), clevel {}, split {}{}",
        s(&fr["codec"]),
        s(&fr["compcode"]),
        s(&fr["codec_meta"]),
        s(&fr["clevel"]),
        s(&fr["splitmode"]),
        if fr["use_dict"] == true {
            ", dictionary"
        } else {
            ""
        }
    );
    w!("filters:       {}", filters_text(&fr["filters"]));
    w!(
        "trailer:       {} bytes, {}",
        s(&v["trailer"]["len"]),
        count(
            v["trailer"]["vlmetalayers"].as_i64().unwrap_or(0),
            "vlmetalayer"
        )
    );
    let cs = &v["checksums"];
    match (cs["state"].as_str(), cs["table_chunks"].as_u64()) {
        (Some("sealed"), Some(n)) => w!(
            "checksums:     sealed (digests of {}; b2 verify checks them)",
            count(n as i64, "chunk")
        ),
        (Some("unverified"), _) => w!("checksums:     none (unverified)"),
        _ => w!("checksums:     {}", s(&cs["description"])),
    }
    let mut metas = |key: &str, label: &str| {
        let list = v[key].as_array().cloned().unwrap_or_default();
        if list.is_empty() {
            w!("{label:<15}none");
        }
        for (i, m) in list.iter().enumerate() {
            let head = if i == 0 { label } else { "" };
            if m["cbytes"].is_null() {
                w!("{head:<15}{} ({})", s(&m["name"]), bytes(&m["size"]));
            } else {
                w!(
                    "{head:<15}{} ({}, {} compressed)",
                    s(&m["name"]),
                    bytes(&m["size"]),
                    s(&m["cbytes"])
                );
            }
        }
    };
    metas("metalayers", "metalayers:");
    metas("vlmetalayers", "vlmetalayers:");
    let nd = &v["b2nd"];
    if !nd.is_null() {
        if let Some(e) = nd["error"].as_str() {
            w!("b2nd:          {e}");
        } else {
            w!(
                "b2nd:          ndim {}, dtype {}",
                s(&nd["ndim"]),
                s(&nd["dtype"])
            );
            w!("  shape:       {}", s(&nd["shape"]));
            w!("  chunkshape:  {}", s(&nd["chunkshape"]));
            w!("  blockshape:  {}", s(&nd["blockshape"]));
        }
    }
    let chunks = v["chunks"].as_array().cloned().unwrap_or_default();
    if chunks.is_empty() {
        return o;
    }
    let loc = if v["kind"] == "sparse frame" {
        "file"
    } else {
        "offset"
    };
    w!("");
    w!(
        "{:>7} {:>12} {:>10} {:>10} {:>9}  {:<8} {:<20} notes",
        "chunk",
        loc,
        "nbytes",
        "cbytes",
        "blocksize",
        "codec",
        "filters"
    );
    for c in &chunks {
        let at = if v["kind"] == "sparse frame" {
            c["file_number"]
                .as_i64()
                .map(|n| format!("{:08X}", n as u32))
                .unwrap_or_else(|| "-".into())
        } else {
            s(&c["offset"])
        };
        let line = format!("{:>7} {:>12} {}", s(&c["chunk"]), at, chunk_row(c));
        w!("{}", line.trim_end());
    }
    o
}
