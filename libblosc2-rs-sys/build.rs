//! Build script: the public C headers.
//!
//! # Headers
//!
//! The headers are generated with cbindgen from the Rust declarations in
//! `src/` and written to `$OUT_DIR/include`. With `BLOSC2_UPDATE_HEADERS=1`
//! in the environment they are also written to `include/`, the committed copy
//! that users and `make install` get (`tests/headers.rs` fails when the two
//! differ, so a stale `include/` is caught).
//!
//! ## Where an item lands (the mapping rule)
//!
//! Each header belongs to an *area* (see [`AREAS`]):
//!
//! | area               | header                       |
//! |--------------------|------------------------------|
//! | `blosc2`           | `blosc2.h`                   |
//! | `b2nd`             | `b2nd.h`                     |
//! | `stdio`            | `blosc2/blosc2-stdio.h`      |
//! | `codecs_registry`  | `blosc2/codecs-registry.h`   |
//! | `filters_registry` | `blosc2/filters-registry.h`  |
//! | `tuners_registry`  | `blosc2/tuners-registry.h`   |
//! | `blosc2rs`         | `blosc2/blosc2-rs.h` (ours)  |
//!
//! * Types: every `pub struct` / `pub type` of `src/types/<area>.rs`.
//! * Constants: every integer `pub const` of `src/consts/<area>.rs`, plus
//!   its string constants written on one line as `pub const NAME: &CStr = c"...";`
//!   (cbindgen has no string constants, so this script emits those itself).
//! * Functions: every `#[no_mangle] pub extern "C" fn` of any other `.rs` file
//!   under `src/` (whatever the file), placed by its name as upstream does:
//!   `b2nd_*` → b2nd.h, `blosc2_stdio_*` → blosc2-stdio.h, `register_codecs`
//!   (and `_filters`, `_tuners`) → the registry headers, anything else → blosc2.h.
//!   Only functions are taken from these files: a type used in a signature must
//!   be one of the public types above (the `blosc2_context` handle included).
//!   A header lists its functions file by file, in source order within a file;
//!   the files are taken sorted by path, except that the files of a module
//!   split into a directory (`schunk/*.rs`) come in the order its module file
//!   (`schunk.rs`) declares them (see [`rust_files`]).
//!
//! A function is thus declared as soon as it exists in Rust, and not before.
//!
//! ## Templates
//!
//! What cbindgen cannot express (include guards, `#include`s, `extern "C"`,
//! the `BLOSC1_COMPAT` names, the `BLOSC_TRACE*`/`BLOSC_ERROR*` macros, the
//! `static const ..._DEFAULTS` structs, `static inline` helpers, opaque
//! handles) lives in hand-written templates `cbindgen/<header>.in`. Lines that
//! are exactly `@CONSTANTS@`, `@TYPES@` or `@FUNCTIONS@` are replaced by the
//! generated declarations of the area; a block between `@IF_FN name@` and
//! `@ENDIF@` is kept only if function `name` is declared (helpers that call an
//! exported function must not appear before it exists).
//!
//! ## Why upstream's anonymous enums become `#define`s
//!
//! Upstream declares most integer constants in anonymous `enum {}`s. cbindgen
//! cannot emit anonymous enums, and a Rust `#[repr(C)] enum` cannot hold
//! upstream's aliases (several names share a value, e.g. `BLOSC_NOSHUFFLE` and
//! `BLOSC_NOFILTER`, `BLOSC2_VERSION_FORMAT` and `..._VL_BLOCKS`). The closest
//! faithful form is the object-like macro cbindgen emits for a `pub const`:
//! it has type `int` like an enumerator, works in `switch` cases, array
//! bounds and static initialisers, and additionally in `#if`. The
//! `#ifndef BLOSC_H` guards are kept through `#[cfg(not(blosc_h))]`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// A header generated from one area of `src/`.
struct Area {
    /// Area name: its items are in `types/<name>.rs` and `consts/<name>.rs`.
    name: &'static str,
    /// Path of the header below `include/`.
    header: &'static str,
    /// Exported functions whose name starts with one of these go to this header.
    fn_prefixes: &'static [&'static str],
}

