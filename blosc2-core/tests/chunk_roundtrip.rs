//! Round trips through the safe core over a matrix of codecs, filters, split
//! modes, typesizes, sizes and thread counts; outputs must not depend on the
//! thread count.

use blosc2_core::chunk::header::ChunkHeader;
use blosc2_core::chunk::special::make_special;
use blosc2_core::chunk::{CParams, Compressor, DParams, Decompressor, Special, SplitMode};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Data that compresses like real numeric arrays: a noisy ramp.
fn data(n: usize, typesize: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed | 1);
    let mut v = Vec::with_capacity(n);
    let mut i = 0u64;
    while v.len() < n {
        let x = i.wrapping_mul(3).wrapping_add(r.next() % 4);
        for b in 0..typesize {
            if v.len() < n {
                v.push((x >> (8 * (b % 8))) as u8);
            }
        }
        i += 1;
    }
    v
}

fn round_trip(cp: &CParams, src: &[u8]) -> Vec<u8> {
    let mut c = Compressor::new(cp.clone());
    let mut dest = vec![0u8; src.len() + 64];
    let n = c.compress(src, &mut dest).expect("compress");
    assert!(n > 0, "fits with overhead room");
    dest.truncate(n);
    let h = ChunkHeader::read(&dest).unwrap();
    assert_eq!(h.nbytes as usize, src.len());
    assert_eq!(h.cbytes as usize, n);
    for nthreads in [1, 3] {
        let mut d = Decompressor::new(DParams {
            nthreads,
            ..DParams::default()
        });
        let mut out = vec![0u8; src.len()];
        assert_eq!(d.decompress(&dest, &mut out).unwrap(), src.len());
        if !cp.filters.contains(&4) {
            assert_eq!(out, src, "params {cp:?}");
        }
    }
    dest
}

#[test]
fn matrix_round_trips() {
    let codecs = [0u8, 1, 2, 4, 5];
    // the DELTA sets put it before, after and around other filters: the
    // filter undone just before trailing DELTAs writes to the output
    let filter_sets: [[u8; 6]; 7] = [
        [0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0, 2],
        [0, 0, 0, 0, 3, 1],
        [0, 0, 0, 1, 3, 2],
        [0, 0, 0, 0, 2, 3],
        [0, 0, 0, 3, 1, 3],
    ];
    let sizes = [0usize, 1, 31, 100, 4099, 70_001, 300_000];
    let mut seed = 7;
    for &compcode in &codecs {
        for filters in &filter_sets {
            for &typesize in &[1i32, 2, 4, 8, 3, 16] {
                for &nbytes in &sizes {
                    for split in [
                        SplitMode::Always,
                        SplitMode::Never,
                        SplitMode::ForwardCompat,
                    ] {
                        seed += 1;
                        if seed % crate::test_stride() as u64 != 0 {
                            continue;
                        }
                        let clevel = (seed % 10) as u8;
                        let cp = CParams {
                            compcode,
                            clevel,
                            typesize,
                            splitmode: split,
                            filters: *filters,
                            ..CParams::default()
                        };
                        let src = data(nbytes, typesize as usize, seed);
                        round_trip(&cp, &src);
                    }
                }
            }
        }
    }
}

#[test]
fn output_independent_of_threads() {
    let src = data(2_000_000, 4, 99);
    for compcode in [0u8, 1, 5] {
        let mut outs = Vec::new();
        for nthreads in [1i16, 2, 4] {
            let cp = CParams {
                compcode,
                typesize: 4,
                nthreads,
                ..CParams::default()
            };
            outs.push(round_trip(&cp, &src));
        }
        assert!(outs.windows(2).all(|w| w[0] == w[1]));
    }
}

#[test]
fn getitem_matches_full_decode_including_delta() {
    let src = data(500_000, 4, 3);
    for filters in [[0, 0, 0, 0, 3, 1], [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0]] {
        let cp = CParams {
            typesize: 4,
            blocksize: 16 * 1024,
            filters,
            ..CParams::default()
        };
        let chunk = round_trip(&cp, &src);
        let mut d = Decompressor::new(DParams::default());
        for (start, n) in [
            (0i32, 5i32),
            (4095, 3),
            (65534, 5),
            (100_000, 20_000),
            (124_990, 10),
        ] {
            let mut out = vec![0u8; n as usize * 4];
            assert_eq!(d.getitem(&chunk, start, n, &mut out).unwrap(), out.len());
            let s = start as usize * 4;
            assert_eq!(
                out,
                &src[s..s + out.len()],
                "filters {filters:?} start {start}"
            );
        }
    }
}

