//! Frame checksums end to end: frames written with them are sealed and
//! verified after every kind of change, every damaged byte of a sealed
//! frame is caught, and a writer without checksums makes a frame stale,
//! never corrupt.

use super::*;
use crate::frame::checksum;
use crate::frame::trailer::FINGERPRINT_LEN;

fn sample(n: usize, seed: u32) -> Vec<u8> {
    (0..n)
        .map(|i| ((i as u32).wrapping_mul(seed) >> 3) as u8 ^ (i / 97) as u8)
        .collect()
}

fn tmp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("b2rs-sums-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_dir_all(&p);
    p
}

fn storage(urlpath: Option<PathBuf>, contiguous: bool) -> Storage {
    Storage {
        contiguous,
        urlpath,
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    }
}

/// A super-chunk with checksums on, 4 chunks of 4000 bytes, one of them
/// zeros (stored as a special value in a frame), a metalayer and a
/// vlmetalayer.
fn filled(st: Storage) -> SuperChunk {
    let mut sc = SuperChunk::new(st).unwrap();
    sc.meta_add("m1", b"hello").unwrap();
    sc.set_checksums(true).unwrap();
    for i in 0..4 {
        let c = if i == 2 {
            vec![0u8; 4000]
        } else {
            sample(4000, 7 + i)
        };
        sc.append_buffer(&c).unwrap();
    }
    sc.vlmeta_add("v1", b"user data", None).unwrap();
    sc
}

fn report(sc: &SuperChunk) -> VerifyReport {
    sc.verify()
}

fn all_verified(r: &VerifyReport, n: u64) {
    assert_eq!(r.frame, FrameCheck::Sealed, "{r:?}");
    assert_eq!(r.verified, n, "{r:?}");
    assert!(r.corrupt.is_empty(), "{r:?}");
}

#[test]
fn memory_frames_are_sealed_and_read_back_verified() {
    let sc = filled(storage(None, true));
    all_verified(&report(&sc), 4);
    let frame = sc.to_frame().unwrap();
    for copy in [false, true] {
        let back = SuperChunk::from_buffer(&frame, copy).unwrap();
        assert!(back.checksums());
        all_verified(&report(&back), 4);
        // the table is the library's, not one of the user's vlmetalayers
        let names: Vec<_> = back.vlmetalayers.iter().map(|m| m.name.clone()).collect();
        assert_eq!(names, ["v1"]);
        let again = SuperChunk::from_buffer(&back.to_frame().unwrap(), false).unwrap();
        all_verified(&report(&again), 4);
        if !copy {
            assert_eq!(back.to_frame().unwrap(), frame);
        }
    }
    // without checksums the same super-chunk writes the same chunks
    let mut plain = SuperChunk::from_buffer(&frame, true).unwrap();
    plain.set_checksums(false).unwrap();
    let pf = plain.to_frame().unwrap();
    let back = SuperChunk::from_buffer(&pf, false).unwrap();
    assert!(!back.checksums());
    assert_eq!(report(&back).frame, FrameCheck::Unverified);
    assert_eq!(report(&back).unverified, 4);
    for i in 0..4 {
        assert_eq!(back.chunk(i).unwrap(), sc.chunk(i).unwrap());
    }
}

#[test]
fn damaged_chunks_fail_checked_reads_only() {
    let sc = filled(storage(None, true));
    let mut frame = sc.to_frame().unwrap();
    let hl = crate::frame::header::FrameHeader::parse(&frame[..crate::frame::header::HEADER_MINLEN])
        .unwrap()
        .header_len as usize;
    // a byte in chunk 1's data (past its 32-byte header)
    let offs = sc.offsets().unwrap();
    let at = hl + offs[1] as usize + 40;
    frame[at] ^= 0x10;
    let mut back = SuperChunk::from_buffer(&frame, false).unwrap();
    let r = report(&back);
    assert_eq!(r.frame, FrameCheck::Sealed);
    assert_eq!(r.corrupt, [1]);
    assert_eq!(r.verified, 3);
    assert!(!r.ok());
    let mut out = vec![0u8; 4000];
    assert_eq!(
        back.decompress_chunk(1, &mut out).unwrap_err(),
        ErrorKind::Data
    );
    back.decompress_chunk(0, &mut out).unwrap();
    // the caller may ask for the bytes anyway
    back.set_verified_reads(false);
    assert!(back.chunk(1).is_ok());
}

