//! The committed headers in `include/` must be exactly what build.rs generates
//! from the current sources (in `$OUT_DIR/include`), and the Rust structs must
//! have the sizes C-Blosc2's headers give them.
//!
//! To refresh `include/`: `BLOSC2_UPDATE_HEADERS=1 cargo build` (`make headers`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn headers_below(root: &Path) -> BTreeSet<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|x| x == "h") {
                out.insert(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, root, &mut out);
    out
}

/// A short unified-style report of the first differing lines.
fn describe_difference(name: &Path, committed: &str, generated: &str) -> String {
    let old: Vec<&str> = committed.lines().collect();
    let new: Vec<&str> = generated.lines().collect();
    let first = old
        .iter()
        .zip(&new)
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    let mut report = format!(
        "--- include/{0} (committed)\n+++ $OUT_DIR/include/{0} (generated)\n@@ line {1} @@\n",
        name.display(),
        first + 1
    );
    for line in old.iter().skip(first).take(8) {
        report.push_str(&format!("-{line}\n"));
    }
    for line in new.iter().skip(first).take(8) {
        report.push_str(&format!("+{line}\n"));
    }
    report
}

#[test]
fn committed_headers_match_generated() {
    let generated_dir = Path::new(env!("OUT_DIR")).join("include");
    let committed_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../include");
    let generated = headers_below(&generated_dir);
    assert!(
        !generated.is_empty(),
        "build.rs generated no header in {} (see the cargo warnings of the build)",
        generated_dir.display()
    );
    let committed = headers_below(&committed_dir);

    let mut problems = Vec::new();
    for name in generated.union(&committed) {
        match (generated.contains(name), committed.contains(name)) {
            (true, false) => problems.push(format!("include/{} is missing", name.display())),
            (false, true) => problems.push(format!(
                "include/{} is not generated any more",
                name.display()
            )),
            _ => {
                let new = fs::read_to_string(generated_dir.join(name)).unwrap();
                let old = fs::read_to_string(committed_dir.join(name)).unwrap();
                if new != old {
                    problems.push(describe_difference(name, &old, &new));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "include/ is out of date; run `BLOSC2_UPDATE_HEADERS=1 cargo build` (make headers) and commit it:\n{}",
        problems.join("\n")
    );
}

/// Sizes and alignments printed by a probe compiled against the C-Blosc2 3.3.5
/// headers on x86_64/aarch64 Linux (c-tests/layout checks every field in C).
#[cfg(all(target_pointer_width = "64", not(windows)))]
#[test]
fn rust_struct_sizes_match_reference() {
    use libblosc2_rs_sys::types::*;
    use std::mem::{align_of, size_of};
    macro_rules! check {
        ($($t:ty => $size:expr, $align:expr;)*) => {$(
            assert_eq!((size_of::<$t>(), align_of::<$t>()), ($size, $align), stringify!($t));
        )*};
    }
    check! {
        blosc2_stdio_file => 8, 8;
        blosc2_stdio_params => 1, 1;
        blosc2_stdio_mmap => 96, 8;
        blosc2_instr => 16, 4;
        blosc2_io_cb => 80, 8;
        blosc2_io => 24, 8;
        blosc2_tuner => 56, 8;
        blosc2_prefilter_params => 88, 8;
        blosc2_postfilter_params => 80, 8;
        blosc2_cparams => 136, 8;
        blosc2_dparams => 40, 8;
        blosc2_storage => 40, 8;
        blosc2_metalayer => 24, 8;
        blosc2_schunk => 65840, 8;
        blosc2_codec => 40, 8;
        blosc2_filter => 40, 8;
        chunk_cache_s => 16, 8;
        b2nd_array_t => 1376, 8;
        codec_info => 16, 8;
        filter_info => 16, 8;
        tuner_info => 40, 8;
    }
}

#[test]
fn rust_defaults_match_c_defaults() {
    use libblosc2_rs_sys::consts::*;
    use libblosc2_rs_sys::types::*;
    let c = blosc2_cparams::default();
    assert_eq!(
        (c.compcode, c.clevel, c.typesize, c.nthreads),
        (BLOSC_BLOSCLZ as u8, 5, 8, 1)
    );
    assert_eq!(c.splitmode, BLOSC_FORWARD_COMPAT_SPLIT);
    assert_eq!(c.filters, [0, 0, 0, 0, 0, BLOSC_SHUFFLE as u8]);
    let d = blosc2_dparams::default();
    assert_eq!((d.nthreads, d.typesize), (1, 8));
    let io = blosc2_io::default();
    assert_eq!(io.id, BLOSC2_IO_FILESYSTEM as u8);
    assert!(!io.name.is_null() && io.params.is_null());
    let m = blosc2_stdio_mmap::default();
    assert_eq!(
        (m.initial_mapping_size, m.fd, m.access_flags, m.map_flags),
        (1 << 30, -1, -1, -1)
    );
}

/// Build scripts read the version out of `blosc2.h` as text; PyTables'
/// setup.py looks for a `#define` line naming the macro that also says
/// "major", "minor" or "tweaks" (upstream's trailing comments) and takes
/// its third word. Others match `#define NAME <value>`.
#[test]
fn version_defines_read_as_build_scripts_read_them() {
    let header =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../include/blosc2.h"))
            .expect("include/blosc2.h");
    let third_word = |macro_name: &str, word: &str| -> Option<String> {
        header
            .lines()
            .find(|l| l.contains(macro_name) && l.contains(word))
            .and_then(|l| l.split_whitespace().nth(2).map(str::to_string))
    };
    use libblosc2_rs_sys::consts::*;
    assert_eq!(
        third_word("BLOSC2_VERSION_MAJOR", "major"),
        Some(BLOSC2_VERSION_MAJOR.to_string())
    );
    assert_eq!(
        third_word("BLOSC2_VERSION_MINOR", "minor"),
        Some(BLOSC2_VERSION_MINOR.to_string())
    );
    assert_eq!(
        third_word("BLOSC2_VERSION_RELEASE", "tweaks"),
        Some(BLOSC2_VERSION_RELEASE.to_string())
    );
    let string = format!("\"{}\"", BLOSC2_VERSION_STRING.to_str().unwrap());
    assert_eq!(
        third_word("#define BLOSC2_VERSION_STRING", "version"),
        Some(string)
    );
}
