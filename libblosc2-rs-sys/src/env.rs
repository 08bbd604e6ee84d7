//! The `BLOSC_*` environment variables upstream honours. Like upstream, they
//! are read again on every call that honours them, so a program may set or
//! unset one between calls (upstream's own tests do). One pass over
//! `environ` picks out the `BLOSC_` entries, which keeps that cheap.

use blosc2_core::chunk::params::SplitMode;
#[cfg(not(windows))]
use std::ffi::{c_char, CStr};

/// The `BLOSC_*` variables set when a call starts; `None` where unset or
/// not a value upstream accepts.
#[derive(Default, Debug)]
pub(crate) struct Env {
    /// BLOSC_CLEVEL.
    pub clevel: Option<u8>,
    /// NOSHUFFLE / SHUFFLE / BITSHUFFLE as 0 / 1 / 2.
    pub shuffle: Option<i32>,
    /// BLOSC_DELTA.
    pub delta: Option<bool>,
    /// BLOSC_TYPESIZE.
    pub typesize: Option<i32>,
    /// BLOSC_COMPRESSOR, a codec name.
    pub compressor: Option<String>,
    /// BLOSC_BLOCKSIZE.
    pub blocksize: Option<i32>,
    /// BLOSC_NTHREADS.
    pub nthreads: Option<i16>,
    /// Raw value too, so blosc2_decompress can reject out-of-range counts.
    pub nthreads_raw: Option<i64>,
    /// BLOSC_SPLITMODE.
    pub splitmode: Option<SplitMode>,
    /// BLOSC_NOLOCK is set.
    pub nolock: bool,
    /// BLOSC_BLOSC1_COMPAT is set.
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

/// The `BLOSC_` variables of the environment, as (name after the prefix,
/// value) pairs.
#[cfg(windows)]
fn blosc_vars() -> Vec<(Vec<u8>, String)> {
    // The process environment (what the C runtime's getenv sees too: its
    // _putenv writes through to it). Windows has no `environ` of bytes to
    // walk; names and values are UTF-16, taken as UTF-8 here. Names are
    // case-insensitive there, as getenv's lookups are: upper-cased.
    std::env::vars_os()
        .filter_map(|(k, v)| {
            let k = k.to_string_lossy().to_ascii_uppercase();
            let name = k.strip_prefix("BLOSC_")?.as_bytes().to_vec();
            Some((name, v.to_string_lossy().into_owned()))
        })
        .collect()
}

#[cfg(not(windows))]
fn blosc_vars() -> Vec<(Vec<u8>, String)> {
    let mut out = Vec::new();
    // SAFETY: `environ` is the process's NULL-terminated array of
    // NUL-terminated strings. As with upstream's getenv, a concurrent
    // setenv from another thread is the caller's race to avoid.
    unsafe {
        let mut p = libc::environ as *const *const c_char;
        if p.is_null() {
            return out;
        }
        while !(*p).is_null() {
            let entry = CStr::from_ptr(*p).to_bytes();
            p = p.add(1);
            let Some(rest) = entry.strip_prefix(b"BLOSC_") else {
                continue;
            };
            let Some(eq) = rest.iter().position(|&b| b == b'=') else {
                continue;
            };
            let name = rest[..eq].to_vec();
            let value = String::from_utf8_lossy(&rest[eq + 1..]).into_owned();
            out.push((name, value));
        }
    }
    out
}

fn parse() -> Env {
    let vars = blosc_vars();
    let get = |k: &str| {
        let k = k.strip_prefix("BLOSC_").unwrap_or(k).as_bytes();
        vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    };
    let mut env = Env::default();
    if vars.is_empty() {
        return env;
    }
    if let Some(v) = get("BLOSC_CLEVEL").and_then(|s| strtol(&s)) {
        if v >= 0 {
            env.clevel = Some(u8::try_from(v).unwrap_or(u8::MAX));
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
            env.typesize = Some(i32::try_from(v).unwrap_or(i32::MAX));
        }
    }
    env.compressor = get("BLOSC_COMPRESSOR");
    if let Some(v) = get("BLOSC_BLOCKSIZE").and_then(|s| strtol(&s)) {
        if v > 0 {
            env.blocksize = Some(i32::try_from(v).unwrap_or(i32::MAX));
        }
    }
    if let Some(v) = get("BLOSC_NTHREADS").and_then(|s| strtol(&s)) {
        env.nthreads_raw = Some(v);
        env.nthreads = i16::try_from(v).ok().filter(|&n| n > 0);
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

/// The variables as they are now.
pub(crate) fn env() -> Env {
    parse()
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
