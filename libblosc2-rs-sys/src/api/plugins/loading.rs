//! Plugins loaded at first use: a codec or filter registered by name only
//! (its functions NULL) is looked up when a chunk first needs it, as
//! upstream does for the codecs it registers at start-up (openhtj2k, grok,
//! openzl, j2k, htj2k) and for plugins shipped as Python packages
//! (`blosc2.register_filter(250, None, None, "plugin_example")`).
//!
//! The library is `libblosc2_<name>.so` (`blosc2_<name>.dll` on Windows) on
//! the dynamic loader's path, or
//! else the file that `python -c "import blosc2_<name>;
//! blosc2_<name>.print_libpath()"` prints (`python3` if `python` fails).
//! It exports `info`, a `codec_info` or `filter_info` naming its two
//! functions. The library stays loaded for the life of the process.

use crate::types::{
    blosc2_codec_decoder_cb, blosc2_codec_encoder_cb, blosc2_filter_backward_cb,
    blosc2_filter_forward_cb, codec_info,
};
use std::ffi::{c_char, c_void, CString};
use std::process::{Command, Stdio};

/// Upstream's rule, which also keeps the name harmless in a file name and
/// a Python statement: ASCII letters, digits and '_', not empty.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn trace(msg: &str) {
    if blosc2_core::trace::enabled() {
        blosc2_core::trace::emit("info", msg, file!(), line!());
    }
}

#[cfg(not(windows))]
fn dlopen(path: &str) -> Option<*mut c_void> {
    let c = CString::new(path).ok()?;
    // SAFETY: `c` is a NUL-terminated path; dlopen runs the library's
    // initializers, which is what loading a plugin means.
    let lib = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_LAZY) };
    (!lib.is_null()).then_some(lib)
}

#[cfg(windows)]
fn dlopen(path: &str) -> Option<*mut c_void> {
    let c = CString::new(path).ok()?;
    // SAFETY: `c` is a NUL-terminated path; LoadLibraryA runs the DLL's
    // initializers, which is what loading a plugin means.
    let lib = unsafe { windows_sys::Win32::System::LibraryLoader::LoadLibraryA(c.as_ptr().cast()) };
    (!lib.is_null()).then_some(lib)
}

/// The file name a plugin's library has on the loader's path, as
/// upstream names it on each system.
#[cfg(not(windows))]
fn direct_name(name: &str) -> String {
    format!("libblosc2_{name}.so")
}
#[cfg(windows)]
fn direct_name(name: &str) -> String {
    format!("blosc2_{name}.dll")
}

/// The path the plugin's Python package gives, through `python`.
fn python_libpath(name: &str, python: &str) -> Option<String> {
    let code = format!("import blosc2_{name}; blosc2_{name}.print_libpath()");
    let out = Command::new(python)
        .arg("-c")
        .arg(code)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    // the first line (upstream reads one with fgets), without its newline
    let text = String::from_utf8(out.stdout).ok()?;
    let line = text.lines().next()?.trim_end();
    (!line.is_empty()).then(|| line.to_string())
}

fn open_plugin(name: &str) -> Option<*mut c_void> {
    if !valid_name(name) {
        return None;
    }
    let direct = direct_name(name);
    if let Some(lib) = dlopen(&direct) {
        trace(&format!("loaded plugin {direct} directly"));
        return Some(lib);
    }
    let path = python_libpath(name, "python").or_else(|| python_libpath(name, "python3"));
    let Some(path) = path else {
        trace(&format!(
            "no library for plugin '{name}': neither {direct} nor blosc2_{name}.print_libpath()"
        ));
        return None;
    };
    let lib = dlopen(&path);
    trace(&match lib {
        Some(_) => format!("loaded plugin '{name}' from {path}"),
        None => format!("cannot load plugin '{name}' from {path}"),
    });
    lib
}

