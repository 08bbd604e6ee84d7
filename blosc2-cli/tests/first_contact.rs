//! What a first-time user runs into: closed pipes, `-` for standard
//! streams, n-dimensional codecs, open errors, many files, negative slices
//! and hints (project issue #29).

mod common;

use common::*;
use serde_json::Value;
use std::fs;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Run b2 with `stdin` as standard input.
fn b2_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_b2"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run b2");
    let mut w = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    // a writer thread: b2 may fill its stdout pipe before reading all input
    let t = std::thread::spawn(move || {
        let _ = w.write_all(&data);
    });
    let o = child.wait_with_output().unwrap();
    t.join().unwrap();
    o
}

/// A frame of many small chunks, so that `info` writes more than a pipe holds.
fn many_chunks(dir: &Scratch) -> PathBuf {
    let input = dir.path("in.raw");
    let frame = dir.path("many.b2frame");
    fs::write(&input, sample_f64(2000 * 128)).unwrap();
    b2_ok(&[
        "compress",
        s(&input),
        s(&frame),
        "--typesize",
        "8",
        "--chunksize",
        "1K",
    ]);
    frame
}

/// Run b2 with its stdout a pipe whose reader is gone (after `keep` bytes;
/// for 0, gone before b2 starts, so that even a one-line report fails).
fn b2_closed_stdout(args: &[&str], keep: usize) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_b2"));
    cmd.args(args).stderr(Stdio::piped());
    if keep == 0 {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let child = cmd.stdout(writer).spawn().expect("run b2");
        // the parent's copy of the writer went into `cmd`; drop it too
        drop(cmd);
        return child.wait_with_output().unwrap();
    }
    let mut child = cmd.stdout(Stdio::piped()).spawn().expect("run b2");
    let mut so = child.stdout.take().unwrap();
    let mut buf = vec![0u8; keep];
    let _ = so.read_exact(&mut buf);
    drop(so);
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = Scratch::new("pipe");
    let frame = many_chunks(&dir);
    let f = s(&frame);
    for (args, keep) in [
        (vec!["info", f], 0),
        (vec!["info", f], 100),
        (vec!["info", "--json", f], 1500),
        (vec!["verify", f, f, f], 0),
        (vec!["compress", f, "-", "--chunksize", "1K"], 10),
        (vec!["recompress", f, "-", "--codec", "lz4"], 10),
        (vec!["verify", "--json", f], 0),
        (vec!["verify", "--json", f, "-", "-"], 0),
        (vec!["cat", f], 10),
        (vec!["cat", f, "--slice", "-1000:"], 0),
        (vec!["decompress", f, "-"], 10),
    ] {
        let o = b2_closed_stdout(&args, keep);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panic"), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
        // 128 + SIGPIPE, what a shell reports for cat in the same place
        assert_eq!(o.status.code(), Some(141), "{args:?}: {}", o.status);
    }
    let help = String::from_utf8(b2_ok(&["--help"])).unwrap();
    assert!(help.contains("141 (128 + SIGPIPE"), "{help}");
}