/// The generated headers, in the order their function files are claimed.
const AREAS: &[Area] = &[
    Area {
        name: "blosc2",
        header: "blosc2.h",
        fn_prefixes: &[],
    },
    Area {
        name: "b2nd",
        header: "b2nd.h",
        fn_prefixes: &["b2nd_"],
    },
    Area {
        name: "stdio",
        header: "blosc2/blosc2-stdio.h",
        fn_prefixes: &["blosc2_stdio_"],
    },
    Area {
        name: "codecs_registry",
        header: "blosc2/codecs-registry.h",
        fn_prefixes: &["register_codecs"],
    },
    Area {
        name: "filters_registry",
        header: "blosc2/filters-registry.h",
        fn_prefixes: &["register_filters"],
    },
    Area {
        name: "tuners_registry",
        header: "blosc2/tuners-registry.h",
        fn_prefixes: &["register_tuners"],
    },
    // this library's own additions, never upstream's names
    Area {
        name: "blosc2rs",
        header: "blosc2/blosc2-rs.h",
        fn_prefixes: &["blosc2rs_"],
    },
];

/// Index in [`AREAS`] of the header that declares function `name`; the first
/// area takes the functions no other claims.
fn area_of_function(name: &str) -> usize {
    AREAS
        .iter()
        .position(|a| a.fn_prefixes.iter().any(|p| name.starts_with(p)))
        .unwrap_or(0)
}

/// Headers with no Rust content, copied from their template as they are.
const STATIC_HEADERS: &[&str] = &["blosc2/blosc2-export.h", "blosc2/blosc2-common.h"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(blosc_h)");

    let root =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("include");
    for watched in ["build.rs", "cbindgen.toml", "cbindgen", "src"] {
        println!("cargo::rerun-if-changed={watched}");
    }
    println!("cargo::rerun-if-env-changed=BLOSC2_UPDATE_HEADERS");
    let update = env::var("BLOSC2_UPDATE_HEADERS").is_ok_and(|v| v == "1");
    if update {
        // So that a hand-edited include/ is rewritten by the next update too.
        println!("cargo::rerun-if-changed=../include");
    }

    let headers = match generate_all(&root) {
        Ok(h) => h,
        Err(e) => {
            // A half-edited capi file must not stop everybody's build: the
            // headers test reports the missing headers instead.
            println!("cargo::warning=C headers not generated: {e}");
            let _ = fs::remove_dir_all(&out);
            return;
        }
    };
    for (rel, text) in &headers {
        write_if_changed(&out.join(rel), text);
        if update {
            write_if_changed(&root.join("../include").join(rel), text);
        }
    }
}

