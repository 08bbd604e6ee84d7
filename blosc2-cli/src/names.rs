//! Names of codecs, filters and special values as users type and read them.

use blosc2_core::chunk::header::{compformat, filter_id, MAX_FILTERS};
use blosc2_core::chunk::params::codec;
use blosc2_core::chunk::Special;

/// Codecs by the names upstream gives them (`blosc2_compname_to_compcode`),
/// with their API codes.
const CODECS: &[(&str, u8)] = &[
    ("blosclz", codec::BLOSCLZ),
    ("lz4", codec::LZ4),
    ("lz4hc", codec::LZ4HC),
    ("zlib", codec::ZLIB),
    ("zstd", codec::ZSTD),
    ("ndlz", 32),
    ("zfp_acc", 33),
    ("zfp_prec", 34),
    ("zfp_rate", 35),
];

const FILTERS: &[(&str, u8)] = &[
    ("nofilter", filter_id::NOFILTER),
    ("shuffle", filter_id::SHUFFLE),
    ("bitshuffle", filter_id::BITSHUFFLE),
    ("delta", filter_id::DELTA),
    ("trunc_prec", filter_id::TRUNC_PREC),
    ("ndcell", 32),
    ("ndmean", 33),
    ("bytedelta_buggy", filter_id::BYTEDELTA_BUGGY),
    ("bytedelta", filter_id::BYTEDELTA),
    ("int_trunc", filter_id::INT_TRUNC),
];

/// The API code of a codec name (or a plain number, for plugins).
pub(crate) fn codec_code(name: &str) -> Result<u8, String> {
    let lower = name.to_ascii_lowercase();
    if let Some((_, c)) = CODECS.iter().find(|(n, _)| *n == lower) {
        return Ok(*c);
    }
    lower.parse::<u8>().map_err(|_| {
        let known: Vec<&str> = CODECS.iter().map(|(n, _)| *n).collect();
        format!(
            "unknown codec '{name}' (known: {}, or a codec id)",
            known.join(", ")
        )
    })
}

/// Name of an API codec code (frame headers, parameters).
pub(crate) fn codec_name(code: u8) -> String {
    match CODECS.iter().find(|(_, c)| *c == code) {
        Some((n, _)) => (*n).to_string(),
        None => format!("codec#{code}"),
    }
}

/// Name of the codec a chunk header records: its format number, which
/// lz4 and lz4hc share, or the plugin id.
pub(crate) fn chunk_codec_name(format_or_id: u8, from_udcodec: bool) -> String {
    if from_udcodec {
        return codec_name(format_or_id);
    }
    match format_or_id {
        compformat::BLOSCLZ => "blosclz".into(),
        compformat::LZ4 => "lz4".into(),
        compformat::ZLIB => "zlib".into(),
        compformat::ZSTD => "zstd".into(),
        f => format!("format#{f}"),
    }
}

pub(crate) fn filter_name(id: u8) -> String {
    match FILTERS.iter().find(|(_, c)| *c == id) {
        Some((n, _)) => (*n).to_string(),
        None => format!("filter#{id}"),
    }
}

/// One `--filter` value: `NAME` or `NAME:META` (the filter's meta byte,
/// e.g. `trunc_prec:10` keeps 10 mantissa bits); a comma list allowed.
pub(crate) fn parse_filters(specs: &[String]) -> Result<Vec<(u8, u8)>, String> {
    let mut out = Vec::new();
    for spec in specs {
        for part in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, meta) = match part.split_once(':') {
                Some((n, m)) => (n, parse_meta(m, part, "filter")?),
                None => (part, 0),
            };
            let lower = name.to_ascii_lowercase();
            let id = match FILTERS.iter().find(|(n, _)| *n == lower) {
                Some((_, id)) => *id,
                None => lower.parse::<u8>().map_err(|_| {
                    let known: Vec<&str> = FILTERS.iter().map(|(n, _)| *n).collect();
                    format!(
                        "unknown filter '{name}' (known: {}, or a filter id)",
                        known.join(", ")
                    )
                })?,
            };
            if id != filter_id::NOFILTER {
                out.push((id, meta));
            }
        }
    }
    if out.len() > MAX_FILTERS {
        return Err(format!("at most {MAX_FILTERS} filters"));
    }
    Ok(out)
}

/// The filters of a pipeline in the order they run, with their meta.
pub(crate) fn pipeline(filters: &[u8; MAX_FILTERS], meta: &[u8; MAX_FILTERS]) -> Vec<(String, u8)> {
    filters
        .iter()
        .zip(meta)
        .filter(|(f, _)| **f != filter_id::NOFILTER)
        .map(|(f, m)| (filter_name(*f), *m))
        .collect()
}

/// Filters packed the way the pipeline array holds them: at its end, the
/// last one running last.
pub(crate) fn pack_filters(list: &[(u8, u8)]) -> ([u8; MAX_FILTERS], [u8; MAX_FILTERS]) {
    let mut f = [0u8; MAX_FILTERS];
    let mut m = [0u8; MAX_FILTERS];
    let start = MAX_FILTERS - list.len();
    for (i, (id, meta)) in list.iter().enumerate() {
        f[start + i] = *id;
        m[start + i] = *meta;
    }
    (f, m)
}