#[test]
fn file_frames_stay_sealed_through_every_change() {
    for contiguous in [true, false] {
        let p = tmp(if contiguous {
            "ops.b2frame"
        } else {
            "ops.sframe"
        });
        let mut sc = filled(storage(Some(p.clone()), contiguous));
        let ins = sc.compress(&sample(4000, 99)).unwrap();
        sc.insert_chunk(1, &ins).unwrap();
        let upd = sc.compress(&sample(4000, 55)).unwrap();
        sc.update_chunk(0, &upd).unwrap();
        sc.delete_chunk(3).unwrap();
        sc.reorder(&[3, 2, 1, 0]).unwrap();
        sc.meta_update("m1", b"HELLO").unwrap();
        sc.vlmeta_update("v1", b"more user data", None).unwrap();
        all_verified(&report(&sc), 4);
        let want: Vec<Vec<u8>> = (0..4).map(|i| sc.chunk(i).unwrap().to_vec()).collect();
        drop(sc);
        let back = SuperChunk::open(&p, 0, crate::io::default_backend()).unwrap();
        assert!(back.checksums(), "contiguous={contiguous}");
        all_verified(&report(&back), 4);
        for (i, w) in want.iter().enumerate() {
            assert_eq!(&back.chunk(i as i64).unwrap()[..], &w[..]);
        }
        // the checksums can be dropped again, leaving a plain frame
        let mut back = back;
        back.set_checksums(false).unwrap();
        drop(back);
        let plain = SuperChunk::open(&p, 0, crate::io::default_backend()).unwrap();
        assert!(!plain.checksums());
        assert!(plain
            .vlmetalayers
            .iter()
            .all(|m| m.name != checksum::VLMETA_NAME));
        assert_eq!(report(&plain).frame, FrameCheck::Unverified);
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
}

/// What a writer without checksums does to a trailer: the same bytes with
/// the fingerprint slot zeroed.
fn clear_seal(frame: &mut [u8]) {
    let n = frame.len();
    frame[n - FINGERPRINT_LEN..].fill(0);
}

#[test]
fn an_old_writers_change_is_stale_not_corrupt() {
    let sc = filled(storage(None, true));
    let mut frame = sc.to_frame().unwrap();
    clear_seal(&mut frame);
    let back = SuperChunk::from_buffer(&frame, false).unwrap();
    assert!(!back.checksums());
    let r = report(&back);
    assert_eq!(r.frame, FrameCheck::Stale);
    assert_eq!(r.stale, 4);
    assert!(r.ok());
    // kept as it is, as such a writer keeps it
    assert!(back
        .vlmetalayers
        .iter()
        .any(|m| m.name == checksum::VLMETA_NAME));
    // enabling them again seals the frame anew
    let mut again = SuperChunk::from_buffer(&frame, true).unwrap();
    again.set_checksums(true).unwrap();
    let sealed = again.to_frame().unwrap();
    all_verified(
        &report(&SuperChunk::from_buffer(&sealed, false).unwrap()),
        4,
    );
}

#[test]
fn an_in_place_metalayer_update_is_reported_as_such() {
    let sc = filled(storage(None, true));
    let mut frame = sc.to_frame().unwrap();
    let at = frame.windows(5).position(|w| w == b"hello").unwrap();
    frame[at] = b'j';
    let back = SuperChunk::from_buffer(&frame, false).unwrap();
    let r = report(&back);
    assert_eq!(r.frame, FrameCheck::MetalayersChanged);
    assert_eq!(r.verified, 4);
    assert!(r.ok());
}

/// Every bit flipped in a sealed frame (one at a time) is caught: the
/// frame no longer opens, or `verify` reports damage. Only two places give
/// a milder verdict, each one what a legitimate change there looks like: a
/// metalayer's content (changed in place), and the seal's type byte
/// (another writer's fingerprint: stale).
#[test]
fn every_flipped_bit_is_detected() {
    let sc = filled(storage(None, true));
    let frame = sc.to_frame().unwrap();
    let meta = frame.windows(5).position(|w| w == b"hello").unwrap();
    let kind_byte = frame.len() - FINGERPRINT_LEN;
    assert_eq!(frame[kind_byte], checksum::SEAL_KIND);
    let mut missed = Vec::new();
    let mut flips = 0;
    for at in 0..frame.len() {
        for bit in [0x01u8, 0x80] {
            flips += 1;
            let mut f = frame.clone();
            f[at] ^= bit;
            let Ok(back) = SuperChunk::from_buffer(&f, false) else {
                continue;
            };
            let r = report(&back);
            let fine = match r.frame {
                _ if !r.ok() => true,
                FrameCheck::MetalayersChanged => (meta..meta + 5).contains(&at),
                FrameCheck::Stale | FrameCheck::Unverified => at == kind_byte,
                _ => false,
            };
            if !fine {
                missed.push((at, bit, r.frame));
            }
        }
    }
    assert!(
        missed.is_empty(),
        "{} of {flips} flips in a {}-byte frame: {missed:?}",
        missed.len(),
        frame.len()
    );
}

/// A sparse frame: every bit of its index file (header, index, trailer)
/// and a byte every 13 of each chunk file, flipped one at a time, is
/// caught by opening the directory and verifying it.
#[test]
fn every_flipped_bit_of_a_sparse_frame_is_detected() {
    let dir = tmp("flips.sframe");
    let sc = filled(storage(Some(dir.clone()), false));
    let n = sc.nchunks();
    drop(sc);
    let index = crate::frame::sframe::index_path(&dir);
    let mut files = vec![(index.clone(), 1)];
    for id in 0..n {
        let p = crate::frame::sframe::chunk_path(&dir, id);
        if p.exists() {
            files.push((p, 13));
        }
    }
    let meta = {
        let f = std::fs::read(&index).unwrap();
        f.windows(5).position(|w| w == b"hello").unwrap()
    };
    let mut missed = Vec::new();
    let mut flips = 0;
    for (path, step) in &files {
        let orig = std::fs::read(path).unwrap();
        let kind_byte = orig.len() - FINGERPRINT_LEN;
        for at in (0..orig.len()).step_by(*step) {
            flips += 1;
            let mut f = orig.clone();
            f[at] ^= 0x04;
            std::fs::write(path, &f).unwrap();
            let fine = match SuperChunk::open(&dir, 0, crate::io::default_backend()) {
                Err(_) => true,
                Ok(back) => {
                    let r = back.verify();
                    match r.frame {
                        _ if !r.ok() => true,
                        FrameCheck::MetalayersChanged => {
                            *path == index && (meta..meta + 5).contains(&at)
                        }
                        FrameCheck::Stale | FrameCheck::Unverified => {
                            *path == index && at == kind_byte
                        }
                        _ => false,
                    }
                }
            };
            if !fine {
                missed.push((path.file_name().unwrap().to_owned(), at));
            }
        }
        std::fs::write(path, &orig).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(flips > 1000, "{flips}");
    assert!(
        missed.is_empty(),
        "{} of {flips} flips: {missed:?}",
        missed.len()
    );
}

/// A b2nd array in a frame: every bit flipped is caught, or (in the b2nd
/// metalayer, which holds the shape) reported as a changed metalayer.
#[test]
fn every_flipped_bit_of_a_b2nd_frame_is_detected() {
    let data: Vec<i32> = (0..60 * 50).map(|i| i * 7 % 1013).collect();
    let mut a = crate::NdArray::builder(&[60, 50])
        .chunks(&[25, 20])
        .blocks(&[10, 10])
        .from_slice(&data)
        .unwrap();
    a.set_checksums(true).unwrap();
    let frame = a.to_frame().unwrap();
    let back = crate::NdArray::from_frame(&frame).unwrap();
    assert!(back.checksums());
    assert_eq!(back.verify().frame, FrameCheck::Sealed);
    assert_eq!(back.to_vec::<i32>().unwrap(), data);
    let sc = SuperChunk::from_buffer(&frame, false).unwrap();
    let b2nd = sc
        .metalayers
        .iter()
        .find(|m| m.name == "b2nd")
        .unwrap()
        .content
        .clone();
    let meta = frame.windows(b2nd.len()).position(|w| w == b2nd).unwrap();
    let kind_byte = frame.len() - FINGERPRINT_LEN;
    let mut missed = Vec::new();
    for at in 0..frame.len() {
        let mut f = frame.clone();
        f[at] ^= 0x20;
        let Ok(back) = SuperChunk::from_buffer(&f, false) else {
            continue;
        };
        let r = back.verify();
        let fine = match r.frame {
            _ if !r.ok() => true,
            FrameCheck::MetalayersChanged => (meta..meta + b2nd.len()).contains(&at),
            FrameCheck::Stale | FrameCheck::Unverified => at == kind_byte,
            _ => false,
        };
        if !fine {
            missed.push(at);
        }
    }
    assert!(
        missed.is_empty(),
        "{} of {}: {missed:?}",
        missed.len(),
        frame.len()
    );
}

#[test]
fn copies_keep_checksums() {
    let sc = filled(storage(None, true));
    for (contiguous, name) in [(true, "copy.b2frame"), (false, "copy.sframe")] {
        let p = tmp(name);
        let c = sc.copy_to(storage(Some(p.clone()), contiguous)).unwrap();
        assert!(c.checksums());
        drop(c);
        let back = SuperChunk::open(&p, 0, crate::io::default_backend()).unwrap();
        all_verified(&report(&back), 4);
        let names: Vec<_> = back.vlmetalayers.iter().map(|m| m.name.clone()).collect();
        assert_eq!(names, ["v1"]);
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
    // and a copy of a frame without them has none
    let mut plain = filled(storage(None, true));
    plain.set_checksums(false).unwrap();
    let c = plain.copy_to(storage(None, true)).unwrap();
    assert!(!c.checksums());
    assert_eq!(report(&c).frame, FrameCheck::Unverified);
}