/// Returns `(path below include/, text)` of every public header.
fn generate_all(root: &Path) -> Result<Vec<(String, String)>, String> {
    let capi = root.join("src");
    let base = cbindgen::Config::from_file(root.join("cbindgen.toml"))
        .map_err(|e| format!("cbindgen.toml: {e}"))?;

    let mut fn_files = Vec::new();
    let mut fn_names = Vec::new();
    for file in rust_files(&capi)? {
        let rel = file.strip_prefix(&capi).expect("walked below capi");
        let first = rel.components().next().expect("non-empty path");
        let first = first.as_os_str().to_string_lossy();
        // lib.rs only declares modules, and cbindgen would follow its `mod`
        // lines into the function files a second time.
        if matches!(
            first.as_ref(),
            "types" | "consts" | "types.rs" | "consts.rs" | "lib.rs"
        ) {
            continue;
        }
        fn_names.extend(exported_names(&file)?);
        fn_files.push(file);
    }

    // cbindgen prints a type it has not parsed as `struct NAME`, which is wrong
    // for typedefs (callbacks), so the function runs also parse every types file.
    let mut type_files = Vec::new();
    for area in AREAS {
        let types_rs = capi.join("types").join(format!("{}.rs", area.name));
        if types_rs.exists() {
            type_files.push(types_rs);
        }
    }
    let mut functions = Vec::new();
    for (index, area) in AREAS.iter().enumerate() {
        // Each header is generated from all function files, minus the
        // functions that belong to another header.
        let elsewhere: Vec<String> = fn_names
            .iter()
            .filter(|n| area_of_function(n) != index)
            .cloned()
            .collect();
        functions.push(function_decls(
            &base,
            area,
            &fn_files,
            &type_files,
            elsewhere,
        )?);
    }
    let all_functions = functions.concat();

    let mut headers = Vec::new();
    for (area, fns) in AREAS.iter().zip(&functions) {
        let consts_rs = capi.join("consts").join(format!("{}.rs", area.name));
        let types_rs = capi.join("types").join(format!("{}.rs", area.name));
        let mut constants = String::new();
        if consts_rs.exists() {
            constants = run_cbindgen(&base, &consts_rs, |c| {
                c.export.item_types = vec![cbindgen::ItemType::Constants];
            })?;
            constants.push_str(&string_defines(&consts_rs)?);
            constants = upstream_version_lines(&constants);
        }
        let types = if types_rs.exists() {
            type_decls(&base, &types_rs)?
        } else {
            String::new()
        };
        let template = root.join("cbindgen").join(format!("{}.in", area.header));
        let text = fill_template(&template, &constants, &types, fns, &all_functions)?;
        headers.push((area.header.to_string(), text));
    }
    for header in STATIC_HEADERS {
        let template = root.join("cbindgen").join(format!("{header}.in"));
        let text = fill_template(&template, "", "", "", "")?;
        headers.push((header.to_string(), text));
    }
    Ok(headers)
}

/// Every `.rs` file below `dir`, in an order that does not depend on the
/// file system: sorted by path, except that the files of a module split
/// into a directory (`schunk/*.rs` beside `schunk.rs`) come in the order
/// its module file declares them (`mod name;` lines), so that the header
/// keeps the functions in the order that module gives them.
fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        entries.push(entry.map_err(|e| e.to_string())?.path());
    }
    entries.sort();
    let mut found = Vec::new();
    for path in entries {
        if path.is_dir() {
            let mut files = rust_files(&path)?;
            let order = declared_modules(&path.with_extension("rs"))?;
            // stable: undeclared files stay sorted, after the declared ones
            files.sort_by_key(|f| {
                let rel = f.strip_prefix(&path).expect("walked below path");
                let first = rel.components().next().expect("non-empty path");
                let name = first.as_os_str().to_string_lossy();
                let name = name.strip_suffix(".rs").unwrap_or(&name);
                order.iter().position(|m| m == name).unwrap_or(order.len())
            });
            found.extend(files);
        } else if path.extension().is_some_and(|x| x == "rs") {
            found.push(path);
        }
    }
    Ok(found)
}

/// The modules a module file declares (`mod name;`, any visibility), in
/// order; none when there is no such file.
fn declared_modules(file: &Path) -> Result<Vec<String>, String> {
    if !file.exists() {
        return Ok(Vec::new());
    }
    let source = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(source
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = match line.strip_prefix("pub") {
                Some(r) if r.starts_with(' ') => r.trim_start(),
                Some(r) if r.starts_with('(') => r.split_once(')')?.1.trim_start(),
                _ => line,
            };
            rest.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect())
}

/// Runs cbindgen on one source file with `tweak` applied to the base config.
fn run_cbindgen(
    base: &cbindgen::Config,
    src: &Path,
    tweak: impl FnOnce(&mut cbindgen::Config),
) -> Result<String, String> {
    run_cbindgen_files(base, std::slice::from_ref(&src.to_path_buf()), tweak)
}