/// Run b2 with its stderr a pipe whose reader is gone before b2 starts.
fn b2_closed_stderr(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_b2"));
    cmd.args(args).stdout(Stdio::piped()).stderr(writer);
    let child = cmd.spawn().expect("run b2");
    drop(cmd);
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stderr_changes_no_outcome() {
    let dir = Scratch::new("stderr");
    let input = dir.path("in.raw");
    let frame = dir.path("f.b2frame");
    let raw = sample_f64(1000);
    fs::write(&input, &raw).unwrap();
    // the summary line and the typesize hint go to the closed stderr
    let o = b2_closed_stderr(&["compress", s(&input), s(&frame)]);
    assert_eq!(o.status.code(), Some(0), "{}", o.status);
    assert_eq!(b2_ok(&["cat", s(&frame)]), raw);
    let o = b2_closed_stderr(&["decompress", s(&frame), s(&dir.path("back.raw"))]);
    assert_eq!(o.status.code(), Some(0), "{}", o.status);
    assert_eq!(fs::read(dir.path("back.raw")).unwrap(), raw);
    // a failure keeps its status without a place to say why
    let o = b2_closed_stderr(&["info", s(&dir.path("missing"))]);
    assert_eq!(o.status.code(), Some(1), "{}", o.status);
}

/// Run b2 in `dir` (so a file named `-` would show up there).
fn b2_in(dir: &Scratch, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_b2"))
        .args(args)
        .current_dir(&dir.0)
        .output()
        .expect("run b2")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: Output, what: &str) -> Output {
    assert!(
        o.status.success(),
        "{what} failed ({}): {}",
        o.status,
        stderr(&o)
    );
    o
}

#[test]
fn dash_is_standard_input_and_output() {
    let dir = Scratch::new("dash");
    let raw = sample_f64(40_000);
    // compress: stdin to stdout, no file named '-'
    let frame = ok(
        b2_stdin(
            &[
                "compress",
                "-",
                "-",
                "--typesize",
                "8",
                "--chunksize",
                "64K",
            ],
            &raw,
        ),
        "compress - -",
    )
    .stdout;
    assert_eq!(&frame[2..9], b"b2frame");
    let o = b2_in(&dir, &["compress", "-", "-", "--typesize", "8"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!dir.path("-").exists(), "no file named '-'");
    // the frame on stdin, for every reading command
    let back = ok(
        b2_stdin(&["decompress", "-", "-"], &frame),
        "decompress - -",
    )
    .stdout;
    assert_eq!(back, raw);
    assert_eq!(ok(b2_stdin(&["cat", "-"], &frame), "cat -").stdout, raw);
    assert_eq!(
        ok(
            b2_stdin(&["cat", "-", "--slice", "10:20"], &frame),
            "cat slice"
        )
        .stdout,
        &raw[80..160]
    );
    let info = ok(b2_stdin(&["info", "--json", "-"], &frame), "info -").stdout;
    let v: Value = serde_json::from_slice(&info).unwrap();
    assert_eq!(v["frame"]["nchunks"], 5);
    assert_eq!(v["frame"]["typesize"], 8);
    let o = ok(b2_stdin(&["verify", "-"], &frame), "verify -");
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("OK -: frame with 5 chunks"));
    let again = ok(
        b2_stdin(&["recompress", "-", "-", "--codec", "lz4"], &frame),
        "recompress - -",
    )
    .stdout;
    let v: Value =
        serde_json::from_slice(&ok(b2_stdin(&["info", "--json", "-"], &again), "info").stdout)
            .unwrap();
    assert_eq!(v["frame"]["codec"], "lz4");
    assert_eq!(ok(b2_stdin(&["cat", "-"], &again), "cat").stdout, raw);
    // a chunk on stdin
    let Some(interop) = shared_interop("dash_is_standard_input_and_output (chunk)") else {
        return;
    };
    let chunk = fs::read(interop.join("ref-3.3.5/chunks/c0207-zeros-ts1.cdata")).unwrap();
    let out = ok(b2_stdin(&["decompress", "-", "-"], &chunk), "chunk").stdout;
    assert_eq!(out, vec![0u8; 51396]);
}

#[test]
fn nd_codecs_need_a_b2nd_array_and_compress_makes_one() {
    let dir = Scratch::new("nd");
    let (rows, cols) = (120usize, 300usize);
    let raw = sample_f64(rows * cols);
    let input = dir.path("in.f64");
    fs::write(&input, &raw).unwrap();
    let out = dir.path("a.b2nd");
    // on a plain frame they are refused up front, saying why
    for bad in [
        vec!["--codec", "zfp_rate:50"],
        vec!["--codec", "ndlz:4"],
        vec!["--filter", "ndcell:4"],
        vec!["--filter", "ndmean:4"],
    ] {
        let mut args = vec!["compress", s(&input), s(&out), "--typesize", "8"];
        args.extend(&bad);
        let o = b2(&args);
        assert!(!o.status.success(), "{bad:?}");
        let e = stderr(&o);
        assert!(e.contains("b2nd array") && e.contains("--shape"), "{e}");
        assert!(!e.contains("(-3)") && !e.contains("(-18)"), "{e}");
        assert!(!out.exists());
    }
    let shape = format!("{rows},{cols}");
    // lossless: exact round trip, b2nd geometry and dtype recorded
    ok(
        b2(&[
            "compress",
            s(&input),
            s(&out),
            "--shape",
            &shape,
            "--chunkshape",
            "50,100",
            "--dtype",
            "float64",
            "--filter",
            "ndcell:4",
        ]),
        "ndcell",
    );
    b2_ok(&["verify", s(&out)]);
    let v: Value = serde_json::from_slice(&b2_ok(&["info", "--json", s(&out)])).unwrap();
    assert_eq!(v["b2nd"]["shape"], serde_json::json!([rows, cols]));
    assert_eq!(v["b2nd"]["chunkshape"], serde_json::json!([50, 100]));
    assert_eq!(v["b2nd"]["dtype"], "<f8");
    assert_eq!(v["frame"]["typesize"], 8);
    assert_eq!(b2_ok(&["cat", s(&out)]), raw);
    // negative bounds in every dimension
    let got = b2_ok(&["cat", s(&out), "--slice", "-2:,-3:-1"]);
    let mut want = Vec::new();
    for r in rows - 2..rows {
        want.extend_from_slice(&raw[(r * cols + cols - 3) * 8..(r * cols + cols - 1) * 8]);
    }
    assert_eq!(got, want);
    // ZFP with its meta: lossy, but the array is whole and readable
    for codec in ["zfp_rate:50", "zfp_prec:20", "zfp_acc:-8"] {
        ok(
            b2(&[
                "compress",
                s(&input),
                s(&out),
                "--shape",
                &shape,
                "--dtype",
                "f8",
                "--codec",
                codec,
                "--force",
            ]),
            codec,
        );
        b2_ok(&["verify", s(&out)]);
        let v: Value = serde_json::from_slice(&b2_ok(&["info", "--json", s(&out)])).unwrap();
        let (name, meta) = codec.split_once(':').unwrap();
        assert_eq!(v["frame"]["codec"], name);
        assert_eq!(v["frame"]["codec_meta"], meta.parse::<i16>().unwrap() as u8);
        // ZFP reads the values, so the default shuffle is left out
        assert_eq!(v["frame"]["filters"], serde_json::json!([]), "{codec}");
        let back = b2_ok(&["cat", s(&out)]);
        assert_eq!(back.len(), raw.len());
        let err = back
            .chunks(8)
            .zip(raw.chunks(8))
            .map(|(a, b)| {
                let a = f64::from_le_bytes(a.try_into().unwrap());
                let b = f64::from_le_bytes(b.try_into().unwrap());
                (a - b).abs()
            })
            .fold(0.0, f64::max);
        assert!(err < 1.0, "{codec}: max error {err}");
    }
    // a byte-reordering filter before ZFP is refused, saying why
    let o = b2(&[
        "compress",
        s(&input),
        s(&out),
        "--shape",
        &shape,
        "--dtype",
        "f8",
        "--codec",
        "zfp_rate:50",
        "--filter",
        "shuffle",
        "--force",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("leave the filter out"),
        "{}",
        stderr(&o)
    );
    // NDLZ on 2-D bytes, lossless
    let bytes: Vec<u8> = (0..100 * 64).map(|i| (i / 7 % 13) as u8).collect();
    fs::write(&input, &bytes).unwrap();
    ok(
        b2(&[
            "compress",
            s(&input),
            s(&out),
            "--shape",
            "100,64",
            "--codec",
            "ndlz:4",
            "--force",
        ]),
        "ndlz",
    );
    assert_eq!(b2_ok(&["cat", s(&out)]), bytes);
    // wrong item types and sizes are refused before any work
    for (args, says) in [
        (
            vec!["--shape", "100,64", "--codec", "zfp_rate:50"],
            "float32 or float64",
        ),
        (vec!["--shape", "100,64", "--codec", "ndlz"], "ndlz:4"),
        (
            vec!["--shape", "6400", "--codec", "ndlz:4"],
            "2-dimensional",
        ),
        (vec!["--shape", "100,65"], "needs"),
        (
            vec!["--shape", "100,64", "--dtype", "f8", "--typesize", "4"],
            "contradicts",
        ),
    ] {
        let mut all = vec!["compress", s(&input), s(&out), "--force"];
        all.extend(&args);
        let o = b2(&all);
        assert!(!o.status.success(), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    // from standard input the size is checked at the end
    let o = b2_stdin(&["compress", "-", "-", "--shape", "100,65"], &bytes);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("needs"), "{}", stderr(&o));
}

#[test]
fn open_errors_say_what_is_wrong() {
    let dir = Scratch::new("errors");
    let input = dir.path("in.raw");
    let frame = dir.path("f.b2frame");
    fs::write(&input, sample_f64(10_000)).unwrap();
    b2_ok(&["compress", s(&input), s(&frame), "--typesize", "8"]);
    let bytes = fs::read(&frame).unwrap();
    let flen = bytes.len();
    // cut anywhere: "truncated", with both sizes
    for keep in [50usize, 100, flen / 2, flen - 5] {
        let cut = dir.path(&format!("cut{keep}.b2frame"));
        fs::write(&cut, &bytes[..keep]).unwrap();
        let o = b2(&["info", s(&cut)]);
        assert!(!o.status.success());
        let e = stderr(&o);
        assert!(e.contains("truncated"), "{keep}: {e}");
        assert!(e.contains(&keep.to_string()), "{keep}: {e}");
        if keep >= 24 {
            assert!(e.contains(&flen.to_string()), "{keep}: {e}");
        }
        // verify gives JSON on every path
        let o = b2(&["verify", "--json", s(&cut)]);
        assert!(!o.status.success());
        let v: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{keep}: not JSON ({e}): {}", stderr(&o)));
        assert_eq!(v["ok"], false);
        let why = v["error"].as_str().unwrap();
        assert!(why.contains("truncated"), "{keep}: {why}");
        assert!(!why.contains("b2 verify"), "{keep}: {why}");
        let o = b2(&["verify", s(&cut)]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.starts_with("FAIL "), "{text}");
        assert!(!text.contains("b2 verify"), "{text}");
    }
    // the chunk whole, the index after it damaged: verify says which
    let v: Value = serde_json::from_slice(&b2_ok(&["info", "--json", s(&frame)])).unwrap();
    assert_eq!(v["frame"]["nchunks"], 1);
    let index_at = (v["frame"]["header_len"].as_u64().unwrap()
        + v["frame"]["cbytes"].as_u64().unwrap()) as usize;
    let mut bad = bytes.clone();
    bad[index_at..index_at + 16].fill(0xff);
    let damaged = dir.path("index.b2frame");
    fs::write(&damaged, &bad).unwrap();
    let o = b2(&["info", s(&damaged)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("b2 verify says where"),
        "{}",
        stderr(&o)
    );
    let o = b2(&["verify", s(&damaged)]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains("the one chunk is present but the chunk index or trailer is damaged"),
        "{text}"
    );
    // info --json on a failure is JSON too
    let o = b2(&["info", "--json", s(&dir.path("missing"))]);
    assert!(!o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert!(v["error"].as_str().unwrap().contains("no such file"));
    // not a frame, not a b2nd array
    let o = b2(&["info", s(&input)]);
    let e = stderr(&o);
    assert!(
        e.contains("neither a Blosc2 frame (no 'b2frame' magic") && e.contains("nor a chunk"),
        "{e}"
    );
    let empty = dir.path("empty");
    fs::write(&empty, b"").unwrap();
    let o = b2(&["info", s(&empty)]);
    assert!(stderr(&o).contains("empty (0 bytes)"), "{}", stderr(&o));
    let o = b2(&["verify", "--json", s(&empty)]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["error"].as_str().unwrap().contains("empty"), "{v}");
    let short = dir.path("short");
    fs::write(&short, &bytes[2..12]).unwrap();
    let o = b2(&["cat", s(&short)]);
    assert!(
        stderr(&o).contains("10 bytes, fewer than a chunk header's 16"),
        "{}",
        stderr(&o)
    );
    let o = b2(&["info", s(&frame), "--offset", &flen.to_string()]);
    assert!(
        stderr(&o).contains(&format!("the file has only {flen} bytes")),
        "{}",
        stderr(&o)
    );
    // with --json, a failure before any FILE is JSON too
    let o = b2(&["verify", "--json", "-", "-"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stderr(&o)));
    assert_eq!(v["ok"], false);
    assert!(v["error"].as_str().unwrap().contains("only once"), "{v}");
    // and so is one of bad arguments, with clap's status and report
    for args in [
        vec!["info", "--json"],
        vec!["verify", "--json", "--nthreads", "0", s(&frame)],
    ] {
        let o = b2(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let v: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", stderr(&o)));
        assert_eq!(v["ok"], false);
        let why = v["error"].as_str().unwrap();
        assert!(
            why.contains("<FILE>") || why.contains("--nthreads"),
            "{why}"
        );
        assert!(stderr(&o).contains("Usage:") || stderr(&o).contains("--help"));
    }
    let o = b2(&["cat", s(&frame), "--slice", "0:10,5:7"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not a b2nd array"), "{}", stderr(&o));
    let o = b2(&["info", s(&frame), "--offset", "7"]);
    assert!(
        stderr(&o).contains("no frame at offset 7"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn verify_checks_many_files() {
    let dir = Scratch::new("many");
    let input = dir.path("in.raw");
    let good = dir.path("good.b2frame");
    fs::write(&input, sample_f64(10_000)).unwrap();
    b2_ok(&["compress", s(&input), s(&good), "--typesize", "8"]);
    let bytes = fs::read(&good).unwrap();
    let cut = dir.path("cut.b2frame");
    fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let missing = dir.path("missing.b2frame");
    let o = b2(&["verify", s(&good), s(&good)]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.lines().last().unwrap().contains("all 2 files OK"),
        "{text}"
    );

    let o = b2(&["verify", s(&good), s(&cut), s(&missing)]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("OK "), "{text}");
    assert!(lines[1].starts_with("FAIL ") && lines[1].contains("cut.b2frame"));
    assert!(lines[2].starts_with("FAIL ") && lines[2].contains("no such file"));
    assert!(lines[3].contains("2 of 3 files FAILED"), "{text}");

    let o = b2(&["verify", "--json", s(&good), s(&cut), s(&missing)]);
    assert_eq!(o.status.code(), Some(1));
    let vs: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(vs.len(), 4);
    assert_eq!(
        vs[..3].iter().map(|v| v["ok"].clone()).collect::<Vec<_>>(),
        [true, false, false]
    );
    assert_eq!(vs[3]["files"], 3);
    assert_eq!(vs[3]["failed"], 2);
}

#[test]
fn negative_slices_count_from_the_end() {
    let dir = Scratch::new("neg");
    let raw = sample_f64(5_000);
    let input = dir.path("in.raw");
    let frame = dir.path("f.b2frame");
    fs::write(&input, &raw).unwrap();
    b2_ok(&[
        "compress",
        s(&input),
        s(&frame),
        "--typesize",
        "8",
        "--chunksize",
        "8K",
    ]);
    let f = s(&frame);
    let item = |i: usize| i * 8;
    assert_eq!(b2_ok(&["cat", f, "--slice", "-10:"]), &raw[item(4990)..]);
    assert_eq!(b2_ok(&["cat", f, "--slice=-10:"]), &raw[item(4990)..]);
    assert_eq!(
        b2_ok(&["cat", f, "--slice", "-10:-5"]),
        &raw[item(4990)..item(4995)]
    );
    assert_eq!(b2_ok(&["cat", f, "--slice", ":-4998"]), &raw[..item(2)]);
    for (bad, says) in [
        ("5:5", "selects no items"),
        ("-5:-10", "selects no items"),
        ("-5001:", "outside"),
        ("0:5001", "outside"),
        ("-10", "START:STOP"),
        ("a:b", "not a whole number"),
    ] {
        let o = b2(&["cat", f, "--slice", bad]);
        assert!(!o.status.success(), "{bad}");
        assert!(stderr(&o).contains(says), "{bad}: {}", stderr(&o));
    }
}

#[test]
fn typesize_hint_and_plurals() {
    let dir = Scratch::new("typesize");
    let input = dir.path("in.raw");
    let frame = dir.path("f.b2frame");
    fs::write(&input, sample_f64(1000)).unwrap();
    let o = ok(b2(&["compress", s(&input), s(&frame)]), "compress");
    let e = stderr(&o);
    assert!(e.contains("b2: hint:") && e.contains("--typesize"), "{e}");
    assert_eq!(e.lines().filter(|l| l.starts_with("b2: hint:")).count(), 1);
    assert!(e.contains(": 1 chunk, 8000 bytes ->"), "{e}");
    assert!(!e.contains("(s)"), "{e}");
    for given in [["--typesize", "8"], ["--dtype", "f8"]] {
        let mut args = vec!["compress", s(&input), s(&frame), "--force"];
        args.extend(given);
        let o = ok(b2(&args), "compress");
        assert!(
            !stderr(&o).contains("b2: hint:"),
            "{given:?}: {}",
            stderr(&o)
        );
        let v: Value = serde_json::from_slice(&b2_ok(&["info", "--json", s(&frame)])).unwrap();
        assert_eq!(v["frame"]["typesize"], 8, "{given:?}");
    }
    // NDLZ takes single bytes only: nothing to hint
    let o = ok(
        b2(&[
            "compress",
            s(&input),
            s(&dir.path("a.b2nd")),
            "--shape",
            "100,80",
            "--codec",
            "ndlz:4",
        ]),
        "compress ndlz",
    );
    assert!(!stderr(&o).contains("b2: hint:"), "{}", stderr(&o));
    let text = String::from_utf8(b2_ok(&["verify", s(&frame)])).unwrap();
    assert!(text.contains("frame with 1 chunk, 8000 bytes"), "{text}");
    let text = String::from_utf8(b2_ok(&["info", s(&frame)])).unwrap();
    assert!(
        text.contains("1 chunk of") && text.contains("0 vlmetalayers"),
        "{text}"
    );
    assert!(!text.contains("(s)"), "{text}");
}

#[test]
fn a_missing_or_cut_chunk_file_of_a_sparse_frame_is_named() {
    use blosc2_core::chunk::CParams;
    use blosc2_core::schunk::{Storage, SuperChunk};
    let dir = Scratch::new("sparse");
    let sparse = dir.path("s.b2frame");
    let raw = sample_f64(3000);
    let mut sc = SuperChunk::new(Storage {
        contiguous: false,
        urlpath: Some(sparse.clone()),
        cparams: CParams {
            typesize: 8,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap();
    for part in raw.chunks(8000) {
        sc.append_buffer(part).unwrap();
    }
    drop(sc);
    let sp = s(&sparse);
    assert_eq!(b2_ok(&["cat", sp]), raw);
    let gone = sparse.join("00000001.chunk");
    let kept = fs::read(&gone).unwrap();
    fs::remove_file(&gone).unwrap();
    let says = format!("chunk 1: its file {} is missing", gone.display());
    for args in [
        vec!["cat", sp],
        vec!["decompress", sp, "-"],
        vec!["recompress", sp, "-", "--codec", "lz4"],
    ] {
        let o = b2(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(&says), "{args:?}: {}", stderr(&o));
    }
    let o = b2(&["verify", "--json", sp]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["chunk"], 1);
    assert!(v["error"].as_str().unwrap().contains("is missing"), "{v}");
    // a chunk file cut short: its size and the one its header gives
    fs::write(&gone, &kept).unwrap();
    let cut = sparse.join("00000002.chunk");
    let whole = fs::read(&cut).unwrap();
    fs::write(&cut, &whole[..20]).unwrap();
    let says = format!(
        "chunk 2: its file {} is cut off: 20 bytes, its header says {}",
        cut.display(),
        whole.len()
    );
    for args in [
        vec!["cat", sp],
        vec!["cat", sp, "--slice", "1500:2500"],
        vec!["decompress", sp, "-"],
    ] {
        let o = b2(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(&says), "{args:?}: {}", stderr(&o));
    }
    // a slice that misses the damaged chunk reads
    assert_eq!(b2_ok(&["cat", sp, "--slice", ":1000"]), &raw[..1000 * 8]);
    let text = String::from_utf8(b2(&["verify", sp]).stdout).unwrap();
    assert!(text.contains(&says), "{text}");
}

#[test]
fn counts_in_messages_agree_with_their_nouns() {
    let dir = Scratch::new("nouns");
    let input = dir.path("in.raw");
    fs::write(&input, sample_f64(100)).unwrap();
    let output = dir.path("o.b2nd");
    let out = s(&output);
    // each message ends with its count's noun: no "1 bytes" to match
    for (args, says) in [
        (
            vec!["--shape", "800", "--codec", "ndlz:4"],
            "this one has 1 dimension\n",
        ),
        (
            vec!["--shape", "800", "--codec", "zfp_rate:50"],
            "these have 1 byte\n",
        ),
        (
            vec!["--shape", "20,40", "--chunkshape", "10"],
            "--chunkshape has 1 dimension,",
        ),
    ] {
        let mut all = vec!["compress", s(&input), out];
        all.extend(&args);
        let o = b2(&all);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}
