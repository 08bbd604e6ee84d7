//! Gives the shared library upstream's SONAME, so it can replace
//! `libblosc2.so.9` as it is.

use std::env;

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
}
