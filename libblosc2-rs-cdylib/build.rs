//! Gives the shared library upstream's SONAME, so it can replace
//! `libblosc2.so.9` as it is; on Windows, upstream's MinGW DLL name.

use std::env;
use std::path::PathBuf;

fn main() {
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let elf = matches!(
        os.as_str(),
        "linux"
            | "android"
            | "freebsd"
            | "netbsd"
            | "openbsd"
            | "dragonfly"
            | "solaris"
            | "illumos"
    );
    if elf {
        println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libblosc2.so.9");
    }
    // cargo writes `blosc2.dll` and an import library naming it; upstream's
    // MinGW build ships `libblosc2.dll`, which programs linked against its
    // `libblosc2.dll.a` load by that name. A module-definition file with
    // only a LIBRARY line gives the DLL (its export directory and the
    // import library rustc asks GNU ld for) that name; ld merges it with
    // the EXPORTS file rustc passes. The install copies the DLL under it.
    let env_ = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "windows" && env_ == "gnu" {
        let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        let def = out.join("libblosc2-name.def");
        std::fs::write(&def, "LIBRARY \"libblosc2.dll\"\n").expect("OUT_DIR is writable");
        println!("cargo::rustc-cdylib-link-arg={}", def.display());
    }
}
