//! `b2 info`: what a frame, a sparse frame or a chunk holds, as JSON (for
//! `--json`) and as text rendered from the same value.

use crate::source::{codec_name, filter_names, Source};
use blosc2_core::b2nd::array::Array;
use blosc2_core::chunk::{ChunkHeader, Special};
use blosc2_core::frame::header::FrameHeader;
use blosc2_core::frame::{sframe, trailer};
use blosc2_core::schunk::SuperChunk;
use blosc2_core::Error;
use serde_json::{json, Value};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

fn special_name(bits: u8) -> Option<&'static str> {
    match Special::from_bits(bits) {
        Some(Special::Zero) => Some("zeros"),
        Some(Special::Nan) => Some("nans"),
        Some(Special::Value) => Some("value"),
        Some(Special::Uninit) => Some("uninit"),
        _ => None,
    }
}

/// A chunk records its codec's format, not the codec: LZ4HC chunks say
/// LZ4 (one decoder reads both), and zlib and Zstd have format numbers of
/// their own; plugin codecs give their id.
fn chunk_codec_name(h: &ChunkHeader) -> String {
    use blosc2_core::chunk::header::compformat;
    match h.compformat() {
        compformat::BLOSCLZ => "blosclz".into(),
        compformat::LZ4 => "lz4".into(),
        compformat::ZLIB => "zlib".into(),
        compformat::ZSTD => "zstd".into(),
        compformat::UDCODEC if h.is_extended() => codec_name(h.udcompcode),
        other => format!("format{other}"),
    }
}

/// One chunk's header as JSON.
pub fn chunk_json(bytes: &[u8]) -> Value {
    match ChunkHeader::read(bytes) {
        Ok(h) => json!({
            "version": h.version,
            "nbytes": h.nbytes,
            "cbytes": h.cbytes,
            "blocksize": h.blocksize,
            "typesize": h.typesize,
            "codec": chunk_codec_name(&h),
            "filters": filter_names(&h.filters, &h.filters_meta),
            "special": special_name(h.special_bits()),
            "memcpyed": h.is_memcpyed(),
            "dict": h.uses_dict(),
            "vl_blocks": h.is_vlblocks(),
        }),
        Err(k) => json!({ "error": k.message() }),
    }
}

/// The frame file's fixed header and trailer length, read from the file
/// (the index file of a sparse frame).
fn frame_header_json(path: &Path, offset: u64, sparse: bool) -> Value {
    let file = if sparse {
        sframe::index_path(path)
    } else {
        path.to_path_buf()
    };
    let read = || -> std::io::Result<(Vec<u8>, Vec<u8>)> {
        let mut f = std::fs::File::open(&file)?;
        f.seek(SeekFrom::Start(offset))?;
        let mut head = vec![0u8; 87];
        f.read_exact(&mut head)?;
        let Ok(h) = FrameHeader::parse(&head) else {
            return Ok((head, Vec::new()));
        };
        let end = offset.saturating_add(h.frame_len.max(0) as u64);
        let mut last = vec![0u8; trailer::TRAILER_MINLEN];
        f.seek(SeekFrom::Start(
            end.saturating_sub(trailer::TRAILER_MINLEN as u64),
        ))?;
        f.read_exact(&mut last)?;
        Ok((head, last))
    };
    let Ok((head, last)) = read() else {
        return json!({ "error": "cannot read the frame header" });
    };
    match FrameHeader::parse(&head) {
        Ok(h) => json!({
            "version": h.general_flags & 0x0f,
            "frame_type": if h.frame_type & 0x0f == 1 { "sparse" } else { "contiguous" },
            "header_len": h.header_len,
            "frame_len": h.frame_len,
            "nbytes": h.nbytes,
            "cbytes": h.cbytes,
            "typesize": h.typesize,
            "blocksize": h.blocksize,
            "chunksize": h.chunksize,
            "codec": codec_name(h.compcode),
            "clevel": h.clevel,
            "splitmode": h.splitmode,
            "filters": filter_names(&h.filters, &h.filters_meta),
            "use_dict": h.use_dict,
            "variable_chunks": h.variable_chunks(),
            "trailer_len": trailer::trailer_len(&last, h.frame_len).ok(),
        }),
        Err(k) => json!({ "error": k.message() }),
    }
}

fn b2nd_json(sc: &SuperChunk) -> Option<Value> {
    sc.metalayers
        .iter()
        .any(|m| m.name == "b2nd" || m.name == "caterva")
        .then(|| match Array::from_schunk(sc) {
            Ok(a) => json!({
                "ndim": a.ndim(),
                "shape": a.shape(),
                "chunkshape": a.chunkshape(),
                "blockshape": a.blockshape(),
                "dtype": a.dtype(),
                "dtype_format": a.dtype_format(),
                "typesize": a.typesize(),
            }),
            Err(k) => json!({ "error": k.message() }),
        })
}