/// getitem decodes split LZ4 and BloscLZ streams only as far as the items
/// it returns: every range of every block kind must still read exactly
/// what the whole decode gives (typesizes 2 to 16, runs of one value,
/// streams stored raw, a dictionary and a short last block, which take the
/// whole-block path).
#[test]
fn getitem_prefix_decode_matches_full_decode() {
    use blosc2_core::chunk::params::codec;
    for (compcode, typesize, use_dict, n) in [
        (codec::LZ4, 4, false, 300_000),
        (codec::BLOSCLZ, 4, false, 300_000),
        (codec::LZ4, 2, false, 100_003 * 2),
        (codec::BLOSCLZ, 8, false, 77_777 * 8),
        (codec::LZ4, 16, false, 20_000 * 16),
        (codec::BLOSCLZ, 3, false, 50_001 * 3),
        (codec::LZ4, 4, true, 300_000),
    ] {
        let mut src = data(n, typesize, compcode as u64 + typesize as u64);
        // a stretch of one value (run-length streams) and one of noise
        // (streams stored raw)
        src[40_000..80_000].fill(7);
        let mut r = Rng(99);
        for b in &mut src[120_000..160_000.min(n)] {
            *b = r.next() as u8;
        }
        let cp = CParams {
            typesize: typesize as i32,
            compcode,
            use_dict,
            clevel: 5,
            splitmode: SplitMode::Always,
            blocksize: 32 * 1024 / typesize as i32 * typesize as i32,
            ..CParams::default()
        };
        let chunk = round_trip(&cp, &src);
        let nitems = (n / typesize) as i32;
        let mut d = Decompressor::new(DParams::default());
        let mut starts = vec![0, 1, nitems - 1, nitems / 2];
        for _ in 0..60 {
            starts.push((r.next() % nitems as u64) as i32);
        }
        for &start in &starts {
            for len in [1, 7, 1024, 9000] {
                let len = len.min(nitems - start);
                let mut out = vec![0u8; len as usize * typesize];
                assert_eq!(d.getitem(&chunk, start, len, &mut out).unwrap(), out.len());
                let s = start as usize * typesize;
                assert!(
                    out == src[s..s + out.len()],
                    "codec {compcode} typesize {typesize} dict {use_dict} start {start} len {len}"
                );
            }
        }
    }
}

#[test]
fn special_chunks() {
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut buf = vec![0u8; 64];
    let mut d = Decompressor::new(DParams::default());
    let n = make_special(&cp, Special::Zero, 4000, None, &mut buf).unwrap();
    let mut out = vec![1u8; 4000];
    assert_eq!(d.decompress(&buf[..n], &mut out).unwrap(), 4000);
    assert!(out.iter().all(|&b| b == 0));
    let n = make_special(&cp, Special::Value, 4000, Some(&[1, 2, 3, 4]), &mut buf).unwrap();
    d.decompress(&buf[..n], &mut out).unwrap();
    assert!(out.chunks(4).all(|c| c == [1, 2, 3, 4]));
    let n = make_special(&cp, Special::Nan, 4000, None, &mut buf).unwrap();
    d.decompress(&buf[..n], &mut out).unwrap();
    assert!(out
        .chunks(4)
        .all(|c| f32::from_ne_bytes(c.try_into().unwrap()).is_nan()));
}

#[test]
fn zeros_become_special_and_incompressible_is_memcpyed() {
    let zeros = vec![0u8; 100_000];
    let chunk = round_trip(&CParams::default(), &zeros);
    assert_eq!(chunk.len(), 32);
    let mut r = Rng(5);
    let noise: Vec<u8> = (0..100_000).map(|_| r.next() as u8).collect();
    let chunk = round_trip(&CParams::default(), &noise);
    assert_eq!(chunk.len(), 100_032);
    assert_eq!(chunk[2] & 0x02, 0x02);
}

#[test]
fn malformed_chunks_are_errors() {
    let src = data(100_000, 4, 11);
    let chunk = round_trip(&CParams::default(), &src);
    let mut d = Decompressor::new(DParams::default());
    let mut out = vec![0u8; src.len()];
    // truncations
    for cut in [0, 10, 16, 31, 32, 40, chunk.len() / 2, chunk.len() - 1] {
        assert!(d.decompress(&chunk[..cut], &mut out).is_err(), "cut {cut}");
    }
    // byte flips must never panic
    let mut r = Rng(42);
    for _ in 0..3000 {
        let mut bad = chunk.clone();
        for _ in 0..1 + r.next() % 4 {
            let i = (r.next() as usize) % bad.len();
            bad[i] = r.next() as u8;
        }
        let _ = d.decompress(&bad, &mut out);
        let _ = d.getitem(&bad, 10, 100, &mut out);
    }
}

