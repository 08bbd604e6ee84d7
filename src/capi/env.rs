//! The `BLOSC_*` environment variables upstream honours. They are read once,
//! the first time any is needed, and then applied on every call exactly where
//! upstream applies them (so they still win over the API, as upstream's do,
//! without a `getenv` per call).

use crate::chunk::params::SplitMode;
use std::sync::OnceLock;

#[derive(Default, Debug)]
pub struct Env {
    pub clevel: Option<u8>,
    /// NOSHUFFLE / SHUFFLE / BITSHUFFLE as 0 / 1 / 2.
    pub shuffle: Option<i32>,
    pub delta: Option<bool>,
    pub typesize: Option<i32>,
    pub compressor: Option<String>,
    pub blocksize: Option<i32>,
    pub nthreads: Option<i16>,
    /// Raw value too, so blosc2_decompress can reject out-of-range counts.
    pub nthreads_raw: Option<i64>,
    pub splitmode: Option<SplitMode>,
    pub nolock: bool,
    pub blosc1_compat: bool,
}

/// C's strtol on the leading digits (junk after a number is ignored).
fn strtol(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return Some(0);
    }
    let v: i64 = digits[..end].parse().ok()?;
    Some(if neg { -v } else { v })
}

fn parse() -> Env {
    let get = |k: &str| std::env::var(k).ok();
    let mut env = Env::default();
    if let Some(v) = get("BLOSC_CLEVEL").and_then(|s| strtol(&s)) {
        if v >= 0 {
            env.clevel = Some(v.min(255) as u8);
        }
    }
    env.shuffle = match get("BLOSC_SHUFFLE").as_deref() {
        Some("NOSHUFFLE") => Some(0),
        Some("SHUFFLE") => Some(1),
        Some("BITSHUFFLE") => Some(2),
        _ => None,
    };
    env.delta = match get("BLOSC_DELTA").as_deref() {
        Some("1") => Some(true),
        Some("0") => Some(false),
        _ => None,
    };
    if let Some(v) = get("BLOSC_TYPESIZE").and_then(|s| strtol(&s)) {
        if v > 0 {
            env.typesize = Some(v.min(i32::MAX as i64) as i32);
        }
    }
    env.compressor = get("BLOSC_COMPRESSOR");
    if let Some(v) = get("BLOSC_BLOCKSIZE").and_then(|s| strtol(&s)) {
        if v > 0 {
            env.blocksize = Some(v.min(i32::MAX as i64) as i32);
        }
    }
    if let Some(v) = get("BLOSC_NTHREADS").and_then(|s| strtol(&s)) {
        env.nthreads_raw = Some(v);
        if v > 0 && v <= i16::MAX as i64 {
            env.nthreads = Some(v as i16);
        }
    }
    env.splitmode = match get("BLOSC_SPLITMODE").as_deref() {
        Some("ALWAYS") => Some(SplitMode::Always),
        Some("NEVER") => Some(SplitMode::Never),
        Some("AUTO") => Some(SplitMode::Auto),
        Some("FORWARD_COMPAT") => Some(SplitMode::ForwardCompat),
        _ => None,
    };
    env.nolock = get("BLOSC_NOLOCK").is_some();
    env.blosc1_compat = get("BLOSC_BLOSC1_COMPAT").is_some();
    env
}

pub fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(parse)
}

#[cfg(test)]
mod tests {
    use super::strtol;

    #[test]
    fn strtol_like_c() {
        assert_eq!(strtol("12abc"), Some(12));
        assert_eq!(strtol(" -3"), Some(-3));
        assert_eq!(strtol("x"), Some(0));
    }
}
