//! Codec names and codes, as upstream's name functions know them: the
//! built-in codecs, the plugins upstream registers at start-up, and codecs
//! registered by the user. Shared by the name exports, the Blosc1 calls and
//! contexts (which take a codec by name from `BLOSC_COMPRESSOR`).

use blosc2_core::codecs;
use blosc2_core::registry;
use std::ffi::{c_char, CStr, CString};
use std::sync::Mutex;

/// The codecs upstream registers at start-up (ids 32-40), whether or not
/// they can run: their names and ids are known to the name functions.
/// Upstream registers them only when built with plugins, and ZFP's only
/// when it is built too: see [`global_plugins`].
pub(crate) const GLOBAL_PLUGINS: [(i32, &CStr); 9] = [
    (32, c"ndlz"),
    (33, c"zfp_acc"),
    (34, c"zfp_prec"),
    (35, c"zfp_rate"),
    (36, c"openhtj2k"),
    (37, c"grok"),
    (38, c"openzl"),
    (39, c"j2k"),
    (40, c"htj2k"),
];

/// The part of [`GLOBAL_PLUGINS`] this build registers.
pub(crate) fn global_plugins() -> impl Iterator<Item = &'static (i32, &'static CStr)> {
    let all: &'static [(i32, &CStr)] = &GLOBAL_PLUGINS;
    all.iter()
        .filter(|p| codecs::HAVE_PLUGINS && (codecs::HAVE_ZFP || !(33..=35).contains(&p.0)))
}

/// Built-in codec names as C strings, with the code upstream's
/// `blosc2_compcode_to_compname` returns: -1 for a codec its build left
/// out, whose name it still gives.
pub(crate) fn builtin_name(code: i32) -> Option<(i32, &'static CStr)> {
    let have = u8::try_from(code).is_ok_and(codecs::is_builtin_available);
    let name = match code {
        0 => c"blosclz",
        1 => c"lz4",
        2 => c"lz4hc",
        4 => c"zlib",
        5 => c"zstd",
        _ => return global_plugins().find(|p| p.0 == code).map(|p| (p.0, p.1)),
    };
    Some((if have { code } else { -1 }, name))
}

pub(crate) fn global_plugin(name: &str) -> Option<i32> {
    global_plugins()
        .find(|p| p.1.to_bytes() == name.as_bytes())
        .map(|p| p.0)
}

/// Leaked, deduplicated C copies of registered plugin names: C callers keep
/// the returned pointers forever.
pub(crate) fn static_cstr(s: &str) -> *const c_char {
    static NAMES: Mutex<Vec<&'static CStr>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = names.iter().find(|c| c.to_bytes() == s.as_bytes()) {
        return c.as_ptr();
    }
    let c: &'static CStr = Box::leak(
        CString::new(s.replace('\0', ""))
            .unwrap_or_default()
            .into_boxed_c_str(),
    );
    names.push(c);
    c.as_ptr()
}

pub(crate) fn compname_to_code(name: &str) -> i32 {
    match name {
        "blosclz" => 0,
        "lz4" => 1,
        "lz4hc" => 2,
        // a codec the build left out is an unknown name, as upstream's
        "zlib" if codecs::HAVE_ZLIB => 4,
        "zstd" if codecs::HAVE_ZSTD => 5,
        "zlib" | "zstd" => -1,
        other => global_plugin(other)
            .or_else(|| registry::find_codec_by_name(other).map(|c| c.id as i32))
            .unwrap_or(-1),
    }
}