mod hooks {
    use super::*;
    use blosc2_core::registry::{Postfilter, PostfilterCall, Prefilter, PrefilterCall};
    use std::sync::Arc;

    /// Writes each i32 item + 1.
    struct AddOne;
    impl Prefilter for AddOne {
        fn call(&self, c: PrefilterCall) -> i32 {
            for (o, i) in c.output.chunks_exact_mut(4).zip(c.input.chunks_exact(4)) {
                let v = i32::from_le_bytes(i.try_into().unwrap()) + 1;
                o.copy_from_slice(&v.to_le_bytes());
            }
            0
        }
    }

    /// Undoes AddOne and checks it sees every block once.
    struct SubOne;
    impl Postfilter for SubOne {
        fn call(&self, c: PostfilterCall) -> i32 {
            for (o, i) in c.output.chunks_exact_mut(4).zip(c.input.chunks_exact(4)) {
                let v = i32::from_le_bytes(i.try_into().unwrap()) - 1;
                o.copy_from_slice(&v.to_le_bytes());
            }
            0
        }
    }

    #[test]
    fn prefilter_and_postfilter_compose_to_identity() {
        let src = data(1_000_000, 4, 17);
        for (nthreads, clevel) in [(1i16, 5u8), (3, 5), (1, 0)] {
            let cp = CParams {
                typesize: 4,
                clevel,
                nthreads,
                ..CParams::default()
            };
            let mut c = Compressor::new(cp);
            c.prefilter = Some(Arc::new(AddOne));
            let mut chunk = vec![0u8; src.len() + 64];
            let n = c.compress(&src, &mut chunk).unwrap();
            chunk.truncate(n);
            // without the postfilter the stored data is the prefilter's output
            let mut plain = vec![0u8; src.len()];
            Decompressor::new(DParams::default())
                .decompress(&chunk, &mut plain)
                .unwrap();
            let first = i32::from_le_bytes(src[..4].try_into().unwrap());
            assert_eq!(
                i32::from_le_bytes(plain[..4].try_into().unwrap()),
                first + 1
            );
            let mut d = Decompressor::new(DParams {
                nthreads,
                ..DParams::default()
            });
            d.postfilter = Some(Arc::new(SubOne));
            let mut out = vec![0u8; src.len()];
            d.decompress(&chunk, &mut out).unwrap();
            assert_eq!(out, src, "nthreads {nthreads} clevel {clevel}");
            let mut part = vec![0u8; 400];
            d.getitem(&chunk, 70_000, 100, &mut part).unwrap();
            assert_eq!(part, &src[280_000..280_400]);
        }
    }
}

/// Upstream 3.3.5 records a forced blocksize that is not a multiple of the
/// typesize in the header while cutting blocks at the multiple, so its own
/// chunk does not decode (-3). We record the block size we really use.
#[test]
fn forced_blocksize_not_multiple_of_typesize_round_trips() {
    let src = data(100_000, 24, 5);
    for (typesize, blocksize) in [(24, 4096), (3, 1000), (4, 30_507), (7, 65_536)] {
        let cp = CParams {
            typesize,
            blocksize,
            compcode: 1,
            ..CParams::default()
        };
        let chunk = round_trip(&cp, &src);
        let h = ChunkHeader::read(&chunk).unwrap();
        assert_eq!(
            h.blocksize % typesize,
            0,
            "typesize {typesize} blocksize {blocksize}"
        );
    }
}

/// `instr_codec` stores one 16-byte `blosc2_instr` record per stream, which
/// decompression hands back as the chunk's content.
#[test]
fn instrumented_chunks_hold_records() {
    let src = data(200_000, 4, 9);
    let cp = CParams {
        typesize: 4,
        instr_codec: true,
        ..CParams::default()
    };
    let mut c = Compressor::new(cp);
    let mut chunk = vec![0u8; src.len() + 64];
    let n = c.compress(&src, &mut chunk).unwrap();
    chunk.truncate(n);
    let h = ChunkHeader::read(&chunk).unwrap();
    assert_eq!(h.nbytes % 16, 0);
    let mut out = vec![0u8; h.nbytes as usize];
    Decompressor::new(DParams::default())
        .decompress(&chunk, &mut out)
        .unwrap();
    for rec in out.chunks(16) {
        // a C struct the caller reads in place: host byte order
        let cratio = f32::from_ne_bytes(rec[0..4].try_into().unwrap());
        assert!(cratio > 0.0 && cratio.is_finite(), "cratio {cratio}");
    }
}