pub(crate) fn special_name(s: Special) -> Option<&'static str> {
    match s {
        Special::None => None,
        Special::Zero => Some("zeros"),
        Special::Nan => Some("nans"),
        Special::Value => Some("repeated value"),
        Special::Uninit => Some("uninitialized"),
    }
}

pub(crate) fn split_name(mode: u8) -> &'static str {
    match mode {
        1 => "always",
        2 => "never",
        3 => "auto",
        _ => "forward-compat",
    }
}

/// `1 chunk`, `5 chunks`: a count with its noun.
pub(crate) fn count(n: impl Into<i64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Codec ids that work on the blocks of a b2nd array (NDLZ, ZFP).
pub(crate) const ND_CODECS: std::ops::RangeInclusive<u8> = 32..=35;
/// Filter ids that do (NDCELL, NDMEAN).
pub(crate) const ND_FILTERS: [u8; 2] = [32, 33];

/// `--codec NAME` or `NAME:META` (the codec's meta byte: ZFP's accuracy
/// exponent, precision or rate, NDLZ's cell side); the meta when given.
pub(crate) fn parse_codec(spec: &str) -> Result<(u8, Option<u8>), String> {
    let (name, meta) = match spec.split_once(':') {
        Some((n, m)) => (n.trim(), Some(parse_meta(m, spec, "codec")?)),
        None => (spec.trim(), None),
    };
    Ok((codec_code(name)?, meta))
}

/// A meta byte; negative values are stored as i8 (ZFP's accuracy is a
/// power of ten, trunc_prec and int_trunc take bits to drop).
fn parse_meta(m: &str, spec: &str, what: &str) -> Result<u8, String> {
    let v: i16 = m
        .trim()
        .parse()
        .map_err(|_| format!("bad {what} meta in '{spec}': expected a number"))?;
    if !(-128..=255).contains(&v) {
        return Err(format!(
            "{what} meta out of range in '{spec}' (-128 to 255)"
        ));
    }
    Ok(v as u8)
}

/// An item type as NumPy writes it (`<f8`, `|u1`) from `f8`, `<f8`,
/// `float64`, `int32`, `uint8`, `bool`...; with its size in bytes.
pub(crate) fn parse_dtype(s: &str) -> Result<(String, i32), String> {
    let t = s.trim().to_ascii_lowercase();
    let named = [
        ("float16", "f2"),
        ("float32", "f4"),
        ("float64", "f8"),
        ("int8", "i1"),
        ("int16", "i2"),
        ("int32", "i4"),
        ("int64", "i8"),
        ("uint8", "u1"),
        ("uint16", "u2"),
        ("uint32", "u4"),
        ("uint64", "u8"),
        ("bool", "b1"),
        ("complex64", "c8"),
        ("complex128", "c16"),
    ];
    let short = named
        .iter()
        .find(|(n, _)| *n == t)
        .map(|(_, c)| c.to_string())
        .unwrap_or(t);
    let bad = || {
        format!(
            "unknown dtype '{s}' (NumPy style: f4, f8, i1..i8, u1..u8, b1, c8, c16, \
             optionally with < or >; or float32, int16, uint8, ...)"
        )
    };
    let (order, rest) = match short.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (Some(c), &short[1..]),
        _ => (None, short.as_str()),
    };
    let mut chars = rest.chars();
    let kind = chars.next().ok_or_else(bad)?;
    let size: i32 = chars.as_str().parse().map_err(|_| bad())?;
    let ok = match kind {
        'f' => [2, 4, 8].contains(&size),
        'i' | 'u' => [1, 2, 4, 8].contains(&size),
        'b' => size == 1,
        'c' => [8, 16].contains(&size),
        _ => false,
    };
    if !ok {
        return Err(bad());
    }
    // NumPy: no byte order for single bytes; little-endian otherwise
    let order = match (size, order) {
        (1, _) => '|',
        (_, Some('>')) => '>',
        _ => '<',
    };
    Ok((format!("{order}{kind}{size}"), size))
}

/// `100,200`: sizes per dimension of a b2nd array.
pub(crate) fn parse_dims(s: &str, what: &str) -> Result<Vec<i64>, String> {
    let dims: Result<Vec<i64>, _> = s.split(',').map(|d| d.trim().parse::<i64>()).collect();
    match dims {
        Ok(d)
            if !d.is_empty()
                && d.len() <= blosc2_core::b2nd::MAX_DIM
                && d.iter().all(|&n| n >= 0) =>
        {
            Ok(d)
        }
        _ => Err(format!(
            "bad {what} '{s}': expected 1 to {} sizes, comma-separated (like 100,200)",
            blosc2_core::b2nd::MAX_DIM
        )),
    }
}
