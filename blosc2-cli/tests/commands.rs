//! The `b2` commands on frames it writes itself: round trips, recompression,
//! damage detection, JSON output and argument errors.

mod common;

use common::*;
use serde_json::Value;
use std::fs;

fn info_json(path: &str) -> Value {
    serde_json::from_slice(&b2_ok(&["info", "--json", path])).expect("info --json is JSON")
}

#[test]
fn compress_decompress_round_trips_across_codecs_and_filters() {
    let dir = Scratch::new("rt");
    let raw = sample_f64(150_000); // 1.2 MB: several chunks of 256K
    let input = dir.path("in.raw");
    fs::write(&input, &raw).unwrap();
    let cases: &[(&str, &str, &[&str])] = &[
        ("blosclz", "5", &["shuffle"]),
        ("lz4", "1", &["bitshuffle"]),
        ("lz4hc", "9", &["delta", "shuffle"]),
        ("zlib", "3", &["nofilter"]),
        ("zstd", "5", &["shuffle,bytedelta"]),
        ("zstd", "0", &[]),
    ];
    for (i, (codec, clevel, filters)) in cases.iter().enumerate() {
        let frame = dir.path(&format!("f{i}.b2frame"));
        let back = dir.path(&format!("b{i}.raw"));
        let mut args = vec![
            "compress",
            s(&input),
            s(&frame),
            "--codec",
            codec,
            "--clevel",
            clevel,
            "--typesize",
            "8",
            "--chunksize",
            "256K",
            "--nthreads",
            "2",
        ];
        for f in filters.iter() {
            args.extend(["--filter", f]);
        }
        b2_ok(&args);
        b2_ok(&["verify", s(&frame)]);
        b2_ok(&["decompress", s(&frame), s(&back), "--nthreads", "2"]);
        assert_eq!(fs::read(&back).unwrap(), raw, "{codec} {filters:?}");
        let v = info_json(s(&frame));
        assert_eq!(v["frame"]["codec"], *codec);
        assert_eq!(v["frame"]["clevel"], clevel.parse::<u8>().unwrap());
        assert_eq!(v["frame"]["nchunks"], 5, "1.2 MB in 256 KiB chunks");
        assert_eq!(v["chunks"].as_array().unwrap().len(), 5);
        let names: Vec<&str> = v["frame"]["filters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        let mut want: Vec<&str> = filters
            .iter()
            .flat_map(|f| f.split(','))
            .filter(|f| *f != "nofilter")
            .collect();
        if filters.is_empty() {
            // the default pipeline
            want = vec!["shuffle"];
        }
        assert_eq!(names, want);
    }
}

#[test]
fn odd_sizes_and_empty_input_round_trip() {
    let dir = Scratch::new("odd");
    for (n, ts, cs) in [(0usize, "4", "1K"), (1, "1", "1K"), (10_007, "4", "1000")] {
        let raw: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
        let input = dir.path("in.raw");
        let frame = dir.path("f.b2frame");
        let back = dir.path("back.raw");
        fs::write(&input, &raw).unwrap();
        b2_ok(&[
            "compress",
            s(&input),
            s(&frame),
            "--typesize",
            ts,
            "--chunksize",
            cs,
            "--force",
        ]);
        b2_ok(&["verify", s(&frame)]);
        b2_ok(&["decompress", s(&frame), s(&back), "--force"]);
        assert_eq!(fs::read(&back).unwrap(), raw, "{n} bytes");
        assert_eq!(b2_ok(&["cat", s(&frame)]), raw);
    }
}

#[test]
fn cat_slices_items() {
    let dir = Scratch::new("cat");
    let raw = sample_f64(50_000);
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
        "64K",
    ]);
    assert_eq!(
        b2_ok(&["cat", s(&frame), "--slice", "1000:9000"]),
        &raw[8000..72000]
    );
    assert_eq!(b2_ok(&["cat", s(&frame), "--slice", ":3"]), &raw[..24]);
    assert_eq!(
        b2_ok(&["cat", s(&frame), "--slice", "49990:"]),
        &raw[49990 * 8..]
    );
    let o = b2(&["cat", s(&frame), "--slice", "0:50001"]);
    assert!(!o.status.success(), "a range past the end is refused");
}

