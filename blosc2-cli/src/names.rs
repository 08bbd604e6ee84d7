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
pub fn codec_code(name: &str) -> Result<u8, String> {
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
pub fn codec_name(code: u8) -> String {
    match CODECS.iter().find(|(_, c)| *c == code) {
        Some((n, _)) => (*n).to_string(),
        None => format!("codec#{code}"),
    }
}

/// Name of the codec a chunk header records: its format number, which
/// lz4 and lz4hc share, or the plugin id.
pub fn chunk_codec_name(format_or_id: u8, from_udcodec: bool) -> String {
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

pub fn filter_name(id: u8) -> String {
    match FILTERS.iter().find(|(_, c)| *c == id) {
        Some((n, _)) => (*n).to_string(),
        None => format!("filter#{id}"),
    }
}

/// One `--filter` value: `NAME` or `NAME:META` (the filter's meta byte,
/// e.g. `trunc_prec:10` keeps 10 mantissa bits); a comma list allowed.
pub fn parse_filters(specs: &[String]) -> Result<Vec<(u8, u8)>, String> {
    let mut out = Vec::new();
    for spec in specs {
        for part in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, meta) = match part.split_once(':') {
                Some((n, m)) => {
                    // filters_meta is a byte, but trunc_prec and int_trunc
                    // take negative counts (bits to drop) as i8
                    let v: i16 = m
                        .parse()
                        .map_err(|_| format!("bad filter meta in '{part}'"))?;
                    if !(-128..=255).contains(&v) {
                        return Err(format!("filter meta out of range in '{part}'"));
                    }
                    (n, v as u8)
                }
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
pub fn pipeline(filters: &[u8; MAX_FILTERS], meta: &[u8; MAX_FILTERS]) -> Vec<(String, u8)> {
    filters
        .iter()
        .zip(meta)
        .filter(|(f, _)| **f != filter_id::NOFILTER)
        .map(|(f, m)| (filter_name(*f), *m))
        .collect()
}

/// Filters packed the way the pipeline array holds them: at its end, the
/// last one running last.
pub fn pack_filters(list: &[(u8, u8)]) -> ([u8; MAX_FILTERS], [u8; MAX_FILTERS]) {
    let mut f = [0u8; MAX_FILTERS];
    let mut m = [0u8; MAX_FILTERS];
    let start = MAX_FILTERS - list.len();
    for (i, (id, meta)) in list.iter().enumerate() {
        f[start + i] = *id;
        m[start + i] = *meta;
    }
    (f, m)
}

pub fn special_name(s: Special) -> Option<&'static str> {
    match s {
        Special::None => None,
        Special::Zero => Some("zeros"),
        Special::Nan => Some("nans"),
        Special::Value => Some("repeated value"),
        Special::Uninit => Some("uninitialized"),
    }
}

pub fn split_name(mode: u8) -> &'static str {
    match mode {
        1 => "always",
        2 => "never",
        3 => "auto",
        _ => "forward-compat",
    }
}