/// Everything `info` says about `src`.
pub fn describe(src: &Source) -> Result<Value, Error> {
    Ok(match src {
        Source::Chunk { bytes, path } => json!({
            "path": path.display().to_string(),
            "kind": "chunk",
            "chunk": chunk_json(bytes),
        }),
        Source::Frame {
            sc,
            path,
            offset,
            sparse,
        } => {
            let mut chunks = Vec::new();
            for i in 0..sc.nchunks() {
                chunks.push(match sc.chunk(i) {
                    Ok(c) => chunk_json(&c),
                    Err(k) => json!({ "error": k.message() }),
                });
            }
            let metalayers: Vec<Value> = sc
                .metalayers
                .iter()
                .map(|m| json!({ "name": m.name, "size": m.content.len() }))
                .collect();
            let vlmetalayers: Vec<Value> = sc
                .vlmetalayers
                .iter()
                .map(|m| {
                    json!({
                        "name": m.name,
                        "cbytes": m.content.len(),
                        "nbytes": sc.vlmeta_get(&m.name).map(|v| v.len()).ok(),
                    })
                })
                .collect();
            json!({
                "path": path.display().to_string(),
                "kind": if *sparse { "sparse frame" } else { "contiguous frame" },
                "offset": offset,
                "header": frame_header_json(path, *offset, *sparse),
                "nchunks": sc.nchunks(),
                "nbytes": sc.nbytes(),
                "cbytes": sc.cbytes(),
                "typesize": sc.typesize(),
                "chunksize": sc.chunksize(),
                "metalayers": metalayers,
                "vlmetalayers": vlmetalayers,
                "b2nd": b2nd_json(sc),
                "chunks": chunks,
            })
        }
    })
}

fn ratio(nbytes: &Value, cbytes: &Value) -> String {
    match (nbytes.as_f64(), cbytes.as_f64()) {
        (Some(n), Some(c)) if c > 0.0 => format!("{:.2}x", n / c),
        _ => "-".into(),
    }
}

fn chunk_line(c: &Value) -> String {
    if let Some(e) = c.get("error") {
        return format!("error: {}", e.as_str().unwrap_or("?"));
    }
    let filters: Vec<&str> = c["filters"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut s = format!(
        "{:>10} -> {:>10} bytes ({:>7}), blocksize {}, {}",
        c["nbytes"],
        c["cbytes"],
        ratio(&c["nbytes"], &c["cbytes"]),
        c["blocksize"],
        c["codec"].as_str().unwrap_or("?"),
    );
    if !filters.is_empty() {
        s.push_str(&format!(" + {}", filters.join(",")));
    }
    if let Some(sp) = c["special"].as_str() {
        s.push_str(&format!(" [special: {sp}]"));
    }
    if c["memcpyed"] == json!(true) {
        s.push_str(" [stored]");
    }
    s
}

/// The text rendering of [`describe`]'s value.
pub fn render(v: &Value) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!(
        "{}: {}",
        v["path"].as_str().unwrap_or("?"),
        v["kind"].as_str().unwrap_or("?")
    ));
    if v["kind"] == "chunk" {
        line(format!("  {}", chunk_line(&v["chunk"])));
        return out;
    }
    if v["offset"].as_u64().unwrap_or(0) > 0 {
        line(format!("  at offset {}", v["offset"]));
    }
    let h = &v["header"];
    if h.get("error").is_none() {
        let filters: Vec<&str> = h["filters"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        line(format!(
            "  frame format v{}, header {} bytes, frame {} bytes, trailer {} bytes",
            h["version"], h["header_len"], h["frame_len"], h["trailer_len"]
        ));
        line(format!(
            "  codec {} level {}, filters [{}], splitmode {}, blocksize {}{}",
            h["codec"].as_str().unwrap_or("?"),
            h["clevel"],
            filters.join(", "),
            h["splitmode"],
            h["blocksize"],
            if h["use_dict"] == json!(true) {
                ", dictionary"
            } else {
                ""
            }
        ));
    }
    line(format!(
        "  {} chunks of {} bytes, typesize {}: {} -> {} bytes ({})",
        v["nchunks"],
        v["chunksize"],
        v["typesize"],
        v["nbytes"],
        v["cbytes"],
        ratio(&v["nbytes"], &v["cbytes"])
    ));
    if let Some(b) = v["b2nd"].as_object() {
        if let Some(e) = b.get("error") {
            line(format!("  b2nd: {e}"));
        } else {
            line(format!(
                "  b2nd array: shape {}, chunks {}, blocks {}, dtype {}",
                b["shape"], b["chunkshape"], b["blockshape"], b["dtype"]
            ));
        }
    }
    for (title, key, size) in [
        ("metalayers", "metalayers", "size"),
        ("vlmetalayers", "vlmetalayers", "nbytes"),
    ] {
        let list = v[key].as_array().cloned().unwrap_or_default();
        if !list.is_empty() {
            let names: Vec<String> = list
                .iter()
                .map(|m| format!("{} ({} bytes)", m["name"].as_str().unwrap_or("?"), m[size]))
                .collect();
            line(format!("  {title}: {}", names.join(", ")));
        }
    }
    if let Some(chunks) = v["chunks"].as_array() {
        for (i, c) in chunks.iter().enumerate() {
            line(format!("  chunk {i:>6}: {}", chunk_line(c)));
        }
    }
    out
}