#[test]
fn recompress_keeps_content_and_metalayers() {
    let dir = Scratch::new("recompress");
    let raw = sample_f64(100_000);
    let input = dir.path("in.raw");
    let frame = dir.path("f.b2frame");
    fs::write(&input, &raw).unwrap();
    b2_ok(&["compress", s(&input), s(&frame), "--typesize", "8"]);
    for (codec, level) in [("lz4", "1"), ("zstd", "9"), ("zlib", "0")] {
        let out = dir.path(&format!("r-{codec}.b2frame"));
        b2_ok(&[
            "recompress",
            s(&frame),
            s(&out),
            "--codec",
            codec,
            "--clevel",
            level,
        ]);
        b2_ok(&["verify", s(&out)]);
        assert_eq!(b2_ok(&["cat", s(&out)]), raw);
        let v = info_json(s(&out));
        assert_eq!(v["frame"]["codec"], codec);
        // options not given keep the source's
        assert_eq!(v["frame"]["filters"][0]["name"], "shuffle");
        assert_eq!(v["frame"]["typesize"], 8);
    }

    // a b2nd array with extra metalayers and a vlmetalayer stays one
    let Some(interop) = shared_interop("recompress_keeps_content_and_metalayers (b2nd part)")
    else {
        return;
    };
    let src = interop.join("ref-3.3.5/arrays/a-2d-i4-meta-sparse.b2nd");
    let out = dir.path("array.b2nd");
    b2_ok(&[
        "recompress",
        s(&src),
        s(&out),
        "--codec",
        "zstd",
        "--clevel",
        "7",
        "--filter",
        "bitshuffle",
    ]);
    b2_ok(&["verify", s(&out)]);
    let (a, b) = (info_json(s(&src)), info_json(s(&out)));
    assert_eq!(a["b2nd"], b["b2nd"]);
    assert_eq!(a["metalayers"], b["metalayers"]);
    let vl = |v: &Value| {
        v["vlmetalayers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["name"].clone(), m["size"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(vl(&a), vl(&b));
    assert_eq!(b["frame"]["codec"], "zstd");
    assert_eq!(b2_ok(&["cat", s(&src)]), b2_ok(&["cat", s(&out)]));
    assert_eq!(
        b2_ok(&["cat", s(&src), "--slice", "3:60,7:8"]),
        b2_ok(&["cat", s(&out), "--slice", "3:60,7:8"])
    );
}

/// A frame of 4 chunks and where chunk 2 is in it.
fn frame_with_chunks(dir: &Scratch) -> (std::path::PathBuf, usize, usize) {
    let raw = sample_f64(4 * 8192);
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
        "64K",
        "--codec",
        "lz4",
    ]);
    let v = info_json(s(&frame));
    assert_eq!(v["frame"]["nchunks"], 4);
    let start =
        v["frame"]["header_len"].as_u64().unwrap() + v["chunks"][2]["offset"].as_u64().unwrap();
    let len = v["chunks"][2]["cbytes"].as_u64().unwrap();
    (frame, start as usize, len as usize)
}

