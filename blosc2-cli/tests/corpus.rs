//! `b2` over the interop corpora written by the reference C-Blosc2 3.3.5
//! and 2.22.1 (`../shared/interop`, see its README): every file the
//! manifests list verifies, shows its info, and `cat` gives the expected
//! content, whole and in the manifests' slices.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// Entries whose expected content no faithful 3.3.5 reader gives: 2.22.1
/// recorded a `filters_meta` for SHUFFLE that it did not apply, and 3.x
/// reads it as a number of byte streams (the interop README lists them;
/// the reference 3.3.5 fails them too). They must still verify.
fn content_known_to_differ(folder: &str, id: &str) -> bool {
    folder == "ref-2.22.1" && id.contains("shuffle-meta")
}

struct Tally {
    entries: usize,
    contents: usize,
    slices: usize,
    failures: Vec<String>,
}

fn check_entry(folder: &Path, e: &Value, t: &mut Tally) {
    let fname = folder.file_name().unwrap().to_str().unwrap();
    let id = e["id"].as_str().unwrap();
    let path = folder.join(e["path"].as_str().unwrap());
    let p = s(&path);
    let offset = e["params"]["offset"].as_u64().unwrap_or(0).to_string();
    let exp = &e["expected"];
    let kind = e["kind"].as_str().unwrap();
    t.entries += 1;
    let mut fail = |what: String| t.failures.push(format!("{fname}/{id}: {what}"));

    let o = b2(&["verify", "--offset", &offset, p]);
    if !o.status.success() {
        fail(format!("verify: {}", String::from_utf8_lossy(&o.stdout)));
    }
    let o = b2(&["info", "--json", "--offset", &offset, p]);
    let info: Value = match serde_json::from_slice(&o.stdout) {
        Ok(v) if o.status.success() => v,
        _ => {
            fail(format!("info: {}", String::from_utf8_lossy(&o.stderr)));
            Value::Null
        }
    };
    match kind {
        "chunk" => {
            if info["chunk"]["nbytes"] != exp["nbytes"] || info["chunk"]["cbytes"] != exp["cbytes"]
            {
                fail(format!("info sizes {}", info["chunk"]));
            }
        }
        "b2nd" => {
            for k in ["shape", "chunkshape", "blockshape", "dtype"] {
                if info["b2nd"][k] != exp[k] {
                    fail(format!("info b2nd {k}: {} vs {}", info["b2nd"][k], exp[k]));
                }
            }
        }
        _ => {
            if info["frame"]["nchunks"] != exp["nchunks"]
                || info["frame"]["nbytes"] != exp["nbytes"]
                || info["chunks"].as_array().map(Vec::len)
                    != exp["nchunks"].as_u64().map(|n| n as usize)
            {
                fail(format!("info nchunks/nbytes {}", info["frame"]));
            }
            let names = |v: &Value, key: &str| -> Vec<Value> {
                v.as_array()
                    .into_iter()
                    .flatten()
                    .map(|m| m[key].clone())
                    .collect()
            };
            if names(&info["metalayers"], "name") != names(&exp["metalayers"], "name")
                || names(&info["vlmetalayers"], "size") != names(&exp["vlmetalayers"], "len")
            {
                fail("info metalayers".into());
            }
        }
    }

    let differs = content_known_to_differ(fname, id);
    let o = b2(&["cat", "--offset", &offset, p]);
    if !o.status.success() {
        fail(format!("cat: {}", String::from_utf8_lossy(&o.stderr)));
    } else if exp["content"] == "undefined" {
        // uninitialized chunks: only the size is defined
        if Some(o.stdout.len() as u64) != exp["nbytes"].as_u64() {
            fail(format!("cat gave {} bytes", o.stdout.len()));
        }
        t.contents += 1;
    } else if !differs {
        if Some(sha256_hex(&o.stdout).as_str()) != exp["sha256"].as_str() {
            fail(format!("cat content differs ({} bytes)", o.stdout.len()));
        }
        t.contents += 1;
    }

    // slices: getitem ranges of chunks, item ranges of frames, a box of arrays
    let mut slices: Vec<(String, Value)> = Vec::new();
    match kind {
        "chunk" => {
            for g in e["getitem"].as_array().into_iter().flatten() {
                let (a, n) = (g["start"].as_i64().unwrap(), g["nitems"].as_i64().unwrap());
                slices.push((format!("{a}:{}", a + n), g["sha256"].clone()));
            }
        }
        "b2nd" => {
            if let Some(sl) = exp.get("slice") {
                let spec: Vec<String> = sl["start"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .zip(sl["stop"].as_array().unwrap())
                    .map(|(a, b)| format!("{a}:{b}"))
                    .collect();
                slices.push((spec.join(","), sl["sha256"].clone()));
            }
        }
        _ => {
            for sl in exp["slices"].as_array().into_iter().flatten() {
                slices.push((
                    format!("{}:{}", sl["start"], sl["stop"]),
                    sl["sha256"].clone(),
                ));
            }
        }
    }
    for (spec, sha) in slices {
        let o = b2(&["cat", "--offset", &offset, "--slice", &spec, p]);
        if !o.status.success() {
            fail(format!(
                "cat --slice {spec}: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        } else if !differs
            && sha.is_string()
            && Some(sha256_hex(&o.stdout).as_str()) != sha.as_str()
        {
            fail(format!("cat --slice {spec}: content differs"));
        }
        t.slices += 1;
    }
}

/// Check every entry of `kinds` in both corpora.
fn run(test: &str, kinds: &[&str]) {
    let Some(interop) = shared_interop(test) else {
        return;
    };
    let mut t = Tally {
        entries: 0,
        contents: 0,
        slices: 0,
        failures: Vec::new(),
    };
    for folder in ["ref-3.3.5", "ref-2.22.1"] {
        let dir = interop.join(folder);
        let Ok(text) = std::fs::read(dir.join("manifest.json")) else {
            eprintln!("SKIP {test}: {} has no manifest.json", dir.display());
            continue;
        };
        let m: Value = serde_json::from_slice(&text).unwrap();
        for e in m["entries"].as_array().unwrap() {
            if kinds.contains(&e["kind"].as_str().unwrap_or("")) {
                check_entry(&dir, e, &mut t);
            }
        }
    }
    eprintln!(
        "{test}: {} corpus files verified and inspected, {} contents and {} slices compared",
        t.entries, t.contents, t.slices
    );
    assert!(t.entries > 0, "no corpus entries of kinds {kinds:?}");
    assert!(
        t.failures.is_empty(),
        "{} failure(s):\n{}",
        t.failures.len(),
        t.failures.join("\n")
    );
}

#[test]
fn corpus_chunks() {
    run("corpus_chunks", &["chunk"]);
}

#[test]
fn corpus_frames() {
    run(
        "corpus_frames",
        &["cframe", "cframe-file", "sframe", "offset-frame"],
    );
}

#[test]
fn corpus_b2nd_arrays() {
    run("corpus_b2nd_arrays", &["b2nd"]);
}

/// Every frame and array of both corpora rewritten with another codec and
/// filter still verifies and holds the expected content.
#[test]
fn corpus_recompress() {
    let test = "corpus_recompress";
    let Some(interop) = shared_interop(test) else {
        return;
    };
    let dir = Scratch::new("corpus-recompress");
    let (mut n, mut failures) = (0, Vec::new());
    for folder in ["ref-3.3.5", "ref-2.22.1"] {
        let fdir = interop.join(folder);
        let Ok(text) = std::fs::read(fdir.join("manifest.json")) else {
            eprintln!("SKIP {test}: {} has no manifest.json", fdir.display());
            continue;
        };
        let m: Value = serde_json::from_slice(&text).unwrap();
        for e in m["entries"].as_array().unwrap() {
            if e["kind"] == "chunk" {
                continue;
            }
            let id = e["id"].as_str().unwrap();
            let path = fdir.join(e["path"].as_str().unwrap());
            let offset = e["params"]["offset"].as_u64().unwrap_or(0).to_string();
            let out = dir.path("out.b2");
            n += 1;
            let o = b2(&[
                "recompress",
                "--force",
                "--offset",
                &offset,
                s(&path),
                s(&out),
                "--codec",
                "zstd",
                "--clevel",
                "3",
                "--filter",
                "bitshuffle",
            ]);
            if !o.status.success() {
                failures.push(format!(
                    "{folder}/{id}: {}",
                    String::from_utf8_lossy(&o.stderr)
                ));
                continue;
            }
            let o = b2(&["verify", s(&out)]);
            if !o.status.success() {
                failures.push(format!(
                    "{folder}/{id}: {}",
                    String::from_utf8_lossy(&o.stdout)
                ));
                continue;
            }
            let exp = &e["expected"];
            let content = b2_ok(&["cat", s(&out)]);
            if exp["content"] == "defined"
                && Some(sha256_hex(&content).as_str()) != exp["sha256"].as_str()
            {
                failures.push(format!("{folder}/{id}: content differs after recompress"));
            }
        }
    }
    eprintln!("{test}: {n} corpus frames and arrays recompressed and checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
