//! Frame checksums (issue #30, docs/checksums.md) through `b2`: compress
//! and recompress --checksum, what verify and info say of sealed, damaged,
//! stale and plain frames.

mod common;

use common::*;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

const NCHUNKS: u64 = 4;

fn json(o: &[u8]) -> Value {
    serde_json::from_slice(o).expect("JSON output")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A 4-chunk frame of f64 ramps at `name`, with `extra` options.
fn compress(dir: &Scratch, name: &str, extra: &[&str]) -> PathBuf {
    let input = dir.path("in.raw");
    if !input.exists() {
        fs::write(&input, sample_f64(4 * 8192)).unwrap();
    }
    let frame = dir.path(name);
    let mut args = vec![
        "compress",
        s(&input),
        s(&frame),
        "--typesize",
        "8",
        "--chunksize",
        "64K",
        "--force",
    ];
    args.extend(extra);
    b2_ok(&args);
    frame
}

/// `b2 verify --json FILE`: its object and exit status.
fn verify_json(p: &Path) -> (Value, Option<i32>) {
    let o = b2(&["verify", "--json", s(p)]);
    (json(&o.stdout), o.status.code())
}

/// Where chunk `n` is in the frame file and its stored size, from the
/// chunk index as `b2 info --json` shows it.
fn chunk_span(frame: &Path, n: usize) -> (usize, usize) {
    let v = json(&b2_ok(&["info", "--json", s(frame)]));
    let c = &v["chunks"][n];
    assert!(c["special"].is_null(), "chunk {n} has stored bytes: {c}");
    let start = v["frame"]["header_len"].as_u64().unwrap() + c["offset"].as_u64().unwrap();
    (start as usize, c["cbytes"].as_u64().unwrap() as usize)
}

/// A copy of `frame` at `name` with one bit flipped in the middle of the
/// data of each chunk in `chunks` (past its 32-byte header).
fn damage_chunks(dir: &Scratch, frame: &Path, chunks: &[usize], name: &str) -> PathBuf {
    let mut bytes = fs::read(frame).unwrap();
    for &n in chunks {
        let (start, len) = chunk_span(frame, n);
        assert!(len > 64, "chunk {n} has data bytes ({len} stored)");
        bytes[start + 32 + (len - 32) / 2] ^= 0x04;
    }
    let out = dir.path(name);
    fs::write(&out, &bytes).unwrap();
    out
}

/// A copy of `frame` whose trailer fingerprint (its last 17 bytes: the
/// type byte and 16 bytes) is zeros, as every C-Blosc2 writer leaves it.
fn zero_fingerprint(dir: &Scratch, frame: &Path, name: &str) -> PathBuf {
    let mut bytes = fs::read(frame).unwrap();
    let n = bytes.len();
    assert_eq!(bytes[n - 17], 0x43, "the seal's fingerprint type");
    bytes[n - 17..].fill(0);
    let out = dir.path(name);
    fs::write(&out, &bytes).unwrap();
    out
}

fn info_checksums(p: &Path) -> Value {
    json(&b2_ok(&["info", "--json", s(p)]))["checksums"].clone()
}

#[test]
fn compress_checksum_writes_a_sealed_frame() {
    let dir = Scratch::new("sums-sealed");
    let frame = compress(&dir, "f.b2frame", &["--checksum", "--codec", "lz4"]);
    let o = b2(&["verify", s(&frame)]);
    assert!(o.status.success(), "{}", stdout(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with("OK ") && text.trim_end().ends_with("; checksums: sealed: 4 verified"),
        "{text}"
    );
    let (v, code) = verify_json(&frame);
    assert_eq!(code, Some(0));
    assert_eq!(v["ok"], true);
    assert_eq!(v["nchunks"], NCHUNKS);
    let c = &v["checksums"];
    assert_eq!(c["state"], "sealed");
    assert_eq!(c["damage"], Value::Null);
    assert_eq!(c["verified"], NCHUNKS);
    assert_eq!(c["corrupt"], serde_json::json!([]));
    assert_eq!(
        (c["stale"].clone(), c["unverified"].clone()),
        (0.into(), 0.into())
    );

    // info: one line, one field
    let text = String::from_utf8(b2_ok(&["info", s(&frame)])).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("checksums:"))
        .collect();
    assert_eq!(
        lines,
        ["checksums:     sealed (digests of 4 chunks; b2 verify checks them)"]
    );
    let c = info_checksums(&frame);
    assert_eq!(c["present"], true);
    assert_eq!(c["state"], "sealed");
    assert_eq!(c["table_chunks"], NCHUNKS);

    // the content is as without checksums
    assert_eq!(b2_ok(&["cat", s(&frame)]), sample_f64(4 * 8192));
    // the compress summary says so
    let o = b2(&[
        "compress",
        s(&dir.path("in.raw")),
        s(&dir.path("g.b2frame")),
        "--checksum",
    ]);
    assert!(
        stderr(&o).contains("with checksums (sealed)"),
        "{}",
        stderr(&o)
    );

    // a frame written to standard output is sealed too
    let o = b2(&[
        "compress",
        s(&dir.path("in.raw")),
        "-",
        "--typesize",
        "8",
        "--checksum",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let piped = dir.path("piped.b2frame");
    fs::write(&piped, &o.stdout).unwrap();
    assert_eq!(verify_json(&piped).0["checksums"]["state"], "sealed");

    // and so is a b2nd array
    let arr = compress(
        &dir,
        "a.b2nd",
        &["--checksum", "--shape", "128,256", "--chunkshape", "32,256"],
    );
    let (v, code) = verify_json(&arr);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["kind"], "b2nd array");
    assert_eq!(v["checksums"]["state"], "sealed");
    assert_eq!(v["checksums"]["verified"], NCHUNKS);
}

#[test]
fn verify_names_a_chunk_that_fails_its_checksum() {
    let dir = Scratch::new("sums-corrupt");
    // clevel 0 stores the bytes as they are: a flipped bit decodes fine,
    // only the checksum tells
    let frame = compress(&dir, "f.b2frame", &["--checksum", "--clevel", "0"]);
    let bad = damage_chunks(&dir, &frame, &[2], "bad.b2frame");
    let o = b2(&["verify", s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.starts_with("FAIL ")
            && text.contains(": chunk 2: does not match its checksum")
            && text
                .trim_end()
                .ends_with("; checksums: sealed: 3 verified, 1 corrupt (chunk 2)"),
        "{text}"
    );
    let (v, code) = verify_json(&bad);
    assert_eq!(code, Some(1));
    assert_eq!(v["ok"], false);
    assert_eq!(v["chunk"], 2);
    assert_eq!(v["checksums"]["state"], "sealed");
    assert_eq!(v["checksums"]["corrupt"], serde_json::json!([2]));
    assert_eq!(v["checksums"]["verified"], 3);

    // reading it fails there too, saying why, and leaves nothing behind
    let raw = dir.path("x.raw");
    let o = b2(&["decompress", s(&bad), s(&raw)]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("chunk 2: does not match its checksum"),
        "{}",
        stderr(&o)
    );
    assert!(!raw.exists());
    let o = b2(&["recompress", s(&bad), s(&dir.path("r.b2frame"))]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("chunk 2: does not match its checksum"));
}

#[test]
fn verify_counts_every_corrupt_chunk() {
    let dir = Scratch::new("sums-many");
    let frame = compress(&dir, "f.b2frame", &["--checksum", "--clevel", "0"]);
    let bad = damage_chunks(&dir, &frame, &[1, 3], "bad.b2frame");
    let text = stdout(&b2(&["verify", s(&bad)]));
    assert!(
        text.contains("; checksums: sealed: 2 verified, 2 corrupt (chunks 1, 3)"),
        "{text}"
    );
    let (v, code) = verify_json(&bad);
    assert_eq!(code, Some(1));
    assert_eq!(v["chunk"], 1, "the first corrupt chunk");
    assert_eq!(v["checksums"]["corrupt"], serde_json::json!([1, 3]));
    assert_eq!(v["checksums"]["verified"], 2);

    // compressed chunks: the flipped bit may or may not break decoding,
    // the checksums name the chunk either way
    let frame = compress(&dir, "z.b2frame", &["--checksum", "--codec", "zstd"]);
    let bad = damage_chunks(&dir, &frame, &[2], "zbad.b2frame");
    let (v, code) = verify_json(&bad);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["chunk"], 2, "{v}");
    assert_eq!(v["checksums"]["corrupt"], serde_json::json!([2]), "{v}");
    assert_eq!(v["checksums"]["verified"], 3, "{v}");

    // one line per file and a summary, as ever
    let o = b2(&["verify", s(&frame), s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("OK ") && lines[1].starts_with("FAIL "));
    assert!(lines[2].contains("1 of 2 files FAILED"), "{text}");
}

#[test]
fn a_frame_without_checksums_is_unverified_and_ok() {
    let dir = Scratch::new("sums-plain");
    let frame = compress(&dir, "f.b2frame", &[]);
    let o = b2(&["verify", s(&frame)]);
    assert!(o.status.success());
    assert!(
        stdout(&o)
            .trim_end()
            .ends_with("; checksums: unverified (no checksums; nothing checked): 4 unverified"),
        "{}",
        stdout(&o)
    );
    let (v, code) = verify_json(&frame);
    assert_eq!(code, Some(0));
    assert_eq!(v["ok"], true);
    assert_eq!(v["checksums"]["state"], "unverified");
    assert_eq!(v["checksums"]["unverified"], NCHUNKS);
    assert_eq!(v["checksums"]["verified"], 0);
    let text = String::from_utf8(b2_ok(&["info", s(&frame)])).unwrap();
    assert!(
        text.contains("\nchecksums:     none (unverified)\n"),
        "{text}"
    );
    let c = info_checksums(&frame);
    assert_eq!(c["present"], false);
    assert_eq!(c["state"], "unverified");
    assert_eq!(c["table_chunks"], Value::Null);
    // a single chunk has no checksums to report
    let chunk = dir.path("one.cdata");
    let (start, len) = chunk_span(&frame, 0);
    fs::write(&chunk, &fs::read(&frame).unwrap()[start..start + len]).unwrap();
    let (v, code) = verify_json(&chunk);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["kind"], "chunk");
    assert_eq!(v["checksums"], Value::Null);
}

#[test]
fn a_zeroed_fingerprint_is_stale_not_corrupt() {
    let dir = Scratch::new("sums-stale");
    let frame = compress(&dir, "f.b2frame", &["--checksum", "--clevel", "0"]);
    let stale = zero_fingerprint(&dir, &frame, "stale.b2frame");
    let o = b2(&["verify", s(&stale)]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(
        stdout(&o).trim_end().ends_with(
            "; checksums: stale (changed by a writer without checksums; nothing checked): \
             4 stale"
        ),
        "{}",
        stdout(&o)
    );
    let (v, code) = verify_json(&stale);
    assert_eq!(code, Some(0));
    assert_eq!(v["ok"], true);
    assert_eq!(v["checksums"]["state"], "stale");
    assert_eq!(v["checksums"]["stale"], NCHUNKS);
    assert_eq!(v["checksums"]["corrupt"], serde_json::json!([]));
    let c = info_checksums(&stale);
    assert_eq!(
        (c["state"].clone(), c["present"].clone()),
        ("stale".into(), true.into())
    );
    assert_eq!(c["table_chunks"], NCHUNKS);
    // the digests of a stale frame are not authoritative: a chunk that no
    // longer matches (rewritten by that other writer) is not corruption
    let both = zero_fingerprint(
        &dir,
        &damage_chunks(&dir, &frame, &[2], "bad.b2frame"),
        "bad-stale.b2frame",
    );
    let (v, code) = verify_json(&both);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["checksums"]["state"], "stale");
}

#[test]
fn a_damaged_seal_fails() {
    let dir = Scratch::new("sums-seal");
    let frame = compress(&dir, "f.b2frame", &["--checksum"]);
    let mut bytes = fs::read(&frame).unwrap();
    *bytes.last_mut().unwrap() ^= 0x01;
    let bad = dir.path("bad.b2frame");
    fs::write(&bad, &bytes).unwrap();
    let o = b2(&["verify", s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains(
            "; checksums: corrupt: seal (the chunk index, the checksum table or the trailer \
             is damaged): 4 unverified"
        ),
        "{}",
        stdout(&o)
    );
    let (v, _) = verify_json(&bad);
    assert_eq!(v["ok"], false);
    assert_eq!(v["chunk"], Value::Null);
    assert_eq!(v["checksums"]["state"], "corrupt");
    assert_eq!(v["checksums"]["damage"], "seal");
    assert_eq!(v["checksums"]["unverified"], NCHUNKS);
    let c = info_checksums(&bad);
    assert_eq!(
        (c["state"].clone(), c["damage"].clone()),
        ("corrupt".into(), "seal".into())
    );
}

#[test]
fn recompress_keeps_checksums_unless_told() {
    let dir = Scratch::new("sums-recompress");
    let sealed = compress(&dir, "sealed.b2frame", &["--checksum"]);
    let plain = compress(&dir, "plain.b2frame", &[]);
    let stale = zero_fingerprint(&dir, &sealed, "stale.b2frame");
    let raw = sample_f64(4 * 8192);
    for (src, extra, want) in [
        (&sealed, &[][..], "sealed"),
        (&sealed, &["--no-checksum"][..], "unverified"),
        (&sealed, &["--checksum"][..], "sealed"),
        (&plain, &[][..], "unverified"),
        (&plain, &["--checksum"][..], "sealed"),
        // a stale source had checksums: the output gets new ones
        (&stale, &[][..], "sealed"),
        (&stale, &["--no-checksum"][..], "unverified"),
    ] {
        let out = dir.path("out.b2frame");
        let mut args = vec!["recompress", s(src), s(&out), "--codec", "lz4", "--force"];
        args.extend(extra);
        b2_ok(&args);
        let (v, code) = verify_json(&out);
        let case = format!("{} {extra:?}", src.display());
        assert_eq!(code, Some(0), "{case}: {v}");
        assert_eq!(v["checksums"]["state"], want, "{case}: {v}");
        assert_eq!(b2_ok(&["cat", s(&out)]), raw, "{case}");
        // the old table never comes along: one table at most, the output's
        let info = json(&b2_ok(&["info", "--json", s(&out)]));
        let tables = info["vlmetalayers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["name"] == "_b2sum")
            .count();
        assert_eq!(tables, usize::from(want == "sealed"), "{case}: {info}");
    }
    let o = b2(&[
        "recompress",
        s(&sealed),
        s(&dir.path("x.b2frame")),
        "--checksum",
        "--no-checksum",
    ]);
    assert!(!o.status.success(), "the two flags conflict");
    assert!(!dir.path("x.b2frame").exists());
    let help = String::from_utf8(b2_ok(&["recompress", "--help"])).unwrap();
    assert!(help.contains("--no-checksum") && help.contains("--checksum"));
}