/// The address of `symbol` in `lib`.
fn symbol(lib: *mut c_void, symbol: *const c_char) -> Option<*mut c_void> {
    if symbol.is_null() {
        return None;
    }
    // SAFETY: `lib` is a handle dlopen returned and never closed; `symbol`
    // is a NUL-terminated name (one of ours, or one a plugin's `info`
    // gives, which the plugin contract makes a C string).
    #[cfg(not(windows))]
    let p = unsafe { libc::dlsym(lib, symbol) };
    #[cfg(windows)]
    // SAFETY: as above, with the module handle LoadLibraryA returned.
    let p =
        unsafe { windows_sys::Win32::System::LibraryLoader::GetProcAddress(lib, symbol.cast()) }
            .map_or(std::ptr::null_mut(), |f| f as *mut c_void);
    (!p.is_null()).then_some(p)
}

/// # Safety
/// `p` is NULL or NUL-terminated (a plugin's name, per its contract).
unsafe fn name_str(p: *const c_char) -> String {
    // SAFETY: `p` is NULL or NUL-terminated, per this function's contract,
    // as c_string_lossy needs.
    unsafe { crate::ptr::c_string_lossy(p) }.unwrap_or_else(|| "(NULL)".into())
}

/// The addresses of the two functions plugin `name`'s `info` names, or
/// None (traced). `what` names them for the trace.
fn load_pair(name: &str, what: [&str; 2]) -> Option<[*mut c_void; 2]> {
    let lib = open_plugin(name)?;
    let info = symbol(lib, c"info".as_ptr())?;
    // SAFETY: `info` is the plugin's exported `codec_info` or `filter_info`
    // per the plugin contract; both are two `char *`, so reading it as a
    // `codec_info` reads either.
    let names = unsafe { std::ptr::read(info.cast::<codec_info>()) };
    let (first, second) = (names.encoder, names.decoder);
    let (Some(a), Some(b)) = (symbol(lib, first), symbol(lib, second)) else {
        // SAFETY: the two names the plugin exports, per its contract.
        let (first, second) = unsafe { (name_str(first), name_str(second)) };
        trace(&format!(
            "plugin '{name}' lacks its {} {first} or {} {second}",
            what[0], what[1],
        ));
        return None;
    };
    Some([a, b])
}

/// Both functions of codec plugin `name`, or None (traced) when it
/// cannot be loaded.
pub(crate) fn load_codec(name: &str) -> Option<(blosc2_codec_encoder_cb, blosc2_codec_decoder_cb)> {
    let [e, d] = load_pair(name, ["encoder", "decoder"])?;
    // SAFETY: the plugin contract: the names `info` gives are functions
    // with the encoder's and decoder's C signatures.
    unsafe {
        Some((
            std::mem::transmute::<*mut c_void, blosc2_codec_encoder_cb>(e),
            std::mem::transmute::<*mut c_void, blosc2_codec_decoder_cb>(d),
        ))
    }
}

/// Both functions of filter plugin `name`, or None (traced).
pub(crate) fn load_filter(
    name: &str,
) -> Option<(blosc2_filter_forward_cb, blosc2_filter_backward_cb)> {
    let [f, b] = load_pair(name, ["forward", "backward"])?;
    // SAFETY: the plugin contract: the names `info` gives are functions
    // with the filter callbacks' C signatures.
    unsafe {
        Some((
            std::mem::transmute::<*mut c_void, blosc2_filter_forward_cb>(f),
            std::mem::transmute::<*mut c_void, blosc2_filter_backward_cb>(b),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_letters_digits_and_underscores() {
        assert!(valid_name("grok"));
        assert!(valid_name("plugin_example2"));
        assert!(!valid_name(""));
        assert!(!valid_name("a b"));
        assert!(!valid_name("x;rm"));
        assert!(!valid_name("../x"));
        assert!(!valid_name("é"));
    }

    #[test]
    fn a_missing_plugin_is_none() {
        assert!(load_codec("no_such_plugin_here_42").is_none());
        assert!(load_filter("no_such_plugin_here_42").is_none());
        assert!(load_codec("bad name").is_none());
    }
}