fn run_cbindgen_files(
    base: &cbindgen::Config,
    srcs: &[PathBuf],
    tweak: impl FnOnce(&mut cbindgen::Config),
) -> Result<String, String> {
    let mut config = base.clone();
    tweak(&mut config);
    let mut builder = cbindgen::Builder::new().with_config(config);
    for src in srcs {
        builder = builder.with_src(src);
    }
    let bindings = builder
        .generate()
        .map_err(|e| format!("cbindgen on {srcs:?}: {e}"))?;
    let mut text = Vec::new();
    bindings.write(&mut text);
    let text = String::from_utf8(text).map_err(|e| e.to_string())?;
    let text = text.trim_matches('\n');
    Ok(if text.is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    })
}

/// The structs and typedefs of a types file. cbindgen only emits types that a
/// function uses, so every public name is listed explicitly.
fn type_decls(base: &cbindgen::Config, src: &Path) -> Result<String, String> {
    let source = fs::read_to_string(src).map_err(|e| format!("{}: {e}", src.display()))?;
    let names: Vec<String> = source
        .lines()
        .filter_map(|l| {
            l.strip_prefix("pub struct ")
                .or_else(|| l.strip_prefix("pub type "))
        })
        .map(|rest| {
            rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .filter(|n| !n.is_empty() && !base.export.exclude.contains(n))
        .collect();
    let text = run_cbindgen(base, src, |c| {
        c.export.include = names;
        c.export.item_types = vec![
            cbindgen::ItemType::Structs,
            cbindgen::ItemType::Unions,
            cbindgen::ItemType::Typedefs,
            cbindgen::ItemType::Enums,
        ];
    })?;
    Ok(conditional_members_whole(&text))
}

/// cbindgen closes a struct's last, `#[cfg]`-conditional member with a `;`
/// after its `#endif`, so the header has a stray `;` where the condition is
/// false (a `-Wpedantic` warning); the `;` belongs inside the condition.
fn conditional_members_whole(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let (line, next, after) = (lines[i], lines.get(i + 1), lines.get(i + 2));
        if next.is_some_and(|n| n.trim() == "#endif")
            && after.is_some_and(|a| a.trim() == ";")
            && !line.trim_end().ends_with(';')
        {
            out.push(format!("{};", line.trim_end()));
            out.push(lines[i + 1].to_string());
            i += 3;
            continue;
        }
        out.push(line.to_string());
        i += 1;
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// The function prototypes of an area's function files.
fn function_decls(
    base: &cbindgen::Config,
    area: &Area,
    files: &[PathBuf],
    type_files: &[PathBuf],
    elsewhere: Vec<String>,
) -> Result<String, String> {
    if files.is_empty() {
        return Ok(String::new());
    }
    let b2nd = area.name == "b2nd";
    let srcs: Vec<PathBuf> = files.iter().chain(type_files).cloned().collect();
    run_cbindgen_files(base, &srcs, |c| {
        c.export.item_types = vec![cbindgen::ItemType::Functions];
        c.export.exclude.extend(elsewhere);
        if b2nd {
            // b2nd.h marks deprecated functions with its own macro.
            c.function.deprecated = Some("B2ND_DEPRECATED(\"\")".into());
            c.function.deprecated_with_note = Some("B2ND_DEPRECATED({})".into());
        }
    })
}

/// Names of the `extern "..." fn`s of a file (a superset of what cbindgen
/// exports, which is all that is needed to keep them out of other headers).
fn exported_names(src: &Path) -> Result<Vec<String>, String> {
    let source = fs::read_to_string(src).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut names = Vec::new();
    for (at, _) in source.match_indices("extern \"") {
        let rest = &source[at..];
        let Some(fn_at) = rest.find(" fn ") else {
            continue;
        };
        if rest[..fn_at].contains(['{', ';', '(']) {
            continue; // `extern "C" {` blocks, or a `fn` further away
        }
        let name: String = rest[fn_at + 4..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            names.push(name);
        }
    }
    Ok(names)
}

/// The version `#define`s written as upstream writes them, trailing
/// comments included: build scripts read the version from `blosc2.h` by
/// text (PyTables' setup.py wants "major", "minor" and "tweaks" on the
/// `#define` line itself, and takes the third word as the number).
fn upstream_version_lines(constants: &str) -> String {
    const LINES: [(&str, &str, &str); 5] = [
        (
            "BLOSC2_VERSION_MAJOR",
            "  ",
            "for major interface/format changes  ",
        ),
        (
            "BLOSC2_VERSION_MINOR",
            "  ",
            "for minor interface/format changes  ",
        ),
        (
            "BLOSC2_VERSION_RELEASE",
            "  ",
            "for tweaks, bug-fixes, or development ",
        ),
        (
            "BLOSC2_VERSION_STRING",
            "  ",
            "string version.  Sync with above! ",
        ),
        (
            "BLOSC2_VERSION_DATE",
            "    ",
            "date version year-month-day ",
        ),
    ];
    let mut out = String::new();
    for line in constants.lines() {
        let mut words = line.splitn(3, ' ');
        let (define, name, value) = (words.next(), words.next(), words.next());
        match (define, name, value) {
            (Some("#define"), Some(name), Some(value)) => {
                match LINES.iter().find(|(n, _, _)| *n == name) {
                    Some((_, sep, comment)) => {
                        out.push_str(&format!("#define {name:<24}{value}{sep}/* {comment}*/"))
                    }
                    None => out.push_str(line),
                }
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// `#define`s for the one-line string constants of a consts file.
fn string_defines(src: &Path) -> Result<String, String> {
    let source = fs::read_to_string(src).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut out = String::new();
    let mut docs: Vec<&str> = Vec::new();
    let mut guarded = false;
    for line in source.lines().map(str::trim) {
        if let Some(doc) = line.strip_prefix("///") {
            docs.push(doc.trim());
            continue;
        }
        if line == "#[cfg(not(blosc_h))]" {
            guarded = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix("pub const ") {
            if let Some((name, value)) = rest.split_once(": &CStr = c\"") {
                let value = value.strip_suffix("\";").ok_or_else(|| {
                    format!(
                        "{}: string constant {name} must fit on one line",
                        src.display()
                    )
                })?;
                out.push('\n');
                if guarded {
                    out.push_str("#if !defined(BLOSC_H)\n");
                }
                for doc in &docs {
                    out.push_str(&format!("// {doc}\n"));
                }
                out.push_str(&format!("#define {name} \"{value}\"\n"));
                if guarded {
                    out.push_str("#endif\n");
                }
            }
        }
        docs.clear();
        guarded = false;
    }
    Ok(out)
}

/// Whether a generated prototype block declares function `name`.
fn declares(functions: &str, name: &str) -> bool {
    functions.match_indices(name).any(|(at, _)| {
        let before = functions[..at].chars().next_back();
        let after = functions[at + name.len()..].chars().next();
        matches!(before, Some(' ' | '*' | '\n')) && after == Some('(')
    })
}

fn fill_template(
    template: &Path,
    constants: &str,
    types: &str,
    functions: &str,
    all_functions: &str,
) -> Result<String, String> {
    let text = fs::read_to_string(template).map_err(|e| format!("{}: {e}", template.display()))?;
    let mut out = String::new();
    let mut skipping = false;
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix("@IF_FN ")
            .and_then(|l| l.strip_suffix('@'))
        {
            skipping = !declares(all_functions, name.trim());
            continue;
        }
        if line == "@ENDIF@" {
            skipping = false;
            continue;
        }
        if skipping {
            continue;
        }
        match line {
            "@CONSTANTS@" => out.push_str(constants),
            "@TYPES@" => out.push_str(types),
            "@FUNCTIONS@" => out.push_str(functions),
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