/// Chunks stored whole (memcpyed) or as one value are filled in pieces on
/// the context's threads when large: every thread count gives the same
/// bytes, for item sizes that do not divide the pieces evenly too.
#[test]
fn large_direct_chunks_fill_alike_on_any_thread_count() {
    let n = 3 * (1 << 20) + 7 * 24;
    for typesize in [1usize, 3, 8, 24] {
        let src = data(n, typesize, typesize as u64);
        let cp = CParams {
            typesize: typesize as i32,
            clevel: 0,
            ..CParams::default()
        };
        let mut chunk = vec![0u8; n + 64];
        let cs = Compressor::new(cp.clone())
            .compress(&src, &mut chunk)
            .unwrap();
        chunk.truncate(cs);
        assert!(ChunkHeader::read(&chunk).unwrap().is_memcpyed());
        let value: Vec<u8> = (0..typesize as u8)
            .map(|b| b.wrapping_mul(37) ^ 0x5a)
            .collect();
        let mut specials = Vec::new();
        for (kind, v) in [
            (Special::Nan, None),
            (Special::Value, Some(&value[..])),
            (Special::Zero, None),
        ] {
            if kind == Special::Nan && typesize != 8 {
                continue;
            }
            let mut out = vec![0u8; 64 + typesize];
            let k = make_special(&cp, kind, n as i32, v, &mut out).unwrap();
            out.truncate(k);
            specials.push(out);
        }
        for c in std::iter::once(&chunk).chain(specials.iter()) {
            let mut outs = Vec::new();
            for nthreads in [1i16, 2, 3] {
                let mut d = Decompressor::new(DParams {
                    nthreads,
                    ..DParams::default()
                });
                let mut out = vec![0xeeu8; n];
                assert_eq!(d.decompress(c, &mut out).unwrap(), n);
                outs.push(out);
            }
            assert!(
                outs[1] == outs[0] && outs[2] == outs[0],
                "typesize {typesize}"
            );
        }
        let mut one = vec![0u8; n];
        Decompressor::new(DParams::default())
            .decompress(&chunk, &mut one)
            .unwrap();
        assert!(one == src);
    }
}

/// Compressing into every destination size from nothing to roomy: the
/// codecs write straight into the destination and are lent only the room
/// left, so a block whose streams are runs (a 4- or 5-byte token each) or
/// compressed streams near the end must report "does not fit" (0) rather
/// than write past it, and whatever is returned must decode. (A codec lent
/// less room may give up where it would have compressed, as upstream's do,
/// so a tight destination need not hold the roomy output.)
#[test]
fn every_destination_size_fits_or_says_so() {
    let n = 4096;
    let mut r = Rng(11);
    // typesize 4: byte 3 of each element is 7 (a nonzero run stream after
    // shuffle), byte 2 zero (a zero run), bytes 0-1 a noisy ramp
    let mixed: Vec<u8> = (0..n / 4)
        .flat_map(|i| {
            [
                (i as u8).wrapping_add(r.next() as u8 % 3),
                (i / 256) as u8,
                0,
                7,
            ]
        })
        .collect();
    let noisy: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
    let ramp = data(n, 4, 3);
    for (name, src) in [("mixed", &mixed), ("noisy", &noisy), ("ramp", &ramp)] {
        for compcode in [0u8, 1, 5] {
            for filters_last in [0u8, 1, 2] {
                let mut cp = CParams {
                    compcode,
                    typesize: 4,
                    blocksize: 1024,
                    splitmode: SplitMode::Always,
                    ..CParams::default()
                };
                cp.filters[5] = filters_last;
                let mut c = Compressor::new(cp.clone());
                let mut roomy = vec![0u8; n + 64];
                let full = c.compress(src, &mut roomy).unwrap();
                assert!(full > 0);
                let k = crate::test_stride();
                let edge = |size: usize| size.abs_diff(full) <= 2 || size <= 34 || size >= n + 30;
                for size in (0..=n + 40).filter(|&s| s % k == 0 || edge(s)) {
                    let mut dest = vec![0u8; size];
                    let got = c.compress(src, &mut dest);
                    let ctx = format!("{name} codec {compcode} filter {filters_last} size {size}");
                    let got = match got {
                        Ok(k) => k,
                        // no room for the header itself is an error upstream too
                        Err(_) if size < 32 => continue,
                        Err(e) => panic!("{ctx}: {e:?}"),
                    };
                    assert!(got <= size, "{ctx}");
                    if size >= n + 32 {
                        assert!(got > 0, "{ctx}: a plain copy fits");
                    }
                    if got > 0 {
                        let mut out = vec![0u8; n];
                        let mut d = Decompressor::new(DParams::default());
                        assert_eq!(d.decompress(&dest[..got], &mut out), Ok(n), "{ctx}");
                        assert_eq!(&out, src, "{ctx}");
                    }
                }
            }
        }
    }
}