#[test]
fn verify_names_the_corrupted_chunk() {
    let dir = Scratch::new("corrupt");
    let (frame, start, _) = frame_with_chunks(&dir);
    let mut bytes = fs::read(&frame).unwrap();
    // Blosc2 has no checksums: flipped data bytes can decode to other
    // data. The block starts after the chunk header cannot.
    for b in &mut bytes[start + 32..start + 48] {
        *b ^= 0xff;
    }
    let bad = dir.path("bad.b2frame");
    fs::write(&bad, &bytes).unwrap();
    let o = b2(&["verify", s(&bad)]);
    assert!(!o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("chunk 2:"), "{out}");
    let o = b2(&["verify", "--json", s(&bad)]);
    assert!(!o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["chunk"], 2);
    assert!(v["error"]
        .as_str()
        .unwrap()
        .contains("decompression failed"));
    // decompress stops there too
    let o = b2(&["decompress", s(&bad), s(&dir.path("x.raw"))]);
    assert!(!o.status.success());
    assert!(!dir.path("x.raw").exists(), "no partial output is left");
}

#[test]
fn verify_names_the_chunk_a_truncation_cuts() {
    let dir = Scratch::new("trunc");
    let (frame, start, len) = frame_with_chunks(&dir);
    let bytes = fs::read(&frame).unwrap();
    let cut = dir.path("cut.b2frame");
    fs::write(&cut, &bytes[..start + len / 2]).unwrap();
    let o = b2(&["verify", s(&cut)]);
    assert!(!o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("chunk 2:") && out.contains("truncated"),
        "{out}"
    );
    let o = b2(&["verify", "--json", s(&cut)]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["ok"].clone(), v["chunk"].clone()),
        (false.into(), 2.into())
    );
    // cut between chunks: the next one is missing
    fs::write(&cut, &bytes[..start]).unwrap();
    let v: Value = serde_json::from_slice(&b2(&["verify", "--json", s(&cut)]).stdout).unwrap();
    assert_eq!(v["chunk"], 2, "{v}");
    // info refuses the frame, saying where to look
    let o = b2(&["info", s(&cut)]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("verify"));
}

#[test]
fn verify_and_info_on_a_single_chunk() {
    let dir = Scratch::new("chunk");
    let Some(interop) = shared_interop("verify_and_info_on_a_single_chunk") else {
        return;
    };
    let src = interop.join("ref-3.3.5/chunks/c0207-zeros-ts1.cdata");
    let v = info_json(s(&src));
    assert_eq!(v["kind"], "chunk");
    assert_eq!(v["chunk"]["special"], "zeros");
    assert_eq!(v["chunk"]["nbytes"], 51396);
    b2_ok(&["verify", s(&src)]);
    // a chunk cut short
    let bytes =
        fs::read(interop.join("ref-3.3.5/chunks/c0191-blocksize4096-lz4-ts4.cdata")).unwrap();
    let cut = dir.path("cut.cdata");
    fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let o = b2(&["verify", "--json", s(&cut)]);
    assert!(!o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["chunk"], 0);
}

#[test]
fn arguments_are_checked() {
    let dir = Scratch::new("args");
    let input = dir.path("in.raw");
    let frame = dir.path("f.b2frame");
    fs::write(&input, sample_f64(100)).unwrap();
    b2_ok(&["compress", s(&input), s(&frame)]);
    // no silent overwrite
    let o = b2(&["compress", s(&input), s(&frame)]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    b2_ok(&["compress", s(&input), s(&frame), "--force"]);
    for bad in [
        vec!["--codec", "nosuch"],
        vec!["--filter", "nosuch"],
        vec!["--clevel", "10"],
        vec!["--typesize", "0"],
    ] {
        let mut args = vec!["compress", s(&input), s(&frame), "--force"];
        args.extend(bad.iter());
        assert!(!b2(&args).status.success(), "{bad:?}");
    }
    let o = b2(&["info", s(&dir.path("missing"))]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing"));
    let text = dir.path("text.txt");
    fs::write(&text, "hello, this is neither a frame nor a chunk\n").unwrap();
    let o = b2(&["info", s(&text)]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("neither"));
    for cmd in [
        "info",
        "verify",
        "compress",
        "decompress",
        "recompress",
        "cat",
    ] {
        let out = String::from_utf8(b2_ok(&[cmd, "--help"])).unwrap();
        assert!(out.contains("Usage: b2"), "{cmd} --help");
    }
}
